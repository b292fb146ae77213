/* `mpibex run`: the plan and its curves. Loads or builds the plan,
 * resolves and checks benchmarks, ranks, roots, pairs and memory, builds
 * the curves (series) and their points' specs and keys, and the
 * fingerprint a resumed run must match. */
#include "run_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchsel.h"
#include "mbx/grid.h"
#include "mbx/rma.h"

extern const char mbx_embedded_quick_plan[];

static void human_bytes(double b, char *buf, size_t len)
{
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    while (b >= 1024 && i < 4) {
        b /= 1024;
        i++;
    }
    snprintf(buf, len, "%.1f %s", b, u[i]);
}

int mbx_run_build_plan(run_state *st, char *msg)
{
    int rc;
    st->plan = calloc(1, sizeof *st->plan);
    if (!st->plan) {
        snprintf(msg, MSG_LEN, "out of memory");
        return 1;
    }
    if (st->opt.plan_path) {
        rc = mbx_plan_load(st->opt.plan_path, st->plan, msg, MSG_LEN);
    } else if (st->opt.ov.bench) {
        st->plan->nmeas = 1;
        mbx_measurement_defaults(&st->plan->meas[0], "cli");
        rc = MBX_OK; /* --bench and the rest arrive as overrides below */
    } else {
        rc =
            mbx_plan_parse(mbx_embedded_quick_plan, "quick.ini (built in)", st->plan, msg, MSG_LEN);
    }
    if (rc < 0)
        return 2;
    if (mbx_plan_override(st->plan, &st->opt.ov, msg, MSG_LEN) < 0)
        return 2;
    /* Its keys of the whole run (sync, cache, timer, seed, warmup). */
    rc = mbx_cli_plan_run_keys(&st->opt, st->plan,
                               st->opt.plan_path ? st->opt.plan_path : "quick.ini (built in)", msg,
                               MSG_LEN);
    if (rc != 0)
        return rc;
    return mbx_benchsel_plan(st->plan, msg, MSG_LEN);
}

/* The memory a size needs, said (mbx_grid_fits decides). */
static int memory_error(run_state *st, const mbx_bench *b, uint64_t bytes, uint64_t need, char *msg)
{
    char a[32], h[32], sz[32];
    human_bytes((double)need, a, sizeof a);
    human_bytes((double)st->be->mem_per_rank, h, sizeof h);
    mbx_size_format(bytes, sz, sizeof sz);
    snprintf(msg, MSG_LEN,
             "sizes: %s at %s needs %s of buffers per rank; allowed: at most "
             "90%% of the %s available per rank, and messages under 2GiB",
             b->name, sz, a, h);
    return 2;
}

static series *add_series(run_state *st, size_t cap, const mbx_measurement *me, int id,
                          int64_t param, char *msg)
{
    if (st->nser == cap) {
        snprintf(msg, MSG_LEN, "too many curves in the plan (at most %zu)", cap);
        return NULL;
    }
    series *s = &st->ser[st->nser++];
    memset(s, 0, sizeof *s);
    s->meas = me;
    s->bench_id = id;
    s->param = param;
    return s;
}

/* The process counts of a measurement, checked against the job. */
static int procs_of(const mbx_measurement *me, const mbx_bench *b, int nranks, const int **pv,
                    size_t *pn, int *one, char *msg)
{
    *one = nranks;
    *pv = mbx_grid_counts(b, nranks, me->procs_all ? one : me->procs,
                          me->procs_all ? 1 : me->nprocs, one, pn);
    for (size_t i = 0; i < *pn; i++) {
        int p = (*pv)[i];
        if (p > nranks) {
            snprintf(msg, MSG_LEN, "procs: %d in [%s] is more than the job's %d ranks", p,
                     me->label, nranks);
            return 2;
        }
        if (p < b->min_procs) {
            snprintf(msg, MSG_LEN, "procs: %s needs at least %d ranks; [%s] asks for %d", b->name,
                     b->min_procs, me->label, p);
            return 2;
        }
        if ((b->flags & MBX_BENCH_ROOTED) && me->root >= p) {
            snprintf(msg, MSG_LEN, "root: %d is not a rank of a %d-process point; allowed 0..%d",
                     me->root, p, p - 1);
            return 2;
        }
    }
    return 0;
}

