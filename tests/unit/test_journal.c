/* The --resume reader (engine/core/journal.c): a finished run's rows and the passes
 * of its unfinished points read back, and the inputs it refuses. Found by fuzz_resume: a
 * CSV refused half-way (a row of the wrong width) used to keep the arrays
 * allocated for its rows, a leak for any caller that freed only on success. */
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mbx/csvio.h"
#include "mbx/journal.h"
#include "mbx/result.h"

#ifndef MBX_TMP_DIR
#error "compile with -DMBX_TMP_DIR=\"<a writable directory>\""
#endif

#define HASH 0x0123456789abcdefull

static char csv[512], jnl[512];

static int setup(void **state)
{
    (void)state;
    snprintf(csv, sizeof csv, "%s/test_journal_%ld.csv", MBX_TMP_DIR, (long)getpid());
    snprintf(jnl, sizeof jnl, "%s/test_journal_%ld.journal", MBX_TMP_DIR, (long)getpid());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(csv);
    unlink(jnl);
    return 0;
}

/* A results file with one row per bytes[i] of pingpong.send_recv at 2 procs. */
static void write_csv(const uint64_t *bytes, size_t n)
{
    mbx_csv_writer *w = NULL;
    assert_int_equal(mbx_csv_writer_open(csv, mbx_result_columns, MBX_RESULT_NCOLS, &w), MBX_OK);
    for (size_t i = 0; i < n; i++) {
        const char *f[MBX_RESULT_NCOLS] = {0};
        char b[24];
        snprintf(b, sizeof b, "%llu", (unsigned long long)bytes[i]);
        f[0] = "pingpong.send_recv";
        f[1] = "2";
        f[2] = b;
        f[6] = "0.6235"; /* median_us */
        f[25] = "cli";   /* label */
        f[31] = "0";     /* refined */
        assert_int_equal(mbx_csv_writer_row(w, f), MBX_OK);
    }
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
}

static void append(const char *path, const char *text)
{
    FILE *f = fopen(path, "ab");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
}

static void write_journal(uint64_t hash, const char *lines)
{
    mbx_journal *j = NULL;
    assert_int_equal(mbx_journal_open(jnl, hash, 0, &j), MBX_OK);
    mbx_journal_close(j);
    append(jnl, lines);
}

/* Rows are the finished points; pass lines of a point without a row are
 * carried over (a crash loses at most the pass in flight). */
static void test_passes(void **state)
{
    (void)state;
    const uint64_t bytes[] = {1, 8};
    write_csv(bytes, 2);
    write_journal(HASH, "pair 0 1\nseed 42\n"
                        "pass 0 6.2e-07 900 0.5 0.501 cli|pingpong.send_recv|2|1|0|-1\n"
                        "pass 0 7.0000000000000007e-07 800 0.502 0.503 "
                        "cli|pingpong.send_recv|2|64|0|-1\n"
                        "begin 0 cli|pingpong.send_recv|2|1|0|-1\n"
                        "done cli|pingpong.send_recv|2|1|0|-1\n"
                        "pass 1 1.5e-06 400 0.6 0.601 cli|pingpong.send_recv|2|90|0|-1\n"
                        "pass 0 nan 800 0.61 0.62 cli|pingpong.send_recv|2|64|0|-1\n"
                        "pass 0 7.1e-07 0 0.63 0.64 cli|pingpong.send_recv|2|64|0|-1\n"
                        "pass 0 7.2e-07 800 0.66 0.65 cli|pingpong.send_recv|2|64|0|-1\n"
                        "begin 0 cli|pingpong.send_recv|2|8|0|-1\n"
                        "done cli|pingpong.send_recv|2|8|0|-1\n"
                        "pass 0 7.25e-07 810 0.7 0.7015 cli|pingpong.send_recv|2|64|0|-1\n"
                        "pass 0 9e-07 800 0.8 0.9 cli|pingpong.send_recv|2|64|0|-1");
    append(csv, "pingpong.send_recv,2,64,3,0.7"); /* torn by the kill */
    mbx_resume r;
    char msg[256];
    assert_int_equal(mbx_resume_load(csv, jnl, HASH, &r, msg, sizeof msg), MBX_OK);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.ncols, MBX_RESULT_NCOLS);
    assert_string_equal(r.key[1], "cli|pingpong.send_recv|2|8|0|-1");
    assert_int_equal(mbx_resume_find(&r, "cli|pingpong.send_recv|2|1|0|-1"), 0);
    /* 1 B has a row: its pass is in it; 64 B and the refined 90 B have none.
     * The pass lines that cannot be a pass (NaN, no observations, ending
     * before they start) and the torn last line are skipped. */
    assert_int_equal(r.nopen, 2);
    assert_int_equal(r.npass, 3);
    assert_int_equal(mbx_resume_find_open(&r, "cli|pingpong.send_recv|2|1|0|-1"), -1);
    long a = mbx_resume_find_open(&r, "cli|pingpong.send_recv|2|64|0|-1");
    long b = mbx_resume_find_open(&r, "cli|pingpong.send_recv|2|90|0|-1");
    assert_true(a >= 0 && b >= 0);
    const mbx_resume_open *o = &r.open[a];
    assert_int_equal(o->npass, 2);
    assert_int_equal(o->refined, 0);
    assert_int_equal(o->procs, 2);
    assert_int_equal(o->bytes, 64);
    assert_string_equal(o->curve, "cli|pingpong.send_recv|0|-1");
    assert_true(o->pass[0].median == 7.0000000000000007e-07); /* all 17 digits */
    assert_int_equal(o->pass[0].n, 800);
    assert_true(o->pass[0].t_start == 0.502 && o->pass[0].t_end == 0.503);
    assert_true(o->pass[1].median == 7.25e-07 && o->pass[1].n == 810);
    assert_true(o->pass[1].t_start == 0.7 && o->pass[1].t_end == 0.7015);
    o = &r.open[b];
    assert_int_equal(o->npass, 1);
    assert_int_equal(o->refined, 1);
    assert_int_equal(o->bytes, 90);
    /* The timeline's end counts every pass line read (the one of 1 B too),
     * not the torn one. */
    assert_true(r.pass_end == 0.7015);
    assert_true(r.have_pair && r.pair_a == 0 && r.pair_b == 1);
    assert_true(r.have_seed && r.seed == 42);
    assert_int_equal(r.torn_bytes, strlen("pingpong.send_recv,2,64,3,0.7"));
    mbx_resume_free(&r);
}

