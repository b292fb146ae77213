/* Check a results CSV written by `mpibex run` through libcsv's reader:
 * required columns, parseable numbers, order statistics in order, and every
 * SETTLED row meeting its own stop rule. Optional checks: the environment
 * sidecar, the raw observation file, expected row count and benchmarks.
 *
 * usage: csvcheck --columns   (the column table: name, unit)
 *        csvcheck RESULTS.csv [--env ENV.csv] [--obs OBS.csv] [--rows N]
 *                 [--bench NAME]... [--procs P] [--col NAME=VALUE]...
 *                 [--plain NAME]... [--overlap NAME]... [--setup NAME]...
 *                 [--sorted yes]
 * --col: every row's column NAME holds exactly VALUE.
 * --overlap: rows of benchmark NAME (an overlap one) have a positive
 * pure_comm_us and compute_us, overall_us equal to median_us and an
 * overlap_pct within 0..100 that follows from the three; every other row
 * has the four empty. Without it overlap_pct is only checked to be empty
 * or within 0..100.
 * --plain: rows of benchmark NAME (an accurate one) have a positive
 * plain_us, every other row an empty one. Without it plain_us is only
 * checked to be empty or positive.
 * --setup: rows of benchmark NAME (every row with ALL)
 * have a positive setup_us, every other row an empty one. Without it
 * setup_us is only checked to be empty or positive.
 * Files of format 2 (43 columns, up to faults) and 3 (the 8 pass columns
 * after it, then optionally msg_rate_per_s, then the 4 overlap columns, all
 * or none) are accepted; bandwidth_MBps and msg_rate_per_s must match the
 * bytes and messages the benchmark moves (moved_by) over median_us; rows
 * measured in passes (passes not empty) are held to the pass rules
 * (docs/csv-format.md, "Points measured in passes"). Exit 0 when every
 * check passes, 1 otherwise (each failure printed). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/csvio.h"
#include "mbx/passes.h"
#include "mbx/result.h"
#include "mbx/stop.h"

#include "csvcheck.h"

/* --sorted yes: the rows of a finished run in the order of
 * benchmark, procs, param and bytes (ties by seq), and seq a permutation
 * of 1..rows. And everywhere: a SETTLED row has no status_reason. */
