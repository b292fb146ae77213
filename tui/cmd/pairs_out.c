/* What `mpibex pairs` prints and writes (pairs_cmd.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "mbx/envfile.h"
#include "mbx/result.h"
#include "mbx/stats.h"
#include "mbx/stop.h"
#include "mbx/version.h"
#include "pairs_cmd.h"

static const char *const verdict_cols[] = {
    "metric",  "kind",    "node",   "src",  "dst",       "src_host", "dst_host", "effect",
    "ci95_lo", "ci95_hi", "p_holm", "slow", "tolerance", "alpha",    "test",
};
#define VERDICT_NCOLS (sizeof verdict_cols / sizeof verdict_cols[0])

int mbx_pairs_out_open(mbx_pairs_out *o, const mbx_pairs_cli *c, mbx_engine *e, char *msg,
                       size_t msglen)
{
    static const char *const sidecars[] = {".verdicts.csv", ".env.csv", NULL};
    memset(o, 0, sizeof *o);
    if (!c->output)
        return 0;
    mbx_output_req req = {.path = c->output,
                          .flags = MBX_OUTPUT_ALLOW_DISCARD | (c->force ? MBX_OUTPUT_FORCE : 0),
                          .sidecars = sidecars};
    int rc = mbx_output_claim(&req, &o->claim, msg, msglen);
    if (rc < 0)
        return rc == MBX_E_NOMEM ? 1 : 2;
    if (o->claim.kind == MBX_OUTPUT_DISCARD)
        return 0;
    o->verdict_path = mbx_csv_sidecar(c->output, ".verdicts.csv");
    o->env_path = mbx_csv_sidecar(c->output, ".env.csv");
    if (!o->verdict_path || !o->env_path ||
        mbx_csv_writer_open(c->output, mbx_result_columns, MBX_RESULT_NCOLS, &o->csv) < 0) {
        snprintf(msg, msglen, "-o: cannot write '%s': %s", c->output, strerror(errno));
        free(o->verdict_path);
        free(o->env_path);
        mbx_output_release(&o->claim);
        memset(o, 0, sizeof *o);
        return 2;
    }
    rc = mbx_env_write(e, mbx_job_thread_asked(), mbx_job_thread_granted(), o->env_path);
    if (rc < 0) {
        snprintf(msg, msglen, "-o: cannot write the environment to '%s': %s", o->env_path,
                 mbx_strerror(rc));
        char ignore[8];
        (void)mbx_pairs_out_close(o, ignore, sizeof ignore);
        return 1;
    }
    return 0;
}

/* A node's name: its host, or host:rank when nodes are ranks. */
static void node_name(const mbx_pairs_cli *c, const mbx_job_info *job, const int *nodes, int i,
                      char *buf, size_t len)
{
    if (c->per == MBX_PER_RANK)
        snprintf(buf, len, "%s:%d", job->rank[nodes[i]].host, nodes[i]);
    else if (c->per == MBX_PER_SOCKET)
        snprintf(buf, len, "%s:s%d", job->rank[nodes[i]].host, (int)job->rank[nodes[i]].package);
    else
        snprintf(buf, len, "%s", job->rank[nodes[i]].host);
}

void mbx_pairs_out_head(const mbx_pairs_out *o, const mbx_pairs_cli *c, const mbx_job_info *job,
                        const int *nodes)
{
    const mbx_pairs_plan *p = &c->plan;
    (void)o;
    printf("# mpibex %s pairs: %d nodes (%s) of %d ranks on %d host%s\n", MBX_VERSION, p->n,
           c->per == MBX_PER_RANK     ? "every rank"
           : c->per == MBX_PER_SOCKET ? "one rank per socket of each host, its lowest"
                                      : "one rank per host, its lowest",
           job->nranks, job->nhosts, job->nhosts == 1 ? "" : "s");
    for (int i = 0; i < p->n; i++) {
        char name[96];
        node_name(c, job, nodes, i, name, sizeof name);
        printf("#   node %d: rank %d on %s\n", i, nodes[i], name);
    }
    int all = mbx_pairs_plan_steps(p);
    printf("# mode: %s; %d of %d %s%s\n", mbx_pairs_mode_name(p->mode), p->steps ? p->steps : all,
           all, p->mode == 0 ? "shift steps" : "pairs",
           p->mode == 0 ? " (at step k node i sends to i+k and serves i-k, all at once)"
                        : " (one at a time, the other nodes idle)");
    if (p->metrics & 1)
        printf("# latency: %llu B out and back, half the round trip; %d observations a pass\n",
               (unsigned long long)p->bytes[0], p->nobs[0]);
    if (p->metrics & 2)
        printf("# bandwidth: %d messages of %llu B in flight, 0 B back; MB/s = 1e6 B/s; %d "
               "observations a pass\n",
               p->window, (unsigned long long)p->bytes[1], p->nobs[1]);
    printf("# passes: a round runs every step once in a fresh order (seed %llu), rounds %.2f s "
           "apart at least; a cell is SETTLED with %zu passes over %.1f s and a between-pass "
           "error below %.1f %%\n",
           (unsigned long long)p->seed, p->round_gap, p->passes.min_passes, p->passes.min_span,
           100 * p->passes.eps);
    fflush(stdout);
}

