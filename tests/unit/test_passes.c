/* Between-pass statistics (mbx/passes.h): hand-computed cases, the stop
 * verdict and the scheduler helpers. The coverage simulation of the 95 %
 * CI is test_passes_coverage.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/passes.h"
#include "mbx/stats.h"

#define TOL 1e-12

static void near(double got, double want)
{
    if (!(fabs(got - want) <= TOL * (1.0 + fabs(want))))
        fail_msg("got %.15g, want %.15g", got, want);
}

/* ---- hand-computed cases ---- */

/* The interpolated order-statistic interval of sorted x[0..n) at 95 %,
 * written out for a known d (the largest index whose pair covers with
 * >= 95 %) and the coverages g(d), g(d + 1) given as binomial counts over
 * 2^n: lambda = (n - d) I / (d + (n - 2d) I), I = (g(d) - .95) / (g(d) -
 * g(d + 1)), the bounds geometric means of the bracketing pairs. */
static void hs_want(const double *x, int n, int d, double below_d, double below_d1, double *lo,
                    double *hi)
{
    double all = ldexp(1.0, n), gd = 1.0 - 2.0 * below_d / all, g1 = 1.0 - 2.0 * below_d1 / all;
    double in = (gd - 0.95) / (gd - g1), lam = (n - d) * in / (d + (n - 2 * d) * in);
    *lo = pow(x[d - 1], 1.0 - lam) * pow(x[d], lam);
    *hi = pow(x[n - d], 1.0 - lam) * pow(x[n - d - 1], lam);
}

/* R = 5: value 3, deviations 2 1 0 1 2, MAD 1; below 6 units the interval
 * is [min, max] at its level 1 - 2^-4 = 93.75 %, read as a 95 % interval
 * from 5 units on (docs/algorithms.md): err is its log half-width over
 * 1.96. */
static void five_passes(void **state)
{
    (void)state;
    const double m[] = {4, 1, 3, 5, 2};
    double scratch[5];
    mbx_between b;
    assert_int_equal(mbx_passes_between(m, 5, scratch, &b), MBX_OK);
    assert_int_equal(b.r, 5);
    near(b.value, 3.0);
    near(b.mad, 1.0);
    near(b.ci_lo, 1.0);
    near(b.ci_hi, 5.0);
    near(b.level, 0.9375);
    assert_int_equal(b.ci_exact, 0);
    near(b.relerr, log(5.0) / (2 * 1.959963984540054));
    near(b.se, 3.0 * b.relerr);
    near(b.cirel, 4.0 / 6.0);
    near(b.sd, 1.482602218505602 * 1.206);
    near(b.cv, b.sd / 3.0);
    assert_true(isnan(mbx_passes_watched(MBX_STOP_CI, &b))); /* not a 95 % interval */
    near(mbx_passes_watched(MBX_STOP_CV, &b), b.cv);
    near(mbx_passes_watched(MBX_STOP_STDERR, &b), b.relerr);
}

/* R = 8 with 100 replacing 8: value 4.5, MAD 2. d = 1 (g(1) = 1 - 2/256,
 * g(2) = 1 - 2 * 9/256 < 95 %): the bounds lie between x(1), x(2) and
 * x(8), x(7), so the outlier moves the upper one to about 8.3, not 100. */
static void eight_passes_outlier(void **state)
{
    (void)state;
    const double m[] = {1, 2, 3, 4, 5, 6, 7, 100};
    double scratch[8];
    mbx_between b;
    assert_int_equal(mbx_passes_between(m, 8, scratch, &b), MBX_OK);
    near(b.value, 4.5);
    near(b.mad, 2.0);
    assert_int_equal(b.ci_exact, 1);
    double lo, hi;
    hs_want(m, 8, 1, 1.0, 9.0, &lo, &hi);
    near(b.ci_lo, lo);
    near(b.ci_hi, hi);
    assert_true(b.ci_lo > 1.0 && b.ci_lo < 2.0 && b.ci_hi > 7.0 && b.ci_hi < 10.0);
    near(b.relerr, log(hi / lo) / (2 * 1.959963984540054));
    near(b.sd, 1.482602218505602 * 1.129 * 2.0);
}

