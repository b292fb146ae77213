/* The scheduler (mbx/sched.h) driven by the simulated machine of
 * sched_sim.h: the stop rules and limits, the pair scan and settling before
 * the first pass, unreliable passes, bad options, refinement between
 * rounds, preloaded passes and the row of a point. Its order and pacing
 * are in test_sched.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <unistd.h>

#include "mbx/obsfile.h"
#include "sched_sim.h"

static void stop_and_limits(void **state)
{
    (void)state;
    mbx_sched_opts o;
    mbx_sched_opts_init(&o);
    o.time_limit = 0.5;
    mbx_sched *s = mbx_sim_make(&o, 1, mbx_sim_grid8, 4);
    sim m = {.rng = 9, .noise = 0.05, .curve_scale = {1}};
    double end = mbx_sim_run_all(s, &m);
    assert_true(end >= 0.5 && end < 0.6);
    size_t fin[16], nf = mbx_sched_take_final(s, fin, 16);
    assert_int_equal(nf, 4); /* every measured point has a row */
    for (size_t i = 0; i < nf; i++) {
        mbx_result r;
        assert_int_equal(mbx_sched_result(s, fin[i], &r), MBX_OK);
        assert_int_equal(r.status, MBX_POINT_UNSETTLED); /* no span: not SETTLED */
        assert_string_equal(r.status_reason, "time-limit 0.5 s");
    }
    mbx_sched_free(s);

    /* max_passes: a point that never settles stops there. */
    mbx_sched_opts_init(&o);
    o.max_passes = 6;
    o.passes.eps = 0.001;
    s = mbx_sim_make(&o, 1, mbx_sim_grid8, 2);
    sim m2 = {.rng = 9, .noise = 0.8, .curve_scale = {1}};
    mbx_sim_run_all(s, &m2);
    for (size_t i = 0; i < 2; i++) {
        mbx_sched_point_info in;
        assert_int_equal(mbx_sched_point_info_get(s, i, &in), MBX_OK);
        assert_int_equal(in.passes.b.r, 6);
        assert_int_equal(in.status, MBX_POINT_UNSETTLED);
        mbx_result r;
        assert_int_equal(mbx_sched_result(s, i, &r), MBX_OK);
        assert_string_equal(r.status_reason, "max-passes 6");
    }
    mbx_sched_free(s);
}

/* A fixed count (--stop fixed:N: N observations over exactly R passes)
 * has no precision target: a point that took all its passes is FIXED with
 * no reason, not UNSETTLED "max-passes R", however noisy; one stopped
 * before them stays UNSETTLED with its reason. */
static void fixed_count_is_fixed(void **state)
{
    (void)state;
    mbx_sched_opts o;
    mbx_sched_opts_init(&o);
    o.fixed_n = 20;
    o.max_passes = o.passes.min_passes;
    o.passes.eps = 0.0001; /* would never settle with this noise */
    mbx_sched *s = mbx_sim_make(&o, 1, mbx_sim_grid8, 2);
    sim m = {.rng = 3, .noise = 0.8, .curve_scale = {1}};
    mbx_sim_run_all(s, &m);
    for (size_t i = 0; i < 2; i++) {
        mbx_result r;
        assert_int_equal(mbx_sched_result(s, i, &r), MBX_OK);
        assert_int_equal(r.passes, o.passes.min_passes);
        assert_int_equal(r.status, MBX_POINT_FIXED);
        assert_string_equal(mbx_point_status_name(r.status), "FIXED");
        assert_string_equal(r.status_reason, "");
    }
    mbx_sched_free(s);
    /* Cut by the run's time limit before its passes: not FIXED. */
    mbx_sched_opts_init(&o);
    o.fixed_n = 20;
    o.max_passes = o.passes.min_passes;
    o.time_limit = 0.5; /* passes are spread over --span (1 s) */
    s = mbx_sim_make(&o, 1, mbx_sim_grid8, 2);
    sim m2 = {.rng = 3, .noise = 0.8, .curve_scale = {1}}; /* its clock from 0 */
    mbx_sim_run_all(s, &m2);
    size_t fin[4], nf = mbx_sched_take_final(s, fin, 4);
    assert_true(nf >= 1);
    for (size_t i = 0; i < nf; i++) {
        mbx_result r;
        assert_int_equal(mbx_sched_result(s, fin[i], &r), MBX_OK);
        assert_true(r.passes < o.passes.min_passes);
        assert_int_equal(r.status, MBX_POINT_UNSETTLED);
        assert_string_equal(r.status_reason, "time-limit 0.5 s");
    }
    mbx_sched_free(s);
}

