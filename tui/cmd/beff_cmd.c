/* `mpibex beff`: the effective bandwidth b_eff in batch mode. Rank 0
 * validates everything first (exit 2, one stderr line), then runs
 * mbx_beff_run: a row per measurement on stdout and in -o OUT.csv, the
 * summary at the end of stdout and in OUT.summary.csv, the environment in
 * OUT.env.csv. SIGINT stops between measurements (exit 128 + signal). */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "beff_cmd.h"
#include "core/opt.h"
#include "job.h"
#include "mbx/ascii.h"
#include "mbx/beff.h"
#include "mbx/beff_run.h"
#include "mbx/csvio.h"
#include "mbx/envfile.h"
#include "mbx/output.h"
#include "mbx/sizes.h"
#include "mbx/version.h"
#include "tprint.h"

#define MSG_LEN 512
#define QUICK_DEFAULT ((uint64_t)1 << 20)

typedef struct beff_cli {
    mbx_beff_opts o;
    const char *output;
    int quiet, help, seed_given, force;
} beff_cli;

typedef struct beff_state {
    beff_cli c;
    mbx_csv_writer *csv;
    int tty, procs;
    double t0, last;
} beff_state;

static const char *const row_cols[] = {
    "pattern",
    "kind",
    "size_index",
    "bytes",
    "method",
    "looplength",
    "messages",
    "reps",
    "time_us",
    "bandwidth_MBps",
    "bandwidth_per_proc_MBps",
};
#define ROW_NCOLS (sizeof row_cols / sizeof row_cols[0])

static const char *const sum_cols[] = {
    "b_eff_MBps",
    "b_eff_per_proc_MBps",
    "b_eff_Lmax_MBps",
    "b_eff_Lmax_per_proc_MBps",
    "ring_Lmax_MBps",
    "ring_Lmax_per_proc_MBps",
    "pingpong_Lmax_MBps",
    "ring_logavg_MBps",
    "random_logavg_MBps",
    "Lmax_bytes",
    "mem_per_proc_bytes",
    "mem_source",
    "procs",
    "random_patterns",
    "reps",
    "seed",
    "rmax_GFlops",
    "balance_byte_per_flop",
    "wall_s",
    "rules",
};
#define SUM_NCOLS (sizeof sum_cols / sizeof sum_cols[0])

static const char *const kind_names[] = {"ring", "random", "detail"};

void mbx_beff_usage(void)
{
    printf("Usage: mpiexec -n N mpibex beff [options]          (N >= 2)\n"
           "\n"
           "The effective bandwidth b_eff (Rabenseifner & Koniges, section 4): 6 ring and\n"
           "30 random patterns, 21 sizes 1 B..L_max, methods Sendrecv, Alltoallv and\n"
           "Irecv/Isend/Waitall, loop 300 at 1 B then 2.5-5 ms, max over 3 repetitions\n"
           "and the methods, sum over sizes / 21, logarithmic averages. Detail patterns\n"
           "(worst cycle, bi-sections, 2-D/3-D Cartesian, ping-pong) outside the average.\n"
           "\n"
           "Options:\n"
           "  -o FILE             detail table as CSV; also FILE.summary.csv, FILE.env.csv\n"
           "                      (/dev/null discards; an existing FILE needs --force)\n"
           "  --force             write over the results at FILE\n"
           "  --mem-per-proc SIZE memory per process (L_max = SIZE / 128), >= 512KiB;\n"
           "                      default: the host's MemAvailable / ranks on the host\n"
           "  --cap128            cap L_max at 128 MiB (the paper's 32-bit rule)\n"
           "  --quick[=SIZE]      cap L_max at SIZE (default 1MiB, >= 4KiB) for a fast look\n"
           "  --rmax GFLOPS       the machine's Linpack Rmax: print the balance factor\n"
           "  --seed N            seed of the random patterns (default: the time)\n"
           "  --random N          random patterns, 1..1000 (default 30, as b_eff 3.x)\n"
           "  --reps N            repetitions, 1..100 (default 3, the paper's)\n"
           "  -q, --quiet         no progress on stderr\n"
           "  -h, --help          this text\n"
           "\n"
           "Sizes: 1, 64, 4K, 4KiB, 1M, 1MiB (K/M/G are binary multiples).\n"
           "Bandwidths are in MB/s = 1e6 bytes/s.\n");
}

