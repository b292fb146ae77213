/* The simulated machine the scheduler's unit tests drive (sched_sim.h):
 * time advances only by what is "measured", the machine may switch between
 * two levels, and observations carry seeded noise. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/stats.h"
#include "sched_sim.h"

double mbx_sim_urand(sim *m)
{
    uint64_t z = (m->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

double mbx_sim_level_now(const sim *m)
{
    if (m->level_period <= 0)
        return 1.0;
    return ((long)(m->now / m->level_period) % 2) ? m->level_factor : 1.0;
}

static double gauss(sim *m)
{
    double u = mbx_sim_urand(m), v = mbx_sim_urand(m);
    return sqrt(-2 * log(1 - u)) * cos(6.283185307179586 * v);
}

double mbx_sim_state(sim *m)
{
    if (m->ou_sd <= 0 && m->nlev < 2)
        return mbx_sim_level_now(m);
    if (!m->started) {
        m->started = 1;
        m->ou_t = m->now;
        m->ou_x = m->ou_sd > 0 ? m->ou_sd * gauss(m) : 0;
        /* the first stay: a level drawn by its share, its rest exponential */
        double tot = 0, u, acc = 0;
        for (size_t l = 0; l < m->nlev; l++)
            tot += m->lev_dwell[l];
        u = mbx_sim_urand(m) * tot;
        for (m->lev = 0; m->nlev >= 2 && m->lev + 1 < m->nlev; m->lev++)
            if ((acc += m->lev_dwell[m->lev]) > u)
                break;
        m->lev_until = m->nlev >= 2 ? m->now - m->lev_dwell[m->lev] * log(1 - mbx_sim_urand(m)) : 0;
    }
    if (m->ou_sd > 0 && m->now > m->ou_t) {
        double a = exp(-(m->now - m->ou_t) / m->ou_tau);
        m->ou_x = a * m->ou_x + m->ou_sd * sqrt(1 - a * a) * gauss(m);
        m->ou_t = m->now;
    }
    while (m->nlev >= 2 && m->now >= m->lev_until) {
        m->lev = (m->lev + 1) % m->nlev; /* they take turns */
        m->lev_until -= m->lev_dwell[m->lev] * log(1 - mbx_sim_urand(m));
    }
    return (m->nlev >= 2 ? m->lev_factor[m->lev] : 1.0) * exp(m->ou_x);
}

static double mix_cdf(const sim *m, double y)
{
    double tot = 0, p = 0;
    size_t nl = m->nlev >= 2 ? m->nlev : 1;
    for (size_t l = 0; l < nl; l++) {
        double w = m->nlev >= 2 ? m->lev_dwell[l] : 1, f = m->nlev >= 2 ? m->lev_factor[l] : 1;
        double z = m->ou_sd > 0 ? (log(y) - log(f)) / m->ou_sd : (y >= f ? INFINITY : -INFINITY);
        tot += w;
        p += w * 0.5 * erfc(-z / sqrt(2.0));
    }
    return p / tot;
}

double mbx_sim_long_run_median(const sim *m, size_t c, uint64_t x)
{
    double lo = 1e-3, hi = 1e3;
    for (int i = 0; i < 200; i++) {
        double mid = sqrt(lo * hi);
        if (mix_cdf(m, mid) < 0.5)
            lo = mid;
        else
            hi = mid;
    }
    double t = mbx_sim_truth(m, c, x) * hi;
    return m->tick > 0 ? m->tick * fmax(1, round(t / m->tick)) : t;
}

