/* Seeded noisy curves for the refinement tests (test_refine_noise.c,
 * test_refine_sched.c): a splitmix64 generator, normal draws, a straight
 * log-log line and the same line with a knee (a jump of 2x), and Wilson's
 * 95 % interval of a proportion. Header only: each test is one program. */
#ifndef MBX_REFINE_SIM_H
#define MBX_REFINE_SIM_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define KNEE_AT 12288u /* 12 KiB: inside the factor-2 grid's [8 KiB, 16 KiB] */

typedef struct {
    uint64_t s;
} rsim_rng;

static inline uint64_t rsim_u64(rsim_rng *g)
{
    uint64_t z = (g->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline double rsim_uniform(rsim_rng *g) /* (0, 1) */
{
    return ((double)(rsim_u64(g) >> 11) + 0.5) / 9007199254740992.0;
}

static inline double rsim_normal(rsim_rng *g) /* Box-Muller, one of the pair */
{
    double u = rsim_uniform(g), v = rsim_uniform(g);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* A straight line on the log-log scale: 1.5 us x^0.3. */
static inline double rsim_line(double x)
{
    return 1.5 * pow(x, 0.3);
}

/* The same with a knee: twice as slow from 12 KiB on. */
static inline double rsim_knee(double x)
{
    return rsim_line(x) * (x >= KNEE_AT ? 2.0 : 1.0);
}

/* The trials a test runs: MBX_REFINE_TRIALS when set (valgrind's run
 * checks memory, not the figures, with a few), else dflt. A test asserts
 * its figures only at dflt trials, where they have the power it needs. */
static inline size_t rsim_trials(size_t dflt)
{
    const char *e = getenv("MBX_REFINE_TRIALS");
    long v = e ? strtol(e, NULL, 10) : 0;
    return v > 0 ? (size_t)v : dflt;
}

/* Wilson's 95 % interval of k successes in n trials. */
static inline void rsim_wilson(size_t k, size_t n, double *lo, double *hi)
{
    double z = 1.959963984540054, p = (double)k / (double)n, d = 1.0 + z * z / (double)n;
    double c = (p + z * z / (2.0 * (double)n)) / d;
    double h = z * sqrt(p * (1.0 - p) / (double)n + z * z / (4.0 * (double)n * (double)n)) / d;
    *lo = c - h;
    *hi = c + h;
}

#endif
