/* `mpibex run`: the measuring. Every curve through the scheduler, its
 * requests carried out by the runner (mbx/runner.h); batch's hooks print,
 * write the journal and a point's row as it becomes final, and sleep while
 * nothing is due; then the reports after the last point. */
#include "run_int.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mbx/thrinfo.h"
#include "sig.h"
#include "tprint.h"
#include "watchdog.h"

/* The run's clock in seconds: MPI_Wtime for the engine; for the fake its
 * simulated time, plus the time the run idled (which the fake does not
 * see), so passes are paced and spans reached without sleeping. */
double mbx_run_clock(const run_state *st)
{
    return st->be->now(st->be) + st->t_idle;
}

/* Test hook: the probe is taken, but reads 1 us for 0.5 s from the first
 * probe and 3 us after, so the passes of every point straddle two levels
 * (tests/mpi/repro_tests.cmake). Fixed values, not the measured one
 * scaled: on a loaded machine the real probe moves by 3x on its own.
 * Counted from the first probe, not from the start: a slow start
 * (settle, pre-faulting) would otherwise put every probe after it. */
static void probe_read(void *ud, double t, double *lat)
{
    run_state *st = ud;
    const char *hook = getenv("MBX_TEST_PROBE_SHIFT");
    if (hook && strcmp(hook, "1") == 0) {
        if (st->hook_t0 < 0)
            st->hook_t0 = t;
        *lat = t - st->hook_t0 >= 0.5 ? 3e-6 : 1e-6;
    }
}

/* A point's row is in: print it, write it (row and, --raw, the
 * observations of the scheduler's point `point`), count it. Returns 0 or
 * an exit code. */
static int finish_point(run_state *st, const pointref *p, mbx_result *r, size_t point)
{
    mbx_point_spec spec;
    char key[MBX_KEY_MAX];
    int rc;
    mbx_run_spec_of(st, p, &spec);
    mbx_run_key_of(&spec, p->s->meas->label, key);
    r->label = p->s->meas->label;
    r->refined = p->refined;
    r->stop = p->s->meas->stop; /* the target; its passes each took a fixed count */
    r->seq = ++st->seq;
    if (mbx_run_keep_row(st, r) != 0) {
        fprintf(stderr, "mpibex: out of memory\n");
        return 1;
    }
    mbx_run_window_note(st, r, r->benchmark);
    if ((rc = mbx_journal_begin(st->journal, key, p->refined)) < 0)
        return mbx_run_write_failure(st, st->journal_path, rc);
    if ((rc = mbx_run_write_result(st, r, point)) != 0)
        return rc;
    st->counts[r->status]++;
    st->done++;
    /* The row is in: it counts as finished even if "done" cannot follow. */
    if ((rc = mbx_journal_done(st->journal, key)) < 0)
        return mbx_run_write_failure(st, st->journal_path, rc);
    st->refined += (size_t)p->refined;
    double y = r->status != MBX_POINT_UNRELIABLE && r->status != MBX_POINT_INVALID &&
                       r->status != MBX_POINT_HUNG
                   ? r->s.median
                   : NAN;
    mbx_run_note_accurate(st, p, y, r->plain);
    mbx_run_progress_line(st, 0);
    return 0;
}

/* The scheduler's options from the command line and the run. */
static void sched_opts_of(run_state *st, mbx_sched_opts *o)
{
    mbx_sched_opts_init(o);
    if (st->opt.passes > 0)
        o->passes.min_passes = (size_t)st->opt.passes;
    if (st->opt.span >= 0)
        o->passes.min_span = st->opt.span;
    if (st->opt.pass_floor > 0)
        o->pass_floor = st->opt.pass_floor;
    if (st->opt.max_passes > 0)
        o->max_passes = (size_t)st->opt.max_passes;
    if (o->max_passes < o->passes.min_passes)
        o->max_passes = o->passes.min_passes;
    o->time_limit = st->opt.time_limit;
    o->probe_every = st->mon.peer ? MBX_SCHED_PROBE_EVERY_S : -1.0;
    o->resolution = st->timer.resolution;
    o->seed = st->seed;
    o->order_plan = st->opt.order_plan;
    o->nranks = st->be->nranks;
    o->settle = st->opt.settle;
    o->host = st->hist.ref;
    o->host_kept = st->hist.on;
    /* --raw writes every observation of a point after its row: they go
     * to disk pass by pass, not into memory (docs/hardening.md, "Scale"). */
    if (st->spool) {
        o->obs_sink = mbx_run_raw_sink;
        o->obs_sink_ud = st;
    }
}

