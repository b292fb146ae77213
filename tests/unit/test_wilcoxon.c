/* Wilcoxon rank-sum test against known values.
 *
 * Reference p-values come from SciPy 1.10.1 (Debian bookworm python3-scipy),
 * scipy.stats.mannwhitneyu(a, b, alternative=..., method='exact') for the
 * tie-free small samples and method='asymptotic', use_continuity=True for the
 * large ones; SciPy's U is W - n1 (n1 + 1) / 2. Shifts (median of all
 * a_i - b_j), E[W] and the tie-corrected Var[W] come from a separate
 * pure-Python computation (statistics.median, collections.Counter). The
 * exact distribution with ties, which SciPy does not provide, is checked by
 * enumerating every subset in the test itself. The sample data below were
 * drawn once with Python's random.Random(42) and are fixed here. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/wilcoxon.h"

static const double eq_a[] = {2.279, 1.05, 1.55, 1.446, 2.473, 2.353, 2.784, 1.174, 1.844, 1.06};
static const double eq_b[] = {1.937, 2.511, 1.553, 1.898, 2.8, 2.59, 1.941, 2.679, 3.119, 1.513};
static const double uneq_a[] = {1.806, 1.698, 1.34, 1.155, 1.957, 1.337, 1.093};
static const double uneq_b[] = {1.426, 2.402, 2.085, 2.349, 2.249, 1.997,
                                2.565, 1.792, 2.018, 2.378, 2.104, 2.42};
static const double big_a[] = {8.6192,  9.2706, 10.6896, 10.2042, 9.9001, 10.3954, 10.0498,
                               10.4588, 9.7515, 11.3992, 9.3649,  10.722, 10.1984, 10.7628,
                               11.3322, 9.4399, 9.5258,  9.612,   9.9219, 9.4078,  7.806,
                               12.0745, 9.1867, 9.0168,  9.2317};
static const double big_b[] = {9.0363,  10.9173, 10.0883, 11.653,  10.9744, 10.7234, 11.4842,
                               12.7146, 10.0822, 10.223,  12.1409, 9.042,   12.1525, 10.0416,
                               11.0006, 10.8272, 12.0835, 10.694,  12.1213, 11.6087, 10.1953,
                               11.464,  14.2018, 10.3642, 10.7739};
static const double norm_a[] = {
    5.46099, 5.1406,  3.76617, 3.72765, 4.68016, 5.17022, 2.54774, 7.25632, 2.3824,  4.51575,
    5.09744, 4.88338, 4.72321, 3.51239, 4.23329, 4.81863, 4.69224, 4.62338, 3.99142, 5.43822,
    6.95729, 4.41553, 4.90098, 6.17424, 5.957,   6.9898,  5.57836, 4.38811, 4.11954, 3.94989,
    5.97205, 6.38938, 3.31628, 4.57469, 4.96679, 4.99359, 4.91089, 5.1772,  6.85362, 4.11489};
static const double norm_b[] = {
    5.92084, 4.75312, 7.41689, 6.23019, 5.8999,  5.36154, 5.12272, 5.5333,  5.61343, 3.79983,
    6.28576, 6.31998, 4.7533,  5.2584,  6.22966, 4.74641, 5.79597, 6.7093,  5.41571, 4.83512,
    4.26558, 8.52217, 4.86822, 4.63183, 4.99521, 5.44403, 5.64382, 6.39697, 4.88529, 5.119,
    5.5714,  5.87707, 5.01003, 4.97093, 7.14194, 4.39046, 6.16544, 5.81752, 5.16157, 4.89365,
    7.0779,  7.22998, 4.47954, 5.01161, 5.89176, 3.72748, 5.66515, 5.92028, 4.54729, 5.94065,
    3.91845, 5.83245, 4.16647, 2.94798, 6.32712, 6.08846, 4.44159, 7.18405, 5.50548, 6.14956};
static const double tie_a[] = {8.0, 3.0, 7.0, 3.0, 5.0, 8.0, 4.0, 2.0, 8.0, 2.0, 1.0, 1.0, 2.0, 4.0,
                               3.0, 7.0, 8.0, 8.0, 4.0, 7.0, 1.0, 3.0, 7.0, 1.0, 7.0, 5.0, 8.0, 5.0,
                               7.0, 8.0, 3.0, 4.0, 5.0, 4.0, 1.0, 1.0, 6.0, 1.0, 1.0, 8.0};
static const double tie_b[] = {4.0, 2.0, 3.0, 4.0, 3.0, 3.0, 5.0, 8.0, 3.0, 5.0, 2.0, 3.0,
                               8.0, 7.0, 6.0, 5.0, 7.0, 5.0, 6.0, 8.0, 4.0, 6.0, 9.0, 7.0,
                               3.0, 2.0, 9.0, 3.0, 3.0, 5.0, 6.0, 4.0, 7.0, 3.0, 5.0, 7.0,
                               6.0, 4.0, 9.0, 6.0, 2.0, 6.0, 3.0, 4.0, 6.0, 3.0, 3.0, 4.0,
                               6.0, 6.0, 5.0, 7.0, 5.0, 6.0, 9.0, 6.0, 2.0, 3.0, 8.0, 6.0};

#define NELEM(x) (sizeof(x) / sizeof((x)[0]))

static void near_tol(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol * (1e-300 + fabs(want)) || got == want))
        fail_msg("got %.17g, want %.17g", got, want);
}

static void near(double got, double want)
{
    near_tol(got, want, 1e-9);
}

static mbx_wilcoxon test(const double *a, size_t n1, const double *b, size_t n2)
{
    mbx_wilcoxon w;
    assert_int_equal(mbx_wilcoxon_test(a, n1, b, n2, &w), MBX_OK);
    assert_int_equal(w.n1, n1);
    assert_int_equal(w.n2, n2);
    return w;
}

/* By hand: a = {1,2,3} below b = {4,5,6}. W = 1+2+3 = 6 is the smallest of
 * C(6,3) = 20 equally likely rank sums, so P(W <= 6) = 1/20 = 0.05, the
 * two-sided p is 2/20 = 0.1 and P(W >= 6) = 1. E[W] = 3*7/2 = 10.5, Var =
 * 3*3*7/12 = 5.25. The nine differences are -5,-4,-4,-3,-3,-3,-2,-2,-1:
 * median -3. */
