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

#include "mbx/esc.h"
#include "mbx/version.h"
#include "report_int.h"

typedef struct doc {
    FILE *md, *html;
    const char *align; /* of the open table: 'l' or 'r' per column */
} doc;

/* Every text goes through its format's function of mbx/esc.h. */
static void put_esc(FILE *f, const char *s, mbx_status (*esc)(const char *, char *, size_t))
{
    size_t len = MBX_ESC_MAX(strlen(s));
    char small[1024], *buf = len <= sizeof small ? small : malloc(len);
    if (buf == NULL) /* out of memory: leave the text out rather than raw */
        return;
    mbx_status st = esc(s, buf, len); /* len always suffices */
    (void)st;
    fputs(buf, f);
    if (buf != small)
        free(buf);
}

static void md_esc(FILE *f, const char *s)
{
    put_esc(f, s, mbx_esc_md);
}

static void html_esc(FILE *f, const char *s)
{
    put_esc(f, s, mbx_esc_html);
}

static void heading(doc *d, int level, const char *text)
{
    for (int i = 0; i < level; i++)
        fputc('#', d->md);
    fputc(' ', d->md);
    md_esc(d->md, text);
    fputs("\n\n", d->md);
    fprintf(d->html, "<h%d>", level);
    html_esc(d->html, text);
    fprintf(d->html, "</h%d>\n", level);
}

static void para(doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void para(doc *d, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    md_esc(d->md, buf);
    fputs("\n\n", d->md);
    fputs("<p>", d->html);
    html_esc(d->html, buf);
    fputs("</p>\n", d->html);
}

static void table_begin(doc *d, const char *const *hdr, const char *align)
{
    size_t n = strlen(align);
    d->align = align;
    fputs("<table>\n<tr>", d->html);
    for (size_t c = 0; c < n; c++) {
        fputs("|", d->md);
        md_esc(d->md, hdr[c]);
        fputs("<th>", d->html);
        html_esc(d->html, hdr[c]);
        fputs("</th>", d->html);
    }
    fputs("|\n", d->md);
    fputs("</tr>\n", d->html);
    for (size_t c = 0; c < n; c++)
        fputs(align[c] == 'r' ? "|---:" : "|---", d->md);
    fputs("|\n", d->md);
}

static void row(doc *d, const char *const *cell)
{
    size_t n = strlen(d->align);
    fputs("<tr>", d->html);
    for (size_t c = 0; c < n; c++) {
        fputs("|", d->md);
        md_esc(d->md, cell[c] ? cell[c] : "");
        fputs(d->align[c] == 'r' ? "<td class=\"r\">" : "<td>", d->html);
        html_esc(d->html, cell[c] ? cell[c] : "");
        fputs("</td>", d->html);
    }
    fputs("|\n", d->md);
    fputs("</tr>\n", d->html);
}

static void table_end(doc *d)
{
    fputs("\n", d->md);
    fputs("</table>\n", d->html);
}

static void figure(doc *d, const char *stem, const char *alt)
{
    fputs("![", d->md);
    md_esc(d->md, alt);
    fprintf(d->md, "](%s.png)\n[SVG](%s.svg)\n\n", stem, stem);
    fprintf(d->html,
            "<figure><a href=\"%s.svg\"><img src=\"%s.png\" width=\"960\" height=\"600\" "
            "alt=\"",
            stem, stem);
    html_esc(d->html, alt);
    fputs("\"></a><figcaption>", d->html);
    html_esc(d->html, alt);
    fprintf(d->html, " (<a href=\"%s.svg\">SVG</a>)</figcaption></figure>\n", stem);
}

static const char *kind_text(const mbx_rpt_input *in, char *buf, size_t len)
{
    if (in->kind == MBX_RPT_RESULTS)
        return "results (mpibex run)";
    if (in->kind == MBX_RPT_MERGED)
        return "merged runs (mpibex merge)";
    snprintf(buf, len, "%zu launches (mpibex repeat)", in->launches);
    return buf;
}

static void inputs(doc *d, const mbx_rpt *r)
{
    static const char *const hdr[] = {
        "input", "name", "path", "kind", "points", "environment", "samples for tests"};
    heading(d, 2, "Inputs");
    table_begin(d, hdr, "lllllll");
    for (size_t i = 0; i < r->nin; i++) {
        const mbx_rpt_input *in = &r->in[i];
        char kind[64], pts[32];
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
        row(d, cell);
    }
    table_end(d);
}

static const char *env_value(const mbx_rpt_input *in, const char *key)
{
    const char *v = mbx_kv_get(&in->env, key);
    return v ? v : "";
}

/* Side by side: the keys whose values differ between the inputs that
 * have an environment file. */
static void env_differences(doc *d, const mbx_rpt *r)
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
    para(d, "Keys whose values differ between the inputs with an environment file (empty: the "
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
                table_begin(d, hdr, align);
            cell[0] = key;
            for (size_t j = 0; j < nhas; j++)
                cell[j + 1] = env_value(&r->in[has[j]], key);
            row(d, cell);
        }
    }
    if (shown > 0)
        table_end(d);
    else
        para(d, "None: they have the same keys and values.");
