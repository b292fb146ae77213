/* Adaptive refinement of one measured curve (see mbx/refine.h and
 * docs/algorithms.md, "Adaptive refinement").
 *
 * The points live in one array sorted by x; segment i joins points i and
 * i + 1. Every call to mbx_refine_next recomputes all segment errors in one
 * pass and takes the worst eligible one, scanning left to right with a
 * strict comparison, so equal errors go to the smallest x: exactly the
 * order a priority queue with that tie rule would give, without keeping one
 * in step with insertions. Outstanding proposals are a short unsorted list;
 * a segment is pending while one of them lies strictly inside it.
 *
 * A segment's judgement needs its own points and two more on either side
 * (the neighbours' lines, and whether those neighbours are steps), so it is
 * recomputed from the arrays each time: a point measured again (a later
 * pass) needs no bookkeeping beyond replacing its y and se. */
#include "mbx/refine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One recorded point: se is the standard error of y (0: exact), df its
 * degrees of freedom (INFINITY: known), ready whether it may be judged
 * (enough passes, docs/algorithms.md "Refinement with uncertainty"). */
typedef struct {
    uint64_t x;
    double y, se, df;
    int ready;
} pt;

struct mbx_refine {
    mbx_refine_opts opts;
    pt *p; /* ascending x, no duplicates */
    size_t n, cap;
    uint64_t *pend; /* proposals not yet added, any order; room for cap */
    size_t npend;
    size_t proposed;
    double alpha_each; /* the per-test level (set_level) */
};

/* An unsigned 128-bit value: the split point must be exact for x up to
 * 2^64 - 1, where a * b needs 128 bits. Built by hand because ISO C has no
 * 128-bit type. */
typedef struct {
    uint64_t hi, lo;
} u128;

static u128 mul64(uint64_t a, uint64_t b)
{
    uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    u128 r;
    r.lo = (mid << 32) | (p00 & 0xffffffffu);
    r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    return r;
}

static u128 add64(u128 a, uint64_t b)
{
    a.lo += b;
    a.hi += a.lo < b;
    return a;
}

static u128 sub64(u128 a, uint64_t b)
{
    a.hi -= a.lo < b;
    a.lo -= b;
    return a;
}

static int cmp128(u128 a, u128 b)
{
    if (a.hi != b.hi)
        return a.hi < b.hi ? -1 : 1;
    return (a.lo > b.lo) - (a.lo < b.lo);
}

/* round(sqrt(a b)), exactly. The nearest integer r to sqrt(P) satisfies
 * r (r - 1) < P <= r (r + 1) (P is an integer and never a quarter), so a
 * floating-point estimate is corrected by whole steps against exact
 * products. */
static uint64_t geo_mean(uint64_t a, uint64_t b)
{
    u128 p = mul64(a, b);
    long double s = sqrtl((long double)a * (long double)b);
    uint64_t r = s >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)(s + 0.5L);
    while (r < UINT64_MAX && cmp128(add64(mul64(r, r), r), p) < 0)
        r++; /* r (r + 1) < P: too small */
    while (r > 0 && cmp128(sub64(mul64(r, r), r), p) >= 0)
        r--; /* r (r - 1) >= P: too large */
    return r;
}

/* The aligned x strictly inside (a, b) that splits the segment, or 0 when
 * there is none (0 is never strictly inside, since a >= 0). */
static uint64_t split_point(const mbx_refine *r, uint64_t a, uint64_t b)
{
    uint64_t al = r->opts.align;
    uint64_t d = b - a;
    /* Narrow enough: a step (a protocol switch) is located to min_ratio. */
    if (r->opts.min_ratio > 1.0 && (long double)b < (long double)a * r->opts.min_ratio)
        return 0;
    uint64_t m = r->opts.geometric ? geo_mean(a, b) : a + d / 2 + (d & 1);
    uint64_t down = m - m % al;
    if (down > a && down < b)
        return down;
    if (down <= UINT64_MAX - al && down + al > a && down + al < b)
        return down + al;
    return 0;
}

