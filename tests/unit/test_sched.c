/* The scheduler (mbx/sched.h) driven by a simulated machine: time advances
 * only by what is "measured", the machine may switch between two levels,
 * and observations carry seeded noise. Asserts the order (round 0 covers
 * every point of every curve before any second pass, shuffled across
 * curves), the pacing (every settled point's passes span min_span, and no
 * two passes of a point come closer than min_span / (R - 1)), the
 * pilot's sizing, fairness of interleaved curves under level switches and
 * the machine levels of the passes, and that no point whose passes all ran
 * on one of two levels is SETTLED. The stop rules, failures and rows are
 * in test_sched_rows.c; the simulated machine is sched_sim.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sched_sim.h"

static void round_zero_first_and_shuffled(void **state)
{
    (void)state;
    mbx_sched_opts o;
    mbx_sched_opts_init(&o);
    o.seed = 7;
    mbx_sched *s = mbx_sim_make(&o, 3, mbx_sim_grid8, 8);
    sim m = {.rng = 1, .noise = 0.02, .curve_scale = {1, 2, 3}};
    size_t first_curve_of[24], nfirst = 0, seen[24] = {0};
    int order_mixed = 0, second_before_all = 0;
    mbx_sched_req rq;
    while (nfirst < 24) {
        int k = mbx_sim_step(s, &m, &rq);
        assert_int_not_equal(k, MBX_SCHED_DONE);
        if (k != MBX_SCHED_PASS || rq.pilot)
            continue;
        if (seen[rq.point]++ == 0) {
            first_curve_of[nfirst++] = rq.curve;
            if (nfirst > 1 && rq.curve != first_curve_of[nfirst - 2])
                order_mixed++;
        } else {
            second_before_all = 1;
        }
    }
    assert_false(second_before_all);
    /* In plan order the curve would change twice; shuffled, far more. */
    assert_true(order_mixed > 4);
    mbx_sched_free(s);
}

static void plan_order_is_kept(void **state)
{
    (void)state;
    mbx_sched_opts o;
    mbx_sched_opts_init(&o);
    o.order_plan = 1;
    o.probe_every = -1;
    mbx_sched *s = mbx_sim_make(&o, 2, mbx_sim_grid8, 8);
    sim m = {.rng = 1, .noise = 0.02, .curve_scale = {1, 2}};
    mbx_sched_req rq;
    size_t expect = 0;
    while (expect < 16) {
        int k = mbx_sim_step(s, &m, &rq);
        assert_int_equal(k, MBX_SCHED_PASS);
        if (rq.pilot)
            continue;
        assert_int_equal(rq.point, expect);
        expect++;
    }
    mbx_sched_free(s);
}

static void pilot_sizes_the_passes(void **state)
{
    (void)state;
    mbx_sched_opts o;
    mbx_sched_opts_init(&o);
    o.probe_every = -1;
    o.order_plan = 1;
    static const uint64_t g[] = {0, 1000000};
    mbx_sched *s = mbx_sim_make(&o, 1, g, 2);
    sim m = {.rng = 3, .curve_scale = {1}};
    mbx_sched_req rq;
    /* Point 0: 1 us per observation: a 1 ms pass is 1000 observations. */
    assert_int_equal(mbx_sim_step(s, &m, &rq), MBX_SCHED_PASS);
    assert_true(rq.pilot && rq.warm && rq.nobs == MBX_SCHED_PILOT_N);
    assert_int_equal(mbx_sim_step(s, &m, &rq), MBX_SCHED_PASS);
    assert_false(rq.pilot);
    assert_int_equal(rq.point, 0);
    assert_false(rq.warm); /* the pilot warmed it up */
    assert_int_equal(rq.nobs, 1000);
    /* Point 1: 1 ms per observation: the floor of 16 observations. */
    assert_int_equal(mbx_sim_step(s, &m, &rq), MBX_SCHED_PASS);
    assert_true(rq.pilot && rq.point == 1);
    assert_int_equal(mbx_sim_step(s, &m, &rq), MBX_SCHED_PASS);
    assert_int_equal(rq.nobs, MBX_SCHED_PASS_NMIN);
    mbx_sched_free(s);
}

