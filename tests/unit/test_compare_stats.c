/* Unit tests of the comparison's statistics (engine/core/compare_stats.c,
 * mbx/compare.h): BH q-values on known p vectors, the coverage of an
 * order-statistic interval, the HL ratio and the equivalence test on
 * known data (values by enumeration of all rank orders), the scope of a
 * comparison by its inputs, the curve verdict, and by seeded simulation
 * through mbx_compare_load_opts the share of identical points called
 * different and the power against a shift, with launch effects. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "mbx/compare.h"

static const char *tmp(const char *fmt, ...)
{
    static char buf[8][512];
    static int next;
    char *p = buf[next++ % 8];
    int n = snprintf(p, sizeof buf[0], "%s/cmp_stats/", MBX_TMP_DIR);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p + n, sizeof buf[0] - (size_t)n, fmt, ap);
    va_end(ap);
    return p;
}

/* Benjamini & Hochberg (1995), section 4: 15 p-values, of which the
 * procedure at q = 0.05 rejects the four smallest. And a hand-worked
 * vector: sorted 0.005, 0.01, 0.03, 0.04 give m p / j = 0.02, 0.02, 0.04,
 * 0.04, so q = 0.02, 0.02, 0.04, 0.04 in sorted order. */
static void bh_known_vectors(void **state)
{
    (void)state;
    const double bh95[15] = {0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344,
                             0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.000};
    double q[15];
    assert_int_equal(mbx_compare_bh(bh95, 15, q), 0);
    size_t rejected = 0;
    for (size_t i = 0; i < 15; i++)
        rejected += q[i] < 0.05;
    assert_int_equal(rejected, 4);
    assert_float_equal(q[0], 0.0015, 1e-12);   /* 15 x 0.0001 / 1 = 0.0015 */
    assert_float_equal(q[3], 0.035625, 1e-12); /* 15 x 0.0095 / 4 */
    assert_float_equal(q[14], 1.0, 1e-12);

    const double p[4] = {0.01, 0.04, 0.03, 0.005};
    assert_int_equal(mbx_compare_bh(p, 4, q), 0);
    assert_float_equal(q[0], 0.02, 1e-12);
    assert_float_equal(q[1], 0.04, 1e-12);
    assert_float_equal(q[2], 0.04, 1e-12);
    assert_float_equal(q[3], 0.02, 1e-12);

    const double bad[2] = {0.5, 1.5};
    assert_int_equal(mbx_compare_bh(bad, 2, q), MBX_E_INVAL);
    assert_int_equal(mbx_compare_bh(NULL, 0, NULL), 0);
}

/* [x_(l), x_(k+1-l)] of K launch medians covers their median with
 * 1 - 2 P(B <= l - 1), B ~ Bin(K, 1/2): K = 10, l = 2: 1 - 2 x 11 / 1024;
 * l = 3 would give 1 - 2 x 56 / 1024 = 89.1 %, so l = 2 is the 95 %
 * rank. K = 5 reaches 95 % with no l: the range, 1 - 2 / 32. */
static void order_statistic_coverage(void **state)
{
    (void)state;
    assert_float_equal(mbx_compare_os_coverage(10, 2), 1.0 - 22.0 / 1024.0, 1e-12);
    assert_float_equal(mbx_compare_os_coverage(10, 3), 1.0 - 112.0 / 1024.0, 1e-12);
    double cov;
    assert_int_equal(mbx_compare_os_rank(10, 0.95, &cov), 2);
    assert_float_equal(cov, 1.0 - 22.0 / 1024.0, 1e-12);
    assert_int_equal(mbx_compare_os_rank(5, 0.95, &cov), 1);
    assert_float_equal(cov, 0.9375, 1e-12);
    assert_true(isnan(mbx_compare_os_coverage(10, 0)));
    assert_true(isnan(mbx_compare_os_coverage(10, 6)));
}

