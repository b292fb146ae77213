#include "mbx/timer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAL_SAMPLES 2001
#define TSC_SPAN_S 0.05  /* one frequency measurement */
#define TSC_AGREE 1e-4   /* two measurements must agree this well ... */
#define TSC_MAX_ROUNDS 5 /* ... within this many */

mbx_timer_tsc_state mbx_timer_tsc = {0.0, 0, 0};

/* CPU flags from /proc/cpuinfo, read once per process. */
static struct {
    int read; /* 1 read, -1 unreadable */
    int constant, nonstop, rdtscp;
} flags;

static int has_word(const char *line, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(line, word); p; p = strstr(p + 1, word))
        if ((p == line || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ':') &&
            (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
            return 1;
    return 0;
}

static void read_flags(void)
{
    if (flags.read)
        return;
    flags.read = -1;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[8192];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "flags", 5) == 0) {
            flags.read = 1;
            flags.constant = has_word(line, "constant_tsc");
            flags.nonstop = has_word(line, "nonstop_tsc");
            flags.rdtscp = has_word(line, "rdtscp");
            break;
        }
    fclose(f);
}

static int refuse(char *why, size_t len, const char *reason)
{
    if (why && len)
        snprintf(why, len, "%s", reason);
    return MBX_E_UNSUPPORTED;
}

int mbx_timer_available(mbx_timer_kind kind, char *why, size_t len)
{
    if (why && len)
        why[0] = '\0';
    if (kind < 0 || kind >= MBX_TIMER_COUNT_)
        return MBX_E_INVAL;
    if (kind != MBX_TIMER_TSC)
        return MBX_OK;
    const char *test = getenv("MBX_TEST_NO_TSC");
    if (test && strcmp(test, "1") == 0)
        return refuse(why, len, "tsc: refused because MBX_TEST_NO_TSC=1 is set");
#if !defined(__x86_64__)
    return refuse(why, len, "tsc: only supported on x86-64");
#else
    read_flags();
    if (flags.read < 0)
        return refuse(why, len, "tsc: cannot read the CPU flags in /proc/cpuinfo");
    if (!flags.constant)
        return refuse(why, len,
                      "tsc: the CPU does not report constant_tsc (the tick rate may follow the "
                      "clock frequency)");
    if (!flags.nonstop)
        return refuse(why, len,
                      "tsc: the CPU does not report nonstop_tsc (the counter may stop in deep "
                      "sleep states)");
    return MBX_OK;
#endif
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A counter value and the monotonic time it was read at: the midpoint of
 * the tightest of a few bracketing clock reads. */
static void tsc_pair(uint64_t *c, double *t)
{
    double best = INFINITY;
    for (int i = 0; i < 7; i++) {
        double a = mono();
        uint64_t x = mbx_timer_tsc_read();
        double b = mono();
        if (b - a < best) {
            best = b - a;
            *c = x;
            *t = 0.5 * (a + b);
        }
    }
}

static double tsc_rate(double span)
{
    uint64_t c0, c1;
    double t0, t1;
    tsc_pair(&c0, &t0);
    for (double left = span; left > 0; left = t0 + span - mono()) {
        struct timespec ts = {0, (long)(left * 1e9)};
        nanosleep(&ts, NULL);
    }
    tsc_pair(&c1, &t1);
    return (double)(c1 - c0) / (t1 - t0);
}

/* Ticks per second against CLOCK_MONOTONIC: measured until two successive
 * figures agree within TSC_AGREE (or TSC_MAX_ROUNDS); *spread says how
 * well the last two agreed. */
static void tsc_calibrate(double *hz, double *spread)
{
    mbx_timer_tsc.use_rdtscp = flags.rdtscp;
    double a = tsc_rate(TSC_SPAN_S), b = tsc_rate(TSC_SPAN_S);
    for (int r = 2; r < TSC_MAX_ROUNDS && fabs(a - b) > TSC_AGREE * b; r++) {
        a = b;
        b = tsc_rate(TSC_SPAN_S);
    }
    *hz = 0.5 * (a + b);
    *spread = fabs(a - b) / b;
    mbx_timer_tsc.period = 1.0 / *hz;
    mbx_timer_tsc.base = mbx_timer_tsc_read();
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int mbx_timer_calibrate(mbx_timer_kind kind, mbx_timer_info *out)
{
    if (!out || kind < 0 || kind >= MBX_TIMER_COUNT_)
        return MBX_E_INVAL;
    int rc = mbx_timer_available(kind, NULL, 0);
    if (rc < 0)
        return rc;
    double *d = malloc(CAL_SAMPLES * sizeof *d);
    if (!d)
        return MBX_E_NOMEM;

    out->kind = kind;
    out->tsc_hz = 0.0;
    out->tsc_spread = 0.0;
    if (kind == MBX_TIMER_TSC) {
        tsc_calibrate(&out->tsc_hz, &out->tsc_spread);
        out->nominal_res = mbx_timer_tsc.period;
    } else if (kind == MBX_TIMER_WTIME) {
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
    else if (strcmp(text, "tsc") == 0)
        *out = MBX_TIMER_TSC;
    else
        return MBX_E_INVAL;
    return MBX_OK;
}

const char *mbx_timer_name(mbx_timer_kind kind)
{
    switch (kind) {
    case MBX_TIMER_CLOCK: return "clock";
    case MBX_TIMER_WTIME: return "wtime";
    case MBX_TIMER_TSC: return "tsc";
    default: return "?";
    }
}

const char *mbx_timer_describe(mbx_timer_kind kind)
{
    switch (kind) {
    case MBX_TIMER_CLOCK: return "clock_gettime(CLOCK_MONOTONIC)";
    case MBX_TIMER_WTIME: return "MPI_Wtime";
    case MBX_TIMER_TSC:
#if defined(__x86_64__)
        read_flags();
        return flags.rdtscp ? "TSC via RDTSCP" : "TSC via LFENCE;RDTSC";
#else
        return "TSC (not available on this architecture)";
#endif
    default: return "?";
    }
}
