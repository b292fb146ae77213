/* Unit tests for what every reader of results files shares: the
 * strict number fields, the row-at-a-time reader with its line numbers,
 * and the UTF-8 byte-order mark on CSVs and plans. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/csvio.h"
#include "mbx/journal.h"
#include "mbx/merge.h"
#include "mbx/plan.h"
#include "mbx/result.h"

#ifndef MBX_TMP_DIR
#error "compile with -DMBX_TMP_DIR=\"<a writable directory>\""
#endif

static void number_ok(const char *s, double want)
{
    double v = -1;
    if (mbx_csv_time_us(s, 0, &v) != MBX_OK)
        fail_msg("'%s' refused", s);
    if (v != want)
        fail_msg("'%s' read as %.17g, want %.17g", s, v, want);
}

static void number_bad(const char *s, int want_rc)
{
    double v = 0;
    int rc = mbx_csv_time_us(s, 1, &v);
    if (rc != want_rc)
        fail_msg("'%s': status %d, want %d", s, rc, want_rc);
    assert_true(isnan(v));
}

static void test_time_fields(void **state)
{
    (void)state;
    number_ok("0", 0.0);
    number_ok("0.1673", 0.1673);
    number_ok("12.5", 12.5);
    number_ok("007", 7.0);
    number_ok(".5", 0.5);
    number_ok("5.", 5.0);
    number_ok("4.5e-07", 4.5e-07);
    number_ok("1E3", 1000.0);
    number_ok("1e+3", 1000.0);
    number_ok("999999999999.9", 999999999999.9);
    /* more digits than the fast path takes: still the exact double */
    number_ok("3.14159265358979323846264338327950288", 3.14159265358979323846);
    number_ok("0.000000000000000000000000001", 1e-27);

    number_bad("-0.01", MBX_E_INVAL);
    number_bad("-0", MBX_E_INVAL);
    number_bad("+1", MBX_E_INVAL);
    number_bad("0x10", MBX_E_INVAL);
    number_bad("0X1p4", MBX_E_INVAL);
    number_bad("inf", MBX_E_INVAL);
    number_bad("INFINITY", MBX_E_INVAL);
    number_bad("nan", MBX_E_INVAL);
    number_bad("NaN(1)", MBX_E_INVAL);
    number_bad(" 1", MBX_E_INVAL);
    number_bad("1 ", MBX_E_INVAL);
    number_bad("1,5", MBX_E_INVAL);
    number_bad("1.2.3", MBX_E_INVAL);
    number_bad(".", MBX_E_INVAL);
    number_bad("e5", MBX_E_INVAL);
    number_bad("1e", MBX_E_INVAL);
    number_bad("1e+", MBX_E_INVAL);
    number_bad("1\n", MBX_E_INVAL);
    number_bad("1e308", MBX_E_RANGE);
    number_bad("1e12", MBX_E_RANGE);
    number_bad("1e99999999999999999999", MBX_E_RANGE);
    char digits[400];
    memset(digits, '9', sizeof digits - 1);
    digits[sizeof digits - 1] = '\0';
    number_bad(digits, MBX_E_RANGE);

    double v = 1;
    assert_int_equal(mbx_csv_time_us("", 1, &v), MBX_OK);
    assert_true(isnan(v));
    assert_int_equal(mbx_csv_time_us("", 0, &v), MBX_E_INVAL);
    assert_int_equal(mbx_csv_number("1e20", MBX_CSV_NUMBER_MAX, 0, &v), MBX_OK);
    assert_true(v == 1e20);
}

/* The same text gives the same number whatever the locale's decimal point. */
static void test_locale_free(void **state)
{
    (void)state;
    if (setlocale(LC_ALL, "de_DE.UTF-8") == NULL)
        skip();
    number_ok("0.1673", 0.1673);
    number_ok("3.14159265358979323846264338327950288", 3.14159265358979323846);
    number_bad("0,1673", MBX_E_INVAL);
    setlocale(LC_ALL, "C");
}

static void test_count_fields(void **state)
{
    (void)state;
    unsigned long long v = 7;
    assert_int_equal(mbx_csv_count("0", 10, &v), MBX_OK);
    assert_true(v == 0);
    assert_int_equal(mbx_csv_count("10", 10, &v), MBX_OK);
    assert_true(v == 10);
    assert_int_equal(mbx_csv_count("18446744073709551615", ~0ULL, &v), MBX_OK);
    assert_true(v == ~0ULL);
    assert_int_equal(mbx_csv_count("11", 10, &v), MBX_E_RANGE);
    assert_int_equal(mbx_csv_count("18446744073709551616", ~0ULL, &v), MBX_E_RANGE);
    const char *bad[] = {"", "-1", "+1", " 1", "1.0", "1e3", "0x10", "inf", "nan", "1 "};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (mbx_csv_count(bad[i], ~0ULL, &v) != MBX_E_INVAL)
            fail_msg("'%s' accepted as a count", bad[i]);
    }
}

