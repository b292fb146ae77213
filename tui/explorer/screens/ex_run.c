/* The run view: a log-log plot on a braille (block, ASCII) canvas, its
 * axes, the view's layout and its keys (the side column and the status
 * block are screens/ex_runside.c). Every curve of the run fills in at once
 * (the scheduler's first round) and sharpens pass by pass; a point that is
 * not final yet is drawn dim. The x axis is message size, process count or
 * the benchmark's parameter; with two curves compared, a strip under the
 * plot shows their ratio and the significance of each difference. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/axis.h"
#include "ex_keys.h"
#include "explorer.h"
#include "mbx/bench.h"
#include "screens/run_int.h"
#include "screens/screen.h"

double mbx_ex_point_y(const explorer *x, const mbx_ex_point *p)
{
    if (!EX_HAS_VALUE(p))
        return NAN;
    if (x->bandwidth)
        return mbx_result_bandwidth(&p->r);
    return p->r.s.median;
}

/* The plain benchmark's median next to an accurate point, as plotted
 * (time, or bandwidth over it); NAN when there is none. */
static double plain_y(const explorer *x, const mbx_ex_point *p)
{
    if (!EX_HAS_VALUE(p) || !isfinite(p->r.plain))
        return NAN;
    if (!x->bandwidth)
        return p->r.plain;
    mbx_result q = p->r;
    q.s.median = p->r.plain;
    return mbx_result_bandwidth(&q);
}

static int owner_role(int owner)
{
    if (owner == EX_OWNER_GRID)
        return MBX_ROLE_AXIS;
    if (owner == EX_OWNER_RATIO)
        return MBX_ROLE_NORMAL;
    if (owner == EX_OWNER_PENDING)
        return MBX_ROLE_DIM;
    return MBX_ROLE_SERIES1 + (owner - 1) % MBX_NSERIES;
}

/* ---- the x axis: log bytes, or process counts (linear over a short
 * range, log over a long one) ---- */

mbx_ex_xaxis mbx_ex_xaxis_fit(int dim, double lo, double hi)
{
    mbx_ex_xaxis a;
    memset(&a, 0, sizeof a);
    if (dim != EX_DIM_SIZE && hi - lo <= 128) {
        a.lin = 1;
        a.lo = lo;
        a.hi = hi > lo ? hi : lo + 1;
        return a;
    }
    /* 0 B has no place on a log axis: it sits at the left edge, the log
     * scale of the rest starts a small gap to its right. */
    a.zero = dim == EX_DIM_SIZE && lo <= 0;
    if (a.zero && hi <= 0)
        hi = 1;
    a.s = mbx_scale_fit(a.zero ? 1 : lo, hi, MBX_AXIS_BYTES);
    return a;
}

int mbx_ex_xaxis_pixel(const mbx_ex_xaxis *a, double v, int pixels)
{
    if (!a->lin && a->zero) {
        int gap = pixels >= 40 ? pixels / 20 : pixels >= 8 ? 2 : 0;
        if (!(v > 0))
            return 0;
        return gap + mbx_scale_pixel(&a->s, v, pixels - gap, 0);
    }
    if (!a->lin)
        return mbx_scale_pixel(&a->s, v, pixels, 0);
    return (int)lround((v - a->lo) / (a->hi - a->lo) * (pixels - 1));
}

static void xticks(const mbx_ex_xaxis *a, int max, int utf8, mbx_ticks *t)
{
    if (!a->lin) {
        mbx_axis_ticks(&a->s, MBX_AXIS_BYTES, max, utf8, t);
        return;
    }
    static const int steps[] = {1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 50, 64, 100};
    int step = 128;
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
        if ((a->hi - a->lo) / steps[i] + 1 <= max) {
            step = steps[i];
            break;
        }
    t->n = 0;
    for (long v = (long)ceil(a->lo / step) * step; v <= a->hi && t->n < MBX_AXIS_MAX_TICKS;
         v += step) {
        t->value[t->n] = (double)v;
        snprintf(t->label[t->n], sizeof t->label[0], "%ld", v);
        t->n++;
    }
}

/* ---- the view: which curves, in which order ---- */

