/* Collectives, barrier-synchronized (SKaMPI's collective pattern): each
 * observation is MPI_Barrier (or, with window sync, the start of its
 * window on the global clock), read the timer, the operation, read the
 * timer, on every rank; the engine takes the maximum over ranks.
 *
 * Reductions (reduce, allreduce, reduce_scatter(_block), scan, exscan) use
 * MPI_FLOAT and MPI_SUM, so their sizes are multiples of 4 bytes. For
 * gather, scatter, allgather, alltoall and their v- and i-variants the size
 * is the block one rank sends to (or receives from) one rank; for
 * reduce_scatter(_block) it is each rank's block of the result, the input
 * being procs blocks. The v-variants use equal counts and contiguous
 * displacements, so they move the same data as the plain ones and show only
 * the cost of the vector interface. Rooted operations use ctx->root.
 *
 * Non-blocking variants are timed to completion: start plus MPI_Wait.
 * comm_split (two halves by rank parity) and comm_dup time the creation
 * only; the new communicator is freed after the second timer read, outside
 * the timed region, as SKaMPI measures MPI_Comm_split alone. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bench_coll.h"
#include "patterns.h"

uint64_t mbx_coll_buf_same(uint64_t bytes, int procs)
{
    (void)procs;
    return bytes;
}

uint64_t mbx_coll_buf_times_procs(uint64_t bytes, int procs)
{
    return bytes * (uint64_t)procs;
}

uint64_t mbx_coll_buf_none(uint64_t bytes, int procs)
{
    (void)bytes;
    (void)procs;
    return 0;
}

#define B MPI_BYTE
#define F MPI_FLOAT

/* Start a non-blocking collective (the i-variants only); *q is its
 * request. Inline in both timed loops: a switch costs less than an indirect
 * call in the region. */
static inline int coll_istart(mbx_bench_ctx *c, enum mbx_coll_op op, MPI_Request *q)
{
    mbx_coll_priv *p = c->priv;
    void *s = c->sbuf, *r = c->rbuf;
    int n = c->count, root = c->root, *cn = p->counts, *dp = p->displs;
    MPI_Comm w = c->comm;
    switch (op) {
    case MBX_COLL_IBARRIER: return MPI_Ibarrier(w, q);
    case MBX_COLL_IBCAST: return MPI_Ibcast(s, n, B, root, w, q);
    case MBX_COLL_IREDUCE: return MPI_Ireduce(s, r, n, F, MPI_SUM, root, w, q);
    case MBX_COLL_IALLREDUCE: return MPI_Iallreduce(s, r, n, F, MPI_SUM, w, q);
    case MBX_COLL_IREDUCE_SCATTER: return MPI_Ireduce_scatter(s, r, cn, F, MPI_SUM, w, q);
    case MBX_COLL_IREDUCE_SCATTER_BLOCK:
        return MPI_Ireduce_scatter_block(s, r, n, F, MPI_SUM, w, q);
    case MBX_COLL_ISCAN: return MPI_Iscan(s, r, n, F, MPI_SUM, w, q);
    case MBX_COLL_IEXSCAN: return MPI_Iexscan(s, r, n, F, MPI_SUM, w, q);
    case MBX_COLL_IGATHER: return MPI_Igather(s, n, B, r, n, B, root, w, q);
    case MBX_COLL_IGATHERV: return MPI_Igatherv(s, n, B, r, cn, dp, B, root, w, q);
    case MBX_COLL_ISCATTER: return MPI_Iscatter(s, n, B, r, n, B, root, w, q);
    case MBX_COLL_ISCATTERV: return MPI_Iscatterv(s, cn, dp, B, r, n, B, root, w, q);
    case MBX_COLL_IALLGATHER: return MPI_Iallgather(s, n, B, r, n, B, w, q);
    case MBX_COLL_IALLGATHERV: return MPI_Iallgatherv(s, n, B, r, cn, dp, B, w, q);
    case MBX_COLL_IALLTOALL: return MPI_Ialltoall(s, n, B, r, n, B, w, q);
    case MBX_COLL_IALLTOALLV: return MPI_Ialltoallv(s, cn, dp, B, r, cn, dp, B, w, q);
    default: return MPI_ERR_OTHER;
    }
}

