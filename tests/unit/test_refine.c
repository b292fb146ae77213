/* Adaptive refinement against synthetic curves: straight log-log lines
 * (power laws) need nothing,
 * kinks and protocol steps draw the proposals to them, a realistic latency
 * curve is covered with fewer points than a fixed sqrt(2) grid, and the
 * bookkeeping (alignment, pending proposals, budget, input checks) holds.
 * Expected split points of large x come from Python's math.isqrt. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/refine.h"

#define KIB 1024u
#define MIB (1024u * 1024u)
#define MAXPTS 512

typedef double (*curve_fn)(double x);

static mbx_refine *make(double eps, size_t budget, uint64_t align, int geometric)
{
    mbx_refine_opts o = {.eps = eps, .budget = budget, .align = align, .geometric = geometric};
    mbx_refine *r = NULL;
    assert_int_equal(mbx_refine_create(&o, &r), MBX_OK);
    assert_non_null(r);
    return r;
}

/* lo, lo f, lo f^2, ... below hi, then hi. */
static void add_grid(mbx_refine *r, curve_fn f, uint64_t lo, uint64_t hi, uint64_t factor)
{
    for (uint64_t x = lo; x < hi; x *= factor)
        assert_int_equal(mbx_refine_add(r, x, f((double)x)), MBX_OK);
    assert_int_equal(mbx_refine_add(r, hi, f((double)hi)), MBX_OK);
}

static size_t points(const mbx_refine *r, uint64_t *x, double *y)
{
    size_t n = mbx_refine_count(r);
    assert_true(n <= MAXPTS);
    mbx_refine_points(r, x, y);
    return n;
}

/* Propose, measure the curve, add, until done. Every proposal must lie
 * strictly between two neighbouring measured points; lo and hi (if given)
 * receive the first proposal's segment. Returns the number of proposals. */
static size_t refine(mbx_refine *r, curve_fn f, uint64_t *props, size_t max, uint64_t *lo,
                     uint64_t *hi)
{
    uint64_t x[MAXPTS], p;
    size_t k = 0;
    while (mbx_refine_next(r, &p, NULL)) {
        size_t n = points(r, x, NULL), i = 0;
        while (i < n && x[i] < p)
            i++;
        assert_true(i > 0 && i < n); /* inside the measured range */
        assert_true(x[i] > p);       /* not a measured x: strictly inside */
        if (k == 0 && lo != NULL && hi != NULL) {
            *lo = x[i - 1];
            *hi = x[i];
        }
        assert_true(k < max);
        props[k++] = p;
        assert_int_equal(mbx_refine_add(r, p, f((double)p)), MBX_OK);
    }
    assert_int_equal(mbx_refine_proposed(r), k);
    return k;
}

/* Worst relative error of log-log interpolation (the criterion itself,
 * mbx_refine_interp_err) through (x_i, f(x_i)) against f, at 63 sizes
 * spread geometrically inside each segment. */
static double true_err(const uint64_t *x, size_t n, curve_fn f)
{
    double w = 0.0;
    for (size_t i = 0; i + 1 < n; i++) {
        double a = (double)x[i], b = (double)x[i + 1];
        for (int j = 1; j < 64; j++) {
            uint64_t xs = (uint64_t)llround(a * pow(b / a, j / 64.0));
            if (xs <= x[i] || xs >= x[i + 1])
                continue;
            double e = mbx_refine_interp_err(x[i], f(a), x[i + 1], f(b), xs, f((double)xs));
            w = e > w ? e : w;
        }
    }
    return w;
}

static double line(double x)
{
    return 2e-6 * pow(x, 0.4);
}

