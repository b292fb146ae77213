/* The guidelines screen (screens/guidelines.h; docs/explorer.md, "The
 * guidelines screen"): the catalogue's rules with their verdicts so far,
 * r to measure them as one run, Enter to compare a rule's two curves. */
#include <stdio.h>
#include <string.h>

#include "ex_keys.h"
#include "explorer.h"
#include "mbx/bench.h"
#include "screens/screen.h"

#define GL_ALPHA 0.05
#define GL_NAMEW 32 /* the rule's column */
#define GL_HEAD 3   /* rows above the list: the plan, the scope, the columns */
#define GL_FOOT 2   /* rows under it: the rule under the cursor, the keys */

/* What the plan was built from: the filter and the form's sizes. */
static uint64_t build_key(const explorer *x)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *c = x->gl.filter; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    for (size_t i = 0; i < x->meas.sizes.n; i++)
        h = (h ^ x->meas.sizes.v[i]) * 1099511628211ull;
    return h ^ x->meas.sizes.n;
}

const mbx_glp *mbx_ex_gl_plan(explorer *x)
{
    mbx_ex_gl *g = &x->gl;
    uint64_t key = build_key(x);
    /* The plan of a run in progress stays: its points are that plan's. */
    if ((g->built && g->active && x->running) || (g->built_key == key && (g->built || g->err[0])))
        return g->built ? &g->plan : NULL;
    mbx_glp_free(&g->plan);
    g->built = 0;
    g->err[0] = '\0';
    g->built_key = key;
    mbx_glp_opts o = {.range = &x->meas.sizes, .rules = g->filter[0] ? g->filter : NULL};
    if (mbx_glp_build(&g->plan, &o, g->err, sizeof g->err) < 0) {
        mbx_glp_free(&g->plan);
        if (!g->err[0])
            snprintf(g->err, sizeof g->err, "the rules could not be read");
        return NULL;
    }
    g->built = 1;
    if ((size_t)g->cursor >= g->plan.nrule)
        g->cursor = g->top = 0;
    return &g->plan;
}

/* The plan's size: rules, curves and points (a twin counted), passes. */
static void plan_line(explorer *x, const mbx_glp *p, char *buf, size_t len)
{
    size_t pts = 0;
    for (size_t i = 0; i < p->nneed; i++)
        pts += p->need[i].unsized ? 1 : p->need[i].n;
    snprintf(buf, len,
             "%zu rule%s%s%s; plan: %zu curves, %zu points a P, >= %d passes; sizes: the form's",
             p->nrule, p->nrule == 1 ? "" : "s", x->gl.filter[0] ? " matching " : "", x->gl.filter,
             p->nneed, pts, MBX_GLP_PASSES);
}

/* A rule's row before a run of its plan: its two sides and its sizes. */
static void rule_plain(const mbx_glp_rule *g, char *buf, size_t len)
{
    const mbx_gl_rule *r = g->r;
    char lf[16] = "", rf[16] = "", a[16] = "", b[16] = "";
    if (r->lhs.factor > 1)
        snprintf(lf, sizeof lf, "@%dx", r->lhs.factor);
    if (r->rhs.factor > 1)
        snprintf(rf, sizeof rf, "@%dx", r->rhs.factor);
    if (!(g->lb->flags & MBX_BENCH_SIZED)) {
        snprintf(buf, len, "%s <= %s  (no size)", r->lhs.bench, r->rhs.bench);
        return;
    }
    mbx_size_format(g->m[0], a, sizeof a);
    mbx_size_format(g->m[g->nm - 1], b, sizeof b);
    snprintf(buf, len, "%s%s <= %s%s  %zu size%s %s-%s", r->lhs.bench, lf, r->rhs.bench, rf, g->nm,
             g->nm == 1 ? "" : "s", a, b);
}

/* Rule r's row: a marker (! violated), its name, its counts and where it
 * is violated; or why it has none. */
static void draw_rule(explorer *x, const mbx_glp *p, size_t r, int y, const mbx_rect *body)
{
    const mbx_glp_rule *g = &p->rule[r];
    int cur = (int)r == x->gl.cursor;
    char line[320], at[96];
    int role = cur ? MBX_ROLE_CURSOR : MBX_ROLE_NORMAL;
    if (g->skip) {
        snprintf(line, sizeof line, "  %-*s skipped: not in this build: %s", GL_NAMEW - 1,
                 g->r->name, g->skip);
        mbx_ex_put_cut(x, y, body->x, body->w, cur ? role : MBX_ROLE_DIM, line);
        return;
    }
    mbx_glp_sum s;
    mbx_glp_summarize(x->gl.cell, x->gl.ncell, r, 0, &s);
    size_t wait = x->gl.wait ? x->gl.wait[r] : 0;
    if (!x->gl.active || s.holds + s.violated + s.unclear + s.none + wait == 0) {
        char plain[160];
        rule_plain(g, plain, sizeof plain);
        snprintf(line, sizeof line, "  %-*s %.150s%s", GL_NAMEW - 1, g->r->name, plain,
                 x->gl.active ? "  (not in this run: r runs it)" : "");
        mbx_ex_put_cut(x, y, body->x, body->w, cur ? role : MBX_ROLE_NORMAL, line);
        return;
    }
    mbx_glp_sum_format(&s, at, sizeof at);
    int k =
        snprintf(line, sizeof line, "%c %-*s %5zu %5zu %5zu %5zu %5zu  ", s.violated ? '!' : ' ',
                 GL_NAMEW - 1, g->r->name, s.holds, s.violated, s.unclear, s.none, wait);
    mbx_ex_fill(x, y, body->x, body->w, role);
    mbx_ex_put_cut(x, y, body->x, body->w, role, line);
    if (!s.violated || k >= body->w)
        return;
    /* The marker and the violated sizes in the error role: bold reverse
     * in monochrome, so a violation reads on the cursor's row too. */
    mbx_ex_put(x, y, body->x, 1, MBX_ROLE_ERROR, "!");
    mbx_ex_put_cut(x, y, body->x + k, body->w - k, MBX_ROLE_ERROR, at);
}