/* One timed loop for every collective: the operation is the only thing that
 * differs, and a switch costs less than an indirect call in the region. */
static inline int coll_once(mbx_bench_ctx *c, enum mbx_coll_op op)
{
    mbx_coll_priv *p = c->priv;
    void *s = c->sbuf, *r = c->rbuf;
    int n = c->count, root = c->root, *cn = p->counts, *dp = p->displs;
    MPI_Comm w = c->comm;
    switch (op) {
    case MBX_COLL_BARRIER: return MPI_Barrier(w);
    case MBX_COLL_BCAST: return MPI_Bcast(s, n, B, root, w);
    case MBX_COLL_REDUCE: return MPI_Reduce(s, r, n, F, MPI_SUM, root, w);
    case MBX_COLL_ALLREDUCE: return MPI_Allreduce(s, r, n, F, MPI_SUM, w);
    case MBX_COLL_REDUCE_SCATTER: return MPI_Reduce_scatter(s, r, cn, F, MPI_SUM, w);
    case MBX_COLL_REDUCE_SCATTER_BLOCK: return MPI_Reduce_scatter_block(s, r, n, F, MPI_SUM, w);
    case MBX_COLL_SCAN: return MPI_Scan(s, r, n, F, MPI_SUM, w);
    case MBX_COLL_EXSCAN: return MPI_Exscan(s, r, n, F, MPI_SUM, w);
    case MBX_COLL_GATHER: return MPI_Gather(s, n, B, r, n, B, root, w);
    case MBX_COLL_GATHERV: return MPI_Gatherv(s, n, B, r, cn, dp, B, root, w);
    case MBX_COLL_SCATTER: return MPI_Scatter(s, n, B, r, n, B, root, w);
    case MBX_COLL_SCATTERV: return MPI_Scatterv(s, cn, dp, B, r, n, B, root, w);
    case MBX_COLL_ALLGATHER: return MPI_Allgather(s, n, B, r, n, B, w);
    case MBX_COLL_ALLGATHERV: return MPI_Allgatherv(s, n, B, r, cn, dp, B, w);
    case MBX_COLL_ALLTOALL: return MPI_Alltoall(s, n, B, r, n, B, w);
    case MBX_COLL_ALLTOALLV: return MPI_Alltoallv(s, cn, dp, B, r, cn, dp, B, w);
    case MBX_COLL_COMM_SPLIT: return MPI_Comm_split(w, c->rank % 2, c->rank, &p->made);
    case MBX_COLL_COMM_DUP: return MPI_Comm_dup(w, &p->made);
    default: break;
    }
    MPI_Request q = MPI_REQUEST_NULL;
    int rc = coll_istart(c, op, &q);
    return rc == MPI_SUCCESS ? MPI_Wait(&q, MPI_STATUS_IGNORE) : rc;
}

#undef B
#undef F

int mbx_coll_once(mbx_bench_ctx *ctx, enum mbx_coll_op op)
{
    mbx_coll_priv *p = ctx->priv;
    if (p->persistent) {
        int rc = MPI_Start(&p->preq);
        return rc == MPI_SUCCESS ? MPI_Wait(&p->preq, MPI_STATUS_IGNORE) : rc;
    }
    if (!p->between || op < MBX_COLL_IBARRIER)
        return coll_once(ctx, op);
    MPI_Request q = MPI_REQUEST_NULL;
    int rc = coll_istart(ctx, op, &q);
    if (rc != MPI_SUCCESS)
        return rc;
    p->between(ctx);
    return MPI_Wait(&q, MPI_STATUS_IGNORE);
}

int mbx_coll_istart(mbx_bench_ctx *ctx, enum mbx_coll_op op, MPI_Request *q)
{
    return coll_istart(ctx, op, q);
}

static int coll_loop(mbx_bench_ctx *c, size_t k, double *t, enum mbx_coll_op op)
{
    mbx_coll_priv *p = c->priv;
    int rc = MPI_SUCCESS;
    c->timing = 1;
    for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
        rc = mbx_obs_sync(c, i, 1);
        double t0 = mbx_timer_now(c->timer);
        if (rc == MPI_SUCCESS)
            rc = coll_once(c, op);
        t[i] = mbx_timer_now(c->timer) - t0;
        if (p->made != MPI_COMM_NULL) {
            int frc = MPI_Comm_free(&p->made);
            rc = rc == MPI_SUCCESS ? frc : rc;
        }
    }
    return rc;
}

