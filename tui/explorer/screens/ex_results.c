/* The results table: it scrolls (down, and sideways past the benchmark
 * and its size, which stay), sorts, and takes clicks and the wheel. The
 * export and the report are ex_export.c's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/axis.h"
#include "ex_keys.h"
#include "explorer.h"
#include "mbx/levels.h"
#include "mbx/results_sort.h"
#include "screens/screen.h"

/* The relative error of a row: between passes (the scheduler's rows),
 * else the stop rule's. */
static double row_err(const mbx_result *r)
{
    if (r->passes)
        return r->s.median > 0 ? r->s.stderr_ / r->s.median : NAN;
    return mbx_stop_progress(&r->stop, &r->s);
}

/* Status comes before the optional columns so it stays visible on 80-100
 * column terminals; a refined point's bytes carry the plot's ^ mark. The
 * plain companion's median (accurate benchmarks; an overlap benchmark's
 * pure communication time), the overlap percentage (overlap.*: OSU's
 * formula, mbx_overlap_pct), root, parameter, refined,
 * again (measured a second time: the machine changed level), the monitor's
 * probe, invalid observations and events (observations 100x the median,
 * left out) appear when some point has them. */
enum {
    C_BENCH,
    C_BYTES,
    C_N,
    C_MEDIAN,
    C_CI,
    C_ERR,
    C_STATUS,
    C_PLAIN,
    C_OVERLAP,
    C_PROCS,
    C_RANKS,
    C_ROOT,
    C_PARAM,
    C_REFINED,
    C_AGAIN,
    C_PROBE,
    C_INVALID,
    C_TMEAN,
    C_BW,
    C_EVENTS,
    C_COUNT
};
static const char *const col_names[C_COUNT] = {
    "benchmark", "bytes",    "n",       "median", "ci95", "err",   "status",
    "plain",     "overlap%", "procs",   "ranks",  "root", "param", "refined",
    "again",     "probe_us", "invalid", "tmean",  "MB/s", "events"};
static const int col_w[C_COUNT] = {19, 6, 5, 8, 16, 6, 10, 8, 8, 5, 7, 4, 8, 7, 5, 9, 7, 8, 7, 6};

static const explorer *sort_ctx;

/* Whether column c applies to the finished points of the run. */
static int applies(const explorer *x, int c)
{
    if (c != C_ROOT && c != C_PARAM && c != C_REFINED && c != C_AGAIN && c != C_PROBE &&
        c != C_INVALID && c != C_PLAIN && c != C_OVERLAP && c != C_EVENTS)
        return 1;
    for (size_t i = 0; i < x->npts; i++) {
        const mbx_result *r = &x->pts[i].r;
        if (x->pts[i].state != EX_DONE)
            continue;
        if ((c == C_ROOT && r->root >= 0) || (c == C_PARAM && r->param_name) ||
            (c == C_REFINED && r->refined) || (c == C_AGAIN && r->remeasured) ||
            (c == C_PROBE && isfinite(r->probe)) || (c == C_INVALID && r->invalid) ||
            (c == C_PLAIN && isfinite(r->plain)) || (c == C_OVERLAP && r->overlap) ||
            (c == C_EVENTS && r->events))
            return 1;
    }
    return 0;
}

/* The parameter column is named after the parameter ("pieces"). */
static const char *col_name(const explorer *x, int c)
{
    if (c == C_PARAM)
        for (size_t i = 0; i < x->npts; i++)
            if (x->pts[i].state == EX_DONE && x->pts[i].r.param_name)
                return x->pts[i].r.param_name;
    return col_names[c];
}

