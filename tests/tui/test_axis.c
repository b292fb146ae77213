/* Unit tests for log-scale fitting, pixel mapping, tick choice and labels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "axis.h"

#define MICRO "\xc2\xb5"

static void expect_fit(double min, double max, mbx_axis_kind kind, double lo, double hi)
{
    mbx_scale s = mbx_scale_fit(min, max, kind);
    if (s.lo != lo || s.hi != hi) {
        fail_msg("fit [%g, %g] kind %d: got [%.17g, %.17g], want [%g, %g]", min, max, (int)kind,
                 s.lo, s.hi, lo, hi);
    }
}

static void expect_format(double v, mbx_axis_kind kind, int utf8, const char *want)
{
    char buf[MBX_AXIS_LABEL];
    memset(buf, 'Z', sizeof buf);
    mbx_axis_format(v, kind, utf8, buf, sizeof buf);
    if (strcmp(buf, want) != 0) {
        fail_msg("format %.17g kind %d: got \"%s\", want \"%s\"", v, (int)kind, buf, want);
    }
}

static void expect_ticks(const mbx_ticks *t, const char *const *labels, int n)
{
    if (t->n != n) {
        fail_msg("got %d ticks, want %d (first \"%s\")", t->n, n, t->n > 0 ? t->label[0] : "");
    }
    for (int i = 0; i < n; i++) {
        if (strcmp(t->label[i], labels[i]) != 0) {
            fail_msg("tick %d: got \"%s\", want \"%s\"", i, t->label[i], labels[i]);
        }
        if (i > 0 && !(t->value[i] > t->value[i - 1])) {
            fail_msg("tick %d not increasing", i);
        }
    }
}

static void test_fit_bytes(void **state)
{
    (void)state;
    expect_fit(3, 5000, MBX_AXIS_BYTES, 2, 8192);
    expect_fit(4, 4096, MBX_AXIS_BYTES, 4, 4096); /* exact powers stay */
    expect_fit(1, 4194304, MBX_AXIS_BYTES, 1, 4194304);
    expect_fit(5000, 3, MBX_AXIS_BYTES, 2, 8192); /* swapped arguments */
    expect_fit(0, 100, MBX_AXIS_BYTES, 1, 128);   /* <= 0 becomes 1 byte */
    expect_fit(-5, 100, MBX_AXIS_BYTES, 1, 128);
}

static void test_fit_decades(void **state)
{
    (void)state;
    expect_fit(2.5e-6, 3.1e-4, MBX_AXIS_SECONDS, 1e-6, 1e-3);
    expect_fit(1e-6, 1e-3, MBX_AXIS_SECONDS, 1e-6, 1e-3);
    expect_fit(0, 1e-6, MBX_AXIS_SECONDS, 1e-9, 1e-6);
    expect_fit(0.5, 12345, MBX_AXIS_MBPS, 0.1, 1e5);
    expect_fit(1e3, 1e3, MBX_AXIS_MBPS, 100, 1e4);
    expect_fit(0, 0, MBX_AXIS_MBPS, 1e-3, 1e-1);
}

static void test_fit_single_value_widens(void **state)
{
    (void)state;
    expect_fit(64, 64, MBX_AXIS_BYTES, 32, 128);
    expect_fit(100, 100, MBX_AXIS_BYTES, 64, 128); /* not a power: already a step */
    expect_fit(1e-6, 1e-6, MBX_AXIS_SECONDS, 1e-7, 1e-5);
    expect_fit(1, 1, MBX_AXIS_BYTES, 1, 4); /* nothing below 1 byte: grows up */
    expect_fit(1e-9, 1e-9, MBX_AXIS_SECONDS, 1e-9, 1e-7);
    for (int k = 0; k < 3; k++) {
        mbx_scale s = mbx_scale_fit(7.7, 7.7, (mbx_axis_kind)k);
        assert_true(s.lo < 7.7 && s.hi > 7.7 && s.lo > 0);
    }
}

