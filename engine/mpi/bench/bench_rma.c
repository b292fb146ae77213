/* One-sided communication (RMA) between the point's pair: ctx->pair_a is
 * the origin, which issues the operations and times, ctx->pair_b the
 * target, whose window memory they read or write; every other rank of the
 * point sits it out. Set-up splits the pair off the point's communicator
 * (origin 0, target 1) and makes the window there with MPI_Win_allocate;
 * teardown frees both.
 *
 * One observation is one access epoch's worth under the point's
 * synchronisation mode (ctx->rma_sync, mbx/rma.h), timed by the origin
 * from before its first call to after the completion returned:
 *   fence     the operations, then MPI_Win_fence on both ranks (a fence
 *             before the batch opens the first epoch);
 *   lock      MPI_Win_lock(SHARED, target), the operations, MPI_Win_unlock;
 *   lock_all  the operations, then MPI_Win_flush(target); the origin holds
 *             MPI_Win_lock_all from set-up to teardown;
 *   pscw      MPI_Win_start, the operations, MPI_Win_complete on the
 *             origin; MPI_Win_post and MPI_Win_wait on the target.
 * The latency benchmarks (rma.put, rma.get, rma.acc) issue one operation
 * of the point's bytes; the bandwidth ones (rma.*_bw) a window of param
 * operations (default 64), operation j at displacement j x bytes, so that
 * one observation moves param x bytes in param messages (window_moved).
 * rma.acc is MPI_Accumulate with MPI_SUM on MPI_INT (unit 4 bytes). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/bench.h"
#include "mbx/rma.h"
#include "patterns.h"

#define RMA_WINDOW_DEFAULT 64 /* as osu_put_bw's window */
#define RMA_WINDOW_MAX 4096
#define RMA_ORIGIN 0 /* ranks in the pair's communicator */
#define RMA_TARGET 1
#define RMA_MEM_MAX (1ull << 30) /* the largest window a rank allocates */

enum rma_op { OP_PUT, OP_GET, OP_ACC };

typedef struct rma_state {
    MPI_Comm pair;       /* origin 0, target 1; MPI_COMM_NULL off the pair */
    MPI_Win win;         /* MPI_WIN_NULL until made */
    MPI_Group peer;      /* pscw: the other rank of the pair */
    unsigned char *base; /* the window's memory (MPI_Win_allocate) */
    unsigned char *obuf; /* the origin's buffer: what it puts or where it gets */
    int own_obuf;        /* obuf was allocated here (n > 1), else it is sbuf */
    size_t len;          /* bytes of each: n x bytes */
    int n;               /* operations per observation */
    int locked_all;      /* lock_all: the origin holds MPI_Win_lock_all */
    int corrupt;         /* test hook MBX_TEST_CORRUPT=1: the check flips a byte */
} rma_state;

static uint64_t rma_buf_bytes(uint64_t bytes, int procs)
{
    (void)procs;
    /* The origin's buffer of a latency benchmark is sbuf; a window of
     * operations and the window itself are the pattern's own. */
    return bytes;
}

/* ---- set-up and teardown ---- */

