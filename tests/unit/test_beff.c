/* Unit tests for the pure part of b_eff: sizes, ring splitting, patterns,
 * loop lengths, logarithmic averages and the aggregation formula. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/beff.h"

#define KIB ((uint64_t)1 << 10)
#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)

static void test_sizes(void **state)
{
    (void)state;
    const uint64_t mems[] = {512 * KIB, 8 * MIB, 128 * MIB, GIB, 3 * GIB, 16 * GIB, 64 * GIB};
    for (size_t m = 0; m < sizeof mems / sizeof mems[0]; m++) {
        for (int cap = 0; cap <= 1; cap++) {
            uint64_t lmax = mbx_beff_lmax(mems[m], cap, 0), s[MBX_BEFF_NSIZES];
            uint64_t want = mems[m] / 128;
            if (cap && want > 128 * MIB)
                want = 128 * MIB;
            assert_int_equal(lmax, want);
            assert_int_equal(mbx_beff_sizes(lmax, s), MBX_OK);
            for (int k = 0; k < 13; k++)
                assert_int_equal(s[k], (uint64_t)1 << k);
            for (int k = 1; k < MBX_BEFF_NSIZES; k++)
                assert_true(s[k] >= s[k - 1]);
            if (lmax > 4096 * 256) /* a > 2: strictly increasing */
                for (int k = 1; k < MBX_BEFF_NSIZES; k++)
                    assert_true(s[k] > s[k - 1]);
            assert_int_equal(s[MBX_BEFF_NSIZES - 1], lmax);
            /* geometric: 4 KiB * a^k within rounding */
            double a = pow((double)lmax / 4096.0, 1.0 / 8);
            for (int k = 1; k < 8; k++)
                assert_true(fabs((double)s[12 + k] - 4096.0 * pow(a, k)) <= 0.5 + 1e-6);
        }
    }
    /* 1 MiB: a = 2 exactly, so the steps are powers of two. */
    uint64_t s[MBX_BEFF_NSIZES];
    assert_int_equal(mbx_beff_sizes(MIB, s), MBX_OK);
    for (int k = 0; k < MBX_BEFF_NSIZES; k++)
        assert_int_equal(s[k], (uint64_t)1 << k);
    /* 64 GiB per process: 512 MiB uncapped, 128 MiB capped, quick caps both. */
    assert_int_equal(mbx_beff_lmax(64 * GIB, 0, 0), 512 * MIB);
    assert_int_equal(mbx_beff_lmax(64 * GIB, 1, 0), 128 * MIB);
    assert_int_equal(mbx_beff_lmax(64 * GIB, 0, MIB), MIB);
    assert_int_equal(mbx_beff_lmax(256 * KIB, 0, 0), 4096); /* never below 4 KiB */
    assert_int_equal(mbx_beff_sizes(4095, s), MBX_E_INVAL);
    assert_int_equal(mbx_beff_sizes(4096, s), MBX_OK);
    assert_int_equal(s[20], 4096);
}

static void check_split(int pattern, int p, const int *want, int nwant)
{
    int sizes[64];
    int n = -1;
    assert_int_equal(mbx_beff_ring_sizes(pattern, p, sizes, 64, &n), MBX_OK);
    if (n != nwant)
        fail_msg("pattern %d, P=%d: %d rings, expected %d", pattern, p, n, nwant);
    for (int i = 0; i < n; i++)
        if (sizes[i] != want[i])
            fail_msg("pattern %d, P=%d: ring %d has %d, expected %d", pattern, p, i, sizes[i],
                     want[i]);
}

