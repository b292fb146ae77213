/* mpibex report: index.md and index.html, written side by side from the
 * same calls. Every text inserted is escaped for its format; the HTML page
 * carries its own style and refers only to the plots next to it. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mbx/file.h"
#include "mbx/rowview.h"
#include "mbx/version.h"
#include "report_doc.h"
#include "report_int.h"

static const char *kind_text(const mbx_rpt_input *in, char *buf, size_t len)
{
    if (in->kind == MBX_RPT_RESULTS)
        return "results (mpibex run)";
    if (in->kind == MBX_RPT_MERGED)
        return "merged runs (mpibex merge)";
    snprintf(buf, len, "%zu %s (mpibex repeat)", in->launches,
             mbx_rpt_pl(in->launches, "launch", "launches"));
    return buf;
}

static void inputs(mbx_rpt_doc *d, const mbx_rpt *r)
{
    static const char *const hdr[] = {
        "input", "name", "path", "kind", "points", "environment", "samples for tests"};
    mbx_rpt_heading(d, 2, "Inputs");
    mbx_rpt_table_begin(d, hdr, "lllllll");
    for (size_t i = 0; i < r->nin; i++) {
        const mbx_rpt_input *in = &r->in[i];
        char kind[64], pts[64];
        if (in->pairs.ncell > 0)
            snprintf(pts, sizeof pts, "%zu, and %zu node-pair %s", in->npt, in->pairs.ncell,
                     mbx_rpt_pl(in->pairs.ncell, "cell", "cells"));
        else
            snprintf(pts, sizeof pts, "%zu", in->npt);
        const char *cell[] = {in->letter,
                              in->name,
                              in->path,
                              kind_text(in, kind, sizeof kind),
                              pts,
                              in->env_path ? in->env_path : "none",
                              in->comparable ? (in->kind == MBX_RPT_LAUNCHES ? "launch medians"
                                                : in->passes                 ? "pass medians"
                                                                             : "raw observations")
                                             : "none"};
        mbx_rpt_row(d, cell);
    }
    mbx_rpt_table_end(d);
}

static const char *env_value(const mbx_rpt_input *in, const char *key)
{
    const char *v = mbx_kv_get(&in->env, key);
    return v ? v : "";
}

/* Side by side: the keys whose values differ between the inputs that
 * have an environment file. */
static void env_differences(mbx_rpt_doc *d, const mbx_rpt *r)
{
    size_t *has = calloc(r->nin, sizeof *has), nhas = 0, shown = 0;
    const char **hdr = calloc(r->nin + 1, sizeof *hdr), **cell = calloc(r->nin + 1, sizeof *cell);
    char *align = calloc(r->nin + 2, 1);
    if (has == NULL || hdr == NULL || cell == NULL || align == NULL)
        goto done;
    hdr[0] = "key";
    for (size_t i = 0; i < r->nin; i++)
        if (r->in[i].env.n > 0) {
            hdr[nhas + 1] = r->in[i].letter;
            has[nhas++] = i;
        }
    if (nhas < 2)
        goto done;
    memset(align, 'l', nhas + 1);
    mbx_rpt_para(d,
                 "Keys whose values differ between the inputs with an environment file (empty: the "
                 "input has no such key):");
    for (size_t h = 0; h < nhas; h++) {
        const mbx_kvlist *env = &r->in[has[h]].env;
        for (size_t k = 0; k < env->n; k++) {
            const char *key = env->v[k].key;
            int seen = 0, differs = 0;
            for (size_t j = 0; j < h && !seen; j++) /* listed with an earlier input */
                seen = mbx_kv_get(&r->in[has[j]].env, key) != NULL;
            for (size_t j = 0; j < nhas && !seen; j++)
                differs |= strcmp(env_value(&r->in[has[j]], key), env->v[k].value) != 0;
            if (seen || !differs)
                continue;
            if (shown++ == 0)
                mbx_rpt_table_begin(d, hdr, align);
            cell[0] = key;
            for (size_t j = 0; j < nhas; j++)
                cell[j + 1] = env_value(&r->in[has[j]], key);
            mbx_rpt_row(d, cell);
        }
    }
    if (shown > 0)
        mbx_rpt_table_end(d);
    else
        mbx_rpt_para(d, "None: they have the same keys and values.");
done:
    free(has);
    free(hdr);
    free(cell);
    free(align);
}

