/* The collective pattern's private interface: bench_coll.c times the
 * operations, bench_coll_check.c validates them (--validate). Not part of
 * the public API. */
#ifndef MBX_BENCH_COLL_H
#define MBX_BENCH_COLL_H

#include "mbx/bench.h"

/* Every collective, blocking and non-blocking; the i-variants are started
 * and completed with MPI_Wait inside one call of mbx_coll_once(). */
enum mbx_coll_op {
    MBX_COLL_BARRIER,
    MBX_COLL_BCAST,
    MBX_COLL_REDUCE,
    MBX_COLL_ALLREDUCE,
    MBX_COLL_REDUCE_SCATTER,
    MBX_COLL_REDUCE_SCATTER_BLOCK,
    MBX_COLL_SCAN,
    MBX_COLL_EXSCAN,
    MBX_COLL_GATHER,
    MBX_COLL_GATHERV,
    MBX_COLL_SCATTER,
    MBX_COLL_SCATTERV,
    MBX_COLL_ALLGATHER,
    MBX_COLL_ALLGATHERV,
    MBX_COLL_ALLTOALL,
    MBX_COLL_ALLTOALLV,
    MBX_COLL_COMM_SPLIT,
    MBX_COLL_COMM_DUP,
    MBX_COLL_IBARRIER,
    MBX_COLL_IBCAST,
    MBX_COLL_IREDUCE,
    MBX_COLL_IALLREDUCE,
    MBX_COLL_IREDUCE_SCATTER,
    MBX_COLL_IREDUCE_SCATTER_BLOCK,
    MBX_COLL_ISCAN,
    MBX_COLL_IEXSCAN,
    MBX_COLL_IGATHER,
    MBX_COLL_IGATHERV,
    MBX_COLL_ISCATTER,
    MBX_COLL_ISCATTERV,
    MBX_COLL_IALLGATHER,
    MBX_COLL_IALLGATHERV,
    MBX_COLL_IALLTOALL,
    MBX_COLL_IALLTOALLV,
};

/* ctx->priv of every collective, made by setup. */
typedef struct mbx_coll_priv {
    enum mbx_coll_op op;
    /* v-variants and reduce_scatter: ctx->count for every rank, with
     * contiguous displacements (0, count, 2 count, ...); NULL otherwise. */
    int *counts, *displs;
    /* comm_split / comm_dup: the communicator the last call made; the loop
     * frees it outside the timed region. MPI_COMM_NULL otherwise. */
    MPI_Comm made;
    /* Test hook: MBX_TEST_CORRUPT=1 in the environment at setup makes the
     * check flip the first byte of the output this rank verifies (after the
     * call, before the comparison), to prove that --validate can fail.
     * Barrier, comm_split and comm_dup carry no data and ignore it. */
    int corrupt;
    /* overlap.*: called between the start and the wait of a non-blocking
     * operation by mbx_coll_once (the check runs the operation with the
     * computation inserted, as the timed loop does); NULL for coll.*. */
    void (*between)(mbx_bench_ctx *ctx);
    /* coll.*_init (persistent 1): the request set-up made with the
     * operation's MPI_*_init call (bound to the buffers, counts and
     * displacements above); mbx_coll_once starts and completes it, and
     * teardown frees it. A flag, not a test of preq: a zeroed priv (the
     * fan-out pattern's) holds 0, which is no MPI_REQUEST_NULL. */
    int persistent;
    MPI_Request preq;
} mbx_coll_priv;

/* The MPI-4.0 persistent collectives, coll.NAME_init (bench_pcoll.c):
 * X(NAME, OP, FLAGS, UNIT, BUFFERS, REDUCTION, CALL, WHAT), one each, so
 * the registry can name them in a build whose MPI lacks them. WHAT, empty
 * or ending in "; ", goes into the summary. FLAGS and
 * REDUCTION are bench_pcoll.c's short macros; the rest as for coll.NAME. */
