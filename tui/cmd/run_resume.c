/* `mpibex run --resume`: the curves handed to the scheduler with what an
 * interrupted run left: its finished points kept (and fed to refinement),
 * its unfinished points' passes from the journal carried over. */
#include "run_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A killed run's passes of a point without a row, moved from the journal's
 * timeline to before this run began (negative times, spacing kept). */
static int preload(run_state *st, mbx_sched *sch, size_t curve, uint64_t x,
                   const mbx_resume_open *o)
{
    mbx_pass *ps = malloc(o->npass * sizeof *ps);
    if (!ps)
        return MBX_E_NOMEM;
    for (size_t k = 0; k < o->npass; k++) {
        ps[k] = o->pass[k];
        ps[k].t_start -= st->jt_offset;
        ps[k].t_end -= st->jt_offset;
    }
    int rc = mbx_sched_preload(sch, curve, x, o->refined, ps, o->npass);
    free(ps);
    return rc;
}

/* The x on curve s of a resumed point on procs ranks at bytes: 1, or 0
 * when the point belongs to another of the curve key's process counts. */
static int x_on_curve(const series *s, int procs, uint64_t bytes, uint64_t *x)
{
    if (s->axis == AXIS_PROCS)
        *x = (uint64_t)procs;
    else if (procs == s->procs)
        *x = bytes;
    else
        return 0;
    return 1;
}

/* The key of the g-th grid point of s. */
static void grid_key(const run_state *st, const series *s, size_t g, char *key)
{
    pointref p = {s, s->grid[g], 0};
    mbx_point_spec spec;
    mbx_run_spec_of(st, &p, &spec);
    mbx_run_key_of(&spec, s->meas->label, key);
}

/* The curve's key, and the refinement budget a resumed run already spent
 * on it: its refined rows, and refined points carried over from the
 * journal. */
static void curve_key_spent(const run_state *st, const series *s, curve_state *c)
{
    const mbx_bench *b = mbx_bench_get(s->bench_id);
    mbx_point_spec sp0;
    pointref p0 = {s, s->grid[0], 0};
    mbx_run_spec_of(st, &p0, &sp0);
    long long pv = (b->flags & MBX_BENCH_PARAM) ? (sp0.param ? sp0.param : b->param_default) : 0;
    mbx_curve_key(c->key, sizeof c->key, s->meas->label, b->name, pv,
                  (b->flags & MBX_BENCH_ROOTED) ? sp0.root : -1);
    c->spent = 0;
    uint64_t x;
    for (size_t k = 0; k < st->res.n; k++)
        if (st->res.refined[k] && strcmp(st->res.curve[k], c->key) == 0 &&
            x_on_curve(s, st->res.procs[k], 0, &x))
            c->spent++;
    for (size_t k = 0; st->carry && k < st->res.nopen; k++)
        if (st->res.open[k].refined && strcmp(st->res.open[k].curve, c->key) == 0 &&
            x_on_curve(s, st->res.open[k].procs, 0, &x))
            c->spent++;
}

/* What the scheduler is told of curve s: grid, pair, refinement (with the
 * budget left), pass bounds and stop target. */
static void curve_desc(const run_state *st, const series *s, const mbx_sched_opts *so,
                       const curve_state *c, mbx_sched_curve *cv)
{
    const mbx_bench *b = mbx_bench_get(s->bench_id);
    *cv = (mbx_sched_curve){.grid = s->grid, .ngrid = s->ngrid, .ud = (void *)s};
    if (b->flags & MBX_BENCH_PAIR) {
        cv->pair = 1;
        cv->pair_a = st->pair_known ? st->pair_a : -1;
        cv->pair_b = st->pair_known ? st->pair_b : -1;
    }
    size_t budget = s->refine && s->meas->budget > c->spent ? s->meas->budget - c->spent : 0;
    mbx_runner_curve_of(s->meas, so->passes.min_passes, b, s->axis == AXIS_SIZE, budget, cv);
}

/* Finished grid points of a resumed run: kept, fed to refinement. */
static int keep_grid_points(run_state *st, mbx_sched *sch, const series *s, size_t id)
{
    for (size_t g = 0; g < s->ngrid; g++) {
        pointref p = {s, s->grid[g], 0};
        char key[MBX_KEY_MAX];
        grid_key(st, s, g, key);
        long done = mbx_resume_find(&st->res, key);
        if (done < 0)
            continue;
        double y = st->res.median_s[done];
        if (mbx_sched_keep(sch, id, p.x, 0, y > 0 ? y : NAN) < 0)
            return 1;
        mbx_run_note_accurate(st, &p, y, st->res.plain_s[done]);
        st->skipped++;
        st->kept_grid += (size_t)!st->res.refined[done];
    }
    return 0;
}

/* Points of a killed run without a row: the passes its journal holds, of
 * grid points first, then of refined points off the grid. */
static int carry_open_passes(run_state *st, mbx_sched *sch, const series *s, size_t id,
                             const curve_state *c)
{
    for (size_t g = 0; st->carry && g < s->ngrid; g++) {
        char key[MBX_KEY_MAX];
        grid_key(st, s, g, key);
        long o = mbx_resume_find_open(&st->res, key);
        if (o >= 0 && preload(st, sch, id, s->grid[g], &st->res.open[o]) < 0)
            return 1;
    }
    for (size_t k = 0; st->carry && k < st->res.nopen; k++) {
        const mbx_resume_open *o = &st->res.open[k];
        uint64_t x;
        if (!o->refined || strcmp(o->curve, c->key) != 0 || !x_on_curve(s, o->procs, o->bytes, &x))
            continue;
        int on_grid = 0;
        for (size_t g = 0; g < s->ngrid; g++)
            on_grid |= s->grid[g] == x;
        if (!on_grid && preload(st, sch, id, x, o) < 0)
            return 1;
    }
    return 0;
}

/* Refined points a resumed run finished: kept, fed to refinement. */
static int keep_refined_points(run_state *st, mbx_sched *sch, const series *s, size_t id,
                               const curve_state *c)
{
    for (size_t k = 0; k < st->res.n; k++) {
        uint64_t x;
        if (!st->res.refined[k] || strcmp(st->res.curve[k], c->key) != 0 ||
            !x_on_curve(s, st->res.procs[k], st->res.bytes[k], &x))
            continue;
        double y = st->res.median_s[k];
        if (mbx_sched_keep(sch, id, x, 1, y > 0 ? y : NAN) < 0)
            return 1;
        st->skipped++;
    }
    return 0;
}

/* One curve for the scheduler: its grid, its stop target, its refinement,
 * then what a resumed run left of it. */
int mbx_run_sched_curve(run_state *st, mbx_sched *sch, const mbx_sched_opts *so, size_t i,
                        curve_state *c)
{
    const series *s = &st->ser[i];
    mbx_sched_curve cv;
    size_t id;
    curve_key_spent(st, s, c);
    curve_desc(st, s, so, c, &cv);
    if (mbx_sched_add_curve(sch, &cv, &id) < 0)
        return 1;
    if (keep_grid_points(st, sch, s, id) || carry_open_passes(st, sch, s, id, c) ||
        keep_refined_points(st, sch, s, id, c))
        return 1;
    return 0;
}