static void hand_case(void **state)
{
    (void)state;
    const double a[] = {1, 2, 3}, b[] = {4, 5, 6};
    mbx_wilcoxon w = test(a, 3, b, 3);
    assert_int_equal(w.exact, 1);
    assert_int_equal(w.ties, 0);
    near(w.w, 6.0);
    near(w.mean_w, 10.5);
    near(w.var_w, 5.25);
    near(w.z, -4.5 / sqrt(5.25));
    near(w.p_less, 0.05);
    near(w.p_two_sided, 0.1);
    near(w.p_greater, 1.0);
    near(w.shift, -3.0);
    near(mbx_wilcoxon_p(&w, MBX_ALT_LESS), 0.05);
    near(mbx_wilcoxon_p(&w, MBX_ALT_GREATER), 1.0);
    near(mbx_wilcoxon_p(&w, MBX_ALT_TWO_SIDED), 0.1);
}

static void single_values(void **state)
{
    (void)state;
    const double a[] = {1}, b[] = {2};
    mbx_wilcoxon w = test(a, 1, b, 1);
    near(w.w, 1.0);
    near(w.p_less, 0.5);
    near(w.p_greater, 1.0);
    near(w.p_two_sided, 1.0);
    near(w.shift, -1.0);
}

static void check_three(const mbx_wilcoxon *w, double two, double less, double greater)
{
    near(w->p_two_sided, two);
    near(w->p_less, less);
    near(w->p_greater, greater);
}

/* 10 vs 10, exact. SciPy: U = 26 (W = 81). */
static void exact_equal_sizes(void **state)
{
    (void)state;
    mbx_wilcoxon w = test(eq_a, 10, eq_b, 10);
    assert_int_equal(w.exact, 1);
    near(w.w, 81.0);
    near(w.mean_w, 105.0);
    near(w.var_w, 175.0);
    check_three(&w, 0.075256013336508693, 0.037628006668254346, 0.96849358072268299);
    near_tol(w.shift, -0.4494999999999998, 1e-12);
}

/* 7 vs 12, exact: E[W] = n1 (N+1)/2 = 70, not N(N+1)/4 = 95 (ReproMPI's
 * form, right only when n1 == n2). SciPy: U = 5 (W = 33). */
