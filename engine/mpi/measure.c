/* Measuring one point, rank 0's side (docs/algorithms.md, "One point").
 *
 * mbx_engine_measure() drives the point commands every rank executes
 * (measure_point.c): POINT_BEGIN, BATCHes of observations, VALIDATE and
 * POINT_END. Rank 0 sizes the batches, keeps the observations, applies the
 * stop rule between batches (never inside one) and, with window sync,
 * sizes the windows and decides the clock resyncs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "mbx/rma.h"
#include "mbx/stats.h"
#include "measure_int.h"

#define BATCH_FIRST 8
/* A batch lasts about this long, so a front end redraws at least every
 * 2 * BATCH_TARGET_S and a key shows within 200 ms. */
#define BATCH_TARGET_S 0.05
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

static size_t next_batch(size_t prev, double mean_s, size_t n, size_t limit)
{
    size_t k = prev ? 2 * prev : BATCH_FIRST;
    if (mean_s > 0) {
        double by_time = BATCH_TARGET_S / mean_s;
        if (by_time < (double)k)
            k = by_time < 1.0 ? 1 : (size_t)by_time;
    }
    if (k > MBX_BATCH_MAX)
        k = MBX_BATCH_MAX;
    if (k > limit - n)
        k = limit - n;
    return k;
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

/* A point whose data check failed (MBX_E_VALIDATE): an INVALID row that
 * says why, with no numbers (mbx/engine.h, mbx_engine_measure); not
 * validated, which means checked and right. */
static void failed_check(mbx_result *r, const char *reason)
{
    set_invalid(r);
    r->validated = 0;
    snprintf(r->status_reason, sizeof r->status_reason, "%s", reason);
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
        spec->buf_offset % MBX_BUF_OFFSET_STEP != 0 || spec->buf_offset > MBX_BUF_OFFSET_MAX ||
        spec->rma_sync < 0 || spec->rma_sync >= MBX_RMA_COUNT_)
        return NULL;
    return b;
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

/* One point in flight on rank 0: its limits, its observations so far and
 * the window sync's state. */
typedef struct point_run {
    const mbx_point_spec *spec;
    const mbx_bench *b;
    size_t nmin, nmax;
    int window;
    double resync;                            /* the clock resync period */
    double t_begin, t_setup;                  /* when POINT_BEGIN was sent; how long it took */
    double companion;                         /* the companion's median, seconds (NAN: none) */
    double compute;                           /* MBX_BENCH_OVERLAP: ctx.compute after the set-up */
    double setup;                             /* ctx.setup_s after the set-up (NAN: none) */
    char topology[32];                        /* ctx.topology after the set-up */
    double part_seen, part_ratio, part_early; /* part.*: ctx.part_* after the set-up */
    double res;                               /* what one observation can resolve */
    size_t n, k, batches, invalid, events, faults;
    int redo, redo_ok; /* the batch in flight is a redo; redos still allowed */
    double raw_sum;
    double win, limit; /* window sync: the next batch's window; the time bound */
    window_pool pool;
    mbx_summary s;
    mbx_stop_verdict verdict;
} point_run;

/* Rank 0's warm-up record: it is a member of every point, so its count is
 * the point's. */
static void warm_record(mbx_engine *e, int light)
{
    size_t *np = light ? &e->warm.light_points : &e->warm.points;
    int64_t *lo = light ? &e->warm.light_min : &e->warm.point_min;
    int64_t *hi = light ? &e->warm.light_max : &e->warm.point_max;
    if (*np == 0 || e->warm_done < *lo)
        *lo = e->warm_done;
    if (*np == 0 || e->warm_done > *hi)
        *hi = e->warm_done;
    ++*np;
    e->warm.capped += (size_t)e->warm_capped;
}

/* POINT_BEGIN for r->spec (after the job's pre-fault), with the warm-up
 * recorded and the point's timing and window state set. */
static int point_open(mbx_engine *e, point_run *r)
{
    const mbx_point_spec *spec = r->spec;
    /* Before the job's first point: every pair at every protocol regime. */
    int rc = mbx_prefault_once(e, spec->bytes);
    if (rc < 0)
        return rc;
    r->t_begin = MPI_Wtime();
    mbx_point_params p;
    mbx_point_params_of(e, spec, r->b, r->nmax, &p);
    p.resync =
        r->window && !e->clock_info.identity && mbx_engine_clock(e) - e->clock_at > r->resync;
    /* A benchmark with a companion gets the companion's median on every
     * rank, before its set-up (mbx_bench_ctx.companion_median). */
    p.companion = r->companion;
    mbx_bufpool_draw(e, &p);
    if ((rc = mbx_point_params_submit(e, &p)) < 0)
        return rc;
    r->compute = e->ctx.compute;
    r->setup = e->ctx.setup_s;
    memcpy(r->topology, e->ctx.topology, sizeof r->topology);
    r->part_seen = e->ctx.part_seen_s;
    r->part_ratio = e->ctx.part_ratio;
    r->part_early = e->ctx.part_early;
    warm_record(e, spec->warm_light);
    r->t_setup = MPI_Wtime() - r->t_begin;
    /* What one observation can resolve: a tick, shared by the inner loop's
     * calls and halved for a half round trip (rank 0 always takes part, so
     * its context holds the point's inner loop). */
    r->res =
        e->timer.resolution / (r->b->divisor * (e->ctx.inner > 1 ? (double)e->ctx.inner : 1.0));
    /* Window sync: the window of the next batch; automatic windows start
     * from the set-up time and follow the batches (window_next). */
    if (r->window) {
        r->win = e->method.window > 0.0
                     ? e->method.window
                     : fmin(WINDOW_MAX_S, fmax(WINDOW_MIN_S, 2.0 * r->t_setup + WINDOW_MIN_S));
        r->limit = e->method.window_limit > 0 ? e->method.window_limit : WINDOW_LIMIT_DEFAULT_S;
    }
    e->window_stats = (mbx_window_stats){.first = r->win, .smallest = r->win, .largest = r->win};
    return MBX_OK;
}

/* Window sync, between batches, never inside one: a model that may have
 * drifted by a good part of a window since its fit, or that is older than
 * the resync period, is fitted again; but syncs (a second each by default)
 * take at most a fifth of the time. The identity of a shared clock cannot
 * drift. */
static int resync_if_due(mbx_engine *e, const point_run *r)
{
    double age = mbx_engine_clock(e) - e->clock_at;
    int drifted = e->clock_info.drift_err * age > RESYNC_WINDOW_SHARE * r->win &&
                  age > 5.0 * e->clock_info.duration;
    if (e->clock_info.identity || !(age > r->resync || drifted))
        return MBX_OK;
    mbx_cmd sc = {.opcode = MBX_OP_CLOCK_SYNC};
    int rc = mbx_engine_submit(e, &sc, NULL);
    if (rc < 0)
        return rc;
    e->window_stats.resyncs++;
    return rc;
}

/* The size of the next batch, from the estimated cost of an observation. */
static void batch_size(point_run *r, double est)
{
    size_t n = r->n, nmax = r->nmax, prev = r->k;
    size_t k = next_batch(prev, est, n, nmax);
    /* A pass the scheduler sized (its pilot measured the time per
     * observation) is one batch: no doubling from 8, no reduction per
     * handful of observations. */
    if (prev == 0 && r->spec->batch_first > k)
        k = r->spec->batch_first < nmax - n ? r->spec->batch_first : nmax - n;
    if (k > MBX_BATCH_MAX)
        k = MBX_BATCH_MAX;
    /* Window sync: at least WINDOW_DECIDE observations a batch (as long as
     * that is under WINDOW_BATCH_MAX_S), so that a point is not thousands
     * of one-observation batches and each batch can size the next window. */
    if (r->window) {
        double fit = WINDOW_BATCH_MAX_S / r->win;
        size_t floor_k = fit >= WINDOW_DECIDE ? WINDOW_DECIDE : fit >= 1.0 ? (size_t)fit : 1;
        if (k < floor_k)
            k = floor_k < nmax - n ? floor_k : nmax - n;
    }
    r->k = k;
}

/* One BATCH of r->k observations on every rank; the reduced times are in
 * e->reduced. */
static int batch_run(mbx_engine *e, const point_run *r)
{
    int rc = mbx_measure_grow(&e->obs, &e->scratch, &e->obs_cap, r->n + r->k);
    if (rc < 0)
        return rc;
    mbx_cmd bc = {.opcode = MBX_OP_BATCH};
    bc.iarg[0] = (int64_t)r->k;
    if (r->window) {
        double delay = e->method.window_delay > 0 ? e->method.window_delay : WINDOW_DELAY_S;
        bc.darg[0] = mbx_clock_global(&e->clock, mbx_engine_clock(e)) + delay;
        bc.darg[1] = r->win;
    }
    if ((rc = mbx_engine_submit(e, &bc, NULL)) < 0)
        return rc;
    size_t len = r->window ? 3 * r->k : r->k;
    if (e->reduced[len] != 0.0)
        return MBX_E_MPI;
    mbx_engine_stop_note(e, e->reduced[len + 1]);
    return rc;
}

/* A batch in which some rank page-faulted (flt: the largest count of any
 * rank) timed the kernel: measure it once more, uncounted (returns 1).
 * When the redo faults too, the operation itself faults (a library that
 * maps its buffers per call): no more redos in this point. */
static int batch_redo(mbx_engine *e, point_run *r, double flt)
{
    if (flt > 0.0 && !r->redo && r->redo_ok) {
        r->redo = 1;
        e->warm.redone++;
        return 1;
    }
    if (flt > 0.0 && r->redo)
        r->redo_ok = 0;
    r->redo = 0;
    r->faults += (size_t)flt;
    return 0;
}

/* The batch's observations from e->reduced into e->obs. */
static void batch_take(mbx_engine *e, point_run *r)
{
    size_t k = r->k, got = 0;
    double win = r->win;
    for (size_t i = 0; i < k; i++) {
        double v = e->reduced[i];
        if (r->window) {
            /* latest end minus earliest start, both from the window's
             * start; dropped if any rank started late or the slowest
             * overran into the next window */
            int timed = e->reduced[k + i] != MBX_NOT_TIMED;
            int drop = e->reduced[2 * k + i] != 0.0 || e->reduced[i] > win || !timed;
            window_see(&r->pool, e->reduced[i], timed, drop, win);
            if (drop) {
                r->invalid++;
                continue;
            }
            v = e->reduced[i] + e->reduced[k + i];
        }
        v /= r->b->divisor;
        e->obs[r->n + got++] = v;
        r->raw_sum += v > 0 ? v : 0.0;
    }
    r->n += got;
    r->batches++;
    if (r->window && e->method.window <= 0.0)
        r->win = window_next(e, r->win, &r->pool);
}

/* After a batch: the summary, the stop rule's verdict and the progress
 * callback (MBX_E_ABORTED when it cancels). */
static int batch_judge(mbx_engine *e, point_run *r, mbx_progress_fn progress, void *ud)
{
    const mbx_point_spec *spec = r->spec;
    int rc = MBX_OK;
    if (r->n > 0) {
        /* The rule sees the observations without their events, so a
         * stopped rank's one huge time neither settles the point nor hides
         * in its statistics; the limit counts every observation. */
        rc = mbx_stats_summarize_events(e->obs, r->n, r->res, e->scratch, &r->s, &r->events);
        if (rc < 0)
            return rc;
        r->verdict = mbx_stop_eval(&spec->stop, &r->s, e->timer.resolution, r->nmin, r->nmax);
        if (r->verdict == MBX_STOP_GO_ON && r->n >= r->nmax)
            r->verdict = MBX_STOP_AT_NMAX;
    }
    /* Window sync: give up on a point whose windows keep failing, or that
     * has taken longer than its bound; the result says so. */
    if (r->verdict == MBX_STOP_GO_ON && r->window &&
        (r->invalid >= INVALID_LIMIT * r->nmax || MPI_Wtime() - r->t_begin > r->limit)) {
        r->verdict = MBX_STOP_AT_NMAX;
        e->window_stats.gave_up = 1;
    }
    if (progress && r->n > 0) {
        mbx_progress p = {spec, &r->s, mbx_stop_progress(&spec->stop, &r->s), r->batches};
        if (progress(ud, &p) != 0)
            return MBX_E_ABORTED;
    }
    return rc;
}

/* Batches until the stop rule's verdict; a status, the last step's. */
static int observe(mbx_engine *e, point_run *r, mbx_progress_fn progress, void *ud)
{
    int rc = MBX_OK;
    while (r->verdict == MBX_STOP_GO_ON) {
        /* Before any observation, the set-up with its one warm-up call is
         * the only (pessimistic) estimate of an observation's cost. */
        double est = r->n ? r->raw_sum / (double)r->n : r->t_setup;
        if (r->window) {
            est = r->win;
            if ((rc = resync_if_due(e, r)) < 0)
                return rc;
        }
        if (!r->redo) /* a redone batch keeps its size */
            batch_size(r, est);
        if ((rc = batch_run(e, r)) < 0)
            return rc;
        size_t len = r->window ? 3 * r->k : r->k;
        if (batch_redo(e, r, e->reduced[len + 2]))
            continue;
        batch_take(e, r);
        if ((rc = batch_judge(e, r, progress, ud)) < 0)
            return rc;
    }
    return rc;
}

/* Whether the point's data is checked after its timed loop: --validate,
 * or always for a benchmark whose operations an MPI library can complete
 * without moving the data (MBX_BENCH_CHECKED: one-sided). */
static int point_checked(const mbx_point_spec *spec, const mbx_bench *b)
{
    return spec->validate || (b && (b->flags & MBX_BENCH_CHECKED));
}

/* VALIDATE (when checked and all went well) and POINT_END; the first
 * error of the point, the observation loop's (rc) first. */
static int point_close(mbx_engine *e, const mbx_point_spec *spec, const mbx_bench *b, int rc)
{
    int bad = 0;
    if (rc >= 0 && point_checked(spec, b)) {
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
    return MBX_OK;
}

/* The finished point's result row. */
static void point_result(const mbx_engine *e, const point_run *r, mbx_result *out)
{
    const mbx_point_spec *spec = r->spec;
    mbx_result_fill(out, spec, &r->s, r->verdict, r->nmin, r->nmax, e->timer.overhead, r->batches,
                    MPI_Wtime() - r->t_begin, r->events, r->res);
    out->validated = point_checked(spec, r->b);
    out->sync = e->method.sync;
    out->clock_sync = r->window ? mbx_clocksync_name(e->method.clock.method) : NULL;
    out->cache = e->method.cache;
    out->invalid = r->invalid;
    out->faults = r->faults;
    out->window = e->window_stats;
    if (out->overlap)
        out->compute = r->compute;
    out->setup = r->setup;
    memcpy(out->topology, r->topology, sizeof out->topology);
    out->part_seen = r->part_seen;
    out->part_ratio = r->part_ratio;
    out->part_early = r->part_early;
    if (r->n == 0)
        set_invalid(out);
}

/* One benchmark at one point, to its stop rule (mbx_engine_measure without
 * the companion; `companion` is its median, seconds, or NAN). */
static int measure_one(mbx_engine *e, const mbx_point_spec *spec, double companion,
                       mbx_progress_fn progress, void *ud, mbx_result *out, const double **obs,
                       size_t *nobs)
{
    const mbx_bench *b = spec_bench(e, spec);
    if (!b || !out)
        return MBX_E_INVAL;
    e->test_label = spec->label;
    point_run run = {.spec = spec,
                     .b = b,
                     .nmin = spec->nmin,
                     .nmax = spec->nmax,
                     .companion = companion,
                     .compute = NAN,
                     .setup = NAN,
                     .part_seen = NAN,
                     .part_ratio = NAN,
                     .part_early = NAN};
    point_run *r = &run;
    if (spec->stop.kind == MBX_STOP_FIXED)
        r->nmin = r->nmax = spec->stop.fixed;
    r->window = e->method.sync == MBX_SYNC_WINDOW;
    r->resync = e->method.resync > 0 ? e->method.resync : RESYNC_DEFAULT_S;
    r->redo_ok = 1;
    r->verdict = MBX_STOP_GO_ON;
    int rc = point_open(e, r);
    if (rc < 0)
        return rc;
    rc = point_close(e, spec, b, observe(e, r, progress, ud));
    if (rc < 0 && rc != MBX_E_VALIDATE)
        return rc;
    point_result(e, r, out);
    mbx_bufpool_paid(e, e->place.comm_dup ? e->dup_s : 0.0, out->wall);
    if (rc == MBX_E_VALIDATE) /* times of operations that moved wrong data: none kept */
        failed_check(out, "received data was wrong");
    if (obs)
        *obs = e->obs;
    if (nobs)
        *nobs = rc == MBX_E_VALIDATE ? 0 : r->n;
    return rc;
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
    if (e && e->rank == 0)
        e->why[0] = '\0'; /* a refusal's line, or an MPI failure's, is this point's */
    const mbx_bench *b = spec_bench(e, spec);
    if (!b || !out)
        return MBX_E_INVAL;
    if (!b->companion)
        return measure_one(e, spec, NAN, progress, ud, out, obs, nobs);
    mbx_point_spec cs = *spec;
    (void)mbx_bench_find(b->companion, &cs.bench_id); /* -1: the check below fails */
    const mbx_bench *cb = mbx_bench_get(cs.bench_id);
    if (!cb || cb->companion || (cb->flags | MBX_BENCH_OVERLAP) != (b->flags | MBX_BENCH_OVERLAP) ||
        cb->unit != b->unit)
        return MBX_E_INVAL; /* a registry mistake, not the caller's */
    mbx_result plain;
    int rc = measure_one(e, &cs, NAN, progress, ud, &plain, NULL, NULL);
    if (rc == MBX_E_VALIDATE) { /* the accurate benchmark's row, on the plain one's failure */
        mbx_summary none = {0};
        mbx_result_fill(out, spec, &none, MBX_STOP_AT_NMAX, spec->nmin, spec->nmax,
                        e->timer.overhead, plain.batches, plain.wall, 0, 0.0);
        failed_check(out, "plain: received data was wrong");
        if (nobs)
            *nobs = 0;
    }
    if (rc < 0)
        return rc;
    int usable = plain.status != MBX_POINT_INVALID && plain.status != MBX_POINT_UNRELIABLE;
    double median = usable ? plain.s.median : NAN;
    if ((rc = measure_one(e, spec, median, progress, ud, out, obs, nobs)) < 0)
        return rc;
    out->plain = median;
    out->plain_status = plain.status;
    out->wall += plain.wall; /* what the point cost, both measurements */
    return MBX_OK;
}
