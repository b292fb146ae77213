/* mpibex report: the gnuplot data files (data/NAME.dat) and the script
 * (plots.gp) that draws every plot twice, as PNG and as SVG. A plot is
 * one figure's (mbx_rpt_fig): the curves of its series, each input's. The script is
 * kept in the report so that users can edit it and run `gnuplot plots.gp`
 * there again; it only reads data/ and writes next to itself. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mbx/csvio.h"
#include "mbx/dir.h"
#include "mbx/esc.h"
#include "mbx/file.h"
#include "mbx/rowview.h"
#include "report_int.h"

const char *const mbx_rpt_plot_suffix[MBX_RPT_NPLOTS] = {"latency", "bandwidth", "compare",
                                                         "spread"};

/* Okabe-Ito, colour-blind safe; the point types are the marks' (data column pt). */
static const char *const colours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                      "#E69F00", "#56B4E9", "#000000", "#F0E442"};
#define NCOLOURS (sizeof colours / sizeof *colours)

typedef mbx_rpt_range range;

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
    size_t se;       /* series index */
    size_t lt;       /* linetype (colour) */
    char file[300];  /* relative to the report directory */
    char marks[300]; /* significance labels (compare), "" if none */
    size_t rows, mrows;
    size_t nmark[MBX_RPT_NMARKS]; /* rows of each mark */
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
    FILE *f = mbx_file_fopen(path);
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
    /* No bar where the row has no interval to show (mbx/rowview.h), nor
     * on a side whose bound is not a positive time. */
    char na[32];
    mbx_point_status ps;
    int nobar = mbx_point_status_parse(p->status, &ps) == 1 &&
                mbx_row_ci_na(ps, p->levels > 0 ? (size_t)p->levels : 0, na, sizeof na);
    double lo = !nobar && isfinite(p->lo) && p->lo > 0 ? fmin(p->lo, p->med) : p->med;
    double hi = !nobar && isfinite(p->hi) ? fmax(p->hi, p->med) : p->med;
    double blo, bhi;
    switch (plot) {
    case MBX_RPT_LAT: v[V_Y] = p->med, v[V_LO] = lo, v[V_HI] = hi; return p->med > 0;
    case MBX_RPT_BW:
        if (!(p->bw > 0) || !(p->med > 0))
            return 0;
        /* The time interval inverted: its low time is the high bandwidth. */
        mbx_row_bw_interval(1000000, lo, hi, &blo, &bhi);
        v[V_Y] = p->bw, v[V_LO] = p->bw * p->med * blo, v[V_HI] = p->bw * p->med * bhi;
        return 1;
    case MBX_RPT_SPREAD:
        v[V_Y] = v[V_LO] = v[V_HI] = 100.0 * p->spread;
        return isfinite(p->spread) && p->runs > 1;
    default: /* MBX_RPT_CMP */
        v[V_Y] = v[V_LO] = v[V_HI] = p->med / a->med;
        return p->med > 0 && a != NULL && a->med > 0;
    }
}

/* The data files' column names, per plot and input kind (results, merged
 * or launches), then what lo..hi is. */
static void data_head(FILE *f, const mbx_rpt *r, size_t s, int plot, const mbx_rpt_input *in)
{
    static const char *const y[MBX_RPT_NPLOTS] = {"median_us", "bandwidth_MBps", "ratio_to_A",
                                                  "spread_percent"};
    int res = in->kind == MBX_RPT_RESULTS;
    const char *lo = plot == MBX_RPT_LAT  ? (res ? "ci95_lo_us" : "median_min_us")
                     : plot == MBX_RPT_BW ? (res ? "bw_ci95_lo" : "bw_min")
                                          : "lo";
    const char *hi = plot == MBX_RPT_LAT  ? (res ? "ci95_hi_us" : "median_max_us")
                     : plot == MBX_RPT_BW ? (res ? "bw_ci95_hi" : "bw_max")
                                          : "hi";
    fprintf(f, "# %s %s %s %s status refined remeasured pt\n",
            r->se[s].by_procs ? "procs" : "bytes", y[plot], lo, hi);
    if (plot == MBX_RPT_LAT || plot == MBX_RPT_BW)
        fprintf(f, "# lo..hi: %s\n",
                !res         ? "min..max of the launch (or run) medians"
                : in->passes ? "the 95 % CI of the median between passes"
                             : "the 95 % CI of the median");
    else
        fputs(plot == MBX_RPT_CMP ? "# ratio: this input's median / input A's; lo = hi = ratio\n"
                                  : "# spread: (max - min) / min of the launch medians in %; "
                                    "lo = hi = spread\n",
              f);
    fputs("# status: the CSV's (SETTLED, UNSETTLED, SHIFTED, ...); refined, remeasured: 0 or "
          "1; pt: the gnuplot point type of the status mark (plots.gp)\n",
          f);
}

