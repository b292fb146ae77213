/* mpibex report: the node-pair matrix of an input as a heatmap per metric
 * (data/nodepairs-INPUT-METRIC.dat and its part of plots.gp): rows are
 * senders, columns receivers, the diagonal and unmeasured cells blank
 * (NaN), a hollow circle on each cell that is not SETTLED, boxes around
 * the rows, columns and cells the verdicts call slow. The palette runs
 * from dark (slow) to light (fast) in luminance alone, so that the plot
 * reads in grey too; "darker: slower" is on the colour bar. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mbx/file.h"
#include "report_int.h"

/* Up to this many nodes every tick names its node, and up to LABELS_MAX
 * every cell shows its value; beyond, they would overlap. */
#define TICKS_MAX 64
#define LABELS_MAX 16
/* A colour scale over more than this factor is logarithmic: a slow cell
 * 1000x the rest would leave every other cell the same colour. One spans
 * this factor at least, from the fastest cell: cells that differ by a
 * few per cent look alike instead of dark against light. */
#define LOG_SPAN 20.0
#define MIN_SPAN 1.5

/* viridis: perceptually even, its luminance rising from end to end. */
static const char *const palette = "set palette defined (0 '#440154', 1 '#3b528b', 2 '#21918c', "
                                   "3 '#5ec962', 4 '#fde725')";
static const char *const slow_node_colour = "#D55E00", *const slow_link_colour = "#CC79A7";

void mbx_rpt_heatmap_stem(char *buf, size_t len, const mbx_rpt *r, size_t i, int m)
{
    snprintf(buf, len, "nodepairs-%s-%s", r->in[i].letter, mbx_rpt_pairs_what(m));
}

/* What a metric's data file holds, for its plot. */
typedef struct heat {
    double lo, hi;    /* range of the values drawn */
    size_t values;    /* cells with a value */
    size_t unsettled; /* of them, not SETTLED */
} heat;

/* Text in a comment line of a data file: no line break may end it. */
static void comment(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
}

static void cell_text(char *buf, size_t len, double v, int unsettled)
{
    if (!isfinite(v))
        buf[0] = '\0';
    else
        snprintf(buf, len, v >= 100 ? "%.0f%s" : "%.3g%s", v, unsettled ? "~" : "");
}

/* Every place of the n x n grid, row by row (gnuplot's image wants them
 * all): receiver, sender, value, unsettled, the cell's text. */
static void grid_rows(FILE *f, const mbx_rpt_pairs *pp, int m, heat *h)
{
    size_t c = 0;
    while (c < pp->ncell && pp->cell[c].metric < m)
        c++;
    for (size_t s = 0; s < pp->n; s++) {
        for (size_t d = 0; d < pp->n; d++) {
            const mbx_rpt_cell *x = NULL;
            while (c < pp->ncell && pp->cell[c].metric == m &&
                   (pp->cell[c].s < s || (pp->cell[c].s == s && pp->cell[c].d < d)))
                c++;
            /* The first of the cells at a place (sorted by file order). */
            if (c < pp->ncell && pp->cell[c].metric == m && pp->cell[c].s == s &&
                pp->cell[c].d == d)
                x = &pp->cell[c];
            double v = x ? mbx_rpt_cell_value(x) : NAN;
            int uns = x && isfinite(v) && mbx_rpt_point_mark(&x->p) != MBX_RPT_SETTLED;
            char text[40];
            cell_text(text, sizeof text, v, uns);
            if (isfinite(v)) {
                h->lo = h->values == 0 ? v : fmin(h->lo, v);
                h->hi = h->values == 0 ? v : fmax(h->hi, v);
                h->values++;
                h->unsettled += (size_t)uns;
                fprintf(f, "%zu %zu %.10g %d \"%s\"\n", d, s, v, uns, text);
            } else {
                fprintf(f, "%zu %zu NaN 0 \"\"\n", d, s);
            }
        }
        fputc('\n', f);
    }
}

