/* The run view: a log-log plot on a braille (block, ASCII) canvas, the
 * legend, one convergence bar per point, the monitor's strip and the
 * status block. Every curve of the run fills in at once (the scheduler's
 * first round) and sharpens pass by pass; a point that is not final yet is
 * drawn dim, and its bar shows its between-pass error against the target. The x axis is message
 * size or process count; with two curves compared, a strip under the plot shows their ratio and the
 * significance of each difference. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/axis.h"
#include "ex_keys.h"
#include "explorer.h"
#include "mbx/bench.h"
#include "screens/screen.h"

#define REFINED_MARK '^'
#define SHIFTED_MARK '~' /* the machine changed level during the point, twice */
#define AGAIN_MARK 'r'   /* measured again after a level shift, then fine */
#define PLAIN_MARK 'p'   /* an accurate point's plain companion (mbx_result.plain) */

static const char markers[MBX_NSERIES] = {'o', '+', 'x', '*', '#', '@', '%', '&'};

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
    a.s = mbx_scale_fit(lo, hi, MBX_AXIS_BYTES);
    return a;
}

int mbx_ex_xaxis_pixel(const mbx_ex_xaxis *a, double v, int pixels)
{
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

typedef struct view {
    mbx_ex_series ser[EX_MAX_SERIES];
    char names[EX_MAX_SERIES][48];
    int nser;
    int draw[EX_MAX_SERIES]; /* drawn: all, or the two compared */
    int cmp_idx[2];          /* indices of A and B, -1 when absent */
    int any_refined;
    int any_shift; /* some point was measured again or is SHIFTED */
    int any_plain; /* some drawn point has a plain companion value */
    int any_open;  /* some point has passes but is not final yet */
    mbx_ex_xaxis xa;
    int pw, ph, px, py, dw, dh;
} view;

static int in_series(const mbx_ex_point *p, const mbx_ex_series *s)
{
    mbx_ex_series t;
    return mbx_ex_series_of(p, s->dim, &t) && mbx_ex_series_eq(&t, s);
}

static void build_view(explorer *x, view *v)
{
    v->nser = mbx_ex_series_list(x, x->xdim, v->ser, EX_MAX_SERIES);
    mbx_ex_series_names(x, v->ser, v->nser, v->names);
    v->cmp_idx[0] = v->cmp_idx[1] = -1;
    for (int s = 0; s < v->nser; s++) {
        v->draw[s] = !x->cmp;
        for (int k = 0; k < 2 && x->cmp; k++)
            if (mbx_ex_series_eq(&v->ser[s], &x->cmp_s[k])) {
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
            v->any_plain = v->draw[k] && in_series(p, &v->ser[k]);
        if (p->state == EX_DONE && (p->r.remeasured || p->r.status == MBX_POINT_SHIFTED))
            v->any_shift = 1;
    }
}

static int drawn(const view *v, const explorer *x, const mbx_ex_point *p)
{
    for (int s = 0; s < v->nser; s++)
        if (v->draw[s] && in_series(p, &v->ser[s]))
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

static void draw_curves(explorer *x, view *v, mbx_canvas *cv, const mbx_scale *ys)
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
                        mbx_canvas_mark(
                            cv, mbx_ex_xaxis_pixel(&v->xa, mbx_ex_point_x(p, x->xdim), dw),
                            mbx_scale_pixel(ys, y, dh, 1),
                            p->origin != EX_GRID ? REFINED_MARK : markers[s % MBX_NSERIES],
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
                                                               : markers[s % MBX_NSERIES];
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

static void x_axis(explorer *x, const view *v, const mbx_rect *r, int y)
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

static void draw_plot(explorer *x, const mbx_rect *r, view *v)
{
    mbx_axis_kind yk = x->bandwidth ? MBX_AXIS_MBPS : MBX_AXIS_SECONDS;
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
    int sh = 0, mon = x->be->nranks > 1 && x->be->probe;
    if (x->cmp) {
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

    double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
    for (size_t i = 0; i < x->npts; i++) {
        const mbx_ex_point *p = &x->pts[i];
        double px = mbx_ex_point_x(p, x->xdim);
        if (!drawn(v, x, p) || !(px > 0))
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
    if (!(xmax > 0))
        xmin = 1, xmax = x->xdim == EX_DIM_SIZE ? 1024 : 2;
    if (!(ymax > 0))
        ymin = yk == MBX_AXIS_MBPS ? 1 : 1e-6, ymax = ymin * 10;
    v->xa = mbx_ex_xaxis_fit(x->xdim, xmin, xmax);
    mbx_scale ys = mbx_scale_fit(ymin, ymax, yk);

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
        char head[160];
        int a = v->cmp_idx[0], b = v->cmp_idx[1];
        int room = r->x + r->w - v->px - 2;
        snprintf(head, sizeof head, "A/B: %s / %s (above 1.0: A %s)", a >= 0 ? v->names[a] : "?",
                 b >= 0 ? v->names[b] : "?", x->bandwidth ? "faster" : "slower");
        if ((int)strlen(head) > room)
            snprintf(head, sizeof head, "A/B: %s / %s", a >= 0 ? v->names[a] : "?",
                     b >= 0 ? v->names[b] : "?");
        mbx_ex_put(x, below, v->px - 1, r->x + r->w - v->px, MBX_ROLE_AXIS,
                   x->utf8 ? "\u251c" : "+");
        mbx_ex_put(x, below, v->px + 1, r->x + r->w - v->px - 1, MBX_ROLE_DIM, head);
        mbx_ex_draw_ratio_strip(x, &v->xa, below + 1, v->px, v->pw, sh);
        mbx_ex_draw_sig_row(x, &v->xa, below + 1 + sh, v->px, v->pw);
        below += 2 + sh;
    }
    x_axis(x, v, r, below);
    if (mon)
        mbx_ex_draw_monitor(x, r->y + r->h - 1, r->x, r->w - 1);
}

/* ---- the monitor's strip ---- */

static int cmp_double(const void *a, const void *b)
{
    double u = *(const double *)a, w = *(const double *)b;
    return (u > w) - (u < w);
}

/* The probe series as a sparkline (one cell a probe, or the median of a
 * bin of probes once there are more than cells), on a log scale; the
 * first cell of every level after a shift is drawn as a warning. Then the
 * last probe, the levels and the shifts. */
void mbx_ex_draw_monitor(explorer *x, int y, int x0, int w)
{
    mbx_monitor *m = &x->mon;
    char lab[16];
    snprintf(lab, sizeof lab, "%*s", EX_YLABEL_W - 1, "probe");
    mbx_ex_put(x, y, x0, EX_YLABEL_W - 1, MBX_ROLE_AXIS, lab);
    int sx = x0 + EX_YLABEL_W + 1, room = x0 + w - sx;
    char text[128];
    if (m->n == 0 || !m->peer) {
        snprintf(text, sizeof text, "1-byte ping-pong of ranks 0 and %d between points, drawn here",
                 x->be->nranks - 1);
        mbx_ex_put(x, y, sx, room, MBX_ROLE_DIM, text);
        return;
    }
    const mbx_levels *lv = mbx_monitor_levels(m);
    size_t nl = lv ? lv->nlevel : 0, ns = lv && lv->nseg ? lv->nseg - 1 : 0;
    char now[16];
    mbx_axis_format(mbx_monitor_last(m), MBX_AXIS_SECONDS, x->utf8, now, sizeof now);
    /* The long words when the sparkline keeps half the row. */
    int k = snprintf(text, sizeof text, " %s now, %zu level%s, %zu shift%s", now, nl,
                     nl == 1 ? "" : "s", ns, ns == 1 ? "" : "s");
    if (room - k < 20)
        snprintf(text, sizeof text, " %s %zulv %zush", now, nl, ns);
    int tw = 0; /* columns: every glyph here is one wide */
    for (const char *p = text; *p; p++)
        tw += ((unsigned char)*p & 0xC0) != 0x80;
    int cells = room - tw;
    if (cells < 4)
        return;
    int used = (size_t)cells < m->n ? cells : (int)m->n;
    /* The scale: at least a factor 1.5, so noise of a few percent stays
     * flat and a real shift spans most of the height. */
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i] > 0)
            lo = fmin(lo, m->v[i]), hi = fmax(hi, m->v[i]);
    if (!(hi > 0))
        return;
    if (hi / lo < 1.5) {
        double mid = sqrt(hi * lo);
        lo = mid / sqrt(1.5), hi = mid * sqrt(1.5);
    }
    static const char *const blocks[8] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                          "\u2585", "\u2586", "\u2587", "\u2588"};
    static const char ascii[] = "_.-~=+*#";
    double *bin = malloc(m->n * sizeof *bin);
    if (!bin)
        return;
    for (int c = 0; c < used; c++) {
        size_t b0 = (size_t)c * m->n / (size_t)used, b1 = (size_t)(c + 1) * m->n / (size_t)used;
        if (b1 <= b0)
            b1 = b0 + 1;
        size_t k = b1 - b0;
        memcpy(bin, m->v + b0, k * sizeof *bin);
        qsort(bin, k, sizeof *bin, cmp_double);
        double v = bin[k / 2];
        int g = (int)lround((log(v) - log(lo)) / (log(hi) - log(lo)) * 7);
        g = g < 0 ? 0 : g > 7 ? 7 : g;
        /* A level starts in this cell: mark it. */
        int shift = 0;
        for (size_t s = 1; lv && s < lv->nseg; s++)
            shift |= lv->seg[s].begin >= b0 && lv->seg[s].begin < b1;
        char a[2] = {ascii[g], '\0'};
        mbx_ex_put(x, y, sx + c, 1, shift ? MBX_ROLE_WARNING : MBX_ROLE_NORMAL,
                   x->utf8 && x->glyphs != MBX_GLYPHS_ASCII ? blocks[g] : a);
    }
    free(bin);
    mbx_ex_put(x, y, sx + used, room - used, MBX_ROLE_DIM, text);
}

/* ---- the side column ---- */

static void draw_legend(explorer *x, const mbx_rect *r, const view *v)
{
    mbx_ex_put(x, r->y, r->x + 1, r->w - 1, MBX_ROLE_NORMAL,
               x->cmp ? "compared (v ends, = ratios)" : "series");
    int rows = r->h - 1 - v->any_refined - v->any_shift - v->any_plain - v->any_open, line = 0;
    for (int s = 0; s < v->nser && line < rows; s++) {
        if (!v->draw[s])
            continue;
        if (line == rows - 1 && !x->cmp) {
            int left = 0;
            for (int k = s; k < v->nser; k++)
                left += v->draw[k];
            if (left > 1) {
                char more[32];
                snprintf(more, sizeof more, "  +%d more", left);
                mbx_ex_put(x, r->y + 1 + line, r->x + 1, r->w - 1, MBX_ROLE_DIM, more);
                line++;
                break;
            }
        }
        char lv[16] = "";
        /* The value at the curve's right end so far, as a reading aid. */
        double bx = -1, by = NAN;
        for (size_t i = 0; i < x->npts; i++) {
            const mbx_ex_point *p = &x->pts[i];
            double y = mbx_ex_point_y(x, p);
            if (EX_HAS_VALUE(p) && in_series(p, &v->ser[s]) && isfinite(y) &&
                mbx_ex_point_x(p, x->xdim) > bx)
                bx = mbx_ex_point_x(p, x->xdim), by = y;
        }
        if (isfinite(by))
            mbx_axis_format(by, x->bandwidth ? MBX_AXIS_MBPS : MBX_AXIS_SECONDS, x->utf8, lv,
                            sizeof lv);
        char tag[4] = "";
        if (x->cmp)
            snprintf(tag, sizeof tag, "%s ", s == v->cmp_idx[0] ? "A" : "B");
        int nw = r->w - 14 - (int)strlen(tag); /* marker, name, a value of up to 10 */
        nw = nw < 6 ? 6 : nw > 24 ? 24 : nw;
        char text[128];
        snprintf(text, sizeof text, "%c %s%-*.*s %s", markers[s % MBX_NSERIES], tag, nw, nw,
                 v->names[s], lv);
        mbx_ex_put(x, r->y + 1 + line, r->x + 1, r->w - 1, MBX_ROLE_SERIES1 + s % MBX_NSERIES,
                   text);
        line++;
    }
    if (v->any_refined && r->h >= 2) {
        char text[64];
        snprintf(text, sizeof text, "%c refined point (eps %g%%)", REFINED_MARK,
                 100 * x->meas.refine);
        mbx_ex_put(x, r->y + 1 + line, r->x + 1, r->w - 1, MBX_ROLE_DIM, text);
        line++;
    }
    if (v->any_shift && line + 1 < r->h) {
        char text[64];
        /* In passes nothing is measured again as a whole: SHIFTED means the
         * passes ran at two or more machine levels. */
        snprintf(text, sizeof text, "%c SHIFTED: passes at 2+ levels", SHIFTED_MARK);
        mbx_ex_put(x, r->y + 1 + line, r->x + 1, r->w - 1, MBX_ROLE_DIM, text);
        line++;
    }
    if (v->any_plain && line + 1 < r->h) {
        char text[64];
        snprintf(text, sizeof text, "%c plain median, same point", PLAIN_MARK);
        mbx_ex_put(x, r->y + 1 + line, r->x + 1, r->w - 1, MBX_ROLE_DIM, text);
        line++;
    }
    if (v->any_open && line + 1 < r->h)
        mbx_ex_put(x, r->y + 1 + line, r->x + 1, r->w - 1, MBX_ROLE_DIM,
                   "dim: not final, more passes");
}

static void conv_label(const explorer *x, const mbx_ex_point *p, int labw, int multi, char *out,
                       size_t len)
{
    const char *name = mbx_bench_get(p->bench_id)->name, *dot = strchr(name, '.');
    const mbx_bench *b = mbx_bench_get(p->bench_id);
    char sz[24], pc[8] = "";
    mbx_axis_format((double)p->bytes, MBX_AXIS_BYTES, 0, sz, sizeof sz);
    if (!p->bytes && (b->flags & MBX_BENCH_PARAM)) /* unsized: "t=4" for 4 threads */
        snprintf(sz, sizeof sz, "%c=%lld", b->param_name[0],
                 (long long)(p->param ? p->param : b->param_default));
    if (multi)
        snprintf(pc, sizeof pc, "x%d", p->procs);
    int pw = multi ? (int)strlen(pc) + 1 : 0, nw = labw - 8 - pw;
    if (nw < 1)
        nw = 1;
    char nm[48]; /* the second curve of a benchmark picked twice ends "#2" */
    if (p->copy && nw > 3)
        snprintf(nm, sizeof nm, "%.*s#2", nw - 2, dot ? dot + 1 : name);
    else
        snprintf(nm, sizeof nm, "%s", dot ? dot + 1 : name);
    snprintf(out, len, "%-*.*s %6.6s%s%s%c", nw, nw, nm,
             p->bytes || (b->flags & MBX_BENCH_PARAM) ? sz : "-", multi ? " " : "", pc,
             p->origin != EX_GRID ? REFINED_MARK : ' ');
    (void)x;
}

/* The passes a point needs at least (the scheduler's R). */
static size_t min_passes(const explorer *x)
{
    return x->sopt.passes.min_passes ? x->sopt.passes.min_passes : MBX_PASSES_DEFAULT_MIN;
}

/* One bar a point: its between-pass relative error against the target
 * (the target sits in the middle), then the error and passes/R while it
 * is measured, its status once final. While running the list holds the
 * points not final yet, the one measured last in view; then the last
 * points of the run. */
static void draw_conv(explorer *x, const mbx_rect *r)
{
    double eps = x->meas.stop.kind == MBX_STOP_FIXED ? 0 : x->sopt.passes.eps;
    char head[64];
    if (eps > 0)
        snprintf(head, sizeof head, "between passes (target %.3g%%)", 100 * eps);
    else
        snprintf(head, sizeof head, "passes (fixed:%zu)", x->meas.stop.fixed);
    mbx_ex_put(x, r->y, r->x + 1, r->w - 1, MBX_ROLE_NORMAL, head);
    int lines = r->h - 1;
    if (lines <= 0 || x->npts == 0)
        return;
    static size_t list[EX_MAX_POINTS];
    size_t n = 0, at = 0;
    for (size_t i = 0; i < x->npts; i++) {
        int open = x->pts[i].state == EX_PENDING || x->pts[i].state == EX_RUNNING;
        if (x->running ? open : 1) {
            if (i == x->cur)
                at = n;
            list[n++] = i;
        }
    }
    size_t first = 0;
    if (!x->running)
        first = n > (size_t)lines ? n - (size_t)lines : 0;
    else if (at + 1 > (size_t)lines)
        first = at + 1 - (size_t)lines;
    /* Wide: label, bar, "0.56% 3/5" or "0.56% ok". Narrow side columns
     * (80-column terminals) drop the number and keep the bar and the
     * passes or the word: the numbers are in the status line and the
     * results table. A run over several process counts shows P in the
     * label. */
    int multi = mbx_ex_run_nprocs(x) > 1;
    int wide = r->w >= 32, markw = wide ? 12 : 5, labw = (wide ? 15 : 14) + (multi ? 4 : 0);
    if (multi && wide)
        markw = 10;
    int barw = r->w - 1 - labw - 1 - markw;
    if (barw < 1)
        barw = 1;
    size_t minp = min_passes(x);
    for (size_t li = first; li < n && li < first + (size_t)lines; li++) {
        const mbx_ex_point *p = &x->pts[list[li]];
        int y = r->y + 1 + (int)(li - first);
        char label[48];
        conv_label(x, p, labw, multi, label, sizeof label);
        mbx_ex_put(x, y, r->x + 1, labw, p->origin != EX_GRID ? MBX_ROLE_DIM : MBX_ROLE_NORMAL,
                   label);
        double rel = p->rel;
        double frac = eps > 0 ? rel / eps / 2.0 : (double)p->passes / (double)(minp ? minp : 1);
        if (!isfinite(frac) || frac < 0)
            frac = 0;
        if (frac > 1)
            frac = 1;
        int fill = barw > 0 ? (int)lround(frac * barw) : 0;
        int conv = eps > 0 ? rel <= eps && p->passes >= minp : p->passes >= minp;
        for (int c = 0; c < barw; c++) {
            int target = eps > 0 && c == barw / 2;
            const char *g = c < fill ? (x->utf8 ? "\u2588" : "#") : target ? "|" : " ";
            int role = c < fill ? (conv ? MBX_ROLE_SE_CONVERGED : MBX_ROLE_SE_PENDING)
                                : MBX_ROLE_SE_TARGET;
            mbx_ex_put(x, y, r->x + 1 + labw + c, 1, role, g);
        }
        char mark[24];
        int role = MBX_ROLE_DIM;
        int room = r->w - 2 - labw - barw;
        if (p->state == EX_RUNNING || (p->state == EX_PENDING && p->passes)) {
            if (!wide || !isfinite(rel) ||
                snprintf(mark, sizeof mark, "%.2f%% %zu/%zu", 100 * rel, p->passes, minp) > room)
                snprintf(mark, sizeof mark, "%zu/%zu", p->passes, minp);
        } else if (p->state == EX_DONE) {
            static const char *const words[MBX_POINT_STATUS_COUNT] = {"ok", "UNSET", "UNREL",
                                                                      "SHIFT", "INVAL"};
            const char *st = (int)p->r.status < MBX_POINT_STATUS_COUNT ? words[p->r.status] : "?";
            role = p->r.status == MBX_POINT_SETTLED ? MBX_ROLE_OK
                   : p->r.status == MBX_POINT_UNSETTLED || p->r.status == MBX_POINT_SHIFTED
                       ? MBX_ROLE_WARNING
                       : MBX_ROLE_ERROR;
            /* The word, and the number before it when both fit. */
            if (!wide || !isfinite(rel) ||
                snprintf(mark, sizeof mark, "%.2f%% %s", 100 * rel, st) > room)
                snprintf(mark, sizeof mark, "%s", st);
        } else {
            snprintf(mark, sizeof mark, "%s",
                     p->state == EX_DROPPED ? (wide ? "dropped" : "drop")
                                            : (wide ? "pending" : "wait"));
        }
        mbx_ex_put(x, y, r->x + 2 + labw + barw, room, role, mark);
    }
}

/* ---- the status block ---- */

/* What a point's ranks are: the ping-pong pair, or the first P. */
static void ranks_text(const mbx_ex_point *p, char *buf, size_t len)
{
    const mbx_bench *b = mbx_bench_get(p->bench_id);
    if (b->flags & MBX_BENCH_PAIR)
        snprintf(buf, len, "ranks %d,%d", p->pair_a, p->pair_b);
    else if (p->procs > 1)
        snprintf(buf, len, "ranks 0..%d", p->procs - 1);
    else
        snprintf(buf, len, "rank 0");
}

static void status_info(explorer *x, char *line, size_t len)
{
    size_t k = 0;
    line[0] = '\0';
    if (x->cmp) {
        mbx_ex_compare_summary(x, line, len);
        return;
    }
    size_t added = 0;
    double worst = 0;
    for (size_t c = 0; x->sched && c < x->ncurves; c++) {
        size_t pts = 0, ref = 0;
        double w = 0;
        mbx_sched_curve_refine(x->sched, c, &pts, &ref, &w);
        added += ref;
        if (w > worst)
            worst = w;
    }
    if (x->running && added) {
        snprintf(line, len,
                 "refining between passes: %zu points added, worst segment %.1f%% %s %g%%", added,
                 100 * worst, worst < x->meas.refine ? "<" : ">", 100 * x->meas.refine);
        return;
    }
    if (x->method.sync == MBX_SYNC_WINDOW && x->be->clock_info && k < len) {
        mbx_clock_info ci;
        x->be->clock_info(x->be, &ci);
        if (ci.syncs && ci.identity)
            k += (size_t)snprintf(line + k, len - k,
                                  "window sync on one host clock (identity, same boot_id)  ");
        else if (ci.syncs)
            k += (size_t)snprintf(line + k, len - k,
                                  "window sync on a %s clock (offset after sync %.2fus)  ",
                                  mbx_clocksync_name(x->method.clock.method), ci.max_offset * 1e6);
    }
    if (x->scanned && k < len)
        k += (size_t)snprintf(line + k, len - k,
                              "ping-pong pair 0,%d (auto: farthest from rank 0, %.2fus)  ", x->far,
                              x->lat ? x->lat[x->far] * 1e6 : 0);
    if (k < len && mbx_ex_run_nprocs(x) > 1)
        snprintf(line + k, len - k, "a point on P processes runs on ranks 0..P-1 (the first P)");
}

static void draw_status(explorer *x, const mbx_rect *r)
{
    char line[400];
    double el = mbx_ex_elapsed(x);
    double frac = x->npts ? (double)x->ndone / (double)x->npts : 0;
    const char *state = x->running ? (x->paused ? "PAUSED" : "running")
                        : x->npts  ? (x->ndone == x->npts ? "done" : "stopped")
                                   : "idle: pick benchmarks (1), then r";
    int barw = r->w >= 100 ? 20 : 10, fill = (int)lround(frac * barw);
    char bar[64], ref[32] = "";
    for (int i = 0; i < barw; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[barw] = '\0';
    if (x->nrefined)
        snprintf(ref, sizeof ref, " (%zu refined)", x->nrefined);
    snprintf(line, sizeof line, "final %zu/%zu%s [%s] %3.0f%%  %zu passes, round %zu  %.1fs  %s",
             x->ndone, x->npts, ref, bar, 100 * frac, x->sst.passes, x->sst.rounds, el, state);
    if ((int)strlen(line) > r->w - 1)
        snprintf(line, sizeof line, "final %zu/%zu [%s] %zu passes, round %zu %.1fs %s", x->ndone,
                 x->npts, bar, x->sst.passes, x->sst.rounds, el, state);
    mbx_ex_put(x, r->y, r->x + 1, r->w - 1, x->paused ? MBX_ROLE_WARNING : MBX_ROLE_NORMAL, line);

    const mbx_ex_point *p = x->running && x->cur < x->npts ? &x->pts[x->cur] : NULL;
    if (p && EX_HAS_VALUE(p)) {
        char med[16], lo[16], hi[16], sz[16], rk[32];
        mbx_axis_format(p->r.s.median, MBX_AXIS_SECONDS, x->utf8, med, sizeof med);
        mbx_axis_format(p->r.s.ci_lo, MBX_AXIS_SECONDS, x->utf8, lo, sizeof lo);
        mbx_axis_format(p->r.s.ci_hi, MBX_AXIS_SECONDS, x->utf8, hi, sizeof hi);
        mbx_axis_format((double)p->bytes, MBX_AXIS_BYTES, 0, sz, sizeof sz);
        ranks_text(p, rk, sizeof rk);
        const char *name = mbx_bench_get(p->bench_id)->name, *dot = strchr(name, '.');
        double err = 100 * (isfinite(p->rel) ? p->rel : 0);
        size_t minp = min_passes(x);
        /* As much as fits: the interval goes first, then the full name. */
        snprintf(line, sizeof line,
                 "%s %sB %s: pass %zu/%zu median %s CI95 [%s, %s] between passes, err %.2f%%", name,
                 sz, rk, p->passes, minp, med, lo, hi, err);
        if ((int)strlen(line) > r->w - 1)
            snprintf(line, sizeof line, "%s %sB %s: pass %zu/%zu median %s err %.2f%%", name, sz,
                     rk, p->passes, minp, med, err);
        if ((int)strlen(line) > r->w - 1)
            snprintf(line, sizeof line, "%s %sB: pass %zu/%zu %s err %.1f%%", dot ? dot + 1 : name,
                     sz, p->passes, minp, med, err);
        mbx_ex_put(x, r->y + 1, r->x + 1, r->w - 1, MBX_ROLE_NORMAL, line);
    } else {
        status_info(x, line, sizeof line);
        mbx_ex_put(x, r->y + 1, r->x + 1, r->w - 1, MBX_ROLE_DIM, line);
    }
    if (x->msg[0])
        mbx_ex_put(x, r->y + 2, r->x + 1, r->w - 1, x->msg_role, x->msg);
}

/* The run view lays out the whole screen itself (mbx_layout_run): the
 * frame's body is not used. */
static void draw_run(explorer *x, const mbx_rect *body)
{
    (void)body;
    static view v; /* large; one view is drawn at a time */
    build_view(x, &v);
    int nleg = x->cmp ? 2 : v.nser;
    mbx_run_layout l;
    mbx_layout_run(x->rows, x->cols, nleg + v.any_refined + v.any_shift + v.any_plain + v.any_open,
                   &l);
    draw_plot(x, &l.plot, &v);
    draw_legend(x, &l.legend, &v);
    if (x->cmp && x->ratios)
        mbx_ex_draw_ratio_table(x, &l.conv);
    else
        draw_conv(x, &l.conv);
    draw_status(x, &l.status);
    if (x->choosing)
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
    x->cmp = x->choosing = x->ratios = 0; /* the curves are different ones */
}

/* v: end the comparison, or open the series chooser. */
static void toggle_compare(explorer *x)
{
    if (x->cmp) {
        x->cmp = x->ratios = 0;
        return;
    }
    if (mbx_ex_compare_count(x) < 2) {
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "compare: the run has fewer than two curves");
        return;
    }
    x->choosing = 1;
    x->ccursor = x->ctop = 0;
}

/* The series chooser's keys while it is open, else the plot's. */
static int run_key(explorer *x, int key)
{
    if (x->choosing)
        return mbx_ex_compare_key(x, key);
    switch (mbx_ex_key_action(key, EX_RUN)) {
    case EXA_BANDWIDTH: x->bandwidth = !x->bandwidth; return 1;
    case EXA_XAXIS: next_xaxis(x); return 1;
    case EXA_COMPARE: toggle_compare(x); return 1;
    case EXA_RATIOS:
        if (!x->cmp)
            mbx_ex_set_msg(x, MBX_ROLE_WARNING, "ratios: compare two curves first (v)");
        else
            x->ratios = !x->ratios;
        return 1;
    default: return 0;
    }
}

static int run_typing(const explorer *x)
{
    return x->choosing;
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
