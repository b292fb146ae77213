/* b_eff_io, the MPI side: one pattern type under one access method per
 * command (MBX_OP_BEFFIO_PATTERN), every rank taking part.
 *
 * Wire: iarg[0] type, iarg[1] access, bytes MPART, darg[0] T, darg[1] the
 * write byte budget; payload: MBX_BEFFIO_MAXPERTYPE repetition counts and
 * the segment size as little-endian uint64, then the directory, NUL-ended.
 *
 * Time-driven loops: rank 0 decides how many more repetitions to do from
 * its own clock and broadcasts the count (doubling batches, so a 1 kB
 * pattern does not pay one broadcast per call for long); every rank does
 * exactly that many, so collective calls match. The broadcast is part of
 * the measured loop. Types 3 and 4 are size-driven (fixed counts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "mbx/beffio.h"

#define PAYLOAD_FIXED ((MBX_BEFFIO_MAXPERTYPE + 1) * 8)

/* Rank 0's view of the last phase, and its stop hook. */
static mbx_beffio_phase_out last;
static int (*stop_fn)(void *);
static void *stop_ud;

/* The data buffer (up to MPART) is kept from phase to phase: first-touching
 * a fresh buffer of 1/128 of the memory costs most of a second on a small
 * VM. It is freed after the last phase (type 4, read), on errors and, on
 * rank 0, when a phase was stopped (other ranks free it at the next run's
 * end or at exit). */
static unsigned char *keep_buf;
static size_t keep_len;

static unsigned char *get_buffer(size_t len, int rank)
{
    if (keep_buf && keep_len >= len)
        return keep_buf;
    free(keep_buf);
    keep_len = 0;
    keep_buf = malloc(len);
    if (keep_buf) {
        memset(keep_buf, 'a' + rank % 26, len);
        keep_len = len;
    }
    return keep_buf;
}