static double sort_key(const mbx_ex_point *p, int col)
{
    switch (col) {
    case C_PROCS: return p->procs;
    case C_BYTES: return (double)p->bytes;
    case C_N: return (double)p->r.s.n;
    case C_MEDIAN: return p->r.s.median;
    case C_PLAIN: return p->r.plain;
    case C_OVERLAP: return mbx_overlap_pct(p->r.s.median, p->r.compute, p->r.plain);
    case C_TMEAN: return p->r.s.tmean;
    case C_CI: return p->r.s.ci_hi - p->r.s.ci_lo;
    case C_ERR: return row_err(&p->r);
    case C_BW: return mbx_result_bandwidth(&p->r);
    case C_STATUS: return p->r.status;
    case C_ROOT: return p->r.root;
    case C_PARAM: return p->r.param_name ? (double)p->r.param : -1;
    case C_REFINED: return p->r.refined;
    case C_AGAIN: return p->r.remeasured;
    case C_PROBE: return p->r.probe_after;
    case C_INVALID: return (double)p->r.invalid;
    case C_EVENTS: return (double)p->r.events;
    default: return 0;
    }
}

static int cmp_rows(const void *a, const void *b)
{
    const mbx_ex_point *p = *(const mbx_ex_point *const *)a, *q = *(const mbx_ex_point *const *)b;
    int c = 0, col = sort_ctx->res.sort_col;
    if (col == C_BENCH || col == C_RANKS) {
        c = col == C_BENCH ? strcmp(p->r.benchmark, q->r.benchmark)
                           : strcmp(p->r.ranks, q->r.ranks);
    } else {
        double u = sort_key(p, col), v = sort_key(q, col);
        c = isnan(u) ? (isnan(v) ? 0 : 1) : isnan(v) ? -1 : (u > v) - (u < v);
    }
    /* Ties: along the curve (a refined point among its neighbours), then
     * in measured order. */
    static const int ties[] = {C_PARAM, C_ROOT, C_PROCS, C_BYTES};
    if (c == 0)
        c = strcmp(p->r.benchmark, q->r.benchmark);
    if (c == 0)
        c = p->copy - q->copy;
    for (size_t i = 0; c == 0 && i < sizeof ties / sizeof *ties; i++) {
        double u = sort_key(p, ties[i]), v = sort_key(q, ties[i]);
        c = (u > v) - (u < v);
    }
    if (c == 0)
        c = (p > q) - (p < q);
    return sort_ctx->res.sort_desc ? -c : c;
}

/* Done points in display order; returns how many. */
static size_t sorted_rows(explorer *x, const mbx_ex_point **out)
{
    size_t n = 0;
    for (size_t i = 0; i < x->npts; i++)
        if (x->pts[i].state == EX_DONE)
            out[n++] = &x->pts[i];
    sort_ctx = x;
    qsort(out, n, sizeof *out, cmp_rows);
    return n;
}

/* The size column: exact below a million unless a multiple of 1 KiB
 * (refined sizes are often not round), "^" after a refined size. */
static void bytes_text(const mbx_ex_point *p, char *buf, size_t len)
{
    const mbx_result *r = &p->r;
    if (r->bytes % 1024 == 0 || r->bytes >= 1000000)
        mbx_axis_format((double)r->bytes, MBX_AXIS_BYTES, 0, buf, (int)len);
    else
        snprintf(buf, len, "%llu", (unsigned long long)r->bytes);
    if (p->origin == EX_REF_SIZE && strlen(buf) + 1 < len)
        strcat(buf, "^");
}

/* The probe column in microseconds, before > after when the two lie on
 * different levels. */
static void probe_text(const mbx_result *r, char *buf, size_t len)
{
    if (!isfinite(r->probe))
        snprintf(buf, len, "-");
    else if (mbx_levels_shifted(r->probe, r->probe_after, &(mbx_levels_opts){0}))
        snprintf(buf, len, "%.2f>%.2f", r->probe * 1e6, r->probe_after * 1e6);
    else
        snprintf(buf, len, "%.2f", r->probe * 1e6);
}

/* A time in seconds, or "-" where the row has none (a HUNG or INVALID
 * row's numbers are empty, as in the CSV: docs/csv-format.md). */
static void seconds_text(const explorer *x, double v, char *buf, size_t len)
{
    if (isfinite(v))
        mbx_axis_format(v, MBX_AXIS_SECONDS, x->utf8, buf, (int)len);
    else
        snprintf(buf, len, "-");
}

