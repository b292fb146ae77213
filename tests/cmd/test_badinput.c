/* Bad input of the subcommands, in process, without mpiexec: one table of
 * cases {command, arguments, exit code, the stderr line (an extended
 * regular expression)}. Each case calls the command's entry point (run:
 * its parser, or its whole set-up on the fake back end when the check
 * needs the plan or the job's size; repeat, merge, compare, report, list:
 * the command itself, none of which uses MPI) with stdout discarded and
 * stderr in a file, then checks the exit code, exactly one line on stderr
 * matching the expression, and that its fixture directory holds the same
 * files with the same bytes afterwards (nothing written, nothing left
 * behind). Each case is a CTest test of its name (cmd_tests.cmake reads
 * the names from this table). A few cases stay under mpiexec (tests/mpi)
 * to prove that every rank agrees and the process exits 2; so do the ones
 * that need more than the command line (MPI's thread level, a launch). */
#include <dirent.h>
#include <fcntl.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "benchsel.h"
#include "cli.h"
#include "compare_cmd.h"
#include "merge.h"
#include "repeat.h"
#include "report.h"
#include "run.h"

typedef enum {
    RUN_PARSE, /* mbx_cli_parse_run; the line is "mpibex: " and its message */
    RUN,       /* mbx_batch_root on the fake back end (--fake N first) */
    REPEAT,
    MERGE,
    COMPARE,
    REPORT,
    LIST /* mbx_list_cmd */
} cmd_kind;

#define MAX_ARGS 16

typedef struct bad_case {
    const char *name;
    cmd_kind cmd;
    int ranks;       /* RUN: the fake job's ranks */
    const char *env; /* NAME=VALUE set for the call, or NULL */
    int code;        /* the exit code */
    const char *re;  /* the one stderr line */
    /* "@" is the command's fixture directory, "@/" starts a path in it. run: -o
     * @/bad.csv is added when the case has no -o. */
    const char *argv[MAX_ARGS];
} bad_case;

#define RUN_OPTS "--", "--bench", "pingpong.send_recv", "--sizes", "8", "--nmax", "20"

/* The cases: a flat table, each case starting a line (cmd_tests.cmake reads
 * the names there). */
