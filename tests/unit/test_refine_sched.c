/* Refinement through the scheduler (docs/algorithms.md, "Refinement with
 * uncertainty"): the real scheduler (sched_sim.c drives it) at its default
 * settings measures a factor-4 grid 1 B .. 1 MiB in paced passes whose
 * medians carry seeded pass-to-pass noise, feeds refinement between rounds
 * with settled or R-pass points, and takes its proposals. A straight
 * log-log line must rarely gain a point; a knee of 2x at 12 KiB must draw
 * one into its grid segment [4 KiB, 16 KiB]. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "mbx/refine.h"
#include "refine_sim.h"
#include "sched_sim.h"

/* 400: the paced passes split a straight line in 2 % of runs; 200 trials
 * cannot tell 2 % (4 of 200, Wilson [0.8, 5.0]) from the 5 % target. */
#define TRIALS 400

static const uint64_t grid4[] = {1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576};

static double line_s(double x)
{
    return 1e-6 * rsim_line(x);
}

static double knee_s(double x)
{
    return 1e-6 * rsim_knee(x);
}

/* One run at pass noise sigma; returns the refined points, and whether one
 * lies inside (4 KiB, 16 KiB) in *at_knee. */
static size_t one_run(double (*f)(double), double sigma, uint64_t seed, int *at_knee)
{
    mbx_sched_opts o;
    mbx_sched_opts_init(&o);
    o.seed = seed;
    mbx_sched *s;
    assert_int_equal(mbx_sched_create(&o, &s), MBX_OK);
    /* Sizes: geometric splits, aligned to 1 B, no segment under 5 %. */
    mbx_sched_curve c = {.grid = grid4, .ngrid = sizeof grid4 / sizeof grid4[0], .budget = 32};
    c.refine_eps = 0.05;
    c.geometric = 1;
    c.align = 1;
    c.min_ratio = MBX_REFINE_MIN_RATIO;
    size_t id;
    assert_int_equal(mbx_sched_add_curve(s, &c, &id), MBX_OK);
    sim m = {.rng = seed, .noise = 0.01, .curve_scale = {1}, .pass_noise = sigma, .curve = f};
    mbx_sim_run_all(s, &m);
    size_t refined = 0;
    *at_knee = 0;
    for (size_t i = 0; i < mbx_sched_points(s); i++) {
        mbx_sched_point_info in;
        assert_int_equal(mbx_sched_point_info_get(s, i, &in), MBX_OK);
        refined += (size_t)in.refined;
        *at_knee |= in.refined && in.x > 4096 && in.x < 16384;
    }
    mbx_sched_free(s);
    return refined;
}

/* Trials at pass noise drawn from [1 %, 10 %]: the share that split (line)
 * or found the knee, with Wilson's 95 % interval. */
static size_t trials(double (*f)(double), const char *what, int knee, size_t *n)
{
    size_t hits = 0;
    *n = rsim_trials(TRIALS);
    for (uint64_t t = 0; t < *n; t++) {
        rsim_rng g = {t * 104729u + (knee ? 17u : 3u)};
        double sigma = 0.01 + 0.09 * rsim_uniform(&g);
        int at = 0;
        size_t n = one_run(f, sigma, t + 1, &at);
        hits += knee ? (size_t)at : (size_t)(n > 0);
    }
    double lo, hi;
    rsim_wilson(hits, *n, &lo, &hi);
    printf("scheduler, defaults, pass noise 1-10 %%: %s in %zu of %zu runs (%.1f %%, Wilson 95 %% "
           "[%.1f, %.1f] %%)\n",
           what, hits, *n, 100.0 * (double)hits / (double)*n, 100 * lo, 100 * hi);
    return hits;
}

static void straight_line_rarely_splits(void **state)
{
    (void)state;
    size_t n, k = trials(line_s, "straight line split (false)", 0, &n);
    double lo, hi;
    rsim_wilson(k, n, &lo, &hi);
    if (n >= TRIALS)
        assert_true(hi <= 0.05);
}

static void knee_is_found(void **state)
{
    (void)state;
    size_t n, k = trials(knee_s, "knee 2x at 12 KiB found (power)", 1, &n);
    double lo, hi;
    rsim_wilson(k, n, &lo, &hi);
    if (n >= TRIALS)
        assert_true(lo >= 0.90);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(straight_line_rarely_splits),
        cmocka_unit_test(knee_is_found),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
