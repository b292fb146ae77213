/* SKaMPI's master-worker pattern: the master (ctx->root) hands out
 * ctx->param work pieces of ctx->bytes each, one at a time to whichever
 * worker is free; a worker returns a result of the same size at once (no
 * compute), and the master gives that worker the next piece. When every
 * piece is back, each worker gets a zero-byte stop message, which ends its
 * observation. Only the master times: from handing out the first piece to
 * the last result in (and the last stop sent).
 *
 * Nothing crosses from one observation into the next: the master receives
 * exactly one result per piece and waits for its own piece sends, and a
 * worker's stop is matched by its any-tag receive in order behind the
 * pieces it was sent, so the next observation's pieces queue behind it.
 *
 * The variants differ in how the master sends pieces (Send, Ssend, Isend,
 * Bsend) and collects results (Recv from any source, or one Irecv per
 * worker completed by Waitany or Waitsome). One loop serves them all with a
 * switch on the variant, cheaper than an indirect call. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/bench.h"
#include "patterns.h"

#define MW_PIECE_TAG 41
#define MW_RESULT_TAG 42
#define MW_STOP_TAG 43

enum mw_how { MW_SEND, MW_SSEND, MW_ISEND, MW_BSEND, MW_WAITANY, MW_WAITSOME };

/* The master's state, made in setup; workers need none. Arrays have one
 * entry per rank of the communicator, indexed by rank (the root's unused),
 * so a result's source rank is its slot. */
typedef struct mw_state {
    MPI_Request *req;    /* Isend: the piece in flight; Waitany/some: the posted Irecv */
    MPI_Status *st;      /* completed receives */
    int *idx;            /* Waitsome's completed indices */
    int64_t *piece_of;   /* check: the piece each worker holds, -1 none */
    unsigned char *seen; /* check: results seen per piece (param entries) */
    void *bsend;         /* the attached Bsend buffer, or NULL */
} mw_state;

static uint64_t mw_buf_bytes(uint64_t bytes, int procs)
{
    /* The master keeps one piece and one result slot per rank. */
    return bytes * (uint64_t)procs;
}

/* Every piece goes out and its result comes back: 2 x param messages of
 * `bytes` (the zero-byte stops are not counted). */
static void mw_moved(uint64_t bytes, int procs, int64_t param, uint64_t *b, uint64_t *m)
{
    (void)procs;
    *m = 2 * (uint64_t)param;
    *b = *m * bytes;
}

/* ---- the check pattern: the first 8 bytes carry the piece number, the
 * rest depend on it and on the position; a result is each byte plus one. */

static inline unsigned char piece_byte(int64_t p, size_t j)
{
    uint64_t u = (uint64_t)p;
    if (j < 8)
        return (unsigned char)(u >> (8 * j));
    return (unsigned char)(u * 131u + j * 7u + 0x5au);
}

static void fill_piece(unsigned char *b, size_t n, int64_t p)
{
    for (size_t j = 0; j < n; j++)
        b[j] = piece_byte(p, j);
}

/* Master: is this the right result for piece p? */
static int result_ok(const unsigned char *b, size_t n, int64_t p)
{
    for (size_t j = 0; j < n; j++)
        if (b[j] != (unsigned char)(piece_byte(p, j) + 1))
            return 0;
    return 1;
}

/* Worker: decode the piece number from what arrived, check the piece is
 * consistent and in range, and write the result into out. With fewer than
 * 8 bytes the number is only known modulo 256^n. */
static int worker_piece_ok(const unsigned char *b, unsigned char *out, size_t n, int64_t pieces)
{
    uint64_t p = 0;
    for (size_t j = 0; j < n && j < 8; j++)
        p |= (uint64_t)b[j] << (8 * j);
    int ok = 1;
    if (n >= 8 || (uint64_t)pieces <= (1ull << (8 * n)))
        ok = p < (uint64_t)pieces;
    for (size_t j = 0; j < n; j++) {
        ok &= b[j] == piece_byte((int64_t)p, j);
        out[j] = (unsigned char)(b[j] + 1);
    }
    return ok;
}

/* ---- the master ---- */

static inline unsigned char *slot(void *buf, int w, size_t n)
{
    return (unsigned char *)buf + (size_t)w * n;
}

/* Give piece p to worker w: post its result receive first (Waitany and
 * Waitsome), then send the piece from w's slot. */
