/* The output scripts and eyes expect: the plan keys point_time
 * (per section) and sync, cache, timer, seed, warmup (kept as written for
 * the whole run); --point-time as an override; sizes given or defaulted;
 * the order of two rows (mbx_result_order) and a results file rewritten
 * sorted (mbx_results_sort_file): sorted by benchmark, procs, param and
 * bytes with ties in file order, whole at every moment, a file of another
 * width or not a results file left alone. */
#include <errno.h>
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

#include "mbx/csvio.h"
#include "mbx/plan.h"
#include "mbx/result.h"
#include "mbx/results_sort.h"

static const char *tmp(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/run_output_%s", MBX_TMP_DIR, name);
    return buf[k];
}

static void plan_keys(void **state)
{
    (void)state;
    mbx_measurement *m = malloc(sizeof *m);
    assert_non_null(m);
    mbx_measurement_defaults(m, "m");
    char msg[512] = "";
    assert_true(m->point_time == 0);
    assert_int_equal(mbx_measurement_set(m, "point_time", "2.5", msg, sizeof msg), MBX_OK);
    assert_true(m->point_time == 2.5);
    assert_int_equal(mbx_measurement_set(m, "point_time", "0", msg, sizeof msg), MBX_OK);
    assert_true(m->point_time == 0);
    const char *bad[] = {"-1", "86401", "x", "1e", "nan", "inf"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(mbx_measurement_set(m, "point_time", bad[i], msg, sizeof msg),
                         MBX_E_INVAL);
        assert_non_null(strstr(msg, "point_time: expected seconds in 0..86400"));
    }
    /* The keys of the whole run: kept as written, checked by the front end. */
    for (int k = 0; k < MBX_PLAN_RUN_KEYS; k++) {
        assert_string_equal(m->run_key[k], "");
        assert_int_equal(mbx_measurement_set(m, mbx_plan_run_key(k), " v1 ", msg, sizeof msg),
                         MBX_OK);
        assert_string_equal(m->run_key[k], "v1");
    }
    char longv[100];
    memset(longv, 'a', sizeof longv - 1);
    longv[sizeof longv - 1] = '\0';
    assert_int_equal(mbx_measurement_set(m, "sync", longv, msg, sizeof msg), MBX_E_INVAL);
    assert_non_null(strstr(msg, "sync: value too long"));
    /* Sizes given: the default's 0 B may be skipped, a given 0 is not. */
    assert_int_equal(m->sizes_given, 0);
    assert_int_equal(mbx_measurement_set(m, "sizes", "0,8", msg, sizeof msg), MBX_OK);
    assert_int_equal(m->sizes_given, 1);
    free(m);
}

static void plan_file_and_override(void **state)
{
    (void)state;
    mbx_plan *p = malloc(sizeof *p);
    assert_non_null(p);
    char msg[512] = "";
    const char *text = "[a]\nbench = pingpong.send_recv\npoint_time = 3\nseed = 42\n"
                       "[b]\nbench = coll.bcast\nwarmup = 300\n";
    assert_int_equal(mbx_plan_parse(text, "k.ini", p, msg, sizeof msg), MBX_OK);
    assert_true(p->meas[0].point_time == 3 && p->meas[1].point_time == 0);
    assert_string_equal(p->meas[0].run_key[3], "42");
    assert_string_equal(p->meas[1].run_key[4], "300");
    mbx_plan_overrides ov = {.point_time = "0.5"};
    assert_int_equal(mbx_plan_override(p, &ov, msg, sizeof msg), MBX_OK);
    assert_true(p->meas[0].point_time == 0.5 && p->meas[1].point_time == 0.5);
    ov.point_time = "-2";
    assert_int_equal(mbx_plan_override(p, &ov, msg, sizeof msg), MBX_E_INVAL);
    /* The option's name, not the key's. */
    assert_string_equal(msg, "--point-time: expected seconds in 0..86400, 0 for no cap (got '-2')");
    assert_int_equal(mbx_plan_parse("[a]\nbench = x\nsync = \n", "e.ini", p, msg, sizeof msg),
                     MBX_E_INVAL);
    free(p);
}

static mbx_result row(const char *bench, int procs, int64_t param, uint64_t bytes, size_t seq)
{
    mbx_result r;
    memset(&r, 0, sizeof r);
    r.benchmark = bench;
    r.procs = procs;
    r.param = param;
    r.param_name = param ? "pieces" : NULL;
    r.bytes = bytes;
    r.seq = seq;
    return r;
}

static void result_order(void **state)
{
    (void)state;
    mbx_result a = row("coll.bcast", 2, 0, 8, 3), b = row("pingpong.send_recv", 2, 0, 0, 1);
    assert_true(mbx_result_order(&a, &b) < 0); /* benchmark first */
    b = row("coll.bcast", 4, 0, 0, 1);
    assert_true(mbx_result_order(&a, &b) < 0); /* then procs */
    b = row("coll.bcast", 2, 16, 0, 1);
    assert_true(mbx_result_order(&a, &b) < 0); /* then param: none first */
    b = row("coll.bcast", 2, 0, 64, 1);
    assert_true(mbx_result_order(&a, &b) < 0); /* then bytes, 0 included */
    b = row("coll.bcast", 2, 0, 0, 9);
    assert_true(mbx_result_order(&a, &b) > 0);
    b = row("coll.bcast", 2, 0, 8, 2);
    assert_true(mbx_result_order(&a, &b) > 0); /* ties: seq */
    b = row("coll.bcast", 2, 0, 8, 0);
    assert_true(mbx_result_order(&a, &b) < 0); /* no seq: last */
    assert_int_equal(mbx_result_order(&a, &a), 0);
}

