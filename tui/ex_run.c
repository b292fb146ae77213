/* The run view: a log-log plot on a braille (block, ASCII) canvas, the
 * legend, one convergence bar per point, and the status block. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/axis.h"
#include "explorer.h"
#include "mbx/bench.h"

#define YLABEL_W 7

static const char markers[MBX_NSERIES] = {'o', '+', 'x', '*', '#', '@', '%', '&'};

/* Series are the run's benchmarks in order of first appearance. */
static int series_of(const explorer *x, int bench_id, int *ids, int *n)
{
    for (int i = 0; i < *n; i++)
        if (ids[i] == bench_id)
            return i;
    if (*n < EX_MAX_BENCH)
        ids[(*n)++] = bench_id;
    (void)x;
    return *n - 1;
}

static double point_y(const explorer *x, const ex_point *p)
{
    if (p->state != EX_DONE)
        return NAN;
    if (x->bandwidth)
        return mbx_result_bandwidth(&p->r);
    return p->r.s.median;
}

static void short_name(const char *name, char *buf, size_t len)
{
    const char *dot = strchr(name, '.');
    snprintf(buf, len, "%s", dot ? dot + 1 : name);
}

static void draw_plot(explorer *x, const mbx_rect *r, int *ids, int nser)
{
    mbx_axis_kind yk = x->bandwidth ? MBX_AXIS_MBPS : MBX_AXIS_SECONDS;
    char title[96];
    snprintf(title, sizeof title, "%s vs message size (log-log; b toggles)",
             x->bandwidth ? "bandwidth MB/s, bytes / median" : "median time");
    ex_put(x, r->y, r->x + 1, r->w - 1, MBX_ROLE_NORMAL, title);
    int pw = r->w - YLABEL_W - 2, ph = r->h - 3; /* a blank column before the legend */
    if (pw < 8 || ph < 3)
        return;
    int py = r->y + 1, px = r->x + YLABEL_W + 1;

    double bmin = INFINITY, bmax = 0, ymin = INFINITY, ymax = 0;
    for (size_t i = 0; i < x->npts; i++) {
        const ex_point *p = &x->pts[i];
        if (p->bytes == 0)
            continue;
        bmin = fmin(bmin, (double)p->bytes);
        bmax = fmax(bmax, (double)p->bytes);
        double v = point_y(x, p);
        if (v > 0 && isfinite(v)) {
            ymin = fmin(ymin, v);
            ymax = fmax(ymax, v);
        }
    }
    if (!(bmax > 0))
        bmin = 1, bmax = 1024;
    if (!(ymax > 0))
        ymin = yk == MBX_AXIS_MBPS ? 1 : 1e-6, ymax = ymin * 10;
    mbx_scale xs = mbx_scale_fit(bmin, bmax, MBX_AXIS_BYTES);
    mbx_scale ys = mbx_scale_fit(ymin, ymax, yk);

    mbx_canvas *cv = mbx_canvas_new(pw, ph, x->glyphs);
    if (!cv)
        return;
    int dw = mbx_canvas_dot_width(cv), dh = mbx_canvas_dot_height(cv);
    for (int s = 0; s < nser; s++) {
        int lastx = -1, lasty = -1;
        for (size_t i = 0; i < x->npts; i++) {
            const ex_point *p = &x->pts[i];
            double v = point_y(x, p);
            if (p->bench_id != ids[s] || p->bytes == 0 || !(v > 0) || !isfinite(v))
                continue;
            int dx = mbx_scale_pixel(&xs, (double)p->bytes, dw, 0);
            int dy = mbx_scale_pixel(&ys, v, dh, 1);
            if (lastx >= 0)
                mbx_canvas_line(cv, lastx, lasty, dx, dy, s % MBX_NSERIES + 1);
            lastx = dx, lasty = dy;
        }
        /* Markers after lines so they stay visible; status beats series. */
        for (size_t i = 0; i < x->npts; i++) {
            const ex_point *p = &x->pts[i];
            double v = point_y(x, p);
            if (p->bench_id != ids[s] || p->bytes == 0 || !(v > 0) || !isfinite(v))
                continue;
            char m = p->r.status == MBX_POINT_UNSETTLED    ? '?'
                     : p->r.status == MBX_POINT_UNRELIABLE ? '!'
                                                           : markers[s % MBX_NSERIES];
            mbx_canvas_mark(cv, mbx_scale_pixel(&xs, (double)p->bytes, dw, 0),
                            mbx_scale_pixel(&ys, v, dh, 1), m, s % MBX_NSERIES + 1);
        }
    }
    for (int row = 0; row < ph; row++)
        for (int col = 0; col < pw; col++) {
            char cell[8];
            int owner;
            mbx_canvas_cell(cv, col, row, cell, &owner);
            if (owner > 0)
                ex_put(x, py + row, px + col, 1, MBX_ROLE_SERIES1 + owner - 1, cell);
        }
    mbx_canvas_free(cv);

    /* Axes: a frame line left and below, labels at the ticks. */
    const char *vbar = x->utf8 ? "\u2502" : "|", *hbar = x->utf8 ? "\u2500" : "-";
    const char *corner = x->utf8 ? "\u2514" : "+";
    for (int row = 0; row < ph; row++)
        ex_put(x, py + row, px - 1, 1, MBX_ROLE_AXIS, vbar);
    ex_put(x, py + ph, px - 1, 1, MBX_ROLE_AXIS, corner);
    for (int col = 0; col < pw; col++)
        ex_put(x, py + ph, px + col, 1, MBX_ROLE_AXIS, hbar);
    mbx_ticks t;
    mbx_axis_ticks(&ys, yk, ph / 2 + 1, x->utf8, &t);
    for (int i = 0; i < t.n; i++) {
        int row = mbx_scale_pixel(&ys, t.value[i], ph, 1);
        char lab[16];
        snprintf(lab, sizeof lab, "%*s", YLABEL_W - 1, t.label[i]);
        ex_put(x, py + row, r->x, YLABEL_W - 1, MBX_ROLE_AXIS, lab);
    }
    mbx_axis_ticks(&xs, MBX_AXIS_BYTES, pw / 7 + 1, x->utf8, &t);
    int next_free = 0;
    for (int i = 0; i < t.n; i++) {
        int col = mbx_scale_pixel(&xs, t.value[i], pw, 0);
        int len = (int)strlen(t.label[i]), start = px + col - len / 2;
        if (start + len > r->x + r->w) /* the last tick's label ends at the edge */
            start = r->x + r->w - len;
        if (start < next_free)
            continue;
        ex_put(x, py + ph + 1, start, len, MBX_ROLE_AXIS, t.label[i]);
        next_free = start + len + 1;
    }
}