static void test_ring_split_known(void **state)
{
    (void)state;
    /* The paper's example: 7 processes, 0&1, 2&3, 4&5&6. */
    check_split(1, 7, (int[]){2, 2, 3}, 3);
    check_split(1, 2, (int[]){2}, 1);
    check_split(1, 3, (int[]){3}, 1);
    /* Pattern 2: one ring for P <= 7 (the paper), else size 4 with 3s or 5s. */
    for (int p = 2; p <= 7; p++)
        check_split(2, p, (int[]){p}, 1);
    check_split(2, 11, (int[]){4, 4, 3}, 3); /* 1*3: odd small size, larger first */
    check_split(2, 9, (int[]){4, 5}, 2);     /* 1*5 */
    check_split(2, 10, (int[]){5, 5}, 2);    /* 2*5 */
    /* Pattern 3: the paper's 3*7 .. 4*9 forms from 29 processes on. */
    check_split(3, 29, (int[]){8, 7, 7, 7}, 4);
    check_split(3, 36, (int[]){9, 9, 9, 9}, 4);
    check_split(3, 33, (int[]){8, 8, 8, 9}, 4);
    /* Pattern 4/5 standard sizes; pattern 6 one ring. */
    check_split(4, 64, (int[]){16, 16, 16, 16}, 4);
    check_split(5, 64, (int[]){32, 32}, 2);
    check_split(6, 13, (int[]){13}, 1);
    int sz[4];
    int n;
    assert_int_equal(mbx_beff_ring_sizes(0, 4, sz, 4, &n), MBX_E_INVAL);
    assert_int_equal(mbx_beff_ring_sizes(7, 4, sz, 4, &n), MBX_E_INVAL);
    assert_int_equal(mbx_beff_ring_sizes(1, 1, sz, 4, &n), MBX_E_INVAL);
    char d[64];
    mbx_beff_ring_describe((int[]){2, 2, 3}, 3, d, sizeof d);
    assert_string_equal(d, "2*2+1*3");
}

/* Follow step 0 (send to the left) from every process: each process must
 * be in exactly one cycle, and the cycle lengths must be the ring sizes in
 * rank order. */
static void check_rings(const mbx_beff_pattern *pt, const int *sizes, int n, int ordered)
{
    int p = pt->procs;
    int *seen = calloc((size_t)p, sizeof *seen);
    int *to_count = calloc((size_t)p, sizeof *to_count);
    assert_non_null(seen);
    assert_non_null(to_count);
    for (int i = 0; i < p; i++) {
        int l = pt->to[i * MBX_BEFF_MAXSTEPS], r = pt->from[i * MBX_BEFF_MAXSTEPS];
        assert_true(l >= 0 && l < p && r >= 0 && r < p);
        to_count[l]++;
        /* step 1 reverses step 0 */
        assert_int_equal(pt->to[i * MBX_BEFF_MAXSTEPS + 1], r);
        assert_int_equal(pt->from[i * MBX_BEFF_MAXSTEPS + 1], l);
        /* my left's right is me */
        assert_int_equal(pt->from[l * MBX_BEFF_MAXSTEPS], i);
    }
    for (int i = 0; i < p; i++)
        assert_int_equal(to_count[i], 1);
    int cycles = 0, base = 0;
    for (int i = 0; i < p; i++) {
        if (seen[i])
            continue;
        int len = 0, j = i;
        while (!seen[j]) {
            seen[j] = 1;
            len++;
            j = pt->to[j * MBX_BEFF_MAXSTEPS];
        }
        assert_int_equal(j, i);
        if (ordered) {
            assert_true(cycles < n);
            assert_int_equal(i, base); /* rings are consecutive ranks */
            assert_int_equal(len, sizes[cycles]);
            base += len;
        }
        cycles++;
    }
    assert_int_equal(cycles, n);
    assert_int_equal(pt->messages, 2 * p);
    assert_int_equal(pt->nsteps, 2);
    free(seen);
    free(to_count);
}