static void test_pixel(void **state)
{
    (void)state;
    mbx_scale s = {1, 1024};
    assert_int_equal(mbx_scale_pixel(&s, 1, 100, 0), 0);
    assert_int_equal(mbx_scale_pixel(&s, 1024, 100, 0), 99);
    assert_int_equal(mbx_scale_pixel(&s, 32, 101, 0), 50); /* geometric middle */
    assert_int_equal(mbx_scale_pixel(&s, 1, 100, 1), 99);
    assert_int_equal(mbx_scale_pixel(&s, 1024, 100, 1), 0);
    assert_int_equal(mbx_scale_pixel(&s, 32, 101, 1), 50);
    assert_int_equal(mbx_scale_pixel(&s, 2, 11, 0), 1);
    assert_int_equal(mbx_scale_pixel(&s, 2, 11, 1), 9);
    /* Outside the scale means outside the pixels; the caller clips. */
    assert_true(mbx_scale_pixel(&s, 0.5, 100, 0) < 0);
    assert_true(mbx_scale_pixel(&s, 4096, 100, 0) > 99);
    assert_true(mbx_scale_pixel(&s, 4096, 100, 1) < 0);
    assert_true(mbx_scale_pixel(&s, 0, 100, 0) < 0);
    assert_true(mbx_scale_pixel(&s, 1e300, 100, 0) > 99);
    mbx_scale t = {1e-9, 1e-3};
    assert_int_equal(mbx_scale_pixel(&t, 1e-9, 25, 1), 24);
    assert_int_equal(mbx_scale_pixel(&t, 1e-3, 25, 1), 0);
    assert_int_equal(mbx_scale_pixel(&t, 1e-6, 25, 1), 12);
}

static void test_ticks_bytes_thinned(void **state)
{
    (void)state;
    mbx_scale s = {1, 4194304}; /* 1 .. 4Mi: 23 powers */
    mbx_ticks t;
    mbx_axis_ticks(&s, MBX_AXIS_BYTES, 8, 0, &t);
    static const char *const want[] = {"1", "16", "256", "4Ki", "64Ki", "1Mi"};
    expect_ticks(&t, want, 6);
    assert_true(t.value[3] == 4096.0 && t.value[5] == 1048576.0);

    mbx_axis_ticks(&s, MBX_AXIS_BYTES, 12, 0, &t);
    static const char *const want2[] = {"1",   "4",    "16",   "64",    "256", "1Ki",
                                        "4Ki", "16Ki", "64Ki", "256Ki", "1Mi", "4Mi"};
    expect_ticks(&t, want2, 12);

    mbx_scale u = {2, 8192};
    mbx_axis_ticks(&u, MBX_AXIS_BYTES, 16, 0, &t);
    static const char *const want3[] = {"2",   "4",   "8",   "16",  "32",  "64", "128",
                                        "256", "512", "1Ki", "2Ki", "4Ki", "8Ki"};
    expect_ticks(&t, want3, 13);

    mbx_scale g = {1, 1099511627776.0};
    mbx_axis_ticks(&g, MBX_AXIS_BYTES, 5, 0, &t);
    static const char *const want5[] = {"1", "64Ki", "4Gi"};
    expect_ticks(&t, want5, 3);
    mbx_axis_ticks(&g, MBX_AXIS_BYTES, 6, 0, &t);
    static const char *const want4[] = {"1", "256", "64Ki", "16Mi", "4Gi", "1Ti"};
    expect_ticks(&t, want4, 6);
}

static void test_ticks_seconds(void **state)
{
    (void)state;
    mbx_scale s = {1e-7, 1e-3};
    mbx_ticks t;
    mbx_axis_ticks(&s, MBX_AXIS_SECONDS, 8, 0, &t);
    static const char *const ascii[] = {"100ns", "1us", "10us", "100us", "1ms"};
    expect_ticks(&t, ascii, 5);
    mbx_axis_ticks(&s, MBX_AXIS_SECONDS, 8, 1, &t);
    static const char *const utf8[] = {"100ns", "1" MICRO "s", "10" MICRO "s", "100" MICRO "s",
                                       "1ms"};
    expect_ticks(&t, utf8, 5);
    assert_true(t.value[1] == 1e-6 && t.value[4] == 1e-3);

    mbx_scale w = {1e-9, 100};
    mbx_axis_ticks(&w, MBX_AXIS_SECONDS, 16, 0, &t);
    static const char *const all[] = {"1ns", "10ns", "100ns", "1us", "10us", "100us",
                                      "1ms", "10ms", "100ms", "1s",  "10s",  "100s"};
    expect_ticks(&t, all, 12);
    mbx_axis_ticks(&w, MBX_AXIS_SECONDS, 6, 0, &t); /* every 2nd decade */
    static const char *const even[] = {"10ns", "1us", "100us", "10ms", "1s", "100s"};
    expect_ticks(&t, even, 6);
}