static void exact_unequal_sizes(void **state)
{
    (void)state;
    mbx_wilcoxon w = test(uneq_a, 7, uneq_b, 12);
    assert_int_equal(w.exact, 1);
    near(w.w, 33.0);
    near(w.mean_w, 70.0);
    near(w.var_w, 140.0);
    check_three(&w, 0.00075414781297134231, 0.00037707390648567115, 0.99976184805906199);
    near_tol(w.shift, -0.6805, 1e-12);
}

/* 25 vs 25 = MBX_WILCOXON_EXACT_MAX, still exact. SciPy: U = 129 (W = 454). */
static void exact_at_limit(void **state)
{
    (void)state;
    mbx_wilcoxon w = test(big_a, 25, big_b, 25);
    assert_int_equal(25 + 25, MBX_WILCOXON_EXACT_MAX);
    assert_int_equal(w.exact, 1);
    near(w.w, 454.0);
    near(w.mean_w, 637.5);
    near(w.var_w, 2656.25);
    check_three(&w, 0.00024047126694996793, 0.00012023563347498397, 0.99988974481496617);
    near_tol(w.shift, -1.0756999999999994, 1e-12);
}

/* 40 vs 60, normal approximation, no ties. SciPy: U = 797 (W = 1617). */
static void normal_no_ties(void **state)
{
    (void)state;
    mbx_wilcoxon w = test(norm_a, 40, norm_b, 60);
    assert_int_equal(w.exact, 0);
    assert_int_equal(w.ties, 0);
    near(w.w, 1617.0);
    near(w.mean_w, 2020.0);
    near(w.var_w, 20200.0);
    near(w.z, (1617.0 - 2020.0) / sqrt(20200.0));
    check_three(&w, 0.004626072509264144, 0.002313036254632072, 0.99773735627044235);
    near_tol(w.shift, -0.6403649999999999, 1e-12);
}

/* 40 vs 60 integers 1..9: nearly every value tied. SciPy: U = 1054
 * (W = 1874); tie-corrected Var[W] from the Counter of the pooled values. */
static void normal_with_ties(void **state)
{
    (void)state;
    mbx_wilcoxon w = test(tie_a, 40, tie_b, 60);
    assert_int_equal(w.exact, 0);
    assert_int_equal(w.ties, 100);
    near(w.w, 1874.0);
    near(w.mean_w, 2020.0);
    near(w.var_w, 19867.151515151512);
    check_three(&w, 0.30194355202162559, 0.1509717760108128, 0.85068345734023976);
    near(w.shift, -1.0);
}

/* Doubled midrank of x in the pooled sample, counted directly. */
static unsigned rank2_of(double x, const double *pool, size_t n)
{
    unsigned below = 0, equal = 0;
    for (size_t i = 0; i < n; i++) {
        below += pool[i] < x;
        equal += pool[i] == x;
    }
    return 2 * below + equal + 1;
}

/* Exact p-values with ties by enumerating every n1-subset of the pooled
 * positions (N <= 20). */
static void brute_force(const double *a, size_t n1, const double *b, size_t n2, double *p_le,
                        double *p_ge)
{
    size_t n = n1 + n2;
    double pool[20];
    unsigned r[20], w2 = 0;
    assert_true(n <= 20);
    memcpy(pool, a, n1 * sizeof *a);
    memcpy(pool + n1, b, n2 * sizeof *b);
    for (size_t i = 0; i < n; i++)
        r[i] = rank2_of(pool[i], pool, n);
    for (size_t i = 0; i < n1; i++)
        w2 += r[i];
    unsigned long total = 0, le = 0, ge = 0;
    for (uint32_t m = 0; m < (UINT32_C(1) << n); m++) {
        size_t bits = 0;
        for (uint32_t v = m; v; v &= v - 1)
            bits++;
        if (bits != n1)
            continue;
        unsigned s = 0;
        for (size_t i = 0; i < n; i++)
            if (m & (UINT32_C(1) << i))
                s += r[i];
        total++;
        le += s <= w2;
        ge += s >= w2;
    }
    *p_le = (double)le / (double)total;
    *p_ge = (double)ge / (double)total;
}

static void check_brute(const double *a, size_t n1, const double *b, size_t n2)
{
    double le, ge;
    brute_force(a, n1, b, n2, &le, &ge);
    mbx_wilcoxon w = test(a, n1, b, n2);
    assert_int_equal(w.exact, 1);
    near_tol(w.p_less, le, 1e-13);
    near_tol(w.p_greater, ge, 1e-13);
    near_tol(w.p_two_sided, fmin(1.0, 2.0 * fmin(le, ge)), 1e-13);
}

