/* Level-shift detection on synthetic probe series with known shifts.
 *
 * The series imitate this project's VMs (docs/user-guide.md, "The machine-state
 * monitor"): 1-byte ping-pong at about 0.15, 0.2 or 0.7 us, multiplicative
 * log-normal noise of about 5 %, jumping between levels and back. All
 * random numbers come from a fixed-seed generator, so every run sees the
 * same series. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/levels.h"

#define NELEM(x) (sizeof(x) / sizeof((x)[0]))
#define MAXSEG 64

static const double LEVELS[3] = {0.15e-6, 0.2e-6, 0.7e-6};

static uint64_t rng_state;

/* How many of each family's random series to run: all by default,
 * MBX_LEVELS_SERIES=N for the first N (valgrind runs 3; memcheck is ~50x). */
static uint64_t series_count(uint64_t all)
{
    const char *e = getenv("MBX_LEVELS_SERIES");
    uint64_t n = e ? strtoull(e, NULL, 10) : all;
    return n >= 1 && n < all ? n : all;
}

static void seed(uint64_t s)
{
    rng_state = s * 0x9E3779B97F4A7C15ULL + 1;
}

static double uniform(void) /* (0, 1) */
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
    return sqrt(-2.0 * log(uniform())) * cos(6.283185307179586 * uniform());
}

static size_t uniform_int(size_t lo, size_t hi) /* [lo, hi] */
{
    return lo + (size_t)(uniform() * (double)(hi - lo + 1));
}

/* Fill x[b, e) with value v and multiplicative noise of relative size sd. */
static void fill(double *x, size_t b, size_t e, double v, double sd)
{
    for (size_t i = b; i < e; i++)
        x[i] = v * exp(sd * gauss());
}

static mbx_levels detect(const double *x, size_t n, const mbx_levels_opts *o)
{
    mbx_levels l;
    assert_int_equal(mbx_levels_detect(x, n, o, &l), MBX_OK);
    /* Invariants of any result: segments tile [0, n), levels ascend. */
    size_t at = 0;
    for (size_t i = 0; i < l.nseg; i++) {
        assert_int_equal(l.seg[i].begin, at);
        assert_true(l.seg[i].end > l.seg[i].begin);
        assert_true(l.seg[i].level >= 0 && (size_t)l.seg[i].level < l.nlevel);
        at = l.seg[i].end;
    }
    assert_int_equal(at, n);
    for (size_t k = 1; k < l.nlevel; k++)
        assert_true(l.level[k] > l.level[k - 1]);
    return l;
}

static void near_rel(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("got %.6g, want %.6g (+-%.0f %%)", got, want, rel * 100);
}

static void constant_noisy(void **state)
{
    (void)state;
    static double x[2000];
    for (uint64_t s = 1; s <= 5; s++) {
        seed(s);
        fill(x, 0, NELEM(x), LEVELS[1], 0.05);
        mbx_levels l = detect(x, NELEM(x), NULL);
        assert_int_equal(l.nseg, 1);
        assert_int_equal(l.nlevel, 1);
        near_rel(l.level[0], LEVELS[1], 0.01);
        near_rel(l.seg[0].median, LEVELS[1], 0.01);
        mbx_levels_free(&l);
    }
}

typedef struct truth {
    size_t nseg, n;
    size_t end[MAXSEG];
    int level[MAXSEG];
} truth;

/* Segments of random lengths in [lo, hi] on random levels (never the same
 * level twice in a row; every level used). */
static void make_series(double *x, truth *t, size_t nseg, size_t lo, size_t hi, double sd)
{
    int used[3];
    do {
        size_t at = 0;
        int prev = -1;
        memset(used, 0, sizeof used);
        for (size_t s = 0; s < nseg; s++) {
            int lv;
            do
                lv = (int)uniform_int(0, 2);
            while (lv == prev);
            size_t len = uniform_int(lo, hi);
            fill(x, at, at + len, LEVELS[lv], sd);
            at += len;
            t->end[s] = at;
            t->level[s] = lv;
            used[lv] = 1;
            prev = lv;
        }
        t->nseg = nseg;
        t->n = at;
    } while (!used[0] || !used[1] || !used[2]);
}

