/* mpibex merge: three synthetic runs (one in the old 26-column format)
 * merged and read back through libcsv, every value checked; and the inputs
 * it must refuse, each with a one-line reason. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/csvio.h"
#include "mbx/merge.h"
#include "mbx/passes.h"
#include "mbx/result.h"

#define OLD_NCOLS 26 /* benchmark .. label: files written before root, op, ... */

static mbx_result point(const char *bench, const char *label, int procs, uint64_t bytes,
                        double median_us, double tmean_us, size_t n, mbx_point_status st)
{
    mbx_result r;
    memset(&r, 0, sizeof r);
    r.benchmark = bench;
    r.label = label;
    r.timing = strncmp(bench, "pingpong", 8) == 0 ? "half_round_trip" : "max_over_ranks";
    r.procs = procs;
    r.bytes = bytes;
    r.s.n = n;
    r.s.mean = r.s.min = r.s.max = r.s.q1 = r.s.q3 = median_us * 1e-6;
    r.s.median = median_us * 1e-6;
    r.s.tmean = tmean_us * 1e-6;
    r.s.stddev = r.s.stderr_ = NAN;
    r.s.ci_lo = r.s.ci_hi = median_us * 1e-6;
    r.status = st;
    r.stop = (mbx_stop_rule){MBX_STOP_STDERR, 0.03, 0};
    r.nmin = 4;
    r.nmax = 100;
    r.batches = 1;
    r.root = -1;
    snprintf(r.ranks, sizeof r.ranks, "0-%d", procs - 1);
    return r;
}

static mbx_result rooted(mbx_result r, int root, const char *op)
{
    r.root = root;
    r.op = op;
    return r;
}

static void tmp_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/merge_%s", MBX_TMP_DIR, name);
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

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* Run A and B in today's format, C in the old one. */
static void write_three_runs(char a[256], char b[256], char c[256])
{
    const mbx_point_status S = MBX_POINT_SETTLED, U = MBX_POINT_UNSETTLED, X = MBX_POINT_UNRELIABLE;
    const char *sum = "MPI_SUM/MPI_FLOAT";
    mbx_result ra[] = {
        point("pingpong.send_recv", "lat", 2, 1024, 1.0, 1.1, 10, S),
        point("pingpong.send_recv", "lat", 2, 8, 5.0, 5.0, 20, S),
        point("coll.barrier", "coll", 2, 0, 4.0, 4.5, 16, S),
        rooted(point("coll.reduce", "coll", 2, 16, 10.0, 11.0, 8, S), 0, sum),
    };
    mbx_result rb[] = {
        rooted(point("coll.reduce", "coll", 2, 16, 30.0, 33.0, 8, U), 0, sum),
        point("coll.barrier", "coll", 2, 0, NAN, NAN, 16, X),
        point("pingpong.send_recv", "lat", 2, 1024, 3.0, 2.9, 30, U),
        rooted(point("coll.bcast", "coll", 2, 64, 7.0, 7.5, 12, S), 1, NULL),
        rooted(point("coll.reduce", "coll", 2, 16, 20.0, 21.0, 8, S), 1, sum),
    };
    mbx_result rc[] = {
        point("pingpong.send_recv", "lat", 2, 1024, 2.0, 2.0, 40, S),
        point("pingpong.send_recv", "lat", 2, 8, 7.0, 6.0, 5, S),
        point("pingpong.send_recv", "other", 2, 1024, 9.0, 9.0, 3, S),
    };
    tmp_path(a, 256, "a.csv");
    tmp_path(b, 256, "b.csv");
    tmp_path(c, 256, "c.csv");
    write_results(a, MBX_RESULT_NCOLS, ra, sizeof ra / sizeof *ra);
    write_results(b, MBX_RESULT_NCOLS, rb, sizeof rb / sizeof *rb);
    write_results(c, OLD_NCOLS, rc, sizeof rc / sizeof *rc);
}

static const char *cell(const mbx_csv_table *t, size_t row, const char *col)
{
    int c = mbx_csv_table_col(t, col);
    assert_true(c >= 0);
    assert_true(row < t->nrows);
    assert_int_equal(t->ncols[row], MBX_MERGE_NCOLS);
    return t->cell[row][c];
}

/* Every merged column of one output row, in column order. */
/* The first 21 columns (the CI over runs follows: expect_ci). */
#define FIRST_COLS 21
static void expect_row(const mbx_csv_table *t, size_t row, const char *const want[FIRST_COLS])
{
    for (int c = 0; c < FIRST_COLS; c++) {
        const char *got = cell(t, row, mbx_merge_columns[c]);
        if (strcmp(got, want[c]) != 0)
            fail_msg("row %zu, %s: got '%s', want '%s'", row, mbx_merge_columns[c], got, want[c]);
    }
}