static void exact_with_ties(void **state)
{
    (void)state;
    const double a[] = {1, 2, 2, 3, 5}, b[] = {2, 3, 3, 4, 6, 6, 7};
    check_brute(a, 5, b, 7);
    check_brute(b, 7, a, 5);
    /* Heavy ties, 8 vs 8, A mostly below. */
    const double c[] = {1, 1, 1, 2, 2, 2, 3, 1}, d[] = {2, 2, 3, 3, 3, 1, 3, 2};
    check_brute(c, 8, d, 8);
    mbx_wilcoxon w = test(c, 8, d, 8);
    assert_int_equal(w.ties, 16);
    /* Ties inside the first sample only: 3 vs 15. */
    const double e[] = {4, 4, 4};
    const double f[] = {1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    check_brute(e, 3, f, 15);
    /* With ties the two one-sided p-values sum to 1 + P(W == w). */
    mbx_wilcoxon v = test(c, 8, d, 8);
    assert_true(v.p_less + v.p_greater > 1.0);
}

static void check_swapped(const double *a, size_t n1, const double *b, size_t n2)
{
    mbx_wilcoxon ab = test(a, n1, b, n2), ba = test(b, n2, a, n1);
    near_tol(ab.p_less, ba.p_greater, 1e-12);
    near_tol(ab.p_greater, ba.p_less, 1e-12);
    near_tol(ab.p_two_sided, ba.p_two_sided, 1e-12);
    near_tol(ab.z, -ba.z, 1e-12);
    near_tol(ab.var_w, ba.var_w, 1e-12);
    assert_true(ab.shift == -ba.shift);
    assert_int_equal(ab.exact, ba.exact);
}

static void swap_symmetry(void **state)
{
    (void)state;
    check_swapped(eq_a, 10, eq_b, 10);
    check_swapped(uneq_a, 7, uneq_b, 12);
    check_swapped(norm_a, 40, norm_b, 60);
    check_swapped(tie_a, 40, tie_b, 60);
}

/* One-sided both ways: A clearly faster, then clearly slower. */
static void one_sided(void **state)
{
    (void)state;
    double a[30], b[30];
    for (int i = 0; i < 30; i++) {
        a[i] = 1.0 + 0.01 * i;
        b[i] = 1.2 + 0.01 * ((i * 7) % 30);
    }
    mbx_wilcoxon w = test(a, 20, b, 20); /* exact */
    assert_true(w.p_less < 1e-6 && w.p_greater == 1.0 && w.p_two_sided < 1e-6);
    assert_true(w.shift < 0);
    w = test(b, 30, a, 30); /* normal */
    assert_int_equal(w.exact, 0);
    assert_true(w.p_greater < 1e-6 && w.p_less > 0.999999 && w.p_two_sided < 1e-6);
    assert_true(w.shift > 0);
    assert_string_equal(mbx_wilcoxon_stars(w.p_two_sided), "***");
}

static int cmp_double(const void *pa, const void *pb)
{
    double x = *(const double *)pa, y = *(const double *)pb;
    return (x > y) - (x < y);
}

static double naive_hl(const double *a, size_t n1, const double *b, size_t n2)
{
    size_t m = n1 * n2, k = 0;
    double *d = malloc(m * sizeof *d);
    assert_non_null(d);
    for (size_t i = 0; i < n1; i++)
        for (size_t j = 0; j < n2; j++)
            d[k++] = a[i] - b[j];
    qsort(d, m, sizeof *d, cmp_double);
    double r = m % 2 ? d[m / 2] : 0.5 * d[m / 2 - 1] + 0.5 * d[m / 2];
    free(d);
    return r;
}

static uint64_t lcg = 12345;
static double rnd(void)
{
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg >> 11) / 9007199254740992.0;
}

/* The shift is the median of all a_i - b_j, compared with a direct
 * computation on random data with and without ties, odd and even counts. */
static void shift_matches_naive(void **state)
{
    (void)state;
    static double a[200], b[150];
    const size_t sizes[][2] = {{1, 1}, {1, 2}, {3, 5}, {4, 4}, {37, 23}, {60, 41}, {200, 150}};
    for (int round = 0; round < 2; round++)
        for (size_t s = 0; s < NELEM(sizes); s++) {
            size_t n1 = sizes[s][0], n2 = sizes[s][1];
            for (size_t i = 0; i < n1; i++)
                a[i] = round ? floor(rnd() * 6) : 1e-6 * (1.0 + rnd());
            for (size_t j = 0; j < n2; j++)
                b[j] = round ? floor(rnd() * 6 + 1) : 1e-6 * (1.3 + rnd());
            mbx_wilcoxon w = test(a, n1, b, n2);
            assert_true(w.shift == naive_hl(a, n1, b, n2));
        }
}

