/* mpibex compare: the test of two samples, and results files with their
 * observations (in one go or in passes, leveled) compared with known
 * answers. Which points are matched, directories of launches and the
 * inputs refused: test_compare_match.c. */
#define CMP_DIR "compare_tests"
#include "compare_fixture.h"

static const mbx_cmp_point *point_of(const mbx_compare *c, const char *bench, uint64_t bytes)
{
    for (size_t i = 0; i < mbx_compare_count(c); i++) {
        const mbx_cmp_point *p = mbx_compare_get(c, i);
        if (strcmp(p->benchmark, bench) == 0 && p->bytes == bytes)
            return p;
    }
    fail_msg("no point %s %llu", bench, (unsigned long long)bytes);
    return NULL;
}

static void samples_known_values(void **state)
{
    (void)state;
    const double a[] = {1e-6, 2e-6, 3e-6}, b[] = {4e-6, 5e-6, 6e-6};
    mbx_cmp_point p;
    /* W = 6, the smallest: P(W <= 6) = 1 / C(6, 3) = 0.05, not below 0.05. */
    assert_int_equal(mbx_compare_samples(a, 3, b, 3, 0.05, &p), MBX_OK);
    assert_int_equal(p.n_a, 3);
    assert_int_equal(p.n_b, 3);
    assert_float_equal(p.median_a, 2e-6, 1e-15);
    assert_float_equal(p.median_b, 5e-6, 1e-15);
    assert_float_equal(p.ratio, 2.5, 1e-12);
    assert_true(p.w.exact);
    assert_float_equal(p.w.p_less, 0.05, 1e-12);
    assert_float_equal(p.w.p_two_sided, 0.1, 1e-12);
    assert_int_equal(p.verdict, '=');
    assert_string_equal(p.stars, "");
    /* The verdict follows the two-sided p (0.1): different only at alpha
     * above it, in the direction of the smaller one-sided p. */
    assert_int_equal(mbx_compare_samples(a, 3, b, 3, 0.06, &p), MBX_OK);
    assert_int_equal(p.verdict, '=');
    assert_int_equal(mbx_compare_samples(a, 3, b, 3, 0.11, &p), MBX_OK);
    assert_int_equal(p.verdict, '<');
    assert_int_equal(mbx_compare_samples(b, 3, a, 3, 0.11, &p), MBX_OK);
    assert_int_equal(p.verdict, '>');
    assert_float_equal(p.ratio, 0.4, 1e-12);
    /* the same data: p = 1 */
    assert_int_equal(mbx_compare_samples(a, 3, a, 3, 0.05, &p), MBX_OK);
    assert_int_equal(p.verdict, '=');
    assert_float_equal(p.w.p_two_sided, 1.0, 1e-12);

    assert_int_equal(mbx_compare_samples(a, 3, b, 3, 0.0, &p), MBX_E_INVAL);
    assert_int_equal(mbx_compare_samples(a, 3, b, 3, 1.0, &p), MBX_E_INVAL);
    assert_int_equal(mbx_compare_samples(a, 0, b, 3, 0.05, &p), MBX_E_INVAL);
}

static void observations(void **state)
{
    (void)state;
    write_obs_pair();
    mbx_compare *c = NULL;
    char msg[512];
    assert_int_equal(mbx_compare_load(tmp("A.csv"), tmp("B.csv"), 0.05, &c, msg, sizeof msg),
                     MBX_OK);
    assert_int_equal(mbx_compare_count(c), 3);
    /* sorted by benchmark, then bytes */
    assert_string_equal(mbx_compare_get(c, 0)->benchmark, "coll.reduce");
    assert_int_equal(mbx_compare_get(c, 1)->bytes, 8);
    assert_int_equal(mbx_compare_get(c, 2)->bytes, 64);
    assert_null(mbx_compare_get(c, 3));

    const mbx_cmp_point *p = point_of(c, "pingpong.send_recv", 8);
    assert_int_equal(p->verdict, '?');
    assert_int_equal(p->n_a, 20);
    assert_int_equal(p->n_b, 20);
    assert_true(p->w.exact); /* 40 <= MBX_WILCOXON_EXACT_MAX */
    assert_true(p->w.p_two_sided < 1e-6);
    assert_string_equal(p->stars, "***");
    assert_float_equal(p->median_a, 1.095e-6, 1e-12);
    assert_float_equal(p->median_b, 2.095e-6, 1e-12);
    assert_float_equal(p->w.shift, -1e-6, 1e-12);
    assert_string_equal(p->label, "cli");
    assert_null(p->op);
    assert_int_equal(p->root, -1);
    assert_int_equal(p->procs, 2);

    p = point_of(c, "pingpong.send_recv", 64);
    assert_int_equal(p->verdict, '?');
    assert_true(p->w.p_greater < 1e-6);

    p = point_of(c, "coll.reduce", 16);
    assert_int_equal(p->verdict, '?');
    assert_float_equal(p->w.p_two_sided, 1.0, 1e-12);
    assert_float_equal(p->ratio, 1.0, 1e-12);
    assert_string_equal(p->op, "MPI_SUM/MPI_FLOAT"); /* from the results row */
    assert_int_equal(p->root, 0);

    mbx_compare_summary s;
    mbx_compare_summarize(c, &s);
    assert_int_equal(s.tested, 3);
    assert_int_equal(s.faster, 0);
    assert_int_equal(s.slower, 0);
    assert_int_equal(s.same, 0);
    assert_int_equal(s.scope, MBX_CMP_SCOPE_NONE); /* two separate files: two launches */
    assert_int_equal(s.only_a, 1);
    assert_int_equal(s.only_b, 1);
    assert_string_equal(s.kind_a, "observations");
    assert_string_equal(s.kind_b, "observations");
    mbx_compare_free(c);
}