static void draw_legend(explorer *x, const mbx_rect *r, const int *ids, int nser)
{
    ex_put(x, r->y, r->x + 1, r->w - 1, MBX_ROLE_NORMAL, "series");
    for (int s = 0; s < nser && s + 1 < r->h; s++) {
        char nm[48], line[96], val[16] = "";
        short_name(mbx_bench_get(ids[s])->name, nm, sizeof nm);
        /* The last measured value of the series, as a reading aid. */
        for (size_t i = x->npts; i-- > 0;)
            if (x->pts[i].bench_id == ids[s] && x->pts[i].state == EX_DONE) {
                double v = point_y(x, &x->pts[i]);
                if (isfinite(v))
                    mbx_axis_format(v, x->bandwidth ? MBX_AXIS_MBPS : MBX_AXIS_SECONDS, x->utf8,
                                    val, sizeof val);
                break;
            }
        int nw = r->w - 14; /* marker, name, a value of up to 10 characters */
        nw = nw < 6 ? 6 : nw > 16 ? 16 : nw;
        snprintf(line, sizeof line, "%c %-*.*s %s", markers[s % MBX_NSERIES], nw, nw, nm, val);
        ex_put(x, r->y + 1 + s, r->x + 1, r->w - 1, MBX_ROLE_SERIES1 + s % MBX_NSERIES, line);
    }
}

static void draw_conv(explorer *x, const mbx_rect *r)
{
    double eps = x->meas.stop.kind == MBX_STOP_FIXED ? 0 : x->meas.stop.eps;
    char head[64];
    if (eps > 0)
        snprintf(head, sizeof head, "precision (target %.3g%%)", 100 * eps);
    else
        snprintf(head, sizeof head, "progress (fixed:%zu)", x->meas.stop.fixed);
    ex_put(x, r->y, r->x + 1, r->w - 1, MBX_ROLE_NORMAL, head);
    int lines = r->h - 1;
    if (lines <= 0 || x->npts == 0)
        return;
    /* Keep the point in flight in view, with the ones just done above it. */
    size_t last = x->running ? x->cur : (x->ndone ? x->ndone - 1 : 0);
    size_t first = last + 1 > (size_t)lines ? last + 1 - (size_t)lines : 0;
    /* Wide: label 16, bar, "0.56% ok". Narrow side columns (80-column
     * terminals) drop the number and keep the bar and the word: the numbers
     * are in the status line and the results table. */
    int wide = r->w >= 32, markw = wide ? 12 : 5, labw = wide ? 14 : 13;
    int barw = r->w - 1 - labw - 1 - markw;
    if (barw < 1)
        barw = 1;
    for (size_t i = first; i <= last && i < x->npts; i++) {
        const ex_point *p = &x->pts[i];
        int y = r->y + 1 + (int)(i - first);
        char nm[24], sz[12], label[40];
        short_name(mbx_bench_get(p->bench_id)->name, nm, sizeof nm);
        mbx_axis_format((double)p->bytes, MBX_AXIS_BYTES, 0, sz, sizeof sz);
        snprintf(label, sizeof label, "%-*.*s %5s", labw - 7, labw - 7, nm, p->bytes ? sz : "-");
        ex_put(x, y, r->x + 1, labw, MBX_ROLE_NORMAL, label);
        double rel = p->state == EX_DONE ? mbx_stop_progress(&p->r.stop, &p->r.s) : p->rel;
        double frac = eps > 0 ? rel / eps / 2.0 : rel; /* target sits at the middle */
        if (!isfinite(frac) || frac < 0)
            frac = 0;
        if (frac > 1)
            frac = 1;
        int fill = barw > 0 ? (int)lround(frac * barw) : 0, conv = eps > 0 ? rel <= eps : 0;
        for (int c = 0; c < barw; c++) {
            int target = eps > 0 && c == barw / 2;
            const char *g = c < fill ? (x->utf8 ? "\u2588" : "#") : target ? "|" : " ";
            int role = c < fill ? (conv ? MBX_ROLE_SE_CONVERGED : MBX_ROLE_SE_PENDING)
                                : MBX_ROLE_SE_TARGET;
            ex_put(x, y, r->x + 1 + labw + c, 1, role, g);
        }
        char mark[16];
        int role = MBX_ROLE_DIM;
        if (p->state == EX_RUNNING) {
            snprintf(mark, sizeof mark, wide ? "%.2f%% ..." : "...",
                     100 * (isfinite(rel) ? rel : 0));
        } else if (p->state == EX_DONE) {
            const char *st = p->r.status == MBX_POINT_SETTLED     ? "ok"
                             : p->r.status == MBX_POINT_UNSETTLED ? "UNSET"
                                                                  : "UNREL";
            role = p->r.status == MBX_POINT_SETTLED     ? MBX_ROLE_OK
                   : p->r.status == MBX_POINT_UNSETTLED ? MBX_ROLE_WARNING
                                                        : MBX_ROLE_ERROR;
            if (wide)
                snprintf(mark, sizeof mark, "%.2f%% %s", 100 * (isfinite(rel) ? rel : 0), st);
            else
                snprintf(mark, sizeof mark, "%s", st);
        } else {
            snprintf(mark, sizeof mark, "%s",
                     p->state == EX_DROPPED ? (wide ? "dropped" : "drop")
                                            : (wide ? "pending" : "wait"));
        }
        ex_put(x, y, r->x + 2 + labw + barw, r->w - 2 - labw - barw, role, mark);
    }
}

