/* The explorer's run on the scheduler (mbx/sched.h): the
 * scheduler decides what is measured next, in passes interleaved across
 * every selected curve; the explorer carries each request out with its back
 * end, shows every point as its passes come in and saves a point once it
 * is final. The explorer keeps no measuring rule of its own: order, pass
 * size, warm-up, refinement, the monitor's timing and the stop decision
 * are the scheduler's. Setting the scheduler up is ex_schedsetup.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ex_watch.h"
#include "explorer.h"
#include "mbx/bench.h"
#include "mbx/rmacheck.h"
#include "mbx/thrinfo.h"
#include "sig.h"

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
    if (mbx_sched_result(x->sched, p->sp, &r) < 0)
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

/* After a point of a threaded benchmark: a warning when some thread of
 * some rank could not be bound (the records stay in the engine and go into
 * the exported environment). */
static void check_binding(explorer *x, const mbx_ex_point *p)
{
    const mbx_bench *b = mbx_bench_get(p->bench_id);
    const mbx_thread_bind *tb = NULL;
    if (!mbx_thrinfo_binds(b) || !x->be->thread_binding)
        return;
    int rc = x->be->thread_binding(x->be, &tb);
    if (rc < 0) {
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "%s: the thread binding could not be gathered: %s",
                       b->name, mbx_strerror(rc));
        return;
    }
    char ranks[sizeof x->thr_unbound];
    const char *what = "";
    if (mbx_thrinfo_binding_news(tb, x->be->nranks, &x->thr_seen, ranks, sizeof ranks, &what) > 0) {
        snprintf(x->thr_unbound, sizeof x->thr_unbound, "%s", ranks);
        mbx_ex_set_msg(x, MBX_ROLE_WARNING,
                       "%s: threads could not be bound on rank%s %s; their times may move with the "
                       "scheduler (%s)",
                       b->name, strpbrk(ranks, ",-") ? "s" : "", ranks, what);
    }
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

static void take_finals(explorer *x)
{
    size_t idx[64], n;
    do {
        n = mbx_sched_take_final(x->sched, idx, sizeof idx / sizeof *idx);
        for (size_t i = 0; i < n; i++) {
            mbx_ex_point *p = point_of(x, idx[i]);
            if (p)
                finalize(x, p);
        }
    } while (n == sizeof idx / sizeof *idx);
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
        /* A signal drops the points that are not final: summing up their
         * observations would hold the stop up for a second on a loaded
         * machine (docs/explorer.md). Otherwise they are kept as they stand. */
        if (!mbx_stop_signal)
            mbx_sched_stop(x->sched);
        sync_points(x);
        take_finals(x);
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

static void do_probe(explorer *x)
{
    double lat = NAN;
    int rc = x->mon.peer && x->be->probe ? x->be->probe(x->be, x->mon.peer, EX_PROBE_ROUNDS, &lat)
                                         : MBX_E_UNSUPPORTED;
    double t = mbx_ex_elapsed(x);
    if (rc < 0 || !(lat > 0) || !isfinite(lat))
        lat = NAN; /* the scheduler drops it */
    else if (mbx_monitor_add(&x->mon, t, lat) < 0)
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "monitor: out of memory for the probe series");
    if (mbx_sched_probe_done(x->sched, t, lat) < 0)
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "monitor: the scheduler refused a probe");
}

/* The scheduler's MBX_SCHED_PAIR: the 1-byte latency scan from rank 0;
 * the run's ping-pongs then exchange between rank 0 and the farthest rank
 * (the status line names it). */
static void do_pair_scan(explorer *x)
{
    free(x->lat);
    x->lat = calloc((size_t)x->be->nranks, sizeof *x->lat);
    int far = x->be->nranks - 1;
    int rc = !x->lat            ? MBX_E_NOMEM
             : x->be->pair_scan ? x->be->pair_scan(x->be, x->lat, &far)
                                : MBX_E_UNSUPPORTED;
    if (rc >= 0)
        rc = mbx_sched_pair_done(x->sched, far);
    if (rc < 0) {
        char t[256];
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "pair: the latency scan failed: %s",
                       mbx_backend_strerror(x->be, rc, t, sizeof t));
        mbx_ex_sched_stop(x, NULL);
        return;
    }
    x->far = far;
    x->scanned = 1;
}

static int stop_asked(void *ud)
{
    explorer *x = ud;
    return x->cancel || x->quit;
}

/* The scheduler's MBX_SCHED_SETTLE: untimed barriers on every rank before
 * the run's first probe and point (--settle). */
