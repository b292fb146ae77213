/* The scheduler's pacing from the machine's own memory (see mbx/sched.h
 * and mbx/pacing.h; docs/algorithms.md, "The scheduler", Pacing): the
 * estimates from the monitor's probes, kept up to date during the run,
 * each point's gap, least span and due time, and what a front end reads
 * of them. */
#include <math.h>
#include <string.h>

#include "sched_int.h"

/* The probes must have watched this many times tau before a point may
 * settle. A series of T seconds reads any memory longer than about T / 20
 * as about T / 10 (centring it takes out the slow part); a memory of
 * T / 20 or less it reads within about 20 % (tests/unit/test_pacing.c).
 * Until then the pacing assumes a memory of T / 20 at least, so the
 * passes of a point slow down with the run instead of running out. */
#define HORIZON_TAUS 20.0
/* A point may settle once the probes have watched this many times the
 * plan's span S (3 s at the defaults), whatever tau they show then: a
 * short series reads almost any memory as a probe spacing or two
 * (tests/unit/test_sched_honesty.c at rho 0.5: 84 % after 1.5 S, 88 %
 * after 2 S, 91 % after 3 S). The wait is bounded, so a machine whose
 * memory outlasts it cannot stretch the run without bound: its rows say
 * so (mbx_sched_result). Only runs shorter than 3 S pay for it. */
#define HORIZON_SPANS 3.0
/* But never longer than this, seconds, nor shorter than S: 60 probes read
 * the memory the horizon is for, and a plan of long spans (--span 3)
 * should not wait 9 s before any point may settle. */
#define HORIZON_MAX_S 3.0
/* Past the horizon a point settles only once the probes have bounded the
 * memory: the longest tau they cannot rule out at one-sided 95 %
 * (mbx_pacing_tau_bound95) is at most 1/HORIZON_TAUS of what they
 * watched. Until then it waits, up to BOUND_SPANS times S (10 s at the
 * defaults), at most BOUND_MAX_S, never less than the horizon. Over 3 s
 * of probes a memory of 0.36 s and one of 1.1 s read alike (0.1-0.4 s);
 * over 10 s they do not. The 95 % bound and not the 75 % one: a run that
 * stops at the horizon on a short read has every row on the same few
 * machine states, and those rows miss together (at rho 0.8 on the 75 %
 * bound, runs of 3-5 s whose probes read 0.09-0.15 s for a memory of
 * 1.1 s; tests/unit/test_sched_honesty.c: rho 0.5 92.0 -> 95.0 %, rho
 * 0.8 90.6 -> 93.5 % covered or flagged). A machine whose probes show no
 * memory bounds it within the horizon and waits no longer (independent
 * passes: 3.3 s a run, as before). */
#define BOUND_SPANS 10.0
#define BOUND_MAX_S 10.0
/* The most a point's passes span by default, in S (afford). */
#define AFFORD_SPANS 3.0

/* Probes between two estimates: levels and tau cost O(n log^2 n) and
 * O(n tau) a time, and the machine's memory does not change per probe. */
#define EST_EVERY 8

int mbx_sched_pace_update(mbx_sched *s, int force)
{
    if (s->nprobe < MBX_PACING_MIN_PROBES || s->est_n == s->nprobe ||
        (!force && s->nprobe < s->est_n + EST_EVERY))
        return MBX_OK;
    const mbx_levels *lv = mbx_sched_levels_now(s);
    double tau;
    int rc = mbx_pacing_tau(s->pt_t, s->pt_v, s->nprobe, lv, &tau);
    mbx_pacing_dwell dw;
    if (rc == MBX_OK && lv)
        rc = mbx_pacing_dwell_get(s->pt_t, s->nprobe, lv, &dw);
    if (rc == MBX_E_NOMEM)
        return rc;
    if (rc == MBX_OK) {
        s->tau = tau;
        if (lv)
            s->dw = dw;
    }
    s->est_n = s->nprobe;
    return MBX_OK;
}

double mbx_sched_seen(const mbx_sched *s)
{
    return s->nprobe >= 2 ? s->pt_t[s->nprobe - 1] - s->pt_t[0] : 0;
}

/* The probes have watched long enough to judge the memory they show
 * (always, with the monitor off: there is nothing to wait for). */
static int mature(const mbx_sched *s)
{
    if (s->o.probe_every < 0)
        return 1;
    return !isfinite(s->tau) || mbx_sched_seen(s) >= HORIZON_TAUS * s->tau;
}

