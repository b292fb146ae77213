/* The scheduler that measures in passes (see mbx/sched.h for the contract,
 * docs/algorithms.md "The scheduler" for the reasoning): its
 * creation, its curves and points (added, kept, preloaded), and the reports
 * of the requests it handed out (passes, settling, probes) up to a point's
 * final state. The order of passes is in sched_round.c, what a front end
 * reads of a point (rows first) in sched_rows.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/grow.h"
#include "sched_int.h"

void mbx_sched_opts_init(mbx_sched_opts *o)
{
    memset(o, 0, sizeof *o);
    mbx_passes_opts_init(&o->passes);
    o->pass_floor = MBX_SCHED_PASS_FLOOR_S;
    o->pass_nmin = MBX_SCHED_PASS_NMIN;
    o->pass_nmax = MBX_SCHED_PASS_NMAX;
    o->max_passes = MBX_SCHED_MAX_PASSES;
    o->probe_every = MBX_SCHED_PROBE_EVERY_S;
    o->seed = 0x6d7062657821ull;
}

int mbx_sched_create(const mbx_sched_opts *o, mbx_sched **out)
{
    if (!out)
        return MBX_E_INVAL;
    *out = NULL;
    mbx_sched_opts d;
    mbx_sched_opts_init(&d);
    if (o)
        d = *o;
    if (d.pass_floor == 0)
        d.pass_floor = MBX_SCHED_PASS_FLOOR_S;
    if (d.pass_nmin == 0)
        d.pass_nmin = MBX_SCHED_PASS_NMIN;
    if (d.pass_nmax == 0)
        d.pass_nmax = MBX_SCHED_PASS_NMAX;
    if (d.max_passes == 0)
        d.max_passes = MBX_SCHED_MAX_PASSES;
    if (d.probe_every == 0)
        d.probe_every = MBX_SCHED_PROBE_EVERY_S;
    if (d.keep_obs == 0)
        d.keep_obs = MBX_SCHED_KEEP_OBS;
    if (!(d.passes.eps > 0 && d.passes.eps < 1) || d.passes.min_passes == 0 ||
        d.passes.min_passes > MBX_PASSES_MAX || !(d.passes.min_span >= 0) ||
        !isfinite(d.passes.min_span) || !(d.pass_floor > 0) || !isfinite(d.pass_floor) ||
        d.pass_nmax < d.pass_nmin || d.max_passes < d.passes.min_passes ||
        d.max_passes > MBX_PASSES_MAX || !(d.time_limit >= 0) || !(d.point_time >= 0) ||
        !isfinite(d.point_time) || !isfinite(d.probe_every) || !(d.resolution >= 0) ||
        !isfinite(d.resolution) || d.nranks < 0 || !(d.settle >= 0) || !isfinite(d.settle) ||
        !(d.max_span >= 0) || !isfinite(d.max_span))
        return MBX_E_INVAL;
    if (d.nranks == 0)
        d.nranks = 2;
    mbx_sched *s = calloc(1, sizeof *s);
    if (!s)
        return MBX_E_NOMEM;
    s->o = d;
    s->rng = d.seed;
    s->last_probe_t = -INFINITY;
    s->tau = NAN;
    s->pair_b = d.nranks - 1;
    s->settled = !(d.settle > 0);
    *out = s;
    return MBX_OK;
}

void mbx_sched_free(mbx_sched *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->ncv; i++) {
        free(s->cv[i].grid);
        mbx_refine_free(s->cv[i].rf);
    }
    for (size_t i = 0; i < s->npt; i++) {
        free(s->pt[i].pass);
        free(s->pt[i].obs);
        free(s->pt[i].oseg);
    }
    free(s->cv);
    free(s->pt);
    free(s->queue);
    free(s->finals);
    free(s->pt_t);
    free(s->pt_v);
    free(s->scratch);
    mbx_levels_free(&s->lv);
    free(s);
}

long mbx_sched_find_point(const mbx_sched *s, size_t curve, uint64_t x)
{
    for (size_t i = 0; i < s->npt; i++)
        if (s->pt[i].curve == curve && s->pt[i].x == x)
            return (long)i;
    return -1;
}

int mbx_sched_add_point(mbx_sched *s, size_t curve, uint64_t x, int refined, size_t *idx)
{
    int rc = mbx_grow((void **)&s->pt, &s->cappt, s->npt + 1, sizeof *s->pt);
    if (rc)
        return rc;
    spoint *p = &s->pt[s->npt];
    memset(p, 0, sizeof *p);
    p->curve = curve;
    p->x = x;
    p->refined = refined;
    p->kept_y = NAN;
    p->per_pass = s->cv[curve].fixed_n;
    *idx = s->npt++;
    s->st.points = s->npt;
    return MBX_OK;
}

int mbx_sched_add_curve(mbx_sched *s, const mbx_sched_curve *c, size_t *id)
{
    if (!s || !c || !id || !c->grid || c->ngrid == 0 || s->started || !(c->eps >= 0) ||
        !(c->eps < 1) || c->stop_kind < MBX_STOP_STDERR || c->stop_kind > MBX_STOP_FIXED)
        return MBX_E_INVAL;
    if (c->pair && c->pair_a >= 0 && c->pair_b >= 0 &&
        (c->pair_a >= s->o.nranks || c->pair_b >= s->o.nranks || c->pair_a == c->pair_b))
        return MBX_E_INVAL;
    for (size_t i = 0; i < c->ngrid; i++)
        for (size_t j = 0; j < i; j++)
            if (c->grid[i] == c->grid[j])
                return MBX_E_INVAL;
    int rc = mbx_grow((void **)&s->cv, &s->capcv, s->ncv + 1, sizeof *s->cv);
    if (rc)
        return rc;
    scurve *k = &s->cv[s->ncv];
    memset(k, 0, sizeof *k);
    k->grid = malloc(c->ngrid * sizeof *k->grid);
    if (!k->grid)
        return MBX_E_NOMEM;
    memcpy(k->grid, c->grid, c->ngrid * sizeof *k->grid);
    k->ngrid = c->ngrid;
    k->c = *c;
    k->c.grid = k->grid;
    k->po = s->o.passes;
    if (c->eps > 0)
        k->po.eps = c->eps;
    k->po.kind = c->stop_kind;
    /* A pass median is read on the same timer as one observation. */
    if (!(k->po.resolution > 0))
        k->po.resolution = s->o.resolution;
    k->fixed_n = c->fixed_n ? c->fixed_n : s->o.fixed_n;
    k->max_passes = c->max_passes ? c->max_passes : s->o.max_passes;
    k->point_time = c->point_time > 0 ? c->point_time : s->o.point_time;
    k->nmin = c->pass_nmin ? c->pass_nmin : s->o.pass_nmin;
    k->nmax = c->pass_nmax ? c->pass_nmax : s->o.pass_nmax;
    if (k->nmax < k->nmin) {
        free(k->grid);
        mbx_refine_free(k->rf);
        return MBX_E_INVAL;
    }
    if (c->refine_eps > 0 && c->budget > 0) {
        mbx_refine_opts ro = {.eps = c->refine_eps,
                              .budget = c->budget,
                              .align = c->align,
                              .geometric = c->geometric,
                              .min_ratio = c->min_ratio,
                              .min_passes = k->po.min_passes};
        if ((rc = mbx_refine_create(&ro, &k->rf)) < 0) {
            free(k->grid);
            return rc;
        }
    }
    size_t cid = s->ncv++;
    for (size_t i = 0; i < c->ngrid; i++) {
        size_t idx;
        if ((rc = mbx_sched_add_point(s, cid, c->grid[i], 0, &idx)) < 0)
            return rc;
    }
    *id = cid;
    return MBX_OK;
}

