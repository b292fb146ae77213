/* The pairs screen's matrix (screens/pairs.h): the progress, a heatmap of
 * the metric shown (row the sender, column the receiver; a cell's shade
 * and colour its time over the typical cell's), its legend, the cell
 * under the cursor and the verdicts so far beside it, or the cell in the
 * inspector (its figures, pass medians over time, histogram). At large N
 * a cell of the map is a block of nodes showing its slowest cell, or (z)
 * one node a cell and the map scrolls with the cursor. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/axis.h"
#include "explorer.h"
#include "screens/run_int.h"

#define SIDE_W 38 /* the column beside the map */

static const double bounds[EXP_LEVELS - 1] = {1.1, 1.25, 1.5, 2.0};
static const char *const bound_text[EXP_LEVELS] = {"<= 1.1x the median cell's time", "1.1 - 1.25x",
                                                   "1.25 - 1.5x", "1.5 - 2x", "> 2x"};
static const int level_role[EXP_LEVELS] = {MBX_ROLE_OK, MBX_ROLE_SELECTED, MBX_ROLE_WARNING,
                                           MBX_ROLE_ERROR, MBX_ROLE_ERROR};
static const char *const shades_braille[EXP_LEVELS] = {"\u2804", "\u2824", "\u2826", "\u2836",
                                                       "\u28ff"};
static const char *const shades_block[EXP_LEVELS] = {"\u00b7", "\u2591", "\u2592", "\u2593",
                                                     "\u2588"};
static const char shades_ascii[EXP_LEVELS + 1] = ".:+*#";

static const char *shade(const explorer *x, int level, char *buf)
{
    if (!x->utf8 || x->glyphs == MBX_GLYPHS_ASCII) {
        buf[0] = shades_ascii[level], buf[1] = '\0';
        return buf;
    }
    return x->glyphs == MBX_GLYPHS_BLOCK ? shades_block[level] : shades_braille[level];
}

int mbx_ex_pairs_cell_now(explorer *x, int m, int src, int dst, mbx_passes_result *out)
{
    mbx_ex_pairs *p = &x->pr;
    const mbx_pairs_cellrun *c = mbx_pairs_run_cell(&p->run, m, src, dst);
    if (!c || !c->passes)
        return 0;
    size_t np = mbx_passes_count(c->passes), i = (size_t)(c - p->run.cell);
    if (np == 0)
        return 0;
    /* A cell's figures change only with a pass: kept until its next. */
    if (p->ncache != p->run.ncells) {
        free(p->cache);
        p->cache = calloc(p->run.ncells, sizeof *p->cache);
        p->ncache = p->cache ? p->run.ncells : 0;
    }
    if (p->cache && p->cache[i].passes == np) {
        *out = p->cache[i].r;
        return p->cache[i].ok;
    }
    int ok = mbx_passes_result_get(c->passes, out) == MBX_OK && isfinite(out->b.value) &&
             out->b.value > 0;
    if (p->cache)
        p->cache[i] = (mbx_ex_pairs_cached){.passes = np, .ok = ok, .r = *out};
    return ok;
}

/* Node i as the text names it: its host, and its rank unless a node is
 * a host. */
static const char *node_name(const mbx_ex_pairs *p, int i, char *buf, size_t len)
{
    if (p->per == MBX_PER_NODE)
        return p->host[i];
    snprintf(buf, len, "%s r%d", p->host[i], p->rank[i]);
    return buf;
}

