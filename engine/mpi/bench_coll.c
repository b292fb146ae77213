/* Collectives, barrier-synchronized: each observation is MPI_Barrier, read
 * the timer, the operation, read the timer, on every rank; the engine takes
 * the maximum over ranks. Reductions use MPI_FLOAT and MPI_SUM (as IMB and
 * OSU do), so their sizes are multiples of 4 bytes. Alltoall and allgather
 * sizes are the bytes each rank sends to each other rank. Root is rank 0. */
#include "mbx/bench.h"

static uint64_t same(uint64_t bytes, int procs)
{
    (void)procs;
    return bytes;
}

static uint64_t times_procs(uint64_t bytes, int procs)
{
    return bytes * (uint64_t)procs;
}

static uint64_t none(uint64_t bytes, int procs)
{
    (void)bytes;
    (void)procs;
    return 0;
}

/* One timed loop for every collective: the operation is the only thing that
 * differs, and a switch costs less than an indirect call in the region. */
enum coll_op { OP_BARRIER, OP_BCAST, OP_REDUCE, OP_ALLREDUCE, OP_ALLTOALL, OP_ALLGATHER };

static inline int coll_once(mbx_bench_ctx *c, enum coll_op op)
{
    switch (op) {
    case OP_BARRIER: return MPI_Barrier(c->comm);
    case OP_BCAST: return MPI_Bcast(c->sbuf, c->count, MPI_BYTE, 0, c->comm);
    case OP_REDUCE: return MPI_Reduce(c->sbuf, c->rbuf, c->count, MPI_FLOAT, MPI_SUM, 0, c->comm);
    case OP_ALLREDUCE:
        return MPI_Allreduce(c->sbuf, c->rbuf, c->count, MPI_FLOAT, MPI_SUM, c->comm);
    case OP_ALLTOALL:
        return MPI_Alltoall(c->sbuf, c->count, MPI_BYTE, c->rbuf, c->count, MPI_BYTE, c->comm);
    case OP_ALLGATHER:
        return MPI_Allgather(c->sbuf, c->count, MPI_BYTE, c->rbuf, c->count, MPI_BYTE, c->comm);
    }
    return MPI_ERR_OTHER;
}

static int coll_loop(mbx_bench_ctx *c, size_t k, double *t, enum coll_op op)
{
    int rc = MPI_SUCCESS;
    c->timing = 1;
    for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
        rc = MPI_Barrier(c->comm);
        double t0 = mbx_timer_now(c->timer);
        if (rc == MPI_SUCCESS)
            rc = coll_once(c, op);
        t[i] = mbx_timer_now(c->timer) - t0;
    }
    return rc;
}

/* One named entry point per operation, as the registry wants. */
#define COLL_RUN(fn, op)                                                                           \
    static int fn(mbx_bench_ctx *c, size_t k, double *t)                                           \
    {                                                                                              \
        return coll_loop(c, k, t, op);                                                             \
    }
COLL_RUN(run_barrier, OP_BARRIER)
COLL_RUN(run_bcast, OP_BCAST)
COLL_RUN(run_reduce, OP_REDUCE)
COLL_RUN(run_allreduce, OP_ALLREDUCE)
COLL_RUN(run_alltoall, OP_ALLTOALL)
COLL_RUN(run_allgather, OP_ALLGATHER)

#define COLL(nm, fn, fl, u, bufs, text)                                                            \
    {                                                                                              \
        .name = nm, .pattern = "coll", .summary = text, .timing = "max_over_ranks",                \
        .min_procs = 1, .flags = fl, .unit = u, .divisor = 1.0, .buf_bytes = bufs, .run = fn       \
    }

const mbx_bench mbx_bench_coll_table[] = {
    COLL("coll.barrier", run_barrier, 0, 1, none, "MPI_Barrier; max over ranks"),
    COLL("coll.bcast", run_bcast, MBX_BENCH_SIZED, 1, same,
         "MPI_Bcast of MPI_BYTE from rank 0; max over ranks"),
    COLL("coll.reduce", run_reduce, MBX_BENCH_SIZED, 4, same,
         "MPI_Reduce, MPI_FLOAT MPI_SUM to rank 0; max over ranks"),
    COLL("coll.allreduce", run_allreduce, MBX_BENCH_SIZED, 4, same,
         "MPI_Allreduce, MPI_FLOAT MPI_SUM; max over ranks"),
    COLL("coll.alltoall", run_alltoall, MBX_BENCH_SIZED, 1, times_procs,
         "MPI_Alltoall, bytes per rank pair; max over ranks"),
    COLL("coll.allgather", run_allgather, MBX_BENCH_SIZED, 1, times_procs,
         "MPI_Allgather, bytes contributed per rank; max over ranks"),
};
const size_t mbx_bench_coll_count = sizeof mbx_bench_coll_table / sizeof mbx_bench_coll_table[0];
