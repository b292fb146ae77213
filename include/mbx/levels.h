/* mpibex: level shifts in the machine-state probe (docs/user-guide.md,
 * "The machine-state monitor").
 *
 * The probe series is a sequence of short 1-byte ping-pong latencies taken
 * between points. On the project's VMs it sits on one of a few levels and
 * jumps between them. mbx_levels_detect() splits a series into segments of
 * constant level (binary segmentation on the ranks of log values proposes
 * boundaries, each side at least min_seg long; a boundary is kept only when
 * the two segments next to it differ by at least min_rel in median AND a
 * rank test finds the difference significant at alpha), then groups
 * segments whose medians lie within min_rel of each other into levels
 * (engine/core/levels.c explains why and how). mbx_levels_shifted() is the
 * online rule used between two probes around one point. Pure C, no MPI. */
#ifndef MBX_LEVELS_H
#define MBX_LEVELS_H

#include <stddef.h>

#include "mbx/status.h"

typedef struct mbx_levels_opts {
    double min_rel; /* smallest relative shift that counts (0.2: 20 %); 0: default 0.2 */
    size_t min_seg; /* shortest segment, in samples; 0: default 3 */
    double alpha;   /* significance of a split; 0: default 0.001 */
} mbx_levels_opts;

typedef struct mbx_segment {
    size_t begin, end; /* samples [begin, end) */
    double median;     /* of the segment's values */
    int level;         /* index into the levels (0 = the lowest level) */
} mbx_segment;

typedef struct mbx_levels {
    mbx_segment *seg; /* nseg segments in series order, owned */
    size_t nseg;
    double *level; /* nlevel level values (median of the samples in them), ascending, owned */
    size_t nlevel;
} mbx_levels;

/* Segment x[0..n) (positive values); o may be NULL for the defaults. n == 0
 * gives no segment and no level. Errors: MBX_E_INVAL (NULL out, NULL x with
 * n > 0, a non-positive, NaN or infinite value, o->min_rel < 0 or not
 * finite, o->alpha outside [0, 1)), MBX_E_NOMEM; *out is then empty. Free
 * with mbx_levels_free (safe on an empty or NULL *out). */
MBX_NODISCARD int mbx_levels_detect(const double *x, size_t n, const mbx_levels_opts *o,
                                    mbx_levels *out);
void mbx_levels_free(mbx_levels *l);

/* The online rule: 1 when two probe values lie on different levels, that
 * is when max/min - 1 >= min_rel (o may be NULL for the defaults); else 0
 * (also when a value is not positive or is NaN). */
int mbx_levels_shifted(double before, double after, const mbx_levels_opts *o);

#endif
