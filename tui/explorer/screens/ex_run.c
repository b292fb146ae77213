/* The run view: a log-log plot on a braille (block, ASCII) canvas, its
 * axes, the view's layout and its keys (the side column is
 * screens/ex_runside.c, the status block screens/ex_runstatus.c, the point
 * inspector screens/ex_inspect.c). Every curve of the run fills in at once
 * (the scheduler's first round) and sharpens pass by pass; every point
 * keeps its curve's marker, its state an attribute (dim while not final,
 * bold SETTLED, reverse flagged). The x axis is message size, process count or
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
#include "mbx/rowview.h"
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

/* The index in v of the curve p is on, -1 when none. */
static int series_index(const mbx_ex_view *v, const mbx_ex_point *p)
{
    for (int s = 0; s < v->nser; s++)
        if (mbx_ex_series_has(&v->ser[s], p))
            return s;
    return -1;
}

static void build_view(explorer *x, mbx_ex_view *v)
{
    v->nser = mbx_ex_series_list(x, x->xdim, v->ser, EX_MAX_SERIES);
    mbx_ex_series_names(x, v->ser, v->nser, v->names);
    v->cmp_idx[0] = v->cmp_idx[1] = -1;
    for (int s = 0; s < v->nser; s++) {
        mbx_ex_series_style(s, x->color_mode == 0, &v->style[s]);
        v->draw[s] = !x->cmp.on;
        v->nox[s] = 1;
        for (int k = 0; k < 2 && x->cmp.on; k++)
            if (mbx_ex_series_eq(&v->ser[s], &x->cmp.s[k])) {
                v->cmp_idx[k] = s;
                v->draw[s] = 1;
            }
    }
    v->any_refined = v->any_plain = v->any_point = v->any_nox = 0;
    for (size_t i = 0; i < x->npts; i++) {
        const mbx_ex_point *p = &x->pts[i];
        int s = series_index(v, p), hx = mbx_ex_point_has_x(p, x->xdim);
        if (s < 0)
            continue;
        if (hx)
            v->nox[s] = 0;
        if (!v->draw[s] || !EX_HAS_VALUE(p))
            continue;
        v->any_refined |= p->origin != EX_GRID;
        v->any_point |= hx;
        v->any_plain |= hx && isfinite(plain_y(x, p));
    }
    for (int s = 0; s < v->nser; s++)
        v->any_nox |= v->draw[s] && v->nox[s];
}

static int drawn(const mbx_ex_view *v, const mbx_ex_point *p)
{
    int s = series_index(v, p);
    return s >= 0 && v->draw[s];
}

/* t (seconds) of point p as plotted: the time, or bandwidth over it. */
static double as_plotted(const explorer *x, const mbx_ex_point *p, double t)
{
    if (!x->bandwidth || !isfinite(t))
        return t;
    mbx_result q = p->r;
    q.s.median = t;
    return mbx_result_bandwidth(&q);
}

int mbx_ex_view_dot(const explorer *x, const mbx_ex_view *v, const mbx_ex_point *p, int *dx,
                    int *dy)
{
    double y = mbx_ex_point_y(x, p);
    if (!(y > 0) || !isfinite(y) || !mbx_ex_point_has_x(p, x->xdim))
        return 0;
    *dx = mbx_ex_xaxis_pixel(&v->xa, mbx_ex_point_x(p, x->xdim), v->dw);
    *dy = mbx_scale_pixel(&v->ys, y, v->dh, 1);
    return 1;
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
            if (owner <= 0)
                continue;
            int role = owner_role(owner & EX_OWN_MASK);
            unsigned a = owner & EX_OWN_OPEN      ? MBX_ATTR_DIM
                         : owner & EX_OWN_SOLID   ? MBX_ATTR_BOLD
                         : owner & EX_OWN_FLAGGED ? MBX_ATTR_REVERSE
                                                  : 0;
            if (owner & EX_OWN_CURSOR)
                role = MBX_ROLE_CURSOR, a = MBX_ATTR_BOLD;
            mbx_ex_put_attr(x, py + row, px + col, 1, role, a, cell);
        }
}

