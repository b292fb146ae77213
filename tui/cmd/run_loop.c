/* `mpibex run`: the measuring. Every curve through the scheduler: passes,
 * probes, the pair scan and settling as it asks for them, a point's row
 * as it becomes final, and the reports after the last point. */
#include "run_int.h"

#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/thrinfo.h"
#include "sig.h"
#include "watchdog.h"

/* The run's clock in seconds: MPI_Wtime for the engine; for the fake its
 * simulated time, plus the time the run idled (which the fake does not
 * see), so passes are paced and spans reached without sleeping. */
double mbx_run_clock(const run_state *st)
{
    return st->be->now(st->be) + st->t_idle;
}

/* The monitor's probe: rank 0 and the last rank. */
static int probe_cb(void *ud, double *lat, double *t)
{
    run_state *st = ud;
    int rc = st->be->probe(st->be, st->mon.peer, PROBE_ROUNDS, lat);
    if (rc < 0)
        return rc;
    /* Test hook: the probe is taken, but reads 1 us for 0.5 s from the
     * first probe and 3 us after, so the passes of every point straddle two
     * levels (tests/mpi/repro_tests.cmake). Fixed values, not the measured
     * one scaled: on a loaded machine the real probe moves by 3x on its
     * own. Counted from the first probe, not from the start: a slow start
     * (settle, pre-faulting) would otherwise put every probe after it. */
    *t = mbx_run_clock(st) - st->t0;
    const char *hook = getenv("MBX_TEST_PROBE_SHIFT");
    if (hook && strcmp(hook, "1") == 0) {
        if (st->hook_t0 < 0)
            st->hook_t0 = *t;
        *lat = *t - st->hook_t0 >= 0.5 ? 3e-6 : 1e-6;
    }
    return MBX_OK;
}

/* After a point of a threaded benchmark: every rank's thread binding, and
 * one warning the first time some thread could not be bound. */
static int check_binding(run_state *st, const mbx_result *r)
{
    if (!st->be->thread_binding)
        return 0; /* the fake binds no threads */
    int rc = st->be->thread_binding(st->be, &st->thr);
    if (rc < 0) {
        st->thr = NULL;
        char t[MSG_LEN];
        fprintf(stderr, "mpibex: gathering the thread binding after %s failed: %s\n", r->benchmark,
                mbx_backend_strerror(st->be, rc, t, sizeof t));
        return 1;
    }
    char ranks[128];
    const char *what = "";
    if (mbx_thrinfo_binding_news(st->thr, st->be->nranks, &st->thr_seen, ranks, sizeof ranks,
                                 &what) > 0 &&
        !st->thr_warned) {
        st->thr_warned = 1;
        if (st->tty && !st->opt.quiet)
            fprintf(stderr, "\r\033[K");
        fprintf(stderr,
                "mpibex: warning: %s %s=%lld: threads could not be bound on rank%s %s (%s); "
                "their times may move with the scheduler%s%s\n",
                r->benchmark, r->param_name ? r->param_name : "param", (long long)r->param,
                strpbrk(ranks, ",-") ? "s" : "", ranks, what,
                st->env_path ? "; see threads_bind_* in " : "", st->env_path ? st->env_path : "");
    }
    return 0;
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
    if (mbx_thrinfo_binds(mbx_bench_get(spec.bench_id)) && check_binding(st, r) != 0)
        return 1;
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
    /* --raw writes every observation of a point after its row: they go
     * to disk pass by pass, not into memory (docs/hardening.md, "Scale"). */
    if (st->spool) {
        o->obs_sink = mbx_run_raw_sink;
        o->obs_sink_ud = st;
    }
}

/* A pass of a point, as the scheduler asked: a fixed count of
 * observations, a full warm-up only for the point's first measurement. */
