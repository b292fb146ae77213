/* Unit tests of mpibex check's pure part (mbx/check.h): tolerances, the
 * check file's rules and its bad input, the verdicts from a CI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mbx/check.h"

static void test_tolerance_forms(void **state)
{
    (void)state;
    mbx_check_tol t;
    assert_int_equal(mbx_check_tol_parse("5%", &t, NULL, 0), MBX_OK);
    assert_false(t.absolute);
    assert_true(fabs(t.value - 0.05) < 1e-12);
    assert_int_equal(mbx_check_tol_parse("2.5 us", &t, NULL, 0), MBX_OK);
    assert_true(t.absolute);
    assert_true(fabs(t.value - 2.5e-6) < 1e-15);
    assert_int_equal(mbx_check_tol_parse("0%", &t, NULL, 0), MBX_OK);
    assert_int_equal(mbx_check_tol_parse("100%", &t, NULL, 0), MBX_OK);
    char buf[32];
    mbx_check_tol_text(&t, buf, sizeof buf);
    assert_string_equal(buf, "100 %");
}

static void test_tolerance_bad(void **state)
{
    (void)state;
    static const char *const bad[] = {"",   "5",   "-1%",       "101%", "5%%",
                                      "x%", "2ms", "1000001us", "nan%", "inf us"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        mbx_check_tol t = {.value = 9};
        char msg[256] = "";
        assert_int_equal(mbx_check_tol_parse(bad[i], &t, msg, sizeof msg), MBX_E_INVAL);
        assert_true(t.value == 9);
        assert_non_null(strstr(msg, "expected a percentage 0%..100%"));
    }
}

static void test_rules_match(void **state)
{
    (void)state;
    const char *text = "# defaults\n"
                       "tolerance = 10%\n"
                       "\n"
                       "[pingpong mid]\n"
                       "bench = pingpong\n"
                       "sizes = 4K:64K\n"
                       "tolerance = 2us\n"
                       "[collectives]\n"
                       "bench = coll.i*, coll.bcast\n"
                       "direction = both\n";
    mbx_check_rules r;
    char msg[256] = "";
    assert_int_equal(mbx_check_rules_parse(text, "c.ini", &r, msg, sizeof msg), MBX_OK);
    assert_int_equal(r.n, 3);
    mbx_check_tol t = {.value = 0.05};
    mbx_check_dir d = MBX_CHECK_DIR_SLOWER;
    mbx_check_rules_for(&r, "pingpong.send_recv", 4096, &t, &d);
    assert_true(t.absolute && fabs(t.value - 2e-6) < 1e-15 && d == MBX_CHECK_DIR_SLOWER);
    t = (mbx_check_tol){.value = 0.05};
    mbx_check_rules_for(&r, "pingpong.send_recv", 65537, &t, &d);
    assert_true(!t.absolute && fabs(t.value - 0.10) < 1e-12);
    t = (mbx_check_tol){.value = 0.05};
    mbx_check_rules_for(&r, "coll.bcast", 1, &t, &d);
    assert_true(d == MBX_CHECK_DIR_BOTH && fabs(t.value - 0.10) < 1e-12);
    d = MBX_CHECK_DIR_SLOWER;
    mbx_check_rules_for(&r, "coll.allreduce", 1, &t, &d);
    assert_true(d == MBX_CHECK_DIR_SLOWER);
    mbx_check_rules_for(&r, "coll.ibarrier", 0, &t, &d);
    assert_true(d == MBX_CHECK_DIR_BOTH);
    mbx_check_rules_free(&r);
}

/* Each bad file gets one line naming FILE:LINE, the field and what is
 * allowed. */
