/* Between-pass statistics (mbx/passes.h): a coverage simulation of the
 * 95 % CI on synthetic autocorrelated and level-switching series (the
 * hand-computed cases are test_passes.c).
 *
 * All random numbers come from a fixed-seed generator, so every run sees
 * the same series. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/passes.h"
#include "mbx/stats.h"

/* ---- coverage simulation ----
 *
 * Synthetic timings imitate this project's VMs: observations
 * with lag-1 autocorrelation 0.4-0.7, optionally a slow component (long
 * memory), or a machine that jumps between levels 0.15, 0.2 and 0.7 us.
 * The schedule imitates the scheduler: the run goes in rounds (one round
 * measures every point of the plan once, in a shuffled order), and in each
 * round the simulated point gets one pass of N_PASS observations at a
 * uniformly random moment; it stops at SETTLED or after MAX_PASSES. Between
 * its passes the process keeps running (the other points are measured),
 * which the simulation advances exactly instead of drawing every
 * observation.
 *
 * The target is the long-run median of a pass median: the value that the
 * median of infinitely many time-separated passes converges to. Every
 * process here is symmetric on the log scale around a known centre and
 * N_PASS is odd, so that target is known exactly: the base value for the
 * AR processes, and 0.2 us for the level process (each level holds one third
 * of the time, the lowest third lies below 0.2 and the highest above it, so
 * the median is the centre of the middle level).
 *
 * The old figure is the 95 % CI of the median of one burst of 24
 * observations (what the per-point stop rule reports in one go);
 * "pooled" applies the same iid formula to every observation of the
 * passes together, to show that more data alone does not help. */
#define N_SERIES 1000 /* MBX_PASSES_SERIES overrides (valgrind runs 100) */
#define N_PASS 101
#define BURST 24
#define MAX_PASSES 40

static const double LEVEL[3] = {0.15e-6, 0.2e-6, 0.7e-6};

/* Valgrind runs every cmocka program again at about 50 times the cost; it
 * checks memory, not coverage, so it may run fewer series. */
static size_t n_series(void)
{
    const char *e = getenv("MBX_PASSES_SERIES");
    long v = e != NULL ? strtol(e, NULL, 10) : 0;
    return v >= 10 && v <= N_SERIES ? (size_t)v : N_SERIES;
}

static uint64_t rng_state;
static int have_spare;
static double spare;

static void seed(uint64_t s)
{
    rng_state = s * 0x9E3779B97F4A7C15ULL + 1;
    have_spare = 0;
}

static double uniform(void) /* (0, 1) */
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
    if (have_spare) {
        have_spare = 0;
        return spare;
    }
    double r = sqrt(-2.0 * log(uniform())), a = 6.283185307179586 * uniform();
    spare = r * sin(a);
    have_spare = 1;
    return r * cos(a);
}

typedef enum { PROC_AR1, PROC_AR1_SLOW, PROC_LEVELS } proc_kind;

typedef struct proc {
    proc_kind kind;
    double phi, sd;     /* fast AR(1) on the log scale, per observation */
    double c, c_s;      /* innovation sd of one step: sqrt(1 - phi^2) sd */
    double phi_s, sd_s; /* slow AR(1) component (0: none) */
    double y, ys;       /* their states */
    double base;        /* current centre (the level, for PROC_LEVELS) */
    int level;
    double dwell, next_switch; /* mean dwell time of a level, next jump */
    double t;                  /* simulated run time, seconds */
} proc;

/* AR(1) state after k steps, drawn exactly from its conditional law. */
static double ar_jump(double y, double phi, double sd, double k)
{
    double pk = pow(phi, k);
    return pk * y + sqrt(1.0 - pk * pk) * sd * gauss();
}

static void level_catch_up(proc *p)
{
    while (p->kind == PROC_LEVELS && p->next_switch <= p->t) {
        p->level = (p->level + 1 + (int)(uniform() * 2.0)) % 3;
        p->base = LEVEL[p->level];
        p->next_switch += -p->dwell * log(uniform());
    }
}

