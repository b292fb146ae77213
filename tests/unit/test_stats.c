/* Summary statistics against hand-computed values. Reference numbers come
 * from an independent pure-Python computation (sorted list, type-7
 * quantiles, math.fsum, exact binomial sums with math.comb), not from
 * this implementation. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/stats.h"

#define TOL 1e-12

static void near(double got, double want)
{
    assert_true(fabs(got - want) <= TOL * (1.0 + fabs(want)));
}

static mbx_summary summarize(const double *x, size_t n)
{
    double scratch[64];
    mbx_summary s;
    assert_true(n <= 64);
    assert_int_equal(mbx_stats_summarize(x, n, scratch, &s), MBX_OK);
    assert_int_equal(s.n, n);
    return s;
}

/* Even n with one high outlier. Winsorized: 5 5 5 6 7 8 9 10 10 10. */
static void even_n_with_outlier(void **state)
{
    (void)state;
    const double x[] = {12, 7, 3, 4, 8, 25, 5, 6, 9, 10};
    mbx_summary s = summarize(x, 10);
    near(s.sum, 89.0);
    near(s.mean, 8.9);
    near(s.min, 3.0);
    near(s.max, 25.0);
    near(s.median, 7.5);
    near(s.q1, 5.25);
    near(s.q3, 9.75);
    near(s.tmean, 7.5); /* drops 2 at each end: 5 6 7 8 9 10 */
    near(s.stddev, 6.297265720577111);
    near(s.stderr_, 1.3743685418725535); /* s_w = 2.173067468400883 */
    near(s.ci_lo, 4.0);                  /* order statistics 2 and 9 */
    near(s.ci_hi, 12.0);
    assert_int_equal(s.ci_exact, 1);
    assert_int_equal(s.outliers, 1); /* 25 > 9.75 + 1.5 * 4.5 */
}

/* Odd n: the median is an order statistic and interpolation is exact. */
static void odd_n(void **state)
{
    (void)state;
    const double x[] = {9, 1, 8, 2, 7, 3, 6, 4, 5};
    mbx_summary s = summarize(x, 9);
    near(s.mean, 5.0);
    near(s.median, 5.0);
    near(s.q1, 3.0);
    near(s.q3, 7.0);
    near(s.tmean, 5.0);
    near(s.stddev, 2.7386127875258306);
    near(s.stderr_, 1.2018504251546631); /* s_w of 3 3 3 4 5 6 7 7 7 */
    near(s.ci_lo, 2.0);
    near(s.ci_hi, 8.0);
    assert_int_equal(s.ci_exact, 1);
    assert_int_equal(s.outliers, 0);
}

static void ties(void **state)
{
    (void)state;
    const double x[] = {5, 2, 5, 9, 2, 5, 2, 5};
    mbx_summary s = summarize(x, 8);
    near(s.sum, 35.0);
    near(s.mean, 4.375);
    near(s.median, 5.0);
    near(s.q1, 2.0);
    near(s.q3, 5.0);
    near(s.tmean, 4.25);
    near(s.stddev, 2.38671920665766);
    near(s.stderr_, 1.0978875820670997);
    near(s.ci_lo, 2.0); /* n = 8: order statistics 1 and 8 */
    near(s.ci_hi, 9.0);
    assert_int_equal(s.ci_exact, 1);
    assert_int_equal(s.outliers, 0); /* 9 < Q3 + 1.5 IQR = 9.5 */
}

static void single_value(void **state)
{
    (void)state;
    const double x[] = {4.5};
    mbx_summary s = summarize(x, 1);
    near(s.mean, 4.5);
    near(s.tmean, 4.5);
    near(s.median, 4.5);
    near(s.q1, 4.5);
    near(s.q3, 4.5);
    near(s.min, 4.5);
    near(s.max, 4.5);
    assert_true(isnan(s.stddev));
    assert_true(isnan(s.stderr_));
    near(s.ci_lo, 4.5);
    near(s.ci_hi, 4.5);
    assert_int_equal(s.ci_exact, 0);
    assert_int_equal(s.outliers, 0);
}

