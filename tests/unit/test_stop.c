/* Stop rules: parsing (good and bad text), canonical formatting, progress,
 * and verdicts on synthetic observation sequences. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/stop.h"

#define MAXN 256

static mbx_stop_rule parse_ok(const char *text)
{
    mbx_stop_rule r;
    char msg[160] = "";
    assert_int_equal(mbx_stop_parse(text, &r, msg, sizeof msg), MBX_OK);
    return r;
}

static void parses_good_rules(void **state)
{
    (void)state;
    mbx_stop_rule r = parse_ok("stderr:0.03");
    assert_int_equal(r.kind, MBX_STOP_STDERR);
    assert_true(r.eps == 0.03);
    r = parse_ok("stderr:3%");
    assert_int_equal(r.kind, MBX_STOP_STDERR);
    assert_true(fabs(r.eps - 0.03) < 1e-15);
    r = parse_ok("cv:0.05");
    assert_int_equal(r.kind, MBX_STOP_CV);
    assert_true(r.eps == 0.05);
    r = parse_ok("ci:2%");
    assert_int_equal(r.kind, MBX_STOP_CI);
    assert_true(fabs(r.eps - 0.02) < 1e-15);
    r = parse_ok("cv:.5");
    assert_true(r.eps == 0.5);
    r = parse_ok("ci:1e-3");
    assert_true(r.eps == 1e-3);
    r = parse_ok("stderr:99.5%");
    assert_true(fabs(r.eps - 0.995) < 1e-15);
    r = parse_ok("fixed:100");
    assert_int_equal(r.kind, MBX_STOP_FIXED);
    assert_int_equal(r.fixed, 100);
    r = parse_ok("fixed:1");
    assert_int_equal(r.fixed, 1);
    r = parse_ok("fixed:10000000");
    assert_int_equal(r.fixed, MBX_NMAX_LIMIT);
}

static void rejects_bad_rules(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        ":",
        "stderr",
        "stderr:",
        "stderr:0",
        "stderr:1",
        "stderr:150%",
        "stderr:100%",
        "stderr:0%",
        "stderr:abc",
        "stderr:-0.03",
        "stderr:nan",
        "stderr:inf",
        "stderr:1e-400",
        "stderr:0.03x",
        "stderr:3%%",
        "stderr:0.03 ",
        " stderr:0.03",
        "stderr: 0.03",
        "stderr:+0.03",
        "STDERR:0.03",
        "cv:",
        "ci:",
        "ci:1.0",
        "fixed:",
        "fixed:0",
        "fixed:1.5",
        "fixed:-1",
        "fixed:+5",
        "fixed: 5",
        "fixed:10000001",
        "fixed:99999999999999999999999",
        "fixed:1e3",
        "fixed:5x",
        "foo:0.1",
        "stderr0.03",
        "stderrr:0.03",
        "fix:100",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mbx_stop_rule r = {.kind = MBX_STOP_CV, .eps = 0.25, .fixed = 7};
        char msg[160] = "";
        if (mbx_stop_parse(bad[i], &r, msg, sizeof msg) != MBX_E_INVAL)
            fail_msg("accepted \"%s\"", bad[i]);
        assert_true(strlen(msg) > 0);
        assert_null(strchr(msg, '\n'));
        /* The output is untouched on failure. */
        assert_int_equal(r.kind, MBX_STOP_CV);
        assert_true(r.eps == 0.25);
        assert_int_equal(r.fixed, 7);
    }
}