/* One scenario over three files, read top to bottom (over 80 lines): the merged row of every column
 * is checked where it is computed. */
static void merges_three_runs(void **state)
{
    (void)state;
    char a[256], b[256], c[256], out[256], out2[256];
    write_three_runs(a, b, c);
    mbx_merge *m;
    char msg[256] = "";
    assert_int_equal(mbx_merge_new(&m), MBX_OK);
    assert_int_equal(mbx_merge_add_file(m, a, msg, sizeof msg), MBX_OK);
    assert_int_equal(mbx_merge_add_file(m, b, msg, sizeof msg), MBX_OK);
    assert_int_equal(mbx_merge_add_file(m, c, msg, sizeof msg), MBX_OK);

    mbx_merge_summary s;
    mbx_merge_summarize(m, &s);
    assert_int_equal(s.files, 3);
    assert_int_equal(s.rows, 12);
    assert_int_equal(s.keys, 7);
    assert_int_equal(s.partial_keys, 6); /* all but pingpong lat 1024 */

    tmp_path(out, sizeof out, "out.csv");
    mbx_csv_writer *w;
    assert_int_equal(mbx_csv_writer_open(out, mbx_merge_columns, MBX_MERGE_NCOLS, &w), MBX_OK);
    assert_int_equal(mbx_merge_write(m, w), MBX_OK);
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);

    mbx_csv_table t;
    assert_int_equal(mbx_csv_read_file(out, &t), MBX_OK);
    assert_int_equal(t.nrows, 1 + 7);
    assert_int_equal(t.ncols[0], MBX_MERGE_NCOLS);
    for (int i = 0; i < MBX_MERGE_NCOLS; i++)
        assert_string_equal(t.cell[0][i], mbx_merge_columns[i]);

    /* benchmark, procs, bytes, label, root, op, param, param_name, ranks, runs, files,
     * runs_without_value, settled_runs, status, median_us, median_min_us, median_max_us,
     * spread_rel, tmean_us, n_total, bandwidth_MBps */
    /* medians 1, 3, 2 -> 2; the UNSETTLED run decides the status; the old
     * file's empty root/op/param match the new files' empty fields. */
    const char *pp1k[] = {"pingpong.send_recv",
                          "2",
                          "1024",
                          "lat",
                          "",
                          "",
                          "",
                          "",
                          "0-1",
                          "3",
                          "3",
                          "0",
                          "2",
                          "UNSETTLED",
                          "2.0000",
                          "1.0000",
                          "3.0000",
                          "2.000000",
                          "2.0000",
                          "80",
                          "512.000"};
    /* two runs: the median is the mean of 5 and 7 */
    const char *pp8[] = {"pingpong.send_recv",
                         "2",
                         "8",
                         "lat",
                         "",
                         "",
                         "",
                         "",
                         "0-1",
                         "2",
                         "2",
                         "0",
                         "2",
                         "SETTLED",
                         "6.0000",
                         "5.0000",
                         "7.0000",
                         "0.400000",
                         "5.5000",
                         "25",
                         "1.333"};
    /* a run without a median counts, but only the other gives numbers */
    const char *barrier[] = {
        "coll.barrier", "2",        "0",      "coll", "",  "",           "",       "",
        "0-1",          "2",        "2",      "1",    "1", "UNRELIABLE", "4.0000", "4.0000",
        "4.0000",       "0.000000", "4.5000", "32",   ""};
    const char *reduce0[] = {"coll.reduce",
                             "2",
                             "16",
                             "coll",
                             "0",
                             "MPI_SUM/MPI_FLOAT",
                             "",
                             "",
                             "0-1",
                             "2",
                             "2",
                             "0",
                             "1",
                             "UNSETTLED",
                             "20.0000",
                             "10.0000",
                             "30.0000",
                             "2.000000",
                             "22.0000",
                             "16",
                             "0.800"};
    const char *bcast1[] = {"coll.bcast", "2",      "64",     "coll",     "1",      "",   "",
                            "",           "0-1",    "1",      "1",        "0",      "1",  "SETTLED",
                            "7.0000",     "7.0000", "7.0000", "0.000000", "7.5000", "12", "9.143"};
    const char *reduce1[] = {"coll.reduce",
                             "2",
                             "16",
                             "coll",
                             "1",
                             "MPI_SUM/MPI_FLOAT",
                             "",
                             "",
                             "0-1",
                             "1",
                             "1",
                             "0",
                             "1",
                             "SETTLED",
                             "20.0000",
                             "20.0000",
                             "20.0000",
                             "0.000000",
                             "21.0000",
                             "8",
                             "0.800"};
    const char *other[] = {"pingpong.send_recv",
                           "2",
                           "1024",
                           "other",
                           "",
                           "",
                           "",
                           "",
                           "",
                           "1",
                           "1",
                           "0",
                           "1",
                           "SETTLED",
                           "9.0000",
                           "9.0000",
                           "9.0000",
                           "0.000000",
                           "9.0000",
                           "3",
                           "113.778"};
    expect_row(&t, 1, pp1k);
    expect_row(&t, 2, pp8);
    expect_row(&t, 3, barrier);
    expect_row(&t, 4, reduce0);
    expect_row(&t, 5, bcast1);
    expect_row(&t, 6, reduce1);
    expect_row(&t, 7, other);
    /* The CI over runs: the runs' medians 1, 2, 3 us as the units of
     * mbx_passes_between; one run gives none. */
    double runs[3] = {1e0, 2e0, 3e0}, scratch[3];
    mbx_between bw;
    assert_int_equal(mbx_passes_between(runs, 3, scratch, &bw), MBX_OK);
    char want[48];
    snprintf(want, sizeof want, "%.4f", bw.se);
    assert_string_equal(cell(&t, 1, "stderr_us"), want);
    snprintf(want, sizeof want, "%.4f", bw.ci_lo > 0 ? bw.ci_lo : 0.0);
    assert_string_equal(cell(&t, 1, "ci95_lo_us"), want);
    snprintf(want, sizeof want, "%.4f", bw.ci_hi);
    assert_string_equal(cell(&t, 1, "ci95_hi_us"), want);
    assert_true(atof(cell(&t, 1, "ci95_hi_us")) <= 3.0); /* within the runs' range */
    assert_string_equal(cell(&t, 7, "stderr_us"), "");
    assert_string_equal(cell(&t, 7, "ci95_lo_us"), "");
    mbx_csv_table_free(&t);

    /* The stream writer gives the same bytes as the file writer. */
    tmp_path(out2, sizeof out2, "out2.csv");
    FILE *f = fopen(out2, "wb");
    assert_non_null(f);
    assert_int_equal(mbx_merge_write_stream(m, f), MBX_OK);
    assert_int_equal(fclose(f), 0);
    char buf1[8192], buf2[8192];
    FILE *f1 = fopen(out, "rb"), *f2 = fopen(out2, "rb");
    assert_non_null(f1);
    assert_non_null(f2);
    size_t n1 = fread(buf1, 1, sizeof buf1, f1), n2 = fread(buf2, 1, sizeof buf2, f2);
    fclose(f1);
    fclose(f2);
    assert_true(n1 > 0 && n1 < sizeof buf1);
    assert_int_equal(n1, n2);
    assert_memory_equal(buf1, buf2, n1);
    mbx_merge_free(m);
}

