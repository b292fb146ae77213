/* Summary statistics of one point's observations (see mbx/stats.h for the
 * definitions). Everything works on a sorted copy so that order statistics,
 * trimming and winsorizing are index arithmetic. */
#include "mbx/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Tukey-McLaughlin trimming proportion; fixed by the contract even when
 * floor(n/4) trims slightly less than a quarter. */
#define TRIM_G 0.25
#define CI_TAIL 0.025

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Neumaier's compensated sum: observations of a converging point are nearly
 * equal, so plain summation would lose the low digits the stop rules need. */
static double sum_range(const double *x, size_t lo, size_t hi)
{
    double s = 0.0, c = 0.0;
    for (size_t i = lo; i < hi; i++) {
        double t = s + x[i];
        if (fabs(s) >= fabs(x[i]))
            c += (s - t) + x[i];
        else
            c += (x[i] - t) + s;
        s = t;
    }
    return s + c;
}

static double mean_range(const double *x, size_t lo, size_t hi)
{
    double m = sum_range(x, lo, hi) / (double)(hi - lo);
    if (isfinite(m))
        return m;
    /* The sum overflowed although every value is finite: average scaled
     * values instead, which cannot overflow. */
    double s = 0.0;
    for (size_t i = lo; i < hi; i++)
        s += x[i] / (double)(hi - lo);
    return s;
}

/* Sample standard deviation of ascending x[0..n) with every value below lo
 * read as x[lo] and every value above hi read as x[hi]; lo = 0,
 * hi = n-1 gives the plain sample sd. Two passes with the correction term
 * of Chan, Golub & LeVeque, so a large common offset does not cancel the
 * spread away. */
static double clamped_sd(const double *x, size_t n, size_t lo, size_t hi)
{
    if (n < 2)
        return NAN;
    if (x[lo] == x[hi])
        return 0.0; /* sorted, so every value read is equal: no rounding noise */
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += x[i < lo ? lo : i > hi ? hi : i];
    double m = s / (double)n;
    double ss = 0.0, sd = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = x[i < lo ? lo : i > hi ? hi : i] - m;
        ss += d * d;
        sd += d;
    }
    double var = (ss - sd * sd / (double)n) / (double)(n - 1);
    return var > 0.0 ? sqrt(var) : 0.0;
}

double mbx_stats_quantile_sorted(const double *sorted, size_t n, double p)
{
    if (sorted == NULL || n == 0 || !(p >= 0.0 && p <= 1.0))
        return NAN;
    double h = (double)(n - 1) * p;
    size_t i = (size_t)floor(h);
    if (i >= n - 1)
        return sorted[n - 1];
    double f = h - (double)i;
    return sorted[i] + f * (sorted[i + 1] - sorted[i]);
}

double mbx_stats_median_sort(double *x, size_t n)
{
    if (x == NULL || n == 0)
        return NAN;
    qsort(x, n, sizeof *x, cmp_double);
    return mbx_stats_quantile_sorted(x, n, 0.5);
}

/* P(B <= k) for B ~ Binomial(n, 1/2), k < n.
 *
 * Method: the pmf at k is anchored in log space with lgamma (no overflow or
 * underflow for any n up to MBX_NMAX_LIMIT), then the tail is summed
 * downwards with the exact ratio pmf(j-1)/pmf(j) = j/(n-j+1) until the terms
 * no longer change the sum. No normal approximation is involved, so small n
 * get the exact order statistics (up to rounding, which stays near 1e-13
 * relative for n <= 1000 and near 1e-7 for n = 1e7 from lgamma's magnitude);
 * the cost is O(sqrt(n)) terms because the lower tail is Gaussian-thin. */
static double binom_half_cdf(size_t n, size_t k)
{
    double dn = (double)n, dk = (double)k;
    double lp = lgamma(dn + 1.0) - lgamma(dk + 1.0) - lgamma(dn - dk + 1.0) - dn * log(2.0);
    double term = exp(lp), sum = term;
    for (size_t j = k; j > 0; j--) {
        term *= (double)j / (dn - (double)j + 1.0);
        sum += term;
        if (term < sum * 1e-17)
            break;
    }
    return sum;
}