/* The probes have bounded the memory (BOUND_SPANS). mature() stays on
 * the estimate: it sets tau_used, the pacing's gaps and the flag's need,
 * and taking the bound there too made the passes of a rho 0.5 machine
 * run out before the wait ended (37-45 % of its rows flagged in
 * tests/unit/test_sched_honesty.c, against 12 % with the bound for the
 * wait and the widening only). */
static int bounded(const mbx_sched *s)
{
    return !isfinite(s->tau) ||
           mbx_sched_seen(s) >= HORIZON_TAUS * mbx_pacing_tau_bound95(s->tau, mbx_sched_seen(s));
}

int mbx_sched_memory_known(const mbx_sched *s)
{
    return mature(s);
}

/* The probes have watched the horizon a point waits for (HORIZON_SPANS). */
static double horizon(const mbx_sched *s)
{
    double sp = s->o.passes.min_span;
    return fmax(sp, fmin(HORIZON_SPANS * sp, HORIZON_MAX_S));
}

/* The longest a point waits for the probes to bound the memory. */
static double horizon_max(const mbx_sched *s)
{
    double sp = s->o.passes.min_span;
    return fmax(horizon(s), fmin(BOUND_SPANS * sp, BOUND_MAX_S));
}

/* The probes have watched the horizon and bounded the memory, or watched
 * as long as a point waits for that (BOUND_SPANS). */
static int watched(const mbx_sched *s)
{
    return s->o.probe_every < 0 ||
           (mbx_sched_seen(s) >= horizon(s) && (bounded(s) || mbx_sched_seen(s) >= horizon_max(s)));
}

/* The tau the pacing and the units use: the estimate, and while it is not
 * mature at least what the series cannot rule out. */
static double tau_used(const mbx_sched *s)
{
    if (mature(s))
        return s->tau;
    double least = mbx_sched_seen(s) / HORIZON_TAUS;
    return isfinite(s->tau) ? fmax(s->tau, least) : (least > 0 ? least : NAN);
}

/* The most a point's passes span by default: AFFORD_SPANS times S,
 * within MBX_SCHED_MAX_SPAN_S. Stretching further would make a plain
 * curve's run several times longer on a machine with long states, and
 * still not cover states that outlast the run: the row says so. */
static double afford(const mbx_sched *s)
{
    double s3 = AFFORD_SPANS * s->o.passes.min_span;
    return s3 > 0 ? fmin(MBX_SCHED_MAX_SPAN_S, s3) : MBX_SCHED_MAX_SPAN_S;
}

int mbx_sched_switching(const mbx_sched *s)
{
    return s->dw.changes >= 1 && !s->dw.censored;
}

/* Probes that have seen no level change cannot tell a machine of one
 * state from one whose states outlast them; this host's earlier runs can:
 * their stay (mbx_hosthist_dwell, with the seconds watched here), or NAN
 * when the probes saw a change or the history shows no stay. */
double mbx_sched_host_stay(const mbx_sched *s)
{
    return mbx_sched_switching(s) ? NAN : mbx_hosthist_dwell(&s->o.host, mbx_sched_seen(s));
}

void mbx_sched_pace_of(const mbx_sched *s, const spoint *p, mbx_pacing *out, int *user)
{
    double cap = s->o.max_span > 0 ? s->o.max_span : afford(s);
    int by_user = 0;
    if (s->o.time_limit > 0 && p && p->npass > 0) {
        double left = s->o.time_limit - p->pass[0].t_start;
        if (left < cap) {
            cap = left > 0 ? left : 0;
            by_user = 1;
        }
    }
    mbx_pacing_in in = {.span = s->o.passes.min_span,
                        .passes = s->o.passes.min_passes,
                        .tau = tau_used(s),
                        .dwell = s->dw.mean,
                        .switching = mbx_sched_switching(s),
                        .span_cap = cap > 0 ? cap : 1e-9};
    double host = mbx_sched_host_stay(s);
    if (isfinite(host)) {
        in.dwell = host;
        in.switching = 1;
    }
    mbx_pacing_rule(&in, out);
    if (user)
        *user = by_user;
}

/* Until the estimate is mature no point settles: its least span is out
 * of reach (finite, as mbx_passes asks). */
#define UNREACHABLE_SPAN 1e9

void mbx_sched_passes_opts(const mbx_sched *s, const spoint *p, mbx_passes_opts *o)
{
    *o = s->cv[p->curve].po;
    mbx_pacing pc;
    mbx_sched_pace_of(s, p, &pc, NULL);
    o->min_span = watched(s) ? fmax(o->min_span, pc.span) : UNREACHABLE_SPAN;
    double tau = tau_used(s);
    o->tau = isfinite(tau) ? tau : 0;
    o->resolution = s->o.resolution;
}

