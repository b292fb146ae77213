/* Refinement on noisy curves (docs/algorithms.md, "Refinement with
 * uncertainty"), through the production code: every point is measured in
 * passes whose medians carry seeded noise, its value and standard error
 * are ESTIMATED from them by mbx_passes_between (the scheduler's
 * estimator), and it joins refinement with its passes and degrees of
 * freedom (mbx_refine_add_est). The curves are straight on the log-log
 * scale (nothing to refine) or carry a knee, a jump of 2x at 12 KiB.
 * Each trial has its own seed, so every figure is exactly reproducible. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/passes.h"
#include "mbx/refine.h"
#include "refine_sim.h"

#define KIB 1024u
#define MIB (1024u * 1024u)
#define MAXPTS 512
#define TRIALS 1000
#define NPASS 5 /* R, the passes' default */

typedef double (*curve_fn)(double x);

/* One point: NPASS pass medians f(x) (1 + sigma z), sigma drawn from
 * [lo, hi] per point; value and se from the production estimator. */
static void measure(mbx_refine *r, rsim_rng *g, curve_fn f, uint64_t x, double lo, double hi)
{
    double m[NPASS], scratch[NPASS], sigma = lo + (hi - lo) * rsim_uniform(g);
    for (int k = 0; k < NPASS; k++) {
        double z = rsim_normal(g);
        m[k] = f((double)x) * (1.0 + sigma * (z < -5.0 ? -5.0 : z)); /* > 0 for sigma <= 0.1 */
    }
    mbx_between b;
    assert_int_equal(mbx_passes_between(m, NPASS, scratch, &b), MBX_OK);
    assert_int_equal(mbx_refine_add_est(r, x, b.value, b.se, NPASS, NPASS - 1.0), MBX_OK);
}

static mbx_refine *make(double eps, size_t budget, double alpha)
{
    mbx_refine_opts o = {.eps = eps,
                         .budget = budget,
                         .align = 1,
                         .geometric = 1,
                         .min_ratio = MBX_REFINE_MIN_RATIO,
                         .alpha = alpha};
    mbx_refine *r = NULL;
    assert_int_equal(mbx_refine_create(&o, &r), MBX_OK);
    return r;
}

/* A factor-2 grid 1 B .. 4 MiB (23 points) measured, then refined to the
 * end; whether a proposal fell inside [8 KiB, 16 KiB] (the knee's grid
 * segment) goes to *at_knee. Returns the proposals. */
static size_t run(mbx_refine *r, rsim_rng *g, curve_fn f, double lo, double hi, int *at_knee)
{
    for (uint64_t x = 1; x <= 4 * MIB; x *= 2)
        measure(r, g, f, x, lo, hi);
    uint64_t p;
    size_t k = 0;
    *at_knee = 0;
    while (mbx_refine_next(r, &p, NULL)) {
        k++;
        *at_knee |= p > 8 * KIB && p < 16 * KIB;
        measure(r, g, f, p, lo, hi);
    }
    return k;
}

/* Trials of curve f at pass noise [lo, hi]: how many split at all, and
 * how many proposed a point at the knee. */
static void trials(curve_fn f, double lo, double hi, uint64_t seed, size_t *split, size_t *knee)
{
    *split = *knee = 0;
    for (uint64_t t = 0; t < rsim_trials(TRIALS); t++) {
        rsim_rng g = {t * 7919u + seed};
        mbx_refine *r = make(0.05, 100, 0.0);
        int at = 0;
        *split += run(r, &g, f, lo, hi, &at) > 0;
        *knee += (size_t)at;
        mbx_refine_free(r);
    }
}

static void print_share(const char *what, size_t k, double lo, double hi)
{
    double wl, wh;
    size_t n = rsim_trials(TRIALS);
    rsim_wilson(k, n, &wl, &wh);
    printf("%s, pass noise %g-%g %%: %zu of %zu trials (%.1f %%, Wilson 95 %% [%.1f, %.1f] %%)\n",
           what, 100 * lo, 100 * hi, k, n, 100.0 * (double)k / (double)n, 100 * wl, 100 * wh);
}

/* Curve f at each noise band: the false splits (knee 0) or the trials
 * that found the knee (knee 1), printed with their Wilson interval. A
 * straight line splits in at most 5 % of the trials at every band. The
 * knee: with 5 passes and no more (the scheduler gives noisy points
 * more), the Bonferroni threshold over about 21 tested points at 4
 * degrees of freedom needs the knee well outside the noise: found nearly
 * always at 1-3 % pass noise, in about half of the trials at 5-10 %
 * (test_refine_sched: through the scheduler, which measures such points
 * until they settle, it is found in every run). */