/* Text in a data file's comment line: no line break may end it early. */
static void comment(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
}

/* The status as one word of a data row: gnuplot splits fields at blanks. */
static void status_word(FILE *f, const char *s)
{
    if (*s == '\0')
        fputc('-', f);
    for (; *s; s++)
        fputc((unsigned char)*s <= ' ' || *s == '"' || *s == '#' ? '_' : *s, f);
}

/* One data row: values, then the point's status and marks. */
static void data_row(FILE *f, const double *v, const mbx_rpt_point *p, curve *cv)
{
    mbx_rpt_mark m = mbx_rpt_point_mark(p);
    fprintf(f, "%.17g %.10g %.10g %.10g ", v[V_X], v[V_Y], v[V_LO], v[V_HI]);
    status_word(f, p->status);
    fprintf(f, " %d %d %d\n", p->refined, p->remeasured, mbx_rpt_marks[m].pt);
    cv->nmark[m]++;
    cv->nmark[MBX_RPT_REFINED] += (size_t)p->refined;
}

/* The significance label of the point of curve cv at x (compare plots). */
static int mark_row(ctx *c, FILE **m, curve *cv, size_t s, const mbx_rpt_cmp *cmp,
                    const mbx_rpt_point *a, const double *v)
{
    size_t ti = cmp ? mbx_rpt_cmp_find(cmp, a) : SIZE_MAX;
    const mbx_cmp_point *t = ti != SIZE_MAX ? mbx_compare_get(cmp->c, ti) : NULL;
    if (t == NULL || t->stars == NULL || t->stars[0] == '\0')
        return 0;
    if (*m == NULL) {
        snprintf(cv->marks, sizeof cv->marks, "data/%s-marks-%s.dat", c->r->se[s].name,
                 c->r->in[cv->in].letter);
        if ((*m = open_data(c, cv->marks)) == NULL)
            return -1;
        fprintf(*m, "# x ratio marks (two-sided Wilcoxon p: * < 0.05, ** < 0.01, *** < "
                    "0.001)\n");
    }
    fprintf(*m, "%.17g %.10g \"%s\"\n", v[V_X], v[V_Y], t->stars);
    cv->mrows++;
    return 0;
}

/* Write the data of one curve; returns its row count (0: no file kept). */
static size_t write_curve(ctx *c, size_t s, int plot, size_t i, curve *cv, range *xr, range *yr)
{
    mbx_rpt *r = c->r;
    size_t n, na = 0, rows = 0;
    size_t *idx = mbx_rpt_series_points(r, i, s, &n);
    size_t *aidx = plot == MBX_RPT_CMP ? mbx_rpt_series_points(r, 0, s, &na) : NULL;
    const mbx_rpt_cmp *cmp = plot == MBX_RPT_CMP && i > 0 ? &r->cmp[i - 1] : NULL;
    memset(cv, 0, sizeof *cv);
    cv->in = i;
    cv->se = s;
    snprintf(cv->file, sizeof cv->file, "data/%s-%s-%s.dat", r->se[s].name,
             mbx_rpt_plot_suffix[plot], r->in[i].letter);
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
            fputc('\n', f);
            data_head(f, r, s, plot, &r->in[i]);
        }
        if (f == NULL)
            break;
        data_row(f, v, p, cv);
        widen(xr, v[V_X]);
        widen(yr, v[V_LO]);
        widen(yr, v[V_HI]);
        rows++;
        if (mark_row(c, &m, cv, s, cmp, a, v) < 0)
            break;
    }
    close_data(c, f, cv->file);
    close_data(c, m, cv->marks);
    free(idx);
    free(aidx);
    cv->rows = rows;
    return rows;
}

/* The legend text of input i's curve in a figure of one series. */
static void input_title(char *buf, size_t len, const mbx_rpt *r, size_t i, int plot)
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

/* The legend text of a curve: its input on a plot of one series; else
 * its series, and its input when there are several (what the bars mean
 * is then on the title's second line). */