/* The runner's hooks (mbx/runner.h): batch's side of a request. */
static double hk_clock(void *ud)
{
    run_state *st = ud;
    return mbx_run_clock(st) - st->t0;
}

static int hk_spec(void *ud, const mbx_sched_req *rq, mbx_point_spec *spec, const char **label)
{
    run_state *st = ud;
    pointref p = {rq->curve_ud, rq->x, rq->refined};
    mbx_run_spec_of(st, &p, spec);
    st->spec = spec;
    *label = NULL;                  /* the row gets it when the point is final */
    spec->label = p.s->meas->label; /* the runner sets it again: for test hooks */
    return 0;
}

static void hk_arm(void *ud, const mbx_sched_req *rq, const mbx_point_spec *spec)
{
    pointref p = {rq->curve_ud, rq->x, rq->refined};
    mbx_run_watch_arm(ud, &p, spec);
}

static int hk_disarm(void *ud, mbx_result *r)
{
    run_state *st = ud;
    int hung = mbx_run_watch_disarm(st, r);
    if (st->tty && !st->opt.quiet)
        fprintf(stderr, "\r\033[K");
    return hung;
}

static int hk_check_failed(void *ud, const mbx_point_spec *spec)
{
    run_state *st = ud;
    return (st->stop_code = mbx_run_check_failed(st, spec));
}

/* The pass, as the scheduler keeps it, for --resume after a crash: the
 * point's row comes only when it is final. UNRELIABLE and INVALID passes
 * make it final at once (their row follows). */
static int hk_pass(void *ud, const mbx_sched_req *rq, const mbx_point_spec *spec,
                   const mbx_result *r, double t_start, double t_end)
{
    run_state *st = ud;
    const series *s = rq->curve_ud;
    if (rq->pilot || !(r->s.median > 0) || !isfinite(r->s.median) ||
        r->status == MBX_POINT_UNRELIABLE || r->status == MBX_POINT_INVALID)
        return 0;
    char key[MBX_KEY_MAX];
    mbx_run_key_of(spec, s->meas->label, key);
    mbx_pass ps = {.median = r->s.median,
                   .n = r->s.n ? r->s.n : 1,
                   .t_start = t_start + st->jt_offset,
                   .t_end = t_end + st->jt_offset};
    int rc = mbx_journal_pass(st->journal, key, rq->refined, &ps);
    return rc < 0 ? (st->stop_code = mbx_run_write_failure(st, st->journal_path, rc)) : 0;
}

/* A point the scheduler finished: its row. */
static int hk_row(void *ud, size_t idx)
{
    run_state *st = ud;
    mbx_sched_point_info in;
    mbx_result r;
    if (mbx_sched_point_info_get(st->sched, idx, &in) < 0 || mbx_runner_result(st->rn, idx, &r) < 0)
        return 0; /* a pass that failed: reported when it did */
    /* Curves were added in series order: a curve's index is its series'. */
    pointref p = {&st->ser[in.curve], in.x, in.refined};
    return (st->stop_code = finish_point(st, &p, &r, idx));
}

/* Idle between passes: the scheduler paces a point's passes over the
 * run, and a short plan has nothing else due. The fake's clock is moved
 * on instead (as the explorer does): nothing would change while asleep. */
static void hk_idle(void *ud, double seconds)
{
    run_state *st = ud;
    if (st->be->fake) {
        st->t_idle += seconds;
        return;
    }
    mbx_sig_sleep(seconds);
}

/* The first fraction of a second of a job is not like the rest: on these
 * machines (MPICH 4.0.2, UCX) ping-pong points measured in it read 5-20
 * times slower, reproducibly, and an earlier point of barrier traffic makes
 * that go away. So the scheduler asks for --settle seconds of untimed
 * barriers on every rank before its first probe (MBX_SCHED_SETTLE). */
static int hk_stop_asked(void *ud)
{
    (void)ud;
    return mbx_stop_signal != 0;
}

