/* The b_eff / b_eff_io screen's results, below its form: b_eff's
 * bandwidth against message size (one curve per ring pattern, the random
 * patterns' log average and the ping-pong), its legend and summary, or
 * b_eff_io's table of pattern types by access methods. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/axis.h"
#include "core/canvas.h"
#include "explorer.h"

static const char *const type_names[MBX_BEFFIO_NTYPES] = {"0 scatter", "1 shared", "2 separate",
                                                          "3 segmented", "4 seg-coll"};
static const char series_mark[EXB_NSERIES] = {'o', '+', 'x', '*', '#', '@', '%', '&'};
static const char *const series_names[EXB_NSERIES] = {
    "ring1", "ring2", "ring3", "ring4", "ring5", "ring6", "random log avg", "ping-pong"};

static void fmt_mbps(double v, char *buf, size_t len)
{
    if (!(v > 0) || !isfinite(v))
        snprintf(buf, len, "-");
    else if (v >= 1e5)
        snprintf(buf, len, "%.0f", v);
    else if (v >= 100)
        snprintf(buf, len, "%.1f", v);
    else
        snprintf(buf, len, "%.3g", v);
}

static void draw_beff_plot(explorer *x, const mbx_rect *r)
{
    mbx_ex_beff *b = &x->bf;
    mbx_ex_put(x, r->y, r->x + 1, r->w - 1, MBX_ROLE_NORMAL,
               "MB/s vs message size, max over methods");
    int pw = r->w - EX_YLABEL_W - 2, ph = r->h - 3;
    if (pw < 8 || ph < 2)
        return;
    int py = r->y + 1, px = r->x + EX_YLABEL_W + 1;
    double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
    for (int s = 0; s < EXB_NSERIES; s++)
        for (int i = 0; i < MBX_BEFF_NSIZES; i++)
            if (b->bw[s][i] > 0) {
                xmin = fmin(xmin, (double)b->bytes[i]);
                xmax = fmax(xmax, (double)b->bytes[i]);
                ymin = fmin(ymin, b->bw[s][i]);
                ymax = fmax(ymax, b->bw[s][i]);
            }
    if (!(xmax > 0))
        xmin = 1, xmax = 4096;
    if (!(ymax > 0))
        ymin = 1, ymax = 10;
    mbx_scale xs = mbx_scale_fit(xmin, xmax, MBX_AXIS_BYTES);
    mbx_scale ys = mbx_scale_fit(ymin, ymax, MBX_AXIS_MBPS);
    mbx_canvas *cv = mbx_canvas_new(pw, ph, x->glyphs);
    if (!cv)
        return;
    int dw = mbx_canvas_dot_width(cv), dh = mbx_canvas_dot_height(cv);
    for (int s = 0; s < EXB_NSERIES; s++) {
        int lx = -1, ly = -1;
        for (int i = 0; i < MBX_BEFF_NSIZES; i++) {
            if (!(b->bw[s][i] > 0))
                continue;
            int dx = mbx_scale_pixel(&xs, (double)b->bytes[i], dw, 0);
            int dy = mbx_scale_pixel(&ys, b->bw[s][i], dh, 1);
            if (lx >= 0)
                mbx_canvas_line(cv, lx, ly, dx, dy, s + 1);
            lx = dx, ly = dy;
        }
    }
    for (int s = 0; s < EXB_NSERIES; s++)
        for (int i = 0; i < MBX_BEFF_NSIZES; i++)
            if (b->bw[s][i] > 0)
                mbx_canvas_mark(cv, mbx_scale_pixel(&xs, (double)b->bytes[i], dw, 0),
                                mbx_scale_pixel(&ys, b->bw[s][i], dh, 1), series_mark[s], s + 1);
    mbx_ex_draw_canvas(x, cv, py, px);
    mbx_canvas_free(cv);
    mbx_ex_frame_left(x, py, px, ph);
    mbx_ticks t;
    mbx_axis_ticks(&ys, MBX_AXIS_MBPS, ph / 2 + 1, x->utf8, &t);
    for (int i = 0; i < t.n; i++) {
        char lab[16];
        snprintf(lab, sizeof lab, "%*s", EX_YLABEL_W - 1, t.label[i]);
        mbx_ex_put(x, py + mbx_scale_pixel(&ys, t.value[i], ph, 1), r->x, EX_YLABEL_W - 1,
                   MBX_ROLE_AXIS, lab);
    }
    int y = py + ph;
    mbx_ex_put(x, y, px - 1, 1, MBX_ROLE_AXIS, x->utf8 ? "\u2514" : "+");
    for (int c = 0; c < pw; c++)
        mbx_ex_put(x, y, px + c, 1, MBX_ROLE_AXIS, x->utf8 ? "\u2500" : "-");
    mbx_axis_ticks(&xs, MBX_AXIS_BYTES, pw / 7 + 1, x->utf8, &t);
    int next_free = 0;
    for (int i = 0; i < t.n; i++) {
        int len = (int)strlen(t.label[i]);
        int start = px + mbx_scale_pixel(&xs, t.value[i], pw, 0) - len / 2;
        if (start + len > r->x + r->w)
            start = r->x + r->w - len;
        if (start < next_free)
            continue;
        mbx_ex_put(x, y + 1, start, len, MBX_ROLE_AXIS, t.label[i]);
        next_free = start + len + 1;
    }
}

static void draw_beff_legend(explorer *x, const mbx_rect *r)
{
    mbx_ex_beff *b = &x->bf;
    mbx_ex_put(x, r->y, r->x + 1, r->w - 1, MBX_ROLE_NORMAL, "pattern     MB/s at max L");
    for (int s = 0; s < EXB_NSERIES && 1 + s < r->h; s++) {
        double v = NAN;
        for (int i = 0; i < MBX_BEFF_NSIZES; i++)
            if (b->bw[s][i] > 0)
                v = b->bw[s][i];
        char val[24], text[96];
        fmt_mbps(v, val, sizeof val);
        int nw = r->w - 13;
        nw = nw < 6 ? 6 : nw > 18 ? 18 : nw;
        snprintf(text, sizeof text, "%c %-*.*s %9s", series_mark[s], nw, nw, series_names[s], val);
        mbx_ex_put(x, r->y + 1 + s, r->x + 1, r->w - 1, MBX_ROLE_SERIES1 + s % MBX_NSERIES, text);
    }
}

static void draw_beff_summary(explorer *x, const mbx_rect *r)
{
    mbx_ex_beff *b = &x->bf;
    char line[400], a[24], c[24], d[24];
    if (!b->done) {
        mbx_ex_put(x, r->y, r->x + 1, r->w - 1, MBX_ROLE_DIM,
                   b->started ? "summary: when every row is in (b_eff, per process, at L_max, ...)"
                              : "");
        return;
    }
    const mbx_beff_summary *s = &b->sum;
    fmt_mbps(s->beff_mbps, a, sizeof a);
    fmt_mbps(s->beff_per_proc_mbps, c, sizeof c);
    int n = snprintf(line, sizeof line, "b_eff %s MB/s   per process %s MB/s", a, c);
    if (s->balance > 0)
        snprintf(line + n, sizeof line - (size_t)n, "   balance %.4g B/Flop", s->balance);
    mbx_ex_put(x, r->y, r->x + 1, r->w - 1, MBX_ROLE_OK, line);
    fmt_mbps(s->beff_lmax_mbps, a, sizeof a);
    fmt_mbps(s->ring_lmax_mbps, c, sizeof c);
    fmt_mbps(s->pingpong_lmax_mbps, d, sizeof d);
    snprintf(line, sizeof line, "at L_max %s MB/s   ring at L_max %s   ping-pong at L_max %s", a, c,
             d);
    mbx_ex_put(x, r->y + 1, r->x + 1, r->w - 1, MBX_ROLE_NORMAL, line);
    mbx_axis_format((double)s->lmax, MBX_AXIS_BYTES, 0, a, sizeof a);
    mbx_axis_format((double)s->mem_per_proc, MBX_AXIS_BYTES, 0, c, sizeof c);
    snprintf(line, sizeof line, "L_max %sB%s, %d procs, %d random patterns, mem %sB a proc (%s)", a,
             s->lmax_capped ? " (capped)" : "", s->procs, s->nrandom, c,
             s->mem_source ? s->mem_source : "?");
    mbx_ex_put(x, r->y + 2, r->x + 1, r->w - 1, MBX_ROLE_DIM, line);
}

static double io_value(const explorer *x, int t, int a)
{
    const mbx_ex_beff *b = &x->bf;
    if (b->done)
        return b->iosum.type_access_mbps[t][a];
    return b->io_time[t][a] > 0 ? b->io_bytes[t][a] / b->io_time[t][a] / 1e6 : NAN;
}

static void draw_io(explorer *x, const mbx_rect *r)
{
    mbx_ex_beff *b = &x->bf;
    const char *full = x->utf8 ? "\u2588" : "#";
    int labw = 13, colw = (r->w - labw - 12) / MBX_BEFFIO_NACCESS;
    if (colw < 10)
        colw = 10;
    int barw = colw - 10;
    double max = 0;
    for (int t = 0; t < MBX_BEFFIO_NTYPES; t++)
        for (int a = 0; a < MBX_BEFFIO_NACCESS; a++)
            if (io_value(x, t, a) > max)
                max = io_value(x, t, a);
    int y = r->y;
    mbx_ex_put(x, y, r->x + 1, labw, MBX_ROLE_NORMAL, "type   MB/s");
    for (int a = 0; a < MBX_BEFFIO_NACCESS; a++)
        mbx_ex_put(x, y, r->x + 1 + labw + a * colw, colw, MBX_ROLE_NORMAL,
                   mbx_beffio_access_name(a));
    mbx_ex_put(x, y, r->x + 1 + labw + 3 * colw, 11, MBX_ROLE_NORMAL, "25/25/50");
    for (int t = 0; t < MBX_BEFFIO_NTYPES && ++y < r->y + r->h; t++) {
        mbx_ex_put(x, y, r->x + 1, labw, MBX_ROLE_NORMAL, type_names[t]);
        for (int a = 0; a < MBX_BEFFIO_NACCESS; a++) {
            double v = io_value(x, t, a);
            char val[24];
            fmt_mbps(v, val, sizeof val);
            int x0 = r->x + 1 + labw + a * colw;
            char cell[32];
            snprintf(cell, sizeof cell, "%8s", val);
            mbx_ex_put(x, y, x0, 8, v > 0 ? MBX_ROLE_SERIES1 + a : MBX_ROLE_DIM, cell);
            int fill = v > 0 && max > 0 ? (int)lround(v / max * barw) : 0;
            for (int k = 0; k < fill; k++)
                mbx_ex_put(x, y, x0 + 9 + k, 1, MBX_ROLE_SERIES1 + a, full);
        }
        if (b->done) {
            char val[24], cell[32];
            fmt_mbps(b->iosum.per_type_mbps[t], val, sizeof val);
            snprintf(cell, sizeof cell, "%8s", val);
            mbx_ex_put(x, y, r->x + 1 + labw + 3 * colw, 11, MBX_ROLE_NORMAL, cell);
        }
    }
    if (++y >= r->y + r->h || !b->done) {
        if (y < r->y + r->h && b->started)
            mbx_ex_put(x, y + 1, r->x + 1, r->w - 1, MBX_ROLE_DIM,
                       "summary: when every type and access method is in");
        return;
    }
    const mbx_beffio_summary *s = &b->iosum;
    mbx_ex_put(x, y, r->x + 1, labw, MBX_ROLE_NORMAL, "(2b0+..+b4)/6");
    for (int a = 0; a < MBX_BEFFIO_NACCESS; a++) {
        char val[24], cell[32];
        fmt_mbps(s->per_access_mbps[a], val, sizeof val);
        snprintf(cell, sizeof cell, "%8s", val);
        mbx_ex_put(x, y, r->x + 1 + labw + a * colw, 8, MBX_ROLE_NORMAL, cell);
    }
    char line[300], v[24], mp[16];
    fmt_mbps(s->beffio_mbps, v, sizeof v);
    snprintf(line, sizeof line, "b_eff_io %s MB/s (25%% write + 25%% rewrite + 50%% read)", v);
    if (++y < r->y + r->h)
        mbx_ex_put(x, y, r->x + 1, r->w - 1, MBX_ROLE_OK, line);
    mbx_axis_format((double)s->mpart_bytes, MBX_AXIS_BYTES, 0, mp, sizeof mp);
    snprintf(line, sizeof line, "T %g s, %d procs, MPART %sB, wall %.1f s", s->T_s, s->procs, mp,
             s->wall_s);
    if (++y < r->y + r->h)
        mbx_ex_put(x, y, r->x + 1, r->w - 1, MBX_ROLE_DIM, line);
}

void mbx_ex_draw_beff_results(explorer *x, const mbx_rect *area, int io)
{
    if (io) {
        draw_io(x, area);
        return;
    }
    int sw = area->w * 35 / 100;
    sw = sw < 24 ? 24 : sw > 34 ? 34 : sw;
    mbx_rect plot = {area->y, area->x, area->h - 3, area->w - sw};
    mbx_rect leg = {area->y, area->x + area->w - sw, area->h - 3, sw};
    mbx_rect sum = {area->y + area->h - 3, area->x, 3, area->w};
    draw_beff_plot(x, &plot);
    draw_beff_legend(x, &leg);
    draw_beff_summary(x, &sum);
}