static void drop_buffer(void)
{
    free(keep_buf);
    keep_buf = NULL;
    keep_len = 0;
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

typedef struct phase {
    mbx_engine *e;
    int type, access, rank, size;
    const mbx_beffio_pattern *rows;
    int n;
    uint64_t reps_in[MBX_BEFFIO_MAXPERTYPE], segment;
    double T, budget;
    MPI_File fh;
    unsigned char *buf;
    int err;
} phase;

/* Rank 0: how many more repetitions (0: the pattern is done). */
static uint64_t decide(double elapsed, uint64_t done, uint64_t prev, uint64_t cap, double budget,
                       int *stopped)
{
    if (done >= cap || (done > 0 && elapsed >= budget))
        return 0;
    if (stop_fn && stop_fn(stop_ud)) {
        *stopped = 1;
        return 0;
    }
    if (done == 0)
        return 1;
    double per = elapsed / (double)done, left = (budget - elapsed) / per;
    uint64_t k = left < 1.0 ? 1 : (uint64_t)left;
    if (k > 2 * prev)
        k = 2 * prev;
    if (k > cap - done)
        k = cap - done;
    return k;
}

/* One call of the pattern: repetition i, `len` bytes per process at
 * region offset `base` of the type's file. */
static void one_call(phase *ph, const mbx_beffio_pattern *r, uint64_t i, uint64_t base,
                     uint64_t len)
{
    int wr = ph->access != MBX_BEFFIO_READ, rc = MPI_SUCCESS, cnt = (int)len;
    MPI_Status st;
    MPI_Offset off;
    switch (ph->type) {
    case 0:
        rc = wr ? MPI_File_write_all(ph->fh, ph->buf, cnt, MPI_BYTE, &st)
                : MPI_File_read_all(ph->fh, ph->buf, cnt, MPI_BYTE, &st);
        break;
    case 1:
        off = (MPI_Offset)(base + (i * (uint64_t)ph->size + (uint64_t)ph->rank) * r->l);
        rc = wr ? MPI_File_write_at_all(ph->fh, off, ph->buf, cnt, MPI_BYTE, &st)
                : MPI_File_read_at_all(ph->fh, off, ph->buf, cnt, MPI_BYTE, &st);
        break;
    case 2:
    case 3:
    case 4:
        off = (MPI_Offset)(base + i * len);
        if (ph->type != 2)
            off += (MPI_Offset)((uint64_t)ph->rank * ph->segment);
        if (ph->type == 4)
            rc = wr ? MPI_File_write_at_all(ph->fh, off, ph->buf, cnt, MPI_BYTE, &st)
                    : MPI_File_read_at_all(ph->fh, off, ph->buf, cnt, MPI_BYTE, &st);
        else
            rc = wr ? MPI_File_write_at(ph->fh, off, ph->buf, cnt, MPI_BYTE, &st)
                    : MPI_File_read_at(ph->fh, off, ph->buf, cnt, MPI_BYTE, &st);
        break;
    }
    int got = 0;
    if (rc != MPI_SUCCESS || MPI_Get_count(&st, MPI_BYTE, &got) != MPI_SUCCESS || got != cnt)
        ph->err = 1;
}

/* Type 0's view: l-byte blocks, every size-th one belongs to this rank. */
static int scatter_view(phase *ph, const mbx_beffio_pattern *r, uint64_t base)
{
    MPI_Datatype blk, ft;
    int rc = MPI_Type_contiguous((int)r->l, MPI_BYTE, &blk);
    if (rc != MPI_SUCCESS)
        return MBX_MPI_FAIL(ph->e, rc, "MPI_Type_contiguous");
    rc = MPI_Type_create_resized(blk, 0, (MPI_Aint)(r->l * (uint64_t)ph->size), &ft);
    MPI_Type_free(&blk);
    if (rc != MPI_SUCCESS)
        return MBX_MPI_FAIL(ph->e, rc, "MPI_Type_create_resized");
    if ((rc = MPI_Type_commit(&ft)) != MPI_SUCCESS)
        return MBX_MPI_FAIL(ph->e, rc, "MPI_Type_commit");
    rc = MPI_File_set_view(ph->fh, (MPI_Offset)(base + (uint64_t)ph->rank * r->l), MPI_BYTE, ft,
                           "native", MPI_INFO_NULL);
    MPI_Type_free(&ft);
    return rc == MPI_SUCCESS ? MBX_OK : MBX_E_IO;
}

static int run_patterns(phase *ph, uint64_t fill, double *bytes, double *times, uint64_t *reps,
                        int *stopped)
{
    int root = ph->rank == 0, timed = ph->type <= 2, wr = ph->access != MBX_BEFFIO_READ;
    uint64_t base = 0;
    double used = 0.0;
    for (int k = 0; k < ph->n; k++) {
        const mbx_beffio_pattern *r = &ph->rows[k];
        uint64_t len = r->fill ? fill : (ph->type == 0 ? r->L : r->l);
        uint64_t cap = r->fill ? 1 : ph->reps_in[k];
        if (timed && ph->access == MBX_BEFFIO_WRITE) {
            double reserve = 0.0;
            for (int j = k + 1; j < ph->n; j++)
                reserve += (double)ph->rows[j].L * ph->size;
            double room = (ph->budget - used - reserve) / ((double)len * ph->size);
            cap = room < 1.0 ? 1 : (uint64_t)room;
        }
        if (ph->type == 0 && scatter_view(ph, r, base) < 0)
            ph->err = 1;
        double budget = mbx_beffio_budget(ph->T, r->unit);
        uint64_t done = 0, k_prev = 1;
        double t0 = MPI_Wtime();
        if (!timed) {
            for (; done < cap; done++)
                one_call(ph, r, done, base, len);
        } else {
            for (;;) {
                uint64_t more = 0;
                if (root)
                    more = decide(MPI_Wtime() - t0, done, k_prev, cap, budget, stopped);
                int mrc = MPI_Bcast(&more, 1, MPI_UINT64_T, 0, ph->e->cmd);
                if (mrc != MPI_SUCCESS)
                    return MBX_MPI_FAIL(ph->e, mrc, "MPI_Bcast");
                if (more == 0)
                    break;
                for (uint64_t i = 0; i < more; i++)
                    one_call(ph, r, done + i, base, len);
                done += more;
                k_prev = more;
            }
        }
        if (wr && MPI_File_sync(ph->fh) != MPI_SUCCESS)
            ph->err = 1;
        times[k] = MPI_Wtime() - t0;
        bytes[k] = (double)done * (double)len;
        reps[k] = done;
        used += (double)done * (double)len * ph->size;
        /* The layout is the write's: rewrite and read may stop earlier. */
        uint64_t wreps = ph->access == MBX_BEFFIO_WRITE || r->fill ? done : ph->reps_in[k];
        if (ph->type <= 1)
            base += wreps * len * (uint64_t)ph->size;
        else
            base += wreps * len;
    }
    return MBX_OK;
}

/* The command's phase, checked: type and access, the payload's repetition
 * counts, segment and directory (*dir points into the payload); the rows
 * point into table, and *fill is the fill pattern's size (types 3, 4). */
static int phase_read(mbx_engine *e, const mbx_cmd *cmd, const void *payload,
                      mbx_beffio_pattern *table, phase *ph, uint64_t *fill, const char **dir)
{
    *ph = (phase){.e = e, .rank = e->rank, .size = e->size};
    ph->type = (int)cmd->iarg[0];
    ph->access = (int)cmd->iarg[1];
    ph->T = cmd->darg[0];
    ph->budget = cmd->darg[1];
    const unsigned char *p = payload;
    if (ph->type < 0 || ph->type >= MBX_BEFFIO_NTYPES || ph->access < 0 ||
        ph->access >= MBX_BEFFIO_NACCESS || !p || cmd->payload_len <= PAYLOAD_FIXED ||
        p[cmd->payload_len - 1] != '\0' || cmd->bytes < 2 * MBX_BEFFIO_MIB)
        return MBX_E_INVAL;
    for (int k = 0; k < MBX_BEFFIO_MAXPERTYPE; k++)
        ph->reps_in[k] = get_u64(p + 8 * k);
    ph->segment = get_u64(p + 8 * MBX_BEFFIO_MAXPERTYPE);
    *dir = (const char *)p + PAYLOAD_FIXED;

    mbx_beffio_table(cmd->bytes, table);
    ph->rows = table + mbx_beffio_type_first(ph->type);
    ph->n = mbx_beffio_type_count(ph->type);
    *fill = 0;
    if (ph->type >= 3) {
        uint64_t seg;
        mbx_beffio_segment(ph->rows, ph->reps_in, &seg, fill);
        if (seg != ph->segment)
            return MBX_E_INVAL;
    }
    return MBX_OK;
}

/* Every rank: the data buffer (the phase's largest call, at least 1 MiB),
 * then the phase's file (one per rank for type 2, else one shared), opened
 * by every rank or by none. *t_open: when the opening started. */
static int phase_open(phase *ph, const char *dir, double *t_open)
{
    mbx_engine *e = ph->e;
    uint64_t maxlen = MBX_BEFFIO_MIB;
    for (int k = 0; k < ph->n; k++)
        if (ph->rows[k].L > maxlen)
            maxlen = ph->rows[k].L;
    char path[4096];
    if (ph->type == 2)
        snprintf(path, sizeof path, "%s/t2.%d", dir, ph->rank);
    else
        snprintf(path, sizeof path, "%s/t%d", dir, ph->type);
    ph->buf = get_buffer(maxlen, ph->rank);
    int amode = ph->access == MBX_BEFFIO_WRITE     ? MPI_MODE_CREATE | MPI_MODE_WRONLY
                : ph->access == MBX_BEFFIO_REWRITE ? MPI_MODE_WRONLY
                                                   : MPI_MODE_RDONLY;
    MPI_Comm fc = ph->type == 2 ? MPI_COMM_SELF : e->cmd;

    int bad = ph->buf == NULL, anybad = 0;
    int mrc = MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, e->cmd);
    if (mrc != MPI_SUCCESS) {
        drop_buffer();
        return MBX_MPI_FAIL(e, mrc, "MPI_Allreduce");
    }
    if (anybad) {
        drop_buffer();
        return MBX_E_NOMEM;
    }
    if ((mrc = MPI_Barrier(e->cmd)) != MPI_SUCCESS) {
        drop_buffer();
        return MBX_MPI_FAIL(e, mrc, "MPI_Barrier");
    }
    *t_open = MPI_Wtime();
    /* By name through MPI-IO (the timed open of b_eff_io), not
     * mbx_file_create: dir is the run's own mkdtemp directory (0700). */
    bad = MPI_File_open(fc, path, amode, MPI_INFO_NULL, &ph->fh) != MPI_SUCCESS;
    if ((mrc = MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, e->cmd)) != MPI_SUCCESS) {
        drop_buffer();
        return MBX_MPI_FAIL(e, mrc, "MPI_Allreduce");
    }
    if (anybad) {
        if (!bad)
            MPI_File_close(&ph->fh);
        drop_buffer();
        return MBX_E_IO;
    }
    return MBX_OK;
}