/* A power law is predicted exactly from either side: nothing to do. */
static void linear_needs_nothing(void **state)
{
    (void)state;
    mbx_refine *r = make(1e-6, 100, 1, 1);
    add_grid(r, line, 1, 4 * MIB, 2);
    assert_int_equal(mbx_refine_count(r), 23);
    assert_true(mbx_refine_worst_any(r) < 1e-9);
    assert_true(mbx_refine_worst(r) < 1e-9);
    uint64_t p = 0;
    assert_int_equal(mbx_refine_next(r, &p, NULL), 0);
    assert_int_equal(mbx_refine_proposed(r), 0);
    mbx_refine_free(r);
}

/* Log-log slope 0.2, then 0.9 beyond the kink; continuous. */
static double kink_at(double x, double k)
{
    double base = 1e-6 * pow(x, 0.2);
    return x <= k ? base : base * pow(x / k, 0.7);
}

static double kink8k(double x)
{
    return kink_at(x, 8192.0);
}

static double kink10k(double x)
{
    return kink_at(x, 10000.0);
}

/* On the factor-4 grid the kink at 8 KiB sits inside [4 KiB, 16 KiB]; every
 * other segment has a neighbour on its own straight piece and error ~0. */
static void kink_draws_proposals(void **state)
{
    (void)state;
    uint64_t props[32], lo = 0, hi = 0;
    mbx_refine *r = make(0.01, 20, 1, 1);
    add_grid(r, kink8k, 1, 4 * MIB, 4);
    assert_true(mbx_refine_worst_any(r) > 0.01);
    size_t k = refine(r, kink8k, props, 32, &lo, &hi);
    /* The geometric mean of 4 KiB and 16 KiB is the kink itself; once it is
     * measured, both pieces are straight lines between measured points. */
    assert_int_equal(k, 1);
    assert_int_equal(props[0], 8192);
    assert_true(mbx_refine_worst_any(r) < 1e-9);
    mbx_refine_free(r);

    /* A kink off the grid's midpoints: proposals close in on it and never
     * stray from the bracketing grid neighbours. */
    r = make(0.01, 20, 1, 1);
    add_grid(r, kink10k, 1, 4 * MIB, 4);
    k = refine(r, kink10k, props, 32, &lo, &hi);
    assert_true(k >= 2 && k <= 20);
    assert_true(lo < 10000 && hi > 10000); /* first split: the kink's segment */
    for (size_t i = 0; i < k; i++)
        assert_true(props[i] > 2 * KIB && props[i] < 32 * KIB);
    assert_true(mbx_refine_worst_any(r) < 0.01);
    mbx_refine_free(r);
}

/* Eager below 8 KiB, rendezvous (3x slower) from 8 KiB on. */
static double step8k(double x)
{
    double base = 2e-6 * pow(x, 0.1);
    return x < 8192.0 ? base : 3.0 * base;
}

/* The step's segment keeps a large error however short it gets, so
 * refinement bisects it (in log x) down to adjacent integers. */
static void step_is_bracketed(void **state)
{
    (void)state;
    uint64_t props[32], x[MAXPTS];
    mbx_refine *r = make(0.01, 20, 1, 1);
    add_grid(r, step8k, 1, 4 * MIB, 2);
    size_t k = refine(r, step8k, props, 32, NULL, NULL);
    assert_true(k >= 1 && k <= 20);
    size_t n = points(r, x, NULL);
    int bracketed = 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (x[i] < 8192 && x[i + 1] >= 8192 && (double)x[i + 1] <= 1.1 * (double)x[i])
            bracketed = 1;
    assert_true(bracketed);
    /* Twenty halvings of the log ratio are plenty: the step is pinned to
     * neighbouring integers, which cannot be split, so refinement ended
     * before the budget with the step's error still large. */
    assert_true(k < 20);
    uint64_t *at = x;
    while (*at != 8192)
        at++;
    assert_int_equal(at[-1], 8191);
    assert_true(mbx_refine_worst_any(r) > 0.5);
    assert_true(mbx_refine_worst(r) < 0.01);
    mbx_refine_free(r);
}

