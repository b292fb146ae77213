/* The grid of a measurement (mbx/grid.h). */
#include "mbx/grid.h"

const int *mbx_grid_counts(const mbx_bench *b, int nranks, const int *procs, size_t n, int *one,
                           size_t *pn)
{
    if (b->flags & (MBX_BENCH_PAIR | MBX_BENCH_INNER)) {
        *one = (b->flags & MBX_BENCH_PAIR) ? nranks : 1;
        *pn = 1;
        return one;
    }
    *pn = n;
    return procs;
}

int mbx_grid_fits(const mbx_bench *b, uint64_t bytes, int procs, uint64_t mem_per_rank,
                  uint64_t *need)
{
    *need = 2 * b->buf_bytes(bytes, procs);
    return bytes <= INT32_MAX && *need <= mem_per_rank / 10 * 9;
}

/* The sizes of one (param, procs): ev holds both. */
static int walk_sizes(const mbx_grid *g, mbx_grid_event *ev, mbx_grid_hook hook, void *ud)
{
    int sized = (g->b->flags & MBX_BENCH_SIZED) != 0, rc;
    size_t nsz = sized ? g->sizes->n : 1, npoints = 0;
    uint64_t last = UINT64_MAX;
    ev->kind = MBX_GRID_CURVE;
    if ((rc = hook(ud, ev)) != 0)
        return rc;
    for (size_t si = 0; si < nsz; si++) {
        ev->isize = si;
        ev->bytes = 0;
        if (sized && g->sizes->v[si] == 0 && mbx_bench_zero_why(g->b)) {
            ev->kind = MBX_GRID_ZERO;
            if ((rc = hook(ud, ev)) != 0)
                break;
            continue;
        }
        ev->bytes = mbx_bench_align(g->b, g->sizes->v[si]);
        if (ev->bytes == last)
            continue;
        last = ev->bytes;
        if (g->check_memory &&
            !mbx_grid_fits(g->b, ev->bytes, ev->procs, g->mem_per_rank, &ev->need)) {
            ev->kind = MBX_GRID_MEMORY;
            if ((rc = hook(ud, ev)) != 0)
                break;
            continue;
        }
        ev->kind = MBX_GRID_POINT;
        npoints++;
        if ((rc = hook(ud, ev)) != 0)
            break;
    }
    if (rc < 0)
        return rc;
    ev->kind = MBX_GRID_CURVE_END;
    ev->npoints = npoints;
    return hook(ud, ev);
}

/* One process count of one parameter: its checks, then its sizes. */
static int walk_procs(const mbx_grid *g, mbx_grid_event *ev, mbx_grid_hook hook, void *ud)
{
    int rc;
    if (ev->procs < g->b->min_procs || ev->root >= ev->procs) {
        ev->kind = ev->procs < g->b->min_procs ? MBX_GRID_FEW_PROCS : MBX_GRID_ROOT;
        rc = hook(ud, ev);
        return rc < 0 ? rc : 0;
    }
    rc = walk_sizes(g, ev, hook, ud);
    return rc < 0 ? rc : 0;
}

int mbx_grid_expand(const mbx_grid *g, mbx_grid_hook hook, void *ud)
{
    int has_param = (g->b->flags & MBX_BENCH_PARAM) && g->nparam;
    size_t npar = has_param ? g->nparam : 1;
    for (size_t pi = 0; pi < npar; pi++) {
        for (size_t k = 0; k < g->nprocs; k++) {
            mbx_grid_event ev = {.iparam = pi,
                                 .iprocs = k,
                                 .param = has_param ? g->param[pi] : 0,
                                 .procs = g->procs[k],
                                 .root = (g->b->flags & MBX_BENCH_ROOTED) ? g->root : 0};
            int rc = walk_procs(g, &ev, hook, ud);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}
