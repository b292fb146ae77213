/* The run view's side column: the legend (each curve's line style,
 * marker and value, the marks in use), one convergence bar per point
 * (filling as it converges) and the monitor's strip. The status lines are
 * screens/ex_runstatus.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/axis.h"
#include "explorer.h"
#include "mbx/bench.h"
#include "screens/run_int.h"

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

int mbx_ex_legend_rows(const explorer *x, const mbx_ex_view *v)
{
    int n = 0;
    for (int s = 0; s < v->nser; s++)
        n += v->draw[s] && !v->nox[s];
    if (x->cmp.on)
        n = 2;
    return n + v->any_nox + v->any_point + v->any_refined + v->any_plain;
}

/* x as the axis says it: "4Ki", "P=4", "t=4". */
static void x_text(const explorer *x, double xv, char *buf, size_t len)
{
    if (x->xdim == EX_DIM_SIZE)
        mbx_axis_format(xv, MBX_AXIS_BYTES, 0, buf, len);
    else if (x->xdim == EX_DIM_PROCS)
        snprintf(buf, len, "P=%.0f", xv);
    else
        snprintf(buf, len, "%.1s=%.0f", mbx_ex_param_axis_name(x), xv);
}

/* The value of curve s the legend shows: at the cursor's x while the
 * inspector is on, else at the curve's right end; *at its x. */
static double legend_value(const explorer *x, const mbx_ex_view *v, int s, double *at)
{
    double bx = -1, by = NAN;
    for (size_t i = 0; i < x->npts; i++) {
        const mbx_ex_point *p = &x->pts[i];
        double px = mbx_ex_point_x(p, x->xdim), y = mbx_ex_point_y(x, p);
        if (!EX_HAS_VALUE(p) || !isfinite(y) || !mbx_ex_series_has(&v->ser[s], p) ||
            !mbx_ex_point_has_x(p, x->xdim))
            continue;
        if (x->insp.on ? px == x->insp.xv : px > bx)
            bx = px, by = y;
    }
    *at = bx;
    return by;
}

/* A sample of curve s: its line style over 3 cells, its marker after. */
static void style_sample(explorer *x, const mbx_ex_view *v, int s, int y, int x0)
{
    int role = MBX_ROLE_SERIES1 + s % MBX_NSERIES;
    mbx_canvas *cv = mbx_canvas_new(3, 1, x->glyphs);
    if (cv) {
        int dh = mbx_canvas_dot_height(cv);
        mbx_canvas_line_styled(cv, 0, dh / 2, mbx_canvas_dot_width(cv) - 1, dh / 2, 1,
                               v->style[s].pattern, NULL);
        for (int c = 0; c < 3; c++) {
            char cell[8];
            int owner;
            mbx_canvas_cell(cv, c, 0, cell, &owner);
            mbx_ex_put(x, y, x0 + c, 1, role, cell);
        }
        mbx_canvas_free(cv);
    }
    char m[2] = {v->style[s].marker, '\0'};
    mbx_ex_put(x, y, x0 + 3, 1, role, m);
}

/* The head: what the values are ("median at 64Ki", "at 4Ki (cursor)"). */
static void legend_head(explorer *x, const mbx_rect *r, const mbx_ex_view *v, int *same)
{
    double common = -2;
    *same = 1;
    for (int s = 0; s < v->nser; s++) {
        double at;
        if (!v->draw[s] || v->nox[s] || !isfinite(legend_value(x, v, s, &at)))
            continue;
        *same &= common == -2 || common == at;
        common = at;
    }
    char head[96], xs[24] = "";
    const char *what = x->bandwidth ? "MB/s" : "median";
    if (common >= 0)
        x_text(x, common, xs, sizeof xs);
    if (x->cmp.on)
        snprintf(head, sizeof head, "compared (v ends, = ratios)");
    else if (common == -2)
        snprintf(head, sizeof head, "series");
    else if (x->insp.on)
        snprintf(head, sizeof head, "series  %s at %s (cursor)", what, common >= 0 ? xs : "-");
    else if (common >= 0 && *same)
        snprintf(head, sizeof head, "series  %s at %s", what, xs);
    else
        snprintf(head, sizeof head, "series  %s at right end", what);
    if ((int)strlen(head) > r->w - 1 && !x->cmp.on) /* the value's x first */
        snprintf(head, sizeof head, "%s at %s%s", what, common >= 0 && *same ? xs : "right end",
                 x->insp.on ? " (cursor)" : "");
    mbx_ex_put(x, r->y, r->x + 1, r->w - 1, MBX_ROLE_NORMAL, head);
}