static inline int give(mbx_bench_ctx *c, mw_state *s, enum mw_how how, int w, int64_t p, int check)
{
    size_t n = (size_t)c->count;
    unsigned char *piece = slot(c->sbuf, w, n);
    int rc;
    /* The slot of w's previous piece is reused: that send must be done. */
    if (how == MW_ISEND && s->req[w] != MPI_REQUEST_NULL &&
        (rc = MPI_Wait(&s->req[w], MPI_STATUS_IGNORE)) != MPI_SUCCESS)
        return rc;
    if (check) {
        fill_piece(piece, n, p);
        s->piece_of[w] = p;
    }
    if (how == MW_WAITANY || how == MW_WAITSOME) {
        unsigned char *res = slot(c->rbuf, w, n);
        if (check)
            memset(res, 0, n);
        rc = MPI_Irecv(res, c->count, MPI_BYTE, w, MW_RESULT_TAG, c->comm, &s->req[w]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    switch (how) {
    case MW_SSEND: return MPI_Ssend(piece, c->count, MPI_BYTE, w, MW_PIECE_TAG, c->comm);
    case MW_ISEND:
        return MPI_Isend(piece, c->count, MPI_BYTE, w, MW_PIECE_TAG, c->comm, &s->req[w]);
    case MW_BSEND: return MPI_Bsend(piece, c->count, MPI_BYTE, w, MW_PIECE_TAG, c->comm);
    case MW_SEND:
    case MW_WAITANY:
    case MW_WAITSOME: break;
    }
    return MPI_Send(piece, c->count, MPI_BYTE, w, MW_PIECE_TAG, c->comm);
}

static inline int stop(mbx_bench_ctx *c, int w)
{
    return MPI_Send(c->sbuf, 0, MPI_BYTE, w, MW_STOP_TAG, c->comm);
}

/* Check one result from worker w that arrived in res. */
static void verify(mbx_bench_ctx *c, mw_state *s, int w, const MPI_Status *st,
                   const unsigned char *res, int *bad)
{
    int got = -1;
    int64_t p = w >= 0 && w < c->size && w != c->root ? s->piece_of[w] : -1;
    if (MPI_Get_count(st, MPI_BYTE, &got) != MPI_SUCCESS || got != c->count || p < 0 ||
        p >= c->param || !result_ok(res, (size_t)c->count, p)) {
        *bad = 1;
        return;
    }
    if (s->seen[p]++ != 0)
        *bad = 1;
    s->piece_of[w] = -1;
}

/* One observation on the master. check: fill pieces, verify results. */
static int mw_master(mbx_bench_ctx *c, mw_state *s, enum mw_how how, int check, int *bad)
{
    const int64_t pieces = c->param;
    int64_t next = 0, done = 0;
    size_t n = (size_t)c->count;
    int rc = MPI_SUCCESS;
    /* Every worker starts with a piece; with fewer pieces than workers the
     * rest stop at once. */
    for (int w = 0; w < c->size && rc == MPI_SUCCESS; w++)
        if (w != c->root)
            rc = next < pieces ? give(c, s, how, w, next++, check) : stop(c, w);
    while (rc == MPI_SUCCESS && done < pieces) {
        int ndone = 1;
        switch (how) {
        case MW_WAITANY: rc = MPI_Waitany(c->size, s->req, &s->idx[0], &s->st[0]); break;
        case MW_WAITSOME: rc = MPI_Waitsome(c->size, s->req, &ndone, s->idx, s->st); break;
        case MW_SEND:
        case MW_SSEND:
        case MW_ISEND:
        case MW_BSEND:
            if (check)
                memset(c->rbuf, 0, n);
            rc = MPI_Recv(c->rbuf, c->count, MPI_BYTE, MPI_ANY_SOURCE, MW_RESULT_TAG, c->comm,
                          &s->st[0]);
            s->idx[0] = s->st[0].MPI_SOURCE;
            break;
        }
        /* A piece is always out while done < pieces, so nothing may come
         * back empty-handed. */
        if (rc == MPI_SUCCESS && (ndone < 1 || s->idx[0] < 0 || s->idx[0] >= c->size))
            rc = MPI_ERR_INTERN;
        for (int i = 0; i < ndone && rc == MPI_SUCCESS; i++) {
            int w = s->idx[i];
            done++;
            if (check)
                verify(c, s, w, &s->st[i],
                       how == MW_WAITANY || how == MW_WAITSOME ? slot(c->rbuf, w, n) : c->rbuf,
                       bad);
            rc = next < pieces ? give(c, s, how, w, next++, check) : stop(c, w);
        }
    }
    if (rc == MPI_SUCCESS && how == MW_ISEND)
        rc = MPI_Waitall(c->size, s->req, s->st);
    return rc;
}

/* ---- the workers ---- */

/* One observation on a worker: answer pieces until the stop. check:
 * verify each piece, answer with its result, count the pieces in *got. */
static int mw_worker(mbx_bench_ctx *c, int check, int64_t *got, int *bad)
{
    size_t n = (size_t)c->count;
    for (;;) {
        MPI_Status st;
        int rc = MPI_Recv(c->rbuf, c->count, MPI_BYTE, c->root, MPI_ANY_TAG, c->comm, &st);
        if (rc != MPI_SUCCESS)
            return rc;
        if (st.MPI_TAG == MW_STOP_TAG)
            return MPI_SUCCESS;
        if (check) {
            int len = -1;
            if (st.MPI_TAG != MW_PIECE_TAG || MPI_Get_count(&st, MPI_BYTE, &len) != MPI_SUCCESS ||
                len != c->count || !worker_piece_ok(c->rbuf, c->sbuf, n, c->param))
                *bad = 1;
            (*got)++;
        }
        rc = MPI_Send(c->sbuf, c->count, MPI_BYTE, c->root, MW_RESULT_TAG, c->comm);
        if (rc != MPI_SUCCESS)
            return rc;
    }
}

/* ---- set-up ---- */

static void mw_teardown(mbx_bench_ctx *c)
{
    mw_state *s = c->priv;
    if (!s)
        return;
    if (s->bsend) {
        /* Detach waits until every buffered piece has left. */
        void *addr;
        int len;
        (void)MPI_Buffer_detach(&addr, &len);
        free(s->bsend);
    }
    free(s->req);
    free(s->st);
    free(s->idx);
    free(s->piece_of);
    free(s->seen);
    free(s);
    c->priv = NULL;
}

/* The master's Bsend buffer: each worker holds at most one piece, and one
 * spare because the library may reclaim a delivered piece's space only at
 * its next Bsend. Each piece is rounded up to 16 bytes, as MPICH aligns
 * the pieces it carves out of the buffer. */
static int attach_bsend(mbx_bench_ctx *c, mw_state *s)
{
    int pack = 0, rc = MPI_Pack_size(c->count, MPI_BYTE, c->comm, &pack);
    if (rc != MPI_SUCCESS)
        return rc;
    uint64_t per = ((uint64_t)pack + 15u) / 16u * 16u + (uint64_t)MPI_BSEND_OVERHEAD;
    uint64_t len = per * (uint64_t)c->size;
    if (len > INT_MAX)
        return MPI_ERR_BUFFER;
    if (!(s->bsend = malloc((size_t)len)))
        return MPI_ERR_NO_MEM;
    memset(s->bsend, 0, (size_t)len); /* first-touch faults before timing */
    rc = MPI_Buffer_attach(s->bsend, (int)len);
    if (rc != MPI_SUCCESS) {
        free(s->bsend);
        s->bsend = NULL;
    }
    return rc;
}

static int mw_setup_master(mbx_bench_ctx *c, int bsend)
{
    if (c->param < 1)
        return MPI_ERR_ARG;
    mw_state *s = calloc(1, sizeof *s);
    if (!s)
        return MPI_ERR_NO_MEM;
    c->priv = s;
    size_t np = (size_t)c->size;
    s->req = malloc(np * sizeof *s->req);
    s->st = malloc(np * sizeof *s->st);
    s->idx = malloc(np * sizeof *s->idx);
    s->piece_of = malloc(np * sizeof *s->piece_of);
    s->seen = calloc((size_t)c->param, 1);
    if (!s->req || !s->st || !s->idx || !s->piece_of || !s->seen)
        return MPI_ERR_NO_MEM;
    for (size_t i = 0; i < np; i++) {
        s->req[i] = MPI_REQUEST_NULL;
        s->piece_of[i] = -1;
    }
    return bsend ? attach_bsend(c, s) : MPI_SUCCESS;
}

/* Every rank agrees on the outcome: a worker must not start the warm-up
 * when the master failed, or it would wait for pieces forever. */
static int mw_setup_common(mbx_bench_ctx *c, int bsend)
{
    int err = 0, any = 0;
    if (c->rank == c->root)
        err = mw_setup_master(c, bsend) != MPI_SUCCESS;
    int rc = MPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, c->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    return any ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int mw_setup(mbx_bench_ctx *c)
{
    return mw_setup_common(c, 0);
}

static int mw_setup_bsend(mbx_bench_ctx *c)
{
    return mw_setup_common(c, 1);
}

/* ---- run and check ---- */

static int mw_loop(mbx_bench_ctx *c, size_t k, double *t, enum mw_how how)
{
    /* The command that starts a batch reaches ranks at different times:
     * the first timed observation must not wait for a late worker. */
    int rc = MPI_Barrier(c->comm);
    if (c->rank == c->root) {
        mw_state *s = c->priv;
        c->timing = 1;
        for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
            if ((rc = mbx_obs_sync(c, i, 0)) != MPI_SUCCESS)
                break;
            double t0 = mbx_timer_now(c->timer);
            rc = mw_master(c, s, how, 0, NULL);
            t[i] = mbx_timer_now(c->timer) - t0;
        }
    } else {
        for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
            rc = mbx_obs_sync(c, i, 0);
            if (rc == MPI_SUCCESS)
                rc = mw_worker(c, 0, NULL, NULL);
        }
    }
    return rc;
}

/* One checked observation; then the workers' piece counts are summed at
 * the master, which also holds the only exact account (every piece back
 * once). With 0-byte pieces the counts are all there is to check. */
static int mw_check(mbx_bench_ctx *c, int *bad, enum mw_how how)
{
    int64_t got = 0, total = 0;
    int rc = MPI_Barrier(c->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (c->rank == c->root) {
        mw_state *s = c->priv;
        memset(s->seen, 0, (size_t)c->param);
        for (int w = 0; w < c->size; w++)
            s->piece_of[w] = -1;
        rc = mw_master(c, s, how, 1, bad);
        for (int64_t p = 0; rc == MPI_SUCCESS && p < c->param; p++)
            if (s->seen[p] != 1)
                *bad = 1;
    } else {
        rc = mw_worker(c, 1, &got, bad);
    }
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Reduce(&got, &total, 1, MPI_INT64_T, MPI_SUM, c->root, c->comm);
    if (rc == MPI_SUCCESS && c->rank == c->root && total != c->param)
        *bad = 1;
    return rc;
}

#define MW_FNS(sfx, how)                                                                           \
    static int run_##sfx(mbx_bench_ctx *c, size_t k, double *t)                                    \
    {                                                                                              \
        return mw_loop(c, k, t, how);                                                              \
    }                                                                                              \
    static int check_##sfx(mbx_bench_ctx *c, int *bad)                                             \
    {                                                                                              \
        return mw_check(c, bad, how);                                                              \
    }
MW_FNS(send, MW_SEND)
MW_FNS(ssend, MW_SSEND)
MW_FNS(isend, MW_ISEND)
MW_FNS(bsend, MW_BSEND)
MW_FNS(waitany, MW_WAITANY)
MW_FNS(waitsome, MW_WAITSOME)

#define MW(nm, sfx, setupfn, text)                                                                 \
    {                                                                                              \
        .name = nm, .pattern = "mw", .summary = text, .timing = "master", .min_procs = 2,          \
        .flags = MBX_BENCH_SIZED | MBX_BENCH_PARAM | MBX_BENCH_ROOTED, .unit = 1, .divisor = 1.0,  \
        .buf_bytes = mw_buf_bytes, .setup = setupfn, .run = run_##sfx, .teardown = mw_teardown,    \
        .check = check_##sfx, .param_name = "pieces", .param_default = 16, .moved = mw_moved       \
    }

/* The pattern's place in the registry, the picker's and `mpibex list`'s
 * order (engine/mpi/CMakeLists.txt reads this line). */
#define MBX_PATTERN_ORDER 50
const mbx_bench mbx_bench_mw_table[] = {
    MW("mw.send", send, mw_setup,
       "master MPI_Send pieces, MPI_Recv(ANY_SOURCE) results; master's time to hand out and "
       "collect all pieces"),
    MW("mw.ssend", ssend, mw_setup,
       "master MPI_Ssend pieces, MPI_Recv(ANY_SOURCE) results; master's time to hand out and "
       "collect all pieces"),
    MW("mw.isend", isend, mw_setup,
       "master MPI_Isend pieces, MPI_Recv(ANY_SOURCE) results; master's time to hand out and "
       "collect all pieces"),
    MW("mw.bsend", bsend, mw_setup_bsend,
       "master MPI_Bsend pieces, MPI_Recv(ANY_SOURCE) results; master's time to hand out and "
       "collect all pieces"),
    MW("mw.waitany", waitany, mw_setup,
       "master MPI_Send pieces, one MPI_Irecv per worker + MPI_Waitany; master's time to hand "
       "out and collect all pieces"),
    MW("mw.waitsome", waitsome, mw_setup,
       "master MPI_Send pieces, one MPI_Irecv per worker + MPI_Waitsome; master's time to hand "
       "out and collect all pieces"),
};
const size_t mbx_bench_mw_count = sizeof mbx_bench_mw_table / sizeof mbx_bench_mw_table[0];