static void curve_title(char *buf, size_t len, const mbx_rpt *r, const mbx_rpt_fig *fg,
                        const curve *cv, int plot)
{
    const mbx_rpt_input *in = &r->in[cv->in];
    if (fg->nse == 1)
        input_title(buf, len, r, cv->in, plot);
    else if (plot == MBX_RPT_CMP)
        snprintf(buf, len, "%s, %s/A%s", r->se[cv->se].curve, in->letter,
                 r->cmp[cv->in - 1].c ? "" : " (no test)");
    else if (r->nin > 1)
        snprintf(buf, len, "%s, %s: %s", r->se[cv->se].curve, in->letter, in->name);
    else
        snprintf(buf, len, "%s", r->se[cv->se].curve);
}

/* What the bars of a latency or bandwidth plot of several series are. */
static void bars_text(char *buf, size_t len, const mbx_rpt *r)
{
    int res = 0, band = 0, passes = 0;
    for (size_t i = 0; i < r->nin; i++) {
        res |= r->in[i].kind == MBX_RPT_RESULTS;
        band |= r->in[i].kind != MBX_RPT_RESULTS;
        passes |= r->in[i].passes;
    }
    snprintf(buf, len, "the median%s%s%s", res ? ", with its 95 % CI as error bars" : "",
             res && passes ? " (between passes where measured in passes)" : "",
             band ? "; band: min-max of the launch medians" : "");
}

/* The plot's title; a second line on a comparison (what its marks mean)
 * and on a latency or bandwidth plot of several series (its bars). */
static void plot_title(FILE *gp, const mbx_rpt *r, const mbx_rpt_fig *fg, int plot)
{
    char title[600], bars[200];
    static const char *const what[MBX_RPT_NPLOTS] = {"latency", "bandwidth", "ratio to A",
                                                     "launch-to-launch spread"};
    snprintf(title, sizeof title, "%s: %s", fg->title, what[plot]);
    fprintf(gp, "\n# ---- %s-%s ----\nreset\nset title ", fg->name, mbx_rpt_plot_suffix[plot]);
    mbx_rpt_gp_str(gp, title);
    if (plot == MBX_RPT_CMP) { /* a second line, joined as gnuplot text */
        int tested = 0;
        for (size_t k = 0; k + 1 < r->nin; k++)
            tested |= r->cmp[k].c != NULL;
        fputs(".\"\\n\".", gp);
        mbx_rpt_gp_str(
            gp, tested ? "marks: Wilcoxon rank-sum, two-sided p < 0.05 *, < 0.01 **, < 0.001 ***"
                       : "no significance test: the inputs are not comparable (see index)");
    } else if (fg->nse > 1 && (plot == MBX_RPT_LAT || plot == MBX_RPT_BW)) {
        bars_text(bars, sizeof bars, r);
        fputs(".\"\\n\".", gp);
        mbx_rpt_gp_str(gp, bars);
    }
    fputs(" noenhanced", gp);
}

/* Which marks the curves of a plot have: bit m for mark m. Settled is
 * only worth a legend entry beside others. */
static unsigned marks_seen(const curve *cv, size_t ncv)
{
    unsigned seen = 0;
    for (size_t k = 0; k < ncv; k++)
        for (int m = 0; m < MBX_RPT_NMARKS; m++)
            seen |= cv[k].nmark[m] ? 1u << m : 0;
    return seen == 1u << MBX_RPT_SETTLED ? 0 : seen;
}

static size_t key_entries(int plot, size_t ncv, unsigned seen)
{
    size_t n = ncv + (plot == MBX_RPT_CMP);
    for (int m = 0; m < MBX_RPT_NMARKS; m++)
        n += (seen >> m) & 1u;
    return n;
}

/* One curve: its interval (error bars, or a band), its line with the
 * legend entry, the status marks (pt from the data), a diamond around
 * refined points, the significance labels. */