static void check_truth(const mbx_levels *l, const truth *t)
{
    assert_int_equal(l->nseg, t->nseg);
    assert_int_equal(l->nlevel, 3);
    for (size_t s = 0; s < t->nseg; s++) {
        long d = (long)l->seg[s].end - (long)t->end[s];
        if (d < -2 || d > 2)
            fail_msg("segment %zu ends at %zu, want %zu +- 2", s, l->seg[s].end, t->end[s]);
        assert_int_equal(l->seg[s].level, t->level[s]);
        near_rel(l->seg[s].median, LEVELS[t->level[s]], 0.05);
    }
    for (int k = 0; k < 3; k++)
        near_rel(l->level[k], LEVELS[k], 0.03);
}

/* The ping-pong of this machine: three levels, 5 % noise, segments of 20 to
 * 200 samples, returning to earlier levels. Twenty different series. */
static void three_levels(void **state)
{
    (void)state;
    static double x[16 * 200];
    truth t;
    for (uint64_t s = 1; s <= series_count(20); s++) {
        seed(100 + s);
        make_series(x, &t, 4 + s % 12, 20, 200, 0.05);
        mbx_levels l = detect(x, t.n, NULL);
        check_truth(&l, &t);
        mbx_levels_free(&l);
    }
}

/* The same with 2 % of the samples hit by a 3x-10x spike (interrupts, the
 * scheduler): isolated spikes must not become segments. */
static void three_levels_with_spikes(void **state)
{
    (void)state;
    static double x[16 * 200];
    truth t;
    for (uint64_t s = 1; s <= series_count(10); s++) {
        seed(200 + s);
        make_series(x, &t, 10, 20, 200, 0.05);
        for (size_t i = 0; i < t.n; i++)
            if (uniform() < 0.02)
                x[i] *= 3.0 + 7.0 * uniform();
        mbx_levels l = detect(x, t.n, NULL);
        check_truth(&l, &t);
        mbx_levels_free(&l);
    }
}

/* A long series: 10^4 samples, segments of 200 to 2000. */
static void long_series(void **state)
{
    (void)state;
    static double x[12 * 2000];
    truth t;
    seed(7);
    make_series(x, &t, 8, 500, 2000, 0.05);
    mbx_levels l = detect(x, t.n, NULL);
    check_truth(&l, &t);
    mbx_levels_free(&l);
}

static void single_spike(void **state)
{
    (void)state;
    static double x[300];
    const size_t where[] = {0, 1, 150, 298, 299};
    for (size_t w = 0; w < NELEM(where); w++) {
        seed(3);
        fill(x, 0, NELEM(x), LEVELS[0], 0.05);
        x[where[w]] *= 20.0;
        mbx_levels l = detect(x, NELEM(x), NULL);
        assert_int_equal(l.nseg, 1);
        assert_int_equal(l.nlevel, 1);
        mbx_levels_free(&l);
    }
    /* Two neighbours high: still shorter than min_seg = 3. */
    fill(x, 0, NELEM(x), LEVELS[0], 0.05);
    x[100] *= 5.0;
    x[101] *= 5.0;
    mbx_levels l = detect(x, NELEM(x), NULL);
    assert_int_equal(l.nseg, 1);
    mbx_levels_free(&l);
}

/* 10 % is below the default min_rel of 20 %: one segment, even though a
 * rank test sees the step clearly; with min_rel = 5 % the step is found. */
static void small_shift_ignored(void **state)
{
    (void)state;
    static double x[400];
    seed(11);
    fill(x, 0, 200, 1.0, 0.01);
    fill(x, 200, 400, 1.1, 0.01);
    mbx_levels l = detect(x, 400, NULL);
    assert_int_equal(l.nseg, 1);
    assert_int_equal(l.nlevel, 1);
    mbx_levels_free(&l);

    mbx_levels_opts o = {.min_rel = 0.05};
    l = detect(x, 400, &o);
    assert_int_equal(l.nseg, 2);
    assert_int_equal(l.seg[0].end, 200);
    assert_int_equal(l.nlevel, 2);
    assert_int_equal(l.seg[0].level, 0);
    assert_int_equal(l.seg[1].level, 1);
    mbx_levels_free(&l);
}

