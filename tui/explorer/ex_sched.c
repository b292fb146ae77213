/* The explorer's run on the scheduler (mbx/sched.h): the scheduler
 * decides what is measured next, in passes interleaved across every
 * selected curve, and the runner (mbx/runner.h) carries each request out
 * with the back end; the explorer's hooks show every point as its passes
 * come in, save a point once it is final and read keys while idle. The
 * explorer keeps no measuring rule of its own: order, pass size, warm-up,
 * refinement, the monitor's timing and the stop decision are the
 * scheduler's, what a step does is the runner's. Setting the scheduler up
 * is ex_schedsetup.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ex_watch.h"
#include "explorer.h"
#include "mbx/bench.h"
#include "mbx/rmacheck.h"
#include "mbx/runner.h"
#include "mbx/thrinfo.h"

#define STEP_TICK_S 0.05 /* interactive: keys are read at least this often */

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Points the scheduler added since we looked (refinement): a point each,
 * made from its curve's grid point. */
static void sync_points(explorer *x)
{
    size_t n = mbx_sched_points(x->sched);
    for (; x->nsp < n; x->nsp++) {
        mbx_sched_point_info in;
        size_t k = x->nsp;
        if (k >= EX_MAX_POINTS || x->npts >= EX_MAX_POINTS ||
            mbx_sched_point_info_get(x->sched, k, &in) < 0 || in.curve >= x->ncurves) {
            if (k < EX_MAX_POINTS)
                x->sp_pt[k] = (size_t)-1;
            continue;
        }
        const mbx_ex_curve *cv = &x->curves[in.curve];
        mbx_ex_point np = x->pts[cv->tmpl];
        memset(&np.r, 0, sizeof np.r);
        np.obs = np.pm = NULL; /* the template's stay its own */
        np.oseg = NULL;
        np.nobs = np.noseg = np.npm = np.passes = 0;
        np.state = EX_PENDING;
        np.rel = NAN;
        np.sp = k;
        if (cv->s.dim == EX_DIM_SIZE) {
            np.bytes = in.x;
            np.origin = EX_REF_SIZE;
        } else {
            np.procs = (int)in.x;
            np.origin = EX_REF_PROCS;
        }
        x->pts[x->npts] = np;
        x->sp_pt[k] = x->npts++;
    }
}

static mbx_ex_point *point_of(explorer *x, size_t sp)
{
    if (sp >= x->nsp || sp >= EX_MAX_POINTS || x->sp_pt[sp] >= x->npts)
        return NULL;
    return &x->pts[x->sp_pt[sp]];
}

/* Where point p stands now: its passes, its between-pass error, its row
 * so far and its pass medians. 1 when p->r holds a row (some pass, or a
 * final UNRELIABLE or INVALID measurement that made no pass). */
static int point_refresh(explorer *x, mbx_ex_point *p)
{
    mbx_sched_point_info in;
    if (mbx_sched_point_info_get(x->sched, p->sp, &in) < 0)
        return 0;
    p->passes = in.passes.b.r;
    p->rel = in.passes.b.relerr;
    if ((p->passes == 0 && !in.final) || p->state == EX_DROPPED)
        return 0;
    mbx_result r;
    if (mbx_runner_result(&x->runner, p->sp, &r) < 0)
        return 0;
    r.label = mbx_ex_point_label(p);
    r.refined = p->origin != EX_GRID;
    r.stop = x->meas.stop; /* the target; each pass took a fixed count */
    size_t seq = p->r.seq; /* given when it became final (finalize) */
    p->r = r;
    p->r.seq = seq;
    if (p->state == EX_PENDING)
        p->state = EX_RUNNING;
    size_t n = 0;
    const double *m = mbx_sched_pass_medians(x->sched, p->sp, &n);
    if (m && n && n != p->npm) {
        double *c = realloc(p->pm, n * sizeof *c);
        if (c) {
            memcpy(c, m, n * sizeof *c);
            p->pm = c;
            p->npm = n;
        }
    }
    return 1;
}

/* A point became final: its row as it stands, all its observations (for
 * export and --raw), and its autosave row. Not before: a row in the
 * autosave is a finished point. */
static void finalize(explorer *x, mbx_ex_point *p)
{
    if (p->state == EX_DONE || p->state == EX_DROPPED)
        return;
    if (!point_refresh(x, p)) /* stopped before its first pass: nothing to save */
        return;
    p->state = EX_DONE;
    size_t n = 0;
    const double *obs = mbx_sched_obs(x->sched, p->sp, &n);
    free(p->obs);
    free(p->oseg);
    p->obs = NULL;
    p->oseg = NULL;
    p->nobs = p->noseg = 0;
    if (obs && n && (p->obs = malloc(n * sizeof *p->obs))) {
        memcpy(p->obs, obs, n * sizeof *p->obs);
        p->nobs = n;
    }
    size_t ns = 0;
    const size_t *seg = mbx_sched_obs_passes(x->sched, p->sp, &ns);
    if (p->obs && seg && ns && (p->oseg = malloc(ns * sizeof *p->oseg))) {
        memcpy(p->oseg, seg, ns * sizeof *p->oseg);
        p->noseg = ns;
    }
    x->ndone++;
    p->r.seq = x->ndone; /* the order measured: this run's rows count from 1 */
    x->nrefined += (size_t)(p->origin != EX_GRID);
    mbx_ex_autosave_row(x, &p->r);
}