/* What a time shows as: microseconds, or the bandwidth's MB/s. */
static double shown(const mbx_ex_pairs *p, int m, double t)
{
    return m == 0 ? t * 1e6 : (double)p->plan.window * (double)p->plan.bytes[1] / t / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median cell so far: the shades are a cell's time over it. */
static double typical(explorer *x, int m)
{
    const mbx_ex_pairs *p = &x->pr;
    double *v = malloc((p->run.ncells + 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; v && i < p->run.ncells; i++) {
        mbx_passes_result r;
        const mbx_pairs_cellrun *c = &p->run.cell[i];
        if (c->metric == m && mbx_ex_pairs_cell_now(x, m, c->src, c->dst, &r))
            v[n++] = r.b.value;
    }
    double t = NAN;
    if (n) {
        qsort(v, n, sizeof *v, cmp_double);
        t = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    }
    free(v);
    return t;
}

/* The level of the block of nodes from (s0, d0), b a side: its slowest
 * cell's; -1 none measured, -2 the diagonal only. */
static int block_level(explorer *x, int m, int s0, int d0, int b, double typ)
{
    int n = x->pr.n, lv = -1, diag = 0;
    for (int s = s0; s < s0 + b && s < n; s++)
        for (int d = d0; d < d0 + b && d < n; d++) {
            mbx_passes_result r;
            if (s == d) {
                diag = 1;
                continue;
            }
            if (!mbx_ex_pairs_cell_now(x, m, s, d, &r) || !(typ > 0))
                continue;
            double ratio = r.b.value / typ;
            int l = 0;
            while (l < EXP_LEVELS - 1 && ratio > bounds[l])
                l++;
            lv = l > lv ? l : lv;
        }
    return lv < 0 && diag && b == 1 ? -2 : lv;
}

static int in_plan(const explorer *x, int m, int s0, int d0, int b)
{
    for (int s = s0; s < s0 + b && s < x->pr.n; s++)
        for (int d = d0; d < d0 + b && d < x->pr.n; d++)
            if (s != d && mbx_pairs_run_cell(&x->pr.run, m, s, d))
                return 1;
    return 0;
}

static void progress_line(explorer *x, const mbx_rect *a, int y)
{
    mbx_ex_pairs *p = &x->pr;
    char line[256];
    if (!p->started) {
        snprintf(line, sizeof line, "ready: r measures every pair of the job's %d ranks' nodes",
                 x->be->nranks);
        mbx_ex_put_cut(x, y, a->x + 1, a->w - 1, MBX_ROLE_DIM, line);
        return;
    }
    size_t settled = 0;
    for (size_t i = 0; i < p->run.ncells; i++)
        settled += p->run.cell[i].r.verdict == MBX_PASSES_SETTLED;
    double el = (p->running ? x->be->now(x->be) : p->t1) - p->t0;
    int round = p->running ? p->run.rounds + 1 : p->run.rounds;
    snprintf(line, sizeof line,
             "%d nodes, %s; round %d%s pass %zu/%zu; %zu of %zu cells SETTLED; "
             "%.1f s %s",
             p->n, mbx_pairs_mode_name(p->plan.mode), round, p->running ? ":" : ",", p->pdone,
             p->ptotal, settled, p->run.ncells, el,
             p->running ? "running"
             : p->done  ? "done"
                        : "stopped");
    mbx_ex_put_cut(x, y, a->x + 1, a->w - 1, MBX_ROLE_NORMAL, line);
}

/* The map's geometry in the room it has: cell width, block, the first
 * node shown; rows and columns of cells. */
static void geometry(explorer *x, int mw, int mh, int lw)
{
    mbx_ex_pairs *p = &x->pr;
    int n = p->n, cols = mw - lw, b = 1, cw = 2;
    if (n * 2 > cols || n > mh) {
        cw = 1;
        if (!p->zoom && (n > cols || n > mh)) {
            int bc = cols > 0 ? (n + cols - 1) / cols : n, br = mh > 0 ? (n + mh - 1) / mh : n;
            b = bc > br ? bc : br;
        }
    }
    p->map_cw = cw;
    p->map_block = b;
    p->map_cols = cols / cw < (n + b - 1) / b ? cols / cw : (n + b - 1) / b;
    p->map_rows = mh < (n + b - 1) / b ? mh : (n + b - 1) / b;
    if (b == 1) { /* the cursor in view */
        if (p->cur_src < p->top)
            p->top = p->cur_src;
        if (p->cur_src >= p->top + p->map_rows)
            p->top = p->cur_src - p->map_rows + 1;
        if (p->cur_dst < p->left)
            p->left = p->cur_dst;
        if (p->cur_dst >= p->left + p->map_cols)
            p->left = p->cur_dst - p->map_cols + 1;
    } else {
        p->top = p->left = 0;
    }
    p->map_top = p->top, p->map_left = p->left;
}

static int label_len(const mbx_ex_pairs *p)
{
    int w = 1;
    for (int i = 0; i < p->n; i++)
        w = (int)strlen(p->label[i]) > w ? (int)strlen(p->label[i]) : w;
    return w;
}

/* The map from (y, x0) in mw x mh; returns the columns it took. */
static int draw_map(explorer *x, int m, double typ, int y, int x0, int mw, int mh)
{
    mbx_ex_pairs *p = &x->pr;
    int ll = label_len(p), lw = ll + 1, lrows = ll;
    geometry(x, mw, mh - lrows - 1, lw);
    if (p->map_block > 1) { /* blocks: the column labels on one row */
        lrows = 1;
        geometry(x, mw, mh - lrows - 1, lw);
    }
    int b = p->map_block, cw = p->map_cw;
    p->map_x = x0 + lw, p->map_y = y + lrows;
    /* column labels: one character a row, the last at the bottom */
    for (int c = 0; c < p->map_cols; c++) {
        int d = p->left + c * b;
        const char *lab = p->label[d];
        int len = (int)strlen(lab);
        int cur = d <= p->cur_dst && p->cur_dst < d + b;
        if (b > 1) { /* blocks: the first node's label every fourth column */
            if (c % 4 == 0)
                mbx_ex_put(x, y, p->map_x + c * cw, 4, cur ? MBX_ROLE_SELECTED : MBX_ROLE_AXIS,
                           lab);
            continue;
        }
        for (int r = 0; r < lrows && r < len; r++) {
            char ch[2] = {lab[len - 1 - r], '\0'};
            mbx_ex_put(x, y + lrows - 1 - r, p->map_x + c * cw, 1,
                       cur ? MBX_ROLE_SELECTED : MBX_ROLE_AXIS, ch);
        }
    }
    for (int r = 0; r < p->map_rows; r++) {
        int s = p->top + r * b;
        int yy = p->map_y + r, cur_row = s <= p->cur_src && p->cur_src < s + b;
        if (b == 1 || r % 2 == 0)
            mbx_ex_put(x, yy, x0, ll, cur_row ? MBX_ROLE_SELECTED : MBX_ROLE_AXIS, p->label[s]);
        for (int c = 0; c < p->map_cols; c++) {
            int d = p->left + c * b;
            int cur = cur_row && d <= p->cur_dst && p->cur_dst < d + b;
            int lv = block_level(x, m, s, d, b, typ);
            char buf[4], cell[16];
            const char *g;
            int role;
            if (lv >= 0) {
                g = shade(x, lv, buf), role = level_role[lv];
            } else if (lv == -2) {
                g = x->utf8 && x->glyphs != MBX_GLYPHS_ASCII ? "\u2572" : "\\";
                role = MBX_ROLE_GRID;
            } else {
                g = in_plan(x, m, s, d, b) ? "-" : " ";
                role = MBX_ROLE_DIM;
            }
            snprintf(cell, sizeof cell, "%s%s", g, cw == 2 ? g : "");
            mbx_ex_put(x, yy, p->map_x + c * cw, cw, cur ? MBX_ROLE_CURSOR : role, cell);
        }
    }
    int yb = p->map_y + p->map_rows, used = lw + p->map_cols * cw;
    if (yb < y + mh) {
        char note[160];
        int n = p->n;
        if (b > 1)
            snprintf(note, sizeof note,
                     "%d nodes: a cell is a block of %dx%d, its slowest (z: one "
                     "a cell)",
                     n, b, b);
        else if (p->map_rows < n || p->map_cols < n)
            snprintf(note, sizeof note, "nodes %d-%d x %d-%d of %d: it scrolls (z: blocks)", p->top,
                     p->top + p->map_rows - 1, p->left, p->left + p->map_cols - 1, n);
        else
            snprintf(note, sizeof note, "row: sender, column: receiver");
        mbx_ex_put_cut(x, yb, x0, mw, MBX_ROLE_DIM, note);
        int nl = (int)strlen(note);
        used = used > nl ? used : nl;
    }
    return used;
}

/* A value and its CI as shown: "1.53 us [1.51, 1.55]" or MB/s. */
static void value_text(const mbx_ex_pairs *p, int m, const mbx_passes_result *r, char *buf,
                       size_t len)
{
    double v = shown(p, m, r->b.value);
    if (r->b.r >= 2 && r->b.ci_lo > 0 && isfinite(r->b.ci_hi)) {
        double a = shown(p, m, r->b.ci_lo), b = shown(p, m, r->b.ci_hi);
        snprintf(buf, len, "%.4g %s [%.4g, %.4g]", v, m == 0 ? "us" : "MB/s", fmin(a, b),
                 fmax(a, b));
    } else {
        snprintf(buf, len, "%.4g %s (one pass: no CI)", v, m == 0 ? "us" : "MB/s");
    }
}

static int side_legend(explorer *x, int m, double typ, int y, int x0, int w)
{
    mbx_ex_pairs *p = &x->pr;
    char t[160];
    snprintf(t, sizeof t, "%s%s", m == 0 ? "latency, one-way us" : "bandwidth, MB/s",
             p->plan.metrics == 3 ? (m == 0 ? " (b: bandwidth)" : " (b: latency)") : "");
    mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_NORMAL, t);
    for (int l = 0; l < EXP_LEVELS; l++) {
        char buf[4], g[16];
        snprintf(g, sizeof g, "%s%s", shade(x, l, buf), shade(x, l, buf));
        mbx_ex_put(x, y, x0, 2, level_role[l], g);
        mbx_ex_put_cut(x, y++, x0 + 3, w - 3, MBX_ROLE_DIM, bound_text[l]);
    }
    if (typ > 0) {
        snprintf(t, sizeof t, "median cell %.4g %s; darker is slower", shown(p, m, typ),
                 m == 0 ? "us" : "MB/s");
        mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_DIM, t);
    }
    return y;
}