/* `mpibex run` writes each point once, but should a key appear twice in one
 * file, each row is a run: two runs from one file. */
static void duplicate_key_in_one_file(void **state)
{
    (void)state;
    char p[256];
    tmp_path(p, sizeof p, "dup.csv");
    mbx_result r[] = {
        point("coll.reduce", "cli", 2, 4, 1.0, 1.0, 10, MBX_POINT_SETTLED),
        point("coll.reduce", "cli", 2, 4, 2.0, 2.0, 10, MBX_POINT_SETTLED),
    };
    write_results(p, MBX_RESULT_NCOLS, r, 2);
    mbx_merge *m;
    char msg[256];
    assert_int_equal(mbx_merge_new(&m), MBX_OK);
    assert_int_equal(mbx_merge_add_file(m, p, msg, sizeof msg), MBX_OK);
    mbx_merge_summary s;
    mbx_merge_summarize(m, &s);
    assert_int_equal(s.keys, 1);
    assert_int_equal(s.partial_keys, 0);
    mbx_merge_fields f;
    mbx_merge_format(m, 0, &f);
    assert_string_equal(f.field[9], "2");  /* runs */
    assert_string_equal(f.field[10], "1"); /* files */
    assert_string_equal(f.field[14], "1.5000");
    mbx_merge_free(m);
}

/* Files from before plain_us (40 columns) merge with today's (41), the
 * accurate row's plain value set or not. */