/* The runner's row hook: point idx is final (refinement may have added
 * it since we looked). */
static int hk_row(void *ud, size_t idx)
{
    explorer *x = ud;
    sync_points(x);
    mbx_ex_point *p = point_of(x, idx);
    if (p)
        finalize(x, p);
    return 0;
}

/* "done: 43 points (7 refined): 41 settled, 2 UNSETTLED; 212 passes in 9
 * rounds": settled always, the other statuses when some point has them. */
static void done_message(explorer *x, const char *head)
{
    size_t c[MBX_POINT_STATUS_COUNT] = {0};
    for (size_t i = 0; i < x->npts; i++)
        if (x->pts[i].state == EX_DONE && (int)x->pts[i].r.status < MBX_POINT_STATUS_COUNT)
            c[x->pts[i].r.status]++;
    char line[256];
    size_t k = (size_t)snprintf(line, sizeof line, "%s: %zu points", head, x->ndone);
    if (x->nrefined)
        k += (size_t)snprintf(line + k, sizeof line - k, " (%zu refined)", x->nrefined);
    k += (size_t)snprintf(line + k, sizeof line - k, ": %zu settled", c[MBX_POINT_SETTLED]);
    static const mbx_point_status more[] = {MBX_POINT_FIXED,      MBX_POINT_UNSETTLED,
                                            MBX_POINT_UNRELIABLE, MBX_POINT_SHIFTED,
                                            MBX_POINT_INVALID,    MBX_POINT_HUNG};
    for (size_t i = 0; i < sizeof more / sizeof *more && k < sizeof line; i++)
        if (c[more[i]])
            k += (size_t)snprintf(line + k, sizeof line - k, ", %zu %s", c[more[i]],
                                  mbx_point_status_name(more[i]));
    if (k < sizeof line)
        k += (size_t)snprintf(line + k, sizeof line - k, "; %zu passes in %zu rounds",
                              x->sst.passes, x->sst.rounds);
    if (x->badcheck && k < sizeof line) { /* the cause was on the line when it happened */
        snprintf(line + k, sizeof line - k, "; %zu passes found wrong data%s", x->badcheck,
                 x->rma_why[0] ? ": fix: " MBX_RMA_FIX_VAR "=" MBX_RMA_FIX_VALUE : "");
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "%s", line);
        return;
    }
    if (x->thr_unbound[0] && k < sizeof line) {
        snprintf(line + k, sizeof line - k, "; threads could not be bound on rank%s %s",
                 strpbrk(x->thr_unbound, ",-") ? "s" : "", x->thr_unbound);
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "%s", line);
        return;
    }
    mbx_ex_set_msg(x, strcmp(head, "done") == 0 ? MBX_ROLE_OK : MBX_ROLE_WARNING, "%s", line);
}

static void end_run(explorer *x)
{
    x->running = 0;
    x->paused = 0;
    x->t_pause_begin = x->be->now(x->be); /* freeze the elapsed clock */
    x->cancel = 0;
}

void mbx_ex_sched_stop(explorer *x, const char *why)
{
    if (!x->running)
        return;
    if (x->sched) {
        /* Every point that is not final is made final as it stands and
         * autosaved (`stopped`), a signal's stop too: the autosave is the
         * explorer's only record, so a stop loses no point's passes
         * (docs/explorer.md). */
        mbx_sched_stop(x->sched);
        sync_points(x);
        (void)mbx_runner_take_finals(&x->runner);
        mbx_sched_stats_get(x->sched, &x->sst);
    }
    end_run(x);
    if (why)
        done_message(x, why);
}

/* Between batches of a pass: the pass is short (about a millisecond), so
 * keys wait for the next request, except on a terminal when a long pass
 * (large messages) would make them lag. */
static int on_progress(void *ud, const mbx_progress *p)
{
    explorer *x = ud;
    (void)p;
    mbx_ex_watch_guard(x); /* the watchdog ending the run: draw no more */
    if (!x->headless && wall() - x->last_draw >= STEP_TICK_S) {
        if (mbx_ex_tick(x, 0))
            return 1;
        if (x->paused && !x->cancel && !x->quit) {
            mbx_ex_watch_hold(x, 1); /* a pause is not the pass's time */
            while (x->paused && !x->cancel && !x->quit)
                mbx_ex_tick(x, 100);
            mbx_ex_watch_hold(x, 0);
        }
    }
    return x->cancel || x->quit;
}

