/* The run view's point inspector: a cursor on a curve (i, the arrows or
 * a click) and, in the side column, what the run knows of the point under
 * it: its value and 95 % interval, observations and passes, its status and
 * why, its pass medians over time with the machine level each pass ran at,
 * and a histogram of its observations. The passes and observations are
 * the scheduler's (mbx_sched_pass_medians, mbx_sched_pass_levels,
 * mbx_sched_obs), or the point's own copy once it is final. */
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

/* ---- the cursor ---- */

static int view_index(const mbx_ex_view *v, const mbx_ex_series *s)
{
    for (int k = 0; k < v->nser; k++)
        if (v->draw[k] && !v->nox[k] && mbx_ex_series_eq(&v->ser[k], s))
            return k;
    return -1;
}

/* The points of curve s in increasing x; their count. */
static size_t curve_points(explorer *x, const mbx_ex_view *v, int s, const mbx_ex_point **pts)
{
    return mbx_ex_series_points(x, &v->ser[s], pts, EX_MAX_POINTS);
}

/* The point of pts nearest xv (on a log scale where x > 0); -1 if none. */
static long nearest(explorer *x, const mbx_ex_point **pts, size_t n, double xv)
{
    long best = -1;
    double bd = INFINITY;
    for (size_t i = 0; i < n; i++) {
        double px = mbx_ex_point_x(pts[i], x->xdim);
        double d = px > 0 && xv > 0 ? fabs(log(px / xv)) : fabs(px - xv);
        if (d < bd)
            bd = d, best = (long)i;
    }
    return best;
}

const mbx_ex_point *mbx_ex_insp_point(explorer *x, const mbx_ex_view *v, int *s)
{
    static const mbx_ex_point *pts[EX_MAX_POINTS];
    if (!x->insp.on)
        return NULL;
    *s = view_index(v, &x->insp.ser);
    if (*s < 0)
        return NULL;
    size_t n = curve_points(x, v, *s, pts);
    long i = nearest(x, pts, n, x->insp.xv);
    return i >= 0 ? pts[i] : NULL;
}

static void put_cursor(explorer *x, const mbx_ex_view *v, int s, const mbx_ex_point *p)
{
    x->insp.on = 1;
    x->insp.ser = v->ser[s];
    x->insp.xv = mbx_ex_point_x(p, x->xdim);
}

/* Open on the point measured last when it is drawn, else on the first
 * drawn curve's last point. */
static void insp_open(explorer *x, const mbx_ex_view *v)
{
    static const mbx_ex_point *pts[EX_MAX_POINTS];
    if (x->cur < x->npts)
        for (int s = 0; s < v->nser; s++)
            if (v->draw[s] && !v->nox[s] && mbx_ex_series_has(&v->ser[s], &x->pts[x->cur]) &&
                EX_HAS_VALUE(&x->pts[x->cur]) && mbx_ex_point_has_x(&x->pts[x->cur], x->xdim)) {
                put_cursor(x, v, s, &x->pts[x->cur]);
                return;
            }
    for (int s = 0; s < v->nser; s++) {
        size_t n = v->draw[s] && !v->nox[s] ? curve_points(x, v, s, pts) : 0;
        if (n) {
            put_cursor(x, v, s, pts[n - 1]);
            return;
        }
    }
    mbx_ex_set_msg(x, MBX_ROLE_WARNING, "inspect: no point on the plot yet");
}

/* Left/Right: along the curve; Up/Down: the same x (or the nearest) on
 * the curve above or below in the legend. */
static void insp_move(explorer *x, const mbx_ex_view *v, int dx, int ds)
{
    static const mbx_ex_point *pts[EX_MAX_POINTS];
    int s = view_index(v, &x->insp.ser);
    if (s < 0) {
        insp_open(x, v);
        return;
    }
    for (int k = 0; ds && k < v->nser; k++) {
        int t = ((s + ds * (k + 1)) % v->nser + v->nser) % v->nser;
        if (v->draw[t] && !v->nox[t] && curve_points(x, v, t, pts)) {
            s = t;
            break;
        }
    }
    size_t n = curve_points(x, v, s, pts);
    long i = nearest(x, pts, n, x->insp.xv);
    if (i < 0)
        return;
    i += dx;
    i = i < 0 ? 0 : i >= (long)n ? (long)n - 1 : i;
    put_cursor(x, v, s, pts[i]);
}