/* The scheduler's pair: rank 0 and the farthest rank, into the journal. */
static int note_pair(run_state *st, const mbx_runner_note *n)
{
    int nranks = st->be->nranks, rc;
    st->pair_a = 0;
    st->pair_b = n->far;
    st->pair_known = 1;
    double lo = INFINITY;
    for (int i = 1; i < nranks; i++)
        lo = fmin(lo, n->lat[i]);
    printf("# ping-pong pair: ranks 0 and %d, the largest latency from rank 0 (%.3f us; the "
           "smallest is %.3f us; 1-byte scan of %d ranks)\n",
           n->far, n->lat[n->far] * 1e6, lo * 1e6, nranks - 1);
    fflush(stdout);
    if (st->journal && (rc = mbx_journal_pair(st->journal, st->pair_a, st->pair_b)) < 0)
        return (st->stop_code = mbx_run_write_failure(st, st->journal_path, rc));
    return 0;
}

/* One warning the first time some thread could not be bound. */
static void note_unbound(run_state *st, const mbx_runner_note *n)
{
    const mbx_bench *b = mbx_bench_get(n->spec->bench_id);
    if (st->thr_warned)
        return;
    st->thr_warned = 1;
    if (st->tty && !st->opt.quiet)
        fprintf(stderr, "\r\033[K");
    fprintf(stderr,
            "mpibex: warning: %s %s=%lld: threads could not be bound on rank%s %s (%s); "
            "their times may move with the scheduler%s%s\n",
            b->name, b->param_name ? b->param_name : "param",
            (long long)(n->spec->param ? n->spec->param : b->param_default),
            strpbrk(n->ranks, ",-") ? "s" : "", n->ranks, n->what,
            st->env_path ? "; see threads_bind_* in " : "", st->env_path ? st->env_path : "");
}

/* A request that failed: one line; the run ends with exit code 1 (a
 * failed thread-binding gather is reported and the run goes on). */
static void note_failed(run_state *st, const mbx_runner_note *n)
{
    char t[MSG_LEN];
    const char *why = mbx_backend_strerror(st->be, n->rc, t, sizeof t);
    const mbx_point_spec *sp = n->spec;
    const char *name = sp ? mbx_bench_get(sp->bench_id)->name : "";
    int64_t mpi_threads = sp ? mbx_thrinfo_mpi_threads(mbx_bench_get(sp->bench_id), sp->param) : 0;
    if (n->where == MBX_RUNNER_AT_PAIR) {
        fprintf(stderr, "mpibex: the ping-pong pair scan failed\n");
    } else if (n->where == MBX_RUNNER_AT_SETTLE) {
        fprintf(stderr, "mpibex: --settle: barrier traffic failed: %s\n", why);
    } else if (n->where == MBX_RUNNER_AT_PROBE && n->rc != MBX_E_NOMEM) {
        fprintf(stderr, "mpibex: the monitor's probe failed: %s\n", why);
    } else if (n->where == MBX_RUNNER_AT_BIND) {
        fprintf(stderr, "mpibex: gathering the thread binding after %s failed: %s\n", name, why);
    } else if (n->where == MBX_RUNNER_AT_PASS && n->rc == MBX_E_UNSUPPORTED && mpi_threads > 1) {
        mbx_thrinfo_multiple_msg(mbx_bench_get(sp->bench_id), mpi_threads, st->be->thread_asked,
                                 st->be->thread_granted, t, sizeof t);
        mbx_run_fail(t);
    } else if (n->where == MBX_RUNNER_AT_PASS) {
        fprintf(stderr, "mpibex: %s on %d procs at %llu bytes failed: %s\n", name, sp->procs,
                (unsigned long long)sp->bytes, why);
    } else if (n->where == MBX_RUNNER_AT_REPORT && mbx_run_raw_failed(st)) {
        return; /* --raw's spool could not be written: said by the call */
    } else if (n->where == MBX_RUNNER_AT_REPORT && sp) {
        fprintf(stderr, "mpibex: %s on %d procs at %llu bytes: the scheduler refused a pass: %s\n",
                name, sp->procs, (unsigned long long)sp->bytes, mbx_strerror(n->rc));
    } else if (n->where == MBX_RUNNER_AT_REPORT && n->rc != MBX_E_NOMEM) {
        fprintf(stderr, "mpibex: the scheduler refused the settling\n");
    } else {
        fprintf(stderr, "mpibex: out of memory\n");
    }
}

