/* Ping-pong between rank 0 and the last rank of the point's communicator.
 * Rank 0 times each round trip on its own; the engine halves it. There is
 * no barrier between observations: the exchange synchronizes itself. */
#include "mbx/bench.h"

#define PP_TAG 17
#define SYNC_TAG 18

/* An untimed zero-byte round trip before each batch: the command that
 * starts a batch reaches the two ranks at different times (it travels a
 * broadcast tree), and the first timed round trip must not include that. */
static int pair_sync(const mbx_bench_ctx *c)
{
    int peer = c->size - 1, other = c->rank == 0 ? peer : 0;
    char z = 0;
    if (c->rank != 0 && c->rank != peer)
        return MPI_SUCCESS;
    return MPI_Sendrecv(&z, 0, MPI_BYTE, other, SYNC_TAG, &z, 0, MPI_BYTE, other, SYNC_TAG, c->comm,
                        MPI_STATUS_IGNORE);
}

static uint64_t pp_buf_bytes(uint64_t bytes, int procs)
{
    (void)procs;
    return bytes;
}

static int pp_send_recv(mbx_bench_ctx *c, size_t k, double *t)
{
    int peer = c->size - 1, n = c->count, rc = pair_sync(c);
    MPI_Comm comm = c->comm;
    if (c->rank == 0) {
        c->timing = 1;
        for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
            double t0 = mbx_timer_now(c->timer);
            rc = MPI_Send(c->sbuf, n, MPI_BYTE, peer, PP_TAG, comm);
            if (rc == MPI_SUCCESS)
                rc = MPI_Recv(c->rbuf, n, MPI_BYTE, peer, PP_TAG, comm, MPI_STATUS_IGNORE);
            t[i] = mbx_timer_now(c->timer) - t0;
        }
    } else if (c->rank == peer) {
        for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
            rc = MPI_Recv(c->rbuf, n, MPI_BYTE, 0, PP_TAG, comm, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(c->sbuf, n, MPI_BYTE, 0, PP_TAG, comm);
        }
    }
    return rc;
}

static int pp_ssend_recv(mbx_bench_ctx *c, size_t k, double *t)
{
    int peer = c->size - 1, n = c->count, rc = pair_sync(c);
    MPI_Comm comm = c->comm;
    if (c->rank == 0) {
        c->timing = 1;
        for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
            double t0 = mbx_timer_now(c->timer);
            rc = MPI_Ssend(c->sbuf, n, MPI_BYTE, peer, PP_TAG, comm);
            if (rc == MPI_SUCCESS)
                rc = MPI_Recv(c->rbuf, n, MPI_BYTE, peer, PP_TAG, comm, MPI_STATUS_IGNORE);
            t[i] = mbx_timer_now(c->timer) - t0;
        }
    } else if (c->rank == peer) {
        for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
            rc = MPI_Recv(c->rbuf, n, MPI_BYTE, 0, PP_TAG, comm, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = MPI_Ssend(c->sbuf, n, MPI_BYTE, 0, PP_TAG, comm);
        }
    }
    return rc;
}

static int pp_isend_recv(mbx_bench_ctx *c, size_t k, double *t)
{
    int peer = c->size - 1, n = c->count, rc = pair_sync(c);
    MPI_Comm comm = c->comm;
    MPI_Request req;
    if (c->rank == 0) {
        c->timing = 1;
        for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
            double t0 = mbx_timer_now(c->timer);
            rc = MPI_Isend(c->sbuf, n, MPI_BYTE, peer, PP_TAG, comm, &req);
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = MPI_Recv(c->rbuf, n, MPI_BYTE, peer, PP_TAG, comm, MPI_STATUS_IGNORE);
            t[i] = mbx_timer_now(c->timer) - t0;
        }
    } else if (c->rank == peer) {
        for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
            rc = MPI_Recv(c->rbuf, n, MPI_BYTE, 0, PP_TAG, comm, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = MPI_Isend(c->sbuf, n, MPI_BYTE, 0, PP_TAG, comm, &req);
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
    }
    return rc;
}

#define PINGPONG(nm, fn, text)                                                                     \
    {                                                                                              \
        .name = nm, .pattern = "pingpong", .summary = text, .timing = "half_round_trip",           \
        .min_procs = 2, .flags = MBX_BENCH_SIZED, .unit = 1, .divisor = 2.0,                       \
        .buf_bytes = pp_buf_bytes, .run = fn                                                       \
    }

const mbx_bench mbx_bench_pingpong_table[] = {
    PINGPONG("pingpong.send_recv", pp_send_recv,
             "MPI_Send / MPI_Recv ping-pong, rank 0 <-> last rank; half round trip"),
    PINGPONG("pingpong.ssend_recv", pp_ssend_recv,
             "MPI_Ssend / MPI_Recv ping-pong (synchronous send both ways); half round trip"),
    PINGPONG("pingpong.isend_recv", pp_isend_recv,
             "MPI_Isend + MPI_Wait / MPI_Recv ping-pong; half round trip"),
};
const size_t mbx_bench_pingpong_count =
    sizeof mbx_bench_pingpong_table / sizeof mbx_bench_pingpong_table[0];