/* A range is a wish, not a list: it ends at the job's size, so one plan
 * serves jobs of every size (a note for the table's head says so). */
static void clamp_procs_ranges(run_state *st, int nranks)
{
    for (size_t m = 0; m < st->plan->nmeas; m++) {
        mbx_measurement *mm = &st->plan->meas[m];
        if (mm->procs_range && mm->procs[mm->nprocs - 1] > nranks && mm->procs[0] <= nranks) {
            while (mm->nprocs > 0 && mm->procs[mm->nprocs - 1] >= nranks)
                mm->nprocs--;
            mm->procs[mm->nprocs++] = nranks;
            size_t used = strlen(st->notes);
            snprintf(st->notes + used, sizeof st->notes - used,
                     "# [%s]: the procs range ends at the job's %d ranks\n", mm->label, nranks);
        }
    }
}

/* The bi-th benchmark of a measurement, resolved (*id) and checked against
 * the job: its ranks, pair, process counts (*pv, *pn; *one holds the count
 * when there is one) and parameters. Returns 0 or an exit code with msg. */
static int check_bench(run_state *st, const mbx_measurement *me, size_t bi, int nranks, int *id,
                       const int **pv, size_t *pn, int *one, char *msg)
{
    if (mbx_bench_find(me->bench[bi], id) < 0) {
        snprintf(msg, MSG_LEN,
                 "bench: unknown benchmark '%s' in [%s] (see 'mpibex list' for the "
                 "%zu available)",
                 me->bench[bi], me->label, mbx_bench_count());
        return 2;
    }
    const mbx_bench *b = mbx_bench_get(*id);
    if (nranks < b->min_procs) {
        snprintf(msg, MSG_LEN, "bench: %s needs at least %d ranks, the job has %d", b->name,
                 b->min_procs, nranks);
        return 2;
    }
    int rc;
    *pv = mbx_grid_counts(b, nranks, NULL, 0, one, pn);
    if (b->flags & MBX_BENCH_PAIR) {
        /* Ping-pong runs on the whole job; the pair exchanges. */
        st->need_pair = 1;
        if (!me->pair_auto && (me->pair_a >= nranks || me->pair_b >= nranks)) {
            snprintf(msg, MSG_LEN, "pair: %d,%d is not a pair of ranks 0..%d of the job",
                     me->pair_a, me->pair_b, nranks - 1);
            return 2;
        }
    } else if (b->flags & MBX_BENCH_INNER) {
        /* one rank times calls; the others would only wait */
    } else if ((rc = procs_of(me, b, nranks, pv, pn, one, msg)) != 0) {
        return rc;
    }
    if (me->nparam && !(b->flags & MBX_BENCH_PARAM)) {
        snprintf(msg, MSG_LEN, "param: %s takes no parameter (only %s)", b->name,
                 "benchmarks that list one, e.g. mw.* pieces");
        return 2;
    }
    for (size_t pi = 0; b->param_max && pi < me->nparam; pi++)
        if (me->param[pi] > b->param_max) {
            snprintf(msg, MSG_LEN, "param: %s takes %s in 1..%lld (got %lld)", b->name,
                     b->param_name, (long long)b->param_max, (long long)me->param[pi]);
            return 2;
        }
    return 0;
}

/* A benchmark that cannot measure 0 B starts at its smallest size, as OSU's
 * do: a range from 0 is no error for it. Sizes given (not the default)
 * get one note per benchmark and section for the table's head (first);
 * sizes that hold no other size than 0 are exit 2 with msg. */