static void error_messages(void **state)
{
    (void)state;
    mbx_stop_rule r;
    char msg[160];
    assert_int_equal(mbx_stop_parse("foo:0.1", &r, msg, sizeof msg), MBX_E_INVAL);
    assert_string_equal(msg, "expected stderr:EPS, cv:EPS, ci:EPS or fixed:N with 0 < EPS < 1 "
                             "(e.g. stderr:3%)");
    assert_int_equal(mbx_stop_parse("fixed:0", &r, msg, sizeof msg), MBX_E_INVAL);
    assert_string_equal(msg, "fixed:N needs an integer N in 1..10000000");
    assert_int_equal(mbx_stop_parse("cv:2", &r, msg, sizeof msg), MBX_E_INVAL);
    assert_non_null(strstr(msg, "cv:EPS"));
    /* A short buffer is truncated and terminated; NULL or empty is fine. */
    memset(msg, 'z', sizeof msg);
    assert_int_equal(mbx_stop_parse("x", &r, msg, 9), MBX_E_INVAL);
    assert_string_equal(msg, "expected");
    assert_true(msg[9] == 'z');
    assert_int_equal(mbx_stop_parse("x", &r, NULL, 0), MBX_E_INVAL);
    assert_int_equal(mbx_stop_parse("x", &r, msg, 0), MBX_E_INVAL);
    assert_int_equal(mbx_stop_parse(NULL, &r, msg, sizeof msg), MBX_E_INVAL);
    assert_int_equal(mbx_stop_parse("cv:0.1", NULL, msg, sizeof msg), MBX_E_INVAL);
}

static void format_round_trip(void **state)
{
    (void)state;
    static const char *const text[][2] = {
        {"stderr:0.03", "stderr:0.03"},
        {"stderr:3%", "stderr:0.03"},
        {"cv:0.05", "cv:0.05"},
        {"ci:2%", "ci:0.02"},
        {"cv:.5", "cv:0.5"},
        {"ci:1e-3", "ci:0.001"},
        {"fixed:100", "fixed:100"},
        {"fixed:10000000", "fixed:10000000"},
    };
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++) {
        mbx_stop_rule r = parse_ok(text[i][0]), again;
        char buf[64];
        mbx_stop_format(&r, buf, sizeof buf);
        assert_string_equal(buf, text[i][1]);
        again = parse_ok(buf);
        assert_int_equal(again.kind, r.kind);
        assert_true(fabs(again.eps - r.eps) <= 1e-15);
        assert_int_equal(again.fixed, r.fixed);
    }
    char small[4];
    mbx_stop_rule r = parse_ok("stderr:0.03");
    mbx_stop_format(&r, small, sizeof small);
    assert_string_equal(small, "std");
}

/* Found by fuzz_stop (tests/fuzz/regress/stop/): an EPS just below 1 was
 * accepted but its canonical text, the CSV's stop_rule, said "cv:1", which
 * is no rule; and "1e-307%" divided down to a subnormal EPS whose text
 * strtod refuses. Every accepted rule's text must read back. */
static void format_reads_back_at_the_edges(void **state)
{
    (void)state;
    static const char *const text[][2] = {
        {"cv:.9999999999999", "cv:0.9999999999999"},
        {"stderr:99.99999%", "stderr:0.9999999"},
        {"ci:0.9999999999999999", "ci:0.9999999999999999"},
        {"stderr:2.2250738585072014e-308", "stderr:2.225074e-308"},
    };
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++) {
        mbx_stop_rule r = parse_ok(text[i][0]), again;
        char buf[64];
        mbx_stop_format(&r, buf, sizeof buf);
        assert_string_equal(buf, text[i][1]);
        again = parse_ok(buf);
        assert_int_equal(again.kind, r.kind);
        assert_true(fabs(again.eps - r.eps) <= 1e-6 * r.eps);
    }
    mbx_stop_rule r;
    assert_int_equal(mbx_stop_parse("stderr:1e-307%", &r, NULL, 0), MBX_E_INVAL);
    assert_int_equal(mbx_stop_parse("cv:1e-320", &r, NULL, 0), MBX_E_INVAL);
}

/* Nearly constant: values 1 +- 5e-4 in a fixed pseudo-random order. */
static double tiny_noise(size_t i)
{
    return 1.0 + 1e-4 * (double)((int)((i * 7) % 11) - 5);
}

/* Two clusters far apart: relative error stays near 1 however long. */
static double wide(size_t i)
{
    return (i % 2) ? 100.0 : 1.0;
}

static mbx_summary seq(double (*f)(size_t), size_t n, double scale)
{
    double x[MAXN], scratch[MAXN];
    mbx_summary s;
    assert_true(n >= 1 && n <= MAXN);
    for (size_t i = 0; i < n; i++)
        x[i] = scale * f(i);
    assert_int_equal(mbx_stats_summarize(x, n, scratch, &s), MBX_OK);
    return s;
}

