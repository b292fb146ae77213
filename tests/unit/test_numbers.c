/* Numbers that must not be reported: a corrected time below the
 * timer's resolution is UNRELIABLE and has no bandwidth, no negative time
 * reaches a CSV field, and an observation 100x the median is an event that
 * is counted, left out of the statistics and of the stop rule, and keeps
 * the point from SETTLED. Synthetic observation arrays, no MPI. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/result.h"
#include "mbx/stats.h"
#include "mbx/stop.h"

#define TICK 20e-9 /* the resolution clock_gettime shows on the test VMs */

static int col(const char *name)
{
    for (int i = 0; i < MBX_RESULT_NCOLS; i++)
        if (strcmp(mbx_result_columns[i], name) == 0)
            return i;
    return -1;
}

static mbx_result row_of(const mbx_summary *s, mbx_point_status st, uint64_t bytes)
{
    mbx_result r;
    memset(&r, 0, sizeof r);
    r.benchmark = "coll.bcast";
    r.timing = "max_over_ranks";
    r.procs = 1;
    r.bytes = bytes;
    r.s = *s;
    r.status = st;
    r.stop = (mbx_stop_rule){MBX_STOP_STDERR, 0.03, 0};
    r.overhead = 30e-9;
    r.root = -1;
    r.probe = r.probe_after = r.plain = NAN;
    return r;
}

/* No field of the row is a negative number ("-0.0000" included). */
static void assert_no_negative_field(const mbx_result *r)
{
    mbx_result_fields f;
    mbx_result_format(r, &f);
    for (int i = 0; i < MBX_RESULT_NCOLS; i++) {
        if (f.field[i][0] == '-')
            fail_msg("column %s is '%s'", mbx_result_columns[i], f.field[i]);
    }
}

/* The 1-rank collective of the issue: the overhead correction leaves
 * 4.5e-13 s, which "not positive" let through as a time and 2.3e12 MB/s. */
static void tiny_positive_median_is_unreliable_without_bandwidth(void **state)
{
    (void)state;
    mbx_summary s;
    memset(&s, 0, sizeof s);
    s.n = 1000;
    s.mean = s.tmean = s.median = s.q1 = s.q3 = s.ci_lo = s.ci_hi = 4.5e-13;
    s.min = -1e-8;
    s.max = 3e-8;
    s.stddev = 2.5e-9;
    s.stderr_ = 1e-13;
    assert_int_equal(mbx_point_judge(&s, 0, MBX_STOP_MET, TICK), MBX_POINT_UNRELIABLE);
    assert_int_equal(mbx_point_judge(&s, 0, MBX_STOP_AT_NMAX, TICK), MBX_POINT_UNRELIABLE);
    /* Just below one tick is still below it; one tick is a time. */
    s.median = 0.999 * TICK;
    assert_int_equal(mbx_point_judge(&s, 0, MBX_STOP_MET, TICK), MBX_POINT_UNRELIABLE);
    s.median = TICK;
    assert_int_equal(mbx_point_judge(&s, 0, MBX_STOP_MET, TICK), MBX_POINT_SETTLED);
    assert_int_equal(mbx_point_judge(&s, 0, MBX_STOP_AT_NMAX, TICK), MBX_POINT_UNSETTLED);
    s.median = 0.0;
    assert_int_equal(mbx_point_judge(&s, 0, MBX_STOP_MET, 0.0), MBX_POINT_UNRELIABLE);

    s.median = 4.5e-13;
    mbx_result r = row_of(&s, MBX_POINT_UNRELIABLE, 1);
    assert_true(isnan(mbx_result_bandwidth(&r)));
    mbx_result_fields f;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("bandwidth_MBps")], "");
    assert_string_equal(f.field[col("status")], "UNRELIABLE");
    /* An INVALID row has no bandwidth whatever its stale median says. */
    r.status = MBX_POINT_INVALID;
    assert_true(isnan(mbx_result_bandwidth(&r)));
}

/* Corrected observations below zero: the summary keeps them for the
 * spread, but no location statistic below 0 is written, and the raw
 * observation file writes 0 for them. */
static void negative_minima_are_never_written(void **state)
{
    (void)state;
    double x[64], scratch[64];
    for (int i = 0; i < 64; i++)
        x[i] = (i % 8 == 0) ? -1e-8 : (i % 8 == 1 ? 1e-8 : 0.0); /* raw 0 or 1 tick, less 30 ns */
    mbx_summary s;
    size_t events = 99;
    assert_int_equal(mbx_stats_summarize_events(x, 64, TICK, scratch, &s, &events), MBX_OK);
    assert_int_equal(events, 0);
    assert_true(s.min < 0); /* the summary itself is honest about the data */
    mbx_result r = row_of(&s, mbx_point_judge(&s, events, MBX_STOP_MET, TICK), 8);
    assert_int_equal(r.status, MBX_POINT_UNRELIABLE);
    /* Formatting alone refuses to write a negative time... */
    assert_no_negative_field(&r);
    mbx_result_fields f;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("min_us")], "");
    assert_string_equal(f.field[col("median_us")], "0.0000");
    assert_string_equal(f.field[col("bandwidth_MBps")], "");
    /* ...and the summary a result carries has them undefined. */
    mbx_summary_drop_negative(&r.s);
    assert_true(isnan(r.s.min));
    assert_true(isnan(r.s.mean) || r.s.mean >= 0);
    assert_true(r.s.max > 0 && r.s.median == 0.0);
    assert_no_negative_field(&r);

    /* A median of -0.0 must not print as "-0.0000". */
    r.s.median = -0.0;
    assert_no_negative_field(&r);
    char buf[32];
    mbx_obs_format_us(-1e-8, buf, sizeof buf);
    assert_string_equal(buf, "0.0000");
    mbx_obs_format_us(-0.0, buf, sizeof buf);
    assert_string_equal(buf, "0.0000");
    mbx_obs_format_us(1.5e-6, buf, sizeof buf);
    assert_string_equal(buf, "1.5000");
}