done:
    free(has);
    free(hdr);
    free(cell);
    free(align);
}

static void environment(doc *d, const mbx_rpt *r)
{
    static const char *const kv[] = {"key", "value"};
    heading(d, 2, "Machine and environment");
    env_differences(d, r);
    for (size_t i = 0; i < r->nin; i++) {
        const mbx_rpt_input *in = &r->in[i];
        char h[600];
        snprintf(h, sizeof h, "%s: %s", in->letter, in->name);
        heading(d, 3, h);
        if (in->env_note[0])
            para(d, "%s.", in->env_note);
        if (in->repeat.n > 0) {
            para(d, "How the launches ran (%s/repeat.csv):", in->path);
            table_begin(d, kv, "ll");
            for (size_t k = 0; k < in->repeat.n; k++) {
                const char *cell[] = {in->repeat.v[k].key, in->repeat.v[k].value};
                row(d, cell);
            }
            table_end(d);
        }
        if (in->env.n == 0)
            continue;
        para(d, "From %s:", in->env_path);
        fputs("<details open><summary>environment</summary>\n", d->html);
        table_begin(d, kv, "ll");
        for (size_t k = 0; k < in->env.n; k++) {
            const char *cell[] = {in->env.v[k].key, in->env.v[k].value};
            row(d, cell);
        }
        table_end(d);
        fputs("</details>\n", d->html);
    }
}

static void plots(doc *d, const mbx_rpt *r)
{
    static const char *const what[MBX_RPT_NPLOTS] = {
        "latency", "bandwidth", "ratio to A, with significance marks", "launch-to-launch spread"};
    heading(d, 2, "Plots");
    para(d, "Latency and bandwidth: the median per point, with the point's 95 %% confidence "
            "interval as error bars (results of mpibex run; for a point measured in passes the "
            "median of its pass medians and the interval between passes) or the minimum to "
            "maximum of the launch medians as a band (merged runs, launches). Every PNG links to "
            "its SVG.");
    for (size_t s = 0; s < r->nse; s++) {
        const mbx_rpt_series *se = &r->se[s];
        heading(d, 3, se->title);
        int any = 0;
        for (int p = 0; p < MBX_RPT_NPLOTS; p++) {
            if (!r->drawn[s][p])
                continue;
            char stem[300], alt[700];
            snprintf(stem, sizeof stem, "%s-%s", se->name, mbx_rpt_plot_suffix[p]);
            snprintf(alt, sizeof alt, "%s: %s", se->title, what[p]);
            figure(d, stem, alt);
            any = 1;
        }
        if (!any)
            para(d, "Nothing to plot: no point of this series has a positive median.");
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

static void results(doc *d, const mbx_rpt *r)
{
    static const char *const rh[] = {
        "benchmark", "label",      "procs",      "bytes",          "params", "n",
        "median_us", "ci95_lo_us", "ci95_hi_us", "bandwidth_MBps", "status"};
    static const char *const mh[] = {"benchmark", "label",          "procs",     "bytes",  "params",
                                     "runs",      "n_total",        "median_us", "min_us", "max_us",
                                     "spread_%",  "bandwidth_MBps", "status"};
    heading(d, 2, "Results");
    for (size_t i = 0; i < r->nin; i++) {
        const mbx_rpt_input *in = &r->in[i];
        int res = in->kind == MBX_RPT_RESULTS;
        char h[600];
        snprintf(h, sizeof h, "%s: %s", in->letter, in->name);
        heading(d, 3, h);
        if (!res)
            para(d, "median_us is the median of the launches' medians; min_us and max_us are "
                    "the smallest and largest launch median.");
        else if (in->passes)
            para(d, "Points measured in passes: median_us is the median of the pass medians, "
                    "ci95_lo_us .. ci95_hi_us the 95 %% confidence interval between passes.");
        table_begin(d, res ? rh : mh, res ? "lllrlrrrrrl" : "lllrlrrrrrrrl");
        size_t *idx = mbx_rpt_sorted(r, i);
        for (size_t k = 0; k < in->npt; k++) {
            const mbx_rpt_point *p = &in->pt[idx ? idx[k] : k];
            char procs[24], bytes[24], params[300], n[24], runs[24], med[32], lo[32], hi[32],
                bw[32], sp[32], st[80];
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
            snprintf(st, sizeof st, "%s%s", p->status,
                     p->dup ? " (repeated key, not plotted)" : "");
            if (res) {
                const char *cell[] = {p->bench, p->label, procs, bytes, params, n,
                                      med,      lo,       hi,    bw,    st};
                row(d, cell);
            } else {
                const char *cell[] = {p->bench, p->label, procs, bytes, params, runs, n,
                                      med,      lo,       hi,    sp,    bw,     st};
                row(d, cell);
            }
        }
        free(idx);
        table_end(d);
    }
}

static const char *verdict_text(char v)
{
    return v == '<' ? "< (A faster)" : v == '>' ? "> (A slower)" : "= (not distinguishable)";
}

static void tested_row(doc *d, const mbx_rpt_point *a, const mbx_cmp_point *p)
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
    row(d, cell);
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

static void tested(doc *d, const mbx_rpt *r, const mbx_rpt_cmp *c)
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
    para(d,
         "Wilcoxon rank-sum test per point at alpha = %g; samples: %s (A), %s (%s). Tested %zu "
         "points: A faster at %zu, A slower at %zu, not distinguishable at %zu; %zu only in A, "
         "%zu only in %s. Marks: two-sided p < 0.05 *, < 0.01 **, < 0.001 ***.",
         r->alpha, s.kind_a ? s.kind_a : "?", s.kind_b ? s.kind_b : "?", r->in[c->b].letter,
         s.tested, s.faster, s.slower, s.same, s.only_a, s.only_b, r->in[c->b].letter);
    if (s.kind_a && s.kind_b && strcmp(s.kind_a, s.kind_b) != 0)
        para(d,
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
        para(d,
             "With samples this small (%zu against %zu) no two-sided p-value can fall below "
             "alpha = %g (the smallest possible is %.3g): no point can be marked. More "
             "launches are needed.",
             p->n_a, p->n_b, r->alpha, min_p(p->n_a, p->n_b));
    }
    /* In the order of the plots: A's points by series and x. */
    unsigned char *done = calloc(n ? n : 1, 1);
    size_t *idx = mbx_rpt_sorted(r, 0);
    table_begin(d, hdr, "lllrlrrrrrrrll");
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
    table_end(d);
    free(done);
    free(idx);
}

/* Without a test: the ratio of the medians wherever both inputs have the point. */
static void untested(doc *d, const mbx_rpt *r, size_t b)
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
                table_begin(d, hdr, "lllrlrrr");
            row(d, cell);
        }
        free(ia);
        free(ib);
    }
    if (open)
        table_end(d);
    para(d, "%zu points in both, %zu only in A, %zu only in B (ratios of the medians, no test).",
         common, only_a, only_b);
}

