#include "mbx/timer.h"

#include <stdlib.h>
#include <string.h>

#define CAL_SAMPLES 2001

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int mbx_timer_calibrate(mbx_timer_kind kind, mbx_timer_info *out)
{
    if (!out || kind < 0 || kind >= MBX_TIMER_COUNT_)
        return MBX_E_INVAL;
    double *d = malloc(CAL_SAMPLES * sizeof *d);
    if (!d)
        return MBX_E_NOMEM;

    out->kind = kind;
    if (kind == MBX_TIMER_WTIME) {
        out->nominal_res = MPI_Wtick();
    } else {
        struct timespec res;
        clock_getres(CLOCK_MONOTONIC, &res);
        out->nominal_res = (double)res.tv_sec + 1e-9 * (double)res.tv_nsec;
    }

    /* Resolution: the smallest step the clock can actually show, which on
     * most machines is the cost of a read, not clock_getres's 1 ns. */
    double res = 1.0;
    for (int i = 0; i < CAL_SAMPLES; i++) {
        double t0 = mbx_timer_now(kind), t1;
        do
            t1 = mbx_timer_now(kind);
        while (t1 == t0);
        if (t1 - t0 < res)
            res = t1 - t0;
    }
    out->resolution = res;

    /* Overhead: an empty measurement in the same shape as a timed region
     * (read, nothing, read). The median ignores interrupts. Warm up first. */
    for (int i = 0; i < 100; i++)
        (void)mbx_timer_now(kind);
    for (int i = 0; i < CAL_SAMPLES; i++) {
        double t0 = mbx_timer_now(kind);
        double t1 = mbx_timer_now(kind);
        d[i] = t1 - t0;
    }
    qsort(d, CAL_SAMPLES, sizeof *d, cmp_double);
    out->overhead = d[CAL_SAMPLES / 2];
    free(d);
    return MBX_OK;
}

int mbx_timer_parse(const char *text, mbx_timer_kind *out)
{
    if (!text || !out)
        return MBX_E_INVAL;
    if (strcmp(text, "clock") == 0)
        *out = MBX_TIMER_CLOCK;
    else if (strcmp(text, "wtime") == 0)
        *out = MBX_TIMER_WTIME;
    else
        return MBX_E_INVAL;
    return MBX_OK;
}

const char *mbx_timer_name(mbx_timer_kind kind)
{
    switch (kind) {
    case MBX_TIMER_CLOCK: return "clock";
    case MBX_TIMER_WTIME: return "wtime";
    default: return "?";
    }
}
