/* Unit tests for plans: a measurement's keys and their values, the checks
 * of the whole, the samples. Plan files, loading and overrides are in
 * test_plan_file.c. mbx_plan is about 2 MiB, so every plan here lives on
 * the heap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mbx/plan.h"
#include "mbx/rma.h"

#ifndef MBX_SAMPLES_DIR
#error "compile with -DMBX_SAMPLES_DIR=\"<repo>/samples\""
#endif

#include "plan_helpers.h"

static mbx_measurement *new_meas(void)
{
    mbx_measurement *m = malloc(sizeof *m);
    assert_non_null(m);
    mbx_measurement_defaults(m, "m");
    return m;
}

static void assert_doubling(const mbx_size_list *s, uint64_t lo, uint64_t hi, uint64_t factor)
{
    size_t i = 0;
    for (uint64_t v = lo; v < hi; v *= factor) {
        assert_true(i < s->n);
        assert_int_equal(s->v[i++], v);
    }
    assert_int_equal(s->v[i++], hi);
    assert_int_equal(s->n, i);
}

static void assert_stderr_3pct(const mbx_measurement *m)
{
    assert_int_equal(m->stop.kind, MBX_STOP_STDERR);
    assert_true(fabs(m->stop.eps - 0.03) < 1e-12);
}

static void test_defaults(void **state)
{
    (void)state;
    mbx_measurement *m = new_meas();
    assert_string_equal(m->label, "m");
    assert_int_equal(m->nbench, 0);
    /* From 0 B, then 1 B to 4 MiB doubling. */
    assert_int_equal(m->sizes.n, 24);
    assert_int_equal(m->sizes.v[0], 0);
    assert_int_equal(m->sizes_given, 0);
    for (size_t i = 1; i < m->sizes.n; i++)
        assert_int_equal(m->sizes.v[i], (uint64_t)1 << (i - 1));
    assert_int_equal(m->stop.kind, MBX_STOP_STDERR);
    assert_true(m->stop.eps == MBX_STOP_DEFAULT_EPS);
    assert_int_equal(m->nmin, MBX_NMIN_DEFAULT);
    assert_int_equal(m->nmax, MBX_NMAX_DEFAULT);
    mbx_measurement_defaults(m, NULL);
    assert_string_equal(m->label, "");
    free(m);
}

static void test_set_valid(void **state)
{
    (void)state;
    mbx_measurement *m = new_meas();
    char msg[512] = "";
    assert_int_equal(
        mbx_measurement_set(m, "bench", " pingpong.send_recv ,coll.bcast", msg, sizeof msg),
        MBX_OK);
    assert_int_equal(m->nbench, 2);
    assert_string_equal(m->bench[0], "pingpong.send_recv");
    assert_string_equal(m->bench[1], "coll.bcast");
    assert_int_equal(mbx_measurement_set(m, "bench", "x_1", msg, sizeof msg), MBX_OK);
    assert_int_equal(m->nbench, 1); /* replaces, does not append */
    assert_int_equal(mbx_measurement_set(m, "sizes", "1,8,64K", msg, sizeof msg), MBX_OK);
    assert_int_equal(m->sizes.n, 3);
    assert_int_equal(m->sizes.v[2], 65536);
    assert_int_equal(mbx_measurement_set(m, "stop", "cv:5%", msg, sizeof msg), MBX_OK);
    assert_int_equal(m->stop.kind, MBX_STOP_CV);
    assert_true(fabs(m->stop.eps - 0.05) < 1e-12);
    assert_int_equal(mbx_measurement_set(m, "stop", "fixed:100", msg, sizeof msg), MBX_OK);
    assert_int_equal(m->stop.kind, MBX_STOP_FIXED);
    assert_int_equal(m->stop.fixed, 100);
    assert_int_equal(mbx_measurement_set(m, "nmin", " 1 ", msg, sizeof msg), MBX_OK);
    assert_int_equal(m->nmin, 1);
    assert_int_equal(mbx_measurement_set(m, "nmax", "10000000", msg, sizeof msg), MBX_OK);
    assert_int_equal(m->nmax, MBX_NMAX_LIMIT);
    free(m);
}