/* What one phase measured on this rank. */
typedef struct phase_times {
    double bytes[MBX_BEFFIO_MAXPERTYPE], times[MBX_BEFFIO_MAXPERTYPE];
    uint64_t reps[MBX_BEFFIO_MAXPERTYPE];
    double t_type; /* open to close */
    int stopped;
} phase_times;

/* To rank 0: bytes summed, times and the error flag maxed; rank 0 keeps
 * the phase in `last`. */
static int phase_report(phase *ph, const phase_times *pt)
{
    mbx_engine *e = ph->e;
    double mx[MBX_BEFFIO_MAXPERTYPE + 3], sm[MBX_BEFFIO_MAXPERTYPE + 1];
    double rmx[MBX_BEFFIO_MAXPERTYPE + 3], rsm[MBX_BEFFIO_MAXPERTYPE + 1];
    double tb = 0.0;
    for (int k = 0; k < ph->n; k++) {
        mx[k] = pt->times[k];
        sm[k] = pt->bytes[k];
        tb += pt->bytes[k];
    }
    mx[ph->n] = pt->t_type;
    mx[ph->n + 1] = ph->err;
    mx[ph->n + 2] = mbx_engine_stop_carry(e);
    sm[ph->n] = tb;
    int mrc = MPI_Reduce(mx, rmx, ph->n + 3, MPI_DOUBLE, MPI_MAX, 0, e->cmd);
    if (mrc == MPI_SUCCESS)
        mrc = MPI_Reduce(sm, rsm, ph->n + 1, MPI_DOUBLE, MPI_SUM, 0, e->cmd);
    if (mrc != MPI_SUCCESS)
        return MBX_MPI_FAIL(e, mrc, "MPI_Reduce");
    if (e->rank == 0)
        mbx_engine_stop_note(e, rmx[ph->n + 2]);
    if (ph->rank != 0)
        return ph->err ? MBX_E_IO : MBX_OK;
    memset(&last, 0, sizeof last);
    last.npat = ph->n;
    for (int k = 0; k < ph->n; k++) {
        last.reps[k] = pt->reps[k];
        last.bytes[k] = rsm[k];
        last.time[k] = rmx[k];
    }
    last.type_bytes = rsm[ph->n];
    last.type_time = rmx[ph->n];
    last.stopped = pt->stopped;
    return rmx[ph->n + 1] > 0 ? MBX_E_IO : MBX_OK;
}