static void all_identical(void **state)
{
    (void)state;
    double x[40];
    for (int i = 0; i < 40; i++)
        x[i] = 2.5;
    const size_t sizes[][2] = {{1, 1}, {5, 5}, {3, 9}, {30, 40}};
    for (size_t s = 0; s < NELEM(sizes); s++) {
        mbx_wilcoxon w = test(x, sizes[s][0], x, sizes[s][1]);
        assert_true(w.p_two_sided == 1.0 && w.p_less == 1.0 && w.p_greater == 1.0);
        assert_true(w.var_w == 0.0 && w.z == 0.0 && w.shift == 0.0);
        near(w.w, w.mean_w);
    }
}

static void bad_input(void **state)
{
    (void)state;
    const double a[] = {1, 2, 3}, b[] = {4, 5, 6};
    const double na[] = {1, NAN, 3}, inf[] = {4, INFINITY, 6};
    mbx_wilcoxon w;
    assert_int_equal(mbx_wilcoxon_test(NULL, 3, b, 3, &w), MBX_E_INVAL);
    assert_int_equal(mbx_wilcoxon_test(a, 3, NULL, 3, &w), MBX_E_INVAL);
    assert_int_equal(mbx_wilcoxon_test(a, 3, b, 3, NULL), MBX_E_INVAL);
    assert_int_equal(mbx_wilcoxon_test(a, 0, b, 3, &w), MBX_E_INVAL);
    assert_int_equal(mbx_wilcoxon_test(a, 3, b, 0, &w), MBX_E_INVAL);
    assert_int_equal(mbx_wilcoxon_test(na, 3, b, 3, &w), MBX_E_INVAL);
    assert_int_equal(mbx_wilcoxon_test(a, 3, na, 3, &w), MBX_E_INVAL);
    assert_int_equal(mbx_wilcoxon_test(a, 3, inf, 3, &w), MBX_E_INVAL);
}

static void stars_and_names(void **state)
{
    (void)state;
    assert_string_equal(mbx_wilcoxon_stars(0.0), "***");
    assert_string_equal(mbx_wilcoxon_stars(0.00099), "***");
    assert_string_equal(mbx_wilcoxon_stars(0.001), "**");
    assert_string_equal(mbx_wilcoxon_stars(0.0099), "**");
    assert_string_equal(mbx_wilcoxon_stars(0.01), "*");
    assert_string_equal(mbx_wilcoxon_stars(0.0499), "*");
    assert_string_equal(mbx_wilcoxon_stars(0.05), "");
    assert_string_equal(mbx_wilcoxon_stars(1.0), "");
    assert_string_equal(mbx_wilcoxon_stars(NAN), "");

    const mbx_alternative alts[] = {MBX_ALT_TWO_SIDED, MBX_ALT_LESS, MBX_ALT_GREATER};
    for (size_t i = 0; i < NELEM(alts); i++) {
        mbx_alternative got = (mbx_alternative)-1;
        assert_int_equal(mbx_wilcoxon_alt_parse(mbx_wilcoxon_alt_name(alts[i]), &got), MBX_OK);
        assert_int_equal(got, alts[i]);
    }
    assert_string_equal(mbx_wilcoxon_alt_name(MBX_ALT_TWO_SIDED), "two-sided");
    assert_string_equal(mbx_wilcoxon_alt_name(MBX_ALT_LESS), "less");
    assert_string_equal(mbx_wilcoxon_alt_name(MBX_ALT_GREATER), "greater");
    assert_string_equal(mbx_wilcoxon_alt_name((mbx_alternative)7), "?");
    mbx_alternative alt;
    assert_int_equal(mbx_wilcoxon_alt_parse("two_sided", &alt), MBX_OK);
    assert_int_equal(alt, MBX_ALT_TWO_SIDED);
    assert_int_equal(mbx_wilcoxon_alt_parse("two.sided", &alt), MBX_OK);
    assert_int_equal(mbx_wilcoxon_alt_parse("Less", &alt), MBX_E_UNKNOWN);
    assert_int_equal(mbx_wilcoxon_alt_parse("", &alt), MBX_E_UNKNOWN);
    assert_int_equal(mbx_wilcoxon_alt_parse(NULL, &alt), MBX_E_INVAL);
    assert_int_equal(mbx_wilcoxon_alt_parse("less", NULL), MBX_E_INVAL);
}

