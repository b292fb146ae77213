/* mpibex: Wilcoxon rank-sum (Mann-Whitney) test of two independent samples
 * (docs/algorithms.md, "Between-pass error"; Hunold & Carpen-Amarie).
 *
 * W is the sum of the ranks of sample A in the pooled sample, ties given
 * their midrank. Under H0 (both samples from one distribution)
 * E[W] = n1 (n1 + n2 + 1) / 2 for any n1, n2, and the tie-corrected
 * variance is n1 n2 / 12 * ((N + 1) - sum(t^3 - t) / (N (N - 1))), N =
 * n1 + n2, t the size of each tie group.
 *  - N <= MBX_WILCOXON_EXACT_MAX: exact p-values from the permutation
 *    distribution of W given the pooled midranks (valid with ties);
 *  - otherwise the normal approximation with continuity correction 1/2.
 * p_less = P(W <= w) (small: A tends to be smaller than B, i.e. faster);
 * p_greater = P(W >= w); p_two_sided = min(1, 2 min(p_less, p_greater)).
 * The shift is the Hodges-Lehmann estimate of A - B: the median of all
 * n1 n2 differences a_i - b_j (exact, found without storing them).
 * Pure C, no MPI. */
#ifndef MBX_WILCOXON_H
#define MBX_WILCOXON_H

#include <stddef.h>

#include "mbx/status.h"

/* Largest n1 + n2 with exact p-values. */
#define MBX_WILCOXON_EXACT_MAX 50

typedef enum mbx_alternative {
    MBX_ALT_TWO_SIDED = 0, /* "two-sided": A and B differ */
    MBX_ALT_LESS = 1,      /* "less": A tends to be smaller than B */
    MBX_ALT_GREATER = 2,   /* "greater": A tends to be larger than B */
} mbx_alternative;

typedef struct mbx_wilcoxon {
    size_t n1, n2;        /* sizes of A and B */
    double w;             /* rank sum of A (midranks) */
    double mean_w, var_w; /* E[W] and its tie-corrected variance under H0 */
    double z;           /* (w - mean_w) / sqrt(var_w), no continuity correction; 0 if var_w == 0 */
    double p_two_sided; /* in [0, 1] */
    double p_less;      /* P(W <= w) */
    double p_greater;   /* P(W >= w) */
    int exact;          /* 1: permutation p-values; 0: normal approximation */
    size_t ties;        /* values sharing a rank with another (0: no ties) */
    double shift;       /* Hodges-Lehmann estimate of A - B, in the data's unit */
} mbx_wilcoxon;

/* Test a[0..n1) against b[0..n2); the inputs are not modified. When every
 * value is the same, all p-values are 1 and the shift is 0.
 * Errors: MBX_E_INVAL (NULL pointer, n1 or n2 == 0, a NaN or infinite
 * value), MBX_E_NOMEM. */
MBX_NODISCARD int mbx_wilcoxon_test(const double *a, size_t n1, const double *b, size_t n2,
                                    mbx_wilcoxon *out);

/* The stratified rank-sum test (a permutation test within strata): A's
 * values a[i] in stratum la[i], B's b[j] in lb[j]; within each stratum
 * that both samples have, values are ranked (midranks for ties) against
 * that stratum's values only; W is the sum of A's rank sums over those
 * strata, and its exact null distribution the convolution of the strata's
 * exact permutation distributions (always exact: p-values from it, z from
 * the summed means and tie-corrected variances). Values of a stratum only
 * one sample has are left out (n1, n2 count those used). shift is NAN.
 * *strata (may be NULL) gets the strata used. Errors: MBX_E_INVAL (NULL
 * pointers, an empty sample, a NaN or infinite value, no stratum with
 * values of both), MBX_E_NOMEM. */
MBX_NODISCARD int mbx_wilcoxon_stratified(const double *a, const int *la, size_t na,
                                          const double *b, const int *lb, size_t nb,
                                          mbx_wilcoxon *out, size_t *strata);

/* A Hodges-Lehmann shift with its confidence interval. */
typedef struct mbx_hl {
    double est;    /* median of the n1 n2 differences a_i - b_j */
    double lo, hi; /* D_(k) and D_(n1 n2 + 1 - k); -INFINITY, INFINITY when no k reaches */
    double conf;   /* the interval's achieved confidence, >= the one asked for */
    int exact;     /* 1: k from the exact distribution of U; 0: normal approximation */
} mbx_hl;

/* The Hodges-Lehmann estimate of the shift A - B and its confidence
 * interval by inverting the rank-sum test (docs/algorithms.md, "Comparing
 * launches"): the differences D_(1) <= ... <= D_(n1 n2), k the largest
 * with P(U <= k - 1) <= (1 - conf) / 2 under H0 (U the Mann-Whitney count,
 * exact without ties for n1 + n2 <= MBX_WILCOXON_EXACT_MAX, else normal
 * with continuity correction), and [D_(k), D_(n1 n2 + 1 - k)] covers the
 * shift with probability conf_achieved = 1 - 2 P(U <= k - 1) >= conf
 * when A and B differ by a shift. Too few values for conf (k = 0): the
 * whole line. Errors: MBX_E_INVAL (NULL, an empty sample, a NaN or
 * infinite value, conf outside (0, 1)), MBX_E_NOMEM. */
MBX_NODISCARD int mbx_wilcoxon_hl_ci(const double *a, size_t n1, const double *b, size_t n2,
                                     double conf, mbx_hl *out);

/* The p-value of one alternative (an unknown alt gives p_two_sided). */
double mbx_wilcoxon_p(const mbx_wilcoxon *w, mbx_alternative alt);

/* Significance marks of a p-value: "***" (p < 0.001), "**" (p < 0.01),
 * "*" (p < 0.05), else "" (also for NaN). Never NULL. */
const char *mbx_wilcoxon_stars(double p);

/* "two-sided", "less" or "greater" (also accepted: "two_sided", "two.sided").
 * Errors: MBX_E_INVAL (NULL), MBX_E_UNKNOWN (any other name). */
MBX_NODISCARD int mbx_wilcoxon_alt_parse(const char *name, mbx_alternative *out);

/* The canonical name of an alternative ("two-sided", "less", "greater");
 * "?" for an unknown value. */
const char *mbx_wilcoxon_alt_name(mbx_alternative alt);

#endif
