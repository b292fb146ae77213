/* Streaming bandwidth and message rate, the measurements OSU's osu_bw,
 * osu_bibw and osu_mbw_mr and IMB's Exchange make. One observation is one
 * window of W = ctx->param messages in flight at once (default 64, as
 * osu_bw); what it moves is the descriptor's `moved` hook, and with it the
 * CSV's bandwidth_MBps and msg_rate_per_s (docs/csv-format.md).
 *
 * bw.uni: pair_a sends W MPI_Isend of `bytes` to pair_b and waits for all;
 *   pair_b, whose W MPI_Irecv were posted before the window (the next
 *   window's right after this one's completed), answers with a 0-byte
 *   acknowledgement once all W arrived. pair_a times from its first Isend
 *   to the acknowledgement's arrival. No barrier between observations: the
 *   acknowledgement paces the windows.
 * bw.bi: both ranks of the pair post W MPI_Irecv and W MPI_Isend at once
 *   and wait for all 2W; pair_a times (as osu_bibw's rank 0). Each window
 *   needs the other rank's sends, so the windows pace themselves.
 * bw.multi: pairs (i, i + P/2) for i < P/2 (an odd P leaves the last rank
 *   out), each as bw.uni, all at once after a barrier and up to a closing
 *   barrier of every rank; every sender times from its start to the
 *   closing barrier's end and the observation is the maximum over the
 *   senders, so it spans every pair's window.
 * bw.exchange: every rank exchanges with both ring neighbours (IMB's
 *   Exchange): MPI_Irecv from the left and from the right, MPI_Isend to
 *   the right and to the left, MPI_Waitall of the four; after a barrier,
 *   the maximum over ranks. Not windowed (no param).
 *
 * As osu_bw does by default, the W messages of a window go out of one
 * send buffer and land in one receive buffer; --validate (the check hook)
 * gives each message a slot of its own, W x bytes on each rank of a pair,
 * and verifies every message of the window. */
#include <stdlib.h>
#include <string.h>

#include "mbx/bench.h"
#include "patterns.h"

#define BW_TAG 51
#define ACK_TAG 52
#define SYNC_TAG 53
#define TO_RIGHT_TAG 54 /* exchange: a message to the right neighbour */
#define TO_LEFT_TAG 55
#define BW_WINDOW_DEFAULT 64
#define BW_WINDOW_MAX 65536

enum bw_kind { BW_UNI, BW_BI, BW_MULTI, BW_EXCHANGE };

/* The requests of a window (2W: bw.bi's receives and sends), and in check
 * the slot buffers (one message each). */
typedef struct bw_state {
    MPI_Request *req;
    MPI_Status *st; /* real statuses: GCC flags MPI_STATUSES_IGNORE as a zero-size array */
    unsigned char *sslots, *rslots;
} bw_state;

/* Where one rank's messages go and come from, and its pace: sends,
 * receives (both for bw.bi), whether it times. */
typedef struct bw_role {
    int peer; /* the other rank of the pair; -1: sits the point out */
    int sends, recvs;
    int times;
} bw_role;

static uint64_t bw_buf_bytes(uint64_t bytes, int procs)
{
    (void)procs;
    return bytes;
}

static uint64_t ex_buf_bytes(uint64_t bytes, int procs)
{
    (void)procs;
    return 2 * bytes; /* one block per neighbour */
}

/* ---- bytes and messages one observation moves (docs/csv-format.md) ---- */

static void uni_moved(uint64_t bytes, int procs, int64_t param, uint64_t *b, uint64_t *m)
{
    (void)procs;
    *m = (uint64_t)param;
    *b = *m * bytes;
}

static void bi_moved(uint64_t bytes, int procs, int64_t param, uint64_t *b, uint64_t *m)
{
    (void)procs;
    *m = 2 * (uint64_t)param;
    *b = *m * bytes;
}

static void multi_moved(uint64_t bytes, int procs, int64_t param, uint64_t *b, uint64_t *m)
{
    *m = (uint64_t)(procs / 2) * (uint64_t)param;
    *b = *m * bytes;
}

/* IMB's count for Exchange: what one rank sends and receives, 4 x bytes. */
static void ex_moved(uint64_t bytes, int procs, int64_t param, uint64_t *b, uint64_t *m)
{
    (void)procs;
    (void)param;
    *m = 4;
    *b = 4 * bytes;
}

/* ---- roles ---- */

static bw_role role_of(const mbx_bench_ctx *c, enum bw_kind k)
{
    bw_role r = {-1, 0, 0, 0};
    if (k == BW_MULTI) {
        int half = c->size / 2;
        if (c->rank < half)
            r = (bw_role){c->rank + half, 1, 0, 1};
        else if (c->rank < 2 * half)
            r = (bw_role){c->rank - half, 0, 1, 0};
        return r;
    }
    if (c->rank == c->pair_a)
        r = (bw_role){c->pair_b, 1, k == BW_BI, 1};
    else if (c->rank == c->pair_b)
        r = (bw_role){c->pair_a, k == BW_BI, 1, 0};
    return r;
}

