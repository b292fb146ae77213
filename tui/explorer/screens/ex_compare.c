/* Comparing two curves (SKaMPI's comparison pages: Send vs Ssend over
 * size, Bcast at 256 B vs 64 KiB over P): a chooser over the run view
 * picks A and B; the plot then shows only them, a strip under it their
 * ratio B/A (as `mpibex compare` and the report: B over A, below 1 B is
 * the faster in time) with the significance of each common point, and on
 * request the side column lists B/A, p and the verdict at every x both
 * curves were measured at.
 *
 * The scheduler interleaves the passes of every curve of a run, so A and B
 * saw the same machine states: the comparison is fair by construction. Its
 * test is a Wilcoxon rank-sum test (Hunold & Carpen-Amarie) of the two
 * points' pass medians: passes are time-separated, so they are the units
 * that are close to independent; raw observations of one burst are not
 * (they would find "differences" that are the machine's level at the
 * time). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/axis.h"
#include "ex_keys.h"
#include "explorer.h"
#include "mbx/bench.h"

static const char markers[MBX_NSERIES] = {'o', '+', 'x', '*', '#', '@', '%', '&'};

/* The curves that can be drawn along the current x: some point with an x
 * (barrier has no message size, so no curve over size). */
static int choices(const explorer *x, mbx_ex_series *s)
{
    int n = mbx_ex_series_list(x, x->xdim, s, EX_MAX_SERIES), k = 0;
    for (int i = 0; i < n; i++) {
        int any = 0;
        for (size_t j = 0; j < x->npts && !any; j++) {
            mbx_ex_series t;
            any = mbx_ex_point_has_x(&x->pts[j], x->xdim) &&
                  mbx_ex_series_of(&x->pts[j], x->xdim, &t) && mbx_ex_series_eq(&t, &s[i]);
        }
        if (any)
            s[k++] = s[i];
    }
    return k;
}

int mbx_ex_compare_count(const explorer *x)
{
    static mbx_ex_series s[EX_MAX_SERIES];
    return choices(x, s);
}

int mbx_ex_compare_key(explorer *x, int key)
{
    static mbx_ex_series s[EX_MAX_SERIES];
    int n = choices(x, s);
    switch (mbx_ex_key_action_in(key, S_CHOOSE)) {
    case EXA_UP: x->cmp.cursor = x->cmp.cursor > 0 ? x->cmp.cursor - 1 : 0; break;
    case EXA_DOWN: x->cmp.cursor = x->cmp.cursor + 1 < n ? x->cmp.cursor + 1 : x->cmp.cursor; break;
    case EXA_BACK: x->cmp.choosing = 0; break;
    case EXA_HELP: mbx_ex_overlay_open(x, EX_OVERLAY_HELP); break;
    case EXA_CHOOSE:
        if (x->cmp.cursor >= n)
            return 0;
        if (x->cmp.choosing == 1) {
            x->cmp.s[0] = s[x->cmp.cursor];
            /* The cursor stays on A: the user moves it to B (a Down
             * from habit then picks the curve below A, not the one after). */
            x->cmp.choosing = 2;
        } else if (mbx_ex_series_eq(&s[x->cmp.cursor], &x->cmp.s[0])) {
            mbx_ex_set_msg(x, MBX_ROLE_WARNING, "compare: B must be another curve than A");
        } else {
            x->cmp.s[1] = s[x->cmp.cursor];
            x->cmp.choosing = 0;
            x->cmp.on = 1;
            mbx_ex_set_msg(x, MBX_ROLE_DIM,
                           "comparing A with B: = lists B/A at each common x, v ends");
        }
        break;
    default: return 0;
    }
    return 1;
}

int mbx_ex_compare_mouse(explorer *x, const mbx_ex_mouse *m)
{
    static mbx_ex_series s[EX_MAX_SERIES];
    int n = choices(x, s), up = m->button == EX_MB_WHEEL_UP;
    const mbx_rect *l = &x->cmp.list;
    if (up || m->button == EX_MB_WHEEL_DOWN) {
        int c = x->cmp.cursor + (up ? -1 : 1);
        x->cmp.cursor = c < 0 ? 0 : c >= n ? (n ? n - 1 : 0) : c;
        return 1;
    }
    int k = x->cmp.top + m->y - l->y;
    if (m->button != EX_MB_LEFT || m->y < l->y || m->y >= l->y + l->h || m->x < l->x ||
        m->x >= l->x + l->w || k >= n)
        return 0;
    x->cmp.cursor = k;
    return mbx_ex_compare_key(x, '\n');
}

