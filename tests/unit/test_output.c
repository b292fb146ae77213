/* mbx_output_claim (engine/core/output.c): the lock names its holder, is
 * given back with its file, survives a stale file; existing results, a
 * journal and inputs are refused; "-", the null device, FIFOs, links and
 * directories get their answers; a directory output is created and
 * locked. The second claim comes from this process through its own open
 * file description, which flock treats like another process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mbx/output.h"

#ifndef MBX_TMP_DIR
#error "compile with -DMBX_TMP_DIR=\"<a writable directory>\""
#endif

static char dir[512];

static void path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
}

static void put(const char *name, const char *text)
{
    char p[600];
    path(p, sizeof p, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int exists(const char *name)
{
    char p[600];
    struct stat st;
    path(p, sizeof p, name);
    return lstat(p, &st) == 0;
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s/test_output_%ld", MBX_TMP_DIR, (long)getpid());
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir '%s'", dir, dir);
    return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *const sidecars[] = {".env.csv", ".journal", NULL};

static int claim(const char *name, unsigned flags, mbx_output *o, char *msg)
{
    char p[600];
    path(p, sizeof p, name);
    mbx_output_req req = {.path = p, .flags = flags, .sidecars = sidecars, .journal = ".journal"};
    return mbx_output_claim(&req, o, msg, 512);
}

static void busy_names_the_holder(void **state)
{
    (void)state;
    mbx_output a, b;
    char msg[512];
    assert_int_equal(claim("r.csv", 0, &a, msg), MBX_OK);
    assert_int_equal(a.kind, MBX_OUTPUT_FILE);
    assert_true(exists("r.lock"));
    assert_int_equal(claim("r.csv", MBX_OUTPUT_FORCE, &b, msg), MBX_E_BUSY);
    assert_int_equal(b.holder, getpid());
    char want[64];
    snprintf(want, sizeof want, "(PID %ld)", (long)getpid());
    assert_non_null(strstr(msg, "is in use by another run"));
    assert_non_null(strstr(msg, want));
    mbx_output_release(&b); /* a failed claim: nothing to give back */
    assert_true(exists("r.lock"));
    mbx_output_release(&a);
    assert_false(exists("r.lock"));
    assert_int_equal(claim("r.csv", 0, &b, msg), MBX_OK);
    mbx_output_release(&b);
}

static void stale_lock_is_taken_over(void **state)
{
    (void)state;
    put("s.lock", "999999 elsewhere\n");
    mbx_output o;
    char msg[512];
    assert_int_equal(claim("s.csv", 0, &o, msg), MBX_OK);
    mbx_output_release(&o);
    assert_false(exists("s.lock"));
    /* Not a lock file of ours: the user's, left alone. */
    put("u.lock", "my notes\n");
    assert_int_equal(claim("u.csv", 0, &o, msg), MBX_E_INVAL);
    assert_non_null(strstr(msg, "is not an mpibex lock file"));
    assert_true(exists("u.lock"));
}

static void existing_results_need_force(void **state)
{
    (void)state;
    mbx_output o;
    char msg[512];
    put("e.csv", "");
    assert_int_equal(claim("e.csv", 0, &o, msg), MBX_OK); /* empty: nothing to lose */
    mbx_output_release(&o);
    put("e.csv", "benchmark\nx\n");
    assert_int_equal(claim("e.csv", 0, &o, msg), MBX_E_INVAL);
    assert_non_null(strstr(msg, "exists and holds results; --force"));
    assert_false(exists("e.lock")); /* a refusal leaves no lock file */
    assert_int_equal(claim("e.csv", MBX_OUTPUT_FORCE, &o, msg), MBX_OK);
    assert_int_equal(o.existed, 1);
    mbx_output_release(&o);
    put("j.journal", "x\n");
    assert_int_equal(claim("j.csv", 0, &o, msg), MBX_E_INVAL);
    assert_non_null(strstr(msg, "interrupted run"));
    assert_int_equal(claim("j.csv", MBX_OUTPUT_RESUME, &o, msg), MBX_OK);
    mbx_output_release(&o);
}

static void inputs_are_never_written(void **state)
{
    (void)state;
    char plan[600], hard[600], msg[512];
    put("p.ini", "[x]\n");
    path(plan, sizeof plan, "p.ini");
    path(hard, sizeof hard, "hard.csv");
    assert_int_equal(link(plan, hard), 0);
    const char *in[] = {plan};
    mbx_output o;
    mbx_output_req req = {.path = hard,
                          .flags = MBX_OUTPUT_FORCE,
                          .inputs = in,
                          .ninputs = 1,
                          .input_what = "the plan file"};
    assert_int_equal(mbx_output_claim(&req, &o, msg, sizeof msg), MBX_E_INVAL);
    assert_non_null(strstr(msg, "is the plan file"));
    req.path = plan;
    req.input_what = NULL;
    assert_int_equal(mbx_output_claim(&req, &o, msg, sizeof msg), MBX_E_INVAL);
    assert_non_null(strstr(msg, "is also an input"));
}

