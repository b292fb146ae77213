/* Curves of a run (SKaMPI; docs/algorithms.md, "Adaptive
 * refinement").
 *
 * A curve is everything of a point but its x: along message size it is
 * (benchmark, procs, param, root), along process count (benchmark, bytes,
 * param, root). Refinement is the scheduler's (mbx/sched.h, ex_sched.c):
 * a point refined along one dimension belongs to curves along that
 * dimension only (a size between two grid sizes has no P curve). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/axis.h"
#include "explorer.h"
#include "mbx/bench.h"

int mbx_ex_series_of(const mbx_ex_point *p, int dim, mbx_ex_series *out)
{
    if ((dim == EX_DIM_SIZE && p->origin == EX_REF_PROCS) ||
        (dim == EX_DIM_PROCS && p->origin == EX_REF_SIZE))
        return 0;
    if (dim == EX_DIM_PARAM &&
        (p->origin != EX_GRID || !(mbx_bench_get(p->bench_id)->flags & MBX_BENCH_PARAM)))
        return 0;
    memset(out, 0, sizeof *out);
    out->dim = dim;
    out->bench_id = p->bench_id;
    out->root = p->root;
    out->copy = p->copy;
    if (dim != EX_DIM_PARAM)
        out->param = p->param;
    if (dim != EX_DIM_PROCS)
        out->procs = p->procs;
    if (dim != EX_DIM_SIZE)
        out->bytes = p->bytes;
    return 1;
}

int mbx_ex_series_eq(const mbx_ex_series *a, const mbx_ex_series *b)
{
    return a->dim == b->dim && a->bench_id == b->bench_id && a->bytes == b->bytes &&
           a->procs == b->procs && a->param == b->param && a->root == b->root && a->copy == b->copy;
}

const char *mbx_ex_point_label(const mbx_ex_point *p)
{
    return p->copy ? "explorer#2" : "explorer";
}

double mbx_ex_point_x(const mbx_ex_point *p, int dim)
{
    if (dim == EX_DIM_PARAM) {
        const mbx_bench *b = mbx_bench_get(p->bench_id);
        if (!(b->flags & MBX_BENCH_PARAM))
            return 0.0;
        return (double)(p->param ? p->param : b->param_default);
    }
    return dim == EX_DIM_SIZE ? (double)p->bytes : (double)p->procs;
}

int mbx_ex_point_has_x(const mbx_ex_point *p, int dim)
{
    /* 0 B of a sized benchmark is a point; an unsized one has no size. */
    return mbx_ex_point_x(p, dim) > 0 ||
           (dim == EX_DIM_SIZE && (mbx_bench_get(p->bench_id)->flags & MBX_BENCH_SIZED));
}

typedef struct xp {
    double x;
    const mbx_ex_point *p;
} xp;

static int cmp_xp(const void *a, const void *b)
{
    double u = ((const xp *)a)->x, v = ((const xp *)b)->x;
    return (u > v) - (u < v);
}

int mbx_ex_series_has(const mbx_ex_series *s, const mbx_ex_point *p)
{
    mbx_ex_series t;
    return mbx_ex_series_of(p, s->dim, &t) && mbx_ex_series_eq(&t, s);
}

size_t mbx_ex_series_points(const explorer *x, const mbx_ex_series *s, const mbx_ex_point **out,
                            size_t max)
{
    static xp buf[EX_MAX_POINTS];
    size_t n = 0;
    for (size_t i = 0; i < x->npts && n < max && n < EX_MAX_POINTS; i++) {
        const mbx_ex_point *p = &x->pts[i];
        if (EX_HAS_VALUE(p) && mbx_ex_point_has_x(p, s->dim) && mbx_ex_series_has(s, p))
            buf[n++] = (xp){mbx_ex_point_x(p, s->dim), p};
    }
    qsort(buf, n, sizeof *buf, cmp_xp);
    for (size_t i = 0; i < n; i++)
        out[i] = buf[i].p;
    return n;
}

int mbx_ex_series_list(const explorer *x, int dim, mbx_ex_series *out, int max)
{
    int n = 0;
    for (size_t i = 0; i < x->npts; i++) {
        mbx_ex_series s;
        if (!mbx_ex_series_of(&x->pts[i], dim, &s))
            continue;
        int seen = 0;
        for (int j = n - 1; j >= 0 && !seen; j--)
            seen = mbx_ex_series_eq(&out[j], &s);
        if (!seen && n < max)
            out[n++] = s;
    }
    return n;
}

