/* mpibex timers. clock_gettime(CLOCK_MONOTONIC) is the default; MPI_Wtime
 * is the option. Reads are inline so a timed region costs one call. The
 * resolution and the overhead of an empty measurement are measured once
 * per session (MBX_OP_CONFIGURE) on every rank. */
#ifndef MBX_TIMER_H
#define MBX_TIMER_H

#include <mpi.h>
#include <time.h>

#include "mbx/status.h"

typedef enum mbx_timer_kind {
    MBX_TIMER_CLOCK = 0, /* clock_gettime(CLOCK_MONOTONIC) */
    MBX_TIMER_WTIME = 1, /* MPI_Wtime */
    MBX_TIMER_COUNT_ = 2
} mbx_timer_kind;

typedef struct mbx_timer_info {
    mbx_timer_kind kind;
    double nominal_res; /* clock_getres or MPI_Wtick, seconds */
    double resolution;  /* smallest non-zero step seen between two reads, seconds */
    double overhead;    /* median duration of an empty measurement, seconds */
} mbx_timer_info;

/* Current time in seconds. */
static inline double mbx_timer_now(mbx_timer_kind kind)
{
    if (kind == MBX_TIMER_WTIME)
        return MPI_Wtime();
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Measure resolution and empty-measurement overhead of `kind` on the
 * calling rank (a few milliseconds). Any rank may call it. */
MBX_NODISCARD int mbx_timer_calibrate(mbx_timer_kind kind, mbx_timer_info *out);

/* "clock" or "wtime" -> kind; MBX_E_INVAL otherwise. */
MBX_NODISCARD int mbx_timer_parse(const char *text, mbx_timer_kind *out);
const char *mbx_timer_name(mbx_timer_kind kind);

#endif