/* clang-format off */
static const bad_case cases[] = {
#include "badinput_habits.h"
    /* mpibex run: the command line */
    {"badinput.unknown_option", RUN_PARSE, 0, NULL, 2, "unknown option '--frobnicate'",
     {"--frobnicate"}},
    {"badinput.bad_timer", RUN_PARSE, 0, NULL, 2, "--timer: expected clock, wtime or tsc",
     {"--timer", "rdtsc"}},
    {"badinput.two_plans", RUN_PARSE, 0, NULL, 2, "plan: only one plan file", {"a.ini", "b.ini"}},
    {"badinput.sync_word", RUN_PARSE, 0, NULL, 2,
     "--sync: expected barrier or window \\(got 'windows'\\)",
     {"--bench", "coll.bcast", "--sync", "windows"}},
    {"badinput.clock_sync_word", RUN_PARSE, 0, NULL, 2,
     "--clock-sync: expected jk or hca \\(got 'ntp'\\)",
     {"--bench", "coll.bcast", "--clock-sync", "ntp"}},
    {"badinput.window_range", RUN_PARSE, 0, NULL, 2,
     "--window: expected auto or seconds in 1e-6..10 \\(got '0'\\)",
     {"--bench", "coll.bcast", "--window", "0"}},
    {"badinput.window_delay_range", RUN_PARSE, 0, NULL, 2,
     "--window-delay: expected seconds in 1e-6..10",
     {"--bench", "coll.bcast", "--window-delay", "-1"}},
    {"badinput.resync_range", RUN_PARSE, 0, NULL, 2, "--resync: expected seconds in 0.01..3600",
     {"--bench", "coll.bcast", "--resync", "0"}},
    {"badinput.sync_span_range", RUN_PARSE, 0, NULL, 2,
     "--sync-span: expected seconds in 0.01..600 \\(got '0'\\)",
     {"--bench", "coll.bcast", "--sync-span", "0"}},
    {"badinput.window_limit_range", RUN_PARSE, 0, NULL, 2,
     "--window-limit: expected seconds in 0.1..86400 \\(got 'x'\\)",
     {"--bench", "coll.bcast", "--window-limit", "x"}},
    {"badinput.watchdog_range", RUN_PARSE, 0, NULL, 2,
     "^mpibex: --watchdog: expected off or SEC\\[:MULT\\], seconds in 0\\.5\\.\\.86400 and a "
     "multiple in 2\\.\\.1000 \\(got '0\\.1'\\)$",
     {"--bench", "coll.bcast", "--watchdog", "0.1"}},
    {"badinput.watchdog_mult", RUN_PARSE, 0, NULL, 2,
     "^mpibex: --watchdog: expected off or SEC\\[:MULT\\], .* \\(got '5:1'\\)$",
     {"--bench", "coll.bcast", "--watchdog", "5:1"}},
    {"badinput.retry_hung_alone", RUN, 2, NULL, 2,
     "^mpibex: --retry-hung: only with --resume \\(it measures a resumed run's HUNG points "
     "again\\)$",
     {"--bench", "coll.bcast", "--retry-hung", "-o", "@/r.csv"}},
    {"badinput.cache_word", RUN_PARSE, 0, NULL, 2,
     "--cache: expected warm, cold or cold:SIZE \\(got 'hot'\\)",
     {"--bench", "coll.bcast", "--cache", "hot"}},
    {"badinput.cache_size", RUN_PARSE, 0, NULL, 2,
     "--cache: cold:SIZE needs a size in 4KiB..1TiB \\(got 'cold:12'\\)",
     {"--bench", "coll.bcast", "--cache", "cold:12"}},
    {"badinput.order_word", RUN_PARSE, 0, NULL, 2,
     "--order: expected shuffle or plan \\(got 'random'\\)",
     {"--bench", "coll.bcast", "--order", "random"}},
    {"badinput.seed_value", RUN_PARSE, 0, NULL, 2,
     "--seed: expected a whole number 0..18446744073709551615 \\(got '-3'\\)",
     {"--bench", "coll.bcast", "--seed", "-3"}},
    {"badinput.monitor_word", RUN_PARSE, 0, NULL, 2,
     "--monitor: expected on or off \\(got 'yes'\\)",
     {"--bench", "coll.bcast", "--monitor", "yes"}},
    {"badinput.shift_range", RUN_PARSE, 0, NULL, 2,
     "--shift: expected a relative change in 0.01..10 \\(got '0'\\)",
     {"--bench", "coll.bcast", "--shift", "0"}},
    {"badinput.warmup_range", RUN_PARSE, 0, NULL, 2,
     "--warmup: expected round trips in 1..1000000 \\(got '0'\\)",
     {"--bench", "pingpong.send_recv", "--warmup", "0"}},
    {"badinput.thread_level_bogus", RUN_PARSE, 0, NULL, 2,
     "^mpibex: --thread-level: expected single, funneled, serialized or multiple \\(got 'bogus'"
     "\\)$", {"--bench", "coll.bcast", "--thread-level", "bogus"}},
    {"badinput.thread_level_bogus_eq", RUN_PARSE, 0, NULL, 2,
     "^mpibex: --thread-level: expected single, funneled, serialized or multiple \\(got 'many'"
     "\\)$", {"--bench", "coll.bcast", "--thread-level=many"}},
    {"badinput.fake_zero", RUN_PARSE, 0, NULL, 2,
     "^mpibex: --fake: expected a rank count in 1\\.\\.4096 \\(got '0'\\)$",
     {"--fake", "0", "--bench", "pingpong.send_recv"}},
    {"badinput.fake_word", RUN_PARSE, 0, NULL, 2,
     "^mpibex: --fake: expected a rank count in 1\\.\\.4096 \\(got 'abc'\\)$",
     {"--fake", "abc", "--bench", "pingpong.send_recv"}},
    {"badinput.run_options_env", RUN_PARSE, 0, "MPIBEX_RUN_OPTIONS=--span x", 2,
     "^mpibex: MPIBEX_RUN_OPTIONS: --span: expected seconds in 0\\.\\.86400 \\(got 'x'\\)$",
     {"--fake", "2", "--bench", "pingpong.send_recv"}},
    {"badinput.run_options_plan", RUN_PARSE, 0, "MPIBEX_RUN_OPTIONS=plan.ini", 2,
     "^mpibex: MPIBEX_RUN_OPTIONS: options only \\(no plan file, no --help. got 'plan\\.ini'\\)$",
     {"--fake", "2", "--bench", "pingpong.send_recv"}},
    /* mpibex run: the plan and the job (the fake back end, no MPI) */
    {"badinput.malformed_sizes", RUN, 2, NULL, 2, "--sizes: .*expected MIN:MAX",
     {"--bench", "coll.bcast", "--sizes", "1:abc"}},
    {"badinput.reversed_sizes", RUN, 2, NULL, 2, "--sizes: reversed range",
     {"--bench", "coll.bcast", "--sizes", "64K:1K"}},
    {"badinput.sizes_too_large", RUN, 2, NULL, 2, "sizes: .*available per rank",
     {"--bench", "coll.alltoall", "--sizes", "1:1T"}},
    {"badinput.malformed_stop", RUN, 2, NULL, 2, "--stop: ",
     {"--bench", "coll.bcast", "--stop", "stderr:2"}},
    {"badinput.unknown_stop", RUN, 2, NULL, 2, "--stop: ",
     {"--bench", "coll.bcast", "--stop", "median:0.1"}},
    {"badinput.threads_param", RUN, 1, NULL, 2,
     "^mpibex: param: threads\\.mutex takes threads in 1\\.\\.256 \\(got 300\\)$",
     {"--bench", "threads.mutex", "--param", "300"}},
    {"badinput.mt_param", RUN, 2, NULL, 2,
     "^mpibex: param: pingpong\\.mt takes threads in 1\\.\\.256 \\(got 257\\)$",
     {"--bench", "pingpong.mt", "--param", "257"}},
    {"badinput.nmin_gt_nmax", RUN, 2, NULL, 2, "nmin: 50 is larger than nmax \\(20\\)",
     {"--bench", "coll.bcast", "--nmin", "50", "--nmax", "20"}},
    {"badinput.nmax_range", RUN, 2, NULL, 2, "--nmax: ", {"--bench", "coll.bcast", "--nmax", "0"}},
    {"badinput.too_few_ranks", RUN, 1, NULL, 2,
     "pingpong.send_recv needs at least 2 ranks, the job has 1", {"--bench", "pingpong.send_recv"}},
    {"badinput.unreadable_plan", RUN, 2, NULL, 2, "cannot read plan", {"@/no_such_plan.ini"}},
    {"badinput.procs_too_many", RUN, 2, NULL, 2,
     "procs: 3 in \\[cli\\] is more than the job's 2 ranks",
     {"--bench", "coll.bcast", "--procs", "1,3"}},
    {"badinput.procs_malformed", RUN, 2, NULL, 2, "--procs: expected all, a list",
     {"--bench", "coll.bcast", "--procs", "2,x"}},
    {"badinput.procs_decreasing", RUN, 2, NULL, 2, "--procs: process counts must increase",
     {"--bench", "coll.bcast", "--procs", "2,1"}},
    {"badinput.root_outside", RUN, 2, NULL, 2,
     "root: 2 is not a rank of a 2-process point; allowed 0..1",
     {"--bench", "coll.bcast", "--root", "2"}},
    {"badinput.pair_outside", RUN, 2, NULL, 2, "pair: 0,5 is not a pair of ranks 0..1",
     {"--bench", "pingpong.send_recv", "--pair", "0,5"}},
    {"badinput.pair_same", RUN, 2, NULL, 2, "--pair: expected auto or two different ranks",
     {"--bench", "pingpong.send_recv", "--pair", "1,1"}},
    {"badinput.refine_range", RUN, 2, NULL, 2, "--refine: expected off or EPS with 0 < EPS < 1",
     {"--bench", "coll.bcast", "--refine", "150%"}},
    {"badinput.budget_range", RUN, 2, NULL, 2, "--budget: expected an integer in 0..10000",
     {"--bench", "coll.bcast", "--budget", "20000"}},
    {"badinput.rma_sync_word", RUN, 2, NULL, 2,
     "^mpibex: --rma-sync: expected fence, lock, lock_all or pscw \\(got 'nope'\\)$",
     {"--bench", "rma.put", "--rma-sync", "nope"}},
    {"badinput.rma_sync_plan_key", RUN, 2, NULL, 2,
     "rma_bad\\.ini:4: rma_sync: expected fence, lock, lock_all or pscw \\(got 'flush'\\)$",
     {"@/rma_bad.ini"}},
    {"badinput.param_unused", RUN, 2, NULL, 2, "param: coll.bcast takes no parameter",
     {"--bench", "coll.bcast", "--param", "4"}},
    {"badinput.bw_window_range", RUN, 2, NULL, 2, "param: bw.uni takes window in 1..65536 \\(got 70000\\)",
     {"--bench", "bw.uni", "--param", "70000"}},
    {"badinput.resume_nothing", RUN, 2, NULL, 2, "--resume: no journal .*nothing to resume",
     {"--bench", "coll.bcast", "--resume"}},
    {"badinput.unwritable_output", RUN, 2, NULL, 2, "-o: cannot write",
     {"--bench", "coll.bcast", "-o", "@/nodir/x.csv"}},
    {"badinput.fanout_one_rank", RUN, 2, NULL, 2,
     "procs: coll.bcast_accurate needs at least 2 ranks",
     {"--bench", "coll.bcast_accurate", "--procs", "1"}},
    {"badinput.timer_tsc_refused", RUN, 2, "MBX_TEST_NO_TSC=1", 2,
     "--timer: tsc cannot be used here: ", {"--bench", "coll.bcast", "--timer", "tsc"}},
#include "badinput_cmds.h"
};
/* clang-format on */