static void comparisons(doc *d, const mbx_rpt *r)
{
    if (r->nin < 2)
        return;
    heading(d, 2, "Comparisons");
    for (size_t k = 0; k + 1 < r->nin; k++) {
        const mbx_rpt_cmp *c = &r->cmp[k];
        char h[1200];
        snprintf(h, sizeof h, "%s (%s) against A (%s)", r->in[c->b].letter, r->in[c->b].name,
                 r->in[0].name);
        heading(d, 3, h);
        if (c->c != NULL) {
            tested(d, r, c);
        } else {
            para(d, "Not comparable, no significance marks: %s.", c->why);
            untested(d, r, c->b);
        }
    }
}

static int open_pair(doc *d, const char *dir, char *msg, size_t msglen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/index.md", dir);
    if ((d->md = fopen(path, "w")) == NULL) {
        snprintf(msg, msglen, "cannot write '%s': %s", path, strerror(errno));
        return 1;
    }
    snprintf(path, sizeof path, "%s/index.html", dir);
    if ((d->html = fopen(path, "w")) == NULL) {
        snprintf(msg, msglen, "cannot write '%s': %s", path, strerror(errno));
        fclose(d->md);
        return 1;
    }
    return 0;
}

int mbx_rpt_write_pages(const mbx_rpt *r, char *msg, size_t msglen)
{
    doc d = {0};
    if (open_pair(&d, r->dir, msg, msglen) != 0)
        return 1;
    char date[64] = "";
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm) != NULL)
        strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", &tm);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", d.html);
    html_esc(d.html, r->title);
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
    heading(&d, 1, r->title);
    para(&d, "Written by mpibex %s on %s from %zu input%s: %zu series, %zu plots.", MBX_VERSION,
         date, r->nin, r->nin == 1 ? "" : "s", r->nse, r->nplots);
    inputs(&d, r);
    environment(&d, r);
    plots(&d, r);
    comparisons(&d, r);
    results(&d, r);
    heading(&d, 2, "Notes");
    if (r->skipped > 0)
        para(&d,
             "Left out of the plots (they are in the tables): %zu point%s with no positive "
             "median, or with a message size of 0 on a logarithmic axis.",
             r->skipped, r->skipped == 1 ? "" : "s");
    if (r->dups > 0)
        para(&d, "%zu %s a point that came earlier in the same input; only the first is plotted.",
             r->dups, r->dups == 1 ? "row repeats" : "rows repeat");
    para(&d, "The plots are drawn by plots.gp from the files in data/; edit it and run "
             "'gnuplot plots.gp' in this directory to draw them again.");
    fputs("</body>\n</html>\n", d.html);
    int bad = (ferror(d.md) | fclose(d.md)) != 0;
    bad |= (ferror(d.html) | fclose(d.html)) != 0;
    if (bad)
        snprintf(msg, msglen, "writing '%s/index.md' or '%s/index.html' failed", r->dir, r->dir);
    return bad;
}
