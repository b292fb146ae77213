/* Between-pass statistics of one point (see mbx/passes.h for the contract,
 * docs/algorithms.md "Between-pass error" for the reasoning). */
#include "mbx/passes.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/grow.h"
#include "mbx/profile.h"
#include "mbx/stats.h"
#include "passes_int.h"

struct mbx_passes {
    mbx_passes_opts o;
    mbx_pass *pass;
    size_t n, cap;
};

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

void mbx_passes_opts_init(mbx_passes_opts *o)
{
    if (o == NULL)
        return;
    o->eps = MBX_PASSES_DEFAULT_EPS;
    o->min_passes = MBX_PASSES_DEFAULT_MIN;
    o->min_span = MBX_PASSES_DEFAULT_SPAN;
    o->tau = 0.0;
    o->resolution = 0.0;
    o->kind = MBX_STOP_STDERR;
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
        !nonneg(d.min_span) || !nonneg(d.tau) || !nonneg(d.resolution) ||
        d.kind < MBX_STOP_STDERR || d.kind > MBX_STOP_FIXED)
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
 * With several levels the point follows, a unit is a whole visit (a
 * maximal run of passes on one level), whatever tau: the level persists
 * for its stay, so passes in one visit share it and count as one draw of
 * the run's level mix. A tau read off the probes measures the wobble
 * within a level (0.05 s where the stays last a second), and units of it
 * counted a visit's passes as draws: 8 passes in one visit of the slow
 * level outvoted the fast level the run spent two thirds of its time on,
 * and settled there. A pass of no known level (it straddled a change, or
 * ran after the last probe) joins the visit it follows: counted as a unit
 * of its own, each such pass made a draw of the mix, and a point with
 * three visits (slow, fast, slow) and three such passes settled on six
 * units, at the slow level. Without levels, passes within tau of the
 * unit's first start share the machine's state and are one unit. */
static int same_unit(const mbx_passes *p, int levels, const mbx_pass *f, const mbx_pass *q)
{
    if (levels)
        return q->level == f->level || q->level == MBX_PASSES_NO_LEVEL;
    return p->o.tau > 0.0 && q->t_start - f->t_start < p->o.tau;
}

/* A pass's level id and log median. */
typedef struct lvlog {
    int level;
    double y;
} lvlog;

static int cmp_lvlog(const void *a, const void *b)
{
    const lvlog *x = a, *y = b;
    if (x->level != y->level)
        return (x->level > y->level) - (x->level < y->level);
    return (x->y > y->y) - (x->y < y->y);
}

/* One level's passes: their count and the median of their log medians. */
typedef struct lvgroup {
    size_t n;
    double med;
} lvgroup;

/* The groups of v[0..n) (sorted by cmp_lvlog) into g, their count
 * returned; *sd is the passes' pooled sd within levels (the root mean
 * square of their logs about their level's median over the *dof degrees
 * of freedom; a MAD of 3 passes is 0 when two of them agree), NAN when
 * no level holds two passes. t holds n doubles. */
static size_t level_groups(const lvlog *v, size_t n, double *t, lvgroup *g, double *sd, size_t *dof)
{
    size_t ng = 0, df = 0;
    double ss = 0;
    for (size_t b = 0, e; b < n; b = e) {
        for (e = b; e < n && v[e].level == v[b].level; e++)
            t[e - b] = v[e].y;
        size_t k = e - b;
        double med = mbx_stats_quantile_sorted(t, k, 0.5);
        g[ng++] = (lvgroup){k, med};
        for (size_t i = 0; i < k; i++)
            ss += (t[i] - med) * (t[i] - med);
        df += k - 1;
    }
    *sd = df > 0 ? sqrt(ss / (double)df) : NAN;
    *dof = df;
    return ng;
}