static void proc_init(proc *p, proc_kind kind, double dwell)
{
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->phi = 0.4 + 0.3 * uniform();
    p->sd = 0.05;
    p->y = p->sd * gauss();
    p->base = 2e-6; /* a 1 KiB ping-pong: a pass of 101 round trips takes 0.4 ms */
    if (kind == PROC_AR1_SLOW) {
        p->phi_s = exp(-1.0 / 3000.0);
        p->sd_s = 0.03;
        p->ys = p->sd_s * gauss();
    }
    p->c = sqrt(1.0 - p->phi * p->phi) * p->sd;
    p->c_s = sqrt(1.0 - p->phi_s * p->phi_s) * p->sd_s;
    if (kind == PROC_LEVELS) {
        p->dwell = dwell;
        p->level = (int)(uniform() * 3.0);
        p->base = LEVEL[p->level];
        /* Memoryless dwell: the residual at a random start has the same law. */
        p->next_switch = -dwell * log(uniform());
    }
}

/* One observation (a half round trip), and the time it took. */
static double proc_next(proc *p)
{
    level_catch_up(p);
    double x = p->base * exp(p->y + p->ys);
    p->y = p->phi * p->y + p->c * gauss();
    if (p->sd_s > 0.0)
        p->ys = p->phi_s * p->ys + p->c_s * gauss();
    p->t += 2.0 * x;
    return x;
}

/* Let the process run unobserved until time t (other points measured). */
static void proc_skip_to(proc *p, double t)
{
    if (t <= p->t)
        return;
    double k = (t - p->t) / (2.0 * p->base);
    p->y = ar_jump(p->y, p->phi, p->sd, k);
    if (p->sd_s > 0.0)
        p->ys = ar_jump(p->ys, p->phi_s, p->sd_s, k);
    p->t = t;
    level_catch_up(p);
}

/* The k-th smallest (0-based) of a[0..n), reordering a (Hoare's
 * selection): sorting every pass and every pooled run cost most of the
 * simulation's time. */
static double select_kth(double *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = a[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                double t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return a[k];
    }
    return a[k];
}

static double work[N_PASS * MAX_PASSES];

/* Median of x[0..n), n odd (x untouched). */
static double median_of(const double *x, size_t n)
{
    memcpy(work, x, n * sizeof *x);
    return select_kth(work, n, n / 2);
}

/* Does the iid 95 % CI of the median of x[0..n) (mbx/stats.h) hold t? */
static int iid_covers(const double *x, size_t n, double t)
{
    size_t lo, hi;
    (void)mbx_stats_median_ci_index(n, &lo, &hi);
    memcpy(work, x, n * sizeof *x);
    double a = select_kth(work, n, lo - 1), b = select_kth(work, n, hi - 1);
    return a <= t && t <= b;
}

typedef struct coverage {
    size_t series, new_cov, burst_cov, pooled_cov, settled, passes;
    double span, relerr;
    double lag1; /* mean lag-1 autocorrelation of the observations */
} coverage;

/* Sample lag-1 autocorrelation of x[0..n). */
static double lag1(const double *x, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m += x[i];
    m /= (double)n;
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < n; i++) {
        den += (x[i] - m) * (x[i] - m);
        if (i > 0)
            num += (x[i] - m) * (x[i - 1] - m);
    }
    return den > 0.0 ? num / den : 0.0;
}