void mbx_ex_draw_chooser(explorer *x, const mbx_rect *plot)
{
    static mbx_ex_series s[EX_MAX_SERIES];
    static char names[EX_MAX_SERIES][48];
    int n = choices(x, s);
    mbx_ex_series_names(x, s, n, names);
    int w = plot->w - 6 < 52 ? plot->w - 6 : 52, h = n + 2;
    if (h > plot->h - 2)
        h = plot->h - 2;
    if (w < 20 || h < 3)
        return;
    int y0 = plot->y + 1, x0 = plot->x + (plot->w - w) / 2, list_h = h - 2;
    if (x->cmp.cursor >= n)
        x->cmp.cursor = n ? n - 1 : 0;
    if (x->cmp.cursor < x->cmp.top)
        x->cmp.top = x->cmp.cursor;
    if (x->cmp.cursor >= x->cmp.top + list_h)
        x->cmp.top = x->cmp.cursor - list_h + 1;
    /* A frame: the plot behind does not show through. */
    mbx_ex_draw_box(x, &(mbx_rect){.y = y0, .x = x0, .h = h, .w = w}, MBX_ROLE_AXIS);
    x->cmp.list = (mbx_rect){.y = y0 + 1, .x = x0 + 1, .h = list_h, .w = w - 2};
    char head[96];
    snprintf(head, sizeof head, " compare: choose curve %s (Enter; Esc closes)",
             x->cmp.choosing == 1 ? "A" : "B");
    mbx_ex_put_cut(x, y0, x0 + 1, w - 2, MBX_ROLE_TITLE, head);
    for (int i = 0; i < list_h && x->cmp.top + i < n; i++) {
        int k = x->cmp.top + i, y = y0 + 1 + i, cur = k == x->cmp.cursor;
        int isa = x->cmp.choosing == 2 && mbx_ex_series_eq(&s[k], &x->cmp.s[0]);
        char line[96];
        snprintf(line, sizeof line, "%s %c %s", isa ? "A" : " ", markers[k % MBX_NSERIES],
                 names[k]);
        if (cur)
            mbx_ex_fill(x, y, x0 + 1, w - 2, MBX_ROLE_CURSOR);
        mbx_ex_put(x, y, x0 + 1, w - 2, cur ? MBX_ROLE_CURSOR : MBX_ROLE_SERIES1 + k % MBX_NSERIES,
                   line);
    }
    if (n > list_h) {
        char more[48];
        snprintf(more, sizeof more, " %d-%d of %d ", x->cmp.top + 1,
                 x->cmp.top + list_h < n ? x->cmp.top + list_h : n, n);
        mbx_ex_put(x, y0 + h - 1, x0 + w - (int)strlen(more) - 1, (int)strlen(more), MBX_ROLE_DIM,
                   more);
    }
}

int mbx_ex_compare_ratios(const explorer *x, double *xs, double *ratio, const mbx_ex_point **pa,
                          const mbx_ex_point **pb, int max)
{
    static const mbx_ex_point *a[EX_MAX_POINTS], *b[EX_MAX_POINTS];
    if (!x->cmp.on)
        return 0;
    size_t na = mbx_ex_series_points(x, &x->cmp.s[0], a, EX_MAX_POINTS);
    size_t nb = mbx_ex_series_points(x, &x->cmp.s[1], b, EX_MAX_POINTS);
    int dim = x->cmp.s[0].dim, n = 0;
    /* Both in increasing x: walk them together. */
    for (size_t i = 0, j = 0; i < na && j < nb && n < max;) {
        double u = mbx_ex_point_x(a[i], dim), v = mbx_ex_point_x(b[j], dim);
        if (u < v) {
            i++;
        } else if (v < u) {
            j++;
        } else {
            double ya = mbx_ex_point_y(x, a[i]), yb = mbx_ex_point_y(x, b[j]);
            if (ya > 0 && yb > 0 && isfinite(ya) && isfinite(yb)) {
                xs[n] = u;
                ratio[n] = yb / ya;
                if (pa)
                    pa[n] = a[i];
                if (pb)
                    pb[n] = b[j];
                n++;
            }
            i++, j++;
        }
    }
    return n;
}

/* ---- significance: a Wilcoxon rank-sum test per common point ---- */

void mbx_ex_compare_forget(explorer *x)
{
    x->cmp.nsig = 0;
}

