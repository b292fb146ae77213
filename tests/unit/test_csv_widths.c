/* Results files of every width (docs/csv-format.md, "Widths"):
 * 40, 41, 42 and 43 columns (format 1 and 2), 51 (format 3, the pass
 * columns) and 52 (rma_sync), written through libcsv as `mpibex run` writes them and read back
 * by merge, compare and the --resume reader (engine/core/journal.c), alone and
 * mixed; and a file that mixes widths inside itself, which every reader
 * refuses with its line. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mbx/compare.h"
#include "mbx/csvio.h"
#include "mbx/journal.h"
#include "mbx/merge.h"
#include "mbx/result.h"

#ifndef MBX_TMP_DIR
#error "compile with -DMBX_TMP_DIR=\"<a writable directory>\""
#endif

#define W_FORMAT2 43 /* up to faults */
#define HASH 0x5eedf00dull

static const char *tmp(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *tmp(const char *fmt, ...)
{
    static char buf[4][512];
    static int k;
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/widths_%ld_%s", MBX_TMP_DIR, (long)getpid(), name);
    return buf[k];
}

/* A ping-pong point. passes > 0: measured in passes (format 3), with the
 * iid figures about a pooled median of iid_med_us and two levels. */
static mbx_result point(uint64_t bytes, double median_us, size_t passes)
{
    mbx_result r;
    memset(&r, 0, sizeof r);
    r.benchmark = "pingpong.send_recv";
    r.label = "cli";
    r.timing = "half_round_trip";
    r.procs = 2;
    r.bytes = bytes;
    r.s.n = passes ? 40 * passes : 40;
    r.s.median = median_us * 1e-6;
    r.s.mean = r.s.tmean = r.s.q1 = r.s.q3 = median_us * 1e-6;
    r.s.min = 0.9 * median_us * 1e-6;
    r.s.max = 1.1 * median_us * 1e-6;
    r.s.stddev = 0.01 * median_us * 1e-6;
    r.s.stderr_ = 0.005 * median_us * 1e-6;
    r.s.ci_lo = 0.99 * median_us * 1e-6;
    r.s.ci_hi = 1.01 * median_us * 1e-6;
    r.status = MBX_POINT_SETTLED;
    r.stop = (mbx_stop_rule){MBX_STOP_STDERR, 0.03, 0};
    r.nmin = 16;
    r.nmax = 1000;
    r.batches = 1;
    r.root = -1;
    r.probe = r.probe_after = r.plain = NAN;
    snprintf(r.ranks, sizeof r.ranks, "0,1");
    if (passes > 0) {
        r.passes = passes;
        r.pass_span = 1.25;
        r.iid_stderr = 0.001 * median_us * 1e-6;
        r.iid_ci_lo = 0.95 * median_us * 1e-6;
        r.iid_ci_hi = 0.96 * median_us * 1e-6;
        r.levels = 2;
        r.level_lo = 0.98 * median_us * 1e-6;
        r.level_hi = 1.03 * median_us * 1e-6;
    }
    return r;
}

/* A results file of the first ncols columns, as `mpibex run` writes it. */
static void write_results(const char *path, size_t ncols, const mbx_result *r, size_t n)
{
    mbx_csv_writer *w;
    assert_int_equal(mbx_csv_writer_open(path, mbx_result_columns, ncols, &w), MBX_OK);
    for (size_t i = 0; i < n; i++) {
        mbx_result_fields f;
        mbx_result_format(&r[i], &f);
        assert_int_equal(mbx_csv_writer_row(w, f.field), MBX_OK);
    }
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
}

/* The format-3 row carries its pass columns; the narrower ones stop short. */
static void format3_row_has_pass_fields(void **state)
{
    (void)state;
    mbx_result r = point(8, 2.0, 5);
    write_results(tmp("w51.csv"), MBX_RESULT_NCOLS, &r, 1);
    write_results(tmp("w43.csv"), W_FORMAT2, &r, 1);
    mbx_csv_table t;
    assert_int_equal(mbx_csv_read_file(tmp("w51.csv"), &t), MBX_OK);
    assert_int_equal(t.ncols[0], MBX_RESULT_NCOLS);
    assert_int_equal(t.ncols[1], MBX_RESULT_NCOLS);
    assert_string_equal(t.cell[1][mbx_csv_table_col(&t, "passes")], "5");
    assert_string_equal(t.cell[1][mbx_csv_table_col(&t, "pass_span_s")], "1.250000");
    assert_string_equal(t.cell[1][mbx_csv_table_col(&t, "levels")], "2");
    assert_string_equal(t.cell[1][mbx_csv_table_col(&t, "level_hi_us")], "2.0600");
    mbx_csv_table_free(&t);
    assert_int_equal(mbx_csv_read_file(tmp("w43.csv"), &t), MBX_OK);
    assert_int_equal(t.ncols[0], W_FORMAT2);
    assert_int_equal(t.ncols[1], W_FORMAT2);
    assert_true(mbx_csv_table_col(&t, "passes") < 0);
    mbx_csv_table_free(&t);
    remove(tmp("w51.csv"));
    remove(tmp("w43.csv"));
}

static void merge_files(const char *const *paths, size_t n, mbx_merge **out)
{
    char msg[512] = "";
    assert_int_equal(mbx_merge_new(out), MBX_OK);
    for (size_t i = 0; i < n; i++)
        if (mbx_merge_add_file(*out, paths[i], msg, sizeof msg) != MBX_OK)
            fail_msg("%s", msg);
}

/* A 43- and a 51-column file of the same point merge into one row: the
 * median of the two runs' medians (the format-3 run's is its median of
 * pass medians), both settled, n summed; the output is the merged format
 * whatever the widths. */
static void merges_43_and_51_columns(void **state)
{
    (void)state;
    mbx_result a = point(1024, 3.0, 0), b = point(1024, 4.0, 5);
    write_results(tmp("m43.csv"), W_FORMAT2, &a, 1);
    write_results(tmp("m51.csv"), MBX_RESULT_NCOLS, &b, 1);
    const char *in[] = {tmp("m43.csv"), tmp("m51.csv")};
    mbx_merge *m;
    merge_files(in, 2, &m);
    mbx_merge_summary s;
    mbx_merge_summarize(m, &s);
    assert_int_equal(s.files, 2);
    assert_int_equal(s.keys, 1);
    assert_int_equal(s.partial_keys, 0);
    mbx_merge_fields f;
    mbx_merge_format(m, 0, &f);
    assert_string_equal(f.field[9], "2");        /* runs */
    assert_string_equal(f.field[10], "2");       /* files */
    assert_string_equal(f.field[12], "2");       /* settled_runs */
    assert_string_equal(f.field[13], "SETTLED"); /* status */
    assert_string_equal(f.field[14], "3.5000");  /* median_us */
    assert_string_equal(f.field[15], "3.0000");
    assert_string_equal(f.field[16], "4.0000");
    assert_string_equal(f.field[19], "240"); /* n_total: 40 + 5 passes x 40 */
    /* Through libcsv: the merged header and rows of its own width. */
    mbx_csv_writer *w;
    assert_int_equal(mbx_csv_writer_open(tmp("m.csv"), mbx_merge_columns, MBX_MERGE_NCOLS, &w),
                     MBX_OK);
    assert_int_equal(mbx_merge_write(m, w), MBX_OK);
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
    mbx_merge_free(m);
    mbx_csv_table t;
    assert_int_equal(mbx_csv_read_file(tmp("m.csv"), &t), MBX_OK);
    assert_int_equal(t.nrows, 2);
    assert_int_equal(t.ncols[0], MBX_MERGE_NCOLS);
    assert_int_equal(t.ncols[1], MBX_MERGE_NCOLS);
    assert_string_equal(t.cell[1][mbx_csv_table_col(&t, "median_us")], "3.5000");
    mbx_csv_table_free(&t);
    remove(tmp("m43.csv"));
    remove(tmp("m51.csv"));
    remove(tmp("m.csv"));
}

/* Every width there has been, in one merge, in either order: 51 is
 * format 3 before rma_sync. */
#define NWIDTHS 6
static void merges_every_width(void **state)
{
    (void)state;
    const size_t width[NWIDTHS] = {40, 41, 42, W_FORMAT2, 51, MBX_RESULT_NCOLS};
    const char *in[NWIDTHS], *rev[NWIDTHS];
    for (size_t i = 0; i < NWIDTHS; i++) {
        mbx_result r = point(64, 1.0 + (double)i, width[i] >= 51 ? 6 : 0);
        in[i] = strdup(tmp("e%zu.csv", width[i]));
        assert_non_null(in[i]);
        rev[NWIDTHS - 1 - i] = in[i];
        write_results(in[i], width[i], &r, 1);
    }
    for (int order = 0; order < 2; order++) {
        mbx_merge *m;
        merge_files(order ? rev : in, NWIDTHS, &m);
        mbx_merge_fields f;
        mbx_merge_format(m, 0, &f);
        assert_string_equal(f.field[9], "6");
        assert_string_equal(f.field[14], "3.5000"); /* median of 1 .. 6 */
        assert_string_equal(f.field[17], "5.000000");
        assert_string_equal(f.field[24], ""); /* rma_sync: not one-sided */
        mbx_merge_free(m);
    }
    for (size_t i = 0; i < NWIDTHS; i++) {
        remove(in[i]);
        free((void *)in[i]);
    }
}

/* A file whose rows change width part way (a 43-column row appended to a
 * file of today's width) is no results file: merge names the line (the resume
 * reader's refusal is test_journal's test_row_width_owns_nothing). */
static void mixed_width_file_refused(void **state)
{
    (void)state;
    mbx_result r[] = {point(8, 1.0, 5), point(16, 1.0, 0)};
    write_results(tmp("mixed.csv"), MBX_RESULT_NCOLS, r, 1);
    /* The second row as a 43-column writer would append it. */
    mbx_csv_writer *w;
    assert_int_equal(mbx_csv_writer_append(tmp("mixed.csv"), mbx_result_columns, W_FORMAT2, &w),
                     MBX_OK);
    mbx_result_fields f;
    mbx_result_format(&r[1], &f);
    assert_int_equal(mbx_csv_writer_row(w, f.field), MBX_OK);
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
    mbx_merge *m;
    char msg[512] = "";
    assert_int_equal(mbx_merge_new(&m), MBX_OK);
    assert_int_equal(mbx_merge_add_file(m, tmp("mixed.csv"), msg, sizeof msg), MBX_E_PROTO);
    char want[64];
    snprintf(want, sizeof want, "mixed.csv:3: 43 fields, the header has %d", MBX_RESULT_NCOLS);
    assert_non_null(strstr(msg, want));
    mbx_merge_free(m);
    remove(tmp("mixed.csv"));
}

static void make_dir(const char *p)
{
    assert_true(mkdir(p, 0700) == 0 || access(p, F_OK) == 0);
}

/* DIR/launch-01..05.csv, widths alternating 43 and 51 (the 51-column
 * launches measured in passes), medians base + 0.01 i. */
static void write_launches(const char *dir, double base)
{
    make_dir(tmp("%s", dir));
    for (int i = 1; i <= 5; i++) {
        mbx_result r = point(8, base + 0.01 * i, i % 2 ? 0 : 5);
        write_results(tmp("%s/launch-%02d.csv", dir, i), i % 2 ? W_FORMAT2 : MBX_RESULT_NCOLS, &r,
                      1);
    }
}

static void remove_launches(const char *dir)
{
    for (int i = 1; i <= 5; i++)
        remove(tmp("%s/launch-%02d.csv", dir, i));
    rmdir(tmp("%s", dir));
}

/* compare of two directories whose launches have different widths: every
 * launch's median is a sample. */
static void compares_mixed_launches(void **state)
{
    (void)state;
    write_launches("dA", 1.0);
    write_launches("dB", 2.0);
    mbx_compare *c = NULL;
    char msg[512] = "";
    if (mbx_compare_load(tmp("dA"), tmp("dB"), 0.05, &c, msg, sizeof msg) != MBX_OK)
        fail_msg("%s", msg);
    assert_int_equal(mbx_compare_count(c), 1);
    const mbx_cmp_point *p = mbx_compare_get(c, 0);
    assert_int_equal(p->n_a, 5);
    assert_int_equal(p->n_b, 5);
    assert_float_equal(p->median_a, 1.03e-6, 1e-12);
    assert_float_equal(p->median_b, 2.03e-6, 1e-12);
    assert_int_equal(p->verdict, '<');
    mbx_compare_free(c);
    remove_launches("dA");
    remove_launches("dB");
}

/* compare of a 43-column results file with a 51-column one, each with its
 * observations beside it. */
static void compares_43_with_51_results(void **state)
{
    (void)state;
    const size_t width[2] = {W_FORMAT2, MBX_RESULT_NCOLS};
    const char *name[2] = {"c43.csv", "c51.csv"};
    for (int k = 0; k < 2; k++) {
        mbx_result r = point(8, 1.0 + k, k ? 3 : 0);
        write_results(tmp("%s", name[k]), width[k], &r, 1);
        char *obs = mbx_csv_sidecar(tmp("%s", name[k]), ".obs.csv");
        assert_non_null(obs);
        mbx_csv_writer *w;
        /* format 2's observations have no pass column; format 3's are in
         * passes (3 of 4 observations), and its sample is their medians */
        size_t ncols = k ? MBX_OBS_NCOLS : MBX_OBS_NCOLS - 1;
        assert_int_equal(mbx_csv_writer_open(obs, mbx_obs_columns, ncols, &w), MBX_OK);
        free(obs);
        for (int i = 0; i < 12; i++) {
            char idx[16], t[32], pass[16];
            snprintf(idx, sizeof idx, "%d", i);
            snprintf(t, sizeof t, "%.4f", 1.0 + k + 0.01 * i);
            snprintf(pass, sizeof pass, "%d", i / 4);
            const char *f[MBX_OBS_NCOLS] = {
                "pingpong.send_recv", "2", "8", idx, t, "cli", "", "", pass};
            assert_int_equal(mbx_csv_writer_row(w, f), MBX_OK);
        }
        assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
    }
    mbx_compare *c = NULL;
    char msg[512] = "";
    if (mbx_compare_load(tmp("c43.csv"), tmp("c51.csv"), 0.05, &c, msg, sizeof msg) != MBX_OK)
        fail_msg("%s", msg);
    assert_int_equal(mbx_compare_count(c), 1);
    assert_int_equal(mbx_compare_get(c, 0)->n_a, 12);
    assert_int_equal(mbx_compare_get(c, 0)->n_b, 3);
    assert_int_equal(mbx_compare_get(c, 0)->verdict, '?');
    mbx_compare_free(c);
    for (int k = 0; k < 2; k++) {
        char *obs = mbx_csv_sidecar(tmp("%s", name[k]), ".obs.csv");
        remove(obs);
        free(obs);
        remove(tmp("%s", name[k]));
    }
}

static void write_journal(const char *path)
{
    mbx_journal *j = NULL;
    assert_int_equal(mbx_journal_open(path, HASH, 0, &j), MBX_OK);
    assert_int_equal(mbx_journal_begin(j, "cli|pingpong.send_recv|2|8|0|-1", 0), MBX_OK);
    assert_int_equal(mbx_journal_done(j, "cli|pingpong.send_recv|2|8|0|-1"), MBX_OK);
    mbx_journal_close(j);
}

/* run --resume of a file of each width: the reader keeps the file's width,
 * and rows appended as tui/cmd/run.c opens the file (mbx_csv_writer_append with
 * that width) keep it, so the file stays one table: a 43-column file gets
 * 43-column rows (no pass columns), a 51-column one 51. */
static void resume_keeps_width(void **state)
{
    (void)state;
    const size_t width[] = {40, 41, 42, W_FORMAT2, MBX_RESULT_NCOLS};
    for (size_t i = 0; i < sizeof width / sizeof *width; i++) {
        const char *csv = tmp("r%zu.csv", width[i]), *jnl = tmp("r%zu.journal", width[i]);
        mbx_result done = point(8, 1.5, width[i] == MBX_RESULT_NCOLS ? 5 : 0);
        write_results(csv, width[i], &done, 1);
        write_journal(jnl);
        mbx_resume res;
        char msg[512] = "";
        if (mbx_resume_load(csv, jnl, HASH, &res, msg, sizeof msg) != 0)
            fail_msg("%zu columns: %s", width[i], msg);
        assert_int_equal(res.n, 1);
        assert_int_equal(res.ncols, width[i]);
        assert_float_equal(res.median_s[0], 1.5e-6, 1e-12);
        /* The resumed run's next point, measured in passes. */
        mbx_csv_writer *w;
        assert_int_equal(mbx_csv_writer_append(csv, mbx_result_columns, res.ncols, &w), MBX_OK);
        mbx_resume_free(&res);
        mbx_result next = point(16, 1.7, 5);
        mbx_result_fields f;
        mbx_result_format(&next, &f);
        assert_int_equal(mbx_csv_writer_row(w, f.field), MBX_OK);
        assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
        mbx_csv_table t;
        assert_int_equal(mbx_csv_read_file(csv, &t), MBX_OK);
        assert_int_equal(t.nrows, 3);
        for (size_t r = 0; r < t.nrows; r++)
            assert_int_equal(t.ncols[r], width[i]);
        int pc = mbx_csv_table_col(&t, "passes");
        if (width[i] == MBX_RESULT_NCOLS)
            assert_string_equal(t.cell[2][pc], "5");
        else
            assert_true(pc < 0);
        mbx_csv_table_free(&t);
        /* And it reads back for a second resume, two points finished. */
        assert_int_equal(mbx_resume_load(csv, jnl, HASH, &res, msg, sizeof msg), MBX_OK);
        assert_int_equal(res.n, 2);
        assert_int_equal(res.ncols, width[i]);
        mbx_resume_free(&res);
        remove(csv);
        remove(jnl);
    }
}

/* A header that is not a prefix of today's columns (a pass column renamed)
 * is refused: the appended rows would not mean what its header says. */
static void resume_refuses_foreign_pass_column(void **state)
{
    (void)state;
    mbx_result r = point(8, 1.5, 5);
    const char *csv = tmp("foreign.csv"), *jnl = tmp("foreign.journal");
    write_results(csv, MBX_RESULT_NCOLS, &r, 1);
    mbx_csv_table t;
    assert_int_equal(mbx_csv_read_file(csv, &t), MBX_OK);
    FILE *f = fopen(csv, "wb");
    assert_non_null(f);
    for (size_t row = 0; row < t.nrows; row++) {
        const char *cells[MBX_RESULT_NCOLS];
        for (size_t c = 0; c < t.ncols[row]; c++)
            cells[c] = row == 0 && c == W_FORMAT2 ? "stderr_between_us" : t.cell[row][c];
        assert_int_equal(mbx_csv_fputrow(f, cells, t.ncols[row]), MBX_OK);
    }
    assert_int_equal(fclose(f), 0);
    mbx_csv_table_free(&t);
    write_journal(jnl);
    mbx_resume res;
    char msg[512] = "";
    assert_int_equal(mbx_resume_load(csv, jnl, HASH, &res, msg, sizeof msg), MBX_E_INVAL);
    assert_non_null(strstr(msg, "column 44 is 'stderr_between_us', this version writes 'passes'"));
    mbx_resume_free(&res);
    remove(csv);
    remove(jnl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(format3_row_has_pass_fields),
        cmocka_unit_test(merges_43_and_51_columns),
        cmocka_unit_test(merges_every_width),
        cmocka_unit_test(mixed_width_file_refused),
        cmocka_unit_test(compares_mixed_launches),
        cmocka_unit_test(compares_43_with_51_results),
        cmocka_unit_test(resume_keeps_width),
        cmocka_unit_test(resume_refuses_foreign_pass_column),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
