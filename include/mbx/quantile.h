/* mpibex tail quantiles (P90, P99) of one point's observations, each with
 * a distribution-free 95 % confidence interval.
 *
 * Pure C, no MPI. Definitions (docs/algorithms.md, "Tail percentiles"):
 *  - the estimate is the type-7 quantile (h = (n-1)p, linear interpolation
 *    between order statistics), the definition of the median and quartiles
 *    (mbx/stats.h);
 *  - the 95 % CI is [x(l), x(u)] (1-based order statistics) with
 *    B ~ Binomial(n, p), the count of observations below the true
 *    quantile: l the largest rank with P(B < l) <= 0.025 and u the
 *    smallest with P(B >= u) <= 0.025, so each tail misses at most 2.5 %
 *    and P(l <= B < u) >= 0.95 (for every continuous distribution; ties
 *    only widen it);
 *  - such ranks exist, 1 <= l and u <= n, when p^n <= 0.025 and
 *    (1-p)^n <= 0.025: for n >= K = mbx_quantile_min_n(p) (36 for P90,
 *    368 for P99). Below K the interval is empty (NAN) and the estimate
 *    is still given. */
#ifndef MBX_QUANTILE_H
#define MBX_QUANTILE_H

#include <stddef.h>

#include "mbx/status.h"

/* The confidence of the interval, and what each tail may miss. */
#define MBX_QUANTILE_LEVEL 0.95

/* One quantile of a sample, seconds like the observations. */
typedef struct mbx_quantile {
    double value;        /* type-7 estimate; NAN for an empty sample */
    double ci_lo, ci_hi; /* x(lo), x(hi); both NAN when n < need */
    size_t lo, hi;       /* the 1-based ranks; 0 when there is no interval */
    size_t need;         /* K: the fewest observations with an interval */
} mbx_quantile;

/* K for quantile p, 0 < p < 1: the smallest n for which the ranks above
 * exist. 0 for a p out of range. */
size_t mbx_quantile_min_n(double p);

/* The 1-based ranks (lo, hi) of the 95 % CI of quantile p (0 < p < 1) for
 * n observations (n <= 4294967295, GSL's binomial counts). Returns 1 with
 * them set, or 0 (both set to 0) when n < mbx_quantile_min_n(p), p is out
 * of range or n too large. */
int mbx_quantile_ci_index(size_t n, double p, size_t *lo, size_t *hi);

/* Quantile p (0 < p < 1) of an ascending array sorted[0..n) with its 95 %
 * CI into *out. n == 0 gives an empty quantile (value NAN). Errors:
 * MBX_E_INVAL for a NULL pointer (sorted may be NULL when n is 0) or a p
 * out of range. */
MBX_NODISCARD int mbx_quantile_sorted(const double *sorted, size_t n, double p, mbx_quantile *out);

#endif