double mbx_refine_loglog(uint64_t x0, double y0, uint64_t x1, double y1, uint64_t x)
{
    if (x0 == 0 || x1 == 0 || x == 0 || x0 == x1 || !(y0 > 0) || !(y1 > 0))
        return NAN;
    double w = (log((double)x) - log((double)x0)) / (log((double)x1) - log((double)x0));
    return exp((1.0 - w) * log(y0) + w * log(y1));
}

double mbx_refine_interp_err(uint64_t x0, double y0, uint64_t x1, double y1, uint64_t x, double y)
{
    double p = mbx_refine_loglog(x0, y0, x1, y1, x);
    return isnan(p) || !(y > 0) ? NAN : fabs(p - y) / y;
}

/* P(|T| >= t) for Student's t with df degrees of freedom, from the finite
 * series of the distribution function for integer df (df is rounded down,
 * which only raises the p-value; above 200 the series at 200 is used, as
 * conservative); df infinite: the normal tail. */
static double t_p_two_sided(double t, double df)
{
    if (!(t > 0))
        return 1.0;
    if (isinf(t))
        return 0.0;
    if (isinf(df))
        return erfc(t / sqrt(2.0));
    int n = df > 200.0 ? 200 : (int)df;
    if (n < 1)
        return 1.0;
    double th = atan(t / sqrt((double)n)), c2 = cos(th) * cos(th), a;
    double term = 1.0, sum = 1.0;
    if (n % 2 == 0) {
        for (int k = 2; k <= n - 2; k += 2)
            sum += (term *= c2 * (k - 1) / k);
        a = sin(th) * sum;
    } else {
        for (int k = 3; k <= n - 2; k += 2)
            sum += (term *= c2 * (k - 1) / k);
        a = (2.0 / 3.141592653589793) * (th + (n > 1 ? sin(th) * cos(th) * sum : 0.0));
    }
    return a >= 1.0 ? 0.0 : 1.0 - a;
}

/* Point m judged against the log-log interpolation of its neighbours:
 * e the relative interpolation error (mbx_refine_interp_err), p the
 * two-sided p-value of the deviation in log y over its standard error,
 * ready whether all three points may be judged at all (mbx/refine.h). */
typedef struct {
    double e, p;
    int ready;
} side;

static side judge(const mbx_refine *r, size_t m)
{
    side s = {0.0, 1.0, 0};
    const pt *a = &r->p[m - 1], *b = &r->p[m], *c = &r->p[m + 1];
    s.e = mbx_refine_interp_err(a->x, a->y, c->x, c->y, b->x, b->y);
    if (isnan(s.e)) {
        s.e = 0.0; /* x = 0 has no log: nothing to judge */
        return s;
    }
    s.ready = a->ready && b->ready && c->ready;
    double w = (log((double)b->x) - log((double)a->x)) / (log((double)c->x) - log((double)a->x));
    double d = log(b->y) - ((1.0 - w) * log(a->y) + w * log(c->y));
    /* Relative standard errors are those of log y; Welch-Satterthwaite
     * degrees of freedom of the combination (infinite for known errors). */
    double k[3] = {1.0 - w, 1.0, w}, v = 0.0, q = 0.0;
    const pt *t[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        double s2 = k[i] * k[i] * (t[i]->se / t[i]->y) * (t[i]->se / t[i]->y);
        v += s2;
        if (!isinf(t[i]->df) && s2 > 0)
            q += s2 * s2 / t[i]->df;
    }
    if (v == 0.0)
        s.p = d == 0.0 ? 1.0 : 0.0;
    else
        s.p = t_p_two_sided(fabs(d) / sqrt(v), q > 0 ? v * v / q : INFINITY);
    return s;
}

/* Beyond both eps and the threshold: this side cannot vouch for the
 * segment. The threshold is alpha over the points tested this round
 * (Bonferroni), so a straight curve splits in at most alpha of the rounds. */