static void build_view(explorer *x, mbx_ex_view *v)
{
    v->nser = mbx_ex_series_list(x, x->xdim, v->ser, EX_MAX_SERIES);
    mbx_ex_series_names(x, v->ser, v->nser, v->names);
    v->cmp_idx[0] = v->cmp_idx[1] = -1;
    for (int s = 0; s < v->nser; s++) {
        v->draw[s] = !x->cmp.on;
        for (int k = 0; k < 2 && x->cmp.on; k++)
            if (mbx_ex_series_eq(&v->ser[s], &x->cmp.s[k])) {
                v->cmp_idx[k] = s;
                v->draw[s] = 1;
            }
    }
    v->any_refined = v->any_shift = v->any_plain = v->any_open = 0;
    for (size_t i = 0; i < x->npts; i++) {
        const mbx_ex_point *p = &x->pts[i];
        if (p->origin != EX_GRID && EX_HAS_VALUE(p))
            v->any_refined = 1;
        if (p->state == EX_RUNNING && p->passes > 0)
            v->any_open = 1;
        for (int k = 0; k < v->nser && !v->any_plain && isfinite(plain_y(x, p)); k++)
            v->any_plain = v->draw[k] && mbx_ex_series_has(&v->ser[k], p);
        if (p->state == EX_DONE && (p->r.remeasured || p->r.status == MBX_POINT_SHIFTED))
            v->any_shift = 1;
    }
}

static int drawn(const mbx_ex_view *v, const explorer *x, const mbx_ex_point *p)
{
    for (int s = 0; s < v->nser; s++)
        if (v->draw[s] && mbx_ex_series_has(&v->ser[s], p))
            return s + 1;
    (void)x;
    return 0;
}

/* ---- the plot ---- */

void mbx_ex_draw_canvas(explorer *x, mbx_canvas *cv, int py, int px)
{
    int pw = mbx_canvas_cols(cv), ph = mbx_canvas_rows(cv);
    for (int row = 0; row < ph; row++)
        for (int col = 0; col < pw; col++) {
            char cell[8];
            int owner;
            mbx_canvas_cell(cv, col, row, cell, &owner);
            if (owner > 0)
                mbx_ex_put(x, py + row, px + col, 1, owner_role(owner), cell);
        }
}

static void draw_curves(explorer *x, mbx_ex_view *v, mbx_canvas *cv, const mbx_scale *ys)
{
    static const mbx_ex_point *pts[EX_MAX_POINTS];
    int dw = mbx_canvas_dot_width(cv), dh = mbx_canvas_dot_height(cv);
    for (int s = 0; s < v->nser; s++) {
        if (!v->draw[s])
            continue;
        int owner = s % MBX_NSERIES + 1, lastx = -1, lasty = -1;
        size_t n = mbx_ex_series_points(x, &v->ser[s], pts, EX_MAX_POINTS);
        /* Points are in measuring order; a curve is drawn in x order. */
        for (size_t i = 0; i < n; i++) {
            double y = mbx_ex_point_y(x, pts[i]);
            if (!(y > 0) || !isfinite(y))
                continue;
            int dx = mbx_ex_xaxis_pixel(&v->xa, mbx_ex_point_x(pts[i], x->xdim), dw);
            int dy = mbx_scale_pixel(ys, y, dh, 1);
            if (lastx >= 0)
                mbx_canvas_line(cv, lastx, lasty, dx, dy, owner);
            lastx = dx, lasty = dy;
        }
        /* The plain companion's medians: marks only, no line, under the
         * curve's own markers where the two share a cell. */
        for (size_t i = 0; i < n; i++) {
            double y = plain_y(x, pts[i]);
            if (y > 0 && isfinite(y))
                mbx_canvas_mark(cv, mbx_ex_xaxis_pixel(&v->xa, mbx_ex_point_x(pts[i], x->xdim), dw),
                                mbx_scale_pixel(ys, y, dh, 1), PLAIN_MARK, owner);
        }
        /* Markers after lines so they stay visible. Where two share a
         * cell, status beats measured again beats refined beats the
         * series' own marker beats a point not final yet (dim, its status
         * is not known): drawn in that order of passes, the last writer
         * wins. */
        for (int pass = 0; pass < 5; pass++)
            for (size_t i = 0; i < n; i++) {
                const mbx_ex_point *p = pts[i];
                double y = mbx_ex_point_y(x, p);
                if (!(y > 0) || !isfinite(y))
                    continue;
                if (p->state != EX_DONE) {
                    if (pass == 0)
                        mbx_canvas_mark(cv,
                                        mbx_ex_xaxis_pixel(&v->xa, mbx_ex_point_x(p, x->xdim), dw),
                                        mbx_scale_pixel(ys, y, dh, 1),
                                        p->origin != EX_GRID ? REFINED_MARK : MBX_EX_MARKER(s),
                                        EX_OWNER_PENDING);
                    continue;
                }
                int st = p->r.status != MBX_POINT_SETTLED, rf = p->origin != EX_GRID;
                int ag = p->r.remeasured;
                if (pass != (st ? 4 : ag ? 3 : rf ? 2 : 1))
                    continue;
                char m = p->r.status == MBX_POINT_UNSETTLED    ? '?'
                         : p->r.status == MBX_POINT_UNRELIABLE ? '!'
                         : p->r.status == MBX_POINT_SHIFTED    ? SHIFTED_MARK
                         : ag                                  ? AGAIN_MARK
                         : rf                                  ? REFINED_MARK
                                                               : MBX_EX_MARKER(s);
                mbx_canvas_mark(cv, mbx_ex_xaxis_pixel(&v->xa, mbx_ex_point_x(p, x->xdim), dw),
                                mbx_scale_pixel(ys, y, dh, 1), m, owner);
            }
    }
}