/* The display value of a time: us for latency, MB/s for bandwidth. */
static double shown(const mbx_pairs_plan *p, int m, double t)
{
    return m == 0 ? t * 1e6 : (double)p->window * (double)p->bytes[1] / t / 1e6;
}

static void print_matrix(const mbx_pairs_cli *c, const mbx_pairs_run *run, int m)
{
    const mbx_pairs_plan *p = &c->plan;
    int n = p->n;
    printf("\n# %s, %s: row = sender, column = receiver; '~' not SETTLED, '-' not measured\n",
           m == 0 ? "latency" : "bandwidth", m == 0 ? "us (median of the pass medians)" : "MB/s");
    if (n > 32) {
        printf("# (%d nodes: the matrix is in the CSV, one row per cell)\n", n);
        return;
    }
    printf("%6s", "src\\dst");
    for (int j = 0; j < n; j++)
        printf(" %9d", j);
    printf("\n");
    for (int i = 0; i < n; i++) {
        printf("%6d ", i);
        for (int j = 0; j < n; j++) {
            const mbx_pairs_cellrun *x = mbx_pairs_run_cell(run, m, i, j);
            if (i == j || !x || !isfinite(x->r.b.value))
                printf(" %9s", i == j ? "" : "-");
            else
                printf(" %8.2f%c", shown(p, m, x->r.b.value),
                       x->r.verdict == MBX_PASSES_SETTLED ? ' ' : '~');
        }
        printf("\n");
    }
}

/* One CSV row for a cell. */
static int cell_row(mbx_pairs_out *o, const mbx_pairs_cli *c, const mbx_pairs_run *run,
                    const mbx_pairs_cellrun *x, const mbx_job_info *job, const int *nodes)
{
    const mbx_pairs_plan *p = &c->plan;
    mbx_result r;
    memset(&r, 0, sizeof r);
    const mbx_passes_result *pr = &x->r;
    r.benchmark = mbx_pairs_bench_name(x->metric);
    r.label = "pairs";
    r.timing = x->metric == 0 ? "half_round_trip" : "window";
    r.procs = p->n;
    r.bytes = p->bytes[x->metric];
    /* The pooled observations' statistics, then the between-pass value
     * and error, as a point measured in passes has them (docs/
     * csv-format.md): the iid figures are kept beside. */
    double *scratch = malloc((x->nobs ? x->nobs : 1) * sizeof *scratch);
    if (!scratch)
        return MBX_E_NOMEM;
    int src = x->nobs ? mbx_stats_summarize(x->obs, x->nobs, scratch, &r.s) : MBX_E_INVAL;
    free(scratch);
    if (src < 0)
        return src;
    mbx_result_take_passes(&r, pr, mbx_passes_count(x->passes));
    r.stop = (mbx_stop_rule){.kind = MBX_STOP_STDERR, .eps = p->passes.eps};
    r.nmin = (size_t)p->nobs[x->metric];
    r.nmax = r.nmin * (size_t)p->max_rounds;
    r.status = pr->verdict == MBX_PASSES_SETTLED ? MBX_POINT_SETTLED : MBX_POINT_UNSETTLED;
    if (r.status != MBX_POINT_SETTLED)
        snprintf(r.status_reason, sizeof r.status_reason, "%s; %s",
                 mbx_passes_verdict_name(pr->verdict), run->ended);
    r.root = -1;
    if (x->metric == 1) {
        r.param = p->window;
        r.param_name = "window";
        r.moved = (uint64_t)p->window * p->bytes[1];
        r.msgs = (uint64_t)p->window;
    } else {
        r.msgs = 1;
    }
    snprintf(r.ranks, sizeof r.ranks, "%d,%d", nodes[x->src], nodes[x->dst]);
    r.probe = r.probe_after = r.plain = r.compute = r.setup = NAN;
    r.level_lo = r.level_hi = NAN;
    r.plain_status = MBX_POINT_INVALID;
    r.launch_err = pr->b.se;
    r.part_seen = r.part_ratio = r.part_early = NAN;
    r.wall = NAN;
    if (p->mode == 0)
        snprintf(r.topology, sizeof r.topology, "shift %d", x->k);
    else
        snprintf(r.topology, sizeof r.topology, "one pair");
    snprintf(r.src_host, sizeof r.src_host, "%.*s", MBX_RESULT_HOST_MAX - 1,
             job->rank[nodes[x->src]].host);
    snprintf(r.dst_host, sizeof r.dst_host, "%.*s", MBX_RESULT_HOST_MAX - 1,
             job->rank[nodes[x->dst]].host);
    mbx_result_fields f;
    mbx_result_format(&r, &f);
    return mbx_csv_writer_row(o->csv, f.field);
}

