/* What the scheduler knows of its points (see mbx/sched.h): the
 * between-pass state of a point with the machine levels of its passes, its
 * row (mbx_sched_result), its observations, pass medians, levels and times,
 * and the run's statistics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/ascii.h"
#include "mbx/grow.h"
#include "mbx/stats.h"
#include "sched_int.h"

/* The levels of the probes so far, detected once per probe count (rows
 * and the explorer's comparisons ask for them point after point); NULL
 * with fewer than 2 probes or when detection failed. */
const mbx_levels *mbx_sched_levels_now(mbx_sched *s)
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

/* The first probe at or after run time t (nprobe when none). */
static size_t probe_from(const mbx_sched *s, double t)
{
    size_t lo = 0, hi = s->nprobe;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->pt_t[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The segment probe k lies in, -1 for none. */
static int seg_of(const mbx_levels *lv, size_t k)
{
    for (size_t g = 0; g < lv->nseg; g++)
        if (k >= lv->seg[g].begin && k < lv->seg[g].end)
            return (int)g;
    return -1;
}

/* The level of a pass run between t0 and t1: that of the probes around
 * it when they lie in one segment. A pass between probes of two segments
 * straddles a change, and one after the last probe has no probe to say
 * the level held; both are of no known level. Passes before the first
 * probe take its level (the probes start with the run). */
static int level_of(const mbx_sched *s, const mbx_levels *lv, double t0, double t1)
{
    if (!lv || lv->nlevel < 2 || s->nprobe == 0)
        return MBX_PASSES_NO_LEVEL;
    size_t after = probe_from(s, t1);
    if (after == s->nprobe)
        return MBX_PASSES_NO_LEVEL;
    size_t before = probe_from(s, t0);
    before = before ? before - 1 : 0;
    int gb = seg_of(lv, before), ga = seg_of(lv, after);
    if (gb < 0 || gb != ga)
        return MBX_PASSES_NO_LEVEL;
    return lv->seg[gb].level;
}

static int level_at(const mbx_sched *s, const mbx_levels *lv, const mbx_pass *q)
{
    return level_of(s, lv, q->t_start, q->t_end);
}

/* A pass's place in run time: the middle of its batch. */
static double pass_mid(const mbx_pass *q)
{
    return 0.5 * (q->t_start + q->t_end);
}

/* The between-pass state of a point, levels from the probes when known. */
static int passes_of(const mbx_sched *s, const spoint *p, const mbx_levels *lv, mbx_passes **out)
{
    mbx_passes_opts po;
    mbx_sched_passes_opts(s, p, &po);
    int rc = mbx_passes_create(&po, out);
    for (size_t k = 0; rc == MBX_OK && k < p->npass; k++) {
        mbx_pass ps = p->pass[k];
        ps.level = level_at(s, lv, &ps);
        rc = mbx_passes_add(*out, &ps);
    }
    if (rc) {
        mbx_passes_free(*out);
        *out = NULL;
    }
    return rc;
}

int mbx_sched_point_state2(const mbx_sched *s, const spoint *p, mbx_passes_result *r,
                           mbx_passes_result *spread)
{
    mbx_passes *ps;
    int rc = passes_of(s, p, NULL, &ps);
    if (rc)
        return rc;
    rc = mbx_passes_result_get(ps, r);
    mbx_passes_free(ps);
    if (rc == MBX_OK && spread)
        *spread = *r;
    if (rc == MBX_OK)
        mbx_sched_widen(s, p, r);
    return rc;
}

int mbx_sched_point_state(const mbx_sched *s, const spoint *p, mbx_passes_result *r)
{
    return mbx_sched_point_state2(s, p, r, NULL);
}

size_t mbx_sched_points(const mbx_sched *s)
{
    return s ? s->npt : 0;
}

static mbx_point_status status_of(const mbx_sched *s, const spoint *p, const mbx_passes_result *r)
{
    if (p->bad)
        return p->last.status;
    if (p->cut)
        return MBX_POINT_UNSETTLED;
    /* A fixed count has no target: all its passes taken is all it asks. */
    if (s->cv[p->curve].fixed_n > 0)
        return p->npass >= s->cv[p->curve].max_passes ? MBX_POINT_FIXED : MBX_POINT_UNSETTLED;
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
    int rc = mbx_sched_point_state(s, p, &out->passes);
    if (rc)
        return rc;
    out->status = status_of(s, p, &out->passes);
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

/* The between-pass result of point p with the machine levels of its
 * passes, and the first and last of those levels (*nl of them). */
static int result_levels(mbx_sched *s, const spoint *p, mbx_passes_result *r,
                         mbx_passes_level lvl[2], size_t *nl)
{
    mbx_passes *ps;
    int rc = passes_of(s, p, mbx_sched_levels_now(s), &ps);
    if (rc == MBX_OK)
        rc = mbx_passes_result_get(ps, r);
    if (rc == MBX_OK)
        mbx_sched_widen(s, p, r);
    if (rc == MBX_OK && r->nlevels > 0) {
        mbx_passes_level *all = malloc(r->nlevels * sizeof *all);
        if (!all)
            rc = MBX_E_NOMEM;
        else if ((rc = mbx_passes_levels(ps, all, r->nlevels, nl)) == MBX_OK && *nl > 0) {
            lvl[0] = all[0];
            lvl[1] = all[*nl - 1];
        }
        free(all);
    }
    mbx_passes_free(ps);
    return rc;
}

/* A level pass pair, for sorting by level, then by median. */
typedef struct lvpass {
    int level;
    double m;
} lvpass;

static int cmp_lvpass(const void *a, const void *b)
{
    const lvpass *x = a, *y = b;
    if (x->level != y->level)
        return (x->level > y->level) - (x->level < y->level);
    return (x->m > y->m) - (x->m < y->m);
}

/* Whether p's passes show two machine levels apart: two levels, each with
 * 6 or more passes, whose 95 % intervals of the median (order statistics)
 * do not overlap. The probe's level
 * need not touch every operation (docs/algorithms.md, "Passes at two
 * levels"): per-level medians inside each other's intervals are one level
 * as far as this point can tell. 1, 0, or a negative mbx_status. */
static int levels_apart(const mbx_sched *s, const spoint *p, const mbx_levels *lv)
{
    lvpass *v = malloc((p->npass ? p->npass : 1) * sizeof *v);
    if (!v)
        return MBX_E_NOMEM;
    size_t n = 0;
    for (size_t k = 0; k < p->npass; k++) {
        int l = level_at(s, lv, &p->pass[k]);
        if (l != MBX_PASSES_NO_LEVEL)
            v[n++] = (lvpass){l, p->pass[k].median};
    }
    qsort(v, n, sizeof *v, cmp_lvpass);
    double max_lo = -INFINITY, min_hi = INFINITY;
    for (size_t b = 0, e; b < n; b = e) {
        for (e = b; e < n && v[e].level == v[b].level;)
            e++;
        size_t lo, hi;
        /* Below 6 passes no pair of order statistics reaches 95 %: the
         * range of 2 to 5 passes covers their median less often, and two
         * such ranges miss each other by chance (2 against 2: a third of
         * the time). Such a level cannot be told apart. */
        if (!mbx_stats_median_ci_index(e - b, &lo, &hi))
            continue;
        max_lo = fmax(max_lo, v[b + lo - 1].m);
        min_hi = fmin(min_hi, v[b + hi - 1].m);
    }
    free(v);
    return max_lo > min_hi;
}

/* A count taken over the sample of p's observations, scaled to all of
 * them. */
static size_t scaled(const spoint *p, size_t k)
{
    return (size_t)llround((double)k * (double)p->nseen / (double)p->nobs);
}

/* The figures of out over point p's pooled observations, their range
 * widened to cover every pass median. When p kept a sample (more
 * observations than keep_obs), the count, sum, mean, standard deviation,
 * min and max are still those of every observation (kept as they came);
 * the quartiles, trimmed mean and median CI are the sample's, and its
 * outlier and event counts and the trimmed mean's error are scaled to the
 * whole count. */
static int pooled_stats(mbx_sched *s, const spoint *p, mbx_result *out)
{
    if (p->nobs > 0) {
        int rc = mbx_grow((void **)&s->scratch, &s->capscratch, p->nobs, sizeof *s->scratch);
        if (rc != 0)
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
            if (p->nseen > p->nobs) {
                sm.stderr_ *= sqrt((double)p->nobs / (double)p->nseen);
                sm.outliers = scaled(p, sm.outliers);
                events = scaled(p, events);
                sm.n = p->nseen;
                sm.sum = p->osum;
                sm.mean = p->omean;
                sm.stddev = sqrt(p->om2 / (double)(p->nseen - 1));
                sm.min = p->omin;
                sm.max = p->omax;
            }
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
    return MBX_OK;
}

/* The row's status_reason (mbx/sched.h): why a point that is not SETTLED
 * is not, where the scheduler knows it. */
static void reason_of(const mbx_sched *s, const spoint *p, mbx_result *out)
{
    char *b = out->status_reason;
    size_t n = sizeof out->status_reason;
    if (out->status == MBX_POINT_HUNG)
        return; /* the front end's watchdog said why (its bound) */
    b[0] = '\0';
    if (out->status == MBX_POINT_SETTLED || out->status == MBX_POINT_FIXED)
        return;
    if (out->status == MBX_POINT_UNRELIABLE)
        snprintf(b, n, "below timer resolution");
    else if (out->status == MBX_POINT_INVALID)
        snprintf(b, n, "no valid observation");
    else if (out->status == MBX_POINT_SHIFTED)
        snprintf(b, n, "level shift");
    else if (p->cut)
        snprintf(b, n, "pass cut short");
    else if (p->why == WHY_POINT_TIME)
        mbx_snprintf_c(b, n, "point-time %g s", s->cv[p->curve].point_time);
    else if (p->why == WHY_MAX_PASSES)
        snprintf(b, n, "max-passes %zu", s->cv[p->curve].max_passes);
    else if (p->why == WHY_TIME_LIMIT)
        mbx_snprintf_c(b, n, "time-limit %g s", s->o.time_limit);
    else if (p->why == WHY_STOPPED)
        snprintf(b, n, "stopped");
}

/* Seconds in a few characters: two digits below 10 s, whole seconds
 * above (status_reason is short). */
static void secs(char *b, size_t n, double x)
{
    if (x < 10)
        mbx_snprintf_c(b, n, "%.2g", x);
    else
        mbx_snprintf_c(b, n, "%.0f", x);
}

/* A point whose machine states outlast what its passes spanned
 * (mbx_pacing.cannot_cover, and its passes short of the span it needs):
 * its passes saw a part of the states only, so the row is not SETTLED,
 * its CI reaches the medians of every level its passes saw, and its
 * reason says how long the states last against the span the passes
 * had (pass_span_s) and the span they needed, naming the time limit
 * when that was the cap; or, when the passes spanned that need but the
 * probes have not watched long enough to measure the memory, that the
 * states last longer than the estimate. */
static void cannot_cover(const mbx_pacing *pc, int user, const mbx_passes_level lvl[2], size_t nl,
                         mbx_result *out)
{
    if (out->status == MBX_POINT_SETTLED)
        out->status = MBX_POINT_UNSETTLED;
    for (size_t k = 0; k < 2 && nl >= 2; k++) {
        out->s.ci_lo = fmin(out->s.ci_lo, lvl[k].median);
        out->s.ci_hi = fmax(out->s.ci_hi, lvl[k].median);
    }
    char d[16], sp[16], need[16];
    secs(d, sizeof d, pc->states);
    secs(sp, sizeof sp, out->pass_span);
    secs(need, sizeof need, pc->need);
    char *b = out->status_reason;
    size_t n = sizeof out->status_reason;
    if (user)
        mbx_snprintf_c(b, n, "span %s s capped; states last ~%s s", sp, d);
    else if (out->pass_span < pc->need)
        mbx_snprintf_c(b, n, "states ~%s s; spanned %s of %s s", d, sp, need);
    else /* the probes have not yet watched long enough to measure them */
        mbx_snprintf_c(b, n, "states >~%s s; probes too short", d);
}

int mbx_sched_result(mbx_sched *s, size_t i, mbx_result *out)
{
    if (!s || !out || i >= s->npt)
        return MBX_E_INVAL;
    spoint *p = &s->pt[i];
    if (p->failed || p->kept || (p->npass == 0 && !p->bad))
        return MBX_E_INVAL;
    *out = p->last;
    out->setup = p->nsetup ? p->setup_sum / (double)p->nsetup : NAN;
    out->refined = p->refined;
    out->batches = p->batches;
    out->wall = p->wall;
    out->invalid = p->invalid;
    out->faults = p->faults;
    if (p->bad) {
        if (!out->status_reason[0]) /* the pass's own reason stays (a failed data check) */
            reason_of(s, p, out);
        return MBX_OK; /* the failing pass's row as it is */
    }
    mbx_passes_result r;
    mbx_passes_level lvl[2] = {{0, 0, NAN}, {0, 0, NAN}};
    size_t nl = 0;
    int rc = result_levels(s, p, &r, lvl, &nl);
    if (rc == MBX_OK)
        rc = pooled_stats(s, p, out);
    if (rc)
        return rc;
    mbx_result_take_passes(out, &r, p->npass);
    if (p->nobs == 0)
        out->s.n = r.n_obs;
    out->nmin = p->per_pass;
    out->nmax = p->per_pass * s->cv[p->curve].max_passes;
    /* Passes at two or more machine levels that this point's own medians
     * tell apart: the value mixes them, and the row says so (the per-level
     * medians are beside it). Levels it cannot tell apart are one. */
    int one_level = nl == 1 ? lvl[0].level : MBX_PASSES_NO_LEVEL;
    int apart = nl >= 2 ? levels_apart(s, p, mbx_sched_levels_now(s)) : 0;
    if (apart < 0)
        return apart;
    if (!apart && nl > 1)
        nl = 1, lvl[0].median = lvl[1].median = r.b.value;
    out->levels = nl > 0 ? nl : (s->nprobe > 0 ? 1 : 0);
    out->level_lo = nl > 0 ? lvl[0].median : (out->levels ? r.b.value : NAN);
    out->level_hi = nl > 0 ? lvl[1].median : (out->levels ? r.b.value : NAN);
    out->status = status_of(s, p, &r);
    if (apart && !p->cut)
        out->status = MBX_POINT_SHIFTED;
    out->probe = probe_before(s, p->pass[0].t_start);
    out->probe_after = probe_before(s, p->pass[p->npass - 1].t_end);
    out->remeasured = 0;
    reason_of(s, p, out);
    if (s->dw.changes >= 1 && s->dw.nlevel >= 2) {
        out->level_share_lo = s->dw.share[0];
        out->level_share_hi = s->dw.share[s->dw.nlevel - 1];
    }
    mbx_pacing pc;
    int user = 0;
    mbx_sched_pace_of(s, p, &pc, &user);
    /* Passes that spanned what the states need anyway (interleaved with
     * many other points' passes over a long run) saw them as any point
     * may, once the probes have measured the memory (before, the need is
     * a lower bound): the row's status and interval say what they saw. */
    int spanned = out->pass_span >= pc.need && mbx_sched_memory_known(s);
    if (pc.cannot_cover && !spanned && !p->cut && s->cv[p->curve].fixed_n == 0)
        cannot_cover(&pc, user, lvl, nl, out);
    mbx_sched_one_level_only(s, one_level, out);
    mbx_sched_host_state(s, p, out);
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
    /* A sample is no longer the passes' observations in order. */
    int whole = s->pt[i].nseen == s->pt[i].nobs;
    if (n)
        *n = whole ? s->pt[i].noseg : 0;
    return whole ? s->pt[i].oseg : NULL;
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
    if (mbx_grow((void **)&m->scratch, &m->capscratch, p->npass + 1, sizeof *m->scratch) !=
        MBX_OK) {
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

size_t mbx_sched_pass_levels(const mbx_sched *s, size_t i, int *out, size_t cap)
{
    if (!s || !out || i >= s->npt)
        return 0;
    const spoint *p = &s->pt[i];
    /* the cache of levels is the object's own, like the scratch */
    const mbx_levels *lv = mbx_sched_levels_now((mbx_sched *)s);
    size_t n = p->npass < cap ? p->npass : cap;
    for (size_t k = 0; k < n; k++)
        out[k] = level_at(s, lv, &p->pass[k]);
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