static int rma_make(mbx_bench_ctx *c, rma_state *s, int origin)
{
    int rc = MPI_Win_allocate((MPI_Aint)s->len, 1, MPI_INFO_NULL, s->pair, &s->base, &s->win);
    if (rc != MPI_SUCCESS)
        return rc;
    memset(s->base, 0, s->len); /* page faults before timing, on both */
    if (origin && s->n == 1) {
        s->obuf = c->sbuf;
    } else if (origin) {
        if (!(s->obuf = malloc(s->len ? s->len : 1))) /* 0 bytes: a valid pointer */
            return MPI_ERR_NO_MEM;
        s->own_obuf = 1;
        memset(s->obuf, 1, s->len);
    }
    if (c->rma_sync == MBX_RMA_PSCW) {
        MPI_Group all;
        int other = origin ? RMA_TARGET : RMA_ORIGIN;
        if ((rc = MPI_Comm_group(s->pair, &all)) != MPI_SUCCESS)
            return rc;
        rc = MPI_Group_incl(all, 1, &other, &s->peer);
        MPI_Group_free(&all);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (origin && c->rma_sync == MBX_RMA_LOCK_ALL) {
        if ((rc = MPI_Win_lock_all(0, s->win)) != MPI_SUCCESS)
            return rc;
        s->locked_all = 1;
    }
    return MPI_SUCCESS;
}

/* Every rank of the point: the pair splits off (the others get
 * MPI_COMM_NULL) and makes its window; all agree on the outcome, so no rank
 * starts the warm-up when another failed. */
static int rma_setup_n(mbx_bench_ctx *c, int64_t n)
{
    rma_state *s = calloc(1, sizeof *s);
    if (!s)
        return MPI_ERR_NO_MEM;
    c->priv = s;
    s->pair = MPI_COMM_NULL;
    s->win = MPI_WIN_NULL;
    s->peer = MPI_GROUP_NULL;
    s->corrupt = mbx_test_corrupt();
    int member = c->rank == c->pair_a || c->rank == c->pair_b;
    int origin = c->rank == c->pair_a;
    int rc = MPI_Comm_split(c->comm, member ? 0 : MPI_UNDEFINED, origin ? 0 : 1, &s->pair);
    int err = rc != MPI_SUCCESS, any = 0;
    if (!err && member) {
        uint64_t len = (uint64_t)n * c->bytes;
        if (n < 1 || n > INT_MAX || len > RMA_MEM_MAX)
            err = 1;
        s->n = (int)n;
        s->len = (size_t)len;
        err = err || rma_make(c, s, origin) != MPI_SUCCESS;
    }
    rc = MPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, c->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    return any ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int rma_setup(mbx_bench_ctx *c)
{
    return rma_setup_n(c, 1);
}

static int rma_setup_window(mbx_bench_ctx *c)
{
    return rma_setup_n(c, c->param);
}

static void rma_teardown(mbx_bench_ctx *c)
{
    rma_state *s = c->priv;
    if (!s)
        return;
    if (s->locked_all)
        (void)MPI_Win_unlock_all(s->win);
    if (s->win != MPI_WIN_NULL)
        (void)MPI_Win_free(&s->win);
    if (s->peer != MPI_GROUP_NULL)
        (void)MPI_Group_free(&s->peer);
    if (s->pair != MPI_COMM_NULL)
        (void)MPI_Comm_free(&s->pair);
    if (s->own_obuf)
        free(s->obuf);
    free(s);
    c->priv = NULL;
}

/* ---- one observation ---- */

/* The operations of one observation, issued by the origin. */
static inline int rma_ops(const mbx_bench_ctx *c, const rma_state *s, enum rma_op op)
{
    int rc = MPI_SUCCESS;
    size_t step = (size_t)c->bytes;
    for (int j = 0; j < s->n && rc == MPI_SUCCESS; j++) {
        unsigned char *o = s->obuf + (size_t)j * step;
        MPI_Aint disp = (MPI_Aint)((size_t)j * step);
        switch (op) {
        case OP_PUT:
            rc = MPI_Put(o, c->count, MPI_BYTE, RMA_TARGET, disp, c->count, MPI_BYTE, s->win);
            break;
        case OP_GET:
            rc = MPI_Get(o, c->count, MPI_BYTE, RMA_TARGET, disp, c->count, MPI_BYTE, s->win);
            break;
        case OP_ACC:
            rc = MPI_Accumulate(o, c->count, MPI_INT, RMA_TARGET, disp, c->count, MPI_INT, MPI_SUM,
                                s->win);
            break;
        }
    }
    return rc;
}

/* The origin's epoch: open, the operations, complete. */
static inline int origin_obs(const mbx_bench_ctx *c, const rma_state *s, enum rma_op op)
{
    int rc;
    switch (c->rma_sync) {
    case MBX_RMA_FENCE:
        rc = rma_ops(c, s, op);
        return rc == MPI_SUCCESS ? MPI_Win_fence(0, s->win) : rc;
    case MBX_RMA_LOCK:
        if ((rc = MPI_Win_lock(MPI_LOCK_SHARED, RMA_TARGET, 0, s->win)) != MPI_SUCCESS)
            return rc;
        rc = rma_ops(c, s, op);
        return rc == MPI_SUCCESS ? MPI_Win_unlock(RMA_TARGET, s->win) : rc;
    case MBX_RMA_PSCW:
        if ((rc = MPI_Win_start(s->peer, 0, s->win)) != MPI_SUCCESS)
            return rc;
        rc = rma_ops(c, s, op);
        return rc == MPI_SUCCESS ? MPI_Win_complete(s->win) : rc;
    default: break;
    }
    rc = rma_ops(c, s, op);
    return rc == MPI_SUCCESS ? MPI_Win_flush(RMA_TARGET, s->win) : rc;
}

/* The target's part of an epoch: a fence, or an exposure epoch; nothing
 * under passive target synchronisation (the target then waits for the
 * batch's end in MPI_Barrier, see rma_loop). */
static inline int target_obs(const mbx_bench_ctx *c, const rma_state *s)
{
    int rc;
    switch (c->rma_sync) {
    case MBX_RMA_FENCE: return MPI_Win_fence(0, s->win);
    case MBX_RMA_PSCW:
        rc = MPI_Win_post(s->peer, 0, s->win);
        return rc == MPI_SUCCESS ? MPI_Win_wait(s->win) : rc;
    default: break;
    }
    return MPI_SUCCESS;
}

static int rma_loop(mbx_bench_ctx *c, size_t k, double *t, enum rma_op op)
{
    rma_state *s = c->priv;
    if (!s || s->pair == MPI_COMM_NULL)
        return MPI_SUCCESS;
    /* The command that starts a batch reaches the pair at different times:
     * line them up (a fence opens the first epoch of fence mode). */
    int rc = c->rma_sync == MBX_RMA_FENCE ? MPI_Win_fence(0, s->win) : MPI_Barrier(s->pair);
    if (c->rank == c->pair_a) {
        c->timing = 1;
        for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
            if ((rc = mbx_obs_sync(c, i, 0)) != MPI_SUCCESS)
                break;
            double t0 = mbx_timer_now(c->timer);
            rc = origin_obs(c, s, op);
            t[i] = mbx_timer_now(c->timer) - t0;
        }
    } else {
        for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++)
            if ((rc = mbx_obs_sync(c, i, 0)) == MPI_SUCCESS)
                rc = target_obs(c, s);
    }
    /* Passive target: the target waits in MPI for the origin's batch to
     * end, as osu_put_latency's target does in MPI_Barrier, so an MPI that
     * needs the target's progress gets it at once. Otherwise it would sit
     * in the engine's idle wait for the next command, which sleeps between
     * polls: 1 ms per operation under MPICH with UCX_RCACHE_ENABLE=n. */
    if (rc == MPI_SUCCESS && (c->rma_sync == MBX_RMA_LOCK || c->rma_sync == MBX_RMA_LOCK_ALL))
        rc = MPI_Barrier(s->pair);
    return rc;
}