/* Collapsed: long, and read less often than the plots. */
static void environment(mbx_rpt_doc *d, const mbx_rpt *r)
{
    static const char *const kv[] = {"key", "value"};
    size_t nenv = 0;
    char sum[200];
    for (size_t i = 0; i < r->nin; i++)
        nenv += r->in[i].env.n > 0;
    mbx_rpt_heading(d, 2, "Machine and environment");
    snprintf(sum, sizeof sum,
             "the machine and environment of %zu %s (%zu with an environment file)", r->nin,
             mbx_rpt_pl(r->nin, "input", "inputs"), nenv);
    mbx_rpt_details_begin(d, sum);
    env_differences(d, r);
    for (size_t i = 0; i < r->nin; i++) {
        const mbx_rpt_input *in = &r->in[i];
        char h[600];
        snprintf(h, sizeof h, "%s: %s", in->letter, in->name);
        mbx_rpt_heading(d, 3, h);
        if (in->env_note[0])
            mbx_rpt_para(d, "%s.", in->env_note);
        if (in->repeat.n > 0) {
            mbx_rpt_para(d, "How the launches ran (%s/repeat.csv):", in->path);
            mbx_rpt_table_begin(d, kv, "ll");
            for (size_t k = 0; k < in->repeat.n; k++) {
                const char *cell[] = {in->repeat.v[k].key, in->repeat.v[k].value};
                mbx_rpt_row(d, cell);
            }
            mbx_rpt_table_end(d);
        }
        if (in->env.n == 0)
            continue;
        mbx_rpt_para(d, "From %s:", in->env_path);
        mbx_rpt_table_begin(d, kv, "ll");
        for (size_t k = 0; k < in->env.n; k++) {
            const char *cell[] = {in->env.v[k].key, in->env.v[k].value};
            mbx_rpt_row(d, cell);
        }
        mbx_rpt_table_end(d);
    }
    mbx_rpt_details_end(d);
}

static void plots(mbx_rpt_doc *d, const mbx_rpt *r)
{
    static const char *const what[MBX_RPT_NPLOTS] = {
        "latency", "bandwidth", "ratio to A, with significance marks", "launch-to-launch spread"};
    static const char *const overlay[] = {
        [MBX_REPORT_OVERLAY_KIND] = "the benchmarks of one kind (the name before its dot)",
        [MBX_REPORT_OVERLAY_BENCH] = "one benchmark with one label and parameters",
        [MBX_REPORT_OVERLAY_ALL] = "every benchmark"};
    char marks[600] = "";
    if (r->nfig == 0) /* only node pairs, which have a section of their own */
        return;
    mbx_rpt_heading(d, 2, "Plots");
    mbx_rpt_para(
        d,
        "Latency and bandwidth: the median per point, with the point's 95 %% confidence "
        "interval as error bars (results of mpibex run; for a point measured in passes the "
        "median of its pass medians and the interval between passes) or the minimum to "
        "maximum of the launch medians as a band (merged runs, launches). A plot holds %s "
        "at one process count (or message size), every input's curve of each (--overlay). "
        "Every PNG links to its SVG.",
        overlay[r->overlay >= 0 && r->overlay <= MBX_REPORT_OVERLAY_ALL ? r->overlay : 0]);
    for (int m = 0; m < MBX_RPT_NMARKS; m++) {
        size_t used = strlen(marks);
        snprintf(marks + used, sizeof marks - used, "%s%s", m ? "; " : "", mbx_rpt_marks[m].what);
    }
    mbx_rpt_para(
        d,
        "Marks of the points by status: %s. The data files (data/) carry the status, refined "
        "and remeasured columns of each point.",
        marks);
    for (size_t f = 0; f < r->nfig; f++) {
        const mbx_rpt_fig *fg = &r->fig[f];
        mbx_rpt_heading(d, 3, fg->title);
        if (fg->nse > 1) {
            char list[1200] = "";
            for (size_t k = 0; k < fg->nse; k++) {
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s%s", k ? "; " : "",
                         r->se[fg->se[k]].curve);
            }
            mbx_rpt_para(d, "%zu series: %s.", fg->nse, list);
        }
        int any = 0;
        for (int p = 0; p < MBX_RPT_NPLOTS; p++) {
            if (!r->drawn[f][p])
                continue;
            char stem[300], alt[700];
            snprintf(stem, sizeof stem, "%s-%s", fg->name, mbx_rpt_plot_suffix[p]);
            snprintf(alt, sizeof alt, "%s: %s", fg->title, what[p]);
            mbx_rpt_figure(d, stem, alt);
            any = 1;
        }
        if (!any)
            mbx_rpt_para(d, "Nothing to plot: no point of %s has a positive median.",
                         fg->nse > 1 ? "these series" : "this series");
    }
}