static int write_data(const mbx_rpt *r, size_t i, int m, const char *rel, heat *h, char *msg,
                      size_t msglen)
{
    const mbx_rpt_pairs *pp = &r->in[i].pairs;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", r->dir, rel);
    FILE *f = mbx_file_fopen(path);
    if (f == NULL) {
        mbx_report_msgf(msg, msglen, "cannot write '%s': %s", path, strerror(errno));
        return 1;
    }
    fputs("# ", f);
    comment(f, r->in[i].name);
    fprintf(f, ": node pairs, %s in %s\n", mbx_rpt_pairs_what(m), mbx_rpt_pairs_unit(m));
    fputs("# receiver sender value unsettled text: receiver and sender are node numbers; "
          "value NaN: the diagonal, or a cell not measured; unsettled 1: its status is not "
          "SETTLED; text: as drawn in the cell (~: not SETTLED)\n",
          f);
    for (size_t k = 0; k < pp->n; k++) {
        fprintf(f, "# node %zu: rank %d, ", k, pp->rank[k]);
        comment(f, pp->label[k]);
        fputc('\n', f);
    }
    grid_rows(f, pp, m, h);
    if ((ferror(f) | fclose(f)) != 0) {
        mbx_report_msgf(msg, msglen, "writing '%s' failed", path);
        return 1;
    }
    return 0;
}

/* The two lines of the title: what, and how to read it. */
static void title(FILE *gp, const mbx_rpt *r, size_t i, int m)
{
    const mbx_rpt_pairs *pp = &r->in[i].pairs;
    const mbx_rpt_cell *c = NULL;
    for (size_t k = 0; k < pp->ncell && c == NULL; k++)
        c = pp->cell[k].metric == m ? &pp->cell[k] : NULL;
    char size[32], t[700];
    mbx_rpt_size_label(size, sizeof size, c ? c->p.bytes : 0);
    if (m == 0)
        snprintf(t, sizeof t, "%s: %s: node pairs, latency (half the round trip of %s B)",
                 r->in[i].letter, r->in[i].name, size);
    else
        snprintf(t, sizeof t, "%s: %s: node pairs, bandwidth (windows of %s%s%s B)",
                 r->in[i].letter, r->in[i].name, c && c->p.param[0] ? c->p.param : "",
                 c && c->p.param[0] ? " x " : "", size);
    fputs("set title ", gp);
    mbx_rpt_gp_str(gp, t);
    const char *topo = c ? c->topology : "";
    snprintf(t, sizeof t, "rows: sender, columns: receiver; the median of the pass medians%s",
             strncmp(topo, "shift", 5) == 0      ? "; shift steps, every node sending at once"
             : strncmp(topo, "one pair", 8) == 0 ? "; one pair at a time"
                                                 : "");
    fputs(".\"\\n\".", gp);
    mbx_rpt_gp_str(gp, t);
    fputs(" noenhanced\n", gp);
}

static void ticks(FILE *gp, const char *axis, const mbx_rpt_pairs *pp, int m)
{
    if (pp->n > TICKS_MAX) { /* node numbers; the data file names them */
        fprintf(gp, "set %stics 0,%zu out\n", axis, (pp->n + 15) / 16);
        return;
    }
    fprintf(gp, "set %stics (", axis);
    for (size_t k = 0; k < pp->n; k++) {
        char t[400];
        snprintf(t, sizeof t, "%s%s", pp->label[k], mbx_rpt_pairs_slow(pp, m, k) ? " SLOW" : "");
        fputs(k ? ", " : "", gp);
        mbx_rpt_gp_str(gp, t);
        fprintf(gp, " %zu", k);
    }
    fprintf(gp, ")%s scale 0 noenhanced\n", axis[0] == 'x' ? " rotate by 30 right" : "");
}