/* Twenty passes 1.00 .. 1.19: d = 6 (the binomial counts below 6 and 7
 * are 21700 and 60460 of 2^20), between x(6), x(7) and x(15), x(14). */
static void twenty_passes(void **state)
{
    (void)state;
    double m[20], x[20], scratch[20];
    for (int i = 0; i < 20; i++) {
        m[i] = 1.0 + 0.01 * (double)((i * 7) % 20); /* 1.00 .. 1.19, shuffled */
        x[i] = 1.0 + 0.01 * i;
    }
    mbx_between b;
    assert_int_equal(mbx_passes_between(m, 20, scratch, &b), MBX_OK);
    near(b.value, 1.095);
    near(b.mad, 0.05);
    size_t lo, hi;
    assert_int_equal(mbx_stats_median_ci_index(20, &lo, &hi), 1);
    assert_int_equal(lo, 6);
    double want_lo, want_hi;
    hs_want(x, 20, 6, 21700.0, 60460.0, &want_lo, &want_hi);
    near(b.ci_lo, want_lo);
    near(b.ci_hi, want_hi);
    assert_true(b.ci_lo > 1.05 && b.ci_lo < 1.06 && b.ci_hi > 1.13 && b.ci_hi < 1.14);
    near(b.sd, 1.482602218505602 * (20.0 / 19.2) * 0.05);
}

/* One pass: a value, no error. All equal: zero error, a point CI. */
static void degenerate(void **state)
{
    (void)state;
    double scratch[6];
    mbx_between b;
    const double one[] = {2e-6};
    assert_int_equal(mbx_passes_between(one, 1, scratch, &b), MBX_OK);
    near(b.value, 2e-6);
    assert_true(isnan(b.se) && isnan(b.relerr) && isnan(b.sd) && isnan(b.cirel));
    near(b.ci_lo, 2e-6);
    near(b.ci_hi, 2e-6);
    const double same[] = {3e-6, 3e-6, 3e-6, 3e-6, 3e-6, 3e-6};
    assert_int_equal(mbx_passes_between(same, 6, scratch, &b), MBX_OK);
    near(b.se, 0.0);
    near(b.ci_lo, 3e-6);
    near(b.ci_hi, 3e-6);
    const double bad[] = {1.0, 0.0};
    assert_int_equal(mbx_passes_between(bad, 2, scratch, &b), MBX_E_INVAL);
    const double nan[] = {1.0, NAN};
    assert_int_equal(mbx_passes_between(nan, 2, scratch, &b), MBX_E_INVAL);
    assert_int_equal(mbx_passes_between(one, 0, scratch, &b), MBX_E_INVAL);
    assert_int_equal(mbx_passes_between(NULL, 1, scratch, &b), MBX_E_INVAL);
}

/* ---- the point object: verdict, priority, needed, levels ---- */

static mbx_pass pass_at(double median, double t0, int level)
{
    mbx_pass p = {median, 100, t0, t0 + 0.001, level};
    return p;
}

static mbx_passes_result result_of(const mbx_passes *p)
{
    mbx_passes_result r;
    assert_int_equal(mbx_passes_result_get(p, &r), MBX_OK);
    return r;
}

