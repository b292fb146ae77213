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

struct mbx_refine {
    mbx_refine_opts opts;
    uint64_t *x; /* ascending, no duplicates */
    double *y;
    double *se; /* standard error of y; 0 when unknown */
    size_t n, cap;
    uint64_t *pend; /* proposals not yet added, any order; room for cap */
    size_t npend;
    size_t proposed;
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

/* The line through points j and k predicts point m: the relative error
 * |p - y_m| / y_m and the relative standard deviation of the residual p -
 * y_m (mbx/refine.h gives the formula). */
typedef struct {
    double e, u;
} side;

static side predict(const mbx_refine *r, size_t j, size_t k, size_t m)
{
    long double xj = (long double)r->x[j], xk = (long double)r->x[k];
    long double t = ((long double)r->x[m] - xk) / (xk - xj);
    long double pred = (1.0L + t) * r->y[k] - t * r->y[j];
    long double sk = r->se[k], sj = r->se[j], sm = r->se[m];
    long double v = (1.0L + t) * (1.0L + t) * sk * sk + t * t * sj * sj + sm * sm;
    side s = {(double)(fabsl(pred - r->y[m]) / r->y[m]), (double)(sqrtl(v) / r->y[m])};
    return s;
}

/* Outside both eps and noise_k times the uncertainty: this side cannot
 * vouch for the segment. */
static int off(const mbx_refine *r, side s)
{
    return s.e >= r->opts.eps && s.e > r->opts.noise_k * s.u;
}

static long double chord(const mbx_refine *r, size_t i)
{
    return ((long double)r->y[i + 1] - r->y[i]) / ((long double)r->x[i + 1] - (long double)r->x[i]);
}

/* Segment i (points i and i + 1) is a step: both neighbours' lines miss
 * it, and its chord is steeper (or shallower) than both neighbours' slopes,
 * so no straight piece joins it to either side. A kink's chord lies
 * between the neighbouring slopes. */
static int is_step(const mbx_refine *r, size_t i)
{
    if (i < 1 || i + 2 >= r->n)
        return 0;
    if (!off(r, predict(r, i - 1, i, i + 1)) || !off(r, predict(r, i + 2, i + 1, i)))
        return 0;
    long double c = chord(r, i), sl = chord(r, i - 1), sr = chord(r, i + 1);
    return (c > sl && c > sr) || (c < sl && c < sr);
}

/* Error of segment i (n >= 2) and whether it needs a split: the smaller
 * error of the sides it may use, needed when no usable side is consistent. */
static double seg_err(const mbx_refine *r, size_t i, int *need)
{
    int step = is_step(r, i);
    int left = i >= 1 && (step || !is_step(r, i - 1));
    int right = i + 2 < r->n && (step || !is_step(r, i + 1));
    double e = 0.0;
    int n = 1;
    if (left) {
        side s = predict(r, i - 1, i, i + 1);
        e = s.e;
        n = off(r, s);
    }
    if (right) {
        side s = predict(r, i + 2, i + 1, i);
        e = left && e < s.e ? e : s.e;
        n = n && off(r, s);
    }
    if (need != NULL)
        *need = (left || right) && n;
    return e; /* 0 with no usable neighbour: nothing to predict from */
}

static int seg_pending(const mbx_refine *r, size_t i)
{
    for (size_t k = 0; k < r->npend; k++)
        if (r->pend[k] > r->x[i] && r->pend[k] < r->x[i + 1])
            return 1;
    return 0;
}

int mbx_refine_create(const mbx_refine_opts *opts, mbx_refine **out)
{
    if (opts == NULL || out == NULL || !isfinite(opts->eps) || !(opts->eps > 0) ||
        !isfinite(opts->noise_k) || opts->noise_k < 0)
        return MBX_E_INVAL;
    mbx_refine *r = calloc(1, sizeof *r);
    if (r == NULL)
        return MBX_E_NOMEM;
    r->opts = *opts;
    if (r->opts.align == 0)
        r->opts.align = 1;
    if (r->opts.noise_k == 0)
        r->opts.noise_k = MBX_REFINE_NOISE_K;
    *out = r;
    return MBX_OK;
}

void mbx_refine_free(mbx_refine *r)
{
    if (r == NULL)
        return;
    free(r->x);
    free(r->y);
    free(r->se);
    free(r->pend);
    free(r);
}

static int grow(mbx_refine *r)
{
    if (r->n < r->cap)
        return MBX_OK;
    size_t cap = r->cap ? 2 * r->cap : 32;
    uint64_t *x = realloc(r->x, cap * sizeof *x);
    if (x == NULL)
        return MBX_E_NOMEM;
    r->x = x;
    double *y = realloc(r->y, cap * sizeof *y);
    if (y == NULL)
        return MBX_E_NOMEM;
    r->y = y;
    double *se = realloc(r->se, cap * sizeof *se);
    if (se == NULL)
        return MBX_E_NOMEM;
    r->se = se;
    /* Outstanding proposals lie in distinct segments, so there are fewer
     * than points; reserving here keeps mbx_refine_next free of failures. */
    uint64_t *p = realloc(r->pend, cap * sizeof *p);
    if (p == NULL)
        return MBX_E_NOMEM;
    r->pend = p;
    r->cap = cap;
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
    size_t lo = 0, hi = r->n; /* first index with r->x[i] >= x */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->x[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < r->n && r->x[lo] == x) {
        r->y[lo] = y;
        r->se[lo] = se;
    } else {
        int rc = grow(r);
        if (rc != MBX_OK)
            return rc;
        for (size_t i = r->n; i > lo; i--) {
            r->x[i] = r->x[i - 1];
            r->y[i] = r->y[i - 1];
            r->se[i] = r->se[i - 1];
        }
        r->x[lo] = x;
        r->y[lo] = y;
        r->se[lo] = se;
        r->n++;
    }
    for (size_t k = 0; k < r->npend; k++)
        if (r->pend[k] == x) {
            r->pend[k] = r->pend[--r->npend];
            break;
        }
    return MBX_OK;
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
        uint64_t s = split_point(r, r->x[i], r->x[i + 1]);
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
        if (e > w && (!splittable_only || split_point(r, r->x[i], r->x[i + 1]) != 0))
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
            x[i] = r->x[i];
        if (y != NULL)
            y[i] = r->y[i];
        if (se != NULL)
            se[i] = r->se[i];
    }
}

int mbx_refine_is_step(const mbx_refine *r, size_t i)
{
    return r != NULL && i + 1 < r->n && is_step(r, i);
}
