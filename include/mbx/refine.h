/* Adaptive refinement of one measured curve (SKaMPI; docs/algorithms.md,
 * "Adaptive refinement" and "Refinement with uncertainty").
 *
 * The caller measures a grid first and adds every point; then it asks for
 * the next x to measure until there is none. Curves are judged on the
 * log-log scale, by the one interpolation criterion the benchmarks use too
 * (mbx_refine_interp_err): point m is compared with the straight line in
 * (log x, log y) through its neighbours m - 1 and m + 1; its error is the
 * relative interpolation error |p - y_m| / y_m of that line's value p. A
 * segment between neighbouring points i and i + 1 has two sides, points i
 * and i + 1 judged so (an end segment has the one side it has; a curve of
 * two points has no estimate, error 0); the segment's error is the smaller
 * side error. A power law a x^b needs no refinement on any grid.
 *
 * Uncertainty. A point may carry the standard error se of its y, with its
 * degrees of freedom df (mbx_refine_add_est: estimated from passes,
 * df = passes - 1 or visits - 1; mbx_refine_add_se: known, df infinite;
 * mbx_refine_add: exact). With w = (log x_m - log x_{m-1}) /
 * (log x_{m+1} - log x_{m-1}) the deviation
 *     d = log y_m - ((1 - w) log y_{m-1} + w log y_{m+1})
 * has the variance v = s_m^2 + (1 - w)^2 s_{m-1}^2 + w^2 s_{m+1}^2 with
 * s = se / y (independent points), and |d| / sqrt(v) is compared with
 * Student's t at the Welch-Satterthwaite degrees of freedom of v. A side is
 * "off" when its error is >= eps and its two-sided p-value is below
 * alpha / m, m the points that can be tested at the moment (Bonferroni:
 * a straight curve of exact-t points splits with probability <= alpha).
 * A side is judged only when all three of its points are ready: points of
 * mbx_refine_add and mbx_refine_add_se always are, points of
 * mbx_refine_add_est when they have at least min_passes passes. A segment
 * needs a split only when every side it can use is off. With se = 0
 * everywhere this is the plain rule "error >= eps".
 *
 * Steps. With chord slope c of the segment (log-log) and slopes s_L, s_R
 * of its two neighbour segments, the segment is a step (a protocol switch)
 * when both its sides are off and c lies outside [min(s_L, s_R), max(s_L,
 * s_R)]. A kink (a change of slope) has c between s_L and s_R and is no
 * step; an end segment is never a step. A step is split at its middle until
 * it is too narrow (min_ratio, align), locating it by bisection; a segment
 * next to a step does not use the side across the step (a segment between
 * two steps has no estimate).
 *
 * The worst segment needing a split is split at the geometric mean of its
 * ends (sizes) or the arithmetic mean (process counts), rounded to a
 * multiple of `align`; a segment that cannot be split (no aligned x
 * strictly inside, or narrower than min_ratio) is left as it is. A point
 * at x = 0 has no logarithm and judges nothing. Refinement stops when no
 * splittable segment needs a split or the budget of new points is spent.
 *
 * Pure C, no MPI; O(n) per step, which is nothing next to a measurement. */
#ifndef MBX_REFINE_H
#define MBX_REFINE_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/status.h"

typedef struct mbx_refine mbx_refine;

/* The front ends' narrowest size segment: a protocol step is located to
 * within 5 % of its message size, not chased down to single bytes through
 * measurement noise. */
#define MBX_REFINE_MIN_RATIO 1.05

typedef struct mbx_refine_opts {
    double eps;        /* stop when no splittable segment's error is >= eps and outside
                          its noise (see above); > 0 */
    size_t budget;     /* at most this many points proposed by mbx_refine_next */
    uint64_t align;    /* proposed x are multiples of align; 0 is taken as 1 */
    int geometric;     /* 1: split at sqrt(a b) (message sizes); 0: at (a + b) / 2 */
    double min_ratio;  /* > 1: a segment with b < a * min_ratio is not split; 0: no limit */
    double alpha;      /* family level of the t tests of one round, in [0, 1); 0: 0.05 */
    size_t min_passes; /* R: passes an estimated point needs to be judged; 0: 5 */
} mbx_refine_opts;