static void verdicts(void **state)
{
    (void)state;
    mbx_passes_opts o;
    mbx_passes_opts_init(&o);
    assert_true(o.eps == 0.03 && o.min_passes == 5 && o.min_span == 1.0);
    mbx_passes *p;
    assert_int_equal(mbx_passes_create(&o, &p), MBX_OK);

    mbx_passes_result r = result_of(p);
    assert_int_equal(r.verdict, MBX_PASSES_EMPTY);
    assert_true(isnan(r.b.value) && isinf(r.priority));
    assert_int_equal(mbx_passes_needed(p, &r), SIZE_MAX);

    /* Four tight passes within 0.3 s: too few. */
    const double m[] = {1.00e-6, 1.01e-6, 0.99e-6, 1.005e-6, 0.995e-6, 1.002e-6};
    for (int i = 0; i < 4; i++) {
        mbx_pass q = pass_at(m[i], 0.1 * i, MBX_PASSES_NO_LEVEL);
        assert_int_equal(mbx_passes_add(p, &q), MBX_OK);
    }
    r = result_of(p);
    assert_int_equal(r.verdict, MBX_PASSES_FEW);
    assert_true(r.b.relerr < 0.03);
    near(r.priority, 1.0 + 1.0); /* on target, one pass missing */
    assert_int_equal(mbx_passes_needed(p, &r), 1);
    assert_int_equal(r.n_obs, 400);

    /* Fifth pass, still within 0.4 s: the span is short. */
    mbx_pass q = pass_at(m[4], 0.4, MBX_PASSES_NO_LEVEL);
    assert_int_equal(mbx_passes_add(p, &q), MBX_OK);
    r = result_of(p);
    assert_int_equal(r.verdict, MBX_PASSES_SHORT);
    near(r.span, 0.401);
    near(r.priority, 1.0);
    assert_int_equal(mbx_passes_needed(p, &r), 1);

    /* A late pass opens the span: settled. */
    q = pass_at(m[5], 2.0, MBX_PASSES_NO_LEVEL);
    assert_int_equal(mbx_passes_add(p, &q), MBX_OK);
    r = result_of(p);
    assert_int_equal(r.verdict, MBX_PASSES_SETTLED);
    near(r.priority, 0.0);
    assert_int_equal(mbx_passes_needed(p, &r), 0);
    near(r.first_start, 0.0);
    near(r.last_end, 2.001);
    assert_string_equal(mbx_passes_verdict_name(r.verdict), "SETTLED");

    /* A noisy point: enough passes and span, relerr above target; it
     * outranks a point that only lacks span, and asks for more passes. */
    mbx_passes *n;
    assert_int_equal(mbx_passes_create(NULL, &n), MBX_OK);
    const double wild[] = {1e-6, 1.3e-6, 0.8e-6, 1.5e-6, 0.9e-6, 1.1e-6};
    for (int i = 0; i < 6; i++) {
        q = pass_at(wild[i], 0.5 * i, MBX_PASSES_NO_LEVEL);
        assert_int_equal(mbx_passes_add(n, &q), MBX_OK);
    }
    mbx_passes_result rn = result_of(n);
    assert_int_equal(rn.verdict, MBX_PASSES_NOISY);
    assert_true(rn.priority > 1.0);
    near(rn.priority, rn.b.relerr / 0.03);
    double pr;
    assert_int_equal(mbx_passes_priority(n, &pr), MBX_OK);
    near(pr, rn.priority);
    size_t need = mbx_passes_needed(n, &rn);
    double ratio = rn.b.relerr / 0.03;
    assert_true(need >= 1 && (double)(6 + need) > 6.0 * ratio * ratio);
    mbx_passes_free(n);
    mbx_passes_free(p);
}

