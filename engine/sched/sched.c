/* The scheduler that measures in passes (see mbx/sched.h for the contract,
 * docs/algorithms.md "The scheduler (issue 16)" for the reasoning). */
#include "mbx/sched.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/levels.h"
#include "mbx/refine.h"
#include "mbx/stats.h"

/* Waits are handed out in slices no longer than this, so a front end
 * that sleeps through them still draws, probes and sees Ctrl-C. */
#define WAIT_SLICE_S 0.05

typedef struct spoint {
    size_t curve;
    uint64_t x;
    int refined, kept, final, failed;
    double kept_y;
    size_t per_pass; /* observations per pass; 0: a pilot first */
    mbx_pass *pass;
    size_t npass, cappass;
    double *obs;
    size_t nobs, capobs;
    size_t *oseg; /* observations of each measured pass, in order (sum: nobs) */
    size_t noseg, caposeg;
    mbx_result last; /* the last pass's row: everything but the statistics */
    int bad;         /* a pass was UNRELIABLE or INVALID: last holds it */
    int cut;         /* a pass took fewer observations than asked (a time bound) */
    size_t batches, invalid, events, faults;
    double wall;
    int fed; /* its value went to the curve's refinement at least once */
} spoint;

typedef struct scurve {
    uint64_t *grid;
    size_t ngrid;
    mbx_sched_curve c;  /* grid points at the copy above */
    mbx_refine *rf;     /* NULL: no refinement */
    mbx_passes_opts po; /* the scheduler's, with the curve's eps */
    size_t fixed_n;     /* observations per pass; 0: a pilot sizes them */
    size_t max_passes;
    size_t nmin, nmax; /* observations per pass */
    size_t proposed;
} scurve;

struct mbx_sched {
    mbx_sched_opts o;
    scurve *cv;
    size_t ncv, capcv;
    spoint *pt;
    size_t npt, cappt;
    size_t *queue; /* this round's points, in order */
    size_t nq, qpos, capq;
    size_t issued_in_round;
    size_t rounds;
    int started, stopped;
    int outstanding; /* a request is out: out_req */
    mbx_sched_req out_req;
    size_t *finals;
    size_t nfin, capfin, finpos;
    double *pt_t, *pt_v; /* probes */
    size_t nprobe, capprobe;
    double last_probe_t;
    uint64_t rng;
    mbx_sched_stats st;
    double *scratch;
    size_t capscratch;
    int pair_set;       /* the pair of curves without their own is known */
    int pair_a, pair_b; /* it */
    int settled;        /* the settling was done (or is not wanted) */
    mbx_levels lv;      /* the levels of the first lv_n probes (lv_ok: detected) */
    size_t lv_n;
    int lv_ok;
};

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return MBX_OK;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * size);
    if (!q)
        return MBX_E_NOMEM;
    *p = q;
    *cap = n;
    return MBX_OK;
}

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
    if (!(d.passes.eps > 0 && d.passes.eps < 1) || d.passes.min_passes == 0 ||
        d.passes.min_passes > MBX_PASSES_MAX || !(d.passes.min_span >= 0) ||
        !isfinite(d.passes.min_span) || !(d.pass_floor > 0) || !isfinite(d.pass_floor) ||
        d.pass_nmax < d.pass_nmin || d.max_passes < d.passes.min_passes ||
        d.max_passes > MBX_PASSES_MAX || !(d.time_limit >= 0) || !isfinite(d.probe_every) ||
        !(d.resolution >= 0) || !isfinite(d.resolution) || d.nranks < 0 || !(d.settle >= 0) ||
        !isfinite(d.settle))
        return MBX_E_INVAL;
    if (d.nranks == 0)
        d.nranks = 2;
    mbx_sched *s = calloc(1, sizeof *s);
    if (!s)
        return MBX_E_NOMEM;
    s->o = d;
    s->rng = d.seed;
    s->last_probe_t = -INFINITY;
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

