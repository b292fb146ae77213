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
#include "mbx/stats.h"

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

/* OSU's overlap on known numbers: 100 x (1 - (overall - compute) / pure),
 * clamped to 0..100; nothing that is not a time gives a percentage. */
static void overlap_pct_formula(void **state)
{
    (void)state;
    /* pure 10, compute 10, overall 14: 4 of 10 not hidden, 60 % */
    assert_true(fabs(mbx_overlap_pct(14.0, 10.0, 10.0) - 60.0) < 1e-12);
    /* all hidden: overall = compute */
    assert_true(fabs(mbx_overlap_pct(10.0, 10.0, 10.0) - 100.0) < 1e-12);
    /* nothing hidden: overall = compute + pure */
    assert_true(fabs(mbx_overlap_pct(20.0, 10.0, 10.0) - 0.0) < 1e-12);
    /* worse than serial (the computation slowed the operation): 0, not -50 */
    assert_true(mbx_overlap_pct(25.0, 10.0, 10.0) == 0.0);
    /* overall below compute (noise between the two medians): 100, not 120 */
    assert_true(mbx_overlap_pct(8.0, 10.0, 10.0) == 100.0);
    /* units cancel: microseconds as seconds */
    assert_true(fabs(mbx_overlap_pct(3.5e-6, 2e-6, 2e-6) - 25.0) < 1e-9);
    assert_true(isnan(mbx_overlap_pct(14.0, 10.0, 0.0)));
    assert_true(isnan(mbx_overlap_pct(14.0, 10.0, -1.0)));
    assert_true(isnan(mbx_overlap_pct(14.0, 10.0, NAN)));
    assert_true(isnan(mbx_overlap_pct(NAN, 10.0, 10.0)));
    assert_true(isnan(mbx_overlap_pct(14.0, INFINITY, 10.0)));
    assert_true(isnan(mbx_overlap_pct(14.0, -1.0, 10.0)));
}

/* The overlap columns, 56th to 59th (columns appended later follow
 * them): filled for an overlap row (pure = plain, overall = the median),
 * empty for every other row. */
static void overlap_columns_in_place_and_empty_elsewhere(void **state)
{
    (void)state;
    assert_int_equal(col("pure_comm_us"), 55);
    assert_int_equal(col("compute_us"), 56);
    assert_int_equal(col("overall_us"), 57);
    assert_int_equal(col("overlap_pct"), 58);
    assert_int_equal(MBX_COL_PURE_COMM_US, col("pure_comm_us"));
    mbx_result r = sample();
    r.plain = 5e-6; /* an accurate benchmark's plain is no pure time */
    mbx_result_fields f;
    mbx_result_format(&r, &f);
    for (int c = MBX_COL_PURE_COMM_US; c <= MBX_COL_OVERLAP_PCT; c++)
        assert_string_equal(f.field[c], "");
    r.benchmark = "overlap.iallreduce";
    r.timing = "max_over_ranks";
    r.overlap = 1;
    r.plain = 10e-6;
    r.compute = 10.5e-6;
    r.s.median = 14.5e-6;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("pure_comm_us")], "10.0000");
    assert_string_equal(f.field[col("compute_us")], "10.5000");
    assert_string_equal(f.field[col("overall_us")], "14.5000");
    assert_string_equal(f.field[col("median_us")], "14.5000");
    assert_string_equal(f.field[col("overlap_pct")], "60.00");
    r.plain = NAN; /* the companion had no usable median */
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("pure_comm_us")], "");
    assert_string_equal(f.field[col("overall_us")], "14.5000");
    assert_string_equal(f.field[col("overlap_pct")], "");
}

/* msg_rate_per_s (appended after the pass columns): the messages one
 * observation moves over the median, empty where none are counted; the
 * bandwidth takes the bytes moved (a window of 64 x 4096 B). */