/* IMB's -time per point: a point whose passes have taken
 * point_time seconds gets no more, UNSETTLED with the reason; a curve's
 * own point_time wins over the scheduler's; a SETTLED point has no
 * reason. */
static void point_time_caps_a_point(void **state)
{
    (void)state;
    mbx_sched_opts o;
    mbx_sched_opts_init(&o);
    o.max_passes = 200;
    o.passes.eps = 0.0001; /* never settles with this noise */
    o.point_time = 0.004;  /* passes last about pass_floor (1 ms) each */
    mbx_sched *s;
    assert_int_equal(mbx_sched_create(&o, &s), MBX_OK);
    mbx_sched_curve c0 = {.grid = mbx_sim_grid8, .ngrid = 2};
    mbx_sched_curve c1 = {.grid = mbx_sim_grid8, .ngrid = 2, .point_time = 0.02};
    size_t id;
    assert_int_equal(mbx_sched_add_curve(s, &c0, &id), MBX_OK);
    assert_int_equal(mbx_sched_add_curve(s, &c1, &id), MBX_OK);
    sim m = {.rng = 5, .noise = 0.8, .curve_scale = {1, 1}};
    mbx_sim_run_all(s, &m);
    size_t fin[8], nf = mbx_sched_take_final(s, fin, 8);
    size_t most[2] = {0, 0}, fewest[2] = {SIZE_MAX, SIZE_MAX};
    assert_int_equal(nf, 4);
    for (size_t i = 0; i < nf; i++) {
        mbx_result r;
        mbx_sched_point_info in;
        assert_int_equal(mbx_sched_result(s, fin[i], &r), MBX_OK);
        assert_int_equal(mbx_sched_point_info_get(s, fin[i], &in), MBX_OK);
        assert_int_equal(r.status, MBX_POINT_UNSETTLED);
        double cap = in.curve == 0 ? 0.004 : 0.02;
        assert_string_equal(r.status_reason,
                            in.curve == 0 ? "point-time 0.004 s" : "point-time 0.02 s");
        /* Stopped by the cap, long before max_passes: at least cap / 1 ms
         * passes' worth (each lasts about 1 ms, never much over). */
        assert_true(r.passes >= 2 && r.passes < 200);
        /* Passes last about 1 ms (the pilot sizes them), never under 0.5. */
        assert_true(r.passes <= (size_t)(2 * cap / 1e-3) + 1);
        most[in.curve] = r.passes > most[in.curve] ? r.passes : most[in.curve];
        fewest[in.curve] = r.passes < fewest[in.curve] ? r.passes : fewest[in.curve];
    }
    assert_true(fewest[1] > most[0]); /* the curve's own, longer cap */
    mbx_sched_free(s);

    /* Quiet points settle before the cap: no reason. */
    mbx_sched_opts_init(&o);
    o.point_time = 60;
    s = mbx_sim_make(&o, 1, mbx_sim_grid8, 2);
    sim q = {.rng = 5, .noise = 0.01, .curve_scale = {1}};
    mbx_sim_run_all(s, &q);
    for (size_t i = 0; i < 2; i++) {
        mbx_result r;
        assert_int_equal(mbx_sched_result(s, i, &r), MBX_OK);
        assert_int_equal(r.status, MBX_POINT_SETTLED);
        assert_string_equal(r.status_reason, "");
    }
    mbx_sched_free(s);
    /* A point_time that is not a time: refused. */
    mbx_sched_opts_init(&o);
    o.point_time = -1;
    assert_int_equal(mbx_sched_create(&o, &s), MBX_E_INVAL);
    o.point_time = NAN;
    assert_int_equal(mbx_sched_create(&o, &s), MBX_E_INVAL);
}