/* Latency of a point-to-point message: eager (1 us + x / 5 GB/s) blending
 * smoothly around 64 KiB into rendezvous (15 us + x / 8 GB/s). */
static double latency(double x)
{
    double lo = 1e-6 + x / 5e9, hi = 15e-6 + x / 8e9;
    double q = 65536.0 / x, w = 1.0 / (1.0 + q * q * q * q);
    return (1.0 - w) * lo + w * hi;
}

static void fewer_points_than_fixed_grid(void **state)
{
    (void)state;
    const double eps = 0.05;
    uint64_t props[256], x[MAXPTS], g[64];

    /* The fixed grid: round(2^(k/2)) for k = 0..44 (2^22 = 4 MiB), dedup. */
    size_t ng = 0;
    for (int e = 0; e <= 44; e++) {
        uint64_t v = (uint64_t)llround(pow(2.0, e / 2.0));
        if (ng == 0 || g[ng - 1] != v)
            g[ng++] = v;
    }
    assert_int_equal(g[ng - 1], 4 * MIB);

    mbx_refine *r = make(eps, 200, 1, 1);
    add_grid(r, latency, 1, 4 * MIB, 4);
    size_t k = refine(r, latency, props, 256, NULL, NULL);
    assert_true(k > 0 && k < 200); /* stopped by eps, not by the budget */
    size_t n = points(r, x, NULL);
    assert_true(mbx_refine_worst_any(r) < eps);
    assert_true(n < ng);

    double te_refined = true_err(x, n, latency), te_grid = true_err(g, ng, latency);
    printf("refine eps=%.2f: %zu points (12 grid + %zu proposed), worst estimated %.4f, "
           "worst true %.4f\n",
           eps, n, k, mbx_refine_worst_any(r), te_refined);
    printf("fixed sqrt(2) grid: %zu points, worst true %.4f\n", ng, te_grid);
    assert_true(te_refined < 2 * eps);
    mbx_refine_free(r);
}

static double procs_kink(double p)
{
    return p <= 24.0 ? 1e-6 * p : 24e-6 * (p / 24.0) * (p / 24.0);
}

static double procs_tree(double p)
{
    return 1e-6 * p * log2(p) + 1e-6;
}

/* Over process counts: arithmetic means, integers strictly inside, adjacent
 * integers never split, the budget honoured exactly. */
static void arithmetic_process_counts(void **state)
{
    (void)state;
    uint64_t props[128], x[MAXPTS], lo = 0, hi = 0;
    mbx_refine *r = make(1e-3, 10, 1, 0);
    add_grid(r, procs_kink, 2, 64, 2);
    size_t k = refine(r, procs_kink, props, 128, &lo, &hi);
    /* (16 + 32) / 2 is the kink; the end segment [32, 64] sees only point
     * 32, which the kink throws off the line through 16 and 64, so it is
     * split too (48); then all is straight. */
    assert_int_equal(k, 2);
    assert_int_equal(props[0] + props[1], 24 + 48);
    assert_true(props[0] == 24 || props[0] == 48);
    mbx_refine_free(r);

    /* A convex curve with no straight piece: a small budget is the limit. */
    r = make(1e-9, 5, 1, 0);
    add_grid(r, procs_tree, 2, 64, 2);
    k = refine(r, procs_tree, props, 128, NULL, NULL);
    assert_int_equal(k, 5);
    uint64_t p;
    assert_int_equal(mbx_refine_next(r, &p, NULL), 0);
    assert_int_equal(mbx_refine_proposed(r), 5);
    mbx_refine_free(r);

    /* A large budget: refinement runs until only adjacent integers are left,
     * i.e. every P in 2..64 is measured once and nothing more. */
    r = make(1e-9, 100, 1, 0);
    add_grid(r, procs_tree, 2, 64, 2);
    k = refine(r, procs_tree, props, 128, NULL, NULL);
    assert_int_equal(k, 63 - 6);
    assert_int_equal(points(r, x, NULL), 63);
    for (size_t i = 0; i < 63; i++)
        assert_int_equal(x[i], i + 2);
    assert_true(mbx_refine_worst(r) == 0.0);
    assert_true(mbx_refine_worst_any(r) > 1e-9);
    mbx_refine_free(r);
}