double mbx_sched_due_at(const mbx_sched *s, const spoint *p)
{
    if (p->npass == 0 || s->o.passes.min_passes < 2)
        return -INFINITY;
    mbx_pacing pc;
    mbx_sched_pace_of(s, p, &pc, NULL);
    const mbx_pass *last = &p->pass[p->npass - 1];
    double reached = last->t_start - p->pass[0].t_start;
    double gap = reached < pc.span ? pc.first_gap : pc.gap;
    size_t idx = (size_t)(p - s->pt);
    double due = last->t_start + gap * mbx_pacing_jitter(s->o.seed, idx, p->npass);
    /* A point with the passes it needs waits for the probes to have
     * watched long enough, rather than spend --max-passes before any
     * point may settle. */
    if (p->npass >= s->o.passes.min_passes && s->nprobe > 0 && !watched(s))
        due =
            fmax(due, s->pt_t[0] + (mbx_sched_seen(s) >= horizon(s) ? horizon_max(s) : horizon(s)));
    return due;
}

double mbx_sched_pass_gap(const mbx_sched *s)
{
    if (!s)
        return 0.0;
    mbx_pacing pc;
    mbx_sched_pace_of(s, NULL, &pc, NULL);
    return pc.gap;
}

void mbx_sched_pacing_get(const mbx_sched *s, mbx_sched_pacing *out)
{
    memset(out, 0, sizeof *out);
    out->tau = NAN;
    out->dwell = NAN;
    out->host_dwell = NAN;
    if (!s)
        return;
    mbx_pacing pc;
    mbx_sched_pace_of(s, NULL, &pc, NULL);
    out->tau = tau_used(s);
    out->mature = mature(s);
    out->gap = pc.gap;
    out->span = pc.span;
    out->need = pc.need;
    out->cannot_cover = pc.cannot_cover;
    out->changes = s->dw.changes;
    out->dwell = s->dw.changes ? s->dw.mean : NAN;
    out->host_dwell = mbx_sched_host_stay(s);
    out->probes = s->est_n;
}

/* The passes' units are counted as independent, but units at least tau
 * apart still share some of the machine's state: an exponential memory
 * leaves exp(-gap / tau) between them, and the jittered gaps run from
 * tau to 3 tau. Over the pass start times t_i, the effective count is
 * n^2 / sum_ij exp(-|t_i - t_j| / tau) (Kish's design effect); where it
 * is below the units, the interval widens on the log scale by
 * sqrt(units / effective) and a SETTLED point whose watched figure then
 * reaches eps is NOISY again (docs/algorithms.md, "The scheduler",
 * Pacing). */
/* The widening takes the longest memory the probes cannot rule out
 * (mbx_pacing_tau_bound), not the estimate: a series of a few seconds
 * reads a memory of 1.1 s as 0.15-0.8 s, and a short read makes the
 * interval too narrow where a long one only makes it wider. The bound is
 * near the estimate over a long series and infinite over one too short
 * to bound the memory at all; the passes then count as one effective
 * unit. (Before, twice the estimate: about the bound at tau = seen / 20,
 * too little below that line of maturity's reading, and too much over
 * long series.) */
static double effective(const spoint *p, double tau)
{
    double sum = 0;
    for (size_t i = 0; i < p->npass; i++)
        for (size_t j = 0; j < p->npass; j++)
            sum += exp(-fabs(p->pass[i].t_start - p->pass[j].t_start) / tau);
    return (double)p->npass * (double)p->npass / sum;
}

void mbx_sched_widen(const mbx_sched *s, const spoint *p, mbx_passes_result *r)
{
    double tau = mbx_pacing_tau_bound(s->tau, mbx_sched_seen(s));
    /* One unit whose passes stand in for units (passes.c): count those. */
    size_t u = r->units >= 2 ? r->units : r->b.r;
    if (!(tau > 0) || u < 2 || !(r->b.value > 0))
        return;
    double f = sqrt((double)u / effective(p, tau));
    if (!(f > 1) || !isfinite(r->b.relerr))
        return;
    mbx_between *b = &r->b;
    b->ci_lo = b->value * pow(b->ci_lo / b->value, f);
    b->ci_hi = b->value * pow(b->ci_hi / b->value, f);
    b->relerr *= f;
    b->se = b->relerr * b->value;
    b->cirel = (b->ci_hi - b->ci_lo) / (2 * b->value);
    const mbx_passes_opts *po = &s->cv[p->curve].po;
    if (r->verdict == MBX_PASSES_SETTLED && !(mbx_passes_watched(po->kind, b) < po->eps))
        r->verdict = MBX_PASSES_NOISY;
}