/* The point of curve at x: the one there, or a new refined one. */
static int point_at(mbx_sched *s, size_t curve, uint64_t x, size_t *idx)
{
    long i = mbx_sched_find_point(s, curve, x);
    if (i >= 0) {
        *idx = (size_t)i;
        return MBX_OK;
    }
    return mbx_sched_add_point(s, curve, x, 1, idx);
}

int mbx_sched_keep(mbx_sched *s, size_t curve, uint64_t x, int refined, double y)
{
    if (!s || curve >= s->ncv || s->started || (!isnan(y) && !(y > 0 && isfinite(y))))
        return MBX_E_INVAL;
    size_t idx;
    int rc = point_at(s, curve, x, &idx);
    if (rc)
        return rc;
    spoint *p = &s->pt[idx];
    p->kept = p->final = 1;
    p->refined = refined;
    p->kept_y = y;
    s->st.final++;
    if (s->cv[curve].rf && y > 0) {
        if (mbx_refine_add(s->cv[curve].rf, x, y) < 0)
            return MBX_E_INVAL;
        p->fed = 1;
    }
    return MBX_OK;
}

int mbx_sched_preload(mbx_sched *s, size_t curve, uint64_t x, int refined, const mbx_pass *passes,
                      size_t n)
{
    if (!s || curve >= s->ncv || s->started || (n > 0 && !passes))
        return MBX_E_INVAL;
    for (size_t k = 0; k < n; k++)
        if (!(passes[k].median > 0) || !isfinite(passes[k].median) || passes[k].n == 0 ||
            !(passes[k].t_start <= passes[k].t_end) || !isfinite(passes[k].t_start) ||
            !isfinite(passes[k].t_end))
            return MBX_E_INVAL;
    size_t idx;
    int rc = point_at(s, curve, x, &idx);
    if (rc)
        return rc;
    spoint *p = &s->pt[idx];
    if (p->kept)
        return MBX_E_INVAL;
    p->refined = refined;
    rc = mbx_grow((void **)&p->pass, &p->cappass, p->npass + n, sizeof *p->pass);
    if (rc)
        return rc;
    for (size_t k = 0; k < n; k++) {
        p->pass[p->npass] = passes[k];
        p->pass[p->npass++].level = MBX_PASSES_NO_LEVEL;
    }
    return MBX_OK;
}

