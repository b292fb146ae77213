/* The merged row's scope and prediction interval (engine/core/merge.c):
 * launches:K beside a CI over runs, pi95 from the launch medians by hand,
 * and the PI's coverage of one more launch on seeded log-normal launches,
 * through mbx_merge itself (docs/algorithms.md, "Prediction interval over
 * launches"). The inputs are minimal old files (8 columns), as merge must
 * still read. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/csvio.h"
#include "mbx/merge.h"
#include "mbx/status.h"

/* Merge one row per run with these medians (µs); fields of the merged row. */
static void merge_medians(const double *med, size_t k, mbx_merge_fields *f)
{
    mbx_merge *m = NULL;
    char msg[256];
    assert_int_equal(mbx_merge_new(&m), MBX_OK);
    for (size_t i = 0; i < k; i++) {
        char text[256];
        int n = snprintf(text, sizeof text,
                         "benchmark,procs,bytes,n,tmean_us,median_us,status,label\n"
                         "pingpong.send_recv,2,8,10,%.6f,%.6f,SETTLED,cli\n",
                         med[i], med[i]);
        mbx_csv_table t;
        assert_int_equal(mbx_csv_read_buffer(text, (size_t)n, &t), MBX_OK);
        assert_int_equal(mbx_merge_add_table(m, &t, "run.csv", msg, sizeof msg), MBX_OK);
        mbx_csv_table_free(&t);
    }
    mbx_merge_format(m, 0, f);
    /* the fields point into f's store or the merge's text: copy what is read */
    for (int c = 0; c < MBX_MERGE_NCOLS; c++)
        if (f->field[c] != f->store[c]) {
            snprintf(f->store[c], sizeof f->store[c], "%s", f->field[c]);
            f->field[c] = f->store[c];
        }
    mbx_merge_free(m);
}

static int col(const char *name)
{
    for (int c = 0; c < MBX_MERGE_NCOLS; c++)
        if (strcmp(mbx_merge_columns[c], name) == 0)
            return c;
    fail_msg("no merged column %s", name);
    return -1;
}

static void scope_and_pi_by_hand(void **state)
{
    (void)state;
    const double med[] = {2.0, 4.0, 3.0, 2.5};
    mbx_merge_fields f;
    merge_medians(med, 4, &f);
    assert_string_equal(f.field[col("ci_scope")], "launches:4");
    double s1 = 0, s2 = 0;
    for (int i = 0; i < 4; i++)
        s1 += log(med[i]);
    double mean = s1 / 4;
    for (int i = 0; i < 4; i++)
        s2 += (log(med[i]) - mean) * (log(med[i]) - mean);
    double h = 3.182446 * sqrt(s2 / 3) * sqrt(1 + 0.25); /* t(3, 0.975) */
    double lo = strtod(f.field[col("pi95_lo_us")], NULL),
           hi = strtod(f.field[col("pi95_hi_us")], NULL);
    printf("# launches 2, 4, 3, 2.5 us: PI %.4f .. %.4f (by hand %.4f .. %.4f)\n", lo, hi,
           exp(mean - h), exp(mean + h));
    assert_true(fabs(lo / exp(mean - h) - 1) < 2e-3);
    assert_true(fabs(hi / exp(mean + h) - 1) < 2e-3);
    /* one run: no interval, no scope */
    merge_medians(med, 1, &f);
    assert_string_equal(f.field[col("ci_scope")], "");
    assert_string_equal(f.field[col("pi95_lo_us")], "");
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static double unif(void)
{
    rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
    return ((double)((rng * 2685821657736338717ULL) >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void)
{
    return sqrt(-2 * log(unif())) * cos(6.283185307179586 * unif());
}

static void pi_covers_another_launch(void **state)
{
    (void)state;
    enum { TRIALS = 2000 };
    static const size_t ks[] = {3, 10};
    for (size_t j = 0; j < sizeof ks / sizeof *ks; j++) {
        size_t k = ks[j], hit = 0;
        for (int t = 0; t < TRIALS; t++) {
            double med[10];
            for (size_t i = 0; i < k; i++)
                med[i] = 5.0 * exp(0.08 * gauss());
            double next = 5.0 * exp(0.08 * gauss());
            mbx_merge_fields f;
            merge_medians(med, k, &f);
            double lo = strtod(f.field[col("pi95_lo_us")], NULL);
            double hi = strtod(f.field[col("pi95_hi_us")], NULL);
            hit += lo <= next && next <= hi;
        }
        double n = TRIALS, p = (double)hit / n, z = 1.96, d = 1 + z * z / n;
        double c = p + z * z / (2 * n), w = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n));
        printf("# K %zu launches, 8 %% launch spread: the PI holds the next launch's median in "
               "%.1f %% (Wilson 95 %% %.1f..%.1f)\n",
               k, 100 * p, 100 * (c - w) / d, 100 * (c + w) / d);
        assert_true((c - w) / d >= 0.93);
        assert_true((c + w) / d >= 0.95);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scope_and_pi_by_hand),
        cmocka_unit_test(pi_covers_another_launch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
