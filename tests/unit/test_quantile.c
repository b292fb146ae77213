/* Tail percentiles and their 95 % CIs (mbx/quantile.h): the ranks against
 * exact binomial sums, the estimate against the type-7 definition, the
 * summary's P90 and P99, and the CI's coverage by seeded simulation on
 * skewed distributions like this project's latencies.
 *
 * The reference ranks come from an independent exact computation (Python,
 * fractions and math.comb: l the largest rank with P(B <= l-1) <= 1/40,
 * u the smallest with P(B >= u) <= 1/40), not from this implementation. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_cdf.h>

#include "mbx/quantile.h"
#include "mbx/stats.h"

static void ranks_match_exact_binomial_sums(void **state)
{
    (void)state;
    static const struct {
        size_t n;
        double p;
        size_t lo, hi; /* 0, 0: no interval */
    } c[] = {
        {35, 0.90, 0, 0},          {36, 0.90, 29, 36},     {50, 0.90, 41, 50},
        {200, 0.90, 171, 189},     {1000, 0.90, 881, 919}, {10000, 0.90, 8941, 9059},
        {367, 0.99, 0, 0},         {368, 0.99, 360, 368},  {1000, 0.99, 983, 997},
        {10000, 0.99, 9880, 9920},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        size_t lo = 7, hi = 7;
        int ok = mbx_quantile_ci_index(c[i].n, c[i].p, &lo, &hi);
        assert_int_equal(ok, c[i].lo > 0);
        assert_int_equal(lo, c[i].lo);
        assert_int_equal(hi, c[i].hi);
    }
}

static void too_few_observations_need_k(void **state)
{
    (void)state;
    /* K = ceil(ln 0.025 / ln p): 0.9^35 > 0.025 >= 0.9^36. */
    assert_int_equal(mbx_quantile_min_n(0.90), 36);
    assert_int_equal(mbx_quantile_min_n(0.99), 368);
    assert_int_equal(mbx_quantile_min_n(0.5), 6); /* the median's CI (mbx/stats.h) */
    assert_int_equal(mbx_quantile_min_n(0.0), 0);
    assert_int_equal(mbx_quantile_min_n(1.0), 0);
    for (size_t n = 1; n < 400; n++) {
        assert_int_equal(mbx_quantile_ci_index(n, 0.90, NULL, NULL), n >= 36);
        assert_int_equal(mbx_quantile_ci_index(n, 0.99, NULL, NULL), n >= 368);
    }
}

static void estimate_is_type7_and_ci_orders(void **state)
{
    (void)state;
    double x[50];
    for (size_t i = 0; i < 50; i++)
        x[i] = (double)(i + 1); /* x(i) = i */
    mbx_quantile q;
    assert_int_equal(mbx_quantile_sorted(x, 50, 0.90, &q), MBX_OK);
    assert_true(fabs(q.value - 45.1) < 1e-12); /* h = 49 * 0.9 = 44.1: x(45) + 0.1 */
    assert_true(q.ci_lo == 41.0 && q.ci_hi == 50.0);
    assert_int_equal(q.need, 36);
    assert_int_equal(mbx_quantile_sorted(x, 50, 0.99, &q), MBX_OK);
    assert_true(fabs(q.value - 49.51) < 1e-12);
    assert_true(isnan(q.ci_lo) && isnan(q.ci_hi) && q.lo == 0 && q.hi == 0);
    assert_int_equal(q.need, 368);
    assert_int_equal(mbx_quantile_sorted(NULL, 0, 0.9, &q), MBX_OK);
    assert_true(isnan(q.value) && isnan(q.ci_lo));
    assert_int_equal(mbx_quantile_sorted(x, 50, 1.0, &q), MBX_E_INVAL);
    assert_int_equal(mbx_quantile_sorted(NULL, 3, 0.9, &q), MBX_E_INVAL);
}

/* The summary every row is made from carries the same P90 and P99. */
static void summary_carries_p90_and_p99(void **state)
{
    (void)state;
    enum { N = 400 };
    double x[N], scratch[N];
    for (size_t i = 0; i < N; i++)
        x[i] = (double)((i * 7919) % N) + 1.0; /* a permutation of 1..N */
    mbx_summary s;
    assert_int_equal(mbx_stats_summarize(x, N, scratch, &s), MBX_OK);
    mbx_quantile q90, q99;
    assert_int_equal(mbx_quantile_sorted(scratch, N, 0.90, &q90), MBX_OK);
    assert_int_equal(mbx_quantile_sorted(scratch, N, 0.99, &q99), MBX_OK);
    assert_memory_equal(&s.p90, &q90, sizeof q90);
    assert_memory_equal(&s.p99, &q99, sizeof q99);
    assert_true(fabs(s.p99.value - 396.01) < 1e-9 && s.p99.lo > 0);
}