static void msg_rate_and_moved_bytes(void **state)
{
    (void)state;
    assert_int_equal(col("msg_rate_per_s"), 53);
    assert_int_equal(MBX_COL_MSG_RATE_PER_S, 53);
    mbx_result r = sample();
    mbx_result_fields f;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("msg_rate_per_s")], ""); /* msgs 0 */
    assert_true(isnan(mbx_result_msg_rate(&r)));
    r.benchmark = "bw.uni";
    r.moved = 64 * r.bytes;
    r.msgs = 64;
    mbx_result_format(&r, &f);
    /* 64 messages / 2.048 us = 31250000 per second; 64 x 2000 MB/s */
    assert_string_equal(f.field[col("msg_rate_per_s")], "31250000.0");
    assert_string_equal(f.field[col("bandwidth_MBps")], "128000.000");
    r.status = MBX_POINT_UNRELIABLE;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("msg_rate_per_s")], "");
    r.status = MBX_POINT_SETTLED;
    r.bytes = r.moved = 0; /* zero-byte messages still have a rate */
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("msg_rate_per_s")], "31250000.0");
    assert_string_equal(f.field[col("bandwidth_MBps")], "");
}

/* rma_sync (appended after the pass columns and msg_rate_per_s): the one-sided benchmarks'
 * sync mode, empty for every other benchmark and also when the point was
 * measured in one go (it is set before the pass columns return early). */
static void rma_sync_is_appended_and_empty_elsewhere(void **state)
{
    (void)state;
    assert_int_equal(col("rma_sync"), 54);
    assert_int_equal(MBX_COL_RMA_SYNC, 54);
    assert_int_equal(col("level_hi_us"), 50);
    mbx_result r = sample();
    mbx_result_fields f;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("rma_sync")], "");
    r.benchmark = "rma.put";
    r.rma_sync = "fence";
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("rma_sync")], "fence");
    r.passes = 3;
    r.pass_span = 0.5;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("rma_sync")], "fence");
    assert_string_equal(f.field[col("passes")], "3");
}

/* ci_scope (appended after the overlap columns): a row with an interval
 * says it covers this launch, in one go and in passes alike; a row
 * without one (INVALID, or a corrected interval below 0) says nothing. */
static void ci_scope_names_the_launch(void **state)
{
    (void)state;
    assert_int_equal(col("ci_scope"), 59);
    mbx_result r = sample();
    mbx_result_fields f;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("ci_scope")], "launch");
    r.passes = 5;
    r.pass_span = 1.2;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("ci_scope")], "launch");
    r.s.ci_lo = NAN;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("ci_scope")], "");
    r.s.ci_lo = 2.0e-6;
    r.s.ci_hi = -1e-9;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("ci95_hi_us")], "");
    assert_string_equal(f.field[col("ci_scope")], "");
}

/* The tail percentiles: the summary's P90 and P99 with their intervals,
 * a reason where n is below an interval's K, nothing on a row without
 * them (a zeroed summary, an INVALID row's n of 0, a negative value). */
