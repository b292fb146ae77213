/* mpibex report: the gnuplot data files (data/NAME.dat) and the script
 * (plots.gp) that draws every plot twice, as PNG and as SVG. The script is
 * kept in the report so that users can edit it and run `gnuplot plots.gp`
 * there again; it only reads data/ and writes next to itself. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mbx/csvio.h"
#include "mbx/esc.h"
#include "report_int.h"

const char *const mbx_rpt_plot_suffix[MBX_RPT_NPLOTS] = {"latency", "bandwidth", "compare",
                                                         "spread"};

/* Okabe-Ito, colour-blind safe; point types differ as well. */
static const char *const colours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                      "#E69F00", "#56B4E9", "#000000", "#F0E442"};
#define NCOLOURS (sizeof colours / sizeof *colours)
static const int ptypes[] = {7, 5, 9, 11, 13, 15, 4, 6};

typedef struct range {
    double lo, hi; /* NAN: nothing yet */
} range;

static void widen(range *r, double v)
{
    if (!isfinite(v))
        return;
    if (isnan(r->lo) || v < r->lo)
        r->lo = v;
    if (isnan(r->hi) || v > r->hi)
        r->hi = v;
}

/* One curve's data file and what the script needs to know about it. */
typedef struct curve {
    size_t in;       /* input index */
    char file[300];  /* relative to the report directory */
    char marks[300]; /* significance labels (compare), "" if none */
    size_t rows, mrows;
} curve;

typedef struct ctx {
    mbx_rpt *r;
    FILE *gp;
    char *msg;
    size_t msglen;
    int err; /* a file could not be written */
} ctx;

static FILE *open_data(ctx *c, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", c->r->dir, rel);
    FILE *f = fopen(path, "w");
    if (f == NULL && !c->err) {
        snprintf(c->msg, c->msglen, "cannot write '%s': %s", path, strerror(errno));
        c->err = 1;
    }
    return f;
}

static void close_data(ctx *c, FILE *f, const char *rel)
{
    if (f != NULL && (ferror(f) | fclose(f)) && !c->err) {
        snprintf(c->msg, c->msglen, "writing '%s/%s' failed", c->r->dir, rel);
        c->err = 1;
    }
}

/* Text into plots.gp only as a single-quoted literal (mbx_esc_gnuplot):
 * gnuplot expands backquotes (a shell command), @macros and backslash
 * escapes in double-quoted strings, and a line break would end the
 * command; a single-quoted literal with its controls as `\xNN` does none
 * of that. Every text item is followed by `noenhanced` where it is drawn. */
static void gp_str(FILE *f, const char *s)
{
    size_t len = MBX_ESC_MAX(strlen(s));
    char small[512], *buf = len <= sizeof small ? small : malloc(len);
    if (buf == NULL) { /* out of memory: an empty text rather than a raw one */
        fputs("''", f);
        return;
    }
    mbx_status st = mbx_esc_gnuplot(s, buf, len); /* len always suffices */
    (void)st;
    fputs(buf, f);
    if (buf != small)
        free(buf);
}

void mbx_rpt_size_label(char *buf, size_t len, unsigned long long b)
{
    static const char *const unit[] = {"", "Ki", "Mi", "Gi", "Ti"};
    int u = 0;
    while (u < 4 && b >= 1024 && b % 1024 == 0) {
        b /= 1024;
        u++;
    }
    snprintf(buf, len, "%llu%s", b, unit[u]);
}

void mbx_rpt_fmt(char *buf, size_t len, double v, const char *fmt)
{
    mbx_csv_fmt_number(buf, len, fmt, v);
}

#define ZERO_BYTES_X 0.5

/* Which points a plot of series s takes from input i, and their values. */
enum { V_X, V_Y, V_LO, V_HI, NV };

