/* A plan's keys of the whole run through `run`'s front end (cli.c,
 * mbx_cli_plan_run_keys): each key sets the field its option sets, a bad
 * value gets the option's line naming the key, the command line and
 * MPIBEX_RUN_OPTIONS win over the plan, the plan over the default, and
 * mbx_cli_thread_level reads thread_level before MPI starts. No MPI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifndef MBX_TMP_DIR
#error "compile with -DMBX_TMP_DIR=\"<build dir>\""
#endif

/* How a key's field is read back. */
enum { LONG, DBL, INT };

typedef struct key_case {
    const char *key, *good;
    size_t off;             /* the field in mbx_run_opts */
    int type;               /* LONG, DBL or INT */
    double want;            /* the field after key = good */
    const char *bad, *line; /* a bad value and its line after "k.ini: [a]: " */
} key_case;

#define F(field) offsetof(mbx_run_opts, field)

static const key_case cases[] = {
    {"passes", "7", F(passes), LONG, 7, "1", "passes: expected passes in 2..10000 (got '1')"},
    {"max_passes", "9", F(max_passes), LONG, 9, "10001",
     "max_passes: expected passes in 2..10000 (got '10001')"},
    {"span", "0", F(span), DBL, 0, "-1", "span: expected seconds in 0..86400 (got '-1')"},
    {"pass_ms", "2.5", F(pass_floor), DBL, 2.5e-3, "0",
     "pass_ms: expected milliseconds in 0.01..1000 (got '0')"},
    {"time_limit", "30", F(time_limit), DBL, 30, "x",
     "time_limit: expected seconds in 0..86400 (got 'x')"},
    {"watchdog", "5:3", F(watchdog_floor), DBL, 5, "0",
     "watchdog: expected off or SEC[:MULT], seconds in 0.5..86400 and a multiple in 2..1000 "
     "(got '0')"},
    {"settle", "0", F(settle), DBL, 0, "61", "settle: expected seconds in 0..60 (got '61')"},
    {"monitor", "off", F(monitor), INT, 0, "maybe", "monitor: expected on or off (got 'maybe')"},
    {"shift", "0.5", F(shift_rel), DBL, 0.5, "0",
     "shift: expected a relative change in 0.01..10 (got '0')"},
    {"order", "plan", F(order_plan), INT, 1, "random",
     "order: expected shuffle or plan (got 'random')"},
    {"clock_sync", "hca", F(method.clock.method), INT, MBX_CLOCKSYNC_HCA, "ntp",
     "clock_sync: expected jk or hca (got 'ntp')"},
    {"resync", "2", F(method.resync), DBL, 2, "0",
     "resync: expected seconds in 0.01..3600 (got '0')"},
    {"sync_span", "0.5", F(method.clock.span), DBL, 0.5, "601",
     "sync_span: expected seconds in 0.01..600 (got '601')"},
    {"window", "0.001", F(method.window), DBL, 0.001, "20",
     "window: expected auto or seconds in 1e-6..10 (got '20')"},
    {"window_delay", "0.002", F(method.window_delay), DBL, 0.002, "0",
     "window_delay: expected seconds in 1e-6..10 (got '0')"},
    {"window_limit", "5", F(method.window_limit), DBL, 5, "0.01",
     "window_limit: expected seconds in 0.1..86400 (got '0.01')"},
    {"thread_level", "multiple", F(thread_level), INT, MPI_THREAD_MULTIPLE, "many",
     "thread_level: expected single, funneled, serialized or multiple (got 'many')"},
    {"validate", "yes", F(validate), INT, 1, "maybe",
     "validate: expected on, off, yes or no (got 'maybe')"},
    {"raw", "on", F(raw), INT, 1, "1", "raw: expected on, off, yes or no (got '1')"},
    /* The keys of the whole run that existed before the timer, seed and warmup. */
    {"sync", "window", F(method.sync), INT, MBX_SYNC_WINDOW, "sideways",
     "sync: expected barrier or window (got 'sideways')"},
    {"cache", "cold", F(method.cache), INT, MBX_CACHE_COLD, "hot",
     "cache: expected warm, cold or cold:SIZE (got 'hot')"},
    {"timer", "wtime", F(timer), INT, MBX_TIMER_WTIME, "sundial",
     "timer: expected clock, wtime or tsc (got 'sundial')"},
    {"warmup", "300", F(warmup), LONG, 300, "0",
     "warmup: expected round trips in 1..1000000 (got '0')"},
};