static void fmt_g(char *b, size_t len, double v)
{
    if (isfinite(v))
        snprintf(b, len, "%.6g", v);
    else
        b[0] = '\0';
}

static int verdict_row(mbx_csv_writer *w, const mbx_pairs_cli *c, int m, const char *kind, int node,
                       int src, int dst, const char *sh, const char *dh, double eff, double lo,
                       double hi, double p, int slow, const char *test)
{
    char v[10][32];
    snprintf(v[0], 32, "%d", node);
    snprintf(v[1], 32, "%d", src);
    snprintf(v[2], 32, "%d", dst);
    fmt_g(v[3], 32, eff);
    fmt_g(v[4], 32, lo);
    fmt_g(v[5], 32, hi);
    fmt_g(v[6], 32, p);
    fmt_g(v[7], 32, c->verdict.tol);
    fmt_g(v[8], 32, c->verdict.alpha);
    const char *f[VERDICT_NCOLS] = {mbx_pairs_bench_name(m),
                                    kind,
                                    node >= 0 ? v[0] : "",
                                    src >= 0 ? v[1] : "",
                                    dst >= 0 ? v[2] : "",
                                    sh,
                                    dh,
                                    v[3],
                                    v[4],
                                    v[5],
                                    v[6],
                                    slow ? "yes" : "no",
                                    v[7],
                                    v[8],
                                    test};
    return mbx_csv_writer_row(w, f);
}

/* The verdicts of metric m: printed, and into w when given. */
static int verdicts(const mbx_pairs_cli *c, const mbx_pairs_run *run, int m,
                    const mbx_job_info *job, const int *nodes, mbx_csv_writer *w)
{
    const mbx_pairs_plan *p = &c->plan;
    const char *what = m == 0 ? "latency" : "bandwidth";
    if (p->n < MBX_PAIRS_VERDICT_MIN_NODES) {
        printf("# verdicts (%s): none; they need %d nodes or more, the matrix has %d\n", what,
               MBX_PAIRS_VERDICT_MIN_NODES, p->n);
        return 0;
    }
    mbx_pairs_fit fit;
    char why[MBX_PAIRS_MSG];
    int rc = mbx_pairs_run_fit(run, m, &c->verdict, &fit, why, sizeof why);
    if (rc < 0) {
        printf("# verdicts (%s): none: %s\n", what, why);
        return rc == MBX_E_NOMEM ? rc : 0;
    }
    printf("\n# verdicts (%s): %s; tolerance %.0f %%, alpha %.3g; scope: this launch's passes\n",
           what, fit.test, 100 * c->verdict.tol, c->verdict.alpha);
    printf("# typical cell %.4g %s; pair effect (robust sd of log residuals) %.3f; %d cells, "
           "%d df\n",
           shown(p, m, fit.typical), m == 0 ? "us" : "MB/s", fit.sigma, fit.cells, fit.df);
    printf("# nodes by effect (its cells' time over what the mean node's would take; the "
           "effects multiply to 1; 95 %% CI; Holm p):\n");
    for (int i = 0; i < fit.n && rc >= 0; i++) {
        const mbx_pairs_node *d = &fit.node[i];
        char name[96];
        node_name(c, job, nodes, d->node, name, sizeof name);
        printf("#   %-4s node %3d %-24s %6.3f [%6.3f, %6.3f]  p %.3g\n", d->slow ? "SLOW" : "",
               d->node, name, d->effect, d->lo, d->hi, d->p);
        if (w)
            rc = verdict_row(w, c, m, "node", d->node, -1, -1, name, "", d->effect, d->lo, d->hi,
                             d->p, d->slow, fit.test);
    }
    int shown_links = 0;
    for (int i = 0; i < fit.cells && rc >= 0; i++) {
        const mbx_pairs_link *l = &fit.link[i];
        char sn[96], dn[96];
        node_name(c, job, nodes, l->src, sn, sizeof sn);
        node_name(c, job, nodes, l->dst, dn, sizeof dn);
        if (l->slow || shown_links < 3) {
            if (shown_links++ == 0)
                printf("# links by ratio to the model (cell / prediction from its nodes; 95 %% "
                       "interval; Holm p), the slow and the 3 largest:\n");
            printf("#   %-4s %s -> %s  %6.3f [%6.3f, %6.3f]  p %.3g\n", l->slow ? "SLOW" : "", sn,
                   dn, l->ratio, l->lo, l->hi, l->p);
        }
        if (w)
            rc = verdict_row(w, c, m, "link", -1, l->src, l->dst, sn, dn, l->ratio, l->lo, l->hi,
                             l->p, l->slow, fit.test);
    }
    if (fit.slow_nodes == 0 && fit.slow_links == 0)
        printf("# %s: no outlier found (no node and no link beyond %.0f %% at alpha %.3g)\n", what,
               100 * c->verdict.tol, c->verdict.alpha);
    else
        printf("# %s: %d slow node%s, %d slow link%s\n", what, fit.slow_nodes,
               fit.slow_nodes == 1 ? "" : "s", fit.slow_links, fit.slow_links == 1 ? "" : "s");
    mbx_pairs_fit_free(&fit);
    return rc;
}