static void test_ring_split_all(void **state)
{
    (void)state;
    for (int p = 2; p <= 64; p++) {
        mbx_beff_patterns ps;
        assert_int_equal(mbx_beff_patterns_build(p, 3, 42, &ps), MBX_OK);
        assert_int_equal(ps.nring, 6);
        assert_int_equal(ps.nrandom, 3);
        for (int k = 1; k <= 6; k++) {
            int sizes[64];
            int n = 0;
            assert_int_equal(mbx_beff_ring_sizes(k, p, sizes, 64, &n), MBX_OK);
            assert_true(n >= 1);
            int sum = 0, lo = sizes[0], hi = sizes[0];
            for (int i = 0; i < n; i++) {
                sum += sizes[i];
                lo = sizes[i] < lo ? sizes[i] : lo;
                hi = sizes[i] > hi ? sizes[i] : hi;
                assert_true(sizes[i] >= 2);
            }
            assert_int_equal(sum, p);
            assert_true(hi - lo <= 1);
            /* the rule: s standard, n = max(1, min(floor(P/s+0.4), P/2)) */
            int s = k == 1   ? 2
                    : k == 2 ? 4
                    : k == 3 ? 8
                    : k == 4 ? (p / 4 > 16 ? p / 4 : 16)
                    : k == 5 ? (p / 2 > 32 ? p / 2 : 32)
                             : p;
            s = s < p ? s : p;
            int want = (int)floor((double)p / s + 0.4);
            want = want > p / 2 ? p / 2 : want;
            want = want < 1 ? 1 : want;
            if (k == 2 && p <= 7)
                want = 1;
            assert_int_equal(n, want);
            assert_int_equal(lo, p / n);
            /* larger rings first exactly when the smaller size is odd */
            if (hi != lo)
                assert_int_equal(sizes[0] == hi, lo % 2 == 1);
            if (k == 6)
                assert_int_equal(n, 1);
            check_rings(&ps.p[k - 1], sizes, n, 1);
        }
        for (int r = 0; r < 3; r++) {
            const mbx_beff_pattern *pt = &ps.p[6 + r];
            assert_int_equal(pt->kind, MBX_BEFF_RANDOM);
            check_rings(pt, (int[]){p}, 1, 0);
        }
        mbx_beff_patterns_free(&ps);
    }
}

static const mbx_beff_pattern *find(const mbx_beff_patterns *ps, const char *name)
{
    for (size_t i = 0; i < ps->n; i++)
        if (!strcmp(ps->p[i].name, name))
            return &ps->p[i];
    return NULL;
}

static void test_detail_patterns(void **state)
{
    (void)state;
    mbx_beff_patterns ps;
    assert_int_equal(mbx_beff_patterns_build(4, 30, 7, &ps), MBX_OK);
    assert_int_equal(ps.nrandom, 30);
    /* 6 rings, 30 random, worst, 2 bisections, cart2d x,y,all (2x2),
     * cart3d x,y,all (2x2x1), pingpong */
    assert_int_equal(ps.n, 6 + 30 + 1 + 2 + 3 + 3 + 1);
    const mbx_beff_pattern *pt = find(&ps, "worst_cycle");
    assert_non_null(pt);
    /* order 0,3,1,2: 0 sends left to 2, right to 3 */
    assert_int_equal(pt->to[0], 2);
    assert_int_equal(pt->to[1], 3);
    pt = find(&ps, "bisect_best");
    assert_non_null(pt);
    assert_int_equal(pt->messages, 4);
    assert_int_equal(pt->to[0 * MBX_BEFF_MAXSTEPS], 1);
    assert_int_equal(pt->to[2 * MBX_BEFF_MAXSTEPS], 3);
    assert_int_equal(pt->to[1 * MBX_BEFF_MAXSTEPS + 1], 0);
    pt = find(&ps, "bisect_worst");
    assert_non_null(pt);
    assert_int_equal(pt->to[0], 3);
    assert_int_equal(pt->to[1 * MBX_BEFF_MAXSTEPS], 2);
    pt = find(&ps, "cart2d_x");
    assert_non_null(pt);
    assert_int_equal(pt->messages, 8);
    assert_int_equal(pt->to[0], 2); /* +1 in x from (0,0) is (1,0) = rank 2 */
    pt = find(&ps, "cart2d_all");
    assert_non_null(pt);
    assert_int_equal(pt->messages, 16);
    assert_int_equal(pt->nsteps, 4);
    assert_null(find(&ps, "cart3d_z"));
    pt = find(&ps, "pingpong");
    assert_non_null(pt);
    assert_true(pt->pingpong);
    assert_int_equal(pt->messages, 2);
    assert_int_equal(pt->to[0], 1);
    assert_int_equal(pt->to[1 * MBX_BEFF_MAXSTEPS + 1], 0);
    assert_int_equal(pt->to[2 * MBX_BEFF_MAXSTEPS], -1);
    mbx_beff_patterns_free(&ps);

    /* 2 processes: every ring is the same ring of 2 (both neighbours = 1). */
    assert_int_equal(mbx_beff_patterns_build(2, 2, 1, &ps), MBX_OK);
    for (int k = 0; k < 8; k++) {
        assert_int_equal(ps.p[k].to[0], 1);
        assert_int_equal(ps.p[k].to[1], 1);
        assert_int_equal(ps.p[k].messages, 4);
    }
    mbx_beff_patterns_free(&ps);

    int dims[3];
    assert_int_equal(mbx_beff_dims(12, 2, dims), MBX_OK);
    assert_int_equal(dims[0], 4);
    assert_int_equal(dims[1], 3);
    assert_int_equal(mbx_beff_dims(12, 3, dims), MBX_OK);
    assert_int_equal(dims[0] * dims[1] * dims[2], 12);
    assert_int_equal(dims[2], 2);
    int q = 0;
    assert_int_equal(mbx_beff_cart_grid(7, 2, dims, &q), MBX_OK);
    assert_int_equal(q, 6); /* 7x1 rejected: 3x2 */
    assert_int_equal(dims[0], 3);
    assert_int_equal(mbx_beff_cart_grid(5, 3, dims, &q), MBX_OK);
    assert_int_equal(q, 4); /* 2x2x1, small and even */
    assert_int_equal(mbx_beff_cart_grid(3, 2, dims, &q), MBX_OK);
    assert_int_equal(q, 3); /* below 4: 3x1 */
    assert_int_equal(mbx_beff_cart_grid(12, 3, dims, &q), MBX_OK);
    assert_int_equal(q, 12);
}

