/* The pacing rule's pure parts (mbx/pacing.h) on synthetic probe series:
 * the correlation time of an Ornstein-Uhlenbeck series with and without
 * probe noise and level switches, the floor at the probe spacing, the
 * dwell times of levels (hand-built and detected), the rule's gap and
 * span, and the jitter. Seeded. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/pacing.h"

#define DT 0.05 /* the monitor's probe spacing */

static uint64_t rng_state;

static double urand(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
    return sqrt(-2 * log(urand())) * cos(6.283185307179586 * urand());
}

/* n probes DT apart: 1 us times exp(sd * OU with correlation time tau +
 * nugget * white), times factor[level] where the level switches after
 * exponential stays of mean dwell[level] (nlev 1: no switch). */
static void series(double *t, double *v, size_t n, double tau, double sd, double nugget,
                   size_t nlev, const double *factor, const double *dwell)
{
    double a = exp(-DT / tau), x = sd * gauss(), left = 0;
    size_t lev = 0;
    for (size_t i = 0; i < n; i++) {
        t[i] = 1.0 + DT * (double)i;
        x = a * x + sd * sqrt(1 - a * a) * gauss();
        if (nlev > 1) {
            left -= DT;
            if (left <= 0) {
                lev = i == 0 ? 0 : (lev + 1) % nlev;
                left = -dwell[lev] * log(urand());
            }
        }
        v[i] = 1e-6 * (nlev > 1 ? factor[lev] : 1) * exp(x + nugget * gauss());
    }
}