static int hk_note(void *ud, const mbx_runner_note *n)
{
    run_state *st = ud;
    switch (n->kind) {
    case MBX_RUNNER_PAIR: return note_pair(st, n);
    case MBX_RUNNER_SETTLED:
        printf("# settled: %.2f s of barrier traffic on all %d ranks before the first point "
               "(--settle)\n",
               n->seconds, st->be->nranks);
        fflush(stdout);
        return 0;
    case MBX_RUNNER_UNBOUND: note_unbound(st, n); return 0;
    case MBX_RUNNER_FAILED: note_failed(st, n); return 0;
    }
    return 0;
}

/* Until the scheduler is done, a stop signal or a failure: one request a
 * step. Returns 0 or an exit code. */
static int run_steps(run_state *st, mbx_runner *rn)
{
    for (;;) {
        if (mbx_stop_signal) {
            /* The unfinished points' passes are in the journal for
             * --resume; without one (-o -, /dev/null) they are dropped,
             * not summed up: that sorts each one's observations, a second
             * of a loaded machine (docs/hardening.md, "Signals at rank 0"). */
            if (mbx_runner_take_finals(rn) != 0)
                return st->stop_code;
            return mbx_run_interrupted(st);
        }
        int k = mbx_runner_step(rn);
        if (k == MBX_SCHED_DONE)
            return 0;
        if (k == MBX_E_ABORTED)
            continue; /* a signal: the top of the loop reports it */
        if (k == MBX_RUNNER_HOOK_STOP)
            return st->stop_code;
        if (k < 0)
            return 1;
    }
}

/* Every curve through the runner: passes of every point in shuffled
 * rounds, refinement between rounds, probes between passes; rows as
 * points become final. */
static int run_points(run_state *st)
{
    mbx_sched_opts so;
    sched_opts_of(st, &so);
    mbx_sched *sch = NULL;
    curve_state *cs = calloc(st->nser ? st->nser : 1, sizeof *cs);
    int code = !cs || mbx_sched_create(&so, &sch) < 0;
    for (size_t i = 0; !code && i < st->nser; i++)
        code = mbx_run_sched_curve(st, sch, &so, i, &cs[i]);
    if (code)
        fprintf(stderr, "mpibex: out of memory\n");
    if (!code && mbx_run_watch_start(st) < 0) {
        fprintf(stderr, "mpibex: out of memory\n");
        code = 1;
    }
    st->sched = sch;
    st->sched_min_passes = so.passes.min_passes;
    st->sched_span = so.passes.min_span;
    st->sched_floor = so.pass_floor;
    st->sched_max = so.max_passes;
    static const mbx_runner_hooks hooks = {
        .clock = hk_clock,
        .spec = hk_spec,
        .progress = mbx_run_watch_progress,
        .arm = hk_arm,
        .disarm = hk_disarm,
        .check_failed = hk_check_failed,
        .pass = hk_pass,
        .row = hk_row,
        .idle = hk_idle,
        .note = hk_note,
        .stop_asked = hk_stop_asked,
        .probe_read = probe_read,
    };
    mbx_runner rn;
    mbx_runner_hooks h = hooks;
    h.ud = st;
    mbx_runner_init(&rn, st->be, sch, &st->mon, PROBE_ROUNDS, &h);
    rn.profile = st->prof.loaded ? &st->prof.p : NULL;
    st->rn = &rn;
    if (!code)
        code = run_steps(st, &rn);
    st->thr = rn.thr;
    st->rn = NULL;
    for (size_t i = 0; !code && i < st->nser; i++) {
        size_t pts, refined;
        double worst;
        mbx_sched_curve_refine(sch, i, &pts, &refined, &worst);
        mbx_run_curve_summary(&st->ser[i], pts, refined + cs[i].spent, worst);
    }
    if (!code)
        mbx_run_pass_summary(st, sch);
    mbx_run_watch_free(st);
    /* The table of the points, sorted, however the run ended. */
    mbx_run_print_table(st);
    if (mbx_history_use_record(&st->hist, sch, (long long)time(NULL)) < 0)
        mbx_tprintf(stdout, "# %s\n", st->hist.note);
    st->sched = NULL;
    mbx_sched_free(sch);
    free(cs);
    return code;
}