static int off(const mbx_refine *r, side s)
{
    return s.ready && s.e >= r->opts.eps && s.p < r->alpha_each;
}

static long double chord(const mbx_refine *r, size_t i)
{
    return ((long double)log(r->p[i + 1].y) - log(r->p[i].y)) /
           ((long double)log((double)r->p[i + 1].x) - log((double)r->p[i].x));
}

/* Segment i (points i and i + 1) is a step: both neighbours' lines miss
 * it, and its chord (log-log) is steeper (or shallower) than both
 * neighbours' slopes, so no straight piece joins it to either side. A
 * kink's chord lies between the neighbouring slopes. */
static int is_step(const mbx_refine *r, size_t i)
{
    if (i < 1 || i + 2 >= r->n)
        return 0;
    if (!off(r, judge(r, i)) || !off(r, judge(r, i + 1)))
        return 0;
    long double c = chord(r, i), sl = chord(r, i - 1), sr = chord(r, i + 1);
    return (c > sl && c > sr) || (c < sl && c < sr);
}

/* Error of segment i (n >= 2) and whether it needs a split: the smaller
 * error of the sides it may use, needed when every usable side is off. */
static double seg_err(const mbx_refine *r, size_t i, int *need)
{
    int step = is_step(r, i);
    int left = i >= 1 && (step || !is_step(r, i - 1));
    int right = i + 2 < r->n && (step || !is_step(r, i + 1));
    double e = 0.0;
    int n = 1;
    if (left) {
        side s = judge(r, i);
        e = s.e;
        n = off(r, s);
    }
    if (right) {
        side s = judge(r, i + 1);
        e = left && e < s.e ? e : s.e;
        n = n && off(r, s);
    }
    if (need != NULL)
        *need = (left || right) && n;
    return e; /* 0 with no usable neighbour: nothing to predict from */
}

/* The per-test level of this round: alpha over the points that can be
 * tested now (ready, with their neighbours, off x = 0). */
static void set_level(mbx_refine *r)
{
    size_t m = 0;
    for (size_t i = 1; i + 1 < r->n; i++)
        m += (size_t)(r->p[i - 1].x > 0 && judge(r, i).ready);
    r->alpha_each = r->opts.alpha / (double)(m ? m : 1);
}

static int seg_pending(const mbx_refine *r, size_t i)
{
    for (size_t k = 0; k < r->npend; k++)
        if (r->pend[k] > r->p[i].x && r->pend[k] < r->p[i + 1].x)
            return 1;
    return 0;
}

int mbx_refine_create(const mbx_refine_opts *opts, mbx_refine **out)
{
    if (opts == NULL || out == NULL || !isfinite(opts->eps) || !(opts->eps > 0) ||
        !(opts->alpha >= 0 && opts->alpha < 1))
        return MBX_E_INVAL;
    mbx_refine *r = calloc(1, sizeof *r);
    if (r == NULL)
        return MBX_E_NOMEM;
    r->opts = *opts;
    if (r->opts.align == 0)
        r->opts.align = 1;
    if (r->opts.alpha == 0)
        r->opts.alpha = MBX_REFINE_ALPHA;
    if (r->opts.min_passes == 0)
        r->opts.min_passes = MBX_REFINE_MIN_PASSES;
    r->alpha_each = r->opts.alpha;
    *out = r;
    return MBX_OK;
}

void mbx_refine_free(mbx_refine *r)
{
    if (r == NULL)
        return;
    free(r->p);
    free(r->pend);
    free(r);
}

static int grow(mbx_refine *r)
{
    if (r->n < r->cap)
        return MBX_OK;
    size_t cap = r->cap ? 2 * r->cap : 32;
    pt *p = realloc(r->p, cap * sizeof *p);
    if (p == NULL)
        return MBX_E_NOMEM;
    r->p = p;
    /* Outstanding proposals lie in distinct segments, so there are fewer
     * than points; reserving here keeps mbx_refine_next free of failures. */
    uint64_t *q = realloc(r->pend, cap * sizeof *q);
    if (q == NULL)
        return MBX_E_NOMEM;
    r->pend = q;
    r->cap = cap;
    return MBX_OK;
}

