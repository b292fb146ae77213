/* The options parser of every front end (tui/core/opt.c): the table walk,
 * the value forms, unknown options, missing and empty values, "--", the
 * bad-input line and the "did you mean" suggestion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/opt.h"

typedef struct args {
    int force, verbose, n_ops;
    const char *out, *name, *level, *ops[8];
    long k;
} args;

static char printed[256];

static void print(const char *prefix, const char *line)
{
    snprintf(printed, sizeof printed, "%s%s", prefix, line);
}

static int on_k(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    (void)o;
    if (v == NULL)
        return mbx_opt_bad(&p->out, "%s: no value", name);
    ((args *)p->dst)->k = strtol(v, NULL, 10);
    return 0;
}

static int on_level(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    (void)o, (void)name;
    ((args *)p->dst)->level = v ? v : "default";
    return 0;
}

static int on_operand(mbx_opt_parser *p, const char *word)
{
    args *a = p->dst;
    a->ops[a->n_ops++] = word;
    return 0;
}

static const mbx_opt table[] = {
    {"--help", "-h", NULL, 0, mbx_opt_help, 0},
    {"--force", "-f", NULL, 0, NULL, offsetof(args, force)},
    {"--output", "-o", "FILE", MBX_OPT_EQ, NULL, offsetof(args, out)},
    {"--name", NULL, "NAME", MBX_OPT_NONEMPTY, NULL, offsetof(args, name)},
    {NULL, "-k", "K", MBX_OPT_GLUED, on_k, 0},
    {"--level", NULL, "L", MBX_OPT_OPTIONAL, on_level, 0},
};

static mbx_opt_parser parser(args *a, char *msg, size_t len)
{
    memset(a, 0, sizeof *a);
    printed[0] = '\0';
    mbx_opt_parser p = {.opts = table,
                        .nopts = MBX_OPT_COUNT(table),
                        .flags = MBX_OPT_DASHDASH,
                        .dst = a,
                        .out = {.prefix = "cmd: ", .msg = msg, .len = len, .print = print},
                        .unknown = "unknown option '%s'",
                        .missing = "%s: missing value",
                        .empty = "%s: empty value",
                        .operand = on_operand};
    return p;
}

#define PARSE(p, ...)                                                                              \
    do {                                                                                           \
        char *w_[] = {__VA_ARGS__};                                                                \
        rc = mbx_opt_parse(&(p), (int)(sizeof w_ / sizeof *w_), w_, 0);                            \
    } while (0)

static void test_walk(void **state)
{
    (void)state;
    args a;
    char msg[128] = "";
    mbx_opt_parser p = parser(&a, msg, sizeof msg);
    int rc;
    PARSE(p, "x.csv", "-f", "--output", "o.csv", "-k3", "--name", "n", "y.csv");
    assert_int_equal(rc, 0);
    assert_int_equal(a.force, 1);
    assert_string_equal(a.out, "o.csv");
    assert_string_equal(a.name, "n");
    assert_int_equal(a.k, 3);
    assert_int_equal(a.n_ops, 2);
    assert_string_equal(a.ops[0], "x.csv");
    assert_string_equal(a.ops[1], "y.csv");
    assert_int_equal(p.next, 8);
    assert_string_equal(msg, "");
}

static void test_forms(void **state)
{
    (void)state;
    args a;
    char msg[128] = "";
    mbx_opt_parser p = parser(&a, msg, sizeof msg);
    int rc;
    PARSE(p, "--output=o.csv", "-k", "7", "--level");
    assert_int_equal(rc, 0);
    assert_string_equal(a.out, "o.csv");
    assert_int_equal(a.k, 7);
    assert_string_equal(a.level, "default");
    p = parser(&a, msg, sizeof msg);
    PARSE(p, "-o", "-", "--level=high");
    assert_int_equal(rc, 0);
    assert_string_equal(a.out, "-"); /* the next word, whatever it looks like */
    assert_string_equal(a.level, "high");
    /* "=" only where the entry says so: --name=x is an unknown word. */
    p = parser(&a, msg, sizeof msg);
    PARSE(p, "--name=x");
    assert_int_equal(rc, 2);
    assert_string_equal(msg, "unknown option '--name=x'");
    assert_string_equal(printed, "cmd: unknown option '--name=x'");
    /* A flag never takes "=VALUE"; -o is never glued. */
    p = parser(&a, msg, sizeof msg);
    PARSE(p, "--force=1");
    assert_int_equal(rc, 2);
    p = parser(&a, msg, sizeof msg);
    PARSE(p, "-ofile");
    assert_int_equal(rc, 2);
    assert_string_equal(msg, "unknown option '-ofile'");
}

