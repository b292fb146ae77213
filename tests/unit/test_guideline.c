/* Guidelines (mbx/guideline.h): the catalogue parser on good and bad text
 * (each error names the file, the line and the key), and the verdicts on
 * known samples: a left side clearly slower by more than the tolerance is
 * violated, one slower by less is not, equal samples hold, overlapping
 * noisy ones are not distinguishable, too few values give none; the
 * Benjamini-Hochberg step takes a borderline p over many tests back to
 * not distinguishable. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/guideline.h"

static mbx_gl_catalogue cat;

static void parses_rules_and_sides(void **state)
{
    (void)state;
    char msg[256] = "";
    const char *text = "# a comment\n"
                       "[allreduce.reduce_bcast]\n"
                       "what = MPI_Allreduce is no slower than MPI_Reduce + MPI_Bcast\n"
                       "holds = coll.allreduce <= mock.reduce_bcast\n"
                       "\n"
                       "[monotony.bcast]\n"
                       "holds =coll.bcast<=coll.bcast@2x\n";
    assert_int_equal(mbx_gl_parse(text, "t.ini", &cat, msg, sizeof msg), MBX_OK);
    assert_int_equal(cat.n, 2);
    assert_string_equal(cat.rule[0].name, "allreduce.reduce_bcast");
    assert_string_equal(cat.rule[0].lhs.bench, "coll.allreduce");
    assert_string_equal(cat.rule[0].rhs.bench, "mock.reduce_bcast");
    assert_int_equal(cat.rule[0].lhs.factor, 1);
    assert_int_equal(cat.rule[0].line, 2);
    assert_string_equal(cat.rule[0].what, "MPI_Allreduce is no slower than MPI_Reduce + MPI_Bcast");
    assert_string_equal(cat.rule[1].rhs.bench, "coll.bcast");
    assert_int_equal(cat.rule[1].rhs.factor, 2);
    assert_string_equal(cat.rule[1].what, "");
}

/* text must fail with rc and a message holding each of the words. */
static void bad(const char *text, int rc, const char *w1, const char *w2)
{
    char msg[256] = "";
    assert_int_equal(mbx_gl_parse(text, "t.ini", &cat, msg, sizeof msg), rc);
    if (!strstr(msg, w1) || (w2 && !strstr(msg, w2)))
        fail_msg("'%s' lacks '%s' or '%s'", msg, w1, w2 ? w2 : "");
}

static void bad_catalogues_say_where(void **state)
{
    (void)state;
    bad("", MBX_E_INVAL, "t.ini: no rules", NULL);
    bad("[a]\nwhat = x\n", MBX_E_INVAL, "t.ini:1: [a]: no holds", NULL);
    bad("[a]\nholds = coll.x <= coll.y\ncolour = red\n", MBX_E_UNKNOWN, "t.ini:3: colour",
        "unknown key");
    bad("holds = coll.x <= coll.y\n", MBX_E_INVAL, "t.ini:1: holds", "outside a rule");
    bad("[a]\nholds = coll.x < coll.y\n", MBX_E_INVAL, "t.ini:2: holds", "LEFT <= RIGHT");
    bad("[a]\nholds = coll.x <= coll.y <= coll.z\n", MBX_E_INVAL, "t.ini:2: holds", NULL);
    bad("[a]\nholds = coll.x <= allreduce\n", MBX_E_INVAL, "t.ini:2: holds", "benchmark's name");
    bad("[a]\nholds = coll.x <= coll.x@1x\n", MBX_E_INVAL, "t.ini:2: holds", "2..64");
    bad("[a]\nholds = coll.x <= coll.x@65x\n", MBX_E_INVAL, "t.ini:2: holds", "2..64");
    bad("[a]\nholds = coll.x <= coll.x@2\n", MBX_E_INVAL, "t.ini:2: holds", "@Nx");
    bad("[a]\nholds = coll.x <= coll.y\nholds = coll.x <= coll.y\n", MBX_E_INVAL, "t.ini:3: holds",
        "duplicate key");
    bad("[a]\nholds = coll.x <= coll.y\n[a]\nholds = coll.x <= coll.y\n", MBX_E_INVAL, "t.ini:3",
        "duplicate rule [a] (first at line 1)");
    bad("[a b]\nholds = coll.x <= coll.y\n", MBX_E_INVAL, "t.ini:1", "bad rule name");
    bad("[a\nholds = coll.x <= coll.y\n", MBX_E_INVAL, "t.ini:1", "section header");
}