int mbx_pairs_out_results(mbx_pairs_out *o, const mbx_pairs_cli *c, const mbx_pairs_run *run,
                          const mbx_job_info *job, const int *nodes, char *msg, size_t msglen)
{
    const mbx_pairs_plan *p = &c->plan;
    size_t settled = 0;
    for (size_t i = 0; i < run->ncells; i++)
        settled += run->cell[i].r.verdict == MBX_PASSES_SETTLED;
    printf("# %d rounds in %.1f s, ended: %s; %zu of %zu cells SETTLED\n", run->rounds, run->wall,
           run->ended, settled, run->ncells);
    /* What a step cost, for the time of a run at another N (docs/
     * user-guide.md, "Every pair of nodes: pairs", "How long a run
     * takes"). */
    for (int m = 0; m < MBX_PAIRS_METRICS; m++)
        if (run->steps_done[m])
            printf("# %s steps: %zu in %.2f s, %.3f ms a step\n", m == 0 ? "latency" : "bandwidth",
                   run->steps_done[m], run->step_s[m],
                   1e3 * run->step_s[m] / (double)run->steps_done[m]);
    /* A cell a stopped run never reached has no observation: no row. */
    size_t unmeasured = 0;
    for (size_t i = 0; i < run->ncells; i++) {
        if (run->cell[i].nobs == 0) {
            unmeasured++;
            continue;
        }
        if (o->csv && cell_row(o, c, run, &run->cell[i], job, nodes) < 0) {
            snprintf(msg, msglen, "-o: writing '%s' failed: %s", c->output, strerror(errno));
            return MBX_E_IO;
        }
    }
    if (unmeasured)
        printf("# %zu of %zu cells never measured (the run ended first): no row for them\n",
               unmeasured, run->ncells);
    mbx_csv_writer *w = NULL;
    if (o->verdict_path &&
        mbx_csv_writer_open(o->verdict_path, verdict_cols, VERDICT_NCOLS, &w) < 0) {
        snprintf(msg, msglen, "-o: cannot write '%s': %s", o->verdict_path, strerror(errno));
        return MBX_E_IO;
    }
    int rc = MBX_OK;
    for (int m = 0; m < MBX_PAIRS_METRICS && rc >= 0; m++)
        if (p->metrics >> m & 1) {
            print_matrix(c, run, m);
            rc = verdicts(c, run, m, job, nodes, w);
        }
    if (mbx_csv_writer_close(w) < 0 && rc >= 0)
        rc = MBX_E_IO;
    if (rc < 0)
        snprintf(msg, msglen, "-o: writing '%s' failed: %s", o->verdict_path ? o->verdict_path : "",
                 mbx_strerror(rc));
    fflush(stdout);
    return rc;
}

int mbx_pairs_out_close(mbx_pairs_out *o, char *msg, size_t msglen)
{
    int rc = 0;
    if (o->csv && mbx_csv_writer_close(o->csv) < 0) {
        snprintf(msg, msglen, "-o: closing the CSV failed: %s", strerror(errno));
        rc = MBX_E_IO;
    }
    o->csv = NULL;
    free(o->verdict_path);
    free(o->env_path);
    o->verdict_path = o->env_path = NULL;
    mbx_output_release(&o->claim);
    return rc;
}
