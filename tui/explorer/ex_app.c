/* Starting a run: the grid of points from the picker and the form, the
 * method and the timer on every rank, the scheduler. The loop that reads
 * keys between the scheduler's requests is ex_loop.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explorer.h"
#include "job.h"
#include "mbx/bench.h"
#include "mbx/grid.h"
#include "mbx/rma.h"
#include "mbx/thrinfo.h"

/* The ping-pong pair of a point: the form's A,B, or with auto rank 0 and
 * the farthest rank of the scan. */
static void pair_of(const explorer *x, int *a, int *b)
{
    if (!x->meas.pair_auto) {
        *a = x->meas.pair_a;
        *b = x->meas.pair_b;
    } else {
        *a = 0;
        *b = x->scanned ? x->far : x->be->nranks - 1;
    }
}

/* The explorer's side of the grid (mbx/grid.h): each point as many
 * copies as the picker asks (at most 2) until the table is full; a
 * benchmark that cannot run at a count or size is a warning, a root or a
 * memory problem an error that sends the user back to the form. */
typedef struct grid_ctx {
    explorer *x;
    const mbx_bench *bn;
    int copies;       /* of each point: 1, or 2 for a benchmark picked twice */
    mbx_ex_point tpl; /* all but the process count, root, size and copy */
} grid_ctx;

static int grid_error(explorer *x)
{
    x->screen = EX_PARAMS;
    x->npts = 0;
    return -1;
}

static int grid_hook(void *ud, const mbx_grid_event *ev)
{
    grid_ctx *g = ud;
    explorer *x = g->x;
    const mbx_bench *bn = g->bn;
    switch (ev->kind) {
    case MBX_GRID_FEW_PROCS:
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "%s needs at least %d ranks: skipped at %d", bn->name,
                       bn->min_procs, ev->procs);
        return 0;
    case MBX_GRID_ROOT:
        mbx_ex_set_msg(x, MBX_ROLE_ERROR,
                       "root: %d is not a rank of a %d-process point of %s; allowed 0..%d",
                       ev->root, ev->procs, bn->name, ev->procs - 1);
        return grid_error(x);
    case MBX_GRID_ZERO: /* said, never measured as one unit instead */
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "%s cannot measure 0 B (%s): skipped", bn->name,
                       mbx_bench_zero_why(bn));
        return 0;
    case MBX_GRID_MEMORY:
        mbx_ex_set_msg(x, MBX_ROLE_ERROR,
                       "sizes: %s at %llu bytes needs more memory than a rank has", bn->name,
                       (unsigned long long)ev->bytes);
        return grid_error(x);
    case MBX_GRID_POINT:
        for (int c = 0; c < g->copies && c < 2 && x->npts < EX_MAX_POINTS; c++) {
            mbx_ex_point pt = g->tpl;
            pt.procs = ev->procs;
            pt.param = ev->param;
            pt.root = ev->root;
            pt.bytes = ev->bytes;
            pt.copy = c;
            x->pts[x->npts++] = pt;
        }
        return x->npts >= EX_MAX_POINTS; /* full: no more sizes */
    case MBX_GRID_CURVE: return x->npts >= EX_MAX_POINTS;
    case MBX_GRID_CURVE_END: return 0;
    }
    return 0;
}

/* Expand the selection and parameters into grid points, or with gl the
 * guidelines' plan (screens/guidelines.h: its benchmarks at their sizes,
 * a twin section as the second copy); 0 if there is nothing to run (with
 * a message saying why). */
static int plan_points(explorer *x, int gl, mbx_size_list *gls)
{
    mbx_ex_points_free(x);
    x->pts = calloc(EX_MAX_POINTS, sizeof *x->pts);
    x->npts = 0;
    if (!x->pts)
        return 0;
    for (size_t b = 0; b < mbx_bench_count() && b < EX_MAX_BENCH; b++) {
        int copies = gl ? mbx_ex_gl_bench(x, (int)b, gls) : x->sel[b];
        if (!copies)
            continue;
        const mbx_bench *bn = mbx_bench_get((int)b);
        int one, pa = 0, pb = 0;
        size_t np;
        const int *pv = mbx_grid_counts(bn, x->be->nranks, x->procs, (size_t)x->nprocs, &one, &np);
        if (bn->flags & MBX_BENCH_PAIR) {
            pair_of(x, &pa, &pb);
            if (pa >= x->be->nranks || pb >= x->be->nranks) {
                mbx_ex_set_msg(x, MBX_ROLE_ERROR,
                               "pair: %d,%d is not a pair of ranks 0..%d of the job", pa, pb,
                               x->be->nranks - 1);
                x->screen = EX_PARAMS;
                return 0;
            }
        }
        grid_ctx g = {.x = x,
                      .bn = bn,
                      .copies = copies,
                      .tpl = {.bench_id = (int)b,
                              .pair_a = pa,
                              .pair_b = pb,
                              .rma_sync = (bn->flags & MBX_BENCH_RMA)
                                              ? mbx_rma_sync_resolve(x->meas.rma_sync)
                                              : 0,
                              .origin = EX_GRID,
                              .state = EX_PENDING,
                              .rel = NAN}};
        mbx_grid grid = {.b = bn,
                         .param = x->meas.param,
                         .nparam = x->meas.nparam,
                         .procs = pv,
                         .nprocs = np,
                         .sizes = gl && gls->n ? gls : &x->meas.sizes,
                         .root = x->meas.root,
                         .check_memory = 1,
                         .mem_per_rank = x->be->mem_per_rank};
        if (mbx_grid_expand(&grid, grid_hook, &g) < 0)
            return 0;
    }
    return x->npts > 0;
}

