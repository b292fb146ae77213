/* `mpibex beffio`: the b_eff_io batch front end. Rank 0 validates the
 * options before anything is written (exit 2 with one line), runs
 * mbx_beffio_run(), prints progress on stderr, the table and the summary on
 * stdout, and writes OUT.csv, OUT.summary.csv and OUT.env.csv. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "beffio_cmd.h"
#include "core/opt.h"
#include "job.h"
#include "mbx/ascii.h"
#include "mbx/beffio.h"
#include "mbx/beffio_run.h"
#include "mbx/csvio.h"
#include "mbx/envfile.h"
#include "mbx/output.h"
#include "tprint.h"

#define MSG_LEN 1024
#define T_MAX_S 86400.0

static const char *const row_cols[] = {
    "type", "pattern", "access", "chunk_bytes",    "mem_bytes", "wellformed", "unit",
    "reps", "bytes",   "time_s", "bandwidth_MBps", "procs",     "T_s",
};
#define NROW (sizeof row_cols / sizeof row_cols[0])

static const char *const sum_cols[] = {
    "b_eff_io_MBps",
    "write_MBps",
    "rewrite_MBps",
    "read_MBps",
    "type0_MBps",
    "type1_MBps",
    "type2_MBps",
    "type3_MBps",
    "type4_MBps",
    "type0_write_MBps",
    "type0_rewrite_MBps",
    "type0_read_MBps",
    "type1_write_MBps",
    "type1_rewrite_MBps",
    "type1_read_MBps",
    "type2_write_MBps",
    "type2_rewrite_MBps",
    "type2_read_MBps",
    "type3_write_MBps",
    "type3_rewrite_MBps",
    "type3_read_MBps",
    "type4_write_MBps",
    "type4_rewrite_MBps",
    "type4_read_MBps",
    "procs",
    "T_s",
    "MPART_bytes",
    "wall_s",
    "rules",
};
#define NSUM (sizeof sum_cols / sizeof sum_cols[0])

typedef struct cmd_opts {
    mbx_beffio_opts o;
    const char *output;
    int help;
    int quiet;
    int force;
} cmd_opts;

typedef struct out_state {
    mbx_csv_writer *csv;
    int io_failed;
    int tty;
    int quiet;
    int procs;
    double T_s;
} out_state;

static void usage(void)
{
    printf("Usage: mpiexec -n N mpibex beffio [options]\n"
           "The effective MPI-IO bandwidth b_eff_io (Rabenseifner & Koniges, section 5 and\n"
           "Table 2): pattern types 0-4, initial write, rewrite and read, time-driven.\n"
           "  --time SECONDS        scheduled time T (default 10; the paper uses 900 or more)\n"
           "  --dir DIR             where the files go (default $TMPDIR, else /tmp); they are\n"
           "                        always removed, also after a failure or Ctrl-C\n"
           "  --mem-per-proc SIZE   memory per process for MPART = max(2 MiB, SIZE/128)\n"
           "                        (default: host memory / ranks on the host); K, M, G suffixes\n"
           "  -o FILE.csv           per-pattern table; FILE.summary.csv and FILE.env.csv beside\n"
           "                        (/dev/null discards; an existing FILE needs --force)\n"
           "  --force               write over the results at FILE.csv\n"
           "  -q, --quiet           no progress lines on stderr\n"
           "  -h, --help            this text\n");
}

static int parse_size(const char *s, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-')
        return -1;
    uint64_t mul = 1;
    if (*end) {
        switch (*end) {
        case 'k':
        case 'K': mul = 1ull << 10; break;
        case 'm':
        case 'M': mul = 1ull << 20; break;
        case 'g':
        case 'G': mul = 1ull << 30; break;
        case 't':
        case 'T': mul = 1ull << 40; break;
        case 'p':
        case 'P': mul = 1ull << 50; break;
        default: return -1;
        }
        end++;
        if (*end == 'i')
            end++;
        if (*end == 'B')
            end++;
        if (*end)
            return -1;
    }
    if (v > UINT64_MAX / mul)
        return -1;
    *out = (uint64_t)v * mul;
    return 0;
}

static int on_help(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    ((cmd_opts *)p->dst)->help = 1;
    return mbx_opt_help(p, o, name, v);
}

static int on_time(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    char *end = NULL;
    (void)o, (void)name;
    errno = 0;
    double t = mbx_strtod(v, &end);
    if (errno || end == v || *end || !(t >= 0.1 && t <= T_MAX_S))
        return mbx_opt_bad(&p->out, "--time: '%s' is not a number of seconds in 0.1..86400", v);
    ((cmd_opts *)p->dst)->o.T_s = t;
    return 0;
}

static int on_dir(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    (void)o, (void)name;
    if (!*v)
        return mbx_opt_bad(&p->out, "--dir: needs a directory");
    ((cmd_opts *)p->dst)->o.dir = v;
    return 0;
}

static int on_mem(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    uint64_t m = 0;
    (void)o, (void)name;
    if (parse_size(v, &m) != 0 || m < (1ull << 20) || m > (1ull << 50))
        return mbx_opt_bad(&p->out, "--mem-per-proc: '%s' is not a size in 1M..1P bytes", v);
    ((cmd_opts *)p->dst)->o.mem_per_proc = m;
    return 0;
}

static const mbx_opt beffio_opts[] = {
    {"--help", "-h", NULL, 0, on_help, 0},
    {"--quiet", "-q", NULL, 0, NULL, offsetof(cmd_opts, quiet)},
    {"--force", NULL, NULL, 0, NULL, offsetof(cmd_opts, force)},
    {"--time", NULL, "SECONDS", 0, on_time, 0},
    {"--dir", NULL, "DIR", 0, on_dir, 0},
    {"--mem-per-proc", NULL, "SIZE", 0, on_mem, 0},
    {"--output", "-o", "FILE.csv", 0, NULL, offsetof(cmd_opts, output)},
};

/* The options into c; 0, or 2 and the message in msg[MSG_LEN]. */
static int parse(int argc, char **argv, cmd_opts *c, char *msg)
{
    mbx_opt_parser p = {.opts = beffio_opts,
                        .nopts = MBX_OPT_COUNT(beffio_opts),
                        .dst = c,
                        .out = {.msg = msg, .len = MSG_LEN},
                        .unknown = "unknown option '%s' (try 'mpibex beffio --help')",
                        .missing = "%s: needs a value"};
    return mbx_opt_parse(&p, argc, argv, 0);
}