static void params_text(char *buf, size_t len, const char *root, const char *op, const char *pname,
                        const char *param, const char *rma_sync)
{
    int n = snprintf(buf, len, "%s%s%s%s%s%s%s%s", root[0] ? "root " : "", root,
                     root[0] && (op[0] || param[0]) ? "; " : "", op, op[0] && param[0] ? "; " : "",
                     param[0] ? (pname[0] ? pname : "param") : "", param[0] ? " " : "", param);
    if (rma_sync[0] && n >= 0 && (size_t)n < len) /* one-sided: how epochs were synchronised */
        snprintf(buf + n, len - (size_t)n, "%s%s", n > 0 ? "; " : "", rma_sync);
}

/* The status cell of a point, with the reason and one line of what to do
 * when it is flagged; a results row that mixes levels it tells apart has
 * "n/a, K levels" for its interval, as in every view (mbx/rowview.h). */
static void status_cell(const mbx_rpt_point *p, int res, char lo[32], char hi[32], char *st,
                        size_t len)
{
    mbx_point_status ps = MBX_POINT_SETTLED;
    int known = res && mbx_point_status_parse(p->status, &ps) == 1;
    const char *advice = known ? mbx_row_advice(ps, p->reason) : NULL;
    if (known && mbx_row_ci_na(ps, (size_t)p->levels, lo, 32))
        snprintf(hi, 32, "n/a");
    snprintf(st, len, "%s%s%s%s%s%s%s%s", p->status, p->refined ? ", refined" : "",
             p->remeasured ? ", remeasured" : "", p->dup ? " (repeated key, not plotted)" : "",
             res && p->reason[0] ? ": " : "", res ? p->reason : "", advice ? "; " : "",
             advice ? advice : "");
}

