/* The runner (mbx/runner.h): one request of the scheduler end to end,
 * for `mpibex run` and the explorer alike. */
#include "mbx/runner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/bench.h"
#include "mbx/refine.h"

void mbx_runner_init(mbx_runner *rn, mbx_backend *be, mbx_sched *sched, mbx_monitor *mon,
                     int probe_rounds, const mbx_runner_hooks *h)
{
    memset(rn, 0, sizeof *rn);
    rn->be = be;
    rn->sched = sched;
    rn->mon = mon;
    rn->probe_rounds = probe_rounds;
    rn->h = *h;
}

static int fail(mbx_runner *rn, mbx_runner_where where, const mbx_point_spec *spec, int rc)
{
    mbx_runner_note n = {.kind = MBX_RUNNER_FAILED, .where = where, .rc = rc, .spec = spec};
    (void)rn->h.note(rn->h.ud, &n);
    return rc < 0 ? rc : MBX_E_INVAL;
}

void mbx_runner_curve_of(const mbx_measurement *m, size_t min_passes, const mbx_bench *b, int sizes,
                         size_t budget, mbx_sched_curve *cv)
{
    if (budget && m->refine > 0) {
        cv->refine_eps = m->refine;
        cv->budget = budget;
        cv->align = sizes ? b->unit : 1;
        cv->geometric = sizes;
        cv->min_ratio = sizes ? MBX_REFINE_MIN_RATIO : 0.0;
    }
    /* nmin and nmax bound each pass (a test or a slow machine keeps
     * passes short with a small nmax). */
    cv->point_time = m->point_time;
    cv->pass_nmin = m->nmin;
    cv->pass_nmax = m->nmax > m->nmin ? m->nmax : m->nmin;
    if (m->stop.kind == MBX_STOP_FIXED) { /* N observations over exactly R passes */
        size_t r = min_passes ? min_passes : 1;
        cv->fixed_n = (m->stop.fixed + r - 1) / r;
        if (cv->fixed_n < 1)
            cv->fixed_n = 1;
        cv->max_passes = r;
    } else if (m->stop.eps > 0 && m->stop.eps < 1) {
        cv->eps = m->stop.eps;
    }
    cv->stop_kind = m->stop.kind;
}

/* The scheduler's MBX_SCHED_PAIR: a 1-byte latency scan from rank 0; the
 * pair is rank 0 and the farthest rank. */
static int do_pair(mbx_runner *rn)
{
    int far = rn->be->nranks - 1, rc;
    double *lat = calloc((size_t)rn->be->nranks, sizeof *lat);
    rc = !lat                ? MBX_E_NOMEM
         : rn->be->pair_scan ? rn->be->pair_scan(rn->be, lat, &far)
                             : MBX_E_UNSUPPORTED;
    if (rc >= 0)
        rc = mbx_sched_pair_done(rn->sched, far);
    if (rc >= 0) {
        mbx_runner_note n = {.kind = MBX_RUNNER_PAIR, .lat = lat, .far = far};
        if (rn->h.note(rn->h.ud, &n) != 0)
            rc = MBX_RUNNER_HOOK_STOP;
    }
    free(lat);
    if (rc == MBX_RUNNER_HOOK_STOP)
        return rc;
    return rc < 0 ? fail(rn, MBX_RUNNER_AT_PAIR, NULL, rc) : MBX_SCHED_PAIR;
}

/* The scheduler's MBX_SCHED_SETTLE: untimed barriers on every rank before
 * the first probe and point (docs/architecture.md). */
static int do_settle(mbx_runner *rn, double secs)
{
    double spent = 0;
    int rc = mbx_backend_settle(rn->be, secs, rn->h.stop_asked, rn->h.ud, &spent);
    if (rc < 0)
        return fail(rn, MBX_RUNNER_AT_SETTLE, NULL, rc);
    if ((rc = mbx_sched_settle_done(rn->sched, spent)) < 0)
        return fail(rn, MBX_RUNNER_AT_REPORT, NULL, rc);
    mbx_runner_note n = {.kind = MBX_RUNNER_SETTLED, .seconds = spent};
    return rn->h.note(rn->h.ud, &n) != 0 ? MBX_RUNNER_HOOK_STOP : MBX_SCHED_SETTLE;
}

