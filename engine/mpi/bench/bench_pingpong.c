/* Ping-pong between two ranks of the point's communicator: ctx->pair_a
 * (the initiator, which times) and ctx->pair_b (the responder); every
 * other rank of the point sits the point out. There is no barrier between
 * observations: the exchange synchronizes itself.
 *
 * Most variants are a round trip, one message each way, timed by the
 * initiator from before its send to after its receive; the engine halves
 * it. The variants differ only in how a message is sent or received, so one
 * loop serves them all, with a switch that the branch predictor resolves
 * after the first pass (no indirect call in the timed region).
 *
 * The Sendrecv variants are not a round trip: both ranks call
 * MPI_Sendrecv(_replace) at once, each sending to the other, so a round is
 * one simultaneous exchange. What is timed is the initiator's duration of
 * one call in a steady stream of such exchanges, not halved (divisor 1,
 * timing "per_call"); it compares with the one-way time of the round-trip
 * variants. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/bench.h"
#include "patterns.h"

#define PP_TAG 17
#define SYNC_TAG 18

enum pp_variant {
    V_SEND,     /* MPI_Send / MPI_Recv */
    V_SSEND,    /* MPI_Ssend */
    V_ISEND,    /* MPI_Isend + MPI_Wait */
    V_BSEND,    /* MPI_Bsend, a buffer attached in setup */
    V_IRECV,    /* MPI_Irecv + MPI_Wait on the receive side */
    V_IPROBE,   /* spin on MPI_Iprobe, then MPI_Recv */
    V_ANYTAG,   /* MPI_Recv with MPI_ANY_TAG */
    V_SENDRECV, /* both ranks MPI_Sendrecv at once */
    V_REPLACE   /* both ranks MPI_Sendrecv_replace at once (in rbuf) */
};

static uint64_t pp_buf_bytes(uint64_t bytes, int procs)
{
    (void)procs;
    return bytes;
}

/* One message of `bytes` per observation: the one-way time of a round
 * trip, or one direction of a simultaneous exchange. */
static void pp_moved(uint64_t bytes, int procs, int64_t param, uint64_t *b, uint64_t *m)
{
    (void)procs;
    (void)param;
    *b = bytes;
    *m = 1;
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

static inline int pp_send(const mbx_bench_ctx *c, enum pp_variant v, int to)
{
    MPI_Request req;
    int rc;
    switch (v) {
    case V_SSEND: return MPI_Ssend(c->sbuf, c->count, MPI_BYTE, to, PP_TAG, c->comm);
    case V_ISEND:
        rc = MPI_Isend(c->sbuf, c->count, MPI_BYTE, to, PP_TAG, c->comm, &req);
        return rc == MPI_SUCCESS ? MPI_Wait(&req, MPI_STATUS_IGNORE) : rc;
    case V_BSEND: return MPI_Bsend(c->sbuf, c->count, MPI_BYTE, to, PP_TAG, c->comm);
    default: break;
    }
    return MPI_Send(c->sbuf, c->count, MPI_BYTE, to, PP_TAG, c->comm);
}

static inline int pp_recv(const mbx_bench_ctx *c, enum pp_variant v, int from)
{
    MPI_Request req;
    int rc, flag = 0;
    switch (v) {
    case V_IRECV:
        rc = MPI_Irecv(c->rbuf, c->count, MPI_BYTE, from, PP_TAG, c->comm, &req);
        return rc == MPI_SUCCESS ? MPI_Wait(&req, MPI_STATUS_IGNORE) : rc;
    case V_IPROBE:
        do
            rc = MPI_Iprobe(from, PP_TAG, c->comm, &flag, MPI_STATUS_IGNORE);
        while (rc == MPI_SUCCESS && !flag);
        if (rc != MPI_SUCCESS)
            return rc;
        break;
    case V_ANYTAG:
        return MPI_Recv(c->rbuf, c->count, MPI_BYTE, from, MPI_ANY_TAG, c->comm, MPI_STATUS_IGNORE);
    default: break;
    }
    return MPI_Recv(c->rbuf, c->count, MPI_BYTE, from, PP_TAG, c->comm, MPI_STATUS_IGNORE);
}

/* One round of the Sendrecv variants, the same call on both ranks. */
static inline int pp_exchange(const mbx_bench_ctx *c, enum pp_variant v, int other)
{
    if (v == V_REPLACE)
        return MPI_Sendrecv_replace(c->rbuf, c->count, MPI_BYTE, other, PP_TAG, other, PP_TAG,
                                    c->comm, MPI_STATUS_IGNORE);
    return MPI_Sendrecv(c->sbuf, c->count, MPI_BYTE, other, PP_TAG, c->rbuf, c->count, MPI_BYTE,
                        other, PP_TAG, c->comm, MPI_STATUS_IGNORE);
}

static int pp_loop(mbx_bench_ctx *c, size_t k, double *t, enum pp_variant v)
{
    int rc = MPI_SUCCESS;
    int both = v == V_SENDRECV || v == V_REPLACE;
    if (c->rank == c->pair_a) {
        int peer = c->pair_b;
        c->timing = 1;
        rc = pair_sync(c, peer);
        for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
            if ((rc = mbx_obs_sync(c, i, 0)) != MPI_SUCCESS)
                break;
            double t0 = mbx_timer_now(c->timer);
            if (both) {
                rc = pp_exchange(c, v, peer);
            } else {
                rc = pp_send(c, v, peer);
                if (rc == MPI_SUCCESS)
                    rc = pp_recv(c, v, peer);
            }
            t[i] = mbx_timer_now(c->timer) - t0;
        }
    } else if (c->rank == c->pair_b) {
        int peer = c->pair_a;
        rc = pair_sync(c, peer);
        for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
            if ((rc = mbx_obs_sync(c, i, 0)) != MPI_SUCCESS)
                break;
            if (both) {
                rc = pp_exchange(c, v, peer);
            } else {
                rc = pp_recv(c, v, peer);
                if (rc == MPI_SUCCESS)
                    rc = pp_send(c, v, peer);
            }
        }
    }
    return rc;
}

