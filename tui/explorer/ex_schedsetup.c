/* The explorer's run handed to the scheduler (mbx/sched.h): the
 * scheduler's options from the form, one scheduler curve per explorer
 * curve along the dimension its points are measured over, each curve's
 * grid and refinement budget, and the map between the scheduler's point
 * indices and the run's points. Carrying the run out is ex_sched.c. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "explorer.h"
#include "mbx/bench.h"

void mbx_ex_sched_free(explorer *x)
{
    if (x->sched) /* a run that cannot be kept is not the explorer's to stop over */
        (void)mbx_history_use_record(&x->hist, x->sched, (long long)time(NULL));
    mbx_sched_free(x->sched);
    x->sched = NULL;
    free(x->curves);
    x->curves = NULL;
    x->ncurves = 0;
    free(x->sp_pt);
    x->sp_pt = NULL;
    x->nsp = 0;
}

/* The dimension the scheduler measures (and refines) point p over: its
 * size when the benchmark has one, unless the run has a single size, or a
 * range of process counts (refined over P) longer than its list of sizes;
 * else the process count when the run has several; else the parameter
 * when it has several values; else the process count (a curve of one
 * point). A point is on one scheduler curve only, so it is measured once;
 * the view still draws it along every axis. */
static int sched_dim(const explorer *x, const mbx_ex_point *p)
{
    const mbx_bench *b = mbx_bench_get(p->bench_id);
    int np = mbx_ex_run_nprocs(x);
    size_t ns = x->meas.sizes.n;
    if ((b->flags & MBX_BENCH_SIZED) &&
        (np < 2 || (ns > 1 && !(x->procs_range && ns < (size_t)np))))
        return EX_DIM_SIZE;
    if (np > 1)
        return EX_DIM_PROCS;
    if ((b->flags & MBX_BENCH_PARAM) && mbx_ex_run_nparams(x) > 1)
        return EX_DIM_PARAM;
    return EX_DIM_PROCS;
}

static int refinable(const explorer *x, const mbx_ex_point *p, int dim)
{
    if (!(x->meas.refine > 0) || x->meas.budget == 0 || x->gl.active)
        return 0;
    const mbx_bench *b = mbx_bench_get(p->bench_id);
    if (dim == EX_DIM_SIZE)
        return (b->flags & MBX_BENCH_SIZED) != 0;
    return dim == EX_DIM_PROCS && x->procs_range;
}

static uint64_t point_x(const explorer *x, const mbx_ex_point *p)
{
    return (uint64_t)mbx_ex_point_x(p, x->curves[p->curve].s.dim);
}

/* The scheduler's options of the run; the form's stop rule and pass
 * bounds go to each curve (mbx_runner_curve_of), and its target stands
 * here too for the screens that show it. */
static void sched_opts(const explorer *x, mbx_sched_opts *o)
{
    mbx_sched_opts_init(o);
    /* The guidelines' run: ten passes a point at least, as the command's
     * (why: docs/user-guide.md, "Guidelines: guidelines"). */
    if (x->gl.active && o->passes.min_passes < MBX_GLP_PASSES)
        o->passes.min_passes = MBX_GLP_PASSES;
    if (o->max_passes < o->passes.min_passes)
        o->max_passes = o->passes.min_passes;
    mbx_sched_curve cv = {0};
    mbx_runner_curve_of(&x->meas, o->passes.min_passes, NULL, 0, 0, &cv);
    if (cv.eps > 0)
        o->passes.eps = cv.eps;
    o->probe_every = x->mon.peer ? 0 : -1;
    o->resolution = x->tinfo.resolution > 0 ? x->tinfo.resolution : 0;
    o->nranks = x->be->nranks;
    /* The fake has no slow start to settle (and its clock is the golden
     * screens' time). */
    o->settle = x->be->fake ? 0 : x->settle;
    o->host = x->hist.ref;
    o->host_kept = x->hist.on;
    /* Headless runs on the fake replay the same order (golden screens);
     * a terminal, and real ranks, get a fresh one each run. */
    o->seed = x->headless && x->be->fake ? 0x6d6278u + x->runs
                                         : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
}

/* The explorer's curves of the grid points, x->pts[].curve, in the order
 * of their first point; a repeated x on a curve (two sizes that align to
 * the same) is measured once, the copy dropped. */