/* A short excursion that comes back: 100 low, 8 high, 100 low. Found with
 * the default min_seg = 3 (two segments on one level); invisible with
 * min_seg = 10. */
static void short_excursion(void **state)
{
    (void)state;
    static double x[208];
    seed(5);
    fill(x, 0, 100, LEVELS[0], 0.05);
    fill(x, 100, 108, LEVELS[2], 0.05);
    fill(x, 108, 208, LEVELS[0], 0.05);
    mbx_levels l = detect(x, 208, NULL);
    assert_int_equal(l.nseg, 3);
    assert_int_equal(l.seg[0].end, 100);
    assert_int_equal(l.seg[1].end, 108);
    assert_int_equal(l.nlevel, 2);
    assert_int_equal(l.seg[0].level, 0);
    assert_int_equal(l.seg[1].level, 1);
    assert_int_equal(l.seg[2].level, 0);
    mbx_levels_free(&l);

    mbx_levels_opts o = {.min_seg = 10};
    l = detect(x, 208, &o);
    assert_int_equal(l.nseg, 1);
    mbx_levels_free(&l);
}

/* The shape this project's machine showed in a 3-minute run: 759 probes at
 * about 0.61 us with three in a row at 0.12 us (indices 490-492). The
 * excursion is two segments on a second level; a pair of high outliers
 * elsewhere is not a segment. */
static void three_probe_excursion(void **state)
{
    (void)state;
    static double x[759];
    seed(11);
    fill(x, 0, 490, 0.61e-6, 0.02);
    fill(x, 490, 493, 0.12e-6, 0.02);
    fill(x, 493, 759, 0.61e-6, 0.02);
    x[200] = x[201] = 2.0e-6; /* two outliers: shorter than min_seg */
    mbx_levels l = detect(x, 759, NULL);
    assert_int_equal(l.nseg, 3);
    assert_int_equal(l.seg[0].end, 490);
    assert_int_equal(l.seg[1].end, 493);
    assert_int_equal(l.nlevel, 2);
    assert_int_equal(l.seg[1].level, 0);
    assert_int_equal(l.seg[0].level, 1);
    assert_int_equal(l.seg[2].level, 1);
    mbx_levels_free(&l);
}

/* Values that repeat exactly (a coarse timer) and a step between them. */
static void quantized(void **state)
{
    (void)state;
    static double x[300];
    seed(9);
    for (size_t i = 0; i < 300; i++)
        x[i] = (i < 120 ? 10.0 : 14.0) + (double)uniform_int(0, 1);
    mbx_levels l = detect(x, 300, NULL);
    assert_int_equal(l.nseg, 2);
    assert_int_equal(l.seg[0].end, 120);
    assert_int_equal(l.nlevel, 2);
    mbx_levels_free(&l);
    for (size_t i = 0; i < 300; i++)
        x[i] = 3.0;
    l = detect(x, 300, NULL);
    assert_int_equal(l.nseg, 1);
    assert_true(l.level[0] == 3.0);
    mbx_levels_free(&l);
}

static void short_series(void **state)
{
    (void)state;
    mbx_levels l = detect(NULL, 0, NULL);
    assert_int_equal(l.nseg, 0);
    assert_int_equal(l.nlevel, 0);
    assert_null(l.seg);
    assert_null(l.level);
    mbx_levels_free(&l);

    const double one[] = {2.0e-7};
    l = detect(one, 1, NULL);
    assert_int_equal(l.nseg, 1);
    assert_int_equal(l.nlevel, 1);
    assert_true(l.level[0] == one[0] && l.seg[0].median == one[0]);
    mbx_levels_free(&l);

    const double two[] = {1.5e-7, 7e-7};
    l = detect(two, 2, NULL);
    assert_int_equal(l.nseg, 1);
    assert_int_equal(l.nlevel, 1);
    mbx_levels_free(&l);
    mbx_levels_free(&l); /* idempotent */
    mbx_levels_free(NULL);
}

