/* Locale independence: the ASCII helpers of mbx/ascii.h, and
 * the parsers and formatters built on them, give under de_DE (decimal
 * comma) and tr_TR (dotless i: toupper('i') is not 'I') exactly what they
 * give under C, even with the whole locale set as a host program might
 * (setlocale(LC_ALL, ...)). Skipped when neither locale is installed (CI
 * installs locales-all). */
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/ascii.h"
#include "mbx/kv.h"
#include "mbx/plan.h"
#include "mbx/result.h"
#include "mbx/sizes.h"
#include "mbx/stop.h"

/* UTF-8 and the single-byte forms: under ISO-8859-9 tolower('I') is 0xfd. */
static const char *const locales[] = {"C",          "de_DE.UTF-8",     "tr_TR.UTF-8",
                                      "de_DE.utf8", "tr_TR.utf8",      "de_DE",
                                      "tr_TR",      "tr_TR.ISO-8859-9"};
#define NLOC (sizeof locales / sizeof *locales)

/* Run check under every installed locale; skip the test when neither
 * de_DE nor tr_TR is there. */
static void each_locale(void (*check)(const char *loc))
{
    int foreign = 0;
    for (size_t i = 0; i < NLOC; i++) {
        if (setlocale(LC_ALL, locales[i]) == NULL)
            continue;
        foreign += i > 0;
        check(locales[i]);
    }
    setlocale(LC_ALL, "C");
    if (!foreign) {
        print_message("de_DE and tr_TR are not installed (apt-get install locales-all)\n");
        skip();
    }
}

static void ascii_classes(const char *loc)
{
    (void)loc;
    for (int c = 0; c < 256; c++) {
        int up = c >= 'A' && c <= 'Z', lo = c >= 'a' && c <= 'z', dig = c >= '0' && c <= '9';
        assert_int_equal(mbx_ascii_isupper(c) != 0, up);
        assert_int_equal(mbx_ascii_islower(c) != 0, lo);
        assert_int_equal(mbx_ascii_isalpha(c) != 0, up || lo);
        assert_int_equal(mbx_ascii_isdigit(c) != 0, dig);
        assert_int_equal(mbx_ascii_isalnum(c) != 0, up || lo || dig);
        assert_int_equal(mbx_ascii_isxdigit(c) != 0,
                         dig || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));
        assert_int_equal(mbx_ascii_isspace(c) != 0, c == ' ' || (c >= 9 && c <= 13));
        assert_int_equal(mbx_ascii_isprint(c) != 0, c >= 32 && c < 127);
        assert_int_equal(mbx_ascii_tolower(c), up ? c + 32 : c);
        assert_int_equal(mbx_ascii_toupper(c), lo ? c - 32 : c);
    }
}

static void ascii_case(const char *loc)
{
    (void)loc;
    assert_int_equal(mbx_ascii_casecmp("KIB", "kib"), 0);
    assert_int_equal(mbx_ascii_casecmp("Italic", "ITALIC"), 0);
    assert_int_equal(mbx_ascii_casecmp("bright-WHITE", "Bright-White"), 0);
    assert_true(mbx_ascii_casecmp("kib", "kic") < 0);
    assert_true(mbx_ascii_casecmp("kib", "ki") > 0);
    assert_true(mbx_ascii_casecmp("", "a") < 0);
    /* No folding outside ASCII: the dotless and dotted i are other letters. */
    assert_int_not_equal(mbx_ascii_casecmp("k\xc4\xb1"
                                           "b",
                                           "kib"),
                         0);
    assert_int_not_equal(mbx_ascii_casecmp("\xfd", "I"), 0);
    assert_int_equal(mbx_ascii_ncasecmp("BRIGHT-red", "bright-", 7), 0);
    assert_int_equal(mbx_ascii_ncasecmp("In", "iX", 1), 0);
    assert_true(mbx_ascii_ncasecmp("In", "iX", 2) != 0);
    assert_int_equal(mbx_ascii_ncasecmp("ab", "AB", 10), 0);
    assert_int_equal(mbx_ascii_ncasecmp("x", "y", 0), 0);
}

static void numbers(const char *loc)
{
    char *end, buf[64];
    double v = mbx_strtod("0.03", &end);
    assert_true(v == 0.03);
    assert_int_equal(*end, '\0');
    /* A decimal comma is no decimal point, in any locale. */
    v = mbx_strtod("0,03", &end);
    assert_true(v == 0.0);
    assert_int_equal(*end, ',');
    v = mbx_strtod(" \t1.5e-3x", &end);
    assert_true(v == 1.5e-3);
    assert_int_equal(*end, 'x');
    v = mbx_strtod("INF", &end);
    assert_true(isinf(v));
    assert_int_equal(*end, '\0');
    v = mbx_strtod("nan", &end);
    assert_true(isnan(v));
    assert_int_equal(mbx_snprintf_c(buf, sizeof buf, "%.4f|%g|%.3e|%d", 1.5, 0.03, 1e-9, 1234567),
                     (int)strlen("1.5000|0.03|1.000e-09|1234567"));
    assert_string_equal(buf, "1.5000|0.03|1.000e-09|1234567");
    printf("# %s: '%s'\n", loc, buf);
}