/* The scheduler's MBX_SCHED_PROBE: the monitor's probe of rank 0 and its
 * peer, for the monitor and the scheduler (which drops a value that is
 * not positive and finite). */
static int do_probe(mbx_runner *rn)
{
    double lat = NAN;
    int peer = rn->mon ? rn->mon->peer : 0;
    int rc = peer && rn->be->probe ? rn->be->probe(rn->be, peer, rn->probe_rounds, &lat)
                                   : MBX_E_UNSUPPORTED;
    if (rc < 0)
        return fail(rn, MBX_RUNNER_AT_PROBE, NULL, rc);
    double t = rn->h.clock(rn->h.ud);
    if (rn->h.probe_read)
        rn->h.probe_read(rn->h.ud, t, &lat);
    if (lat > 0 && isfinite(lat) && (rc = mbx_monitor_add(rn->mon, t, lat)) < 0)
        return fail(rn, MBX_RUNNER_AT_PROBE, NULL, rc);
    if ((rc = mbx_sched_probe_done(rn->sched, t, lat)) < 0)
        return fail(rn, MBX_RUNNER_AT_REPORT, NULL, rc);
    return MBX_SCHED_PROBE;
}

/* After the first pass of a threaded point: every rank's thread binding
 * and a note when some thread could not be bound that was not before. The
 * first pass, not the final row: the gather then speaks of this very
 * point's threads (passes of other points come between its later ones),
 * and the warning comes as early as it can. */
static int check_binding(mbx_runner *rn, const mbx_point_spec *spec)
{
    if (!mbx_thrinfo_binds(mbx_bench_get(spec->bench_id)) || !rn->be->thread_binding)
        return 0; /* the fake binds no threads */
    int rc = rn->be->thread_binding(rn->be, &rn->thr);
    if (rc < 0) {
        rn->thr = NULL;
        (void)fail(rn, MBX_RUNNER_AT_BIND, spec, rc);
        return 0;
    }
    char ranks[128];
    const char *what = "";
    if (mbx_thrinfo_binding_news(rn->thr, rn->be->nranks, &rn->thr_seen, ranks, sizeof ranks,
                                 &what) > 0) {
        mbx_runner_note n = {
            .kind = MBX_RUNNER_UNBOUND, .spec = spec, .ranks = ranks, .what = what};
        return rn->h.note(rn->h.ud, &n);
    }
    return 0;
}

/* The pass's settings from the request: a fixed count of observations,
 * a full warm-up only for the point's first measurement, its buffers'
 * offset and the scheduler's pair of a ping-pong. */
static void pass_spec(const mbx_sched_req *rq, mbx_point_spec *spec)
{
    spec->stop = (mbx_stop_rule){.kind = MBX_STOP_FIXED, .fixed = rq->nobs};
    spec->nmin = spec->nmax = rq->nobs;
    spec->warm_light = !rq->warm;
    spec->batch_first = rq->batch_first;
    spec->buf_offset = rq->buf_offset;
    if (mbx_bench_get(spec->bench_id)->flags & MBX_BENCH_PAIR) {
        spec->pair_a = rq->pair_a;
        spec->pair_b = rq->pair_b;
    }
}