static int on_quick(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    beff_cli *c = p->dst;
    char why[256];
    (void)o, (void)name;
    c->o.quick_lmax = QUICK_DEFAULT;
    if (v != NULL && (mbx_size_parse(v, &c->o.quick_lmax, why, sizeof why) < 0 ||
                      c->o.quick_lmax < MBX_BEFF_LMIN))
        return mbx_opt_bad(&p->out, "--quick: expected a size of at least 4KiB, got '%s'", v);
    return 0;
}

static int on_mem(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    beff_cli *c = p->dst;
    char why[256];
    (void)o, (void)name;
    if (mbx_size_parse(v, &c->o.mem_per_proc, why, sizeof why) < 0 ||
        c->o.mem_per_proc < MBX_BEFF_MEM_MIN)
        return mbx_opt_bad(&p->out, "--mem-per-proc: expected a size from 512KiB to 1TiB, got '%s'",
                           v);
    return 0;
}

static int on_rmax(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    beff_cli *c = p->dst;
    char *end;
    (void)o, (void)name;
    errno = 0;
    c->o.rmax_gflops = mbx_strtod(v, &end);
    if (errno || end == v || *end || !(c->o.rmax_gflops > 0) || !isfinite(c->o.rmax_gflops))
        return mbx_opt_bad(&p->out, "--rmax: expected GFlop/s > 0, got '%s'", v);
    return 0;
}

/* --seed, --random, --reps: whole numbers in a range. */
static int on_count(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    beff_cli *c = p->dst;
    long n;
    (void)o;
    if (strcmp(name, "--seed") == 0) {
        if (mbx_opt_whole(v, 0, 4294967295L, &n) < 0)
            return mbx_opt_bad(&p->out, "--seed: expected an integer in 0..4294967295, got '%s'",
                               v);
        c->o.seed = (unsigned)n;
        c->seed_given = 1;
    } else if (strcmp(name, "--random") == 0) {
        if (mbx_opt_whole(v, 1, MBX_BEFF_NRANDOM_MAX, &n) < 0)
            return mbx_opt_bad(&p->out, "--random: expected an integer in 1..1000, got '%s'", v);
        c->o.nrandom = (int)n;
    } else {
        if (mbx_opt_whole(v, 1, 100, &n) < 0)
            return mbx_opt_bad(&p->out, "--reps: expected an integer in 1..100, got '%s'", v);
        c->o.reps = (int)n;
    }
    return 0;
}

static const mbx_opt beff_opts[] = {
    {"--help", "-h", NULL, 0, NULL, offsetof(beff_cli, help)},
    {"--quiet", "-q", NULL, 0, NULL, offsetof(beff_cli, quiet)},
    {"--force", NULL, NULL, 0, NULL, offsetof(beff_cli, force)},
    {"--cap128", NULL, NULL, 0, NULL, offsetof(beff_cli, o.cap128)},
    {"--quick", NULL, "SIZE", MBX_OPT_OPTIONAL, on_quick, 0},
    {NULL, "-o", "FILE", 0, NULL, offsetof(beff_cli, output)},
    {"--mem-per-proc", NULL, "SIZE", 0, on_mem, 0},
    {"--rmax", NULL, "GFLOPS", 0, on_rmax, 0},
    {"--seed", NULL, "N", 0, on_count, 0},
    {"--random", NULL, "N", 0, on_count, 0},
    {"--reps", NULL, "N", 0, on_count, 0},
};