static void tail_percentiles_with_reason_and_scope(void **state)
{
    (void)state;
    assert_int_equal(col("p90_us"), 73);
    assert_int_equal(col("tail_reason"), 80);
    assert_int_equal(MBX_RESULT_NCOLS, 81);
    double x[400], scratch[400];
    for (size_t i = 0; i < 400; i++)
        x[i] = (double)(i + 1) * 1e-6; /* 1 .. 400 us */
    mbx_result r = sample();
    mbx_result_fields f;
    mbx_result_format(&r, &f); /* sample() never summarized: no percentiles */
    assert_string_equal(f.field[col("p90_us")], "");
    assert_string_equal(f.field[col("tail_scope")], "");
    assert_string_equal(f.field[col("tail_reason")], "");

    assert_int_equal(mbx_stats_summarize(x, 400, scratch, &r.s), MBX_OK);
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("p90_us")], "360.1000"); /* h = 359.1 */
    assert_string_equal(f.field[col("p99_us")], "396.0100");
    assert_true(f.field[col("p90_ci95_lo_us")][0] && f.field[col("p99_ci95_hi_us")][0]);
    assert_string_equal(f.field[col("tail_scope")], "observations-of-one-job");
    assert_string_equal(f.field[col("tail_reason")], "");

    assert_int_equal(mbx_stats_summarize(x, 50, scratch, &r.s), MBX_OK);
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("p90_ci95_lo_us")], "41.0000");
    assert_string_equal(f.field[col("p90_ci95_hi_us")], "50.0000");
    assert_string_equal(f.field[col("p99_us")], "49.5100");
    assert_string_equal(f.field[col("p99_ci95_lo_us")], "");
    assert_string_equal(f.field[col("p99_ci95_hi_us")], "");
    assert_string_equal(f.field[col("tail_reason")],
                        "n too small for P99: needs >= 368 observations");

    assert_int_equal(mbx_stats_summarize(x, 20, scratch, &r.s), MBX_OK);
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("p90_ci95_lo_us")], "");
    assert_string_equal(f.field[col("tail_reason")],
                        "n too small for P90 (>= 36) and P99 (>= 368)");

    r.s.n = 0; /* INVALID and HUNG rows */
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("p90_us")], "");
    assert_string_equal(f.field[col("tail_scope")], "");
    assert_string_equal(f.field[col("tail_reason")], "");

    for (size_t i = 0; i < 400; i++)
        x[i] -= 393e-6; /* an overhead correction larger than most values */
    assert_int_equal(mbx_stats_summarize(x, 400, scratch, &r.s), MBX_OK);
    mbx_summary_drop_negative(&r.s);
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("p90_us")], "");
    assert_string_equal(f.field[col("p99_us")], "3.0100");
    assert_string_equal(f.field[col("p90_ci95_hi_us")], "");
    assert_string_equal(f.field[col("p99_ci95_lo_us")], "0.0000"); /* x(392) = -1 us, cut to 0 */
}

/* A row a machine profile widened (mbx/profile.h) says so, and only it
 * has a prediction interval (format 4's last columns). */
static void ci_scope_names_a_profile(void **state)
{
    (void)state;
    assert_int_equal(col("pi95_lo_us"), 60);
    assert_int_equal(col("pi95_hi_us"), 61);
    assert_int_equal(mbx_result_cols[col("pi95_lo_us")].since, 4);
    mbx_result r = sample();
    mbx_result_fields f;
    r.pi_lo = 1e-6, r.pi_hi = 9e-6;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("pi95_lo_us")], "");
    assert_string_equal(f.field[col("pi95_hi_us")], "");
    r.ci_scope = MBX_SCOPE_PROFILE;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("ci_scope")], "profile");
    assert_string_equal(f.field[col("pi95_lo_us")], "1.0000");
    assert_string_equal(f.field[col("pi95_hi_us")], "9.0000");
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
    assert_string_equal(t.cell[0][58], "overlap_pct");
    assert_string_equal(t.cell[0][53], "msg_rate_per_s");
    for (int c = 43; c <= MBX_COL_OVERLAP_PCT; c++)
        assert_string_equal(t.cell[1][c], "");
    /* seq and status_reason at the end, in this order. */
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
        cmocka_unit_test(overlap_pct_formula),
        cmocka_unit_test(overlap_columns_in_place_and_empty_elsewhere),
        cmocka_unit_test(msg_rate_and_moved_bytes),
        cmocka_unit_test(rma_sync_is_appended_and_empty_elsewhere),
        cmocka_unit_test(ci_scope_names_the_launch),
        cmocka_unit_test(ci_scope_names_a_profile),
        cmocka_unit_test(tail_percentiles_with_reason_and_scope),
        cmocka_unit_test(round_trip_through_libcsv),
        cmocka_unit_test(seq_and_reason),
        cmocka_unit_test(kv_values_stay_on_one_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
