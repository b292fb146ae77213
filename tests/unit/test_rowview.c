/* What every view shows of a row's interval and flag (mbx/rowview.h):
 * "n/a, K levels" only for a row that tells levels apart, bandwidth
 * intervals inverted and never read off a time of 0, and one line of
 * advice for every flagged status. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/rowview.h"

static void interval_na(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(mbx_row_ci_na(MBX_POINT_SHIFTED, 2, b, sizeof b), "n/a, 2 levels");
    assert_string_equal(mbx_row_ci_na(MBX_POINT_SHIFTED, 3, b, sizeof b), "n/a, 3 levels");
    /* One level (or none given, an older file): the row's own interval. */
    assert_null(mbx_row_ci_na(MBX_POINT_SHIFTED, 1, b, sizeof b));
    assert_null(mbx_row_ci_na(MBX_POINT_SHIFTED, 0, b, sizeof b));
    assert_null(mbx_row_ci_na(MBX_POINT_SETTLED, 2, b, sizeof b));
    assert_null(mbx_row_ci_na(MBX_POINT_UNSETTLED, 2, b, sizeof b));
}

static void bandwidth_inverted(void **state)
{
    (void)state;
    double lo, hi;
    /* 1 MB in 1..2 s: 0.5..1 MB/s; the low time gives the high end. */
    mbx_row_bw_interval(1000000, 1.0, 2.0, &lo, &hi);
    assert_float_equal(lo, 0.5, 1e-12);
    assert_float_equal(hi, 1.0, 1e-12);
    /* A time interval from 0 (the defect '[0, 48.07]'): no upper bandwidth. */
    mbx_row_bw_interval(1000000, 0.0, 2.0, &lo, &hi);
    assert_float_equal(lo, 0.5, 1e-12);
    assert_true(isnan(hi));
    mbx_row_bw_interval(0, 1.0, 2.0, &lo, &hi);
    assert_true(isnan(lo) && isnan(hi));
    mbx_row_bw_interval(1000, NAN, INFINITY, &lo, &hi);
    assert_true(isnan(lo) && isnan(hi));
}

static void advice(void **state)
{
    (void)state;
    const char *s = mbx_row_advice(MBX_POINT_SHIFTED, "level shift");
    assert_non_null(s);
    assert_non_null(strstr(s, "-bind-to core"));
    assert_non_null(strstr(s, "repeat -k 10"));
    assert_non_null(strstr(mbx_row_advice(MBX_POINT_UNSETTLED, "max-passes 15"), "--max-passes"));
    assert_non_null(strstr(mbx_row_advice(MBX_POINT_UNSETTLED, "time-limit 9 s"), "--time-limit"));
    assert_non_null(strstr(mbx_row_advice(MBX_POINT_UNSETTLED, NULL), "--span"));
    assert_null(mbx_row_advice(MBX_POINT_SETTLED, ""));
    assert_null(mbx_row_advice(MBX_POINT_FIXED, ""));
    /* One line each. */
    assert_null(strchr(s, '\n'));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(interval_na),
        cmocka_unit_test(bandwidth_inverted),
        cmocka_unit_test(advice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