static void tight_data_meets_at_nmin(void **state)
{
    (void)state;
    static const char *const rules[] = {"stderr:0.03", "cv:0.03", "ci:0.03"};
    for (size_t k = 0; k < 3; k++) {
        mbx_stop_rule r = parse_ok(rules[k]);
        for (size_t n = 1; n < 16; n++) {
            mbx_summary s = seq(tiny_noise, n, 1.0);
            assert_int_equal(mbx_stop_eval(&r, &s, 1e-6, 16, 100), MBX_STOP_GO_ON);
        }
        for (size_t n = 16; n <= 100; n += 12) {
            mbx_summary s = seq(tiny_noise, n, 1.0);
            assert_int_equal(mbx_stop_eval(&r, &s, 1e-6, 16, 100), MBX_STOP_MET);
        }
    }
}

static void wide_data_stops_at_nmax(void **state)
{
    (void)state;
    static const char *const rules[] = {"stderr:0.03", "cv:0.03", "ci:0.03"};
    for (size_t k = 0; k < 3; k++) {
        mbx_stop_rule r = parse_ok(rules[k]);
        for (size_t n = 1; n < 64; n++) {
            mbx_summary s = seq(wide, n, 1.0);
            assert_int_equal(mbx_stop_eval(&r, &s, 1e-6, 16, 64), MBX_STOP_GO_ON);
        }
        mbx_summary s = seq(wide, 64, 1.0);
        assert_int_equal(mbx_stop_eval(&r, &s, 1e-6, 16, 64), MBX_STOP_AT_NMAX);
        s = seq(wide, 70, 1.0);
        assert_int_equal(mbx_stop_eval(&r, &s, 1e-6, 16, 64), MBX_STOP_AT_NMAX);
    }
}

/* Observations of ~1 us with a 1 us tick: stderr:0.03 needs a total of
 * 33.3 us, so 16 tight observations are not enough but 34 are. */
static void tick_guard_blocks_stderr(void **state)
{
    (void)state;
    mbx_stop_rule r = parse_ok("stderr:0.03");
    mbx_summary s = seq(tiny_noise, 16, 1e-6);
    assert_true(s.stderr_ / s.tmean < 0.03);
    assert_int_equal(mbx_stop_eval(&r, &s, 1e-6, 16, 100), MBX_STOP_GO_ON);
    assert_int_equal(mbx_stop_eval(&r, &s, 1e-6, 16, 16), MBX_STOP_AT_NMAX);
    assert_int_equal(mbx_stop_eval(&r, &s, 1e-8, 16, 100), MBX_STOP_MET);
    s = seq(tiny_noise, 33, 1e-6);
    assert_int_equal(mbx_stop_eval(&r, &s, 1e-6, 16, 100), MBX_STOP_GO_ON);
    s = seq(tiny_noise, 34, 1e-6);
    assert_int_equal(mbx_stop_eval(&r, &s, 1e-6, 16, 100), MBX_STOP_MET);
    /* The guard belongs to stderr only. */
    r = parse_ok("cv:0.03");
    s = seq(tiny_noise, 16, 1e-6);
    assert_int_equal(mbx_stop_eval(&r, &s, 1e-6, 16, 100), MBX_STOP_MET);
}

static void fixed_meets_exactly_at_n(void **state)
{
    (void)state;
    mbx_stop_rule r = parse_ok("fixed:20");
    for (size_t n = 1; n < 20; n++) {
        mbx_summary s = seq(wide, n, 1.0);
        /* n_min and n_max do not apply to fixed:N. */
        assert_int_equal(mbx_stop_eval(&r, &s, 1e-6, 1, 5), MBX_STOP_GO_ON);
    }
    mbx_summary s = seq(wide, 20, 1.0);
    assert_int_equal(mbx_stop_eval(&r, &s, 1e-6, 1000, 2000), MBX_STOP_MET);
    s = seq(wide, 21, 1.0);
    assert_int_equal(mbx_stop_eval(&r, &s, 1e-6, 20, 20), MBX_STOP_MET);
}