static void group_curves(explorer *x)
{
    size_t kept = 0;
    for (size_t i = 0; i < x->npts; i++) {
        mbx_ex_point *p = &x->pts[i];
        int dim = sched_dim(x, p);
        mbx_ex_series s;
        if (!mbx_ex_series_of(p, dim, &s)) {
            dim = EX_DIM_PROCS;
            (void)mbx_ex_series_of(p, dim, &s);
        }
        size_t c = 0;
        while (c < x->ncurves && !mbx_ex_series_eq(&x->curves[c].s, &s))
            c++;
        int dup = 0;
        for (size_t j = 0; j < kept && c < x->ncurves && !dup; j++)
            dup =
                x->pts[j].curve == c && point_x(x, &x->pts[j]) == (uint64_t)mbx_ex_point_x(p, dim);
        if (dup) {
            free(p->obs);
            free(p->oseg);
            free(p->pm);
            continue;
        }
        if (c == x->ncurves) {
            x->curves[c] = (mbx_ex_curve){.s = s, .tmpl = kept, .refine = refinable(x, p, dim)};
            x->ncurves++;
        }
        p->curve = c;
        x->pts[kept++] = *p;
    }
    x->npts = kept;
}

/* Each curve's grid to the scheduler (grid: room for npts values), with
 * its share of the refinement budget; the scheduler's code. */
static int add_curves(explorer *x, uint64_t *grid)
{
    int rc = 0;
    /* Refined points must fit the run's table: the budget is shared. */
    size_t room = EX_MAX_POINTS - x->npts, budget = x->meas.budget;
    if (x->ncurves && budget > room / x->ncurves)
        budget = room / x->ncurves;
    for (size_t c = 0; rc >= 0 && c < x->ncurves; c++) {
        size_t n = 0;
        for (size_t i = 0; i < x->npts; i++)
            if (x->pts[i].curve == c)
                grid[n++] = point_x(x, &x->pts[i]);
        const mbx_ex_curve *cv = &x->curves[c];
        const mbx_bench *b = mbx_bench_get(cv->s.bench_id);
        mbx_sched_curve sc = {.grid = grid, .ngrid = n};
        mbx_runner_curve_of(&x->meas, x->sopt.passes.min_passes, b, cv->s.dim == EX_DIM_SIZE,
                            cv->refine ? budget : 0, &sc);
        if (b->flags & MBX_BENCH_PAIR) { /* the form's pair, or the scan's */
            sc.pair = 1;
            sc.pair_a = x->meas.pair_auto ? -1 : x->meas.pair_a;
            sc.pair_b = x->meas.pair_auto ? -1 : x->meas.pair_b;
        }
        size_t id;
        rc = mbx_sched_add_curve(x->sched, &sc, &id);
    }
    return rc;
}

/* The grid points' indices in the scheduler, both ways. */
static void map_points(explorer *x)
{
    size_t n = mbx_sched_points(x->sched);
    for (size_t k = 0; k < n && k < EX_MAX_POINTS; k++) {
        mbx_sched_point_info in;
        if (mbx_sched_point_info_get(x->sched, k, &in) < 0)
            continue;
        for (size_t i = 0; i < x->npts; i++)
            if (x->pts[i].curve == in.curve && point_x(x, &x->pts[i]) == in.x) {
                x->pts[i].sp = k;
                x->sp_pt[k] = i;
                break;
            }
    }
    x->nsp = n;
}

int mbx_ex_sched_begin(explorer *x)
{
    mbx_ex_sched_free(x);
    x->runs++;
    memset(&x->sst, 0, sizeof x->sst);
    x->curves = calloc(x->npts ? x->npts : 1, sizeof *x->curves);
    x->sp_pt = calloc(EX_MAX_POINTS, sizeof *x->sp_pt);
    uint64_t *grid = calloc(x->npts ? x->npts : 1, sizeof *grid);
    if (!x->curves || !x->sp_pt || !grid) {
        free(grid);
        mbx_ex_sched_free(x);
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "out of memory for the run's scheduler");
        return 0;
    }
    group_curves(x);
    (void)mbx_history_use_open(&x->hist, NULL, x->be->fake, x->be->nranks, (long long)time(NULL));
    mbx_sched_opts o;
    sched_opts(x, &o);
    x->sopt = o;
    int rc = mbx_sched_create(&o, &x->sched);
    if (rc >= 0)
        rc = add_curves(x, grid);
    free(grid);
    if (rc < 0) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "the run's scheduler could not be set up: %s",
                       mbx_strerror(rc));
        mbx_ex_sched_free(x);
        return 0;
    }
    map_points(x);
    mbx_ex_runner_init(x);
    return 1;
}
