/* Persistent ping-pong: the round trip of pingpong.send_recv through
 * persistent requests (MPI_Send_init / MPI_Recv_init), as
 * osu_latency_persistent measures it. Each rank of the pair makes its two
 * requests once per pass, in set-up, outside the timed region (the two
 * init calls' time is the row's setup_us); an
 * observation is the initiator's MPI_Start + MPI_Wait of its send, then of
 * its receive (the responder the other way round), halved by the engine.
 * Next to pingpong.send_recv it shows what the library saves when the
 * arguments of a message are matched once instead of at every call. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/bench.h"
#include "patterns.h"

#define PERSIST_TAG 61
#define PERSIST_SYNC_TAG 62

/* The pair's two requests; NULL on the ranks outside the pair. */
typedef struct {
    MPI_Request send, recv;
} persist_reqs;

static uint64_t persist_buf(uint64_t bytes, int procs)
{
    (void)procs;
    return bytes;
}

static void persist_moved(uint64_t bytes, int procs, int64_t param, uint64_t *b, uint64_t *m)
{
    (void)procs;
    (void)param;
    *b = bytes;
    *m = 1;
}

static int in_pair(const mbx_bench_ctx *c)
{
    return c->rank == c->pair_a || c->rank == c->pair_b;
}

/* The pair's two requests; the time the two init calls took, the larger
 * of the pair's, is the row's setup_us (every rank of the point reduces
 * it, so none is left in the reduction). */
static int persist_make(mbx_bench_ctx *c, double *took)
{
    *took = 0.0;
    if (!in_pair(c))
        return MPI_SUCCESS;
    persist_reqs *r = malloc(sizeof *r);
    if (!r)
        return MPI_ERR_NO_MEM;
    r->send = r->recv = MPI_REQUEST_NULL;
    c->priv = r;
    int peer = c->rank == c->pair_a ? c->pair_b : c->pair_a;
    double t0 = mbx_timer_now(c->timer);
    int rc = MPI_Send_init(c->sbuf, c->count, MPI_BYTE, peer, PERSIST_TAG, c->comm, &r->send);
    if (rc == MPI_SUCCESS)
        rc = MPI_Recv_init(c->rbuf, c->count, MPI_BYTE, peer, PERSIST_TAG, c->comm, &r->recv);
    *took = mbx_timer_now(c->timer) - t0;
    return rc;
}

static int persist_setup(mbx_bench_ctx *c)
{
    c->priv = NULL;
    double took, most = NAN;
    int rc = persist_make(c, &took);
    int arc = MPI_Allreduce(&took, &most, 1, MPI_DOUBLE, MPI_MAX, c->comm);
    c->setup_s = most;
    return rc != MPI_SUCCESS ? rc : arc;
}

/* Runs even when set-up failed part way (teardown always runs). */
static void persist_teardown(mbx_bench_ctx *c)
{
    persist_reqs *r = c->priv;
    if (!r)
        return;
    if (r->send != MPI_REQUEST_NULL)
        MPI_Request_free(&r->send);
    if (r->recv != MPI_REQUEST_NULL)
        MPI_Request_free(&r->recv);
    free(r);
    c->priv = NULL;
}

static int start_wait(MPI_Request *q)
{
    int rc = MPI_Start(q);
    return rc == MPI_SUCCESS ? MPI_Wait(q, MPI_STATUS_IGNORE) : rc;
}

/* One round trip: the initiator sends first, the responder receives first. */
static int round_trip(persist_reqs *r, int initiator)
{
    int rc = start_wait(initiator ? &r->send : &r->recv);
    return rc == MPI_SUCCESS ? start_wait(initiator ? &r->recv : &r->send) : rc;
}

static int persist_run(mbx_bench_ctx *c, size_t k, double *t)
{
    persist_reqs *r = c->priv;
    if (!r)
        return MPI_SUCCESS;
    int initiator = c->rank == c->pair_a;
    int peer = initiator ? c->pair_b : c->pair_a;
    /* An untimed zero-byte round trip first: the command that starts the
     * batch reaches the two ranks at different times. */
    char z = 0;
    int rc = MPI_Sendrecv(&z, 0, MPI_BYTE, peer, PERSIST_SYNC_TAG, &z, 0, MPI_BYTE, peer,
                          PERSIST_SYNC_TAG, c->comm, MPI_STATUS_IGNORE);
    c->timing = initiator;
    for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
        if ((rc = mbx_obs_sync(c, i, 0)) != MPI_SUCCESS)
            break;
        double t0 = mbx_timer_now(c->timer);
        rc = round_trip(r, initiator);
        if (initiator)
            t[i] = mbx_timer_now(c->timer) - t0;
    }
    return rc;
}

/* The byte a rank puts at position i: it differs between the two ranks, so
 * a message that never arrived, or came from the wrong rank, fails. */
static unsigned char persist_byte(size_t i, int rank)
{
    return (unsigned char)((i * 29u + (unsigned)rank * 11u + 3u) & 0xffu);
}

/* Both ranks send their own bytes through the persistent requests, one
 * round trip untimed, and check the other's arrived. */
static int persist_check(mbx_bench_ctx *c, int *bad)
{
    *bad = 0;
    persist_reqs *r = c->priv;
    if (!r)
        return MPI_SUCCESS;
    int other = c->rank == c->pair_a ? c->pair_b : c->pair_a;
    size_t n = (size_t)c->count;
    unsigned char *s = c->sbuf, *d = c->rbuf;
    for (size_t i = 0; i < n; i++)
        s[i] = persist_byte(i, c->rank);
    memset(d, 0, n);
    int rc = round_trip(r, c->rank == c->pair_a);
    if (rc != MPI_SUCCESS)
        return rc;
    for (size_t i = 0; i < n && !*bad; i++)
        *bad = d[i] != persist_byte(i, other);
    return MPI_SUCCESS;
}

/* The pattern's place in the registry, the picker's and `mpibex list`'s
 * order (engine/mpi/CMakeLists.txt reads this line). */
#define MBX_PATTERN_ORDER 130
const mbx_bench mbx_bench_persist_table[] = {
    {.name = "persist.send_recv",
     .pattern = "persist",
     .summary = "MPI_Send_init / MPI_Recv_init once per pass (untimed: setup_us), MPI_Start + "
                "MPI_Wait, pair a<->b; a's round trip / 2",
     .timing = "half_round_trip",
     .min_procs = 2,
     .flags = MBX_BENCH_SIZED | MBX_BENCH_PAIR,
     .unit = 1,
     .divisor = 2.0,
     .buf_bytes = persist_buf,
     .setup = persist_setup,
     .run = persist_run,
     .teardown = persist_teardown,
     .check = persist_check,
     .moved = persist_moved},
};
const size_t mbx_bench_persist_count =
    sizeof mbx_bench_persist_table / sizeof mbx_bench_persist_table[0];