void mbx_ex_rma_check(explorer *x)
{
    x->rma_why[0] = '\0';
    x->badcheck = 0;
    int rma = 0;
    for (size_t i = 0; i < x->npts && !rma; i++)
        rma = (mbx_bench_get(x->pts[i].bench_id)->flags & MBX_BENCH_RMA) != 0;
    if (!rma || x->be->fake)
        return;
    char mpi[MPI_MAX_LIBRARY_VERSION_STRING];
    mbx_rma_facts f;
    mbx_engine_rma_facts(&f, mpi, sizeof mpi);
    if (mbx_rma_judge(&f, x->rma_why, sizeof x->rma_why) == MBX_RMA_BROKEN)
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "%s", x->rma_why);
}

/* A pass whose data check failed: its point is an INVALID row (r), the
 * run goes on; the message line says why, the library's cause when known. */
static void check_failed(explorer *x, const mbx_ex_point *p)
{
    const mbx_bench *b = mbx_bench_get(p->bench_id);
    x->badcheck++;
    if (x->rma_why[0] && (b->flags & MBX_BENCH_RMA))
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "%s", x->rma_why);
    else
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "%s at %llu bytes on %d processes: %s: INVALID",
                       b->name, (unsigned long long)p->bytes, p->procs,
                       mbx_strerror(MBX_E_VALIDATE));
}

static void failed(explorer *x, const mbx_ex_point *p, int rc)
{
    const mbx_bench *b = mbx_bench_get(p->bench_id);
    if (rc == MBX_E_UNSUPPORTED && mbx_thrinfo_mpi_threads(b, p->param) > 1) {
        char why[sizeof x->msg];
        mbx_thrinfo_multiple_msg(b, mbx_thrinfo_mpi_threads(b, p->param), x->be->thread_asked,
                                 x->be->thread_granted, why, sizeof why);
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "%s", why);
    } else {
        char t[256];
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "%s at %llu bytes on %d processes failed: %s", b->name,
                       (unsigned long long)p->bytes, p->procs,
                       mbx_backend_strerror(x->be, rc, t, sizeof t));
    }
}

/* The runner's hooks (mbx/runner.h): the explorer's side of a request. */
static double hk_clock(void *ud)
{
    return mbx_ex_elapsed(ud);
}

/* A pass of a point: the point's spec (the pass's settings are the
 * runner's); the status line names the point. */
static int hk_spec(void *ud, const mbx_sched_req *q, mbx_point_spec *spec, const char **label)
{
    explorer *x = ud;
    sync_points(x);
    mbx_ex_point *p = point_of(x, q->point);
    if (!p) /* a point the run's table has no room for */
        return -1;
    x->cur = (size_t)(p - x->pts);
    if (mbx_bench_get(p->bench_id)->flags & MBX_BENCH_PAIR) { /* the scheduler's pair */
        p->pair_a = q->pair_a;
        p->pair_b = q->pair_b;
    }
    *spec = (mbx_point_spec){.bench_id = p->bench_id,
                             .bytes = p->bytes,
                             .procs = p->procs,
                             .param = p->param,
                             .pair_a = p->pair_a,
                             .pair_b = p->pair_b,
                             .root = p->root,
                             .rma_sync = p->rma_sync,
                             .validate = x->validate};
    *label = mbx_ex_point_label(p);
    return 0;
}

static void hk_arm(void *ud, const mbx_sched_req *q, const mbx_point_spec *spec)
{
    explorer *x = ud;
    (void)q;
    x->measuring = 1; /* the status line says the pass is running (on_progress redraws) */
    mbx_ex_watch_arm(x, &x->pts[x->cur], spec);
}

static int hk_disarm(void *ud, mbx_result *r)
{
    explorer *x = ud;
    int hung = mbx_ex_watch_disarm(x, &x->pts[x->cur], r);
    x->measuring = 0;
    return hung;
}

static int hk_check_failed(void *ud, const mbx_point_spec *spec)
{
    explorer *x = ud;
    (void)spec;
    check_failed(x, &x->pts[x->cur]);
    return 0;
}

static int hk_pass(void *ud, const mbx_sched_req *q, const mbx_point_spec *spec,
                   const mbx_result *r, double t_start, double t_end)
{
    explorer *x = ud;
    (void)q, (void)spec, (void)r, (void)t_start, (void)t_end;
    (void)point_refresh(x, &x->pts[x->cur]);
    return 0;
}

/* Nothing is due: the main loop reads keys meanwhile; the fake back end's
 * clock only moves when it measures, so there the idle time is counted. */