static void test_unknown_and_dashdash(void **state)
{
    (void)state;
    args a;
    char msg[128] = "";
    mbx_opt_parser p = parser(&a, msg, sizeof msg);
    int rc;
    PARSE(p, "a", "--frob", "b");
    assert_int_equal(rc, 2);
    assert_string_equal(msg, "unknown option '--frob'");
    assert_int_equal(a.n_ops, 1);
    p = parser(&a, msg, sizeof msg);
    PARSE(p, "-", "--", "--frob", "-f");
    assert_int_equal(rc, 0);
    assert_int_equal(a.force, 0);
    assert_int_equal(a.n_ops, 3);
    assert_string_equal(a.ops[1], "--frob");
    /* Without an operand handler, every word that is no option is unknown. */
    p = parser(&a, msg, sizeof msg);
    p.operand = NULL;
    p.flags = 0;
    PARSE(p, "plain");
    assert_int_equal(rc, 2);
    assert_string_equal(msg, "unknown option 'plain'");
    /* With pass_unknown, unknown options go to the operand handler. */
    p = parser(&a, msg, sizeof msg);
    p.pass_unknown = 1;
    PARSE(p, "--frob", "--start");
    assert_int_equal(rc, 0);
    assert_int_equal(a.n_ops, 2);
}

static void test_stop(void **state)
{
    (void)state;
    args a;
    char msg[128] = "";
    mbx_opt_parser p = parser(&a, msg, sizeof msg);
    int rc;
    PARSE(p, "-h", "--frob");
    assert_int_equal(rc, 0);
    assert_int_equal(p.help, 1);
    p = parser(&a, msg, sizeof msg);
    p.flags = MBX_OPT_STOP_DASHDASH;
    PARSE(p, "-f", "--", "--frob");
    assert_int_equal(rc, 0);
    assert_int_equal(p.next, 2);
}

static void test_missing_and_empty(void **state)
{
    (void)state;
    args a;
    char msg[128] = "";
    mbx_opt_parser p = parser(&a, msg, sizeof msg);
    int rc;
    PARSE(p, "--output");
    assert_int_equal(rc, 2);
    assert_string_equal(msg, "--output: missing value");
    p = parser(&a, msg, sizeof msg);
    PARSE(p, "-o");
    assert_string_equal(msg, "-o: missing value");
    p = parser(&a, msg, sizeof msg);
    PARSE(p, "--name", "");
    assert_int_equal(rc, 2);
    assert_string_equal(msg, "--name: empty value");
    /* Without a `missing` line the handler decides. */
    p = parser(&a, msg, sizeof msg);
    p.missing = NULL;
    PARSE(p, "-k");
    assert_int_equal(rc, 2);
    assert_string_equal(msg, "-k: no value");
}

static void test_output(void **state)
{
    (void)state;
    static const mbx_opt one[] = {
        {"--output", "-o", "FILE", MBX_OPT_EQ, mbx_opt_output, offsetof(args, out)}};
    args a;
    char msg[128] = "";
    mbx_opt_parser p = parser(&a, msg, sizeof msg);
    int rc;
    p.opts = one;
    p.nopts = 1;
    PARSE(p, "-o", "x.csv");
    assert_int_equal(rc, 0);
    assert_string_equal(a.out, "x.csv");
    p = parser(&a, msg, sizeof msg);
    p.opts = one;
    p.nopts = 1;
    PARSE(p, "--output=");
    assert_int_equal(rc, 2);
    assert_string_equal(msg, "--output: missing file name");
    p = parser(&a, msg, sizeof msg);
    p.opts = one;
    p.nopts = 1;
    PARSE(p, "-o", "x", "--output", "y");
    assert_int_equal(rc, 2);
    assert_string_equal(msg, "-o: only one output is allowed (got 'x' and 'y')");
}

static void test_bad_cuts(void **state)
{
    (void)state;
    char msg[8];
    mbx_opt_out out = {.msg = msg, .len = sizeof msg};
    assert_int_equal(mbx_opt_bad(&out, "%s %d", "abcdef", 42), 2);
    assert_string_equal(msg, "abcdef ");
}

static void test_suggest(void **state)
{
    (void)state;
    assert_string_equal(mbx_opt_suggest(table, MBX_OPT_COUNT(table), "--outptu"), "--output");
    assert_string_equal(mbx_opt_suggest(table, MBX_OPT_COUNT(table), "--forse"), "--force");
    assert_string_equal(mbx_opt_suggest(table, MBX_OPT_COUNT(table), "-output=x"), "--output");
    assert_string_equal(mbx_opt_suggest(table, MBX_OPT_COUNT(table), "--nme"), "--name");
    assert_null(mbx_opt_suggest(table, MBX_OPT_COUNT(table), "--frobnicate"));
    assert_null(mbx_opt_suggest(table, MBX_OPT_COUNT(table), "--output")); /* not a typo */
    assert_null(mbx_opt_suggest(table, MBX_OPT_COUNT(table), "-x"));
    assert_null(mbx_opt_suggest(table, MBX_OPT_COUNT(table), ""));
}