/* ---- --validate ---- */

/* The byte at position i of what the origin puts (who 1) or of the
 * target's window that the origin gets (who 2). */
static unsigned char rma_pattern(size_t i, unsigned who)
{
    return (unsigned char)((i * 31u + who * 7u + 1u + (i >> 8) * 3u) & 0xffu);
}

/* Accumulate: the target's start value and the origin's addend at int i. */
static int acc_base(size_t i)
{
    return (int)(i % 1000u) - 500;
}

static int acc_add(size_t i)
{
    return (int)(i % 7u) + 1;
}

/* Local access to the window's memory: under passive target
 * synchronisation a shared lock on the own rank (compatible with the
 * origin's lock_all) makes the public and private copies agree. */
static int local_begin(const mbx_bench_ctx *c, const rma_state *s)
{
    if (c->rma_sync == MBX_RMA_LOCK || c->rma_sync == MBX_RMA_LOCK_ALL)
        return MPI_Win_lock(MPI_LOCK_SHARED, RMA_TARGET, 0, s->win);
    return MPI_SUCCESS;
}

static int local_end(const mbx_bench_ctx *c, const rma_state *s)
{
    if (c->rma_sync == MBX_RMA_LOCK || c->rma_sync == MBX_RMA_LOCK_ALL)
        return MPI_Win_unlock(RMA_TARGET, s->win);
    return MPI_SUCCESS;
}