static void results(mbx_rpt_doc *d, const mbx_rpt *r)
{
    static const char *const rh[] = {"benchmark",  "label",    "procs",          "bytes",
                                     "params",     "n",        "median_us",      "ci95_lo_us",
                                     "ci95_hi_us", "ci_scope", "bandwidth_MBps", "status"};
    static const char *const mh[] = {"benchmark", "label",          "procs",     "bytes",  "params",
                                     "runs",      "n_total",        "median_us", "min_us", "max_us",
                                     "spread_%",  "bandwidth_MBps", "status"};
    mbx_rpt_heading(d, 2, "Results");
    for (size_t i = 0; i < r->nin; i++) {
        const mbx_rpt_input *in = &r->in[i];
        int res = in->kind == MBX_RPT_RESULTS;
        char h[600];
        snprintf(h, sizeof h, "%s: %s", in->letter, in->name);
        mbx_rpt_heading(d, 3, h);
        if (in->npt == 0) { /* only node pairs: their cells are in their section */
            mbx_rpt_para(d, "No points besides the node pairs (see Node pairs).");
            continue;
        }
        if (!res)
            mbx_rpt_para(d,
                         "median_us is the median of the launches' medians; min_us and max_us are "
                         "the smallest and largest launch median. The merged CSV's interval has "
                         "the launches as units (ci_scope launches:K), and pi95_lo_us .. "
                         "pi95_hi_us say where another launch's median is expected.");
        else if (in->passes)
            mbx_rpt_para(d,
                         "Points measured in passes: median_us is the median of the pass medians, "
                         "ci95_lo_us .. ci95_hi_us the 95 %% confidence interval between passes.");
        if (res)
            mbx_rpt_para(d, "ci_scope says what the interval covers: launch, this launch's own "
                            "median (nothing about another launch); profile, widened by a "
                            "machine profile's launch-to-launch component; empty, a file "
                            "written before the column.");
        mbx_rpt_table_begin(d, res ? rh : mh, res ? "lllrlrrrrlrl" : "lllrlrrrrrrrl");
        size_t *idx = mbx_rpt_sorted(r, i);
        for (size_t k = 0; k < in->npt; k++) {
            const mbx_rpt_point *p = &in->pt[idx ? idx[k] : k];
            char procs[24], bytes[24], params[300], n[24], runs[24], med[32], lo[32], hi[32],
                bw[32], sp[32], st[400];
            snprintf(procs, sizeof procs, "%lld", p->procs);
            snprintf(bytes, sizeof bytes, "%llu", p->bytes);
            params_text(params, sizeof params, p->root, p->op, p->param_name, p->param,
                        p->rma_sync);
            mbx_rpt_fmt(n, sizeof n, p->n >= 0 ? (double)p->n : NAN, "%.0f");
            mbx_rpt_fmt(runs, sizeof runs, (double)p->runs, "%.0f");
            mbx_rpt_fmt(med, sizeof med, p->med, "%.4f");
            mbx_rpt_fmt(lo, sizeof lo, p->lo, "%.4f");
            mbx_rpt_fmt(hi, sizeof hi, p->hi, "%.4f");
            mbx_rpt_fmt(bw, sizeof bw, p->bw, "%.3f");
            mbx_rpt_fmt(sp, sizeof sp, 100.0 * p->spread, "%.1f");
            status_cell(p, res, lo, hi, st, sizeof st);
            if (res) {
                const char *cell[] = {p->bench, p->label, procs, bytes,    params, n,
                                      med,      lo,       hi,    p->scope, bw,     st};
                mbx_rpt_row(d, cell);
            } else {
                const char *cell[] = {p->bench, p->label, procs, bytes, params, runs, n,
                                      med,      lo,       hi,    sp,    bw,     st};
                mbx_rpt_row(d, cell);
            }
        }
        free(idx);
        mbx_rpt_table_end(d);
    }
}

static const char *verdict_text(char v)
{
    return v == '<' ? "< (A faster)" : v == '>' ? "> (A slower)" : "= (not distinguishable)";
}

static void tested_row(mbx_rpt_doc *d, const mbx_rpt_point *a, const mbx_cmp_point *p)
{
    char procs[24], bytes[24], params[300], na[24], nb[24], ma[32], mb[32], ratio[32], shift[32],
        pv[32], root[24] = "", param[24] = "";
    snprintf(procs, sizeof procs, "%d", p->procs);
    snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)p->bytes);
    if (a != NULL) {
        params_text(params, sizeof params, a->root, a->op, a->param_name, a->param, a->rma_sync);
    } else {
        if (p->root >= 0)
            snprintf(root, sizeof root, "%d", p->root);
        if (p->param != 0)
            snprintf(param, sizeof param, "%lld", p->param);
        params_text(params, sizeof params, root, p->op ? p->op : "", "", param,
                    p->rma_sync ? p->rma_sync : "");
    }
    snprintf(na, sizeof na, "%zu", p->n_a);
    snprintf(nb, sizeof nb, "%zu", p->n_b);
    mbx_rpt_fmt(ma, sizeof ma, p->median_a * 1e6, "%.4f");
    mbx_rpt_fmt(mb, sizeof mb, p->median_b * 1e6, "%.4f");
    mbx_rpt_fmt(ratio, sizeof ratio, p->ratio, "%.4f");
    mbx_rpt_fmt(shift, sizeof shift, p->w.shift * 1e6, "%.4f");
    mbx_rpt_fmt(pv, sizeof pv, p->w.p_two_sided, "%.3g");
    const char *cell[] = {p->benchmark,
                          p->label ? p->label : "",
                          procs,
                          bytes,
                          params,
                          na,
                          nb,
                          ma,
                          mb,
                          ratio,
                          shift,
                          pv,
                          verdict_text(p->verdict),
                          p->stars ? p->stars : ""};
    mbx_rpt_row(d, cell);
}