static void test_orders(void **state)
{
    (void)state;
    int a[50], b[50], c[50];
    assert_int_equal(mbx_beff_random_order(5, 1, 50, a), MBX_OK);
    assert_int_equal(mbx_beff_random_order(5, 1, 50, b), MBX_OK);
    assert_int_equal(mbx_beff_random_order(5, 2, 50, c), MBX_OK);
    assert_memory_equal(a, b, sizeof a);
    assert_memory_not_equal(a, c, sizeof a);
    int seen[50] = {0};
    for (int i = 0; i < 50; i++)
        seen[a[i]]++;
    for (int i = 0; i < 50; i++)
        assert_int_equal(seen[i], 1);
    assert_int_equal(mbx_beff_worst_order(5, a), MBX_OK);
    int w[5] = {0, 4, 1, 3, 2};
    assert_memory_equal(a, w, sizeof w);
}

static void test_logavg(void **state)
{
    (void)state;
    assert_true(fabs(mbx_beff_logavg((double[]){1, 100}, 2) - 10) < 1e-12);
    assert_true(fabs(mbx_beff_logavg((double[]){2, 8}, 2) - 4) < 1e-12);
    assert_true(fabs(mbx_beff_logavg((double[]){2, 4, 8}, 3) - 4) < 1e-12);
    assert_true(fabs(mbx_beff_logavg((double[]){7}, 1) - 7) < 1e-12);
    assert_true(isnan(mbx_beff_logavg((double[]){1, 0}, 2)));
    assert_true(isnan(mbx_beff_logavg((double[]){1}, 0)));
}