static int run_pass(run_state *st, mbx_sched *sch, const mbx_sched_req *rq)
{
    const series *s = rq->curve_ud;
    pointref p = {s, rq->x, rq->refined};
    mbx_point_spec spec;
    mbx_run_spec_of(st, &p, &spec);
    spec.stop = (mbx_stop_rule){.kind = MBX_STOP_FIXED, .fixed = rq->nobs};
    spec.nmin = spec.nmax = rq->nobs;
    spec.warm_light = !rq->warm;
    spec.batch_first = rq->batch_first;
    spec.buf_offset = rq->buf_offset;
    if (mbx_bench_get(spec.bench_id)->flags & MBX_BENCH_PAIR) { /* the scheduler's pair */
        spec.pair_a = rq->pair_a;
        spec.pair_b = rq->pair_b;
    }
    mbx_result r;
    const double *obs = NULL;
    size_t nobs = 0;
    const char *name = mbx_bench_get(spec.bench_id)->name;
    st->spec = &spec;
    double t0 = mbx_run_clock(st) - st->t0;
    mbx_run_watch_arm(st, &p, &spec);
    int rc = st->be->measure(st->be, &spec, mbx_run_watch_progress, st, &r, &obs, &nobs);
    if (mbx_run_watch_disarm(st, &r) && rc == MBX_OK)
        nobs = 0; /* HUNG: its observations measured the hang */
    double t1 = mbx_run_clock(st) - st->t0;
    if (st->tty && !st->opt.quiet)
        fprintf(stderr, "\r\033[K");
    if (rc == MBX_E_ABORTED)
        return -1; /* the caller reports the stop */
    int64_t mpi_threads = mbx_thrinfo_mpi_threads(mbx_bench_get(spec.bench_id), spec.param);
    if (rc == MBX_E_UNSUPPORTED && mpi_threads > 1) {
        char why[MSG_LEN];
        mbx_thrinfo_multiple_msg(mbx_bench_get(spec.bench_id), mpi_threads, st->be->thread_asked,
                                 st->be->thread_granted, why, sizeof why);
        mbx_run_fail(why);
        return 1;
    }
    if (rc == MBX_E_VALIDATE && (rc = mbx_run_check_failed(st, &spec)) != 0)
        return rc; /* else r is the point's INVALID row: the run goes on */
    if (rc < 0) {
        char t[MSG_LEN];
        fprintf(stderr, "mpibex: %s on %d procs at %llu bytes failed: %s\n", name, spec.procs,
                (unsigned long long)spec.bytes, mbx_backend_strerror(st->be, rc, t, sizeof t));
        return 1;
    }
    mbx_sched_pass_report rep = {&r, obs, nobs, t0, t1 > t0 ? t1 : t0};
    if ((rc = mbx_sched_pass_done(sch, &rep)) < 0) {
        if (mbx_run_raw_failed(st))
            return 1;
        fprintf(stderr, "mpibex: %s on %d procs at %llu bytes: the scheduler refused a pass: %s\n",
                name, spec.procs, (unsigned long long)spec.bytes, mbx_strerror(rc));
        return 1;
    }
    /* The pass, as the scheduler keeps it, for --resume after a crash: the
     * point's row comes only when it is final. UNRELIABLE and INVALID
     * passes make it final at once (their row follows). */
    if (!rq->pilot && r.s.median > 0 && isfinite(r.s.median) && r.status != MBX_POINT_UNRELIABLE &&
        r.status != MBX_POINT_INVALID) {
        char key[MBX_KEY_MAX];
        mbx_run_key_of(&spec, s->meas->label, key);
        mbx_pass ps = {.median = r.s.median,
                       .n = r.s.n ? r.s.n : 1,
                       .t_start = rep.t_start + st->jt_offset,
                       .t_end = rep.t_end + st->jt_offset};
        if ((rc = mbx_journal_pass(st->journal, key, rq->refined, &ps)) < 0)
            return mbx_run_write_failure(st, st->journal_path, rc);
    }
    /* Test hook: a stop signal after the K-th request, so a test can stop
     * a fake run in the middle at the same place every time (the fake is
     * too quick to catch with kill); the signal's own path does the rest. */
    const char *hook = getenv("MBX_TEST_FAKE_STOP_PASSES");
    if (st->be->fake && hook && ++st->passes_run == strtoull(hook, NULL, 10))
        raise(SIGTERM);
    return 0;
}

/* Rows of the points the scheduler has finished. */
static int flush_final(run_state *st, mbx_sched *sch)
{
    size_t idx[64], n;
    while ((n = mbx_sched_take_final(sch, idx, 64)) > 0)
        for (size_t k = 0; k < n; k++) {
            mbx_sched_point_info in;
            mbx_result r;
            if (mbx_sched_point_info_get(sch, idx[k], &in) < 0 ||
                mbx_sched_result(sch, idx[k], &r) < 0)
                continue; /* a pass that failed: reported when it did */
            /* Curves were added in series order: a curve's index is its series'. */
            pointref p = {&st->ser[in.curve], in.x, in.refined};
            int code = finish_point(st, &p, &r, idx[k]);
            if (code)
                return code;
        }
    return 0;
}

/* Idle between passes: the scheduler paces a point's passes over the
 * run, and a short plan has nothing else due. The fake's clock is moved
 * on instead (as the explorer does): nothing would change while asleep. */
static void idle_for(run_state *st, double seconds)
{
    if (st->be->fake) {
        st->t_idle += seconds > 0 ? seconds : 1e-3;
        return;
    }
    mbx_sig_sleep(seconds);
}

/* The scheduler's MBX_SCHED_PAIR: a 1-byte latency scan from rank 0; the
 * pair is rank 0 and the farthest rank, and goes into the journal. */