int mbx_stats_median_ci_index(size_t n, size_t *lo, size_t *hi)
{
    size_t l = 0;
    if (n >= 2) {
        /* Start near the normal-approximation answer and walk to the exact
         * boundary; the guess is off by at most a few indices. */
        double guess = (double)n / 2.0 - 0.98 * sqrt((double)n) - 0.5;
        size_t k = guess > 0.0 ? (size_t)guess : 0;
        while (k > 0 && binom_half_cdf(n, k) > CI_TAIL)
            k--;
        if (binom_half_cdf(n, k) <= CI_TAIL) {
            while (k + 1 < n && binom_half_cdf(n, k + 1) <= CI_TAIL)
                k++;
            l = k + 1;
        }
    }
    if (l == 0) {
        /* No order statistic reaches 95 % coverage: the whole range is the
         * best available (and for n = 0 there is nothing to index). */
        if (lo != NULL)
            *lo = n > 0 ? 1 : 0;
        if (hi != NULL)
            *hi = n;
        return 0;
    }
    if (lo != NULL)
        *lo = l;
    if (hi != NULL)
        *hi = n + 1 - l;
    return 1;
}

int mbx_stats_summarize(const double *x, size_t n, double *scratch, mbx_summary *out)
{
    if (x == NULL || scratch == NULL || out == NULL || n == 0)
        return MBX_E_INVAL;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return MBX_E_INVAL;

    /* memmove: a caller passing x as its own scratch gets defined behaviour
     * (though x is then sorted in place). */
    memmove(scratch, x, n * sizeof *scratch);
    qsort(scratch, n, sizeof *scratch, cmp_double);
    const double *s = scratch;

    mbx_summary r;
    memset(&r, 0, sizeof r);
    r.n = n;
    r.sum = sum_range(s, 0, n);
    r.mean = mean_range(s, 0, n);
    r.min = s[0];
    r.max = s[n - 1];
    r.median = mbx_stats_quantile_sorted(s, n, 0.5);
    r.q1 = mbx_stats_quantile_sorted(s, n, 0.25);
    r.q3 = mbx_stats_quantile_sorted(s, n, 0.75);
    r.stddev = clamped_sd(s, n, 0, n - 1);

    size_t g = n / 4;
    r.tmean = mean_range(s, g, n - g);
    double sw = clamped_sd(s, n, g, n - 1 - g);
    r.stderr_ = sw / ((1.0 - 2.0 * TRIM_G) * sqrt((double)n));

    size_t lo, hi;
    r.ci_exact = mbx_stats_median_ci_index(n, &lo, &hi);
    r.ci_lo = s[lo - 1];
    r.ci_hi = s[hi - 1];

    if (mbx_quantile_sorted(s, n, 0.90, &r.p90) != MBX_OK ||
        mbx_quantile_sorted(s, n, 0.99, &r.p99) != MBX_OK)
        return MBX_E_INVAL; /* not reached: p is in range and s is set */

    double iqr = r.q3 - r.q1;
    double fence_lo = r.q1 - 1.5 * iqr, fence_hi = r.q3 + 1.5 * iqr;
    for (size_t i = 0; i < n; i++)
        if (s[i] < fence_lo || s[i] > fence_hi)
            r.outliers++;

    *out = r;
    return MBX_OK;
}

int mbx_stats_summarize_events(const double *x, size_t n, double res, double *scratch,
                               mbx_summary *out, size_t *events)
{
    if (x == NULL || scratch == NULL || out == NULL || events == NULL || n == 0 || !(res >= 0.0) ||
        !isfinite(res))
        return MBX_E_INVAL;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return MBX_E_INVAL;
    memmove(scratch, x, n * sizeof *scratch);
    qsort(scratch, n, sizeof *scratch, cmp_double);
    double m = mbx_stats_quantile_sorted(scratch, n, 0.5);
    /* Against the resolution when the median is below it: a median of
     * nothing (a corrected ~0) would make every jitter an event. */
    double base = m > res ? m : res, limit = MBX_EVENT_FACTOR * base;
    size_t keep = n;
    while (base > 0.0 && keep > 1 && scratch[keep - 1] > limit)
        keep--;
    *events = n - keep;
    /* Already sorted: summarizing in place sorts nothing new. */
    return mbx_stats_summarize(scratch, keep, scratch, out);
}
