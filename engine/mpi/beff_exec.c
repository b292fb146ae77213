/* b_eff on every rank: MBX_OP_BEFF_PATTERN runs one pattern at one message
 * size with one method, `reps` timed loops of `looplength` iterations, and
 * reduces each loop's maximum time over the processes to rank 0 (paper
 * section 4: "maximum time on each process for executing the communication
 * pattern looplength times").
 *
 * Command: bytes = L; iarg[0] = method (MBX_BEFF_SENDRECV, _ALLTOALLV,
 * _NONBLOCKING); iarg[1] = looplength; iarg[2] = reps; iarg[3] = 1 frees the
 * cached buffers instead (no payload).
 * Payload, little-endian: u32 magic, i32 procs, i32 nsteps, i32 reps, then
 * procs * nsteps pairs (i32 to, i32 from; -1 for none), then reps + 1
 * doubles that rank 0's handler fills: the reps loop times (max over
 * processes, seconds) and an error flag (> 0: some rank failed).
 *
 * Every process sends L bytes per step from its own region of the send
 * buffer and receives into its own region, so the non-blocking method can
 * keep all messages in flight. One untimed iteration before the first loop
 * warms the connections; a barrier starts every loop. The buffers stay
 * allocated between commands (grown when a larger size comes) until
 * iarg[3] = 1. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "mbx/beff.h"

#define BEFF_MAGIC 0x46464542u /* "BEFF" */
#define BEFF_TAG 4100
#define MAX_REPS 100

static struct {
    char *sbuf, *rbuf;
    size_t cap;
    int *sc, *sd, *rc, *rd; /* alltoallv counts and displacements */
    int nprocs;
} cache;

static void release(void)
{
    free(cache.sbuf);
    free(cache.rbuf);
    free(cache.sc);
    free(cache.sd);
    free(cache.rc);
    free(cache.rd);
    memset(&cache, 0, sizeof cache);
}

static int32_t get_i32(const unsigned char *p)
{
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    return (int32_t)v;
}

static int ensure(size_t bytes, int procs)
{
    if (bytes > cache.cap) {
        free(cache.sbuf);
        free(cache.rbuf);
        cache.sbuf = cache.rbuf = NULL;
        cache.cap = 0;
        void *s = NULL, *r = NULL;
        if (posix_memalign(&s, 4096, bytes) != 0)
            s = NULL;
        if (posix_memalign(&r, 4096, bytes) != 0)
            r = NULL;
        if (!s || !r) {
            free(s);
            free(r);
            return MBX_E_NOMEM;
        }
        /* Touch every page now, outside the timed loops. */
        memset(s, 0x5a, bytes);
        memset(r, 0, bytes);
        cache.sbuf = s;
        cache.rbuf = r;
        cache.cap = bytes;
    }
    if (procs != cache.nprocs) {
        free(cache.sc);
        free(cache.sd);
        free(cache.rc);
        free(cache.rd);
        cache.sc = malloc((size_t)procs * sizeof(int));
        cache.sd = malloc((size_t)procs * sizeof(int));
        cache.rc = malloc((size_t)procs * sizeof(int));
        cache.rd = malloc((size_t)procs * sizeof(int));
        cache.nprocs = procs;
        if (!cache.sc || !cache.sd || !cache.rc || !cache.rd) {
            cache.nprocs = 0;
            return MBX_E_NOMEM;
        }
    }
    return MBX_OK;
}

typedef struct step_set {
    int n;
    int to[MBX_BEFF_MAXSTEPS], from[MBX_BEFF_MAXSTEPS];
} step_set;

/* Alltoallv blocks: all messages to one partner form one block (a ring of
 * two sends both of its messages to the same neighbour: one block of 2L). */
static void a2a_layout(const step_set *st, int procs, int len)
{
    memset(cache.sc, 0, (size_t)procs * sizeof(int));
    memset(cache.rc, 0, (size_t)procs * sizeof(int));
    for (int s = 0; s < st->n; s++) {
        if (st->to[s] >= 0)
            cache.sc[st->to[s]] += len;
        if (st->from[s] >= 0)
            cache.rc[st->from[s]] += len;
    }
    int so = 0, ro = 0;
    for (int p = 0; p < procs; p++) {
        cache.sd[p] = so;
        cache.rd[p] = ro;
        so += cache.sc[p];
        ro += cache.rc[p];
    }
}

