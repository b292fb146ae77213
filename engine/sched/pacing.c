/* Pacing from the machine's own memory (see include/mbx/pacing.h; the
 * reasoning is docs/algorithms.md, "The scheduler", Pacing). */
#include "mbx/pacing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/stats.h"

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int times_ok(const double *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(t[i]) || (i > 0 && t[i] < t[i - 1]))
            return 0;
    return 1;
}

/* The median spacing of t[0..n), n >= 2. */
static double median_spacing(const double *t, size_t n, double *scratch)
{
    for (size_t i = 1; i < n; i++)
        scratch[i - 1] = t[i] - t[i - 1];
    qsort(scratch, n - 1, sizeof *scratch, cmp_d);
    return mbx_stats_quantile_sorted(scratch, n - 1, 0.5);
}

/* The log of each value less its segment's log median (the whole
 * series' median when there are no segments). */
static void residuals(const double *v, size_t n, const mbx_levels *lv, double *r, double *scratch)
{
    for (size_t i = 0; i < n; i++)
        r[i] = log(v[i]);
    if (lv && lv->nseg > 0) {
        for (size_t g = 0; g < lv->nseg; g++)
            for (size_t i = lv->seg[g].begin; i < lv->seg[g].end && i < n; i++)
                r[i] -= log(lv->seg[g].median);
        return;
    }
    memcpy(scratch, r, n * sizeof *r);
    qsort(scratch, n, sizeof *scratch, cmp_d);
    double m = mbx_stats_quantile_sorted(scratch, n, 0.5);
    for (size_t i = 0; i < n; i++)
        r[i] -= m;
}

/* Residuals past 4 robust standard deviations from their median (a probe
 * a level boundary put on the wrong side, a single stall) are cut there,
 * then all are centred: a few such values would dominate the variance
 * and, through the mean, lend every other residual a common offset that
 * reads as memory at every lag. */
static void winsorize(double *r, size_t n, double *scratch)
{
    memcpy(scratch, r, n * sizeof *r);
    qsort(scratch, n, sizeof *scratch, cmp_d);
    double med = mbx_stats_quantile_sorted(scratch, n, 0.5);
    for (size_t i = 0; i < n; i++)
        scratch[i] = fabs(r[i] - med);
    qsort(scratch, n, sizeof *scratch, cmp_d);
    double lim = 4 * 1.4826 * mbx_stats_quantile_sorted(scratch, n, 0.5), mean = 0;
    for (size_t i = 0; i < n; i++) {
        if (lim > 0)
            r[i] = med + fmax(-lim, fmin(lim, r[i] - med));
        mean += r[i];
    }
    mean /= (double)n;
    for (size_t i = 0; i < n; i++)
        r[i] -= mean;
}

static double autocov(const double *r, size_t n, size_t k)
{
    double s = 0;
    for (size_t i = 0; i + k < n; i++)
        s += r[i] * r[i + k];
    return s / (double)n;
}

/* Sokal's window over the nugget-free sum: tau in probe spacings. The
 * sum's noise grows with the window, so the window also ends where the
 * autocorrelation has first fallen to rho_1 / e^2 (about 2 tau for an
 * exponential decay, past which the terms add little but noise), and the
 * exponential tail beyond it is added. */
static double sokal_tau(const double *r, size_t n, double c0, double b)
{
    double sum = 0, tau = 0.5, rho1 = (autocov(r, n, 1) / c0 + b) / (1 + b);
    for (size_t w = 1; w <= n / 4; w++) {
        double rho = (autocov(r, n, w) / c0 + b) / (1 + b);
        sum += rho;
        tau = sum / rho1 - 0.5;
        if ((double)w >= MBX_PACING_SOKAL_C * tau)
            break;
        if (rho < rho1 * 0.1353352832366127) {
            /* the exponential tail beyond w: the sum over all lags is the
             * sum so far / (1 - rho_w / rho_1) */
            tau = sum / rho1 / (1 - fmax(rho, 0) / rho1) - 0.5;
            break;
        }
    }
    return tau;
}

