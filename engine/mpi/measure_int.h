/* Private to the measurement loop: what rank 0's driver (measure.c) and
 * every rank's point handlers (measure_point.c) share. */
#ifndef MBX_MEASURE_INT_H
#define MBX_MEASURE_INT_H

#include <float.h>
#include <stddef.h>

/* The most observations one BATCH may hold. */
#define MBX_BATCH_MAX 65536
/* A reduced time no timing rank sent (it never wins the maximum). */
#define MBX_NOT_TIMED (-DBL_MAX)

/* Grow two parallel arrays of doubles to hold at least `need` each. */
int mbx_measure_grow(double **a, double **b, size_t *cap, size_t need);

#endif