static void cell_text(const explorer *x, const mbx_ex_point *p, int c, char *buf, size_t len)
{
    const mbx_result *r = &p->r;
    char a[16], b[16];
    switch (c) {
    case C_BENCH: snprintf(buf, len, "%s%s", r->benchmark, p->copy ? " #2" : ""); break;
    case C_PROCS: snprintf(buf, len, "%d%s", r->procs, p->origin == EX_REF_PROCS ? "^" : ""); break;
    case C_BYTES: bytes_text(p, buf, len); break;
    case C_RANKS: snprintf(buf, len, "%s", r->ranks); break;
    case C_ROOT:
        if (r->root >= 0)
            snprintf(buf, len, "%d", r->root);
        else
            snprintf(buf, len, "-");
        break;
    case C_PARAM:
        if (r->param_name)
            snprintf(buf, len, "%lld", (long long)r->param);
        else
            snprintf(buf, len, "-");
        break;
    case C_REFINED: snprintf(buf, len, "%s", r->refined ? "yes" : ""); break;
    case C_AGAIN: snprintf(buf, len, "%s", r->remeasured ? "yes" : ""); break;
    case C_INVALID: snprintf(buf, len, "%zu", r->invalid); break;
    case C_EVENTS: snprintf(buf, len, "%zu", r->events); break;
    case C_PROBE: probe_text(r, buf, len); break;
    case C_N: snprintf(buf, len, "%zu", r->s.n); break;
    case C_MEDIAN: seconds_text(x, r->s.median, buf, len); break;
    case C_TMEAN: seconds_text(x, r->s.tmean, buf, len); break;
    case C_PLAIN: seconds_text(x, r->plain, buf, len); break;
    case C_OVERLAP: {
        double pct = mbx_overlap_pct(r->s.median, r->compute, r->plain);
        if (r->overlap && isfinite(pct))
            snprintf(buf, len, "%.1f", pct);
        else
            snprintf(buf, len, "-");
        break;
    }
    case C_CI:
        seconds_text(x, r->s.ci_lo, a, sizeof a);
        seconds_text(x, r->s.ci_hi, b, sizeof b);
        if (isfinite(r->s.ci_lo) || isfinite(r->s.ci_hi))
            snprintf(buf, len, "[%s, %s]", a, b);
        else
            snprintf(buf, len, "-");
        break;
    case C_ERR: {
        double e = row_err(r);
        if ((!r->passes && r->stop.kind == MBX_STOP_FIXED) || !isfinite(e))
            snprintf(buf, len, "-");
        else
            snprintf(buf, len, "%.2f%%", 100 * e);
        break;
    }
    case C_BW: {
        double bw = mbx_result_bandwidth(r);
        if (isfinite(bw))
            mbx_axis_format(bw, MBX_AXIS_MBPS, 0, buf, (int)len);
        else
            snprintf(buf, len, "-");
        break;
    }
    case C_STATUS: snprintf(buf, len, "%s", mbx_point_status_name(r->status)); break;
    default: buf[0] = '\0';
    }
}

/* The columns shown (show), their widths (w) and their order: P beside
 * the size in a run over several process counts. Returns how many lead
 * the order and stay when the rest scroll sideways: the benchmark, the
 * size and such a P. */
static int results_columns(const explorer *x, const mbx_rect *body, const mbx_ex_point **rows,
                           size_t n, int *show, int *w, int *order)
{
    /* Wide terminals give long benchmark names their room. */
    for (int c = 0; c < C_COUNT; c++) {
        show[c] = applies(x, c);
        w[c] = col_w[c];
        order[c] = c;
    }
    /* A run over several process counts: P is part of the point, so it
     * goes beside the size (and names get shorter on narrow screens). */
    int frozen = C_BYTES + 1;
    if (mbx_ex_run_nprocs(x) > 1) {
        for (int c = C_PROCS; c > C_BYTES + 1; c--)
            order[c] = order[c - 1];
        order[C_BYTES + 1] = C_PROCS;
        frozen++;
        if (body->w < 100)
            w[C_BENCH] = 14;
    }
    if (body->w >= 100)
        for (size_t i = 0; i < n; i++) {
            int len = (int)strlen(rows[i]->r.benchmark);
            if (len > w[C_BENCH])
                w[C_BENCH] = len > 26 ? 26 : len;
        }
    return frozen;
}