/* The smallest two-sided p-value an exact test of n1 against n2 values
 * can give: 2 / C(n1 + n2, n1). */
static double min_p(size_t n1, size_t n2)
{
    double c = 1;
    for (size_t k = 1; k <= n1; k++)
        c = c * (double)(n2 + k) / (double)k;
    return c > 2 ? 2 / c : 1;
}

static void tested(mbx_rpt_doc *d, const mbx_rpt *r, const mbx_rpt_cmp *c)
{
    static const char *const hdr[] = {"benchmark",
                                      "label",
                                      "procs",
                                      "bytes",
                                      "params",
                                      "n_a",
                                      "n_b",
                                      "median_a_us",
                                      "median_b_us",
                                      "ratio_b_over_a",
                                      "shift_us (A-B)",
                                      "p_two_sided",
                                      "verdict",
                                      "marks"};
    mbx_compare_summary s;
    size_t n = mbx_compare_count(c->c), hopeless = 0;
    mbx_compare_summarize(c->c, &s);
    if (s.scope == MBX_CMP_SCOPE_NONE)
        mbx_rpt_para(d, "No machine-level verdict: %s. The table gives the ratio of medians only.",
                     s.why_none ? s.why_none : "A and B are separate launches");
    else
        mbx_rpt_para(
            d,
            "Wilcoxon rank-sum test per point at alpha = %g; samples: %s (A), %s (%s). Tested %zu "
            "%s: A faster at %zu, A slower at %zu, not distinguishable at %zu; %zu only in A, "
            "%zu only in %s. Marks: two-sided p < 0.05 *, < 0.01 **, < 0.001 ***.",
            r->alpha, s.kind_a ? s.kind_a : "?", s.kind_b ? s.kind_b : "?", r->in[c->b].letter,
            s.tested, mbx_rpt_pl(s.tested, "point", "points"), s.faster, s.slower, s.same, s.only_a,
            s.only_b, r->in[c->b].letter);
    if (s.kind_a && s.kind_b && strcmp(s.kind_a, s.kind_b) != 0)
        mbx_rpt_para(
            d,
            "The samples are of different kinds (%s against %s): the test then compares "
            "values of different spreads (observations, pass medians, launch medians). Read "
            "it with care.",
            s.kind_a, s.kind_b);
    for (size_t i = 0; i < n; i++) {
        const mbx_cmp_point *p = mbx_compare_get(c->c, i);
        hopeless += p->w.exact && min_p(p->n_a, p->n_b) > r->alpha;
    }
    if (n > 0 && hopeless == n) {
        const mbx_cmp_point *p = mbx_compare_get(c->c, 0);
        mbx_rpt_para(
            d,
            "With samples this small (%zu against %zu) no two-sided p-value can fall below "
            "alpha = %g (the smallest possible is %.3g): no point can be marked. More "
            "launches are needed.",
            p->n_a, p->n_b, r->alpha, min_p(p->n_a, p->n_b));
    }
    /* In the order of the plots: A's points by series and x. */
    unsigned char *done = calloc(n ? n : 1, 1);
    size_t *idx = mbx_rpt_sorted(r, 0);
    mbx_rpt_table_begin(d, hdr, "lllrlrrrrrrrll");
    for (size_t k = 0; done != NULL && idx != NULL && k < r->in[0].npt; k++) {
        const mbx_rpt_point *a = &r->in[0].pt[idx[k]];
        size_t t = a->dup ? SIZE_MAX : mbx_rpt_cmp_find(c, a);
        if (t == SIZE_MAX || done[t])
            continue;
        done[t] = 1;
        tested_row(d, a, mbx_compare_get(c->c, t));
    }
    for (size_t t = 0; t < n; t++)
        if (done == NULL || !done[t])
            tested_row(d, NULL, mbx_compare_get(c->c, t));
    mbx_rpt_table_end(d);
    free(done);
    free(idx);
}

