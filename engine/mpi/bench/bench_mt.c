/* Ping-pong with several threads per rank (pingpong.mt): ctx->pair_a and
 * ctx->pair_b each run a team of T threads (the parameter `threads`, the
 * calling MPI thread included as thread 0; see threads_team.h for the
 * binding and parking). Thread j of one rank exchanges with thread j of the
 * other, with its own tag (MT_TAG + j) and its own buffers, all on the
 * point's communicator, so the T round trips are independent and run at
 * once. More than one thread calling MPI needs MPI_THREAD_MULTIPLE: when
 * the library did not grant it, setup fails the point with
 * MPI_ERR_UNSUPPORTED_OPERATION (the engine reports MBX_E_UNSUPPORTED; a
 * front end names the level with mbx_engine_thread_level). T = 1 runs
 * under any level.
 *
 * One observation, on both ranks of the pair: mbx_obs_sync on the calling
 * thread, release the workers, every thread does one round trip
 * (initiator: send then receive; responder: receive then send), wait for
 * the last thread. The initiator times it: the time until every thread has
 * completed its round trip (max over threads, with one release and one
 * completion handshake), halved like every ping-pong (divisor 2).
 * An untimed zero-byte round trip per thread starts each batch, as in
 * bench_pingpong.c. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/bench.h"
#include "patterns.h"
#include "threads_team.h"

#define MT_TAG 1000
#define MT_SYNC_TAG (MT_TAG + MBX_TEAM_MAX)
#define MT_DEFAULT 2

typedef struct mt_state {
    mbx_team team;
    mbx_bench_ctx *c;
    int n, peer, initiator;
    unsigned char *buf; /* per thread: send then receive, 2 * stride each */
    size_t stride;
    int sync; /* this go runs the untimed sync exchange */
} mt_state;

static uint64_t mt_buf_bytes(uint64_t bytes, int procs)
{
    (void)bytes;
    (void)procs;
    return 0; /* every thread has its own buffers in priv */
}

static inline unsigned char *sbuf_of(mt_state *s, int idx)
{
    return s->buf + (size_t)idx * 2 * s->stride;
}

static inline unsigned char *rbuf_of(mt_state *s, int idx)
{
    return sbuf_of(s, idx) + s->stride;
}

/* One round trip of thread idx (or one zero-byte sync exchange). */
static int mt_exchange(mt_state *s, int idx)
{
    const mbx_bench_ctx *c = s->c;
    if (s->sync) {
        char z = 0;
        return MPI_Sendrecv(&z, 0, MPI_BYTE, s->peer, MT_SYNC_TAG + idx, &z, 0, MPI_BYTE, s->peer,
                            MT_SYNC_TAG + idx, c->comm, MPI_STATUS_IGNORE);
    }
    int tag = MT_TAG + idx, rc;
    if (s->initiator) {
        rc = MPI_Send(sbuf_of(s, idx), c->count, MPI_BYTE, s->peer, tag, c->comm);
        if (rc == MPI_SUCCESS)
            rc = MPI_Recv(rbuf_of(s, idx), c->count, MPI_BYTE, s->peer, tag, c->comm,
                          MPI_STATUS_IGNORE);
    } else {
        rc =
            MPI_Recv(rbuf_of(s, idx), c->count, MPI_BYTE, s->peer, tag, c->comm, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = MPI_Send(sbuf_of(s, idx), c->count, MPI_BYTE, s->peer, tag, c->comm);
    }
    return rc;
}

static void mt_work(mbx_team *tm, int idx)
{
    int rc = mt_exchange(tm->ud, idx);
    if (rc != MPI_SUCCESS) {
        int none = 0;
        atomic_compare_exchange_strong(&tm->err, &none, rc);
    }
}

/* One go of the team with the caller as thread 0; the first error. */
static int mt_round(mt_state *s)
{
    mbx_team_go(&s->team);
    int rc = mt_exchange(s, 0);
    int wrc = mbx_team_done(&s->team);
    return rc != MPI_SUCCESS ? rc : wrc;
}

static int mt_loop(mbx_bench_ctx *c, size_t k, double *t)
{
    mt_state *s = c->priv;
    if (!s)
        return MPI_SUCCESS; /* not in the pair */
    s->sync = 1;
    int rc = mt_round(s);
    s->sync = 0;
    if (s->initiator)
        c->timing = 1;
    for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
        if ((rc = mbx_obs_sync(c, i, 0)) != MPI_SUCCESS)
            break;
        double t0 = mbx_timer_now(c->timer);
        rc = mt_round(s);
        if (s->initiator)
            t[i] = mbx_timer_now(c->timer) - t0;
    }
    return rc;
}