static int needs_counts(enum mbx_coll_op op)
{
    switch (op) {
    case MBX_COLL_REDUCE_SCATTER:
    case MBX_COLL_GATHERV:
    case MBX_COLL_SCATTERV:
    case MBX_COLL_ALLGATHERV:
    case MBX_COLL_ALLTOALLV:
    case MBX_COLL_IREDUCE_SCATTER:
    case MBX_COLL_IGATHERV:
    case MBX_COLL_ISCATTERV:
    case MBX_COLL_IALLGATHERV:
    case MBX_COLL_IALLTOALLV: return 1;
    default: return 0;
    }
}

void mbx_coll_teardown(mbx_bench_ctx *c)
{
    mbx_coll_priv *p = c->priv;
    if (!p)
        return;
    if (p->made != MPI_COMM_NULL)
        (void)MPI_Comm_free(&p->made);
    /* Before the counts it may be bound to. */
    if (p->persistent && p->preq != MPI_REQUEST_NULL)
        (void)MPI_Request_free(&p->preq);
    free(p->counts);
    free(p->displs);
    free(p);
    c->priv = NULL;
}

int mbx_coll_setup(mbx_bench_ctx *c, enum mbx_coll_op op, size_t priv_size)
{
    if (priv_size < sizeof(mbx_coll_priv))
        return MPI_ERR_ARG;
    mbx_coll_priv *p = calloc(1, priv_size);
    if (!p)
        return MPI_ERR_NO_MEM;
    c->priv = p;
    p->op = op;
    p->made = MPI_COMM_NULL;
    p->preq = MPI_REQUEST_NULL;
    p->corrupt = mbx_test_corrupt();
    if (!needs_counts(op))
        return MPI_SUCCESS;
    /* Displacements are ints: the last block must start below INT_MAX. */
    if ((int64_t)c->count * c->size > INT_MAX)
        return MPI_ERR_COUNT;
    p->counts = malloc(sizeof *p->counts * (size_t)c->size);
    p->displs = malloc(sizeof *p->displs * (size_t)c->size);
    if (!p->counts || !p->displs)
        return MPI_ERR_NO_MEM; /* teardown frees what was made */
    for (int i = 0; i < c->size; i++) {
        p->counts[i] = c->count;
        p->displs[i] = i * c->count;
    }
    return MPI_SUCCESS;
}

/* One named run and setup per operation, as the registry wants. */
#define COLL_FNS(x, op)                                                                            \
    static int run_##x(mbx_bench_ctx *c, size_t k, double *t)                                      \
    {                                                                                              \
        return coll_loop(c, k, t, op);                                                             \
    }                                                                                              \
    static int setup_##x(mbx_bench_ctx *c)                                                         \
    {                                                                                              \
        return mbx_coll_setup(c, op, sizeof(mbx_coll_priv));                                       \
    }
