/* mpibex report: the parts of plots.gp around the plot command: text as
 * gnuplot literals, the axes (a log2 size axis with explicit ticks, or
 * processes), grid, legend and y range. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/esc.h"
#include "report_int.h"

/* Text into plots.gp only as a single-quoted literal (mbx_esc_gnuplot):
 * gnuplot expands backquotes (a shell command), @macros and backslash
 * escapes in double-quoted strings, and a line break would end the
 * command; a single-quoted literal with its controls as `\xNN` does none
 * of that. Every text item is followed by `noenhanced` where it is drawn. */
void mbx_rpt_gp_str(FILE *f, const char *s)
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

/* Explicit ticks on a log2 size axis: powers of two, at most ~10. */
static void size_axis(FILE *gp, mbx_rpt_range xr)
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
        mbx_rpt_gp_str(gp, "0");
        fputs(" 0.5", gp); /* ZERO_BYTES_X */
        first = 0;
    }
    for (int e = (e0 / step) * step; e <= e1; e += step) {
        if (e < e0 || e < 0 || e > 62)
            continue;
        char lab[32];
        mbx_rpt_size_label(lab, sizeof lab, 1ULL << e);
        fputs(first ? "" : ", ", gp);
        mbx_rpt_gp_str(gp, lab);
        fprintf(gp, " %.0f", ldexp(1.0, e));
        first = 0;
    }
    fputs(")\nset xlabel \"message size [bytes] (log scale; Ki = 1024, Mi = 1024 Ki)\"\n", gp);
}

int mbx_rpt_procs_log(mbx_rpt_range xr)
{
    return xr.hi / xr.lo > 16;
}

static void procs_axis(FILE *gp, mbx_rpt_range xr)
{
    if (mbx_rpt_procs_log(xr)) { /* powers of two, as on the size axis */
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

/* Grid, key, fill, the axes and their labels. */
void mbx_rpt_plot_frame(FILE *gp, int by_procs, int plot, size_t nkey, mbx_rpt_range xr)
{
    int logy = plot == MBX_RPT_LAT || plot == MBX_RPT_BW;
    fputs("\nset grid xtics ytics mytics lt 1 lw 1 lc rgb \"#e4e4e4\", lt 1 lw 1 lc rgb "
          "\"#f2f2f2\"\n",
          gp);
    if (logy) {
        fputs("set key top left box opaque\n", gp);
    } else { /* below the plot, with room kept for it under the x label */
        size_t rows = nkey > 3 ? 3 : nkey;
        fprintf(gp,
                "set key outside bottom center horizontal box opaque maxrows 3\n"
                "set bmargin %zu\n",
                5 + rows);
    }
    fputs("set style fill transparent solid 0.18 noborder\nset bars small\n", gp);
    if (by_procs)
        procs_axis(gp, xr);
    else
        size_axis(gp, xr);
    fputs("set ylabel ", gp);
    mbx_rpt_gp_str(gp, ylabel[plot]);
    fputs(" noenhanced\n", gp);
    if (logy)
        fputs("set logscale y\nset format y \"%g\"\n", gp);
}

void mbx_rpt_plot_yrange(FILE *gp, int plot, mbx_rpt_range yr)
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