void mbx_ex_frame_left(explorer *x, int py, int px, int rows)
{
    const char *vbar = x->utf8 ? "\u2502" : "|";
    for (int row = 0; row < rows; row++)
        mbx_ex_put(x, py + row, px - 1, 1, MBX_ROLE_AXIS, vbar);
}

static void y_labels(explorer *x, const mbx_scale *ys, mbx_axis_kind yk, int py, int x0, int ph)
{
    mbx_ticks t;
    mbx_axis_ticks(ys, yk, ph / 2 + 1, x->utf8, &t);
    for (int i = 0; i < t.n; i++) {
        int row = mbx_scale_pixel(ys, t.value[i], ph, 1);
        char lab[16];
        snprintf(lab, sizeof lab, "%*s", EX_YLABEL_W - 1, t.label[i]);
        mbx_ex_put(x, py + row, x0, EX_YLABEL_W - 1, MBX_ROLE_AXIS, lab);
    }
}

static void x_axis(explorer *x, const mbx_ex_view *v, const mbx_rect *r, int y)
{
    const char *hbar = x->utf8 ? "\u2500" : "-", *corner = x->utf8 ? "\u2514" : "+";
    mbx_ex_put(x, y, v->px - 1, 1, MBX_ROLE_AXIS, corner);
    for (int col = 0; col < v->pw; col++)
        mbx_ex_put(x, y, v->px + col, 1, MBX_ROLE_AXIS, hbar);
    mbx_ticks t;
    xticks(&v->xa, v->pw / 7 + 1, x->utf8, &t);
    int next_free = 0;
    for (int i = 0; i < t.n; i++) {
        int col = mbx_ex_xaxis_pixel(&v->xa, t.value[i], v->pw);
        int len = (int)strlen(t.label[i]), start = v->px + col - len / 2;
        if (start + len > r->x + r->w) /* the last tick's label ends at the edge */
            start = r->x + r->w - len;
        if (start < next_free)
            continue;
        mbx_ex_put(x, y + 1, start, len, MBX_ROLE_AXIS, t.label[i]);
        next_free = start + len + 1;
    }
}

static void plot_title(explorer *x, const mbx_rect *r)
{
    char title[160];
    const char *what = x->bandwidth ? "bandwidth MB/s, bytes / median" : "median time";
    if (x->xdim == EX_DIM_SIZE)
        snprintf(title, sizeof title, "%s vs message size (log-log; b, x toggle)", what);
    else if (x->xdim == EX_DIM_PROCS)
        snprintf(title, sizeof title, "%s vs processes P: ranks 0..P-1 (x: next axis)", what);
    else
        snprintf(title, sizeof title, "%s vs %s (x: next axis)", what, mbx_ex_param_axis_name(x));
    if ((int)strlen(title) > r->w - 2) /* the keys are in the footer too */
        *strrchr(title, '(') = '\0';
    mbx_ex_put(x, r->y, r->x + 1, r->w - 1, MBX_ROLE_NORMAL, title);
}