static void set_bad(mbx_measurement *m, const char *key, const char *value, int rc,
                    const char *want)
{
    char msg[512] = "";
    assert_int_equal(mbx_measurement_set(m, key, value, msg, sizeof msg), rc);
    if (strncmp(msg, want, strlen(want)) != 0) {
        fail_msg("%s = %s: message \"%s\" does not start with \"%s\"", key, value, msg, want);
    }
}

static void test_set_invalid(void **state)
{
    (void)state;
    mbx_measurement *m = new_meas();
    const char *count = "expected an integer in 1..10000000";
    char want[128];
    snprintf(want, sizeof want, "nmin: %s", count);
    set_bad(m, "nmin", "0", MBX_E_INVAL, want);
    set_bad(m, "nmin", "10000001", MBX_E_INVAL, want);
    set_bad(m, "nmin", "99999999999999999999999", MBX_E_INVAL, want);
    set_bad(m, "nmin", "-1", MBX_E_INVAL, want);
    set_bad(m, "nmin", "1.5", MBX_E_INVAL, want);
    set_bad(m, "nmin", "abc", MBX_E_INVAL, want);
    snprintf(want, sizeof want, "nmax: %s", count);
    set_bad(m, "nmax", "0x10", MBX_E_INVAL, want);
    set_bad(m, "nmax", "", MBX_E_INVAL, "nmax: empty value");
    set_bad(m, "nmax", "  ", MBX_E_INVAL, "nmax: empty value");
    assert_int_equal(m->nmin, MBX_NMIN_DEFAULT);
    assert_int_equal(m->nmax, MBX_NMAX_DEFAULT);

    set_bad(m, "colour", "red", MBX_E_UNKNOWN,
            "colour: unknown key; allowed keys: bench, sizes, stop, nmin, nmax");
    set_bad(m, "Bench", "x", MBX_E_UNKNOWN, "Bench: unknown key (did you mean bench?)");
    set_bad(m, "nmin", NULL, MBX_E_INVAL, "nmin: ");

    assert_int_equal(mbx_measurement_set(m, "bench", "a,b", NULL, 0), MBX_OK);
    set_bad(m, "bench", "Ping/x", MBX_E_INVAL, "bench: bad benchmark name \"Ping/x\"");
    /* Capitals pass here (IMB's "PingPong"): the registry answers them. */
    assert_int_equal(mbx_measurement_set(m, "bench", "PingPong", NULL, 0), MBX_OK);
    set_bad(m, "bench", "a,,b", MBX_E_INVAL, "bench: bad benchmark name \"\"");
    set_bad(m, "bench", "a b", MBX_E_INVAL, "bench: bad benchmark name \"a b\"");
    set_bad(m, "bench", "a,", MBX_E_INVAL, "bench: bad benchmark name");
    set_bad(m, "bench", "x, y ,x", MBX_E_INVAL, "bench: benchmark \"x\" is listed twice");
    /* Groups and globs are kept as written; the front end expands them. */
    assert_int_equal(mbx_measurement_set(m, "bench", "coll.i*, pingpong, rma.[gp]?t", NULL, 0),
                     MBX_OK);
    assert_int_equal(m->nbench, 3);
    assert_string_equal(m->bench[0], "coll.i*");
    assert_string_equal(m->bench[2], "rma.[gp]?t");
    set_bad(m, "bench", "coll.*/x", MBX_E_INVAL, "bench: bad benchmark name \"coll.*/x\"");
    assert_int_equal(mbx_measurement_set(m, "bench", "a,b", NULL, 0), MBX_OK);
    assert_int_equal(m->nbench, 2); /* a bad list leaves the old one */
    assert_string_equal(m->bench[1], "b");

    char name[MBX_NAME_MAX + 1];
    memset(name, 'n', MBX_NAME_MAX - 1);
    name[MBX_NAME_MAX - 1] = '\0';
    assert_int_equal(mbx_measurement_set(m, "bench", name, NULL, 0), MBX_OK);
    strcat(name, "n");
    set_bad(m, "bench", name, MBX_E_INVAL, "bench: bad benchmark name");

    char list[MBX_PLAN_MAX_BENCH * 8 + 16] = "";
    for (int i = 0; i < MBX_PLAN_MAX_BENCH; i++) {
        snprintf(list + strlen(list), sizeof list - strlen(list), "%sb%d", i ? "," : "", i);
    }
    assert_int_equal(mbx_measurement_set(m, "bench", list, NULL, 0), MBX_OK);
    assert_int_equal(m->nbench, MBX_PLAN_MAX_BENCH);
    strcat(list, ",extra");
    set_bad(m, "bench", list, MBX_E_INVAL, "bench: too many benchmarks; at most 256");

    set_bad(m, "sizes", "8,1", MBX_E_INVAL, "sizes: a list must be strictly ascending");
    set_bad(m, "sizes", "64KiB:1KiB", MBX_E_INVAL,
            "sizes: reversed range: MIN (64KiB) > MAX (1KiB)");
    assert_int_equal(m->sizes.n, 24); /* untouched: the default 0:4MiB:2 */
    set_bad(m, "stop", "bogus", MBX_E_INVAL, "stop: ");
    set_bad(m, "stop", "cv:2", MBX_E_INVAL, "stop: ");
    assert_int_equal(m->stop.kind, MBX_STOP_STDERR);
    free(m);
}