int mbx_beffio_exec(mbx_engine *e, const mbx_cmd *cmd, const void *payload)
{
    phase ph;
    mbx_beffio_pattern table[MBX_BEFFIO_NPATTERNS];
    uint64_t fill = 0;
    const char *dir = NULL;
    int rc = phase_read(e, cmd, payload, table, &ph, &fill, &dir);
    if (rc < 0)
        return rc;
    double t_open = 0.0;
    if ((rc = phase_open(&ph, dir, &t_open)) < 0)
        return rc;
    phase_times pt = {.stopped = 0};
    rc = run_patterns(&ph, fill, pt.bytes, pt.times, pt.reps, &pt.stopped);
    if (MPI_File_close(&ph.fh) != MPI_SUCCESS)
        ph.err = 1;
    pt.t_type = MPI_Wtime() - t_open;
    if (rc < 0 || ph.err || pt.stopped ||
        (ph.type == MBX_BEFFIO_NTYPES - 1 && ph.access == MBX_BEFFIO_READ))
        drop_buffer();
    if (rc < 0)
        return rc;
    return phase_report(&ph, &pt);
}

int mbx_engine_beffio_phase(mbx_engine *e, const mbx_beffio_phase_in *in, mbx_beffio_phase_out *out)
{
    if (!e || e->rank != 0 || !in || !out || !in->dir || in->T_s <= 0 ||
        mbx_beffio_type_count(in->type) == 0 || in->access < 0 || in->access >= MBX_BEFFIO_NACCESS)
        return MBX_E_INVAL;
    size_t dl = strlen(in->dir) + 1, len = PAYLOAD_FIXED + dl;
    if (len > MBX_CMD_MAX_PAYLOAD || dl > 4000)
        return MBX_E_INVAL;
    unsigned char *pl = malloc(len);
    if (!pl)
        return MBX_E_NOMEM;
    for (int k = 0; k < MBX_BEFFIO_MAXPERTYPE; k++)
        put_u64(pl + 8 * k, in->reps[k]);
    put_u64(pl + 8 * MBX_BEFFIO_MAXPERTYPE, in->segment);
    memcpy(pl + PAYLOAD_FIXED, in->dir, dl);
    mbx_cmd c = {.opcode = MBX_OP_BEFFIO_PATTERN, .bytes = in->mpart};
    c.iarg[0] = in->type;
    c.iarg[1] = in->access;
    c.darg[0] = in->T_s;
    c.darg[1] = in->budget_bytes;
    c.payload_len = (uint32_t)len;
    stop_fn = in->stop;
    stop_ud = in->ud;
    memset(&last, 0, sizeof last);
    int rc = mbx_engine_submit(e, &c, pl);
    stop_fn = NULL;
    stop_ud = NULL;
    free(pl);
    *out = last;
    return rc;
}
