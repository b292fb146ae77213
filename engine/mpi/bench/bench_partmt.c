/* Partitioned point-to-point with threads filling the partitions
 * (part.mt): the way MPI 4.0 means partitioned messages to be used. Each
 * rank of the pair runs a team of T threads (the parameter `threads`, the
 * calling MPI thread included as thread 0; threads_team.h binds and parks
 * them), and a message has one partition per thread, T x `bytes`. Each
 * rank makes its two requests once per pass in set-up (MPI_Psend_init to
 * the other, MPI_Precv_init from it; their time is setup_us).
 *
 * One observation, timed by the initiator: MPI_Start of its receive and
 * its send, then every thread writes its own partition (a memset of
 * `bytes`, the producer's work, done in parallel) and marks it ready with
 * MPI_Pready, in whatever order the threads finish; the caller waits for
 * the team, then for the send, then for the receive. The responder waits
 * for its receive, then sends back the same way. Halved by the engine, as
 * every ping-pong is. So the figure is the half round trip of a message
 * that T threads produce and hand over partition by partition, the fill
 * included; part.send_recv is the same exchange from one thread without
 * the fill.
 *
 * More than one thread calling MPI needs MPI_THREAD_MULTIPLE: when the
 * library did not grant it, set-up fails the point with
 * MPI_ERR_UNSUPPORTED_OPERATION (the front ends name the level and the
 * remedy). One thread runs under any level. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "patterns.h"
#include "threads_team.h"

#define MBX_PATTERN_NEEDS MBX_HAVE_MPI_PART /* MPI_Psend_init and the rest */

#define PMT_TAG 74
#define PMT_SYNC_TAG 75
#define PMT_DEFAULT 2
#define PMT_MAX 64

enum { PMT_FILL, PMT_PATTERN };

typedef struct pmt_state {
    mbx_team team;
    mbx_bench_ctx *c;
    MPI_Request send, recv;
    int n, peer, initiator;
    int mode;           /* what a thread writes into its partition */
    unsigned char fill; /* the timed rounds' byte, changed every round */
    unsigned char *sb, *rb;
} pmt_state;

/* Every rank of the pair has its own message buffers (T x bytes); the
 * engine's are not used. */
static uint64_t pmt_buf(uint64_t bytes, int procs)
{
    (void)bytes;
    (void)procs;
    return 0;
}

static void pmt_moved(uint64_t bytes, int procs, int64_t param, uint64_t *b, uint64_t *m)
{
    (void)procs;
    *b = bytes * (uint64_t)(param > 0 ? param : PMT_DEFAULT);
    *m = 1;
}

/* The byte rank r puts at position i of its message for the check: it
 * differs between the ranks and along the message, so a partition that
 * never arrived or landed in another's place fails. */
static unsigned char pmt_byte(size_t i, int rank)
{
    return (unsigned char)((i * 41u + (i >> 8) * 3u + (unsigned)rank * 17u + 9u) & 0xffu);
}

/* Thread idx: write partition idx, then mark it ready. */
static int pmt_produce(pmt_state *s, int idx)
{
    size_t len = (size_t)s->c->count;
    unsigned char *p = s->sb + (size_t)idx * len;
    if (s->mode == PMT_FILL)
        memset(p, s->fill, len);
    else
        for (size_t i = 0; i < len; i++)
            p[i] = pmt_byte((size_t)idx * len + i, s->c->rank);
    return MPI_Pready(idx, s->send);
}

static void pmt_work(mbx_team *tm, int idx)
{
    int rc = pmt_produce(tm->ud, idx);
    if (rc != MPI_SUCCESS) {
        int none = 0;
        atomic_compare_exchange_strong(&tm->err, &none, rc);
    }
}

/* Start the send, let the team produce every partition, complete it. */
static int pmt_send(pmt_state *s)
{
    int rc = MPI_Start(&s->send);
    if (rc != MPI_SUCCESS)
        return rc;
    s->fill++;
    mbx_team_go(&s->team);
    rc = pmt_produce(s, 0);
    int wrc = mbx_team_done(&s->team);
    if (rc == MPI_SUCCESS)
        rc = wrc;
    return rc == MPI_SUCCESS ? MPI_Wait(&s->send, MPI_STATUS_IGNORE) : rc;
}

static int pmt_round_trip(pmt_state *s)
{
    int rc = MPI_Start(&s->recv);
    if (rc != MPI_SUCCESS)
        return rc;
    if (s->initiator) {
        rc = pmt_send(s);
        return rc == MPI_SUCCESS ? MPI_Wait(&s->recv, MPI_STATUS_IGNORE) : rc;
    }
    rc = MPI_Wait(&s->recv, MPI_STATUS_IGNORE);
    return rc == MPI_SUCCESS ? pmt_send(s) : rc;
}

static void pmt_teardown(mbx_bench_ctx *c)
{
    pmt_state *s = c->priv;
    if (!s)
        return;
    mbx_team_stop(&s->team);
    if (s->send != MPI_REQUEST_NULL)
        (void)MPI_Request_free(&s->send);
    if (s->recv != MPI_REQUEST_NULL)
        (void)MPI_Request_free(&s->recv);
    free(s->sb); /* after the requests bound to them */
    free(s->rb);
    free(s);
    c->priv = NULL;
}

/* The pair's team and requests (the requests' time is setup_us: the
 * maximum over the point's ranks, every one of which takes part). */
