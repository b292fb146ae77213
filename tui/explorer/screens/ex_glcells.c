/* The guidelines screen's model (screens/guidelines.h): which benchmarks
 * and sizes the plan's run measures, and each rule judged from the run's
 * points as `mpibex guidelines` judges it from its files: the two points'
 * pass medians, mbx_gl_test, then mbx_gl_decide over every cell. */
#include <stdlib.h>
#include <string.h>

#include "explorer.h"
#include "mbx/bench.h"

#define GL_PROCS_MAX 64

int mbx_ex_gl_bench(explorer *x, int bench_id, mbx_size_list *sizes)
{
    const mbx_glp *p = mbx_ex_gl_plan(x);
    const mbx_bench *b = mbx_bench_get(bench_id);
    sizes->n = 0;
    if (!p || !b)
        return 0;
    int copies = 0;
    for (int twin = 0; twin < 2; twin++) {
        const mbx_glp_need *n = mbx_glp_need_of(p, b, twin);
        if (!n)
            continue;
        copies = twin + 1 > copies ? twin + 1 : copies;
        for (size_t i = 0; i < n->n; i++) { /* a merge of two ascending lists */
            size_t at = 0;
            while (at < sizes->n && sizes->v[at] < n->v[i])
                at++;
            if ((at < sizes->n && sizes->v[at] == n->v[i]) || sizes->n == MBX_SIZES_MAX_POINTS)
                continue;
            memmove(sizes->v + at + 1, sizes->v + at, (sizes->n - at) * sizeof *sizes->v);
            sizes->v[at] = n->v[i];
            sizes->n++;
        }
    }
    return copies;
}

/* The run's point of benchmark b (its copy) at bytes on procs ranks, the
 * first of any root or parameter; NULL when there is none. */
static const mbx_ex_point *point_at(const explorer *x, const mbx_bench *b, int copy, uint64_t bytes,
                                    int procs)
{
    for (size_t i = 0; i < x->npts; i++) {
        const mbx_ex_point *p = &x->pts[i];
        if (p->origin == EX_GRID && p->copy == copy && p->procs == procs && p->bytes == bytes &&
            mbx_bench_get(p->bench_id) == b)
            return p;
    }
    return NULL;
}

/* A side's sample: its pass medians, none when its row has no numbers to
 * trust (as the command leaves out UNRELIABLE and INVALID rows). 1 when
 * the side is ready: final, or with 2 pass medians to judge by so far. */
static int side(const mbx_ex_point *p, const double **v, size_t *n)
{
    static const double nothing[1] = {0};
    *v = nothing, *n = 0;
    if (!p)
        return 1; /* never measured (a count the benchmark cannot run at): no data */
    int final = p->state == EX_DONE || p->state == EX_DROPPED;
    int bad = p->state == EX_DROPPED ||
              (p->state == EX_DONE &&
               (p->r.status == MBX_POINT_INVALID || p->r.status == MBX_POINT_UNRELIABLE ||
                p->r.status == MBX_POINT_HUNG));
    if (!bad)
        *v = p->pm, *n = p->npm;
    return final || p->npm >= 2;
}

/* The process counts of the run's points of benchmark b, ascending. */
static size_t procs_of(const explorer *x, const mbx_bench *b, int *out)
{
    size_t n = 0;
    for (size_t i = 0; i < x->npts; i++) {
        const mbx_ex_point *p = &x->pts[i];
        if (mbx_bench_get(p->bench_id) != b || p->copy)
            continue;
        size_t k = 0;
        while (k < n && out[k] < p->procs)
            k++;
        if ((k < n && out[k] == p->procs) || n == GL_PROCS_MAX)
            continue;
        memmove(out + k + 1, out + k, (n - k) * sizeof *out);
        out[k] = p->procs;
        n++;
    }
    return n;
}

static mbx_glp_cell *cell_add(explorer *x)
{
    mbx_ex_gl *g = &x->gl;
    if (g->ncell == g->capcell) {
        size_t cap = g->capcell ? 2 * g->capcell : 256;
        mbx_glp_cell *c = realloc(g->cell, cap * sizeof *c);
        if (!c)
            return NULL;
        g->cell = c, g->capcell = cap;
    }
    return &g->cell[g->ncell++];
}

/* Rule r's cells at every size and process count of the run. */
static void judge_rule(explorer *x, const mbx_glp *p, size_t r)
{
    const mbx_glp_rule *g = &p->rule[r];
    int procs[GL_PROCS_MAX];
    size_t np = procs_of(x, g->lb, procs);
    for (size_t k = 0; k < np; k++)
        for (size_t i = 0; i < g->nm; i++) {
            uint64_t m = g->m[i];
            const mbx_ex_point *a = point_at(x, g->lb, 0, m * (uint64_t)g->r->lhs.factor, procs[k]);
            const mbx_ex_point *b =
                point_at(x, g->rb, g->twin, m * (uint64_t)g->r->rhs.factor, procs[k]);
            const double *va, *vb;
            size_t na, nb;
            int ready = side(a, &va, &na) & side(b, &vb, &nb);
            mbx_glp_cell *c = ready ? cell_add(x) : NULL;
            if (!c) {
                x->gl.wait[r]++;
                continue;
            }
            *c = (mbx_glp_cell){.rule = r, .procs = procs[k], .m = m};
            if (mbx_gl_test(va, na, vb, nb, &c->j) < 0)
                x->gl.ncell--;
        }
}

void mbx_ex_gl_judge(explorer *x, double tol, double alpha)
{
    mbx_ex_gl *g = &x->gl;
    g->ncell = 0;
    const mbx_glp *p = g->active ? mbx_ex_gl_plan(x) : NULL;
    if (!p)
        return;
    free(g->wait);
    g->wait = calloc(p->nrule ? p->nrule : 1, sizeof *g->wait);
    if (!g->wait)
        return;
    for (size_t r = 0; r < p->nrule; r++)
        if (!p->rule[r].skip)
            judge_rule(x, p, r);
    if (mbx_glp_decide(g->cell, g->ncell, tol, alpha) < 0)
        g->ncell = 0;
}

int mbx_ex_gl_series(const explorer *x, size_t r, mbx_ex_series *a, mbx_ex_series *b)
{
    const mbx_glp *p = x->gl.built ? &x->gl.plan : NULL;
    if (!x->gl.active || !p || r >= p->nrule || p->rule[r].skip)
        return 0;
    const mbx_glp_rule *g = &p->rule[r];
    const mbx_ex_point *pa = NULL, *pb = NULL;
    for (size_t i = 0; i < x->npts && (!pa || !pb); i++) {
        const mbx_ex_point *q = &x->pts[i];
        const mbx_bench *bq = mbx_bench_get(q->bench_id);
        if (!pa && bq == g->lb && q->copy == 0)
            pa = q;
        if (!pb && bq == g->rb && q->copy == g->twin && (!pa || q->procs == pa->procs))
            pb = q;
    }
    int dim = (g->lb->flags & MBX_BENCH_SIZED) ? EX_DIM_SIZE : EX_DIM_PROCS;
    return pa && pb && mbx_ex_series_of(pa, dim, a) && mbx_ex_series_of(pb, dim, b);
}

void mbx_ex_gl_free(explorer *x)
{
    mbx_glp_free(&x->gl.plan);
    x->gl.built = 0;
    free(x->gl.cell);
    free(x->gl.wait);
    x->gl.cell = NULL;
    x->gl.wait = NULL;
    x->gl.ncell = x->gl.capcell = 0;
}
