/* Adaptive refinement of one measured curve (SKaMPI; docs/algorithms.md,
 * "Adaptive refinement" and "Refinement with uncertainty").
 *
 * The caller measures a grid first and adds every point; then it asks for
 * the next x to measure until there is none. Each segment between two
 * neighbouring measured points has an estimated error: the line through the
 * left neighbour segment, extended, predicts the segment's right end; the
 * line through the right neighbour segment, extended back, predicts its left
 * end; the segment's error is the smaller of the two relative prediction
 * errors |predicted - measured| / measured (a segment at either end uses the
 * one neighbour it has; a curve of two points has no estimate, error 0).
 * Lines are straight in linear x and y, so a curve y = a + b x needs no
 * refinement on any grid.
 *
 * Uncertainty. A point may carry the standard error se of its y. The line
 * through points j and k, extended to x, predicts
 *     p = (1 + t) y_k - t y_j,  t = (x - x_k) / (x_k - x_j),
 * and with independent points the prediction's residual against the point
 * measured at x has the variance
 *     v = (1 + t)^2 se_k^2 + t^2 se_j^2 + se_x^2;
 * its relative uncertainty is u = sqrt(v) / y_x (y_x measured at x, as for
 * the error). A side is "consistent" when its error e <= k u (noise_k,
 * default 2) or e < eps. A segment needs a split only when every side it
 * can use is inconsistent: its error exceeds both eps and k times the
 * propagated uncertainty. With se = 0 everywhere this is the plain rule
 * "error >= eps".
 *
 * Steps. With chord slope c of the segment and slopes s_L, s_R of its two
 * neighbour segments, the segment is a step (a protocol switch) when both
 * sides are inconsistent and c lies outside [min(s_L, s_R), max(s_L, s_R)]:
 * its ends differ by more (or less) than either neighbouring slope gives
 * over its width. A kink (a change of slope) has c between s_L and s_R and
 * is no step; an end segment is never a step. A step is split at its
 * middle until it is too narrow (min_ratio, align), locating it by
 * bisection; a segment next to a step does not use the line through the
 * step for its prediction (a segment between two steps has no estimate).
 *
 * The worst segment needing a split is split at the geometric mean of its
 * ends (sizes) or the arithmetic mean (process counts), rounded to a
 * multiple of `align`; a segment that cannot be split (no aligned x
 * strictly inside, or narrower than min_ratio) is left as it is.
 * Refinement stops when no splittable segment needs a split or the budget
 * of new points is spent.
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
    double eps;       /* stop when no splittable segment's error is >= eps and outside
                         its noise (see above); > 0 */
    size_t budget;    /* at most this many points proposed by mbx_refine_next */
    uint64_t align;   /* proposed x are multiples of align; 0 is taken as 1 */
    int geometric;    /* 1: split at sqrt(a b) (message sizes); 0: at (a + b) / 2 */
    double min_ratio; /* > 1: a segment with b < a * min_ratio is not split; 0: no limit */
    double noise_k;   /* a split needs error > noise_k * propagated uncertainty; 0: 2 */
} mbx_refine_opts;

/* The default of noise_k: about a 95 % two-sided band of the residual. */
#define MBX_REFINE_NOISE_K 2.0

/* Errors: MBX_E_INVAL for eps <= 0 or not finite, noise_k < 0 or not
 * finite, MBX_E_NOMEM. */
MBX_NODISCARD int mbx_refine_create(const mbx_refine_opts *opts, mbx_refine **out);
void mbx_refine_free(mbx_refine *r); /* NULL is fine */

/* Record a measured point, in any order, exact (se 0). A repeated x
 * replaces its y (and its se, with 0).
 * y must be finite and > 0 (a time); else MBX_E_INVAL and nothing changes.
 * Adding the x last proposed by mbx_refine_next completes that proposal. */
MBX_NODISCARD int mbx_refine_add(mbx_refine *r, uint64_t x, double y);

/* mbx_refine_add with the standard error se of y (same unit): se >= 0, or
 * NAN for unknown, which counts as 0 (the point is taken as exact). A
 * repeated x replaces both y and se: a point measured again in a later pass
 * moves, and its segments are judged afresh on the next call to
 * mbx_refine_next (a segment that needed a split may no longer need one,
 * and the reverse). Negative or infinite se: MBX_E_INVAL, nothing changes. */
MBX_NODISCARD int mbx_refine_add_se(mbx_refine *r, uint64_t x, double y, double se);

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