/* Before anything else, once: the pair scan when a ping-pong curve leaves
 * its pair to it and there are more than 2 ranks, then the settling; then
 * the first probe. Every pass of a ping-pong curve carries the pair: its
 * own, or rank 0 and the scan's farthest rank. */
static void pair_scan_and_settle_come_first(void **state)
{
    (void)state;
    mbx_sched_opts o;
    mbx_sched_opts_init(&o);
    o.nranks = 6;
    o.settle = 0.1;
    mbx_sched *s;
    assert_int_equal(mbx_sched_create(&o, &s), MBX_OK);
    mbx_sched_curve auto_pair = {
        .grid = mbx_sim_grid8, .ngrid = 2, .pair = 1, .pair_a = -1, .pair_b = -1};
    mbx_sched_curve own_pair = {
        .grid = mbx_sim_grid8, .ngrid = 2, .pair = 1, .pair_a = 2, .pair_b = 4};
    mbx_sched_curve no_pair = {.grid = mbx_sim_grid8, .ngrid = 2};
    size_t id;
    assert_int_equal(mbx_sched_add_curve(s, &auto_pair, &id), MBX_OK);
    assert_int_equal(mbx_sched_add_curve(s, &own_pair, &id), MBX_OK);
    assert_int_equal(mbx_sched_add_curve(s, &no_pair, &id), MBX_OK);
    int a, b;
    assert_int_equal(mbx_sched_pair(s, &a, &b), MBX_E_INVAL); /* the scan is still to come */
    mbx_sched_req rq;
    assert_int_equal(mbx_sched_next(s, 0, &rq), MBX_SCHED_PAIR);
    assert_int_equal(mbx_sched_next(s, 0, &rq), MBX_SCHED_PAIR);  /* still outstanding */
    assert_int_equal(mbx_sched_settle_done(s, 0.1), MBX_E_INVAL); /* not the one asked */
    assert_int_equal(mbx_sched_pair_done(s, 0), MBX_E_INVAL);     /* rank 0 is one end */
    assert_int_equal(mbx_sched_pair_done(s, 6), MBX_E_INVAL);     /* not a rank */
    assert_int_equal(mbx_sched_pair_done(s, 3), MBX_OK);
    assert_int_equal(mbx_sched_pair(s, &a, &b), MBX_OK);
    assert_int_equal(a, 0);
    assert_int_equal(b, 3);
    assert_int_equal(mbx_sched_next(s, 0.001, &rq), MBX_SCHED_SETTLE);
    assert_true(rq.settle == 0.1);
    assert_int_equal(mbx_sched_settle_done(s, 0.103), MBX_OK);
    mbx_sched_stats st;
    mbx_sched_stats_get(s, &st);
    assert_true(st.settle == 0.103 && st.scanned == 1);
    sim m = {.rng = 3, .noise = 0.02, .curve_scale = {1, 1, 1}, .now = 0.104};
    assert_int_equal(mbx_sim_step(s, &m, &rq),
                     MBX_SCHED_PROBE); /* the first probe after settling */
    size_t passes = 0;
    while (mbx_sim_step(s, &m, &rq) != MBX_SCHED_DONE) {
        assert_true(rq.kind != MBX_SCHED_PAIR && rq.kind != MBX_SCHED_SETTLE); /* once only */
        if (rq.kind != MBX_SCHED_PASS)
            continue;
        passes++;
        if (rq.curve == 0) {
            assert_int_equal(rq.pair_a, 0);
            assert_int_equal(rq.pair_b, 3);
        } else if (rq.curve == 1) {
            assert_int_equal(rq.pair_a, 2);
            assert_int_equal(rq.pair_b, 4);
        } else {
            assert_int_equal(rq.pair_a, 0);
            assert_int_equal(rq.pair_b, 0);
        }
    }
    assert_true(passes >= 6 * 5);
    mbx_sched_free(s);

    /* 2 ranks: nothing to choose, no scan; no settle asked: none. */
    mbx_sched_opts_init(&o);
    o.nranks = 2;
    assert_int_equal(mbx_sched_create(&o, &s), MBX_OK);
    assert_int_equal(mbx_sched_add_curve(s, &auto_pair, &id), MBX_OK);
    assert_int_equal(mbx_sched_pair(s, &a, &b), MBX_OK);
    assert_int_equal(b, 1);
    assert_int_equal(mbx_sched_next(s, 0, &rq), MBX_SCHED_PROBE);
    mbx_sched_free(s);

    /* A pair outside the job, a settle that is not a time: refused. */
    mbx_sched_opts_init(&o);
    o.nranks = 4;
    assert_int_equal(mbx_sched_create(&o, &s), MBX_OK);
    assert_int_equal(mbx_sched_add_curve(s, &own_pair, &id), MBX_E_INVAL);
    mbx_sched_free(s);
    o.settle = -1;
    assert_int_equal(mbx_sched_create(&o, &s), MBX_E_INVAL);
    o.settle = NAN;
    assert_int_equal(mbx_sched_create(&o, &s), MBX_E_INVAL);
}