struct seen {
    size_t rows;
    size_t line[8];
    char first[8][32];
    size_t n[8];
};

static int collect(void *ctx, char *const *field, size_t n, size_t line)
{
    struct seen *s = ctx;
    if (s->rows < 8) {
        s->line[s->rows] = line;
        s->n[s->rows] = n;
        snprintf(s->first[s->rows], sizeof s->first[0], "%s", field[0]);
    }
    s->rows++;
    return s->rows == 5 ? MBX_E_ABORTED : MBX_OK;
}

/* Each row comes with the line it begins on: quoted line breaks, blank
 * lines and CRLF endings counted; a callback's status stops the reading. */
static void test_rows_and_lines(void **state)
{
    (void)state;
    static const char text[] = "a,b\r\n\"x\ny\",1\r\n\r\n\nc,2\n\"d\",\"3\"";
    struct seen s = {0};
    assert_int_equal(mbx_csv_parse_rows(text, sizeof text - 1, collect, &s), MBX_OK);
    assert_int_equal(s.rows, 4);
    assert_int_equal(s.line[0], 1);
    assert_int_equal(s.line[1], 2);
    assert_string_equal(s.first[1], "x\ny");
    assert_int_equal(s.line[2], 6);
    assert_int_equal(s.line[3], 7);
    assert_int_equal(s.n[3], 2);

    /* a lone CR ends a line too (old Mac files), as the fuzzer found */
    static const char cr[] = "a\rb\r\nc\r\rd";
    memset(&s, 0, sizeof s);
    assert_int_equal(mbx_csv_parse_rows(cr, sizeof cr - 1, collect, &s), MBX_OK);
    assert_int_equal(s.rows, 4);
    assert_int_equal(s.line[1], 2);
    assert_int_equal(s.line[2], 3);
    assert_int_equal(s.line[3], 5);

    static const char six[] = "h\n1\n2\n3\n4\n5\n";
    memset(&s, 0, sizeof s);
    assert_int_equal(mbx_csv_parse_rows(six, sizeof six - 1, collect, &s), MBX_E_ABORTED);
    assert_int_equal(s.rows, 5);

    mbx_csv_table t;
    assert_int_equal(mbx_csv_read_buffer(text, sizeof text - 1, &t), MBX_OK);
    assert_int_equal(t.nrows, 4);
    assert_int_equal(t.line[2], 6);
    mbx_csv_table_free(&t);
}

/* A spreadsheet's UTF-8 byte-order mark is no part of the first column's
 * name, from a buffer and from a file; one elsewhere is data. */
static void test_csv_bom(void **state)
{
    (void)state;
    static const char text[] = "\xEF\xBB\xBF"
                               "benchmark,median_us\npingpong,1.5\n";
    mbx_csv_table t;
    assert_int_equal(mbx_csv_read_buffer(text, sizeof text - 1, &t), MBX_OK);
    assert_int_equal(mbx_csv_table_col(&t, "benchmark"), 0);
    assert_int_equal(t.line[1], 2);
    mbx_csv_table_free(&t);

    const char *path = MBX_TMP_DIR "/fields_bom.csv";
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(mbx_csv_read_file(path, &t), MBX_OK);
    assert_string_equal(t.cell[0][0], "benchmark");
    assert_string_equal(t.cell[1][0], "pingpong");
    mbx_csv_table_free(&t);
    remove(path);

    static const char mid[] = "a,b\n\xEF\xBB\xBFx,1\n";
    assert_int_equal(mbx_csv_read_buffer(mid, sizeof mid - 1, &t), MBX_OK);
    assert_string_equal(t.cell[1][0], "\xEF\xBB\xBFx");
    mbx_csv_table_free(&t);

    /* just the mark: an empty file */
    assert_int_equal(mbx_csv_read_buffer("\xEF\xBB\xBF", 3, &t), MBX_OK);
    assert_int_equal(t.nrows, 0);
    mbx_csv_table_free(&t);
}

static void test_plan_bom(void **state)
{
    (void)state;
    mbx_plan *p = calloc(1, sizeof *p);
    assert_non_null(p);
    char msg[512] = "";
    static const char plan[] = "\xEF\xBB\xBF[pp]\nbench = pingpong.send_recv\nsizes = 8\n";
    if (mbx_plan_parse(plan, "bom.ini", p, msg, sizeof msg) != MBX_OK)
        fail_msg("%s", msg);
    assert_int_equal(p->nmeas, 1);
    assert_string_equal(p->meas[0].label, "pp");

    const char *path = MBX_TMP_DIR "/fields_bom16.ini";
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite("\xFF\xFE[\0p\0]\0\n\0", 1, 10, f);
    fclose(f);
    assert_int_equal(mbx_plan_load(path, p, msg, sizeof msg), MBX_E_INVAL);
    assert_non_null(strstr(msg, "byte-order mark"));
    remove(path);
    free(p);
}

