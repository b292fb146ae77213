/* The plan of the guidelines (glplan.h): rules resolved, their sizes, the
 * needs of every benchmark and the sections; the summary of a rule's
 * verdicts. */
#include "glplan.h"

#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char mbx_embedded_guidelines[];

/* The plan being built: where its messages go and how its sizes came. */
typedef struct build {
    mbx_glp *p;
    const mbx_glp_opts *o;
    char *msg;
    size_t len;
    int list; /* the sizes are a list: each one must fit every rule */
} build;

__attribute__((format(printf, 2, 3))) static int bad(const build *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->msg, b->len, fmt, ap);
    va_end(ap);
    return MBX_E_INVAL;
}

static int nomem(const build *b)
{
    snprintf(b->msg, b->len, "out of memory");
    return MBX_E_NOMEM;
}

int mbx_glp_selected(const char *rules, const char *name)
{
    if (!rules)
        return 1;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", rules);
    int in = 0, any_in = 0;
    for (char *save = NULL, *g = strtok_r(buf, ",", &save); g; g = strtok_r(NULL, ",", &save)) {
        if (g[0] == '!') { /* an exclusion wins over every inclusion */
            if (fnmatch(g + 1, name, 0) == 0)
                return 0;
            continue;
        }
        any_in = 1;
        in |= fnmatch(g, name, 0) == 0;
    }
    return in || !any_in; /* only exclusions: every other rule */
}

/* A side's benchmark: the registry's, or why the build lacks it (*skip),
 * or an error. */
static int resolve_side(const build *bd, const mbx_gl_rule *r, const mbx_gl_side *s,
                        const mbx_bench **b, const char **skip)
{
    int id;
    if (mbx_bench_find(s->bench, &id) == MBX_OK) {
        *b = mbx_bench_get(id);
        return 0;
    }
    const char *name, *why;
    for (size_t i = 0; mbx_bench_absent(i, &name, &why); i++)
        if (!strcmp(name, s->bench)) {
            *skip = why;
            return 0;
        }
    return bad(bd, "%s:%d: [%s] holds: unknown benchmark '%s' (see 'mpibex list')", bd->p->cat_name,
               r->line, r->name, s->bench);
}

/* The side of rule g that cannot measure its share of size m, or NULL. */
static const mbx_bench *misfit(const mbx_glp_rule *g, uint64_t m)
{
    uint64_t a = m * (uint64_t)g->r->lhs.factor, b = m * (uint64_t)g->r->rhs.factor;
    if (mbx_bench_align(g->lb, a) != a || (a == 0 && mbx_bench_zero_why(g->lb)))
        return g->lb;
    if (mbx_bench_align(g->rb, b) != b || (b == 0 && mbx_bench_zero_why(g->rb)))
        return g->rb;
    return NULL;
}

/* The sizes of rule g: each of the list at which both sides measure
 * exactly (factor x size). A range (the default or given) lets each rule
 * take those it can, and is an error only when it leaves a rule none; a
 * given list is the user's exact sizes, each one must fit. */
static int rule_sizes(const build *bd, mbx_glp_rule *g)
{
    const mbx_glp *p = bd->p;
    const mbx_gl_rule *r = g->r;
    int ls = (g->lb->flags & MBX_BENCH_SIZED) != 0, rs = (g->rb->flags & MBX_BENCH_SIZED) != 0;
    const mbx_bench *last_bad = NULL;
    g->m = calloc(p->sizes->n + 1, sizeof *g->m);
    if (!g->m)
        return nomem(bd);
    if (!ls && !rs) {
        g->m[g->nm++] = 0;
        return 0;
    }
    if (ls != rs)
        return bad(bd, "%s:%d: [%s] holds: %s and %s: one varies over message size, the other not",
                   p->cat_name, r->line, r->name, g->lb->name, g->rb->name);
    for (size_t i = 0; i < p->sizes->n; i++) {
        uint64_t m = p->sizes->v[i];
        const mbx_bench *b = misfit(g, m);
        if (!b) {
            g->m[g->nm++] = m;
            continue;
        }
        last_bad = b;
        if (bd->list)
            return bad(bd,
                       "--sizes: [%s] compares %s, which measures whole multiples of %u "
                       "bytes from %u (%s); %llu B is not one (give such sizes, a range, or "
                       "leave --sizes out)",
                       r->name, b->name, b->unit, b->unit, b->op ? b->op : "its datatype",
                       (unsigned long long)m);
    }
    if (g->nm == 0 && last_bad)
        return bad(bd,
                   "--sizes: [%s] compares %s, which measures whole multiples of %u bytes "
                   "from %u (%s); the range %s holds none",
                   r->name, last_bad->name, last_bad->unit, last_bad->unit,
                   last_bad->op ? last_bad->op : "its datatype",
                   bd->o->range   ? "of the form"
                   : bd->o->sizes ? bd->o->sizes
                                  : MBX_GLP_SIZES_DEFAULT);
    return 0;
}

