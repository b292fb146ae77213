/* Ping-pong between rank 0 and the last rank of the point's communicator.
 * Rank 0 times each round trip on its own; the engine halves it. There is
 * no barrier between observations: the exchange synchronizes itself. The
 * variants differ only in how a message is sent, so one loop serves all,
 * with a switch that the branch predictor resolves after the first pass. */
#include "mbx/bench.h"

#define PP_TAG 17
#define SYNC_TAG 18

enum pp_send { SEND_STD, SEND_SYNC, SEND_ISEND };

static uint64_t pp_buf_bytes(uint64_t bytes, int procs)
{
    (void)procs;
    return bytes;
}

/* An untimed zero-byte round trip before each batch: the command that
 * starts a batch reaches the two ranks at different times (it travels a
 * broadcast tree), and the first timed round trip must not include that. */
static int pair_sync(const mbx_bench_ctx *c, int other)
{
    char z = 0;
    return MPI_Sendrecv(&z, 0, MPI_BYTE, other, SYNC_TAG, &z, 0, MPI_BYTE, other, SYNC_TAG, c->comm,
                        MPI_STATUS_IGNORE);
}

static inline int pp_send(const mbx_bench_ctx *c, enum pp_send how, int to)
{
    MPI_Request req;
    int rc;
    switch (how) {
    case SEND_SYNC: return MPI_Ssend(c->sbuf, c->count, MPI_BYTE, to, PP_TAG, c->comm);
    case SEND_ISEND:
        rc = MPI_Isend(c->sbuf, c->count, MPI_BYTE, to, PP_TAG, c->comm, &req);
        return rc == MPI_SUCCESS ? MPI_Wait(&req, MPI_STATUS_IGNORE) : rc;
    case SEND_STD: break;
    }
    return MPI_Send(c->sbuf, c->count, MPI_BYTE, to, PP_TAG, c->comm);
}

static inline int pp_recv(const mbx_bench_ctx *c, int from)
{
    return MPI_Recv(c->rbuf, c->count, MPI_BYTE, from, PP_TAG, c->comm, MPI_STATUS_IGNORE);
}

static int pp_loop(mbx_bench_ctx *c, size_t k, double *t, enum pp_send how)
{
    int peer = c->size - 1, rc = MPI_SUCCESS;
    if (c->rank == 0) {
        c->timing = 1;
        rc = pair_sync(c, peer);
        for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
            double t0 = mbx_timer_now(c->timer);
            rc = pp_send(c, how, peer);
            if (rc == MPI_SUCCESS)
                rc = pp_recv(c, peer);
            t[i] = mbx_timer_now(c->timer) - t0;
        }
    } else if (c->rank == peer) {
        rc = pair_sync(c, 0);
        for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
            rc = pp_recv(c, 0);
            if (rc == MPI_SUCCESS)
                rc = pp_send(c, how, 0);
        }
    }
    return rc;
}

static int run_send(mbx_bench_ctx *c, size_t k, double *t)
{
    return pp_loop(c, k, t, SEND_STD);
}
static int run_ssend(mbx_bench_ctx *c, size_t k, double *t)
{
    return pp_loop(c, k, t, SEND_SYNC);
}
static int run_isend(mbx_bench_ctx *c, size_t k, double *t)
{
    return pp_loop(c, k, t, SEND_ISEND);
}

#define PINGPONG(nm, fn, text)                                                                     \
    {                                                                                              \
        .name = nm, .pattern = "pingpong", .summary = text, .timing = "half_round_trip",           \
        .min_procs = 2, .flags = MBX_BENCH_SIZED, .unit = 1, .divisor = 2.0,                       \
        .buf_bytes = pp_buf_bytes, .run = fn                                                       \
    }

const mbx_bench mbx_bench_pingpong_table[] = {
    PINGPONG("pingpong.send_recv", run_send,
             "MPI_Send / MPI_Recv ping-pong, rank 0 <-> last rank; half round trip"),
    PINGPONG("pingpong.ssend_recv", run_ssend,
             "MPI_Ssend / MPI_Recv ping-pong (synchronous send both ways); half round trip"),
    PINGPONG("pingpong.isend_recv", run_isend,
             "MPI_Isend + MPI_Wait / MPI_Recv ping-pong; half round trip"),
};
const size_t mbx_bench_pingpong_count =
    sizeof mbx_bench_pingpong_table / sizeof mbx_bench_pingpong_table[0];
