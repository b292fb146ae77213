/* Tail quantiles and their order-statistic intervals (mbx/quantile.h).
 * The binomial tails come from GSL, whose incomplete beta is exact to
 * rounding at every n the engine keeps (10 million at most); the ranks
 * start at the normal approximation and walk to the exact boundary, a few
 * tail evaluations each. */
#include "mbx/quantile.h"

#include <gsl/gsl_cdf.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "mbx/stats.h"

#define TAIL ((1.0 - MBX_QUANTILE_LEVEL) / 2.0)

static int p_ok(double p)
{
    return p > 0.0 && p < 1.0;
}

/* P(B <= k), B ~ Binomial(n, p); k < n. The arguments are checked by the
 * callers (p in (0, 1), n within unsigned int): GSL's only error is a p
 * out of range, so its handler, which would abort, is never reached. */
static double cdf(size_t k, double p, size_t n)
{
    return gsl_cdf_binomial_P((unsigned)k, p, (unsigned)n);
}

/* P(B >= k) = 1 - P(B <= k-1), from the upper tail directly (no
 * cancellation); k >= 1. */
static double upper(size_t k, double p, size_t n)
{
    return gsl_cdf_binomial_Q((unsigned)(k - 1), p, (unsigned)n);
}

size_t mbx_quantile_min_n(double p)
{
    if (!p_ok(p))
        return 0;
    /* p^n <= TAIL and (1-p)^n <= TAIL; the float guess is checked
     * exactly, as the ranks are. */
    double m = fmax(p, 1.0 - p);
    size_t k = (size_t)floor(log(TAIL) / log(m));
    if (k < 1)
        k = 1;
    while (k > 1 && pow(m, (double)(k - 1)) <= TAIL)
        k--;
    while (pow(m, (double)k) > TAIL)
        k++;
    return k;
}

/* The largest l in 1..n with P(B <= l-1) <= TAIL, or 0. */
static size_t rank_lo(size_t n, double p)
{
    if (cdf(0, p, n) > TAIL)
        return 0;
    double mu = (double)n * p, sd = sqrt((double)n * p * (1.0 - p));
    double g = mu - 1.96 * sd;
    size_t k = g > 1.0 ? (size_t)g : 0; /* k = l - 1 */
    if (k > n - 1)
        k = n - 1;
    while (k > 0 && cdf(k, p, n) > TAIL)
        k--;
    while (k + 1 < n && cdf(k + 1, p, n) <= TAIL)
        k++;
    return k + 1;
}

/* The smallest u in 1..n with P(B >= u) <= TAIL, or 0. */
static size_t rank_hi(size_t n, double p)
{
    if (upper(n, p, n) > TAIL)
        return 0;
    double mu = (double)n * p, sd = sqrt((double)n * p * (1.0 - p));
    double g = ceil(mu + 1.96 * sd);
    size_t u = g < (double)n ? (size_t)g : n;
    if (u < 1)
        u = 1;
    while (u < n && upper(u, p, n) > TAIL)
        u++;
    while (u > 1 && upper(u - 1, p, n) <= TAIL)
        u--;
    return u;
}

int mbx_quantile_ci_index(size_t n, double p, size_t *lo, size_t *hi)
{
    size_t l = 0, u = 0;
    if (p_ok(p) && n >= 1 && n <= UINT_MAX && n >= mbx_quantile_min_n(p)) {
        l = rank_lo(n, p);
        u = rank_hi(n, p);
        if (l == 0 || u == 0 || l > u)
            l = u = 0;
    }
    if (lo != NULL)
        *lo = l;
    if (hi != NULL)
        *hi = u;
    return l > 0;
}

int mbx_quantile_sorted(const double *sorted, size_t n, double p, mbx_quantile *out)
{
    if (out == NULL || (sorted == NULL && n > 0) || !p_ok(p))
        return MBX_E_INVAL;
    mbx_quantile q;
    memset(&q, 0, sizeof q);
    q.need = mbx_quantile_min_n(p);
    q.value = n > 0 ? mbx_stats_quantile_sorted(sorted, n, p) : NAN;
    q.ci_lo = q.ci_hi = NAN;
    if (mbx_quantile_ci_index(n, p, &q.lo, &q.hi)) {
        q.ci_lo = sorted[q.lo - 1];
        q.ci_hi = sorted[q.hi - 1];
    }
    *out = q;
    return MBX_OK;
}