static void bands(curve_fn f, uint64_t seed, int knee)
{
    static const double band[][2] = {{0.01, 0.10}, {0.01, 0.03}, {0.05, 0.10}};
    for (size_t b = 0; b < sizeof band / sizeof band[0]; b++) {
        size_t split, found;
        trials(f, band[b][0], band[b][1], seed + b, &split, &found);
        size_t k = knee ? found : split;
        print_share(knee ? "knee 2x at 12 KiB: found (power)"
                         : "straight line, eps 5 %: false splits",
                    k, band[b][0], band[b][1]);
        double wl, wh;
        rsim_wilson(k, TRIALS, &wl, &wh);
        if (rsim_trials(TRIALS) < TRIALS)
            continue; /* a few trials check memory, not the figures */
        if (knee)
            assert_true(wl >= (band[b][1] <= 0.03 ? 0.95 : 0.40));
        else
            assert_true(wh <= 0.05);
    }
}

static void straight_line_rarely_splits(void **state)
{
    (void)state;
    bands(rsim_line, 1, 0);
}

static void knee_is_found(void **state)
{
    (void)state;
    bands(rsim_knee, 101, 1);
}

/* Points 1, 4, 16 (w = 1/2): the log-log line through 1 and 16 predicts
 * 2 at 4, measured 2.4 (error 1/6, d = log 1.2). With se only at 4 the
 * deviation's degrees of freedom are that point's, so |d| / s_4 meets
 * Student's t at exactly df: 2.776 at 4, 12.706 at 1 (the tables). Only
 * point 4 is tested (alpha 0.05 over 1 test). */
static size_t splits_at(double tstat, size_t passes, double df)
{
    mbx_refine *r = make(0.05, 10, 0.0);
    double s4 = log(1.2) / tstat;
    assert_int_equal(mbx_refine_add_est(r, 1, 1.0, 0.0, passes, df), MBX_OK);
    assert_int_equal(mbx_refine_add_est(r, 4, 2.4, s4 * 2.4, passes, df), MBX_OK);
    assert_int_equal(mbx_refine_add_est(r, 16, 4.0, 0.0, passes, df), MBX_OK);
    assert_true(fabs(mbx_refine_worst_any(r) - 1.0 / 6.0) < 1e-12);
    uint64_t p;
    size_t k = 0;
    while (mbx_refine_next(r, &p, NULL))
        k++;
    mbx_refine_free(r);
    return k;
}

static void t_threshold_and_passes(void **state)
{
    (void)state;
    assert_int_equal(splits_at(2.70, NPASS, 4.0), 0); /* t(4) 97.5 %: 2.776 */
    assert_int_equal(splits_at(2.85, NPASS, 4.0), 2); /* both segments, 2 and 8 */
    assert_int_equal(splits_at(12.5, NPASS, 1.0), 0); /* t(1): 12.706 */
    assert_int_equal(splits_at(12.9, NPASS, 1.0), 2);
    /* Fewer than R passes: never judged, however far off. */
    assert_int_equal(splits_at(100.0, NPASS - 1, 4.0), 0);
    /* Known errors (add_se) use the normal quantile 1.96. */
    mbx_refine *r = make(0.05, 10, 0.0);
    double s4 = log(1.2) / 2.0;
    assert_int_equal(mbx_refine_add_se(r, 1, 1.0, 0.0), MBX_OK);
    assert_int_equal(mbx_refine_add_se(r, 4, 2.4, s4 * 2.4), MBX_OK);
    assert_int_equal(mbx_refine_add_se(r, 16, 4.0, 0.0), MBX_OK);
    uint64_t p;
    assert_int_equal(mbx_refine_next(r, &p, NULL), 1);
    assert_int_equal(p, 2);
    mbx_refine_free(r);
    /* The interpolation criterion itself. */
    assert_true(fabs(mbx_refine_loglog(1, 1.0, 16, 4.0, 4) - 2.0) < 1e-12);
    assert_true(fabs(mbx_refine_interp_err(1, 1.0, 16, 4.0, 4, 2.4) - 1.0 / 6.0) < 1e-12);
    assert_true(isnan(mbx_refine_loglog(0, 1.0, 16, 4.0, 4)));
    /* Bad input: df below 1, se negative, alpha outside [0, 1). */
    r = make(0.05, 10, 0.0);
    assert_int_equal(mbx_refine_add_est(r, 1, 1.0, 0.1, NPASS, 0.5), MBX_E_INVAL);
    assert_int_equal(mbx_refine_add_est(r, 1, 1.0, -0.1, NPASS, 4.0), MBX_E_INVAL);
    assert_int_equal(mbx_refine_count(r), 0);
    mbx_refine_free(r);
    mbx_refine_opts bad = {.eps = 0.05, .budget = 10, .alpha = 1.0};
    r = NULL;
    assert_int_equal(mbx_refine_create(&bad, &r), MBX_E_INVAL);
    assert_null(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_threshold_and_passes),
        cmocka_unit_test(straight_line_rarely_splits),
        cmocka_unit_test(knee_is_found),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
