/* Accurate operation latency of fan-out collectives (MPI_Bcast,
 * MPI_Scatter), after de Supinski and Karonis ("Accurately Measuring
 * Broadcasts in a Computational Grid", HPDC 1999) as Sphinx measures it.
 *
 * A barrier-synchronized collective times each rank's own call; for a
 * fan-out the root's call may return long before the last receiver has its
 * data, and the maximum over ranks mixes in the skew of the barrier's exit.
 * Here the root alone times, on its own clock, the time until each receiver
 * really has the data:
 *
 * Setup (untimed): for every receiver r != root, ACK_WARM + ACK_ROUNDS
 * ping-pongs of 0-byte messages between the root and r (the root sends, r
 * replies); ack_r = (median round trip - timer overhead) / 2, the one-way
 * latency of an acknowledgement from r. The ranks outside each ping-pong
 * wait for it in a barrier they test asleep, so the two ranks timed have
 * the cores even when ranks outnumber cores.
 *
 * One observation is one sweep over the receivers in rank order. For each
 * r: all ranks are synchronized first, untimed (mbx_obs_sync for the first
 * receiver, MPI_Barrier for the others), so no operation overlaps the
 * previous one; the root reads the timer, starts the operation, receives
 * r's 0-byte acknowledgement and reads the timer again; r sends the
 * acknowledgement as soon as its call returns; every other rank just takes
 * part in the operation. d_r = t_r - ack_r. The observation is the maximum
 * of d_r over the receivers: the operation latency. Only the root times
 * (ctx->timing is 0 elsewhere), so the engine's maximum over ranks is the
 * root's value; the engine subtracts the timer overhead once, as for any
 * single timed interval, and the divisor is 1.
 *
 * Anomalous correction: when for some r the corrected time d_r minus the
 * timer overhead is not positive, the subtraction removed more than was
 * measured and the sweep means nothing. Such a sweep reports the smallest
 * d_r instead, which the engine turns into a non-positive observation; a
 * point whose median observation is non-positive is marked UNRELIABLE (as
 * for any benchmark), so a point is UNRELIABLE when most sweeps were
 * anomalous, while a rare anomaly only pulls the low end of the spread.
 *
 * With window sync the first receiver's operation starts at the window
 * instead of after a barrier; the root's interval then also holds any
 * lateness of r against the window (the clock synchronization's error).
 * --validate reuses the collective pattern's check (bench_coll_check.c),
 * MBX_TEST_CORRUPT included.
 *
 * Each benchmark names the plain barrier-synchronized collective as its
 * companion (coll.bcast, coll.scatter): the engine measures that at the
 * same point right before, so every row carries both numbers, taken under
 * the same machine state (mbx_result.plain, the CSV's plain_us). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_coll.h"
#include "patterns.h"

#define ACK_TAG 23
#define ACK_WARM 5
#define ACK_ROUNDS 50
#define QUIET_SLEEP_NS 100000L /* 0.1 ms */

/* ctx->priv. The collective pattern's state comes first, so mbx_coll_once
 * and mbx_coll_check (which read ctx->priv as an mbx_coll_priv) work on
 * it unchanged. */