static int zero_note(run_state *st, const mbx_measurement *me, const mbx_bench *b, const series *s,
                     int first, char *msg)
{
    if (me->sizes.n == 0 || me->sizes.v[0] != 0 || !mbx_bench_zero_why(b))
        return 0;
    if (s->ngrid == 0) {
        snprintf(msg, MSG_LEN,
                 "sizes: %s cannot measure 0 B: %s, and [%s]'s sizes hold no other (start "
                 "them at %u, or measure it in a plan section of its own)",
                 b->name, mbx_bench_zero_why(b), me->label, b->unit);
        return 2;
    }
    if (!first || !me->sizes_given)
        return 0;
    char from[40];
    mbx_size_format(s->grid[0], from, sizeof from);
    if (strspn(from, "0123456789") == strlen(from))
        strcat(from, " B");
    size_t used = strlen(st->notes);
    snprintf(st->notes + used, sizeof st->notes - used,
             "# [%s]: %s starts at %s, its smallest size (it cannot measure 0 B: %s)\n", me->label,
             b->name, from, mbx_bench_zero_why(b));
    return 0;
}

/* Batch's side of the grid (mbx/grid.h): curves along one axis. An
 * unsized benchmark at one process count with several parameters is one
 * curve over the parameter (AXIS_PARAM); at several counts, one curve
 * over P per parameter (AXIS_PROCS); else one curve per process count over
 * the sizes (AXIS_SIZE, or AXIS_NONE: a single point when unsized). A
 * problem is an error (exit 2); 0 B skipped is a note (zero_note). */
typedef struct grid_ctx {
    run_state *st;
    size_t cap;
    const mbx_measurement *me;
    int id, axis, rc;
    size_t npv; /* the process counts */
    series *s;
    char *msg;
} grid_ctx;

static int grid_fail(grid_ctx *g, int rc)
{
    g->rc = rc;
    return -1;
}

/* A new curve at the start of each of its axis' runs of points. */
static int grid_curve(grid_ctx *g, const mbx_grid_event *ev)
{
    if ((g->axis == AXIS_PARAM && (ev->iparam || ev->iprocs)) ||
        (g->axis == AXIS_PROCS && ev->iprocs))
        return 0;
    series *s =
        add_series(g->st, g->cap, g->me, g->id, g->axis == AXIS_PARAM ? 0 : ev->param, g->msg);
    if (!s)
        return grid_fail(g, 1);
    size_t n = g->axis == AXIS_PARAM   ? g->me->nparam
               : g->axis == AXIS_PROCS ? g->npv
               : g->axis == AXIS_SIZE  ? g->me->sizes.n
                                       : 1;
    s->axis = g->axis;
    s->procs = g->axis == AXIS_PROCS ? 0 : ev->procs;
    s->refine = g->axis == AXIS_PROCS  ? g->me->refine > 0 && g->me->procs_range
                : g->axis == AXIS_SIZE ? g->me->refine > 0
                                       : 0;
    if (!(s->grid = calloc(n ? n : 1, sizeof *s->grid)))
        return grid_fail(g, 1);
    g->s = s;
    return 0;
}

static int grid_hook(void *ud, const mbx_grid_event *ev)
{
    grid_ctx *g = ud;
    const mbx_bench *b = mbx_bench_get(g->id);
    int rc;
    switch (ev->kind) {
    case MBX_GRID_CURVE: return grid_curve(g, ev);
    case MBX_GRID_POINT:
        g->s->grid[g->s->ngrid++] = g->axis == AXIS_PARAM   ? (uint64_t)ev->param
                                    : g->axis == AXIS_PROCS ? (uint64_t)ev->procs
                                                            : ev->bytes;
        g->st->ngrid++;
        return 0;
    case MBX_GRID_ZERO: /* from the next size: zero_note says so */ return 0;
    case MBX_GRID_CURVE_END:
        if (g->axis == AXIS_SIZE &&
            (rc = zero_note(g->st, g->me, b, g->s, ev->iprocs == 0, g->msg)) != 0)
            return grid_fail(g, rc);
        return 0;
    case MBX_GRID_MEMORY: return grid_fail(g, memory_error(g->st, b, ev->bytes, ev->need, g->msg));
    case MBX_GRID_FEW_PROCS: /* check_bench refused both before */
    case MBX_GRID_ROOT:
        snprintf(g->msg, MSG_LEN, "procs: %s cannot run at %d ranks with root %d", b->name,
                 ev->procs, ev->root);
        return grid_fail(g, 2);
    }
    return 0;
}

/* The curves of one checked benchmark of a measurement at the pn process
 * counts pv. */