int mbx_ex_insp_key(explorer *x, int key)
{
    static mbx_ex_view v; /* large */
    mbx_run_layout l;
    mbx_ex_action a = mbx_ex_key_action(key, EX_RUN);
    if (a == EXA_BACK && x->insp.on) {
        x->insp.on = 0;
        return 1;
    }
    if (a != EXA_INSPECT && a != EXA_LEFT && a != EXA_RIGHT && a != EXA_UP && a != EXA_DOWN)
        return 0;
    mbx_ex_run_view(x, &v, &l);
    if (a == EXA_INSPECT && x->insp.on)
        x->insp.on = 0;
    else if (!x->insp.on)
        insp_open(x, &v); /* an arrow opens it too, on the point measured last */
    else
        insp_move(x, &v,
                  a == EXA_LEFT    ? -1
                  : a == EXA_RIGHT ? 1
                                   : 0,
                  a == EXA_UP     ? -1
                  : a == EXA_DOWN ? 1
                                  : 0);
    return 1;
}

int mbx_ex_run_cursor_at(explorer *x, int row, int col)
{
    static mbx_ex_view v; /* large */
    static const mbx_ex_point *pts[EX_MAX_POINTS];
    mbx_run_layout l;
    if (x->screen != EX_RUN || x->cmp.choosing || !mbx_ex_run_view(x, &v, &l))
        return 0;
    int across = v.dw / v.pw, down = v.dh / v.ph, bs = -1, bd = 1 << 30;
    const mbx_ex_point *best = NULL;
    for (int s = 0; s < v.nser; s++) {
        size_t n = v.draw[s] && !v.nox[s] ? curve_points(x, &v, s, pts) : 0;
        for (size_t i = 0; i < n; i++) {
            int dx, dy;
            if (!mbx_ex_view_dot(x, &v, pts[i], &dx, &dy))
                continue;
            int dc = v.px + dx / across - col, dr = v.py + dy / down - row;
            /* within two columns and one row; a row is about two columns high */
            int d = dc * dc + 4 * dr * dr;
            if (abs(dc) <= 2 && abs(dr) <= 1 && d < bd)
                bd = d, bs = s, best = pts[i];
        }
    }
    if (!best)
        return 0;
    put_cursor(x, &v, bs, best);
    return 1;
}

/* ---- the panel ---- */

static int cmp_double(const void *a, const void *b)
{
    double u = *(const double *)a, w = *(const double *)b;
    return (u > w) - (u < w);
}

static const char *status_word(const mbx_ex_point *p)
{
    if (p->state == EX_DROPPED)
        return "dropped";
    if (p->state != EX_DONE)
        return "open";
    return mbx_point_status_name(p->r.status);
}

static int status_role(const mbx_ex_point *p)
{
    if (p->state != EX_DONE)
        return MBX_ROLE_DIM;
    return p->r.status == MBX_POINT_SETTLED || p->r.status == MBX_POINT_FIXED ? MBX_ROLE_OK
           : p->r.status == MBX_POINT_UNSETTLED || p->r.status == MBX_POINT_SHIFTED
               ? MBX_ROLE_WARNING
               : MBX_ROLE_ERROR;
}

/* Head, value, counts and status: four rows from y; returns the next. */
/* One percentile and its 95 % interval as the CSV has them (p90_us ...,
 * docs/csv-format.md): "P90 1.2µs 1.1µs..1.3µs", or "n<368" for an
 * interval that needs more observations. 0 (nothing written) for a row
 * without the percentile. */
#define TAIL_ROOM 6 /* rows kept below for the passes (2) and a histogram (4) */
static int tail_text(const explorer *x, const char *name, const mbx_quantile *q, size_t n,
                     char *out, size_t len)
{
    char v[16], lo[16], hi[16];
    if (n == 0 || q->need == 0 || !(isfinite(q->value) && q->value >= 0))
        return 0;
    mbx_axis_format(q->value, MBX_AXIS_SECONDS, x->utf8, v, sizeof v);
    if (isfinite(q->ci_lo) && isfinite(q->ci_hi)) {
        mbx_axis_format(q->ci_lo, MBX_AXIS_SECONDS, x->utf8, lo, sizeof lo);
        mbx_axis_format(q->ci_hi, MBX_AXIS_SECONDS, x->utf8, hi, sizeof hi);
        snprintf(out, len, "%s %s %s..%s", name, v, lo, hi);
    } else {
        snprintf(out, len, "%s %s n<%zu", name, v, q->need);
    }
    return 1;
}