static int side_cursor(explorer *x, int m, int y, int x0, int w)
{
    mbx_ex_pairs *p = &x->pr;
    char t[200], v[96], a[80], b[80];
    snprintf(t, sizeof t, "%s -> %s", node_name(p, p->cur_src, a, sizeof a),
             node_name(p, p->cur_dst, b, sizeof b));
    mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_SELECTED, t);
    mbx_passes_result r;
    if (p->cur_src == p->cur_dst) {
        mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_DIM, "a node with itself: not measured");
    } else if (!mbx_pairs_run_cell(&p->run, m, p->cur_src, p->cur_dst)) {
        mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_DIM, "not in this run's sample of steps");
    } else if (!mbx_ex_pairs_cell_now(x, m, p->cur_src, p->cur_dst, &r)) {
        mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_DIM, "no pass yet");
    } else {
        value_text(p, m, &r, v, sizeof v);
        mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_NORMAL, v);
        snprintf(t, sizeof t, "%zu pass%s, %s (Enter: inspect)", r.b.r, r.b.r == 1 ? "" : "es",
                 mbx_passes_verdict_name(r.verdict));
        mbx_ex_put_cut(x, y++, x0, w,
                       r.verdict == MBX_PASSES_SETTLED ? MBX_ROLE_OK : MBX_ROLE_WARNING, t);
    }
    return y;
}

