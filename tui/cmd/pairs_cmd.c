/* `mpibex pairs`: every pair of nodes, latency and bandwidth (docs/
 * user-guide.md, "Every pair of nodes: pairs"). Rank 0 checks everything
 * first (exit 2, one stderr line), picks one rank per host (or every
 * rank), runs the plan through mbx_pairs_run_engine (the engine's
 * MBX_OP_PAIRS steps), then prints each metric's matrix and the verdicts
 * (pairs_out.c) and writes a row per directed cell to -o OUT.csv.
 * SIGINT stops between passes (exit 128 + signal), the cells so far
 * written. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/opt.h"
#include "job.h"
#include "mbx/ascii.h"
#include "mbx/backend.h"
#include "mbx/output.h"
#include "mbx/sizes.h"
#include "pairs_cmd.h"
#include "tprint.h"

static void usage(void)
{
    printf("Usage: mpiexec -n N mpibex pairs [options]     (2 hosts or more; --per rank: 2 ranks)\n"
           "\n"
           "Every directed pair of nodes: the latency (half the round trip of a small\n"
           "message) and the bandwidth (a window of large messages) from each node to\n"
           "each other, each cell measured in passes with its between-pass interval,\n"
           "the passes of a round in shuffled order. Then the verdicts: nodes slower\n"
           "with every partner, and links slower than their nodes explain.\n"
           "\n"
           "Options:\n"
           "  --mode shift|one    shift (default, mpiGraph's schedule): N-1 steps, at step\n"
           "                      k node i sends to i+k while i-k sends to it, all at once;\n"
           "                      one: one pair at a time, the others idle (no contention)\n"
           "  --metric LIST       lat, bw or lat,bw (default lat,bw)\n"
           "  --lat-bytes SIZE    latency message (default 8)\n"
           "  --bw-bytes SIZE     bandwidth message (default 1MiB), 1B..1GiB\n"
           "  --window N          bandwidth: messages in flight per observation (default 16)\n"
           "  --per WHAT          node: one rank per host (default; the lowest of each);\n"
           "                      socket: one per socket of each host (ranks bound within\n"
           "                      one socket); rank: every rank a node of its own\n"
           "  --steps K           measure K steps of the schedule, drawn at random (seeded):\n"
           "                      K shifts of N-1, or K pairs of N(N-1) with --mode one\n"
           "  --eps X             target relative error of each cell (default 0.05)\n"
           "  --min-passes R      passes of every cell at least (default 5)\n"
           "  --span S            seconds the passes of a cell span at least (default 1)\n"
           "  --max-rounds N      rounds at most (default 200)\n"
           "  --time-limit S      stop after S seconds (a round in flight finishes)\n"
           "  --tolerance X       a node or link counts as slow only beyond 1+X (default 0.2)\n"
           "  --alpha A           family-wise error of the verdicts (default 0.05)\n"
           "  --seed N            the sample of steps and the order of the rounds\n"
           "  -o FILE             a row per directed cell as CSV, FILE.verdicts.csv beside it,\n"
           "                      and FILE.env.csv (an existing FILE needs --force)\n"
           "  --force             write over FILE\n"
           "  -q, --quiet         no progress on stderr\n"
           "  -h, --help          this text\n"
           "\n"
           "Sizes: 8, 64K, 1M, 1MiB (K/M/G are binary multiples). Latency in us, bandwidth\n"
           "in MB/s = 1e6 bytes/s. The intervals are launch-scoped: between the passes of\n"
           "this launch (docs/algorithms.md, \"Every pair of nodes\").\n");
}

static int on_mode(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    mbx_pairs_cli *c = p->dst;
    (void)o, (void)name;
    if (!strcmp(v, "shift"))
        c->plan.mode = 0;
    else if (!strcmp(v, "one"))
        c->plan.mode = 1;
    else
        return mbx_opt_bad(&p->out, "--mode: expected shift or one, got '%s'", v);
    return 0;
}

static int on_metric(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    mbx_pairs_cli *c = p->dst;
    (void)o, (void)name;
    if (!strcmp(v, "lat"))
        c->plan.metrics = 1;
    else if (!strcmp(v, "bw"))
        c->plan.metrics = 2;
    else if (!strcmp(v, "lat,bw") || !strcmp(v, "bw,lat"))
        c->plan.metrics = 3;
    else
        return mbx_opt_bad(&p->out, "--metric: expected lat, bw or lat,bw, got '%s'", v);
    return 0;
}

static int on_per(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    mbx_pairs_cli *c = p->dst;
    (void)o, (void)name;
    if (!strcmp(v, "node"))
        c->per = MBX_PER_NODE;
    else if (!strcmp(v, "rank"))
        c->per = MBX_PER_RANK;
    else if (!strcmp(v, "socket"))
        c->per = MBX_PER_SOCKET;
    else
        return mbx_opt_bad(&p->out, "--per: expected node, socket or rank, got '%s'", v);
    return 0;
}

static int on_size(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    mbx_pairs_cli *c = p->dst;
    char why[256];
    uint64_t b;
    (void)o;
    int lat = !strcmp(name, "--lat-bytes");
    if (mbx_size_parse(v, &b, why, sizeof why) < 0 || b > (1u << 30) || (!lat && b < 1))
        return mbx_opt_bad(&p->out, "%s: expected a size in %s..1GiB, got '%s'", name,
                           lat ? "0" : "1", v);
    c->plan.bytes[lat ? 0 : 1] = b;
    return 0;
}

/* --window, --steps, --min-passes, --max-rounds, --seed: whole numbers. */
static int on_count(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    mbx_pairs_cli *c = p->dst;
    static const struct {
        const char *name;
        long lo, hi;
    } r[] = {{"--window", 1, 4096},
             {"--steps", 1, 16773120},
             {"--min-passes", 2, 1000},
             {"--max-rounds", 1, 1000000},
             {"--seed", 0, 4294967295L}};
    long n = 0;
    (void)o;
    for (size_t i = 0; i < sizeof r / sizeof *r; i++)
        if (!strcmp(name, r[i].name)) {
            if (mbx_opt_whole(v, r[i].lo, r[i].hi, &n) < 0)
                return mbx_opt_bad(&p->out, "%s: expected an integer in %ld..%ld, got '%s'", name,
                                   r[i].lo, r[i].hi, v);
            break;
        }
    if (!strcmp(name, "--window"))
        c->plan.window = (int)n;
    else if (!strcmp(name, "--steps"))
        c->plan.steps = (int)n;
    else if (!strcmp(name, "--min-passes"))
        c->plan.passes.min_passes = (size_t)n;
    else if (!strcmp(name, "--max-rounds"))
        c->plan.max_rounds = (int)n;
    else {
        c->plan.seed = (uint64_t)n;
        c->seed_given = 1;
    }
    return 0;
}