int mbx_run_measure_all(run_state *st)
{
    st->t0 = mbx_run_clock(st);
    st->hook_t0 = -1.0;
    st->rss0_kib = mbx_run_proc_status_kib("VmRSS");
    if ((st->res.n || st->res.nopen) && st->carry)
        printf("# resumed: %zu finished points kept; %zu passes of %zu unfinished points "
               "carried over\n",
               st->res.n, st->res.npass, st->res.nopen);
    else if (st->res.n || st->res.nopen)
        printf("# resumed: %zu finished points kept; %zu passes of %zu unfinished points "
               "measured again (%s has no passes column to count them in)\n",
               st->res.n, st->res.npass, st->res.nopen, st->opt.output);
    if (st->opt.resume && st->res.ncols && st->res.ncols < MBX_RESULT_NCOLS)
        printf("# resumed: %s has the %zu columns of an earlier mpibex; new rows get those "
               "only (%s and later are left out)\n",
               st->opt.output, st->res.ncols, mbx_result_columns[st->res.ncols]);
    for (size_t i = 0; i < st->nser; i++)
        if (!(mbx_bench_get(st->ser[i].bench_id)->flags & MBX_BENCH_OVERLAP) &&
            mbx_bench_get(st->ser[i].bench_id)->companion) {
            printf("# accurate benchmarks' rows end with plain: the median of their plain "
                   "benchmark at the same point, measured right before\n");
            break;
        }
    for (size_t i = 0; i < st->nser; i++)
        if (mbx_bench_get(st->ser[i].bench_id)->flags & MBX_BENCH_OVERLAP) {
            printf("# overlap benchmarks' rows end with pure (the coll.i* alone at the same "
                   "point, measured right before), compute (the inserted computation alone) "
                   "and overlap = 100 (1 - (median - compute) / pure), clamped to 0..100\n");
            break;
        }
    int code = run_points(st);
    if (code)
        return code;
    mbx_run_accurate_summary(st);
    if (mbx_run_monitor_report(st) != 0)
        return 1;
    mbx_run_memory_report(st);
    mbx_run_warmup_report(st);
    mbx_run_window_report(st);
    if (!st->opt.quiet) {
        mbx_run_progress_line(st, 1);
        fprintf(stderr,
                "done: %zu points measured (%zu refined; %zu settled, %zu unsettled, %zu "
                "unreliable",
                st->done, st->refined, st->counts[MBX_POINT_SETTLED],
                st->counts[MBX_POINT_UNSETTLED], st->counts[MBX_POINT_UNRELIABLE]);
        if (st->counts[MBX_POINT_FIXED])
            fprintf(stderr, ", %zu fixed", st->counts[MBX_POINT_FIXED]);
        if (st->counts[MBX_POINT_SHIFTED])
            fprintf(stderr, ", %zu shifted", st->counts[MBX_POINT_SHIFTED]);
        if (st->counts[MBX_POINT_INVALID])
            fprintf(stderr, ", %zu invalid", st->counts[MBX_POINT_INVALID]);
        if (st->counts[MBX_POINT_HUNG])
            fprintf(stderr, ", %zu hung", st->counts[MBX_POINT_HUNG]);
        fprintf(stderr, ") in %.1f s", mbx_run_clock(st) - st->t0);
        if (st->skipped)
            fprintf(stderr, "; %zu finished points kept from the mbx_run_interrupted run",
                    st->skipped);
        if (st->opt.output)
            fprintf(stderr, "; results in %s, environment in %s%s%s", st->opt.output, st->env_path,
                    st->obs_path ? ", observations in " : "", st->obs_path ? st->obs_path : "");
        fprintf(stderr, "\n");
    }
    /* A run with HUNG points went on, but a script must not take it for a
     * whole one; its journal stays for --resume --retry-hung. */
    if (st->counts[MBX_POINT_HUNG]) {
        fprintf(stderr,
                "mpibex: %zu point%s HUNG (the watchdog; status_reason says how long); "
                "--resume --retry-hung measures %s again\n",
                st->counts[MBX_POINT_HUNG], st->counts[MBX_POINT_HUNG] == 1 ? "" : "s",
                st->counts[MBX_POINT_HUNG] == 1 ? "it" : "them");
        return MBX_WATCHDOG_EXIT;
    }
    return 0;
}