static void bad_input(void **state)
{
    (void)state;
    const double ok[] = {1, 2, 3};
    const double bad[][3] = {{1, 0, 3}, {1, -2, 3}, {1, NAN, 3}, {1, INFINITY, 3}};
    mbx_levels l;
    assert_int_equal(mbx_levels_detect(ok, 3, NULL, NULL), MBX_E_INVAL);
    assert_int_equal(mbx_levels_detect(NULL, 3, NULL, &l), MBX_E_INVAL);
    assert_null(l.seg);
    for (size_t i = 0; i < NELEM(bad); i++) {
        assert_int_equal(mbx_levels_detect(bad[i], 3, NULL, &l), MBX_E_INVAL);
        assert_int_equal(l.nseg, 0);
        assert_null(l.seg);
        assert_null(l.level);
    }
    const mbx_levels_opts bad_o[] = {{.min_rel = -0.1}, {.min_rel = NAN}, {.min_rel = INFINITY},
                                     {.alpha = 1.0},    {.alpha = -0.01}, {.alpha = NAN}};
    for (size_t i = 0; i < NELEM(bad_o); i++)
        assert_int_equal(mbx_levels_detect(ok, 3, &bad_o[i], &l), MBX_E_INVAL);
}

static void online_rule(void **state)
{
    (void)state;
    assert_int_equal(mbx_levels_shifted(0.15, 0.2, NULL), 1); /* 33 % */
    assert_int_equal(mbx_levels_shifted(0.2, 0.15, NULL), 1);
    assert_int_equal(mbx_levels_shifted(0.2, 0.7, NULL), 1);
    assert_int_equal(mbx_levels_shifted(0.2, 0.22, NULL), 0); /* 10 % */
    assert_int_equal(mbx_levels_shifted(0.22, 0.2, NULL), 0);
    assert_int_equal(mbx_levels_shifted(0.2, 0.2, NULL), 0);
    /* The boundary counts (exact in binary: 1.25 / 1 - 1 = 0.25). */
    mbx_levels_opts o = {.min_rel = 0.25};
    assert_int_equal(mbx_levels_shifted(1.0, 1.25, &o), 1);
    assert_int_equal(mbx_levels_shifted(1.25, 1.0, &o), 1);
    assert_int_equal(mbx_levels_shifted(1.0, 1.2499, &o), 0);
    /* Default 0.2 when o is NULL or its min_rel is 0. */
    mbx_levels_opts zero = {0};
    assert_int_equal(mbx_levels_shifted(1.0, 1.21, &zero), 1);
    assert_int_equal(mbx_levels_shifted(1.0, 1.19, &zero), 0);
    assert_int_equal(mbx_levels_shifted(1.0, 1.19, NULL), 0);
    o.min_rel = 0.1;
    assert_int_equal(mbx_levels_shifted(1.0, 1.15, &o), 1);
    /* Not judgeable: not a shift. */
    assert_int_equal(mbx_levels_shifted(0.0, 1.0, NULL), 0);
    assert_int_equal(mbx_levels_shifted(-1.0, 1.0, NULL), 0);
    assert_int_equal(mbx_levels_shifted(NAN, 1.0, NULL), 0);
    assert_int_equal(mbx_levels_shifted(1.0, NAN, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(constant_noisy),
        cmocka_unit_test(three_levels),
        cmocka_unit_test(three_levels_with_spikes),
        cmocka_unit_test(long_series),
        cmocka_unit_test(single_spike),
        cmocka_unit_test(small_shift_ignored),
        cmocka_unit_test(short_excursion),
        cmocka_unit_test(three_probe_excursion),
        cmocka_unit_test(quantized),
        cmocka_unit_test(short_series),
        cmocka_unit_test(bad_input),
        cmocka_unit_test(online_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