static void box(FILE *gp, double x0, double y0, double x1, double y1, const char *colour, int dash)
{
    fprintf(gp,
            "set object rect from %g,%g to %g,%g front fillstyle empty border lc rgb \"%s\" "
            "lw 3 dt %d\n",
            x0, y0, x1, y1, colour, dash);
}

/* Boxes around each slow node's row and column and each slow link's cell;
 * bit 0 of the result: a slow node was marked, bit 1: a slow link. */
static unsigned slow_boxes(FILE *gp, const mbx_rpt_pairs *pp, int m)
{
    unsigned seen = 0;
    double far = (double)pp->n - 0.5;
    for (size_t k = 0; k < pp->nv; k++) {
        const mbx_rpt_verdict *v = &pp->v[k];
        if (v->metric != m || !v->slow) /* the few slow ones are looked up */
            continue;
        size_t s = mbx_rpt_pairs_node(pp, v->src_host);
        size_t d = v->link ? mbx_rpt_pairs_node(pp, v->dst_host) : 0;
        if (s == SIZE_MAX || d == SIZE_MAX)
            continue;
        if (v->link) {
            box(gp, (double)d - 0.5, (double)s - 0.5, (double)d + 0.5, (double)s + 0.5,
                slow_link_colour, 2);
            seen |= 2;
        } else {
            box(gp, -0.5, (double)s - 0.5, far, (double)s + 0.5, slow_node_colour, 1);
            box(gp, (double)s - 0.5, -0.5, (double)s + 0.5, far, slow_node_colour, 1);
            seen |= 1;
        }
    }
    return seen;
}

/* The frame: square cells, sender 0 at the top, the colour scale. */
static void frame(FILE *gp, const mbx_rpt_pairs *pp, int m, const heat *h)
{
    double far = (double)pp->n - 0.5;
    int logcb = h->hi > LOG_SPAN * h->lo;
    char cb[120];
    fprintf(gp, "set size ratio -1\nset xrange [-0.5:%g]\nset yrange [%g:-0.5]\n", far, far);
    ticks(gp, "x", pp, m);
    ticks(gp, "y", pp, m);
    /* Latency: high is slow; bandwidth: low is slow. Dark is slow on both. */
    fprintf(gp, "%s%s\n", palette, m == 0 ? " negative" : "");
    if (logcb)
        fputs("set logscale cb\n", gp);
    if (m == 0)
        fprintf(gp, "set cbrange [%.10g:%.10g]\n", h->lo, fmax(h->hi, h->lo * MIN_SPAN));
    else
        fprintf(gp, "set cbrange [%.10g:%.10g]\n", fmin(h->lo, h->hi / MIN_SPAN), h->hi);
    snprintf(cb, sizeof cb, "%s, %s%s (darker: slower)", mbx_rpt_pairs_what(m),
             mbx_rpt_pairs_unit(m), logcb ? ", log scale" : "");
    fputs("set cblabel ", gp);
    mbx_rpt_gp_str(gp, cb);
    fputs(" noenhanced\nset style textbox opaque fillcolor rgb \"white\" noborder\n"
          "set key outside below center vertical Left reverse noenhanced\n",
          gp);
}

/* The plot command: the image, the marks of unsettled cells (a white disc
 * under a black ring: it shows on dark and light cells alike), the values,
 * and a legend entry for each kind of mark drawn. */