static double bumpy(double x)
{
    return 1e-6 + 1e-9 * sqrt(x) + x / 1e10;
}

static void alignment(void **state)
{
    (void)state;
    uint64_t props[64], p = 0;
    double e = 0.0;
    mbx_refine *r = make(1e-4, 30, 4, 1);
    add_grid(r, bumpy, 4, 1 * MIB, 4);
    size_t k = refine(r, bumpy, props, 64, NULL, NULL);
    assert_true(k > 0);
    for (size_t i = 0; i < k; i++)
        assert_int_equal(props[i] % 4, 0);
    mbx_refine_free(r);

    /* 4, 8, 12 bend sharply, but with align 4 no multiple of 4 lies
     * strictly inside either segment (sqrt(32) -> 6 -> 4 or 8). */
    for (int geometric = 0; geometric <= 1; geometric++) {
        r = make(1e-3, 10, 4, geometric);
        assert_int_equal(mbx_refine_add(r, 4, 1.0), MBX_OK);
        assert_int_equal(mbx_refine_add(r, 8, 2.0), MBX_OK);
        assert_int_equal(mbx_refine_add(r, 12, 5.0), MBX_OK);
        assert_int_equal(mbx_refine_next(r, &p, NULL), 0);
        assert_true(mbx_refine_worst(r) == 0.0);
        assert_true(mbx_refine_worst_any(r) > 0.3);
        mbx_refine_free(r);
    }

    /* The same points with align 0 (taken as 1) are split: point 8 is the
     * one judged (the log-log line through 4 and 12 gives 5^0.631 = 2.76
     * there), so both segments have its error 0.38: [4, 8] first (the tie
     * goes to the smaller x), at sqrt(32) -> 6; then [8, 12], at sqrt(96)
     * -> 10. */
    double e8 = mbx_refine_interp_err(4, 1.0, 12, 5.0, 8, 2.0);
    assert_true(e8 > 0.37 && e8 < 0.39);
    r = make(1e-3, 10, 0, 1);
    assert_int_equal(mbx_refine_add(r, 4, 1.0), MBX_OK);
    assert_int_equal(mbx_refine_add(r, 8, 2.0), MBX_OK);
    assert_int_equal(mbx_refine_add(r, 12, 5.0), MBX_OK);
    assert_int_equal(mbx_refine_next(r, &p, &e), 1);
    assert_int_equal(p, 6);
    assert_true(fabs(e - e8) < 1e-12);
    assert_int_equal(mbx_refine_next(r, &p, &e), 1);
    assert_int_equal(p, 10);
    assert_true(fabs(e - e8) < 1e-12);
    mbx_refine_free(r);

    /* Aligned down falls on the segment's end, aligned up is inside:
     * [5, 9] splits at sqrt(45) -> 7 -> 4 (not inside) -> 8. */
    r = make(1e-3, 10, 4, 1);
    assert_int_equal(mbx_refine_add(r, 5, 1.0), MBX_OK);
    assert_int_equal(mbx_refine_add(r, 9, 2.0), MBX_OK);
    assert_int_equal(mbx_refine_add(r, 13, 5.0), MBX_OK);
    assert_int_equal(mbx_refine_next(r, &p, NULL), 1);
    assert_int_equal(p, 8);
    mbx_refine_free(r);
}

/* Equal errors go to the smallest x, as a priority queue with that tie rule
 * would. Points 1, 4, 16 at 2, 1, 2: point 4 is the one judged (the
 * log-log line through its neighbours gives 2 there: error 1), so both
 * segments have exactly its error; [1, 4] goes first, then [4, 16]. */