static double field(const mbx_run_opts *o, const key_case *c)
{
    const char *p = (const char *)o + c->off;
    long l;
    double d;
    int i;
    if (c->type == LONG)
        return memcpy(&l, p, sizeof l), (double)l;
    if (c->type == DBL)
        return memcpy(&d, p, sizeof d), d;
    return memcpy(&i, p, sizeof i), (double)i;
}

/* Parses plan text as k.ini, then `run k.ini ARGS...` over it: the code
 * of mbx_cli_plan_run_keys (0 or 2), its message in msg. */
static int run_keys(const char *text, mbx_run_opts *o, char *msg, size_t len, int argc, char **argv)
{
    mbx_plan *plan = calloc(1, sizeof *plan);
    assert_non_null(plan);
    assert_int_equal(mbx_plan_parse(text, "k.ini", plan, msg, len), MBX_OK);
    assert_int_equal(mbx_cli_parse_run(argc, argv, o, msg, len), 0);
    int rc = mbx_cli_plan_run_keys(o, plan, "k.ini", msg, len);
    free(plan);
    return rc;
}

static void one_key(const key_case *c, const char *value, mbx_run_opts *o, char *msg, size_t len,
                    int want_rc)
{
    char text[256], k[] = "k.ini";
    char *argv[] = {k};
    snprintf(text, sizeof text, "[a]\nbench = pingpong.send_recv\n%s = %s\n", c->key, value);
    int rc = run_keys(text, o, msg, len, 1, argv);
    if (rc != want_rc)
        fail_msg("%s = %s: code %d, not %d (%s)", c->key, value, rc, want_rc, msg);
}

/* Every key: its good value reaches the option's field, its bad value is
 * refused with the option's line naming the key. */
static void test_each_key(void **state)
{
    (void)state;
    mbx_run_opts o, def;
    char msg[512], want[512];
    char *none[] = {NULL};
    assert_int_equal(mbx_cli_parse_run(0, none, &def, msg, sizeof msg), 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const key_case *c = &cases[i];
        assert_true(field(&def, c) != c->want); /* the key changes something */
        one_key(c, c->good, &o, msg, sizeof msg, 0);
        if (field(&o, c) != c->want)
            fail_msg("%s = %s: field %g, not %g", c->key, c->good, field(&o, c), c->want);
        one_key(c, c->bad, &o, msg, sizeof msg, 2);
        snprintf(want, sizeof want, "k.ini: [a]: %s", c->line);
        assert_string_equal(msg, want);
    }
}

/* Every key of the whole run has a case here. */
static void test_every_key_has_a_case(void **state)
{
    (void)state;
    for (int k = 0; k < MBX_PLAN_RUN_KEYS; k++) {
        const char *key = mbx_plan_run_key(k);
        int found = 0;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            found |= strcmp(cases[i].key, key) == 0;
        if (!found && strcmp(key, "seed") != 0) /* seed: test_seed */
            fail_msg("run key %s has no case in test_run_keys.c", key);
    }
    assert_null(mbx_plan_run_key(MBX_PLAN_RUN_KEYS));
    assert_int_equal(mbx_plan_run_key_index("max_passes"), 6);
    assert_int_equal(mbx_plan_run_key_index("bench"), -1);
}

static void test_seed(void **state)
{
    (void)state;
    mbx_run_opts o;
    char msg[512], k[] = "k.ini";
    char *argv[] = {k};
    assert_int_equal(run_keys("[a]\nbench = x\nseed = 4242\n", &o, msg, sizeof msg, 1, argv), 0);
    assert_true(o.have_seed && o.seed == 4242);
    assert_int_equal(run_keys("[a]\nbench = x\nseed = -1\n", &o, msg, sizeof msg, 1, argv), 2);
    assert_string_equal(
        msg, "k.ini: [a]: seed: expected a whole number 0..18446744073709551615 (got '-1')");
}

