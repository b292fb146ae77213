/* Unit tests for size parsing, range expansion and formatting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/sizes.h"

#define KIB ((uint64_t)1 << 10)
#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)
#define TIB ((uint64_t)1 << 40)

static uint64_t parse_ok(const char *text)
{
    uint64_t v = 12345;
    char msg[256] = "";
    int rc = mbx_size_parse(text, &v, msg, sizeof msg);
    if (rc != MBX_OK) {
        fail_msg("\"%s\" rejected: %s", text, msg);
    }
    return v;
}

static void parse_bad(const char *text, const char *want)
{
    uint64_t v = 7;
    char msg[256] = "";
    assert_int_equal(mbx_size_parse(text, &v, msg, sizeof msg), MBX_E_INVAL);
    assert_int_equal(v, 7); /* out untouched on error */
    assert_non_null(strstr(msg, "expected sizes like 1, 64, 4K"));
    if (want != NULL && strstr(msg, want) == NULL) {
        fail_msg("\"%s\": message \"%s\" lacks \"%s\"", text, msg, want);
    }
    assert_null(strchr(msg, '\n'));
}

static void test_size_parse_valid(void **state)
{
    (void)state;
    assert_int_equal(parse_ok("0"), 0);
    assert_int_equal(parse_ok("1"), 1);
    assert_int_equal(parse_ok("64"), 64);
    assert_int_equal(parse_ok("64B"), 64);
    assert_int_equal(parse_ok("64b"), 64);
    assert_int_equal(parse_ok("4K"), 4 * KIB);
    assert_int_equal(parse_ok("4k"), 4 * KIB);
    assert_int_equal(parse_ok("4KiB"), 4 * KIB);
    assert_int_equal(parse_ok("4kib"), 4 * KIB);
    assert_int_equal(parse_ok("4KIB"), 4 * KIB);
    assert_int_equal(parse_ok("1M"), MIB);
    assert_int_equal(parse_ok("1MiB"), MIB);
    assert_int_equal(parse_ok("3mib"), 3 * MIB);
    assert_int_equal(parse_ok("2G"), 2 * GIB);
    assert_int_equal(parse_ok("2GiB"), 2 * GIB);
    assert_int_equal(parse_ok("1024G"), TIB);
    assert_int_equal(parse_ok("1TiB"), TIB);
    assert_int_equal(parse_ok("1099511627776"), TIB);
    assert_int_equal(parse_ok(" 8 "), 8);
    assert_int_equal(parse_ok("007"), 7);
}

static void test_size_parse_invalid(void **state)
{
    (void)state;
    parse_bad("", "empty");
    parse_bad("   ", "empty");
    parse_bad("-1", "negative");
    parse_bad("-4K", "negative");
    parse_bad("abc", "not a size");
    parse_bad("+4", "not a size");
    parse_bad("K", "not a size");
    parse_bad("1.5K", "fractional");
    parse_bad("1.0", "fractional");
    parse_bad("1e3", "fractional");
    parse_bad("4KB", "suffix");
    parse_bad("4Ki", "suffix");
    parse_bad("4 K", "suffix");
    parse_bad("0x10", "suffix");
    parse_bad("4KiBB", "suffix");
    parse_bad("1025G", "too large");
    parse_bad("2TiB", "too large");
    parse_bad("1099511627777", "too large");
    parse_bad("99999999999999999999999999999", "too large");
    parse_bad("18446744073709551616", "too large"); /* 2^64 must not wrap to 0 */
    parse_bad("18014398509481984K", "too large");   /* 2^54 K wraps a shift */

    uint64_t v;
    assert_int_equal(mbx_size_parse("nope", &v, NULL, 0), MBX_E_INVAL);
    assert_int_equal(mbx_size_parse(NULL, &v, NULL, 0), MBX_E_INVAL);
    char tiny[8];
    assert_int_equal(mbx_size_parse("nope", &v, tiny, sizeof tiny), MBX_E_INVAL);
    assert_int_equal(strlen(tiny), sizeof tiny - 1);
}

static mbx_size_list *sizes_ok(const char *text)
{
    mbx_size_list *l = malloc(sizeof *l);
    assert_non_null(l);
    char msg[512] = "";
    if (mbx_sizes_parse(text, l, msg, sizeof msg) != MBX_OK) {
        fail_msg("\"%s\" rejected: %s", text, msg);
    }
    for (size_t i = 1; i < l->n; i++) {
        assert_true(l->v[i - 1] < l->v[i]);
    }
    return l;
}

static void sizes_expect(const char *text, const uint64_t *want, size_t n)
{
    mbx_size_list *l = sizes_ok(text);
    assert_int_equal(l->n, n);
    for (size_t i = 0; i < n; i++) {
        if (l->v[i] != want[i]) {
            fail_msg("\"%s\": point %zu is %llu, want %llu", text, i, (unsigned long long)l->v[i],
                     (unsigned long long)want[i]);
        }
    }
    free(l);
}

#define EXPECT(text, ...)                                                                          \
    do {                                                                                           \
        const uint64_t want_[] = {__VA_ARGS__};                                                    \
        sizes_expect(text, want_, sizeof want_ / sizeof want_[0]);                                 \
    } while (0)