static int list_height(const mbx_rect *body)
{
    int h = body->h - GL_HEAD - GL_FOOT;
    return h > 1 ? h : 1;
}

/* The rule under the cursor in full, and the keys. */
static void draw_foot(explorer *x, const mbx_glp *p, const mbx_rect *body)
{
    int y = body->y + body->h - GL_FOOT;
    char line[400];
    if ((size_t)x->gl.cursor < p->nrule) {
        const mbx_gl_rule *r = p->rule[x->gl.cursor].r;
        snprintf(line, sizeof line, "[%s] %s", r->name, r->what[0] ? r->what : "");
        mbx_ex_put_cut(x, y, body->x + 1, body->w - 1, MBX_ROLE_DIM, line);
    }
    if (x->gl.filtering) {
        mbx_ex_put(x, y + 1, body->x + 1, 8, MBX_ROLE_CURSOR, "rules: ");
        mbx_ex_put_edit(x, y + 1, body->x + 9, body->w - 9, MBX_ROLE_CURSOR, x->gl.filter);
        return;
    }
    mbx_ex_put_cut(x, y + 1, body->x + 1, body->w - 1, MBX_ROLE_DIM,
                   x->running && x->gl.active
                       ? "verdicts so far, from the passes landed; Enter compares the rule's two "
                         "curves (Esc back)"
                       : "r runs the rules' plan (Enter too); Enter on a measured rule compares "
                         "its two curves (Esc back); / picks rules");
}

static void draw_head(explorer *x, const mbx_glp *p, const mbx_rect *body)
{
    char line[400];
    plan_line(x, p, line, sizeof line);
    mbx_ex_put_cut(x, body->y, body->x + 1, body->w - 1, MBX_ROLE_NORMAL, line);
    size_t judged = 0;
    for (size_t i = 0; i < x->gl.ncell; i++)
        judged += x->gl.cell[i].j.verdict != MBX_GL_NONE;
    snprintf(line, sizeof line,
             "scope: passes of one job (this launch); tolerance %g %%, Benjamini-Hochberg at "
             "%g over %zu points",
             100 * MBX_GL_TOL_DEFAULT, GL_ALPHA, judged);
    mbx_ex_put_cut(x, body->y + 1, body->x + 1, body->w - 1, MBX_ROLE_DIM, line);
    if (x->gl.active)
        snprintf(line, sizeof line, "  %-*s %5s %5s %5s %5s %5s  %s", GL_NAMEW - 1, "rule", "holds",
                 "viol.", "n.d.", "none", "wait", "violated (largest ratio, 95% CI)");
    else
        snprintf(line, sizeof line, "  %-*s %s", GL_NAMEW - 1, "rule",
                 "left <= right, sizes (no run of the rules yet: r)");
    mbx_ex_put_cut(x, body->y + 2, body->x, body->w, MBX_ROLE_AXIS, line);
}

static void draw_gl(explorer *x, const mbx_rect *body)
{
    const mbx_glp *p = mbx_ex_gl_plan(x);
    if (!p) {
        mbx_ex_put_cut(x, body->y, body->x + 1, body->w - 1, MBX_ROLE_ERROR, x->gl.err);
        mbx_ex_put_cut(x, body->y + 2, body->x + 1, body->w - 1, MBX_ROLE_DIM,
                       "/ picks other rules (globs, as mpibex guidelines --rules); the sizes "
                       "are the form's (2)");
        if (x->gl.filtering)
            draw_foot(x, &(mbx_glp){0}, body);
        return;
    }
    mbx_ex_gl_judge(x, MBX_GL_TOL_DEFAULT, GL_ALPHA);
    draw_head(x, p, body);
    int h = list_height(body);
    if (x->gl.cursor < x->gl.top)
        x->gl.top = x->gl.cursor;
    if (x->gl.cursor >= x->gl.top + h)
        x->gl.top = x->gl.cursor - h + 1;
    for (int i = 0; i < h && (size_t)(x->gl.top + i) < p->nrule; i++)
        draw_rule(x, p, (size_t)(x->gl.top + i), body->y + GL_HEAD + i, body);
    draw_foot(x, p, body);
}