#define NCASES (sizeof cases / sizeof cases[0])

static char root[512]; /* this run's fixtures: ROOT/<command>/ */

static const char *const dir_of[] = {
    [RUN_PARSE] = "run",       [RUN] = "run",       [REPEAT] = "repeat", [MERGE] = "merge",
    [COMPARE] = "compare_bad", [REPORT] = "report", [LIST] = "run"};

/* ---- fixtures ---- */

static void put(const char *dir, const char *name, const char *text)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* A fixture of len bytes, NUL bytes included. */
static void put_bytes(const char *dir, const char *name, const char *bytes, size_t len)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void sub(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", root, name);
    assert_int_equal(mkdir(buf, 0700), 0);
}

#define OLD_COLS                                                                                   \
    "benchmark,procs,bytes,n,mean_us,tmean_us,median_us,min_us,max_us,q1_us,q3_us,stddev_us,"      \
    "stderr_us,ci95_lo_us,ci95_hi_us,outliers,status,stop_rule,bandwidth_MBps,timing,overhead_us," \
    "nmin,nmax,batches,wall_s,label"
#define NEW_COLS OLD_COLS ",root,op,param,param_name,ranks,refined,validated"
#define ROW(b, m, st)                                                                              \
    "pingpong.send_recv,2," b ",16," m "," m "," m ",1,9,1,2,0.5,0.01,1,2,0," st                   \
    ",stderr:0.03,,half_round_trip,0.03,16,1000,1,0.01,cli"