/* Post n receives (slot j at base + j * stride; stride 0: all in one). */
static int post_recvs(const mbx_bench_ctx *c, unsigned char *base, size_t stride, int n, int from,
                      MPI_Request *req)
{
    int rc = MPI_SUCCESS;
    for (int j = 0; j < n && rc == MPI_SUCCESS; j++)
        rc = MPI_Irecv(base + (size_t)j * stride, c->count, MPI_BYTE, from, BW_TAG, c->comm,
                       &req[j]);
    return rc;
}

static int post_sends(const mbx_bench_ctx *c, unsigned char *base, size_t stride, int n, int to,
                      MPI_Request *req)
{
    int rc = MPI_SUCCESS;
    for (int j = 0; j < n && rc == MPI_SUCCESS; j++)
        rc = MPI_Isend(base + (size_t)j * stride, c->count, MPI_BYTE, to, BW_TAG, c->comm, &req[j]);
    return rc;
}

/* An untimed zero-byte exchange before a batch of bw.uni or bw.bi: the
 * batch's command reaches the pair at different times. */
static int pair_sync(const mbx_bench_ctx *c, int other)
{
    char z = 0;
    return MPI_Sendrecv(&z, 0, MPI_BYTE, other, SYNC_TAG, &z, 0, MPI_BYTE, other, SYNC_TAG, c->comm,
                        MPI_STATUS_IGNORE);
}

/* k windows of a streaming pattern (uni, bi, multi) on this rank. sbase and
 * rbase with their strides are the buffers (run: sbuf, rbuf, stride 0). */
static int stream_loop(mbx_bench_ctx *c, enum bw_kind k, size_t n, double *t, unsigned char *sbase,
                       unsigned char *rbase, size_t stride)
{
    bw_state *s = c->priv;
    bw_role r = role_of(c, k);
    int w = (int)c->param, barrier = k == BW_MULTI;
    int rc = MPI_SUCCESS;
    char z = 0;
    if (r.peer < 0) { /* a rank without a pair still joins the barriers */
        for (size_t i = 0; i < n && rc == MPI_SUCCESS; i++) {
            rc = mbx_obs_sync(c, i, barrier);
            if (rc == MPI_SUCCESS && barrier)
                rc = MPI_Barrier(c->comm);
        }
        return rc;
    }
    c->timing = r.times;
    MPI_Request *rreq = s->req, *sreq = s->req + (r.recvs ? w : 0);
    /* The first window's receives are posted before anything is sent. */
    if (r.recvs && k != BW_BI && n > 0)
        rc = post_recvs(c, rbase, stride, w, r.peer, rreq);
    if (rc == MPI_SUCCESS && !barrier)
        rc = pair_sync(c, r.peer);
    for (size_t i = 0; i < n && rc == MPI_SUCCESS; i++) {
        if ((rc = mbx_obs_sync(c, i, barrier)) != MPI_SUCCESS)
            break;
        double t0 = mbx_timer_now(c->timer);
        if (k == BW_BI) {
            rc = post_recvs(c, rbase, stride, w, r.peer, rreq);
            if (rc == MPI_SUCCESS)
                rc = post_sends(c, sbase, stride, w, r.peer, sreq);
            if (rc == MPI_SUCCESS)
                rc = MPI_Waitall(2 * w, s->req, s->st);
        } else if (r.sends) {
            rc = post_sends(c, sbase, stride, w, r.peer, sreq);
            if (rc == MPI_SUCCESS)
                rc = MPI_Waitall(w, sreq, s->st);
            if (rc == MPI_SUCCESS)
                rc = MPI_Recv(&z, 0, MPI_BYTE, r.peer, ACK_TAG, c->comm, MPI_STATUS_IGNORE);
        } else {
            rc = MPI_Waitall(w, rreq, s->st);
            /* The next window's receives are posted before the sender
             * learns that this one arrived. */
            if (rc == MPI_SUCCESS && i + 1 < n)
                rc = post_recvs(c, rbase, stride, w, r.peer, rreq);
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(&z, 0, MPI_BYTE, r.peer, ACK_TAG, c->comm);
        }
        /* bw.multi: the windows of all pairs end together, at a closing
         * barrier. Without it a pair that ran after the others (a rank
         * descheduled on a shared core, a slower link) left every sender's
         * own time short, and the aggregate counted windows that never
         * were in flight at once as if they had been (30 times osu_mbw_mr
         * with 4 ranks on 2 cores). The barrier's own time is in every
         * observation: at small sizes the bandwidth errs low, never high. */
        if (rc == MPI_SUCCESS && barrier)
            rc = MPI_Barrier(c->comm);
        t[i] = mbx_timer_now(c->timer) - t0;
    }
    return rc;
}

