/* Overlap of the non-blocking collectives with computation (OSU's
 * overlap measurement, docs/algorithms.md "Overlap"): overlap.iX for every
 * coll.iX.
 *
 * The pure communication time is the companion's: the engine measures
 * coll.iX (start + MPI_Wait) at the same point right before, to its own
 * stop rule, and hands its median to every rank's set-up as
 * ctx->companion_median (it is also the row's plain_us and pure_comm_us).
 * The set-up calibrates a busy loop (dependent floating-point operations,
 * no sleep, no memory traffic) to that many seconds on each rank, times it
 * alone a few times (the median per rank, then the maximum over ranks: the
 * row's compute_us), and each observation is barrier (or window), read
 * the timer, start the operation, the busy loop, MPI_Wait, read the timer:
 * the overall time, max over ranks like every collective. The overlap
 * percentage follows from the three (mbx_overlap_pct). A companion without
 * a usable median (UNRELIABLE, INVALID) leaves the loop empty: the row then
 * has no percentage.
 *
 * The check (--validate) is the collective's, with the busy loop between
 * the start and the wait, so the data must still arrive right with the
 * computation inserted. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "bench_coll.h"
#include "patterns.h"

/* Calibration: a loop of CAL_MIN_ITERS iterations doubles until one run
 * lasts CAL_S; the fastest of CAL_TRIES runs of that length gives the
 * iterations per second. The computation alone is then timed at least
 * ALONE_MIN and at most ALONE_MAX times, about ALONE_BUDGET_S in all. */
#define CAL_MIN_ITERS 1024
#define CAL_MAX_ITERS ((int64_t)1 << 34)
#define CAL_S 100e-6
#define CAL_TRIES 3
#define ALONE_MIN 3
#define ALONE_MAX 15
#define ALONE_BUDGET_S 10e-3

typedef struct ovl_priv {
    mbx_coll_priv coll; /* first: the collective's own state (bench_coll.h) */
    int64_t iters;      /* busy-loop iterations of about companion_median seconds */
} ovl_priv;

/* Where the loop's result goes, so the compiler keeps the loop. */
static volatile double ovl_sink;

/* The busy work: n dependent multiply-adds, a chain no compiler can
 * shorten or vectorize, in registers (it does not touch the buffers the
 * operation is moving). */
static void busy(int64_t n)
{
    double x = ovl_sink;
    for (int64_t i = 0; i < n; i++)
        x = x * 0.999999 + 1e-6;
    ovl_sink = x;
}

static void ovl_between(mbx_bench_ctx *c)
{
    busy(((ovl_priv *)c->priv)->iters);
}

static double busy_time(const mbx_bench_ctx *c, int64_t n)
{
    double t0 = mbx_timer_now(c->timer);
    busy(n);
    return mbx_timer_now(c->timer) - t0;
}

/* This rank's busy-loop iterations per second. */
static double busy_rate(const mbx_bench_ctx *c)
{
    int64_t n = CAL_MIN_ITERS;
    while (n < CAL_MAX_ITERS && busy_time(c, n) < CAL_S)
        n *= 2;
    double best = 0.0;
    for (int i = 0; i < CAL_TRIES; i++) {
        double dt = busy_time(c, n);
        if (dt > 0 && (double)n / dt > best)
            best = (double)n / dt;
    }
    return best;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The busy loop alone on this rank: the median of a few runs, less the
 * timer overhead, seconds. */
static double alone_time(const mbx_bench_ctx *c, int64_t iters, double target)
{
    double t[ALONE_MAX];
    double r = target > 0 ? ALONE_BUDGET_S / target : ALONE_MAX;
    int reps = r < ALONE_MIN ? ALONE_MIN : r > ALONE_MAX ? ALONE_MAX : (int)r;
    for (int i = 0; i < reps; i++)
        t[i] = busy_time(c, iters) - c->overhead;
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    double m = t[reps / 2];
    return m > 0 ? m : 0.0;
}

/* Every rank of the point: the collective's set-up, the calibration, and
 * the computation alone, agreed over the ranks (one MPI_Allreduce, which
 * every rank reaches, a failed one too, so a failure is everyone's). */
static int ovl_setup(mbx_bench_ctx *c, enum mbx_coll_op op)
{
    int rc = mbx_coll_setup(c, op, sizeof(ovl_priv));
    double target = c->companion_median;
    int64_t iters = 0;
    if (rc == MPI_SUCCESS && isfinite(target) && target > 0) {
        double n = busy_rate(c) * target + 0.5;
        iters = n < (double)CAL_MAX_ITERS ? (int64_t)n : CAL_MAX_ITERS;
    }
    double mine[2] = {rc == MPI_SUCCESS ? alone_time(c, iters, target) : 0.0,
                      rc == MPI_SUCCESS ? 0.0 : 1.0};
    double all[2] = {0.0, 1.0};
    int mrc = MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, c->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (mrc != MPI_SUCCESS)
        return mrc;
    if (all[1] != 0.0)
        return MPI_ERR_OTHER; /* another rank failed: its own error is its own */
    ovl_priv *p = c->priv;
    p->iters = iters;
    p->coll.between = ovl_between;
    c->compute = all[0];
    return MPI_SUCCESS;
}

/* Each observation: start, compute, wait, timed as one. */
static int ovl_loop(mbx_bench_ctx *c, size_t k, double *t, enum mbx_coll_op op)
{
    int64_t iters = ((ovl_priv *)c->priv)->iters;
    int rc = MPI_SUCCESS;
    c->timing = 1;
    for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
        rc = mbx_obs_sync(c, i, 1);
        double t0 = mbx_timer_now(c->timer);
        MPI_Request q = MPI_REQUEST_NULL;
        if (rc == MPI_SUCCESS)
            rc = mbx_coll_istart(c, op, &q);
        if (rc == MPI_SUCCESS) {
            busy(iters);
            rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
        }
        t[i] = mbx_timer_now(c->timer) - t0;
    }
    return rc;
}