#define ENV_CSV "key,value\nformat_version,1\n"

/* merge: today's and the old 26-column format, an environment file, a
 * table without median_us, a row cut short. */
static void merge_fixtures(void)
{
    char d[600];
    sub(d, sizeof d, "merge");
    put(d, "good.csv",
        NEW_COLS "\n" ROW("8", "2.0", "SETTLED") ",,,,,0-1,0,no\n" ROW(
            "64", "3.0", "SETTLED") ",,,,,0-1,0,no\n");
    put(d, "good2.csv", OLD_COLS "\n" ROW("8", "4.0", "UNSETTLED") "\n");
    put(d, "env.csv", ENV_CSV);
    put(d, "nomedian.csv",
        "benchmark,procs,bytes,n,tmean_us,status,label\npingpong.send_recv,2,8,16,1,SETTLED,cli\n");
    put(d, "short.csv", OLD_COLS "\n" ROW("8", "4.0", "SETTLED") "\npingpong.send_recv,2,8\n");
    /* A NUL byte would cut the key short: the row would merge into
     * pingpong.send_recv's. */
    static const char nul[] = OLD_COLS "\n" ROW(
        "8", "4.0", "SETTLED") "\n"
                               "pingpong.send_recv\0EVIL,2,8,16,1,1,1,1,9,1,2,0.5,0.01,1,2,"
                               "0,SETTLED,stderr:0.03,,half_round_trip,0.03,16,1000,1,0.01,"
                               "cli\n";
    put_bytes(d, "nul.csv", nul, sizeof nul - 1);
}

/* report: the synthetic runs of report_fixtures.py, a non-empty directory,
 * one without launches, a bad number, a short row, an open quote, a
 * node-pair row whose ranks are one rank instead of SRC,DST. */