static void draw_status(explorer *x, const mbx_rect *r)
{
    char line[320];
    double el = ex_elapsed(x);
    double frac = x->npts ? (double)x->ndone / (double)x->npts : 0;
    char eta[32] = "-";
    if (x->ndone > 0 && x->ndone < x->npts)
        snprintf(eta, sizeof eta, "%.1fs", el / (double)x->ndone * (double)(x->npts - x->ndone));
    else if (x->npts && x->ndone == x->npts)
        snprintf(eta, sizeof eta, "0s");
    const char *state = x->running ? (x->paused ? "PAUSED" : "running")
                        : x->npts  ? (x->ndone == x->npts ? "done" : "stopped")
                                   : "idle: pick benchmarks (1), then r";
    int barw = 20, fill = (int)lround(frac * barw);
    char bar[64];
    for (int i = 0; i < barw; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[barw] = '\0';
    snprintf(line, sizeof line, "point %zu/%zu [%s] %3.0f%%  elapsed %.1fs  ETA %s  %s",
             x->ndone + (x->running ? 1 : 0), x->npts, bar, 100 * frac, el, eta, state);
    ex_put(x, r->y, r->x + 1, r->w - 1, x->paused ? MBX_ROLE_WARNING : MBX_ROLE_NORMAL, line);

    if (x->running && x->cur < x->npts && x->have_live) {
        const ex_point *p = &x->pts[x->cur];
        char med[16], lo[16], hi[16], sz[16];
        mbx_axis_format(x->live.median, MBX_AXIS_SECONDS, x->utf8, med, sizeof med);
        mbx_axis_format(x->live.ci_lo, MBX_AXIS_SECONDS, x->utf8, lo, sizeof lo);
        mbx_axis_format(x->live.ci_hi, MBX_AXIS_SECONDS, x->utf8, hi, sizeof hi);
        mbx_axis_format((double)p->bytes, MBX_AXIS_BYTES, 0, sz, sizeof sz);
        snprintf(line, sizeof line, "%s %sB x%d: n=%zu median %s CI95 [%s, %s] err %.2f%%",
                 mbx_bench_get(p->bench_id)->name, sz, p->procs, x->live.n, med, lo, hi,
                 100 * (isfinite(p->rel) ? p->rel : 0));
        ex_put(x, r->y + 1, r->x + 1, r->w - 1, MBX_ROLE_NORMAL, line);
    }
    if (x->msg[0])
        ex_put(x, r->y + 2, r->x + 1, r->w - 1, x->msg_role, x->msg);
}

void ex_draw_run(explorer *x)
{
    int ids[EX_MAX_BENCH], nser = 0;
    for (size_t i = 0; i < x->npts; i++)
        series_of(x, x->pts[i].bench_id, ids, &nser);
    mbx_run_layout l;
    mbx_layout_run(x->rows, x->cols, nser, &l);
    draw_plot(x, &l.plot, ids, nser);
    draw_legend(x, &l.legend, ids, nser);
    draw_conv(x, &l.conv);
    draw_status(x, &l.status);
}
