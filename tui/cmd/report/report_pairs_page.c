/* mpibex report: the "Node pairs" section of the index pages, written
 * only when an input holds rows of `mpibex pairs`: per input its nodes,
 * per metric the heatmap (report_heatmap.c) and the verdicts of the
 * sidecar (report_pairs.c), and every cell in a folded table. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mbx/pairs.h"
#include "report_doc.h"
#include "report_int.h"

static void intro(mbx_rpt_doc *d)
{
    mbx_rpt_heading(d, 2, "Node pairs");
    mbx_rpt_para(
        d, "The rows of mpibex pairs: every directed pair of nodes, the sender's row against the "
           "receiver's column. Latency is half the round trip in µs, bandwidth the cell's MB/s "
           "over a window of messages; a cell's value is the median of its pass medians. Darker "
           "is slower on both. The diagonal and the cells not measured are blank; a hollow "
           "circle, and ~ after the value, mark a cell that is not SETTLED. The verdicts come "
           "from the input's verdicts file (OUT.verdicts.csv beside OUT.csv): a slow node's row "
           "and column are boxed and its name says SLOW, a slow link's cell is boxed with a "
           "dashed line. Their scope is this launch's passes: they say nothing about another "
           "launch.");
}

/* The nodes by name, and how many cells settled. */
static void nodes(mbx_rpt_doc *d, const mbx_rpt_pairs *pp)
{
    char list[1500] = "";
    size_t settled = 0;
    for (size_t k = 0; k < pp->ncell; k++)
        settled += !pp->cell[k].p.dup && mbx_rpt_point_mark(&pp->cell[k].p) == MBX_RPT_SETTLED;
    for (size_t i = 0; i < pp->n; i++) {
        size_t used = strlen(list);
        if (used + 8 >= sizeof list) { /* many nodes: the data files name them all */
            snprintf(list + used, sizeof list - used, ", ...");
            break;
        }
        snprintf(list + used, sizeof list - used, "%s%zu %s (rank %d)", i ? ", " : "", i,
                 pp->label[i], pp->rank[i]);
    }
    mbx_rpt_para(d, "%zu nodes: %s. %zu of %zu cells SETTLED.", pp->n, list, settled,
                 pp->ncell - pp->dups);
    if (pp->dups > 0)
        mbx_rpt_para(d,
                     "%zu %s a sender and receiver of an earlier row of the same metric; only "
                     "the first is drawn.",
                     pp->dups, pp->dups == 1 ? "row repeats" : "rows repeat");
}

static const char *node_name(const mbx_rpt_pairs *pp, const char *name, char *buf, size_t len)
{
    if (mbx_rpt_pairs_node(pp, name) != SIZE_MAX)
        return name;
    snprintf(buf, len, "%s (not in the matrix)", name);
    return buf;
}

/* The slow nodes or links of metric m as a table. */
static void slow_table(mbx_rpt_doc *d, const mbx_rpt_pairs *pp, int m, int link)
{
    static const char *const nh[] = {"node", "effect", "95 % CI", "Holm p"};
    static const char *const lh[] = {"link", "ratio to the model", "95 % interval", "Holm p"};
    mbx_rpt_table_begin(d, link ? lh : nh, "lrrr");
    for (size_t k = 0; k < pp->nv; k++) {
        const mbx_rpt_verdict *v = &pp->v[k];
        if (v->metric != m || v->link != link || !v->slow)
            continue;
        char who[700], a[300], b[300], eff[32], ci[80], p[32];
        if (link)
            snprintf(who, sizeof who, "%s -> %s", node_name(pp, v->src_host, a, sizeof a),
                     node_name(pp, v->dst_host, b, sizeof b));
        else
            snprintf(who, sizeof who, "%s", node_name(pp, v->src_host, a, sizeof a));
        snprintf(eff, sizeof eff, "%.3f", v->effect);
        snprintf(ci, sizeof ci, "[%.3f, %.3f]", v->lo, v->hi);
        snprintf(p, sizeof p, "%.3g", v->p);
        const char *cell[] = {who, eff, ci, p};
        mbx_rpt_row(d, cell);
    }
    mbx_rpt_table_end(d);
}