static void report_fixtures(void)
{
    char d[600], cmd[2048];
    sub(d, sizeof d, "report");
    snprintf(cmd, sizeof cmd, "python3 '%s' make '%s'", MBX_REPORT_FIXTURES, d);
    assert_int_equal(system(cmd), 0);
    char full[700];
    snprintf(full, sizeof full, "%s/full", d);
    assert_int_equal(mkdir(full, 0700), 0);
    put(full, "x.txt", "x\n");
    snprintf(cmd, sizeof cmd, "mkdir '%s/nolaunch' && cp '%s/a.csv' '%s/nolaunch/merged.csv'", d, d,
             d);
    assert_int_equal(system(cmd), 0);
    put(d, "badnum.csv",
        "benchmark,procs,bytes,median_us,status\npingpong.send_recv,2,abc,1.0,SETTLED\n");
    put(d, "short.csv", "benchmark,procs,bytes,median_us,status\npingpong.send_recv,2,8\n");
    put(d, "quote.csv", "benchmark,procs,bytes,median_us,status\n\"pingpong,2\n");
    put(d, "pairsranks.csv",
        "benchmark,procs,bytes,median_us,status,ranks\npairs.lat,4,8,1.0,SETTLED,\"0,1\"\n"
        "pairs.lat,4,8,1.0,SETTLED,2\n");
    static const char nul[] = "benchmark,procs,bytes,median_us,status\n"
                              "pingpong.send_recv\0EVIL,2,8,1.0,SETTLED\n";
    put_bytes(d, "nul.csv", nul, sizeof nul - 1);
}

static int wanted[LIST + 1]; /* the commands of the cases run: their fixtures */

static int make_fixtures(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "%s/cmd_badinput.XXXXXX", MBX_TMP_DIR);
    if (!mkdtemp(root))
        return -1;
    char d[600];
    sub(d, sizeof d, "run");
    put(d, "rma_bad.ini", "[rma]\nbench = rma.put\nsizes = 8\nrma_sync = flush\n");
    sub(d, sizeof d, "repeat");
    put(d, "plain.txt", "not a directory\n");
    if (wanted[MERGE])
        merge_fixtures();
    sub(d, sizeof d, "compare_bad");
    put(d, "noobs.csv",
        "benchmark,procs,bytes,median_us,status,label\npingpong.send_recv,2,8,1.0,SETTLED,cli\n");
    put(d, "env.csv", ENV_CSV);
    if (wanted[REPORT]) /* python3: the slow part */
        report_fixtures();
    return 0;
}

static int remove_fixtures(void **state)
{
    (void)state;
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

/* ---- what a directory holds: every path, size and byte, hashed ---- */

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static uint64_t tree_hash(const char *dir, uint64_t h)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    uint64_t sum = 0; /* order-free: readdir's order is not fixed */
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        assert_int_equal(lstat(p, &st), 0);
        uint64_t one = mix(14695981039346656037ull, p, strlen(p));
        if (S_ISDIR(st.st_mode)) {
            one = tree_hash(p, one);
        } else {
            FILE *f = fopen(p, "rb");
            assert_non_null(f);
            char buf[4096];
            size_t n;
            while ((n = fread(buf, 1, sizeof buf, f)) > 0)
                one = mix(one, buf, n);
            fclose(f);
        }
        sum += one;
    }
    closedir(d);
    return mix(h, &sum, sizeof sum);
}

/* ---- one case ---- */

/* The case's arguments with "@/" expanded to dir (and -o @/bad.csv added
 * to a run without -o); argv[0] is the command's name. */
static int build_argv(const bad_case *c, const char *dir, char **argv)
{
    int n = 0, has_o = 0;
    argv[n++] = strdup(dir_of[c->cmd]);
    if (c->cmd == RUN) {
        char r[16];
        snprintf(r, sizeof r, "%d", c->ranks);
        argv[n++] = strdup("--fake");
        argv[n++] = strdup(r);
    }
    for (int i = 0; i < MAX_ARGS && c->argv[i]; i++) {
        const char *a = c->argv[i];
        has_o |= strcmp(a, "-o") == 0;
        if (strcmp(a, "@") == 0) {
            argv[n++] = strdup(dir);
        } else if (strncmp(a, "@/", 2) == 0) {
            char p[1024];
            snprintf(p, sizeof p, "%s/%s", dir, a + 2);
            argv[n++] = strdup(p);
        } else {
            argv[n++] = strdup(a);
        }
    }
    if ((c->cmd == RUN || c->cmd == RUN_PARSE) && !has_o) {
        char p[1024];
        snprintf(p, sizeof p, "%s/bad.csv", dir);
        argv[n++] = strdup("-o");
        argv[n++] = strdup(p);
    }
    argv[n] = NULL;
    return n;
}

/* Runs the command (argv[0] its name) with stdout discarded; returns its
 * exit code. RUN_PARSE writes its line to stderr itself, as run does. */