static void unreliable_pass_is_final(void **state)
{
    (void)state;
    mbx_sched_opts o;
    mbx_sched_opts_init(&o);
    o.probe_every = -1;
    mbx_sched *s = mbx_sim_make(&o, 1, mbx_sim_grid8, 1);
    mbx_sched_req rq;
    assert_int_equal(mbx_sched_next(s, 0, &rq), MBX_SCHED_PASS);
    mbx_result r;
    memset(&r, 0, sizeof r);
    r.status = MBX_POINT_UNRELIABLE;
    r.s.median = NAN;
    mbx_sched_pass_report rep = {&r, NULL, 0, 0, 1e-3};
    /* An UNRELIABLE pilot is not a verdict: the first pass follows, with
     * the fewest observations; its UNRELIABLE is. */
    assert_true(rq.pilot);
    assert_int_equal(mbx_sched_pass_done(s, &rep), MBX_OK);
    assert_int_equal(mbx_sched_next(s, 1e-3, &rq), MBX_SCHED_PASS);
    assert_false(rq.pilot);
    assert_int_equal(rq.nobs, MBX_SCHED_PASS_NMIN);
    assert_int_equal(mbx_sched_pass_done(s, &rep), MBX_OK);
    assert_int_equal(mbx_sched_next(s, 1e-3, &rq), MBX_SCHED_DONE);
    mbx_result out;
    assert_int_equal(mbx_sched_result(s, 0, &out), MBX_OK);
    assert_int_equal(out.status, MBX_POINT_UNRELIABLE);
    /* A report without a request, and a bad median, are refused. */
    assert_int_equal(mbx_sched_pass_done(s, &rep), MBX_E_INVAL);
    mbx_sched_free(s);
}

static void bad_options(void **state)
{
    (void)state;
    mbx_sched *s;
    mbx_sched_opts o;
    mbx_sched_opts_init(&o);
    o.passes.eps = 0;
    assert_int_equal(mbx_sched_create(&o, &s), MBX_E_INVAL);
    mbx_sched_opts_init(&o);
    o.max_passes = 2; /* below min_passes 5 */
    assert_int_equal(mbx_sched_create(&o, &s), MBX_E_INVAL);
    mbx_sched_opts_init(&o);
    o.pass_nmin = 100;
    o.pass_nmax = 10;
    assert_int_equal(mbx_sched_create(&o, &s), MBX_E_INVAL);
    assert_int_equal(mbx_sched_create(NULL, &s), MBX_OK);
    static const uint64_t dup[] = {4, 4};
    mbx_sched_curve c = {.grid = dup, .ngrid = 2};
    size_t id;
    assert_int_equal(mbx_sched_add_curve(s, &c, &id), MBX_E_INVAL);
    c.ngrid = 0;
    assert_int_equal(mbx_sched_add_curve(s, &c, &id), MBX_E_INVAL);
    mbx_sched_free(s);
}