/* A results file of the given rows (benchmark, procs, param, bytes, seq). */
static void write_rows(const char *path, const mbx_result *r, size_t n)
{
    mbx_csv_writer *w;
    assert_int_equal(mbx_csv_writer_open(path, mbx_result_columns, MBX_RESULT_NCOLS, &w), MBX_OK);
    for (size_t i = 0; i < n; i++) {
        mbx_result_fields f;
        mbx_result_format(&r[i], &f);
        assert_int_equal(mbx_csv_writer_row(w, f.field), MBX_OK);
    }
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
}

static void sort_file(void **state)
{
    (void)state;
    const char *path = tmp("sort.csv");
    mbx_result r[] = {
        row("pingpong.send_recv", 2, 0, 1024, 1),
        row("coll.bcast", 2, 0, 8, 2),
        row("pingpong.send_recv", 2, 0, 0, 3),
        row("coll.bcast", 2, 0, 0, 4),
        row("mw.send", 3, 16, 8, 5),
        row("mw.send", 3, 4, 8, 6),
        row("pingpong.send_recv", 2, 0, 8, 7),
        row("coll.bcast", 4, 0, 0, 8),
    };
    size_t n = sizeof r / sizeof *r;
    write_rows(path, r, n);
    struct stat before;
    assert_int_equal(stat(path, &before), 0);
    assert_int_equal(mbx_results_sort_file(path), MBX_OK);
    mbx_csv_table t;
    assert_int_equal(mbx_csv_read_file(path, &t), MBX_OK);
    assert_int_equal(t.nrows, n + 1);
    /* The expected order by seq. */
    const char *want[] = {"4", "2", "8", "6", "5", "3", "7", "1"};
    int cs = mbx_csv_table_col(&t, "seq");
    assert_true(cs >= 0);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(t.cell[i + 1][cs], want[i]);
    mbx_csv_table_free(&t);
    /* Written aside and renamed: a new file, and nothing left beside it. */
    struct stat after;
    assert_int_equal(stat(path, &after), 0);
    assert_true(after.st_ino != before.st_ino);
    assert_int_equal(access(tmp("sort.sorting"), F_OK), -1);
    /* Sorting a sorted file changes nothing. */
    FILE *f = fopen(path, "rb");
    char a[8192], b[8192];
    size_t na = fread(a, 1, sizeof a, f);
    fclose(f);
    assert_int_equal(mbx_results_sort_file(path), MBX_OK);
    f = fopen(path, "rb");
    size_t nb = fread(b, 1, sizeof b, f);
    fclose(f);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na);
    remove(path);
}

static void sort_file_refuses(void **state)
{
    (void)state;
    /* A row of another width: left as it is. */
    const char *path = tmp("ragged.csv");
    FILE *f = fopen(path, "w");
    fputs("benchmark,procs,bytes\nb,2,8\na,2\n", f);
    fclose(f);
    assert_int_equal(mbx_results_sort_file(path), MBX_E_INVAL);
    f = fopen(path, "r");
    char buf[128] = "";
    size_t k = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[k] = '\0';
    assert_string_equal(buf, "benchmark,procs,bytes\nb,2,8\na,2\n");
    /* No benchmark column: not a results file. */
    f = fopen(path, "w");
    fputs("x,y\n2,1\n1,2\n", f);
    fclose(f);
    assert_int_equal(mbx_results_sort_file(path), MBX_E_INVAL);
    remove(path);
    /* A file without seq (an earlier version) sorts by its key, ties kept. */
    f = fopen(path, "w");
    fputs("benchmark,procs,bytes,label\nb,2,8,x\na,2,8,y\na,2,8,x\na,2,1,z\n", f);
    fclose(f);
    assert_int_equal(mbx_results_sort_file(path), MBX_OK);
    f = fopen(path, "r");
    k = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[k] = '\0';
    assert_string_equal(buf, "benchmark,procs,bytes,label\na,2,1,z\na,2,8,y\na,2,8,x\nb,2,8,x\n");
    remove(path);
    /* Not there; the null device is no regular file: left alone. */
    assert_int_equal(mbx_results_sort_file(tmp("absent.csv")), MBX_E_IO);
    assert_int_equal(mbx_results_sort_file("/dev/null"), MBX_OK);
    assert_int_equal(mbx_results_sort_file(NULL), MBX_E_INVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plan_keys),         cmocka_unit_test(plan_file_and_override),
        cmocka_unit_test(result_order),      cmocka_unit_test(sort_file),
        cmocka_unit_test(sort_file_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