static void ties_take_smallest_x(void **state)
{
    (void)state;
    uint64_t p = 0;
    double e = 0.0;
    mbx_refine *r = make(1e-3, 10, 1, 1);
    const double ys[] = {2.0, 1.0, 2.0};
    for (int i = 0; i < 3; i++)
        assert_int_equal(mbx_refine_add(r, (uint64_t)1 << (2 * i), ys[i]), MBX_OK);
    assert_int_equal(mbx_refine_next(r, &p, &e), 1);
    assert_int_equal(p, 2);
    assert_true(e == 1.0);
    assert_int_equal(mbx_refine_next(r, &p, &e), 1);
    assert_int_equal(p, 8);
    assert_true(e == 1.0);
    mbx_refine_free(r);
}

/* Three points with a bend, so the one segment tested has an error. */
static uint64_t split_of(uint64_t a, uint64_t b, int geometric)
{
    uint64_t p = 0;
    mbx_refine *r = make(1e-3, 10, 1, geometric);
    assert_int_equal(mbx_refine_add(r, a, 1.0), MBX_OK);
    assert_int_equal(mbx_refine_add(r, b, 2.0), MBX_OK);
    assert_int_equal(mbx_refine_add(r, b + (b - a), 10.0), MBX_OK);
    assert_int_equal(mbx_refine_next(r, &p, NULL), 1);
    if (p > b) { /* the right segment was worse: block it, ask again */
        assert_int_equal(mbx_refine_next(r, &p, NULL), 1);
    }
    assert_true(p > a && p < b);
    mbx_refine_free(r);
    return p;
}

/* Split points are exact where a * b overflows 64 bits. */
static void split_points_exact(void **state)
{
    (void)state;
    assert_int_equal(split_of(1u << 12, 1u << 14, 1), 8192);
    assert_int_equal(split_of(1000003, 1000033, 1), 1000018);
    assert_int_equal(split_of(1ull << 40, (1ull << 40) + 2, 1), (1ull << 40) + 1);
    assert_int_equal(split_of(1ull << 39, 1ull << 41, 1), 1ull << 40);
    assert_int_equal(split_of(1ull << 61, 1ull << 62, 1), 3260954456333195553ull);
    /* Pairs where round(sqrtl(a * b)) in 80-bit long double is one too high. */
    assert_int_equal(split_of(4084219784573068265ull, 4858377543614703450ull, 1),
                     4454512508070515755ull);
    assert_int_equal(split_of(3807551223707997778ull, 3946990693804233650ull, 1),
                     3876644070089281358ull);
    assert_int_equal(split_of(16, 32, 0), 24);
    assert_int_equal(split_of(16, 19, 0), 18); /* 17.5 rounds up */
    assert_int_equal(split_of(1ull << 62, 3ull << 61, 0), 5ull << 60);
}