static void bad_input(void **state)
{
    (void)state;
    mbx_passes *p = (mbx_passes *)&p;
    mbx_passes_opts o;
    mbx_passes_opts_init(&o);
    o.eps = 1.0;
    assert_int_equal(mbx_passes_create(&o, &p), MBX_E_INVAL);
    assert_null(p);
    mbx_passes_opts_init(&o);
    o.min_passes = 0;
    assert_int_equal(mbx_passes_create(&o, &p), MBX_E_INVAL);
    mbx_passes_opts_init(&o);
    o.min_span = -1.0;
    assert_int_equal(mbx_passes_create(&o, &p), MBX_E_INVAL);
    o.min_span = NAN;
    assert_int_equal(mbx_passes_create(&o, &p), MBX_E_INVAL);
    assert_int_equal(mbx_passes_create(NULL, NULL), MBX_E_INVAL);

    assert_int_equal(mbx_passes_create(NULL, &p), MBX_OK);
    mbx_pass q = pass_at(1.0, 0.0, MBX_PASSES_NO_LEVEL);
    q.median = 0.0;
    assert_int_equal(mbx_passes_add(p, &q), MBX_E_INVAL);
    q = pass_at(1.0, 0.0, MBX_PASSES_NO_LEVEL);
    q.n = 0;
    assert_int_equal(mbx_passes_add(p, &q), MBX_E_INVAL);
    q = pass_at(1.0, 0.0, MBX_PASSES_NO_LEVEL);
    q.t_end = -1.0;
    assert_int_equal(mbx_passes_add(p, &q), MBX_E_INVAL);
    q = pass_at(1.0, 0.0, -2);
    assert_int_equal(mbx_passes_add(p, &q), MBX_E_INVAL);
    q = pass_at(1.0, INFINITY, 0);
    assert_int_equal(mbx_passes_add(p, &q), MBX_E_INVAL);
    assert_int_equal(mbx_passes_count(p), 0);
    assert_int_equal(mbx_passes_add(NULL, &q), MBX_E_INVAL);
    size_t nl;
    assert_int_equal(mbx_passes_levels(p, NULL, 1, &nl), MBX_E_INVAL);
    mbx_passes_free(p);
    mbx_passes_free(NULL);
}

/* Passes at levels 2, 0 and none: per-level medians, ascending by id. */
static void levels(void **state)
{
    (void)state;
    mbx_passes *p;
    assert_int_equal(mbx_passes_create(NULL, &p), MBX_OK);
    const struct {
        double m;
        int level;
    } in[] = {{0.7e-6, 2},  {0.15e-6, 0}, {0.72e-6, 2}, {0.16e-6, 0},
              {0.2e-6, -1}, {0.68e-6, 2}, {0.14e-6, 0}, {0.151e-6, 0}};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        mbx_pass q = pass_at(in[i].m, (double)i, in[i].level);
        assert_int_equal(mbx_passes_add(p, &q), MBX_OK);
    }
    mbx_passes_result r = result_of(p);
    assert_int_equal(r.nlevels, 2);
    assert_int_equal(r.straddles, 1);
    /* Visits in time order: 2 | 0 | 2 | 0 none | 2 | 0 0, the pass of no
     * level joining the visit before it. The value is over all eight
     * passes, the spread over the six visit medians .1455 .15 .18 .68 .7
     * .72 (order-statistic CI of 6: [x(1), x(6)]). */
    assert_int_equal(r.units, 6);
    assert_int_equal(r.b.r, 8);
    near(r.b.value, 0.18e-6);
    assert_true(r.b.ci_lo >= 0.1455e-6 && r.b.ci_lo <= 0.15e-6);
    assert_true(r.b.ci_hi >= 0.7e-6 && r.b.ci_hi <= 0.72e-6);
    near(r.b.relerr, log(r.b.ci_hi / r.b.ci_lo) / (2 * 1.959963984540054));
    assert_int_equal(r.verdict, MBX_PASSES_NOISY);
    size_t nl = 0;
    assert_int_equal(mbx_passes_levels(p, NULL, 0, &nl), MBX_OK);
    assert_int_equal(nl, 2);
    mbx_passes_level lv[1];
    assert_int_equal(mbx_passes_levels(p, lv, 1, &nl), MBX_OK);
    assert_int_equal(nl, 2);
    assert_int_equal(lv[0].level, 0);
    mbx_passes_level all[2];
    assert_int_equal(mbx_passes_levels(p, all, 2, &nl), MBX_OK);
    assert_int_equal(all[0].level, 0);
    assert_int_equal(all[0].passes, 4);
    near(all[0].median, (0.15e-6 + 0.151e-6) / 2); /* .14 .15 .151 .16 */
    assert_int_equal(all[1].level, 2);
    assert_int_equal(all[1].passes, 3);
    near(all[1].median, 0.7e-6);
    mbx_passes_free(p);
}

