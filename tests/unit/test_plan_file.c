/* Unit tests for plans: INI parsing, loading and the command-line
 * overrides (a measurement's keys are in test_plan.c). mbx_plan is about
 * 2 MiB, so every plan here lives on the heap. */
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

static void test_parse_syntax(void **state)
{
    (void)state;
    mbx_plan *p = new_plan();
    char msg[512] = "";
    const char *text = "  # comment\r\n"
                       "; another\r\n"
                       "   \t \r\n"
                       "[ Lat.ency_1-b ]\r\n"
                       "bench=a\r\n"
                       "  nmax\t=  7  \r\n"
                       "  nmin = 7\r\n"
                       "[b]\n"
                       "bench = c.d, e\n"
                       "stop = fixed:5"; /* no final newline */
    if (mbx_plan_parse(text, "t.ini", p, msg, sizeof msg) != MBX_OK) {
        fail_msg("%s", msg);
    }
    assert_int_equal(p->nmeas, 2);
    assert_string_equal(p->meas[0].label, "Lat.ency_1-b");
    assert_string_equal(p->meas[0].bench[0], "a");
    assert_int_equal(p->meas[0].nmin, 7);
    assert_int_equal(p->meas[0].nmax, 7);
    assert_int_equal(p->meas[0].sizes.n, 24); /* the default, from 0 */
    assert_string_equal(p->meas[1].label, "b");
    assert_int_equal(p->meas[1].nbench, 2);
    assert_string_equal(p->meas[1].bench[1], "e");
    assert_int_equal(p->meas[1].stop.kind, MBX_STOP_FIXED);
    assert_int_equal(p->meas[1].stop.fixed, 5);
    free(p);
}

static void parse_bad(const char *text, int rc, const char *want)
{
    mbx_plan *p = new_plan();
    char msg[1024] = "";
    assert_int_equal(mbx_plan_parse(text, "t.ini", p, msg, sizeof msg), rc);
    if (strncmp(msg, want, strlen(want)) != 0) {
        fail_msg("message \"%s\" does not start with \"%s\"", msg, want);
    }
    assert_null(strchr(msg, '\n'));
    free(p);
}

static void test_parse_errors(void **state)
{
    (void)state;
    parse_bad("bench = x\n", MBX_E_INVAL,
              "t.ini:1: bench: key outside a section; start one with [label]");
    parse_bad("[a]\nbench = x\nsizse = 8\n", MBX_E_UNKNOWN,
              "t.ini:3: sizse: unknown key (did you mean sizes?); allowed keys: bench, sizes");
    parse_bad("[a]\nbench = x\ncolour = red\n", MBX_E_UNKNOWN,
              "t.ini:3: colour: unknown key; allowed keys: bench, sizes, stop, nmin, nmax");
    parse_bad("[a]\nbench = x\n\nbench = y\n", MBX_E_INVAL,
              "t.ini:4: bench: duplicate key in [a] (first at line 2)");
    parse_bad("[a]\nbench = x\n[a]\nbench = y\n", MBX_E_INVAL,
              "t.ini:3: duplicate section [a] (first at line 1)");
    parse_bad("[a]\nbench x\n", MBX_E_INVAL,
              "t.ini:2: expected key = value, a [section] header or a # comment");
    parse_bad("[a]\n= x\n", MBX_E_INVAL, "t.ini:2: missing key before '='");
    parse_bad("[a]\nbench =\n", MBX_E_INVAL, "t.ini:2: bench: empty value");
    parse_bad("[a]\nbench = x\nnmin = 0\n", MBX_E_INVAL,
              "t.ini:3: nmin: expected an integer in 1..10000000");
    parse_bad("[a]\nbench = x\nsizes = 64KiB:1KiB\n", MBX_E_INVAL,
              "t.ini:3: sizes: reversed range: MIN (64KiB) > MAX (1KiB)");
    parse_bad("[a]\nbench = x\nstop = often\n", MBX_E_INVAL, "t.ini:3: stop: ");
    parse_bad("[a]\nbench = X:\n", MBX_E_INVAL, "t.ini:2: bench: bad benchmark name \"X:\"");
    parse_bad("[a]\nsizes = 1:8\n", MBX_E_INVAL, "t.ini: [a]: bench: required");
    parse_bad("[a]\nnmin = 3\n[b]\nbench = x\n", MBX_E_INVAL, "t.ini: [a]: bench: required");
    parse_bad("[a]\nbench = x\nnmin = 50\nnmax = 20\n", MBX_E_INVAL,
              "t.ini: [a]: nmin: 50 is larger than nmax (20)");
    /* fixed:N wins at run time, but nmin/nmax are still checked. */
    parse_bad("[a]\nbench = x\nstop = fixed:100\nnmin = 50\nnmax = 20\n", MBX_E_INVAL,
              "t.ini: [a]: nmin: 50 is larger than nmax (20)");
    parse_bad("[a b]\n", MBX_E_INVAL, "t.ini:1: bad section label [a b]");
    parse_bad("[]\n", MBX_E_INVAL, "t.ini:1: bad section label []");
    parse_bad("[a\nbench = x\n", MBX_E_INVAL, "t.ini:1: expected a section header like [label]");
    parse_bad("", MBX_E_INVAL, "t.ini: no measurements");
    parse_bad("# nothing\n\n", MBX_E_INVAL, "t.ini: no measurements");

    char label[MBX_NAME_MAX + 8];
    memset(label, 'L', MBX_NAME_MAX);
    label[0] = '[';
    strcpy(label + MBX_NAME_MAX, "]\n"); /* MBX_NAME_MAX - 1 characters: fits */
    char text[256];
    snprintf(text, sizeof text, "%sbench = x\n", label);
    mbx_plan *p = new_plan();
    assert_int_equal(mbx_plan_parse(text, "t.ini", p, NULL, 0), MBX_OK);
    assert_int_equal(strlen(p->meas[0].label), MBX_NAME_MAX - 1);
    free(p);
    snprintf(text, sizeof text, "[L%sbench = x\n", label + 1);
    parse_bad(text, MBX_E_INVAL, "t.ini:1: bad section label");
}