/* The x axis (into v) and the y scale over the drawn points' values and
 * their plain companions'; a default range when there is none yet. */
static mbx_scale plot_scales(explorer *x, mbx_ex_view *v, mbx_axis_kind yk)
{
    double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
    for (size_t i = 0; i < x->npts; i++) {
        const mbx_ex_point *p = &x->pts[i];
        double px = mbx_ex_point_x(p, x->xdim);
        /* 0 B is a point too (at the axis's left edge). */
        if (!drawn(v, x, p) || !mbx_ex_point_has_x(p, x->xdim))
            continue;
        xmin = fmin(xmin, px);
        xmax = fmax(xmax, px);
        double y = mbx_ex_point_y(x, p), yp = plain_y(x, p);
        if (y > 0 && isfinite(y)) {
            ymin = fmin(ymin, y);
            ymax = fmax(ymax, y);
        }
        if (yp > 0 && isfinite(yp)) {
            ymin = fmin(ymin, yp);
            ymax = fmax(ymax, yp);
        }
    }
    if (!(xmax > 0) && xmin != 0)
        xmin = 1, xmax = x->xdim == EX_DIM_SIZE ? 1024 : 2;
    if (!(ymax > 0))
        ymin = yk == MBX_AXIS_MBPS ? 1 : 1e-6, ymax = ymin * 10;
    v->xa = mbx_ex_xaxis_fit(x->xdim, xmin, xmax);
    return mbx_scale_fit(ymin, ymax, yk);
}

/* Under a compared plot at row y: the strip's head "A/B: a / b", the
 * ratio strip (sh rows) and the significance row. */
static void draw_compare_strip(explorer *x, const mbx_rect *r, const mbx_ex_view *v, int y, int sh)
{
    char head[160];
    int a = v->cmp_idx[0], b = v->cmp_idx[1];
    int room = r->x + r->w - v->px - 2;
    snprintf(head, sizeof head, "A/B: %s / %s (above 1.0: A %s)", a >= 0 ? v->names[a] : "?",
             b >= 0 ? v->names[b] : "?", x->bandwidth ? "faster" : "slower");
    if ((int)strlen(head) > room)
        snprintf(head, sizeof head, "A/B: %s / %s", a >= 0 ? v->names[a] : "?",
                 b >= 0 ? v->names[b] : "?");
    mbx_ex_put(x, y, v->px - 1, r->x + r->w - v->px, MBX_ROLE_AXIS, x->utf8 ? "\u251c" : "+");
    mbx_ex_put(x, y, v->px + 1, r->x + r->w - v->px - 1, MBX_ROLE_DIM, head);
    mbx_ex_draw_ratio_strip(x, &v->xa, y + 1, v->px, v->pw, sh);
    mbx_ex_draw_sig_row(x, &v->xa, y + 1 + sh, v->px, v->pw);
}