static void refinement_adds_points_between_rounds(void **state)
{
    (void)state;
    mbx_sched_opts o;
    mbx_sched_opts_init(&o);
    static const uint64_t g[] = {1, 4096, 1 << 20};
    mbx_sched *s;
    assert_int_equal(mbx_sched_create(&o, &s), MBX_OK);
    /* A curve that is not a line: 1 us + 1 ns/B, then x2 above 64 KiB. */
    mbx_sched_curve c = {.grid = g,
                         .ngrid = 3,
                         .refine_eps = 0.05,
                         .budget = 12,
                         .align = 1,
                         .geometric = 1,
                         .min_ratio = 1.05};
    size_t id;
    assert_int_equal(mbx_sched_add_curve(s, &c, &id), MBX_OK);
    assert_int_equal(mbx_sched_keep(s, 0, 1024, 1, NAN), MBX_OK); /* a resumed point */
    sim m = {.rng = 11, .noise = 0.01, .curve_scale = {1}};
    mbx_sim_run_all(s, &m);
    size_t pts, refined;
    double worst;
    mbx_sched_curve_refine(s, 0, &pts, &refined, &worst);
    assert_true(pts > 4);
    assert_true(refined >= 2);
    /* The kept point is never requested and never reported final. */
    size_t fin[64], nf = mbx_sched_take_final(s, fin, 64);
    for (size_t i = 0; i < nf; i++) {
        mbx_sched_point_info in;
        assert_int_equal(mbx_sched_point_info_get(s, fin[i], &in), MBX_OK);
        assert_false(in.x == 1024);
    }
    mbx_sched_free(s);
}

/* A resumed run's journal passes join the point; it still gets a pass. */
static void preloaded_passes_count(void **state)
{
    (void)state;
    mbx_sched_opts o;
    mbx_sched_opts_init(&o);
    o.probe_every = -1;
    mbx_sched *s = mbx_sim_make(&o, 1, mbx_sim_grid8, 2);
    mbx_pass pre[4];
    for (int k = 0; k < 4; k++)
        /* 2 % above the mbx_sim_truth at x = 1 (1.001 us): outside this run's range */
        pre[k] = (mbx_pass){.median = 1.021e-6 * (1 + 0.001 * k),
                            .n = 100,
                            .t_start = -2.0 + 0.5 * k,
                            .t_end = -1.99 + 0.5 * k,
                            .level = MBX_PASSES_NO_LEVEL};
    assert_int_equal(mbx_sched_preload(s, 0, 1, 0, pre, 4), MBX_OK);
    pre[0].median = -1;
    assert_int_equal(mbx_sched_preload(s, 0, 8, 0, pre, 1), MBX_E_INVAL);
    sim m = {.rng = 2, .noise = 0.01, .curve_scale = {1}};
    mbx_sim_run_all(s, &m);
    mbx_sched_point_info in;
    assert_int_equal(mbx_sched_point_info_get(s, 0, &in), MBX_OK);
    assert_true(in.passes.b.r >= 5); /* 4 from the journal, at least 1 now */
    assert_true(in.passes.span >= 1.9);
    assert_int_equal(in.status, MBX_POINT_SETTLED);
    /* The row's range covers every pass median, the journal's included
     * (their observations are not here). */
    mbx_result out;
    assert_int_equal(mbx_sched_result(s, 0, &out), MBX_OK);
    size_t npm;
    const double *pm = mbx_sched_pass_medians(s, 0, &npm);
    assert_true(npm >= 5);
    for (size_t k = 0; k < npm; k++)
        assert_true(out.s.min <= pm[k] && pm[k] <= out.s.max);
    assert_true(out.s.min <= out.s.median && out.s.median <= out.s.max);
    mbx_sched_free(s);
}

/* setup_us: the mean of the set-up times the point's passes reported
 * (a persistent operation's init, once per pass; the pilot, the first
 * report of this one-point run, is not one of the row's passes), and
 * nothing when no pass reported one. */