static void sizes_bad(const char *text, const char *want)
{
    mbx_size_list *l = malloc(sizeof *l);
    assert_non_null(l);
    l->n = 99;
    char msg[512] = "";
    assert_int_equal(mbx_sizes_parse(text, l, msg, sizeof msg), MBX_E_INVAL);
    assert_int_equal(l->n, 0);
    assert_true(strlen(msg) > 0);
    assert_null(strchr(msg, '\n'));
    if (want != NULL && strstr(msg, want) == NULL) {
        fail_msg("\"%s\": message \"%s\" lacks \"%s\"", text, msg, want);
    }
    free(l);
}

static void test_sizes_range(void **state)
{
    (void)state;
    mbx_size_list *l = sizes_ok("1:4MiB:2");
    assert_int_equal(l->n, 23);
    for (size_t i = 0; i < l->n; i++) {
        assert_int_equal(l->v[i], (uint64_t)1 << i);
    }
    free(l);
    EXPECT("1:8", 1, 2, 4, 8);
    EXPECT("1:64KiB:4", 1, 4, 16, 64, 256, KIB, 4 * KIB, 16 * KIB, 64 * KIB);
    EXPECT("8:64KiB:8", 8, 64, 512, 4 * KIB, 32 * KIB, 64 * KIB);
    EXPECT("1:10:3", 1, 3, 9, 10);
    EXPECT("5:5", 5);
    EXPECT("1TiB:1TiB", TIB);
    EXPECT("3:100:10", 3, 30, 100);
    EXPECT(" 1 : 8 : 2 ", 1, 2, 4, 8);
    /* Rounding collapses neighbours: 1, 1.1, 1.21, ... all round to 1. */
    EXPECT("1:4:1.1", 1, 2, 3, 4);
    EXPECT("1:2:1.01", 1, 2);
    /* sqrt2: 1, 1.41, 2, 2.83, 4, 5.66, 8, 11.3, 16 rounded. */
    EXPECT("1:16:sqrt2", 1, 2, 3, 4, 6, 8, 11, 16);
    EXPECT("1:16:SQRT2", 1, 2, 3, 4, 6, 8, 11, 16);
    EXPECT("1:1024:1024", 1, 1024);
    EXPECT("1:2048:1024", 1, 1024, 2048);
    EXPECT("1:1000:33.5", 1, 34, 1000);
}

static void test_sizes_range_pow_per_k(void **state)
{
    (void)state;
    /* Each point is MIN * FACTOR^k rounded, not a running product. */
    mbx_size_list *l = sizes_ok("3:1GiB:1.1");
    size_t i = 0;
    for (int k = 0;; k++) {
        uint64_t v = (uint64_t)llround(3.0 * pow(1.1, k));
        if (v >= GIB) {
            break;
        }
        if (i == 0 || v != l->v[i - 1]) {
            assert_true(i < l->n);
            assert_int_equal(l->v[i], v);
            i++;
        }
    }
    assert_int_equal(l->n, i + 1);
    assert_int_equal(l->v[i], GIB);
    free(l);

    /* A factor close to 1 yields every integer for a while; no duplicates. */
    l = sizes_ok("1:4096:1.001");
    assert_int_equal(l->v[0], 1);
    assert_int_equal(l->v[l->n - 1], 4096);
    for (uint64_t v = 1; v <= 100; v++) {
        assert_int_equal(l->v[v - 1], v);
    }
    free(l);

    /* Finishes quickly although it spans an enormous number of k. */
    l = sizes_ok("1:100:1.0000001");
    assert_int_equal(l->n, 100);
    free(l);
}

/* Zero bytes, as OSU and IMB measure first. A range from 0 is 0
 * and then the range from 1 (no power of F reaches 1 from 0); a list takes
 * 0 where it stands. */
static void test_sizes_zero(void **state)
{
    (void)state;
    EXPECT("0:8", 0, 1, 2, 4, 8);
    EXPECT("0:0", 0);
    EXPECT("0:1", 0, 1);
    EXPECT("0:64:4", 0, 1, 4, 16, 64);
    EXPECT("0:4MiB:2", 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384,
           32768, 65536, 131072, 262144, 524288, 1048576, 2097152, 4194304);
    EXPECT("0,8", 0, 8);
    EXPECT("0", 0);
    EXPECT("0B,1K", 0, 1024);
    sizes_bad("8,0", "ascending");
    sizes_bad("0,0", "ascending");
}