/* The walker's unknown branch: "did you mean" from the table. */
static void test_suggest_in_walk(void **state)
{
    (void)state;
    args a;
    char msg[160] = "";
    mbx_opt_parser p = parser(&a, msg, sizeof msg);
    int rc;
    PARSE(p, "--outptu", "x");
    assert_int_equal(rc, 2);
    assert_string_equal(msg, "unknown option '--outptu'; did you mean --output?");
    assert_string_equal(printed, "cmd: unknown option '--outptu'; did you mean --output?");
    p = parser(&a, msg, sizeof msg);
    PARSE(p, "--forse=1");
    assert_int_equal(rc, 2);
    assert_string_equal(msg, "unknown option '--forse=1'; did you mean --force?");
    p = parser(&a, msg, sizeof msg);
    PARSE(p, "--frobnicate");
    assert_string_equal(msg, "unknown option '--frobnicate'"); /* nothing near */
}

/* The OSU and IMB flags: their line instead of "unknown option"; the
 * command's own options win (-f is --force here). */
static void test_habits(void **state)
{
    (void)state;
    args a;
    char msg[512] = "";
    mbx_opt_parser p = parser(&a, msg, sizeof msg);
    int rc;
    PARSE(p, "-m", "1:4096");
    assert_int_equal(rc, 2);
    assert_string_equal(msg, "-m: OSU's message-size range; mpibex takes --sizes "
                             "MIN:MAX[:FACTOR] (OSU's -m 1:4096 is --sizes 1:4KiB)");
    struct {
        const char *word, *flag, *names;
    } cases[] = {
        {"-m1:4096", "-m: ", "--sizes"},      {"--message-size=64", "-m: ", "--sizes"},
        {"-i1000", "-i: ", "--stop fixed:N"}, {"-x", "-x: ", "--warmup N"},
        {"-msglog", "-msglog: ", "--sizes"},  {"-iter", "-iter: ", "--nmax N"},
        {"-npmin", "-npmin: ", "--procs"},    {"-time", "-time: ", "--point-time SEC"},
        {"-W", "-W: ", "--param W"},          {"-off_cache", "-off_cache: ", "--cache cold"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        p = parser(&a, msg, sizeof msg);
        char *w[] = {(char *)cases[k].word, "1"};
        rc = mbx_opt_parse(&p, 2, w, 0);
        assert_int_equal(rc, 2);
        assert_int_equal(strncmp(msg, cases[k].flag, strlen(cases[k].flag)), 0);
        assert_non_null(strstr(msg, cases[k].names));
    }
    /* Not a habit: a one-letter flag glued to a word, an unknown word. */
    assert_null(mbx_opt_habit("-mfoo"));
    assert_null(mbx_opt_habit("-q"));
    assert_null(mbx_opt_habit("--sizes"));
    p = parser(&a, msg, sizeof msg);
    PARSE(p, "-f");
    assert_int_equal(rc, 0);
    assert_int_equal(a.force, 1);
}

/* The table: flags are dashed, each once; every line is one line. */
static void test_habit_table(void **state)
{
    (void)state;
    size_t n = 0;
    const mbx_opt_habit_row *t = mbx_opt_habits(&n);
    assert_true(n >= 8);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(t[i].flag[0], '-');
        assert_true(t[i].long_flag == NULL || strncmp(t[i].long_flag, "--", 2) == 0);
        assert_null(strchr(t[i].text, '\n'));
        assert_true(strlen(t[i].text) < 200);
        assert_ptr_equal(mbx_opt_habit(t[i].flag), &t[i]);
        for (size_t j = 0; j < i; j++)
            assert_true(strcmp(t[i].flag, t[j].flag) != 0);
    }
    const char *must[] = {"-m", "-i", "-x", "-f", "-msglog", "-iter", "-npmin", "-time"};
    for (size_t k = 0; k < sizeof must / sizeof must[0]; k++)
        assert_non_null(mbx_opt_habit(must[k]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_walk),
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_unknown_and_dashdash),
        cmocka_unit_test(test_stop),
        cmocka_unit_test(test_missing_and_empty),
        cmocka_unit_test(test_bad_cuts),
        cmocka_unit_test(test_output),
        cmocka_unit_test(test_suggest),
        cmocka_unit_test(test_suggest_in_walk),
        cmocka_unit_test(test_habits),
        cmocka_unit_test(test_habit_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
