/* The machine profile: its estimate, its entries and the widening of a
 * row (docs/algorithms.md, "Launch variance and the machine profile").
 * The file is profile_file.c's. */
#include "mbx/profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/grow.h"
#include "mbx/status.h"

uint64_t mbx_profile_class(uint64_t bytes)
{
    if (bytes == 0)
        return 0;
    uint64_t c = 1;
    while (c <= bytes / 4)
        c *= 4;
    return c;
}

/* The standard normal quantile, by bisection on erfc (exact to 1e-12;
 * called a handful of times per profile). */
static double z_quantile(double p)
{
    double lo = -40, hi = 40;
    for (int i = 0; i < 200 && hi - lo > 1e-13; i++) {
        double mid = 0.5 * (lo + hi);
        if (0.5 * erfc(-mid / sqrt(2.0)) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

double mbx_profile_t_quantile(double p, double df)
{
    if (!(p > 0 && p < 1) || !(df > 0))
        return NAN;
    if (df == 1)
        return tan(3.14159265358979323846 * (p - 0.5));
    if (df == 2)
        return (2 * p - 1) / sqrt(2 * p * (1 - p));
    /* Cornish-Fisher expansion of t about the normal quantile (Hill,
     * ACM algorithm 396); within 0.1 % of the exact value from df 3 on. */
    double z = z_quantile(p), z2 = z * z, z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2, z9 = z7 * z2;
    double g1 = (z3 + z) / 4, g2 = (5 * z5 + 16 * z3 + 3 * z) / 96;
    double g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384;
    double g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160;
    return z + g1 / df + g2 / (df * df) + g3 / (df * df * df) + g4 / (df * df * df * df);
}

double mbx_profile_chi2_quantile(double p, double df)
{
    if (!(p > 0 && p < 1) || !(df > 0))
        return NAN;
    double a = 2 / (9 * df), c = 1 - a + z_quantile(p) * sqrt(a);
    return c > 0 ? df * c * c * c : 0;
}

int mbx_profile_estimate(const double *y, const double *w, size_t npts, size_t k,
                         mbx_profile_entry *e)
{
    double ss = 0, wsum = 0;
    size_t df = 0, nw = 0, dfmax = 0, used = 0;
    for (size_t j = 0; j < npts; j++) {
        double sum = 0;
        size_t n = 0;
        for (size_t i = 0; i < k; i++)
            if (isfinite(y[j * k + i]))
                sum += y[j * k + i], n++;
        if (n < 2)
            continue;
        double mean = sum / (double)n;
        for (size_t i = 0; i < k; i++) {
            double v = y[j * k + i];
            if (!isfinite(v))
                continue;
            ss += (v - mean) * (v - mean);
            if (isfinite(w[j * k + i]) && w[j * k + i] >= 0)
                wsum += w[j * k + i], nw++;
        }
        df += n - 1;
        dfmax = n - 1 > dfmax ? n - 1 : dfmax;
        used++;
    }
    if (used == 0)
        return MBX_E_RANGE;
    /* var(launch median) = sigma_L^2 + within^2: what the spread of the
     * launch medians shows beyond their own errors is the launches'. */
    double tau2 = ss / (double)df, within = nw ? wsum / (double)nw : 0;
    /* The CI's units are the launches: a launch's effect is shared by the
     * sizes of the class, so pooling sizes adds no degrees of freedom to
     * it (docs/algorithms.md). */
    double d = (double)dfmax;
    double t_lo = tau2 * d / mbx_profile_chi2_quantile(0.975, d);
    double t_hi = tau2 * d / mbx_profile_chi2_quantile(0.025, d);
    e->points = used;
    e->df = dfmax;
    e->within = sqrt(within);
    e->sigma = sqrt(fmax(0, tau2 - within));
    e->sigma_lo = sqrt(fmax(0, t_lo - within));
    e->sigma_hi = isfinite(t_hi) ? sqrt(fmax(0, t_hi - within)) : INFINITY;
    return MBX_OK;
}

int mbx_profile_add(mbx_profile *p, const mbx_profile_entry *e)
{
    if (mbx_grow((void **)&p->e, &p->cap, p->n + 1, sizeof *p->e) != MBX_OK)
        return MBX_E_NOMEM;
    p->e[p->n++] = *e;
    return MBX_OK;
}

int mbx_profile_add_center(mbx_profile *p, const mbx_profile_center *c)
{
    if (mbx_grow((void **)&p->c, &p->ccap, p->nc + 1, sizeof *p->c) != MBX_OK)
        return MBX_E_NOMEM;
    p->c[p->nc++] = *c;
    return MBX_OK;
}

void mbx_profile_free(mbx_profile *p)
{
    if (p == NULL)
        return;
    free(p->e);
    free(p->c);
    p->e = NULL;
    p->c = NULL;
    p->n = p->cap = p->nc = p->ccap = 0;
}

const mbx_profile_center *mbx_profile_find_center(const mbx_profile *p, const char *bench,
                                                  int procs, uint64_t bytes)
{
    for (size_t i = 0; p != NULL && bench != NULL && i < p->nc; i++)
        if (p->c[i].procs == procs && p->c[i].bytes == bytes && strcmp(p->c[i].bench, bench) == 0)
            return &p->c[i];
    return NULL;
}

const mbx_profile_entry *mbx_profile_find(const mbx_profile *p, const char *bench, int procs,
                                          uint64_t bytes)
{
    uint64_t c = mbx_profile_class(bytes);
    for (size_t i = 0; p != NULL && bench != NULL && i < p->n; i++)
        if (p->e[i].procs == procs && p->e[i].class_lo == c && strcmp(p->e[i].bench, bench) == 0)
            return &p->e[i];
    return NULL;
}

int mbx_profile_widen(const mbx_profile *p, mbx_result *r)
{
    double m = r->s.median, lo = r->s.ci_lo, hi = r->s.ci_hi, se = r->s.stderr_;
    if (!(m > 0) || !isfinite(lo) || !isfinite(hi) || !(se >= 0) || !isfinite(se))
        return 0;
    const mbx_profile_entry *e = mbx_profile_find(p, r->benchmark, r->procs, r->bytes);
    if (e == NULL)
        return 0;
    /* sigma_L is estimated from K launches: its multiplier is Student's t
     * with K - 1 degrees of freedom, as in the prediction interval over
     * launches (merge.c), not the normal 1.96 (docs/algorithms.md). */
    double q = e->df >= 1 ? mbx_profile_t_quantile(0.975, (double)e->df) : MBX_PROFILE_Z;
    double rel = se / m, v = rel * rel + e->sigma * e->sigma;
    /* Held against where the profile's launches were: this launch's
     * median less their mean, on the log scale, has the variance of one
     * launch (sigma^2 + e^2) plus that of the mean of n (docs/algorithms.md,
     * "A launch outside its profile"). */
    const mbx_profile_center *c = mbx_profile_find_center(p, r->benchmark, r->procs, r->bytes);
    if (c != NULL) {
        r->profile_ratio = m / c->median;
        double sd = sqrt(v + (e->sigma * e->sigma + e->within * e->within) / (double)c->n);
        if (fabs(log(r->profile_ratio)) > q * sd)
            return MBX_PROFILE_OUTSIDE;
    }
    /* Relative, on the log scale: launch effects multiply a time. Each
     * side adds the launch component to its own log distance, so a
     * one-sided launch interval (a median at its lowest pass) is not
     * mirrored below the data (docs/algorithms.md). */
    double zl = q * e->sigma;
    double dlo = log(m / fmin(lo, m)), dhi = log(fmax(hi, m) / m);
    double hlo = sqrt(dlo * dlo + zl * zl), hhi = sqrt(dhi * dhi + zl * zl);
    r->launch_err = se;
    r->s.stderr_ = m * sqrt(v);
    r->s.ci_lo = m * exp(-hlo);
    r->s.ci_hi = m * exp(hhi);
    /* Another launch: its own error and its own launch effect besides
     * this one's. */
    r->pi_lo = m * exp(-sqrt(2.0) * hlo);
    r->pi_hi = m * exp(sqrt(2.0) * hhi);
    r->ci_scope = MBX_SCOPE_PROFILE;
    return 1;
}