/* --eps, --span, --time-limit, --tolerance, --alpha: numbers in a range. */
static int on_real(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    mbx_pairs_cli *c = p->dst;
    static const struct {
        const char *name, *range;
        double lo, hi;
        int open_lo;
    } r[] = {{"--eps", "(0, 1)", 0, 1, 1},
             {"--span", "0..3600 seconds", 0, 3600, 0},
             {"--time-limit", "0..604800 seconds", 0, 604800, 0},
             {"--tolerance", "0..4", 0, 4, 0},
             {"--alpha", "(0, 0.5)", 0, 0.5, 1}};
    char *end;
    (void)o;
    errno = 0;
    double x = mbx_strtod(v, &end);
    for (size_t i = 0; i < sizeof r / sizeof *r; i++)
        if (!strcmp(name, r[i].name)) {
            int low = r[i].open_lo ? !(x > r[i].lo) : !(x >= r[i].lo);
            if (errno || end == v || *end || low || !(x <= r[i].hi) ||
                (r[i].open_lo && x >= r[i].hi))
                return mbx_opt_bad(&p->out, "%s: expected a number in %s, got '%s'", name,
                                   r[i].range, v);
        }
    if (!strcmp(name, "--eps"))
        c->plan.passes.eps = x;
    else if (!strcmp(name, "--span"))
        c->plan.passes.min_span = x;
    else if (!strcmp(name, "--time-limit"))
        c->plan.time_limit = x;
    else if (!strcmp(name, "--tolerance"))
        c->verdict.tol = x;
    else
        c->verdict.alpha = x;
    return 0;
}