static void passes_are_paced_and_spread(void **state)
{
    (void)state;
    mbx_sched_opts o;
    mbx_sched_opts_init(&o);
    mbx_sched *s = mbx_sim_make(&o, 2, mbx_sim_grid8, 8);
    sim m = {.rng = 5, .noise = 0.05, .curve_scale = {1, 1.5}};
    double end = mbx_sim_run_all(s, &m);
    assert_true(end >= o.passes.min_span);
    size_t fin[64], nf = mbx_sched_take_final(s, fin, 64);
    assert_int_equal(nf, 16);
    assert_int_equal(mbx_sched_take_final(s, fin, 64), 0); /* each once */
    for (size_t i = 0; i < mbx_sched_points(s); i++) {
        mbx_sched_point_info in;
        assert_int_equal(mbx_sched_point_info_get(s, i, &in), MBX_OK);
        assert_true(in.final);
        assert_true(in.passes.b.r >= o.passes.min_passes);
        assert_int_equal(mbx_sim_check_paced(s, &o, i), in.passes.b.r);
        if (in.status == MBX_POINT_SETTLED)
            assert_true(in.passes.span >= o.passes.min_span);
        mbx_result r;
        assert_int_equal(mbx_sched_result(s, i, &r), MBX_OK);
        assert_int_equal(r.passes, in.passes.b.r);
        assert_true(r.pass_span >= o.passes.min_span || r.status != MBX_POINT_SETTLED);
        assert_true(r.s.ci_lo <= r.s.median && r.s.median <= r.s.ci_hi);
        assert_true(r.iid_stderr > 0 && r.iid_ci_lo <= r.iid_ci_hi);
        assert_true(r.levels == 1); /* one level: the probes say so */
        size_t nm;
        const double *pm = mbx_sched_pass_medians(s, i, &nm);
        assert_int_equal(nm, r.passes);
        assert_non_null(pm);
        /* The value is within 5 % of the mbx_sim_truth (5 % noise, many passes). */
        double t = mbx_sim_truth(&m, in.curve, in.x);
        assert_true(fabs(r.s.median / t - 1) < 0.05);
    }
    mbx_sched_stats st;
    mbx_sched_stats_get(s, &st);
    /* A probe is due every 0.05 s but waits for the pass under way (at
     * most 16 observations of 2 ms here). */
    assert_true(st.probes >= (size_t)(end / (MBX_SCHED_PROBE_EVERY_S + 0.035)) - 1);
    assert_true(m.waits > 0); /* 16 points cannot fill a second of passes */
    mbx_sched_free(s);
}

/* Two identical curves under a machine that switches level every 0.3 s:
 * interleaving makes them agree. Measured one after the other, each would
 * sit on its own level. */
static void interleaved_curves_are_fair(void **state)
{
    (void)state;
    size_t agree = 0, total = 0, more = 0;
    const char *env = getenv("MBX_SCHED_SEEDS"); /* fewer under valgrind */
    uint64_t seeds = env && atoi(env) > 0 ? (uint64_t)atoi(env) : 20;
    for (uint64_t seed = 1; seed <= seeds; seed++) {
        mbx_sched_opts o;
        mbx_sched_opts_init(&o);
        o.seed = seed;
        mbx_sched *s = mbx_sim_make(&o, 2, mbx_sim_grid8, 8);
        sim m = {.rng = seed * 77,
                 .noise = 0.05,
                 .level_period = 0.3,
                 .level_factor = 1.6,
                 .curve_scale = {1, 1}};
        mbx_sim_run_all(s, &m);
        for (size_t i = 0; i < 16; i++) /* levels: some points need more than R */
            more += mbx_sim_check_paced(s, &o, i) > o.passes.min_passes;
        for (size_t i = 0; i < 8; i++) {
            mbx_result a, b;
            assert_int_equal(mbx_sched_result(s, i, &a), MBX_OK);
            assert_int_equal(mbx_sched_result(s, i + 8, &b), MBX_OK);
            total++;
            agree += a.s.ci_lo <= b.s.ci_hi && b.s.ci_lo <= a.s.ci_hi;
            assert_true(a.levels >= 1);
        }
        mbx_sched_free(s);
    }
    print_message("interleaved identical curves, overlapping CIs: %zu of %zu; %zu points paced "
                  "past R passes\n",
                  agree, total, more);
    assert_true(more > 0);
    if (seeds >= 10)
        assert_true(agree * 100 >= total * 95);
    else
        assert_true(agree + 1 >= total); /* a short run under valgrind: one miss */
}

/* Each pass's machine level from the probes: the sim switches levels
 * every 0.7 s (passes spread over 4 s), so passes of one point land at both; the level of a pass
 * (of the probes around it) is the sim's level there, and a pass whose
 * probes around it lie on two levels has none. */