static int push_final(mbx_sched *s, size_t i)
{
    int rc = mbx_grow((void **)&s->finals, &s->capfin, s->nfin + 1, sizeof *s->finals);
    if (rc)
        return rc;
    s->finals[s->nfin++] = i;
    s->st.final++;
    return MBX_OK;
}

static int make_final(mbx_sched *s, size_t i)
{
    spoint *p = &s->pt[i];
    if (p->final)
        return MBX_OK;
    p->final = 1;
    mbx_passes_result r;
    if (p->npass && !p->bad && !p->cut && mbx_sched_point_state(s, p, &r) == MBX_OK &&
        r.verdict == MBX_PASSES_SETTLED)
        s->st.settled++;
    return push_final(s, i);
}

/* A point's own draws for its sample (splitmix64). */
static uint64_t next_draw(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The exact running figures of every observation (mbx_sched_result). */
static void see_obs(spoint *p, double v)
{
    p->nseen++;
    p->osum += v;
    double d = v - p->omean;
    p->omean += d / (double)p->nseen;
    p->om2 += d * (v - p->omean);
    if (p->nseen == 1 || v < p->omin)
        p->omin = v;
    if (p->nseen == 1 || v > p->omax)
        p->omax = v;
}

/* A pass's observations join the point's: all of them while they fit in
 * keep_obs, then a uniform sample of keep_obs (reservoir sampling: the
 * k-th observation replaces a random kept one with probability
 * keep_obs / k), so a point's memory is bounded however many passes it
 * gets (docs/hardening.md, "Scale"). The pass counts (oseg) describe the
 * kept observations only while nothing was dropped. The sink, if any,
 * gets every one (point i's; reset: they replace the point's). */
static int keep_obs(mbx_sched *s, size_t i, int reset, const double *obs, size_t n)
{
    spoint *p = &s->pt[i];
    if (s->o.obs_sink) {
        int rc = s->o.obs_sink(s->o.obs_sink_ud, i, reset, obs, n);
        if (rc < 0)
            return rc;
    }
    if (n == 0)
        return MBX_OK;
    size_t cap = s->o.keep_obs, fit = p->nobs < cap ? cap - p->nobs : 0;
    size_t take = n < fit ? n : fit;
    int rc = mbx_grow((void **)&p->obs, &p->capobs, p->nobs + take, sizeof *p->obs);
    if (rc)
        return rc;
    if ((rc = mbx_grow((void **)&p->oseg, &p->caposeg, p->noseg + 1, sizeof *p->oseg)) != MBX_OK)
        return rc;
    if (p->nseen == 0)
        p->orng = s->o.seed ^ ((uint64_t)p->curve << 32) ^ p->x;
    for (size_t k = 0; k < n; k++) {
        see_obs(p, obs[k]);
        if (k < take) {
            p->obs[p->nobs++] = obs[k];
            continue;
        }
        uint64_t j = next_draw(&p->orng) % (uint64_t)p->nseen;
        if (j < (uint64_t)cap)
            p->obs[j] = obs[k];
    }
    p->oseg[p->noseg++] = n;
    return MBX_OK;
}

int mbx_sched_pass_done(mbx_sched *s, const mbx_sched_pass_report *rep)
{
    if (!s || !rep || !rep->r || !s->outstanding || s->out_req.kind != MBX_SCHED_PASS)
        return MBX_E_INVAL;
    const mbx_result *r = rep->r;
    int hung = r->status == MBX_POINT_HUNG;
    int bad = r->status == MBX_POINT_UNRELIABLE || r->status == MBX_POINT_INVALID || hung;
    double med = r->s.median;
    if (!bad && !(med > 0 && isfinite(med)))
        return MBX_E_INVAL;
    if (!(rep->t_start <= rep->t_end) || !isfinite(rep->t_start) || !isfinite(rep->t_end))
        return MBX_E_INVAL;
    size_t i = s->out_req.point;
    spoint *p = &s->pt[i];
    int pilot = s->out_req.pilot;
    s->outstanding = 0;
    /* A pass that hung is final whatever it was for: measuring the point
     * again would only hang the run again (docs/hardening.md, "Watchdog"). */
    if (pilot && bad && !hung) {
        /* Eight observations are too few to judge a point by: its passes
         * take the fewest observations, and the first of them decides. */
        s->st.pilots++;
        p->per_pass = s->cv[p->curve].nmin;
        return MBX_OK;
    }
    if (pilot && !hung) {
        s->st.pilots++;
        double n = ceil(s->o.pass_floor / med * (1 - 1e-9)); /* 1 ms / 1 us is 1000 */
        const scurve *cv = &s->cv[p->curve];
        size_t k = n > (double)cv->nmax ? cv->nmax : (size_t)n;
        p->per_pass = k < cv->nmin ? cv->nmin : k;
        return MBX_OK;
    }
    s->st.passes += !pilot;
    p->last = *r;
    if (r->setup > 0) /* NAN and 0: the benchmark makes nothing to time */
        p->setup_sum += r->setup, p->nsetup++;
    p->batches += r->batches;
    p->wall += r->wall;
    p->invalid += r->invalid;
    p->events += r->events;
    p->faults += r->faults;
    if (bad) {
        /* The point's row is this pass's, with this pass's observations. */
        p->bad = 1;
        p->nobs = 0;
        p->noseg = 0;
        p->nseen = 0;
        p->osum = p->omean = p->om2 = 0;
        int rc = keep_obs(s, i, 1, rep->obs, rep->nobs);
        if (rc)
            return rc;
        return make_final(s, i);
    }
    /* A pass cut short (window sync's time bound gave up) took fewer
     * observations than asked: the point cannot settle, and gets no more. */
    size_t asked = s->out_req.nobs;
    int cut = r->s.n + r->events + r->invalid < asked;
    int rc = mbx_grow((void **)&p->pass, &p->cappass, p->npass + 1, sizeof *p->pass);
    if (rc)
        return rc;
    p->cut |= cut;
    p->pass[p->npass++] = (mbx_pass){.median = med,
                                     .n = r->s.n ? r->s.n : 1,
                                     .t_start = rep->t_start,
                                     .t_end = rep->t_end,
                                     .level = MBX_PASSES_NO_LEVEL};
    if ((rc = keep_obs(s, i, 0, rep->obs, rep->nobs)) != MBX_OK)
        return rc;
    mbx_passes_result pr;
    if ((rc = mbx_sched_point_state(s, p, &pr)) != MBX_OK)
        return rc;
    if (p->cut || pr.verdict == MBX_PASSES_SETTLED)
        return make_final(s, i);
    if (p->npass >= s->cv[p->curve].max_passes) {
        p->why = WHY_MAX_PASSES;
        return make_final(s, i);
    }
    /* IMB's -time, per point: its passes have had their time. */
    double cap = s->cv[p->curve].point_time, spent = 0;
    for (size_t k = 0; cap > 0 && k < p->npass; k++)
        spent += p->pass[k].t_end - p->pass[k].t_start;
    if (cap > 0 && spent >= cap) {
        p->why = WHY_POINT_TIME;
        return make_final(s, i);
    }
    return MBX_OK;
}

void mbx_sched_pass_failed(mbx_sched *s)
{
    if (!s || !s->outstanding || s->out_req.kind != MBX_SCHED_PASS)
        return;
    s->outstanding = 0;
    size_t i = s->out_req.point;
    s->pt[i].failed = 1;
    (void)make_final(s, i);
}

int mbx_sched_settle_done(mbx_sched *s, double seconds)
{
    if (!s || !s->outstanding || s->out_req.kind != MBX_SCHED_SETTLE)
        return MBX_E_INVAL;
    s->outstanding = 0;
    s->settled = 1;
    s->st.settle = seconds > 0 && isfinite(seconds) ? seconds : 0;
    return MBX_OK;
}

int mbx_sched_probe_done(mbx_sched *s, double t, double value)
{
    if (!s || !s->outstanding || s->out_req.kind != MBX_SCHED_PROBE)
        return MBX_E_INVAL;
    s->outstanding = 0;
    s->last_probe_t = t;
    s->st.probes++;
    if (!(value > 0 && isfinite(value)) || !isfinite(t))
        return MBX_OK;
    size_t c1 = s->capprobe;
    int rc = mbx_grow((void **)&s->pt_t, &c1, s->nprobe + 1, sizeof *s->pt_t);
    if (rc)
        return rc;
    size_t c2 = s->capprobe;
    if ((rc = mbx_grow((void **)&s->pt_v, &c2, s->nprobe + 1, sizeof *s->pt_v)) != MBX_OK)
        return rc;
    s->capprobe = c1 < c2 ? c1 : c2;
    s->pt_t[s->nprobe] = t;
    s->pt_v[s->nprobe++] = value;
    return mbx_sched_pace_update(s, 0);
}

void mbx_sched_stop(mbx_sched *s)
{
    if (!s)
        return;
    s->outstanding = 0;
    s->stopped = 1;
    for (size_t i = 0; i < s->npt; i++)
        if (!s->pt[i].final && s->pt[i].npass > 0) {
            s->pt[i].why = s->stop_why ? s->stop_why : WHY_STOPPED;
            (void)make_final(s, i);
        }
}