/* The byte a rank puts at position i in --validate. The low bits of the
 * rank enter every byte and the next bits the odd positions, so the two
 * ranks' patterns differ (unless the ranks are 65536 apart, or 256 apart
 * with one-byte messages) and a message that never arrived, or came from
 * the wrong rank, fails the check. */
static unsigned char pp_pattern(size_t i, int rank)
{
    unsigned r = (unsigned)rank;
    return (unsigned char)((i * 31u + r * 7u + 1u + ((i & 1u) ? (r >> 8) * 13u : 0u)) & 0xffu);
}

/* Both ranks of the pair send their own pattern and check that the other's
 * arrived, so both directions are verified; one exchange, untimed, done the
 * variant's own way (pp_loop with k = 1). */
static int pp_check(mbx_bench_ctx *c, int *bad, enum pp_variant v)
{
    *bad = 0;
    if (c->rank != c->pair_a && c->rank != c->pair_b)
        return MPI_SUCCESS;
    int other = c->rank == c->pair_a ? c->pair_b : c->pair_a;
    size_t n = (size_t)c->count;
    unsigned char *s = c->sbuf, *r = c->rbuf;
    for (size_t i = 0; i < n; i++)
        s[i] = pp_pattern(i, c->rank);
    /* Sendrecv_replace sends what is in rbuf: start it with our own
     * pattern, so an exchange that did nothing fails. */
    if (v == V_REPLACE)
        memcpy(r, s, n);
    else
        memset(r, 0, n);
    double t;
    int rc = pp_loop(c, 1, &t, v);
    if (rc != MPI_SUCCESS)
        return rc;
    for (size_t i = 0; i < n; i++)
        if (r[i] != pp_pattern(i, other)) {
            *bad = 1;
            break;
        }
    return MPI_SUCCESS;
}

/* MPI_Bsend needs an attached buffer on both ranks of the pair. At most one
 * message per rank is in flight, but the implementation may free a
 * finished message's space only at its next Bsend, so room for two. The
 * attached buffer is process-wide: teardown always detaches it, and
 * runs even when setup failed (priv is then NULL). */
static int bsend_setup(mbx_bench_ctx *c)
{
    if (c->rank != c->pair_a && c->rank != c->pair_b)
        return MPI_SUCCESS;
    uint64_t one = (uint64_t)c->count + MPI_BSEND_OVERHEAD;
    uint64_t len = 2 * one;
    if (len > INT_MAX)
        len = one <= INT_MAX ? INT_MAX : 0;
    if (len == 0)
        return MPI_ERR_BUFFER;
    void *buf = malloc((size_t)len);
    if (!buf)
        return MPI_ERR_NO_MEM;
    memset(buf, 0, (size_t)len); /* touch the pages now, not in the timed loop */
    int rc = MPI_Buffer_attach(buf, (int)len);
    if (rc != MPI_SUCCESS) {
        free(buf);
        return rc;
    }
    c->priv = buf;
    return MPI_SUCCESS;
}