static void setup_is_the_passes_mean(void **state)
{
    (void)state;
    for (int with = 0; with <= 1; with++) {
        mbx_sched_opts o;
        mbx_sched_opts_init(&o);
        o.probe_every = -1;
        mbx_sched *s = mbx_sim_make(&o, 1, mbx_sim_grid8, 1);
        sim m = {.rng = 4, .noise = 0.01, .curve_scale = {1}, .setup = with ? 1e-6 : 0};
        mbx_sim_run_all(s, &m);
        mbx_result out;
        assert_int_equal(mbx_sched_result(s, 0, &out), MBX_OK);
        if (!with) {
            assert_false(out.setup > 0);
        } else {
            assert_true(m.nsetup >= 5); /* the pilot and at least 4 passes: not just the last */
            assert_int_equal(out.passes, m.nsetup - 1);
            double mean = (m.setup_sum - 1e-6) / (double)(m.nsetup - 1);
            assert_true(fabs(out.setup - mean) < 1e-12);
            assert_true(out.setup < 1e-6 * (double)m.nsetup); /* not the last pass's */
        }
        mbx_sched_free(s);
    }
}

/* A point whose second pass is UNRELIABLE (an accurate benchmark whose
 * corrections were anomalous: negative observations, so no minimum) gets
 * that pass's row as it is: the first pass's median must not turn into its
 * minimum, above its median (a CI run once wrote min 8004 us over a
 * median of 5944 us that way). */
static void unreliable_row_is_not_widened(void **state)
{
    (void)state;
    mbx_sched_opts o;
    mbx_sched_opts_init(&o);
    o.probe_every = -1;
    o.fixed_n = 8; /* no pilot */
    mbx_sched *s = mbx_sim_make(&o, 1, mbx_sim_grid8, 1);
    mbx_sched_req rq;
    double obs[8];
    for (int i = 0; i < 8; i++)
        obs[i] = 40e-3 + 1e-4 * i;
    mbx_result r;
    memset(&r, 0, sizeof r);
    r.status = MBX_POINT_SETTLED;
    r.s.n = 8;
    r.s.median = 40.35e-3;
    r.s.min = 40e-3;
    r.s.max = 40.7e-3;
    assert_int_equal(mbx_sched_next(s, 0, &rq), MBX_SCHED_PASS);
    mbx_sched_pass_report rep = {&r, obs, 8, 0, 0.4};
    assert_int_equal(mbx_sched_pass_done(s, &rep), MBX_OK);
    mbx_result bad;
    memset(&bad, 0, sizeof bad);
    bad.status = MBX_POINT_UNRELIABLE;
    bad.s.n = 8;
    bad.s.median = 5.9e-3;
    bad.s.min = NAN; /* negative, dropped */
    bad.s.q1 = NAN;
    bad.s.max = 31.8e-3;
    double bobs[8] = {-1e-3, -1e-3, -1e-3, 2e-3, 9.8e-3, 20e-3, 25e-3, 31.8e-3};
    assert_int_equal(mbx_sched_next(s, 0.5, &rq), MBX_SCHED_PASS);
    mbx_sched_pass_report brep = {&bad, bobs, 8, 0.5, 0.9};
    assert_int_equal(mbx_sched_pass_done(s, &brep), MBX_OK);
    assert_int_equal(mbx_sched_next(s, 1.0, &rq), MBX_SCHED_DONE);
    mbx_result out;
    assert_int_equal(mbx_sched_result(s, 0, &out), MBX_OK);
    assert_int_equal(out.status, MBX_POINT_UNRELIABLE);
    assert_true(out.s.median == 5.9e-3);
    assert_true(isnan(out.s.min));
    assert_true(out.s.max == 31.8e-3);
    mbx_sched_free(s);
}

/* Feeds point 0 of a one-point scheduler `passes` passes of 16 known
 * observations (pass k: 1 ms + k us + j ns) and returns their sum. */