static void test_rules_bad(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"[a]\ntolerance = fast\n", "f.ini:2: tolerance: expected a percentage 0%..100%"},
        {"[a]\nsizes = 64K:4K\n",
         "f.ini:2: sizes: expected a size or a range MIN:MAX with MIN <= MAX"},
        {"sizes = 4Q\n", "f.ini:1: sizes: expected a size or a range"},
        {"\n\ndirection = up\n", "f.ini:3: direction: expected slower or both, got 'up'"},
        {"[a]\nsize = 4K\n",
         "f.ini:2: size: unknown key; allowed bench, sizes, tolerance, direction"},
        {"[a\n", "f.ini:1: section: expected [NAME], got '[a'"},
        {"[a]\nbench\n", "f.ini:2: line: expected KEY = VALUE"},
        {"[a]\nbench = a,,b\n", "f.ini:2: bench: expected a comma list of benchmark names"},
        {"[a]\nbench = x\nbench = y\n", "f.ini:3: bench: given twice in one rule"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mbx_check_rules r;
        char msg[512] = "";
        assert_int_equal(mbx_check_rules_parse(cases[i].text, "f.ini", &r, msg, sizeof msg),
                         MBX_E_INVAL);
        if (strncmp(msg, cases[i].want, strlen(cases[i].want)) != 0)
            fail_msg("case %zu: '%s', want '%s...'", i, msg, cases[i].want);
        assert_null(strchr(msg, '\n'));
        mbx_check_rules_free(&r);
    }
}

static void test_rules_load_missing(void **state)
{
    (void)state;
    mbx_check_rules r;
    char msg[256] = "";
    assert_int_equal(mbx_check_rules_load("/nonexistent/c.ini", &r, msg, sizeof msg), MBX_E_IO);
    assert_string_equal(msg, "cannot read '/nonexistent/c.ini': No such file or directory");
    mbx_check_rules_free(&r);
}

static void test_verdicts(void **state)
{
    (void)state;
    mbx_check_tol rel = {.value = 0.05}, abs2 = {.value = 2e-6, .absolute = 1};
    assert_int_equal(mbx_check_judge(1.06, 1.10, 1e-6, &rel), MBX_CHECK_SLOWER);
    assert_int_equal(mbx_check_judge(1.04, 1.10, 1e-6, &rel), MBX_CHECK_UNDECIDED);
    assert_int_equal(mbx_check_judge(0.96, 1.04, 1e-6, &rel), MBX_CHECK_EQUIVALENT);
    assert_int_equal(mbx_check_judge(0.80, 0.90, 1e-6, &rel), MBX_CHECK_FASTER);
    assert_int_equal(mbx_check_judge(0, INFINITY, 1e-6, &rel), MBX_CHECK_UNDECIDED);
    assert_int_equal(mbx_check_judge(NAN, 1.0, 1e-6, &rel), MBX_CHECK_UNDECIDED);
    /* absolute: 1.3x of 5 us is 1.5 us slower, within 2 us; of 10 us, 3 us */
    assert_int_equal(mbx_check_judge(1.29, 1.31, 5e-6, &abs2), MBX_CHECK_EQUIVALENT);
    assert_int_equal(mbx_check_judge(1.29, 1.31, 10e-6, &abs2), MBX_CHECK_SLOWER);
    assert_int_equal(mbx_check_judge(0.5, 0.7, 10e-6, &abs2), MBX_CHECK_FASTER);
    assert_true(mbx_check_fails(MBX_CHECK_SLOWER, MBX_CHECK_DIR_SLOWER));
    assert_false(mbx_check_fails(MBX_CHECK_FASTER, MBX_CHECK_DIR_SLOWER));
    assert_true(mbx_check_fails(MBX_CHECK_FASTER, MBX_CHECK_DIR_BOTH));
    /* undecided below the band cannot fail a slower-only check */
    assert_false(mbx_check_open(MBX_CHECK_UNDECIDED, 0.8, 1.02, 1e-6, &rel, MBX_CHECK_DIR_SLOWER));
    assert_true(mbx_check_open(MBX_CHECK_UNDECIDED, 0.8, 1.02, 1e-6, &rel, MBX_CHECK_DIR_BOTH));
    assert_true(mbx_check_open(MBX_CHECK_UNDECIDED, 1.0, 1.2, 1e-6, &rel, MBX_CHECK_DIR_SLOWER));
    assert_true(mbx_check_open(MBX_CHECK_UNDECIDED, 0, INFINITY, 1e-6, &rel, MBX_CHECK_DIR_SLOWER));
    assert_string_equal(mbx_check_verdict_word(MBX_CHECK_UNDECIDED), "undecided");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tolerance_forms),    cmocka_unit_test(test_tolerance_bad),
        cmocka_unit_test(test_rules_match),        cmocka_unit_test(test_rules_bad),
        cmocka_unit_test(test_rules_load_missing), cmocka_unit_test(test_verdicts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