/* What mbx_journal_pass writes is read back bit for bit, in the C locale
 * whatever LC_NUMERIC says, and appending after a torn line (the journal
 * of a killed run, reopened by --resume) starts a line of its own. */
static void test_pass_round_trip(void **state)
{
    (void)state;
    const uint64_t bytes[] = {1};
    write_csv(bytes, 1);
    mbx_journal *j = NULL;
    assert_int_equal(mbx_journal_open(jnl, HASH, 0, &j), MBX_OK);
    mbx_pass p = {
        .median = 1.0 / 3.0 * 1e-6, .n = 1234, .t_start = 0.1 + 0.2, .t_end = 3.141592653589793};
    const char *key = "lbl x|pingpong.send_recv|2|4096|0|-1";
    char *old = setlocale(LC_NUMERIC, "de_DE.UTF-8"); /* a decimal comma, if installed */
    assert_int_equal(mbx_journal_pass(j, key, 1, &p), MBX_OK);
    mbx_journal_close(j);
    append(jnl, "pass 0 5e-07 10 3.5 3.6 lbl x|pingpong.send"); /* torn */
    assert_int_equal(mbx_journal_open(jnl, HASH, 1, &j), MBX_OK);
    mbx_pass q = p;
    q.t_start = 4.0;
    q.t_end = 4.25;
    assert_int_equal(mbx_journal_pass(j, key, 1, &q), MBX_OK);
    mbx_journal_close(j);
    if (old)
        setlocale(LC_NUMERIC, "C");
    mbx_resume r;
    char msg[256];
    assert_int_equal(mbx_resume_load(csv, jnl, HASH, &r, msg, sizeof msg), MBX_OK);
    assert_int_equal(r.nopen, 1);
    assert_int_equal(r.npass, 2);
    assert_string_equal(r.open[0].key, key);
    assert_string_equal(r.open[0].curve, "lbl x|pingpong.send_recv|0|-1");
    assert_int_equal(r.open[0].refined, 1);
    assert_true(r.open[0].pass[0].median == p.median);
    assert_true(r.open[0].pass[0].t_start == p.t_start && r.open[0].pass[0].t_end == p.t_end);
    assert_int_equal(r.open[0].pass[0].n, 1234);
    assert_true(r.open[0].pass[1].t_start == 4.0 && r.open[0].pass[1].t_end == 4.25);
    assert_true(r.pass_end == 4.25);
    mbx_resume_free(&r);
}

/* The fuzz_resume find (tests/fuzz/regress/resume/leak-row-width): a row of
 * the wrong width after the arrays for the rows were allocated. */
static void test_row_width_owns_nothing(void **state)
{
    (void)state;
    const uint64_t bytes[] = {1, 8};
    write_csv(bytes, 2);
    append(csv, "coll.bcast,2,1\n");
    write_journal(HASH, "");
    mbx_resume r;
    char msg[256] = "";
    assert_int_equal(mbx_resume_load(csv, jnl, HASH, &r, msg, sizeof msg), MBX_E_INVAL);
    assert_non_null(strstr(msg, "row 4 has 3 fields"));
    assert_null(r.key);
    assert_null(r.median_s);
    assert_null(r.bytes);
    assert_int_equal(r.n, 0);
    mbx_resume_free(&r); /* still allowed */
}

static void test_refused(void **state)
{
    (void)state;
    const uint64_t bytes[] = {1};
    write_csv(bytes, 1);
    mbx_resume r;
    char msg[256] = "";
    write_journal(HASH + 1, "");
    assert_int_equal(mbx_resume_load(csv, jnl, HASH, &r, msg, sizeof msg), MBX_E_INVAL);
    assert_non_null(strstr(msg, "another plan"));
    assert_null(r.key);
    unlink(jnl);
    assert_int_equal(mbx_resume_load(csv, jnl, HASH, &r, msg, sizeof msg), MBX_E_IO);
    assert_non_null(strstr(msg, "no journal"));
    write_journal(HASH, "");
    append(csv, "x\n");
    FILE *f = fopen(csv, "wb");
    assert_non_null(f);
    assert_true(fputs("benchmark,procs,bytes\n", f) >= 0);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(mbx_resume_load(csv, jnl, HASH, &r, msg, sizeof msg), MBX_E_INVAL);
    assert_non_null(strstr(msg, "no column 'label'"));
    assert_null(r.key);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_passes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pass_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_row_width_owns_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