static double feed_passes(mbx_sched *s, size_t passes, double *lo, double *hi)
{
    double sum = 0, t = 0;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t k = 0; k < passes; k++) {
        mbx_sched_req rq;
        assert_int_equal(mbx_sched_next(s, t, &rq), MBX_SCHED_PASS);
        double obs[16];
        for (int j = 0; j < 16; j++) {
            obs[j] = 1e-3 + 1e-6 * (double)(k % 7) + 1e-9 * j;
            sum += obs[j];
            *lo = fmin(*lo, obs[j]);
            *hi = fmax(*hi, obs[j]);
        }
        mbx_result r;
        memset(&r, 0, sizeof r);
        r.status = MBX_POINT_SETTLED;
        r.s.n = 16;
        r.s.median = obs[8];
        mbx_sched_pass_report rep = {&r, obs, 16, t, t + 0.01};
        assert_int_equal(mbx_sched_pass_done(s, &rep), MBX_OK);
        t += 0.03; /* past the longest jittered gap, 1.5 S / (R - 1) with R = 60 */
    }
    return sum;
}

/* Rank 0's memory must not grow with a point's passes: past keep_obs a
 * point keeps a sample of that many observations, while the row's count,
 * sum, mean, min and max stay those of every observation; below it every
 * observation is kept, in passes, as before. */
static void kept_observations_are_bounded(void **state)
{
    (void)state;
    mbx_sched_opts o;
    mbx_sched_opts_init(&o);
    assert_int_equal(o.keep_obs, 0);
    o.probe_every = -1;
    o.fixed_n = 16;
    o.passes.min_passes = 60;
    o.max_passes = 60;
    o.keep_obs = 100;
    mbx_sched *s = mbx_sim_make(&o, 1, mbx_sim_grid8, 1);
    double lo, hi, sum = feed_passes(s, 60, &lo, &hi);
    size_t n = 0, ns = 1;
    const double *kept = mbx_sched_obs(s, 0, &n);
    assert_int_equal(n, 100);
    for (size_t i = 0; i < n; i++)
        assert_true(kept[i] >= lo && kept[i] <= hi);
    assert_null(mbx_sched_obs_passes(s, 0, &ns));
    assert_int_equal(ns, 0);
    mbx_result out;
    assert_int_equal(mbx_sched_result(s, 0, &out), MBX_OK);
    assert_int_equal(out.s.n, 960);
    assert_int_equal(out.passes, 60);
    assert_true(fabs(out.s.sum - sum) < 1e-12);
    assert_true(fabs(out.s.mean - sum / 960) < 1e-15);
    assert_true(out.s.min == lo && out.s.max == hi);
    assert_true(out.s.q1 >= lo && out.s.q3 <= hi && out.s.q1 <= out.s.q3);
    mbx_sched_free(s);

    /* The default keeps all 960 and their passes. */
    o.keep_obs = 0;
    s = mbx_sim_make(&o, 1, mbx_sim_grid8, 1);
    feed_passes(s, 60, &lo, &hi);
    assert_non_null(mbx_sched_obs(s, 0, &n));
    assert_int_equal(n, 960);
    assert_non_null(mbx_sched_obs_passes(s, 0, &ns));
    assert_int_equal(ns, 60);
    mbx_sched_free(s);
}

/* --raw: the scheduler's sink (the spool of mbx/obsfile.h here) gets
 * every observation, past keep_obs too, so a point's rows written from
 * the spool are byte for byte those of a scheduler that kept them all; a
 * reset replaces a point's observations; no file is left beside them. */
static int to_spool(void *ud, size_t point, int reset, const double *obs, size_t n)
{
    return mbx_obs_spool_add(ud, point, reset, obs, n);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = malloc(1 << 20);
    assert_non_null(buf);
    *len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    return buf;
}

static void spool_point_rows(mbx_obs_spool *sp, size_t point, const char *path, const mbx_result *r)
{
    mbx_csv_writer *w;
    assert_int_equal(mbx_csv_writer_open(path, mbx_obs_columns, MBX_OBS_NCOLS, &w), MBX_OK);
    assert_int_equal(mbx_obs_spool_write(sp, point, w, r), MBX_OK);
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
}