/* Whether the point's levels matter for its error: 1 when the medians
 * of its passes at two of its levels differ by more than the target eps
 * (relative) and by more than Student's t (97.5 %, the pooled degrees of
 * freedom) standard errors of that difference (a median's, sqrt(pi / 2)
 * s / sqrt(n), s the passes' pooled spread within levels; with no level
 * of two passes, by eps alone). Levels that the point's own times do not
 * follow (a level of the monitor's probe that the point does not feel,
 * or one within its precision) cannot bias the value beyond the target,
 * so its passes stay units of their own instead of being pooled into a
 * few level visits (docs/algorithms.md, "Between-pass error"): 3 %
 * between two levels of 3 passes each, where one pass median spreads
 * 3 %, is their noise (t 2.78 on 4 degrees of freedom). The passes also
 * follow levels when they themselves spread over a level's least step
 * (MBX_PASSES_FELT_SHIFT; the second least and second greatest median:
 * one slow pass is a spike, not a stay), whatever ids they carry: a probe
 * segmentation that missed a stay labels its passes with the level
 * around it. */
static int levels_matter(const mbx_passes *p)
{
    lvlog *v = malloc(p->n * sizeof *v);
    double *t = malloc(p->n * sizeof *t);
    lvgroup *g = malloc(p->n * sizeof *g);
    if (!v || !t || !g) { /* out of memory: stay on the cautious side */
        free(v);
        free(t);
        free(g);
        return 1;
    }
    size_t n = 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->pass[i].level != MBX_PASSES_NO_LEVEL)
            v[n++] = (lvlog){p->pass[i].level, log(p->pass[i].median)};
    qsort(v, n, sizeof *v, cmp_lvlog);
    double sd;
    size_t df;
    size_t ng = level_groups(v, n, t, g, &sd, &df);
    double q = df > 0 ? mbx_profile_t_quantile(0.975, (double)df) : 0;
    int matter = 0;
    for (size_t i = 0; i < ng && !matter; i++)
        for (size_t j = i + 1; j < ng && !matter; j++) {
            double d = fabs(g[j].med - g[i].med);
            double se = 1.2533 * sd * sqrt(1.0 / (double)g[i].n + 1.0 / (double)g[j].n);
            matter = d > log1p(p->o.eps) && !(d <= q * se);
        }
    if (!matter && p->n >= 4) { /* t holds p->n doubles */
        for (size_t i = 0; i < p->n; i++)
            t[i] = p->pass[i].median;
        (void)mbx_stats_median_sort(t, p->n); /* sorts t */
        matter = t[p->n - 2] >= t[1] * (1.0 + MBX_PASSES_FELT_SHIFT);
    }
    free(v);
    free(t);
    free(g);
    return matter;
}

/* The between-pass statistics of p into r->b, with m holding 2 p->n
 * doubles. The units are the groups of same_unit (a pass without a level
 * id joins the visit before it); the spread is taken over unit medians, while
 * the value stays the median of all pass medians. */
static int between_units(const mbx_passes *p, double *m, mbx_passes_result *r)
{
    for (size_t i = 0; i < p->n; i++)
        m[i] = p->pass[i].median;
    r->units = p->n;
    int levels = r->nlevels >= 2 && levels_matter(p);
    if (!levels && !(p->o.tau > 0.0))
        return mbx_passes_between_res(m, p->n, p->o.resolution, 0.95, m + p->n, &r->b);
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
    rc = mbx_passes_between_res(m, nv, p->o.resolution, 0.95, m + p->n, &r->b);
    if (rc != MBX_OK)
        return rc;
    r->b.r = p->n;
    r->b.value = all.value;
    if (nv < 2 && p->n < 2) {
        r->b.ci_lo = r->b.ci_hi = all.value;
        return MBX_OK;
    }
    if (nv < 2) {
        /* Every pass within one unit (a fixed count run faster than the
         * machine's memory): no spread between units to read, so the
         * passes' own spread stands in, for the interval only. It
         * understates (they share the unit's state); the scheduler widens
         * it by the passes' design effect, and a point cannot settle on
         * it (units < R). Before, the row had a zero-width CI and no err. */
        for (size_t i = 0; i < p->n; i++)
            m[i] = p->pass[i].median;
        rc = mbx_passes_between_res(m, p->n, p->o.resolution, 0.95, m + p->n, &r->b);
        if (rc != MBX_OK)
            return rc;
        r->b.r = p->n;
        r->b.value = all.value;
        nv = p->n;
    }
    if (r->b.ci_lo > all.value)
        r->b.ci_lo = all.value;
    if (r->b.ci_hi < all.value)
        r->b.ci_hi = all.value;
    mbx_passes_set_errors(&r->b, nv, p->o.resolution);
    return MBX_OK;
}