static void test_check(void **state)
{
    (void)state;
    mbx_measurement *m = new_meas();
    char msg[256] = "";
    assert_int_equal(mbx_measurement_check(m, msg, sizeof msg), MBX_E_INVAL);
    assert_string_equal(msg, "bench: required");
    m->nbench = 1;
    strcpy(m->bench[0], "x");
    assert_int_equal(mbx_measurement_check(m, msg, sizeof msg), MBX_OK);
    m->nmin = 50;
    m->nmax = 20;
    assert_int_equal(mbx_measurement_check(m, msg, sizeof msg), MBX_E_INVAL);
    assert_string_equal(msg, "nmin: 50 is larger than nmax (20)");
    m->nmin = 20;
    assert_int_equal(mbx_measurement_check(m, NULL, 0), MBX_OK);
    free(m);
}

static void test_sample_pingpong(void **state)
{
    (void)state;
    mbx_plan *p = load_ok(MBX_SAMPLES_DIR "/pingpong.ini");
    assert_int_equal(p->nmeas, 1);
    const mbx_measurement *m = &p->meas[0];
    assert_string_equal(m->label, "pingpong");
    assert_int_equal(m->nbench, 1);
    assert_string_equal(m->bench[0], "pingpong.send_recv");
    assert_int_equal(m->sizes.n, 23);
    assert_int_equal(m->sizes.v[0], 1);
    assert_int_equal(m->sizes.v[22], 4194304);
    assert_doubling(&m->sizes, 1, 4194304, 2);
    assert_stderr_3pct(m);
    assert_int_equal(m->nmin, 16);
    assert_int_equal(m->nmax, 20000);
    free(p);
}

static void test_sample_quick(void **state)
{
    (void)state;
    mbx_plan *p = load_ok(MBX_SAMPLES_DIR "/quick.ini");
    assert_int_equal(p->nmeas, 2);
    const mbx_measurement *lat = &p->meas[0], *coll = &p->meas[1];
    assert_string_equal(lat->label, "latency");
    assert_int_equal(lat->nbench, 2);
    assert_string_equal(lat->bench[0], "pingpong.send_recv");
    assert_string_equal(lat->bench[1], "pingpong.isend_recv");
    assert_int_equal(lat->sizes.n, 9);
    assert_doubling(&lat->sizes, 1, 65536, 4);
    assert_stderr_3pct(lat);
    assert_int_equal(lat->nmin, 16);
    assert_int_equal(lat->nmax, 20000);

    assert_string_equal(coll->label, "collectives");
    assert_int_equal(coll->nbench, 3);
    assert_string_equal(coll->bench[0], "coll.barrier");
    assert_string_equal(coll->bench[1], "coll.bcast");
    assert_string_equal(coll->bench[2], "coll.allreduce");
    assert_int_equal(coll->sizes.n, 6);
    assert_doubling(&coll->sizes, 8, 65536, 8);
    assert_stderr_3pct(coll);
    assert_int_equal(coll->nmin, MBX_NMIN_DEFAULT);
    assert_int_equal(coll->nmax, MBX_NMAX_DEFAULT);
    free(p);
}

