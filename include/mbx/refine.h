/* Adaptive refinement of one measured curve (DESIGN, "Adaptive refinement
 * over message size"; SKaMPI).
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
 * refinement on any grid. The worst segment is split at the geometric mean
 * of its ends (sizes) or the arithmetic mean (process counts), rounded to a
 * multiple of `align`; a segment that cannot be split (no aligned x strictly
 * inside) is left as it is. Refinement stops when the worst splittable
 * error is below eps or the budget of new points is spent.
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
    double eps;       /* stop when every splittable segment's error is < eps; > 0 */
    size_t budget;    /* at most this many points proposed by mbx_refine_next */
    uint64_t align;   /* proposed x are multiples of align; 0 is taken as 1 */
    int geometric;    /* 1: split at sqrt(a b) (message sizes); 0: at (a + b) / 2 */
    double min_ratio; /* > 1: a segment with b < a * min_ratio is not split; 0: no limit */
} mbx_refine_opts;

/* Errors: MBX_E_INVAL for eps <= 0 or not finite, MBX_E_NOMEM. */
MBX_NODISCARD int mbx_refine_create(const mbx_refine_opts *opts, mbx_refine **out);
void mbx_refine_free(mbx_refine *r); /* NULL is fine */

/* Record a measured point, in any order. A repeated x replaces its y.
 * y must be finite and > 0 (a time); else MBX_E_INVAL and nothing changes.
 * Adding the x last proposed by mbx_refine_next completes that proposal. */
MBX_NODISCARD int mbx_refine_add(mbx_refine *r, uint64_t x, double y);

/* The next x to measure: returns 1 with *x (and, if err is not NULL, the
 * error of the segment it splits), or 0 when refinement is done. While a
 * proposal is outstanding (not yet added), its segment is not proposed
 * again; a second call proposes the next-worst segment. Each proposal
 * counts against the budget. Equal errors go to the segment of smallest x.
 * A proposal that is never added keeps its segment blocked. */
int mbx_refine_next(mbx_refine *r, uint64_t *x, double *err);

/* The largest error over all segments that can still be split, pending
 * or not (0 when there is none), and over all segments. */
double mbx_refine_worst(const mbx_refine *r);
double mbx_refine_worst_any(const mbx_refine *r);

/* Points recorded, and points proposed so far. */
size_t mbx_refine_count(const mbx_refine *r);
size_t mbx_refine_proposed(const mbx_refine *r);

/* The recorded points in increasing x (n = mbx_refine_count entries). */
void mbx_refine_points(const mbx_refine *r, uint64_t *x, double *y);

#endif