/* 40 against 40 observations: past the exact limit, the normal path. */
static void normal_approximation(void **state)
{
    (void)state;
    mbx_result r = row("pingpong.send_recv", 8, 1.0, OK);
    one_point_file(tmp("N1.csv"), &r, 40, 1.0, 0.01);
    one_point_file(tmp("N2.csv"), &r, 40, 1.2, 0.01); /* overlapping, shifted by 0.2 */
    mbx_compare *c = NULL;
    assert_int_equal(mbx_compare_load(tmp("N1.csv"), tmp("N2.csv"), 0.05, &c, NULL, 0), MBX_OK);
    const mbx_cmp_point *p = mbx_compare_get(c, 0);
    assert_false(p->w.exact);
    assert_int_equal(p->verdict, '?');
    assert_true(p->w.z < -3);
    assert_float_equal(p->w.shift, -0.2e-6, 1e-12);
    mbx_compare_free(c);
}

/* Observations in passes (format 3): a point's sample is its pass
 * medians, the units the explorer's compare view tests. 5 passes of 9
 * observations each; pass p of A holds 1.0 + 0.1 p + 0.01 i (i = 0..8), its
 * median 1.04 + 0.1 p; B is A plus 1 us. 45 observations a side would give
 * p near 1e-16; 5 pass medians a side give the exact 2 / C(10, 5). */