/* A rank stopped for 3 s: one observation of 1.5 s among microseconds. */
static void one_100x_observation_is_an_event(void **state)
{
    (void)state;
    double x[100], scratch[100];
    for (int i = 0; i < 100; i++)
        x[i] = 1e-6 * (1.0 + 0.01 * (double)(i % 7));
    x[37] = 1.5;
    mbx_summary s;
    size_t events = 0;
    assert_int_equal(mbx_stats_summarize_events(x, 100, TICK, scratch, &s, &events), MBX_OK);
    assert_int_equal(events, 1);
    assert_int_equal(s.n, 99);
    assert_true(s.max < 2e-6);  /* left out of every statistic */
    assert_true(s.mean < 2e-6); /* not 15 ms */
    assert_true(s.stddev < 1e-7);
    assert_int_equal(s.outliers, 0);
    /* Not SETTLED, even when the rest meets the rule. */
    assert_int_equal(mbx_point_judge(&s, events, MBX_STOP_MET, TICK), MBX_POINT_UNSETTLED);
    assert_int_equal(mbx_point_judge(&s, 0, MBX_STOP_MET, TICK), MBX_POINT_SETTLED);

    mbx_result r = row_of(&s, mbx_point_judge(&s, events, MBX_STOP_MET, TICK), 8);
    r.events = events;
    mbx_result_fields f;
    mbx_result_format(&r, &f);
    assert_int_equal(col("events"), col("faults") - 1); /* events, then faults, last */
    assert_int_equal(col("faults"), 42);                /* then the pass columns (format 3) */
    assert_string_equal(f.field[col("events")], "1");
    assert_string_equal(f.field[col("status")], "UNSETTLED");
    r.events = 0;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[col("events")], "0");

    /* The stop rule sees only the 99 others: fixed:100 is not met by the
     * 100 observations taken (the event does not count toward settling). */
    mbx_stop_rule fixed = {MBX_STOP_FIXED, 0, 100};
    assert_int_equal(mbx_stop_eval(&fixed, &s, TICK, 100, 100), MBX_STOP_GO_ON);
}

/* Below the factor nothing is an event; a median below the resolution
 * measures events against the resolution, so jitter of a corrected ~0 is
 * not counted; several events are all counted. */
static void the_event_threshold(void **state)
{
    (void)state;
    double x[40], scratch[40];
    mbx_summary s;
    size_t events = 0;
    for (int i = 0; i < 40; i++)
        x[i] = 2e-6;
    x[3] = 2e-6 * 99.0;
    assert_int_equal(mbx_stats_summarize_events(x, 40, TICK, scratch, &s, &events), MBX_OK);
    assert_int_equal(events, 0);
    assert_int_equal(s.n, 40);
    x[3] = 2e-6 * 101.0;
    x[9] = 0.5;
    x[20] = 3.0;
    assert_int_equal(mbx_stats_summarize_events(x, 40, TICK, scratch, &s, &events), MBX_OK);
    assert_int_equal(events, 3);
    assert_int_equal(s.n, 37);
    assert_true(s.max == 2e-6);

    for (int i = 0; i < 40; i++)
        x[i] = (i % 2) ? 1e-12 : -1e-12;
    x[5] = 10 * TICK; /* 10^13 x the median, but only 10 ticks */
    assert_int_equal(mbx_stats_summarize_events(x, 40, TICK, scratch, &s, &events), MBX_OK);
    assert_int_equal(events, 0);
    x[5] = 101 * TICK;
    assert_int_equal(mbx_stats_summarize_events(x, 40, TICK, scratch, &s, &events), MBX_OK);
    assert_int_equal(events, 1);

    /* Bad input as mbx_stats_summarize: non-finite values, no data. */
    x[5] = NAN;
    assert_int_equal(mbx_stats_summarize_events(x, 40, TICK, scratch, &s, &events), MBX_E_INVAL);
    assert_int_equal(mbx_stats_summarize_events(x, 0, TICK, scratch, &s, &events), MBX_E_INVAL);
    x[5] = 0.0;
    assert_int_equal(mbx_stats_summarize_events(x, 40, -1.0, scratch, &s, &events), MBX_E_INVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tiny_positive_median_is_unreliable_without_bandwidth),
        cmocka_unit_test(negative_minima_are_never_written),
        cmocka_unit_test(one_100x_observation_is_an_event),
        cmocka_unit_test(the_event_threshold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