/* n values around mu, a deterministic spread of +-spread. */
static void sample(double *v, size_t n, double mu, double spread, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        unsigned x = (unsigned)(i * 2654435761u + seed * 40503u);
        v[i] = mu * (1.0 + spread * (((double)(x % 1000) / 999.0) - 0.5) * 2.0);
    }
}

static mbx_gl_verdict judge(double lmu, double rmu, double spread, size_t n, double tol)
{
    double a[64], b[64];
    sample(a, n, lmu, spread, 1);
    sample(b, n, rmu, spread, 2);
    mbx_gl_judgement j;
    assert_int_equal(mbx_gl_test(a, n, b, n, &j), MBX_OK);
    assert_int_equal(mbx_gl_decide(&j, 1, tol, 0.05), MBX_OK);
    if (j.verdict != MBX_GL_NONE) {
        /* the ratio is the left over the right */
        assert_true(fabs(j.ratio - lmu / rmu) < 0.05 * lmu / rmu);
        assert_true(j.lo <= j.ratio && j.ratio <= j.hi);
    }
    return j.verdict;
}

static void verdicts_on_known_samples(void **state)
{
    (void)state;
    /* 30 % slower, 1 % spread: violated at 5 %, and at 20 %. */
    assert_int_equal(judge(1.3e-6, 1e-6, 0.01, 12, 0.05), MBX_GL_VIOLATED);
    assert_int_equal(judge(1.3e-6, 1e-6, 0.01, 12, 0.20), MBX_GL_VIOLATED);
    /* 30 % slower is within a 50 % tolerance: not violated, and the CI's
     * top is under 1.5: holds. */
    assert_int_equal(judge(1.3e-6, 1e-6, 0.01, 12, 0.50), MBX_GL_HOLDS);
    /* 3 % slower, significant, but within 5 %: not violated; its CI top
     * (about 1.04) within 1.05: holds. */
    assert_int_equal(judge(1.03e-6, 1e-6, 0.005, 12, 0.05), MBX_GL_HOLDS);
    /* Faster: holds. */
    assert_int_equal(judge(0.7e-6, 1e-6, 0.01, 12, 0.05), MBX_GL_HOLDS);
    /* The same, 30 % spread on 5 values: the CI reaches past 1.05 and no
     * difference shows: not distinguishable. */
    assert_int_equal(judge(1e-6, 1e-6, 0.30, 5, 0.05), MBX_GL_UNCLEAR);
    /* One value a side: none. */
    assert_int_equal(judge(2e-6, 1e-6, 0.01, 1, 0.05), MBX_GL_NONE);
}

static void decide_corrects_for_many_tests(void **state)
{
    (void)state;
    /* 5 against 5, all of the left above all of the right: p = 2/252
     * (0.0079), violated alone; among 40 tests whose others show nothing,
     * its BH q is 40 x 0.0079 = 0.32: not distinguishable. */
    double a[5] = {1.30, 1.31, 1.32, 1.33, 1.34}, b[5] = {1.00, 1.01, 1.02, 1.03, 1.04};
    mbx_gl_judgement j[40];
    assert_int_equal(mbx_gl_test(a, 5, b, 5, &j[0]), MBX_OK);
    assert_true(fabs(j[0].p - 2.0 / 252.0) < 1e-9);
    mbx_gl_judgement one = j[0];
    assert_int_equal(mbx_gl_decide(&one, 1, 0.05, 0.05), MBX_OK);
    assert_int_equal(one.verdict, MBX_GL_VIOLATED);
    for (int i = 1; i < 40; i++)
        assert_int_equal(mbx_gl_test(b, 5, b, 5, &j[i]), MBX_OK);
    assert_int_equal(mbx_gl_decide(j, 40, 0.05, 0.05), MBX_OK);
    assert_true(j[0].q > 0.3 && j[0].q < 0.33);
    assert_int_equal(j[0].verdict, MBX_GL_UNCLEAR);
    /* Bad tolerance or level: refused. */
    assert_int_equal(mbx_gl_decide(j, 40, 0.6, 0.05), MBX_E_INVAL);
    assert_int_equal(mbx_gl_decide(j, 40, -0.01, 0.05), MBX_E_INVAL);
    assert_int_equal(mbx_gl_decide(j, 40, 0.05, 1.0), MBX_E_INVAL);
    assert_string_equal(mbx_gl_verdict_word(MBX_GL_UNCLEAR), "not_distinguishable");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_rules_and_sides),
        cmocka_unit_test(bad_catalogues_say_where),
        cmocka_unit_test(verdicts_on_known_samples),
        cmocka_unit_test(decide_corrects_for_many_tests),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