/* The verdicts as of the last round: slow nodes and links by name, or
 * "no outlier found"; the nodes by effect as room allows. */
static void side_verdicts(explorer *x, int m, int y, int x0, int w, int end)
{
    mbx_ex_pairs *p = &x->pr;
    char t[200], a[80], b[80];
    if (y >= end)
        return;
    if (!p->fitted[m]) {
        mbx_ex_put_cut(x, y, x0, w, MBX_ROLE_DIM,
                       p->fiterr[m][0] ? p->fiterr[m] : "verdicts: after the first round");
        return;
    }
    const mbx_pairs_fit *f = &p->fit[m];
    snprintf(t, sizeof t, "verdicts (round %d; launch scope):", p->fit_round);
    mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_NORMAL, t);
    if (f->slow_nodes == 0 && f->slow_links == 0 && y < end)
        mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_OK, "no outlier found");
    for (int i = 0; i < f->n && y < end; i++)
        if (f->node[i].slow) {
            snprintf(t, sizeof t, "slow node %s %.2fx [%.2f, %.2f]",
                     node_name(p, f->node[i].node, a, sizeof a), f->node[i].effect, f->node[i].lo,
                     f->node[i].hi);
            mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_ERROR, t);
        }
    for (int i = 0; i < f->cells && y < end; i++)
        if (f->link[i].slow) {
            snprintf(t, sizeof t, "slow link %s -> %s %.2fx",
                     node_name(p, f->link[i].src, a, sizeof a),
                     node_name(p, f->link[i].dst, b, sizeof b), f->link[i].ratio);
            mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_ERROR, t);
        }
    if (y < end) {
        snprintf(t, sizeof t, "beyond %.0f%% at alpha %.2g, Holm: %s", 100 * MBX_PAIRS_TOL_DEFAULT,
                 MBX_PAIRS_ALPHA_DEFAULT, f->test);
        mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_DIM, t);
    }
    if (y + 1 < end)
        mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_DIM, "nodes by effect [95% CI]:");
    for (int i = 0; i < f->n && y < end; i++) {
        const mbx_pairs_node *d = &f->node[i];
        snprintf(t, sizeof t, "%c %-16.16s %.2fx [%.2f, %.2f]", d->slow ? '!' : ' ',
                 node_name(p, d->node, a, sizeof a), d->effect, d->lo, d->hi);
        mbx_ex_put_cut(x, y++, x0, w, d->slow ? MBX_ROLE_ERROR : MBX_ROLE_NORMAL, t);
    }
}

