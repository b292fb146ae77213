/* The ratio shown beside a comparison's verdict (mbx_compare_tested_ratio):
 * known values by hand, and on seeded samples at two machine levels it
 * never points against the verdict its test gave, where the ratio of the
 * pooled medians often does. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mbx/compare.h"

static double unif(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* By hand: the pairs b/a of {1, 2} and {2, 4} are 2, 4, 1, 2; their median
 * on the log scale is 2. One pair: its ratio. */
static void known_values(void **state)
{
    (void)state;
    const double a[] = {1, 2}, b[] = {2, 4};
    assert_float_equal(mbx_compare_tested_ratio(a, NULL, 2, b, NULL, 2), 2.0, 1e-12);
    assert_float_equal(mbx_compare_tested_ratio(a, NULL, 1, b + 1, NULL, 1), 4.0, 1e-12);
    /* Three pairs 1.5, 3, 6 (odd count): the middle one. */
    const double c[] = {2}, d[] = {3, 6, 12};
    assert_float_equal(mbx_compare_tested_ratio(c, NULL, 1, d, NULL, 3), 3.0, 1e-12);
    assert_true(isnan(mbx_compare_tested_ratio(a, NULL, 0, b, NULL, 2)));
}

/* A's passes mostly at the slow level, B's mostly at the fast one, A
 * faster than B within each level by 10 %: the pooled medians say B/A
 * 0.55 (B faster), the stratified test says A faster, and the ratio it
 * tested is 1.1. Levels of one side only: no pair, no ratio. */
static void stratified_against_pooled(void **state)
{
    (void)state;
    double a[12], b[12];
    int la[12], lb[12];
    for (int i = 0; i < 12; i++) {
        la[i] = i >= 3, lb[i] = i >= 9;
        a[i] = (la[i] ? 2.0 : 1.0) * (1 + 0.001 * i);
        b[i] = (lb[i] ? 2.2 : 1.1) * (1 + 0.001 * i);
    }
    mbx_cmp_point cp;
    size_t strata = 0;
    assert_int_equal(mbx_compare_samples_leveled(a, la, 12, b, lb, 12, 0.05, &cp, &strata), MBX_OK);
    assert_int_equal(strata, 2);
    assert_int_equal(cp.verdict, '<');
    assert_true(cp.median_b / cp.median_a < 0.6);
    double r = mbx_compare_tested_ratio(a, la, 12, b, lb, 12);
    assert_true(r > 1.09 && r < 1.11);
    int one[12] = {0}, other[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    assert_true(isnan(mbx_compare_tested_ratio(a, one, 12, b, other, 12)));
    /* One level for both: the plain test, every pair. */
    double plain = mbx_compare_tested_ratio(a, one, 12, b, one, 12);
    assert_float_equal(plain, mbx_compare_tested_ratio(a, NULL, 12, b, NULL, 12), 1e-12);
}

/* 2000 seeded pairs of points, 4 to 14 passes a side, each pass at the
 * fast or a 1.5x slower level with shares that differ between A and B,
 * B 0 to 8 % slower than A: whenever the test calls a difference, the
 * tested ratio is on its side of 1. The pooled medians' ratio is
 * counted for contrast (the defect this ratio replaces). */
static void never_against_verdict(void **state)
{
    (void)state;
    uint64_t st = 20261128;
    size_t calls = 0, against = 0, pooled_against = 0;
    for (int run = 0; run < 2000; run++) {
        double a[14], b[14];
        int la[14], lb[14];
        size_t na = 4 + (size_t)(11 * unif(&st)), nb = 4 + (size_t)(11 * unif(&st));
        double pa = unif(&st), pb = unif(&st), shift = 1 + 0.08 * unif(&st);
        for (size_t i = 0; i < na; i++) {
            la[i] = unif(&st) < pa;
            a[i] = (la[i] ? 1.5 : 1.0) * (1 + 0.03 * (unif(&st) - 0.5));
        }
        for (size_t i = 0; i < nb; i++) {
            lb[i] = unif(&st) < pb;
            b[i] = shift * (lb[i] ? 1.5 : 1.0) * (1 + 0.03 * (unif(&st) - 0.5));
        }
        mbx_cmp_point cp;
        if (mbx_compare_samples_leveled(a, la, na, b, lb, nb, 0.05, &cp, NULL) != MBX_OK ||
            cp.verdict == '=')
            continue;
        double r = mbx_compare_tested_ratio(a, la, na, b, lb, nb);
        calls++;
        against += cp.verdict == '<' ? !(r >= 1) : !(r <= 1);
        double pr = cp.median_b / cp.median_a;
        pooled_against += cp.verdict == '<' ? pr < 1 : pr > 1;
    }
    print_message("tested ratio against its verdict: %zu of %zu calls; pooled medians: %zu\n",
                  against, calls, pooled_against);
    assert_true(calls > 300);
    assert_int_equal(against, 0);
    assert_true(pooled_against > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_values),
        cmocka_unit_test(stratified_against_pooled),
        cmocka_unit_test(never_against_verdict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