static void test_parse_limits(void **state)
{
    (void)state;
    size_t cap = 64 * 1024;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t pos = 0;
    for (int i = 0; i < MBX_PLAN_MAX_MEAS; i++) {
        pos += (size_t)snprintf(text + pos, cap - pos, "[s%d]\nbench = x\n", i);
    }
    mbx_plan *p = new_plan();
    char msg[512] = "";
    if (mbx_plan_parse(text, "t.ini", p, msg, sizeof msg) != MBX_OK) {
        fail_msg("%s", msg);
    }
    assert_int_equal(p->nmeas, MBX_PLAN_MAX_MEAS);
    free(p);
    snprintf(text + pos, cap - pos, "[more]\nbench = x\n");
    parse_bad(text, MBX_E_INVAL, "t.ini:129: too many sections; at most 64");

    pos = (size_t)snprintf(text, cap, "[a]\nbench = b0");
    for (int i = 1; i <= MBX_PLAN_MAX_BENCH; i++) {
        pos += (size_t)snprintf(text + pos, cap - pos, ", b%d", i);
    }
    parse_bad(text, MBX_E_INVAL, "t.ini:2: bench: too many benchmarks; at most 256");
    free(text);
}

static char *write_temp(const char *content, size_t len, size_t repeat)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/mbx_test_plan_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    assert_non_null(f);
    for (size_t i = 0; i < repeat; i++) {
        assert_int_equal(fwrite(content, 1, len, f), len);
    }
    assert_int_equal(fclose(f), 0);
    return path;
}