/* One exchange with both ring neighbours: receives into rbase (from the
 * left) and rbase + bytes (from the right), sends sbase to the right and
 * sbase + bytes to the left. */
static int exchange_once(mbx_bench_ctx *c, unsigned char *sbase, unsigned char *rbase)
{
    bw_state *s = c->priv;
    int left = (c->rank + c->size - 1) % c->size, right = (c->rank + 1) % c->size;
    size_t n = (size_t)c->count;
    int rc = MPI_Irecv(rbase, c->count, MPI_BYTE, left, TO_RIGHT_TAG, c->comm, &s->req[0]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Irecv(rbase + n, c->count, MPI_BYTE, right, TO_LEFT_TAG, c->comm, &s->req[1]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Isend(sbase, c->count, MPI_BYTE, right, TO_RIGHT_TAG, c->comm, &s->req[2]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Isend(sbase + n, c->count, MPI_BYTE, left, TO_LEFT_TAG, c->comm, &s->req[3]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Waitall(4, s->req, s->st);
    return rc;
}

static int exchange_loop(mbx_bench_ctx *c, size_t n, double *t)
{
    int rc = MPI_SUCCESS;
    c->timing = 1;
    for (size_t i = 0; i < n && rc == MPI_SUCCESS; i++) {
        if ((rc = mbx_obs_sync(c, i, 1)) != MPI_SUCCESS)
            break;
        double t0 = mbx_timer_now(c->timer);
        rc = exchange_once(c, c->sbuf, c->rbuf);
        t[i] = mbx_timer_now(c->timer) - t0;
    }
    return rc;
}

/* ---- set-up ---- */

/* The requests and statuses of nreq messages; every rank agrees on the
 * outcome, so none starts the warm-up's window with a peer that failed. */
static int bw_alloc(mbx_bench_ctx *c, size_t nreq)
{
    bw_state *s = calloc(1, sizeof *s);
    int err = 1, any = 1;
    if (s) {
        c->priv = s;
        s->req = malloc(nreq * sizeof *s->req);
        s->st = malloc(nreq * sizeof *s->st);
        err = !s->req || !s->st;
    }
    int rc = MPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, c->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    return any ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

static int bw_setup(mbx_bench_ctx *c)
{
    /* The same param on every rank: all refuse it, or none. */
    if (c->param < 1 || c->param > BW_WINDOW_MAX)
        return MPI_ERR_ARG;
    return bw_alloc(c, 2 * (size_t)c->param);
}

static int ex_setup(mbx_bench_ctx *c)
{
    return bw_alloc(c, 4);
}

static void bw_teardown(mbx_bench_ctx *c)
{
    bw_state *s = c->priv;
    if (!s)
        return;
    free(s->req);
    free(s->st);
    free(s->sslots);
    free(s->rslots);
    free(s);
    c->priv = NULL;
}

/* ---- --validate ---- */

/* The byte at position i of message j sent by rank `from`: the low bits
 * of the rank and of the message's number enter every byte, so a message
 * from the wrong rank, or the wrong one of the window, fails. */
static unsigned char bw_byte(size_t i, int from, int j)
{
    unsigned r = (unsigned)from, m = (unsigned)j;
    return (unsigned char)((i * 31u + r * 7u + m * 13u + 1u + ((i & 1u) ? (m >> 8) * 5u : 0u)) &
                           0xffu);
}

static void fill(unsigned char *b, size_t n, int from, int j)
{
    for (size_t i = 0; i < n; i++)
        b[i] = bw_byte(i, from, j);
}

static int holds(const unsigned char *b, size_t n, int from, int j)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != bw_byte(i, from, j))
            return 0;
    return 1;
}

/* One window with a slot per message: every rank that sends fills its W
 * slots with message numbers 0..W-1, every rank that receives checks all
 * W; the ranks' verdicts stay their own (the engine reduces them). */
static int stream_check(mbx_bench_ctx *c, int *bad, enum bw_kind k)
{
    *bad = 0;
    bw_state *s = c->priv;
    bw_role r = role_of(c, k);
    size_t n = (size_t)c->count, w = (size_t)c->param, len = n * w;
    int err = 0, any = 0;
    if (r.peer >= 0 && len > 0) {
        s->sslots = malloc(len);
        s->rslots = malloc(len);
        err = !s->sslots || !s->rslots;
    }
    /* Every rank agrees before any message flows, so none waits forever
     * for a peer that could not allocate. */
    int rc = MPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, c->comm);
    if (rc != MPI_SUCCESS || any)
        return rc != MPI_SUCCESS ? rc : MPI_ERR_NO_MEM;
    if (r.peer >= 0 && len > 0) {
        for (size_t j = 0; j < w; j++)
            fill(s->sslots + j * n, n, c->rank, (int)j);
        memset(s->rslots, 0, len);
    }
    double t;
    rc = stream_loop(c, k, 1, &t, s->sslots, s->rslots, n);
    if (rc == MPI_SUCCESS && r.recvs)
        for (size_t j = 0; j < w && !*bad; j++)
            *bad = !holds(s->rslots + j * n, n, r.peer, (int)j);
    free(s->sslots);
    free(s->rslots);
    s->sslots = s->rslots = NULL;
    return rc;
}

/* Each rank sends message 0 to the right and 1 to the left, and must get
 * its left neighbour's message 0 and its right neighbour's message 1. */
static int exchange_check(mbx_bench_ctx *c, int *bad)
{
    size_t n = (size_t)c->count;
    unsigned char *sb = c->sbuf, *rb = c->rbuf;
    int left = (c->rank + c->size - 1) % c->size, right = (c->rank + 1) % c->size;
    fill(sb, n, c->rank, 0);
    fill(sb + n, n, c->rank, 1);
    memset(rb, 0, 2 * n);
    int rc = MPI_Barrier(c->comm);
    if (rc == MPI_SUCCESS)
        rc = exchange_once(c, sb, rb);
    *bad = rc == MPI_SUCCESS && !(holds(rb, n, left, 0) && holds(rb + n, n, right, 1));
    return rc;
}

/* ---- the table ---- */

#define STREAM_FNS(sfx, kind)                                                                      \
    static int run_##sfx(mbx_bench_ctx *c, size_t k, double *t)                                    \
    {                                                                                              \
        return stream_loop(c, kind, k, t, c->sbuf, c->rbuf, 0);                                    \
    }                                                                                              \
    static int check_##sfx(mbx_bench_ctx *c, int *bad)                                             \
    {                                                                                              \
        return stream_check(c, bad, kind);                                                         \
    }
STREAM_FNS(uni, BW_UNI)
STREAM_FNS(bi, BW_BI)
STREAM_FNS(multi, BW_MULTI)

#define BW(nm, sfx, tm, fl, nstreams, text)                                                        \
    {                                                                                              \
        .name = nm, .pattern = "bw", .summary = text, .timing = tm, .min_procs = 2,                \
        .flags = MBX_BENCH_SIZED | MBX_BENCH_PARAM | MBX_BENCH_STREAM | (fl), .unit = 1,           \
        .divisor = 1.0, .buf_bytes = bw_buf_bytes, .setup = bw_setup, .run = run_##sfx,            \
        .teardown = bw_teardown, .check = check_##sfx, .param_name = "window",                     \
        .param_default = BW_WINDOW_DEFAULT, .param_max = BW_WINDOW_MAX, .moved = sfx##_moved,      \
        .streams = nstreams                                                                        \
    }

/* The pattern's place in the registry, the picker's and `mpibex list`'s
 * order (engine/mpi/CMakeLists.txt reads this line). */
#define MBX_PATTERN_ORDER 120
const mbx_bench mbx_bench_bw_table[] = {
    BW("bw.uni", uni, "window", MBX_BENCH_PAIR, 1,
       "a sends a window of param MPI_Isend (default 64) to b, b acknowledges; a's window time; "
       "MB/s = window x bytes / time (osu_bw)"),
    BW("bw.bi", bi, "window", MBX_BENCH_PAIR, 2,
       "a and b each post a window of MPI_Irecv + MPI_Isend at once; a's window time; "
       "MB/s = 2 x window x bytes / time (osu_bibw)"),
    BW("bw.multi", multi, "max_over_senders", 0, 0,
       "pairs i -> i+P/2 stream a window as bw.uni at once; the slowest sender's time; "
       "aggregate MB/s and messages/s (osu_mbw_mr)"),
    {.name = "bw.exchange",
     .pattern = "bw",
     .summary = "every rank MPI_Isend/MPI_Irecv to and from both ring neighbours + MPI_Waitall; "
                "max over ranks; MB/s = 4 x bytes / time (IMB Exchange)",
     .timing = "max_over_ranks",
     .min_procs = 2,
     .flags = MBX_BENCH_SIZED | MBX_BENCH_STREAM,
     .unit = 1,
     .divisor = 1.0,
     .buf_bytes = ex_buf_bytes,
     .setup = ex_setup,
     .run = exchange_loop,
     .teardown = bw_teardown,
     .check = exchange_check,
     .moved = ex_moved,
     .streams = 2},
};
const size_t mbx_bench_bw_count = sizeof mbx_bench_bw_table / sizeof mbx_bench_bw_table[0];
