/* mpibex timers. clock_gettime(CLOCK_MONOTONIC) is the default; MPI_Wtime
 * and the CPU's time-stamp counter are the options. Reads are inline so a
 * timed region costs one call. The resolution and the overhead of an empty
 * measurement are measured once per session (MBX_OP_CONFIGURE) on every
 * rank; for the TSC that calibration also measures the tick rate, so every
 * rank has its own. */
#ifndef MBX_TIMER_H
#define MBX_TIMER_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "mbx/status.h"

typedef enum mbx_timer_kind {
    MBX_TIMER_CLOCK = 0, /* clock_gettime(CLOCK_MONOTONIC) */
    MBX_TIMER_WTIME = 1, /* MPI_Wtime */
    MBX_TIMER_TSC = 2,   /* time-stamp counter (x86-64, constant and non-stop), calibrated */
    MBX_TIMER_COUNT_ = 3
} mbx_timer_kind;

typedef struct mbx_timer_info {
    mbx_timer_kind kind;
    double nominal_res; /* clock_getres, MPI_Wtick, or one TSC tick; seconds */
    double resolution;  /* smallest non-zero step seen between two reads, seconds */
    double overhead;    /* median duration of an empty measurement, seconds */
    double tsc_hz;      /* TSC only: calibrated ticks per second (else 0) */
    double tsc_spread;  /* TSC only: relative difference of the two calibrations */
} mbx_timer_info;

/* The calibrated TSC of the calling process, read by mbx_timer_now. Set by
 * mbx_timer_calibrate(MBX_TIMER_TSC, ...); not for use elsewhere. */
typedef struct mbx_timer_tsc_state {
    double period;  /* seconds per tick; 0 until calibrated */
    uint64_t base;  /* counter value at calibration, keeps the doubles small */
    int use_rdtscp; /* 1: RDTSCP, 0: LFENCE; RDTSC */
} mbx_timer_tsc_state;
extern mbx_timer_tsc_state mbx_timer_tsc;

/* Raw counter. RDTSCP waits for earlier instructions to finish; without it,
 * LFENCE does the same for RDTSC. Only called when the TSC is available. */
static inline uint64_t mbx_timer_tsc_read(void)
{
#if defined(__x86_64__)
    uint32_t lo, hi;
    if (mbx_timer_tsc.use_rdtscp)
        __asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi) : : "rcx", "memory");
    else
        __asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
#else
    return 0;
#endif
}

/* Current time in seconds (for the TSC: since its calibration). */
static inline double mbx_timer_now(mbx_timer_kind kind)
{
    switch (kind) {
    case MBX_TIMER_TSC:
        return (double)(int64_t)(mbx_timer_tsc_read() - mbx_timer_tsc.base) * mbx_timer_tsc.period;
    case MBX_TIMER_WTIME: return MPI_Wtime();
    default: {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    }
    }
}

/* Can `kind` be used on the calling rank? MBX_OK, or MBX_E_UNSUPPORTED with
 * a one-line reason in why (may be NULL). The TSC needs x86-64 and both
 * constant_tsc and nonstop_tsc in /proc/cpuinfo; MBX_TEST_NO_TSC=1 in the
 * environment refuses it (tests). MBX_E_INVAL for an unknown kind. */
MBX_NODISCARD int mbx_timer_available(mbx_timer_kind kind, char *why, size_t len);

/* Measure resolution and empty-measurement overhead of `kind` on the
 * calling rank (a few milliseconds). For the TSC this first checks
 * mbx_timer_available (MBX_E_UNSUPPORTED) and calibrates ticks per second
 * against CLOCK_MONOTONIC twice (about 0.1 s), setting mbx_timer_tsc.
 * Any rank may call it; each rank calibrates its own. */
MBX_NODISCARD int mbx_timer_calibrate(mbx_timer_kind kind, mbx_timer_info *out);

/* "clock", "wtime" or "tsc" -> kind; MBX_E_INVAL otherwise. Parsing does
 * not check availability. */
MBX_NODISCARD int mbx_timer_parse(const char *text, mbx_timer_kind *out);
const char *mbx_timer_name(mbx_timer_kind kind);

/* How the timer reads time, e.g. "clock_gettime(CLOCK_MONOTONIC)",
 * "MPI_Wtime", "TSC via RDTSCP" or "TSC via LFENCE;RDTSC" (the instruction
 * this CPU will use). Static string, never NULL. */
const char *mbx_timer_describe(mbx_timer_kind kind);

#endif