static void two_values(void **state)
{
    (void)state;
    const double x[] = {4, 1};
    mbx_summary s = summarize(x, 2);
    near(s.median, 2.5);
    near(s.q1, 1.75);
    near(s.q3, 3.25);
    near(s.tmean, 2.5); /* floor(2/4) = 0: nothing trimmed */
    near(s.stddev, 2.1213203435596424);
    near(s.stderr_, 3.0); /* s / (0.5 sqrt 2) */
    near(s.ci_lo, 1.0);
    near(s.ci_hi, 4.0);
    assert_int_equal(s.ci_exact, 0);
}

/* 1..19 and 100: trimming 5 per end keeps the outlier out of tmean, and
 * winsorizing at 6 and 15 keeps it out of stderr (s_w = sqrt(15)). */
static void trimmed_and_winsorized(void **state)
{
    (void)state;
    double x[20];
    for (int i = 0; i < 19; i++)
        x[i] = 19 - i;
    x[19] = 100;
    mbx_summary s = summarize(x, 20);
    near(s.mean, 14.5);
    near(s.tmean, 10.5);
    near(s.median, 10.5);
    near(s.q1, 5.75);
    near(s.q3, 15.25);
    near(s.stddev, 20.85665361461421);
    near(s.stderr_, 2.0 * sqrt(15.0) / sqrt(20.0));
    near(s.ci_lo, 6.0); /* order statistics 6 and 15 */
    near(s.ci_hi, 15.0);
    assert_int_equal(s.outliers, 1);
}

/* Q1 = 2, Q3 = 4, fences -1 and 7: values on a fence are not outliers. */
static void tukey_fences(void **state)
{
    (void)state;
    double x[] = {4, -1, 2, 7, 2, 3, 4, 2, 4};
    mbx_summary s = summarize(x, 9);
    near(s.q1, 2.0);
    near(s.q3, 4.0);
    assert_int_equal(s.outliers, 0);
    x[1] = -1.5;
    x[3] = 7.5;
    s = summarize(x, 9);
    assert_int_equal(s.outliers, 2);
}

static void constant_data(void **state)
{
    (void)state;
    double x[12];
    for (int i = 0; i < 12; i++)
        x[i] = 0.1;
    mbx_summary s = summarize(x, 12);
    near(s.mean, 0.1);
    near(s.tmean, 0.1);
    assert_true(s.stddev == 0.0);
    assert_true(s.stderr_ == 0.0);
    assert_int_equal(s.outliers, 0);
}

/* A large common offset must not swamp the spread (naive sum-of-squares
 * variance loses every digit here). */
static void stable_with_offset(void **state)
{
    (void)state;
    const double x[] = {1e9 + 4, 1e9 + 1, 1e9 + 3, 1e9 + 2};
    mbx_summary s = summarize(x, 4);
    assert_true(fabs(s.stddev - 1.2909944487358056) < 1e-9);
    assert_true(fabs(s.mean - (1e9 + 2.5)) < 1e-6);
}

static void input_untouched_scratch_sorted(void **state)
{
    (void)state;
    const double x[] = {3, 1, 2};
    double copy[3], scratch[3];
    memcpy(copy, x, sizeof x);
    mbx_summary s;
    assert_int_equal(mbx_stats_summarize(x, 3, scratch, &s), MBX_OK);
    assert_memory_equal(x, copy, sizeof x);
    near(scratch[0], 1.0);
    near(scratch[1], 2.0);
    near(scratch[2], 3.0);
}

