/* Between-pass statistics (mbx/passes.h) under the scheduler's stopping:
 * the 95 % CI's coverage of the long-run median and, for SETTLED points,
 * the true error against the reported err, by seeded simulation of pass
 * medians through the production functions at the default settings
 * (5 units, span 1 s, eps 3 %, at most 15 units, passes 0.25 s apart).
 *
 * Models of one pass median m_k (log scale, truth 1 us):
 *  - independent: log m_k ~ N(0, s^2), s the pass spread 1-16 %;
 *  - AR(1): passes 0.25 s apart with lag-1 correlation rho, tau set to the
 *    true integrated autocorrelation time 0.25 (1 + rho) / (1 - rho), and
 *    up to 15 units of passes;
 *  - a quantized timer: pass medians rounded to a tick of 5 % of the value.
 * Every coverage figure carries its Wilson 95 % interval. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/passes.h"

#define TRUTH 1e-6
#define GAP 0.25
#define MAX_UNITS 15
#define N_SERIES 1500 /* MBX_PASSES_SERIES overrides (valgrind runs fewer) */

static size_t n_series(void)
{
    const char *e = getenv("MBX_PASSES_SERIES");
    long v = e != NULL ? strtol(e, NULL, 10) : 0;
    return v >= 10 && v <= N_SERIES ? (size_t)v : N_SERIES;
}

static uint64_t rng;

static double uniform(void) /* (0, 1) */
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
    return sqrt(-2.0 * log(uniform())) * cos(6.283185307179586 * uniform());
}

typedef struct model {
    double spread; /* sd of log m */
    double rho;    /* correlation of passes GAP apart */
    double tick;   /* quantization of m (0: none) */
    double gap;    /* seconds between pass starts (0: GAP) */
} model;

typedef struct tally {
    size_t n, cover, settled, settled_cover, units;
    double sq_true, sq_rep; /* sums over settled points of squared log errors */
} tally;

/* Wilson 95 % interval of k successes in n. */
static void wilson(size_t k, size_t n, double *lo, double *hi)
{
    double z = 1.959963984540054, p = (double)k / (double)n, d = 1.0 + z * z / (double)n;
    double c = (p + z * z / (2.0 * (double)n)) / d;
    double h = z * sqrt(p * (1.0 - p) / (double)n + z * z / (4.0 * (double)n * (double)n)) / d;
    *lo = c - h;
    *hi = c + h;
}

/* One point: passes until SETTLED or MAX_UNITS units' worth of passes. */
static void one_point(const model *md, const mbx_passes_opts *o, tally *t)
{
    mbx_passes *p;
    assert_int_equal(mbx_passes_create(o, &p), MBX_OK);
    double gap = md->gap > 0.0 ? md->gap : GAP, rho = pow(md->rho, gap / GAP);
    size_t per_unit = o->tau > 0.0 ? (size_t)ceil(o->tau / gap - 1e-9) : 1;
    size_t max_passes = MAX_UNITS * (per_unit ? per_unit : 1);
    double y = md->spread * gauss(), c = sqrt(1.0 - rho * rho);
    mbx_passes_result r;
    for (size_t k = 0; k < max_passes; k++) {
        if (k > 0)
            y = rho * y + c * md->spread * gauss();
        double m = TRUTH * exp(y);
        if (md->tick > 0.0)
            m = md->tick * fmax(1.0, floor(m / md->tick + 0.5));
        mbx_pass q = {m, 101, gap * (double)k, gap * (double)k + 1e-3, MBX_PASSES_NO_LEVEL};
        assert_int_equal(mbx_passes_add(p, &q), MBX_OK);
        assert_int_equal(mbx_passes_result_get(p, &r), MBX_OK);
        if (r.verdict == MBX_PASSES_SETTLED)
            break;
    }
    t->n++;
    t->units += r.units;
    int cov = r.b.ci_lo <= TRUTH && TRUTH <= r.b.ci_hi;
    t->cover += cov;
    if (r.verdict == MBX_PASSES_SETTLED) {
        double e = log(r.b.value / TRUTH);
        t->settled++;
        t->settled_cover += cov;
        t->sq_true += e * e;
        t->sq_rep += r.b.relerr * r.b.relerr;
    }
    mbx_passes_free(p);
}

static tally run_model(const char *name, const model *md, const mbx_passes_opts *o, uint64_t seed)
{
    tally t;
    memset(&t, 0, sizeof t);
    rng = seed * 0x9E3779B97F4A7C15ULL + 1;
    size_t ns = n_series();
    for (size_t s = 0; s < ns; s++)
        one_point(md, o, &t);
    double lo, hi;
    wilson(t.cover, t.n, &lo, &hi);
    double ratio = t.settled ? sqrt(t.sq_true / t.sq_rep) : NAN;
    print_message("%-38s covers %5.1f %% [%5.1f, %5.1f]; settled %5.1f %%, true/reported err "
                  "%.2f; mean units %.1f\n",
                  name, 100.0 * (double)t.cover / (double)t.n, 100.0 * lo, 100.0 * hi,
                  100.0 * (double)t.settled / (double)t.n, ratio, (double)t.units / (double)t.n);
    return t;
}