static void sink_gets_every_observation(void **state)
{
    (void)state;
    char dir[] = "/tmp/mbx-spool-XXXXXX", all[64], spooled[64], reset[64];
    assert_non_null(mkdtemp(dir));
    snprintf(all, sizeof all, "%s/all.obs.csv", dir);
    snprintf(spooled, sizeof spooled, "%s/spool.obs.csv", dir);
    snprintf(reset, sizeof reset, "%s/reset.obs.csv", dir);
    mbx_result r;
    memset(&r, 0, sizeof r);
    r.benchmark = "pingpong.send_recv";
    r.procs = 2;
    r.bytes = 8;
    r.root = -1;
    mbx_sched_opts o;
    mbx_sched_opts_init(&o);
    o.probe_every = -1;
    o.fixed_n = 16;
    o.passes.min_passes = 60;
    o.max_passes = 60;
    mbx_sched *s = mbx_sim_make(&o, 1, mbx_sim_grid8, 1);
    double lo, hi;
    feed_passes(s, 60, &lo, &hi);
    size_t n = 0, ns = 0;
    const double *obs = mbx_sched_obs(s, 0, &n);
    const size_t *seg = mbx_sched_obs_passes(s, 0, &ns);
    mbx_csv_writer *w;
    assert_int_equal(mbx_csv_writer_open(all, mbx_obs_columns, MBX_OBS_NCOLS, &w), MBX_OK);
    assert_int_equal(mbx_obs_write_point(w, &r, obs, n, seg, ns), MBX_OK);
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
    mbx_sched_free(s);

    mbx_obs_spool *sp;
    assert_int_equal(mbx_obs_spool_open(spooled, &sp), MBX_OK);
    o.keep_obs = 100;
    o.obs_sink = to_spool;
    o.obs_sink_ud = sp;
    s = mbx_sim_make(&o, 1, mbx_sim_grid8, 1);
    feed_passes(s, 60, &lo, &hi);
    assert_non_null(mbx_sched_obs(s, 0, &n));
    assert_int_equal(n, 100); /* memory: the sample */
    spool_point_rows(sp, 0, spooled, &r);
    size_t la, lb;
    char *a = slurp(all, &la), *b = slurp(spooled, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    free(a);
    free(b);
    mbx_sched_free(s);

    /* A reset keeps only what came with it: indices and pass from 0. */
    double one[3] = {1e-6, 2e-6, 3e-6}, two[2] = {5e-6, 6e-6};
    assert_int_equal(mbx_obs_spool_add(sp, 7, 0, one, 3), MBX_OK);
    assert_int_equal(mbx_obs_spool_add(sp, 7, 1, two, 2), MBX_OK);
    spool_point_rows(sp, 7, reset, &r);
    a = slurp(reset, &la);
    const char *want = "benchmark,procs,bytes,obs,time_us,label,root,param,pass\n"
                       "pingpong.send_recv,2,8,0,5.0000,,,,0\n"
                       "pingpong.send_recv,2,8,1,6.0000,,,,0\n";
    assert_int_equal(la, strlen(want));
    assert_memory_equal(a, want, la);
    free(a);
    mbx_obs_spool_free(sp);
    /* The spool's file was unlinked when made: three files, no more. */
    char cmd[128];
    snprintf(cmd, sizeof cmd, "test $(ls -A %s | wc -l) -eq 3", dir);
    assert_int_equal(system(cmd), 0);
    unlink(all);
    unlink(spooled);
    unlink(reset);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stop_and_limits),
        cmocka_unit_test(point_time_caps_a_point),
        cmocka_unit_test(fixed_count_is_fixed),
        cmocka_unit_test(pair_scan_and_settle_come_first),
        cmocka_unit_test(unreliable_pass_is_final),
        cmocka_unit_test(bad_options),
        cmocka_unit_test(refinement_adds_points_between_rounds),
        cmocka_unit_test(preloaded_passes_count),
        cmocka_unit_test(setup_is_the_passes_mean),
        cmocka_unit_test(unreliable_row_is_not_widened),
        cmocka_unit_test(kept_observations_are_bounded),
        cmocka_unit_test(sink_gets_every_observation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