/* The flags' off and no leave them off; a plan without a key keeps the
 * default. */
static void test_flags_off(void **state)
{
    (void)state;
    mbx_run_opts o;
    char msg[512], k[] = "k.ini";
    char *argv[] = {k};
    assert_int_equal(
        run_keys("[a]\nbench = x\nvalidate = no\nraw = off\n", &o, msg, sizeof msg, 1, argv), 0);
    assert_false(o.validate || o.raw);
    assert_int_equal(run_keys("[a]\nbench = x\n", &o, msg, sizeof msg, 1, argv), 0);
    assert_true(o.passes == 0 && o.span < 0 && o.monitor == 1 && !o.order_plan);
    assert_string_equal(o.plan_path, "k.ini");
}

/* The command line wins over the plan; MPIBEX_RUN_OPTIONS too, and the
 * command line over it. */
static void test_command_line_wins(void **state)
{
    (void)state;
    mbx_run_opts o;
    char msg[512];
    char a0[] = "k.ini", a1[] = "--passes", a2[] = "7", a3[] = "--order=shuffle", a4[] = "--raw";
    char *argv[] = {a0, a1, a2, a3, a4};
    const char *plan = "[a]\nbench = pingpong.send_recv\npasses = 3\norder = plan\nspan = 0\n"
                       "max_passes = 20\nraw = no\n[b]\nbench = coll.bcast\nspan = 0\n";
    assert_int_equal(run_keys(plan, &o, msg, sizeof msg, 5, argv), 0);
    assert_int_equal(o.passes, 7);
    assert_false(o.order_plan);
    assert_true(o.raw);
    assert_true(o.span == 0 && o.max_passes == 20); /* the plan's, over the default */
    assert_string_equal(o.plan_path, "k.ini");
    assert_int_equal(setenv("MPIBEX_RUN_OPTIONS", "--max-passes 6 --passes 4", 1), 0);
    assert_int_equal(run_keys(plan, &o, msg, sizeof msg, 5, argv), 0);
    unsetenv("MPIBEX_RUN_OPTIONS");
    assert_int_equal(o.max_passes, 6);
    assert_int_equal(o.passes, 7);
}

static void test_sections_agree(void **state)
{
    (void)state;
    mbx_run_opts o;
    char msg[512], k[] = "k.ini";
    char *argv[] = {k};
    assert_int_equal(run_keys("[a]\nbench = x\ntime_limit = 5\n[b]\nbench = y\ntime_limit = 6\n",
                              &o, msg, sizeof msg, 1, argv),
                     2);
    assert_string_equal(msg, "k.ini: [b]: time_limit: '6', but [a] says '5'; time_limit applies "
                             "to the whole run, so every section that gives it must agree");
}

/* Before MPI: --thread-level, else the plan's thread_level, else single. */
static void test_thread_level_before_mpi(void **state)
{
    (void)state;
    char path[512] = MBX_TMP_DIR "/run_keys_tl.ini";
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("[a]\nbench = pingpong.mt\nthread_level = multiple\n", f);
    assert_int_equal(fclose(f), 0);
    char opt[] = "--thread-level", single[] = "single", bad[] = "--nope";
    char *with_plan[] = {path};
    char *both[] = {path, opt, single};
    char *broken[] = {path, bad};
    assert_int_equal(mbx_cli_thread_level(1, with_plan), MPI_THREAD_MULTIPLE);
    assert_int_equal(mbx_cli_thread_level(3, both), MPI_THREAD_SINGLE);
    assert_int_equal(mbx_cli_thread_level(2, broken), MPI_THREAD_SINGLE);
    assert_int_equal(mbx_cli_thread_level(0, with_plan), MPI_THREAD_SINGLE);
    remove(path);
}

int main(void)
{
    unsetenv("MPIBEX_RUN_OPTIONS");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_key),
        cmocka_unit_test(test_every_key_has_a_case),
        cmocka_unit_test(test_seed),
        cmocka_unit_test(test_flags_off),
        cmocka_unit_test(test_command_line_wins),
        cmocka_unit_test(test_sections_agree),
        cmocka_unit_test(test_thread_level_before_mpi),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