static void merges_40_and_41_columns(void **state)
{
    (void)state;
    char p40[256], p41[256];
    tmp_path(p40, sizeof p40, "c40.csv");
    tmp_path(p41, sizeof p41, "c41.csv");
    mbx_result r = rooted(
        point("coll.bcast_accurate", "cli", 4, 64, 2.0, 2.0, 10, MBX_POINT_SETTLED), 0, NULL);
    r.probe = r.probe_after = NAN;
    r.plain = 3.0e-6;
    write_results(p40, 40, &r, 1);
    r.s.median = 4.0e-6;
    write_results(p41, MBX_RESULT_NCOLS, &r, 1);
    mbx_merge *m;
    char msg[256] = "";
    assert_int_equal(mbx_merge_new(&m), MBX_OK);
    assert_int_equal(mbx_merge_add_file(m, p40, msg, sizeof msg), MBX_OK);
    assert_int_equal(mbx_merge_add_file(m, p41, msg, sizeof msg), MBX_OK);
    mbx_merge_summary s;
    mbx_merge_summarize(m, &s);
    assert_int_equal(s.keys, 1);
    mbx_merge_fields f;
    mbx_merge_format(m, 0, &f);
    assert_string_equal(f.field[9], "2");  /* runs */
    assert_string_equal(f.field[10], "2"); /* files */
    assert_string_equal(f.field[14], "3.0000");
    mbx_merge_free(m);
    remove(p40);
    remove(p41);
}

/* add_file on text; returns the status and leaves the message in msg. */
static int add_text(const char *name, const char *text, char *msg, size_t len)
{
    char p[256];
    tmp_path(p, sizeof p, name);
    write_text(p, text);
    mbx_merge *m;
    assert_int_equal(mbx_merge_new(&m), MBX_OK);
    int rc = mbx_merge_add_file(m, p, msg, len);
    mbx_merge_summary s;
    mbx_merge_summarize(m, &s);
    if (rc < 0) /* a refused table adds nothing */
        assert_int_equal(s.files + s.rows + s.keys, 0);
    mbx_merge_free(m);
    return rc;
}

#define OLD_HEADER                                                                                 \
    "benchmark,procs,bytes,n,mean_us,tmean_us,median_us,min_us,max_us,q1_us,q3_us,stddev_us,"      \
    "stderr_us,ci95_lo_us,ci95_hi_us,outliers,status,stop_rule,bandwidth_MBps,timing,"             \
    "overhead_us,nmin,nmax,batches,wall_s,label\n"
#define OLD_ROW(label, median, status)                                                             \
    "pingpong.send_recv,2,8,4,1,1," median ",1,1,1,1,,,1,1,0," status                              \
    ",stderr:0.03,,half_round_trip,0.03,4,100,1,0.1," label "\n"

static void accepts_a_minimal_old_file(void **state)
{
    (void)state;
    char msg[256] = "";
    assert_int_equal(add_text("ok.csv", OLD_HEADER OLD_ROW("x", "1.5", "SETTLED"), msg, sizeof msg),
                     MBX_OK);
    /* header only: a file with no points is still a file */
    assert_int_equal(add_text("hdr.csv", OLD_HEADER, msg, sizeof msg), MBX_OK);
}

/* One-sided rows of different sync modes are different keys, each keeping
 * its mode; a file without the column merges with empty modes. */
static void rma_sync_is_part_of_the_key(void **state)
{
    (void)state;
    char a[256], b[256], msg[256] = "";
    tmp_path(a, sizeof a, "rma_a.csv");
    tmp_path(b, sizeof b, "rma_b.csv");
    write_text(a, "benchmark,procs,bytes,n,tmean_us,median_us,status,label,rma_sync\n"
                  "rma.put,2,8,16,1,1,SETTLED,cli,fence\n"
                  "rma.put,2,8,16,3,3,SETTLED,cli,lock\n");
    write_text(b, "benchmark,procs,bytes,n,tmean_us,median_us,status,label,rma_sync\n"
                  "rma.put,2,8,16,2,2,SETTLED,cli,fence\n");
    mbx_merge *m;
    assert_int_equal(mbx_merge_new(&m), MBX_OK);
    assert_int_equal(mbx_merge_add_file(m, a, msg, sizeof msg), MBX_OK);
    assert_int_equal(mbx_merge_add_file(m, b, msg, sizeof msg), MBX_OK);
    mbx_merge_summary s;
    mbx_merge_summarize(m, &s);
    assert_int_equal(s.keys, 2);
    mbx_merge_fields f;
    mbx_merge_format(m, 0, &f);
    assert_string_equal(f.field[24], "fence");
    assert_string_equal(f.field[9], "2");       /* runs */
    assert_string_equal(f.field[14], "1.5000"); /* median of 1 and 2 */
    mbx_merge_format(m, 1, &f);
    assert_string_equal(f.field[24], "lock");
    assert_string_equal(f.field[9], "1");
    assert_string_equal(mbx_merge_columns[24], "rma_sync");
    mbx_merge_free(m);
    remove(a);
    remove(b);
}