static long find_point(const mbx_sched *s, size_t curve, uint64_t x)
{
    for (size_t i = 0; i < s->npt; i++)
        if (s->pt[i].curve == curve && s->pt[i].x == x)
            return (long)i;
    return -1;
}

static int add_point(mbx_sched *s, size_t curve, uint64_t x, int refined, size_t *idx)
{
    int rc = grow((void **)&s->pt, &s->cappt, s->npt + 1, sizeof *s->pt);
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
        !(c->eps < 1))
        return MBX_E_INVAL;
    if (c->pair && c->pair_a >= 0 && c->pair_b >= 0 &&
        (c->pair_a >= s->o.nranks || c->pair_b >= s->o.nranks || c->pair_a == c->pair_b))
        return MBX_E_INVAL;
    for (size_t i = 0; i < c->ngrid; i++)
        for (size_t j = 0; j < i; j++)
            if (c->grid[i] == c->grid[j])
                return MBX_E_INVAL;
    int rc = grow((void **)&s->cv, &s->capcv, s->ncv + 1, sizeof *s->cv);
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
    k->fixed_n = c->fixed_n ? c->fixed_n : s->o.fixed_n;
    k->max_passes = c->max_passes ? c->max_passes : s->o.max_passes;
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
                              .min_ratio = c->min_ratio};
        if ((rc = mbx_refine_create(&ro, &k->rf)) < 0) {
            free(k->grid);
            return rc;
        }
    }
    size_t cid = s->ncv++;
    for (size_t i = 0; i < c->ngrid; i++) {
        size_t idx;
        if ((rc = add_point(s, cid, c->grid[i], 0, &idx)) < 0)
            return rc;
    }
    *id = cid;
    return MBX_OK;
}

/* The point of curve at x: the one there, or a new refined one. */
static int point_at(mbx_sched *s, size_t curve, uint64_t x, size_t *idx)
{
    long i = find_point(s, curve, x);
    if (i >= 0) {
        *idx = (size_t)i;
        return MBX_OK;
    }
    return add_point(s, curve, x, 1, idx);
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
    rc = grow((void **)&p->pass, &p->cappass, p->npass + n, sizeof *p->pass);
    if (rc)
        return rc;
    for (size_t k = 0; k < n; k++) {
        p->pass[p->npass] = passes[k];
        p->pass[p->npass++].level = MBX_PASSES_NO_LEVEL;
    }
    return MBX_OK;
}