static void test_ticks_mbps(void **state)
{
    (void)state;
    mbx_scale s = {1e-3, 1e6};
    mbx_ticks t;
    mbx_axis_ticks(&s, MBX_AXIS_MBPS, 16, 0, &t);
    static const char *const want[] = {"0.001", "0.01", "0.1", "1",    "10",
                                       "100",   "1k",   "10k", "100k", "1M"};
    expect_ticks(&t, want, 10);
    mbx_axis_ticks(&s, MBX_AXIS_MBPS, 5, 0, &t);
    static const char *const thin[] = {"0.01", "1", "100", "10k", "1M"};
    expect_ticks(&t, thin, 5);
}

static void test_ticks_edge_cases(void **state)
{
    (void)state;
    mbx_ticks t;
    mbx_scale s = {5, 7}; /* no power of 2 inside */
    mbx_axis_ticks(&s, MBX_AXIS_BYTES, 8, 0, &t);
    assert_int_equal(t.n, 0);
    s.lo = 3;
    s.hi = 20; /* only inner powers count */
    mbx_axis_ticks(&s, MBX_AXIS_BYTES, 8, 0, &t);
    static const char *const inner[] = {"4", "8", "16"};
    expect_ticks(&t, inner, 3);
    mbx_axis_ticks(&s, MBX_AXIS_BYTES, 0, 0, &t);
    assert_int_equal(t.n, 0);
    mbx_scale big = {1e-9, 1e20};
    mbx_axis_ticks(&big, MBX_AXIS_SECONDS, 1000, 0, &t); /* capped */
    assert_true(t.n >= 1 && t.n <= MBX_AXIS_MAX_TICKS);
    mbx_axis_ticks(&big, MBX_AXIS_SECONDS, 1, 0, &t);
    assert_int_equal(t.n, 1);
    mbx_scale bad = {0, 10};
    mbx_axis_ticks(&bad, MBX_AXIS_MBPS, 8, 0, &t);
    assert_int_equal(t.n, 0);
}

static void test_power_labels_are_clean(void **state)
{
    (void)state;
    static const char *const unit[] = {"", "Ki", "Mi", "Gi", "Ti"};
    char buf[MBX_AXIS_LABEL], want[MBX_AXIS_LABEL];
    for (int e = 0; e < 50; e++) {
        mbx_axis_format(ldexp(1.0, e), MBX_AXIS_BYTES, 0, buf, sizeof buf);
        snprintf(want, sizeof want, "%d%s", 1 << (e % 10), unit[e / 10 < 4 ? e / 10 : 4]);
        if (e < 50 - 10 && strcmp(buf, want) != 0) {
            fail_msg("2^%d: got \"%s\", want \"%s\"", e, buf, want);
        }
    }
    for (int k = 1; k < 3; k++) {
        for (int e = k == MBX_AXIS_SECONDS ? -9 : -3; e <= (k == MBX_AXIS_SECONDS ? 4 : 9); e++) {
            mbx_axis_format(pow(10.0, e), (mbx_axis_kind)k, 0, buf, sizeof buf);
            /* 1 followed by zeros, or 0.0...1, then a unit: never 0.999 or 1e+03. */
            size_t d = strspn(buf, "0.");
            if (buf[d] != '1' || strspn(buf + d + 1, "0") != strcspn(buf + d + 1, "nums kMGT")) {
                fail_msg("10^%d kind %d: \"%s\"", e, k, buf);
            }
        }
    }
}

