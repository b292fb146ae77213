/* Result rows: the column contract, units, undefined values left empty, the
 * bandwidth formula, and a round trip through the CSV writer and libcsv's
 * reader. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/csvio.h"
#include "mbx/kv.h"
#include "mbx/result.h"

static mbx_result sample(void)
{
    mbx_result r;
    memset(&r, 0, sizeof r);
    r.benchmark = "pingpong.send_recv";
    r.label = "latency, \"quoted\"";
    r.timing = "half_round_trip";
    r.procs = 2;
    r.bytes = 4096;
    r.s.n = 64;
    r.s.mean = 2.5e-6;
    r.s.tmean = 2.0e-6;
    r.s.median = 2.048e-6;
    r.s.min = 1.9e-6;
    r.s.max = 9.1e-6;
    r.s.q1 = 1.95e-6;
    r.s.q3 = 2.2e-6;
    r.s.stddev = 1.1e-6;
    r.s.stderr_ = 0.02e-6;
    r.s.ci_lo = 2.0e-6;
    r.s.ci_hi = 2.1e-6;
    r.s.outliers = 3;
    r.status = MBX_POINT_SETTLED;
    r.stop = (mbx_stop_rule){MBX_STOP_STDERR, 0.03, 0};
    r.nmin = 16;
    r.nmax = 1000;
    r.overhead = 30e-9;
    r.batches = 4;
    r.wall = 0.0123;
    r.probe = r.probe_after = r.plain = NAN;
    return r;
}

static int col(const char *name)
{
    for (int i = 0; i < MBX_RESULT_NCOLS; i++)
        if (strcmp(mbx_result_columns[i], name) == 0)
            return i;
    return -1;
}

static void required_columns_in_contract_order(void **state)
{
    (void)state;
    static const char *const required[] = {
        "benchmark",  "procs",    "bytes",  "n",         "mean_us",       "tmean_us",  "median_us",
        "min_us",     "max_us",   "q1_us",  "q3_us",     "stddev_us",     "stderr_us", "ci95_lo_us",
        "ci95_hi_us", "outliers", "status", "stop_rule", "bandwidth_MBps"};
    for (size_t i = 0; i < sizeof required / sizeof *required; i++)
        assert_int_equal(col(required[i]), (int)i);
}

static void formats_units(void **state)
{
    (void)state;
    mbx_result r = sample();
    mbx_result_fields f;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("benchmark")], "pingpong.send_recv");
    assert_string_equal(f.field[col("bytes")], "4096");
    assert_string_equal(f.field[col("median_us")], "2.0480");
    assert_string_equal(f.field[col("stderr_us")], "0.0200");
    assert_string_equal(f.field[col("status")], "SETTLED");
    assert_string_equal(f.field[col("stop_rule")], "stderr:0.03");
    /* 4096 B / 2.048 us = 2000 MB/s (MB = 10^6 B). */
    assert_string_equal(f.field[col("bandwidth_MBps")], "2000.000");
    assert_string_equal(f.field[col("overhead_us")], "0.0300");
    assert_string_equal(f.field[col("timing")], "half_round_trip");
    assert_true(fabs(mbx_result_bandwidth(&r) - 2000.0) < 1e-9);
}

static void undefined_values_are_empty(void **state)
{
    (void)state;
    mbx_result r = sample();
    r.bytes = 0; /* a barrier has no bandwidth */
    r.s.n = 1;
    r.s.stddev = NAN;
    r.s.stderr_ = NAN;
    r.status = MBX_POINT_UNRELIABLE;
    mbx_result_fields f;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("stddev_us")], "");
    assert_string_equal(f.field[col("stderr_us")], "");
    assert_string_equal(f.field[col("bandwidth_MBps")], "");
    assert_string_equal(f.field[col("status")], "UNRELIABLE");
    assert_true(isnan(mbx_result_bandwidth(&r)));
    r = sample();
    r.s.median = -1e-9; /* corrected below zero: no bandwidth either */
    assert_true(isnan(mbx_result_bandwidth(&r)));
}

/* Column 41 (appended): the plain companion's median of an accurate
 * benchmark, in microseconds like every time; empty for every other. */