/* Centring a series of n probes takes its own mean out: every sample
 * autocorrelation reads about (2 tau + 1) / n low (tau in spacings), so a
 * short series cut its window early and read a memory of a tenth of the
 * series as a third of that or less (tests/unit/test_pacing.c). The
 * offset is added back, from the uncorrected tau, within CENTRE_MAX so a series of mostly memory
 * cannot run away. */
#define CENTRE_MAX 0.2

static double centred_tau(const double *r, size_t n, double c0)
{
    double k = sokal_tau(r, n, c0, 0);
    return sokal_tau(r, n, c0, fmin(CENTRE_MAX, (2 * fmax(k, 0.5) + 1) / (double)n));
}

int mbx_pacing_tau(const double *t, const double *v, size_t n, const mbx_levels *lv, double *tau)
{
    if (!t || !v || !tau || !times_ok(t, n))
        return MBX_E_INVAL;
    for (size_t i = 0; i < n; i++)
        if (!(v[i] > 0) || !isfinite(v[i]))
            return MBX_E_INVAL;
    *tau = NAN;
    if (n < MBX_PACING_MIN_PROBES)
        return MBX_OK;
    double *r = malloc(2 * n * sizeof *r);
    if (!r)
        return MBX_E_NOMEM;
    double dt = median_spacing(t, n, r);
    residuals(v, n, lv, r, r + n);
    winsorize(r, n, r + n);
    double c0 = autocov(r, n, 0);
    if (c0 > 1e-24 && dt > 0) {
        double rho1 = autocov(r, n, 1) / c0;
        double k = rho1 > 2 / sqrt((double)n) ? centred_tau(r, n, c0) : 1.0;
        *tau = dt * fmax(1.0, k);
    }
    free(r);
    return MBX_OK;
}

/* The lower quartile (bound_y75) and the lower 5 % point (bound_y95) of
 * tau's estimate / seen (y) for a true memory of x seen (mbx_pacing_tau
 * over simulated OU series with a 0.6 % probe nugget at x seen / 0.05 s
 * probes, averaged over series of 5, 10 and 20 s: scale-free within
 * their noise; 600 series a cell for the quartile, 3000 for the 5 %
 * point). Both flatten as x grows: the estimate of a memory longer than
 * the series stops growing. */
static const double bound_x[] = {0.01, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15,
                                 0.2,  0.3,  0.5,  1.0,  2.0,  5.0};
static const double bound_y75[] = {0.0082, 0.015,  0.0208, 0.0311, 0.0393, 0.0494, 0.0616,
                                   0.0651, 0.0768, 0.0877, 0.0923, 0.0978, 0.1015};
static const double bound_y95[] = {0.0074, 0.0107, 0.0142, 0.0207, 0.0250, 0.0309, 0.0361,
                                   0.0398, 0.0428, 0.0482, 0.0529, 0.0530, 0.0531};

/* The x whose quantile of y (table yq) is the y read: the bound. */
static double bound_of(double tau, double seen, const double *yq)
{
    if (!(tau > 0) || !(seen > 0) || !isfinite(tau) || !isfinite(seen))
        return NAN;
    size_t n = sizeof bound_x / sizeof *bound_x;
    double y = tau / seen;
    if (y <= yq[0]) /* short memories read about in proportion */
        return tau * bound_x[0] / yq[0];
    if (y >= yq[n - 1])
        return INFINITY;
    size_t i = 1;
    while (yq[i] < y)
        i++;
    /* log-log between the two table points around y */
    double a = log(y / yq[i - 1]) / log(yq[i] / yq[i - 1]);
    return seen * bound_x[i - 1] * exp(a * log(bound_x[i] / bound_x[i - 1]));
}

double mbx_pacing_tau_bound(double tau, double seen)
{
    return bound_of(tau, seen, bound_y75);
}

double mbx_pacing_tau_bound95(double tau, double seen)
{
    return bound_of(tau, seen, bound_y95);
}

/* The level of sample i under lv; -1 when no segment holds it. */
static int level_of(const mbx_levels *lv, size_t i)
{
    for (size_t g = 0; g < lv->nseg; g++)
        if (i >= lv->seg[g].begin && i < lv->seg[g].end)
            return lv->seg[g].level;
    return -1;
}