static int pmt_make(mbx_bench_ctx *c, double *took)
{
    *took = 0.0;
    if (c->rank != c->pair_a && c->rank != c->pair_b)
        return MPI_SUCCESS;
    int n, rc = mbx_team_size(c->param, PMT_DEFAULT, PMT_MAX, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    pmt_state *s = calloc(1, sizeof *s);
    if (!s)
        return MPI_ERR_NO_MEM;
    c->priv = s;
    s->c = c;
    s->n = n;
    s->send = s->recv = MPI_REQUEST_NULL;
    s->initiator = c->rank == c->pair_a;
    s->peer = s->initiator ? c->pair_b : c->pair_a;
    size_t len = (size_t)s->n * (size_t)c->count;
    s->sb = calloc(len ? len : 1, 1);
    s->rb = calloc(len ? len : 1, 1);
    if (!s->sb || !s->rb)
        return MPI_ERR_NO_MEM;
    /* Unbound ranks of the pair share the node's PUs: the responder's
     * threads start on the PUs after the initiator's. */
    rc = mbx_team_start(&s->team, s->n, 1, s->initiator ? 0 : s->n, pmt_work, s);
    if (rc != MPI_SUCCESS)
        return rc;
    double t0 = mbx_timer_now(c->timer);
    rc = MPI_Psend_init(s->sb, s->n, c->count, MPI_BYTE, s->peer, PMT_TAG, c->comm, MPI_INFO_NULL,
                        &s->send);
    if (rc == MPI_SUCCESS)
        rc = MPI_Precv_init(s->rb, s->n, c->count, MPI_BYTE, s->peer, PMT_TAG, c->comm,
                            MPI_INFO_NULL, &s->recv);
    *took = mbx_timer_now(c->timer) - t0;
    return rc;
}

static int pmt_setup(mbx_bench_ctx *c)
{
    double took, most = NAN;
    int rc = pmt_make(c, &took);
    int arc = MPI_Allreduce(&took, &most, 1, MPI_DOUBLE, MPI_MAX, c->comm);
    c->setup_s = most;
    if (rc != MPI_SUCCESS)
        pmt_teardown(c);
    return rc != MPI_SUCCESS ? rc : arc;
}

static int pmt_run(mbx_bench_ctx *c, size_t k, double *t)
{
    pmt_state *s = c->priv;
    if (!s)
        return MPI_SUCCESS; /* not in the pair */
    /* An untimed zero-byte round trip first: the command that starts the
     * batch reaches the two ranks at different times. */
    char z = 0;
    int rc = MPI_Sendrecv(&z, 0, MPI_BYTE, s->peer, PMT_SYNC_TAG, &z, 0, MPI_BYTE, s->peer,
                          PMT_SYNC_TAG, c->comm, MPI_STATUS_IGNORE);
    c->timing = s->initiator;
    for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
        if ((rc = mbx_obs_sync(c, i, 0)) != MPI_SUCCESS)
            break;
        double t0 = mbx_timer_now(c->timer);
        rc = pmt_round_trip(s);
        if (s->initiator)
            t[i] = mbx_timer_now(c->timer) - t0;
    }
    return rc;
}

/* One untimed round trip in which the threads write the check's pattern,
 * checked on both ranks. */
static int pmt_check(mbx_bench_ctx *c, int *bad)
{
    pmt_state *s = c->priv;
    *bad = 0;
    if (!s)
        return MPI_SUCCESS;
    size_t n = (size_t)s->n * (size_t)c->count;
    memset(s->rb, 0, n);
    s->mode = PMT_PATTERN;
    int rc = pmt_round_trip(s);
    s->mode = PMT_FILL;
    if (rc != MPI_SUCCESS)
        return rc;
    /* Test hook: MBX_TEST_CORRUPT=1 flips a received byte, to prove the
     * check can fail. */
    if (mbx_test_corrupt() && n > 0)
        s->rb[0] ^= 0xff;
    for (size_t i = 0; i < n && !*bad; i++)
        *bad = s->rb[i] != pmt_byte(i, s->peer);
    return MPI_SUCCESS;
}

/* The pattern's place in the registry, the picker's and `mpibex list`'s
 * order (engine/mpi/CMakeLists.txt reads this line): after part.send_recv. */
#define MBX_PATTERN_ORDER 136
const mbx_bench mbx_bench_partmt_table[] = {
    {.name = "part.mt",
     .pattern = "part",
     .summary = "T threads per rank each write one partition and MPI_Pready it (MPI_Psend_init "
                "/ MPI_Precv_init once per pass, setup_us; MPI_THREAD_MULTIPLE), pair a<->b; "
                "bytes per partition, param threads (default 2); a's round trip / 2",
     .timing = "half_round_trip",
     .min_procs = 2,
     .flags = MBX_BENCH_SIZED | MBX_BENCH_PAIR | MBX_BENCH_PARAM | MBX_BENCH_TEAM |
              MBX_BENCH_MPI_THREADS,
     .unit = 1,
     .divisor = 2.0,
     .buf_bytes = pmt_buf,
     .setup = pmt_setup,
     .run = pmt_run,
     .teardown = pmt_teardown,
     .check = pmt_check,
     .param_name = "threads",
     .param_default = PMT_DEFAULT,
     .param_max = PMT_MAX,
     .moved = pmt_moved},
};
const size_t mbx_bench_partmt_count =
    sizeof mbx_bench_partmt_table / sizeof mbx_bench_partmt_table[0];