/* One curve's row: sample, [A/B,] name, value [at x]. */
static void legend_row(explorer *x, const mbx_rect *r, const mbx_ex_view *v, int s, int y, int same)
{
    char lv[48] = "", tag[4] = "", text[128];
    double at, by = legend_value(x, v, s, &at);
    if (isfinite(by))
        mbx_axis_format(by, x->bandwidth ? MBX_AXIS_MBPS : MBX_AXIS_SECONDS, x->utf8, lv,
                        sizeof lv);
    else if (x->insp.on)
        snprintf(lv, sizeof lv, "-"); /* no point at the cursor's x */
    if (isfinite(by) && !same && !x->insp.on) {
        char xs[24];
        x_text(x, at, xs, sizeof xs);
        snprintf(lv + strlen(lv), sizeof lv - strlen(lv), "@%s", xs);
    }
    if (x->cmp.on)
        snprintf(tag, sizeof tag, "%s ", s == v->cmp_idx[0] ? "A" : "B");
    int nw = r->w - 17 - (int)strlen(tag); /* sample, name, a value of up to 10 */
    nw = nw < 6 ? 6 : nw > 24 ? 24 : nw;
    char nm[32];
    mbx_ex_fit_name(v->names[s], nw, nm, sizeof nm);
    style_sample(x, v, s, y, r->x + 1);
    snprintf(text, sizeof text, "%s%-*s %s", tag, nw, nm, lv);
    mbx_ex_put(x, y, r->x + 6, r->w - 6, MBX_ROLE_SERIES1 + s % MBX_NSERIES, text);
}

/* The marks' line: the first drawn curve's marker in each state. */
static void marks_line(explorer *x, const mbx_rect *r, const mbx_ex_view *v, int y)
{
    int s = 0;
    while (s < v->nser && !(v->draw[s] && !v->nox[s]))
        s++;
    char m[2] = {s < v->nser ? v->style[s].marker : 'o', '\0'};
    int role = MBX_ROLE_SERIES1 + s % MBX_NSERIES, c = r->x + 1, end = r->x + r->w;
    static const struct {
        unsigned a;
        const char *word;
    } st[] = {{MBX_ATTR_BOLD, "settled"}, {MBX_ATTR_DIM, "open"}, {MBX_ATTR_REVERSE, "flagged"}};
    /* "o settled  o open  o flagged", narrow "o ok o open o flagged" */
    int narrow = r->w - 1 < 28;
    for (size_t k = 0; k < sizeof st / sizeof *st && c + 2 < end; k++) {
        const char *word = narrow && k == 0 ? "ok" : st[k].word;
        mbx_ex_put_attr(x, y, c, 1, role, st[k].a, m);
        mbx_ex_put(x, y, c + 2, end - c - 2, MBX_ROLE_DIM, word);
        c += 3 + (int)strlen(word) + !narrow;
    }
    if (x->errbars && c + 6 < end)
        mbx_ex_put(x, y, c, end - c, MBX_ROLE_DIM, "| CI");
}

/* The curves that have no place on this axis, and where they are. */
static void nox_line(explorer *x, const mbx_rect *r, const mbx_ex_view *v, int y)
{
    char text[200];
    static const char *const axis[] = {"size", "P", "param"};
    /* Where they are first: another axis (x), or the results (4). */
    const char *where = x->xdim != EX_DIM_PROCS && mbx_ex_dim_useful(x, EX_DIM_PROCS) ? "x: P"
                        : x->xdim != EX_DIM_PARAM && mbx_ex_dim_useful(x, EX_DIM_PARAM)
                            ? "x: param"
                            : "4: results";
    char names[160] = "";
    for (int s = 0, k = 0; s < v->nser && k < (int)sizeof names - 50; s++)
        if (v->draw[s] && v->nox[s])
            k += snprintf(names + k, sizeof names - (size_t)k, " %s", v->names[s]);
    if (snprintf(text, sizeof text, "no %s (%s):%s", axis[x->xdim % 3], where, names) > r->w - 1)
        snprintf(text, sizeof text, "no %s:%s (see %.1s)", axis[x->xdim % 3], names, where);
    mbx_ex_put(x, y, r->x + 1, r->w - 1, MBX_ROLE_DIM, text);
}