static int values(const mbx_rpt *r, int plot, const mbx_rpt_point *p, const mbx_rpt_point *a,
                  double *v)
{
    double x = mbx_rpt_x(r, p);
    /* 0 B on the log size axis: at half a byte, ticked "0" (size_axis). */
    if (x == 0 && !r->se[p->series].by_procs)
        x = ZERO_BYTES_X;
    if (!(x > 0))
        return 0;
    v[V_X] = x;
    double lo = isfinite(p->lo) && p->lo > 0 ? fmin(p->lo, p->med) : p->med;
    double hi = isfinite(p->hi) ? fmax(p->hi, p->med) : p->med;
    switch (plot) {
    case MBX_RPT_LAT: v[V_Y] = p->med, v[V_LO] = lo, v[V_HI] = hi; return p->med > 0;
    case MBX_RPT_BW:
        if (!(p->bw > 0) || !(p->med > 0))
            return 0;
        v[V_Y] = p->bw, v[V_LO] = p->bw * p->med / hi, v[V_HI] = p->bw * p->med / lo;
        return 1;
    case MBX_RPT_SPREAD:
        v[V_Y] = v[V_LO] = v[V_HI] = 100.0 * p->spread;
        return isfinite(p->spread) && p->runs > 1;
    default: /* MBX_RPT_CMP */
        v[V_Y] = v[V_LO] = v[V_HI] = p->med / a->med;
        return p->med > 0 && a != NULL && a->med > 0;
    }
}

static const char *const data_head[MBX_RPT_NPLOTS] = {
    "median_us lo_us hi_us (lo..hi: the point's 95 % CI, between passes for a point measured in "
    "passes, or min..max of the launch medians)",
    "bandwidth_MBps lo hi (the same interval as the latency)",
    "ratio_of_medians (this input / input A)",
    "spread_percent ((max - min) / min of the launch medians)",
};

/* Text in a data file's comment line: no line break may end it early. */
static void comment(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
}

/* Write the data of one curve; returns its row count (0: no file kept). */
static size_t write_curve(ctx *c, size_t s, int plot, size_t i, curve *cv, range *xr, range *yr)
{
    mbx_rpt *r = c->r;
    size_t n, na = 0, rows = 0;
    size_t *idx = mbx_rpt_series_points(r, i, s, &n);
    size_t *aidx = plot == MBX_RPT_CMP ? mbx_rpt_series_points(r, 0, s, &na) : NULL;
    const mbx_rpt_cmp *cmp = plot == MBX_RPT_CMP && i > 0 ? &r->cmp[i - 1] : NULL;
    cv->in = i;
    snprintf(cv->file, sizeof cv->file, "data/%s-%s-%s.dat", r->se[s].name,
             mbx_rpt_plot_suffix[plot], r->in[i].letter);
    cv->marks[0] = '\0';
    cv->mrows = 0;
    FILE *f = NULL, *m = NULL;
    for (size_t k = 0, ka = 0; k < n; k++) {
        const mbx_rpt_point *p = &r->in[i].pt[idx[k]], *a = NULL;
        double v[NV];
        if (plot == MBX_RPT_CMP) { /* merge join on x with input A */
            while (ka < na && mbx_rpt_x(r, &r->in[0].pt[aidx[ka]]) < mbx_rpt_x(r, p))
                ka++;
            if (ka < na && mbx_rpt_x(r, &r->in[0].pt[aidx[ka]]) == mbx_rpt_x(r, p))
                a = &r->in[0].pt[aidx[ka]];
            if (a == NULL)
                continue;
        }
        if (!values(r, plot, p, a, v)) {
            if (plot == MBX_RPT_LAT)
                r->skipped++;
            continue;
        }
        if (f == NULL && (f = open_data(c, cv->file)) != NULL) {
            fputs("# ", f);
            comment(f, r->in[i].name);
            fputs(": ", f);
            comment(f, r->se[s].title);
            fprintf(f, "\n# x (%s) %s\n", r->se[s].by_procs ? "processes" : "bytes",
                    data_head[plot]);
        }
        if (f == NULL)
            break;
        fprintf(f, "%.17g %.10g %.10g %.10g\n", v[V_X], v[V_Y], v[V_LO], v[V_HI]);
        widen(xr, v[V_X]);
        widen(yr, v[V_LO]);
        widen(yr, v[V_HI]);
        rows++;
        size_t ti = cmp ? mbx_rpt_cmp_find(cmp, a) : SIZE_MAX;
        const mbx_cmp_point *t = ti != SIZE_MAX ? mbx_compare_get(cmp->c, ti) : NULL;
        if (t == NULL || t->stars == NULL || t->stars[0] == '\0')
            continue;
        if (m == NULL) {
            snprintf(cv->marks, sizeof cv->marks, "data/%s-marks-%s.dat", r->se[s].name,
                     r->in[i].letter);
            if ((m = open_data(c, cv->marks)) == NULL)
                break;
            fprintf(m, "# x ratio marks (two-sided Wilcoxon p: * < 0.05, ** < 0.01, *** < "
                       "0.001)\n");
        }
        fprintf(m, "%.17g %.10g \"%s\"\n", v[V_X], v[V_Y], t->stars);
        cv->mrows++;
    }
    close_data(c, f, cv->file);
    close_data(c, m, cv->marks);
    free(idx);
    free(aidx);
    cv->rows = rows;
    return rows;
}