/* The options into c; 0, or 2 and the message in msg[MSG_LEN]. */
static int parse_cli(int argc, char **argv, beff_cli *c, char *msg)
{
    memset(c, 0, sizeof *c);
    c->o.reps = 3;
    c->o.nrandom = MBX_BEFF_NRANDOM;
    mbx_opt_parser p = {.opts = beff_opts,
                        .nopts = MBX_OPT_COUNT(beff_opts),
                        .dst = c,
                        .out = {.msg = msg, .len = MSG_LEN},
                        .unknown = "unknown option '%s' (try 'mpibex beff --help')",
                        .missing = "%s: needs a value"};
    int rc = mbx_opt_parse(&p, argc, argv, 0);
    if (rc == 0 && !c->seed_given)
        c->o.seed = (unsigned)time(NULL);
    return rc;
}

static int on_row(void *ud, const mbx_beff_row *r, size_t done, size_t total)
{
    beff_state *st = ud;
    if (mbx_stop_signal)
        return 1;
    printf("%-13s %-6s %2d %11llu %-11s %5d %12.2f %12.2f\n", r->pattern, kind_names[r->kind],
           r->size_index, (unsigned long long)r->bytes, r->method, r->looplength, r->time_s * 1e6,
           r->mbps);
    if (st->csv) {
        char f[ROW_NCOLS][40];
        snprintf(f[0], 40, "%s", r->pattern);
        snprintf(f[1], 40, "%s", kind_names[r->kind]);
        snprintf(f[2], 40, "%d", r->size_index);
        snprintf(f[3], 40, "%llu", (unsigned long long)r->bytes);
        snprintf(f[4], 40, "%s", r->method);
        snprintf(f[5], 40, "%d", r->looplength);
        snprintf(f[6], 40, "%d", r->messages);
        snprintf(f[7], 40, "%d", st->c.o.reps);
        snprintf(f[8], 40, "%.3f", r->time_s * 1e6);
        snprintf(f[9], 40, "%.4f", r->mbps);
        snprintf(f[10], 40, "%.4f", r->mbps / st->procs);
        const char *fp[ROW_NCOLS];
        for (size_t i = 0; i < ROW_NCOLS; i++)
            fp[i] = f[i];
        if (mbx_csv_writer_row(st->csv, fp) < 0)
            return 1;
    }
    if (!st->c.quiet) {
        double now = MPI_Wtime();
        if (st->tty && now - st->last > 0.1) {
            fprintf(stderr, "\r\033[K[%zu/%zu] %s %llu B %s", done, total, r->pattern,
                    (unsigned long long)r->bytes, r->method);
            st->last = now;
        } else if (!st->tty && (now - st->last > 5.0 || done == total)) {
            fprintf(stderr, "progress: %zu/%zu measurements, %.1f s elapsed\n", done, total,
                    now - st->t0);
            st->last = now;
        }
    }
    return 0;
}

static int write_env(mbx_engine *e, const char *path, char *msg)
{
    int rc = mbx_env_write(e, mbx_job_thread_asked(), mbx_job_thread_granted(), path);
    if (rc < 0)
        snprintf(msg, MSG_LEN, "-o: cannot write the environment to '%s': %s", path,
                 mbx_strerror(rc));
    return rc < 0;
}