void mbx_ex_draw_legend(explorer *x, const mbx_rect *r, const mbx_ex_view *v)
{
    int same;
    legend_head(x, r, v, &same);
    int extra = v->any_nox + v->any_point + v->any_refined + v->any_plain;
    int rows = r->h - 1 - extra, line = 0;
    for (int s = 0; s < v->nser && line < rows; s++) {
        if (!v->draw[s] || v->nox[s])
            continue;
        if (line == rows - 1 && !x->cmp.on) {
            int left = 0;
            for (int k = s; k < v->nser; k++)
                left += v->draw[k] && !v->nox[k];
            if (left > 1) {
                char more[32];
                snprintf(more, sizeof more, "  +%d more", left);
                mbx_ex_put(x, r->y + 1 + line, r->x + 1, r->w - 1, MBX_ROLE_DIM, more);
                line++;
                break;
            }
        }
        legend_row(x, r, v, s, r->y + 1 + line, same);
        line++;
    }
    if (v->any_nox && line + 1 < r->h)
        nox_line(x, r, v, r->y + 1 + line++);
    if (v->any_point && line + 1 < r->h)
        marks_line(x, r, v, r->y + 1 + line++);
    if (v->any_refined && line + 1 < r->h) {
        char text[64];
        snprintf(text, sizeof text, "%c refined point (eps %g%%)", REFINED_MARK,
                 100 * x->meas.refine);
        mbx_ex_put(x, r->y + 1 + line++, r->x + 1, r->w - 1, MBX_ROLE_DIM, text);
    }
    if (v->any_plain && line + 1 < r->h) {
        char text[64];
        snprintf(text, sizeof text, "%c plain median, same point", PLAIN_MARK);
        mbx_ex_put(x, r->y + 1 + line, r->x + 1, r->w - 1, MBX_ROLE_DIM, text);
    }
}

/* The names the list uses: each benchmark of the run once, short and
 * unique (mbx_ex_short_names), fitted to w. */
typedef struct conv_names {
    int id[EX_MAX_BENCH];
    char name[EX_MAX_BENCH][32];
    int n;
} conv_names;

static void conv_names_make(const explorer *x, int w, conv_names *cn)
{
    cn->n = 0;
    for (size_t i = 0; i < x->npts; i++) {
        int seen = 0;
        for (int k = 0; k < cn->n && !seen; k++)
            seen = cn->id[k] == x->pts[i].bench_id;
        if (!seen && cn->n < EX_MAX_BENCH)
            cn->id[cn->n++] = x->pts[i].bench_id;
    }
    mbx_ex_short_names(cn->id, cn->n, cn->name);
    mbx_ex_fit_unique(cn->name, cn->n, w);
}

static const char *conv_name(const conv_names *cn, int id)
{
    for (int k = 0; k < cn->n; k++)
        if (cn->id[k] == id)
            return cn->name[k];
    return "?";
}

/* "o allrdce  16Ki^": its curve's marker (blank when it is on no curve
 * of this axis), its name, x and P, ^ when refined. */