static int add_curves(run_state *st, size_t cap, const mbx_measurement *me, int id, const int *pv,
                      size_t pn, char *msg)
{
    const mbx_bench *b = mbx_bench_get(id);
    int sized = (b->flags & MBX_BENCH_SIZED) != 0;
    grid_ctx g = {.st = st, .cap = cap, .me = me, .id = id, .npv = pn, .msg = msg};
    g.axis = sized ? AXIS_SIZE : pn > 1 ? AXIS_PROCS : me->nparam > 1 ? AXIS_PARAM : AXIS_NONE;
    mbx_grid grid = {.b = b,
                     .param = me->param,
                     .nparam = me->nparam,
                     .procs = pv,
                     .nprocs = pn,
                     .sizes = &me->sizes,
                     .root = me->root,
                     .check_memory = g.axis == AXIS_SIZE || g.axis == AXIS_NONE,
                     .mem_per_rank = st->be->mem_per_rank};
    return mbx_grid_expand(&grid, grid_hook, &g) < 0 ? g.rc : 0;
}

/* Resolve names, check ranks, roots, pairs and memory, build the curves. */
int mbx_run_build_series(run_state *st, int nranks, char *msg)
{
    size_t cap = 0;
    clamp_procs_ranges(st, nranks);
    for (size_t m = 0; m < st->plan->nmeas; m++) {
        const mbx_measurement *me = &st->plan->meas[m];
        cap += me->nbench * (me->nparam ? me->nparam : 1) * (me->nprocs ? me->nprocs : 1);
    }
    st->ser = calloc(cap ? cap : 1, sizeof *st->ser);
    if (!st->ser) {
        snprintf(msg, MSG_LEN, "out of memory");
        return 1;
    }
    for (size_t m = 0; m < st->plan->nmeas; m++) {
        const mbx_measurement *me = &st->plan->meas[m];
        for (size_t bi = 0; bi < me->nbench; bi++) {
            int id, one, rc;
            const int *pv;
            size_t pn;
            if ((rc = check_bench(st, me, bi, nranks, &id, &pv, &pn, &one, msg)) != 0)
                return rc;
            if ((rc = add_curves(st, cap, me, id, pv, pn, msg)) != 0)
                return rc;
        }
    }
    return 0;
}

/* The fingerprint a resumed run must match: everything that decides which
 * points exist and how they are measured. */
uint64_t mbx_run_plan_hash(const run_state *st, int nranks)
{
    char buf[512];
    uint64_t h = MBX_FNV_OFFSET;
    const mbx_method *m = &st->opt.method;
    int n =
        snprintf(buf, sizeof buf,
                 "ranks=%d timer=%d validate=%d sync=%d clock=%d,%d,%d window=%g,%g cache=%d,%llu",
                 nranks, (int)st->opt.timer, st->opt.validate, (int)m->sync, (int)m->clock.method,
                 m->clock.fitpoints, m->clock.exchanges, m->window, m->window_delay, (int)m->cache,
                 (unsigned long long)m->cache_bytes);
    h = mbx_fnv1a(h, buf, (size_t)n);
    /* The thread level changes what MPI costs; single adds nothing, so
     * journals of runs from before --thread-level still match. */
    if (st->be->thread_asked != MPI_THREAD_SINGLE) {
        n = snprintf(buf, sizeof buf, " thread_level=%d", st->be->thread_asked);
        h = mbx_fnv1a(h, buf, (size_t)n);
    }
    /* Made-up times never continue a measured run, nor the other way. */
    if (st->be->fake)
        h = mbx_fnv1a(h, " fake", 5);
    for (size_t i = 0; i < st->nser; i++) {
        const series *s = &st->ser[i];
        const mbx_measurement *me = s->meas;
        char rule[64];
        mbx_stop_format(&me->stop, rule, sizeof rule);
        n = snprintf(buf, sizeof buf, "|%s|%s|%lld|%d|%llu|%d|%d|%s|%zu|%zu|%g|%zu|%d|%d,%d,%d",
                     me->label, mbx_bench_get(s->bench_id)->name, (long long)s->param, s->procs,
                     (unsigned long long)s->bytes, s->axis, s->refine, rule, me->nmin, me->nmax,
                     me->refine, me->budget, me->root, me->pair_auto, me->pair_a, me->pair_b);
        h = mbx_fnv1a(h, buf, (size_t)n);
        /* The one-sided sync mode; the default adds nothing, so journals
         * of runs from before --rma-sync still match. */
        if (mbx_rma_sync_resolve(me->rma_sync) != MBX_RMA_LOCK_ALL) {
            n = snprintf(buf, sizeof buf, " rma_sync=%d", me->rma_sync);
            h = mbx_fnv1a(h, buf, (size_t)n);
        }
        h = mbx_fnv1a(h, s->grid, s->ngrid * sizeof *s->grid);
    }
    return h;
}