/* rma_sync: the one-sided sync mode, 0 (lock_all) by default, a key of
 * plan files and an override named --rma-sync. */
static void test_rma_sync_key(void **state)
{
    (void)state;
    mbx_measurement *m = malloc(sizeof *m);
    assert_non_null(m);
    mbx_measurement_defaults(m, "x");
    assert_int_equal(m->rma_sync, MBX_RMA_DEFAULT);
    assert_string_equal(mbx_rma_sync_name(mbx_rma_sync_resolve(m->rma_sync)), "lock_all");
    const char *words[] = {"fence", "lock", "lock_all", "pscw"};
    const int modes[] = {MBX_RMA_FENCE, MBX_RMA_LOCK, MBX_RMA_LOCK_ALL, MBX_RMA_PSCW};
    char msg[512] = "";
    for (int i = 0; i < 4; i++) {
        assert_int_equal(mbx_measurement_set(m, "rma_sync", words[i], msg, sizeof msg), MBX_OK);
        assert_int_equal(m->rma_sync, modes[i]);
        assert_string_equal(mbx_rma_sync_name(m->rma_sync), words[i]);
    }
    set_bad(m, "rma_sync", "flush", MBX_E_INVAL,
            "rma_sync: expected fence, lock, lock_all or pscw (got 'flush')");
    assert_int_equal(m->rma_sync, MBX_RMA_PSCW); /* a bad value changes nothing */
    free(m);

    mbx_plan *p = new_plan();
    assert_int_equal(
        mbx_plan_parse("[a]\nbench = rma.put\nrma_sync = fence\n[b]\nbench = rma.get\n", "t.ini", p,
                       msg, sizeof msg),
        MBX_OK);
    assert_int_equal(p->meas[0].rma_sync, MBX_RMA_FENCE);
    assert_int_equal(p->meas[1].rma_sync, MBX_RMA_DEFAULT);
    assert_int_equal(
        mbx_plan_parse("[a]\nbench = rma.put\nrma_sync = Fence\n", "t.ini", p, msg, sizeof msg),
        MBX_E_INVAL);
    assert_string_equal(msg,
                        "t.ini:3: rma_sync: expected fence, lock, lock_all or pscw (got 'Fence')");
    assert_int_equal(mbx_plan_parse("[a]\nbench = rma.put\n", "t.ini", p, msg, sizeof msg), MBX_OK);
    mbx_plan_overrides ov = {.rma_sync = "pscw"};
    assert_int_equal(mbx_plan_override(p, &ov, msg, sizeof msg), MBX_OK);
    assert_int_equal(p->meas[0].rma_sync, MBX_RMA_PSCW);
    ov = (mbx_plan_overrides){.rma_sync = "nope"};
    assert_int_equal(mbx_plan_override(p, &ov, msg, sizeof msg), MBX_E_INVAL);
    assert_string_equal(msg, "--rma-sync: expected fence, lock, lock_all or pscw (got 'nope')");
    free(p);
}

