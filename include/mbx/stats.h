/* mpibex statistics over one point's observations.
 *
 * Pure C, no MPI. Definitions (docs/algorithms.md says the same):
 *  - quantiles (median, q1, q3) use linear interpolation between order
 *    statistics, h = (n-1)p (Hyndman & Fan type 7, R's default);
 *  - the 25 %-trimmed mean drops floor(n/4) observations at each end and
 *    averages the rest (SKaMPI: "ignore the 25 % slowest and fastest");
 *  - stderr is the standard error of that trimmed mean by Tukey-McLaughlin:
 *    s_w / ((1 - 2g) sqrt(n)) with g = 0.25 and s_w the sample standard
 *    deviation of the sample winsorized at the same cut points;
 *  - the 95 % CI of the median is [x(l), x(u)] (1-based order statistics)
 *    with l the largest index such that P(B <= l-1) <= 0.025 for
 *    B ~ Binomial(n, 1/2) and u = n + 1 - l; when n is too small for any
 *    such l (n < 6) the interval is [min, max] and ci_exact is 0;
 *  - outliers are Tukey's: values below q1 - 1.5 IQR or above q3 + 1.5 IQR;
 *  - P90 and P99 are type-7 quantiles with the order-statistic 95 % CI of
 *    mbx/quantile.h (empty below 36 and 368 observations).
 * Undefined values (stddev and stderr for n = 1) are NAN, never zero. */
#ifndef MBX_STATS_H
#define MBX_STATS_H

#include <stddef.h>

#include "mbx/quantile.h"
#include "mbx/status.h"

typedef struct mbx_summary {
    size_t n;
    double mean, tmean, median, min, max, q1, q3;
    double stddev;         /* sample standard deviation (n-1), NAN if n < 2 */
    double stderr_;        /* standard error of the trimmed mean, NAN if n < 2 */
    double ci_lo, ci_hi;   /* 95 % CI of the median */
    int ci_exact;          /* 1 if [ci_lo, ci_hi] has coverage >= 95 % */
    size_t outliers;       /* Tukey outliers */
    double sum;            /* sum of all observations (for the tick/EPS rule) */
    mbx_quantile p90, p99; /* tail percentiles with their 95 % CIs */
} mbx_summary;

/* Summarize x[0..n). n >= 1. `scratch` must hold n doubles (it receives
 * the sorted values); x itself is not modified. Errors: MBX_E_INVAL for
 * n == 0, a NULL pointer or a non-finite value. */
MBX_NODISCARD int mbx_stats_summarize(const double *x, size_t n, double *scratch, mbx_summary *out);

/* An observation greater than MBX_EVENT_FACTOR times the point's median
 * (or times the resolution, when the median is below it) is an *event*: the
 * rank was stopped, preempted or swapped out, and the time says nothing
 * about the operation. */
#define MBX_EVENT_FACTOR 100.0

/* Summarize x[0..n) without its events (see MBX_EVENT_FACTOR): the median m
 * of all n observations is taken, every observation > MBX_EVENT_FACTOR *
 * max(m, res) is counted in *events and left out, and `out` summarizes the
 * rest (out->n = n - *events; never empty, since events lie above the
 * median). res is the resolution of one observation, seconds (0: none).
 * `scratch` must hold n doubles. Errors as mbx_stats_summarize. */
MBX_NODISCARD int mbx_stats_summarize_events(const double *x, size_t n, double res, double *scratch,
                                             mbx_summary *out, size_t *events);

/* Quantile p in [0,1] of an ascending array (type 7). n >= 1. */
double mbx_stats_quantile_sorted(const double *sorted, size_t n, double p);

/* The median of x[0..n), sorting x in place; NAN when n is 0. */
double mbx_stats_median_sort(double *x, size_t n);

/* 1-based order-statistic indices (lo, hi) of the 95 % CI of the median
 * for n observations; returns 1 if exact (coverage >= 95 %), 0 if the
 * interval had to fall back to [1, n]. */
int mbx_stats_median_ci_index(size_t n, size_t *lo, size_t *hi);

#endif