/* splitmix64 */
static uint64_t next_rand(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void shuffle(size_t *a, size_t n, uint64_t *state)
{
    for (size_t i = n; i > 1; i--) {
        uint64_t lim = UINT64_MAX - UINT64_MAX % i, r;
        do
            r = next_rand(state);
        while (r >= lim);
        size_t j = (size_t)(r % i);
        size_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

/* The between-pass state of a point, levels from the probes when known. */
/* The levels of the probes so far, detected once per probe count (rows
 * and the explorer's comparisons ask for them point after point); NULL
 * with fewer than 2 probes or when detection failed. */
static const mbx_levels *levels_now(mbx_sched *s)
{
    if (s->nprobe < 2)
        return NULL;
    if (s->lv_n != s->nprobe) {
        mbx_levels_free(&s->lv);
        memset(&s->lv, 0, sizeof s->lv);
        s->lv_ok = mbx_levels_detect(s->pt_v, s->nprobe, NULL, &s->lv) == MBX_OK;
        s->lv_n = s->nprobe;
    }
    return s->lv_ok ? &s->lv : NULL;
}

static int level_at(const mbx_sched *s, const mbx_levels *lv, double t)
{
    if (!lv || lv->nlevel < 2 || s->nprobe == 0)
        return MBX_PASSES_NO_LEVEL;
    /* The probe just before t (or the first one). */
    size_t lo = 0, hi = s->nprobe;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->pt_t[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t k = lo ? lo - 1 : 0;
    for (size_t g = 0; g < lv->nseg; g++)
        if (k >= lv->seg[g].begin && k < lv->seg[g].end)
            return lv->seg[g].level;
    return MBX_PASSES_NO_LEVEL;
}

static int passes_of(const mbx_sched *s, const spoint *p, const mbx_levels *lv, mbx_passes **out)
{
    int rc = mbx_passes_create(&s->cv[p->curve].po, out);
    for (size_t k = 0; rc == MBX_OK && k < p->npass; k++) {
        mbx_pass ps = p->pass[k];
        ps.level = level_at(s, lv, 0.5 * (ps.t_start + ps.t_end));
        rc = mbx_passes_add(*out, &ps);
    }
    if (rc) {
        mbx_passes_free(*out);
        *out = NULL;
    }
    return rc;
}

static int point_state(const mbx_sched *s, const spoint *p, mbx_passes_result *r)
{
    mbx_passes *ps;
    int rc = passes_of(s, p, NULL, &ps);
    if (rc)
        return rc;
    rc = mbx_passes_result_get(ps, r);
    mbx_passes_free(ps);
    return rc;
}

static int push_final(mbx_sched *s, size_t i)
{
    int rc = grow((void **)&s->finals, &s->capfin, s->nfin + 1, sizeof *s->finals);
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
    if (p->npass && !p->bad && !p->cut && point_state(s, p, &r) == MBX_OK &&
        r.verdict == MBX_PASSES_SETTLED)
        s->st.settled++;
    return push_final(s, i);
}

/* When the point's next pass is due: R passes spread evenly over S, and
 * every later pass at least S / (R - 1) after the one before. Without the
 * pacing, the last few open points of a run got their passes back to back
 * (a dozen within 0.15 s): one machine state counted as a dozen
 * independent passes, and a point that ran on alone after its twin had
 * finished saw states its twin never did (the explorer's Send vs Send). */
double mbx_sched_pass_gap(const mbx_sched *s)
{
    if (!s || s->o.passes.min_passes < 2 || !(s->o.passes.min_span > 0))
        return 0.0;
    return s->o.passes.min_span / (double)(s->o.passes.min_passes - 1);
}

static double due_at(const mbx_sched *s, const spoint *p)
{
    if (p->npass == 0 || s->o.passes.min_passes < 2)
        return -INFINITY;
    size_t r = s->o.passes.min_passes;
    double gap = mbx_sched_pass_gap(s);
    if (p->npass < r)
        return p->pass[0].t_start + (double)p->npass * gap;
    return p->pass[p->npass - 1].t_start + gap;
}

/* Refinement between rounds: each curve whose every live point has a
 * value (two passes, or final with a value) feeds them and takes all the
 * proposals it has. */
static int refine_round(mbx_sched *s)
{
    for (size_t c = 0; c < s->ncv; c++) {
        scurve *k = &s->cv[c];
        if (!k->rf)
            continue;
        int ready = 1;
        for (size_t i = 0; i < s->npt && ready; i++) {
            const spoint *p = &s->pt[i];
            if (p->curve != c || p->kept)
                continue;
            if (p->npass < 2 && !(p->final && p->npass >= 1) && !(p->final && p->failed))
                ready = 0;
        }
        if (!ready)
            continue;
        for (size_t i = 0; i < s->npt; i++) {
            spoint *p = &s->pt[i];
            if (p->curve != c || p->kept || p->bad || p->failed || p->npass == 0)
                continue;
            mbx_passes_result r;
            int rc = point_state(s, p, &r);
            if (rc)
                return rc;
            if (r.b.value > 0 && isfinite(r.b.value)) {
                /* The between-pass error: a split must beat the noise. */
                double se = r.b.r >= 2 && isfinite(r.b.se) ? r.b.se : NAN;
                if ((rc = mbx_refine_add_se(k->rf, p->x, r.b.value, se)) < 0 && rc != MBX_E_INVAL)
                    return rc;
                p->fed = 1;
            }
        }
        uint64_t x;
        while (mbx_refine_next(k->rf, &x, NULL) == 1) {
            if (find_point(s, c, x) >= 0)
                continue; /* cannot happen: refinement splits strictly inside */
            size_t idx;
            int rc = add_point(s, c, x, 1, &idx);
            if (rc)
                return rc;
            k->proposed++;
        }
    }
    return MBX_OK;
}

static int new_round(mbx_sched *s)
{
    if (s->rounds > 0) {
        int rc = refine_round(s);
        if (rc)
            return rc;
    }
    int rc = grow((void **)&s->queue, &s->capq, s->npt + 1, sizeof *s->queue);
    if (rc)
        return rc;
    s->nq = 0;
    for (size_t i = 0; i < s->npt; i++)
        if (!s->pt[i].final)
            s->queue[s->nq++] = i;
    if (!s->o.order_plan) {
        /* Curves in the order added, points in x order, before the shuffle,
         * so the shuffle alone decides (and the seed reproduces it). */
        shuffle(s->queue, s->nq, &s->rng);
    }
    s->qpos = 0;
    s->issued_in_round = 0;
    s->rounds++;
    s->st.rounds = s->rounds;
    return MBX_OK;
}

static void make_pass_req(mbx_sched *s, size_t i, mbx_sched_req *r)
{
    const spoint *p = &s->pt[i];
    memset(r, 0, sizeof *r);
    r->kind = MBX_SCHED_PASS;
    r->point = i;
    r->curve = p->curve;
    r->curve_ud = s->cv[p->curve].c.ud;
    r->x = p->x;
    r->refined = p->refined;
    r->pass = p->npass;
    r->round = s->rounds ? s->rounds - 1 : 0;
    r->buf_offset = (uint32_t)(64 * (next_rand(&s->rng) % 64));
    const mbx_sched_curve *c = &s->cv[p->curve].c;
    if (c->pair) {
        int own = c->pair_a >= 0 && c->pair_b >= 0;
        r->pair_a = own ? c->pair_a : s->pair_a;
        r->pair_b = own ? c->pair_b : s->pair_b;
    }
    if (p->per_pass == 0) {
        r->pilot = 1;
        r->nobs = MBX_SCHED_PILOT_N;
        r->warm = 1;
    } else {
        r->nobs = p->per_pass;
        r->batch_first = s->cv[p->curve].fixed_n ? 0 : p->per_pass;
        /* The first pass right after a pilot follows the pilot's warm-up. */
        r->warm = p->npass == 0 && s->cv[p->curve].fixed_n > 0;
    }
}

/* A curve leaves its pair to the scan, and there are ranks to choose from. */
static int scan_wanted(const mbx_sched *s)
{
    if (s->o.nranks <= 2)
        return 0;
    for (size_t i = 0; i < s->ncv; i++)
        if (s->cv[i].c.pair && (s->cv[i].c.pair_a < 0 || s->cv[i].c.pair_b < 0))
            return 1;
    return 0;
}

int mbx_sched_next(mbx_sched *s, double now, mbx_sched_req *out)
{
    if (!s || !out)
        return MBX_E_INVAL;
    if (s->outstanding) {
        *out = s->out_req;
        return (int)out->kind;
    }
    s->started = 1;
    s->st.elapsed = now;
    memset(out, 0, sizeof *out);
    if (!s->stopped && s->o.time_limit > 0 && now >= s->o.time_limit)
        mbx_sched_stop(s);
    if (s->stopped)
        return MBX_SCHED_DONE;
    if (!s->pair_set && scan_wanted(s)) {
        out->kind = MBX_SCHED_PAIR;
        s->out_req = *out;
        s->outstanding = 1;
        return MBX_SCHED_PAIR;
    }
    s->pair_set = 1;
    if (!s->settled) {
        out->kind = MBX_SCHED_SETTLE;
        out->settle = s->o.settle;
        s->out_req = *out;
        s->outstanding = 1;
        return MBX_SCHED_SETTLE;
    }
    if (s->o.probe_every > 0 && now - s->last_probe_t >= s->o.probe_every) {
        out->kind = MBX_SCHED_PROBE;
        s->out_req = *out;
        s->outstanding = 1;
        return MBX_SCHED_PROBE;
    }
    for (;;) {
        while (s->qpos < s->nq) {
            size_t i = s->queue[s->qpos];
            spoint *p = &s->pt[i];
            if (p->final) {
                s->qpos++;
                continue;
            }
            /* A pilot is followed at once by the point's first pass. */
            if ((p->per_pass > 0 && p->npass == 0) || due_at(s, p) <= now) {
                make_pass_req(s, i, out);
                goto issue;
            }
            s->qpos++;
        }
        size_t live = 0;
        for (size_t k = 0; k < s->nq; k++)
            live += !s->pt[s->queue[k]].final;
        if (s->rounds > 0 && s->issued_in_round == 0 && live > 0)
            break; /* nothing of this round was due: wait, then look again */
        int rc = new_round(s);
        if (rc)
            return rc;
        if (s->nq == 0) {
            mbx_sched_stop(s);
            return MBX_SCHED_DONE;
        }
    }
    /* Every live point waits for its next pass to be due. */
    s->qpos = 0;
    double t = INFINITY;
    for (size_t k = 0; k < s->nq; k++)
        if (!s->pt[s->queue[k]].final) {
            double d = due_at(s, &s->pt[s->queue[k]]);
            t = d < t ? d : t;
        }
    double w = t - now;
    if (!(w > 1e-4))
        w = 1e-4;
    if (w > WAIT_SLICE_S)
        w = WAIT_SLICE_S;
    if (s->o.probe_every > 0 && s->last_probe_t + s->o.probe_every - now < w)
        w = fmax(1e-4, s->last_probe_t + s->o.probe_every - now);
    out->kind = MBX_SCHED_WAIT;
    out->wait = w;
    return MBX_SCHED_WAIT;
issue:
    s->issued_in_round++;
    if (!out->pilot)
        s->qpos++;
    s->out_req = *out;
    s->outstanding = 1;
    return MBX_SCHED_PASS;
}

static int keep_obs(mbx_sched *s, spoint *p, const double *obs, size_t n)
{
    (void)s;
    if (n == 0)
        return MBX_OK;
    int rc = grow((void **)&p->obs, &p->capobs, p->nobs + n, sizeof *p->obs);
    if (rc)
        return rc;
    if ((rc = grow((void **)&p->oseg, &p->caposeg, p->noseg + 1, sizeof *p->oseg)) != MBX_OK)
        return rc;
    memcpy(p->obs + p->nobs, obs, n * sizeof *obs);
    p->nobs += n;
    p->oseg[p->noseg++] = n;
    return MBX_OK;
}

int mbx_sched_pass_done(mbx_sched *s, const mbx_sched_pass_report *rep)
{
    if (!s || !rep || !rep->r || !s->outstanding || s->out_req.kind != MBX_SCHED_PASS)
        return MBX_E_INVAL;
    const mbx_result *r = rep->r;
    int bad = r->status == MBX_POINT_UNRELIABLE || r->status == MBX_POINT_INVALID;
    double med = r->s.median;
    if (!bad && !(med > 0 && isfinite(med)))
        return MBX_E_INVAL;
    if (!(rep->t_start <= rep->t_end) || !isfinite(rep->t_start) || !isfinite(rep->t_end))
        return MBX_E_INVAL;
    size_t i = s->out_req.point;
    spoint *p = &s->pt[i];
    int pilot = s->out_req.pilot;
    s->outstanding = 0;
    if (pilot && bad) {
        /* Eight observations are too few to judge a point by: its passes
         * take the fewest observations, and the first of them decides. */
        s->st.pilots++;
        p->per_pass = s->cv[p->curve].nmin;
        return MBX_OK;
    }
    if (pilot) {
        s->st.pilots++;
        double n = ceil(s->o.pass_floor / med * (1 - 1e-9)); /* 1 ms / 1 us is 1000 */
        const scurve *cv = &s->cv[p->curve];
        size_t k = n > (double)cv->nmax ? cv->nmax : (size_t)n;
        p->per_pass = k < cv->nmin ? cv->nmin : k;
        return MBX_OK;
    }
    s->st.passes += !pilot;
    p->last = *r;
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
        int rc = keep_obs(s, p, rep->obs, rep->nobs);
        if (rc)
            return rc;
        return make_final(s, i);
    }
    /* A pass cut short (window sync's time bound gave up) took fewer
     * observations than asked: the point cannot settle, and gets no more. */
    size_t asked = s->out_req.nobs;
    int cut = r->s.n + r->events + r->invalid < asked;
    int rc = grow((void **)&p->pass, &p->cappass, p->npass + 1, sizeof *p->pass);
    if (rc)
        return rc;
    p->cut |= cut;
    p->pass[p->npass++] = (mbx_pass){.median = med,
                                     .n = r->s.n ? r->s.n : 1,
                                     .t_start = rep->t_start,
                                     .t_end = rep->t_end,
                                     .level = MBX_PASSES_NO_LEVEL};
    if ((rc = keep_obs(s, p, rep->obs, rep->nobs)) != MBX_OK)
        return rc;
    mbx_passes_result pr;
    if ((rc = point_state(s, p, &pr)) != MBX_OK)
        return rc;
    if (p->cut || pr.verdict == MBX_PASSES_SETTLED || p->npass >= s->cv[p->curve].max_passes)
        return make_final(s, i);
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

int mbx_sched_pair_done(mbx_sched *s, int far)
{
    if (!s || !s->outstanding || s->out_req.kind != MBX_SCHED_PAIR || far < 1 || far >= s->o.nranks)
        return MBX_E_INVAL;
    s->outstanding = 0;
    s->pair_a = 0;
    s->pair_b = far;
    s->pair_set = 1;
    s->st.scanned = 1;
    return MBX_OK;
}

int mbx_sched_pair(const mbx_sched *s, int *a, int *b)
{
    if (!s || !a || !b || (!s->pair_set && scan_wanted(s)))
        return MBX_E_INVAL;
    *a = s->pair_a;
    *b = s->pair_b;
    return MBX_OK;
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
    int rc = grow((void **)&s->pt_t, &c1, s->nprobe + 1, sizeof *s->pt_t);
    if (rc)
        return rc;
    size_t c2 = s->capprobe;
    if ((rc = grow((void **)&s->pt_v, &c2, s->nprobe + 1, sizeof *s->pt_v)) != MBX_OK)
        return rc;
    s->capprobe = c1 < c2 ? c1 : c2;
    s->pt_t[s->nprobe] = t;
    s->pt_v[s->nprobe++] = value;
    return MBX_OK;
}

void mbx_sched_stop(mbx_sched *s)
{
    if (!s)
        return;
    s->outstanding = 0;
    s->stopped = 1;
    for (size_t i = 0; i < s->npt; i++)
        if (!s->pt[i].final && s->pt[i].npass > 0)
            (void)make_final(s, i);
}

size_t mbx_sched_points(const mbx_sched *s)
{
    return s ? s->npt : 0;
}

static mbx_point_status status_of(const spoint *p, const mbx_passes_result *r)
{
    if (p->bad)
        return p->last.status;
    if (p->cut)
        return MBX_POINT_UNSETTLED;
    return r->verdict == MBX_PASSES_SETTLED ? MBX_POINT_SETTLED : MBX_POINT_UNSETTLED;
}

int mbx_sched_point_info_get(const mbx_sched *s, size_t i, mbx_sched_point_info *out)
{
    if (!s || !out || i >= s->npt)
        return MBX_E_INVAL;
    const spoint *p = &s->pt[i];
    memset(out, 0, sizeof *out);
    out->curve = p->curve;
    out->x = p->x;
    out->refined = p->refined;
    out->final = p->final;
    int rc = point_state(s, p, &out->passes);
    if (rc)
        return rc;
    out->status = status_of(p, &out->passes);
    return MBX_OK;
}

size_t mbx_sched_take_final(mbx_sched *s, size_t *out, size_t cap)
{
    size_t n = 0;
    while (s && out && n < cap && s->finpos < s->nfin)
        out[n++] = s->finals[s->finpos++];
    return n;
}

static double probe_before(const mbx_sched *s, double t)
{
    double v = NAN;
    for (size_t k = 0; k < s->nprobe && s->pt_t[k] <= t; k++)
        v = s->pt_v[k];
    return v;
}

int mbx_sched_result(mbx_sched *s, size_t i, mbx_result *out)
{
    if (!s || !out || i >= s->npt)
        return MBX_E_INVAL;
    spoint *p = &s->pt[i];
    if (p->failed || p->kept || (p->npass == 0 && !p->bad))
        return MBX_E_INVAL;
    *out = p->last;
    out->refined = p->refined;
    out->batches = p->batches;
    out->wall = p->wall;
    out->invalid = p->invalid;
    out->faults = p->faults;
    if (p->bad)
        return MBX_OK; /* the failing pass's row as it is */
    mbx_passes *ps;
    int rc = passes_of(s, p, levels_now(s), &ps);
    mbx_passes_result r;
    if (rc == MBX_OK)
        rc = mbx_passes_result_get(ps, &r);
    mbx_passes_level lvl[2] = {{0, 0, NAN}, {0, 0, NAN}};
    size_t nl = 0;
    if (rc == MBX_OK && r.nlevels > 0) {
        mbx_passes_level *all = malloc(r.nlevels * sizeof *all);
        if (!all)
            rc = MBX_E_NOMEM;
        else if ((rc = mbx_passes_levels(ps, all, r.nlevels, &nl)) == MBX_OK && nl > 0) {
            lvl[0] = all[0];
            lvl[1] = all[nl - 1];
        }
        free(all);
    }
    mbx_passes_free(ps);
    if (rc)
        return rc;
    /* Location statistics over the pooled observations. */
    if (p->nobs > 0) {
        if ((rc = grow((void **)&s->scratch, &s->capscratch, p->nobs, sizeof *s->scratch)) != 0)
            return rc;
        /* Every observation stays in the pooled statistics: the value is
         * the median of the pass medians, which saw them all, and must lie
         * inside [min, max]. Events are counted (a burst of stalls shows),
         * and the between-pass error, not their removal, carries them. */
        mbx_summary sm, drop;
        size_t events = 0;
        if (mbx_stats_summarize(p->obs, p->nobs, s->scratch, &sm) == MBX_OK &&
            mbx_stats_summarize_events(p->obs, p->nobs, s->o.resolution, s->scratch, &drop,
                                       &events) == MBX_OK) {
            out->s = sm;
            out->events = events;
        }
    }
    /* Passes carried over from a killed run's journal have no observations
     * here (mbx_sched_preload): the value, the median of all pass medians,
     * may lie outside the range of the observations pooled in this run;
     * each pass median lies within its own pass's observations, so the
     * range covers them. A bound that is not a number (no observations
     * kept) stays as it is. */
    for (size_t k = 0; k < p->npass; k++) {
        if (!isnan(out->s.min))
            out->s.min = fmin(out->s.min, p->pass[k].median);
        if (!isnan(out->s.max))
            out->s.max = fmax(out->s.max, p->pass[k].median);
    }
    out->iid_stderr = out->s.stderr_;
    out->iid_ci_lo = out->s.ci_lo;
    out->iid_ci_hi = out->s.ci_hi;
    out->s.median = r.b.value;
    out->s.stderr_ = r.b.se;
    out->s.ci_lo = r.b.ci_lo > 0 ? r.b.ci_lo : 0.0;
    out->s.ci_hi = r.b.ci_hi;
    out->s.ci_exact = r.b.ci_exact;
    if (p->nobs == 0)
        out->s.n = r.n_obs;
    out->passes = p->npass;
    out->nmin = p->per_pass;
    out->nmax = p->per_pass * s->cv[p->curve].max_passes;
    out->pass_span = r.span;
    out->levels = nl > 0 ? nl : (s->nprobe > 0 ? 1 : 0);
    out->level_lo = nl > 0 ? lvl[0].median : (out->levels ? r.b.value : NAN);
    out->level_hi = nl > 0 ? lvl[1].median : (out->levels ? r.b.value : NAN);
    out->status = status_of(p, &r);
    /* Passes at two or more machine levels: the value mixes them, and the
     * row says so (the per-level medians are beside it). */
    if (nl >= 2 && !p->cut)
        out->status = MBX_POINT_SHIFTED;
    out->probe = probe_before(s, p->pass[0].t_start);
    out->probe_after = probe_before(s, p->pass[p->npass - 1].t_end);
    out->remeasured = 0;
    return MBX_OK;
}

const double *mbx_sched_obs(const mbx_sched *s, size_t i, size_t *n)
{
    if (!s || i >= s->npt) {
        if (n)
            *n = 0;
        return NULL;
    }
    if (n)
        *n = s->pt[i].nobs;
    return s->pt[i].obs;
}

const size_t *mbx_sched_obs_passes(const mbx_sched *s, size_t i, size_t *n)
{
    if (!s || i >= s->npt) {
        if (n)
            *n = 0;
        return NULL;
    }
    if (n)
        *n = s->pt[i].noseg;
    return s->pt[i].oseg;
}

const double *mbx_sched_pass_medians(const mbx_sched *s, size_t i, size_t *n)
{
    if (!s || i >= s->npt) {
        if (n)
            *n = 0;
        return NULL;
    }
    mbx_sched *m = (mbx_sched *)s; /* the scratch is the object's own */
    const spoint *p = &s->pt[i];
    if (grow((void **)&m->scratch, &m->capscratch, p->npass + 1, sizeof *m->scratch) != MBX_OK) {
        if (n)
            *n = 0;
        return NULL;
    }
    for (size_t k = 0; k < p->npass; k++)
        m->scratch[k] = p->pass[k].median;
    if (n)
        *n = p->npass;
    return m->scratch;
}

/* A pass's place in run time: the middle of its batch. */
static double pass_mid(const mbx_pass *q)
{
    return 0.5 * (q->t_start + q->t_end);
}

size_t mbx_sched_pass_levels(const mbx_sched *s, size_t i, int *out, size_t cap)
{
    if (!s || !out || i >= s->npt)
        return 0;
    const spoint *p = &s->pt[i];
    /* the cache of levels is the object's own, like the scratch */
    const mbx_levels *lv = levels_now((mbx_sched *)s);
    size_t n = p->npass < cap ? p->npass : cap;
    for (size_t k = 0; k < n; k++)
        out[k] = level_at(s, lv, pass_mid(&p->pass[k]));
    return n;
}

size_t mbx_sched_pass_times(const mbx_sched *s, size_t i, double *out, size_t cap)
{
    if (!s || !out || i >= s->npt)
        return 0;
    const spoint *p = &s->pt[i];
    size_t n = p->npass < cap ? p->npass : cap;
    for (size_t k = 0; k < n; k++)
        out[k] = pass_mid(&p->pass[k]);
    return n;
}

void mbx_sched_curve_refine(const mbx_sched *s, size_t c, size_t *points, size_t *refined,
                            double *worst)
{
    size_t np = 0, nr = 0;
    double w = 0;
    if (s && c < s->ncv) {
        for (size_t i = 0; i < s->npt; i++)
            if (s->pt[i].curve == c) {
                np++;
                nr += (size_t)s->pt[i].refined;
            }
        if (s->cv[c].rf)
            w = mbx_refine_worst_any(s->cv[c].rf);
    }
    if (points)
        *points = np;
    if (refined)
        *refined = nr;
    if (worst)
        *worst = w;
}

void mbx_sched_probes(const mbx_sched *s, const double **t, const double **v, size_t *n)
{
    *t = s ? s->pt_t : NULL;
    *v = s ? s->pt_v : NULL;
    *n = s ? s->nprobe : 0;
}

void mbx_sched_stats_get(const mbx_sched *s, mbx_sched_stats *out)
{
    memset(out, 0, sizeof *out);
    if (s)
        *out = s->st;
}