static double unif(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

/* Interleaved points whose passes straddle two machine levels: Send at
 * 0.21 us (5 passes at the fast level) and 0.66 us (4 at the slow one),
 * Ssend at 0.39 us (4 fast) and 1.02 us (1 slow). Over all passes the
 * slow Send passes outrank most Ssend passes and the plain test cannot
 * tell; stratified by level, Send is below Ssend in both levels. */
/* One worked example (over 80 lines): the plain and the stratified test on the same two samples,
 * step by step. */
static void leveled(void **state)
{
    (void)state;
    double a[9] = {0.210, 0.660, 0.212, 0.661, 0.209, 0.659, 0.211, 0.662, 0.213};
    int la[9] = {0, 1, 0, 1, 0, 1, 0, 1, 0};
    double b[5] = {0.390, 0.392, 1.020, 0.391, 0.393};
    int lb[5] = {0, 0, 1, 0, 0};
    mbx_cmp_point all, lv;
    size_t strata = 7;
    assert_int_equal(mbx_compare_samples(a, 9, b, 5, 0.05, &all), MBX_OK);
    assert_int_equal(all.verdict, '=');
    assert_int_equal(mbx_compare_samples_leveled(a, la, 9, b, lb, 5, 0.05, &lv, &strata), MBX_OK);
    assert_int_equal(strata, 2);
    assert_int_equal(lv.verdict, '<');
    /* Exact: level 0, 5 A below 4 B: P = 1/C(9,5) = 1/126 for the least
     * rank sum; level 1, 4 A below 1 B: 1/5. The observed sum is the least
     * possible, so p_less = 1/630 and two-sided 2/630. */
    assert_true(fabs(lv.w.p_less - 1.0 / 630.0) < 1e-12);
    assert_true(fabs(lv.w.p_two_sided - 2.0 / 630.0) < 1e-12);
    assert_int_equal(lv.w.n1, 9);
    assert_int_equal(lv.w.n2, 5);
    assert_true(isnan(lv.w.shift));
    /* No levels, or one level: the plain test, strata 0. */
    int one[9] = {0};
    int oneb[5] = {0};
    assert_int_equal(mbx_compare_samples_leveled(a, NULL, 9, b, lb, 5, 0.05, &lv, &strata), MBX_OK);
    assert_int_equal(strata, 0);
    assert_int_equal(lv.verdict, all.verdict);
    assert_int_equal(mbx_compare_samples_leveled(a, one, 9, b, oneb, 5, 0.05, &lv, &strata),
                     MBX_OK);
    assert_int_equal(strata, 0);
    assert_true(lv.w.p_two_sided == all.w.p_two_sided);
    /* B at a level A never saw: no level in common, nothing can be said
     * (p 1, not distinguishable), however far apart the values are; and
     * the same with each at one level, not the same one. */
    int lb1[5] = {2, 2, 2, 2, 2};
    assert_int_equal(mbx_compare_samples_leveled(a, la, 9, b, lb1, 5, 0.05, &lv, &strata), MBX_OK);
    assert_int_equal(strata, 0);
    assert_int_equal(lv.verdict, '=');
    assert_true(lv.w.p_two_sided == 1.0);
    assert_int_equal(mbx_compare_samples_leveled(a, one, 9, b, lb1, 5, 0.05, &lv, &strata), MBX_OK);
    assert_int_equal(lv.verdict, '=');
    /* A level one side has alone is left out: level 1 of A (4 passes)
     * when B has none there. */
    int lb0[5] = {0, 0, 0, 0, 0};
    double b0[5] = {0.390, 0.392, 0.394, 0.391, 0.393};
    mbx_wilcoxon w;
    assert_int_equal(mbx_wilcoxon_stratified(a, la, 9, b0, lb0, 5, &w, &strata), MBX_OK);
    assert_int_equal(strata, 1);
    assert_int_equal(w.n1, 5);
    assert_true(fabs(w.p_two_sided - 2.0 / 252.0) < 1e-12); /* 5 against 5 */
    /* Identical samples at two levels: nothing to find (p 1 both ways is
     * not required, but no verdict). */
    double c[4] = {1, 2, 1, 2};
    int lc[4] = {0, 1, 0, 1};
    assert_int_equal(mbx_compare_samples_leveled(c, lc, 4, c, lc, 4, 0.05, &lv, &strata), MBX_OK);
    assert_int_equal(lv.verdict, '=');
    assert_int_equal(mbx_wilcoxon_stratified(c, NULL, 4, c, lc, 4, &w, NULL), MBX_E_INVAL);

    /* Its false alarms: 2000 seeded pairs of one distribution (2 %
     * noise) whose passes land at two levels 3x apart at random, 5 to 15
     * passes a side: at alpha 0.05 the stratified test (exact,
     * conservative with small strata) calls at most 5 % different; the
     * plain test over the same passes is far off. */
    uint64_t st = 12345;
    size_t alarms = 0, plain_alarms = 0, runs = 2000;
    for (size_t r = 0; r < runs; r++) {
        double xa[15], xb[15];
        int ya[15], yb[15];
        size_t n1 = 5 + (size_t)(10 * unif(&st)), n2 = 5 + (size_t)(10 * unif(&st));
        double pa = unif(&st); /* A's share of slow passes differs from B's */
        double pb = unif(&st);
        for (size_t i = 0; i < n1; i++) {
            ya[i] = unif(&st) < pa;
            xa[i] = (ya[i] ? 3.0 : 1.0) * (1 + 0.02 * (unif(&st) - 0.5));
        }
        for (size_t i = 0; i < n2; i++) {
            yb[i] = unif(&st) < pb;
            xb[i] = (yb[i] ? 3.0 : 1.0) * (1 + 0.02 * (unif(&st) - 0.5));
        }
        mbx_cmp_point cp;
        assert_int_equal(mbx_compare_samples_leveled(xa, ya, n1, xb, yb, n2, 0.05, &cp, NULL),
                         MBX_OK);
        alarms += cp.verdict != '=';
        assert_int_equal(mbx_compare_samples(xa, n1, xb, n2, 0.05, &cp), MBX_OK);
        plain_alarms += cp.verdict != '=';
    }
    print_message("Send vs Send at two levels: stratified %zu, plain %zu false alarms of %zu\n",
                  alarms, plain_alarms, runs);
    assert_true(alarms * 100 <= runs * 5);
    assert_true(plain_alarms * 100 > runs * 20);
}

static void pass_medians(void **state)
{
    (void)state;
    mbx_result r = row("pingpong.send_recv", 8, 1.0, OK);
    g_per_pass = 9; /* obs_open writes the pass column */
    write_results(tmp("P1.csv"), &r, 1);
    write_results(tmp("P2.csv"), &r, 1);
    mbx_csv_writer *w[2] = {obs_open(tmp("P1.csv")), obs_open(tmp("P2.csv"))};
    /* observation i: pass i / 9, value 1.0 + side + 0.1 (i / 9) + 0.01 (i % 9) */
    for (int side = 0; side < 2; side++) {
        for (size_t i = 0; i < 45; i++) {
            char obs[16], t[32], pass[16];
            snprintf(obs, sizeof obs, "%zu", i);
            snprintf(t, sizeof t, "%.4f",
                     1.0 + side + 0.1 * (double)(i / 9) + 0.01 * (double)(i % 9));
            snprintf(pass, sizeof pass, "%zu", i / 9);
            const char *f[MBX_OBS_NCOLS] = {
                "pingpong.send_recv", "2", "8", obs, t, "cli", "", "", pass};
            assert_int_equal(mbx_csv_writer_row(w[side], f), MBX_OK);
        }
        assert_int_equal(mbx_csv_writer_close(w[side]), MBX_OK);
    }
    g_per_pass = 0;
    mbx_compare *c = NULL;
    assert_int_equal(mbx_compare_load(tmp("P1.csv"), tmp("P2.csv"), 0.05, &c, NULL, 0), MBX_OK);
    mbx_compare_summary s;
    mbx_compare_summarize(c, &s);
    assert_string_equal(s.kind_a, "pass medians");
    assert_string_equal(s.kind_b, "pass medians");
    const mbx_cmp_point *p = mbx_compare_get(c, 0);
    assert_int_equal(p->n_a, 5);
    assert_int_equal(p->n_b, 5);
    assert_float_equal(p->median_a, 1.24e-6, 1e-12);
    assert_float_equal(p->median_b, 2.24e-6, 1e-12);
    assert_true(p->w.exact);
    assert_float_equal(p->w.p_two_sided, 2.0 / 252.0, 1e-12);
    assert_int_equal(p->verdict, '?');
    mbx_compare_free(c);

    /* A pass field that is no count is refused, by file, line and column. */
    write_results(tmp("P3.csv"), &r, 1);
    FILE *f = fopen(tmp("P3.obs.csv"), "wb");
    assert_non_null(f);
    fputs("benchmark,procs,bytes,obs,time_us,label,root,param,pass\n"
          "pingpong.send_recv,2,8,0,1.0,cli,,,first\n",
          f);
    assert_int_equal(fclose(f), 0);
    char msg[256];
    assert_int_equal(mbx_compare_load(tmp("P3.csv"), tmp("P1.csv"), 0.05, &c, msg, sizeof msg),
                     MBX_E_PROTO);
    assert_non_null(strstr(msg, "P3.obs.csv:2: pass: expected a whole number"));
    assert_null(c);
}

/* An UNRELIABLE point's observations are not used: the point is B's only. */
static void unreliable_observations(void **state)
{
    (void)state;
    mbx_result ra[] = {row("pingpong.send_recv", 8, 1.0, BAD),
                       row("pingpong.send_recv", 64, 1.0, OK)};
    mbx_result rb[] = {row("pingpong.send_recv", 8, 1.0, OK),
                       row("pingpong.send_recv", 64, 1.0, OK)};
    write_results(tmp("U1.csv"), ra, 2);
    write_results(tmp("U2.csv"), rb, 2);
    mbx_csv_writer *w = obs_open(tmp("U1.csv"));
    write_obs(w, &ra[0], 10, 1.0, 0.01);
    write_obs(w, &ra[1], 10, 1.0, 0.01);
    /* the point in flight when the run stopped: no results row, not used */
    mbx_result flight = row("pingpong.send_recv", 512, 1.0, OK);
    write_obs(w, &flight, 3, 1.0, 0.01);
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
    w = obs_open(tmp("U2.csv"));
    write_obs(w, &rb[0], 10, 1.0, 0.01);
    write_obs(w, &rb[1], 10, 1.0, 0.01);
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
    mbx_compare *c = NULL;
    assert_int_equal(mbx_compare_load(tmp("U1.csv"), tmp("U2.csv"), 0.05, &c, NULL, 0), MBX_OK);
    mbx_compare_summary s;
    mbx_compare_summarize(c, &s);
    assert_int_equal(s.tested, 1);
    assert_int_equal(mbx_compare_get(c, 0)->bytes, 64);
    assert_int_equal(s.only_a, 0);
    assert_int_equal(s.only_b, 1);
    mbx_compare_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(samples_known_values), cmocka_unit_test(observations),
        cmocka_unit_test(normal_approximation), cmocka_unit_test(unreliable_observations),
        cmocka_unit_test(pass_medians),         cmocka_unit_test(leveled),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