/* The columns on screen: the ones that stay, then the rest from
 * x->res.left on (clamped: no further than needed to show the last column
 * whole). */
typedef struct colplan {
    int show[C_COUNT], w[C_COUNT], order[C_COUNT];
    int vis[C_COUNT], at[C_COUNT], nvis; /* column and its screen column */
    int left_at;                         /* where '<' goes: columns scrolled off; 0 none */
    int more_right;                      /* columns cut or not shown on the right */
} colplan;

static void plan_columns(explorer *x, const mbx_rect *body, const mbx_ex_point **rows, size_t n,
                         colplan *p)
{
    int frozen = results_columns(x, body, rows, n, p->show, p->w, p->order);
    int scroll[C_COUNT], ns = 0, end = body->x + body->w, col = body->x + 1;
    p->nvis = 0;
    for (int k = 0; k < C_COUNT; k++)
        if (p->show[p->order[k]]) {
            if (k < frozen) {
                p->vis[p->nvis] = p->order[k];
                p->at[p->nvis++] = col;
                col += p->w[p->order[k]] + 1;
            } else {
                scroll[ns++] = p->order[k];
            }
        }
    /* The least left scroll that shows every column to the last. */
    int need = 0, maxl = ns > 0 ? ns - 1 : 0;
    for (int r = ns - 1; r >= 0; r--) {
        need += p->w[scroll[r]] + 1;
        if (col + need - 1 <= end)
            maxl = r;
    }
    if (x->res.left > maxl)
        x->res.left = maxl;
    if (x->res.left < 0)
        x->res.left = 0;
    p->left_at = x->res.left > 0 ? col - 1 : 0;
    p->more_right = 0;
    for (int r = x->res.left; r < ns; r++) {
        if (col >= end) {
            p->more_right = 1;
            break;
        }
        p->more_right |= col + p->w[scroll[r]] > end;
        p->vis[p->nvis] = scroll[r];
        p->at[p->nvis++] = col;
        col += p->w[scroll[r]] + 1;
    }
}

/* The two head lines: the count, the sort and whether they are exported;
 * how the points were taken (first row's method), and what the monitor saw. */
static void results_head(explorer *x, const mbx_rect *body, const mbx_ex_point **rows, size_t n)
{
    char head[128];
    snprintf(head, sizeof head, "Results: %zu points%s  (sorted by %s%s; s next column, S reverse)",
             n,
             x->exported ? ", exported"
             : n         ? ", not exported (e exports)"
                         : "",
             col_name(x, x->res.sort_col), x->res.sort_desc ? ", descending" : "");
    mbx_ex_put(x, body->y, body->x + 1, body->w - 1, MBX_ROLE_NORMAL, head);
    /* What the last key did (e, w, r), or an export's progress: this
     * screen has no status line, so the message takes the method's line
     * until the next key. */
    if ((x->msg_fresh || x->xp.on) && x->msg[0]) {
        mbx_ex_put_msg(x, body->y + 1, body->x + 1, body->w - 1, x->msg_role, x->msg);
        return;
    }
    if (!n)
        return;
    const mbx_result *r0 = &rows[0]->r;
    char line[256], mon[160] = "monitor off (one rank)";
    if (x->mon.peer) {
        const mbx_levels *lv = mbx_monitor_levels(&x->mon);
        size_t nl = lv ? lv->nlevel : 0, ns = lv && lv->nseg ? lv->nseg - 1 : 0;
        double span = x->mon.n ? x->mon.t[x->mon.n - 1] - x->mon.t[0] : 0;
        snprintf(mon, sizeof mon, "monitor: %zu probes over %.1f s, %zu level%s%s, %zu shift%s",
                 x->mon.n, span, nl, nl == 1 ? "" : "s",
                 nl == 1 && span < MBX_MONITOR_SAY_SPAN_S ? " (too short to tell)" : "", ns,
                 ns == 1 ? "" : "s");
    }
    snprintf(line, sizeof line, "%s sync%s%s%s, %s cache; %s", mbx_sync_name(r0->sync),
             r0->clock_sync ? " (" : "", r0->clock_sync ? r0->clock_sync : "",
             r0->clock_sync ? " clock)" : "", mbx_cache_name(r0->cache), mon);
    mbx_ex_put(x, body->y + 1, body->x + 1, body->w - 1, MBX_ROLE_DIM, line);
}

