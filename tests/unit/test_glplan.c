/* The guidelines' plan (tui/cmd/glplan.h), shared by `mpibex guidelines`
 * and the explorer's guidelines screen: a range lets each rule take the
 * sizes it can (reductions from 4 B), a list must fit every rule, a rule
 * of one benchmark on both sides measures its right side in a twin
 * section, @2x doubles a side's sizes, the explorer's form list is taken
 * as a range; --rules takes globs and !GLOB exclusions; and a rule's summary counts its verdicts
 * and names its violated range with the largest ratio. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "glplan.h"

static const mbx_glp_rule *rule_named(const mbx_glp *p, const char *name)
{
    for (size_t i = 0; i < p->nrule; i++)
        if (strcmp(p->rule[i].r->name, name) == 0)
            return &p->rule[i];
    return NULL;
}

static void a_range_lets_reductions_start_at_4_bytes(void **state)
{
    (void)state;
    mbx_glp p = {0};
    char msg[512] = "";
    mbx_glp_opts o = {.sizes = "1:64", .rules = "allreduce.reduce_bcast,monotony.bcast"};
    assert_int_equal(mbx_glp_build(&p, &o, msg, sizeof msg), MBX_OK);
    assert_int_equal(p.nrule, 2);
    const mbx_glp_rule *r = rule_named(&p, "allreduce.reduce_bcast");
    assert_non_null(r);
    assert_int_equal(r->nm, 5); /* 4, 8, 16, 32, 64 */
    assert_int_equal(r->m[0], 4);
    assert_int_equal(r->twin, 0);
    assert_string_equal(r->ll, r->rl);
    /* monotony: bcast at 1..64 on the left and 2..128 on the right, one need */
    r = rule_named(&p, "monotony.bcast");
    assert_int_equal(r->nm, 7);
    const mbx_glp_need *n = mbx_glp_need_of(&p, r->lb, 0);
    assert_non_null(n);
    assert_int_equal(n->n, 8);
    assert_int_equal(n->v[0], 1);
    assert_int_equal(n->v[7], 128);
    assert_null(mbx_glp_need_of(&p, r->lb, 1));
    mbx_glp_free(&p);
}

static void rules_take_globs_and_exclusions(void **state)
{
    (void)state;
    assert_true(mbx_glp_selected(NULL, "persistent.scatter"));
    assert_true(mbx_glp_selected("persistent.*", "persistent.scatter"));
    assert_false(mbx_glp_selected("blocking.*", "persistent.scatter"));
    /* an exclusion wins over an inclusion, in any order */
    assert_false(mbx_glp_selected("persistent.*,!persistent.scatter", "persistent.scatter"));
    assert_false(mbx_glp_selected("!persistent.scatter,persistent.*", "persistent.scatter"));
    assert_true(mbx_glp_selected("persistent.*,!persistent.scatter", "persistent.scatterv"));
    /* exclusions only: every other rule */
    assert_true(mbx_glp_selected("!persistent.scatter", "blocking.bcast"));
    assert_false(mbx_glp_selected("!persistent.sc*", "persistent.scan"));
    mbx_glp p = {0};
    char msg[512] = "";
    mbx_glp_opts o = {.sizes = "4:64", .rules = "!persistent.*,!blocking.*"};
    assert_int_equal(mbx_glp_build(&p, &o, msg, sizeof msg), MBX_OK);
    for (size_t i = 0; i < p.nrule; i++) {
        assert_true(strncmp(p.rule[i].r->name, "persistent.", 11) != 0);
        assert_true(strncmp(p.rule[i].r->name, "blocking.", 9) != 0);
    }
    assert_true(p.nrule > 5);
    mbx_glp_free(&p);
}

static void a_list_must_fit_every_rule(void **state)
{
    (void)state;
    mbx_glp p = {0};
    char msg[512] = "";
    mbx_glp_opts o = {.sizes = "4,6", .rules = "allreduce.reduce_bcast"};
    assert_int_equal(mbx_glp_build(&p, &o, msg, sizeof msg), MBX_E_INVAL);
    assert_non_null(strstr(msg, "[allreduce.reduce_bcast] compares coll.allreduce"));
    assert_non_null(strstr(msg, "6 B is not one"));
    mbx_glp_free(&p);
    mbx_glp p2 = {0};
    mbx_glp_opts none = {.rules = "nope*"};
    assert_int_equal(mbx_glp_build(&p2, &none, msg, sizeof msg), MBX_E_INVAL);
    assert_string_equal(msg, "--rules: 'nope*' selects no rule of guidelines.ini (built in)");
    mbx_glp_free(&p2);
}