static int one_iteration(MPI_Comm c, int method, const step_set *st, int len)
{
    int rc = MPI_SUCCESS;
    if (method == MBX_BEFF_ALLTOALLV)
        return MPI_Alltoallv(cache.sbuf, cache.sc, cache.sd, MPI_BYTE, cache.rbuf, cache.rc,
                             cache.rd, MPI_BYTE, c);
    if (method == MBX_BEFF_SENDRECV) {
        for (int s = 0; s < st->n && rc == MPI_SUCCESS; s++) {
            if (st->to[s] < 0 && st->from[s] < 0)
                continue;
            rc = MPI_Sendrecv(cache.sbuf + (size_t)s * (size_t)len, len, MPI_BYTE,
                              st->to[s] < 0 ? MPI_PROC_NULL : st->to[s], BEFF_TAG + s,
                              cache.rbuf + (size_t)s * (size_t)len, len, MPI_BYTE,
                              st->from[s] < 0 ? MPI_PROC_NULL : st->from[s], BEFF_TAG + s, c,
                              MPI_STATUS_IGNORE);
        }
        return rc;
    }
    MPI_Request rq[2 * MBX_BEFF_MAXSTEPS];
    /* Real statuses: GCC flags MPI_STATUSES_IGNORE as a zero-size array. */
    MPI_Status sts[2 * MBX_BEFF_MAXSTEPS];
    int nr = 0;
    for (int s = 0; s < st->n && rc == MPI_SUCCESS; s++)
        if (st->from[s] >= 0)
            rc = MPI_Irecv(cache.rbuf + (size_t)s * (size_t)len, len, MPI_BYTE, st->from[s],
                           BEFF_TAG + s, c, &rq[nr++]);
    for (int s = 0; s < st->n && rc == MPI_SUCCESS; s++)
        if (st->to[s] >= 0)
            rc = MPI_Isend(cache.sbuf + (size_t)s * (size_t)len, len, MPI_BYTE, st->to[s],
                           BEFF_TAG + s, c, &rq[nr++]);
    if (nr > 0) {
        int w = MPI_Waitall(nr, rq, sts);
        if (rc == MPI_SUCCESS)
            rc = w;
    }
    return rc;
}

int mbx_beff_exec(mbx_engine *e, const mbx_cmd *cmd, void *payload)
{
    if (cmd->iarg[3] == 1) {
        release();
        return MBX_OK;
    }
    const unsigned char *p = payload;
    int method = (int)cmd->iarg[0];
    int64_t loops = cmd->iarg[1], reps = cmd->iarg[2];
    if (!p || cmd->payload_len < 16 || method < 0 || method >= MBX_BEFF_NMETHODS || loops < 1 ||
        loops > 100000000 || reps < 1 || reps > MAX_REPS || cmd->bytes < 1 ||
        cmd->bytes > (uint64_t)INT_MAX / MBX_BEFF_MAXSTEPS)
        return MBX_E_INVAL;
    int procs = get_i32(p + 4), nsteps = get_i32(p + 8);
    size_t need = 16 + (size_t)(procs > 0 ? procs : 0) * (size_t)(nsteps > 0 ? nsteps : 0) * 8 +
                  ((size_t)reps + 1) * sizeof(double);
    if ((uint32_t)get_i32(p) != BEFF_MAGIC || procs != e->size || nsteps < 0 ||
        nsteps > MBX_BEFF_MAXSTEPS || get_i32(p + 12) != reps || cmd->payload_len != need)
        return MBX_E_INVAL;
    int len = (int)cmd->bytes;
    step_set st = {.n = nsteps};
    for (int s = 0; s < nsteps; s++) {
        const unsigned char *q = p + 16 + ((size_t)e->rank * (size_t)nsteps + (size_t)s) * 8;
        st.to[s] = get_i32(q);
        st.from[s] = get_i32(q + 4);
        if (st.to[s] < -1 || st.to[s] >= procs || st.from[s] < -1 || st.from[s] >= procs)
            return MBX_E_INVAL; /* the same on every rank: the payload is shared */
    }
    double t[MAX_REPS + 2] = {0}, red[MAX_REPS + 2] = {0};
    /* Every rank sees the same sizes, so every rank knows whether this
     * command allocates: only then may one rank fail where the others do
     * not, and only then do they agree first (a collective less per
     * command otherwise; they cost scheduler slices on a crowded machine). */
    size_t need_buf = (size_t)(nsteps > 0 ? nsteps : 1) * (size_t)len;
    if (need_buf > cache.cap || procs != cache.nprocs) {
        int bad = ensure(need_buf, procs) < 0, anybad = 1;
        int arc = MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, e->cmd);
        if (arc != MPI_SUCCESS)
            return MBX_MPI_FAIL(e, arc, "MPI_Allreduce");
        if (anybad)
            return MBX_E_NOMEM;
    }
    if (method == MBX_BEFF_ALLTOALLV)
        a2a_layout(&st, procs, len);

    /* The warm-up iteration synchronizes the partners well enough for the
     * barrier that starts each timed loop. */
    int rc = one_iteration(e->cmd, method, &st, len);
    for (int64_t r = 0; r < reps && rc == MPI_SUCCESS; r++) {
        rc = MPI_Barrier(e->cmd);
        double t0 = MPI_Wtime();
        for (int64_t i = 0; i < loops && rc == MPI_SUCCESS; i++)
            rc = one_iteration(e->cmd, method, &st, len);
        t[r] = MPI_Wtime() - t0;
    }
    if (rc != MPI_SUCCESS)
        (void)MBX_MPI_FAIL(e, rc, "a b_eff iteration");
    t[reps] = rc == MPI_SUCCESS ? 0.0 : 1.0;
    t[reps + 1] = mbx_engine_stop_carry(e);
    int rr = MPI_Reduce(t, red, (int)reps + 2, MPI_DOUBLE, MPI_MAX, 0, e->cmd);
    if (e->rank == 0 && rr == MPI_SUCCESS)
        mbx_engine_stop_note(e, red[reps + 1]);
    if (e->rank == 0 && rr == MPI_SUCCESS)
        memcpy((unsigned char *)payload + need - ((size_t)reps + 1) * sizeof(double), red,
               ((size_t)reps + 1) * sizeof(double));
    if (rr != MPI_SUCCESS)
        return MBX_MPI_FAIL(e, rr, "MPI_Reduce");
    int failed = rc != MPI_SUCCESS || (e->rank == 0 && red[reps] > 0);
    return failed ? MBX_E_MPI : MBX_OK;
}