static int key_cmp(const mbx_csv_table *t, size_t a, size_t b)
{
    int c = strcmp(str(t, a, "benchmark"), str(t, b, "benchmark"));
    if (c)
        return c;
    const char *num_keys[] = {"procs", "param", "bytes", "seq"};
    for (size_t k = 0; k < 4; k++) {
        double x = num(t, a, num_keys[k]), y = num(t, b, num_keys[k]);
        x = isnan(x) ? -1 : x;
        y = isnan(y) ? -1 : y;
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

static void check_sorted(const mbx_csv_table *t)
{
    size_t n = t->nrows - 1;
    CHECK(mbx_csv_table_col(t, "seq") >= 0, "--sorted: no seq column");
    char *seen = calloc(n + 1, 1);
    for (size_t r = 1; seen && r <= n; r++) {
        double q = num(t, r, "seq");
        CHECK(q >= 1 && q <= (double)n && q == floor(q) && !seen[(size_t)q],
              "row %zu: seq '%s' is not one of 1..%zu once", r, str(t, r, "seq"), n);
        if (q >= 1 && q <= (double)n)
            seen[(size_t)q] = 1;
        if (r > 1)
            CHECK(key_cmp(t, r - 1, r) < 0, "rows %zu and %zu out of order (%s %s)", r - 1, r,
                  str(t, r - 1, "benchmark"), str(t, r, "benchmark"));
    }
    free(seen);
}

/* The Slurm job facts the env file may record (docs/user-guide.md, "Every
 * factor recorded"): these names, no other SLURM_ variable. */
static int slurm_fact(const char *name)
{
    static const char *const names[] = {"SLURM_CLUSTER_NAME",   "SLURM_JOB_ID",
                                        "SLURM_JOB_PARTITION",  "SLURM_JOB_NODELIST",
                                        "SLURM_JOB_NUM_NODES",  "SLURM_JOB_CPUS_PER_NODE",
                                        "SLURM_NTASKS",         "SLURM_TASKS_PER_NODE",
                                        "SLURM_CPUS_PER_TASK",  "SLURM_STEP_ID",
                                        "SLURM_STEP_NODELIST",  "SLURM_STEP_NUM_NODES",
                                        "SLURM_STEP_NUM_TASKS", "SLURM_STEP_TASKS_PER_NODE",
                                        "SLURM_DISTRIBUTION",   "SLURM_CPU_BIND",
                                        "SLURM_CPU_BIND_TYPE",  "SLURM_CPU_BIND_LIST",
                                        "SLURM_MPI_TYPE",       "SLURM_RESTART_COUNT"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

/* The option walk and the whole-file checks (over 80 lines): a test program's main, read top to
 * bottom. */
/* The column table, one "name<TAB>unit" line per column, in file order:
 * what the docs check compares docs/csv-format.md's table with. */
static int print_columns(void)
{
    for (int c = 0; c < MBX_RESULT_NCOLS; c++)
        printf("%s\t%s\n", mbx_result_cols[c].name, mbx_result_cols[c].unit);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--columns") == 0)
        return print_columns();
    if (argc < 2) {
        fprintf(stderr, "usage: csvcheck RESULTS.csv [--env F] [--obs F] [--rows N] "
                        "[--bench NAME]... [--procs P] [--col NAME=VALUE]... [--plain NAME]...\n"
                        "                [--overlap NAME]...\n");
        return 2;
    }
    const char *env = NULL, *obsf = NULL, *want_bench[32], *want_col[32], *plain[32], *overlap[32];
    const char *setup[32];
    long rows = -1, procs = -1;
    int nwant = 0, ncol = 0, nplain = 0, noverlap = 0, sorted = 0, nsetup = 0;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--env"))
            env = argv[i + 1];
        else if (!strcmp(argv[i], "--obs"))
            obsf = argv[i + 1];
        else if (!strcmp(argv[i], "--rows"))
            rows = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--procs"))
            procs = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--bench") && nwant < 32)
            want_bench[nwant++] = argv[i + 1];
        else if (!strcmp(argv[i], "--col") && ncol < 32)
            want_col[ncol++] = argv[i + 1];
        else if (!strcmp(argv[i], "--plain") && nplain < 32)
            plain[nplain++] = argv[i + 1];
        else if (!strcmp(argv[i], "--overlap") && noverlap < 32)
            overlap[noverlap++] = argv[i + 1];
        else if (!strcmp(argv[i], "--setup") && nsetup < 32)
            setup[nsetup++] = argv[i + 1];
        else if (!strcmp(argv[i], "--sorted"))
            sorted = !strcmp(argv[i + 1], "yes");
    }
    mbx_csv_table t;
    if (mbx_csv_read_file(argv[1], &t) < 0) {
        fprintf(stderr, "csvcheck: cannot parse %s\n", argv[1]);
        return 1;
    }
    CHECK(t.nrows >= 1, "no header row");
    for (int c = 0; c < MBX_RESULT_NCOLS; c++)
        if (mbx_result_cols[c].since <= 2)
            CHECK(mbx_csv_table_col(&t, mbx_result_columns[c]) >= 0, "missing column %s",
                  mbx_result_columns[c]);
    int have_passes = mbx_csv_table_col(&t, "passes") >= 0;
    for (int c = MBX_COL_PASSES + 1; c <= MBX_COL_LEVEL_HI_US; c++)
        CHECK((mbx_csv_table_col(&t, mbx_result_columns[c]) >= 0) == have_passes,
              "column %s %s passes", mbx_result_columns[c],
              have_passes ? "missing with" : "without");
    int have_overlap = mbx_csv_table_col(&t, "overlap_pct") >= 0;
    for (int c = MBX_COL_PURE_COMM_US; c <= MBX_COL_OVERLAP_PCT; c++)
        CHECK((mbx_csv_table_col(&t, mbx_result_columns[c]) >= 0) == have_overlap,
              "column %s %s overlap_pct", mbx_result_columns[c],
              have_overlap ? "missing with" : "without");
    if (mbx_cc_failures) {
        mbx_csv_table_free(&t);
        return 1;
    }
    double total_n = 0;
    for (size_t r = 1; r < t.nrows; r++) {
        CHECK(t.ncols[r] == t.ncols[0], "row %zu has %zu fields, header %zu", r, t.ncols[r],
              t.ncols[0]);
        mbx_cc_check_row(&t, r);
        /* The observation file holds every observation, events too. */
        /* One go: n leaves the events out; in passes n counts every
         * observation (events stay in the pooled statistics). */
        int pass_row = num(&t, r, "passes") >= 1;
        total_n +=
            num(&t, r, "n") + (pass_row || isnan(num(&t, r, "events")) ? 0 : num(&t, r, "events"));
        int accurate = 0;
        for (int k = 0; k < nplain; k++)
            accurate |= strcmp(str(&t, r, "benchmark"), plain[k]) == 0;
        if (accurate)
            CHECK(num(&t, r, "plain_us") > 0, "row %zu (%s): plain_us '%s', expected a time", r,
                  str(&t, r, "benchmark"), str(&t, r, "plain_us"));
        else if (nplain)
            CHECK(str(&t, r, "plain_us")[0] == '\0', "row %zu (%s): plain_us '%s', expected empty",
                  r, str(&t, r, "benchmark"), str(&t, r, "plain_us"));
        mbx_cc_check_overlap(&t, r, overlap, noverlap);
        mbx_cc_check_part(&t, r);
        int persistent = 0;
        for (int k = 0; k < nsetup; k++)
            persistent |= !strcmp(setup[k], "ALL") || !strcmp(str(&t, r, "benchmark"), setup[k]);
        const char *su = mbx_csv_table_col(&t, "setup_us") >= 0 ? str(&t, r, "setup_us") : "";
        if (persistent)
            CHECK(num(&t, r, "setup_us") > 0, "row %zu (%s): setup_us '%s', expected a time", r,
                  str(&t, r, "benchmark"), su);
        else
            CHECK(su[0] == '\0' || (nsetup == 0 && num(&t, r, "setup_us") > 0),
                  "row %zu (%s): setup_us '%s', expected %s", r, str(&t, r, "benchmark"), su,
                  nsetup ? "empty" : "empty or a positive time");
        if (procs > 0)
            CHECK(num(&t, r, "procs") == (double)procs, "row %zu: procs %s", r,
                  str(&t, r, "procs"));
    }
    if (rows >= 0)
        CHECK((long)t.nrows - 1 == rows, "expected %ld rows, found %zu", rows, t.nrows - 1);
    if (sorted)
        check_sorted(&t);
    for (size_t r = 1; mbx_csv_table_col(&t, "status_reason") >= 0 && r < t.nrows; r++)
        if (strcmp(str(&t, r, "status"), "SETTLED") == 0)
            CHECK(str(&t, r, "status_reason")[0] == '\0', "row %zu: SETTLED with reason '%s'", r,
                  str(&t, r, "status_reason"));
    for (int w = 0; w < nwant; w++) {
        int seen = 0;
        for (size_t r = 1; r < t.nrows; r++)
            seen |= strcmp(str(&t, r, "benchmark"), want_bench[w]) == 0;
        CHECK(seen, "no row for benchmark %s", want_bench[w]);
    }
    for (int w = 0; w < ncol; w++) {
        const char *eq = strchr(want_col[w], '=');
        char name[64];
        int len = eq ? (int)(eq - want_col[w]) : -1;
        CHECK(len > 0 && len < (int)sizeof name, "--col %s: expected NAME=VALUE", want_col[w]);
        if (len <= 0 || len >= (int)sizeof name)
            continue;
        snprintf(name, sizeof name, "%.*s", len, want_col[w]);
        CHECK(mbx_csv_table_col(&t, name) >= 0, "--col: no column %s", name);
        for (size_t r = 1; r < t.nrows; r++)
            CHECK(strcmp(str(&t, r, name), eq + 1) == 0, "row %zu: %s is '%s', expected '%s'", r,
                  name, str(&t, r, name), eq + 1);
    }
    if (env) {
        mbx_csv_table e;
        if (mbx_csv_read_file(env, &e) < 0) {
            CHECK(0, "cannot parse %s", env);
        } else {
            static const char *const keys[] = {"format_version",
                                               "tool_version",
                                               "mpi_library_version",
                                               "ranks",
                                               "hosts",
                                               "ranks_per_host",
                                               "rank.0.binding",
                                               "timer",
                                               "timer_resolution_s",
                                               "timer_overhead_s",
                                               "sync",
                                               "compiler",
                                               "cflags"};
            for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
                int seen = 0;
                for (size_t r = 1; r < e.nrows; r++)
                    seen |= e.ncols[r] == 2 && strcmp(e.cell[r][0], keys[k]) == 0;
                CHECK(seen, "%s: no key %s", env, keys[k]);
            }
            for (size_t r = 1; r < e.nrows; r++) {
                const char *k = e.cell[r][0];
                /* Only whitelisted environment variables may appear. */
                if (strncmp(k, "env.", 4) == 0)
                    CHECK(!strncmp(k + 4, "MPICH_", 6) || !strncmp(k + 4, "MPIR_CVAR_", 10) ||
                              !strncmp(k + 4, "UCX_", 4) || !strncmp(k + 4, "OMPI_", 5) ||
                              !strncmp(k + 4, "FI_", 3) || slurm_fact(k + 4),
                          "%s: non-whitelisted variable %s", env, k);
                /* Nor Open MPI's per-launch bookkeeping (envcap.c). */
                if (strncmp(k, "env.OMPI_", 9) == 0)
                    CHECK(!strncmp(k + 9, "MCA_", 4) && strncmp(k + 13, "orte_", 5) &&
                              strncmp(k + 13, "ess", 3),
                          "%s: launch bookkeeping recorded: %s", env, k);
            }
            mbx_csv_table_free(&e);
        }
    }
    if (obsf) {
        mbx_csv_table o;
        if (mbx_csv_read_file(obsf, &o) < 0) {
            CHECK(0, "cannot parse %s", obsf);
        } else {
            CHECK((double)(o.nrows - 1) == total_n, "%s: %zu observations, results say %g", obsf,
                  o.nrows - 1, total_n);
            CHECK(mbx_csv_table_col(&o, "time_us") >= 0, "%s: no time_us column", obsf);
            mbx_csv_table_free(&o);
        }
    }
    size_t nrows = t.nrows ? t.nrows - 1 : 0;
    mbx_csv_table_free(&t);
    if (mbx_cc_failures == 0)
        printf("csvcheck: %s: %zu rows OK\n", argv[1], nrows);
    return mbx_cc_failures ? 1 : 0;
}