static coverage simulate(proc_kind kind, double dwell, double round_s, const mbx_passes_opts *o,
                         int with_levels, double target, uint64_t seed0)
{
    static double obs[N_PASS * MAX_PASSES];
    double scratch[BURST];
    coverage c;
    memset(&c, 0, sizeof c);
    for (size_t s = 0; s < n_series(); s++) {
        seed(seed0 + s);
        proc p;
        proc_init(&p, kind, dwell);
        mbx_passes *pt;
        assert_int_equal(mbx_passes_create(o, &pt), MBX_OK);
        mbx_passes_result r;
        size_t nobs = 0;
        for (size_t k = 0; k < MAX_PASSES; k++) {
            proc_skip_to(&p, ((double)k + uniform()) * round_s);
            mbx_pass q = {0.0, N_PASS, p.t, 0.0, MBX_PASSES_NO_LEVEL};
            for (size_t i = 0; i < N_PASS; i++)
                obs[nobs + i] = proc_next(&p);
            q.t_end = p.t;
            if (with_levels)
                q.level = p.level;
            q.median = median_of(obs + nobs, N_PASS);
            if (k == 0) {
                mbx_summary b;
                assert_int_equal(mbx_stats_summarize(obs, BURST, scratch, &b), MBX_OK);
                c.burst_cov += b.ci_lo <= target && target <= b.ci_hi;
                c.lag1 += lag1(obs, N_PASS);
            }
            nobs += N_PASS;
            assert_int_equal(mbx_passes_add(pt, &q), MBX_OK);
            assert_int_equal(mbx_passes_result_get(pt, &r), MBX_OK);
            if (r.verdict == MBX_PASSES_SETTLED)
                break;
        }
        c.series++;
        c.new_cov += r.b.ci_lo <= target && target <= r.b.ci_hi;
        c.settled += r.verdict == MBX_PASSES_SETTLED;
        c.passes += r.b.r;
        c.span += r.span;
        c.relerr += r.b.relerr;
        c.pooled_cov += iid_covers(obs, nobs, target);
        mbx_passes_free(pt);
    }
    double n = (double)c.series;
    print_message("  %zu series: between-pass CI covers %.1f %%, one burst of %d (iid) %.1f %%, "
                  "pooled passes (iid) %.1f %%; settled %.1f %%, mean passes %.1f, span %.2f s, "
                  "relerr %.2f %%, lag-1 %.2f\n",
                  c.series, 100.0 * (double)c.new_cov / n, BURST, 100.0 * (double)c.burst_cov / n,
                  100.0 * (double)c.pooled_cov / n, 100.0 * (double)c.settled / n,
                  (double)c.passes / n, c.span / n, 100.0 * c.relerr / n, c.lag1 / n);
    return c;
}

static void coverage_ar1(void **state)
{
    (void)state;
    mbx_passes_opts o;
    mbx_passes_opts_init(&o);
    coverage c = simulate(PROC_AR1, 0.0, 0.5, &o, 0, 2e-6, 1000);
    assert_true(c.lag1 / (double)c.series > 0.35 && c.lag1 / (double)c.series < 0.75);
    assert_true(c.series < 500 || 10 * c.new_cov >= 9 * c.series);
    assert_true(c.burst_cov + c.series / 20 < c.new_cov);
}

static void coverage_ar1_slow(void **state)
{
    (void)state;
    mbx_passes_opts o;
    mbx_passes_opts_init(&o);
    coverage c = simulate(PROC_AR1_SLOW, 0.0, 0.5, &o, 0, 2e-6, 2000);
    assert_true(c.series < 500 || 10 * c.new_cov >= 9 * c.series);
    assert_true(c.burst_cov + c.series / 10 < c.new_cov);
}

static void coverage_levels(void **state)
{
    (void)state;
    mbx_passes_opts o;
    mbx_passes_opts_init(&o);
    print_message("levels, dwell 3 s, rounds 1 s, S = 1 s, level ids known\n");
    coverage c = simulate(PROC_LEVELS, 3.0, 1.0, &o, 1, 0.2e-6, 3000);
    o.min_span = 10.0;
    print_message("levels, dwell 3 s, rounds 1 s, S = 10 s, no level ids\n");
    coverage blind = simulate(PROC_LEVELS, 3.0, 1.0, &o, 0, 0.2e-6, 3000);
    print_message("levels, dwell 3 s, rounds 1 s, S = 10 s, level ids known\n");
    c = simulate(PROC_LEVELS, 3.0, 1.0, &o, 1, 0.2e-6, 3000);
    assert_true(c.series < 500 || 10 * c.new_cov >= 9 * c.series);
    assert_true(c.burst_cov + c.series / 10 < c.new_cov);
    assert_true(blind.new_cov + c.series / 10 < c.new_cov);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(coverage_ar1),
        cmocka_unit_test(coverage_ar1_slow),
        cmocka_unit_test(coverage_levels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
