/* mpibex check's JUnit writer (tui/cmd/check_junit.c): names from the
 * input files are escaped for XML, and the counts match the testcases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_cmd.h"

/* What mbx_check_junit writes for rows[0..n), as a malloc'd string. */
static char *junit_text(const mbx_check_row *rows, size_t n, const char *none_why)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(mbx_check_junit(f, "mpibex check", rows, n, none_why), 0);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static mbx_cmp_point point(const char *bench, const char *label, uint64_t bytes)
{
    mbx_cmp_point p = {.benchmark = bench,
                       .label = label,
                       .procs = 2,
                       .root = -1,
                       .bytes = bytes,
                       .median_a = 2e-6,
                       .median_b = 2.6e-6,
                       .hl_ratio = 1.3,
                       .hl_lo = 1.29,
                       .hl_hi = 1.31};
    p.w.p_two_sided = 1e-5;
    return p;
}

static void test_escaped(void **state)
{
    (void)state;
    mbx_cmp_point p = point("x&y<z>\"q'\x01", "a&b", 4096);
    mbx_check_row r = {.p = &p, .tol = {.value = 0.05}, .v = MBX_CHECK_SLOWER, .fails = 1};
    char *t = junit_text(&r, 1, NULL);
    assert_non_null(strstr(t, "name=\"x&amp;y&lt;z&gt;&quot;q&apos;? [a&amp;b] 2 4096\""));
    assert_null(strchr(t, '\x01'));
    assert_non_null(
        strstr(t, "<failure type=\"regression\" message=\"slower beyond 5 %: baseline 2 us, "
                  "current 2.6 us, ratio 1.3 (95% CI 1.29..1.31), p 1e-05\"/>"));
    assert_non_null(strstr(t, "tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\""));
    free(t);
}

static void test_counts(void **state)
{
    (void)state;
    mbx_cmp_point p[3] = {point("pingpong.send_recv", "cli", 1),
                          point("pingpong.send_recv", "cli", 2),
                          point("pingpong.send_recv", "cli", 4)};
    mbx_check_row r[3] = {
        {.p = &p[0], .v = MBX_CHECK_EQUIVALENT},
        {.p = &p[1], .v = MBX_CHECK_UNDECIDED},
        {.p = &p[2], .v = MBX_CHECK_SLOWER, .fails = 1},
    };
    char *t = junit_text(r, 3, NULL);
    assert_non_null(strstr(t, "tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\""));
    assert_non_null(strstr(t, "name=\"pingpong.send_recv 2 1\" time=\"0\"/>"));
    free(t);
    t = junit_text(r, 3, "no verdict: scope none");
    assert_non_null(strstr(t, "tests=\"3\" failures=\"0\" errors=\"0\" skipped=\"3\""));
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_escaped),
                                       cmocka_unit_test(test_counts)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