static void conv_label(const mbx_ex_view *v, const conv_names *cn, const mbx_ex_point *p, int labw,
                       int multi, char *out, size_t len)
{
    const mbx_bench *b = mbx_bench_get(p->bench_id);
    char sz[24], pc[8] = "";
    mbx_axis_format((double)p->bytes, MBX_AXIS_BYTES, 0, sz, sizeof sz);
    if (!p->bytes && (b->flags & MBX_BENCH_PARAM)) /* unsized: "t=4" for 4 threads */
        snprintf(sz, sizeof sz, "%c=%lld", b->param_name[0],
                 (long long)(p->param ? p->param : b->param_default));
    if (multi)
        snprintf(pc, sizeof pc, "x%d", p->procs);
    int pw = multi ? (int)strlen(pc) + 1 : 0, nw = labw - 10 - pw;
    if (nw < 1)
        nw = 1;
    char nm[48]; /* the second curve of a benchmark picked twice ends "#2" */
    const char *name = conv_name(cn, p->bench_id);
    if (p->copy && nw > 3)
        snprintf(nm, sizeof nm, "%.*s#2", nw - 2, name);
    else
        snprintf(nm, sizeof nm, "%s", name);
    char mk = ' ';
    for (int s = 0; s < v->nser && mk == ' '; s++)
        if (v->draw[s] && !v->nox[s] && mbx_ex_series_has(&v->ser[s], p))
            mk = v->style[s].marker;
    snprintf(out, len, "%c %-*.*s %6.6s%s%s%c", mk, nw, nw, nm,
             p->bytes || (b->flags & MBX_BENCH_PARAM) ? sz : "-", multi ? " " : "", pc,
             p->origin != EX_GRID ? REFINED_MARK : ' ');
}

/* The passes a point needs at least (the scheduler's R). */
static size_t min_passes(const explorer *x)
{
    return x->sopt.passes.min_passes ? x->sopt.passes.min_passes : MBX_PASSES_DEFAULT_MIN;
}

/* The points the list shows, into list: while running the points not
 * final yet, else all; returns their count, and in *first the first
 * shown on lines rows (the one measured last in view while running, the
 * last points of the run after). */
static size_t conv_list(const explorer *x, size_t *list, int lines, size_t *first)
{
    size_t n = 0, at = 0;
    for (size_t i = 0; i < x->npts; i++) {
        int open = x->pts[i].state == EX_PENDING || x->pts[i].state == EX_RUNNING;
        if (x->running ? open : 1) {
            if (i == x->cur)
                at = n;
            list[n++] = i;
        }
    }
    *first = 0;
    if (!x->running)
        *first = n > (size_t)lines ? n - (size_t)lines : 0;
    else if (at + 1 > (size_t)lines)
        *first = at + 1 - (size_t)lines;
    return n;
}

/* The bar of p at row y, barw cells from column x0: it fills as the
 * point converges, like a progress bar: the smaller of its passes over R
 * and the target over its between-pass error (passes over R with a fixed
 * count), so it is full once both are met. */
static void conv_bar(explorer *x, const mbx_ex_point *p, double eps, size_t minp, int y, int x0,
                     int barw)
{
    double rel = p->rel;
    double frac = (double)p->passes / (double)(minp ? minp : 1);
    if (eps > 0 && isfinite(rel) && rel > eps)
        frac = fmin(frac, eps / rel);
    else if (eps > 0 && !isfinite(rel))
        frac = fmin(frac, 0.5); /* one pass: no error yet */
    if (!isfinite(frac) || frac < 0)
        frac = 0;
    if (frac > 1)
        frac = 1;
    int fill = barw > 0 ? (int)lround(frac * barw) : 0;
    int conv = eps > 0 ? rel <= eps && p->passes >= minp : p->passes >= minp;
    for (int c = 0; c < barw; c++) {
        const char *g = c < fill ? (x->utf8 ? "\u2588" : "#") : (x->utf8 ? "\u00b7" : ".");
        int role =
            c < fill ? (conv ? MBX_ROLE_SE_CONVERGED : MBX_ROLE_SE_PENDING) : MBX_ROLE_SE_TARGET;
        mbx_ex_put(x, y, x0 + c, 1, role, g);
    }
}

/* The text after p's bar, in room cells: the error and passes/R while it
 * is measured, its status once final (the error first when it fits and
 * the column is wide); returns its role. */