/* The SKaMPI keys: process counts, parameters, root, pair, refinement. */
/* Each SKaMPI key set and read back in turn (over 80 lines): a list of cases, not logic. */
static void test_skampi_keys(void **state)
{
    (void)state;
    mbx_measurement *m = new_meas();
    char msg[512];
    assert_true(m->procs_all);
    assert_true(m->pair_auto);
    assert_int_equal(m->budget, MBX_BUDGET_DEFAULT);
    assert_true(m->refine == 0.0);

    assert_int_equal(mbx_measurement_set(m, "procs", "2,3,8", msg, sizeof msg), MBX_OK);
    assert_false(m->procs_all);
    assert_false(m->procs_range);
    assert_int_equal(m->nprocs, 3);
    assert_int_equal(m->procs[2], 8);
    /* A range is a factor-2 grid with its end included. */
    assert_int_equal(mbx_measurement_set(m, "procs", "3:20", msg, sizeof msg), MBX_OK);
    assert_true(m->procs_range);
    int want[] = {3, 6, 12, 20};
    assert_int_equal(m->nprocs, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(m->procs[i], want[i]);
    assert_int_equal(mbx_measurement_set(m, "procs", "2:8:1.5", msg, sizeof msg), MBX_OK);
    int want15[] = {2, 3, 5, 7, 8}; /* 2, 3, 4.5, 6.75 rounded, then 8 */
    assert_int_equal(m->nprocs, 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(m->procs[i], want15[i]);
    assert_int_equal(mbx_measurement_set(m, "procs", "all", msg, sizeof msg), MBX_OK);
    assert_true(m->procs_all);
    set_bad(m, "procs", "0", MBX_E_INVAL, "procs: expected all, a list");
    set_bad(m, "procs", "4,2", MBX_E_INVAL, "procs: process counts must increase (2 after 4)");
    set_bad(m, "procs", "8:2", MBX_E_INVAL, "procs: expected all, a list");
    set_bad(m, "procs", "2:8:1", MBX_E_INVAL, "procs: range factor F must be");

    assert_int_equal(mbx_measurement_set(m, "param", "1, 16,256", msg, sizeof msg), MBX_OK);
    assert_int_equal(m->nparam, 3);
    assert_int_equal(m->param[1], 16);
    set_bad(m, "param", "0", MBX_E_INVAL, "param: expected a list");
    set_bad(m, "param", "x", MBX_E_INVAL, "param: expected a list");
    /* Parameters take the same ranges as process counts. */
    assert_int_equal(mbx_measurement_set(m, "param", "1:12", msg, sizeof msg), MBX_OK);
    int64_t wantp[] = {1, 2, 4, 8, 12};
    assert_int_equal(m->nparam, 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(m->param[i], wantp[i]);
    assert_int_equal(mbx_measurement_set(m, "param", "3:3", msg, sizeof msg), MBX_OK);
    assert_int_equal(m->nparam, 1);
    assert_int_equal(m->param[0], 3);
    set_bad(m, "param", "8:2", MBX_E_INVAL, "param: expected a list like 1,2,4 or a range");
    set_bad(m, "param", "0:4", MBX_E_INVAL, "param: expected a list like 1,2,4 or a range");
    set_bad(m, "param", "1:8:0.5", MBX_E_INVAL, "param: range factor F must be");
    /* A range longer than the list may hold is cut, its end kept. */
    assert_int_equal(mbx_measurement_set(m, "param", "1:100000:1.1", msg, sizeof msg), MBX_OK);
    assert_int_equal(m->nparam, MBX_PLAN_MAX_PARAM);
    assert_int_equal(m->param[MBX_PLAN_MAX_PARAM - 1], 100000);

    assert_int_equal(mbx_measurement_set(m, "root", "3", msg, sizeof msg), MBX_OK);
    assert_int_equal(m->root, 3);
    set_bad(m, "root", "-1", MBX_E_INVAL, "root: expected a rank in 0..");

    assert_int_equal(mbx_measurement_set(m, "pair", "0, 5", msg, sizeof msg), MBX_OK);
    assert_false(m->pair_auto);
    assert_int_equal(m->pair_a, 0);
    assert_int_equal(m->pair_b, 5);
    set_bad(m, "pair", "2,2", MBX_E_INVAL, "pair: expected auto or two different ranks");
    set_bad(m, "pair", "2", MBX_E_INVAL, "pair: expected auto or two different ranks");
    assert_int_equal(mbx_measurement_set(m, "pair", "auto", msg, sizeof msg), MBX_OK);
    assert_true(m->pair_auto);

    assert_int_equal(mbx_measurement_set(m, "refine", "5%", msg, sizeof msg), MBX_OK);
    assert_float_equal(m->refine, 0.05, 1e-12);
    assert_int_equal(mbx_measurement_set(m, "refine", "0.1", msg, sizeof msg), MBX_OK);
    assert_float_equal(m->refine, 0.1, 1e-12);
    assert_int_equal(mbx_measurement_set(m, "refine", "off", msg, sizeof msg), MBX_OK);
    assert_true(m->refine == 0.0);
    set_bad(m, "refine", "1", MBX_E_INVAL, "refine: expected off or EPS with 0 < EPS < 1");
    set_bad(m, "refine", "5%x", MBX_E_INVAL, "refine: expected off or EPS");

    assert_int_equal(mbx_measurement_set(m, "budget", "0", msg, sizeof msg), MBX_OK);
    assert_int_equal(m->budget, 0);
    set_bad(m, "budget", "10001", MBX_E_INVAL, "budget: expected an integer in 0..10000");

    /* And from a plan file. */
    mbx_plan *p = calloc(1, sizeof *p);
    assert_non_null(p);
    assert_int_equal(mbx_plan_parse("[mw]\nbench = mw.send\nprocs = 2:4\nparam = 4,8\n"
                                    "root = 1\nrefine = 10%\nbudget = 5\n",
                                    "t.ini", p, msg, sizeof msg),
                     MBX_OK);
    assert_int_equal(p->meas[0].nprocs, 2);
    assert_int_equal(p->meas[0].nparam, 2);
    assert_int_equal(p->meas[0].root, 1);
    assert_int_equal(p->meas[0].budget, 5);
    free(p);
    free(m);
}

/* The keys of the whole run (every `run` option but -o, --force,
 * --resume, --fake, -q, -h): each in run_key[] at its index, as written;
 * the unknown key's line lists every key and suggests a near one. */
static void test_run_keys(void **state)
{
    (void)state;
    static const char *const want[] = {
        "sync",       "cache",        "timer",        "seed",         "warmup",   "passes",
        "max_passes", "span",         "pass_ms",      "time_limit",   "watchdog", "settle",
        "monitor",    "shift",        "order",        "clock_sync",   "resync",   "sync_span",
        "window",     "window_delay", "window_limit", "thread_level", "validate", "raw"};
    assert_int_equal(MBX_PLAN_RUN_KEYS, sizeof want / sizeof want[0]);
    mbx_measurement *m = new_meas();
    char msg[1024];
    for (int k = 0; k < MBX_PLAN_RUN_KEYS; k++) {
        assert_string_equal(mbx_plan_run_key(k), want[k]);
        assert_int_equal(mbx_plan_run_key_index(want[k]), k);
        assert_int_equal(mbx_measurement_set(m, want[k], " 12.5 ", msg, sizeof msg), MBX_OK);
        assert_string_equal(m->run_key[k], "12.5");
        char line[64];
        snprintf(line, sizeof line, "%s: empty value", want[k]);
        set_bad(m, want[k], "  ", MBX_E_INVAL, line);
    }
    assert_int_equal(mbx_plan_run_key_index("sizes"), -1);
    assert_null(mbx_plan_run_key(-1));
    set_bad(m, "max_pases", "3", MBX_E_UNKNOWN,
            "max_pases: unknown key (did you mean max_passes?); allowed keys: bench, sizes");
    assert_int_equal(mbx_measurement_set(m, "x", "1", msg, sizeof msg), MBX_E_UNKNOWN);
    assert_non_null(
        strstr(msg, ", point_time, sync, cache, timer, seed, warmup, passes, "
                    "max_passes, span, pass_ms, time_limit, watchdog, settle, monitor, shift, "
                    "order, clock_sync, resync, sync_span, window, window_delay, "
                    "window_limit, thread_level, validate, raw"));
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),        cmocka_unit_test(test_set_valid),
        cmocka_unit_test(test_set_invalid),     cmocka_unit_test(test_check),
        cmocka_unit_test(test_sample_pingpong), cmocka_unit_test(test_sample_quick),
        cmocka_unit_test(test_skampi_keys),     cmocka_unit_test(test_rma_sync_key),
        cmocka_unit_test(test_run_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