/* The 95 % interval of each point of a curve as a vertical bar (E); none
 * where the row has no interval to show (mbx/rowview.h). */
static void error_bars(const explorer *x, const mbx_ex_view *v, mbx_canvas *cv,
                       const mbx_ex_point **pts, size_t n, int owner)
{
    for (size_t i = 0; i < n; i++) {
        int dx, dy;
        char na[32];
        if (mbx_row_ci_na(pts[i]->r.status, pts[i]->r.levels, na, sizeof na))
            continue;
        double lo = as_plotted(x, pts[i], pts[i]->r.s.ci_lo),
               hi = as_plotted(x, pts[i], pts[i]->r.s.ci_hi);
        if (!mbx_ex_view_dot(x, v, pts[i], &dx, &dy) || !(lo > 0) || !(hi > 0) || !isfinite(lo) ||
            !isfinite(hi))
            continue;
        mbx_canvas_line(cv, dx, mbx_scale_pixel(&v->ys, lo, v->dh, 1), dx,
                        mbx_scale_pixel(&v->ys, hi, v->dh, 1), owner);
    }
}

/* How a final or open point's marker is drawn over its curve's owner. */
static int mark_owner(const mbx_ex_point *p, int owner)
{
    if (p->state != EX_DONE)
        return owner | EX_OWN_OPEN;
    int solid = p->r.status == MBX_POINT_SETTLED || p->r.status == MBX_POINT_FIXED;
    return owner | (solid ? EX_OWN_SOLID : EX_OWN_FLAGGED);
}

/* Curve s on the canvas, one layer of it: 0 its line (in its style: each
 * curve has its own without colour) and error bars, 1 the plain
 * companion's medians (marks only), 2 its markers. Every curve's layer is
 * drawn before the next layer, so no line or plain mark of one curve hides
 * a marker of another. */
static void draw_layer(explorer *x, mbx_ex_view *v, mbx_canvas *cv, int s, int layer)
{
    static const mbx_ex_point *pts[EX_MAX_POINTS];
    int owner = s % MBX_NSERIES + 1, lastx = -1, lasty = -1, dx, dy;
    unsigned phase = 0;
    size_t n = mbx_ex_series_points(x, &v->ser[s], pts, EX_MAX_POINTS); /* in x order */
    for (size_t i = 0; i < n && layer == 0; i++) {
        if (!mbx_ex_view_dot(x, v, pts[i], &dx, &dy))
            continue;
        if (lastx >= 0)
            mbx_canvas_line_styled(cv, lastx, lasty, dx, dy, owner, v->style[s].pattern, &phase);
        lastx = dx, lasty = dy;
    }
    if (layer == 0 && x->errbars)
        error_bars(x, v, cv, pts, n, owner);
    for (size_t i = 0; i < n && layer == 1; i++) {
        double y = plain_y(x, pts[i]);
        if (y > 0 && isfinite(y) && mbx_ex_view_dot(x, v, pts[i], &dx, &dy))
            mbx_canvas_mark(cv, dx, mbx_scale_pixel(&v->ys, y, v->dh, 1), PLAIN_MARK, owner);
    }
    /* Every point in its curve's glyph, its state an attribute. Where two
     * share a cell the one that says more wins: open, then settled, then
     * flagged. */
    for (int pass = 0; pass < 3 && layer == 2; pass++)
        for (size_t i = 0; i < n; i++) {
            int o = mark_owner(pts[i], owner);
            int rank = o & EX_OWN_OPEN ? 0 : o & EX_OWN_SOLID ? 1 : 2;
            if (rank == pass && mbx_ex_view_dot(x, v, pts[i], &dx, &dy))
                mbx_canvas_mark(cv, dx, dy, v->style[s].marker, o);
        }
}

/* The inspector's point: its marker in the cursor's role, and a dim
 * vertical guide through the empty cells of its column. */