static void pass_levels_follow_the_probes(void **state)
{
    (void)state;
    mbx_sched_opts o;
    mbx_sched_opts_init(&o);
    o.seed = 5;
    o.passes.min_span = 4; /* a run of some seconds: enough probes to tell levels */
    mbx_sched *s = mbx_sim_make(&o, 1, mbx_sim_grid8, 4);
    /* probes with 2 % noise, as real ones have: the levels' detector
     * tests segments against their spread */
    sim m = {.rng = 5,
             .noise = 0.02,
             .probe_noise = 0.02,
             .level_period = 0.7,
             .level_factor = 3,
             .curve_scale = {1}};
    mbx_sim_run_all(s, &m);
    size_t both = 0, total = 0, agree = 0;
    for (size_t i = 0; i < 4; i++) {
        int lv[64];
        size_t npm, n = mbx_sched_pass_levels(s, i, lv, 64);
        const double *pm = mbx_sched_pass_medians(s, i, &npm);
        assert_int_equal(n, npm);
        int seen[2] = {0, 0};
        for (size_t k = 0; k < n; k++) {
            /* a pass before the first segment of levels has none */
            assert_true(lv[k] == 0 || lv[k] == 1 || lv[k] == MBX_PASSES_NO_LEVEL);
            if (lv[k] < 0)
                continue;
            seen[lv[k]] = 1;
            /* the slow level is the one whose medians are about 3x */
            total++;
            agree += (lv[k] == 1) == (pm[k] > 2 * mbx_sim_truth(&m, 0, mbx_sim_grid8[i]));
        }
        both += seen[0] && seen[1];
    }
    /* A pass between two probes with a switch of the sim between them
     * straddles a change as far as the probes can tell, and one after the
     * last probe has no probe to say the level held: neither has a level. */
    const double *pt, *pv;
    size_t np, unknown = 0;
    mbx_sched_probes(s, &pt, &pv, &np);
    for (size_t i = 0; i < 4; i++) {
        int lv[64];
        double tm[64];
        size_t n = mbx_sched_pass_levels(s, i, lv, 64);
        assert_int_equal(mbx_sched_pass_times(s, i, tm, 64), n);
        for (size_t k = 0; k < n; k++) {
            size_t a = 0;
            while (a < np && pt[a] <= tm[k])
                a++;
            int across = a == np || (a > 0 && (long)(pt[a - 1] / m.level_period) !=
                                                  (long)(pt[a] / m.level_period));
            if (across)
                assert_int_equal(lv[k], MBX_PASSES_NO_LEVEL);
            unknown += (size_t)across;
        }
    }
    print_message("pass levels: %zu of %zu labelled passes agree with the sim's level; %zu "
                  "across a switch or after the last probe\n",
                  agree, total, unknown);
    assert_true(unknown >= 1);
    assert_true(both >= 1);
    assert_true(agree * 10 >= total * 8);
    assert_int_equal(mbx_sched_pass_levels(s, 99, (int[1]){0}, 1), 0); /* no such point */
    mbx_sched_free(s);

    /* One level: no level ids. */
    mbx_sched_opts_init(&o);
    s = mbx_sim_make(&o, 1, mbx_sim_grid8, 1);
    sim one = {.rng = 5, .noise = 0.02, .curve_scale = {1}};
    mbx_sim_run_all(s, &one);
    int lv[64];
    size_t n = mbx_sched_pass_levels(s, 0, lv, 64);
    assert_true(n >= 5);
    for (size_t k = 0; k < n; k++)
        assert_int_equal(lv[k], MBX_PASSES_NO_LEVEL);
    mbx_sched_free(s);
}

/* Two levels 3x apart with stays of 0.6 and 0.2 s: a point's passes can
 * span several stays, and by chance all of one point's passes may still
 * run on one level. Such a point covers that level, not the launch's long run
 * which mixes both: its row is UNSETTLED "passes on 1 of 2 levels", never
 * SETTLED; and over these seeds some rows are. */
static void one_level_points_are_not_settled(void **state)
{
    (void)state;
    const char *env = getenv("MBX_SCHED_SEEDS"); /* fewer under valgrind */
    size_t flagged = 0, seeds = env && atoi(env) > 0 ? 3 * (size_t)atoi(env) : 60;
    for (uint64_t seed = 1; seed <= seeds; seed++) {
        mbx_sched_opts o;
        mbx_sched_opts_init(&o);
        o.seed = seed;
        mbx_sched *s = mbx_sim_make(&o, 1, mbx_sim_grid8, 8);
        sim m = {.rng = seed * 31 + 7,
                 .noise = 0.02,
                 .probe_noise = 0.02,
                 .curve_scale = {1},
                 .ou_sd = 0.02,
                 .ou_tau = 0.155,
                 .nlev = 2,
                 .lev_factor = {1, 3},
                 .lev_dwell = {0.6, 0.2}};
        mbx_sim_run_all(s, &m);
        mbx_sched_pacing pg;
        mbx_sched_pacing_get(s, &pg);
        for (size_t i = 0; i < mbx_sched_points(s); i++) {
            mbx_result r;
            if (mbx_sched_result(s, i, &r) != MBX_OK)
                continue;
            int lv[64];
            size_t n = mbx_sched_pass_levels(s, i, lv, 64), k = 1;
            while (k < n && lv[k] == lv[0])
                k++;
            if (r.status == MBX_POINT_SETTLED && pg.changes >= 1 && n > 0 && lv[0] >= 0)
                assert_true(k < n); /* a pass on another level */
            flagged += (size_t)(strncmp(r.status_reason, "passes on 1 of", 14) == 0);
        }
        mbx_sched_free(s);
    }
    print_message("rows flagged 'passes on 1 of N levels' over %zu seeds: %zu\n", seeds, flagged);
    if (seeds >= 30) /* 25 of 480 rows at 60 seeds */
        assert_true(flagged >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_zero_first_and_shuffled),
        cmocka_unit_test(plan_order_is_kept),
        cmocka_unit_test(pilot_sizes_the_passes),
        cmocka_unit_test(passes_are_paced_and_spread),
        cmocka_unit_test(interleaved_curves_are_fair),
        cmocka_unit_test(pass_levels_follow_the_probes),
        cmocka_unit_test(one_level_points_are_not_settled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