static int on_row(void *ud, const mbx_beffio_row *r, size_t done, size_t total)
{
    out_state *st = ud;
    if (!st->quiet)
        fprintf(stderr, "%s[%3zu/%zu] type %d pattern %2d %-7s %8.2f MB/s%s", st->tty ? "\r" : "",
                done, total, r->type, r->pattern, r->access, r->mbps, st->tty ? "" : "\n");
    printf("%4d %7d %-7s %12llu %5s %8llu %12.0f %9.4f %12.2f\n", r->type, r->pattern, r->access,
           (unsigned long long)r->chunk_bytes, r->wellformed ? "yes" : "+8",
           (unsigned long long)r->reps, r->bytes_total, r->time_s, r->mbps);
    if (st->csv) {
        char f[NROW][48];
        snprintf(f[0], 48, "%d", r->type);
        snprintf(f[1], 48, "%d", r->pattern);
        snprintf(f[2], 48, "%s", r->access);
        snprintf(f[3], 48, "%llu", (unsigned long long)r->chunk_bytes);
        snprintf(f[4], 48, "%llu", (unsigned long long)r->mem_bytes);
        snprintf(f[5], 48, "%d", r->wellformed);
        snprintf(f[6], 48, "%d", r->unit);
        snprintf(f[7], 48, "%llu", (unsigned long long)r->reps);
        snprintf(f[8], 48, "%.0f", r->bytes_total);
        snprintf(f[9], 48, "%.9g", r->time_s);
        snprintf(f[10], 48, "%.6g", r->mbps);
        snprintf(f[11], 48, "%d", st->procs);
        snprintf(f[12], 48, "%.6g", st->T_s);
        const char *p[NROW];
        for (size_t i = 0; i < NROW; i++)
            p[i] = f[i];
        if (mbx_csv_writer_row(st->csv, p) < 0)
            st->io_failed = 1;
    }
    return st->io_failed;
}