/* Without a test: the ratio of the medians wherever both inputs have the point. */
static void untested(mbx_rpt_doc *d, const mbx_rpt *r, size_t b)
{
    static const char *const hdr[] = {"benchmark", "label",       "procs",       "bytes",
                                      "params",    "median_a_us", "median_b_us", "ratio_b_over_a"};
    size_t common = 0, only_a = 0, only_b = 0;
    int open = 0;
    for (size_t s = 0; s < r->nse; s++) {
        size_t na, nb, ka = 0, kb = 0;
        size_t *ia = mbx_rpt_series_points(r, 0, s, &na), *ib = mbx_rpt_series_points(r, b, s, &nb);
        while (ka < na || kb < nb) {
            const mbx_rpt_point *pa = ka < na ? &r->in[0].pt[ia[ka]] : NULL;
            const mbx_rpt_point *pb = kb < nb ? &r->in[b].pt[ib[kb]] : NULL;
            double xa = pa ? mbx_rpt_x(r, pa) : INFINITY, xb = pb ? mbx_rpt_x(r, pb) : INFINITY;
            if (xa != xb) {
                only_a += xa < xb;
                only_b += xb < xa;
                ka += xa < xb;
                kb += xb < xa;
                continue;
            }
            ka++, kb++, common++;
            char procs[24], bytes[24], params[300], ma[32], mb[32], ratio[32];
            snprintf(procs, sizeof procs, "%lld", pa->procs);
            snprintf(bytes, sizeof bytes, "%llu", pa->bytes);
            params_text(params, sizeof params, pa->root, pa->op, pa->param_name, pa->param,
                        pa->rma_sync);
            mbx_rpt_fmt(ma, sizeof ma, pa->med, "%.4f");
            mbx_rpt_fmt(mb, sizeof mb, pb->med, "%.4f");
            mbx_rpt_fmt(ratio, sizeof ratio, pa->med > 0 ? pb->med / pa->med : NAN, "%.4f");
            const char *cell[] = {pa->bench, pa->label, procs, bytes, params, ma, mb, ratio};
            if (!open++)
                mbx_rpt_table_begin(d, hdr, "lllrlrrr");
            mbx_rpt_row(d, cell);
        }
        free(ia);
        free(ib);
    }
    if (open)
        mbx_rpt_table_end(d);
    mbx_rpt_para(d,
                 "%zu %s in both, %zu only in A, %zu only in %s (ratios of the medians, no test).",
                 common, mbx_rpt_pl(common, "point", "points"), only_a, only_b, r->in[b].letter);
}

static void comparisons(mbx_rpt_doc *d, const mbx_rpt *r)
{
    if (r->nin < 2)
        return;
    mbx_rpt_heading(d, 2, "Comparisons");
    for (size_t k = 0; k + 1 < r->nin; k++) {
        const mbx_rpt_cmp *c = &r->cmp[k];
        char h[1200];
        snprintf(h, sizeof h, "%s (%s) against A (%s)", r->in[c->b].letter, r->in[c->b].name,
                 r->in[0].name);
        mbx_rpt_heading(d, 3, h);
        if (c->c != NULL) {
            tested(d, r, c);
        } else {
            mbx_rpt_para(d, "Not comparable, no significance marks: %s.", c->why);
            untested(d, r, c->b);
        }
    }
}

