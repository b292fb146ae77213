/* Partitioned point-to-point (MPI 4.0), part.send_recv: a ping-pong of
 * partitioned messages of P partitions (the point's param, default 8) of
 * `bytes` each, so a message is P x bytes. Each rank of the pair makes its
 * two requests once per pass in set-up (MPI_Psend_init to the other,
 * MPI_Precv_init from it; their time is setup_us). An observation is the
 * initiator's MPI_Start of its receive and its send, MPI_Pready of the
 * partitions in order, MPI_Wait of the send, then of the receive; the
 * responder waits for its receive, then sends the same way back; halved by
 * the engine, as pingpong.send_recv and persist.send_recv are.
 *
 * Set-up also measures, between the pair and untimed, the figures of
 * Sandia's partitioned micro-benchmarks, each the median over PART_ROUNDS
 * rounds (docs/algorithms.md, "Partitioned communication", gives the
 * formulas): the perceived bandwidth (the message over the time from the
 * last MPI_Pready to the receiver's completion), the overhead against one
 * MPI_Send of the whole message (rounds interleaved with the partitioned
 * ones), and the early-bird share (the partitions that arrived, by
 * MPI_Parrived, well before the last one, which the sender marks ready
 * only after a delay). Every rank of the point takes the initiator's
 * figures (a reduction), and rank 0's become the row's perceived_MBps,
 * overhead_pct and early_bird_pct.
 *
 * Test hook (builds with the test suite): MBX_TEST_PART_HANG=BYTES makes
 * the initiator never mark its last partition ready at points of BYTES
 * bytes, so the responder's receive never completes: the watchdog's case
 * (docs/hardening.md, "A point that does not return"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "patterns.h"

#define MBX_PATTERN_NEEDS MBX_HAVE_MPI_PART /* MPI_Psend_init and the rest */

#define PART_TAG 71
#define PART_ACK_TAG 72
#define PART_SEND_TAG 73
#define PART_WARM 3
#define PART_ROUNDS 15
#define PART_DEFAULT 8
#define PART_MAX 1024

typedef struct part_priv {
    MPI_Request send, recv; /* the pair's; MPI_REQUEST_NULL elsewhere */
    int parts, peer, initiator;
    int hang;               /* test hook: never ready the last partition */
    unsigned char *sb, *rb; /* the pair's messages, parts x bytes each */
} part_priv;

/* A message is P x bytes and the engine's buffers know bytes only: the
 * pair allocates its own in set-up; the engine's hold one partition (the
 * untimed zero-byte sync needs none). */
static uint64_t part_buf(uint64_t bytes, int procs)
{
    (void)procs;
    return bytes;
}

static void part_moved(uint64_t bytes, int procs, int64_t param, uint64_t *b, uint64_t *m)
{
    (void)procs;
    *b = bytes * (uint64_t)(param > 0 ? param : PART_DEFAULT);
    *m = 1;
}

