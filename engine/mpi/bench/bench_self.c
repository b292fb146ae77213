/* The self pattern: a rank exchanging a message with itself. self.sendrecv
 * is MPI_Sendrecv of the point's bytes to and from the calling rank on the
 * point's communicator: the MPI library's path for a message that never
 * leaves the process (its matching and its copy), the floor under every
 * ping-pong. Only rank 0 times; the point is normally measured with procs
 * = 1. One observation is an inner loop of ctx->inner calls, chosen in
 * setup so that it spans at least 100 timer ticks and 1 us; the engine
 * subtracts the timer overhead once per observation and divides by inner,
 * so the CSV holds the time per call. */
#include <string.h>

#include "mbx/bench.h"
#include "patterns.h"

#define SELF_TAG 32002
#define INNER_MAX 1000000
#define MIN_OBS_S 1e-6
#define MIN_OBS_TICKS 100.0
#define TRIALS 3

static uint64_t self_buf(uint64_t bytes, int procs)
{
    (void)procs;
    return bytes;
}

static int self_once(const mbx_bench_ctx *c)
{
    return MPI_Sendrecv(c->sbuf, c->count, MPI_BYTE, c->rank, SELF_TAG, c->rbuf, c->count, MPI_BYTE,
                        c->rank, SELF_TAG, c->comm, MPI_STATUS_IGNORE);
}

static int self_run(mbx_bench_ctx *c, size_t k, double *t)
{
    if (c->rank != 0)
        return MPI_SUCCESS;
    int rc = MPI_SUCCESS;
    c->timing = 1;
    for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
        if ((rc = mbx_obs_sync(c, i, 0)) != MPI_SUCCESS)
            break;
        double t0 = mbx_timer_now(c->timer);
        for (int64_t j = 0; j < c->inner && rc == MPI_SUCCESS; j++)
            rc = self_once(c);
        t[i] = mbx_timer_now(c->timer) - t0;
    }
    return rc;
}

/* Rank 0: double the calls per observation until the fastest of a few
 * trial observations, less the timer overhead, lasts the target. */
static int self_setup(mbx_bench_ctx *c)
{
    c->inner = 1;
    c->count = (int)c->bytes;
    if (c->rank != 0)
        return MPI_SUCCESS;
    double target = MIN_OBS_TICKS * c->tick > MIN_OBS_S ? MIN_OBS_TICKS * c->tick : MIN_OBS_S;
    for (;;) {
        double t[TRIALS];
        int rc = self_run(c, TRIALS, t);
        if (rc != MPI_SUCCESS)
            return rc;
        double best = t[0];
        for (int i = 1; i < TRIALS; i++)
            best = t[i] < best ? t[i] : best;
        if (best - c->overhead >= target || c->inner >= INNER_MAX)
            break;
        c->inner = c->inner * 2 > INNER_MAX ? INNER_MAX : c->inner * 2;
    }
    c->timing = 0;
    return MPI_SUCCESS;
}

/* Every rank sends itself a known pattern once: it must arrive whole. */
static int self_check(mbx_bench_ctx *c, int *bad)
{
    unsigned char *s = c->sbuf, *r = c->rbuf;
    c->count = (int)c->bytes;
    for (uint64_t i = 0; i < c->bytes; i++) {
        s[i] = (unsigned char)(i * 7 + (uint64_t)c->rank + 1);
        r[i] = (unsigned char)~s[i];
    }
    int rc = self_once(c);
    if (rc == MPI_SUCCESS && c->bytes && memcmp(s, r, c->bytes) != 0)
        *bad = 1;
    return rc;
}

/* The pattern's place in the registry, the picker's and `mpibex list`'s
 * order (engine/mpi/CMakeLists.txt reads this line). */
#define MBX_PATTERN_ORDER 100
const mbx_bench mbx_bench_self_table[] = {
    {.name = "self.sendrecv",
     .pattern = "self",
     .summary = "MPI_Sendrecv to and from the calling rank; rank 0's time per call (inner loop)",
     .timing = "per_call",
     .min_procs = 1,
     .flags = MBX_BENCH_SIZED | MBX_BENCH_INNER,
     .unit = 1,
     .divisor = 1.0,
     .buf_bytes = self_buf,
     .setup = self_setup,
     .run = self_run,
     .check = self_check},
};
const size_t mbx_bench_self_count = sizeof mbx_bench_self_table / sizeof mbx_bench_self_table[0];