static void plot_cmd(FILE *gp, const char *rel, const mbx_rpt_pairs *pp, const heat *h,
                     unsigned slow)
{
    static const char *const corner = "(column(1)+0.33):(column(4) > 0 ? column(2)-0.33 : NaN)";
    fputs("plot ", gp);
    mbx_rpt_gp_str(gp, rel);
    fputs(" using 1:2:3 with image notitle", gp);
    if (h->unsettled > 0) {
        fputs(", \\\n     ", gp);
        mbx_rpt_gp_str(gp, rel);
        fprintf(gp, " using %s with points pt 7 ps 0.9 lc rgb \"white\" notitle, \\\n     ",
                corner);
        mbx_rpt_gp_str(gp, rel);
        fprintf(gp, " using %s with points pt 6 ps 0.9 lc rgb \"black\" notitle", corner);
    }
    if (pp->n <= LABELS_MAX) {
        fputs(", \\\n     ", gp);
        mbx_rpt_gp_str(gp, rel);
        fputs(" using 1:2:5 with labels boxed notitle", gp);
    }
    if (h->unsettled > 0)
        fputs(", \\\n     keyentry with points pt 6 ps 0.9 lc rgb \"black\" "
              "title 'not SETTLED (hollow circle; ~ after the value)'",
              gp);
    if (slow & 1)
        fprintf(gp,
                ", \\\n     keyentry with lines lc rgb \"%s\" lw 3 dt 1 "
                "title 'slow node (verdicts): its row and column boxed'",
                slow_node_colour);
    if (slow & 2)
        fprintf(gp,
                ", \\\n     keyentry with lines lc rgb \"%s\" lw 3 dt 2 "
                "title 'slow link (verdicts): its cell boxed, dashed'",
                slow_link_colour);
}

/* Input i's heatmap of metric m: its data file, then its part of plots.gp,
 * drawn as PNG, then SVG. No plot where no cell has a value. */
static int heatmap(mbx_rpt *r, size_t i, int m, FILE *gp, char *msg, size_t msglen)
{
    mbx_rpt_pairs *pp = &r->in[i].pairs;
    char stem[64], rel[80], out[80];
    heat h = {0};
    mbx_rpt_heatmap_stem(stem, sizeof stem, r, i, m);
    snprintf(rel, sizeof rel, "data/%s.dat", stem);
    if (write_data(r, i, m, rel, &h, msg, msglen) != 0)
        return 1;
    if (h.values == 0)
        return 0;
    fprintf(gp, "\n# ---- %s ----\nreset\n", stem);
    title(gp, r, i, m);
    frame(gp, pp, m, &h);
    unsigned slow = slow_boxes(gp, pp, m);
    if (h.unsettled == 0 && slow == 0)
        fputs("unset key\n", gp);
    snprintf(out, sizeof out, "%s.png", stem);
    fputs("set terminal @png_term\nset output ", gp);
    mbx_rpt_gp_str(gp, out);
    fputc('\n', gp);
    plot_cmd(gp, rel, pp, &h, slow);
    snprintf(out, sizeof out, "%s.svg", stem);
    fputs("\nset terminal @svg_term\nset output ", gp);
    mbx_rpt_gp_str(gp, out);
    fputs("\nreplot\nunset output\n", gp);
    pp->drawn[m] = 1;
    r->nplots++;
    return 0;
}

int mbx_rpt_check_heatmaps(const mbx_rpt *r, char *msg, size_t msglen)
{
    for (size_t i = 0; i < r->nin; i++) {
        for (int m = 0; m < MBX_PAIRS_METRICS; m++) {
            for (int e = 0; r->in[i].pairs.drawn[m] && e < 2; e++) {
                char stem[64], path[4096];
                struct stat st;
                mbx_rpt_heatmap_stem(stem, sizeof stem, r, i, m);
                snprintf(path, sizeof path, "%s/%s.%s", r->dir, stem, e ? "svg" : "png");
                if (stat(path, &st) != 0 || st.st_size == 0) {
                    mbx_report_msgf(msg, msglen, "gnuplot did not write '%s'", path);
                    return 1;
                }
            }
        }
    }
    return 0;
}

int mbx_rpt_write_heatmaps(mbx_rpt *r, FILE *gp, char *msg, size_t msglen)
{
    for (size_t i = 0; i < r->nin; i++)
        for (int m = 0; m < MBX_PAIRS_METRICS; m++)
            if (r->in[i].pairs.has[m] && heatmap(r, i, m, gp, msg, msglen) != 0)
                return 1;
    return 0;
}