/* The complete stays' median: from one change to the next. */
static double stays_median(const double *t, size_t n, const mbx_levels *lv)
{
    double *d = malloc((lv->nseg + 1) * sizeof *d);
    if (!d)
        return NAN;
    size_t nd = 0;
    double last = NAN;
    for (size_t g = 1; g < lv->nseg; g++) {
        if (lv->seg[g].level == lv->seg[g - 1].level || lv->seg[g].begin >= n)
            continue;
        double at = t[lv->seg[g].begin];
        if (!isnan(last))
            d[nd++] = at - last;
        last = at;
    }
    double m = NAN;
    if (nd > 0) {
        qsort(d, nd, sizeof *d, cmp_d);
        m = mbx_stats_quantile_sorted(d, nd, 0.5);
    }
    free(d);
    return m;
}

int mbx_pacing_dwell_get(const double *t, size_t n, const mbx_levels *lv, mbx_pacing_dwell *out)
{
    if (!t || !lv || !out || !times_ok(t, n))
        return MBX_E_INVAL;
    for (size_t g = 0; g < lv->nseg; g++)
        if (lv->seg[g].begin >= lv->seg[g].end || lv->seg[g].end > n)
            return MBX_E_INVAL;
    memset(out, 0, sizeof *out);
    out->exposure = n > 1 ? t[n - 1] - t[0] : 0;
    for (size_t g = 1; g < lv->nseg; g++)
        out->changes += lv->seg[g].level != lv->seg[g - 1].level;
    out->censored = out->changes == 0;
    out->mean = out->changes ? out->exposure / (double)out->changes : out->exposure;
    out->median = out->changes >= 2 ? stays_median(t, n, lv) : NAN;
    out->nlevel = lv->nlevel < MBX_PACING_MAX_LEVELS ? lv->nlevel : MBX_PACING_MAX_LEVELS;
    for (size_t l = 0; l < out->nlevel; l++)
        out->level[l] = lv->level[l];
    for (size_t i = 0; i + 1 < n && out->exposure > 0; i++) {
        int l = level_of(lv, i);
        if (l >= 0 && (size_t)l < out->nlevel)
            out->share[l] += (t[i + 1] - t[i]) / out->exposure;
    }
    return MBX_OK;
}

void mbx_pacing_rule(const mbx_pacing_in *in, mbx_pacing *out)
{
    memset(out, 0, sizeof *out);
    size_t r = in->passes;
    double s = in->span > 0 ? in->span : 0, base = r >= 2 ? s / (double)(r - 1) : 0;
    double two_tau = isfinite(in->tau) && in->tau > 0 ? 2 * in->tau : 0;
    int sw = in->switching && isfinite(in->dwell) && in->dwell > 0;
    double cap = in->span_cap > 0 ? in->span_cap : INFINITY;
    out->states = fmax(two_tau, sw ? in->dwell : 0);
    out->gap = r >= 2 ? fmax(base, two_tau) : 0;
    if (r >= 2 && isfinite(cap))
        out->gap = fmin(out->gap, fmax(base, cap / (double)(r - 1)));
    out->need = fmax(s, r >= 2 ? (double)(r - 1) * 0.5 * two_tau : 0); /* units tau apart */
    if (sw)
        out->need = fmax(out->need, 3 * in->dwell);
    /* A point that cannot cover its states within the cap is flagged
     * either way: stretching it to the cap would only make the run longer. */
    out->cannot_cover = out->need > fmax(s, cap);
    out->span = out->cannot_cover ? s : fmax(s, out->need);
    out->first_gap = r >= 2 ? fmax(out->gap, out->span / (double)(r - 1)) : 0;
}

double mbx_pacing_jitter(uint64_t seed, uint64_t point, uint64_t pass)
{
    uint64_t z = seed ^ (point * 0xd1b54a32d192ed03ull) ^ (pass * 0x8cb92ba72f3d8dd7ull);
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return 0.5 + (double)(z >> 11) / 9007199254740992.0;
}
