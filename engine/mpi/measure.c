/* Measuring one point (DESIGN, "Measuring one point").
 *
 * Every rank: POINT_BEGIN sets up the communicator and buffers and runs the
 * untimed warm-up (warmup.c); each BATCH runs k observations and reduces the
 * per-observation maxima and its minor page faults to rank 0 in one
 * MPI_Reduce; POINT_END frees. Rank 0 drives these commands from
 * mbx_engine_measure() and applies the stop rule between batches, never
 * inside one. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "mbx/stats.h"

#define BATCH_FIRST 8
#define BATCH_MAX 65536
/* A batch lasts about this long, so a front end redraws at least every
 * 2 * BATCH_TARGET_S and a key shows within 200 ms. */
#define BATCH_TARGET_S 0.05
#define NOT_TIMED (-DBL_MAX)
/* Window sync: automatic windows are at least WINDOW_MIN_S and at most
 * WINDOW_MAX_S long; the first window of a batch starts WINDOW_DELAY_S after
 * rank 0 sends the batch; the clocks are synchronized again between
 * batches when the last sync is older than RESYNC_DEFAULT_S, or when the
 * model's predicted error since then exceeds RESYNC_WINDOW_SHARE of a
 * window; a point gives up after WINDOW_LIMIT_DEFAULT_S seconds or
 * INVALID_LIMIT * nmax dropped observations, whichever comes first. */
#define WINDOW_MIN_S 10e-6
#define WINDOW_MAX_S 1.0
#define WINDOW_DELAY_S 1e-3
#define RESYNC_DEFAULT_S 10.0
#define RESYNC_WINDOW_SHARE 0.25
#define WINDOW_LIMIT_DEFAULT_S 60.0
#define INVALID_LIMIT 4
#define WINDOW_POOL 256
#define WINDOW_DECIDE 8
#define WINDOW_BATCH_MAX_S 0.4

/* Grow two parallel arrays of doubles to hold at least `need` each. */
static int grow_pair(double **a, double **b, size_t *cap, size_t need)
{
    if (need <= *cap)
        return MBX_OK;
    size_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    double *x = realloc(*a, c * sizeof *x);
    if (x)
        *a = x;
    double *y = realloc(*b, c * sizeof *y);
    if (y)
        *b = y;
    if (!x || !y)
        return MBX_E_NOMEM;
    *cap = c;
    return MBX_OK;
}

static void free_buffers(mbx_engine *e)
{
    free(e->sbuf_base);
    free(e->rbuf_base);
    e->sbuf_base = e->rbuf_base = NULL;
    e->ctx.sbuf = e->ctx.rbuf = NULL;
}

/* Both buffers start `offset` bytes after a page boundary (a multiple of 64,
 * so every benchmark's element types stay aligned); each is a fresh
 * allocation per point. */
static int alloc_buffers(mbx_engine *e, size_t len, size_t offset)
{
    /* Never a zero-size buffer: MPI calls with count 0 still get a pointer. */
    size_t n = len ? len : 64;
    if (n > SIZE_MAX - offset)
        return MBX_E_NOMEM;
    void *s = NULL, *r = NULL;
    if (posix_memalign(&s, 4096, n + offset) != 0)
        s = NULL;
    if (posix_memalign(&r, 4096, n + offset) != 0)
        r = NULL;
    e->sbuf_base = s;
    e->rbuf_base = r;
    if (!s || !r) {
        free_buffers(e);
        return MBX_E_NOMEM;
    }
    e->ctx.sbuf = (char *)s + offset;
    e->ctx.rbuf = (char *)r + offset;
    /* Touch every page now so first-touch faults are not timed. */
    memset(e->ctx.sbuf, 0x5a, n);
    memset(e->ctx.rbuf, 0, n);
    e->ctx.buf_len = n;
    return MBX_OK;
}

/* Bytes from the last page boundary to p. */
static int page_offset(const void *p)
{
    return (int)((uintptr_t)p % 4096u);
}

static int subcomm_for(mbx_engine *e, int procs, MPI_Comm *out)
{
    /* subcomm[p] holds the communicator of the first p ranks; ranks outside
     * it keep MPI_COMM_SELF as a "made, not a member" marker. */
    if (e->subcomm[procs] == MPI_COMM_NULL) {
        MPI_Comm c;
        int color = e->rank < procs ? 0 : MPI_UNDEFINED;
        if (MPI_Comm_split(e->cmd, color, e->rank, &c) != MPI_SUCCESS)
            return MBX_E_MPI;
        e->subcomm[procs] = c == MPI_COMM_NULL ? MPI_COMM_SELF : c;
    }
    *out = e->rank < procs ? e->subcomm[procs] : MPI_COMM_NULL;
    return MBX_OK;
}