/* The machine level of each pass of p (the scheduler's, from the
 * monitor's probes so far), malloc'd; NULL when unknown. */
static int *pass_levels(const explorer *x, const mbx_ex_point *p)
{
    if (!x->sched || p->npm == 0 || p->sp >= mbx_sched_points(x->sched))
        return NULL;
    int *l = malloc(p->npm * sizeof *l);
    if (l && mbx_sched_pass_levels(x->sched, p->sp, l, p->npm) != p->npm) {
        free(l);
        l = NULL;
    }
    return l;
}

const mbx_cmp_point *mbx_ex_compare_test(explorer *x, const mbx_ex_point *a, const mbx_ex_point *b)
{
    for (size_t i = 0; i < x->cmp.nsig; i++) {
        const mbx_ex_sig *g = &x->cmp.sig[i];
        if (g->a == a && g->b == b && g->na == a->npm && g->nb == b->npm &&
            g->probes == x->sst.probes)
            return g->ok ? &g->cp : NULL;
    }
    if (x->cmp.nsig == x->cmp.capsig) {
        size_t cap = x->cmp.capsig ? 2 * x->cmp.capsig : 64;
        mbx_ex_sig *n = realloc(x->cmp.sig, cap * sizeof *n);
        if (!n)
            return NULL;
        x->cmp.sig = n;
        x->cmp.capsig = cap;
    }
    mbx_ex_sig *g = &x->cmp.sig[x->cmp.nsig++];
    memset(g, 0, sizeof *g);
    g->a = a, g->b = b, g->na = a->npm, g->nb = b->npm, g->probes = x->sst.probes;
    g->strata = 0;
    /* Only the passes of the span of run time both points were measured
     * in: a point that went on after its twin had finished (or started
     * later, as refined points do) saw machine states its twin never did,
     * and a rank-sum over those finds the drift, not a difference. */
    double *t = malloc((a->npm + b->npm) * sizeof *t), *v = malloc((a->npm + b->npm) * sizeof *v);
    int *la = pass_levels(x, a), *lb = pass_levels(x, b);
    size_t na = 0, nb = 0;
    if (t && v && x->sched && mbx_sched_pass_times(x->sched, a->sp, t, a->npm) == a->npm &&
        mbx_sched_pass_times(x->sched, b->sp, t + a->npm, b->npm) == b->npm && a->npm && b->npm) {
        const double *ta = t, *tb = t + a->npm;
        double slack = mbx_sched_pass_gap(x->sched), lo = fmax(ta[0], tb[0]) - slack,
               hi = fmin(ta[a->npm - 1], tb[b->npm - 1]) + slack;
        for (size_t k = 0; k < a->npm; k++)
            if (ta[k] >= lo && ta[k] <= hi) {
                if (la)
                    la[na] = la[k];
                v[na++] = a->pm[k];
            }
        for (size_t k = 0; k < b->npm; k++)
            if (tb[k] >= lo && tb[k] <= hi) {
                if (lb)
                    lb[nb] = lb[k];
                v[a->npm + nb++] = b->pm[k];
            }
        g->cut = a->npm - na + b->npm - nb;
    } else if (v) { /* no pass times: every pass */
        memcpy(v, a->pm, a->npm * sizeof *v);
        memcpy(v + a->npm, b->pm, b->npm * sizeof *v);
        na = a->npm, nb = b->npm;
    }
    /* Passes that straddle machine levels are compared level by level
     * (mbx_compare_samples_leveled, a rank-sum stratified by level): A and
     * B were interleaved, so both have passes at the levels the run saw. */
    g->ok = v && na >= 2 && nb >= 2 &&
            mbx_compare_samples_leveled(v, la, na, v + a->npm, lb, nb, EX_ALPHA, &g->cp,
                                        &g->strata) >= 0;
    g->ratio = g->ok ? mbx_compare_tested_ratio(v, la, na, v + a->npm, lb, nb) : NAN;
    free(la);
    free(lb);
    free(t);
    free(v);
    return g->ok ? &g->cp : NULL;
}

/* The test of a and b so far (NULL: none yet). */
static const mbx_ex_sig *sig_of(const explorer *x, const mbx_ex_point *a, const mbx_ex_point *b)
{
    for (size_t i = 0; i < x->cmp.nsig; i++)
        if (x->cmp.sig[i].a == a && x->cmp.sig[i].b == b)
            return &x->cmp.sig[i];
    return NULL;
}