static int panel_text(explorer *x, const mbx_rect *r, const mbx_ex_view *v, int s,
                      const mbx_ex_point *p, int y)
{
    int x0 = r->x + 1, w = r->w - 1;
    char t[200], sz[24], a[16], b[16], c[16];
    const mbx_bench *bn = mbx_bench_get(p->bench_id);
    mbx_axis_format((double)p->bytes, MBX_AXIS_BYTES, 0, sz, sizeof sz);
    snprintf(t, sizeof t, "%c %s %sB P%d", v->style[s].marker, bn->name, sz, p->procs);
    if (bn->flags & MBX_BENCH_PARAM)
        snprintf(t + strlen(t), sizeof t - strlen(t), " %s=%lld", bn->param_name,
                 (long long)(p->param ? p->param : bn->param_default));
    mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_SERIES1 + s % MBX_NSERIES, t);
    /* The row's numbers as the results screen and the CSV have them
     * (mbx/rowview.h): a row that mixes levels it tells apart has no
     * interval and no err to show. */
    char na[32];
    int done = p->state == EX_DONE;
    const char *nat = done ? mbx_row_ci_na(p->r.status, p->r.levels, na, sizeof na) : NULL;
    mbx_axis_format(p->r.s.median, MBX_AXIS_SECONDS, x->utf8, a, sizeof a);
    mbx_axis_format(p->r.s.ci_lo, MBX_AXIS_SECONDS, x->utf8, b, sizeof b);
    mbx_axis_format(p->r.s.ci_hi, MBX_AXIS_SECONDS, x->utf8, c, sizeof c);
    if (nat)
        snprintf(t, sizeof t, "median %s CI95 %s", a, nat);
    else
        snprintf(t, sizeof t, "median %s CI95 %s..%s", a, b, c);
    mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_NORMAL, t);
    char err[16] = "-"; /* one pass: no between-pass error yet */
    double rel = done && p->r.passes && p->r.s.median > 0 ? p->r.s.stderr_ / p->r.s.median : p->rel;
    if (nat)
        snprintf(err, sizeof err, "n/a");
    else if (isfinite(rel))
        snprintf(err, sizeof err, "%.2f%%", 100 * rel);
    snprintf(t, sizeof t, "err %s  n %zu  %zu pass%s %.2fs", err, (size_t)p->r.s.n, p->passes,
             p->passes == 1 ? "" : "es", isfinite(p->r.pass_span) ? p->r.pass_span : 0.0);
    mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_NORMAL, t);
    int k = snprintf(t, sizeof t, "%s", status_word(p));
    if (p->state == EX_DONE && p->r.status_reason[0])
        k += snprintf(t + k, sizeof t - (size_t)k, ": %s", p->r.status_reason);
    if (p->state == EX_DONE && p->r.levels > 1)
        k += snprintf(t + k, sizeof t - (size_t)k, ", %zu levels", p->r.levels);
    if (p->origin != EX_GRID)
        k += snprintf(t + k, sizeof t - (size_t)k, ", refined");
    if (p->r.remeasured)
        snprintf(t + k, sizeof t - (size_t)k, ", measured again");
    mbx_ex_put_cut(x, y++, x0, w, status_role(p), t);
    /* Every interval names what it covers (docs/user-guide.md, "Every
     * interval says what it covers"). */
    if (done && y < r->y + r->h - 1) {
        char sc[96];
        if (p->r.ci_scope == MBX_SCOPE_PROFILE)
            snprintf(sc, sizeof sc, "scope profile: this launch + launch spread");
        else if (p->r.profile_ratio > 0) /* left launch-scoped: mbx/profile.h */
            snprintf(sc, sizeof sc, "scope launch: %.2fx the profile's launches, outside it",
                     p->r.profile_ratio);
        else
            snprintf(sc, sizeof sc, "scope launch: this job's passes only");
        mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_DIM, sc);
    }
    /* A flagged point says what to do, in the batch table's words. */
    const char *advice = done ? mbx_row_advice(p->r.status, p->r.status_reason) : NULL;
    if (advice && y < r->y + r->h - 1)
        mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_DIM, advice);
    /* The tail of this job's observations (tail_scope), once final, where
     * the passes and a histogram of 3 rows still fit below (the histogram
     * shows the tail too, on a small screen). */
    if (done && r->y + r->h - y >= 2 + TAIL_ROOM &&
        tail_text(x, "P90", &p->r.s.p90, p->r.s.n, t, 100) +
                tail_text(x, "P99", &p->r.s.p99, p->r.s.n, t + 100, sizeof t - 100) ==
            2) {
        mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_NORMAL, t);
        mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_NORMAL, t + 100);
    }
    return y;
}