typedef struct fanout_priv {
    mbx_coll_priv base;
    double *ack; /* root: one-way acknowledgement latency of each rank, s */
    /* Test hook: MBX_TEST_ACK_INFLATE=1 in the environment at setup adds
     * one second to every ack_r, so every correction is anomalous and the
     * point must come out UNRELIABLE. 0 otherwise. */
    double inflate;
} fanout_priv;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Root and r: the ping-pongs that give ack_r (on the root). */
static int measure_ack(mbx_bench_ctx *c, fanout_priv *p, int r, double *rt)
{
    char z = 0;
    int rc = MPI_SUCCESS;
    for (int j = 0; j < ACK_WARM + ACK_ROUNDS && rc == MPI_SUCCESS; j++) {
        if (c->rank == c->root) {
            double t0 = mbx_timer_now(c->timer);
            rc = MPI_Send(&z, 0, MPI_BYTE, r, ACK_TAG, c->comm);
            if (rc == MPI_SUCCESS)
                rc = MPI_Recv(&z, 0, MPI_BYTE, r, ACK_TAG, c->comm, MPI_STATUS_IGNORE);
            if (j >= ACK_WARM)
                rt[j - ACK_WARM] = mbx_timer_now(c->timer) - t0;
        } else {
            rc = MPI_Recv(&z, 0, MPI_BYTE, c->root, ACK_TAG, c->comm, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(&z, 0, MPI_BYTE, c->root, ACK_TAG, c->comm);
        }
    }
    if (rc == MPI_SUCCESS && c->rank == c->root) {
        qsort(rt, ACK_ROUNDS, sizeof *rt, cmp_double);
        double med = (rt[ACK_ROUNDS / 2 - 1] + rt[ACK_ROUNDS / 2]) / 2.0;
        double one = (med - c->overhead) / 2.0;
        p->ack[r] = (one > 0.0 ? one : 0.0) + p->inflate;
    }
    return rc;
}

/* A barrier; with `quiet`, waited for asleep between tests, so a rank that
 * is not in the ping-pong leaves the cores to the two that are (ranks may
 * outnumber cores). Untimed. */
static int quiet_barrier(mbx_bench_ctx *c, int quiet)
{
    MPI_Request q;
    int rc = MPI_Ibarrier(c->comm, &q), done = 0;
    if (rc != MPI_SUCCESS || !quiet)
        return rc == MPI_SUCCESS ? MPI_Wait(&q, MPI_STATUS_IGNORE) : rc;
    struct timespec d = {0, QUIET_SLEEP_NS};
    while (rc == MPI_SUCCESS && !(rc = MPI_Test(&q, &done, MPI_STATUS_IGNORE)) && !done)
        nanosleep(&d, NULL);
    return rc;
}

static void fanout_teardown(mbx_bench_ctx *c)
{
    fanout_priv *p = c->priv;
    if (!p)
        return;
    free(p->ack);
    free(p);
    c->priv = NULL;
}

static int fanout_setup(mbx_bench_ctx *c, enum mbx_coll_op op)
{
    fanout_priv *p = calloc(1, sizeof *p);
    int bad = !p;
    if (p) {
        c->priv = p;
        p->base.op = op;
        p->base.made = MPI_COMM_NULL;
        p->base.corrupt = mbx_test_corrupt();
        const char *hook = getenv("MBX_TEST_ACK_INFLATE");
        p->inflate = hook && strcmp(hook, "1") == 0 ? 1.0 : 0.0;
        if (c->rank == c->root)
            bad = !(p->ack = calloc((size_t)c->size, sizeof *p->ack));
    }
    /* Every rank learns whether any failed, so none is left in a
     * ping-pong whose partner gave up. */
    int any = 0;
    int rc = MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, c->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (any)
        return MPI_ERR_NO_MEM; /* teardown frees what was made */
    double rt[ACK_ROUNDS];
    for (int r = 0; r < c->size && rc == MPI_SUCCESS; r++) {
        if (r == c->root)
            continue;
        if (c->rank == c->root || c->rank == r)
            rc = measure_ack(c, p, r, rt);
        int brc = quiet_barrier(c, c->rank != c->root && c->rank != r);
        rc = rc == MPI_SUCCESS ? brc : rc;
    }
    return rc;
}

static inline int fanout_op(mbx_bench_ctx *c, enum mbx_coll_op op)
{
    if (op == MBX_COLL_BCAST)
        return MPI_Bcast(c->sbuf, c->count, MPI_BYTE, c->root, c->comm);
    return MPI_Scatter(c->sbuf, c->count, MPI_BYTE, c->rbuf, c->count, MPI_BYTE, c->root, c->comm);
}

static int fanout_loop(mbx_bench_ctx *c, size_t k, double *t, enum mbx_coll_op op)
{
    fanout_priv *p = c->priv;
    int root = c->rank == c->root, rc = MPI_SUCCESS;
    char z = 0;
    c->timing = root;
    for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
        double worst = 0.0, least = 0.0;
        int first = 1, anomalous = 0;
        for (int r = 0; r < c->size && rc == MPI_SUCCESS; r++) {
            if (r == c->root)
                continue;
            rc = first ? mbx_obs_sync(c, i, 1) : MPI_Barrier(c->comm);
            if (rc != MPI_SUCCESS)
                break;
            if (root) {
                double t0 = mbx_timer_now(c->timer);
                rc = fanout_op(c, op);
                if (rc == MPI_SUCCESS)
                    rc = MPI_Recv(&z, 0, MPI_BYTE, r, ACK_TAG, c->comm, MPI_STATUS_IGNORE);
                double d = mbx_timer_now(c->timer) - t0 - p->ack[r];
                anomalous |= d - c->overhead <= 0.0;
                worst = first || d > worst ? d : worst;
                least = first || d < least ? d : least;
            } else {
                rc = fanout_op(c, op);
                if (rc == MPI_SUCCESS && c->rank == r)
                    rc = MPI_Send(&z, 0, MPI_BYTE, c->root, ACK_TAG, c->comm);
            }
            first = 0;
        }
        t[i] = anomalous ? least : worst;
    }
    return rc;
}

static int run_bcast(mbx_bench_ctx *c, size_t k, double *t)
{
    return fanout_loop(c, k, t, MBX_COLL_BCAST);
}

static int setup_bcast(mbx_bench_ctx *c)
{
    return fanout_setup(c, MBX_COLL_BCAST);
}

static int run_scatter(mbx_bench_ctx *c, size_t k, double *t)
{
    return fanout_loop(c, k, t, MBX_COLL_SCATTER);
}

static int setup_scatter(mbx_bench_ctx *c)
{
    return fanout_setup(c, MBX_COLL_SCATTER);
}

#define FANOUT(x, bufs, text)                                                                      \
    {                                                                                              \
        .name = "coll." #x "_accurate", .pattern = "coll", .summary = text,                        \
        .timing = "max_over_receivers", .min_procs = 2,                                            \
        .flags = MBX_BENCH_SIZED | MBX_BENCH_ROOTED, .unit = 1, .divisor = 1.0,                    \
        .buf_bytes = mbx_coll_buf_##bufs, .setup = setup_##x, .run = run_##x,                      \
        .teardown = fanout_teardown, .check = mbx_coll_check, .companion = "coll." #x              \
    }

/* The pattern's place in the registry, the picker's and `mpibex list`'s
 * order (engine/mpi/CMakeLists.txt reads this line). */
#define MBX_PATTERN_ORDER 40
const mbx_bench mbx_bench_fanout_table[] = {
    FANOUT(bcast, same,
           "MPI_Bcast of MPI_BYTE from the root; each receiver in turn acknowledges, the "
           "acknowledgement's latency subtracted; max over receivers (Sphinx)"),
    FANOUT(scatter, times_procs,
           "MPI_Scatter of MPI_BYTE blocks from the root; each receiver in turn acknowledges, the "
           "acknowledgement's latency subtracted; max over receivers (Sphinx)"),
};
const size_t mbx_bench_fanout_count =
    sizeof mbx_bench_fanout_table / sizeof *mbx_bench_fanout_table;