/* Explicit ticks on a log2 size axis: powers of two, at most ~10. */
static void size_axis(FILE *gp, range xr)
{
    int e0 = (int)floor(log2(xr.lo) + 1e-9), e1 = (int)ceil(log2(xr.hi) - 1e-9);
    static const int steps[] = {1, 2, 4, 10, 20};
    int step = 20;
    for (size_t k = 0; k < sizeof steps / sizeof *steps && step == 20; k++)
        if ((e1 - e0) / steps[k] <= 12)
            step = steps[k];
    fprintf(gp, "set logscale x 2\nset xrange [%.10g:%.10g]\nset xtics (", xr.lo / 1.5,
            xr.hi * 1.5);
    int first = 1;
    if (xr.lo < 1) { /* a 0-byte point (values) */
        gp_str(gp, "0");
        fputs(" 0.5", gp); /* ZERO_BYTES_X */
        first = 0;
    }
    for (int e = (e0 / step) * step; e <= e1; e += step) {
        if (e < e0 || e < 0 || e > 62)
            continue;
        char lab[32];
        mbx_rpt_size_label(lab, sizeof lab, 1ULL << e);
        fputs(first ? "" : ", ", gp);
        gp_str(gp, lab);
        fprintf(gp, " %.0f", ldexp(1.0, e));
        first = 0;
    }
    fputs(")\nset xlabel \"message size [bytes] (log scale; Ki = 1024, Mi = 1024 Ki)\"\n", gp);
}

static void procs_axis(FILE *gp, range xr)
{
    if (xr.hi / xr.lo > 16) { /* powers of two, as on the size axis */
        fprintf(gp, "set logscale x 2\nset xrange [%.10g:%.10g]\nset xtics 2\n", xr.lo / 1.3,
                xr.hi * 1.3);
    } else {
        double step = ceil((xr.hi - xr.lo) / 10);
        fprintf(gp, "set xrange [%.10g:%.10g]\nset xtics %.0f\nset mxtics 1\n", xr.lo - 0.5,
                xr.hi + 0.5, step < 1 ? 1 : step);
    }
    fputs("set format x \"%.0f\"\nset xlabel \"processes\"\n", gp);
}

static const char *const ylabel[MBX_RPT_NPLOTS] = {
    "latency: median [µs] (log scale)",
    "bandwidth [MB/s, 10^6 bytes/s] (log scale)",
    "ratio of medians X / A (below 1: X faster)",
    "launch-to-launch spread of the medians, (max - min) / min [%]",
};

static void curve_title(char *buf, size_t len, const mbx_rpt *r, size_t i, int plot)
{
    const mbx_rpt_input *in = &r->in[i];
    if (plot == MBX_RPT_CMP)
        snprintf(buf, len, "%s/A: %s over %s%s", in->letter, in->name, r->in[0].name,
                 r->cmp[i - 1].c ? "" : " (no test: see index)");
    else if (plot == MBX_RPT_SPREAD || in->kind == MBX_RPT_RESULTS)
        snprintf(buf, len, "%s: %s%s", in->letter, in->name,
                 plot == MBX_RPT_SPREAD ? ""
                 : in->passes           ? " (median of pass medians, 95 % CI between passes)"
                                        : " (median, 95 % CI)");
    else if (in->kind == MBX_RPT_LAUNCHES)
        snprintf(buf, len, "%s: %s (median of %zu launch medians, min-max band)", in->letter,
                 in->name, in->launches);
    else
        snprintf(buf, len, "%s: %s (median of the runs' medians, min-max band)", in->letter,
                 in->name);
}

/* The plot's title (a second line on a comparison: what its marks mean). */
static void plot_title(FILE *gp, const mbx_rpt *r, const mbx_rpt_series *se, int plot)
{
    char title[600];
    static const char *const what[MBX_RPT_NPLOTS] = {"latency", "bandwidth", "ratio to A",
                                                     "launch-to-launch spread"};
    snprintf(title, sizeof title, "%s: %s", se->title, what[plot]);
    fprintf(gp, "\n# ---- %s-%s ----\nreset\nset title ", se->name, mbx_rpt_plot_suffix[plot]);
    gp_str(gp, title);
    if (plot == MBX_RPT_CMP) { /* a second line, joined as gnuplot text */
        int tested = 0;
        for (size_t k = 0; k + 1 < r->nin; k++)
            tested |= r->cmp[k].c != NULL;
        fputs(".\"\\n\".", gp);
        gp_str(gp, tested ? "marks: Wilcoxon rank-sum, two-sided p < 0.05 *, < 0.01 **, < 0.001 ***"
                          : "no significance test: the inputs are not comparable (see index)");
    }
    fputs(" noenhanced", gp);
}