static const char *const blocks[8] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                      "\u2585", "\u2586", "\u2587", "\u2588"};
static const char ascii_steps[] = "_.-~=+*#";

/* Level g (0..7) of a sparkline or histogram cell. */
static void step_glyph(const explorer *x, int g, char *out)
{
    g = g < 0 ? 0 : g > 7 ? 7 : g;
    if (x->utf8 && x->glyphs != MBX_GLYPHS_ASCII)
        snprintf(out, 8, "%s", blocks[g]);
    else
        snprintf(out, 8, "%c", ascii_steps[g]);
}

/* The pass medians over time, one cell a pass (the last ones when more
 * than fit), and under them the machine level of each pass (lv, nl of
 * them; NULL: no levels): two rows. */
int mbx_ex_draw_passes(explorer *x, const mbx_rect *r, const double *pm, size_t n, const int *lv,
                       size_t nl, int y)
{
    int x0 = r->x + 1, lw = 7, room = r->w - 1 - lw;
    if (room < 4 || !pm || !n)
        return y;
    size_t first = n > (size_t)room ? n - (size_t)room : 0;
    double lo = INFINITY, hi = 0;
    for (size_t i = first; i < n; i++)
        lo = fmin(lo, pm[i]), hi = fmax(hi, pm[i]);
    mbx_ex_put(x, y, x0, lw, MBX_ROLE_DIM, "passes");
    mbx_ex_put(x, y + 1, x0, lw, MBX_ROLE_DIM, "level");
    for (size_t i = first; i < n; i++) {
        char g[8], d[4] = "-";
        step_glyph(x, hi > lo ? (int)lround((pm[i] - lo) / (hi - lo) * 7) : 3, g);
        int level = i < nl ? lv[i] : MBX_PASSES_NO_LEVEL;
        if (level != MBX_PASSES_NO_LEVEL && level >= 0)
            snprintf(d, sizeof d, "%d", level % 10);
        /* a pass at another level than the first is the warning colour */
        int role = i < nl && nl && lv[i] != lv[0] ? MBX_ROLE_WARNING : MBX_ROLE_NORMAL;
        mbx_ex_put(x, y, x0 + lw + (int)(i - first), 1, role, g);
        mbx_ex_put(x, y + 1, x0 + lw + (int)(i - first), 1, role, d);
    }
    char span[40], a[16], b[16];
    mbx_axis_format(lo, MBX_AXIS_SECONDS, x->utf8, a, sizeof a);
    mbx_axis_format(hi, MBX_AXIS_SECONDS, x->utf8, b, sizeof b);
    snprintf(span, sizeof span, " %s..%s", a, b);
    int used = lw + (int)(n - first);
    if (used + (int)strlen(span) <= r->w - 1)
        mbx_ex_put(x, y, x0 + used, r->w - 1 - used, MBX_ROLE_DIM, span);
    return y + 2;
}

static int panel_passes(explorer *x, const mbx_rect *r, const mbx_ex_point *p, int y)
{
    size_t n = p->npm;
    if (!p->pm || !n)
        return y;
    int *lv = malloc(n * sizeof *lv);
    size_t nl = lv && x->sched && p->sp < mbx_sched_points(x->sched)
                    ? mbx_sched_pass_levels(x->sched, p->sp, lv, n)
                    : 0;
    y = mbx_ex_draw_passes(x, r, p->pm, n, lv, nl, y);
    free(lv);
    return y;
}