static void bsend_teardown(mbx_bench_ctx *c)
{
    if (!c->priv)
        return;
    void *buf;
    int len;
    /* Detach waits until every buffered message has been delivered. If it
     * fails the buffer may still be MPI's: leak it rather than free it. */
    if (MPI_Buffer_detach(&buf, &len) == MPI_SUCCESS)
        free(c->priv);
    c->priv = NULL;
}

/* One run and one check function per variant, as the registry wants. */
#define PP_FUNCS(sfx, v)                                                                           \
    static int run_##sfx(mbx_bench_ctx *c, size_t k, double *t)                                    \
    {                                                                                              \
        return pp_loop(c, k, t, v);                                                                \
    }                                                                                              \
    static int check_##sfx(mbx_bench_ctx *c, int *bad)                                             \
    {                                                                                              \
        return pp_check(c, bad, v);                                                                \
    }
PP_FUNCS(send, V_SEND)
PP_FUNCS(ssend, V_SSEND)
PP_FUNCS(isend, V_ISEND)
PP_FUNCS(bsend, V_BSEND)
PP_FUNCS(irecv, V_IRECV)
PP_FUNCS(iprobe, V_IPROBE)
PP_FUNCS(anytag, V_ANYTAG)
PP_FUNCS(sendrecv, V_SENDRECV)
PP_FUNCS(replace, V_REPLACE)

#define PP_ENTRY(nm, sfx, tm, div, su, td, text)                                                   \
    {                                                                                              \
        .name = nm, .pattern = "pingpong", .summary = text, .timing = tm, .min_procs = 2,          \
        .flags = MBX_BENCH_SIZED | MBX_BENCH_PAIR, .unit = 1, .divisor = div,                      \
        .buf_bytes = pp_buf_bytes, .setup = su, .run = run_##sfx, .teardown = td,                  \
        .check = check_##sfx, .moved = pp_moved                                                    \
    }
/* A round trip, halved. */
#define PINGPONG(nm, sfx, text) PP_ENTRY(nm, sfx, "half_round_trip", 2.0, NULL, NULL, text)
/* A simultaneous exchange: the initiator's time per call. */
#define EXCHANGE(nm, sfx, text) PP_ENTRY(nm, sfx, "per_call", 1.0, NULL, NULL, text)

/* The pattern's place in the registry, the picker's and `mpibex list`'s
 * order (engine/mpi/CMakeLists.txt reads this line). */
#define MBX_PATTERN_ORDER 10
const mbx_bench mbx_bench_pingpong_table[] = {
    PINGPONG("pingpong.send_recv", send,
             "MPI_Send / MPI_Recv, pair a<->b (default 0, last); a's round trip / 2"),
    PINGPONG("pingpong.ssend_recv", ssend,
             "MPI_Ssend / MPI_Recv, pair a<->b (default 0, last); a's round trip / 2"),
    PINGPONG("pingpong.isend_recv", isend,
             "MPI_Isend + MPI_Wait / MPI_Recv, pair a<->b; a's round trip / 2"),
    PP_ENTRY("pingpong.bsend_recv", bsend, "half_round_trip", 2.0, bsend_setup, bsend_teardown,
             "MPI_Bsend (attached buffer) / MPI_Recv, pair a<->b; a's round trip / 2"),
    PINGPONG("pingpong.send_irecv", irecv,
             "MPI_Send / MPI_Irecv + MPI_Wait, pair a<->b; a's round trip / 2"),
    PINGPONG("pingpong.send_iprobe_recv", iprobe,
             "MPI_Send / MPI_Iprobe spin + MPI_Recv, pair a<->b; a's round trip / 2"),
    PINGPONG("pingpong.send_recv_anytag", anytag,
             "MPI_Send / MPI_Recv(MPI_ANY_TAG), pair a<->b; a's round trip / 2"),
    EXCHANGE("pingpong.sendrecv", sendrecv,
             "MPI_Sendrecv by a and b at once; a's time per call (not halved)"),
    EXCHANGE("pingpong.sendrecv_replace", replace,
             "MPI_Sendrecv_replace by a and b at once; a's time per call (not halved)"),
};
const size_t mbx_bench_pingpong_count =
    sizeof mbx_bench_pingpong_table / sizeof mbx_bench_pingpong_table[0];