static void plain_us_is_appended_and_empty_when_undefined(void **state)
{
    (void)state;
    assert_true(MBX_RESULT_NCOLS >= 41);
    assert_int_equal(col("plain_us"), 40);
    assert_int_equal(col("remeasured"), 39);
    mbx_result r = sample();
    mbx_result_fields f;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("plain_us")], "");
    r.benchmark = "coll.bcast_accurate";
    r.timing = "max_over_receivers";
    r.plain = 12.34567e-6;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("plain_us")], "12.3457");
    assert_string_equal(f.field[col("timing")], "max_over_receivers");
    r.plain = INFINITY;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("plain_us")], "");
}

static void round_trip_through_libcsv(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/result_rt.csv", MBX_TMP_DIR);
    mbx_csv_writer *w;
    assert_int_equal(mbx_csv_writer_open(path, mbx_result_columns, MBX_RESULT_NCOLS, &w), MBX_OK);
    mbx_result r = sample();
    mbx_result_fields f;
    mbx_result_format(&r, &f);
    assert_int_equal(mbx_csv_writer_row(w, f.field), MBX_OK);
    r.status = MBX_POINT_UNSETTLED;
    r.stop = (mbx_stop_rule){MBX_STOP_FIXED, 0, 100};
    mbx_result_format(&r, &f);
    assert_int_equal(mbx_csv_writer_row(w, f.field), MBX_OK);
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);

    mbx_csv_table t;
    assert_int_equal(mbx_csv_read_file(path, &t), MBX_OK);
    assert_int_equal(t.nrows, 3);
    for (size_t r2 = 0; r2 < t.nrows; r2++)
        assert_int_equal(t.ncols[r2], MBX_RESULT_NCOLS);
    assert_string_equal(t.cell[1][col("label")], "latency, \"quoted\"");
    assert_string_equal(t.cell[2][col("status")], "UNSETTLED");
    assert_string_equal(t.cell[2][col("stop_rule")], "fixed:100");
    assert_string_equal(t.cell[1][col("ci95_hi_us")], "2.1000");
    assert_string_equal(t.cell[1][col("plain_us")], "");
    assert_string_equal(t.cell[0][col("faults") - 1], "events");
    assert_string_equal(t.cell[0][42], "faults");
    assert_string_equal(t.cell[1][42], "0");
    /* A point measured in one go (passes 0): the pass columns are empty. */
    assert_string_equal(t.cell[0][50], "level_hi_us");
    for (int c = 43; c < MBX_RESULT_NCOLS; c++)
        assert_string_equal(t.cell[1][c], "");
    /* Issue 18: seq and status_reason at the end, in this order. */
    assert_string_equal(t.cell[0][51], "seq");
    assert_string_equal(t.cell[0][52], "status_reason");
    mbx_csv_table_free(&t);
    remove(path);
}

/* seq is written when set (a run's rows count from 1); status_reason only
 * for a point that is not SETTLED: a SETTLED point needs no reason. */
static void seq_and_reason(void **state)
{
    (void)state;
    mbx_result r = sample();
    mbx_result_fields f;
    r.seq = 7;
    r.status = MBX_POINT_UNSETTLED;
    snprintf(r.status_reason, sizeof r.status_reason, "point-time 2 s");
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("seq")], "7");
    assert_string_equal(f.field[col("status_reason")], "point-time 2 s");
    r.status = MBX_POINT_SETTLED;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("status_reason")], "");
    r.seq = 0;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("seq")], "");
}

static void kv_values_stay_on_one_line(void **state)
{
    (void)state;
    mbx_kvlist l = {0};
    assert_int_equal(mbx_kv_addf(&l, "mpi", "MPICH Version:\t4.0.2\nMPICH ABI: 14\n"), MBX_OK);
    assert_int_equal(mbx_kv_addf(&l, "n", "%d", 42), MBX_OK);
    assert_string_equal(mbx_kv_get(&l, "mpi"), "MPICH Version:\t4.0.2 | MPICH ABI: 14");
    assert_string_equal(mbx_kv_get(&l, "n"), "42");
    assert_null(mbx_kv_get(&l, "missing"));
    mbx_kv_free(&l);
    assert_int_equal(l.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(required_columns_in_contract_order),
        cmocka_unit_test(formats_units),
        cmocka_unit_test(undefined_values_are_empty),
        cmocka_unit_test(plain_us_is_appended_and_empty_when_undefined),
        cmocka_unit_test(round_trip_through_libcsv),
        cmocka_unit_test(seq_and_reason),
        cmocka_unit_test(kv_values_stay_on_one_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
