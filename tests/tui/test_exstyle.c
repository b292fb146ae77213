/* Unit tests for how the run view tells curves apart (ex_style.c): one
 * marker and, without colour, one line style per curve; short benchmark
 * names unique across patterns and fitted to the side column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "explorer.h"
#include "mbx/bench.h"

static int bench_id(const char *name)
{
    int id = -1;
    assert_int_equal(mbx_bench_find(name, &id), 0);
    return id;
}

/* Eight curves: eight markers and, in mono, eight line styles; with
 * colour every line is solid but the markers stay distinct. */
static void test_styles_distinct(void **state)
{
    (void)state;
    for (int mono = 0; mono < 2; mono++)
        for (int a = 0; a < MBX_NSERIES; a++) {
            mbx_ex_style sa;
            mbx_ex_series_style(a, mono, &sa);
            assert_true(sa.marker > ' ' && sa.marker < 0x7f);
            assert_int_equal(sa.pattern == 0xFFFFu, !mono || a == 0);
            for (int b = a + 1; b < MBX_NSERIES; b++) {
                mbx_ex_style sb;
                mbx_ex_series_style(b, mono, &sb);
                assert_int_not_equal(sa.marker, sb.marker);
                if (mono)
                    assert_int_not_equal(sa.pattern, sb.pattern);
            }
        }
    mbx_ex_style s0, s8;
    mbx_ex_series_style(0, 1, &s0);
    mbx_ex_series_style(MBX_NSERIES, 1, &s8); /* the ninth starts over */
    assert_int_equal(s0.marker, s8.marker);
}

static void expect_fit(const char *name, int w, const char *want)
{
    char out[32];
    mbx_ex_fit_name(name, w, out, sizeof out);
    assert_string_equal(out, want);
    assert_true((int)strlen(out) <= w);
}

static void test_fit_name(void **state)
{
    (void)state;
    expect_fit("bcast", 7, "bcast");
    expect_fit("send_recv", 9, "send_recv");
    expect_fit("send_recv", 7, "sendrcv");
    expect_fit("isend_recv", 7, "isndrcv");
    expect_fit("allreduce", 7, "allrdce");
    expect_fit("threads.barrier", 9, "t.barrier");
    expect_fit("threads.barrier", 7, "t.barrr");
    expect_fit("alltoall", 3, "all");
}

/* threads.barrier and omp.barrier keep their patterns; others drop it. */
static void test_short_names_unique(void **state)
{
    (void)state;
    int ids[3] = {bench_id("threads.barrier"), bench_id("omp.barrier"),
                  bench_id("pingpong.send_recv")};
    char n[3][32];
    mbx_ex_short_names(ids, 3, n);
    assert_string_equal(n[0], "threads.barrier");
    assert_string_equal(n[1], "omp.barrier");
    assert_string_equal(n[2], "send_recv");
    mbx_ex_fit_unique(n, 3, 7);
    assert_string_equal(n[0], "t.barrr");
    assert_string_equal(n[1], "o.barrr");
    assert_string_equal(n[2], "sendrcv");
    /* fitting that makes two equal tells them apart by a digit */
    char m[2][32] = {"allreduce_a", "allreduce_b"};
    mbx_ex_fit_unique(m, 2, 4);
    assert_string_equal(m[0], "allr");
    assert_string_equal(m[1], "all2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_styles_distinct),
        cmocka_unit_test(test_fit_name),
        cmocka_unit_test(test_short_names_unique),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