int mbx_ex_run_nprocs(const explorer *x)
{
    int seen[EX_MAX_PROCS], n = 0;
    for (size_t i = 0; i < x->npts; i++) {
        int p = x->pts[i].procs, dup = 0;
        for (int j = 0; j < n && !dup; j++)
            dup = seen[j] == p;
        if (!dup && n < EX_MAX_PROCS)
            seen[n++] = p;
    }
    return n;
}

int mbx_ex_run_nparams(const explorer *x)
{
    int most = 0;
    for (size_t id = 0; id < mbx_bench_count(); id++) {
        double seen[MBX_PLAN_MAX_PARAM];
        int n = 0;
        for (size_t i = 0; i < x->npts && n < MBX_PLAN_MAX_PARAM; i++) {
            double v = mbx_ex_point_x(&x->pts[i], EX_DIM_PARAM);
            int dup = x->pts[i].bench_id != (int)id || !(v > 0);
            for (int k = 0; k < n && !dup; k++)
                dup = seen[k] == v;
            if (!dup)
                seen[n++] = v;
        }
        most = n > most ? n : most;
    }
    return most;
}

const char *mbx_ex_param_axis_name(const explorer *x)
{
    const char *name = NULL;
    for (size_t i = 0; i < x->npts; i++) {
        const mbx_bench *b = mbx_bench_get(x->pts[i].bench_id);
        if (!(b->flags & MBX_BENCH_PARAM))
            continue;
        if (name && strcmp(name, b->param_name) != 0)
            return "parameter";
        name = b->param_name;
    }
    return name ? name : "parameter";
}

int mbx_ex_dim_useful(const explorer *x, int dim)
{
    if (dim == EX_DIM_PROCS)
        return mbx_ex_run_nprocs(x) >= 2;
    if (dim == EX_DIM_PARAM)
        return mbx_ex_run_nparams(x) >= 2;
    for (size_t i = 0; i < x->npts; i++)
        if (x->pts[i].bytes > 0)
            return 1;
    return 0;
}

void mbx_ex_series_names(const explorer *x, const mbx_ex_series *s, int n, char (*names)[48])
{
    (void)x;
    /* Which parts differ between the curves: only those are named. */
    int short_ok = 1, procs_vary = 0, param_vary = 0, root_vary = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            const char *a = mbx_bench_get(s[i].bench_id)->name,
                       *b = mbx_bench_get(s[j].bench_id)->name;
            const char *da = strchr(a, '.'), *db = strchr(b, '.');
            if (s[i].bench_id != s[j].bench_id && strcmp(da ? da + 1 : a, db ? db + 1 : b) == 0)
                short_ok = 0;
            procs_vary |= s[i].procs != s[j].procs;
            param_vary |= s[i].param != s[j].param;
            root_vary |= s[i].root != s[j].root;
        }
    for (int i = 0; i < n; i++) {
        const mbx_bench *b = mbx_bench_get(s[i].bench_id);
        const char *dot = strchr(b->name, '.');
        char *o = names[i];
        size_t len = 48;
        int k = snprintf(o, len, "%s", short_ok && dot ? dot + 1 : b->name);
        if (s[i].dim != EX_DIM_SIZE && (b->flags & MBX_BENCH_SIZED) && k < 40) {
            char sz[16];
            mbx_axis_format((double)s[i].bytes, MBX_AXIS_BYTES, 0, sz, sizeof sz);
            k += snprintf(o + k, len - (size_t)k, " %s", sz);
        }
        if (s[i].dim != EX_DIM_PROCS && procs_vary && k < 40)
            k += snprintf(o + k, len - (size_t)k, " P%d", s[i].procs);
        if (s[i].dim != EX_DIM_PARAM && param_vary && (b->flags & MBX_BENCH_PARAM) && k < 40)
            k += snprintf(o + k, len - (size_t)k, " %s=%lld", b->param_name ? b->param_name : "p",
                          (long long)(s[i].param ? s[i].param : b->param_default));
        if (root_vary && (b->flags & MBX_BENCH_ROOTED) && k < 40)
            k += snprintf(o + k, len - (size_t)k, " root%d", s[i].root);
        if (s[i].copy && k < 44)
            snprintf(o + k, len - (size_t)k, " #2");
    }
}

double mbx_ex_elapsed(const explorer *x)
{
    if (!x->npts)
        return 0;
    /* While paused or stopped, the clock stands at t_pause_begin. */
    double end = x->running && !x->paused ? x->be->now(x->be) : x->t_pause_begin;
    return end - x->t_start - x->t_pause_total + x->t_idle;
}

void mbx_ex_points_free(explorer *x)
{
    for (size_t i = 0; x->pts && i < x->npts; i++) {
        free(x->pts[i].obs);
        free(x->pts[i].oseg);
        free(x->pts[i].pm);
    }
    free(x->pts);
    x->pts = NULL;
    x->npts = 0;
}