/* The two-stage stop rule (docs/algorithms.md, "Optional stopping"):
 * the first min_passes units are the pilot, and their watched figure w
 * fixes once the units the point needs, R (w / eps)^2 (relerr and the CI
 * half-width shrink as 1 / sqrt(units)). Later units never move that
 * count, so a point does not stop on the look where its own error
 * estimate happened to dip under the target: stopping there selects the
 * points whose spread was under-estimated. m holds 2 p->n doubles. */
static size_t pilot_need(const mbx_passes *p, double *m)
{
    mbx_passes q = *p;
    mbx_passes_result r;
    /* Units only grow as passes are added in time order: the pilot is
     * the shortest prefix with min_passes units, found by bisection. */
    size_t lo = p->o.min_passes, hi = p->n;
    while (lo < hi) {
        q.n = lo + (hi - lo) / 2;
        memset(&r, 0, sizeof r);
        if (between_units(&q, m, &r) != MBX_OK)
            return SIZE_MAX;
        if (r.units >= p->o.min_passes)
            hi = q.n;
        else
            lo = q.n + 1;
    }
    q.n = lo;
    memset(&r, 0, sizeof r);
    if (between_units(&q, m, &r) != MBX_OK)
        return SIZE_MAX;
    /* The ci kind reads the pilot's half-width even where its level is
     * not exact yet: the final verdict still asks for an exact one. */
    double w = p->o.kind == MBX_STOP_CI ? r.b.cirel : mbx_passes_watched(p->o.kind, &r.b);
    if (!(w >= 0.0))
        return SIZE_MAX;
    double ratio = w / p->o.eps;
    double need = ratio < 1.0 ? (double)r.units : ceil((double)r.units * ratio * ratio);
    return need > (double)MBX_PASSES_MAX ? MBX_PASSES_MAX : (size_t)need;
}

/* Priority from a finished result (see the header). */
static double priority_of(const mbx_passes *p, const mbx_passes_result *r)
{
    if (r->verdict == MBX_PASSES_SETTLED)
        return 0.0;
    double w = mbx_passes_watched(p->o.kind, &r->b);
    if (r->b.r < 2 || !(w >= 0.0))
        return INFINITY;
    double ratio = w / p->o.eps;
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
        r.b.value = r.b.mad = r.b.sd = r.b.se = NAN;
        r.b.ci_lo = r.b.ci_hi = r.b.relerr = r.b.cirel = r.b.cv = NAN;
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
    if (rc == MBX_OK && r.units >= p->o.min_passes && p->o.kind != MBX_STOP_CV)
        r.pilot_need = pilot_need(p, m);
    free(m);
    if (rc != MBX_OK)
        return rc;

    if (r.units < p->o.min_passes)
        r.verdict = MBX_PASSES_FEW;
    else if (!(r.span >= p->o.min_span))
        r.verdict = MBX_PASSES_SHORT;
    else if (p->o.kind == MBX_STOP_CV
                 ? !(mbx_passes_watched(p->o.kind, &r.b) < p->o.eps)
                 : r.units < r.pilot_need ||
                       !(mbx_passes_watched(p->o.kind, &r.b) < MBX_PASSES_SETTLED_GUARD * p->o.eps))
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
    double w = mbx_passes_watched(p->o.kind, &r->b);
    if (r->b.r < 2 || !(w >= 0.0) || !(r->b.value > 0.0))
        return SIZE_MAX;
    size_t need = 0;
    double ratio = w / p->o.eps;
    /* The units' own spread (cv) does not shrink with more units. */
    if (ratio >= 1.0 && p->o.kind != MBX_STOP_CV) {
        /* relerr * sqrt(R / R') < eps needs R' > R * ratio^2. */
        double total = floor((double)r->b.r * ratio * ratio) + 1.0;
        if (total >= (double)MBX_PASSES_MAX)
            total = (double)MBX_PASSES_MAX;
        need = total > (double)r->b.r ? (size_t)total - r->b.r : 1;
    }
    if (r->units < p->o.min_passes && p->o.min_passes - r->units > need)
        need = p->o.min_passes - r->units;
    if (p->o.kind != MBX_STOP_CV && r->pilot_need > r->units && r->pilot_need != SIZE_MAX)
        need = r->pilot_need - r->units;
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