/* A results file as run writes it (rows of pingpong.send_recv), behind
 * `prefix`; row 2 (line 3) gets `median` as its median_us. */
static void write_results(const char *path, const char *prefix, const char *median)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(prefix, f);
    assert_int_equal(mbx_csv_fputrow(f, mbx_result_columns, MBX_RESULT_NCOLS), MBX_OK);
    for (int i = 0; i < 3; i++) {
        const char *row[MBX_RESULT_NCOLS] = {0};
        char b[24];
        snprintf(b, sizeof b, "%d", 8 << i);
        row[0] = "pingpong.send_recv";
        row[1] = "2";
        row[2] = b;
        row[6] = i == 1 ? median : "0.6235";
        row[25] = "cli";
        row[31] = "0";
        assert_int_equal(mbx_csv_fputrow(f, row, MBX_RESULT_NCOLS), MBX_OK);
    }
    fclose(f);
}

/* --resume reads a results file with a byte-order mark, and refuses a
 * value that cannot be a time, naming the line and the column. */
static void test_resume_reader(void **state)
{
    (void)state;
    const char *csv = MBX_TMP_DIR "/fields_resume.csv", *jnl = MBX_TMP_DIR "/fields_resume.journal";
    FILE *j = fopen(jnl, "w");
    assert_non_null(j);
    fputs("# mpibex journal 1\nplan 0123456789abcdef\n", j);
    fclose(j);
    mbx_resume r;
    char msg[512] = "";
    write_results(csv, "\xEF\xBB\xBF", "0.5");
    if (mbx_resume_load(csv, jnl, 0x0123456789abcdefull, &r, msg, sizeof msg) != 0)
        fail_msg("%s", msg);
    assert_int_equal(r.n, 3);
    assert_true(r.median_s[1] == 0.5e-6);
    mbx_resume_free(&r);

    const char *bad[] = {"-0.01", "0x10", "1e308", "inf", "nan", "1,5"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        write_results(csv, "", bad[i]);
        assert_int_equal(mbx_resume_load(csv, jnl, 0x0123456789abcdefull, &r, msg, sizeof msg),
                         MBX_E_INVAL);
        if (strstr(msg, "fields_resume.csv:3: median_us: expected a time in microseconds") == NULL)
            fail_msg("'%s': %s", bad[i], msg);
    }
    remove(csv);
    remove(jnl);
}

/* No writer makes a field of hundreds of digits, nor cuts one short:
 * quotients of extremes go to exponent form. */
static void test_writers_bounded(void **state)
{
    (void)state;
    char buf[48];
    mbx_csv_fmt_number(buf, sizeof buf, "%.4f", 1e300);
    assert_string_equal(buf, "1.000000e+300");
    mbx_csv_fmt_number(buf, sizeof buf, "%.4f", 0.16734);
    assert_string_equal(buf, "0.1673");
    mbx_csv_fmt_number(buf, sizeof buf, "%.4f", NAN);
    assert_string_equal(buf, "");

    /* a median of almost nothing (allowed: 0 <= t) and its bandwidth */
    const char *path = MBX_TMP_DIR "/fields_tiny.csv";
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("benchmark,procs,bytes,n,tmean_us,median_us,status,label\n"
          "pingpong.send_recv,2,8,16,1e-290,1e-290,SETTLED,cli\n"
          "pingpong.send_recv,2,8,16,2,2,SETTLED,cli\n",
          f);
    fclose(f);
    mbx_merge *m;
    char msg[512];
    assert_int_equal(mbx_merge_new(&m), MBX_OK);
    assert_int_equal(mbx_merge_add_file(m, path, msg, sizeof msg), MBX_OK);
    mbx_merge_fields mf;
    mbx_merge_format(m, 0, &mf);
    for (int i = 0; i < MBX_MERGE_NCOLS; i++) {
        if (strlen(mf.field[i]) > 24)
            fail_msg("%s: '%s'", mbx_merge_columns[i], mf.field[i]);
    }
    assert_string_equal(mf.field[17], ""); /* spread_rel: 2e290 */
    mbx_merge_free(m);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time_fields),   cmocka_unit_test(test_locale_free),
        cmocka_unit_test(test_count_fields),  cmocka_unit_test(test_rows_and_lines),
        cmocka_unit_test(test_csv_bom),       cmocka_unit_test(test_plan_bom),
        cmocka_unit_test(test_resume_reader), cmocka_unit_test(test_writers_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