int mbx_point_begin(mbx_engine *e, const mbx_cmd *cmd)
{
    int err = 0;
    if (e->in_point)
        (void)mbx_point_end(e);
    const mbx_bench *b = mbx_bench_get(cmd->bench_id);
    int procs = cmd->procs;
    if (!b || procs < b->min_procs || procs < 1 || procs > e->size || cmd->bytes > INT32_MAX)
        return MBX_E_INVAL; /* identical on every rank: all return here */
    int64_t param = cmd->iarg[0];
    int pa = (int)cmd->iarg[1], pb = (int)cmd->iarg[2], root = (int)cmd->iarg[3];
    if (pa == pb) {
        pa = 0;
        pb = procs - 1;
    }
    if (param < 0 || pa < 0 || pb < 0 || pa >= procs || pb >= procs || root < 0 || root >= procs)
        return MBX_E_INVAL;
    if (param == 0)
        param = b->param_default;
    /* Rank 0 sends the warm-up calls in darg[1] (at least one), the warm-up's
     * time floor in darg[2] and the buffer offset in darg[3]: the same on
     * every rank, so the checks below fail everywhere or nowhere. */
    double floor_s = cmd->darg[2], off = cmd->darg[3];
    if (!(floor_s >= 0.0 && floor_s <= 1.0) || !(off >= 0.0 && off <= MBX_BUF_OFFSET_MAX) ||
        (uint32_t)off % MBX_BUF_OFFSET_STEP != 0 || off != (double)(uint32_t)off)
        return MBX_E_INVAL;
    /* Rank 0 decided that the clocks need a new sync (window sync). */
    if (cmd->darg[0] != 0.0 && e->method.sync == MBX_SYNC_WINDOW) {
        int src = mbx_clock_sync_exec(e);
        if (src < 0)
            return src; /* the same status on every rank */
    }

    memset(&e->ctx, 0, sizeof e->ctx);
    MPI_Comm comm = MPI_COMM_NULL;
    if (subcomm_for(e, procs, &comm) < 0)
        err = 1;
    e->bench = b;
    e->member = comm != MPI_COMM_NULL;
    e->in_point = 1;
    if (!err && e->member) {
        e->ctx.comm = comm;
        MPI_Comm_rank(comm, &e->ctx.rank);
        MPI_Comm_size(comm, &e->ctx.size);
        e->ctx.bytes = cmd->bytes;
        e->ctx.count = (int)(cmd->bytes / b->unit);
        e->ctx.timer = e->timer.kind;
        e->ctx.tick = e->timer.resolution;
        e->ctx.overhead = e->timer.overhead;
        e->ctx.inner = 1;
        e->ctx.param = param;
        e->ctx.pair_a = pa;
        e->ctx.pair_b = pb;
        e->ctx.root = root;
        if (alloc_buffers(e, (size_t)b->buf_bytes(cmd->bytes, procs), (size_t)off) < 0)
            err = 1;
        /* A setup that cannot run in this job (e.g. pingpong.mt without
         * MPI_THREAD_MULTIPLE) says so with MPI_ERR_UNSUPPORTED_OPERATION. */
        int src = !err && b->setup ? b->setup(&e->ctx) : MPI_SUCCESS;
        if (src == MPI_ERR_UNSUPPORTED_OPERATION)
            err = 2;
        else if (src != MPI_SUCCESS)
            err = 1;
        int64_t calls = cmd->darg[1] >= 1.0 && cmd->darg[1] <= 1e6 ? (int64_t)cmd->darg[1] : 1;
        if (!err && mbx_warmup_point(e, calls, floor_s, MBX_WARMUP_CAP_S) < 0)
            err = 1;
    }
    /* With the error flag, the buffers' page offsets as this rank sees them
     * (highest and negated lowest; a rank without buffers cannot win). */
    int v[3] = {err, -4096, -4096}, all[3] = {1, -1, 1};
    if (!err && e->member && e->ctx.sbuf && e->ctx.rbuf) {
        int so = page_offset(e->ctx.sbuf), ro = page_offset(e->ctx.rbuf);
        v[1] = so > ro ? so : ro;
        v[2] = -(so < ro ? so : ro);
    }
    if (MPI_Allreduce(v, all, 3, MPI_INT, MPI_MAX, e->cmd) != MPI_SUCCESS)
        all[0] = 1;
    int anyerr = all[0];
    if (e->rank == 0) {
        e->buf_off_lo = anyerr ? -1 : -all[2];
        e->buf_off_hi = anyerr ? -1 : all[1];
    }
    if (anyerr) {
        (void)mbx_point_end(e);
        return anyerr == 2 ? MBX_E_UNSUPPORTED : MBX_E_MPI;
    }
    return MBX_OK;
}