static void test_load_errors(void **state)
{
    (void)state;
    mbx_plan *p = new_plan();
    char msg[512] = "";
    assert_int_equal(mbx_plan_load("/nonexistent/mbx/plan.ini", p, msg, sizeof msg), MBX_E_IO);
    assert_string_equal(msg,
                        "cannot read plan /nonexistent/mbx/plan.ini: No such file or directory");
    assert_int_equal(mbx_plan_load(MBX_SAMPLES_DIR, p, msg, sizeof msg), MBX_E_IO);
    assert_non_null(strstr(msg, "cannot read plan " MBX_SAMPLES_DIR ": "));

    /* Exactly 1 MiB is accepted, one byte more is not. */
    const char *head = "[a]\nbench = x\n";
    char pad[1024];
    memset(pad, '#', sizeof pad);
    pad[sizeof pad - 1] = '\n';
    char *path = write_temp(pad, sizeof pad, 1024);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fwrite(head, 1, strlen(head), f), strlen(head));
    assert_int_equal(fclose(f), 0);
    if (mbx_plan_load(path, p, msg, sizeof msg) != MBX_OK) {
        fail_msg("%s", msg);
    }
    f = fopen(path, "ab");
    assert_non_null(f);
    assert_int_equal(fputc('\n', f), '\n');
    assert_int_equal(fclose(f), 0);
    assert_int_not_equal(mbx_plan_load(path, p, msg, sizeof msg), MBX_OK);
    assert_non_null(strstr(msg, "larger than 1 MiB"));
    unlink(path);

    path = write_temp("[a]\nbench = x\0\n", 15, 1);
    assert_int_not_equal(mbx_plan_load(path, p, msg, sizeof msg), MBX_OK);
    assert_non_null(strstr(msg, "NUL"));
    unlink(path);
    free(p);
}

static void test_override(void **state)
{
    (void)state;
    mbx_plan *p = load_ok(MBX_SAMPLES_DIR "/quick.ini");
    mbx_plan *orig = new_plan();
    char msg[512] = "";
    memcpy(orig, p, sizeof *p);

    mbx_plan_overrides none = {0};
    assert_int_equal(mbx_plan_override(p, &none, msg, sizeof msg), MBX_OK);
    assert_memory_equal(p, orig, sizeof *p);

    /* A bad value is reported under its option name and changes nothing. */
    mbx_plan_overrides bad = {.sizes = "1,8", .stop = "sometimes"};
    assert_int_not_equal(mbx_plan_override(p, &bad, msg, sizeof msg), MBX_OK);
    assert_true(strncmp(msg, "--stop: ", 8) == 0);
    assert_memory_equal(p, orig, sizeof *p);
    bad = (mbx_plan_overrides){.nmin = "0"};
    assert_int_equal(mbx_plan_override(p, &bad, msg, sizeof msg), MBX_E_INVAL);
    assert_string_equal(msg, "--nmin: expected an integer in 1..10000000");
    bad = (mbx_plan_overrides){.sizes = "64KiB:1KiB"};
    assert_int_equal(mbx_plan_override(p, &bad, msg, sizeof msg), MBX_E_INVAL);
    assert_true(strncmp(msg, "--sizes: reversed range: MIN (64KiB) > MAX (1KiB)", 49) == 0);
    assert_memory_equal(p, orig, sizeof *p);

    mbx_plan_overrides ov = {.sizes = "1,8", .stop = "fixed:10", .nmin = "2", .nmax = "30"};
    assert_int_equal(mbx_plan_override(p, &ov, msg, sizeof msg), MBX_OK);
    for (size_t i = 0; i < p->nmeas; i++) {
        const mbx_measurement *m = &p->meas[i];
        assert_string_equal(m->label, orig->meas[i].label);
        assert_int_equal(m->nbench, orig->meas[i].nbench);
        assert_int_equal(m->sizes.n, 2);
        assert_int_equal(m->sizes.v[1], 8);
        assert_int_equal(m->stop.kind, MBX_STOP_FIXED);
        assert_int_equal(m->stop.fixed, 10);
        assert_int_equal(m->nmin, 2);
        assert_int_equal(m->nmax, 30);
    }
    ov = (mbx_plan_overrides){.bench = "coll.barrier"};
    assert_int_equal(mbx_plan_override(p, &ov, msg, sizeof msg), MBX_OK);
    assert_int_equal(p->meas[0].nbench, 1);
    assert_string_equal(p->meas[1].bench[0], "coll.barrier");

    /* Cross-key checks run again after the overrides. */
    ov = (mbx_plan_overrides){.nmin = "50"};
    assert_int_equal(mbx_plan_override(p, &ov, msg, sizeof msg), MBX_E_INVAL);
    assert_string_equal(msg, "[latency]: nmin: 50 is larger than nmax (30)");
    free(orig);
    free(p);
}
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_syntax), cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_limits), cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_override),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