/* A pass (or a pilot) of a point, measured and reported. */
static int do_pass(mbx_runner *rn, const mbx_sched_req *rq)
{
    mbx_point_spec spec;
    const char *label = NULL;
    memset(&spec, 0, sizeof spec);
    if (rn->h.spec(rn->h.ud, rq, &spec, &label) < 0) {
        mbx_sched_pass_failed(rn->sched); /* a point the front end has no room for */
        return MBX_SCHED_PASS;
    }
    pass_spec(rq, &spec);
    if (label)
        spec.label = label;
    mbx_result r;
    const double *obs = NULL;
    size_t nobs = 0;
    double t0 = rn->h.clock(rn->h.ud);
    if (rn->h.arm)
        rn->h.arm(rn->h.ud, rq, &spec);
    int rc = rn->be->measure(rn->be, &spec, rn->h.progress, rn->h.ud, &r, &obs, &nobs);
    int hung = rn->h.disarm ? rn->h.disarm(rn->h.ud, &r) : 0;
    double t1 = rn->h.clock(rn->h.ud);
    if (hung && (rc == MBX_OK || rc == MBX_E_VALIDATE)) {
        rc = MBX_OK; /* r is the point's HUNG row: its observations measured the hang */
        obs = NULL;
        nobs = 0;
    }
    if (rc == MBX_E_ABORTED)
        return rc;              /* the front end asked: it ends or goes on */
    if (rc == MBX_E_VALIDATE) { /* r is the point's INVALID row: the run goes on */
        if (rn->h.check_failed && rn->h.check_failed(rn->h.ud, &spec) != 0)
            return MBX_RUNNER_HOOK_STOP;
        rc = MBX_OK;
    }
    if (rc < 0) {
        mbx_sched_pass_failed(rn->sched);
        return fail(rn, MBX_RUNNER_AT_PASS, &spec, rc);
    }
    if (label)
        r.label = label;
    r.refined = rq->refined;
    mbx_sched_pass_report rep = {&r, obs, nobs, t0, t1 > t0 ? t1 : t0};
    if ((rc = mbx_sched_pass_done(rn->sched, &rep)) < 0)
        return fail(rn, MBX_RUNNER_AT_REPORT, &spec, rc);
    if (rq->pass == 0 && !rq->pilot && check_binding(rn, &spec) != 0)
        return MBX_RUNNER_HOOK_STOP;
    if (rn->h.pass && rn->h.pass(rn->h.ud, rq, &spec, &r, rep.t_start, rep.t_end) != 0)
        return MBX_RUNNER_HOOK_STOP;
    if (rn->be->on_request)
        rn->be->on_request(rn->be, MBX_SCHED_PASS);
    return MBX_SCHED_PASS;
}

int mbx_runner_result(const mbx_runner *rn, size_t i, mbx_result *out)
{
    int rc = mbx_sched_result(rn->sched, i, out);
    if (rc == MBX_OK && rn->profile != NULL)
        (void)mbx_profile_widen(rn->profile, out); /* 0: no entry, the row stays launch-scoped */
    return rc;
}

int mbx_runner_take_finals(mbx_runner *rn)
{
    size_t idx[64], n;
    do {
        n = mbx_sched_take_final(rn->sched, idx, sizeof idx / sizeof *idx);
        for (size_t i = 0; i < n; i++)
            if (rn->h.row(rn->h.ud, idx[i]) != 0)
                return MBX_RUNNER_HOOK_STOP;
    } while (n == sizeof idx / sizeof *idx);
    return 0;
}

int mbx_runner_step(mbx_runner *rn)
{
    mbx_sched_req rq;
    int k = mbx_sched_next(rn->sched, rn->h.clock(rn->h.ud), &rq);
    if (k < 0)
        return fail(rn, MBX_RUNNER_AT_NEXT, NULL, k);
    switch (k) {
    case MBX_SCHED_WAIT: rn->h.idle(rn->h.ud, rq.wait > 0 ? rq.wait : 1e-3); return k;
    case MBX_SCHED_PAIR: k = do_pair(rn); break;
    case MBX_SCHED_SETTLE: k = do_settle(rn, rq.settle); break;
    case MBX_SCHED_PROBE: k = do_probe(rn); break;
    case MBX_SCHED_PASS: k = do_pass(rn, &rq); break;
    default: break;
    }
    if (k < 0)
        return k;
    if (mbx_runner_take_finals(rn) != 0)
        return MBX_RUNNER_HOOK_STOP;
    if (k == MBX_SCHED_DONE && rn->be->on_request)
        rn->be->on_request(rn->be, MBX_SCHED_DONE);
    return k;
}