/* r (or Enter before a run): the plan's run, after the question a new run
 * asks when results are not exported. */
static void gl_run(explorer *x)
{
    if (x->running) {
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "a run is in progress: c cancels it, then r");
        return;
    }
    if (!mbx_ex_gl_plan(x)) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "%s", x->gl.err);
        return;
    }
    x->gl.want = 1;
    if (!x->xp.on && !x->bf.running && x->ndone > 0 && !x->exported)
        x->prompt = EX_PROMPT_RERUN;
    else
        mbx_ex_start_run(x);
}

/* Enter on a measured rule: the run view compares its left side (A) with
 * its right side (B); Esc there comes back. */
static void gl_compare(explorer *x)
{
    mbx_ex_series a, b;
    if (!mbx_ex_gl_series(x, (size_t)x->gl.cursor, &a, &b)) {
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "compare: this rule has no points in the run (r)");
        return;
    }
    x->xdim = a.dim; /* the size, or P for unsized benchmarks (barrier) */
    x->insp.on = 0;
    x->cmp.s[0] = a;
    x->cmp.s[1] = b;
    x->cmp.on = 1;
    x->cmp.choosing = x->cmp.ratios = 0;
    x->gl.back = 1;
    x->screen = EX_RUN;
    const mbx_gl_rule *r = x->gl.plan.rule[x->gl.cursor].r;
    if (r->lhs.factor != r->rhs.factor) /* monotony: docs/explorer.md, "The guidelines screen" */
        mbx_ex_set_msg(x, MBX_ROLE_DIM,
                       "[%s] pairs %s at m with %s at %d m: here A and B are that one curve",
                       r->name, r->lhs.bench, r->rhs.bench, r->rhs.factor);
}

static int filter_key(explorer *x, int key)
{
    if (key == 27) {
        x->gl.filter[0] = '\0';
        x->gl.filtering = 0;
    } else if (key == '\n' || key == '\r' || key == KEY_ENTER) {
        x->gl.filtering = 0;
    } else if (!mbx_ex_line_edit(x, x->gl.filter, sizeof x->gl.filter, key)) {
        return 0;
    }
    x->gl.cursor = x->gl.top = 0;
    return 1;
}

static int gl_key(explorer *x, int key)
{
    if (x->gl.filtering)
        return filter_key(x, key);
    const mbx_glp *p = mbx_ex_gl_plan(x);
    int n = p ? (int)p->nrule : 0, *c = &x->gl.cursor;
    switch (mbx_ex_key_action(key, EX_GUIDELINES)) {
    case EXA_UP: *c = *c > 0 ? *c - 1 : 0; return 1;
    case EXA_DOWN: *c = *c + 1 < n ? *c + 1 : *c; return 1;
    case EXA_PGUP: *c = *c > 10 ? *c - 10 : 0; return 1;
    case EXA_PGDN: *c = *c + 10 < n ? *c + 10 : (n ? n - 1 : 0); return 1;
    case EXA_HOME: *c = 0; return 1;
    case EXA_END: *c = n ? n - 1 : 0; return 1;
    case EXA_GL_RUN: gl_run(x); return 1;
    case EXA_ENTER:
        if (x->gl.active)
            gl_compare(x);
        else
            gl_run(x);
        return 1;
    case EXA_FILTER:
        x->gl.filtering = 1;
        mbx_ex_edit_begin(x, x->gl.filter, 0);
        return 1;
    default: return 0;
    }
}

static int gl_typing(const explorer *x)
{
    return x->gl.filtering;
}

/* A click on a rule puts the cursor there; the wheel scrolls. */
static int gl_mouse(explorer *x, const mbx_rect *body, const mbx_ex_mouse *m)
{
    const mbx_glp *p = mbx_ex_gl_plan(x);
    int n = p ? (int)p->nrule : 0;
    if (m->button == EX_MB_WHEEL_UP || m->button == EX_MB_WHEEL_DOWN) {
        int d = m->button == EX_MB_WHEEL_UP ? -EX_WHEEL_ROWS : EX_WHEEL_ROWS;
        x->gl.cursor = x->gl.cursor + d < 0    ? 0
                       : x->gl.cursor + d >= n ? (n ? n - 1 : 0)
                                               : x->gl.cursor + d;
        return 1;
    }
    int i = x->gl.top + m->y - (body->y + GL_HEAD);
    if (m->button != EX_MB_LEFT || m->y < body->y + GL_HEAD ||
        m->y >= body->y + GL_HEAD + list_height(body) || i >= n)
        return 0;
    x->gl.filtering = 0;
    x->gl.cursor = i;
    return 1;
}

/* The screen's row of the screen table (screens/screen.h). */
const mbx_ex_screen_def mbx_ex_screen_guidelines = {
    .name = "Guidelines",
    .brief = "Guide",
    .help = "guidelines",
    .draw = draw_gl,
    .key = gl_key,
    .typing = gl_typing,
    .mouse = gl_mouse,
};