static void put_i32(unsigned char *p, int32_t v)
{
    uint32_t u = (uint32_t)v;
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(u >> (8 * i));
}

int mbx_engine_beff_pattern(mbx_engine *e, const mbx_beff_pattern *pt, uint64_t bytes, int method,
                            int looplength, int reps, double *times)
{
    if (!e || e->rank != 0 || !pt || !times || pt->procs != e->size || pt->nsteps < 0 ||
        pt->nsteps > MBX_BEFF_MAXSTEPS || reps < 1 || reps > MAX_REPS || looplength < 1)
        return MBX_E_INVAL;
    size_t n = (size_t)pt->procs * (size_t)pt->nsteps;
    size_t toff = 16 + n * 8, len = toff + ((size_t)reps + 1) * sizeof(double);
    if (len > MBX_CMD_MAX_PAYLOAD)
        return MBX_E_INVAL;
    unsigned char *pl = calloc(1, len);
    if (!pl)
        return MBX_E_NOMEM;
    put_i32(pl, (int32_t)BEFF_MAGIC);
    put_i32(pl + 4, pt->procs);
    put_i32(pl + 8, pt->nsteps);
    put_i32(pl + 12, reps);
    for (int p = 0; p < pt->procs; p++)
        for (int s = 0; s < pt->nsteps; s++) {
            unsigned char *q = pl + 16 + ((size_t)p * (size_t)pt->nsteps + (size_t)s) * 8;
            put_i32(q, pt->to[p * MBX_BEFF_MAXSTEPS + s]);
            put_i32(q + 4, pt->from[p * MBX_BEFF_MAXSTEPS + s]);
        }
    mbx_cmd c = {.opcode = MBX_OP_BEFF_PATTERN, .bytes = bytes};
    c.iarg[0] = method;
    c.iarg[1] = looplength;
    c.iarg[2] = reps;
    c.payload_len = (uint32_t)len;
    int rc = mbx_engine_submit(e, &c, pl);
    if (rc >= 0)
        memcpy(times, pl + toff, (size_t)reps * sizeof(double));
    free(pl);
    return rc;
}

int mbx_engine_beff_release(mbx_engine *e)
{
    if (!e || e->rank != 0)
        return MBX_E_INVAL;
    mbx_cmd c = {.opcode = MBX_OP_BEFF_PATTERN};
    c.iarg[3] = 1;
    return mbx_engine_submit(e, &c, NULL);
}