static void sizes_and_stop(const char *loc)
{
    (void)loc;
    char msg[256] = "";
    uint64_t b = 0;
    static const struct {
        const char *text;
        uint64_t bytes;
    } one[] = {{"64KIB", 65536},   {"64KiB", 65536},     {"64kib", 65536},     {"64K", 65536},
               {"1MIB", 1u << 20}, {"2GIB", 2ull << 30}, {"1TIB", 1ull << 40}, {" 8B\t", 8}};
    for (size_t i = 0; i < sizeof one / sizeof *one; i++) {
        assert_int_equal(mbx_size_parse(one[i].text, &b, msg, sizeof msg), MBX_OK);
        assert_true(b == one[i].bytes);
    }
    /* Bytes that only a locale's classes would call space or letters. */
    assert_int_not_equal(mbx_size_parse("64K\xfd"
                                        "B",
                                        &b, msg, sizeof msg),
                         MBX_OK);
    assert_int_not_equal(mbx_size_parse("\xa0"
                                        "64",
                                        &b, msg, sizeof msg),
                         MBX_OK);

    mbx_size_list l;
    assert_int_equal(mbx_sizes_parse("1:64KIB:64", &l, msg, sizeof msg), MBX_OK);
    assert_int_equal(l.n, 4);
    assert_true(l.v[3] == 65536);
    assert_int_equal(mbx_sizes_parse("1:4KIB:SQRT2", &l, msg, sizeof msg), MBX_OK);
    assert_int_equal(mbx_sizes_parse("1:1KIB:1.5", &l, msg, sizeof msg), MBX_OK);
    assert_true(l.v[1] == 2 && l.v[l.n - 1] == 1024);
    assert_int_not_equal(mbx_sizes_parse("1:1KIB:1,5", &l, msg, sizeof msg), MBX_OK);

    mbx_stop_rule r;
    char text[64];
    assert_int_equal(mbx_stop_parse("stderr:0.03", &r, msg, sizeof msg), MBX_OK);
    assert_true(r.eps == 0.03);
    mbx_stop_format(&r, text, sizeof text);
    assert_string_equal(text, "stderr:0.03");
    assert_int_equal(mbx_stop_parse("cv:2.5%", &r, msg, sizeof msg), MBX_OK);
    mbx_stop_format(&r, text, sizeof text);
    assert_string_equal(text, "cv:0.025");
    assert_int_not_equal(mbx_stop_parse("stderr:0,03", &r, msg, sizeof msg), MBX_OK);
}

static void plan_text(const char *loc)
{
    (void)loc;
    static const char text[] = "[LATIN-i]\n"
                               "bench = pingpong.send_recv\n"
                               "sizes = 1:64KIB:64\n"
                               "stop = stderr:2.5%\n"
                               "nmin = 8\n"
                               "nmax = 64\n"
                               "refine = 0.05\n"
                               "pair = 0,1\n";
    mbx_plan *p = calloc(1, sizeof *p);
    assert_non_null(p);
    char msg[512] = "";
    int rc = mbx_plan_parse(text, "locale.ini", p, msg, sizeof msg);
    if (rc != MBX_OK)
        fail_msg("%s: %s", loc, msg);
    assert_int_equal(p->nmeas, 1);
    assert_int_equal(p->meas[0].sizes.n, 4);
    assert_true(p->meas[0].sizes.v[3] == 65536);
    assert_true(p->meas[0].stop.eps == 0.025);
    assert_true(p->meas[0].refine == 0.05);
    free(p);
    p = calloc(1, sizeof *p);
    assert_non_null(p);
    assert_int_not_equal(
        mbx_plan_parse("[a]\nbench = coll.bcast\nrefine = 0,05\n", "comma.ini", p, msg, sizeof msg),
        MBX_OK);
    free(p);
}

static void written_numbers(const char *loc)
{
    (void)loc;
    mbx_result r;
    memset(&r, 0, sizeof r);
    r.benchmark = "pingpong.send_recv";
    r.timing = "half_round_trip";
    r.procs = 2;
    r.bytes = 4096;
    r.s.n = 16;
    r.s.mean = r.s.tmean = r.s.median = r.s.min = r.s.max = 1.5e-6;
    r.s.q1 = r.s.q3 = r.s.ci_lo = r.s.ci_hi = 1.5e-6;
    r.s.stddev = r.s.stderr_ = 0.25e-6;
    r.status = MBX_POINT_SETTLED;
    r.stop = (mbx_stop_rule){MBX_STOP_STDERR, 0.03, 0};
    r.wall = 0.125;
    r.overhead = 30e-9;
    r.probe = r.probe_after = r.plain = NAN;
    mbx_result_fields f;
    mbx_result_format(&r, &f);
    for (int i = 0; i < MBX_RESULT_NCOLS; i++)
        if (f.field[i] != NULL && strchr("0123456789", f.field[i][0]) != NULL)
            assert_null(strchr(f.field[i], ','));
    assert_string_equal(f.field[6], "1.5000");
    assert_string_equal(f.field[17], "stderr:0.03");
    assert_string_equal(f.field[24], "0.125000");

    mbx_kvlist kv = {0};
    assert_int_equal(mbx_kv_addf(&kv, "timer_resolution_s", "%.3e", 1e-9), MBX_OK);
    assert_string_equal(mbx_kv_get(&kv, "timer_resolution_s"), "1.000e-09");
    mbx_kv_free(&kv);
}

static void t_ascii_classes(void **state)
{
    (void)state;
    each_locale(ascii_classes);
}

static void t_ascii_case(void **state)
{
    (void)state;
    each_locale(ascii_case);
}

static void t_numbers(void **state)
{
    (void)state;
    each_locale(numbers);
}

static void t_sizes_and_stop(void **state)
{
    (void)state;
    each_locale(sizes_and_stop);
}

static void t_plan(void **state)
{
    (void)state;
    each_locale(plan_text);
}

static void t_written(void **state)
{
    (void)state;
    each_locale(written_numbers);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_ascii_classes), cmocka_unit_test(t_ascii_case),
        cmocka_unit_test(t_numbers),       cmocka_unit_test(t_sizes_and_stop),
        cmocka_unit_test(t_plan),          cmocka_unit_test(t_written),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