static const mbx_opt pairs_opts[] = {
    {"--help", "-h", NULL, 0, NULL, offsetof(mbx_pairs_cli, help)},
    {"--quiet", "-q", NULL, 0, NULL, offsetof(mbx_pairs_cli, quiet)},
    {"--force", NULL, NULL, 0, NULL, offsetof(mbx_pairs_cli, force)},
    {NULL, "-o", "FILE", 0, NULL, offsetof(mbx_pairs_cli, output)},
    {"--mode", NULL, "MODE", 0, on_mode, 0},
    {"--metric", NULL, "LIST", 0, on_metric, 0},
    {"--per", NULL, "WHAT", 0, on_per, 0},
    {"--lat-bytes", NULL, "SIZE", 0, on_size, 0},
    {"--bw-bytes", NULL, "SIZE", 0, on_size, 0},
    {"--window", NULL, "N", 0, on_count, 0},
    {"--steps", NULL, "K", 0, on_count, 0},
    {"--min-passes", NULL, "R", 0, on_count, 0},
    {"--max-rounds", NULL, "N", 0, on_count, 0},
    {"--seed", NULL, "N", 0, on_count, 0},
    {"--eps", NULL, "X", 0, on_real, 0},
    {"--span", NULL, "S", 0, on_real, 0},
    {"--time-limit", NULL, "S", 0, on_real, 0},
    {"--tolerance", NULL, "X", 0, on_real, 0},
    {"--alpha", NULL, "A", 0, on_real, 0},
};

int mbx_pairs_parse(int argc, char **argv, mbx_pairs_cli *c, char *msg, size_t msglen)
{
    memset(c, 0, sizeof *c);
    mbx_pairs_plan_init(&c->plan);
    c->verdict.tol = MBX_PAIRS_TOL_DEFAULT;
    c->verdict.alpha = MBX_PAIRS_ALPHA_DEFAULT;
    mbx_opt_parser p = {.opts = pairs_opts,
                        .nopts = MBX_OPT_COUNT(pairs_opts),
                        .dst = c,
                        .out = {.msg = msg, .len = msglen},
                        .unknown = "unknown option '%s' (try 'mpibex pairs --help')",
                        .missing = "%s: needs a value"};
    int rc = mbx_opt_parse(&p, argc, argv, 0);
    if (rc == 0 && !c->seed_given)
        c->plan.seed = (uint64_t)time(NULL);
    return rc;
}

typedef struct pairs_ctx {
    int quiet, tty;
    double t0, last;
} pairs_ctx;

static int progress(void *ud, const mbx_pairs_run *r, size_t done, size_t total)
{
    pairs_ctx *x = ud;
    if (mbx_stop_signal)
        return 1;
    if (x->quiet)
        return 0;
    double now = MPI_Wtime();
    size_t settled = 0;
    for (size_t i = 0; i < r->ncells; i++)
        settled += r->cell[i].r.verdict == MBX_PASSES_SETTLED;
    if (x->tty && now - x->last > 0.1) {
        fprintf(stderr, "\r\033[Kround %d: pass %zu/%zu; %zu of %zu cells settled; %.1f s",
                r->rounds + 1, done, total, settled, r->ncells, now - x->t0);
        x->last = now;
    } else if (!x->tty && done == 0 && now - x->last > 5.0) {
        fprintf(stderr, "progress: round %d, %zu of %zu cells settled, %.1f s elapsed\n",
                r->rounds + 1, settled, r->ncells, now - x->t0);
        x->last = now;
    }
    return 0;
}

static int fail(const char *msg)
{
    mbx_tprintf(stderr, "mpibex: %s\n", msg);
    return 1;
}

