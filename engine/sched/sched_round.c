/* The scheduler's order of passes (see mbx/sched.h): the pair scan,
 * settling and probes before a pass, rounds in shuffled order, the pacing
 * of a point's passes (when the next is due), refinement between rounds,
 * and the waits when nothing is due. */
#include <math.h>
#include <string.h>

#include "mbx/grow.h"
#include "sched_int.h"

/* Waits are handed out in slices no longer than this, so a front end
 * that sleeps through them still draws, probes and sees Ctrl-C. */
#define WAIT_SLICE_S 0.05

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

/* Refinement between rounds: each curve whose every live point is final
 * or has R passes feeds its points with R passes or more (or settled) and
 * takes all the proposals it has. A split cannot be taken back, so it is
 * made on settled errors only: two-pass errors split a straight line in
 * most runs (docs/algorithms.md, "Refinement with uncertainty"). */
static int refine_round(mbx_sched *s)
{
    for (size_t c = 0; c < s->ncv; c++) {
        scurve *k = &s->cv[c];
        if (!k->rf)
            continue;
        size_t R = k->po.min_passes;
        int ready = 1;
        for (size_t i = 0; i < s->npt && ready; i++) {
            const spoint *p = &s->pt[i];
            if (p->curve == c && !p->kept && !p->final && p->npass < R)
                ready = 0;
        }
        if (!ready)
            continue;
        for (size_t i = 0; i < s->npt; i++) {
            spoint *p = &s->pt[i];
            if (p->curve != c || p->kept || p->bad || p->failed || p->npass == 0)
                continue;
            mbx_passes_result r, sp;
            int rc = mbx_sched_point_state2(s, p, &r, &sp);
            if (rc)
                return rc;
            size_t units = sp.units ? sp.units : sp.b.r;
            int settled = r.verdict == MBX_PASSES_SETTLED;
            if (!(sp.b.value > 0) || !isfinite(sp.b.value) || !isfinite(sp.b.se) || units < 2 ||
                (p->npass < R && !settled))
                continue;
            /* The passes' own error with its degrees of freedom, not the
             * error widened for the machine's memory: that part is shared
             * by neighbours measured in the same rounds and cancels in the
             * contrast refinement tests (docs/algorithms.md, "Refinement
             * with uncertainty"). */
            rc = mbx_refine_add_est(k->rf, p->x, sp.b.value, sp.b.se, settled ? SIZE_MAX : p->npass,
                                    (double)(units - 1));
            if (rc < 0 && rc != MBX_E_INVAL)
                return rc;
            p->fed = 1;
        }
        uint64_t x;
        while (mbx_refine_next(k->rf, &x, NULL) == 1) {
            if (mbx_sched_find_point(s, c, x) >= 0)
                continue; /* cannot happen: refinement splits strictly inside */
            size_t idx;
            int rc = mbx_sched_add_point(s, c, x, 1, &idx);
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
    int rc = mbx_grow((void **)&s->queue, &s->capq, s->npt + 1, sizeof *s->queue);
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

/* Hands out request r: it is the outstanding one until its report. */
static int hand_out(mbx_sched *s, const mbx_sched_req *r)
{
    s->out_req = *r;
    s->outstanding = 1;
    return (int)r->kind;
}

/* What comes before any pass: the pair scan, settling, a monitor probe when
 * one is due. 1 with *out filled when one is wanted, else 0. */
static int preliminary(mbx_sched *s, double now, mbx_sched_req *out)
{
    if (!s->pair_set && scan_wanted(s)) {
        out->kind = MBX_SCHED_PAIR;
        return 1;
    }
    s->pair_set = 1;
    if (!s->settled) {
        out->kind = MBX_SCHED_SETTLE;
        out->settle = s->o.settle;
        return 1;
    }
    if (s->o.probe_every > 0 && now - s->last_probe_t >= s->o.probe_every) {
        out->kind = MBX_SCHED_PROBE;
        return 1;
    }
    return 0;
}

/* The next point of this round whose pass is due, starting new rounds as
 * they run out: MBX_SCHED_PASS with *i its index, MBX_SCHED_WAIT when no
 * point of this round is due yet, MBX_SCHED_DONE when no point is left
 * (the scheduler stopped), or a negative mbx_status. */
static int due_point(mbx_sched *s, double now, size_t *i)
{
    for (;;) {
        while (s->qpos < s->nq) {
            const spoint *p = &s->pt[s->queue[s->qpos]];
            /* A pilot is followed at once by the point's first pass. */
            if (!p->final &&
                ((p->per_pass > 0 && p->npass == 0) || mbx_sched_due_at(s, p) <= now)) {
                *i = s->queue[s->qpos];
                return MBX_SCHED_PASS;
            }
            s->qpos++;
        }
        size_t live = 0;
        for (size_t k = 0; k < s->nq; k++)
            live += !s->pt[s->queue[k]].final;
        if (s->rounds > 0 && s->issued_in_round == 0 && live > 0)
            return MBX_SCHED_WAIT; /* nothing of this round was due: wait, then look again */
        int rc = new_round(s);
        if (rc)
            return rc;
        if (s->nq == 0) {
            mbx_sched_stop(s);
            return MBX_SCHED_DONE;
        }
    }
}

/* How long to wait (at most one slice) when no point is due: until the
 * first live point's next pass is due, or the next probe. */
static double wait_for(mbx_sched *s, double now)
{
    s->qpos = 0;
    double t = INFINITY;
    for (size_t k = 0; k < s->nq; k++)
        if (!s->pt[s->queue[k]].final) {
            double d = mbx_sched_due_at(s, &s->pt[s->queue[k]]);
            t = d < t ? d : t;
        }
    double w = t - now;
    if (!(w > 1e-4))
        w = 1e-4;
    if (w > WAIT_SLICE_S)
        w = WAIT_SLICE_S;
    if (s->o.probe_every > 0 && s->last_probe_t + s->o.probe_every - now < w)
        w = fmax(1e-4, s->last_probe_t + s->o.probe_every - now);
    return w;
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
    if (!s->stopped && s->o.time_limit > 0 && now >= s->o.time_limit) {
        s->stop_why = WHY_TIME_LIMIT;
        mbx_sched_stop(s);
    }
    if (s->stopped)
        return MBX_SCHED_DONE;
    if (preliminary(s, now, out))
        return hand_out(s, out);
    size_t i = 0;
    int rc = due_point(s, now, &i);
    if (rc == MBX_SCHED_WAIT) {
        out->kind = MBX_SCHED_WAIT;
        out->wait = wait_for(s, now);
    }
    if (rc != MBX_SCHED_PASS)
        return rc;
    make_pass_req(s, i, out);
    s->issued_in_round++;
    if (!out->pilot)
        s->qpos++;
    return hand_out(s, out);
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