static void test_format(void **state)
{
    (void)state;
    expect_format(1536, MBX_AXIS_BYTES, 0, "1.5Ki");
    expect_format(4096, MBX_AXIS_BYTES, 0, "4Ki");
    expect_format(1000, MBX_AXIS_BYTES, 0, "1000");
    expect_format(1023, MBX_AXIS_BYTES, 0, "1023");
    expect_format(1, MBX_AXIS_BYTES, 0, "1");
    expect_format(3.5, MBX_AXIS_BYTES, 0, "3.5");
    expect_format(1048576.0 * 1.25, MBX_AXIS_BYTES, 0, "1.25Mi");
    expect_format(1048575, MBX_AXIS_BYTES, 0, "1Mi"); /* rounds up a unit */
    expect_format(1073741824.0, MBX_AXIS_BYTES, 0, "1Gi");
    expect_format(2.345e-6, MBX_AXIS_SECONDS, 0, "2.35us");
    expect_format(2.345e-6, MBX_AXIS_SECONDS, 1, "2.35" MICRO "s");
    expect_format(2.3e-6, MBX_AXIS_SECONDS, 0, "2.3us");
    expect_format(950e-9, MBX_AXIS_SECONDS, 0, "950ns");
    expect_format(999.7e-9, MBX_AXIS_SECONDS, 0, "1us"); /* rounding crosses the unit */
    expect_format(0.0125, MBX_AXIS_SECONDS, 0, "12.5ms");
    expect_format(42, MBX_AXIS_SECONDS, 0, "42s");
    expect_format(12345, MBX_AXIS_MBPS, 0, "12.3k");
    expect_format(950, MBX_AXIS_MBPS, 0, "950");
    expect_format(0.5, MBX_AXIS_MBPS, 0, "0.5");
    expect_format(2.5e6, MBX_AXIS_MBPS, 0, "2.5M");
    expect_format(0, MBX_AXIS_MBPS, 0, "0");
    expect_format(-1536, MBX_AXIS_BYTES, 0, "-1.5Ki");
}

static void test_format_truncates(void **state)
{
    (void)state;
    char buf[8];
    memset(buf, 'Z', sizeof buf);
    mbx_axis_format(12345, MBX_AXIS_MBPS, 0, buf, 3);
    assert_string_equal(buf, "12");
    assert_int_equal(buf[3], 'Z'); /* nothing written past len */
    mbx_axis_format(12345, MBX_AXIS_MBPS, 0, buf, 1);
    assert_string_equal(buf, "");
    mbx_axis_format(12345, MBX_AXIS_MBPS, 0, buf, 0);
    assert_string_equal(buf, ""); /* untouched */
    /* "2.35µs" is 7 bytes; a 6-byte room must not keep half the µ. */
    mbx_axis_format(2.345e-6, MBX_AXIS_SECONDS, 1, buf, 6);
    assert_string_equal(buf, "2.35");
    mbx_axis_format(2.345e-6, MBX_AXIS_SECONDS, 1, buf, 7);
    assert_string_equal(buf, "2.35" MICRO);
    /* Absurd inputs still give short, terminated text. */
    static const double odd[] = {1e300, -1e300, 1e-300, NAN, INFINITY, 1e25};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        for (int k = 0; k < 3; k++) {
            char lb[MBX_AXIS_LABEL];
            mbx_axis_format(odd[i], (mbx_axis_kind)k, 1, lb, sizeof lb);
            assert_true(strlen(lb) < sizeof lb && strlen(lb) > 0);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_bytes),
        cmocka_unit_test(test_fit_decades),
        cmocka_unit_test(test_fit_single_value_widens),
        cmocka_unit_test(test_pixel),
        cmocka_unit_test(test_ticks_bytes_thinned),
        cmocka_unit_test(test_ticks_seconds),
        cmocka_unit_test(test_ticks_mbps),
        cmocka_unit_test(test_ticks_edge_cases),
        cmocka_unit_test(test_power_labels_are_clean),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_format_truncates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