static int pairs_root(mbx_engine *e, int argc, char **argv)
{
    mbx_pairs_cli c;
    char msg[MBX_PAIRS_MSG];
    int rc = mbx_pairs_parse(argc, argv, &c, msg, sizeof msg);
    if (rc) {
        mbx_tprintf(stderr, "mpibex: %s\n", msg);
        return rc;
    }
    if (c.help) {
        usage();
        return 0;
    }
    const mbx_job_info *job;
    if ((rc = mbx_engine_describe(e, &job)) < 0) {
        snprintf(msg, sizeof msg, "describing the job failed: %s", mbx_strerror(rc));
        return fail(msg);
    }
    int *nodes = malloc((size_t)job->nranks * sizeof *nodes);
    if (!nodes)
        return fail("out of memory");
    if ((c.plan.n = mbx_pairs_pick_nodes(job, c.per, nodes, msg, sizeof msg)) < 0) {
        mbx_tprintf(stderr, "mpibex: %s\n", msg);
        free(nodes);
        return 2;
    }
    if (c.plan.n < 2) {
        mbx_tprintf(stderr,
                    "mpibex: pairs: the job's %d rank%s run on 1 %s (%s): the matrix needs 2 "
                    "nodes or more (more hosts, or --per rank)\n",
                    job->nranks, job->nranks == 1 ? "" : "s",
                    c.per == MBX_PER_SOCKET ? "socket of 1 host" : "host", job->rank[0].host);
        free(nodes);
        return 2;
    }
    if (mbx_pairs_plan_check(&c.plan, msg, sizeof msg) < 0) {
        mbx_tprintf(stderr, "mpibex: %s\n", msg);
        free(nodes);
        return 2;
    }
    mbx_pairs_out out;
    if ((rc = mbx_pairs_out_open(&out, &c, e, msg, sizeof msg)) != 0) {
        mbx_tprintf(stderr, "mpibex: %s\n", msg);
        free(nodes);
        return rc;
    }
    int code = 0;
    if ((rc = mbx_engine_configure(e, MBX_TIMER_CLOCK, NULL, NULL)) < 0) {
        snprintf(msg, sizeof msg, "configuring the timer failed: %s", mbx_strerror(rc));
        code = fail(msg);
    }
    mbx_pairs_out_head(&out, &c, job, nodes);
    pairs_ctx x = {.quiet = c.quiet};
    x.tty = isatty(STDERR_FILENO) && !isatty(STDOUT_FILENO);
    x.t0 = x.last = MPI_Wtime();
    mbx_pairs_run run;
    memset(&run, 0, sizeof run);
    /* the run, then the nodes' state freed on every rank */
    rc = code ? MBX_OK
              : mbx_pairs_run_engine(e, &c.plan, nodes, progress, &x, &run, msg, sizeof msg);
    if (x.tty && !c.quiet)
        fprintf(stderr, "\r\033[K");
    if (!code && rc < 0 && rc != MBX_E_ABORTED) {
        char why[MBX_PAIRS_MSG];
        snprintf(why, sizeof why, "pairs failed: %s%s%s", mbx_strerror(rc),
                 *mbx_engine_why(e) ? ": " : "", mbx_engine_why(e));
        code = fail(why);
    }
    if (!code) {
        if (mbx_pairs_out_results(&out, &c, &run, job, nodes, msg, sizeof msg) < 0)
            code = fail(msg);
        if (rc == MBX_E_ABORTED) {
            fprintf(stderr, "mpibex: pairs stopped by signal %d after %d rounds (%.1f s)%s%s\n",
                    (int)mbx_stop_signal, run.rounds, run.wall,
                    c.output ? "; the cells so far are in " : "", c.output ? c.output : "");
            code = 128 + (int)mbx_stop_signal;
        }
    }
    mbx_pairs_run_free(&run);
    if (mbx_pairs_out_close(&out, msg, sizeof msg) < 0 && !code)
        code = fail(msg);
    free(nodes);
    return code;
}

int mbx_pairs_cmd(int argc, char **argv)
{
    return mbx_job_run(argc, argv, pairs_root);
}