static int write_summary(const char *path, const mbx_beffio_summary *s)
{
    char f[NSUM][64];
    const char *p[NSUM];
    size_t n = 0;
    snprintf(f[n++], 64, "%.6g", s->beffio_mbps);
    for (int a = 0; a < 3; a++)
        snprintf(f[n++], 64, "%.6g", s->per_access_mbps[a]);
    for (int t = 0; t < 5; t++)
        snprintf(f[n++], 64, "%.6g", s->per_type_mbps[t]);
    for (int t = 0; t < 5; t++)
        for (int a = 0; a < 3; a++)
            snprintf(f[n++], 64, "%.6g", s->type_access_mbps[t][a]);
    snprintf(f[n++], 64, "%d", s->procs);
    snprintf(f[n++], 64, "%.6g", s->T_s);
    snprintf(f[n++], 64, "%llu", (unsigned long long)s->mpart_bytes);
    snprintf(f[n++], 64, "%.3f", s->wall_s);
    for (size_t i = 0; i < n; i++)
        p[i] = f[i];
    p[n] = s->rules;
    mbx_csv_writer *w = NULL;
    int rc = mbx_csv_writer_open(path, sum_cols, NSUM, &w);
    if (rc >= 0)
        rc = mbx_csv_writer_row(w, p);
    if (mbx_csv_writer_close(w) < 0 && rc >= 0)
        rc = MBX_E_IO;
    return rc;
}

/* -o claimed for the whole run (mbx/output.h; the table is on stdout
 * already, so "-" is refused), the table's CSV opened and the environment
 * written, with the sidecars' paths. Returns 0, or an exit code after the
 * message (nothing left claimed, open or allocated). */
static int open_output(mbx_engine *e, cmd_opts *c, out_state *st, mbx_output *claim,
                       char **sum_path, char **env_path)
{
    static const char *const sidecars[] = {".summary.csv", ".env.csv", NULL};
    char msg[MSG_LEN] = "";
    mbx_output_req req = {.path = c->output,
                          .flags = MBX_OUTPUT_ALLOW_DISCARD | (c->force ? MBX_OUTPUT_FORCE : 0),
                          .sidecars = sidecars};
    int rc;
    memset(claim, 0, sizeof *claim);
    if (c->output && (rc = mbx_output_claim(&req, claim, msg, sizeof msg)) < 0) {
        mbx_tprintf(stderr, "mpibex: %s\n", msg);
        return rc == MBX_E_NOMEM ? 1 : 2;
    }
    if (claim->kind == MBX_OUTPUT_DISCARD)
        c->output = NULL;
    if (!c->output)
        return 0;
    *sum_path = mbx_csv_sidecar(c->output, ".summary.csv");
    *env_path = mbx_csv_sidecar(c->output, ".env.csv");
    if (!*sum_path || !*env_path || mbx_csv_writer_open(c->output, row_cols, NROW, &st->csv) < 0 ||
        mbx_env_write(e, mbx_job_thread_asked(), mbx_job_thread_granted(), *env_path) < 0) {
        fprintf(stderr, "mpibex: -o: cannot write '%s' and its sidecars: %s\n", c->output,
                strerror(errno));
        (void)mbx_csv_writer_close(st->csv);
        st->csv = NULL;
        free(*sum_path);
        free(*env_path);
        *sum_path = *env_path = NULL;
        mbx_output_release(claim);
        return 2;
    }
    return 0;
}

static void print_head(const out_state *st)
{
    char rules[512];
    mbx_beffio_rules(rules, sizeof rules);
    printf("# mpibex beffio: b_eff_io on %d processes, T = %g s\n# rules: %s\n", st->procs, st->T_s,
           rules);
    printf("%4s %7s %-7s %12s %5s %8s %12s %9s %12s\n", "type", "pattern", "access", "chunk_bytes",
           "wellf", "reps", "bytes", "time_s", "MB/s");
    fflush(stdout);
}

/* The exit code of the run from mbx_beffio_run's rc (and msg), after its
 * message. */