static int scan_pair(run_state *st, mbx_sched *sch)
{
    int nranks = st->be->nranks, far = nranks - 1, rc;
    double *lat = calloc((size_t)nranks, sizeof *lat);
    if (!lat || (rc = st->be->pair_scan(st->be, lat, &far)) < 0 ||
        mbx_sched_pair_done(sch, far) < 0) {
        free(lat);
        fprintf(stderr, "mpibex: the ping-pong pair scan failed\n");
        return 1;
    }
    st->pair_a = 0;
    st->pair_b = far;
    st->pair_known = 1;
    double lo = INFINITY;
    for (int i = 1; i < nranks; i++)
        lo = fmin(lo, lat[i]);
    printf("# ping-pong pair: ranks 0 and %d, the largest latency from rank 0 (%.3f us; the "
           "smallest is %.3f us; 1-byte scan of %d ranks)\n",
           far, lat[far] * 1e6, lo * 1e6, nranks - 1);
    fflush(stdout);
    free(lat);
    if (st->journal && (rc = mbx_journal_pair(st->journal, st->pair_a, st->pair_b)) < 0)
        return mbx_run_write_failure(st, st->journal_path, rc);
    return 0;
}

/* The first fraction of a second of a job is not like the rest: on these
 * machines (MPICH 4.0.2, UCX) ping-pong points measured in it read 5-20
 * times slower, reproducibly, and an earlier point of barrier traffic makes
 * that go away. So the scheduler asks for --settle seconds of untimed
 * barriers on every rank before its first probe (MBX_SCHED_SETTLE). */
static int stop_asked(void *ud)
{
    (void)ud;
    return mbx_stop_signal != 0;
}

static int settle(run_state *st, mbx_sched *sch, double secs)
{
    double spent = 0;
    int rc = mbx_backend_settle(st->be, secs, stop_asked, NULL, &spent);
    if (rc < 0) {
        char t[MSG_LEN];
        fprintf(stderr, "mpibex: --settle: barrier traffic failed: %s\n",
                mbx_backend_strerror(st->be, rc, t, sizeof t));
        return 1;
    }
    if (mbx_sched_settle_done(sch, spent) < 0) {
        fprintf(stderr, "mpibex: the scheduler refused the settling\n");
        return 1;
    }
    printf("# settled: %.2f s of barrier traffic on all %d ranks before the first point "
           "(--settle)\n",
           spent, st->be->nranks);
    fflush(stdout);
    return 0;
}

/* The scheduler's MBX_SCHED_PROBE: the monitor's probe, for the monitor
 * and the scheduler. Returns 0 or exit code 1 after the message. */
static int probe(run_state *st, mbx_sched *sch, double now)
{
    double lat = NAN, t = now;
    int rc = probe_cb(st, &lat, &t);
    if (rc < 0) {
        char t[MSG_LEN];
        fprintf(stderr, "mpibex: the monitor's probe failed: %s\n",
                mbx_backend_strerror(st->be, rc, t, sizeof t));
        return 1;
    }
    if (mbx_monitor_add(&st->mon, t, lat) < 0 || mbx_sched_probe_done(sch, t, lat) < 0) {
        fprintf(stderr, "mpibex: out of memory\n");
        return 1;
    }
    return 0;
}

/* Every curve through the scheduler: passes of every point in shuffled
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
    while (!code) {
        if (mbx_stop_signal) {
            /* The unfinished points' passes are in the journal for
             * --resume; without one (-o -, /dev/null) they are dropped,
             * not summed up: that sorts each one's observations, a second
             * of a loaded machine (docs/hardening.md, "Signals at rank 0"). */
            code = flush_final(st, sch);
            if (!code)
                code = mbx_run_interrupted(st);
            break;
        }
        mbx_sched_req rq;
        double now = mbx_run_clock(st) - st->t0;
        int k = mbx_sched_next(sch, now, &rq);
        if (k < 0) {
            fprintf(stderr, "mpibex: out of memory\n");
            code = 1;
        } else if (k == MBX_SCHED_DONE) {
            code = flush_final(st, sch);
            /* Test hook: a stop right after the last point, in the end's
             * summaries and sort, where the loop no longer looks. */
            if (st->be->fake && getenv("MBX_TEST_FAKE_STOP_DONE"))
                raise(SIGINT);
            break;
        } else if (k == MBX_SCHED_WAIT) {
            idle_for(st, rq.wait);
        } else if (k == MBX_SCHED_PAIR) {
            code = scan_pair(st, sch);
        } else if (k == MBX_SCHED_SETTLE) {
            code = settle(st, sch, rq.settle);
        } else if (k == MBX_SCHED_PROBE) {
            code = probe(st, sch, now);
        } else {
            int rc = run_pass(st, sch, &rq);
            if (rc < 0)
                continue; /* a signal: the top of the loop reports it */
            code = rc ? rc : flush_final(st, sch);
        }
    }
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