/* The need of benchmark b (in its twin section or not), made when new. */
static mbx_glp_need *need_make(mbx_glp *p, const mbx_bench *b, int twin)
{
    mbx_glp_need *n = (mbx_glp_need *)mbx_glp_need_of(p, b, twin);
    if (n)
        return n;
    n = &p->need[p->nneed++];
    memset(n, 0, sizeof *n);
    n->b = b;
    n->twin = twin;
    n->unsized = !(b->flags & MBX_BENCH_SIZED);
    return n;
}

const mbx_glp_need *mbx_glp_need_of(const mbx_glp *p, const mbx_bench *b, int twin)
{
    for (size_t i = 0; i < p->nneed; i++)
        if (p->need[i].b == b && p->need[i].twin == twin)
            return &p->need[i];
    return NULL;
}

static int need_add(mbx_glp_need *n, uint64_t v)
{
    if (n->unsized)
        return 0;
    size_t at = 0;
    while (at < n->n && n->v[at] < v)
        at++;
    if (at < n->n && n->v[at] == v)
        return 0;
    if (n->n == n->cap) {
        size_t cap = n->cap ? 2 * n->cap : 32;
        uint64_t *q = realloc(n->v, cap * sizeof *q);
        if (!q)
            return -1;
        n->v = q, n->cap = cap;
    }
    memmove(n->v + at + 1, n->v + at, (n->n - at) * sizeof *n->v);
    n->v[at] = v;
    n->n++;
    return 0;
}

static int same_sizes(const mbx_glp_need *a, const mbx_glp_need *b)
{
    return a->twin == b->twin && a->unsized == b->unsized && a->n == b->n &&
           (a->n == 0 || memcmp(a->v, b->v, a->n * sizeof *a->v) == 0);
}

/* The sections: the needs of one size list (and twin-ness) share one. */
static int group(const build *bd)
{
    mbx_glp *p = bd->p;
    for (size_t i = 0; i < p->nneed; i++) {
        mbx_glp_need *n = &p->need[i];
        n->section = -1;
        for (size_t j = 0; j < i && n->section < 0; j++)
            if (same_sizes(n, &p->need[j]))
                n->section = p->need[j].section;
        if (n->section >= 0)
            continue;
        if (p->nsection == MBX_GLP_SECTIONS_MAX)
            return bad(bd, "the rules need more than %d size lists; select fewer (--rules)",
                       MBX_GLP_SECTIONS_MAX);
        n->section = (int)p->nsection;
        snprintf(p->label[p->nsection], sizeof p->label[0], "gl%s-%zu", n->twin ? "-twin" : "",
                 p->nsection + 1);
        p->nsection++;
    }
    return 0;
}

/* The catalogue and the sizes. */
static int load(build *bd)
{
    mbx_glp *p = bd->p;
    const mbx_glp_opts *o = bd->o;
    p->cat = calloc(1, sizeof *p->cat);
    p->sizes = calloc(1, sizeof *p->sizes);
    if (!p->cat || !p->sizes)
        return nomem(bd);
    p->cat_name = o->catalogue ? o->catalogue : "guidelines.ini (built in)";
    int rc = o->catalogue
                 ? mbx_gl_load(o->catalogue, p->cat, bd->msg, bd->len)
                 : mbx_gl_parse(mbx_embedded_guidelines, p->cat_name, p->cat, bd->msg, bd->len);
    if (rc < 0)
        return rc == MBX_E_NOMEM ? rc : MBX_E_INVAL;
    if (o->range) {
        *p->sizes = *o->range;
        return 0;
    }
    bd->list = o->sizes && !strchr(o->sizes, ':');
    char m[256];
    if (mbx_sizes_parse(o->sizes ? o->sizes : MBX_GLP_SIZES_DEFAULT, p->sizes, m, sizeof m) < 0)
        return bad(bd, "--sizes: %s", m);
    return 0;
}