static void special_paths(void **state)
{
    (void)state;
    mbx_output o;
    char msg[512], p[600];
    mbx_output_req req = {.path = "-"};
    assert_int_equal(mbx_output_claim(&req, &o, msg, sizeof msg), MBX_E_INVAL);
    req.flags = MBX_OUTPUT_ALLOW_STDOUT;
    assert_int_equal(mbx_output_claim(&req, &o, msg, sizeof msg), MBX_OK);
    assert_int_equal(o.kind, MBX_OUTPUT_STDOUT);
    req.path = "/dev/null";
    assert_int_equal(mbx_output_claim(&req, &o, msg, sizeof msg), MBX_E_INVAL);
    assert_non_null(strstr(msg, "is the null device"));
    req.flags = MBX_OUTPUT_ALLOW_DISCARD;
    assert_int_equal(mbx_output_claim(&req, &o, msg, sizeof msg), MBX_OK);
    assert_int_equal(o.kind, MBX_OUTPUT_DISCARD);
    assert_true(mbx_output_is_null("/dev/null"));
    path(p, sizeof p, "fifo");
    assert_int_equal(mkfifo(p, 0600), 0);
    req.path = p;
    assert_int_equal(mbx_output_claim(&req, &o, msg, sizeof msg), MBX_E_INVAL);
    assert_non_null(strstr(msg, "is a FIFO"));
    assert_false(exists("fifo.lock"));
    path(p, sizeof p, "link.csv");
    assert_int_equal(symlink("target.csv", p), 0);
    assert_int_equal(mbx_output_claim(&req, &o, msg, sizeof msg), MBX_E_INVAL);
    req.path = dir;
    assert_int_equal(mbx_output_claim(&req, &o, msg, sizeof msg), MBX_E_INVAL);
    assert_non_null(strstr(msg, "is a directory"));
}

static int is_launch(const char *name)
{
    return strncmp(name, "launch-", 7) == 0;
}

static void directory_outputs(void **state)
{
    (void)state;
    mbx_output a, b;
    char msg[512], d[600];
    path(d, sizeof d, "rep");
    mbx_output_req req = {.path = d, .flags = MBX_OUTPUT_DIRECTORY, .is_result = is_launch};
    assert_int_equal(mbx_output_claim(&req, &a, msg, sizeof msg), MBX_OK);
    assert_int_equal(a.created_dir, 1);
    assert_true(exists("rep/.mpibex.lock"));
    assert_int_equal(mbx_output_claim(&req, &b, msg, sizeof msg), MBX_E_BUSY);
    mbx_output_release(&a);
    assert_false(exists("rep/.mpibex.lock"));
    put("rep/notes.txt", "mine\n"); /* not a result of this command */
    assert_int_equal(mbx_output_claim(&req, &a, msg, sizeof msg), MBX_OK);
    mbx_output_release(&a);
    put("rep/launch-01.csv", "x\n");
    assert_int_equal(mbx_output_claim(&req, &a, msg, sizeof msg), MBX_E_INVAL);
    assert_non_null(strstr(msg, "already holds results ('launch-01.csv')"));
    req.flags |= MBX_OUTPUT_FORCE;
    assert_int_equal(mbx_output_claim(&req, &a, msg, sizeof msg), MBX_OK);
    assert_int_equal(a.existed, 1);
    mbx_output_release(&a);
    req.is_result = NULL; /* any entry counts (report) */
    req.flags = MBX_OUTPUT_DIRECTORY;
    assert_int_equal(mbx_output_claim(&req, &a, msg, sizeof msg), MBX_E_INVAL);
    put("file", "x\n");
    path(d, sizeof d, "file");
    assert_int_equal(mbx_output_claim(&req, &a, msg, sizeof msg), MBX_E_INVAL);
    assert_non_null(strstr(msg, "exists and is not a directory"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(busy_names_the_holder, setup, teardown),
        cmocka_unit_test_setup_teardown(stale_lock_is_taken_over, setup, teardown),
        cmocka_unit_test_setup_teardown(existing_results_need_force, setup, teardown),
        cmocka_unit_test_setup_teardown(inputs_are_never_written, setup, teardown),
        cmocka_unit_test_setup_teardown(special_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(directory_outputs, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