static void refuses_bad_input(void **state)
{
    (void)state;
    char msg[512];
    /* missing file: named, with the reason */
    mbx_merge *m;
    assert_int_equal(mbx_merge_new(&m), MBX_OK);
    assert_int_equal(mbx_merge_add_file(m, MBX_TMP_DIR "/merge_nope.csv", msg, sizeof msg),
                     MBX_E_IO);
    assert_non_null(strstr(msg, "merge_nope.csv"));
    assert_non_null(strstr(msg, "No such file"));
    mbx_merge_free(m);

    /* a results file without median_us: the column and the file are named */
    assert_int_equal(add_text("nomedian.csv", "benchmark,procs,bytes,n,tmean_us,status,label\n",
                              msg, sizeof msg),
                     MBX_E_PROTO);
    assert_non_null(strstr(msg, "'median_us'"));
    assert_non_null(strstr(msg, "merge_nomedian.csv"));
    assert_null(strchr(msg, '\n'));

    /* the environment sidecar is not a results file */
    assert_int_equal(add_text("env.csv", "key,value\nformat_version,1\n", msg, sizeof msg),
                     MBX_E_PROTO);
    assert_non_null(strstr(msg, "no 'benchmark' column"));

    assert_int_equal(add_text("empty.csv", "", msg, sizeof msg), MBX_E_PROTO);
    assert_non_null(strstr(msg, "empty"));

    /* wrong number of fields: file:line */
    assert_int_equal(add_text("short.csv",
                              OLD_HEADER OLD_ROW("a", "1", "SETTLED") "pingpong.send_recv,2,8\n",
                              msg, sizeof msg),
                     MBX_E_PROTO);
    if (strstr(msg, "merge_short.csv:3: 3 fields, the header has 26") == NULL)
        fail_msg("%s", msg);

    /* a quoted line break in a label shifts the line numbers */
    assert_int_equal(add_text("nl.csv",
                              OLD_HEADER OLD_ROW("\"two\nlines\"", "1", "SETTLED")
                                  OLD_ROW("a", "1", "DONE"),
                              msg, sizeof msg),
                     MBX_E_PROTO);
    assert_non_null(
        strstr(msg, "merge_nl.csv:4: status: expected SETTLED, FIXED, UNSETTLED, SHIFTED,"));
    assert_non_null(strstr(msg, "'DONE'"));

    /* a blank line is no row, but it is a line */
    assert_int_equal(add_text("blank.csv",
                              OLD_HEADER OLD_ROW("a", "1", "SETTLED") "\npingpong.send_recv,2,8\n",
                              msg, sizeof msg),
                     MBX_E_PROTO);
    if (strstr(msg, "merge_blank.csv:4: 3 fields, the header has 26") == NULL)
        fail_msg("%s", msg);

    /* a table from memory: lines counted from the line breaks in fields */
    static const char text[] = OLD_HEADER OLD_ROW("\"a\nb\"", "1", "SETTLED") "x,1\n";
    mbx_csv_table t;
    assert_int_equal(mbx_csv_read_buffer(text, sizeof text - 1, &t), MBX_OK);
    assert_int_equal(mbx_merge_new(&m), MBX_OK);
    assert_int_equal(mbx_merge_add_table(m, &t, "mem", msg, sizeof msg), MBX_E_PROTO);
    assert_string_equal(msg, "mem:4: 2 fields, the header has 26");
    mbx_merge_free(m);
    mbx_csv_table_free(&t);

    assert_int_equal(
        add_text("badmed.csv", OLD_HEADER OLD_ROW("a", "1.5x", "SETTLED"), msg, sizeof msg),
        MBX_E_PROTO);
    assert_non_null(strstr(msg, "merge_badmed.csv:2: median_us: expected a time in microseconds"));

    assert_int_equal(add_text("quote.csv", OLD_HEADER "pingpong\"x,2\n", msg, sizeof msg),
                     MBX_E_PROTO);
    assert_non_null(strstr(msg, "merge_quote.csv"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(merges_three_runs),          cmocka_unit_test(duplicate_key_in_one_file),
        cmocka_unit_test(accepts_a_minimal_old_file), cmocka_unit_test(refuses_bad_input),
        cmocka_unit_test(merges_40_and_41_columns),   cmocka_unit_test(rma_sync_is_part_of_the_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