static void do_settle(explorer *x, double secs)
{
    double spent = 0;
    int rc = mbx_backend_settle(x->be, secs, stop_asked, x, &spent);
    if (rc >= 0)
        rc = mbx_sched_settle_done(x->sched, spent);
    if (rc < 0) {
        char t[256];
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "settle: the barrier traffic failed: %s",
                       mbx_backend_strerror(x->be, rc, t, sizeof t));
        mbx_ex_sched_stop(x, NULL);
    }
}

/* A page offset for the buffers of a pass: a different one for each pass
 * of a point (and for neighbouring points), so a launch's buffer placement
 * is inside the between-pass spread rather than fixed. */
static void do_pass(explorer *x, const mbx_sched_req *q)
{
    mbx_ex_point *p = point_of(x, q->point);
    if (!p) { /* a point the run's table has no room for */
        mbx_sched_pass_failed(x->sched);
        return;
    }
    x->cur = (size_t)(p - x->pts);
    if (mbx_bench_get(p->bench_id)->flags & MBX_BENCH_PAIR) { /* the scheduler's pair */
        p->pair_a = q->pair_a;
        p->pair_b = q->pair_b;
    }
    mbx_point_spec spec = {.bench_id = p->bench_id,
                           .bytes = p->bytes,
                           .procs = p->procs,
                           .stop = {.kind = MBX_STOP_FIXED, .eps = 0, .fixed = q->nobs},
                           .nmin = q->nobs,
                           .nmax = q->nobs,
                           .param = p->param,
                           .pair_a = p->pair_a,
                           .pair_b = p->pair_b,
                           .root = p->root,
                           .rma_sync = p->rma_sync,
                           .validate = x->validate,
                           /* the first pass (and the pilot) warms the point up fully */
                           .warm_light = !q->warm,
                           /* where the buffers land is re-drawn pass by pass */
                           .buf_offset = q->buf_offset,
                           .batch_first = q->batch_first};
    mbx_result r;
    const double *obs = NULL;
    size_t nobs = 0;
    double t0 = mbx_ex_elapsed(x);
    x->measuring = 1; /* the status line says the pass is running (on_progress redraws) */
    mbx_ex_watch_arm(x, p, &spec);
    int rc = x->be->measure(x->be, &spec, on_progress, x, &r, &obs, &nobs);
    int hung = mbx_ex_watch_disarm(x, p, &r);
    x->measuring = 0;
    double t1 = mbx_ex_elapsed(x);
    if (hung && (rc == MBX_OK || rc == MBX_E_VALIDATE)) {
        rc = MBX_OK; /* r is the point's HUNG row: the run goes on */
        obs = NULL;
        nobs = 0;
    }
    if (rc == MBX_E_ABORTED)
        return;                 /* cancel or quit: the loop stops the run */
    if (rc == MBX_E_VALIDATE) { /* r is the point's INVALID row: the run goes on */
        check_failed(x, p);
        rc = MBX_OK;
    }
    if (rc < 0) {
        mbx_sched_pass_failed(x->sched);
        p->state = EX_DROPPED;
        failed(x, p, rc);
        mbx_ex_sched_stop(x, NULL);
        return;
    }
    r.label = mbx_ex_point_label(p);
    r.refined = q->refined;
    mbx_sched_pass_report rep = {.r = &r, .obs = obs, .nobs = nobs, .t_start = t0, .t_end = t1};
    rc = mbx_sched_pass_done(x->sched, &rep);
    if (rc < 0) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "%s: the scheduler refused a pass: %s",
                       mbx_bench_get(p->bench_id)->name, mbx_strerror(rc));
        mbx_ex_sched_stop(x, NULL);
        return;
    }
    if (q->pass == 0 && !q->pilot)
        check_binding(x, p);
    (void)point_refresh(x, p);
}

double mbx_ex_sched_step(explorer *x)
{
    if (!x->running || !x->sched)
        return 0;
    mbx_sched_req q;
    int k = mbx_sched_next(x->sched, mbx_ex_elapsed(x), &q);
    sync_points(x);
    if (k < 0) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "the scheduler failed: %s", mbx_strerror(k));
        mbx_ex_sched_stop(x, NULL);
        return 0;
    }
    if (k == MBX_SCHED_WAIT) {
        double w = q.wait > 0 ? q.wait : 1e-3;
        if (x->be->fake)
            x->t_idle += w;
        return w;
    }
    if (k == MBX_SCHED_PAIR)
        do_pair_scan(x);
    else if (k == MBX_SCHED_SETTLE)
        do_settle(x, q.settle);
    else if (k == MBX_SCHED_PROBE)
        do_probe(x);
    else if (k == MBX_SCHED_PASS)
        do_pass(x, &q);
    if (!x->running || !x->sched)
        return 0;
    sync_points(x);
    take_finals(x);
    mbx_sched_stats_get(x->sched, &x->sst);
    if (k == MBX_SCHED_DONE) {
        end_run(x);
        done_message(x, "done");
    }
    return 0;
}