static int write_summary(const beff_state *st, const mbx_beff_summary *s, double wall,
                         const char *path)
{
    char v[SUM_NCOLS][64];
    int p = s->procs;
    snprintf(v[0], 64, "%.4f", s->beff_mbps);
    snprintf(v[1], 64, "%.4f", s->beff_per_proc_mbps);
    snprintf(v[2], 64, "%.4f", s->beff_lmax_mbps);
    snprintf(v[3], 64, "%.4f", s->beff_lmax_mbps / p);
    snprintf(v[4], 64, "%.4f", s->ring_lmax_mbps);
    snprintf(v[5], 64, "%.4f", s->ring_lmax_mbps / p);
    snprintf(v[6], 64, "%.4f", s->pingpong_lmax_mbps);
    snprintf(v[7], 64, "%.4f", s->ring_logavg_mbps);
    snprintf(v[8], 64, "%.4f", s->random_logavg_mbps);
    snprintf(v[9], 64, "%llu", (unsigned long long)s->lmax);
    snprintf(v[10], 64, "%llu", (unsigned long long)s->mem_per_proc);
    snprintf(v[11], 64, "%s", s->mem_source);
    snprintf(v[12], 64, "%d", p);
    snprintf(v[13], 64, "%d", s->nrandom);
    snprintf(v[14], 64, "%d", st->c.o.reps);
    snprintf(v[15], 64, "%u", st->c.o.seed);
    if (st->c.o.rmax_gflops > 0) {
        snprintf(v[16], 64, "%.6g", st->c.o.rmax_gflops);
        snprintf(v[17], 64, "%.6g", s->balance);
    } else {
        v[16][0] = v[17][0] = '\0';
    }
    snprintf(v[18], 64, "%.3f", wall);
    const char *f[SUM_NCOLS];
    for (size_t i = 0; i < SUM_NCOLS; i++)
        f[i] = v[i];
    f[SUM_NCOLS - 1] = s->rules;
    mbx_csv_writer *w = NULL;
    int rc = mbx_csv_writer_open(path, sum_cols, SUM_NCOLS, &w);
    if (rc >= 0)
        rc = mbx_csv_writer_row(w, f);
    if (mbx_csv_writer_close(w) < 0 && rc >= 0)
        rc = MBX_E_IO;
    return rc;
}

static void print_summary(const beff_state *st, const mbx_beff_summary *s, double wall)
{
    int p = s->procs;
    printf("# summary: b_eff of %d processes (paper section 4)\n", p);
    printf("b_eff                  %12.2f MB/s\n", s->beff_mbps);
    printf("b_eff per process      %12.2f MB/s\n", s->beff_per_proc_mbps);
    printf("b_eff at L_max         %12.2f MB/s  (%.2f per process)\n", s->beff_lmax_mbps,
           s->beff_lmax_mbps / p);
    printf("ring patterns at L_max %12.2f MB/s  (%.2f per process)\n", s->ring_lmax_mbps,
           s->ring_lmax_mbps / p);
    printf("ping-pong at L_max     %12.2f MB/s  (ranks 0 and 1)\n", s->pingpong_lmax_mbps);
    printf("ring / random logavg   %12.2f / %.2f MB/s\n", s->ring_logavg_mbps,
           s->random_logavg_mbps);
    if (st->c.o.rmax_gflops > 0)
        printf("balance factor         %12.6f byte/flop  (b_eff / Rmax, Rmax %.6g GFlop/s)\n",
               s->balance, st->c.o.rmax_gflops);
    printf("L_max %llu bytes (memory per process %llu bytes: %s%s); %d procs; wall %.1f s\n",
           (unsigned long long)s->lmax, (unsigned long long)s->mem_per_proc, s->mem_source,
           s->lmax_capped ? "; capped" : "", p, wall);
    printf("rules: %s\n", s->rules);
    fflush(stdout);
}

/* The head of the table: job, sizes, and how every pattern is built. */
static int print_head(const beff_state *st, uint64_t mem, const char *src, uint64_t lmax,
                      const mbx_job_info *job)
{
    uint64_t sizes[MBX_BEFF_NSIZES];
    mbx_beff_patterns ps;
    if (mbx_beff_sizes(lmax, sizes) < 0 ||
        mbx_beff_patterns_build(st->procs, st->c.o.nrandom, st->c.o.seed, &ps) < 0)
        return 1;
    printf("# mpibex %s beff: %d ranks on %d host%s; memory per process %llu bytes (%s); "
           "L_max %llu bytes%s\n",
           MBX_VERSION, st->procs, job->nhosts, job->nhosts == 1 ? "" : "s",
           (unsigned long long)mem, src, (unsigned long long)lmax,
           st->c.o.cap128 || st->c.o.quick_lmax ? " (after caps)" : "");
    printf("# sizes:");
    for (int k = 0; k < MBX_BEFF_NSIZES; k++)
        printf(" %llu", (unsigned long long)sizes[k]);
    printf("\n");
    for (size_t i = 0; i < ps.n; i++) {
        const mbx_beff_pattern *pt = &ps.p[i];
        if (pt->kind == MBX_BEFF_RANDOM && i != (size_t)ps.nring)
            continue;
        printf("# %-12s %-6s %s; %d messages per iteration%s\n",
               pt->kind == MBX_BEFF_RANDOM ? "random1.." : pt->name, kind_names[pt->kind], pt->desc,
               pt->messages, pt->kind == MBX_BEFF_DETAIL ? " (not in b_eff)" : "");
    }
    if (st->procs == 2)
        printf("# 2 ranks: every ring pattern and every random pattern is the same ring of 2;\n"
               "# left and right neighbour are the same process, which still gets both\n"
               "# messages (Alltoallv: one block of 2L bytes)\n");
    printf("# time_us: loop of `looplength` iterations, max over processes, best of %d reps\n",
           st->c.o.reps);
    printf("%-13s %-6s %2s %11s %-11s %5s %12s %12s\n", "# pattern", "kind", "k", "bytes", "method",
           "loop", "time_us", "MB/s");
    fflush(stdout);
    mbx_beff_patterns_free(&ps);
    return 0;
}