/* ---- coverage simulation ----
 *
 * Latencies here are skewed to the right: a floor, a body and a tail of
 * interrupts and slow rounds. Five models of that, each with its true
 * quantiles known in closed form (the mixture's by bisection of its CDF),
 * at the sizes a point has (50 to 10 000 observations); reps() seeded
 * samples per cell. The coverage of the true quantile by [x(l), x(u)] must
 * be at least 93 %, which an exact 95 % interval misses with 2000
 * replications only if the simulation is 4 standard errors off (3 with the
 * 1000 of the largest size, which keep the test near a second). */
#define REPS 2000
#define REPS_LARGE 1000

static int reps(size_t n)
{
    return n > 1000 ? REPS_LARGE : REPS;
}
#define NMAX 10000

typedef struct rng {
    uint64_t s[4];
} rng;

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* xoshiro256** */
static uint64_t next64(rng *r)
{
    uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return res;
}

static void seed(rng *r, uint64_t v)
{
    for (int i = 0; i < 4; i++) { /* splitmix64 */
        uint64_t z = (v += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        r->s[i] = z ^ (z >> 31);
    }
}

/* Uniform in (0, 1), never 0 or 1. */
static double unif(rng *r)
{
    return ((double)(next64(r) >> 11) + 0.5) * 0x1.0p-53;
}

/* Box-Muller, both of its values. */
static double gauss(rng *r)
{
    static double spare;
    static int have;
    if (have) {
        have = 0;
        return spare;
    }
    double m = sqrt(-2.0 * log(unif(r))), a = 6.283185307179586 * unif(r);
    spare = m * sin(a);
    have = 1;
    return m * cos(a);
}

enum { LOGN05, LOGN1, EXPC, PARETO, MIX, NDIST };
static const char *const dist_name[NDIST] = {"lognormal s=0.5", "lognormal s=1", "2 + exp(0.5)",
                                             "1 + Pareto(2.5)", "mix 80% 1, 20% 3"};

static double draw(int d, rng *r)
{
    switch (d) {
    case LOGN05: return exp(0.5 * gauss(r));
    case LOGN1: return exp(gauss(r));
    case EXPC: return 2.0 - 0.5 * log(unif(r));
    case PARETO: return 1.0 + pow(unif(r), -1.0 / 2.5);
    default: return (unif(r) < 0.8 ? 1.0 : 3.0) * exp(0.1 * gauss(r));
    }
}

static double mix_cdf(double x)
{
    double z = log(x) / 0.1;
    return 0.8 * gsl_cdf_ugaussian_P(z) + 0.2 * gsl_cdf_ugaussian_P(z - log(3.0) / 0.1);
}

static double truth(int d, double p)
{
    switch (d) {
    case LOGN05: return exp(0.5 * gsl_cdf_ugaussian_Pinv(p));
    case LOGN1: return exp(gsl_cdf_ugaussian_Pinv(p));
    case EXPC: return 2.0 - 0.5 * log(1.0 - p);
    case PARETO: return 1.0 + pow(1.0 - p, -1.0 / 2.5);
    default: {
        double lo = 0.1, hi = 100.0;
        for (int i = 0; i < 200; i++) {
            double m = 0.5 * (lo + hi);
            *(mix_cdf(m) < p ? &lo : &hi) = m;
        }
        return 0.5 * (lo + hi);
    }
    }
}

/* Positive doubles order as their bit patterns: an LSD radix sort, the
 * test's own (qsort of 10^4 values 10^4 times would take most of the
 * test's time; the function under test takes a sorted sample). */
#define RADIX_BITS 11
#define RADIX (1u << RADIX_BITS)
static void sort_pos(double *x, double *tmp, size_t n)
{
    for (int shift = 0; shift < 64; shift += RADIX_BITS) {
        static size_t count[RADIX + 1];
        memset(count, 0, sizeof count);
        for (size_t i = 0; i < n; i++) {
            uint64_t b;
            memcpy(&b, &x[i], sizeof b);
            count[((b >> shift) & (RADIX - 1)) + 1]++;
        }
        uint64_t b0;
        memcpy(&b0, &x[0], sizeof b0);
        if (count[((b0 >> shift) & (RADIX - 1)) + 1] == n)
            continue; /* one digit for all: nothing moves */
        for (unsigned k = 0; k < RADIX; k++)
            count[k + 1] += count[k];
        for (size_t i = 0; i < n; i++) {
            uint64_t b;
            memcpy(&b, &x[i], sizeof b);
            tmp[count[(b >> shift) & (RADIX - 1)]++] = x[i];
        }
        memcpy(x, tmp, n * sizeof *x);
    }
}

/* Coverage of quantile p over the cell's samples: covered / samples with
 * an interval (the interval exists for every sample of a size or none). */
typedef struct cover {
    size_t hit, with_ci;
} cover;

static void tally(const double *sorted, size_t n, double p, double q, cover *c)
{
    mbx_quantile e;
    assert_int_equal(mbx_quantile_sorted(sorted, n, p, &e), MBX_OK);
    assert_true(e.ci_lo <= e.value || isnan(e.ci_lo));
    assert_true(e.value <= e.ci_hi || isnan(e.ci_hi));
    if (isnan(e.ci_lo))
        return;
    c->with_ci++;
    c->hit += e.ci_lo <= q && q <= e.ci_hi;
}

static void print_cov(const cover *c, size_t n, double p)
{
    if (c->with_ci == 0) {
        printf("  %-22s", "no CI");
        (void)n, (void)p;
        return;
    }
    double f = (double)c->hit / (double)c->with_ci;
    size_t lo, hi;
    assert_true(mbx_quantile_ci_index(n, p, &lo, &hi));
    double exact = gsl_cdf_binomial_P((unsigned)(hi - 1), p, (unsigned)n) -
                   gsl_cdf_binomial_P((unsigned)(lo - 1), p, (unsigned)n);
    printf("  %5.1f %% +- %3.1f (%5.1f)", 100.0 * f,
           100.0 * sqrt(f * (1.0 - f) / (double)c->with_ci), 100.0 * exact);
}

static void ci_covers_true_tail_quantiles_of_skewed_latencies(void **state)
{
    (void)state;
    static const size_t sizes[] = {50, 200, 1000, 10000};
    double *x = malloc(NMAX * sizeof *x), *tmp = malloc(NMAX * sizeof *tmp);
    assert_non_null(x);
    assert_non_null(tmp);
    printf("coverage of the true quantile, %d seeded samples per cell (%d at n > 1000): simulated "
           "+- its binomial standard error (exact binomial coverage of the ranks)\n",
           REPS, REPS_LARGE);
    printf("%-18s %6s  %-22s  %-22s\n", "distribution", "n", "P90", "P99");
    rng r;
    seed(&r, 20261129);
    for (int d = 0; d < NDIST; d++) {
        double q90 = truth(d, 0.90), q99 = truth(d, 0.99);
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            size_t n = sizes[k];
            cover c90 = {0, 0}, c99 = {0, 0};
            int m = reps(n);
            for (int rep = 0; rep < m; rep++) {
                for (size_t i = 0; i < n; i++)
                    x[i] = draw(d, &r);
                sort_pos(x, tmp, n);
                tally(x, n, 0.90, q90, &c90);
                tally(x, n, 0.99, q99, &c99);
            }
            printf("%-18s %6zu", dist_name[d], n);
            print_cov(&c90, n, 0.90);
            print_cov(&c99, n, 0.99);
            printf("\n");
            assert_int_equal(c90.with_ci, m);
            assert_int_equal(c99.with_ci, n >= 368 ? m : 0);
            assert_true(c90.hit >= 0.93 * m);
            assert_true(c99.with_ci == 0 || c99.hit >= 0.93 * m);
        }
    }
    free(x);
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ranks_match_exact_binomial_sums),
        cmocka_unit_test(too_few_observations_need_k),
        cmocka_unit_test(estimate_is_type7_and_ci_orders),
        cmocka_unit_test(summary_carries_p90_and_p99),
        cmocka_unit_test(ci_covers_true_tail_quantiles_of_skewed_latencies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
