/* The run view's side column and status block: the legend, one
 * convergence bar per point (its between-pass error against the target),
 * the monitor's strip and the status lines. */
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

void mbx_ex_draw_legend(explorer *x, const mbx_rect *r, const mbx_ex_view *v)
{
    mbx_ex_put(x, r->y, r->x + 1, r->w - 1, MBX_ROLE_NORMAL,
               x->cmp.on ? "compared (v ends, = ratios)" : "series");
    int rows = r->h - 1 - v->any_refined - v->any_shift - v->any_plain - v->any_open, line = 0;
    for (int s = 0; s < v->nser && line < rows; s++) {
        if (!v->draw[s])
            continue;
        if (line == rows - 1 && !x->cmp.on) {
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
            if (EX_HAS_VALUE(p) && mbx_ex_series_has(&v->ser[s], p) && isfinite(y) &&
                mbx_ex_point_x(p, x->xdim) > bx)
                bx = mbx_ex_point_x(p, x->xdim), by = y;
        }
        if (isfinite(by))
            mbx_axis_format(by, x->bandwidth ? MBX_AXIS_MBPS : MBX_AXIS_SECONDS, x->utf8, lv,
                            sizeof lv);
        char tag[4] = "";
        if (x->cmp.on)
            snprintf(tag, sizeof tag, "%s ", s == v->cmp_idx[0] ? "A" : "B");
        int nw = r->w - 14 - (int)strlen(tag); /* marker, name, a value of up to 10 */
        nw = nw < 6 ? 6 : nw > 24 ? 24 : nw;
        char text[128];
        snprintf(text, sizeof text, "%c %s%-*.*s %s", MBX_EX_MARKER(s), tag, nw, nw, v->names[s],
                 lv);
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

/* The bar of p at row y, barw cells from column x0: filled to its error
 * over twice the target (or its passes over R with a fixed count), the
 * target marked in the middle. */
static void conv_bar(explorer *x, const mbx_ex_point *p, double eps, size_t minp, int y, int x0,
                     int barw)
{
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
        static const char *const words[MBX_POINT_STATUS_COUNT] = {"ok", "UNSET", "UNREL", "SHIFT",
                                                                  "INVAL"};
        const char *st = (int)p->r.status < MBX_POINT_STATUS_COUNT ? words[p->r.status] : "?";
        /* The word, and the number before it when both fit. */
        if (!wide || !isfinite(rel) || snprintf(mark, len, "%.2f%% %s", 100 * rel, st) > room)
            snprintf(mark, len, "%s", st);
        return p->r.status == MBX_POINT_SETTLED ? MBX_ROLE_OK
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
void mbx_ex_draw_conv(explorer *x, const mbx_rect *r)
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
    size_t first, n = conv_list(x, list, lines, &first);
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
        conv_bar(x, p, eps, minp, y, r->x + 1 + labw, barw);
        char mark[24];
        int room = r->w - 2 - labw - barw;
        int role = conv_mark(p, minp, wide, room, mark, sizeof mark);
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
    if (x->cmp.on) {
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

void mbx_ex_draw_status(explorer *x, const mbx_rect *r)
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
        /* An overlap point: its percentage, when the line has room. */
        double pct = p->r.overlap ? mbx_overlap_pct(p->r.s.median, p->r.compute, p->r.plain) : NAN;
        size_t used = strlen(line);
        if (isfinite(pct) && (int)used + 15 <= r->w - 1)
            snprintf(line + used, sizeof line - used, ", overlap %.1f%%", pct);
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