/* The form's sync, clock sync and cache on every rank, before each run
 * (window sync synchronizes the clocks again). */
static int apply_method(explorer *x)
{
    if (!x->be->set_method)
        return 1;
    int rc = x->be->set_method(x->be, &x->method);
    if (rc == MBX_E_UNSUPPORTED) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR,
                       "cache: cold needs the last-level cache size, which hwloc did not find on "
                       "every rank; use warm");
    } else if (rc < 0) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "sync: setting up %s sync failed: %s",
                       mbx_sync_name(x->method.sync), mbx_strerror(rc));
    }
    if (rc < 0)
        x->screen = EX_PARAMS;
    return rc >= 0;
}

void mbx_ex_start_run(explorer *x)
{
    int gl = x->gl.want; /* the guidelines screen asked for its plan's run */
    x->gl.want = 0;
    if (x->running)
        return;
    if (x->xp.on) { /* the run's points are being written */
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "an export is being written: wait for it (3 c stops it)");
        return;
    }
    if (x->bf.running) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "%s is running: cancel it first (5, c)",
                       x->bf.io ? "b_eff_io" : "b_eff");
        return;
    }
    if (x->pr.running) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "the pairs run is on: cancel it first (6, c)");
        return;
    }
    x->msg[0] = '\0';
    if (!mbx_ex_params_ok(x)) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "fix the parameters first (2)");
        x->screen = EX_PARAMS;
        return;
    }
    if (!gl && mbx_ex_picker_count(x) == 0) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "select at least one benchmark first (1)");
        x->screen = EX_PICKER;
        return;
    }
    if (x->configured_timer != (int)x->timer) {
        if (x->be->configure(x->be, x->timer, &x->tinfo) < 0) {
            mbx_ex_set_msg(x, MBX_ROLE_ERROR, "timer: %s cannot be used here",
                           mbx_timer_name(x->timer));
            return;
        }
        x->configured_timer = (int)x->timer;
    }
    x->scanned = 0; /* the scheduler asks for a pair scan when it needs one */
    mbx_size_list *gls = gl ? malloc(sizeof *gls) : NULL;
    x->gl.active = 0;
    int planned = (!gl || gls) && apply_method(x) && plan_points(x, gl, gls);
    free(gls);
    if (!planned)
        return;
    x->gl.active = gl;
    uint64_t largest = 0;
    for (size_t i = 0; i < x->npts; i++)
        if (x->pts[i].bytes > largest)
            largest = x->pts[i].bytes;
    /* The form's warm-up (0: the engine's default), as run --warmup. */
    if (x->be->set_warmup)
        (void)x->be->set_warmup(x->be, x->warmup, largest);
    else if (x->be->set_largest)
        (void)x->be->set_largest(x->be, largest);
    mbx_ex_compare_forget(x);
    x->nrefined = 0;
    mbx_monitor_reset(&x->mon);
    x->thr_unbound[0] = '\0';
    x->mon.peer = x->be->nranks > 1 && x->be->probe ? x->be->nranks - 1 : 0;
    x->cmp.on = x->cmp.choosing = x->cmp.ratios = 0;
    /* Keep the x axis when this run has curves along it; else the first of
     * size, P and parameter that it has (threads.* and omp.* have no size). */
    if (!mbx_ex_dim_useful(x, x->xdim))
        for (int d = EX_DIM_SIZE; d <= EX_DIM_PARAM; d++)
            if (mbx_ex_dim_useful(x, d)) {
                x->xdim = d;
                break;
            }
    mbx_ex_autosave_open(x);
    if (!mbx_ex_sched_begin(x)) {
        x->npts = 0;
        return;
    }
    x->ndone = x->cur = 0;
    x->running = 1;
    x->paused = x->cancel = 0;
    x->t_start = x->be->now(x->be);
    x->t_pause_total = 0;
    x->t_idle = 0;
    x->exported = 0;
    x->screen = gl ? EX_GUIDELINES : EX_RUN;
    if (x->autosave_path[0])
        mbx_ex_set_msg(x, MBX_ROLE_DIM, "autosaving every finished point to %s", x->autosave_path);
    mbx_ex_rma_check(x);
}