/* The defaults of alpha and min_passes (the passes' R). */
#define MBX_REFINE_ALPHA 0.05
#define MBX_REFINE_MIN_PASSES 5

/* Errors: MBX_E_INVAL for eps <= 0 or not finite, alpha outside [0, 1),
 * MBX_E_NOMEM. */
MBX_NODISCARD int mbx_refine_create(const mbx_refine_opts *opts, mbx_refine **out);
void mbx_refine_free(mbx_refine *r); /* NULL is fine */

/* Record a measured point, in any order, exact (se 0). A repeated x
 * replaces its y (and its se, with 0).
 * y must be finite and > 0 (a time); else MBX_E_INVAL and nothing changes.
 * Adding the x last proposed by mbx_refine_next completes that proposal. */
MBX_NODISCARD int mbx_refine_add(mbx_refine *r, uint64_t x, double y);

/* mbx_refine_add with a KNOWN standard error se of y (same unit; infinite
 * degrees of freedom): se >= 0, or NAN for unknown, which counts as 0 (the
 * point is taken as exact). A repeated x replaces both y and se: a point
 * measured again moves, and its segments are judged afresh on the next call
 * to mbx_refine_next. Negative or infinite se: MBX_E_INVAL, nothing
 * changes. */
MBX_NODISCARD int mbx_refine_add_se(mbx_refine *r, uint64_t x, double y, double se);

/* A point whose se is ESTIMATED from `passes` passes with df degrees of
 * freedom (>= 1; passes - 1, or level visits - 1): judged only once passes
 * >= min_passes (before that its segments are not split). se finite and
 * >= 0; else MBX_E_INVAL and nothing changes. A repeated x replaces the
 * point, as above. */
MBX_NODISCARD int mbx_refine_add_est(mbx_refine *r, uint64_t x, double y, double se, size_t passes,
                                     double df);

/* The one interpolation criterion of refinement and of the benchmarks:
 * the value at x of the straight line in (log x, log y) through (x0, y0)
 * and (x1, y1), and its relative error |value - y| / y against a y
 * measured at x. NAN when an x is 0, x0 == x1, or a y is not > 0. */
double mbx_refine_loglog(uint64_t x0, double y0, uint64_t x1, double y1, uint64_t x);
double mbx_refine_interp_err(uint64_t x0, double y0, uint64_t x1, double y1, uint64_t x, double y);

/* The next x to measure: returns 1 with *x (and, if err is not NULL, the
 * error of the segment it splits), or 0 when refinement is done (a flag:
 * it cannot fail). While a
 * proposal is outstanding (not yet added), its segment is not proposed
 * again; a second call proposes the next-worst segment. Each proposal
 * counts against the budget. Equal errors go to the segment of smallest x.
 * A proposal that is never added keeps its segment blocked. */
int mbx_refine_next(mbx_refine *r, uint64_t *x, double *err);

/* The largest error over all segments that can still be split, pending
 * or not (0 when there is none), and over all segments. Errors are those
 * of the header comment (a step's neighbours do not predict across it);
 * noise does not enter them: a segment whose error is inside its
 * uncertainty still counts here, it is only not split. */
double mbx_refine_worst(const mbx_refine *r);
double mbx_refine_worst_any(const mbx_refine *r);

/* Points recorded, and points proposed so far. */
size_t mbx_refine_count(const mbx_refine *r);
size_t mbx_refine_proposed(const mbx_refine *r);

/* The recorded points in increasing x (n = mbx_refine_count entries). */
void mbx_refine_points(const mbx_refine *r, uint64_t *x, double *y);

/* The same with their standard errors (0 where none or NAN was given); any
 * of the arrays may be NULL. */
void mbx_refine_points_se(const mbx_refine *r, uint64_t *x, double *y, double *se);

/* Whether the segment from the recorded point of index i to the next one
 * is a step (see above); 0 for i + 1 >= count. */
int mbx_refine_is_step(const mbx_refine *r, size_t i);

#endif