static void pending_and_input(void **state)
{
    (void)state;
    mbx_refine_opts o = {.eps = 0.0, .budget = 10, .align = 1, .geometric = 1};
    mbx_refine *r = NULL;
    assert_int_equal(mbx_refine_create(&o, &r), MBX_E_INVAL);
    o.eps = -0.1;
    assert_int_equal(mbx_refine_create(&o, &r), MBX_E_INVAL);
    o.eps = NAN;
    assert_int_equal(mbx_refine_create(&o, &r), MBX_E_INVAL);
    o.eps = INFINITY;
    assert_int_equal(mbx_refine_create(&o, &r), MBX_E_INVAL);
    assert_null(r);
    mbx_refine_free(NULL);

    /* Added out of order; returned sorted. */
    r = make(1e-3, 10, 1, 1);
    const uint64_t xs[] = {4096, 16, 1024, 1, 256, 64, 4};
    for (size_t i = 0; i < 7; i++)
        assert_int_equal(mbx_refine_add(r, xs[i], step8k((double)xs[i]) * (1.0 + 0.3 * i)), MBX_OK);
    assert_int_equal(mbx_refine_add(r, 8, 0.0), MBX_E_INVAL);
    assert_int_equal(mbx_refine_add(r, 8, -1.0), MBX_E_INVAL);
    assert_int_equal(mbx_refine_add(r, 8, NAN), MBX_E_INVAL);
    assert_int_equal(mbx_refine_add(r, 8, INFINITY), MBX_E_INVAL);
    assert_int_equal(mbx_refine_count(r), 7);
    uint64_t x[MAXPTS];
    double y[MAXPTS];
    assert_int_equal(points(r, x, y), 7);
    for (size_t i = 0; i < 6; i++)
        assert_true(x[i] < x[i + 1]);
    assert_int_equal(x[0], 1);
    assert_int_equal(x[6], 4096);

    /* Replacing y of an existing x: no new point, the new y is kept. */
    assert_int_equal(mbx_refine_add(r, 64, 7.5), MBX_OK);
    assert_int_equal(points(r, x, y), 7);
    assert_true(x[3] == 64 && y[3] == 7.5);

    /* Two proposals without an add go to two different segments. */
    uint64_t p1 = 0, p2 = 0, p3 = 0;
    double e1 = 0, e2 = 0;
    assert_int_equal(mbx_refine_next(r, &p1, &e1), 1);
    assert_int_equal(mbx_refine_next(r, &p2, &e2), 1);
    size_t s1 = 0, s2 = 0;
    while (x[s1 + 1] < p1)
        s1++;
    while (x[s2 + 1] < p2)
        s2++;
    assert_true(s1 != s2);
    assert_true(e1 >= e2);
    assert_int_equal(mbx_refine_proposed(r), 2);

    /* Adding p1 releases its segment: the two halves may be proposed now,
     * p2's segment stays blocked until p2 arrives. */
    assert_int_equal(mbx_refine_add(r, p1, 1.0), MBX_OK);
    for (int i = 0; i < 6 && mbx_refine_next(r, &p3, NULL); i++) {
        assert_true(p3 != p2);
        assert_false(p3 > x[s2] && p3 < x[s2 + 1]);
        assert_int_equal(mbx_refine_add(r, p3, 1.0), MBX_OK);
    }
    mbx_refine_free(r);

    /* Two segments: [1, 16] is worse (4.625 against 0.74). Both blocked
     * while pending; adding 32 opens [16, 32] and [32, 64]. */
    r = make(1e-3, 10, 1, 1);
    assert_int_equal(mbx_refine_add(r, 1, 1.0), MBX_OK);
    assert_int_equal(mbx_refine_add(r, 16, 2.0), MBX_OK);
    assert_int_equal(mbx_refine_add(r, 64, 20.0), MBX_OK);
    assert_int_equal(mbx_refine_next(r, &p1, NULL), 1);
    assert_int_equal(p1, 4);
    assert_int_equal(mbx_refine_next(r, &p2, NULL), 1);
    assert_int_equal(p2, 32);
    assert_int_equal(mbx_refine_next(r, &p3, NULL), 0); /* both blocked */
    assert_int_equal(mbx_refine_add(r, 32, 4.0), MBX_OK);
    assert_int_equal(mbx_refine_next(r, &p3, NULL), 1);
    assert_true(p3 > 16 && p3 != 4);
    assert_int_equal(mbx_refine_proposed(r), 3);
    mbx_refine_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(linear_needs_nothing),      cmocka_unit_test(kink_draws_proposals),
        cmocka_unit_test(step_is_bracketed),         cmocka_unit_test(fewer_points_than_fixed_grid),
        cmocka_unit_test(arithmetic_process_counts), cmocka_unit_test(alignment),
        cmocka_unit_test(ties_take_smallest_x),      cmocka_unit_test(split_points_exact),
        cmocka_unit_test(pending_and_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