static void invalid_input(void **state)
{
    (void)state;
    double x[] = {1, 2, 3}, scratch[3];
    mbx_summary s;
    memset(&s, 0x5a, sizeof s);
    mbx_summary before = s;
    assert_int_equal(mbx_stats_summarize(x, 0, scratch, &s), MBX_E_INVAL);
    assert_int_equal(mbx_stats_summarize(NULL, 3, scratch, &s), MBX_E_INVAL);
    assert_int_equal(mbx_stats_summarize(x, 3, NULL, &s), MBX_E_INVAL);
    assert_int_equal(mbx_stats_summarize(x, 3, scratch, NULL), MBX_E_INVAL);
    x[1] = NAN;
    assert_int_equal(mbx_stats_summarize(x, 3, scratch, &s), MBX_E_INVAL);
    x[1] = INFINITY;
    assert_int_equal(mbx_stats_summarize(x, 3, scratch, &s), MBX_E_INVAL);
    x[1] = -INFINITY;
    assert_int_equal(mbx_stats_summarize(x, 3, scratch, &s), MBX_E_INVAL);
    assert_memory_equal(&s, &before, sizeof s);
}

static void quantile_type7(void **state)
{
    (void)state;
    const double s[] = {1, 2, 4, 8};
    near(mbx_stats_quantile_sorted(s, 4, 0.0), 1.0);
    near(mbx_stats_quantile_sorted(s, 4, 1.0), 8.0);
    near(mbx_stats_quantile_sorted(s, 4, 0.5), 3.0);   /* h = 1.5 */
    near(mbx_stats_quantile_sorted(s, 4, 0.25), 1.75); /* h = 0.75 */
    near(mbx_stats_quantile_sorted(s, 4, 0.9), 6.8);   /* h = 2.7 */
    near(mbx_stats_quantile_sorted(s, 1, 0.3), 1.0);
    assert_true(isnan(mbx_stats_quantile_sorted(s, 0, 0.5)));
    assert_true(isnan(mbx_stats_quantile_sorted(NULL, 4, 0.5)));
    assert_true(isnan(mbx_stats_quantile_sorted(s, 4, -0.1)));
    assert_true(isnan(mbx_stats_quantile_sorted(s, 4, 1.1)));
    assert_true(isnan(mbx_stats_quantile_sorted(s, 4, NAN)));
}

static void expect_ci(size_t n, size_t lo, size_t hi, int exact)
{
    size_t l = 12345, h = 12345;
    assert_int_equal(mbx_stats_median_ci_index(n, &l, &h), exact);
    assert_int_equal(l, lo);
    assert_int_equal(h, hi);
}

/* Exact values from Python: l - 1 is the largest k with
 * 40 * sum_{j<=k} comb(n, j) <= 2^n (checked for every n <= 3000, plus
 * 10^4, 10^5 and 10^6; 10^7 by a log-space sum with a 7e-4 margin). */
static void median_ci_indices(void **state)
{
    (void)state;
    expect_ci(0, 0, 0, 0);
    expect_ci(1, 1, 1, 0);
    expect_ci(2, 1, 2, 0);
    expect_ci(5, 1, 5, 0); /* P(B <= 0) = 1/32 > 0.025 */
    expect_ci(6, 1, 6, 1); /* P(B <= 0) = 1/64 */
    expect_ci(8, 1, 8, 1);
    expect_ci(9, 2, 8, 1);
    expect_ci(10, 2, 9, 1);
    expect_ci(20, 6, 15, 1);
    expect_ci(100, 40, 61, 1);
    expect_ci(10000, 4902, 5099, 1);
    expect_ci(100000, 49690, 50311, 1);
    expect_ci(1000000, 499020, 500981, 1);
    expect_ci(10000000, 4996901, 5003100, 1);
    assert_int_equal(mbx_stats_median_ci_index(100, NULL, NULL), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(even_n_with_outlier),
        cmocka_unit_test(odd_n),
        cmocka_unit_test(ties),
        cmocka_unit_test(single_value),
        cmocka_unit_test(two_values),
        cmocka_unit_test(trimmed_and_winsorized),
        cmocka_unit_test(tukey_fences),
        cmocka_unit_test(constant_data),
        cmocka_unit_test(stable_with_offset),
        cmocka_unit_test(input_untouched_scratch_sorted),
        cmocka_unit_test(invalid_input),
        cmocka_unit_test(quantile_type7),
        cmocka_unit_test(median_ci_indices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