static int fail(const char *msg)
{
    mbx_tprintf(stderr, "mpibex: %s\n", msg);
    return 1;
}

/* Memory per process (given, or the job's) and L_max from it, checked.
 * Returns 0, or 2 with msg. */
static int lmax_of(const beff_state *st, const mbx_job_info *job, uint64_t *mem, const char **src,
                   uint64_t *lmax, char *msg)
{
    *mem = st->c.o.mem_per_proc ? st->c.o.mem_per_proc : job->mem_per_rank;
    *src = st->c.o.mem_per_proc ? "--mem-per-proc"
                                : "MemAvailable / ranks on the host (min over hosts)";
    if (*mem < MBX_BEFF_MEM_MIN) {
        snprintf(msg, MSG_LEN,
                 "--mem-per-proc: the host's memory per rank is unknown or below 512KiB; give "
                 "--mem-per-proc SIZE (512KiB to 1TiB)");
        return 2;
    }
    *lmax = mbx_beff_lmax(*mem, st->c.o.cap128, st->c.o.quick_lmax);
    if (*lmax > (uint64_t)INT32_MAX / MBX_BEFF_MAXSTEPS) {
        snprintf(msg, MSG_LEN,
                 "L_max: %llu bytes is too large for MPI int counts (at most %d); give --cap128 "
                 "or a smaller --mem-per-proc",
                 (unsigned long long)*lmax, INT32_MAX / MBX_BEFF_MAXSTEPS);
        return 2;
    }
    return 0;
}

/* -o claimed for the whole run (mbx/output.h; the lock goes with the
 * process) and the table's CSV opened, with the sidecars' paths. The
 * table is on stdout already, so "-" is refused. Returns 0, or an exit
 * code with msg (nothing left claimed or allocated). */
static int open_output(beff_state *st, mbx_output *claim, char **sum_path, char **env_path,
                       char *msg)
{
    static const char *const sidecars[] = {".summary.csv", ".env.csv", NULL};
    mbx_output_req req = {.path = st->c.output,
                          .flags = MBX_OUTPUT_ALLOW_DISCARD | (st->c.force ? MBX_OUTPUT_FORCE : 0),
                          .sidecars = sidecars};
    int rc;
    memset(claim, 0, sizeof *claim);
    if (st->c.output && (rc = mbx_output_claim(&req, claim, msg, MSG_LEN)) < 0)
        return rc == MBX_E_NOMEM ? 1 : 2;
    if (claim->kind == MBX_OUTPUT_DISCARD)
        st->c.output = NULL;
    if (!st->c.output)
        return 0;
    *sum_path = mbx_csv_sidecar(st->c.output, ".summary.csv");
    *env_path = mbx_csv_sidecar(st->c.output, ".env.csv");
    if (!*sum_path || !*env_path ||
        mbx_csv_writer_open(st->c.output, row_cols, ROW_NCOLS, &st->csv) < 0) {
        snprintf(msg, MSG_LEN, "-o: cannot write '%s': %s", st->c.output, strerror(errno));
        free(*sum_path);
        free(*env_path);
        *sum_path = *env_path = NULL;
        mbx_output_release(claim);
        return 2;
    }
    return 0;
}