/* tau groups passes into units by the START of the unit's first pass:
 * starts 0 .3 .6 | 1.0 1.2 | 2.5 | 3.6 3.9 with tau = 1 give 4 units with
 * medians 2 (of 1 2 3), 4.5 (of 4 5), 6 and 7.5 (of 7 8); a pass is not
 * chained on from its neighbour (.6 -> 1.0 is .4 apart but 1.0 is not
 * < 0 + 1). The value stays the median of all eight passes (4.5); min
 * passes counts units, so 4 units are FEW at R = 5 even with 8 passes.
 * Setting tau back to 0 makes every pass a unit again. */
static void tau_units(void **state)
{
    (void)state;
    mbx_passes *p;
    assert_int_equal(mbx_passes_create(NULL, &p), MBX_OK);
    const double t0[] = {0, .3, .6, 1.0, 1.2, 2.5, 3.6, 3.9};
    const double m[] = {2, 1, 3, 4, 5, 6, 8, 7};
    for (size_t i = 0; i < 8; i++) {
        /* Added out of time order: grouping sorts by start. */
        size_t k = 7 - i;
        mbx_pass q = pass_at(m[k] * 1e-6, t0[k], MBX_PASSES_NO_LEVEL);
        assert_int_equal(mbx_passes_add(p, &q), MBX_OK);
    }
    assert_int_equal(mbx_passes_set_tau(p, 1.0), MBX_OK);
    mbx_passes_result r = result_of(p);
    assert_int_equal(r.units, 4);
    assert_int_equal(r.b.r, 8);
    near(r.b.value, 4.5e-6);
    near(r.b.ci_lo, 2e-6);
    near(r.b.ci_hi, 7.5e-6);
    assert_int_equal(r.verdict, MBX_PASSES_FEW);
    assert_int_equal(mbx_passes_set_tau(p, 0.0), MBX_OK);
    r = result_of(p);
    assert_int_equal(r.units, 8);
    assert_int_not_equal(r.verdict, MBX_PASSES_FEW);
    /* Every pass within one unit (tau longer than the whole series): the
     * passes' own spread stands in for the interval, never a zero-width
     * CI without an err; the point stays FEW (one unit). */
    assert_int_equal(mbx_passes_set_tau(p, 100.0), MBX_OK);
    r = result_of(p);
    assert_int_equal(r.units, 1);
    near(r.b.value, 4.5e-6);
    assert_true(r.b.ci_lo < r.b.value && r.b.ci_hi > r.b.value);
    assert_true(isfinite(r.b.se) && r.b.se > 0);
    assert_int_equal(r.verdict, MBX_PASSES_FEW);
    assert_int_equal(mbx_passes_set_tau(p, 0.0), MBX_OK);
    /* Bad tau: refused, the old one kept. */
    assert_int_equal(mbx_passes_set_tau(p, -1.0), MBX_E_INVAL);
    assert_int_equal(mbx_passes_set_tau(p, NAN), MBX_E_INVAL);
    assert_int_equal(mbx_passes_set_tau(p, INFINITY), MBX_E_INVAL);
    assert_int_equal(mbx_passes_set_tau(NULL, 1.0), MBX_E_INVAL);
    assert_int_equal(result_of(p).units, 8);
    mbx_passes_free(p);
    /* The same through the options, and bad options refused. */
    mbx_passes_opts o;
    mbx_passes_opts_init(&o);
    assert_true(o.tau == 0.0 && o.resolution == 0.0);
    o.tau = -0.5;
    assert_int_equal(mbx_passes_create(&o, &p), MBX_E_INVAL);
    o.tau = 0.0;
    o.resolution = NAN;
    assert_int_equal(mbx_passes_create(&o, &p), MBX_E_INVAL);
}

/* With levels the point follows, a unit is a whole visit whatever tau:
 * level 0 from 0 to 2.5 s in 6 passes .5 s apart with tau = 1, then
 * level 1 at 3 and 3.5, give 2 units (with units of tau inside a visit
 * they were 4: a tau of the probes' wobble counted a visit's passes as
 * draws of the level mix). */