static void plot_curve(FILE *gp, int plot, const mbx_rpt_input *in, const curve *cv, size_t dt,
                       const char *x, const char *title)
{
    if (plot == MBX_RPT_LAT || plot == MBX_RPT_BW) {
        mbx_rpt_gp_str(gp, cv->file);
        if (in->kind == MBX_RPT_RESULTS)
            fprintf(gp, " using %s:2:3:4 with yerrorbars lt %zu ps 0 notitle, \\\n     ", x,
                    cv->lt);
        else
            fprintf(gp, " using %s:3:4 with filledcurves lt %zu notitle, \\\n     ", x, cv->lt);
    }
    mbx_rpt_gp_str(gp, cv->file);
    fprintf(gp, " using %s:2 with lines lt %zu dt %zu title ", x, cv->lt, dt);
    mbx_rpt_gp_str(gp, title);
    fputs(" noenhanced, \\\n     ", gp);
    mbx_rpt_gp_str(gp, cv->file);
    fprintf(gp, " using %s:2:8 with points lt %zu pt variable notitle", x, cv->lt);
    if (cv->nmark[MBX_RPT_REFINED] > 0) {
        fputs(", \\\n     ", gp);
        mbx_rpt_gp_str(gp, cv->file);
        fprintf(
            gp,
            " using %s:(column(6) > 0 ? column(2) : NaN) with points lt %zu pt %d ps %.1f notitle",
            x, cv->lt, mbx_rpt_marks[MBX_RPT_REFINED].pt, mbx_rpt_marks[MBX_RPT_REFINED].ps);
    }
    if (cv->mrows > 0) {
        fputs(", \\\n     ", gp);
        mbx_rpt_gp_str(gp, cv->marks);
        fprintf(gp, " using 1:2:3 with labels offset 0,0.9 tc lt %zu notitle noenhanced", cv->lt);
    }
}

/* The x of curve k of ncv in a `using`: with error bars, curves at the
 * same x are set a little apart (about 3 % of an octave, or 0.05 of a
 * process, per curve) so that their bars do not hide each other. The data
 * files keep the true x. The x is column(1), not $1: plots.gp has no '$',
 * '!' or '`' outside a string (fuzz_report checks it), so no text of an
 * input can reach gnuplot's shell escapes. */
static void dodge(char *buf, size_t len, int plot, int logx, size_t k, size_t ncv)
{
    double off = (double)k - (double)(ncv - 1) / 2;
    if (ncv < 2 || off == 0 || (plot != MBX_RPT_LAT && plot != MBX_RPT_BW))
        snprintf(buf, len, "1");
    else if (logx)
        snprintf(buf, len, "(column(1)*%.5f)", pow(2.0, 0.04 * off));
    else
        snprintf(buf, len, "(column(1)%+.3f)", 0.05 * off);
}

/* The plot command: every curve, on a comparison the X = A line, and a
 * legend entry (in grey) for each mark the curves have. */
static void plot_lines(FILE *gp, const mbx_rpt *r, const mbx_rpt_fig *fg, int plot, const curve *cv,
                       size_t ncv, unsigned seen, int logx)
{
    char t[600], x[32];
    fputs("\nplot ", gp);
    for (size_t k = 0; k < ncv; k++) {
        /* Inputs differ by dash on a plot of several series, by colour otherwise. */
        size_t dt = fg->nse > 1 ? (cv[k].in - (plot == MBX_RPT_CMP)) % 5 + 1 : 1;
        curve_title(t, sizeof t, r, fg, &cv[k], plot);
        fputs(k ? ", \\\n     " : "", gp);
        dodge(x, sizeof x, plot, logx, k, ncv);
        plot_curve(gp, plot, &r->in[cv[k].in], &cv[k], dt, x, t);
    }
    if (plot == MBX_RPT_CMP)
        fputs(", \\\n     1 with lines dt 2 lc rgb \"#777777\" title 'X = A' noenhanced", gp);
    for (int m = 0; m < MBX_RPT_NMARKS; m++) {
        if (!((seen >> m) & 1u))
            continue;
        fprintf(gp, ", \\\n     keyentry with points pt %d ps %.1f lc rgb \"#555555\" title ",
                mbx_rpt_marks[m].pt, mbx_rpt_marks[m].ps);
        mbx_rpt_gp_str(gp, mbx_rpt_marks[m].what);
        fputs(" noenhanced", gp);
    }
}