static void mt_teardown(mbx_bench_ctx *c)
{
    mt_state *s = c->priv;
    if (!s)
        return;
    mbx_team_stop(&s->team);
    free(s->buf);
    free(s);
    c->priv = NULL;
}

static int mt_setup(mbx_bench_ctx *c)
{
    if (c->rank != c->pair_a && c->rank != c->pair_b)
        return MPI_SUCCESS;
    int n, rc = mbx_team_size(c->param, MT_DEFAULT, MBX_TEAM_MAX, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    mt_state *s = calloc(1, sizeof *s);
    if (!s)
        return MPI_ERR_NO_MEM;
    c->priv = s;
    s->c = c;
    s->n = n;
    s->initiator = c->rank == c->pair_a;
    s->peer = s->initiator ? c->pair_b : c->pair_a;
    /* Each thread's two buffers start on their own pages. */
    size_t len = c->count > 0 ? (size_t)c->count : 1;
    s->stride = (len + 4095) / 4096 * 4096;
    void *b = NULL;
    if (posix_memalign(&b, 4096, s->stride * 2 * (size_t)n) != 0) {
        mt_teardown(c);
        return MPI_ERR_NO_MEM;
    }
    s->buf = b;
    memset(s->buf, 0x5a, s->stride * 2 * (size_t)n);
    /* Unbound ranks of the pair share the node's PUs: the responder's
     * threads start on the PUs after the initiator's. */
    rc = mbx_team_start(&s->team, s->n, 1, s->initiator ? 0 : s->n, mt_work, s);
    if (rc != MPI_SUCCESS) {
        mt_teardown(c);
        return rc;
    }
    return MPI_SUCCESS;
}

/* The byte rank r's thread j puts at position i in --validate. */
static unsigned char mt_pattern(size_t i, int rank, int j)
{
    return (unsigned char)((i * 29u + (unsigned)rank * 11u + (unsigned)j * 37u + 3u) & 0xffu);
}

/* Both ranks of the pair fill each thread's send buffer with a pattern of
 * their rank and thread, run one untimed observation, and check that each
 * thread received the other rank's same thread's pattern (so a message on
 * the wrong tag or thread fails). */
static int mt_check(mbx_bench_ctx *c, int *bad)
{
    *bad = 0;
    mt_state *s = c->priv;
    if (!s)
        return MPI_SUCCESS;
    size_t n = (size_t)c->count;
    for (int j = 0; j < s->n; j++) {
        for (size_t i = 0; i < n; i++)
            sbuf_of(s, j)[i] = mt_pattern(i, c->rank, j);
        memset(rbuf_of(s, j), 0, n);
    }
    double t;
    int rc = mt_loop(c, 1, &t);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int j = 0; j < s->n; j++)
        for (size_t i = 0; i < n; i++)
            if (rbuf_of(s, j)[i] != mt_pattern(i, s->peer, j)) {
                *bad = 1;
                return MPI_SUCCESS;
            }
    return MPI_SUCCESS;
}

/* The pattern's place in the registry, the picker's and `mpibex list`'s
 * order (engine/mpi/CMakeLists.txt reads this line). */
#define MBX_PATTERN_ORDER 80
const mbx_bench mbx_bench_mt_table[] = {
    {.name = "pingpong.mt",
     .pattern = "pingpong",
     .summary = "T threads per rank ping-pong at once (own tags, MPI_THREAD_MULTIPLE); "
                "slowest thread",
     .timing = "half_round_trip",
     .min_procs = 2,
     .flags = MBX_BENCH_SIZED | MBX_BENCH_PAIR | MBX_BENCH_PARAM | MBX_BENCH_TEAM |
              MBX_BENCH_MPI_THREADS,
     .unit = 1,
     .divisor = 2.0,
     .buf_bytes = mt_buf_bytes,
     .setup = mt_setup,
     .run = mt_loop,
     .teardown = mt_teardown,
     .check = mt_check,
     .param_name = "threads",
     .param_default = MT_DEFAULT,
     .param_max = MBX_TEAM_MAX},
};
const size_t mbx_bench_mt_count = sizeof mbx_bench_mt_table / sizeof mbx_bench_mt_table[0];