/* Grid, key, fill, the axes and their labels. */
static void plot_frame(FILE *gp, const mbx_rpt_series *se, int plot, size_t ncv, range xr)
{
    int logy = plot == MBX_RPT_LAT || plot == MBX_RPT_BW;
    fputs("\nset grid xtics ytics mytics lt 1 lw 1 lc rgb \"#e4e4e4\", lt 1 lw 1 lc rgb "
          "\"#f2f2f2\"\n",
          gp);
    if (logy) {
        fputs("set key top left box opaque\n", gp);
    } else { /* below the plot, with room kept for it under the x label */
        size_t rows = ncv + (plot == MBX_RPT_CMP);
        rows = rows > 3 ? 3 : rows;
        fprintf(gp,
                "set key outside bottom center horizontal box opaque maxrows 3\n"
                "set bmargin %zu\n",
                5 + rows);
    }
    fputs("set style fill transparent solid 0.18 noborder\nset bars small\n", gp);
    if (se->by_procs)
        procs_axis(gp, xr);
    else
        size_axis(gp, xr);
    fputs("set ylabel ", gp);
    gp_str(gp, ylabel[plot]);
    fputs(" noenhanced\n", gp);
    if (logy)
        fputs("set logscale y\nset format y \"%g\"\n", gp);
}

static void plot_yrange(FILE *gp, int plot, range yr)
{
    int logy = plot == MBX_RPT_LAT || plot == MBX_RPT_BW;
    if (yr.lo == yr.hi && plot == MBX_RPT_SPREAD)
        fprintf(gp, "set yrange [0:%.10g]\n", yr.hi * 1.5 + 1);
    else if (yr.lo == yr.hi) /* a flat range: give gnuplot room to draw it */
        fprintf(gp, "set yrange [%.10g:%.10g]\n",
                logy ? yr.lo / 10 : yr.lo - fabs(yr.lo) * 0.1 - 0.1,
                logy ? yr.hi * 10 : yr.hi + fabs(yr.hi) * 0.1 + 0.1);
    else if (plot == MBX_RPT_SPREAD)
        fputs("set yrange [0:*]\nset offsets 0, 0, graph 0.08, 0\n", gp);
    else if (!logy)
        fputs("set offsets 0, 0, graph 0.08, graph 0.05\n", gp);
}

/* The plot command: a line (with its CI or band) per curve, its marks,
 * and on a comparison the X = A line. */
static void plot_lines(FILE *gp, const mbx_rpt *r, int plot, const curve *cv, size_t ncv)
{
    char t[600];
    fputs("\nplot ", gp);
    for (size_t k = 0; k < ncv; k++) {
        size_t lt = cv[k].in % NCOLOURS + 1;
        const mbx_rpt_input *in = &r->in[cv[k].in];
        curve_title(t, sizeof t, r, cv[k].in, plot);
        fputs(k ? ", \\\n     " : "", gp);
        if (plot == MBX_RPT_LAT || plot == MBX_RPT_BW) {
            if (in->kind == MBX_RPT_RESULTS) {
                gp_str(gp, cv[k].file);
                fprintf(gp, " using 1:2:3:4 with yerrorlines lt %zu title ", lt);
            } else {
                gp_str(gp, cv[k].file);
                fprintf(gp, " using 1:3:4 with filledcurves lt %zu notitle, \\\n     ", lt);
                gp_str(gp, cv[k].file);
                fprintf(gp, " using 1:2 with linespoints lt %zu title ", lt);
            }
        } else {
            gp_str(gp, cv[k].file);
            fprintf(gp, " using 1:2 with linespoints lt %zu title ", lt);
        }
        gp_str(gp, t);
        fputs(" noenhanced", gp);
        if (cv[k].mrows > 0) {
            fputs(", \\\n     ", gp);
            gp_str(gp, cv[k].marks);
            fprintf(gp, " using 1:2:3 with labels offset 0,0.9 tc lt %zu notitle noenhanced", lt);
        }
    }
    if (plot == MBX_RPT_CMP)
        fputs(", \\\n     1 with lines dt 2 lc rgb \"#777777\" title 'X = A' noenhanced", gp);
}