static void a_form_list_is_taken_as_a_range(void **state)
{
    (void)state;
    mbx_size_list *l = calloc(1, sizeof *l);
    assert_non_null(l);
    l->v[0] = 1, l->v[1] = 2, l->v[2] = 4, l->v[3] = 8;
    l->n = 4;
    mbx_glp p = {0};
    char msg[512] = "";
    mbx_glp_opts o = {.range = l, .rules = "allreduce.reduce_bcast"};
    assert_int_equal(mbx_glp_build(&p, &o, msg, sizeof msg), MBX_OK);
    assert_int_equal(p.rule[0].nm, 2); /* 4 and 8 */
    mbx_glp_free(&p);
    l->n = 2; /* 1 and 2: none a reduction can take */
    mbx_glp p2 = {0};
    assert_int_equal(mbx_glp_build(&p2, &o, msg, sizeof msg), MBX_E_INVAL);
    assert_non_null(strstr(msg, "the range of the form holds none"));
    mbx_glp_free(&p2);
    free(l);
}

static void a_null_rule_measures_its_right_side_in_a_twin(void **state)
{
    (void)state;
    char path[] = "/tmp/test_glplan_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char text[] = "[null.bcast]\nholds = coll.bcast <= coll.bcast\n";
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    mbx_glp p = {0};
    char msg[512] = "";
    mbx_glp_opts o = {.catalogue = path, .sizes = "256:1K"};
    int rc = mbx_glp_build(&p, &o, msg, sizeof msg);
    unlink(path);
    assert_int_equal(rc, MBX_OK);
    assert_int_equal(p.rule[0].twin, 1);
    assert_string_equal(p.rule[0].ll, "gl-1");
    assert_string_equal(p.rule[0].rl, "gl-twin-2");
    assert_int_equal(p.nsection, 2);
    assert_non_null(mbx_glp_need_of(&p, p.rule[0].lb, 1));
    mbx_glp_free(&p);
}

static void a_summary_counts_and_names_the_worst(void **state)
{
    (void)state;
    mbx_glp_cell c[5] = {
        {.rule = 0, .procs = 2, .m = 8, .j = {.verdict = MBX_GL_HOLDS}},
        {.rule = 0,
         .procs = 2,
         .m = 16,
         .j = {.verdict = MBX_GL_VIOLATED, .ratio = 1.1, .lo = 1.07, .hi = 1.15}},
        {.rule = 0,
         .procs = 2,
         .m = 512,
         .j = {.verdict = MBX_GL_VIOLATED, .ratio = 1.135, .lo = 1.071, .hi = 1.189}},
        {.rule = 0, .procs = 2, .m = 1024, .j = {.verdict = MBX_GL_UNCLEAR}},
        {.rule = 1, .procs = 2, .m = 8, .j = {.verdict = MBX_GL_NONE}},
    };
    mbx_glp_sum s;
    mbx_glp_summarize(c, 5, 0, 0, &s);
    assert_int_equal(s.holds, 1);
    assert_int_equal(s.violated, 2);
    assert_int_equal(s.unclear, 1);
    assert_int_equal(s.none, 0);
    char buf[96];
    mbx_glp_sum_format(&s, buf, sizeof buf);
    assert_string_equal(buf, "16-512 (1.135 [1.071, 1.189])");
    mbx_glp_summarize(c, 5, 1, 2, &s);
    assert_int_equal(s.none, 1);
    mbx_glp_sum_format(&s, buf, sizeof buf);
    assert_string_equal(buf, "");
    mbx_glp_summarize(c, 5, 0, 4, &s); /* no cell on 4 processes */
    assert_int_equal(s.holds + s.violated + s.unclear + s.none, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_range_lets_reductions_start_at_4_bytes),
        cmocka_unit_test(a_list_must_fit_every_rule),
        cmocka_unit_test(rules_take_globs_and_exclusions),
        cmocka_unit_test(a_form_list_is_taken_as_a_range),
        cmocka_unit_test(a_null_rule_measures_its_right_side_in_a_twin),
        cmocka_unit_test(a_summary_counts_and_names_the_worst),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