static void verdicts(mbx_rpt_doc *d, const mbx_rpt_pairs *pp, int m)
{
    const char *what = mbx_rpt_pairs_what(m);
    size_t rows = 0, nslow = 0, lslow = 0;
    if (!pp->vfound) {
        mbx_rpt_para(d, "%s.", pp->vnote);
        return;
    }
    for (size_t k = 0; k < pp->nv; k++) {
        const mbx_rpt_verdict *v = &pp->v[k];
        rows += v->metric == m;
        nslow += v->metric == m && v->slow && !v->link;
        lslow += v->metric == m && v->slow && v->link;
    }
    if (rows == 0) {
        mbx_rpt_para(d,
                     "Verdicts: none for the %s in %s (mpibex pairs gives them for %d nodes or "
                     "more, and none when its model of the cells cannot be fitted; its output "
                     "says why).",
                     what, pp->vpath, MBX_PAIRS_VERDICT_MIN_NODES);
        return;
    }
    mbx_rpt_para(d,
                 "Verdicts on %s (%s; scope: this launch's passes): %s; tolerance %g %%, "
                 "alpha %g.",
                 what, pp->vpath, pp->test[m] ? pp->test[m] : "", 100 * pp->tol[m], pp->alpha[m]);
    if (nslow == 0 && lslow == 0) {
        mbx_rpt_para(d,
                     "No outlier found: no node and no link beyond the %g %% tolerance at "
                     "alpha %g.",
                     100 * pp->tol[m], pp->alpha[m]);
        return;
    }
    if (nslow > 0) {
        mbx_rpt_para(d,
                     "Slow %s: a node's effect is how much longer its cells take than the mean "
                     "node's (the effects multiply to 1).",
                     nslow == 1 ? "node" : "nodes");
        slow_table(d, pp, m, 0);
    }
    if (lslow > 0) {
        mbx_rpt_para(d, "Slow %s: a cell's time over what the model of its two nodes predicts.",
                     lslow == 1 ? "link" : "links");
        slow_table(d, pp, m, 1);
    }
}

/* A cell's interval in its metric's unit: a bandwidth's is the window
 * time's, inverted. */
static void interval(char *lo, char *hi, size_t len, const mbx_rpt_cell *c)
{
    double a = c->p.lo, b = c->p.hi;
    if (c->metric == 1) {
        double t = c->p.med * c->p.bw;
        a = c->p.hi > 0 ? t / c->p.hi : NAN;
        b = c->p.lo > 0 ? t / c->p.lo : NAN;
    }
    mbx_rpt_fmt(lo, len, a, c->metric == 0 ? "%.4f" : "%.3f");
    mbx_rpt_fmt(hi, len, b, c->metric == 0 ? "%.4f" : "%.3f");
}

static void cells(mbx_rpt_doc *d, const mbx_rpt_input *in)
{
    static const char *const hdr[] = {"metric",      "sender", "receiver", "value",   "unit",
                                      "95 % CI low", "high",   "status",   "topology"};
    const mbx_rpt_pairs *pp = &in->pairs;
    char sum[700];
    snprintf(sum, sizeof sum, "the %zu node-pair %s of %s as a table", pp->ncell,
             mbx_rpt_pl(pp->ncell, "cell", "cells"), in->letter);
    mbx_rpt_details_begin(d, sum);
    mbx_rpt_table_begin(d, hdr, "lllrlrrll");
    for (size_t k = 0; k < pp->ncell; k++) {
        const mbx_rpt_cell *c = &pp->cell[k];
        char v[32], lo[32], hi[32], st[300];
        mbx_rpt_fmt(v, sizeof v, mbx_rpt_cell_value(c), c->metric == 0 ? "%.4f" : "%.3f");
        interval(lo, hi, sizeof lo, c);
        snprintf(st, sizeof st, "%s%s%s%s", c->p.status, c->p.reason[0] ? ": " : "", c->p.reason,
                 c->p.dup ? " (repeated, not drawn)" : "");
        const char *cell[] = {
            c->p.bench, pp->label[c->s], pp->label[c->d], v, mbx_rpt_pairs_unit(c->metric), lo, hi,
            st,         c->topology};
        mbx_rpt_row(d, cell);
    }
    mbx_rpt_table_end(d);
    mbx_rpt_details_end(d);
}

void mbx_rpt_pairs_page(mbx_rpt_doc *d, const mbx_rpt *r)
{
    int any = 0;
    for (size_t i = 0; i < r->nin; i++)
        any |= r->in[i].pairs.ncell > 0;
    if (!any)
        return;
    intro(d);
    for (size_t i = 0; i < r->nin; i++) {
        const mbx_rpt_input *in = &r->in[i];
        const mbx_rpt_pairs *pp = &in->pairs;
        char h[600], stem[64], alt[800];
        if (pp->ncell == 0)
            continue;
        snprintf(h, sizeof h, "%s: %s", in->letter, in->name);
        mbx_rpt_heading(d, 3, h);
        nodes(d, pp);
        for (int m = 0; m < MBX_PAIRS_METRICS; m++) {
            if (!pp->has[m])
                continue;
            snprintf(h, sizeof h, "%s: %s", in->letter, mbx_rpt_pairs_what(m));
            mbx_rpt_heading(d, 4, h);
            mbx_rpt_heatmap_stem(stem, sizeof stem, r, i, m);
            snprintf(alt, sizeof alt,
                     "%s: %s: node pairs, %s in %s (rows: sender, columns: "
                     "receiver; darker: slower)",
                     in->letter, in->name, mbx_rpt_pairs_what(m), mbx_rpt_pairs_unit(m));
            if (pp->drawn[m])
                mbx_rpt_figure(d, stem, alt);
            else
                mbx_rpt_para(d, "Nothing to draw: no %s cell has a positive value.",
                             mbx_rpt_pairs_what(m));
            verdicts(d, pp, m);
        }
        cells(d, in);
    }
}