double mbx_ex_compare_tested_ratio(explorer *x, const mbx_ex_point *a, const mbx_ex_point *b)
{
    const mbx_cmp_point *c = mbx_ex_compare_test(x, a, b);
    const mbx_ex_sig *g = c ? sig_of(x, a, b) : NULL;
    return g ? g->ratio : NAN;
}

/* The role of a verdict: A faster ok, A slower warning, else dim. */
static int verdict_role(char v)
{
    return v == '<' ? MBX_ROLE_OK : v == '>' ? MBX_ROLE_WARNING : MBX_ROLE_DIM;
}

void mbx_ex_compare_summary(explorer *x, char *buf, size_t len)
{
    static double xs[EX_MAX_POINTS / 8], ra[EX_MAX_POINTS / 8];
    static const mbx_ex_point *pa[EX_MAX_POINTS / 8], *pb[EX_MAX_POINTS / 8];
    int n = mbx_ex_compare_ratios(x, xs, ra, pa, pb, (int)(sizeof xs / sizeof *xs));
    size_t faster = 0, slower = 0, same = 0, untested = 0, within = 0, cut = 0;
    for (int i = 0; i < n; i++) {
        const mbx_cmp_point *c = mbx_ex_compare_test(x, pa[i], pb[i]);
        const mbx_ex_sig *g = sig_of(x, pa[i], pb[i]);
        within += c && g && g->strata > 0;
        cut += g ? g->cut : 0;
        if (!c)
            untested++;
        else if (c->verdict == '<')
            faster++;
        else if (c->verdict == '>')
            slower++;
        else
            same++;
    }
    if (n == 0) {
        snprintf(buf, len, "A vs B: no common x yet");
        return;
    }
    int k = snprintf(buf, len,
                     "interleaved; Wilcoxon %g%%, pass medians: A faster at %zu x, slower at %zu, "
                     "not distinguishable at %zu",
                     100 * EX_ALPHA, faster, slower, same);
    if (within && k > 0 && (size_t)k < len)
        k += snprintf(buf + k, len - (size_t)k, "; %zu by level", within);
    if (untested && k > 0 && (size_t)k < len)
        k += snprintf(buf + k, len - (size_t)k, " (%zu with under 2 passes in a common span)",
                      untested);
    if (cut && k > 0 && (size_t)k < len)
        snprintf(buf + k, len - (size_t)k, "; %zu off-span", cut);
}

/* "0.003", "<.001"; "-" when there is no test. */
static void p_text(const mbx_cmp_point *c, char *buf, size_t len)
{
    if (!c)
        snprintf(buf, len, "-");
    else if (c->w.p_two_sided < 0.001)
        snprintf(buf, len, "<.001");
    else
        snprintf(buf, len, "%.3f", c->w.p_two_sided);
}

/* Right-aligned in w columns (every glyph here is one column wide). */
static void put_right(explorer *x, int y, int x0, int w, int role, const char *s)
{
    int cols = 0;
    for (const char *p = s; *p; p++)
        cols += ((unsigned char)*p & 0xC0) != 0x80;
    mbx_ex_put(x, y, x0 + (cols < w ? w - cols : 0), w, role, s);
}

/* The side column's list: at each common x, B/A, the two-sided p with its
 * stars and the verdict; A and B themselves when the column is wide. */