/* Point p's row at y, under the cursor or not. */
static void results_row(explorer *x, const mbx_rect *body, const mbx_ex_point *p, int y, int cur,
                        const colplan *cp)
{
    if (cur)
        mbx_ex_fill(x, y, body->x, body->w, MBX_ROLE_CURSOR);
    for (int k = 0; k < cp->nvis; k++) {
        int c = cp->vis[k];
        char t[64];
        cell_text(x, p, c, t, sizeof t);
        int role = cur ? MBX_ROLE_CURSOR : MBX_ROLE_NORMAL;
        if (c == C_STATUS && !cur)
            role = p->r.status == MBX_POINT_SETTLED || p->r.status == MBX_POINT_FIXED ? MBX_ROLE_OK
                   : p->r.status == MBX_POINT_UNSETTLED || p->r.status == MBX_POINT_SHIFTED
                       ? MBX_ROLE_WARNING
                       : MBX_ROLE_ERROR;
        if ((c == C_AGAIN || c == C_PROBE) && !cur && p->r.remeasured)
            role = MBX_ROLE_WARNING;
        mbx_ex_put(x, y, cp->at[k], cp->w[c], role, t);
    }
}

/* The table as drawn in body: the rows in order (n of them, in *rows,
 * the caller frees) and the columns (x->res.left clamped). */
static size_t table(explorer *x, const mbx_rect *body, const mbx_ex_point ***rows, colplan *cp)
{
    *rows = malloc((x->npts ? x->npts : 1) * sizeof **rows);
    if (!*rows) {
        cp->nvis = 0; /* no columns to click */
        return 0;
    }
    size_t n = sorted_rows(x, *rows);
    plan_columns(x, body, *rows, n, cp);
    return n;
}

static void draw_results(explorer *x, const mbx_rect *body)
{
    if (!applies(x, x->res.sort_col))
        x->res.sort_col = C_BENCH;
    const mbx_ex_point **rows;
    colplan cp;
    size_t n = table(x, body, &rows, &cp);
    if (!rows)
        return;
    results_head(x, body, rows, n);
    int y = body->y + 2;
    for (int k = 0; k < cp.nvis; k++) {
        int c = cp.vis[k];
        mbx_ex_put(x, y, cp.at[k], cp.w[c],
                   c == x->res.sort_col ? MBX_ROLE_SELECTED : MBX_ROLE_AXIS, col_name(x, c));
    }
    /* Columns scrolled off the left, or cut on the right: Left/Right. */
    if (cp.left_at)
        mbx_ex_put(x, y, cp.left_at, 1, MBX_ROLE_SELECTED, x->utf8 ? "\u2039" : "<");
    if (cp.more_right)
        mbx_ex_put(x, y, body->x + body->w - 1, 1, MBX_ROLE_SELECTED, x->utf8 ? "\u203a" : ">");
    int list_h = body->h - 3;
    if (x->res.cursor >= (int)n)
        x->res.cursor = n ? (int)n - 1 : 0;
    if (x->res.cursor < x->res.top)
        x->res.top = x->res.cursor;
    if (x->res.cursor >= x->res.top + list_h)
        x->res.top = x->res.cursor - list_h + 1;
    for (int i = 0; i < list_h && (size_t)(x->res.top + i) < n; i++)
        results_row(x, body, rows[x->res.top + i], y + 1 + i, x->res.top + i == x->res.cursor, &cp);
    if (n == 0)
        mbx_ex_put(x, y + 1, body->x + 2, body->w - 2, MBX_ROLE_DIM, "no results yet");
    free(rows);
}