/* The measurement: every pattern's rows, then the summary (printed and in
 * sum_path), or what stopped it. Returns the exit code. */
static int measure(mbx_engine *e, beff_state *st, const char *sum_path, char *msg)
{
    st->tty = isatty(STDERR_FILENO) && !isatty(STDOUT_FILENO);
    st->t0 = st->last = MPI_Wtime();
    mbx_beff_summary s;
    int rc = mbx_beff_run(e, &st->c.o, on_row, st, &s);
    double wall = MPI_Wtime() - st->t0;
    if (st->tty && !st->c.quiet)
        fprintf(stderr, "\r\033[K");
    if (rc == MBX_E_ABORTED && mbx_stop_signal) {
        char who[32] = "";
        int from = mbx_sig_from_rank(mbx_engine_stop_rank(e));
        if (from > 0)
            snprintf(who, sizeof who, " (at rank %d)", from);
        fprintf(stderr, "mpibex: beff stopped by signal %d%s after %.1f s%s%s; no summary\n",
                (int)mbx_stop_signal, who, wall, st->c.output ? ": the rows so far are in " : "",
                st->c.output ? st->c.output : "");
        return 128 + (int)mbx_stop_signal;
    }
    if (rc < 0) {
        snprintf(msg, MSG_LEN, "beff failed: %s", mbx_strerror(rc));
        return fail(msg);
    }
    print_summary(st, &s, wall);
    if (sum_path && write_summary(st, &s, wall, sum_path) < 0) {
        snprintf(msg, MSG_LEN, "-o: cannot write '%s'", sum_path);
        return fail(msg);
    }
    return 0;
}

static int beff_root(mbx_engine *e, int argc, char **argv)
{
    beff_state st;
    memset(&st, 0, sizeof st);
    char msg[MSG_LEN];
    int rc = parse_cli(argc, argv, &st.c, msg);
    if (rc) {
        fail(msg);
        return rc;
    }
    if (st.c.help) {
        mbx_beff_usage();
        return 0;
    }
    st.procs = mbx_engine_size(e);
    if (st.procs < 2) {
        fail("beff: needs at least 2 ranks, the job has 1 (mpiexec -n 2 or more)");
        return 2;
    }
    const mbx_job_info *job;
    if ((rc = mbx_engine_describe(e, &job)) < 0) {
        snprintf(msg, sizeof msg, "describing the job failed: %s", mbx_strerror(rc));
        return fail(msg);
    }
    uint64_t mem, lmax;
    const char *src;
    char *sum_path = NULL, *env_path = NULL;
    mbx_output claim;
    if ((rc = lmax_of(&st, job, &mem, &src, &lmax, msg)) != 0 ||
        (rc = open_output(&st, &claim, &sum_path, &env_path, msg)) != 0) {
        fail(msg);
        return rc;
    }
    int code = 0;
    if ((rc = mbx_engine_configure(e, MBX_TIMER_WTIME, NULL, NULL)) < 0) {
        snprintf(msg, sizeof msg, "configuring the timer failed: %s", mbx_strerror(rc));
        code = fail(msg);
    }
    if (!code && env_path && write_env(e, env_path, msg))
        code = fail(msg);
    if (!code && print_head(&st, mem, src, lmax, job))
        code = fail("out of memory");
    if (!code)
        code = measure(e, &st, sum_path, msg);
    if (mbx_csv_writer_close(st.csv) < 0 && !code) {
        snprintf(msg, sizeof msg, "-o: closing '%s' failed", st.c.output);
        code = fail(msg);
    }
    free(sum_path);
    free(env_path);
    mbx_output_release(&claim);
    return code;
}

int mbx_beff_cmd(int argc, char **argv)
{
    return mbx_job_run(argc, argv, beff_root);
}