/* Insert or replace the point at v.x; complete its proposal. */
static int put(mbx_refine *r, pt v)
{
    size_t lo = 0, hi = r->n; /* first index with x >= v.x */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->p[mid].x < v.x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == r->n || r->p[lo].x != v.x) {
        int rc = grow(r);
        if (rc != MBX_OK)
            return rc;
        memmove(r->p + lo + 1, r->p + lo, (r->n - lo) * sizeof *r->p);
        r->n++;
    }
    r->p[lo] = v;
    for (size_t k = 0; k < r->npend; k++)
        if (r->pend[k] == v.x) {
            r->pend[k] = r->pend[--r->npend];
            break;
        }
    set_level(r);
    return MBX_OK;
}

int mbx_refine_add(mbx_refine *r, uint64_t x, double y)
{
    return mbx_refine_add_se(r, x, y, 0.0);
}

int mbx_refine_add_se(mbx_refine *r, uint64_t x, double y, double se)
{
    if (isnan(se))
        se = 0.0;
    if (r == NULL || !isfinite(y) || !(y > 0) || !isfinite(se) || se < 0)
        return MBX_E_INVAL;
    pt v = {x, y, se, INFINITY, 1};
    return put(r, v);
}

int mbx_refine_add_est(mbx_refine *r, uint64_t x, double y, double se, size_t passes, double df)
{
    if (r == NULL || !isfinite(y) || !(y > 0) || !(se >= 0) || !isfinite(se) || !(df >= 1))
        return MBX_E_INVAL;
    pt v = {x, y, se, df, passes >= r->opts.min_passes};
    return put(r, v);
}

int mbx_refine_next(mbx_refine *r, uint64_t *x, double *err)
{
    if (r == NULL || x == NULL || r->proposed >= r->opts.budget || r->n < 2)
        return 0;
    uint64_t best_x = 0;
    double best_e = -1.0;
    for (size_t i = 0; i + 1 < r->n; i++) {
        int need = 0;
        double e = seg_err(r, i, &need);
        if (!need || !(e > best_e) || seg_pending(r, i))
            continue;
        uint64_t s = split_point(r, r->p[i].x, r->p[i + 1].x);
        if (s == 0)
            continue;
        best_x = s;
        best_e = e;
    }
    if (best_e < 0)
        return 0; /* nothing needs a split (a need implies e >= eps) */
    r->pend[r->npend++] = best_x;
    r->proposed++;
    *x = best_x;
    if (err != NULL)
        *err = best_e;
    return 1;
}

static double worst(const mbx_refine *r, int splittable_only)
{
    double w = 0.0;
    for (size_t i = 0; i + 1 < r->n; i++) {
        double e = seg_err(r, i, NULL);
        if (e > w && (!splittable_only || split_point(r, r->p[i].x, r->p[i + 1].x) != 0))
            w = e;
    }
    return w;
}

double mbx_refine_worst(const mbx_refine *r)
{
    return worst(r, 1);
}

double mbx_refine_worst_any(const mbx_refine *r)
{
    return worst(r, 0);
}

size_t mbx_refine_count(const mbx_refine *r)
{
    return r->n;
}

size_t mbx_refine_proposed(const mbx_refine *r)
{
    return r->proposed;
}

void mbx_refine_points(const mbx_refine *r, uint64_t *x, double *y)
{
    mbx_refine_points_se(r, x, y, NULL);
}

void mbx_refine_points_se(const mbx_refine *r, uint64_t *x, double *y, double *se)
{
    for (size_t i = 0; i < r->n; i++) {
        if (x != NULL)
            x[i] = r->p[i].x;
        if (y != NULL)
            y[i] = r->p[i].y;
        if (se != NULL)
            se[i] = r->p[i].se;
    }
}

int mbx_refine_is_step(const mbx_refine *r, size_t i)
{
    return r != NULL && i + 1 < r->n && is_step(r, i);
}