/* Rule r selected: resolved, its sizes, its sides' needs. */
static int add_rule(build *bd, const mbx_gl_rule *r)
{
    mbx_glp *p = bd->p;
    mbx_glp_rule *g = &p->rule[p->nrule++];
    g->r = r;
    int rc;
    if ((rc = resolve_side(bd, r, &r->lhs, &g->lb, &g->skip)) != 0 ||
        (rc = resolve_side(bd, r, &r->rhs, &g->rb, &g->skip)) != 0)
        return rc;
    if (g->skip) {
        p->nskip++;
        return 0;
    }
    if ((rc = rule_sizes(bd, g)) != 0)
        return rc;
    g->twin = g->lb == g->rb && r->lhs.factor == r->rhs.factor;
    mbx_glp_need *nl = need_make(p, g->lb, 0), *nr = need_make(p, g->rb, g->twin);
    for (size_t k = 0; k < g->nm; k++)
        if (need_add(nl, g->m[k] * (uint64_t)r->lhs.factor) < 0 ||
            need_add(nr, g->m[k] * (uint64_t)r->rhs.factor) < 0)
            return nomem(bd);
    return 0;
}

int mbx_glp_build(mbx_glp *p, const mbx_glp_opts *o, char *msg, size_t len)
{
    build bd = {.p = p, .o = o, .msg = msg, .len = len};
    int rc = load(&bd);
    if (rc)
        return rc;
    p->rule = calloc(p->cat->n, sizeof *p->rule);
    p->need = calloc(2 * p->cat->n, sizeof *p->need);
    if (!p->rule || !p->need)
        return nomem(&bd);
    for (size_t i = 0; i < p->cat->n; i++)
        if (mbx_glp_selected(o->rules, p->cat->rule[i].name) &&
            (rc = add_rule(&bd, &p->cat->rule[i])) != 0)
            return rc;
    if (p->nrule == 0)
        return bad(&bd, "--rules: '%s' selects no rule of %s", o->rules, p->cat_name);
    if (p->nrule == p->nskip)
        return bad(&bd, "none of the %zu rules can be measured by this build (see 'mpibex list')",
                   p->nrule);
    if ((rc = group(&bd)) != 0)
        return rc;
    for (size_t i = 0; i < p->nrule; i++) {
        mbx_glp_rule *g = &p->rule[i];
        if (g->skip)
            continue;
        g->ll = p->label[mbx_glp_need_of(p, g->lb, 0)->section];
        g->rl = p->label[mbx_glp_need_of(p, g->rb, g->twin)->section];
    }
    return MBX_OK;
}

void mbx_glp_free(mbx_glp *p)
{
    for (size_t i = 0; p->rule && i < p->nrule; i++)
        free(p->rule[i].m);
    for (size_t i = 0; p->need && i < p->nneed; i++)
        free(p->need[i].v);
    free(p->rule);
    free(p->need);
    free(p->cat);
    free(p->sizes);
    memset(p, 0, sizeof *p);
}

int mbx_glp_decide(mbx_glp_cell *c, size_t n, double tol, double alpha)
{
    mbx_gl_judgement *js = malloc((n ? n : 1) * sizeof *js);
    if (!js)
        return MBX_E_NOMEM;
    for (size_t i = 0; i < n; i++)
        js[i] = c[i].j;
    int rc = mbx_gl_decide(js, n, tol, alpha);
    for (size_t i = 0; rc >= 0 && i < n; i++)
        c[i].j = js[i];
    free(js);
    return rc;
}

void mbx_glp_summarize(const mbx_glp_cell *c, size_t n, size_t rule, int procs, mbx_glp_sum *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; i++) {
        if (c[i].rule != rule || (procs && c[i].procs != procs))
            continue;
        const mbx_gl_judgement *j = &c[i].j;
        out->holds += j->verdict == MBX_GL_HOLDS;
        out->unclear += j->verdict == MBX_GL_UNCLEAR;
        out->none += j->verdict == MBX_GL_NONE;
        if (j->verdict != MBX_GL_VIOLATED)
            continue;
        out->lo = out->violated && out->lo < c[i].m ? out->lo : c[i].m;
        out->hi = out->violated && out->hi > c[i].m ? out->hi : c[i].m;
        if (!out->worst || j->ratio > out->worst->ratio)
            out->worst = j;
        out->violated++;
    }
}

void mbx_glp_sum_format(const mbx_glp_sum *s, char *buf, size_t len)
{
    if (!s->worst) {
        if (len)
            buf[0] = '\0';
        return;
    }
    char a[16], b[16];
    mbx_size_format(s->lo, a, sizeof a);
    mbx_size_format(s->hi, b, sizeof b);
    snprintf(buf, len, "%s-%s (%.3f [%.3f, %.3f])", a, b, s->worst->ratio, s->worst->lo,
             s->worst->hi);
}