/* a = 1.00, 1.01, ..., 1.09 against b = c a: the HL ratio is c exactly
 * (the log differences are symmetric about log c); by enumerating the
 * C(20, 10) rank orders, the 90 % interval is D_(28), D_(73) (achieved
 * 91.08 %): 0.97248..1.02830 for c = 1. TOST at 5 %: inside
 * [1/1.05, 1.05] for c = 1 and 1.01, not for 1.10 (1.0697..1.1311),
 * which is inside at 20 %; c = 1 is not inside 2.5 % (0.9725 < 1/1.025). */
static void hl_ratio_and_equivalence(void **state)
{
    (void)state;
    double a[10], b[10];
    for (int i = 0; i < 10; i++)
        a[i] = 1.0 + 0.01 * i;
    mbx_cmp_point p;
    assert_int_equal(mbx_compare_shift(a, 10, a, 10, 0.05, &p), 0);
    assert_float_equal(p.hl_ratio, 1.0, 1e-12);
    assert_float_equal(p.eq_lo, 0.9724770642201834, 1e-12);
    assert_float_equal(p.eq_hi, 1.028301886792453, 1e-12);
    assert_float_equal(p.hl_lo, 0.9714285714285714, 1e-12);
    assert_float_equal(p.hl_hi, 1.0294117647058825, 1e-12);
    assert_float_equal(p.hl_conf, 0.9567429474550218, 1e-12);
    assert_int_equal(p.equiv, 'y');
    assert_int_equal(mbx_compare_shift(a, 10, a, 10, 0.025, &p), 0);
    assert_int_equal(p.equiv, 'n');

    for (int i = 0; i < 10; i++)
        b[i] = a[i] * 1.01;
    assert_int_equal(mbx_compare_shift(a, 10, b, 10, 0.05, &p), 0);
    assert_float_equal(p.hl_ratio, 1.01, 1e-12);
    assert_int_equal(p.equiv, 'y');
    for (int i = 0; i < 10; i++)
        b[i] = a[i] * 1.10;
    assert_int_equal(mbx_compare_shift(a, 10, b, 10, 0.05, &p), 0);
    assert_float_equal(p.hl_ratio, 1.10, 1e-12);
    assert_float_equal(p.eq_lo, 1.069724770642202, 1e-12);
    assert_float_equal(p.eq_hi, 1.1311320754716983, 1e-12);
    assert_int_equal(p.equiv, 'n');
    assert_int_equal(mbx_compare_shift(a, 10, b, 10, 0.20, &p), 0);
    assert_int_equal(p.equiv, 'y');
    /* B/A and A/B agree: the margin is symmetric on the log scale */
    assert_int_equal(mbx_compare_shift(b, 10, a, 10, 0.20, &p), 0);
    assert_int_equal(p.equiv, 'y');
    assert_float_equal(p.hl_ratio, 1 / 1.10, 1e-12);

    /* 3 against 3 cannot reach 95 %: no interval, no equivalence */
    assert_int_equal(mbx_compare_shift(a, 3, a, 3, 0.05, &p), 0);
    assert_true(isinf(p.hl_hi) && p.hl_lo == 0);
    assert_int_equal(p.equiv, 'n');
    /* a value <= 0 has no log: no ratio */
    b[0] = 0;
    assert_int_equal(mbx_compare_shift(a, 10, b, 10, 0.05, &p), 0);
    assert_true(isnan(p.hl_ratio));
    assert_int_equal(p.equiv, 0);
    assert_int_equal(mbx_compare_shift(a, 10, a, 10, 1.0, &p), MBX_E_INVAL);
}

/* Deterministic standard normals (xorshift and Box-Muller). */
static uint64_t rng = 88172645463325252ull;
static double unif(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void)
{
    return sqrt(-2 * log(unif())) * cos(6.283185307179586 * unif());
}

#define SIZES 8

/* DIR/launch-NN.csv for K launches of SIZES points: each launch draws one
 * factor exp(N(0, launch_sd)) for all its points (the launch is a
 * factor), each point exp(N(0, 0.01)) of its own; times scale * base. */