/* The cell under the cursor in the inspector's panels. */
static void side_inspect(explorer *x, int m, const mbx_rect *r)
{
    mbx_ex_pairs *p = &x->pr;
    int y = r->y, x0 = r->x + 1, w = r->w - 1, end = r->y + r->h;
    char t[200], v[96], a[80], b[80];
    mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_NORMAL, "inspector (arrows move, Esc closes)");
    snprintf(t, sizeof t, "%s %s -> %s", mbx_pairs_bench_name(m),
             node_name(p, p->cur_src, a, sizeof a), node_name(p, p->cur_dst, b, sizeof b));
    mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_SELECTED, t);
    const mbx_pairs_cellrun *c = mbx_pairs_run_cell(&p->run, m, p->cur_src, p->cur_dst);
    mbx_passes_result res;
    if (!c || !mbx_ex_pairs_cell_now(x, m, p->cur_src, p->cur_dst, &res)) {
        mbx_ex_put_cut(x, y, x0, w, MBX_ROLE_DIM, "no pass of this cell yet");
        return;
    }
    value_text(p, m, &res, v, sizeof v);
    snprintf(t, sizeof t, "median %s", v);
    mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_NORMAL, t);
    double rel = res.b.value > 0 ? res.b.se / res.b.value : NAN;
    snprintf(t, sizeof t, "err %s%.2f%%  n %zu  %zu passes %.2fs", isfinite(rel) ? "" : "-",
             isfinite(rel) ? 100 * rel : 0.0, c->nobs, res.b.r, res.span);
    mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_NORMAL, t);
    mbx_ex_put_cut(x, y++, x0, w,
                   res.verdict == MBX_PASSES_SETTLED ? MBX_ROLE_OK : MBX_ROLE_WARNING,
                   mbx_passes_verdict_name(res.verdict));
    mbx_ex_put_cut(x, y++, x0, w, MBX_ROLE_DIM, "scope launch: this job's passes only");
    mbx_rect pr = {y, r->x, end - y, r->w};
    if (end - y >= 2)
        y = mbx_ex_draw_passes(x, &pr, c->pm, c->npm, NULL, 0, y);
    if (end - y >= 3)
        mbx_ex_draw_hist(x, &pr, c->obs, c->nobs, y, end - y > 7 ? 7 : end - y);
}

void mbx_ex_draw_pairs_map(explorer *x, const mbx_rect *a)
{
    mbx_ex_pairs *p = &x->pr;
    int y = a->y;
    progress_line(x, a, y++);
    if (x->msg[0])
        mbx_ex_put_msg(x, y, a->x + 1, a->w - 1, x->msg_role, x->msg);
    y++;
    if (!p->started || !p->n || y >= a->y + a->h)
        return;
    int m = p->metric, sw = a->w >= 60 ? SIDE_W : 0;
    int mw = a->w - sw - 2, mh = a->y + a->h - y;
    /* the median cell once a frame: the map's shades and the legend's */
    double typ = typical(x, m);
    int used = draw_map(x, m, typ, y, a->x + 1, mw, mh);
    if (!sw)
        return;
    /* the side column next to the map, as wide as the rest allows */
    int sx = a->x + 1 + used + 3;
    mbx_rect side = {y, sx, mh, a->x + a->w - sx};
    if (p->insp) {
        side_inspect(x, m, &side);
        return;
    }
    int sy = side_legend(x, m, typ, y, side.x + 1, sw - 1);
    sy = side_cursor(x, m, sy, side.x + 1, sw - 1);
    side_verdicts(x, m, sy, side.x + 1, sw - 1, side.y + side.h);
}

int mbx_ex_pairs_click(explorer *x, const mbx_ex_mouse *m)
{
    mbx_ex_pairs *p = &x->pr;
    if (m->button != EX_MB_LEFT || !p->started || p->map_cw <= 0)
        return 0;
    int c = (m->x - p->map_x) / p->map_cw, r = m->y - p->map_y;
    if (m->x < p->map_x || c >= p->map_cols || r < 0 || r >= p->map_rows)
        return 0;
    int s = p->map_top + r * p->map_block, d = p->map_left + c * p->map_block;
    if (s >= p->n || d >= p->n)
        return 0;
    p->cur_src = s, p->cur_dst = d;
    return 1;
}