static void draw_cursor(explorer *x, mbx_ex_view *v, mbx_canvas *cv, int *guide)
{
    int s, dx, dy;
    const mbx_ex_point *p = mbx_ex_insp_point(x, v, &s);
    *guide = -1;
    if (!p || !mbx_ex_view_dot(x, v, p, &dx, &dy))
        return;
    mbx_canvas_mark(cv, dx, dy, v->style[s].marker, (s % MBX_NSERIES + 1) | EX_OWN_CURSOR);
    *guide = dx / (v->dw / v->pw);
}

static void draw_curves(explorer *x, mbx_ex_view *v, mbx_canvas *cv, int *guide)
{
    for (int layer = 0; layer < 3; layer++)
        for (int s = 0; s < v->nser; s++)
            if (v->draw[s] && !v->nox[s])
                draw_layer(x, v, cv, s, layer);
    draw_cursor(x, v, cv, guide);
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
        if (!drawn(v, p) || !mbx_ex_point_has_x(p, x->xdim))
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

/* Under a compared plot at row y: the strip's head "B/A: b / a" (B over
 * A, as `mpibex compare` and the report write it), the ratio strip (sh
 * rows) and the significance row. */
static void draw_compare_strip(explorer *x, const mbx_rect *r, const mbx_ex_view *v, int y, int sh)
{
    char head[160];
    int a = v->cmp_idx[0], b = v->cmp_idx[1];
    int room = r->x + r->w - v->px - 2;
    snprintf(head, sizeof head, "B/A: %s / %s (above 1.0: A %s)", b >= 0 ? v->names[b] : "?",
             a >= 0 ? v->names[a] : "?", x->bandwidth ? "slower" : "faster");
    if ((int)strlen(head) > room)
        snprintf(head, sizeof head, "B/A: %s / %s", b >= 0 ? v->names[b] : "?",
                 a >= 0 ? v->names[a] : "?");
    mbx_ex_put(x, y, v->px - 1, r->x + r->w - v->px, MBX_ROLE_AXIS, x->utf8 ? "\u251c" : "+");
    mbx_ex_put(x, y, v->px + 1, r->x + r->w - v->px - 1, MBX_ROLE_DIM, head);
    mbx_ex_draw_ratio_strip(x, &v->xa, y + 1, v->px, v->pw, sh);
    mbx_ex_draw_sig_row(x, &v->xa, y + 1 + sh, v->px, v->pw);
}

/* Rows of the ratio strip under a compared plot in r (0: none). */
static int strip_rows(const explorer *x, const mbx_rect *r)
{
    if (!x->cmp.on)
        return 0;
    int sh = r->h / 4;
    sh = sh < 3 ? 3 : sh > 7 ? 7 : sh;
    return sh | 1; /* odd: the 1.0 line sits on a whole row */
}

static int monitor_row(const explorer *x)
{
    return x->be->nranks > 1 && x->be->probe;
}

int mbx_ex_run_view(explorer *x, mbx_ex_view *v, mbx_run_layout *l)
{
    build_view(x, v);
    mbx_layout_run(x->rows, x->cols, mbx_ex_legend_rows(x, v), l);
    const mbx_rect *r = &l->plot;
    v->pw = r->w - EX_YLABEL_W - 2; /* a blank column before the legend */
    /* title, plot, [strip head, strip, significance,] axis, labels, [monitor] */
    int sh = strip_rows(x, r);
    v->ph = r->h - 3 - (sh ? sh + 2 : 0) - monitor_row(x);
    if (!l->ok || v->pw < 8 || v->ph < 3)
        return 0;
    v->py = r->y + 1;
    v->px = r->x + EX_YLABEL_W + 1;
    int across = x->glyphs == MBX_GLYPHS_ASCII ? 1 : 2;
    int down = x->glyphs == MBX_GLYPHS_BRAILLE ? 4 : x->glyphs == MBX_GLYPHS_BLOCK ? 2 : 1;
    v->dw = v->pw * across;
    v->dh = v->ph * down;
    v->ys = plot_scales(x, v, x->bandwidth ? MBX_AXIS_MBPS : MBX_AXIS_SECONDS);
    return 1;
}

static void draw_plot(explorer *x, const mbx_rect *r, mbx_ex_view *v)
{
    mbx_axis_kind yk = x->bandwidth ? MBX_AXIS_MBPS : MBX_AXIS_SECONDS;
    int sh = strip_rows(x, r), guide = -1;
    mbx_canvas *cv = mbx_canvas_new(v->pw, v->ph, x->glyphs);
    if (!cv)
        return;
    draw_curves(x, v, cv, &guide);
    mbx_ex_draw_canvas(x, cv, v->py, v->px);
    for (int row = 0; guide >= 0 && row < v->ph; row++)
        if (!mbx_canvas_cell_used(cv, guide, row))
            mbx_ex_put(x, v->py + row, v->px + guide, 1, MBX_ROLE_DIM,
                       x->utf8 && x->glyphs != MBX_GLYPHS_ASCII ? "\u2506" : ":");
    mbx_canvas_free(cv);
    mbx_ex_frame_left(x, v->py, v->px, v->ph);
    y_labels(x, &v->ys, yk, v->py, r->x, v->ph);
    int below = v->py + v->ph;
    if (sh) {
        draw_compare_strip(x, r, v, below, sh);
        below += 2 + sh;
    }
    x_axis(x, v, r, below);
    if (monitor_row(x))
        mbx_ex_draw_monitor(x, r->y + r->h - 1, r->x, r->w - 1);
}

/* The run view lays out the whole screen itself (mbx_layout_run): the
 * frame's body is not used. */
static void draw_run(explorer *x, const mbx_rect *body)
{
    (void)body;
    static mbx_ex_view v; /* large; one view is drawn at a time */
    mbx_run_layout l;
    int ok = mbx_ex_run_view(x, &v, &l);
    plot_title(x, &l.plot);
    if (ok)
        draw_plot(x, &l.plot, &v);
    mbx_ex_draw_legend(x, &l.legend, &v);
    if (x->insp.on && !x->cmp.choosing)
        mbx_ex_draw_inspector(x, &l.conv, &v);
    else if (x->cmp.on && x->cmp.ratios)
        mbx_ex_draw_ratio_table(x, &l.conv);
    else
        mbx_ex_draw_conv(x, &l.conv, &v);
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
    x->insp.on = 0;
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
    if (mbx_ex_insp_key(x, key))
        return 1;
    switch (mbx_ex_key_action(key, EX_RUN)) {
    case EXA_ERRBARS: x->errbars = !x->errbars; return 1;
    case EXA_BANDWIDTH: x->bandwidth = !x->bandwidth; return 1;
    case EXA_XAXIS: next_xaxis(x); return 1;
    case EXA_COMPARE: toggle_compare(x); return 1;
    case EXA_BACK: /* the compare view the guidelines screen opened: back there */
        if (!x->gl.back || !x->cmp.on)
            return 0;
        x->gl.back = x->cmp.on = x->cmp.ratios = 0;
        x->screen = EX_GUIDELINES;
        return 1;
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

/* A left click on a drawn point puts the inspector's cursor there and
 * opens it (mbx_ex_run_cursor_at); other buttons and the wheel, and clicks
 * beside every point, change nothing. */
static int run_mouse(explorer *x, const mbx_rect *body, const mbx_ex_mouse *m)
{
    (void)body;
    if (m->button != EX_MB_LEFT)
        return 0;
    return mbx_ex_run_cursor_at(x, m->y, m->x);
}

/* The screen's row of the screen table (screens/screen.h). */
const mbx_ex_screen_def mbx_ex_screen_run = {
    .name = "3 Run",
    .brief = "3 Run",
    .help = "run view",
    .draw = draw_run,
    .key = run_key,
    .typing = run_typing,
    .mouse = run_mouse,
};