static void write_dir(const char *dir, int k, double launch_sd, double scale)
{
    mkdir(dir, 0700);
    for (int j = 1; j <= k; j++) {
        char path[600];
        snprintf(path, sizeof path, "%s/launch-%02d.csv", dir, j);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "benchmark,procs,bytes,median_us,status,label\n");
        double launch = exp(launch_sd * gauss());
        for (int s = 0; s < SIZES; s++)
            fprintf(f, "pingpong.send_recv,2,%d,%.6f,SETTLED,cli\n", 1 << (2 * s),
                    scale * (1.0 + s) * launch * exp(0.01 * gauss()));
        assert_int_equal(fclose(f), 0);
    }
}

/* Wilson 95 % interval of x successes in n trials. */
static void wilson(size_t x, size_t n, double *lo, double *hi)
{
    double z = 1.959964, p = (double)x / (double)n, d = 1 + z * z / (double)n;
    double c = (p + z * z / (2.0 * (double)n)) / d;
    double h = z * sqrt(p * (1 - p) / (double)n + z * z / (4.0 * (double)n * (double)n)) / d;
    *lo = c - h, *hi = c + h;
}

/* Per trial two directories of K = 10 launches, B = shift x A: the share
 * of points called different (and of curves), through the production
 * path at the defaults (alpha 0.05, delta 5 %). */
static void simulate(int trials, double launch_sd, double shift, size_t *called, size_t *points,
                     size_t *curves_called, size_t *same)
{
    *called = *points = *curves_called = *same = 0;
    for (int t = 0; t < trials; t++) {
        write_dir(tmp("simA"), 10, launch_sd, 1.0);
        write_dir(tmp("simB"), 10, launch_sd, shift);
        mbx_compare *c = NULL;
        char msg[512];
        mbx_compare_opts o = {.alpha = 0.05};
        assert_int_equal(mbx_compare_load_opts(tmp("simA"), tmp("simB"), &o, &c, msg, sizeof msg),
                         0);
        mbx_compare_summary s;
        mbx_compare_summarize(c, &s);
        assert_int_equal(s.scope, MBX_CMP_SCOPE_LAUNCHES);
        *called += s.faster + s.slower;
        *points += s.tested;
        *same += s.equivalent;
        *curves_called += mbx_compare_curve_get(c, 0)->verdict != '=';
        mbx_compare_free(c);
    }
}

static int sim_trials(void)
{
    const char *e = getenv("MBX_COMPARE_TRIALS");
    return e && atoi(e) > 0 ? atoi(e) : 100;
}

/* Launch effects of 5 % and 10 % (sd of the log), K = 10 a side: identical
 * settings called different at <= 5 % of points (BH at 0.05); a 10 %
 * shift found. The figures are printed with their Wilson intervals. */
static void launch_effects(void **state)
{
    (void)state;
    int trials = sim_trials();
    const double sd[2] = {0.05, 0.10};
    for (int i = 0; i < 2; i++) {
        size_t called, n, cc, same;
        double lo, hi, clo, chi;
        simulate(trials, sd[i], 1.0, &called, &n, &cc, &same);
        wilson(called, n, &lo, &hi);
        wilson(cc, (size_t)trials, &clo, &chi);
        print_message("launch effect %.0f %%, K = 10, identical: %zu of %zu points different "
                      "(%.2f %%, 95 %% CI %.2f..%.2f %%), curves %zu of %d; same within 5 %%: "
                      "%.1f %%\n",
                      100 * sd[i], called, n, 100.0 * (double)called / (double)n, 100 * lo,
                      100 * hi, cc, trials, 100.0 * (double)same / (double)n);
        /* Judged only over enough trials: a launch factor moves all sizes
         * of a table at once, so false calls come in whole tables. */
        if (trials >= 100) /* curves: a test per table, at alpha 0.05 */
            assert_true((double)called / (double)n <= 0.05 && clo <= 0.05);
        simulate(trials, sd[i], 1.10, &called, &n, &cc, &same);
        wilson(called, n, &lo, &hi);
        wilson(cc, (size_t)trials, &clo, &chi);
        print_message("launch effect %.0f %%, K = 10, B 10 %% slower: power %.1f %% (95 %% CI "
                      "%.1f..%.1f %%) of points, %.1f %% (%.1f..%.1f %%) of curves\n",
                      100 * sd[i], 100.0 * (double)called / (double)n, 100 * lo, 100 * hi,
                      100.0 * (double)cc / trials, 100 * clo, 100 * chi);
        if (trials >= 100)
            assert_true(sd[i] < 0.06 ? lo >= 0.8 : hi >= 0.3);
    }
}

