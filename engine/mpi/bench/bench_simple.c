/* The simple pattern: local MPI calls that take far less than a timer tick
 * or two (MPI_Wtime, MPI_Comm_rank, MPI_Comm_size, an unsuccessful
 * MPI_Iprobe, MPI_Buffer_attach + detach). Only rank 0 of the point times;
 * the point is normally measured with procs = 1 and the other ranks, if
 * any, sit it out. One observation is an inner loop of ctx->inner calls,
 * chosen in setup so that it spans at least 100 timer ticks and 1 us; the
 * engine subtracts the timer overhead once per observation and divides by
 * inner, so the CSV holds the time per call. */
#include <stdlib.h>
#include <string.h>

#include "mbx/bench.h"
#include "patterns.h"

/* No one sends with this tag on a point's communicator. */
#define UNUSED_TAG 32001
#define ATTACH_PAYLOAD 1024
#define ATTACH_BYTES (ATTACH_PAYLOAD + MPI_BSEND_OVERHEAD)
#define INNER_MAX 1000000
#define MIN_OBS_S 1e-6
#define MIN_OBS_TICKS 100.0
#define TRIALS 3

enum simple_op { OP_WTIME, OP_RANK, OP_SIZE, OP_IPROBE, OP_ATTACH };

/* Every call's result goes here, so none can be optimized away. */
static volatile double sink;

static uint64_t no_buf(uint64_t bytes, int procs)
{
    (void)bytes;
    (void)procs;
    return 0;
}

/* buffer_attach attaches the point's send buffer. */
static uint64_t attach_buf(uint64_t bytes, int procs)
{
    (void)bytes;
    (void)procs;
    return ATTACH_BYTES;
}

static inline int simple_once(const mbx_bench_ctx *c, enum simple_op op)
{
    int rc = MPI_ERR_OTHER, v = 0;
    void *got;
    switch (op) {
    case OP_WTIME: sink = MPI_Wtime(); return MPI_SUCCESS;
    case OP_RANK: rc = MPI_Comm_rank(c->comm, &v); break;
    case OP_SIZE: rc = MPI_Comm_size(c->comm, &v); break;
    case OP_IPROBE:
        rc = MPI_Iprobe(MPI_ANY_SOURCE, UNUSED_TAG, c->comm, &v, MPI_STATUS_IGNORE);
        break;
    case OP_ATTACH:
        rc = MPI_Buffer_attach(c->sbuf, ATTACH_BYTES);
        if (rc == MPI_SUCCESS)
            rc = MPI_Buffer_detach(&got, &v);
        break;
    }
    sink = v;
    return rc;
}

static int simple_loop(mbx_bench_ctx *c, size_t k, double *t, enum simple_op op)
{
    if (c->rank != 0)
        return MPI_SUCCESS;
    int rc = MPI_SUCCESS;
    int64_t inner = c->inner;
    c->timing = 1;
    for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
        if ((rc = mbx_obs_sync(c, i, 0)) != MPI_SUCCESS)
            break;
        double t0 = mbx_timer_now(c->timer);
        for (int64_t j = 0; j < inner && rc == MPI_SUCCESS; j++)
            rc = simple_once(c, op);
        t[i] = mbx_timer_now(c->timer) - t0;
    }
    return rc;
}

/* Rank 0: double the calls per observation until the fastest of a few
 * trial observations, corrected for the timer overhead, lasts the target.
 * The fastest, so that one preempted trial cannot make inner too small. */
static int simple_setup(mbx_bench_ctx *c, enum simple_op op)
{
    c->inner = 1;
    if (c->rank != 0)
        return MPI_SUCCESS;
    double target = MIN_OBS_TICKS * c->tick;
    if (target < MIN_OBS_S)
        target = MIN_OBS_S;
    double t[TRIALS];
    for (;;) {
        int rc = simple_loop(c, TRIALS, t, op);
        if (rc != MPI_SUCCESS)
            return rc;
        double best = t[0];
        for (int i = 1; i < TRIALS; i++)
            if (t[i] < best)
                best = t[i];
        if (best - c->overhead >= target || c->inner >= INNER_MAX)
            break;
        c->inner = c->inner * 2 > INNER_MAX ? INNER_MAX : c->inner * 2;
    }
    c->timing = 0;
    return MPI_SUCCESS;
}

/* Every member rank checks; each check calls the benchmark's operation
 * once and compares its result with something obtained another way. */

static int check_wtime(mbx_bench_ctx *c, int *bad)
{
    double t0 = MPI_Wtime();
    int rc = simple_once(c, OP_WTIME);
    if (rc != MPI_SUCCESS)
        return rc;
    double last = sink;
    if (!(last >= t0))
        *bad = 1;
    /* It must never go back, and must move on within a bounded number of
     * calls (1e8 calls is seconds even for a slow clock). */
    for (long i = 0; i < 100000000L && !*bad; i++) {
        double now = MPI_Wtime();
        if (now < last)
            *bad = 1;
        if (now > t0)
            return MPI_SUCCESS;
        last = now;
    }
    *bad = 1;
    return MPI_SUCCESS;
}

/* Allgather puts rank i's answer at position i: it must say i (rank) or
 * the number of ranks (size). */
static int check_rank_size(mbx_bench_ctx *c, int *bad, enum simple_op op)
{
    int rc = simple_once(c, op);
    if (rc != MPI_SUCCESS)
        return rc;
    int mine = (int)sink;
    int *all = malloc(sizeof *all * (size_t)c->size);
    if (!all)
        return MPI_ERR_NO_MEM;
    rc = MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, c->comm);
    for (int i = 0; rc == MPI_SUCCESS && i < c->size; i++)
        if (all[i] != (op == OP_RANK ? i : c->size))
            *bad = 1;
    free(all);
    return rc;
}