/* Before the checked epoch: the origin's buffer and the target's window. */
static void check_fill(const mbx_bench_ctx *c, rma_state *s, enum rma_op op)
{
    size_t ni = s->len / sizeof(int);
    if (c->rank == c->pair_a) {
        int *a = (int *)(void *)s->obuf;
        for (size_t i = 0; op != OP_ACC && i < s->len; i++)
            s->obuf[i] = op == OP_PUT ? rma_pattern(i, 1) : 0;
        for (size_t i = 0; op == OP_ACC && i < ni; i++)
            a[i] = acc_add(i);
        return;
    }
    int *w = (int *)(void *)s->base;
    for (size_t i = 0; op != OP_ACC && i < s->len; i++)
        s->base[i] = op == OP_GET ? rma_pattern(i, 2) : 0;
    for (size_t i = 0; op == OP_ACC && i < ni; i++)
        w[i] = acc_base(i);
}

/* After it: the target's window (put, acc) or the origin's buffer (get). */
static int check_verify(const mbx_bench_ctx *c, rma_state *s, enum rma_op op)
{
    int origin = c->rank == c->pair_a;
    unsigned char *m = origin ? s->obuf : s->base;
    if (origin != (op == OP_GET))
        return 0; /* nothing arrives on this side */
    if (s->corrupt && s->len > 0)
        m[s->len - 1] ^= 0x5a;
    if (op == OP_ACC) {
        const int *w = (const int *)(const void *)m;
        for (size_t i = 0; i < s->len / sizeof(int); i++)
            if (w[i] != acc_base(i) + acc_add(i))
                return 1;
        return 0;
    }
    for (size_t i = 0; i < s->len; i++)
        if (m[i] != rma_pattern(i, op == OP_PUT ? 1 : 2))
            return 1;
    return 0;
}

/* One untimed observation done the benchmark's own way (rma_loop with
 * k = 1), between barriers that order it after the fill and before the
 * check; both ranks fill and check, the target under local_begin/end. */
static int rma_check(mbx_bench_ctx *c, int *bad, enum rma_op op)
{
    rma_state *s = c->priv;
    *bad = 0;
    if (!s || s->pair == MPI_COMM_NULL)
        return MPI_SUCCESS;
    int target = c->rank == c->pair_b;
    int rc = target ? local_begin(c, s) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        return rc;
    check_fill(c, s, op);
    if ((target && (rc = local_end(c, s)) != MPI_SUCCESS) ||
        (rc = MPI_Barrier(s->pair)) != MPI_SUCCESS)
        return rc;
    double t;
    if ((rc = rma_loop(c, 1, &t, op)) != MPI_SUCCESS || (rc = MPI_Barrier(s->pair)) != MPI_SUCCESS)
        return rc;
    if (target && (rc = local_begin(c, s)) != MPI_SUCCESS)
        return rc;
    *bad = check_verify(c, s, op);
    return target ? local_end(c, s) : MPI_SUCCESS;
}