/* The opening line: what was read and drawn, and which input is which. */
static void summary(mbx_rpt_doc *d, const mbx_rpt *r, const char *date)
{
    char names[1500] = "";
    for (size_t i = 0; i < r->nin; i++) {
        size_t used = strlen(names);
        if (used + 8 >= sizeof names) { /* many inputs: the Inputs table lists them all */
            snprintf(names + used, sizeof names - used, ", ...");
            break;
        }
        snprintf(names + used, sizeof names - used, "%s%s: %s", i ? ", " : "", r->in[i].letter,
                 r->in[i].name);
    }
    mbx_rpt_para(d, "Written by mpibex %s on %s from %zu %s (%s): %zu series, %zu %s.", MBX_VERSION,
                 date, r->nin, mbx_rpt_pl(r->nin, "input", "inputs"), names, r->nse, r->nplots,
                 mbx_rpt_pl(r->nplots, "plot", "plots"));
}

static int open_pair(mbx_rpt_doc *d, const char *dir, char *msg, size_t msglen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/index.md", dir);
    if ((d->md = mbx_file_fopen(path)) == NULL) {
        snprintf(msg, msglen, "cannot write '%s': %s", path, strerror(errno));
        return 1;
    }
    snprintf(path, sizeof path, "%s/index.html", dir);
    if ((d->html = mbx_file_fopen(path)) == NULL) {
        snprintf(msg, msglen, "cannot write '%s': %s", path, strerror(errno));
        fclose(d->md);
        return 1;
    }
    return 0;
}

int mbx_rpt_write_pages(const mbx_rpt *r, char *msg, size_t msglen)
{
    mbx_rpt_doc d = {0};
    if (open_pair(&d, r->dir, msg, msglen) != 0)
        return 1;
    char date[64] = "";
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm) != NULL)
        strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", &tm);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", d.html);
    mbx_rpt_html_esc(d.html, r->title);
    fputs("</title>\n<style>\n"
          "body{font-family:sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;"
          "color:#222}\n"
          "table{border-collapse:collapse;margin:.6em 0 1.4em;font-size:13px}\n"
          "th,td{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top;"
          "overflow-wrap:anywhere;max-width:48em}\n"
          "th{background:#eef2f6}\ntd.r{text-align:right;font-variant-numeric:tabular-nums}\n"
          "img{max-width:100%;height:auto;border:1px solid #ddd}\nfigure{margin:1em 0}\n"
          "figcaption{font-size:13px;color:#555}\n"
          "</style>\n</head>\n<body>\n",
          d.html);
    mbx_rpt_heading(&d, 1, r->title);
    summary(&d, r, date);
    /* The plots first; the tables after them, the long environment last and folded. */
    plots(&d, r);
    mbx_rpt_pairs_page(&d, r);
    inputs(&d, r);
    comparisons(&d, r);
    results(&d, r);
    environment(&d, r);
    mbx_rpt_heading(&d, 2, "Notes");
    if (r->skipped > 0)
        mbx_rpt_para(&d,
                     "Left out of the plots (they are in the tables): %zu point%s with no positive "
                     "median, or with a message size of 0 on a logarithmic axis.",
                     r->skipped, r->skipped == 1 ? "" : "s");
    if (r->dups > 0)
        mbx_rpt_para(
            &d, "%zu %s a point that came earlier in the same input; only the first is plotted.",
            r->dups, r->dups == 1 ? "row repeats" : "rows repeat");
    mbx_rpt_para(&d, "The plots are drawn by plots.gp from the files in data/; edit it and run "
                     "'gnuplot plots.gp' in this directory to draw them again.");
    fputs("</body>\n</html>\n", d.html);
    int bad = (ferror(d.md) | fclose(d.md)) != 0;
    bad |= (ferror(d.html) | fclose(d.html)) != 0;
    if (bad)
        snprintf(msg, msglen, "writing '%s/index.md' or '%s/index.html' failed", r->dir, r->dir);
    return bad;
}