static int check_rank(mbx_bench_ctx *c, int *bad)
{
    return check_rank_size(c, bad, OP_RANK);
}

static int check_size(mbx_bench_ctx *c, int *bad)
{
    return check_rank_size(c, bad, OP_SIZE);
}

/* The probe must say "nothing", and must say "something" once this rank
 * has sent itself a message with that tag, so the "nothing" means it. */
static int check_iprobe(mbx_bench_ctx *c, int *bad)
{
    int rc = simple_once(c, OP_IPROBE);
    if (rc != MPI_SUCCESS)
        return rc;
    if (sink != 0.0)
        *bad = 1;
    int out = c->rank + 1, in = 0, flag = 0;
    MPI_Request req;
    MPI_Status st;
    if ((rc = MPI_Isend(&out, 1, MPI_INT, c->rank, UNUSED_TAG, c->comm, &req)) != MPI_SUCCESS)
        return rc;
    for (long i = 0; i < 10000000L && rc == MPI_SUCCESS && !flag; i++)
        rc = MPI_Iprobe(MPI_ANY_SOURCE, UNUSED_TAG, c->comm, &flag, &st);
    if (rc == MPI_SUCCESS && (!flag || st.MPI_SOURCE != c->rank))
        *bad = 1;
    /* Receive it whatever the probe said, so nothing is left behind. */
    int rc2 = MPI_Recv(&in, 1, MPI_INT, c->rank, UNUSED_TAG, c->comm, MPI_STATUS_IGNORE);
    int rc3 = MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (in != out)
        *bad = 1;
    return rc != MPI_SUCCESS ? rc : rc2 != MPI_SUCCESS ? rc2 : rc3;
}

/* One timed-style attach + detach, then an attach that carries a buffered
 * send to this rank itself: detach must hand back the same buffer and size,
 * and the message must arrive. */
static int check_attach(mbx_bench_ctx *c, int *bad)
{
    int rc = simple_once(c, OP_ATTACH);
    if (rc != MPI_SUCCESS)
        return rc;
    if (sink != (double)ATTACH_BYTES)
        *bad = 1;
    if ((rc = MPI_Buffer_attach(c->sbuf, ATTACH_BYTES)) != MPI_SUCCESS)
        return rc;
    int out[4] = {c->rank, 11, 22, 33}, in[4] = {-1, -1, -1, -1};
    rc = MPI_Bsend(out, 4, MPI_INT, c->rank, UNUSED_TAG, c->comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Recv(in, 4, MPI_INT, c->rank, UNUSED_TAG, c->comm, MPI_STATUS_IGNORE);
    void *got = NULL;
    int len = 0;
    int rc2 = MPI_Buffer_detach(&got, &len);
    if (rc != MPI_SUCCESS)
        return rc;
    if (rc2 != MPI_SUCCESS)
        return rc2;
    if (got != c->sbuf || len != ATTACH_BYTES || memcmp(in, out, sizeof out) != 0)
        *bad = 1;
    return MPI_SUCCESS;
}

/* One set-up and one run function per operation, as the registry wants. */
#define SIMPLE_FUNCS(sfx, op)                                                                      \
    static int setup_##sfx(mbx_bench_ctx *c)                                                       \
    {                                                                                              \
        return simple_setup(c, op);                                                                \
    }                                                                                              \
    static int run_##sfx(mbx_bench_ctx *c, size_t k, double *t)                                    \
    {                                                                                              \
        return simple_loop(c, k, t, op);                                                           \
    }
SIMPLE_FUNCS(wtime, OP_WTIME)
SIMPLE_FUNCS(rank, OP_RANK)
SIMPLE_FUNCS(size, OP_SIZE)
SIMPLE_FUNCS(iprobe, OP_IPROBE)
SIMPLE_FUNCS(attach, OP_ATTACH)

#define SIMPLE(nm, sfx, bufs, chk, text)                                                           \
    {                                                                                              \
        .name = nm, .pattern = "simple", .summary = text, .timing = "per_call", .min_procs = 1,    \
        .flags = MBX_BENCH_INNER | MBX_BENCH_LOCAL, .unit = 1, .divisor = 1.0, .buf_bytes = bufs,  \
        .setup = setup_##sfx, .run = run_##sfx, .check = chk                                       \
    }

/* The pattern's place in the registry, the picker's and `mpibex list`'s
 * order (engine/mpi/CMakeLists.txt reads this line). */
#define MBX_PATTERN_ORDER 20
const mbx_bench mbx_bench_simple_table[] = {
    SIMPLE("simple.wtime", wtime, no_buf, check_wtime,
           "MPI_Wtime; rank 0's time per call (inner loop)"),
    SIMPLE("simple.comm_rank", rank, no_buf, check_rank,
           "MPI_Comm_rank; rank 0's time per call (inner loop)"),
    SIMPLE("simple.comm_size", size, no_buf, check_size,
           "MPI_Comm_size; rank 0's time per call (inner loop)"),
    SIMPLE("simple.iprobe", iprobe, no_buf, check_iprobe,
           "MPI_Iprobe finding nothing; rank 0's time per call (inner loop)"),
    SIMPLE("simple.buffer_attach", attach, attach_buf, check_attach,
           "MPI_Buffer_attach + detach of 1 KiB; rank 0's time per pair (inner loop)"),
};
const size_t mbx_bench_simple_count =
    sizeof mbx_bench_simple_table / sizeof mbx_bench_simple_table[0];
