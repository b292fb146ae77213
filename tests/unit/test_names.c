/* Names typed by users (engine/core/names.c): the edit distance, the typo
 * rule, globs, and the benchmark selection of --bench, `bench =` and
 * `mpibex list` over a made-up registry (with groups that do not exist
 * yet, so the code stays generic over the real one). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/names.h"

static const char *const reg[] = {
    "pingpong.send_recv",
    "pingpong.isend_recv",
    "simple.wtime",
    "coll.barrier",
    "coll.bcast",
    "coll.allreduce",
    "coll.ibarrier",
    "coll.iallreduce",
    "rma.put",
    "rma.get",
    "bw.uni",
    "pingpong.mt",
};
#define NREG (sizeof reg / sizeof reg[0])

static void test_distance(void **state)
{
    (void)state;
    assert_int_equal(mbx_edit_distance("kitten", 6, "sitting", 7), 3);
    assert_int_equal(mbx_edit_distance("", 0, "abc", 3), 3);
    assert_int_equal(mbx_edit_distance("abc", 3, "abc", 3), 0);
    assert_int_equal(mbx_edit_distance("ab", 2, "ba", 2), 2);
    char long_[70];
    memset(long_, 'a', 69);
    long_[69] = '\0';
    assert_int_equal(mbx_edit_distance(long_, 69, "a", 1), (size_t)-1);
    assert_false(mbx_is_typo(0, 10));
    assert_true(mbx_is_typo(2, 5));
    assert_false(mbx_is_typo(2, 4)); /* half the letters is no typo */
    assert_false(mbx_is_typo(3, 20));
}

static void test_suggest(void **state)
{
    (void)state;
    assert_string_equal(mbx_name_suggest(reg, NREG, "coll.alreduce", 13), "coll.allreduce");
    assert_string_equal(mbx_name_suggest(reg, NREG, "rma.pit", 7), "rma.put");
    assert_null(mbx_name_suggest(reg, NREG, "nope", 4));
    assert_null(mbx_name_suggest(reg, NREG, "", 0));
    const char *dashed[] = {"--bench", NULL, "--sizes"};
    assert_string_equal(mbx_name_suggest(dashed, 3, "--bnech", 7), "--bench");
}

static void test_glob(void **state)
{
    (void)state;
    assert_true(mbx_name_glob("coll.*", "coll.bcast"));
    assert_false(mbx_name_glob("coll.*", "pingpong.send_recv"));
    assert_true(mbx_name_glob("coll.i*", "coll.iallreduce"));
    assert_false(mbx_name_glob("coll.i*", "coll.allreduce"));
    assert_true(mbx_name_glob("*", "x"));
    assert_true(mbx_name_glob("*.*recv", "pingpong.isend_recv"));
    assert_true(mbx_name_glob("rma.?et", "rma.get"));
    assert_false(mbx_name_glob("rma.?et", "rma.put"));
    assert_true(mbx_name_glob("rma.[gp]*", "rma.put"));
    assert_true(mbx_name_glob("rma.[a-h]et", "rma.get"));
    assert_false(mbx_name_glob("rma.[!g]et", "rma.get"));
    assert_true(mbx_name_glob("a[b", "a[b")); /* an unclosed '[' is itself */
    assert_false(mbx_name_glob("coll.bcast", "coll.bcast_x"));
    assert_true(mbx_name_glob("*a*b*", "xxaxxbxx"));
    assert_true(mbx_name_is_glob("coll.*"));
    assert_true(mbx_name_is_glob("rma.[gp]ut"));
    assert_false(mbx_name_is_glob("pingpong"));
}

/* Select items; returns the names joined by ',' (or the reason and the
 * suggestion after '|') in out. */
static int sel(const char *a, const char *b, const char *c, char *out, size_t len)
{
    const char *items[3] = {a, b, c};
    size_t nitems = c ? 3 : b ? 2 : 1, n = 0;
    int ids[NREG];
    mbx_select_why why;
    int rc = mbx_name_select(reg, NREG, items, nitems, ids, NREG, &n, &why);
    out[0] = '\0';
    if (rc < 0) {
        snprintf(out, len, "%s|%s", why.what, why.suggest);
        return rc;
    }
    for (size_t k = 0; k < n; k++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s", k ? "," : "", reg[ids[k]]);
    return rc;
}

static void test_select(void **state)
{
    (void)state;
    char out[512];
    assert_int_equal(sel("coll.bcast", NULL, NULL, out, sizeof out), 0);
    assert_string_equal(out, "coll.bcast");
    /* A group: every name starting with it and a dot, in registry order. */
    assert_int_equal(sel("pingpong", NULL, NULL, out, sizeof out), 0);
    assert_string_equal(out, "pingpong.send_recv,pingpong.isend_recv,pingpong.mt");
    assert_int_equal(sel("coll.i*", NULL, NULL, out, sizeof out), 0);
    assert_string_equal(out, "coll.ibarrier,coll.iallreduce");
    assert_int_equal(sel("rma.*", NULL, NULL, out, sizeof out), 0);
    assert_string_equal(out, "rma.put,rma.get");
    /* Items keep their order; a name already selected is dropped. */
    assert_int_equal(sel("coll.bcast", "coll.*", "bw", out, sizeof out), 0);
    assert_string_equal(out, "coll.bcast,coll.barrier,coll.allreduce,coll.ibarrier,"
                             "coll.iallreduce,bw.uni");
    assert_int_equal(sel("*", NULL, NULL, out, sizeof out), 0);
    assert_int_equal((int)(strchr(out, '\0') - out) > 100, 1);
    /* Nothing selected: the reason, and the nearest name or group. */
    assert_int_equal(sel("coll.alreduce", NULL, NULL, out, sizeof out), -1);
    assert_string_equal(out, "unknown benchmark 'coll.alreduce'|coll.allreduce");
    assert_int_equal(sel("pingpng", NULL, NULL, out, sizeof out), -1);
    assert_string_equal(out, "unknown benchmark 'pingpng'|pingpong");
    assert_int_equal(sel("coll.*", "nope.*", NULL, out, sizeof out), -1);
    assert_string_equal(out, "'nope.*' matches no benchmark|");
    assert_int_equal(sel("colll.i*", NULL, NULL, out, sizeof out), -1);
    assert_string_equal(out, "'colll.i*' matches no benchmark|coll.i*");
    assert_int_equal(sel("frobnicate", NULL, NULL, out, sizeof out), -1);
    assert_string_equal(out, "unknown benchmark 'frobnicate'|");
    /* "coll" alone is a group; "col" is neither a name nor a group. */
    assert_int_equal(sel("col", NULL, NULL, out, sizeof out), -1);
    assert_string_equal(out, "unknown benchmark 'col'|coll");
}

static void test_select_cap(void **state)
{
    (void)state;
    const char *items[] = {"coll.*"};
    int ids[2];
    size_t n = 0;
    mbx_select_why why;
    assert_int_equal(mbx_name_select(reg, NREG, items, 1, ids, 2, &n, &why), -1);
    assert_string_equal(why.what, "too many benchmarks: 'coll.*' brings the selection past 2");
    assert_int_equal(n, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distance),   cmocka_unit_test(test_suggest),
        cmocka_unit_test(test_glob),       cmocka_unit_test(test_select),
        cmocka_unit_test(test_select_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
