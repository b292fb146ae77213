/* The results table: it scrolls (down, and sideways past the benchmark
 * and its size, which stay), sorts, and takes clicks and the wheel. Its
 * columns, chosen by name from the results file's, are ex_rescols.c's;
 * the export and the report are ex_export.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ex_keys.h"
#include "explorer.h"
#include "mbx/levels.h"
#include "mbx/results_sort.h"
#include "screens/rescols.h"
#include "screens/screen.h"

/* Whether screen column c (screens/rescols.h) applies to the finished
 * points of the run. */
static int applies(const explorer *x, int c)
{
    for (size_t i = 0; i < x->npts; i++)
        if (x->pts[i].state == EX_DONE && mbx_ex_rescol_has(c, &x->pts[i].r))
            return 1;
    return 0;
}

/* A column's head; the parameter's is named after the parameter
 * ("pieces"). */
static const char *col_name(const explorer *x, int c)
{
    const mbx_ex_rescol *cols;
    mbx_ex_rescols(&cols);
    if (c == mbx_ex_rescol_find("param"))
        for (size_t i = 0; i < x->npts; i++)
            if (x->pts[i].state == EX_DONE && x->pts[i].r.param_name)
                return x->pts[i].r.param_name;
    return cols[c].head;
}

static const explorer *sort_ctx;

static int cmp_rows(const void *a, const void *b)
{
    const mbx_ex_point *p = *(const mbx_ex_point *const *)a, *q = *(const mbx_ex_point *const *)b;
    int c = mbx_ex_rescol_cmp(sort_ctx->res.sort_col, p, q);
    /* Ties: along the curve (a refined point among its neighbours), then
     * in measured order. */
    static const char *const ties[] = {"param", "root", "procs", "bytes"};
    if (c == 0)
        c = strcmp(p->r.benchmark, q->r.benchmark);
    if (c == 0)
        c = p->copy - q->copy;
    for (size_t i = 0; c == 0 && i < sizeof ties / sizeof *ties; i++) {
        int k = mbx_ex_rescol_find(ties[i]);
        c = k < 0 ? 0 : mbx_ex_rescol_cmp(k, p, q);
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

/* The columns shown (show), their widths (w) and their order: P beside
 * the size in a run over several process counts. Returns how many lead
 * the order and stay when the rest scroll sideways: the benchmark, the
 * size and such a P. */
static int results_columns(const explorer *x, const mbx_rect *body, const mbx_ex_point **rows,
                           size_t n, int *show, int *w, int *order)
{
    const mbx_ex_rescol *cols;
    int ncol = (int)mbx_ex_rescols(&cols), bench = mbx_ex_rescol_find("benchmark");
    int bytes = mbx_ex_rescol_find("bytes"), procs = mbx_ex_rescol_find("procs");
    /* Wide terminals give long benchmark names their room. */
    for (int c = 0; c < ncol; c++) {
        show[c] = applies(x, c);
        w[c] = cols[c].w;
        order[c] = c;
    }
    /* A run over several process counts: P is part of the point, so it
     * goes beside the size (and names get shorter on narrow screens). */
    int frozen = bytes + 1;
    if (mbx_ex_run_nprocs(x) > 1 && procs > bytes) {
        for (int c = procs; c > bytes + 1; c--)
            order[c] = order[c - 1];
        order[bytes + 1] = procs;
        frozen++;
        if (body->w < 100)
            w[bench] = 14;
    }
    if (body->w >= 100)
        for (size_t i = 0; i < n; i++) {
            int len = (int)strlen(rows[i]->r.benchmark);
            if (len > w[bench])
                w[bench] = len > 26 ? 26 : len;
        }
    return frozen;
}

/* The columns on screen: the ones that stay, then the rest from
 * x->res.left on (clamped: no further than needed to show the last column
 * whole). */
typedef struct colplan {
    int show[MBX_EX_RESCOLS_MAX], w[MBX_EX_RESCOLS_MAX], order[MBX_EX_RESCOLS_MAX];
    int vis[MBX_EX_RESCOLS_MAX], at[MBX_EX_RESCOLS_MAX], nvis; /* column and its screen column */
    int left_at;    /* where '<' goes: columns scrolled off; 0 none */
    int more_right; /* columns cut or not shown on the right */
} colplan;

static void plan_columns(explorer *x, const mbx_rect *body, const mbx_ex_point **rows, size_t n,
                         colplan *p)
{
    int frozen = results_columns(x, body, rows, n, p->show, p->w, p->order);
    int scroll[MBX_EX_RESCOLS_MAX], ns = 0, end = body->x + body->w, col = body->x + 1;
    int ncol = (int)mbx_ex_rescols(&(const mbx_ex_rescol *){0});
    p->nvis = 0;
    for (int k = 0; k < ncol; k++)
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
        mbx_ex_rescol_text(x, p, c, t, sizeof t);
        int role = cur ? MBX_ROLE_CURSOR : mbx_ex_rescol_role(c, &p->r);
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
        x->res.sort_col = mbx_ex_rescol_find("benchmark");
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
            x->res.sort_col =
                (x->res.sort_col + 1) % (int)mbx_ex_rescols(&(const mbx_ex_rescol *){0});
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