COLL_FNS(barrier, MBX_COLL_BARRIER)
COLL_FNS(bcast, MBX_COLL_BCAST)
COLL_FNS(reduce, MBX_COLL_REDUCE)
COLL_FNS(allreduce, MBX_COLL_ALLREDUCE)
COLL_FNS(reduce_scatter, MBX_COLL_REDUCE_SCATTER)
COLL_FNS(reduce_scatter_block, MBX_COLL_REDUCE_SCATTER_BLOCK)
COLL_FNS(scan, MBX_COLL_SCAN)
COLL_FNS(exscan, MBX_COLL_EXSCAN)
COLL_FNS(gather, MBX_COLL_GATHER)
COLL_FNS(gatherv, MBX_COLL_GATHERV)
COLL_FNS(scatter, MBX_COLL_SCATTER)
COLL_FNS(scatterv, MBX_COLL_SCATTERV)
COLL_FNS(allgather, MBX_COLL_ALLGATHER)
COLL_FNS(allgatherv, MBX_COLL_ALLGATHERV)
COLL_FNS(alltoall, MBX_COLL_ALLTOALL)
COLL_FNS(alltoallv, MBX_COLL_ALLTOALLV)
COLL_FNS(comm_split, MBX_COLL_COMM_SPLIT)
COLL_FNS(comm_dup, MBX_COLL_COMM_DUP)
COLL_FNS(ibarrier, MBX_COLL_IBARRIER)
COLL_FNS(ibcast, MBX_COLL_IBCAST)
COLL_FNS(ireduce, MBX_COLL_IREDUCE)
COLL_FNS(iallreduce, MBX_COLL_IALLREDUCE)
COLL_FNS(ireduce_scatter, MBX_COLL_IREDUCE_SCATTER)
COLL_FNS(ireduce_scatter_block, MBX_COLL_IREDUCE_SCATTER_BLOCK)
COLL_FNS(iscan, MBX_COLL_ISCAN)
COLL_FNS(iexscan, MBX_COLL_IEXSCAN)
COLL_FNS(igather, MBX_COLL_IGATHER)
COLL_FNS(igatherv, MBX_COLL_IGATHERV)
COLL_FNS(iscatter, MBX_COLL_ISCATTER)
COLL_FNS(iscatterv, MBX_COLL_ISCATTERV)
COLL_FNS(iallgather, MBX_COLL_IALLGATHER)
COLL_FNS(iallgatherv, MBX_COLL_IALLGATHERV)
COLL_FNS(ialltoall, MBX_COLL_IALLTOALL)
COLL_FNS(ialltoallv, MBX_COLL_IALLTOALLV)

#define SZ MBX_BENCH_SIZED
#define RT (MBX_BENCH_SIZED | MBX_BENCH_ROOTED)
#define SUM "MPI_SUM/MPI_FLOAT"

/* COLL(x, flags, unit, buffers, op, summary): benchmark coll.x; buffers
 * names the buffer size mbx_coll_buf_NAME (same, times_procs, none). */
#define COLL(x, fl, u, bufs, o, text)                                                              \
    {                                                                                              \
        .name = "coll." #x, .pattern = "coll", .summary = text, .timing = "max_over_ranks",        \
        .min_procs = 1, .flags = fl, .unit = u, .divisor = 1.0, .buf_bytes = mbx_coll_buf_##bufs,  \
        .setup = setup_##x, .run = run_##x, .teardown = mbx_coll_teardown,                         \
        .check = mbx_coll_check, .op = o                                                           \
    }

/* The pattern's place in the registry, the picker's and `mpibex list`'s
 * order (engine/mpi/CMakeLists.txt reads this line). */