/* The Hodges-Lehmann interval on the permeability data of Hollander &
 * Wolfe (R's wilcox.test example: HL estimate 0.305): by enumerating the
 * C(15, 5) = 3003 rank orders, P(U <= 8) <= 0.025 < P(U <= 9), so the 95 %
 * interval is [D_(9), D_(42)] = [-0.15, 0.76] with achieved confidence
 * 1 - 2 x 60 / 3003 = 96.0 %; at 90 %, [D_(12), D_(39)] = [-0.08, 0.72]. */
static void hl_interval_textbook(void **state)
{
    (void)state;
    const double x[10] = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
    const double y[5] = {1.15, 0.88, 0.90, 0.74, 1.21};
    mbx_hl h;
    assert_int_equal(mbx_wilcoxon_hl_ci(x, 10, y, 5, 0.95, &h), MBX_OK);
    assert_float_equal(h.est, 0.305, 1e-12);
    assert_float_equal(h.lo, -0.15, 1e-12);
    assert_float_equal(h.hi, 0.76, 1e-12);
    assert_float_equal(h.conf, 0.9600399600399601, 1e-12);
    assert_int_equal(h.exact, 1);
    assert_int_equal(mbx_wilcoxon_hl_ci(x, 10, y, 5, 0.90, &h), MBX_OK);
    assert_float_equal(h.lo, -0.08, 1e-12);
    assert_float_equal(h.hi, 0.72, 1e-12);
    assert_float_equal(h.conf, 0.9007659007659008, 1e-12);
    /* 3 against 3: no interval reaches 95 % */
    assert_int_equal(mbx_wilcoxon_hl_ci(x, 3, y, 3, 0.95, &h), MBX_OK);
    assert_true(isinf(h.lo) && h.lo < 0 && isinf(h.hi) && h.hi > 0);
    assert_int_equal(mbx_wilcoxon_hl_ci(x, 10, y, 5, 1.0, &h), MBX_E_INVAL);
    assert_int_equal(mbx_wilcoxon_hl_ci(x, 0, y, 5, 0.95, &h), MBX_E_INVAL);
}

/* Past the exact limit (30 against 30) the normal approximation: a shift
 * of 5 is inside the interval and the achieved confidence within half a
 * point of 95 %, as the exact one at 25 against 25 is. */
static void hl_interval_normal(void **state)
{
    (void)state;
    double a[30], b[30];
    for (int i = 0; i < 30; i++)
        a[i] = 5.0 + i * 0.37 - (i % 7) * 0.5, b[i] = i * 0.37 - (i % 5) * 0.4;
    mbx_hl h;
    assert_int_equal(mbx_wilcoxon_hl_ci(a, 30, b, 30, 0.95, &h), MBX_OK);
    assert_int_equal(h.exact, 0);
    assert_true(h.lo < 5.0 && 5.0 < h.hi && h.lo <= h.est && h.est <= h.hi);
    assert_true(h.conf >= 0.95 && h.conf < 0.955);
    mbx_hl e;
    assert_int_equal(mbx_wilcoxon_hl_ci(a, 25, b, 25, 0.95, &e), MBX_OK);
    assert_int_equal(e.exact, 1);
    assert_true(e.conf >= 0.95 && e.conf < 0.955);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_case),
        cmocka_unit_test(single_values),
        cmocka_unit_test(exact_equal_sizes),
        cmocka_unit_test(exact_unequal_sizes),
        cmocka_unit_test(exact_at_limit),
        cmocka_unit_test(normal_no_ties),
        cmocka_unit_test(normal_with_ties),
        cmocka_unit_test(exact_with_ties),
        cmocka_unit_test(swap_symmetry),
        cmocka_unit_test(one_sided),
        cmocka_unit_test(shift_matches_naive),
        cmocka_unit_test(all_identical),
        cmocka_unit_test(bad_input),
        cmocka_unit_test(stars_and_names),
        cmocka_unit_test(hl_interval_textbook),
        cmocka_unit_test(hl_interval_normal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