static void levels_make_visits_whatever_tau(void **state)
{
    (void)state;
    mbx_passes *p;
    mbx_passes_opts o;
    mbx_passes_opts_init(&o);
    o.tau = 1.0;
    assert_int_equal(mbx_passes_create(&o, &p), MBX_OK);
    for (int i = 0; i < 8; i++) {
        mbx_pass q = pass_at((i < 6 ? 1.0 : 2.0) * 1e-6 + i * 1e-9, 0.5 * i, i < 6 ? 0 : 1);
        assert_int_equal(mbx_passes_add(p, &q), MBX_OK);
    }
    mbx_passes_result r = result_of(p);
    assert_int_equal(r.nlevels, 2);
    assert_int_equal(r.units, 2);
    mbx_passes_free(p);
}

/* Passes that felt a shift count in visits even when their level ids
 * hide it (a probe segmentation that missed a stay): level 0 holds
 * 3 fast and 5 slow passes (3x), level 1 holds 5 slow ones, so the two
 * levels' medians agree; the passes' own 3x spread makes the 2 visits
 * the units, and the point cannot settle on them. Below 20 % apart
 * (MBX_PASSES_FELT_SHIFT) they stay passes. */
static void a_felt_shift_makes_visits(void **state)
{
    (void)state;
    for (int felt = 0; felt < 2; felt++) {
        mbx_passes *p;
        assert_int_equal(mbx_passes_create(NULL, &p), MBX_OK);
        double slow = felt ? 3.0 : 1.1;
        for (int i = 0; i < 13; i++) {
            double m = (i >= 5 && i < 8) ? 1.0 : slow;
            mbx_pass q = pass_at(m * 1e-6 * (1 + 1e-4 * i), 0.5 * i, i < 5 ? 1 : 0);
            assert_int_equal(mbx_passes_add(p, &q), MBX_OK);
        }
        mbx_passes_result r = result_of(p);
        assert_int_equal(r.nlevels, 2);
        assert_int_equal(r.units, felt ? 2 : 13);
        if (felt)
            assert_int_not_equal(r.verdict, MBX_PASSES_SETTLED);
        mbx_passes_free(p);
    }
}

/* Levels the point does not follow are not its units: eight passes
 * alternating between two probe levels, visits of two passes, give 8
 * units when the point's medians at the two levels are 0.5 % apart
 * (under eps 3 %) and 4 visits when they are 2x apart. */
static void levels_the_point_does_not_feel(void **state)
{
    (void)state;
    static const double slow[] = {1.005, 2.0};
    static const size_t want[] = {8, 4};
    for (int k = 0; k < 2; k++) {
        mbx_passes *p;
        assert_int_equal(mbx_passes_create(NULL, &p), MBX_OK);
        for (int i = 0; i < 8; i++) {
            int lv = (i / 2) % 2;
            mbx_pass q = pass_at((lv ? slow[k] : 1.0) * 1e-6 + i * 1e-10, 0.5 * i, lv);
            assert_int_equal(mbx_passes_add(p, &q), MBX_OK);
        }
        mbx_passes_result r = result_of(p);
        assert_int_equal(r.nlevels, 2);
        assert_int_equal(r.units, want[k]);
        mbx_passes_free(p);
    }
}

/* Each stop kind watches its own figure: twelve passes 0.95 .. 1.06 us
 * have relerr about 1.5 %, a CI half-width about 2.9 % and a units'
 * spread (cv) about 4.8 %, so at eps 2 % only stderr settles, and at
 * eps 3.5 % stderr and ci do but cv does not. */
