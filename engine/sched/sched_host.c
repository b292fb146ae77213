/* What a row's status says beyond its own passes (see sched_int.h): a
 * point whose passes all ran on one of several machine levels, and one
 * measured in an unusual state of its host (mbx/hosthist.h); and this run
 * as a row of the host's history. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/ascii.h"
#include "mbx/stats.h"
#include "sched_int.h"

/* The other levels must hold this share of the probes' time for a point
 * whose passes all ran on one level to be flagged. */
#define OTHER_LEVELS_SHARE 0.1

/* A point that would be SETTLED while all its passes ran on one machine
 * level (level: its id) of a run whose probes show the machine at others
 * a tenth of the time or more: its interval covers that level, and the
 * launch's long run mixes them. With states short enough for its span
 * this is chance (2 levels of 1 s: 5 passes on the one level of two
 * thirds of the time, 13 %); its row says so. */
void mbx_sched_one_level_only(const mbx_sched *s, int level, mbx_result *out)
{
    const mbx_pacing_dwell *d = &s->dw;
    if (out->status != MBX_POINT_SETTLED || level < 0 || d->changes < 1 || d->nlevel < 2 ||
        (size_t)level >= d->nlevel || !(1 - d->share[level] >= OTHER_LEVELS_SHARE))
        return;
    out->status = MBX_POINT_UNSETTLED;
    mbx_snprintf_c(out->status_reason, sizeof out->status_reason, "passes on 1 of %zu levels",
                   d->nlevel);
}

/* The median of the probes taken from t0 to t1, or of all the run's when
 * fewer than 3 fall there; NAN without probes or memory. */
static double probes_median(const mbx_sched *s, double t0, double t1)
{
    size_t a = 0;
    while (a < s->nprobe && s->pt_t[a] < t0)
        a++;
    size_t b = a;
    while (b < s->nprobe && s->pt_t[b] <= t1)
        b++;
    if (b - a < 3)
        a = 0, b = s->nprobe;
    double *v = b > a ? malloc((b - a) * sizeof *v) : NULL;
    if (!v)
        return NAN;
    memcpy(v, s->pt_v + a, (b - a) * sizeof *v);
    double m = mbx_stats_median_sort(v, b - a);
    free(v);
    return m;
}

/* A point that would be SETTLED while the probes over its passes read a
 * state of the machine this host's earlier runs seldom read
 * (mbx_hosthist_unusual): its passes, and any others of a run that never
 * leaves that state, cannot see the states the launch's long run would
 * be in, so its interval covers this state only. The row says so. Before
 * the history has MBX_HOSTHIST_MIN_RUNS runs, a run that saw no level
 * change says that it cannot know (sched_int.h). */
void mbx_sched_host_state(const mbx_sched *s, const spoint *p, mbx_result *out)
{
    double ratio = NAN;
    if (out->status == MBX_POINT_SETTLED && s->o.host_kept &&
        s->o.host.runs < MBX_HOSTHIST_MIN_RUNS && !mbx_sched_switching(s)) {
        /* A run whose probes saw no level change cannot tell a machine of
         * one state from one whose states outlast it (on this project's
         * VMs they last 7 to 40 s), and the host's history cannot tell it
         * yet: the first runs on a host learn that. */
        out->status = MBX_POINT_UNSETTLED;
        mbx_snprintf_c(out->status_reason, sizeof out->status_reason,
                       "states unknown (host history %zu of %d)", s->o.host.runs,
                       MBX_HOSTHIST_MIN_RUNS);
        return;
    }
    double stay = mbx_sched_host_stay(s);
    if (out->status == MBX_POINT_SETTLED && isfinite(stay)) {
        /* The history shows the host's states switch every ~stay s, and
         * this run's probes saw one state for all of it, 3 stays or more
         * (shorter, the pacing's need flagged the point: cannot_cover):
         * by chance (e^-3, 5 %, for exponential stays) or in a spell
         * unlike the history's, its points saw one state of the mix the
         * launch's long run would see (3 levels, stays of 3 s: the
         * SETTLED rows of such runs read the fast level's median, 3 %
         * short of the long-run one, true / err 2.5). */
        out->status = MBX_POINT_UNSETTLED;
        mbx_snprintf_c(out->status_reason, sizeof out->status_reason,
                       "1 state for %.2g s; host's last ~%.2g s", mbx_sched_seen(s), stay);
        return;
    }
    if (out->status != MBX_POINT_SETTLED || s->o.host.runs < MBX_HOSTHIST_MIN_RUNS ||
        !mbx_hosthist_unusual(
            &s->o.host, probes_median(s, p->pass[0].t_start, p->pass[p->npass - 1].t_end), &ratio))
        return;
    out->status = MBX_POINT_UNSETTLED;
    mbx_snprintf_c(out->status_reason, sizeof out->status_reason,
                   "host state %.2gx usual (%zu runs)", ratio, s->o.host.runs);
}

int mbx_sched_host_record(mbx_sched *s, int procs, long long now, mbx_hosthist_rec *out)
{
    if (!s || !out || s->nprobe < MBX_PACING_MIN_PROBES ||
        mbx_sched_seen(s) < MBX_HOSTHIST_MIN_SPAN_S)
        return 0;
    double m = probes_median(s, -INFINITY, INFINITY);
    if (!(m > 0) || mbx_sched_pace_update(s, 1) == MBX_E_NOMEM)
        return 0;
    memset(out, 0, sizeof *out);
    out->when = now;
    out->procs = procs;
    out->probes = s->nprobe;
    out->span = mbx_sched_seen(s);
    out->changes = s->dw.changes;
    out->probe_median = m;
    return 1;
}