static int in_pair(const mbx_bench_ctx *c)
{
    return c->rank == c->pair_a || c->rank == c->pair_b;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* Start the send, ready its partitions in order (the last one at *last on
 * the timer, unless the hook holds it back), complete it. */
static int send_parts(mbx_bench_ctx *c, part_priv *p, double *last)
{
    int rc = MPI_Start(&p->send);
    for (int k = 0; k < p->parts && rc == MPI_SUCCESS; k++) {
        if (k == p->parts - 1) {
            if (last)
                *last = mbx_timer_now(c->timer);
            if (p->hang)
                break;
        }
        rc = MPI_Pready(k, p->send);
    }
    return rc == MPI_SUCCESS ? MPI_Wait(&p->send, MPI_STATUS_IGNORE) : rc;
}

static int recv_parts(part_priv *p)
{
    int rc = MPI_Start(&p->recv);
    return rc == MPI_SUCCESS ? MPI_Wait(&p->recv, MPI_STATUS_IGNORE) : rc;
}

/* One round trip of the timed loop: the initiator posts its receive, sends,
 * then waits for the reply; the responder the other way round. */
static int round_trip(mbx_bench_ctx *c, part_priv *p)
{
    int rc;
    if (p->initiator) {
        rc = MPI_Start(&p->recv);
        if (rc == MPI_SUCCESS)
            rc = send_parts(c, p, NULL);
        return rc == MPI_SUCCESS ? MPI_Wait(&p->recv, MPI_STATUS_IGNORE) : rc;
    }
    rc = recv_parts(p);
    return rc == MPI_SUCCESS ? send_parts(c, p, NULL) : rc;
}

/* Spin on the timer for d seconds (a producer still working). */
static void spin(const mbx_bench_ctx *c, double d)
{
    double t0 = mbx_timer_now(c->timer);
    while (mbx_timer_now(c->timer) - t0 < d)
        ;
}

/* The set-up rounds' times, seconds, and early-bird shares. */
typedef struct part_rounds {
    double ack[PART_ROUNDS], part[PART_ROUNDS], send[PART_ROUNDS], seen[PART_ROUNDS];
    double early[PART_ROUNDS];
} part_rounds;

/* One-way times with a 0-byte acknowledgement, the pair's rounds
 * interleaved: a 0-byte ping-pong (the acknowledgement's one-way time),
 * the partitioned message, one MPI_Send of the whole message. */
static int oneway_rounds(mbx_bench_ctx *c, part_priv *p, part_rounds *r)
{
    char z = 0;
    int n = p->parts * c->count, rc = MPI_SUCCESS;
    for (int j = 0; j < PART_WARM + PART_ROUNDS && rc == MPI_SUCCESS; j++) {
        int keep = j >= PART_WARM, i = j - PART_WARM;
        if (p->initiator) {
            double t0 = mbx_timer_now(c->timer), last = t0;
            rc = MPI_Send(&z, 0, MPI_BYTE, p->peer, PART_ACK_TAG, c->comm);
            if (rc == MPI_SUCCESS)
                rc = MPI_Recv(&z, 0, MPI_BYTE, p->peer, PART_ACK_TAG, c->comm, MPI_STATUS_IGNORE);
            double t1 = mbx_timer_now(c->timer);
            if (rc == MPI_SUCCESS)
                rc = send_parts(c, p, &last);
            if (rc == MPI_SUCCESS)
                rc = MPI_Recv(&z, 0, MPI_BYTE, p->peer, PART_ACK_TAG, c->comm, MPI_STATUS_IGNORE);
            double t2 = mbx_timer_now(c->timer);
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(p->sb, n, MPI_BYTE, p->peer, PART_SEND_TAG, c->comm);
            if (rc == MPI_SUCCESS)
                rc = MPI_Recv(&z, 0, MPI_BYTE, p->peer, PART_ACK_TAG, c->comm, MPI_STATUS_IGNORE);
            double t3 = mbx_timer_now(c->timer);
            if (keep) {
                r->ack[i] = (t1 - t0) / 2.0;
                r->part[i] = t2 - t1;
                r->seen[i] = t2 - last;
                r->send[i] = t3 - t2;
            }
        } else {
            rc = MPI_Recv(&z, 0, MPI_BYTE, p->peer, PART_ACK_TAG, c->comm, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(&z, 0, MPI_BYTE, p->peer, PART_ACK_TAG, c->comm);
            if (rc == MPI_SUCCESS)
                rc = recv_parts(p);
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(&z, 0, MPI_BYTE, p->peer, PART_ACK_TAG, c->comm);
            if (rc == MPI_SUCCESS)
                rc = MPI_Recv(p->rb, n, MPI_BYTE, p->peer, PART_SEND_TAG, c->comm,
                              MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(&z, 0, MPI_BYTE, p->peer, PART_ACK_TAG, c->comm);
        }
    }
    return rc;
}

/* Early-bird rounds: the initiator readies every partition but the last,
 * works on for `hold` seconds, then readies the last; the responder polls
 * MPI_Parrived and counts the partitions that were there at least hold / 2
 * before the last one: sent early, not held back until all were ready. */
static int early_rounds(mbx_bench_ctx *c, part_priv *p, double hold, part_rounds *r)
{
    double when[PART_MAX];
    char z = 0;
    /* The responder needs the initiator's hold for its count. */
    int rc = p->initiator ? MPI_Send(&hold, 1, MPI_DOUBLE, p->peer, PART_ACK_TAG, c->comm)
                          : MPI_Recv(&hold, 1, MPI_DOUBLE, p->peer, PART_ACK_TAG, c->comm,
                                     MPI_STATUS_IGNORE);
    for (int j = 0; j < PART_WARM + PART_ROUNDS && rc == MPI_SUCCESS; j++) {
        int keep = j >= PART_WARM, i = j - PART_WARM;
        /* Both start the round together. */
        rc = MPI_Sendrecv(&z, 0, MPI_BYTE, p->peer, PART_ACK_TAG, &z, 0, MPI_BYTE, p->peer,
                          PART_ACK_TAG, c->comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            break;
        if (p->initiator) {
            rc = MPI_Start(&p->send);
            for (int k = 0; k < p->parts - 1 && rc == MPI_SUCCESS; k++)
                rc = MPI_Pready(k, p->send);
            spin(c, hold);
            if (rc == MPI_SUCCESS)
                rc = MPI_Pready(p->parts - 1, p->send);
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&p->send, MPI_STATUS_IGNORE);
            continue;
        }
        rc = MPI_Start(&p->recv);
        int left = p->parts;
        for (int k = 0; k < p->parts; k++)
            when[k] = -1.0;
        while (left > 0 && rc == MPI_SUCCESS)
            for (int k = 0; k < p->parts && rc == MPI_SUCCESS; k++) {
                int flag = 0;
                if (when[k] >= 0.0)
                    continue;
                rc = MPI_Parrived(p->recv, k, &flag);
                if (flag)
                    when[k] = mbx_timer_now(c->timer), left--;
            }
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&p->recv, MPI_STATUS_IGNORE);
        int early = 0;
        for (int k = 0; k < p->parts - 1; k++)
            early += when[k] <= when[p->parts - 1] - hold / 2.0;
        if (keep)
            r->early[i] = (double)early / (double)(p->parts - 1);
    }
    return rc;
}

/* The pair's figures: fig[0] the perceived time and fig[1] the partitioned
 * over the single-send time on the initiator, fig[2] the early-bird share
 * on the responder (NAN with one partition); NAN elsewhere. */
static int part_figures(mbx_bench_ctx *c, part_priv *p, double fig[3])
{
    fig[0] = fig[1] = fig[2] = NAN;
    part_rounds *r = calloc(1, sizeof *r);
    if (!r)
        return MPI_ERR_NO_MEM;
    int rc = oneway_rounds(c, p, r);
    double hold = 0.0;
    if (rc == MPI_SUCCESS && p->initiator) {
        double ack = median(r->ack, PART_ROUNDS);
        for (int i = 0; i < PART_ROUNDS; i++)
            r->part[i] -= ack, r->seen[i] -= ack, r->send[i] -= ack;
        double part = median(r->part, PART_ROUNDS), send = median(r->send, PART_ROUNDS);
        fig[0] = median(r->seen, PART_ROUNDS);
        fig[1] = send > 0.0 ? part / send : NAN;
        /* Long enough that a partition sent at once is there well before
         * the last: four whole transfers, and 20 us at least. */
        hold = fmax(4.0 * fmax(part, send), 20e-6);
    }
    if (rc == MPI_SUCCESS && p->parts > 1)
        rc = early_rounds(c, p, hold, r);
    if (rc == MPI_SUCCESS && !p->initiator && p->parts > 1)
        fig[2] = median(r->early, PART_ROUNDS);
    free(r);
    return rc;
}

static int part_make(mbx_bench_ctx *c, part_priv *p, double *took)
{
    *took = 0.0;
    if (!in_pair(c))
        return MPI_SUCCESS;
    MPI_Count n = c->count;
    size_t len = (size_t)p->parts * (size_t)c->count;
    p->sb = calloc(len ? len : 1, 1);
    p->rb = calloc(len ? len : 1, 1);
    if (!p->sb || !p->rb)
        return MPI_ERR_NO_MEM;
    double t0 = mbx_timer_now(c->timer);
    int rc = MPI_Psend_init(p->sb, p->parts, n, MPI_BYTE, p->peer, PART_TAG, c->comm, MPI_INFO_NULL,
                            &p->send);
    if (rc == MPI_SUCCESS)
        rc = MPI_Precv_init(p->rb, p->parts, n, MPI_BYTE, p->peer, PART_TAG, c->comm, MPI_INFO_NULL,
                            &p->recv);
    *took = mbx_timer_now(c->timer) - t0;
    return rc;
}

static void part_teardown(mbx_bench_ctx *c)
{
    part_priv *p = c->priv;
    if (!p)
        return;
    if (p->send != MPI_REQUEST_NULL)
        (void)MPI_Request_free(&p->send);
    if (p->recv != MPI_REQUEST_NULL)
        (void)MPI_Request_free(&p->recv);
    free(p->sb); /* after the requests bound to them */
    free(p->rb);
    free(p);
    c->priv = NULL;
}

#ifdef MBX_TEST_HOOKS
static int hook_hang(const mbx_bench_ctx *c)
{
    const char *v = getenv("MBX_TEST_PART_HANG");
    return v && strtoull(v, NULL, 10) == c->bytes;
}
#else
static int hook_hang(const mbx_bench_ctx *c)
{
    (void)c;
    return 0;
}
#endif

/* The requests (timed: setup_us), then the figures; every rank of the
 * point takes part in the reductions, so none is left waiting in them.
 * The figures' rounds are skipped when the hook holds a partition back:
 * they would hang in set-up, where no watchdog counts. */
static int part_setup(mbx_bench_ctx *c)
{
    part_priv *p = calloc(1, sizeof *p);
    if (!p)
        return MPI_ERR_NO_MEM;
    c->priv = p;
    p->send = p->recv = MPI_REQUEST_NULL;
    p->parts = (int)(c->param > 0 ? c->param : PART_DEFAULT);
    p->initiator = c->rank == c->pair_a;
    p->peer = p->initiator ? c->pair_b : c->pair_a;
    double took, most = NAN, fig[3] = {NAN, NAN, NAN};
    int rc = part_make(c, p, &took);
    int arc = MPI_Allreduce(&took, &most, 1, MPI_DOUBLE, MPI_MAX, c->comm);
    c->setup_s = most;
    if (rc != MPI_SUCCESS || arc != MPI_SUCCESS)
        return rc != MPI_SUCCESS ? rc : arc;
    int hang = hook_hang(c), any = 0;
    if ((rc = MPI_Allreduce(&hang, &any, 1, MPI_INT, MPI_MAX, c->comm)) != MPI_SUCCESS)
        return rc;
    if (!any && in_pair(c))
        rc = part_figures(c, p, fig);
    p->hang = hang && p->initiator;
    /* NAN stays NAN under MAX only where no rank has a number: use -1. */
    double mine[3], all[3];
    for (int i = 0; i < 3; i++)
        mine[i] = isfinite(fig[i]) ? fig[i] : -1.0;
    arc = MPI_Allreduce(mine, all, 3, MPI_DOUBLE, MPI_MAX, c->comm);
    c->part_seen_s = all[0] > 0.0 ? all[0] : NAN;
    c->part_ratio = all[1] > 0.0 ? all[1] : NAN;
    c->part_early = all[2] >= 0.0 ? all[2] : NAN;
    return rc != MPI_SUCCESS ? rc : arc;
}

static int part_run(mbx_bench_ctx *c, size_t k, double *t)
{
    part_priv *p = c->priv;
    if (!in_pair(c))
        return MPI_SUCCESS;
    /* An untimed zero-byte round trip first: the command that starts the
     * batch reaches the two ranks at different times. */
    char z = 0;
    int rc = MPI_Sendrecv(&z, 0, MPI_BYTE, p->peer, PART_ACK_TAG, &z, 0, MPI_BYTE, p->peer,
                          PART_ACK_TAG, c->comm, MPI_STATUS_IGNORE);
    c->timing = p->initiator;
    for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
        if ((rc = mbx_obs_sync(c, i, 0)) != MPI_SUCCESS)
            break;
        double t0 = mbx_timer_now(c->timer);
        rc = round_trip(c, p);
        if (p->initiator)
            t[i] = mbx_timer_now(c->timer) - t0;
    }
    return rc;
}

/* The byte a rank puts at position i: it differs between the two ranks and
 * along the message, so a partition that never arrived, arrived in another
 * one's place or came from the wrong rank fails. */
static unsigned char part_byte(size_t i, int rank)
{
    return (unsigned char)((i * 31u + (i >> 8) * 7u + (unsigned)rank * 13u + 5u) & 0xffu);
}

/* One untimed round trip through the requests with known data, checked on
 * both ranks. */
static int part_check(mbx_bench_ctx *c, int *bad)
{
    part_priv *p = c->priv;
    *bad = 0;
    if (!in_pair(c))
        return MPI_SUCCESS;
    size_t n = (size_t)p->parts * (size_t)c->count;
    unsigned char *s = p->sb, *d = p->rb;
    for (size_t i = 0; i < n; i++)
        s[i] = part_byte(i, c->rank);
    memset(d, 0, n);
    int rc = round_trip(c, p);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Test hook: MBX_TEST_CORRUPT=1 flips a received byte, to prove the
     * check can fail. */
    if (mbx_test_corrupt() && n > 0)
        d[0] ^= 0xff;
    for (size_t i = 0; i < n && !*bad; i++)
        *bad = d[i] != part_byte(i, p->peer);
    return MPI_SUCCESS;
}

/* The pattern's place in the registry, the picker's and `mpibex list`'s
 * order (engine/mpi/CMakeLists.txt reads this line): after persist.*. */
#define MBX_PATTERN_ORDER 135
const mbx_bench mbx_bench_part_table[] = {
    {.name = "part.send_recv",
     .pattern = "part",
     .summary = "MPI_Psend_init / MPI_Precv_init once per pass (setup_us), MPI_Start + MPI_Pready "
                "of each partition in order + MPI_Wait, pair a<->b; bytes per partition, param "
                "partitions (default 8); a's round trip / 2",
     .timing = "half_round_trip",
     .min_procs = 2,
     .flags = MBX_BENCH_SIZED | MBX_BENCH_PAIR | MBX_BENCH_PARAM,
     .unit = 1,
     .divisor = 2.0,
     .buf_bytes = part_buf,
     .setup = part_setup,
     .run = part_run,
     .teardown = part_teardown,
     .check = part_check,
     .param_name = "partitions",
     .param_default = PART_DEFAULT,
     .param_max = PART_MAX,
     .moved = part_moved},
};
const size_t mbx_bench_part_count = sizeof mbx_bench_part_table / sizeof mbx_bench_part_table[0];