void mbx_ex_draw_ratio_table(explorer *x, const mbx_rect *r)
{
    double xs[256], ra[256];
    const mbx_ex_point *pa[256], *pb[256];
    int n = mbx_ex_compare_ratios(x, xs, ra, pa, pb, 256), wide = r->w - 1 >= 39;
    mbx_ex_put(x, r->y, r->x + 1, r->w - 1, MBX_ROLE_NORMAL,
               !n     ? "B/A: no common x yet"
               : wide ? "B/A tested (HL of passes), p"
                      : "B/A tested (HL), p");
    int top = r->y + 1, x0 = r->x + 1;
    /* Columns: x, [A, B,] B/A, p, stars, verdict. */
    int wx = 6, wv = wide ? 7 : 0, wr = 5, wp = 5, ws = 3; /* 39 columns wide, 23 narrow */
    int cx = x0, ca = cx + wx + 1, cb = ca + wv + 1, cr = wide ? cb + wv + 1 : cx + wx + 1;
    int cp = cr + wr + 1, cs = cp + wp, cv = cs + ws + 1;
    if (n) {
        put_right(x, top, cx, wx, MBX_ROLE_AXIS, "x");
        if (wide) {
            put_right(x, top, ca, wv, MBX_ROLE_AXIS, "A");
            put_right(x, top, cb, wv, MBX_ROLE_AXIS, "B");
        }
        put_right(x, top, cr, wr, MBX_ROLE_AXIS, "B/A");
        put_right(x, top, cp, wp, MBX_ROLE_AXIS, "p");
        mbx_ex_put(x, top, cv, 1, MBX_ROLE_AXIS, "v");
        top++;
    }
    /* The key of the verdicts closes the list when there is room. */
    int rows = r->y + r->h - top - (n && r->h >= 8 ? 1 : 0);
    for (int i = 0; i < n && i < rows; i++) {
        char xv[16], va[16] = "", vb[16] = "", rv[16], pv[16], line[32];
        if (x->xdim == EX_DIM_SIZE)
            mbx_axis_format(xs[i], MBX_AXIS_BYTES, 0, xv, sizeof xv);
        else if (x->xdim == EX_DIM_PROCS)
            snprintf(xv, sizeof xv, "P=%.0f", xs[i]);
        else
            snprintf(xv, sizeof xv, "%c=%.0f", mbx_ex_param_axis_name(x)[0], xs[i]);
        if (i == rows - 1 && n > rows) {
            snprintf(line, sizeof line, "  +%d more", n - i);
            mbx_ex_put(x, top + i, x0, r->w - 1, MBX_ROLE_DIM, line);
            break;
        }
        const mbx_cmp_point *c = mbx_ex_compare_test(x, pa[i], pb[i]);
        /* The ratio beside the verdict is the one its test weighed (the
         * passes of the common span, level by level): the curves' medians
         * (A, B) are of all passes and may point the other way. */
        double tr = mbx_ex_compare_tested_ratio(x, pa[i], pb[i]);
        /* Within 5 % of equal and not significant is dimmed: the eye goes
         * to real differences. */
        int same = c ? c->verdict == '=' : fabs(log(ra[i])) < log(1.05);
        int role = same ? MBX_ROLE_DIM : MBX_ROLE_NORMAL, y = top + i;
        put_right(x, y, cx, wx, role, xv);
        if (wide) {
            mbx_axis_kind k = x->bandwidth ? MBX_AXIS_MBPS : MBX_AXIS_SECONDS;
            mbx_axis_format(mbx_ex_point_y(x, pa[i]), k, x->utf8, va, sizeof va);
            mbx_axis_format(mbx_ex_point_y(x, pb[i]), k, x->utf8, vb, sizeof vb);
            put_right(x, y, ca, wv, role, va);
            put_right(x, y, cb, wv, role, vb);
        }
        if (isfinite(tr))
            snprintf(rv, sizeof rv, tr < 10 ? "%.3f" : tr < 100 ? "%.1f" : "%.0f", tr);
        else
            snprintf(rv, sizeof rv, "-");
        put_right(x, y, cr, wr, role, rv);
        p_text(c, pv, sizeof pv);
        put_right(x, y, cp, wp, role, pv);
        if (c) {
            mbx_ex_put(x, y, cs, ws, verdict_role(c->verdict), c->stars);
            char v[2] = {c->verdict, '\0'};
            mbx_ex_put(x, y, cv, 1, verdict_role(c->verdict), v);
        }
    }
    if (n && r->h >= 8)
        mbx_ex_put(x, r->y + r->h - 1, x0, r->w - 1, MBX_ROLE_DIM,
                   r->w - 1 >= 34 ? "< A faster, > A slower, = the same"
                                  : "< A faster > slower = same");
}

/* Dot row of ratio v on a log axis from R (row 0) to 1/R (row dh - 1). */
static int ratio_row(double v, double R, int dh)
{
    return (int)lround((log(R) - log(v)) / (2 * log(R)) * (dh - 1));
}