static int conv_mark(const mbx_ex_point *p, size_t minp, int wide, int room, char *mark, size_t len)
{
    double rel = p->rel;
    if (p->state == EX_RUNNING || (p->state == EX_PENDING && p->passes)) {
        if (!wide || !isfinite(rel) ||
            snprintf(mark, len, "%.2f%% %zu/%zu", 100 * rel, p->passes, minp) > room)
            snprintf(mark, len, "%zu/%zu", p->passes, minp);
        return MBX_ROLE_DIM;
    }
    if (p->state == EX_DONE) {
        static const char *const words[MBX_POINT_STATUS_COUNT] = {
            "ok", "UNSET", "UNREL", "SHIFT", "INVAL", "fixed", "HUNG"};
        const char *st = (int)p->r.status < MBX_POINT_STATUS_COUNT ? words[p->r.status] : "?";
        /* The word, and the number before it when both fit. */
        if (!wide || !isfinite(rel) || snprintf(mark, len, "%.2f%% %s", 100 * rel, st) > room)
            snprintf(mark, len, "%s", st);
        return p->r.status == MBX_POINT_SETTLED || p->r.status == MBX_POINT_FIXED ? MBX_ROLE_OK
               : p->r.status == MBX_POINT_UNSETTLED || p->r.status == MBX_POINT_SHIFTED
                   ? MBX_ROLE_WARNING
                   : MBX_ROLE_ERROR;
    }
    snprintf(mark, len, "%s",
             p->state == EX_DROPPED ? (wide ? "dropped" : "drop") : (wide ? "pending" : "wait"));
    return MBX_ROLE_DIM;
}

/* One bar a point: its between-pass relative error against the target
 * (the target sits in the middle), then the error and passes/R while it
 * is measured, its status once final. While running the list holds the
 * points not final yet, the one measured last in view; then the last
 * points of the run. */
void mbx_ex_draw_conv(explorer *x, const mbx_rect *r, const mbx_ex_view *v)
{
    double eps = x->meas.stop.kind == MBX_STOP_FIXED ? 0 : x->sopt.passes.eps;
    char head[64];
    /* What a bar means, in its head: it fills as the point converges. */
    if (eps > 0 && snprintf(head, sizeof head, "to target between passes %.3g%%: full = met",
                            100 * eps) > r->w - 1)
        snprintf(head, sizeof head, "%s %.3g%%: full = met", r->w - 1 < 28 ? "target" : "to target",
                 100 * eps);
    else if (eps <= 0)
        snprintf(head, sizeof head, "passes (fixed:%zu): full bar = done", x->meas.stop.fixed);
    mbx_ex_put(x, r->y, r->x + 1, r->w - 1, MBX_ROLE_NORMAL, head);
    int lines = r->h - 1;
    if (lines <= 0 || x->npts == 0)
        return;
    static size_t list[EX_MAX_POINTS];
    size_t first, n = conv_list(x, list, lines, &first);
    /* Wide: label, bar, "0.56% 3/5" or "0.56% ok". Narrow side columns
     * (80-column terminals) drop the number and keep the bar and the
     * passes or the word: the numbers are in the status line and the
     * results table. A run over several process counts shows P in the
     * label. */
    int multi = mbx_ex_run_nprocs(x) > 1;
    int wide = r->w >= 32, markw = wide ? 12 : 5, labw = (wide ? 17 : 16) + (multi ? 4 : 0);
    if (multi && wide)
        markw = 10;
    int barw = r->w - 1 - labw - 1 - markw;
    if (barw < 1)
        barw = 1;
    size_t minp = min_passes(x);
    static conv_names cn;
    conv_names_make(x, labw - 10 - (multi ? 4 : 0), &cn);
    for (size_t li = first; li < n && li < first + (size_t)lines; li++) {
        const mbx_ex_point *p = &x->pts[list[li]];
        int y = r->y + 1 + (int)(li - first);
        char label[48];
        conv_label(v, &cn, p, labw, multi, label, sizeof label);
        mbx_ex_put(x, y, r->x + 1, labw, p->origin != EX_GRID ? MBX_ROLE_DIM : MBX_ROLE_NORMAL,
                   label);
        conv_bar(x, p, eps, minp, y, r->x + 1 + labw, barw);
        char mark[24];
        int room = r->w - 2 - labw - barw;
        int role = conv_mark(p, minp, wide, room, mark, sizeof mark);
        mbx_ex_put(x, y, r->x + 2 + labw + barw, room, role, mark);
    }
}