/* One plot of series s in the gnuplot script: drawn as PNG, then SVG. */
static void emit_plot(ctx *c, size_t s, int plot, const curve *cv, size_t ncv, range xr, range yr)
{
    FILE *gp = c->gp;
    const mbx_rpt_series *se = &c->r->se[s];
    char out[400];
    plot_title(gp, c->r, se, plot);
    plot_frame(gp, se, plot, ncv, xr);
    plot_yrange(gp, plot, yr);
    snprintf(out, sizeof out, "%s-%s.png", se->name, mbx_rpt_plot_suffix[plot]);
    fputs("set terminal @png_term\nset output ", gp);
    gp_str(gp, out);
    plot_lines(gp, c->r, plot, cv, ncv);
    snprintf(out, sizeof out, "%s-%s.svg", se->name, mbx_rpt_plot_suffix[plot]);
    fputs("\nset terminal @svg_term\nset output ", gp);
    gp_str(gp, out);
    fputs("\nreplot\nunset output\n", gp);
}

static void plot_series(ctx *c, size_t s, int plot)
{
    mbx_rpt *r = c->r;
    curve *cv = calloc(r->nin, sizeof *cv);
    size_t ncv = 0;
    range xr = {NAN, NAN}, yr = {NAN, NAN};
    if (cv == NULL) {
        snprintf(c->msg, c->msglen, "out of memory");
        c->err = 1;
        return;
    }
    for (size_t i = plot == MBX_RPT_CMP ? 1 : 0; i < r->nin && !c->err; i++) {
        if (plot == MBX_RPT_SPREAD && r->in[i].kind == MBX_RPT_RESULTS)
            continue;
        if (write_curve(c, s, plot, i, &cv[ncv], &xr, &yr) > 0)
            ncv++;
    }
    if (ncv > 0 && !c->err) {
        /* The flat line at ratio 1 belongs to the picture. */
        if (plot == MBX_RPT_CMP)
            widen(&yr, 1.0);
        emit_plot(c, s, plot, cv, ncv, xr, yr);
        r->drawn[s][plot] = 1;
        r->nplots++;
    }
    free(cv);
}

int mbx_rpt_write_plots(mbx_rpt *r, char *msg, size_t msglen)
{
    ctx c = {.r = r, .msg = msg, .msglen = msglen};
    char path[4096];
    snprintf(path, sizeof path, "%s/data", r->dir);
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        snprintf(msg, msglen, "cannot create '%s': %s", path, strerror(errno));
        return 1;
    }
    snprintf(path, sizeof path, "%s/plots.gp", r->dir);
    if ((c.gp = fopen(path, "w")) == NULL) {
        snprintf(msg, msglen, "cannot write '%s': %s", path, strerror(errno));
        return 1;
    }
    fputs("# mpibex report: every plot of index.html, as PNG and SVG.\n"
          "# Edit and run again inside this directory: gnuplot plots.gp\n"
          "# Data: data/SERIES-PLOT-INPUT.dat (x, value, interval low, high).\n"
          "set encoding utf8\n"
          "png_term = \"png size 960,600 noenhanced\"\n"
          "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) "
          "png_term = \"pngcairo size 960,600 noenhanced font 'Sans,10'\"\n"
          "svg_term = \"svg size 960,600 dynamic noenhanced font 'Sans,10' "
          "background rgb 'white'\"\n",
          c.gp);
    for (size_t k = 0; k < NCOLOURS; k++)
        fprintf(c.gp, "set linetype %zu lc rgb \"%s\" lw 1.5 pt %d ps 0.9\n", k + 1, colours[k],
                ptypes[k]);
    for (size_t s = 0; s < r->nse && !c.err; s++) {
        plot_series(&c, s, MBX_RPT_LAT);
        plot_series(&c, s, MBX_RPT_BW);
        if (r->nin > 1)
            plot_series(&c, s, MBX_RPT_CMP);
        plot_series(&c, s, MBX_RPT_SPREAD);
    }
    if ((ferror(c.gp) | fclose(c.gp)) && !c.err) {
        snprintf(msg, msglen, "writing '%s' failed", path);
        c.err = 1;
    }
    return c.err;
}