static void tau_of_an_ou_series(void **state)
{
    (void)state;
    static double t[4000], v[4000];
    const double taus[] = {0.1, 0.4, 1.5};
    for (size_t k = 0; k < 3; k++)
        for (uint64_t seed = 1; seed <= 5; seed++) {
            rng_state = seed * 101 + k;
            /* probe noise as large as the machine's: the nugget must not
             * shorten tau */
            series(t, v, 4000, taus[k], 0.05, 0.05, 1, NULL, NULL);
            double tau;
            assert_int_equal(mbx_pacing_tau(t, v, 4000, NULL, &tau), MBX_OK);
            print_message("tau true %.2f s, estimated %.3f s\n", taus[k], tau);
            /* reading long is the safe side (a wider interval), and the
             * centring correction leans that way */
            assert_true(tau >= 0.6 * taus[k] && tau <= 2.2 * taus[k]);
        }
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A run of a few seconds: 80 probes over ten taus. Centring such a
 * series takes much of its memory out; the median estimate over seeds
 * must still be near the truth, not a third of it. */
static void tau_of_a_short_series(void **state)
{
    (void)state;
    static double t[80], v[80];
    double est[41];
    for (uint64_t seed = 1; seed <= 41; seed++) {
        rng_state = seed * 7 + 3;
        series(t, v, 80, 0.36, 0.05, 0.006, 1, NULL, NULL);
        assert_int_equal(mbx_pacing_tau(t, v, 80, NULL, &est[seed - 1]), MBX_OK);
    }
    qsort(est, 41, sizeof *est, cmp_d);
    print_message("tau true 0.36 s over 4 s: quartiles %.3f %.3f %.3f s\n", est[10], est[20],
                  est[30]);
    assert_true(est[20] >= 0.8 * 0.36 && est[20] <= 1.5 * 0.36);
}

static void tau_is_at_least_the_spacing(void **state)
{
    (void)state;
    static double t[1000], v[1000];
    rng_state = 9;
    series(t, v, 1000, 1e-3, 0.05, 0.05, 1, NULL, NULL); /* memory far below DT */
    double tau;
    assert_int_equal(mbx_pacing_tau(t, v, 1000, NULL, &tau), MBX_OK);
    assert_true(fabs(tau - DT) < 1e-12);
    /* a constant series has no correlation time; nor have a few probes */
    for (size_t i = 0; i < 1000; i++)
        v[i] = 2e-7;
    assert_int_equal(mbx_pacing_tau(t, v, 1000, NULL, &tau), MBX_OK);
    assert_true(isnan(tau));
    rng_state = 9;
    series(t, v, 1000, 0.5, 0.05, 0, 1, NULL, NULL);
    assert_int_equal(mbx_pacing_tau(t, v, MBX_PACING_MIN_PROBES - 1, NULL, &tau), MBX_OK);
    assert_true(isnan(tau));
    /* bad input */
    assert_int_equal(mbx_pacing_tau(NULL, v, 10, NULL, &tau), MBX_E_INVAL);
    v[3] = -1;
    assert_int_equal(mbx_pacing_tau(t, v, 1000, NULL, &tau), MBX_E_INVAL);
    v[3] = 1e-6;
    t[5] = t[4] - 1;
    assert_int_equal(mbx_pacing_tau(t, v, 1000, NULL, &tau), MBX_E_INVAL);
}

/* The bound on tau as a function: NAN for bad input, near the estimate
 * for a long series, growing faster than it as tau / seen grows, and
 * unbounded from tau / seen = 0.1015 on. */
static void tau_bound_shape(void **state)
{
    (void)state;
    assert_true(isnan(mbx_pacing_tau_bound(NAN, 10)));
    assert_true(isnan(mbx_pacing_tau_bound(0.1, 0)));
    assert_true(isnan(mbx_pacing_tau_bound(-1, 10)));
    assert_true(isnan(mbx_pacing_tau_bound(0.1, INFINITY)));
    double b = mbx_pacing_tau_bound(0.05, 100); /* 2000 probes of no memory */
    assert_true(b > 0.05 && b < 0.07);
    assert_true(isinf(mbx_pacing_tau_bound(1.0, 9.0)));
    assert_true(isinf(mbx_pacing_tau_bound(1.02, 10.0)));
    double prev = 0, ratio = 1;
    for (double y = 0.001; y < 0.1015; y *= 1.05) {
        double bb = mbx_pacing_tau_bound(y * 10, 10);
        assert_true(isfinite(bb) && bb >= prev && bb >= y * 10);
        assert_true(bb / (y * 10) >= ratio * (1 - 1e-9)); /* the doubt only grows */
        prev = bb;
        ratio = bb / (y * 10);
    }
    /* the table's own points: a reading of 0.0311 seen is 0.05 seen */
    assert_true(fabs(mbx_pacing_tau_bound(0.311, 10) - 0.5) < 1e-9);
    /* The 95 % bound: never below the 75 % one, unbounded sooner (from
     * 0.0531 seen), and a reading of 0.0207 seen is 0.05 seen. */
    assert_true(isnan(mbx_pacing_tau_bound95(NAN, 10)));
    assert_true(isnan(mbx_pacing_tau_bound95(0.1, 0)));
    assert_true(isinf(mbx_pacing_tau_bound95(0.54, 10.0)));
    assert_true(isfinite(mbx_pacing_tau_bound95(0.52, 10.0)));
    assert_true(fabs(mbx_pacing_tau_bound95(0.207, 10) - 0.5) < 1e-9);
    prev = 0;
    for (double y = 0.001; y < 0.0531; y *= 1.05) {
        double b95 = mbx_pacing_tau_bound95(y * 10, 10);
        assert_true(isfinite(b95) && b95 >= prev);
        assert_true(b95 >= mbx_pacing_tau_bound(y * 10, 10) * (1 - 1e-9));
        prev = b95;
    }
}

/* The bounds hold what they say, through mbx_pacing_tau itself: over 6 s
 * and 12 s series the 75 % bound reaches the true memory in about three
 * series of four and the 95 % bound in about 19 of 20, for short and long
 * memories. */
static void tau_bound_covers(void **state)
{
    (void)state;
    static double t[240], v[240];
    const double taus[] = {0.15, 0.36, 1.12};
    const size_t lens[] = {120, 240};
    for (size_t l = 0; l < 2; l++)
        for (size_t k = 0; k < 3; k++) {
            size_t n = lens[l], hit = 0, hit95 = 0, runs = 200;
            for (uint64_t seed = 1; seed <= runs; seed++) {
                rng_state = seed * 131 + k * 7 + l;
                series(t, v, n, taus[k], 0.05, 0.006, 1, NULL, NULL);
                double tau;
                assert_int_equal(mbx_pacing_tau(t, v, n, NULL, &tau), MBX_OK);
                hit += mbx_pacing_tau_bound(tau, t[n - 1] - t[0]) >= taus[k];
                hit95 += mbx_pacing_tau_bound95(tau, t[n - 1] - t[0]) >= taus[k];
            }
            double p = (double)hit / (double)runs, p95 = (double)hit95 / (double)runs;
            print_message("tau %.2f s over %.0f s: the bounds reach it in %.1f %% (75 %% bound) "
                          "and %.1f %% (95 %%) of %zu series\n",
                          taus[k], (double)n * DT, 100 * p, 100 * p95, runs);
            /* 75 % and 95 %, within the binomial noise of 200 series and
             * the tables' own (they were measured on other seeds) */
            assert_true(p >= 0.65 && p <= 0.88);
            assert_true(p95 >= 0.89 && p95 <= 0.995);
        }
}

/* Levels 3x apart that last seconds: taken as memory, they would make tau
 * seconds long (and the gap with it); within the detected levels tau is
 * the OU's. */
static void tau_within_levels(void **state)
{
    (void)state;
    static double t[4000], v[4000];
    const double f[2] = {1, 3}, d[2] = {4, 2};
    rng_state = 17;
    series(t, v, 4000, 0.2, 0.03, 0.02, 2, f, d);
    mbx_levels lv = {0};
    assert_int_equal(mbx_levels_detect(v, 4000, NULL, &lv), MBX_OK);
    assert_int_equal(lv.nlevel, 2);
    double within, whole;
    assert_int_equal(mbx_pacing_tau(t, v, 4000, &lv, &within), MBX_OK);
    assert_int_equal(mbx_pacing_tau(t, v, 4000, NULL, &whole), MBX_OK);
    print_message("tau 0.2 s under levels: %.3f s within levels, %.3f s over them\n", within,
                  whole);
    assert_true(within >= 0.12 && within <= 0.32);
    assert_true(whole > 3 * within);
    mbx_pacing_dwell dw;
    assert_int_equal(mbx_pacing_dwell_get(t, 4000, &lv, &dw), MBX_OK);
    /* stays of mean 4 s and 2 s: 3 s a change on average */
    print_message("dwell: %zu changes, mean %.2f s, median %.2f s, shares %.2f / %.2f\n",
                  dw.changes, dw.mean, dw.median, dw.share[0], dw.share[1]);
    assert_false(dw.censored);
    assert_true(dw.mean >= 2.0 && dw.mean <= 4.5);
    assert_true(dw.share[0] > 0.5 && dw.share[0] < 0.85);
    assert_true(fabs(dw.share[0] + dw.share[1] - 1) < 1e-9);
    mbx_levels_free(&lv);
}

/* Levels 16 probes long with a one-probe dip back in every slow stay
 * (the fake back end's probe): the dips are too short to be segments and
 * must not read as memory. With the mean taken before the residuals were
 * cut, their common offset gave a tau that grew with the series (6.5 s
 * at 520 probes). */
static void single_probe_dips_are_not_memory(void **state)
{
    (void)state;
    static double t[520], v[520];
    rng_state = 23;
    for (size_t i = 0; i < 520; i++) {
        int high = (i / 16) % 2 == 1 && i % 32 != 27;
        t[i] = DT * (double)i;
        v[i] = (high ? 0.7e-6 : 0.2e-6) * (1 + 0.04 * (urand() - 0.5));
    }
    mbx_levels lv = {0};
    assert_int_equal(mbx_levels_detect(v, 520, NULL, &lv), MBX_OK);
    double tau;
    assert_int_equal(mbx_pacing_tau(t, v, 520, &lv, &tau), MBX_OK);
    assert_true(tau <= 2 * DT);
    mbx_levels_free(&lv);
}

static void dwell_of_known_segments(void **state)
{
    (void)state;
    double t[40];
    for (size_t i = 0; i < 40; i++)
        t[i] = 0.5 * (double)i; /* 0 .. 19.5 s */
    mbx_segment seg[4] = {
        {0, 10, 1e-6, 0}, {10, 14, 3e-6, 1}, {14, 30, 1e-6, 0}, {30, 40, 1e-6, 0}};
    double level[2] = {1e-6, 3e-6};
    mbx_levels lv = {seg, 4, level, 2};
    mbx_pacing_dwell dw;
    assert_int_equal(mbx_pacing_dwell_get(t, 40, &lv, &dw), MBX_OK);
    assert_int_equal(dw.changes, 2); /* the last boundary stays on level 0 */
    assert_false(dw.censored);
    assert_true(fabs(dw.exposure - 19.5) < 1e-12);
    assert_true(fabs(dw.mean - 19.5 / 2) < 1e-12);
    assert_true(fabs(dw.median - 2.0) < 1e-12); /* the one complete stay: 5 s .. 7 s */
    assert_int_equal(dw.nlevel, 2);
    assert_true(fabs(dw.share[1] - 2.0 / 19.5) < 1e-12);
    assert_true(fabs(dw.share[0] - 17.5 / 19.5) < 1e-12);
    /* no change: censored, the exposure a lower bound */
    mbx_segment one = {0, 40, 1e-6, 0};
    mbx_levels lv1 = {&one, 1, level, 1};
    assert_int_equal(mbx_pacing_dwell_get(t, 40, &lv1, &dw), MBX_OK);
    assert_true(dw.censored && dw.changes == 0 && dw.mean == dw.exposure && isnan(dw.median));
    /* a segment outside the series */
    mbx_segment bad = {0, 41, 1e-6, 0};
    mbx_levels lvb = {&bad, 1, level, 1};
    assert_int_equal(mbx_pacing_dwell_get(t, 40, &lvb, &dw), MBX_E_INVAL);
}

static void the_rule(void **state)
{
    (void)state;
    mbx_pacing p;
    /* nothing known: the plan's S / (R - 1) */
    mbx_pacing_rule(&(mbx_pacing_in){.span = 1, .passes = 5, .tau = NAN, .dwell = NAN}, &p);
    assert_true(fabs(p.gap - 0.25) < 1e-12 && fabs(p.span - 1) < 1e-12);
    assert_true(fabs(p.first_gap - 0.25) < 1e-12 && !p.cannot_cover);
    /* memory of 0.5 s: 1 s between passes, R units tau apart over 2 s */
    mbx_pacing_rule(&(mbx_pacing_in){.span = 1, .passes = 5, .tau = 0.5, .dwell = NAN}, &p);
    assert_true(fabs(p.gap - 1) < 1e-12 && fabs(p.span - 2) < 1e-12 && !p.cannot_cover);
    /* levels of 2 s: three stays, 6 s */
    mbx_pacing_rule(
        &(mbx_pacing_in){.span = 1, .passes = 5, .tau = 0.5, .dwell = 2, .switching = 1}, &p);
    assert_true(fabs(p.span - 6) < 1e-12 && fabs(p.first_gap - 1.5) < 1e-12);
    assert_true(fabs(p.states - 2) < 1e-12);
    /* a censored dwell (no switch seen) asks nothing */
    mbx_pacing_rule(&(mbx_pacing_in){.span = 1, .passes = 5, .tau = 0.1, .dwell = 30}, &p);
    assert_true(fabs(p.span - 1) < 1e-12 && !p.cannot_cover);
    /* a cap of 5 s: the point cannot cover, and is not stretched for nothing */
    mbx_pacing_rule(
        &(mbx_pacing_in){
            .span = 1, .passes = 5, .tau = 0.5, .dwell = 2, .switching = 1, .span_cap = 5},
        &p);
    assert_true(p.cannot_cover && fabs(p.span - 1) < 1e-12 && fabs(p.need - 6) < 1e-12);
    assert_true(fabs(p.gap - 1) < 1e-12 && fabs(p.first_gap - 1) < 1e-12);
    /* a long tau under a cap: the gap stops at cap / (R - 1) */
    mbx_pacing_rule(&(mbx_pacing_in){.span = 1, .passes = 5, .tau = 4, .span_cap = 10}, &p);
    assert_true(fabs(p.gap - 2.5) < 1e-12 && p.cannot_cover);
    /* the cap never goes below S */
    mbx_pacing_rule(&(mbx_pacing_in){.span = 1, .passes = 5, .tau = NAN, .span_cap = 0.5}, &p);
    assert_true(fabs(p.span - 1) < 1e-12 && !p.cannot_cover);
    /* one pass asked: no pacing */
    mbx_pacing_rule(&(mbx_pacing_in){.span = 1, .passes = 1, .tau = 1}, &p);
    assert_true(p.gap == 0 && p.first_gap == 0);
}

static void jitter_has_no_period(void **state)
{
    (void)state;
    double sum = 0, sq = 0, lo = 2, hi = 0;
    for (uint64_t k = 0; k < 10000; k++) {
        double j = mbx_pacing_jitter(42, k % 100, k / 100);
        assert_true(j >= 0.5 && j < 1.5);
        lo = fmin(lo, j);
        hi = fmax(hi, j);
        sum += j;
        sq += j * j;
    }
    double mean = sum / 10000, sd = sqrt(sq / 10000 - mean * mean);
    assert_true(fabs(mean - 1) < 0.01);
    assert_true(fabs(sd - 1 / sqrt(12.0)) < 0.01); /* uniform over a width of 1 */
    assert_true(lo < 0.51 && hi > 1.49);
    assert_true(mbx_pacing_jitter(42, 3, 4) == mbx_pacing_jitter(42, 3, 4));
    assert_true(mbx_pacing_jitter(42, 3, 4) != mbx_pacing_jitter(43, 3, 4));
    assert_true(mbx_pacing_jitter(42, 3, 4) != mbx_pacing_jitter(42, 4, 3));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tau_of_an_ou_series),
        cmocka_unit_test(tau_of_a_short_series),
        cmocka_unit_test(tau_is_at_least_the_spacing),
        cmocka_unit_test(tau_bound_shape),
        cmocka_unit_test(tau_bound_covers),
        cmocka_unit_test(tau_within_levels),
        cmocka_unit_test(single_probe_dips_are_not_memory),
        cmocka_unit_test(dwell_of_known_segments),
        cmocka_unit_test(the_rule),
        cmocka_unit_test(jitter_has_no_period),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