static void test_aggregate(void **state)
{
    (void)state;
    /* Two ring patterns and one random pattern, 21 sizes each. Ring A:
     * b = k+1 (sum 231, /21 = 11); ring B: 44 everywhere (44); random: 4
     * everywhere except 88 at L_max (sum 20*4+88 = 168, /21 = 8).
     * ring = sqrt(11*44) = 22; random = 8; b_eff = sqrt(22*8) = sqrt(176).
     * At L_max: ring = sqrt(21*44), random = 88. */
    double best[3 * MBX_BEFF_NSIZES];
    for (int k = 0; k < MBX_BEFF_NSIZES; k++) {
        best[k] = k + 1;
        best[MBX_BEFF_NSIZES + k] = 44;
        best[2 * MBX_BEFF_NSIZES + k] = k == MBX_BEFF_NSIZES - 1 ? 88 : 4;
    }
    mbx_beff_agg a;
    assert_int_equal(mbx_beff_aggregate(best, 2, 1, &a), MBX_OK);
    assert_true(fabs(a.ring - 22) < 1e-9);
    assert_true(fabs(a.random - 8) < 1e-9);
    assert_true(fabs(a.beff - sqrt(176)) < 1e-9);
    assert_true(fabs(a.ring_lmax - sqrt(21.0 * 44)) < 1e-9);
    assert_true(fabs(a.random_lmax - 88) < 1e-9);
    assert_true(fabs(a.beff_lmax - sqrt(sqrt(21.0 * 44) * 88)) < 1e-9);
    /* One size without a bandwidth only lowers the pattern's sum ... */
    best[5] = 0;
    assert_int_equal(mbx_beff_aggregate(best, 2, 1, &a), MBX_OK);
    assert_true(fabs(a.ring - sqrt((231.0 - 6) / 21 * 44)) < 1e-9);
    /* ... a pattern without any makes the logarithmic average undefined. */
    for (int k = 0; k < MBX_BEFF_NSIZES; k++)
        best[2 * MBX_BEFF_NSIZES + k] = 0;
    assert_int_equal(mbx_beff_aggregate(best, 2, 1, &a), MBX_E_INVAL);
    assert_int_equal(mbx_beff_aggregate(best, 0, 1, &a), MBX_E_INVAL);
}

static void test_loop_rules(void **state)
{
    (void)state;
    /* 300 stays while the predicted loop is <= 5 ms */
    assert_int_equal(mbx_beff_loop_next(300, 1e-6, 2), 300);
    assert_int_equal(mbx_beff_loop_next(300, 8e-6, 2), 300); /* 4.8 ms */
    /* 40 us per iteration predicted: floor(3.75 ms / 40 us) = 93 */
    assert_int_equal(mbx_beff_loop_next(300, 20e-6, 2), 93);
    assert_int_equal(mbx_beff_loop_next(10, 1e-3, 2), 1);  /* minimum 1 */
    assert_int_equal(mbx_beff_loop_next(50, 1e-6, 2), 50); /* never longer */
    /* fixes after a measurement */
    assert_int_equal(mbx_beff_loop_fix(300, 1e-3, 300), 300); /* can't grow */
    assert_int_equal(mbx_beff_loop_fix(100, 1e-3, 300), 300); /* 375 -> cap */
    assert_int_equal(mbx_beff_loop_fix(100, 2e-3, 300), 187); /* too short */
    assert_int_equal(mbx_beff_loop_fix(100, 10e-3, 300), 37); /* too long */
    assert_int_equal(mbx_beff_loop_fix(100, 4e-3, 300), 100); /* in window */
    assert_int_equal(mbx_beff_loop_fix(1, 50e-3, 300), 1);    /* minimum 1 */
    assert_int_equal(mbx_beff_loop_fix(100, 2.49e-3, 300), 150);
}

static void test_rules_text(void **state)
{
    (void)state;
    char r[512];
    mbx_beff_rules(r, sizeof r, 4, 30, 3, 9, MIB, 1);
    assert_non_null(strstr(r, "P=4"));
    assert_non_null(strstr(r, "30 random"));
    assert_non_null(strstr(r, "seed 9"));
    assert_non_null(strstr(r, "L_max=1048576 (capped)"));
    assert_non_null(strstr(r, "max over 3 reps"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),          cmocka_unit_test(test_ring_split_known),
        cmocka_unit_test(test_ring_split_all), cmocka_unit_test(test_detail_patterns),
        cmocka_unit_test(test_orders),         cmocka_unit_test(test_logavg),
        cmocka_unit_test(test_aggregate),      cmocka_unit_test(test_loop_rules),
        cmocka_unit_test(test_rules_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