int mbx_point_batch(mbx_engine *e, const mbx_cmd *cmd)
{
    size_t k = (size_t)cmd->iarg[0];
    if (k == 0 || k > BATCH_MAX)
        return MBX_E_INVAL;
    /* Barrier sync reduces k durations; window sync k ends, k negated
     * starts (both relative to each observation's window) and k late
     * flags; then one error flag and the minor page faults of the batch. */
    int window = e->method.sync == MBX_SYNC_WINDOW;
    size_t len = window ? 3 * k : k;
    int rc = grow_pair(&e->local, &e->reduced, &e->cap, len + 3);
    long faults = 0;
    int failed = rc < 0 || !e->in_point;
    if (!failed && e->member && mbx_method_batch(e, k, cmd->darg[0], cmd->darg[1]) < 0)
        failed = 1;
    if (!failed && e->member) {
        e->ctx.timing = 0;
        long f0 = mbx_minflt();
        int mrc = e->bench->run(&e->ctx, k, e->local);
        faults = mbx_minflt() - f0;
        failed = mrc != MPI_SUCCESS;
        /* Each rank corrects with its own overhead; non-timing ranks must
         * not win the maximum. */
        double per = e->ctx.inner > 1 ? (double)e->ctx.inner : 1.0;
        int timed = e->ctx.timing && !failed;
        if (window) {
            /* Back to front: local[i] holds the duration still. */
            double slope = 1.0 + e->clock.slope;
            for (size_t j = k; j-- > 0;) {
                double d = (e->local[j] - e->timer.overhead) / per;
                double w0 = e->ctx.win_start + (double)j * e->ctx.win_len;
                double gs = mbx_clock_global(&e->clock, e->starts[j]) - w0;
                /* A timing rank that never synced is a bug to show, not
                 * hide; a rank that only serves (a bystander) may not sync. */
                int late = e->late[j] || (timed && isnan(gs));
                e->local[2 * k + j] = failed ? 0.0 : (double)late;
                if (isnan(gs))
                    gs = 0.0;
                e->local[k + j] = timed ? -gs : NOT_TIMED;
                e->local[j] = timed ? gs + d * slope : NOT_TIMED;
            }
        } else {
            for (size_t i = 0; i < k; i++)
                e->local[i] = timed ? (e->local[i] - e->timer.overhead) / per : NOT_TIMED;
        }
    } else if (!failed) {
        for (size_t i = 0; i < len; i++)
            e->local[i] = NOT_TIMED;
        if (window)
            memset(e->local + 2 * k, 0, k * sizeof *e->local);
    }
    if (failed && rc < 0)
        return rc; /* cannot take part in the reduction without buffers */
    e->local[len] = failed ? 1.0 : 0.0;
    e->local[len + 1] = mbx_engine_stop_carry(e); /* reduced with MAX: the largest signal wins */
    e->local[len + 2] = faults > 0 ? (double)faults : 0.0;
    /* Ranks that did not time (the ping-pong responder, bystanders) reach
     * the reduction while others may still be measuring: they must not
     * busy-poll a core the timed ranks need, so they wait sleeping. */
    int quiet = !(e->member && e->ctx.timing);
    MPI_Request req;
    if (MPI_Ireduce(e->local, e->reduced, (int)len + 3, MPI_DOUBLE, MPI_MAX, 0, e->cmd, &req) !=
            MPI_SUCCESS ||
        mbx_engine_wait(&req, quiet) < 0)
        return MBX_E_MPI;
    return MBX_OK;
}

/* Every rank: run the benchmark's check once, untimed, and bring the worst
 * verdict to rank 0 (e->bad: 1 wrong data, 2 an MPI error, 3 no check). */
int mbx_point_validate(mbx_engine *e)
{
    int mine = 0;
    e->ctx.sync = MBX_SYNC_BARRIER; /* the check runs untimed, unsynchronized */
    e->ctx.flush = NULL;
    if (!e->in_point)
        mine = 2;
    else if (e->member && !e->bench->check)
        mine = 3;
    else if (e->member) {
        int bad = 0;
        if (e->bench->check(&e->ctx, &bad) != MPI_SUCCESS)
            mine = 2;
        else if (bad)
            mine = 1;
    }
    int worst = 0;
    if (MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, e->cmd) != MPI_SUCCESS)
        return MBX_E_MPI;
    e->bad = worst;
    return MBX_OK;
}