/* Undefined ratios never meet a rule: n = 1, a non-positive location, and
 * the inexact CI of n < 6. */
static void undefined_never_meets(void **state)
{
    (void)state;
    mbx_stop_rule se = parse_ok("stderr:0.5"), cv = parse_ok("cv:0.5"), ci = parse_ok("ci:0.5");
    mbx_summary s = seq(tiny_noise, 1, 1.0);
    assert_int_equal(mbx_stop_eval(&se, &s, 0.0, 1, 10), MBX_STOP_GO_ON);
    assert_int_equal(mbx_stop_eval(&cv, &s, 0.0, 1, 10), MBX_STOP_GO_ON);
    assert_int_equal(mbx_stop_eval(&ci, &s, 0.0, 1, 10), MBX_STOP_GO_ON);
    s = seq(tiny_noise, 5, 1.0);
    assert_int_equal(s.ci_exact, 0);
    assert_int_equal(mbx_stop_eval(&ci, &s, 0.0, 1, 10), MBX_STOP_GO_ON);
    assert_int_equal(mbx_stop_eval(&cv, &s, 0.0, 1, 10), MBX_STOP_MET);
    s = seq(tiny_noise, 40, -1.0);
    assert_int_equal(mbx_stop_eval(&se, &s, 0.0, 1, 100), MBX_STOP_GO_ON);
    assert_int_equal(mbx_stop_eval(&cv, &s, 0.0, 1, 100), MBX_STOP_GO_ON);
    assert_int_equal(mbx_stop_eval(&ci, &s, 0.0, 1, 100), MBX_STOP_GO_ON);
    assert_int_equal(mbx_stop_eval(&ci, &s, 0.0, 1, 40), MBX_STOP_AT_NMAX);
    assert_int_equal(mbx_stop_eval(NULL, &s, 0.0, 1, 100), MBX_STOP_AT_NMAX);
    assert_int_equal(mbx_stop_eval(&ci, NULL, 0.0, 1, 100), MBX_STOP_AT_NMAX);
}

static void progress_values(void **state)
{
    (void)state;
    mbx_summary s;
    memset(&s, 0, sizeof s);
    s.n = 25;
    s.mean = 4.0;
    s.stddev = 1.0;
    s.tmean = 2.0;
    s.stderr_ = 0.1;
    s.median = 5.0;
    s.ci_lo = 4.0;
    s.ci_hi = 5.5;
    s.ci_exact = 1;
    mbx_stop_rule r = parse_ok("stderr:0.03");
    assert_true(fabs(mbx_stop_progress(&r, &s) - 0.05) < 1e-15);
    r = parse_ok("cv:0.03");
    assert_true(fabs(mbx_stop_progress(&r, &s) - 0.25) < 1e-15);
    r = parse_ok("ci:0.03");
    assert_true(fabs(mbx_stop_progress(&r, &s) - 0.15) < 1e-15);
    s.ci_exact = 0;
    assert_true(isnan(mbx_stop_progress(&r, &s)));
    r = parse_ok("fixed:100");
    assert_true(fabs(mbx_stop_progress(&r, &s) - 0.25) < 1e-15);
    r = parse_ok("stderr:0.03");
    s.stderr_ = NAN;
    assert_true(isnan(mbx_stop_progress(&r, &s)));
    s.stderr_ = 0.1;
    s.tmean = 0.0;
    assert_true(isnan(mbx_stop_progress(&r, &s)));
    assert_true(isnan(mbx_stop_progress(NULL, &s)));
    assert_true(isnan(mbx_stop_progress(&r, NULL)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_good_rules),
        cmocka_unit_test(rejects_bad_rules),
        cmocka_unit_test(error_messages),
        cmocka_unit_test(format_round_trip),
        cmocka_unit_test(format_reads_back_at_the_edges),
        cmocka_unit_test(tight_data_meets_at_nmin),
        cmocka_unit_test(wide_data_stops_at_nmax),
        cmocka_unit_test(tick_guard_blocks_stderr),
        cmocka_unit_test(fixed_meets_exactly_at_n),
        cmocka_unit_test(undefined_never_meets),
        cmocka_unit_test(progress_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