#define MBX_PCOLL_LIST(X)                                                                          \
    X(barrier, MBX_COLL_BARRIER, 0, 1, none, NULL, "MPI_Barrier_init", "")                         \
    X(bcast, MBX_COLL_BCAST, RT, 1, same, NULL, "MPI_Bcast_init", "MPI_BYTE from the root; ")      \
    X(reduce, MBX_COLL_REDUCE, RT, 4, same, SUM, "MPI_Reduce_init",                                \
      "MPI_FLOAT MPI_SUM to the root; ")                                                           \
    X(allreduce, MBX_COLL_ALLREDUCE, SZ, 4, same, SUM, "MPI_Allreduce_init",                       \
      "MPI_FLOAT MPI_SUM; ")                                                                       \
    X(reduce_scatter, MBX_COLL_REDUCE_SCATTER, SZ, 4, times_procs, SUM, "MPI_Reduce_scatter_init", \
      "MPI_FLOAT MPI_SUM, equal counts; bytes = each rank's block of the result; ")                \
    X(reduce_scatter_block, MBX_COLL_REDUCE_SCATTER_BLOCK, SZ, 4, times_procs, SUM,                \
      "MPI_Reduce_scatter_block_init",                                                             \
      "MPI_FLOAT MPI_SUM; bytes = each rank's block of the result; ")                              \
    X(scan, MBX_COLL_SCAN, SZ, 4, same, SUM, "MPI_Scan_init", "MPI_FLOAT MPI_SUM; ")               \
    X(exscan, MBX_COLL_EXSCAN, SZ, 4, same, SUM, "MPI_Exscan_init", "MPI_FLOAT MPI_SUM; ")         \
    X(gather, MBX_COLL_GATHER, RT, 1, times_procs, NULL, "MPI_Gather_init",                        \
      "to the root, bytes per rank's block; ")                                                     \
    X(gatherv, MBX_COLL_GATHERV, RT, 1, times_procs, NULL, "MPI_Gatherv_init",                     \
      "to the root, bytes per rank's block, equal counts; ")                                       \
    X(scatter, MBX_COLL_SCATTER, RT, 1, times_procs, NULL, "MPI_Scatter_init",                     \
      "from the root, bytes per rank's block; ")                                                   \
    X(scatterv, MBX_COLL_SCATTERV, RT, 1, times_procs, NULL, "MPI_Scatterv_init",                  \
      "from the root, bytes per rank's block, equal counts; ")                                     \
    X(allgather, MBX_COLL_ALLGATHER, SZ, 1, times_procs, NULL, "MPI_Allgather_init",               \
      "bytes contributed per rank; ")                                                              \
    X(allgatherv, MBX_COLL_ALLGATHERV, SZ, 1, times_procs, NULL, "MPI_Allgatherv_init",            \
      "bytes contributed per rank, equal counts; ")                                                \
    X(alltoall, MBX_COLL_ALLTOALL, SZ, 1, times_procs, NULL, "MPI_Alltoall_init",                  \
      "bytes per rank pair; ")                                                                     \
    X(alltoallv, MBX_COLL_ALLTOALLV, SZ, 1, times_procs, NULL, "MPI_Alltoallv_init",               \
      "bytes per rank pair, equal counts; ")

/* The collectives' set-up: ctx->priv becomes a zeroed allocation of
 * priv_size bytes (at least sizeof(mbx_coll_priv), which starts it: the
 * overlap pattern puts its own state after it) with op, the counts and
 * displacements of the v-variants and the corrupt hook. MPI error code;
 * mbx_coll_teardown frees what was made, after a failure too. */
int mbx_coll_setup(mbx_bench_ctx *ctx, enum mbx_coll_op op, size_t priv_size);
void mbx_coll_teardown(mbx_bench_ctx *ctx);

/* The buffer sizes of the collectives (mbx_bench.buf_bytes) for bytes per
 * rank: the same (bcast, reduce, allreduce, scan), procs blocks (gather's
 * and scatter's root, allgather, alltoall and reduce_scatter's input: both
 * buffers get that, which covers every rank whichever it is), or none
 * (barrier, comm_split, comm_dup). Shared by coll.*, overlap.* and
 * coll.*_accurate. */
uint64_t mbx_coll_buf_same(uint64_t bytes, int procs);
uint64_t mbx_coll_buf_times_procs(uint64_t bytes, int procs);
uint64_t mbx_coll_buf_none(uint64_t bytes, int procs);

/* Start one of the non-blocking operations (MBX_COLL_IBARRIER and after)
 * as the timed loop does; *q is its request. MPI error code
 * (MPI_ERR_OTHER for a blocking op). */
int mbx_coll_istart(mbx_bench_ctx *ctx, enum mbx_coll_op op, MPI_Request *q);

/* One call of the operation on ctx's communicator, as the timed loop makes
 * it (for comm_split / comm_dup the new communicator lands in priv->made
 * and the caller frees it; with priv->between set, a non-blocking one calls
 * it between its start and its wait). Every rank of ctx->comm. MPI error
 * code. */
int mbx_coll_once(mbx_bench_ctx *ctx, enum mbx_coll_op op);

/* The --validate check of every collective: fill the inputs with a pattern
 * of rank and position, run the operation once, compare what this rank
 * must receive by the standard. Sets *bad to 1 on wrong data. Every rank
 * of ctx->comm, after the timed loop. MPI error code. */
int mbx_coll_check(mbx_bench_ctx *ctx, int *bad);

#endif