/* One plot of figure f in the gnuplot script: drawn as PNG, then SVG. */
static void emit_plot(ctx *c, size_t f, int plot, const curve *cv, size_t ncv, range xr, range yr)
{
    FILE *gp = c->gp;
    const mbx_rpt_fig *fg = &c->r->fig[f];
    unsigned seen = marks_seen(cv, ncv);
    char out[400];
    plot_title(gp, c->r, fg, plot);
    mbx_rpt_plot_frame(gp, fg->by_procs, plot, key_entries(plot, ncv, seen), xr);
    mbx_rpt_plot_yrange(gp, plot, yr);
    snprintf(out, sizeof out, "%s-%s.png", fg->name, mbx_rpt_plot_suffix[plot]);
    fputs("set terminal @png_term\nset output ", gp);
    mbx_rpt_gp_str(gp, out);
    plot_lines(gp, c->r, fg, plot, cv, ncv, seen, !fg->by_procs || mbx_rpt_procs_log(xr));
    snprintf(out, sizeof out, "%s-%s.svg", fg->name, mbx_rpt_plot_suffix[plot]);
    fputs("\nset terminal @svg_term\nset output ", gp);
    mbx_rpt_gp_str(gp, out);
    fputs("\nreplot\nunset output\n", gp);
}

/* Every curve of figure f's plot: each series' curve of each input. */
static void plot_fig(ctx *c, size_t f, int plot)
{
    mbx_rpt *r = c->r;
    const mbx_rpt_fig *fg = &r->fig[f];
    curve *cv = calloc(r->nin * fg->nse, sizeof *cv);
    size_t ncv = 0;
    range xr = {NAN, NAN}, yr = {NAN, NAN};
    if (cv == NULL) {
        snprintf(c->msg, c->msglen, "out of memory");
        c->err = 1;
        return;
    }
    for (size_t k = 0; k < fg->nse && !c->err; k++) {
        for (size_t i = plot == MBX_RPT_CMP ? 1 : 0; i < r->nin && !c->err; i++) {
            if (plot == MBX_RPT_SPREAD && r->in[i].kind == MBX_RPT_RESULTS)
                continue;
            if (write_curve(c, fg->se[k], plot, i, &cv[ncv], &xr, &yr) == 0)
                continue;
            /* A colour per series (the dash tells the inputs apart); on a plot of
             * one series a colour per input, the same on every plot. */
            cv[ncv].lt = (fg->nse > 1 ? k : i) % NCOLOURS + 1;
            ncv++;
        }
    }
    if (ncv > 0 && !c->err) {
        /* The flat line at ratio 1 belongs to the picture. */
        if (plot == MBX_RPT_CMP)
            widen(&yr, 1.0);
        emit_plot(c, f, plot, cv, ncv, xr, yr);
        r->drawn[f][plot] = 1;
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
    /* One already there must be ours and no link: the files go in by name. */
    const char *why = NULL;
    int dfd;
    if (mbx_dir_open_own(AT_FDCWD, path, 0, &dfd, &why) != MBX_OK) {
        snprintf(msg, msglen, "cannot use '%s': %s", path, why ? why : strerror(errno));
        return 1;
    }
    close(dfd);
    snprintf(path, sizeof path, "%s/plots.gp", r->dir);
    if ((c.gp = mbx_file_fopen(path)) == NULL) {
        snprintf(msg, msglen, "cannot write '%s': %s", path, strerror(errno));
        return 1;
    }
    fputs("# mpibex report: every plot of index.html, as PNG and SVG.\n"
          "# Edit and run again inside this directory: gnuplot plots.gp\n"
          "# Data: data/SERIES-PLOT-INPUT.dat (x, value, interval low, high, status,\n"
          "# refined, remeasured, point type of the status mark).\n"
          "set encoding utf8\n"
          "png_term = \"png size 960,600 noenhanced\"\n"
          "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) "
          "png_term = \"pngcairo size 960,600 noenhanced font 'Sans,10'\"\n"
          "svg_term = \"svg size 960,600 dynamic noenhanced font 'Sans,10' "
          "background rgb 'white'\"\n",
          c.gp);
    for (size_t k = 0; k < NCOLOURS; k++)
        fprintf(c.gp, "set linetype %zu lc rgb \"%s\" lw 1.5 ps 1.1\n", k + 1, colours[k]);
    for (size_t f = 0; f < r->nfig && !c.err; f++) {
        plot_fig(&c, f, MBX_RPT_LAT);
        plot_fig(&c, f, MBX_RPT_BW);
        if (r->nin > 1)
            plot_fig(&c, f, MBX_RPT_CMP);
        plot_fig(&c, f, MBX_RPT_SPREAD);
    }
    if (!c.err && mbx_rpt_write_heatmaps(r, c.gp, msg, msglen) != 0)
        c.err = 1;
    if ((ferror(c.gp) | fclose(c.gp)) && !c.err) {
        snprintf(msg, msglen, "writing '%s' failed", path);
        c.err = 1;
    }
    return c.err;
}