/* NAME.csv and NAME.obs.csv: a run with one point of `bytes` per label,
 * 6 passes of one observation each, base[i] + 0.01 pass us. */
static void write_run(const char *name, int bytes, const char *const *label, const double *base,
                      int nlabels)
{
    FILE *f = fopen(tmp("%s.csv", name), "w"), *g = fopen(tmp("%s.obs.csv", name), "w");
    assert_true(f && g);
    fprintf(f, "benchmark,procs,bytes,median_us,status,label\n");
    fprintf(g, "benchmark,procs,bytes,time_us,label,pass\n");
    for (int i = 0; i < nlabels; i++) {
        fprintf(f, "pingpong.send_recv,2,%d,%g,SETTLED,%s\n", bytes, base[i], label[i]);
        for (int p = 0; p < 6; p++)
            fprintf(g, "pingpong.send_recv,2,%d,%g,%s,%d\n", bytes, base[i] + 0.01 * p, label[i],
                    p);
    }
    assert_int_equal(fclose(f) | fclose(g), 0);
}

/* The scope follows the inputs: two directories compare launches; one
 * file on both sides its interleaved sections; two files (or a file and
 * a directory) are launches apart and get no verdict, with the line that
 * says what to run. */
static void scope_by_inputs(void **state)
{
    (void)state;
    write_dir(tmp("dA"), 4, 0.01, 1.0);
    write_dir(tmp("dB"), 4, 0.01, 1.5);
    mbx_compare *c = NULL;
    char msg[512];
    mbx_compare_summary s;
    assert_int_equal(mbx_compare_load(tmp("dA"), tmp("dB"), 0.05, &c, msg, sizeof msg), 0);
    mbx_compare_summarize(c, &s);
    assert_int_equal(s.scope, MBX_CMP_SCOPE_LAUNCHES);
    assert_int_equal(s.k, 4);
    assert_int_equal(s.faster, SIZES);
    assert_int_equal(mbx_compare_curve_count(c), 1);
    assert_int_equal(mbx_compare_curve_get(c, 0)->verdict, '<');
    assert_int_equal(mbx_compare_curve_get(c, 0)->sizes, SIZES);
    char text[48];
    mbx_compare_scope_text(s.scope, s.k, text, sizeof text);
    assert_string_equal(text, "launches:4");
    mbx_compare_free(c);

    /* a launch's results file with its pass-tagged observations */
    const char *xy[2] = {"x", "y"}, *cli[1] = {"cli"};
    const double base[2] = {1.0, 2.0}, mid[1] = {1.5};
    write_run("one", 8, xy, base, 2);
    mbx_compare_opts o = {.alpha = 0.05, .ignore = MBX_COMPARE_IGNORE_LABEL};
    assert_int_equal(mbx_compare_load_opts(tmp("one.csv"), tmp("one.csv"), &o, &c, msg, sizeof msg),
                     0);
    mbx_compare_summarize(c, &s);
    assert_int_equal(s.scope, MBX_CMP_SCOPE_ONE_JOB);
    assert_null(s.why_none);
    mbx_compare_free(c);

    unlink(tmp("two.csv"));
    unlink(tmp("two.obs.csv"));
    assert_int_equal(symlink("one.csv", tmp("two.csv")), 0);
    assert_int_equal(symlink("one.obs.csv", tmp("two.obs.csv")), 0);
    /* the same file under another name is still one job */
    assert_int_equal(mbx_compare_load_opts(tmp("one.csv"), tmp("two.csv"), &o, &c, msg, sizeof msg),
                     0);
    mbx_compare_summarize(c, &s);
    assert_int_equal(s.scope, MBX_CMP_SCOPE_ONE_JOB);
    mbx_compare_free(c);

    /* a copy is another launch as far as compare can tell */
    write_run("copy", 8, xy, mid, 1);
    o.ignore = 0;
    assert_int_equal(
        mbx_compare_load_opts(tmp("one.csv"), tmp("copy.csv"), &o, &c, msg, sizeof msg), 0);
    mbx_compare_summarize(c, &s);
    assert_int_equal(s.scope, MBX_CMP_SCOPE_NONE);
    assert_non_null(strstr(s.why_none, "mpibex repeat -k 10"));
    assert_int_equal(s.faster + s.slower + s.same, 0);
    assert_int_equal(mbx_compare_get(c, 0)->verdict, '?');
    assert_true(isnan(mbx_compare_get(c, 0)->q));
    assert_int_equal(mbx_compare_curve_count(c), 0);
    assert_string_equal(mbx_compare_point_word(mbx_compare_get(c, 0)), "none");
    mbx_compare_free(c);
    /* an observation file written before passes: not interleaved */
    FILE *f = fopen(tmp("old.csv"), "w"), *g = fopen(tmp("old.obs.csv"), "w");
    assert_true(f && g);
    fprintf(f, "benchmark,procs,bytes,median_us,status,label\n"
               "pingpong.send_recv,2,8,1.0,SETTLED,x\npingpong.send_recv,2,8,2.0,SETTLED,y\n");
    fprintf(g, "benchmark,procs,bytes,time_us,label\n");
    for (int i = 0; i < 6; i++)
        fprintf(g, "pingpong.send_recv,2,8,%d.0%d,x\npingpong.send_recv,2,8,%d.0%d,y\n", 1, i, 2,
                i);
    assert_int_equal(fclose(f) | fclose(g), 0);
    o.ignore = MBX_COMPARE_IGNORE_LABEL;
    assert_int_equal(mbx_compare_load_opts(tmp("old.csv"), tmp("old.csv"), &o, &c, msg, sizeof msg),
                     0);
    mbx_compare_summarize(c, &s);
    assert_int_equal(s.scope, MBX_CMP_SCOPE_NONE);
    assert_string_equal(s.kind_a, "observations");
    assert_non_null(strstr(s.why_none, "measured before passes"));
    assert_int_equal(mbx_compare_count(c), 1);
    mbx_compare_free(c);
    o.ignore = 0;
    /* a directory against one launch: launches apart too */
    write_run("single", 1, cli, base, 1);
    assert_int_equal(mbx_compare_load_opts(tmp("dA"), tmp("single.csv"), &o, &c, msg, sizeof msg),
                     0);
    mbx_compare_summarize(c, &s);
    assert_int_equal(s.scope, MBX_CMP_SCOPE_NONE);
    mbx_compare_free(c);
    o.delta = 1.5;
    assert_int_equal(mbx_compare_load_opts(tmp("dA"), tmp("dB"), &o, &c, msg, sizeof msg),
                     MBX_E_INVAL);
    assert_non_null(strstr(msg, "delta: expected 0 < delta < 1"));
}

static int setup(void **state)
{
    (void)state;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/cmp_stats", MBX_TMP_DIR);
    mkdir(dir, 0700);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bh_known_vectors),         cmocka_unit_test(order_statistic_coverage),
        cmocka_unit_test(hl_ratio_and_equivalence), cmocka_unit_test(scope_by_inputs),
        cmocka_unit_test(launch_effects),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
