/* Between-pass statistics of one point (see mbx/passes.h for the contract,
 * docs/algorithms.md "Between-pass error" for the reasoning). */
#include "mbx/passes.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/grow.h"
#include "mbx/stats.h"

#define Z975 1.959963984540054
#define MAD_TO_SD 1.482602218505602 /* 1 / Phi^-1(3/4): MAD of a normal = 0.6745 sd */
#define SQRT_HALF_PI 1.2533141373155003

struct mbx_passes {
    mbx_passes_opts o;
    mbx_pass *pass;
    size_t n, cap;
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct level_pair {
    int level;
    double m;
} level_pair;

static int cmp_level_pair(const void *a, const void *b)
{
    const level_pair *x = a, *y = b;
    if (x->level != y->level)
        return (x->level > y->level) - (x->level < y->level);
    return (x->m > y->m) - (x->m < y->m);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Small-sample consistency factors of the MAD (Croux & Rousseeuw 1992):
 * with a handful of passes the raw MAD underestimates the spread by up to
 * a third, which would make a 5-pass point settle too early. */
static double mad_factor(size_t r)
{
    static const double b[] = {0.0, 1.0, 1.196, 1.495, 1.363, 1.206, 1.200, 1.140, 1.129, 1.107};
    if (r < sizeof b / sizeof b[0])
        return b[r];
    return (double)r / ((double)r - 0.8);
}

/* 97.5 % quantile of Student's t with df degrees of freedom: a table where
 * it matters, then the Cornish-Fisher expansion (error < 1e-3 from 30). */
static double t975(size_t df)
{
    static const double t[] = {NAN,   12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
                               2.306, 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
                               2.120, 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
                               2.064, 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
    if (df < sizeof t / sizeof t[0])
        return t[df];
    double z = Z975, z3 = z * z * z, z5 = z3 * z * z, v = (double)df;
    return z + (z3 + z) / (4.0 * v) + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * v * v);
}

int mbx_passes_between(const double *m, size_t r, double *scratch, mbx_between *out)
{
    if (m == NULL || scratch == NULL || out == NULL || r == 0)
        return MBX_E_INVAL;
    for (size_t i = 0; i < r; i++)
        if (!isfinite(m[i]) || !(m[i] > 0.0))
            return MBX_E_INVAL;
    memmove(scratch, m, r * sizeof *scratch);
    qsort(scratch, r, sizeof *scratch, cmp_double);
    const double *s = scratch;

    mbx_between b;
    b.r = r;
    b.value = mbx_stats_quantile_sorted(s, r, 0.5);
    size_t lo, hi;
    b.ci_exact = mbx_stats_median_ci_index(r, &lo, &hi);
    double os_lo = s[lo - 1], os_hi = s[hi - 1];

    /* MAD: the deviations from the median are taken in two sorted runs
     * (below and above it) merged on the fly, so no second sort and no
     * second scratch array are needed. */
    size_t below = 0;
    while (below < r && s[below] <= b.value)
        below++;
    size_t i = below, j = below, want = r / 2, k = 0;
    double dprev = 0.0, dcur = 0.0;
    while (k <= want) {
        double dl = i > 0 ? b.value - s[i - 1] : INFINITY;
        double dr = j < r ? s[j] - b.value : INFINITY;
        dprev = dcur;
        if (dl <= dr) {
            dcur = dl;
            i--;
        } else {
            dcur = dr;
            j++;
        }
        k++;
    }
    /* Type 7 at p = 1/2: the middle deviation, or the mean of the middle
     * two for even r (k-th smallest is dcur, the one before is dprev). */
    b.mad = (r % 2 == 1) ? dcur : 0.5 * (dprev + dcur);

    if (r < 2) {
        b.mad = 0.0;
        b.se_mad = b.se_os = b.se = b.relerr = NAN;
        b.ci_lo = b.ci_hi = b.value;
        b.ci_exact = 0;
    } else {
        double sd = MAD_TO_SD * mad_factor(r) * b.mad;
        b.se_mad = SQRT_HALF_PI * sd / sqrt((double)r);
        b.se_os = (os_hi - os_lo) / (2.0 * Z975);
        b.se = b.se_mad > b.se_os ? b.se_mad : b.se_os;
        double t = t975(r - 1);
        double tlo = b.value - t * b.se_mad, thi = b.value + t * b.se_mad;
        b.ci_lo = os_lo < tlo ? os_lo : tlo;
        b.ci_hi = os_hi > thi ? os_hi : thi;
        b.relerr = b.se / b.value;
    }
    *out = b;
    return MBX_OK;
}

void mbx_passes_opts_init(mbx_passes_opts *o)
{
    if (o == NULL)
        return;
    o->eps = MBX_PASSES_DEFAULT_EPS;
    o->min_passes = MBX_PASSES_DEFAULT_MIN;
    o->min_span = MBX_PASSES_DEFAULT_SPAN;
    o->tau = 0.0;
    o->resolution = 0.0;
}

static int nonneg(double x)
{
    return isfinite(x) && x >= 0.0;
}

int mbx_passes_create(const mbx_passes_opts *o, mbx_passes **out)
{
    if (out == NULL)
        return MBX_E_INVAL;
    *out = NULL;
    mbx_passes_opts d;
    mbx_passes_opts_init(&d);
    if (o != NULL)
        d = *o;
    if (!(d.eps > 0.0 && d.eps < 1.0) || d.min_passes < 1 || d.min_passes > MBX_PASSES_MAX ||
        !nonneg(d.min_span) || !nonneg(d.tau) || !nonneg(d.resolution))
        return MBX_E_INVAL;
    mbx_passes *p = calloc(1, sizeof *p);
    if (p == NULL)
        return MBX_E_NOMEM;
    p->o = d;
    *out = p;
    return MBX_OK;
}

void mbx_passes_free(mbx_passes *p)
{
    if (p == NULL)
        return;
    free(p->pass);
    free(p);
}

int mbx_passes_set_tau(mbx_passes *p, double tau)
{
    if (p == NULL || !nonneg(tau))
        return MBX_E_INVAL;
    p->o.tau = tau;
    return MBX_OK;
}

int mbx_passes_add(mbx_passes *p, const mbx_pass *pass)
{
    if (p == NULL || pass == NULL || !isfinite(pass->median) || !(pass->median > 0.0) ||
        pass->n < 1 || !isfinite(pass->t_start) || !isfinite(pass->t_end) ||
        !(pass->t_start <= pass->t_end) || pass->level < MBX_PASSES_NO_LEVEL)
        return MBX_E_INVAL;
    if (p->n >= MBX_PASSES_MAX)
        return MBX_E_RANGE;
    if (mbx_grow((void **)&p->pass, &p->cap, p->n + 1, sizeof *p->pass) != MBX_OK)
        return MBX_E_NOMEM;
    p->pass[p->n++] = *pass;
    return MBX_OK;
}

size_t mbx_passes_count(const mbx_passes *p)
{
    return p != NULL ? p->n : 0;
}

static int cmp_pass_time(const void *a, const void *b)
{
    const mbx_pass *x = a, *y = b;
    return (x->t_start > y->t_start) - (x->t_start < y->t_start);
}

/* Whether pass q (later in time) joins the unit that starts with pass f.
 * With tau > 0, passes within tau of the unit's first start share the
 * machine's state and are one unit; with several levels, a unit never
 * spans a level change, and with tau == 0 it is a whole visit (maximal
 * run of passes on one level): the level persists for seconds, so passes
 * close in time share it and count as one draw of the run's level mix. */
static int same_unit(const mbx_passes *p, int levels, const mbx_pass *f, const mbx_pass *q)
{
    if (levels && q->level != f->level)
        return 0;
    if (p->o.tau > 0.0)
        return q->t_start - f->t_start < p->o.tau;
    return levels;
}

/* The between-pass statistics of p into r->b, with m holding 2 p->n
 * doubles. The units are the groups of same_unit (a pass without a level
 * id is a level of its own); the spread is taken over unit medians, while
 * the value stays the median of all pass medians. */
static int between_units(const mbx_passes *p, double *m, mbx_passes_result *r)
{
    for (size_t i = 0; i < p->n; i++)
        m[i] = p->pass[i].median;
    r->units = p->n;
    int levels = r->nlevels >= 2;
    if (!levels && !(p->o.tau > 0.0))
        return mbx_passes_between(m, p->n, m + p->n, &r->b);
    mbx_between all;
    int rc = mbx_passes_between(m, p->n, m + p->n, &all);
    if (rc != MBX_OK)
        return rc;
    mbx_pass *t = malloc(p->n * sizeof *t);
    if (t == NULL)
        return MBX_E_NOMEM;
    memcpy(t, p->pass, p->n * sizeof *t);
    qsort(t, p->n, sizeof *t, cmp_pass_time);
    size_t nv = 0;
    for (size_t b = 0; b < p->n;) {
        size_t e = b + 1;
        while (e < p->n && same_unit(p, levels, &t[b], &t[e]))
            e++;
        for (size_t i = b; i < e; i++)
            m[p->n + i - b] = t[i].median;
        mbx_between one;
        rc = mbx_passes_between(m + p->n, e - b, m + p->n, &one);
        if (rc != MBX_OK) {
            free(t);
            return rc;
        }
        m[nv++] = one.value;
        b = e;
    }
    free(t);
    r->units = nv;
    rc = mbx_passes_between(m, nv, m + p->n, &r->b);
    if (rc != MBX_OK)
        return rc;
    r->b.r = p->n;
    r->b.value = all.value;
    if (r->b.ci_lo > all.value)
        r->b.ci_lo = all.value;
    if (r->b.ci_hi < all.value)
        r->b.ci_hi = all.value;
    r->b.relerr = r->b.se / all.value;
    return MBX_OK;
}

/* Priority from a finished result (see the header). */
static double priority_of(const mbx_passes *p, const mbx_passes_result *r)
{
    if (r->verdict == MBX_PASSES_SETTLED)
        return 0.0;
    if (r->b.r < 2 || !(r->b.relerr >= 0.0))
        return INFINITY;
    double ratio = r->b.relerr / p->o.eps;
    double pr = ratio > 1.0 ? ratio : 1.0;
    if (r->units < p->o.min_passes)
        pr += (double)(p->o.min_passes - r->units);
    return pr;
}

int mbx_passes_result_get(const mbx_passes *p, mbx_passes_result *out)
{
    if (p == NULL || out == NULL)
        return MBX_E_INVAL;
    mbx_passes_result r;
    memset(&r, 0, sizeof r);
    r.verdict = MBX_PASSES_EMPTY;
    r.priority = INFINITY;
    if (p->n == 0) {
        r.b.value = r.b.mad = r.b.se_mad = r.b.se_os = r.b.se = NAN;
        r.b.ci_lo = r.b.ci_hi = r.b.relerr = NAN;
        r.first_start = r.last_end = NAN;
        *out = r;
        return MBX_OK;
    }
    double *m = malloc(2 * p->n * sizeof *m);
    int *lv = malloc(p->n * sizeof *lv);
    if (m == NULL || lv == NULL) {
        free(m);
        free(lv);
        return MBX_E_NOMEM;
    }
    size_t nlv = 0;
    r.first_start = p->pass[0].t_start;
    r.last_end = p->pass[0].t_end;
    for (size_t i = 0; i < p->n; i++) {
        const mbx_pass *q = &p->pass[i];
        m[i] = q->median;
        /* Saturate rather than wrap: the count is informative, not exact
         * arithmetic anyone relies on at 2^64. */
        r.n_obs = q->n > SIZE_MAX - r.n_obs ? SIZE_MAX : r.n_obs + q->n;
        if (q->t_start < r.first_start)
            r.first_start = q->t_start;
        if (q->t_end > r.last_end)
            r.last_end = q->t_end;
        if (q->level != MBX_PASSES_NO_LEVEL)
            lv[nlv++] = q->level;
    }
    r.span = r.last_end - r.first_start;
    qsort(lv, nlv, sizeof *lv, cmp_int);
    for (size_t i = 0; i < nlv; i++)
        if (i == 0 || lv[i] != lv[i - 1])
            r.nlevels++;
    r.straddles = r.nlevels >= 2;
    free(lv);
    int rc = between_units(p, m, &r);
    free(m);
    if (rc != MBX_OK)
        return rc;

    if (r.units < p->o.min_passes)
        r.verdict = MBX_PASSES_FEW;
    else if (!(r.span >= p->o.min_span))
        r.verdict = MBX_PASSES_SHORT;
    else if (!(r.b.relerr < p->o.eps))
        r.verdict = MBX_PASSES_NOISY;
    else
        r.verdict = MBX_PASSES_SETTLED;
    r.priority = priority_of(p, &r);
    *out = r;
    return MBX_OK;
}

int mbx_passes_priority(const mbx_passes *p, double *out)
{
    if (p == NULL || out == NULL)
        return MBX_E_INVAL;
    mbx_passes_result r;
    int rc = mbx_passes_result_get(p, &r);
    if (rc != MBX_OK)
        return rc;
    *out = r.priority;
    return MBX_OK;
}

size_t mbx_passes_needed(const mbx_passes *p, const mbx_passes_result *r)
{
    if (p == NULL || r == NULL)
        return SIZE_MAX;
    if (r->verdict == MBX_PASSES_SETTLED)
        return 0;
    if (r->b.r < 2 || !(r->b.relerr >= 0.0) || !(r->b.value > 0.0))
        return SIZE_MAX;
    size_t need = 0;
    double ratio = r->b.relerr / p->o.eps;
    if (ratio >= 1.0) {
        /* relerr * sqrt(R / R') < eps needs R' > R * ratio^2. */
        double total = floor((double)r->b.r * ratio * ratio) + 1.0;
        if (total >= (double)MBX_PASSES_MAX)
            total = (double)MBX_PASSES_MAX;
        need = total > (double)r->b.r ? (size_t)total - r->b.r : 1;
    }
    if (r->units < p->o.min_passes && p->o.min_passes - r->units > need)
        need = p->o.min_passes - r->units;
    if (need == 0)
        need = 1; /* only the span is missing: one later pass */
    return need;
}

int mbx_passes_levels(const mbx_passes *p, mbx_passes_level *out, size_t cap, size_t *nlevels)
{
    if (p == NULL || nlevels == NULL || (out == NULL && cap > 0))
        return MBX_E_INVAL;
    *nlevels = 0;
    if (p->n == 0)
        return MBX_OK;
    /* Sorted by level, then by median: each level's run is then sorted
     * and its median is index arithmetic. */
    level_pair *v = malloc(p->n * sizeof *v);
    if (v == NULL)
        return MBX_E_NOMEM;
    size_t nv = 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->pass[i].level != MBX_PASSES_NO_LEVEL) {
            v[nv].level = p->pass[i].level;
            v[nv].m = p->pass[i].median;
            nv++;
        }
    qsort(v, nv, sizeof *v, cmp_level_pair);
    size_t nl = 0;
    for (size_t b = 0; b < nv;) {
        size_t e = b;
        while (e < nv && v[e].level == v[b].level)
            e++;
        if (nl < cap) {
            size_t c = e - b;
            double h = (double)(c - 1) * 0.5;
            size_t k = (size_t)floor(h);
            double f = h - (double)k;
            double med = k + 1 < c ? v[b + k].m + f * (v[b + k + 1].m - v[b + k].m) : v[b + k].m;
            out[nl].level = v[b].level;
            out[nl].passes = c;
            out[nl].median = med;
        }
        nl++;
        b = e;
    }
    free(v);
    *nlevels = nl;
    return MBX_OK;
}

const char *mbx_passes_verdict_name(mbx_passes_verdict v)
{
    switch (v) {
    case MBX_PASSES_EMPTY: return "EMPTY";
    case MBX_PASSES_FEW: return "FEW_PASSES";
    case MBX_PASSES_SHORT: return "SHORT_SPAN";
    case MBX_PASSES_NOISY: return "NOISY";
    case MBX_PASSES_SETTLED: return "SETTLED";
    }
    return "UNKNOWN";
}