#define OVL_FNS(x, op)                                                                             \
    static int run_##x(mbx_bench_ctx *c, size_t k, double *t)                                      \
    {                                                                                              \
        return ovl_loop(c, k, t, op);                                                              \
    }                                                                                              \
    static int setup_##x(mbx_bench_ctx *c)                                                         \
    {                                                                                              \
        return ovl_setup(c, op);                                                                   \
    }
OVL_FNS(ibarrier, MBX_COLL_IBARRIER)
OVL_FNS(ibcast, MBX_COLL_IBCAST)
OVL_FNS(ireduce, MBX_COLL_IREDUCE)
OVL_FNS(iallreduce, MBX_COLL_IALLREDUCE)
OVL_FNS(ireduce_scatter, MBX_COLL_IREDUCE_SCATTER)
OVL_FNS(ireduce_scatter_block, MBX_COLL_IREDUCE_SCATTER_BLOCK)
OVL_FNS(iscan, MBX_COLL_ISCAN)
OVL_FNS(iexscan, MBX_COLL_IEXSCAN)
OVL_FNS(igather, MBX_COLL_IGATHER)
OVL_FNS(igatherv, MBX_COLL_IGATHERV)
OVL_FNS(iscatter, MBX_COLL_ISCATTER)
OVL_FNS(iscatterv, MBX_COLL_ISCATTERV)
OVL_FNS(iallgather, MBX_COLL_IALLGATHER)
OVL_FNS(iallgatherv, MBX_COLL_IALLGATHERV)
OVL_FNS(ialltoall, MBX_COLL_IALLTOALL)
OVL_FNS(ialltoallv, MBX_COLL_IALLTOALLV)

#define OV MBX_BENCH_OVERLAP
#define SZ (MBX_BENCH_SIZED | OV)
#define RT (MBX_BENCH_SIZED | MBX_BENCH_ROOTED | OV)
#define SUM "MPI_SUM/MPI_FLOAT"

#define OVL_TEXT(x, what)                                                                          \
    "overlap (OSU) of " what ": start, busy work as long as coll." #x " alone, wait; max over "    \
    "ranks"

/* OVL(x, flags, unit, buffers, op, what): overlap.x, companion coll.x
 * (whose flags are these without MBX_BENCH_OVERLAP, and unit the same);
 * buffers names the collective's buffer size mbx_coll_buf_NAME. */
#define OVL(x, fl, u, bufs, o, what)                                                               \
    {                                                                                              \
        .name = "overlap." #x, .pattern = "overlap", .summary = OVL_TEXT(x, what),                 \
        .timing = "max_over_ranks", .min_procs = 1, .flags = fl, .unit = u, .divisor = 1.0,        \
        .buf_bytes = mbx_coll_buf_##bufs, .setup = setup_##x, .run = run_##x,                      \
        .teardown = mbx_coll_teardown, .check = mbx_coll_check, .op = o, .companion = "coll." #x   \
    }

/* The pattern's place in the registry, the picker's and `mpibex list`'s
 * order (engine/mpi/CMakeLists.txt reads this line). */
#define MBX_PATTERN_ORDER 110
const mbx_bench mbx_bench_overlap_table[] = {
    OVL(ibarrier, OV, 1, none, NULL, "MPI_Ibarrier"),
    OVL(ibcast, RT, 1, same, NULL, "MPI_Ibcast of MPI_BYTE from the root"),
    OVL(ireduce, RT, 4, same, SUM, "MPI_Ireduce, MPI_FLOAT MPI_SUM to the root"),
    OVL(iallreduce, SZ, 4, same, SUM, "MPI_Iallreduce, MPI_FLOAT MPI_SUM"),
    OVL(ireduce_scatter, SZ, 4, times_procs, SUM,
        "MPI_Ireduce_scatter, MPI_FLOAT MPI_SUM, equal counts, bytes = each rank's block"),
    OVL(ireduce_scatter_block, SZ, 4, times_procs, SUM,
        "MPI_Ireduce_scatter_block, MPI_FLOAT MPI_SUM, bytes = each rank's block"),
    OVL(iscan, SZ, 4, same, SUM, "MPI_Iscan, MPI_FLOAT MPI_SUM"),
    OVL(iexscan, SZ, 4, same, SUM, "MPI_Iexscan, MPI_FLOAT MPI_SUM"),
    OVL(igather, RT, 1, times_procs, NULL, "MPI_Igather to the root, bytes per rank's block"),
    OVL(igatherv, RT, 1, times_procs, NULL,
        "MPI_Igatherv to the root, bytes per rank's block, equal counts"),
    OVL(iscatter, RT, 1, times_procs, NULL, "MPI_Iscatter from the root, bytes per rank's block"),
    OVL(iscatterv, RT, 1, times_procs, NULL,
        "MPI_Iscatterv from the root, bytes per rank's block, equal counts"),
    OVL(iallgather, SZ, 1, times_procs, NULL, "MPI_Iallgather, bytes contributed per rank"),
    OVL(iallgatherv, SZ, 1, times_procs, NULL,
        "MPI_Iallgatherv, bytes contributed per rank, equal counts"),
    OVL(ialltoall, SZ, 1, times_procs, NULL, "MPI_Ialltoall, bytes per rank pair"),
    OVL(ialltoallv, SZ, 1, times_procs, NULL, "MPI_Ialltoallv, bytes per rank pair, equal counts"),
};
const size_t mbx_bench_overlap_count =
    sizeof mbx_bench_overlap_table / sizeof mbx_bench_overlap_table[0];