/* Sideways by d columns, no further than the last column shows. */
static void scroll_columns(explorer *x, int d)
{
    mbx_frame_layout f;
    mbx_layout_frame(x->rows, x->cols, &f);
    const mbx_ex_point **rows;
    colplan cp;
    x->res.left += d;
    table(x, &f.body, &rows, &cp);
    free(rows);
}

static int results_key(explorer *x, int key)
{
    size_t n = x->ndone;
    switch (mbx_ex_key_action(key, EX_RESULTS)) {
    case EXA_UP: x->res.cursor = x->res.cursor > 0 ? x->res.cursor - 1 : 0; break;
    case EXA_DOWN:
        x->res.cursor = (size_t)x->res.cursor + 1 < n ? x->res.cursor + 1 : x->res.cursor;
        break;
    case EXA_PGUP: x->res.cursor = x->res.cursor > 10 ? x->res.cursor - 10 : 0; break;
    case EXA_PGDN:
        x->res.cursor = (size_t)x->res.cursor + 10 < n ? x->res.cursor + 10 : (n ? (int)n - 1 : 0);
        break;
    case EXA_HOME: x->res.cursor = 0; break;
    case EXA_END: x->res.cursor = n ? (int)n - 1 : 0; break;
    case EXA_LEFT: scroll_columns(x, -1); break;
    case EXA_RIGHT: scroll_columns(x, 1); break;
    case EXA_SORT:
        do
            x->res.sort_col = (x->res.sort_col + 1) % C_COUNT;
        while (!applies(x, x->res.sort_col));
        break;
    case EXA_REVERSE: x->res.sort_desc = !x->res.sort_desc; break;
    default: return 0;
    }
    return 1;
}

/* The wheel scrolls the rows (the cursor kept in view), sideways with
 * Shift or over the column names; a click on a column's name sorts by it
 * (again: the other way), on a row puts the cursor there. */
static int results_mouse(explorer *x, const mbx_rect *body, const mbx_ex_mouse *m)
{
    const mbx_ex_point **rows;
    colplan cp;
    size_t n = table(x, body, &rows, &cp);
    free(rows);
    int head = body->y + 2, list_h = body->h - 3 > 1 ? body->h - 3 : 1;
    int up = m->button == EX_MB_WHEEL_UP;
    if (up || m->button == EX_MB_WHEEL_DOWN) {
        if (m->shift || m->y == head) {
            scroll_columns(x, up ? -1 : 1);
            return 1;
        }
        int top = x->res.top + (up ? -EX_WHEEL_ROWS : EX_WHEEL_ROWS), last = (int)n - list_h;
        x->res.top = top > last ? (last > 0 ? last : 0) : top < 0 ? 0 : top;
        if (x->res.cursor < x->res.top)
            x->res.cursor = x->res.top;
        if (x->res.cursor >= x->res.top + list_h)
            x->res.cursor = x->res.top + list_h - 1;
        return 1;
    }
    if (m->button != EX_MB_LEFT)
        return 0;
    if (m->y == head) {
        for (int k = 0; k < cp.nvis; k++)
            if (m->x >= cp.at[k] && m->x < cp.at[k] + cp.w[cp.vis[k]]) {
                if (x->res.sort_col == cp.vis[k])
                    x->res.sort_desc = !x->res.sort_desc;
                else
                    x->res.sort_col = cp.vis[k], x->res.sort_desc = 0;
                return 1;
            }
        return 0;
    }
    int i = x->res.top + m->y - (head + 1);
    if (m->y <= head || i >= (int)n)
        return 0;
    x->res.cursor = i;
    return 1;
}

/* The screen's row of the screen table (screens/screen.h). */
const mbx_ex_screen_def mbx_ex_screen_results = {
    .name = "4 Results",
    .brief = "4 Results",
    .help = "results",
    .draw = draw_results,
    .key = results_key,
    .typing = NULL,
    .mouse = results_mouse,
};