/* The properties asserted: the Wilson lower bound of the coverage of the
 * long-run median at least cov_lo, and for settled points (when enough
 * settle to tell) a true/reported err within [ratio_lo, ratio_hi]. True
 * error is the RMS of log(value / long-run median) over the settled
 * points, reported err the RMS of their err. The targets are 93 % and
 * [0.8, 1.25]; where the figures fall short (AR(1) units shorter than the
 * memory) the bounds pin today's figures, as docs/algorithms.md
 * ("Coverage at the defaults") records, so they cannot get worse
 * unnoticed. */
static void check(const tally *t, double cov_lo, double ratio_lo, double ratio_hi)
{
    if (getenv("MBX_PASSES_NOCHECK") != NULL)
        return; /* exploring */
    double lo, hi;
    wilson(t->cover, t->n, &lo, &hi);
    assert_true(lo >= cov_lo || t->n < 1000);
    if (ratio_hi > 0.0 && t->n >= 1000 && t->settled >= t->n / 20 && t->settled >= 50) {
        double ratio = sqrt(t->sq_true / t->sq_rep);
        assert_true(ratio >= ratio_lo && ratio <= ratio_hi);
    }
}

static void independent(void **state)
{
    (void)state;
    mbx_passes_opts o;
    mbx_passes_opts_init(&o);
    static const double spread[] = {0.01, 0.02, 0.04, 0.06, 0.08, 0.10, 0.12, 0.16};
    for (size_t i = 0; i < sizeof spread / sizeof spread[0]; i++) {
        model md = {spread[i], 0.0, 0.0, 0.0};
        char name[64];
        snprintf(name, sizeof name, "independent, spread %2.0f %%", 100.0 * spread[i]);
        tally t = run_model(name, &md, &o, 100 + i);
        /* The two-stage stop rule keeps settled points honest at every
         * spread (docs/algorithms.md, "Optional stopping"). */
        check(&t, 0.90, 0.8, 1.25);
    }
}

static void ar1_with_tau(void **state)
{
    (void)state;
    static const double rho[] = {0.0, 0.2, 0.4, 0.6, 0.8};
    static const double spread[] = {0.02, 0.08};
    /* j = 0, 1: passes 0.25 s apart, grouped into units of tau; j = 2, 3:
     * passes tau apart (what pacing from the machine's memory aims at),
     * each its own unit. */
    for (size_t j = 0; j < 4; j++)
        for (size_t i = 0; i < sizeof rho / sizeof rho[0]; i++) {
            mbx_passes_opts o;
            mbx_passes_opts_init(&o);
            o.tau = rho[i] > 0.0 ? GAP * (1.0 + rho[i]) / (1.0 - rho[i]) : 0.0;
            model md = {spread[j % 2], rho[i], 0.0, j >= 2 ? fmax(GAP, o.tau) : 0.0};
            char name[64];
            snprintf(name, sizeof name, "AR(1) rho %.1f, spread %2.0f %%, %s", rho[i],
                     100.0 * spread[j % 2], j >= 2 ? "paced" : "grouped");
            tally t = run_model(name, &md, &o, 200 + 10 * j + i);
            check(&t, j >= 2 ? 0.85 : 0.80, 0.75, 1.5);
        }
}

/* Pass medians on a tick of 5 % of the value with a 1 % spread: most
 * passes read the same tick. Without the floor the CI is one point wide
 * and every point SETTLED with err 0; with it the half-width is at least
 * half a tick. */
static void quantized(void **state)
{
    (void)state;
    mbx_passes_opts o;
    mbx_passes_opts_init(&o);
    o.resolution = 0.05 * TRUTH;
    model md = {0.01, 0.0, 0.05 * TRUTH, 0.0};
    tally t = run_model("quantized, tick 5 %, spread 1 %", &md, &o, 300);
    /* Coverage only: the floor is a bound, not an estimate of the error
     * (the value is exact when every pass reads one tick). */
    check(&t, 0.95, 0.0, 0.0);
    /* Identical pass medians: never a zero-width CI. */
    mbx_passes *p;
    assert_int_equal(mbx_passes_create(&o, &p), MBX_OK);
    for (int k = 0; k < 5; k++) {
        mbx_pass q = {TRUTH, 101, GAP * k, GAP * k + 1e-3, MBX_PASSES_NO_LEVEL};
        assert_int_equal(mbx_passes_add(p, &q), MBX_OK);
    }
    mbx_passes_result r;
    assert_int_equal(mbx_passes_result_get(p, &r), MBX_OK);
    assert_true(r.b.ci_hi - r.b.ci_lo >= o.resolution * (1.0 - 1e-12));
    assert_true(r.b.ci_lo > 0.0 && r.b.relerr > 0.0);
    mbx_passes_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(independent),
        cmocka_unit_test(ar1_with_tau),
        cmocka_unit_test(quantized),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