/* The ratio strip: B/A on a log axis centred on 1, with the 1.0 line. */
void mbx_ex_draw_ratio_strip(explorer *x, const mbx_ex_xaxis *xa, int py, int px, int pw, int sh)
{
    double xs[EX_MAX_POINTS / 8], ra[EX_MAX_POINTS / 8];
    int n = mbx_ex_compare_ratios(x, xs, ra, NULL, NULL, (int)(sizeof xs / sizeof *xs));
    double m = 0;
    for (int i = 0; i < n; i++)
        m = fmax(m, fabs(log(ra[i])));
    /* Spans whose reciprocals read well too (0.8, 0.5, 0.25, 0.1). */
    static const double spans[] = {1.1, 1.25, 1.5, 2, 4, 10, 100, 1000, 1e6};
    double R = spans[sizeof spans / sizeof *spans - 1];
    for (size_t i = 0; i < sizeof spans / sizeof *spans; i++)
        if (log(spans[i]) >= m * 1.05) {
            R = spans[i];
            break;
        }
    mbx_canvas *cv = mbx_canvas_new(pw, sh, x->glyphs);
    if (!cv)
        return;
    int dw = mbx_canvas_dot_width(cv), dh = mbx_canvas_dot_height(cv);
    int mid = ratio_row(1.0, R, dh);
    for (int d = 0; d < dw; d += 2)
        mbx_canvas_set_dot(cv, d, mid, EX_OWNER_GRID);
    int lx = -1, ly = -1;
    for (int i = 0; i < n; i++) {
        int dx = mbx_ex_xaxis_pixel(xa, xs[i], dw), dy = ratio_row(ra[i], R, dh);
        if (lx >= 0)
            mbx_canvas_line(cv, lx, ly, dx, dy, EX_OWNER_RATIO);
        lx = dx, ly = dy;
    }
    for (int i = 0; i < n; i++)
        mbx_canvas_mark(cv, mbx_ex_xaxis_pixel(xa, xs[i], dw), ratio_row(ra[i], R, dh), '=',
                        EX_OWNER_RATIO);
    mbx_ex_draw_canvas(x, cv, py, px);
    mbx_canvas_free(cv);
    char lab[3][16];
    snprintf(lab[0], sizeof lab[0], "%*.3g", EX_YLABEL_W - 1, R);
    snprintf(lab[1], sizeof lab[1], "%*s", EX_YLABEL_W - 1, "1.0");
    snprintf(lab[2], sizeof lab[2], "%*.3g", EX_YLABEL_W - 1, 1.0 / R);
    int rows[3] = {0, mid * sh / dh, sh - 1};
    for (int i = 0; i < 3; i++)
        mbx_ex_put(x, py + rows[i], px - EX_YLABEL_W - 1, EX_YLABEL_W - 1, MBX_ROLE_AXIS, lab[i]);
    mbx_ex_frame_left(x, py, px, sh);
}

/* The row under the strip: the significance of each common point, its
 * stars (two-sided p < 0.05, 0.01, 0.001) coloured by the verdict, a dot
 * where A and B are not distinguishable. */
void mbx_ex_draw_sig_row(explorer *x, const mbx_ex_xaxis *xa, int y, int px, int pw)
{
    static double xs[EX_MAX_POINTS / 8], ra[EX_MAX_POINTS / 8];
    static const mbx_ex_point *pa[EX_MAX_POINTS / 8], *pb[EX_MAX_POINTS / 8];
    int n = mbx_ex_compare_ratios(x, xs, ra, pa, pb, (int)(sizeof xs / sizeof *xs));
    char lab[16];
    snprintf(lab, sizeof lab, "%*s", EX_YLABEL_W - 1, "signif");
    mbx_ex_put(x, y, px - EX_YLABEL_W - 1, EX_YLABEL_W - 1, MBX_ROLE_AXIS, lab);
    mbx_ex_frame_left(x, y, px, 1);
    static unsigned char used[1024]; /* columns taken */
    if (pw > (int)sizeof used)
        pw = (int)sizeof used;
    memset(used, 0, sizeof used);
    /* Strongest first, so a crowded row keeps the stars that matter. */
    for (int pass = 3; pass >= 0; pass--) {
        for (int i = 0; i < n; i++) {
            const mbx_cmp_point *c = mbx_ex_compare_test(x, pa[i], pb[i]);
            int len = c ? (int)strlen(c->stars) : 0;
            if (!c || len != pass)
                continue;
            const char *s = len ? c->stars : x->utf8 ? "\u00b7" : ".";
            int w = len ? len : 1, col = mbx_ex_xaxis_pixel(xa, xs[i], pw) - (w - 1) / 2;
            if (col < 0)
                col = 0;
            if (col + w > pw)
                col = pw - w;
            /* and a blank column on each side, so marks stay apart */
            int free_here = col >= 0;
            for (int k = col - 1; free_here && k <= col + w; k++)
                free_here = k < 0 || k >= pw || !used[k];
            if (!free_here)
                continue;
            for (int k = 0; k < w; k++)
                used[col + k] = 1;
            mbx_ex_put(x, y, px + col, w, verdict_role(c->verdict), s);
        }
    }
}