/* The observations: the point's own (final) or the scheduler's so far. */
static const double *point_obs(const explorer *x, const mbx_ex_point *p, size_t *n)
{
    if (p->obs && p->nobs) {
        *n = p->nobs;
        return p->obs;
    }
    *n = 0;
    if (!x->sched || p->sp >= mbx_sched_points(x->sched))
        return NULL;
    return mbx_sched_obs(x->sched, p->sp, n);
}

/* A histogram of the observations between their 1st and 99th percentile
 * (those outside go to the end bins) in h rows of bars, one a column,
 * and the range under it. */
void mbx_ex_draw_hist(explorer *x, const mbx_rect *r, const double *o, size_t n, int y, int h)
{
    int x0 = r->x + 1, w = r->w - 2;
    if (h < 2 || w < 8 || !o || n < 2)
        return;
    double *v = malloc(n * sizeof *v);
    int *cnt = calloc((size_t)w, sizeof *cnt);
    if (!v || !cnt) {
        free(v);
        free(cnt);
        return;
    }
    memcpy(v, o, n * sizeof *v);
    qsort(v, n, sizeof *v, cmp_double);
    double lo = v[n / 100], hi = v[n - 1 - n / 100];
    int most = 0, rows = h - 1;
    for (size_t i = 0; i < n; i++) {
        int b = hi > lo ? (int)((v[i] - lo) / (hi - lo) * w) : w / 2;
        b = b < 0 ? 0 : b >= w ? w - 1 : b;
        if (++cnt[b] > most)
            most = cnt[b];
    }
    int mb = hi > lo ? (int)((v[n / 2] - lo) / (hi - lo) * w) : w / 2;
    for (int c = 0; c < w; c++) {
        int eighths = most ? (int)lround((double)cnt[c] / most * rows * 8) : 0;
        if (cnt[c] && eighths == 0)
            eighths = 1; /* a bin with anything in it shows */
        for (int row = 0; row < rows; row++) {
            int e = eighths - (rows - 1 - row) * 8;
            if (e <= 0)
                continue;
            char g[8];
            step_glyph(x, e >= 8 ? 7 : e - 1, g);
            mbx_ex_put(x, y + row, x0 + c, 1, c == mb ? MBX_ROLE_SELECTED : MBX_ROLE_NORMAL, g);
        }
    }
    char a[16], b[16], t[80];
    mbx_axis_format(lo, MBX_AXIS_SECONDS, x->utf8, a, sizeof a);
    mbx_axis_format(hi, MBX_AXIS_SECONDS, x->utf8, b, sizeof b);
    snprintf(t, sizeof t, "%s  %zu obs, 98%%  %s", a, n, b);
    if ((int)strlen(t) > w)
        snprintf(t, sizeof t, "%s %zu obs %s", a, n, b);
    mbx_ex_put_cut(x, y + rows, x0, w, MBX_ROLE_DIM, t);
    free(v);
    free(cnt);
}

static void panel_hist(explorer *x, const mbx_rect *r, const mbx_ex_point *p, int y, int h)
{
    size_t n = 0;
    const double *o = point_obs(x, p, &n);
    mbx_ex_draw_hist(x, r, o, n, y, h);
}

void mbx_ex_draw_inspector(explorer *x, const mbx_rect *r, const mbx_ex_view *v)
{
    int s = -1;
    const mbx_ex_point *p = mbx_ex_insp_point(x, v, &s);
    mbx_ex_put(x, r->y, r->x + 1, r->w - 1, MBX_ROLE_NORMAL,
               r->w >= 34 ? "inspector (arrows move, i/Esc close)" : "inspector (i/Esc close)");
    if (r->h < 5)
        return;
    if (!p) {
        mbx_ex_put(x, r->y + 1, r->x + 1, r->w - 1, MBX_ROLE_DIM, "no point here: arrows pick one");
        return;
    }
    int y = panel_text(x, r, v, s, p, r->y + 1), end = r->y + r->h;
    if (end - y >= 2)
        y = panel_passes(x, r, p, y);
    if (end - y >= 3) /* a histogram of up to 6 rows of bars */
        panel_hist(x, r, p, y, end - y > 7 ? 7 : end - y);
}