#define RMA_FNS(sfx, op)                                                                           \
    static int run_##sfx(mbx_bench_ctx *c, size_t k, double *t)                                    \
    {                                                                                              \
        return rma_loop(c, k, t, op);                                                              \
    }                                                                                              \
    static int check_##sfx(mbx_bench_ctx *c, int *bad)                                             \
    {                                                                                              \
        return rma_check(c, bad, op);                                                              \
    }
RMA_FNS(put, OP_PUT)
RMA_FNS(get, OP_GET)
RMA_FNS(acc, OP_ACC)

/* What one observation moves: one operation of the point's bytes (the
 * latency benchmarks), or a window of param of them (rma.*_bw). */
static void one_moved(uint64_t bytes, int procs, int64_t param, uint64_t *b, uint64_t *m)
{
    (void)procs, (void)param;
    *b = bytes;
    *m = 1;
}

static void window_moved(uint64_t bytes, int procs, int64_t param, uint64_t *b, uint64_t *m)
{
    (void)procs;
    *b = (uint64_t)param * bytes;
    *m = (uint64_t)param;
}

#define RMA_LAT(nm, sfx, u, opname, text)                                                          \
    {                                                                                              \
        .name = nm, .pattern = "rma", .summary = text, .timing = "origin", .min_procs = 2,         \
        .flags = MBX_BENCH_SIZED | MBX_BENCH_PAIR | MBX_BENCH_RMA | MBX_BENCH_CHECKED, .unit = u,  \
        .divisor = 1.0, .buf_bytes = rma_buf_bytes, .setup = rma_setup, .run = run_##sfx,          \
        .teardown = rma_teardown, .check = check_##sfx, .op = opname, .moved = one_moved           \
    }
#define RMA_BW(nm, sfx, u, opname, text)                                                           \
    {                                                                                              \
        .name = nm, .pattern = "rma", .summary = text, .timing = "origin", .min_procs = 2,         \
        .flags = MBX_BENCH_SIZED | MBX_BENCH_PAIR | MBX_BENCH_RMA | MBX_BENCH_CHECKED |            \
                 MBX_BENCH_PARAM,                                                                  \
        .moved = window_moved, .unit = u, .divisor = 1.0, .buf_bytes = rma_buf_bytes,              \
        .setup = rma_setup_window, .run = run_##sfx, .teardown = rma_teardown,                     \
        .check = check_##sfx, .op = opname, .param_name = "window",                                \
        .param_default = RMA_WINDOW_DEFAULT, .param_max = RMA_WINDOW_MAX                           \
    }

/* The pattern's place in the registry, the picker's and `mpibex list`'s
 * order (engine/mpi/CMakeLists.txt reads this line). */
#define MBX_PATTERN_ORDER 60
const mbx_bench mbx_bench_rma_table[] = {
    RMA_LAT("rma.put", put, 1, NULL,
            "MPI_Put a->b (origin a, target b) and its completion under --rma-sync; a's time"),
    RMA_LAT("rma.get", get, 1, NULL,
            "MPI_Get a<-b (origin a, target b) and its completion under --rma-sync; a's time"),
    RMA_LAT("rma.acc", acc, 4, "MPI_SUM/MPI_INT",
            "MPI_Accumulate(MPI_SUM, MPI_INT) a->b and its completion under --rma-sync; a's time"),
    RMA_BW("rma.put_bw", put, 1, NULL,
           "a window of W MPI_Put a->b (param window, 64), one completion; a's time per window"),
    RMA_BW("rma.get_bw", get, 1, NULL,
           "a window of W MPI_Get a<-b (param window, 64), one completion; a's time per window"),
    RMA_BW("rma.acc_bw", acc, 4, "MPI_SUM/MPI_INT",
           "a window of W MPI_Accumulate a->b (param window, 64), one completion; a's time per "
           "window"),
};
const size_t mbx_bench_rma_count = sizeof mbx_bench_rma_table / sizeof mbx_bench_rma_table[0];