static void test_sizes_range_invalid(void **state)
{
    (void)state;
    sizes_bad("64KiB:1KiB", "reversed range: MIN (64KiB) > MAX (1KiB)");
    sizes_bad("8:1", "reversed range: MIN (8) > MAX (1)");
    sizes_bad("0:0:1", "FACTOR");
    sizes_bad(":8", "MIN");
    sizes_bad("1:", "MAX");
    sizes_bad("1:8:", "FACTOR");
    sizes_bad("1:8:1", "FACTOR");
    sizes_bad("1:8:0.5", "FACTOR");
    sizes_bad("1:8:1025", "FACTOR");
    sizes_bad("1:8:abc", "FACTOR");
    sizes_bad("1:8:inf", "FACTOR");
    sizes_bad("1:8:nan", "FACTOR");
    sizes_bad("1:8:0x2", "FACTOR");
    sizes_bad("1:8:-2", "FACTOR");
    sizes_bad("1:8:2:3", "too many");
    sizes_bad("1:2TiB", "too large");
    sizes_bad("1.5K:8K", "fractional");
    sizes_bad("1:8,16", "expected MIN:MAX[:FACTOR] or a list");
    sizes_bad("1:1TiB:1.001", "more than 4096");
    sizes_bad("1:1TiB:1.0000000000000002", "FACTOR");
    sizes_bad("x:8", "expected MIN:MAX[:FACTOR] or a list, sizes like 1, 64, 4K, 4KiB, 1M, "
                     "1MiB (binary multiples), up to 1TiB");
}

static void test_sizes_list(void **state)
{
    (void)state;
    EXPECT("1,8,64K", 1, 8, 64 * KIB);
    EXPECT("0,1", 0, 1);
    EXPECT("64", 64);
    EXPECT("0", 0);
    EXPECT(" 1 , 8 ,\t64KiB ", 1, 8, 64 * KIB);
    EXPECT("1MiB,1TiB", MIB, TIB);
    sizes_bad("8,1", "ascending");
    sizes_bad("1,1", "ascending");
    sizes_bad("4K,4096", "ascending");
    sizes_bad("1,,8", "empty");
    sizes_bad("1,8,", "empty");
    sizes_bad("", "empty");
    sizes_bad("1,-8", "negative");
    sizes_bad("1,2.5", "fractional");
    sizes_bad("garbage", "expected MIN:MAX[:FACTOR] or a list");

    mbx_size_list *l = malloc(sizeof *l);
    assert_non_null(l);
    assert_int_equal(mbx_sizes_parse("8,1", l, NULL, 0), MBX_E_INVAL);
    assert_int_equal(mbx_sizes_parse(NULL, l, NULL, 0), MBX_E_INVAL);
    free(l);
}

static void test_sizes_list_limit(void **state)
{
    (void)state;
    size_t cap = (MBX_SIZES_MAX_POINTS + 1) * 8;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t pos = 0;
    for (int i = 1; i <= MBX_SIZES_MAX_POINTS; i++) {
        pos += (size_t)snprintf(text + pos, cap - pos, "%s%d", i > 1 ? "," : "", i);
    }
    mbx_size_list *l = sizes_ok(text);
    assert_int_equal(l->n, MBX_SIZES_MAX_POINTS);
    assert_int_equal(l->v[MBX_SIZES_MAX_POINTS - 1], MBX_SIZES_MAX_POINTS);
    free(l);
    snprintf(text + pos, cap - pos, ",%d", MBX_SIZES_MAX_POINTS + 1);
    sizes_bad(text, "more than 4096");
    free(text);

    /* 1..4096 step 1 would need FACTOR 1; a range hitting exactly the cap
     * is fine, one point more is not. */
    l = sizes_ok("1:4096:1.0001");
    assert_true(l->n <= MBX_SIZES_MAX_POINTS);
    free(l);
}

static void check_format(uint64_t bytes, const char *want)
{
    char buf[32];
    mbx_size_format(bytes, buf, sizeof buf);
    assert_string_equal(buf, want);
    uint64_t back = 0;
    assert_int_equal(mbx_size_parse(buf, &back, NULL, 0), MBX_OK);
    assert_int_equal(back, bytes);
}

static void test_size_format(void **state)
{
    (void)state;
    check_format(0, "0");
    check_format(1, "1");
    check_format(1000, "1000");
    check_format(1536, "1536");
    check_format(KIB, "1KiB");
    check_format(4 * KIB, "4KiB");
    check_format(1536 * KIB, "1536KiB");
    check_format(MIB, "1MiB");
    check_format(3 * MIB, "3MiB");
    check_format(GIB, "1GiB");
    check_format(1023 * GIB, "1023GiB");
    check_format(TIB, "1TiB");
    check_format(TIB - 1, "1099511627775");

    char buf[32];
    mbx_size_format((uint64_t)1 << 50, buf, sizeof buf);
    assert_string_equal(buf, "1024TiB");
    mbx_size_format(UINT64_MAX, buf, sizeof buf);
    assert_string_equal(buf, "18446744073709551615");
    char small[3];
    mbx_size_format(4 * KIB, small, sizeof small);
    assert_string_equal(small, "4K");
    mbx_size_format(4 * KIB, NULL, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_size_parse_valid),    cmocka_unit_test(test_size_parse_invalid),
        cmocka_unit_test(test_sizes_range),         cmocka_unit_test(test_sizes_range_pow_per_k),
        cmocka_unit_test(test_sizes_range_invalid), cmocka_unit_test(test_sizes_zero),
        cmocka_unit_test(test_sizes_list),          cmocka_unit_test(test_sizes_list_limit),
        cmocka_unit_test(test_size_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