static void stop_kinds(void **state)
{
    (void)state;
    static const int kinds[] = {MBX_STOP_STDERR, MBX_STOP_CI, MBX_STOP_CV};
    static const int settled_2[] = {1, 0, 0}, settled_35[] = {1, 1, 0};
    for (int e = 0; e < 2; e++)
        for (int k = 0; k < 3; k++) {
            mbx_passes_opts o;
            mbx_passes_opts_init(&o);
            o.eps = e == 0 ? 0.02 : 0.035;
            o.kind = kinds[k];
            mbx_passes *p;
            assert_int_equal(mbx_passes_create(&o, &p), MBX_OK);
            for (int i = 0; i < 12; i++) {
                mbx_pass q =
                    pass_at((0.95 + 0.01 * ((i * 5) % 12)) * 1e-6, 0.25 * i, MBX_PASSES_NO_LEVEL);
                assert_int_equal(mbx_passes_add(p, &q), MBX_OK);
            }
            mbx_passes_result r = result_of(p);
            assert_true(r.b.relerr > 0.01 && r.b.relerr < 0.02);
            assert_true(r.b.cirel > 0.02 && r.b.cirel < 0.035);
            assert_true(r.b.cv > 0.035 && r.b.cv < 0.06);
            int want = e == 0 ? settled_2[k] : settled_35[k];
            assert_int_equal(r.verdict == MBX_PASSES_SETTLED, want);
            mbx_passes_free(p);
        }
    mbx_passes_opts o;
    mbx_passes_opts_init(&o);
    o.kind = 7;
    mbx_passes *p;
    assert_int_equal(mbx_passes_create(&o, &p), MBX_E_INVAL);
}

/* n passes 0.25 s apart, every median equal to v, under stop kind kind at
 * 1 % on a timer of resolution res: their result. */
static mbx_passes_result equal_units(int kind, double res, double v, int n)
{
    mbx_passes_opts o;
    mbx_passes_opts_init(&o);
    o.kind = kind;
    o.eps = 0.01;
    o.resolution = res;
    mbx_passes *p;
    assert_int_equal(mbx_passes_create(&o, &p), MBX_OK);
    for (int i = 0; i < n; i++) {
        mbx_pass q = pass_at(v, 0.25 * i, MBX_PASSES_NO_LEVEL);
        assert_int_equal(mbx_passes_add(p, &q), MBX_OK);
    }
    mbx_passes_result r = result_of(p);
    mbx_passes_free(p);
    return r;
}

/* The timer floor: five identical pass medians on a 50 ns timer give a CI
 * one tick wide around the value, never a point, and no SETTLED at 1 %. */
static void resolution_floor(void **state)
{
    (void)state;
    mbx_passes_result r = equal_units(MBX_STOP_STDERR, 50e-9, 1e-6, 5);
    near(r.b.ci_lo, 0.975e-6);
    near(r.b.ci_hi, 1.025e-6);
    near(r.b.relerr, log(1.025 / 0.975) / (2 * 1.959963984540054));
    assert_int_equal(r.verdict, MBX_PASSES_NOISY);
}

/* The same floor under cv: units equal to the timer's step have a spread
 * of a rounding error, res / sqrt(12), not 0, so a cv: target below it
 * never settles them. */
static void resolution_floors_cv(void **state)
{
    (void)state;
    mbx_passes_result r = equal_units(MBX_STOP_CV, 20e-9, 12.7e-9, 6);
    near(r.b.cv, 20e-9 / sqrt(12.0) / 12.7e-9);
    assert_true(r.verdict != MBX_PASSES_SETTLED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(five_passes),
        cmocka_unit_test(eight_passes_outlier),
        cmocka_unit_test(twenty_passes),
        cmocka_unit_test(degenerate),
        cmocka_unit_test(verdicts),
        cmocka_unit_test(bad_input),
        cmocka_unit_test(levels),
        cmocka_unit_test(tau_units),
        cmocka_unit_test(levels_make_visits_whatever_tau),
        cmocka_unit_test(a_felt_shift_makes_visits),
        cmocka_unit_test(levels_the_point_does_not_feel),
        cmocka_unit_test(stop_kinds),
        cmocka_unit_test(resolution_floor),
        cmocka_unit_test(resolution_floors_cv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