/* The true time of one observation of curve c at x, on the fast level. */
double mbx_sim_truth(const sim *m, size_t c, uint64_t x)
{
    if (m->curve != NULL)
        return m->curve_scale[c] * m->curve((double)x);
    /* A protocol switch above 64 KiB doubles the time: not a line. */
    return m->curve_scale[c] * (1e-6 + 1e-9 * (double)x) * (x > 65536 ? 2.0 : 1.0);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Carry out one request; returns its kind. */
int mbx_sim_step(mbx_sched *s, sim *m, mbx_sched_req *rq)
{
    int k = mbx_sched_next(s, m->now, rq);
    assert_true(k >= 0);
    if (k == MBX_SCHED_PROBE) {
        m->probes++;
        double f = m->probe_noise > 0 ? 1 + m->probe_noise * (mbx_sim_urand(m) - 0.5) : 1;
        assert_int_equal(mbx_sched_probe_done(s, m->now, 2e-7 * mbx_sim_state(m) * f), MBX_OK);
    } else if (k == MBX_SCHED_WAIT) {
        m->waits++;
        assert_true(rq->wait > 0 && rq->wait <= 0.05 + 1e-12);
        m->now += rq->wait;
    } else if (k == MBX_SCHED_PASS) {
        assert_true(rq->nobs >= 1 && rq->nobs <= 20000);
        double t0 = m->now, base = mbx_sim_truth(m, rq->curve, rq->x);
        if (m->pass_noise > 0) { /* the whole pass off by a normal factor (Box-Muller) */
            double u = 1.0 - mbx_sim_urand(m), v = mbx_sim_urand(m);
            double z = sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
            base *= 1.0 + m->pass_noise * (z < -5.0 ? -5.0 : z);
        }
        int model = m->ou_sd > 0 || m->nlev >= 2;
        double state = model ? mbx_sim_state(m) : 1; /* a pass is short: one state */
        for (size_t i = 0; i < rq->nobs; i++) {
            double f = model ? state : mbx_sim_level_now(m);
            m->obs[i] = base * f * (1.0 + m->noise * (mbx_sim_urand(m) - 0.5));
            m->now += m->obs[i];
            if (m->tick > 0)
                m->obs[i] = m->tick * round(m->obs[i] / m->tick);
        }
        m->now += 2e-5; /* the command's cost */
        double *sorted = malloc(rq->nobs * sizeof *sorted);
        memcpy(sorted, m->obs, rq->nobs * sizeof *sorted);
        qsort(sorted, rq->nobs, sizeof *sorted, cmp_d);
        mbx_result r;
        memset(&r, 0, sizeof r);
        r.benchmark = "sim";
        r.s.n = rq->nobs;
        /* The pass's median as the engine takes it (the mean of the middle
         * two of an even count), not the upper of them: that one sits half
         * a spacing high, which intervals of a few tenths of a percent
         * (no machine state) read as misses. */
        r.s.median = mbx_stats_quantile_sorted(sorted, rq->nobs, 0.5);
        r.status = MBX_POINT_SETTLED;
        r.batches = 1;
        r.wall = m->now - t0;
        if (m->setup > 0) {
            r.setup = m->setup * (double)++m->nsetup;
            m->setup_sum += r.setup;
        }
        free(sorted);
        mbx_sched_pass_report rep = {&r, m->obs, rq->nobs, t0, m->now};
        assert_int_equal(mbx_sched_pass_done(s, &rep), MBX_OK);
    }
    return k;
}

mbx_sched *mbx_sim_make(const mbx_sched_opts *o, size_t ncurves, const uint64_t *grid, size_t ng)
{
    mbx_sched *s;
    assert_int_equal(mbx_sched_create(o, &s), MBX_OK);
    for (size_t c = 0; c < ncurves; c++) {
        mbx_sched_curve cv = {.grid = grid, .ngrid = ng};
        size_t id;
        assert_int_equal(mbx_sched_add_curve(s, &cv, &id), MBX_OK);
        assert_int_equal(id, c);
    }
    return s;
}

const uint64_t mbx_sim_grid8[8] = {1, 8, 64, 512, 4096, 32768, 262144, 1048576};

/* The pacing of point i: no two passes closer than half the least gap
 * S / (R - 1) (the jitter draws 0.5 to 1.5 of a gap that is never below
 * it), and no fixed period: with three gaps or more they differ. Returns
 * its passes. */
size_t mbx_sim_check_paced(const mbx_sched *s, const mbx_sched_opts *o, size_t i)
{
    double t[256];
    size_t n = mbx_sched_pass_times(s, i, t, 256), r = o->passes.min_passes;
    /* pass times are middles: a pass here lasts well under 0.1 s */
    double gap = o->passes.min_span / (double)(r - 1), slack = 0.05, lo = INFINITY, hi = 0;
    for (size_t k = 1; k < n; k++) {
        assert_true(t[k] > t[k - 1]);
        assert_true(t[k] - t[k - 1] >= 0.5 * gap - slack);
        lo = fmin(lo, t[k] - t[k - 1]);
        hi = fmax(hi, t[k] - t[k - 1]);
    }
    if (n >= 4)
        assert_true(hi > 1.1 * lo);
    return n;
}

/* Run to the end; returns the simulated run time. */
double mbx_sim_run_all(mbx_sched *s, sim *m)
{
    mbx_sched_req rq;
    for (long guard = 0; guard < 10000000; guard++)
        if (mbx_sim_step(s, m, &rq) == MBX_SCHED_DONE)
            return m->now;
    fail_msg("the scheduler never finished");
    return 0;
}

/* Take the rows the scheduler made final since the last call, as the
 * runner does after each step (mbx_runner_take_finals). */
static void take_rows(mbx_sched *s, mbx_result *rows, int *got, size_t nrows)
{
    size_t idx[64], n;
    do {
        n = mbx_sched_take_final(s, idx, sizeof idx / sizeof *idx);
        for (size_t k = 0; k < n; k++)
            if (idx[k] < nrows && !got[idx[k]] &&
                mbx_sched_result(s, idx[k], &rows[idx[k]]) == MBX_OK)
                got[idx[k]] = 1;
    } while (n == sizeof idx / sizeof *idx);
}

double mbx_sim_run_rows(mbx_sched *s, sim *m, mbx_result *rows, int *got, size_t nrows)
{
    mbx_sched_req rq;
    for (size_t i = 0; i < nrows; i++)
        got[i] = 0;
    for (long guard = 0; guard < 10000000; guard++) {
        int k = mbx_sim_step(s, m, &rq);
        take_rows(s, rows, got, nrows);
        if (k == MBX_SCHED_DONE)
            return m->now;
    }
    fail_msg("the scheduler never finished");
    return 0;
}