static int call(const bad_case *c, int argc, char **argv)
{
    switch (c->cmd) {
    case RUN_PARSE: {
        mbx_run_opts o;
        char msg[512] = "";
        int rc = mbx_cli_parse_run(argc - 1, argv + 1, &o, msg, sizeof msg);
        if (rc != 0)
            fprintf(stderr, "mpibex: %s\n", msg);
        return rc;
    }
    case RUN: return mbx_batch_root(NULL, argc - 1, argv + 1);
    case REPEAT: return mbx_repeat_cmd(argc - 1, argv + 1, "/nonexistent/mpibex");
    case MERGE: return mbx_merge_cmd(argc - 1, argv + 1);
    case COMPARE: return mbx_compare_cmd(argc - 1, argv + 1);
    case REPORT: return mbx_report_cmd(argc - 1, argv + 1, NULL);
    case LIST: return mbx_list_cmd(argc - 1, argv + 1);
    }
    return -1;
}

/* call() with fd 1 on /dev/null and fd 2 on the file errpath. */
static int call_captured(const bad_case *c, int argc, char **argv, const char *errpath)
{
    fflush(stdout);
    fflush(stderr);
    int out = dup(1), err = dup(2);
    int null = open("/dev/null", O_WRONLY);
    int ef = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(out >= 0 && err >= 0 && null >= 0 && ef >= 0);
    dup2(null, 1);
    dup2(ef, 2);
    int rc = call(c, argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(out, 1);
    dup2(err, 2);
    close(out);
    close(err);
    close(null);
    close(ef);
    return rc;
}

/* The captured stderr: exactly one non-empty line, matching re. */
static void check_line(const char *name, const char *errpath, const char *re)
{
    FILE *f = fopen(errpath, "r");
    assert_non_null(f);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    int lines = 0; /* non-empty lines, as grep -c . counts them */
    for (const char *s = text; *s; s++)
        lines += *s != '\n' && (s == text || s[-1] == '\n');
    char *nl = strchr(text, '\n');
    if (nl)
        *nl = '\0';
    regex_t rx;
    assert_int_equal(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB), 0);
    int match = regexec(&rx, text, 0, NULL, 0) == 0;
    regfree(&rx);
    if (lines != 1 || !match)
        print_error("%s: stderr (%d line(s)) '%s' does not match '%s'\n", name, lines, text, re);
    assert_int_equal(lines, 1);
    assert_true(match);
}

static void test_case(void **state)
{
    const bad_case *c = *state;
    char dir[600], errpath[600], *argv[MAX_ARGS + 8];
    snprintf(dir, sizeof dir, "%s/%s", root, dir_of[c->cmd]);
    snprintf(errpath, sizeof errpath, "%s/stderr.txt", root);
    int argc = build_argv(c, dir, argv);
    const char *eq = c->env ? strchr(c->env, '=') : NULL;
    char name[64] = "", *saved = NULL;
    if (eq) {
        snprintf(name, sizeof name, "%.*s", (int)(eq - c->env), c->env);
        saved = getenv(name) ? strdup(getenv(name)) : NULL;
        setenv(name, eq + 1, 1);
    }
    uint64_t before = tree_hash(dir, 0);
    int rc = call_captured(c, argc, argv, errpath);
    uint64_t after = tree_hash(dir, 0);
    if (eq) {
        if (saved)
            setenv(name, saved, 1);
        else
            unsetenv(name);
        free(saved);
    }
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    check_line(c->name, errpath, c->re);
    assert_int_equal(rc, c->code);
    if (before != after)
        print_error("%s: the fixture directory %s changed\n", c->name, dir);
    assert_true(before == after);
}

/* With a case's name (a CTest test of that name runs it): that case;
 * without: every case. */
int main(int argc, char **argv)
{
    struct CMUnitTest tests[NCASES];
    size_t n = 0;
    for (size_t i = 0; i < NCASES; i++)
        if (argc < 2 || strcmp(argv[1], cases[i].name) == 0) {
            wanted[cases[i].cmd] = 1;
            tests[n++] =
                (struct CMUnitTest){cases[i].name, test_case, NULL, NULL, (void *)&cases[i]};
        }
    if (n == 0) {
        fprintf(stderr, "test_badinput: no case named '%s'\n", argv[1]);
        return 1;
    }
    return _cmocka_run_group_tests("badinput", tests, n, make_fixtures, remove_fixtures);
}