static int run_code(int rc, const out_state *st, const cmd_opts *c, const char *msg)
{
    if (rc == MBX_E_ABORTED && mbx_stop_signal) {
        fprintf(stderr, "mpibex: interrupted by signal %d: %s; files removed\n",
                (int)mbx_stop_signal, msg);
        return 128 + (int)mbx_stop_signal;
    }
    if (rc == MBX_E_ABORTED && st->io_failed) {
        fprintf(stderr, "mpibex: -o: writing '%s' failed; files removed\n", c->output);
        return 1;
    }
    if (rc == MBX_E_RANGE || rc == MBX_E_INVAL) {
        mbx_tprintf(stderr, "mpibex: %s\n", msg);
        return 2;
    }
    if (rc < 0) {
        mbx_tprintf(stderr, "mpibex: b_eff_io failed: %s; files removed\n", msg);
        return 1;
    }
    return 0;
}

static void print_summary(const mbx_beffio_summary *s)
{
    printf("# type x access (MB/s, bytes / open..close):\n");
    for (int t = 0; t < MBX_BEFFIO_NTYPES; t++)
        printf("#   type %d: write %10.2f  rewrite %10.2f  read %10.2f\n", t,
               s->type_access_mbps[t][0], s->type_access_mbps[t][1], s->type_access_mbps[t][2]);
    printf("procs: %d\nT_s: %g\nMPART_bytes: %llu\nwall_s: %.2f\n", s->procs, s->T_s,
           (unsigned long long)s->mpart_bytes, s->wall_s);
    printf("write_MBps: %.2f\nrewrite_MBps: %.2f\nread_MBps: %.2f\n", s->per_access_mbps[0],
           s->per_access_mbps[1], s->per_access_mbps[2]);
    for (int t = 0; t < MBX_BEFFIO_NTYPES; t++)
        printf("type%d_MBps: %.2f\n", t, s->per_type_mbps[t]);
    printf("b_eff_io_MBps: %.2f\n", s->beffio_mbps);
}

static int root(mbx_engine *e, int argc, char **argv)
{
    char msg[MSG_LEN] = "";
    cmd_opts c;
    memset(&c, 0, sizeof c);
    int rc = parse(argc, argv, &c, msg);
    if (rc) {
        mbx_tprintf(stderr, "mpibex: %s\n", msg);
        return rc;
    }
    if (c.help) {
        usage();
        return 0;
    }
    out_state st = {.tty = isatty(STDERR_FILENO),
                    .quiet = c.quiet,
                    .procs = mbx_engine_size(e),
                    .T_s = c.o.T_s > 0 ? c.o.T_s : 10.0};
    char *sum_path = NULL, *env_path = NULL;
    const mbx_job_info *job = NULL;
    if ((rc = mbx_engine_describe(e, &job)) < 0) {
        fprintf(stderr, "mpibex: describing the job failed: %s\n", mbx_strerror(rc));
        return 1;
    }
    mbx_output claim;
    if ((rc = open_output(e, &c, &st, &claim, &sum_path, &env_path)) != 0)
        return rc;
    print_head(&st);
    mbx_beffio_summary s;
    c.o.stop_flag = &mbx_stop_signal;
    rc = mbx_beffio_run(e, &c.o, on_row, &st, &s, msg, sizeof msg);
    if (st.tty && !st.quiet)
        fputc('\n', stderr);
    if (s.stale_note[0])
        fprintf(stderr, "mpibex: warning: %s\n", s.stale_note);
    int code = run_code(rc, &st, &c, msg);
    if (mbx_csv_writer_close(st.csv) < 0 && code == 0) {
        fprintf(stderr, "mpibex: closing '%s' failed\n", c.output);
        code = 1;
    }
    /* A refusal leaves nothing behind, like any other bad input. */
    if (code == 2 && c.output) {
        (void)unlink(c.output);
        (void)unlink(env_path);
    }
    if (code == 0 && sum_path && write_summary(sum_path, &s) < 0) {
        fprintf(stderr, "mpibex: cannot write '%s'\n", sum_path);
        code = 1;
    }
    if (code == 0)
        print_summary(&s);
    free(sum_path);
    free(env_path);
    mbx_output_release(&claim);
    return code;
}

int mbx_beffio_cmd(int argc, char **argv)
{
    return mbx_job_run(argc, argv, root);
}