static void hk_idle(void *ud, double seconds)
{
    explorer *x = ud;
    if (x->be->fake)
        x->t_idle += seconds;
    x->step_wait = seconds;
}

static int stop_asked(void *ud)
{
    explorer *x = ud;
    return x->cancel || x->quit;
}

/* The pair scan's latencies, for the status line's pair. */
static void note_pair(explorer *x, const mbx_runner_note *n)
{
    free(x->lat);
    x->lat = malloc((size_t)x->be->nranks * sizeof *x->lat);
    if (x->lat)
        memcpy(x->lat, n->lat, (size_t)x->be->nranks * sizeof *x->lat);
    x->far = n->far;
    x->scanned = 1;
}

/* After a point of a threaded benchmark: a warning when some thread of
 * some rank could not be bound (the records stay in the engine and go into
 * the exported environment). */
static void note_unbound(explorer *x, const mbx_runner_note *n)
{
    snprintf(x->thr_unbound, sizeof x->thr_unbound, "%s", n->ranks);
    mbx_ex_set_msg(x, MBX_ROLE_WARNING,
                   "%s: threads could not be bound on rank%s %s; their times may move with the "
                   "scheduler (%s)",
                   mbx_bench_get(n->spec->bench_id)->name, strpbrk(n->ranks, ",-") ? "s" : "",
                   n->ranks, n->what);
}

/* A request that failed: the status line says why (the run then stops,
 * but for a thread-binding gather). */
static void note_failed(explorer *x, const mbx_runner_note *n)
{
    char t[256];
    const char *why = mbx_backend_strerror(x->be, n->rc, t, sizeof t);
    const char *name = n->spec ? mbx_bench_get(n->spec->bench_id)->name : "";
    if (n->where == MBX_RUNNER_AT_PAIR) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "pair: the latency scan failed: %s", why);
    } else if (n->where == MBX_RUNNER_AT_SETTLE) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "settle: the barrier traffic failed: %s", why);
    } else if (n->where == MBX_RUNNER_AT_PROBE) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "monitor: the probe failed: %s", why);
    } else if (n->where == MBX_RUNNER_AT_BIND) {
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "%s: the thread binding could not be gathered: %s",
                       name, mbx_strerror(n->rc));
    } else if (n->where == MBX_RUNNER_AT_PASS) {
        x->pts[x->cur].state = EX_DROPPED;
        failed(x, &x->pts[x->cur], n->rc);
    } else if (n->where == MBX_RUNNER_AT_REPORT && n->spec) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "%s: the scheduler refused a pass: %s", name,
                       mbx_strerror(n->rc));
    } else {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "the scheduler failed: %s", mbx_strerror(n->rc));
    }
}

static int hk_note(void *ud, const mbx_runner_note *n)
{
    explorer *x = ud;
    if (n->kind == MBX_RUNNER_PAIR)
        note_pair(x, n);
    else if (n->kind == MBX_RUNNER_UNBOUND)
        note_unbound(x, n);
    else if (n->kind == MBX_RUNNER_FAILED)
        note_failed(x, n);
    return 0;
}

void mbx_ex_runner_init(explorer *x)
{
    static const mbx_runner_hooks hooks = {.clock = hk_clock,
                                           .spec = hk_spec,
                                           .progress = on_progress,
                                           .arm = hk_arm,
                                           .disarm = hk_disarm,
                                           .check_failed = hk_check_failed,
                                           .pass = hk_pass,
                                           .row = hk_row,
                                           .idle = hk_idle,
                                           .note = hk_note,
                                           .stop_asked = stop_asked};
    mbx_runner_hooks h = hooks;
    h.ud = x;
    mbx_runner_init(&x->runner, x->be, x->sched, &x->mon, EX_PROBE_ROUNDS, &h);
    if (!x->prof_tried) {
        x->prof_tried = 1;
        (void)mbx_profile_use_open(&x->prof, NULL, x->be->fake, (long long)time(NULL));
        /* Used, or why not, or that the intervals are this launch's
         * and how to get a profile. */
        mbx_ex_set_msg(x, x->prof.loaded ? MBX_ROLE_OK : MBX_ROLE_WARNING, "%s", x->prof.note);
    }
    x->runner.profile = x->prof.loaded ? &x->prof.p : NULL;
}

double mbx_ex_sched_step(explorer *x)
{
    if (!x->running || !x->sched)
        return 0;
    x->step_wait = 0;
    int k = mbx_runner_step(&x->runner);
    sync_points(x);
    if (k == MBX_SCHED_WAIT)
        return x->step_wait;
    if (k < 0 && k != MBX_E_ABORTED) { /* the note said why */
        mbx_ex_sched_stop(x, NULL);
        return 0;
    }
    mbx_sched_stats_get(x->sched, &x->sst);
    if (k == MBX_SCHED_DONE) {
        end_run(x);
        done_message(x, "done");
    }
    return 0;
}