static void draw_plot(explorer *x, const mbx_rect *r, mbx_ex_view *v)
{
    mbx_axis_kind yk = x->bandwidth ? MBX_AXIS_MBPS : MBX_AXIS_SECONDS;
    plot_title(x, r);
    int sh = 0, mon = x->be->nranks > 1 && x->be->probe;
    if (x->cmp.on) {
        sh = r->h / 4;
        sh = sh < 3 ? 3 : sh > 7 ? 7 : sh;
        sh |= 1; /* odd: the 1.0 line sits on a whole row */
    }
    v->pw = r->w - EX_YLABEL_W - 2; /* a blank column before the legend */
    /* title, plot, [strip head, strip, significance,] axis, labels, [monitor] */
    v->ph = r->h - 3 - (sh ? sh + 2 : 0) - mon;
    if (v->pw < 8 || v->ph < 3)
        return;
    v->py = r->y + 1;
    v->px = r->x + EX_YLABEL_W + 1;
    mbx_scale ys = plot_scales(x, v, yk);

    mbx_canvas *cv = mbx_canvas_new(v->pw, v->ph, x->glyphs);
    if (!cv)
        return;
    v->dw = mbx_canvas_dot_width(cv);
    v->dh = mbx_canvas_dot_height(cv);
    draw_curves(x, v, cv, &ys);
    mbx_ex_draw_canvas(x, cv, v->py, v->px);
    mbx_canvas_free(cv);
    mbx_ex_frame_left(x, v->py, v->px, v->ph);
    y_labels(x, &ys, yk, v->py, r->x, v->ph);
    int below = v->py + v->ph;
    if (sh) {
        draw_compare_strip(x, r, v, below, sh);
        below += 2 + sh;
    }
    x_axis(x, v, r, below);
    if (mon)
        mbx_ex_draw_monitor(x, r->y + r->h - 1, r->x, r->w - 1);
}

/* The run view lays out the whole screen itself (mbx_layout_run): the
 * frame's body is not used. */
static void draw_run(explorer *x, const mbx_rect *body)
{
    (void)body;
    static mbx_ex_view v; /* large; one view is drawn at a time */
    build_view(x, &v);
    int nleg = x->cmp.on ? 2 : v.nser;
    mbx_run_layout l;
    mbx_layout_run(x->rows, x->cols, nleg + v.any_refined + v.any_shift + v.any_plain + v.any_open,
                   &l);
    draw_plot(x, &l.plot, &v);
    mbx_ex_draw_legend(x, &l.legend, &v);
    if (x->cmp.on && x->cmp.ratios)
        mbx_ex_draw_ratio_table(x, &l.conv);
    else
        mbx_ex_draw_conv(x, &l.conv);
    mbx_ex_draw_status(x, &l.status);
    if (x->cmp.choosing)
        mbx_ex_draw_chooser(x, &l.plot);
}

/* ---- the run view's keys ---- */

/* x: size -> P -> parameter -> size, skipping axes without a curve. */
static void next_xaxis(explorer *x)
{
    int d = x->xdim;
    do
        d = (d + 1) % (EX_DIM_PARAM + 1);
    while (d != x->xdim && !mbx_ex_dim_useful(x, d));
    if (d == x->xdim) {
        mbx_ex_set_msg(x, MBX_ROLE_WARNING,
                       "x: one axis only; several process counts (2:8) or param values (1:8) "
                       "give more");
        return;
    }
    x->xdim = d;
    x->cmp.on = x->cmp.choosing = x->cmp.ratios = 0; /* the curves are different ones */
}

/* v: end the comparison, or open the series chooser. */
static void toggle_compare(explorer *x)
{
    if (x->cmp.on) {
        x->cmp.on = x->cmp.ratios = 0;
        return;
    }
    if (mbx_ex_compare_count(x) < 2) {
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "compare: the run has fewer than two curves");
        return;
    }
    x->cmp.choosing = 1;
    x->cmp.cursor = x->cmp.top = 0;
}

/* The series chooser's keys while it is open, else the plot's. */
static int run_key(explorer *x, int key)
{
    if (x->cmp.choosing)
        return mbx_ex_compare_key(x, key);
    switch (mbx_ex_key_action(key, EX_RUN)) {
    case EXA_BANDWIDTH: x->bandwidth = !x->bandwidth; return 1;
    case EXA_XAXIS: next_xaxis(x); return 1;
    case EXA_COMPARE: toggle_compare(x); return 1;
    case EXA_RATIOS:
        if (!x->cmp.on)
            mbx_ex_set_msg(x, MBX_ROLE_WARNING, "ratios: compare two curves first (v)");
        else
            x->cmp.ratios = !x->cmp.ratios;
        return 1;
    default: return 0;
    }
}

static int run_typing(const explorer *x)
{
    return x->cmp.choosing;
}

/* The screen's row of the screen table (screens/screen.h). */
const mbx_ex_screen_def mbx_ex_screen_run = {
    .name = "3 Run",
    .brief = "3 Run",
    .help = "run view",
    .draw = draw_run,
    .key = run_key,
    .typing = run_typing,
};