/* Every rank: rank 0 pings each other rank in turn (iarg[0] round trips
 * after one warm-up); rank 0 keeps the median round trip / 2 of each. */
int mbx_pair_scan_exec(mbx_engine *e, const mbx_cmd *cmd)
{
    int rounds = (int)cmd->iarg[0];
    if (rounds < 1 || rounds > 1000)
        return MBX_E_INVAL;
    char byte = 0;
    int rc = MPI_SUCCESS;
    if (e->rank == 0) {
        double *t = malloc(sizeof *t * (size_t)rounds);
        double *scr = malloc(sizeof *scr * (size_t)rounds);
        free(e->scan);
        e->scan = calloc((size_t)e->size, sizeof *e->scan);
        int fail = !t || !scr || !e->scan;
        for (int peer = 1; peer < e->size; peer++) {
            /* Every peer waits for its turn, so the loop must reach it even
             * after a failure: the go byte says whether to measure. */
            int go = fail ? 0 : rounds;
            rc = MPI_Send(&go, 1, MPI_INT, peer, 31, e->cmd);
            for (int i = -1; rc == MPI_SUCCESS && i < go; i++) {
                double t0 = MPI_Wtime();
                rc = MPI_Send(&byte, 1, MPI_BYTE, peer, 32, e->cmd);
                if (rc == MPI_SUCCESS)
                    rc = MPI_Recv(&byte, 1, MPI_BYTE, peer, 32, e->cmd, MPI_STATUS_IGNORE);
                if (i >= 0)
                    t[i] = (MPI_Wtime() - t0) / 2;
            }
            if (rc != MPI_SUCCESS)
                fail = 1;
            if (!fail) {
                mbx_summary s;
                if (mbx_stats_summarize(t, (size_t)rounds, scr, &s) < 0)
                    fail = 1;
                else
                    e->scan[peer] = s.median;
            }
        }
        free(t);
        free(scr);
        return fail ? MBX_E_MPI : MBX_OK;
    }
    int go = 0;
    rc = MPI_Recv(&go, 1, MPI_INT, 0, 31, e->cmd, MPI_STATUS_IGNORE);
    for (int i = -1; rc == MPI_SUCCESS && i < go; i++) {
        rc = MPI_Recv(&byte, 1, MPI_BYTE, 0, 32, e->cmd, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = MPI_Send(&byte, 1, MPI_BYTE, 0, 32, e->cmd);
    }
    return rc == MPI_SUCCESS ? MBX_OK : MBX_E_MPI;
}

int mbx_engine_pair_scan(mbx_engine *e, int rounds, double *lat, int *far)
{
    if (!e || e->rank != 0 || !lat || !far || rounds < 1 || rounds > 1000)
        return MBX_E_INVAL;
    mbx_cmd c = {.opcode = MBX_OP_PAIR_SCAN};
    c.iarg[0] = rounds;
    int rc = mbx_engine_submit(e, &c, NULL);
    if (rc < 0)
        return rc;
    *far = e->size > 1 ? 1 : 0;
    lat[0] = 0.0;
    for (int i = 1; i < e->size; i++) {
        lat[i] = e->scan[i];
        if (lat[i] > lat[*far])
            *far = i;
    }
    return MBX_OK;
}

int mbx_point_end(mbx_engine *e)
{
    if (e->in_point && e->member && e->bench && e->bench->teardown)
        e->bench->teardown(&e->ctx);
    free_buffers(e);
    e->in_point = 0;
    e->member = 0;
    e->bench = NULL;
    return MBX_OK;
}

static size_t next_batch(size_t prev, double mean_s, size_t n, size_t limit)
{
    size_t k = prev ? 2 * prev : BATCH_FIRST;
    if (mean_s > 0) {
        double by_time = BATCH_TARGET_S / mean_s;
        if (by_time < (double)k)
            k = by_time < 1.0 ? 1 : (size_t)by_time;
    }
    if (k > BATCH_MAX)
        k = BATCH_MAX;
    if (k > limit - n)
        k = limit - n;
    return k;
}

void mbx_result_fill(mbx_result *out, const mbx_point_spec *spec, const mbx_summary *s,
                     mbx_stop_verdict verdict, size_t nmin, size_t nmax, double overhead,
                     size_t batches, double wall, size_t events, double res)
{
    const mbx_bench *b = mbx_bench_get(spec->bench_id);
    memset(out, 0, sizeof *out);
    out->benchmark = b ? b->name : "?";
    out->timing = b ? b->timing : "?";
    out->procs = spec->procs;
    out->bytes = spec->bytes;
    out->s = *s;
    out->stop = spec->stop;
    out->nmin = nmin;
    out->nmax = nmax;
    out->overhead = overhead;
    out->batches = batches;
    out->wall = wall;
    out->root = -1;
    if (b && (b->flags & MBX_BENCH_ROOTED))
        out->root = spec->root;
    out->op = b ? b->op : NULL;
    if (b && (b->flags & MBX_BENCH_PARAM)) {
        out->param_name = b->param_name;
        out->param = spec->param ? spec->param : b->param_default;
    }
    /* Master-worker: every piece goes out and its result comes back. */
    if (b && (b->flags & MBX_BENCH_PIECES_MOVED))
        out->moved = 2 * (uint64_t)out->param * spec->bytes;
    if (b && (b->flags & MBX_BENCH_PAIR)) {
        int pa = spec->pair_a, pb = spec->pair_b;
        if (pa == pb)
            pa = 0, pb = spec->procs - 1;
        snprintf(out->ranks, sizeof out->ranks, "%d,%d", pa, pb);
    } else if (spec->procs > 1) {
        snprintf(out->ranks, sizeof out->ranks, "0-%d", spec->procs - 1);
    } else {
        snprintf(out->ranks, sizeof out->ranks, "0");
    }
    out->probe = out->probe_after = NAN;
    out->plain = NAN;
    out->plain_status = MBX_POINT_INVALID;
    out->events = events;
    out->status = mbx_point_judge(s, events, verdict, res);
    mbx_summary_drop_negative(&out->s);
}

/* No valid observation: no numbers, never zeros. */
static void set_invalid(mbx_result *r)
{
    double *f[] = {&r->s.mean, &r->s.tmean,  &r->s.median,  &r->s.min,   &r->s.max,  &r->s.q1,
                   &r->s.q3,   &r->s.stddev, &r->s.stderr_, &r->s.ci_lo, &r->s.ci_hi};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        *f[i] = NAN;
    r->s.n = 0;
    r->s.outliers = 0;
    r->status = MBX_POINT_INVALID;
}

/* The benchmark of a valid spec on rank 0, or NULL. */
static const mbx_bench *spec_bench(const mbx_engine *e, const mbx_point_spec *spec)
{
    if (!e || e->rank != 0 || !spec || !e->configured)
        return NULL;
    const mbx_bench *b = mbx_bench_get(spec->bench_id);
    if (!b || spec->procs < b->min_procs || spec->procs > e->size)
        return NULL;
    size_t nmin = spec->nmin, nmax = spec->nmax;
    if (spec->stop.kind == MBX_STOP_FIXED)
        nmin = nmax = spec->stop.fixed;
    if (nmin < 1 || nmin > nmax)
        return NULL;
    if ((spec->warm_light != 0 && spec->warm_light != 1) ||
        spec->buf_offset % MBX_BUF_OFFSET_STEP != 0 || spec->buf_offset > MBX_BUF_OFFSET_MAX)
        return NULL;
    return b;
}

void mbx_engine_buffer_offsets(const mbx_engine *e, int *lo, int *hi)
{
    if (lo)
        *lo = e ? e->buf_off_lo : -1;
    if (hi)
        *hi = e ? e->buf_off_hi : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Window sync, automatic windows: what the observations since the last
 * decision showed (ends from each window's start, overruns included; a
 * sample of at most WINDOW_POOL of them). */
typedef struct window_pool {
    double end[WINDOW_POOL];
    size_t n, seen, over, missed; /* ends kept; observations, overruns, drops seen */
} window_pool;

static void window_see(window_pool *w, double end, int timed, int missed, double win)
{
    w->seen++;
    w->missed += (size_t)missed;
    if (!timed)
        return;
    w->over += end > win;
    w->end[w->n < WINDOW_POOL ? w->n++ : w->seen % WINDOW_POOL] = end;
}

/* The next window, once at least WINDOW_DECIDE observations were seen at
 * this one (one observation says nothing: in a batch of one a single
 * preemption is a 100 % miss rate). A window must hold a typical
 * observation and the loop's own work up to the next start: need = 1.5x
 * the upper-quartile end plus slack. It doubles (to at most 16x need) when
 * more than 10 % overran it or more than half missed it; otherwise it
 * halves towards need, so one slow spell no longer keeps every later window
 * wide (the old rule doubled after any batch with 10 % misses and never
 * shrank). A few preempted observations on a busy node are no reason to
 * grow: no window length cures them, and wide windows make every
 * observation cost more. Empties the pool when it decides. */
static double window_next(mbx_engine *e, double win, window_pool *w)
{
    if (w->seen < WINDOW_DECIDE)
        return win;
    double next = 2.0 * win; /* nothing timed: nothing to size the window by */
    if (w->n > 0) {
        qsort(w->end, w->n, sizeof *w->end, cmp_double);
        double q = w->end[(size_t)(0.75 * (double)(w->n - 1) + 0.5)];
        double need = fmax(WINDOW_MIN_S, 1.5 * q + WINDOW_MIN_S + 0.5 * e->clock_info.rtt_min);
        if (w->over * 10 > w->seen || w->missed * 2 > w->seen)
            next = fmax(need, fmin(2.0 * win, 16.0 * need));
        else
            next = fmax(need, 0.5 * win);
    }
    next = fmin(WINDOW_MAX_S, next);
    w->n = w->seen = w->over = w->missed = 0;
    mbx_window_stats *st = &e->window_stats;
    if (next > win)
        st->grown++;
    else if (next < win)
        st->shrunk++;
    st->smallest = fmin(st->smallest, next);
    st->largest = fmax(st->largest, next);
    st->last = next;
    return next;
}

/* One benchmark at one point, to its stop rule (mbx_engine_measure without
 * the companion). */
static int measure_one(mbx_engine *e, const mbx_point_spec *spec, mbx_progress_fn progress,
                       void *ud, mbx_result *out, const double **obs, size_t *nobs)
{
    const mbx_bench *b = spec_bench(e, spec);
    if (!b || !out)
        return MBX_E_INVAL;
    size_t nmin = spec->nmin, nmax = spec->nmax;
    if (spec->stop.kind == MBX_STOP_FIXED)
        nmin = nmax = spec->stop.fixed;

    /* Before the job's first point: every pair at every protocol regime. */
    int rc = mbx_prefault_once(e, spec->bytes);
    if (rc < 0)
        return rc;
    double t_begin = MPI_Wtime();
    int window = e->method.sync == MBX_SYNC_WINDOW;
    mbx_cmd c = {.opcode = MBX_OP_POINT_BEGIN,
                 .bench_id = spec->bench_id,
                 .procs = spec->procs,
                 .bytes = spec->bytes};
    c.iarg[0] = spec->param;
    c.iarg[1] = spec->pair_a;
    c.iarg[2] = spec->pair_b;
    c.iarg[3] = spec->root;
    double resync = e->method.resync > 0 ? e->method.resync : RESYNC_DEFAULT_S;
    if (window && !e->clock_info.identity && mbx_engine_clock(e) - e->clock_at > resync)
        c.darg[0] = 1.0;
    /* A light warm-up: the point's first pass already faulted the FIFO. */
    int64_t calls = e->warm.calls;
    if (spec->warm_light && calls > MBX_WARMUP_LIGHT_CALLS)
        calls = MBX_WARMUP_LIGHT_CALLS;
    c.darg[1] = (double)calls;
    c.darg[2] = spec->warm_light ? 0.0 : MBX_WARMUP_FLOOR_S;
    c.darg[3] = (double)spec->buf_offset;
    rc = mbx_engine_submit(e, &c, NULL);
    if (rc < 0)
        return rc;
    /* Rank 0 is a member of every point: its count is the point's. */
    size_t *np = spec->warm_light ? &e->warm.light_points : &e->warm.points;
    int64_t *lo = spec->warm_light ? &e->warm.light_min : &e->warm.point_min;
    int64_t *hi = spec->warm_light ? &e->warm.light_max : &e->warm.point_max;
    if (*np == 0 || e->warm_done < *lo)
        *lo = e->warm_done;
    if (*np == 0 || e->warm_done > *hi)
        *hi = e->warm_done;
    ++*np;
    e->warm.capped += (size_t)e->warm_capped;
    double t_setup = MPI_Wtime() - t_begin;
    /* What one observation can resolve: a tick, shared by the inner loop's
     * calls and halved for a half round trip (rank 0 always takes part, so
     * its context holds the point's inner loop). */
    double res =
        e->timer.resolution / (b->divisor * (e->ctx.inner > 1 ? (double)e->ctx.inner : 1.0));

    size_t n = 0, k = 0, batches = 0, invalid = 0, events = 0, faults = 0;
    int redo = 0, redo_ok = 1;
    double raw_sum = 0.0;
    /* Window sync: the window of the next batch; automatic windows start
     * from the set-up time and follow the batches (window_next). */
    double win = 0.0, limit = 0.0;
    if (window) {
        win = e->method.window > 0.0
                  ? e->method.window
                  : fmin(WINDOW_MAX_S, fmax(WINDOW_MIN_S, 2.0 * t_setup + WINDOW_MIN_S));
        limit = e->method.window_limit > 0 ? e->method.window_limit : WINDOW_LIMIT_DEFAULT_S;
    }
    e->window_stats = (mbx_window_stats){.first = win, .smallest = win, .largest = win};
    window_pool pool = {.n = 0};
    mbx_summary s;
    memset(&s, 0, sizeof s);
    mbx_stop_verdict verdict = MBX_STOP_GO_ON;
    while (verdict == MBX_STOP_GO_ON) {
        /* Before any observation, the set-up with its one warm-up call is
         * the only (pessimistic) estimate of an observation's cost. */
        double est = n ? raw_sum / (double)n : t_setup;
        if (window) {
            est = win;
            /* Between batches, never inside one: a model that may have
             * drifted by a good part of a window since its fit, or that is
             * older than the resync period, is fitted again; but syncs
             * (a second each by default) take at most a fifth of the time.
             * The identity of a shared clock cannot drift. */
            double age = mbx_engine_clock(e) - e->clock_at;
            int drifted = e->clock_info.drift_err * age > RESYNC_WINDOW_SHARE * win &&
                          age > 5.0 * e->clock_info.duration;
            if (!e->clock_info.identity && (age > resync || drifted)) {
                mbx_cmd sc = {.opcode = MBX_OP_CLOCK_SYNC};
                if ((rc = mbx_engine_submit(e, &sc, NULL)) < 0)
                    break;
                e->window_stats.resyncs++;
            }
        }
        if (!redo) { /* a redone batch keeps its size */
            size_t prev = k;
            k = next_batch(k, est, n, nmax);
            /* A pass the scheduler sized (its pilot measured the time per
             * observation) is one batch: no doubling from 8, no reduction
             * per handful of observations. */
            if (prev == 0 && spec->batch_first > k)
                k = spec->batch_first < nmax - n ? spec->batch_first : nmax - n;
            if (k > BATCH_MAX)
                k = BATCH_MAX;
            /* Window sync: at least WINDOW_DECIDE observations a batch (as
             * long as that is under WINDOW_BATCH_MAX_S), so that a point is
             * not thousands of one-observation batches and each batch can
             * size the next window. */
            if (window) {
                double fit = WINDOW_BATCH_MAX_S / win;
                size_t floor_k = fit >= WINDOW_DECIDE ? WINDOW_DECIDE
                                 : fit >= 1.0         ? (size_t)fit
                                                      : 1;
                if (k < floor_k)
                    k = floor_k < nmax - n ? floor_k : nmax - n;
            }
        }
        if ((rc = grow_pair(&e->obs, &e->scratch, &e->obs_cap, n + k)) < 0)
            break;
        mbx_cmd bc = {.opcode = MBX_OP_BATCH};
        bc.iarg[0] = (int64_t)k;
        if (window) {
            double delay = e->method.window_delay > 0 ? e->method.window_delay : WINDOW_DELAY_S;
            bc.darg[0] = mbx_clock_global(&e->clock, mbx_engine_clock(e)) + delay;
            bc.darg[1] = win;
        }
        if ((rc = mbx_engine_submit(e, &bc, NULL)) < 0)
            break;
        size_t len = window ? 3 * k : k, got = 0;
        if (e->reduced[len] != 0.0) {
            rc = MBX_E_MPI;
            break;
        }
        mbx_engine_stop_note(e, e->reduced[len + 1]);
        /* A batch in which some rank page-faulted (the largest count of
         * any rank) timed the kernel: measure it once more, uncounted. When
         * the redo faults too, the operation itself faults (a library that
         * maps its buffers per call): no more redos in this point. */
        double flt = e->reduced[len + 2];
        if (flt > 0.0 && !redo && redo_ok) {
            redo = 1;
            e->warm.redone++;
            continue;
        }
        if (flt > 0.0 && redo)
            redo_ok = 0;
        redo = 0;
        faults += (size_t)flt;
        for (size_t i = 0; i < k; i++) {
            double v = e->reduced[i];
            if (window) {
                /* latest end minus earliest start, both from the window's
                 * start; dropped if any rank started late or the slowest
                 * overran into the next window */
                int timed = e->reduced[k + i] != NOT_TIMED;
                int drop = e->reduced[2 * k + i] != 0.0 || e->reduced[i] > win || !timed;
                window_see(&pool, e->reduced[i], timed, drop, win);
                if (drop) {
                    invalid++;
                    continue;
                }
                v = e->reduced[i] + e->reduced[k + i];
            }
            v /= b->divisor;
            e->obs[n + got++] = v;
            raw_sum += v > 0 ? v : 0.0;
        }
        n += got;
        batches++;
        if (window && e->method.window <= 0.0)
            win = window_next(e, win, &pool);
        if (n > 0) {
            /* The rule sees the observations without their events, so a
             * stopped rank's one huge time neither settles the point nor
             * hides in its statistics; the limit counts every observation. */
            if ((rc = mbx_stats_summarize_events(e->obs, n, res, e->scratch, &s, &events)) < 0)
                break;
            verdict = mbx_stop_eval(&spec->stop, &s, e->timer.resolution, nmin, nmax);
            if (verdict == MBX_STOP_GO_ON && n >= nmax)
                verdict = MBX_STOP_AT_NMAX;
        }
        /* Window sync: give up on a point whose windows keep failing, or
         * that has taken longer than its bound; the result says so. */
        if (verdict == MBX_STOP_GO_ON && window &&
            (invalid >= INVALID_LIMIT * nmax || MPI_Wtime() - t_begin > limit)) {
            verdict = MBX_STOP_AT_NMAX;
            e->window_stats.gave_up = 1;
        }
        if (progress && n > 0) {
            mbx_progress p = {spec, &s, mbx_stop_progress(&spec->stop, &s), batches};
            if (progress(ud, &p) != 0) {
                rc = MBX_E_ABORTED;
                break;
            }
        }
    }
    int bad = 0;
    if (rc >= 0 && spec->validate) {
        mbx_cmd vc = {.opcode = MBX_OP_VALIDATE};
        rc = mbx_engine_submit(e, &vc, NULL);
        bad = e->bad;
    }
    mbx_cmd ec = {.opcode = MBX_OP_POINT_END};
    int erc = mbx_engine_submit(e, &ec, NULL);
    if (rc < 0)
        return rc;
    if (erc < 0)
        return erc;
    if (bad)
        return bad == 1 ? MBX_E_VALIDATE : bad == 3 ? MBX_E_UNSUPPORTED : MBX_E_MPI;

    mbx_result_fill(out, spec, &s, verdict, nmin, nmax, e->timer.overhead, batches,
                    MPI_Wtime() - t_begin, events, res);
    out->validated = spec->validate;
    out->sync = e->method.sync;
    out->clock_sync = window ? mbx_clocksync_name(e->method.clock.method) : NULL;
    out->cache = e->method.cache;
    out->invalid = invalid;
    out->faults = faults;
    out->window = e->window_stats;
    if (n == 0)
        set_invalid(out);
    if (obs)
        *obs = e->obs;
    if (nobs)
        *nobs = n;
    return MBX_OK;
}

/* An accurate benchmark's companion is measured first, at the same point
 * (bytes, procs, root, stop rule, limits, validation; the sync method is
 * the engine's) and back to back with it, so both see the same machine
 * state and the observations handed back are the accurate ones. The
 * progress callback sees both; spec in mbx_progress says which is being
 * measured, and cancelling either cancels the point. */
int mbx_engine_measure(mbx_engine *e, const mbx_point_spec *spec, mbx_progress_fn progress,
                       void *ud, mbx_result *out, const double **obs, size_t *nobs)
{
    const mbx_bench *b = spec_bench(e, spec);
    if (!b || !out)
        return MBX_E_INVAL;
    if (!b->companion)
        return measure_one(e, spec, progress, ud, out, obs, nobs);
    mbx_point_spec cs = *spec;
    cs.bench_id = mbx_bench_find(b->companion);
    const mbx_bench *cb = mbx_bench_get(cs.bench_id);
    if (!cb || cb->companion || cb->flags != b->flags || cb->unit != b->unit)
        return MBX_E_INVAL; /* a registry mistake, not the caller's */
    mbx_result plain;
    int rc = measure_one(e, &cs, progress, ud, &plain, NULL, NULL);
    if (rc < 0)
        return rc;
    if ((rc = measure_one(e, spec, progress, ud, out, obs, nobs)) < 0)
        return rc;
    int usable = plain.status != MBX_POINT_INVALID && plain.status != MBX_POINT_UNRELIABLE;
    out->plain = usable ? plain.s.median : NAN;
    out->plain_status = plain.status;
    out->wall += plain.wall; /* what the point cost, both measurements */
    return MBX_OK;
}