#define MBX_PATTERN_ORDER 30
const mbx_bench mbx_bench_coll_table[] = {
    COLL(barrier, 0, 1, none, NULL, "MPI_Barrier; max over ranks"),
    COLL(bcast, RT, 1, same, NULL, "MPI_Bcast of MPI_BYTE from the root; max over ranks"),
    COLL(reduce, RT, 4, same, SUM, "MPI_Reduce, MPI_FLOAT MPI_SUM to the root; max over ranks"),
    COLL(allreduce, SZ, 4, same, SUM, "MPI_Allreduce, MPI_FLOAT MPI_SUM; max over ranks"),
    COLL(reduce_scatter, SZ, 4, times_procs, SUM,
         "MPI_Reduce_scatter, MPI_FLOAT MPI_SUM, equal counts; bytes = each rank's block of "
         "the result (input procs blocks); max over ranks"),
    COLL(reduce_scatter_block, SZ, 4, times_procs, SUM,
         "MPI_Reduce_scatter_block, MPI_FLOAT MPI_SUM; bytes = each rank's block of the result "
         "(input procs blocks); max over ranks"),
    COLL(scan, SZ, 4, same, SUM, "MPI_Scan, MPI_FLOAT MPI_SUM; max over ranks"),
    COLL(exscan, SZ, 4, same, SUM, "MPI_Exscan, MPI_FLOAT MPI_SUM; max over ranks"),
    COLL(gather, RT, 1, times_procs, NULL,
         "MPI_Gather to the root, bytes per rank's block; max over ranks"),
    COLL(gatherv, RT, 1, times_procs, NULL,
         "MPI_Gatherv to the root, bytes per rank's block, equal counts, contiguous "
         "displacements; max over ranks"),
    COLL(scatter, RT, 1, times_procs, NULL,
         "MPI_Scatter from the root, bytes per rank's block; max over ranks"),
    COLL(scatterv, RT, 1, times_procs, NULL,
         "MPI_Scatterv from the root, bytes per rank's block, equal counts, contiguous "
         "displacements; max over ranks"),
    COLL(allgather, SZ, 1, times_procs, NULL,
         "MPI_Allgather, bytes contributed per rank; max over ranks"),
    COLL(allgatherv, SZ, 1, times_procs, NULL,
         "MPI_Allgatherv, bytes contributed per rank, equal counts, contiguous displacements; "
         "max over ranks"),
    COLL(alltoall, SZ, 1, times_procs, NULL, "MPI_Alltoall, bytes per rank pair; max over ranks"),
    COLL(alltoallv, SZ, 1, times_procs, NULL,
         "MPI_Alltoallv, bytes per rank pair, equal counts, contiguous displacements; max over "
         "ranks"),
    COLL(comm_split, 0, 1, none, NULL,
         "MPI_Comm_split into two halves by rank parity (free untimed); max over ranks"),
    COLL(comm_dup, 0, 1, none, NULL, "MPI_Comm_dup (free untimed); max over ranks"),
    COLL(ibarrier, 0, 1, none, NULL, "MPI_Ibarrier + MPI_Wait; max over ranks"),
    COLL(ibcast, RT, 1, same, NULL,
         "MPI_Ibcast of MPI_BYTE from the root + MPI_Wait; max over ranks"),
    COLL(ireduce, RT, 4, same, SUM,
         "MPI_Ireduce, MPI_FLOAT MPI_SUM to the root, + MPI_Wait; max over ranks"),
    COLL(iallreduce, SZ, 4, same, SUM,
         "MPI_Iallreduce, MPI_FLOAT MPI_SUM, + MPI_Wait; max over ranks"),
    COLL(ireduce_scatter, SZ, 4, times_procs, SUM,
         "MPI_Ireduce_scatter + MPI_Wait, MPI_FLOAT MPI_SUM, equal counts; bytes = each rank's "
         "block of the result (input procs blocks); max over ranks"),
    COLL(ireduce_scatter_block, SZ, 4, times_procs, SUM,
         "MPI_Ireduce_scatter_block + MPI_Wait, MPI_FLOAT MPI_SUM; bytes = each rank's block of "
         "the result (input procs blocks); max over ranks"),
    COLL(iscan, SZ, 4, same, SUM, "MPI_Iscan, MPI_FLOAT MPI_SUM, + MPI_Wait; max over ranks"),
    COLL(iexscan, SZ, 4, same, SUM, "MPI_Iexscan, MPI_FLOAT MPI_SUM, + MPI_Wait; max over ranks"),
    COLL(igather, RT, 1, times_procs, NULL,
         "MPI_Igather to the root + MPI_Wait, bytes per rank's block; max over ranks"),
    COLL(igatherv, RT, 1, times_procs, NULL,
         "MPI_Igatherv to the root + MPI_Wait, bytes per rank's block, equal counts, contiguous "
         "displacements; max over ranks"),
    COLL(iscatter, RT, 1, times_procs, NULL,
         "MPI_Iscatter from the root + MPI_Wait, bytes per rank's block; max over ranks"),
    COLL(iscatterv, RT, 1, times_procs, NULL,
         "MPI_Iscatterv from the root + MPI_Wait, bytes per rank's block, equal counts, "
         "contiguous displacements; max over ranks"),
    COLL(iallgather, SZ, 1, times_procs, NULL,
         "MPI_Iallgather + MPI_Wait, bytes contributed per rank; max over ranks"),
    COLL(iallgatherv, SZ, 1, times_procs, NULL,
         "MPI_Iallgatherv + MPI_Wait, bytes contributed per rank, equal counts, contiguous "
         "displacements; max over ranks"),
    COLL(ialltoall, SZ, 1, times_procs, NULL,
         "MPI_Ialltoall + MPI_Wait, bytes per rank pair; max over ranks"),
    COLL(ialltoallv, SZ, 1, times_procs, NULL,
         "MPI_Ialltoallv + MPI_Wait, bytes per rank pair, equal counts, contiguous "
         "displacements; max over ranks"),
};
const size_t mbx_bench_coll_count = sizeof mbx_bench_coll_table / sizeof mbx_bench_coll_table[0];