void mbx_run_spec_of(const run_state *st, const pointref *p, mbx_point_spec *spec)
{
    const series *s = p->s;
    const mbx_measurement *me = s->meas;
    const mbx_bench *b = mbx_bench_get(s->bench_id);
    memset(spec, 0, sizeof *spec);
    spec->bench_id = s->bench_id;
    /* unsized: the grid holds 0 */
    spec->bytes = s->axis == AXIS_PROCS || s->axis == AXIS_PARAM ? s->bytes : p->x;
    spec->procs = s->axis == AXIS_PROCS ? (int)p->x : s->procs;
    spec->stop = me->stop;
    spec->nmin = me->nmin;
    spec->nmax = me->nmax;
    spec->param = s->axis == AXIS_PARAM ? (int64_t)p->x : s->param;
    spec->root = (b->flags & MBX_BENCH_ROOTED) ? me->root : 0;
    spec->rma_sync = (b->flags & MBX_BENCH_RMA) ? mbx_rma_sync_resolve(me->rma_sync) : 0;
    if (b->flags & MBX_BENCH_PAIR) {
        spec->pair_a = st->pair_a;
        spec->pair_b = st->pair_b;
    }
    spec->validate = st->opt.validate;
}

void mbx_run_key_of(const mbx_point_spec *spec, const char *label, char *key)
{
    const mbx_bench *b = mbx_bench_get(spec->bench_id);
    long long param =
        (b->flags & MBX_BENCH_PARAM) ? (spec->param ? spec->param : b->param_default) : 0;
    mbx_point_key(key, MBX_KEY_MAX, label, b->name, spec->procs, spec->bytes, param,
                  (b->flags & MBX_BENCH_ROOTED) ? spec->root : -1);
}

/* The largest message size of the plan: the engine pre-faults every pair
 * up to it before the first point. */
uint64_t mbx_run_plan_largest(const run_state *st)
{
    uint64_t m = 0;
    for (size_t i = 0; i < st->nser; i++) {
        const series *s = &st->ser[i];
        if (s->axis == AXIS_SIZE) {
            for (size_t g = 0; g < s->ngrid; g++)
                if (s->grid[g] > m)
                    m = s->grid[g];
        } else if (s->bytes > m) {
            m = s->bytes;
        }
    }
    return m;
}

/* The ping-pong pair: given, kept from the resumed run, or (with more
 * than 2 ranks) left to the scan the scheduler asks for (scan_pair). */
void mbx_run_choose_pair(run_state *st, int nranks)
{
    const mbx_measurement *me = NULL;
    for (size_t i = 0; i < st->nser && !me; i++)
        if (mbx_bench_get(st->ser[i].bench_id)->flags & MBX_BENCH_PAIR)
            me = st->ser[i].meas;
    st->pair_a = 0;
    st->pair_b = nranks - 1;
    st->pair_known = 1;
    if (!me)
        return;
    if (!me->pair_auto) {
        st->pair_a = me->pair_a;
        st->pair_b = me->pair_b;
        return;
    }
    if (st->res.have_pair) {
        st->pair_a = st->res.pair_a;
        st->pair_b = st->res.pair_b;
        printf("# ping-pong pair: ranks %d and %d (kept from the resumed run)\n", st->pair_a,
               st->pair_b);
        return;
    }
    st->pair_known = nranks <= 2;
}
