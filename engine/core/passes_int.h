/* Inside the between-pass statistics (passes.c, passes_interval.c): the
 * interval of r unit medians and the errors derived from it. */
#ifndef MBX_PASSES_INT_H
#define MBX_PASSES_INT_H

#include <stddef.h>

#include "mbx/passes.h"

/* The interval of the r unit medians m at level want (0.95 by default),
 * floored at the timer's resolution res (0: none), into *out; scratch
 * holds r doubles. MBX_OK, or MBX_E_INVAL for no medians or one that is
 * not a positive number. */
int mbx_passes_between_res(const double *m, size_t r, double res, double want, double *scratch,
                           mbx_between *out);
/* err, relerr, the relative CI half-width and the units' cv of b, from
 * its interval, value and MAD over r >= 2 units; the sd is floored at
 * the timer resolution res (seconds, 0: none) as the interval is. */
void mbx_passes_set_errors(mbx_between *b, size_t r, double res);

#endif
