/* mpibex: the scheduler that measures in passes (docs/algorithms.md,
 * "The scheduler").
 *
 * One scheduler on rank 0 decides what is measured next, for batch runs and
 * the explorer alike. It holds the run's curves and their points, and hands
 * out requests one at a time; the front end carries each out with its back
 * end (the MPI engine or the fake) and reports back. The scheduler never
 * measures, prints or draws: it is pure C, and its decisions are functions
 * of what it was told and of its seed, so tests drive it with synthetic
 * series.
 *
 * The order it measures in:
 *  - round 0 is pass 1 of every grid point of every curve, in one shuffled
 *    order across all curves (the whole picture first);
 *  - every further round gives one pass to each point that is not final
 *    yet, in a fresh shuffled order, so each point's passes are spread over
 *    the whole run and every curve sees the same machine states;
 *  - between rounds, refinement proposes new points on curves that ask for
 *    it, from the points' values and between-pass errors (mbx_refine with
 *    uncertainty); new points join the next round;
 *  - a monitor probe (MBX_SCHED_PROBE) is asked for before round 0 and then
 *    whenever probe_every seconds of run time have passed, between passes.
 * Before all of that, once: the ping-pong pair scan (MBX_SCHED_PAIR), when a
 * curve's pair is left to the scan and the job has more than 2 ranks, then
 * settling (MBX_SCHED_SETTLE), untimed traffic on every rank for `settle`
 * seconds: the first fraction of a second of a job reads slow on these
 * machines, and the first probe and pass come after it.
 * Passes are paced: a point's k-th pass (k < min_passes) is not due before
 * its first pass's start + k * min_span / (min_passes - 1), so its first R
 * passes spread over S seconds however short a round is; when nothing is
 * due the scheduler answers MBX_SCHED_WAIT.
 * A point is final when its passes are SETTLED (mbx_passes: at least
 * min_passes passes over at least min_span seconds, between-pass relative
 * error below eps), when it has max_passes passes, when a pass of it was
 * UNRELIABLE or INVALID (no time to refine), or when the run stops (time
 * limit, or the front end asks). Its row comes from mbx_sched_result.
 *
 * Each point's first request is a PILOT: a few observations after the full
 * warm-up, which are not a pass; they size the point's passes so each lasts
 * about pass_floor seconds (at least pass_nmin observations, at most
 * pass_nmax). Later passes ask for a light warm-up.
 *
 * Not thread-safe; one object per run. */
#ifndef MBX_SCHED_H
#define MBX_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/hosthist.h"
#include "mbx/passes.h"
#include "mbx/result.h"
#include "mbx/status.h"

#define MBX_SCHED_PASS_FLOOR_S 1e-3 /* a pass lasts at least this long */
#define MBX_SCHED_PASS_NMIN 16      /* and takes at least this many observations */
#define MBX_SCHED_PASS_NMAX 20000   /* and at most this many */
#define MBX_SCHED_PILOT_N 8         /* observations of a point's pilot */
#define MBX_SCHED_MAX_PASSES 15     /* passes one point may get by default */
/* Observations a point keeps by default: every one of a default run's
 * points (MBX_SCHED_MAX_PASSES passes of MBX_SCHED_PASS_NMAX). */
#define MBX_SCHED_KEEP_OBS ((size_t)MBX_SCHED_MAX_PASSES * MBX_SCHED_PASS_NMAX)
#define MBX_SCHED_PROBE_EVERY_S 0.05 /* run seconds between monitor probes */
/* The most a point's passes are ever made to span by default, seconds:
 * the default cap is 3 S within it; the pacing asks for three dwell
 * times of the machine's levels, and a point whose machine needs more
 * says so in its row instead (mbx/pacing.h). */
#define MBX_SCHED_MAX_SPAN_S 10.0
#define MBX_SCHED_NO_POINT ((size_t)-1)

typedef struct mbx_sched_opts {
    mbx_passes_opts passes; /* eps, min_passes (R), min_span (S) */
    double pass_floor;      /* seconds; 0: MBX_SCHED_PASS_FLOOR_S */
    size_t pass_nmin;       /* 0: MBX_SCHED_PASS_NMIN */
    size_t pass_nmax;       /* 0: MBX_SCHED_PASS_NMAX; >= pass_nmin */
    size_t max_passes;      /* per point; 0: MBX_SCHED_MAX_PASSES; >= min_passes */
    double time_limit;      /* run seconds after which no pass starts; 0: none */
    /* The most the pacing stretches a point's span to, seconds (0: 3 S
     * within MBX_SCHED_MAX_SPAN_S); never below min_span. */
    double max_span;
    /* Seconds a point's passes may take in all (the sum of their durations,
     * t_end - t_start, preloaded ones included): a point past it gets no
     * more passes and, not settled, is UNSETTLED with the reason
     * "point-time SEC s" (IMB's -time, per point); 0: none. */
    double point_time;
    double probe_every; /* seconds between probes; 0: default; < 0: no probes */
    double resolution;  /* one observation's resolution, s (events rule); 0: none */
    /* Observations a point keeps at most (0: MBX_SCHED_KEEP_OBS): past it
     * they are a uniform sample of that many (mbx_sched_result), so rank
     * 0's memory does not grow with --max-passes. */
    size_t keep_obs;
    /* Where every observation a point keeps goes as well, in full, past
     * keep_obs too (run --raw streams them to disk instead of keeping them
     * all): called from mbx_sched_pass_done with the point's index and the
     * pass's observations; reset 1: they replace the point's earlier ones
     * (an UNRELIABLE, INVALID or HUNG pass's, which may have none). A
     * negative return is mbx_sched_pass_done's. NULL: none. */
    int (*obs_sink)(void *ud, size_t point, int reset, const double *obs, size_t n);
    void *obs_sink_ud;
    uint64_t seed;  /* the shuffles */
    int order_plan; /* 1: no shuffling: curves and points in the order added */
    /* Fixed count: every pass takes exactly this many observations and there
     * is no pilot (the plan's fixed:N split over min_passes passes); 0: off. */
    size_t fixed_n;
    int nranks;    /* ranks of the job: the pair scan and the default pair; 0: 2 */
    double settle; /* seconds of untimed traffic before the first probe; 0: none */
    /* What this host's earlier runs' probes read (mbx/hosthist.h; runs 0:
     * no history): a point that would be SETTLED while the probes over its
     * passes read an unusual state of the host is UNSETTLED, with the
     * reason "host state Rx usual (N runs)" (docs/algorithms.md, "A launch
     * in an unusual state of its host"). */
    mbx_hosthist_ref host;
    /* 1: host is read from a history this host keeps (however few its
     * runs). Until it holds MBX_HOSTHIST_MIN_RUNS runs, a point that would
     * be SETTLED in a run whose probes saw no level change is UNSETTLED
     * "states unknown (host history N of 5)": neither the run nor the
     * history can say yet whether the host's states outlast the run. 0:
     * no history (--history none, the fake back end). */
    int host_kept;
} mbx_sched_opts;

/* One curve: points along one axis x (message size, process count or a
 * benchmark parameter). Refinement applies when refine_eps > 0 and the
 * budget is not 0. */
typedef struct mbx_sched_curve {
    const uint64_t *grid; /* x of the grid points, ngrid entries, distinct */
    size_t ngrid;
    double refine_eps; /* mbx_refine eps; 0: no refinement */
    size_t budget;     /* refined points at most */
    uint64_t align;    /* refined x are multiples of this (0: 1) */
    int geometric;     /* 1: split at the geometric mean (sizes) */
    double min_ratio;  /* mbx_refine min_ratio (0: none) */
    double eps;        /* this curve's between-pass target; 0: the scheduler's */
    int stop_kind;     /* the plan's mbx_stop_kind, watched between passes */
    size_t fixed_n;    /* observations per pass, no pilot; 0: the scheduler's */
    size_t max_passes; /* this curve's passes per point at most; 0: the scheduler's */
    size_t pass_nmin;  /* this curve's fewest observations per pass; 0: the scheduler's */
    size_t pass_nmax;  /* and most (>= pass_nmin); 0: the scheduler's */
    double point_time; /* this curve's point_time; 0: the scheduler's */
    void *ud;          /* the front end's, returned in requests */
    /* A ping-pong curve: its passes carry the pair of ranks that exchange
     * (mbx_sched_req.pair_a, pair_b): pair_a, pair_b when both are >= 0,
     * else rank 0 and the rank the pair scan found farthest (rank
     * nranks - 1 when there is no scan: 2 ranks or fewer). */
    int pair;
    int pair_a, pair_b;
} mbx_sched_curve;

typedef enum mbx_sched_kind {
    MBX_SCHED_DONE = 0,  /* nothing left: every point is final */
    MBX_SCHED_PASS = 1,  /* measure a pass (or the pilot) of a point */
    MBX_SCHED_PROBE = 2, /* take a monitor probe and report it */
    MBX_SCHED_WAIT = 3,  /* nothing is due yet: idle for `wait` seconds, then ask again */
    MBX_SCHED_PAIR = 4,  /* scan 1-byte latencies from rank 0: mbx_sched_pair_done */
    MBX_SCHED_SETTLE = 5 /* untimed traffic for `settle` seconds: mbx_sched_settle_done */
} mbx_sched_kind;

typedef struct mbx_sched_req {
    mbx_sched_kind kind;
    size_t point; /* PASS: the point's index (mbx_sched_point_info) */
    size_t curve; /* PASS: its curve's index, and that curve's ud */
    void *curve_ud;
    uint64_t x;
    int refined;  /* 1: the point was added by refinement */
    int pilot;    /* 1: the pilot (not a pass): report it all the same */
    size_t pass;  /* passes the point already has (0: its first) */
    size_t nobs;  /* observations to take (fixed count) */
    int warm;     /* 1: full warm-up (pilot or first pass); 0: light */
    size_t round; /* the round this request belongs to */
    /* Where the pass's buffers start after a page boundary (a multiple of
     * 64 below 4096, mbx_point_spec.buf_offset): a fresh draw per request,
     * so what buffer placement does to a time varies between passes and
     * lands in the between-pass error instead of biasing the point. */
    uint32_t buf_offset;
    /* mbx_point_spec.batch_first: nobs for a pass its pilot sized (about
     * pass_floor long: one batch), 0 for a fixed count (which may be long:
     * the engine's own batches keep it stoppable). */
    size_t batch_first;
    double wait;        /* WAIT: seconds to idle (at most 0.05; nothing to report) */
    int pair_a, pair_b; /* PASS of a ping-pong curve: the ranks that exchange */
    double settle;      /* SETTLE: seconds of untimed traffic */
} mbx_sched_req;

/* What the front end reports for a PASS request. r is the measurement's
 * row (its statistics over the pass's observations, its status and its
 * method columns); obs its nobs observations in seconds (may be NULL with
 * nobs 0: then r->s.median stands for the pass); t_start and t_end in run
 * seconds (mbx_sched_now's clock, the front end's). The scheduler copies
 * what it keeps. */
typedef struct mbx_sched_pass_report {
    const mbx_result *r;
    const double *obs;
    size_t nobs;
    double t_start, t_end;
} mbx_sched_pass_report;

/* Where a point stands, for progress displays and convergence bars. */
typedef struct mbx_sched_point_info {
    size_t curve;
    uint64_t x;
    int refined;
    int final;                /* no more passes will be asked */
    mbx_passes_result passes; /* between-pass value, error, verdict, span */
    mbx_point_status status;  /* the status its row would have now */
} mbx_sched_point_info;

typedef struct mbx_sched_stats {
    size_t points, final, settled; /* points known, final, final and SETTLED */
    size_t passes, pilots, probes; /* requests completed */
    size_t rounds;                 /* rounds begun */
    double settle;                 /* seconds the settling took (0: none) */
    int scanned;                   /* 1: the pair scan ran */
    double elapsed;                /* run seconds at the last report */
} mbx_sched_stats;

typedef struct mbx_sched mbx_sched;

/* Fill *o with the defaults (mbx_passes defaults, the macros above). */
void mbx_sched_opts_init(mbx_sched_opts *o);

/* A new scheduler. Errors: MBX_E_INVAL (NULL out, options outside their
 * ranges as documented above), MBX_E_NOMEM. */
MBX_NODISCARD int mbx_sched_create(const mbx_sched_opts *o, mbx_sched **out);
void mbx_sched_free(mbx_sched *s); /* NULL is fine */

/* Add a curve before the first request (copied, grid included); *id gets
 * its index. Errors: MBX_E_INVAL (NULL, an empty grid, a repeated x, an
 * eps outside [0, 1), a request already made), MBX_E_NOMEM. */
MBX_NODISCARD int mbx_sched_add_curve(mbx_sched *s, const mbx_sched_curve *c, size_t *id);

/* Mark a point final without measuring it (a resumed run's finished
 * point): it keeps its value y (seconds, > 0; or NAN: not fed to
 * refinement) for refinement and is never requested. x must be on the
 * curve's grid or is added as a refined point. Before the first request.
 * Errors: MBX_E_INVAL, MBX_E_NOMEM. */
MBX_NODISCARD int mbx_sched_keep(mbx_sched *s, size_t curve, uint64_t x, int refined, double y);

/* Before the first request: passes that an interrupted run's journal
 * recorded for a point without a row (crash resume). x on the curve's grid,
 * or added as a refined point. The passes' times are seconds of this run
 * (negative: before it began); they join the point's passes (no
 * observations: the row's pooled statistics cover the passes measured
 * from now on). The point still gets at least one pass in this run (its
 * row needs one), after a pilot. Errors: MBX_E_INVAL (a bad
 * curve or pass, a kept point, a request already made), MBX_E_NOMEM. */
MBX_NODISCARD int mbx_sched_preload(mbx_sched *s, size_t curve, uint64_t x, int refined,
                                    const mbx_pass *passes, size_t n);

/* The next request, given the run time now (seconds since the run began,
 * from the front end's clock; non-decreasing). Exactly one request is
 * outstanding at a time: call mbx_sched_pass_done, mbx_sched_probe_done,
 * mbx_sched_pair_done or mbx_sched_settle_done (or mbx_sched_pass_failed)
 * before asking again; asking again first
 * returns the same request (a WAIT needs no answer). Returns the request's
 * kind, the same as out->kind (an mbx_sched_kind, >= 0; MBX_SCHED_DONE when
 * nothing is left), or a negative mbx_status: MBX_E_INVAL (s or out NULL),
 * MBX_E_NOMEM. */
MBX_NODISCARD int mbx_sched_next(mbx_sched *s, double now, mbx_sched_req *out);

/* Report the outstanding PASS request. A pilot sizes the point's passes;
 * a pass joins the point's passes (its observations are pooled for the
 * row's location statistics). A pass whose status is UNRELIABLE or INVALID
 * makes the point final with that row; so does a HUNG one (the front end's
 * watchdog: its status_reason is kept), a pilot's too. Errors: MBX_E_INVAL
 * (no PASS outstanding, a NULL report or row, a median that is not
 * positive and finite for a status other than UNRELIABLE/INVALID/HUNG),
 * MBX_E_NOMEM. */
MBX_NODISCARD int mbx_sched_pass_done(mbx_sched *s, const mbx_sched_pass_report *rep);

/* The outstanding PASS could not be measured (the front end reports why);
 * the point becomes final without a row of its own making (mbx_sched_result
 * then gives MBX_E_INVAL for it). */
void mbx_sched_pass_failed(mbx_sched *s);

/* Report the outstanding PAIR: far is the rank with the largest latency
 * from rank 0 (1..nranks-1); the pair is rank 0 and far. Errors:
 * MBX_E_INVAL (no PAIR outstanding, far outside the ranks). */
MBX_NODISCARD int mbx_sched_pair_done(mbx_sched *s, int far);

/* The pair of curves without their own (0, far after a scan); 0 when it is
 * known, MBX_E_INVAL while a scan is still to come. */
int mbx_sched_pair(const mbx_sched *s, int *a, int *b);

/* Report the outstanding SETTLE: seconds it took (stats.settle). Errors:
 * MBX_E_INVAL (no SETTLE outstanding). */
MBX_NODISCARD int mbx_sched_settle_done(mbx_sched *s, double seconds);

/* Report the outstanding PROBE: its value in seconds (> 0) at run time t;
 * a value that is not positive and finite is dropped. */
MBX_NODISCARD int mbx_sched_probe_done(mbx_sched *s, double t, double value);

/* No further pass starts (time limit reached, Ctrl-C, a new plan): every
 * point becomes final as it is. The outstanding request, if any, is
 * dropped. */
void mbx_sched_stop(mbx_sched *s);

/* Points known so far (grid, refined and kept ones); indices are stable. */
size_t mbx_sched_points(const mbx_sched *s);

/* Where point i stands. Errors: MBX_E_INVAL (no such point). */
MBX_NODISCARD int mbx_sched_point_info_get(const mbx_sched *s, size_t i, mbx_sched_point_info *out);

/* Points that became final since the last call, in the order they did;
 * writes at most cap indices to out and returns how many it wrote (call
 * again while it returns cap). Kept points are never reported. */
size_t mbx_sched_take_final(mbx_sched *s, size_t *out, size_t cap);

/* The row of point i, which has at least one pass: the last pass's row
 * for everything but the statistics, and then
 *   s.median  = median of the pass medians (the point's value);
 *   s.mean, tmean, min, max, q1, q3, stddev, outliers, n over all the
 *   passes' observations pooled (min and max widened to cover every pass
 *   median, those of preloaded passes included) (events, observations over
 *   MBX_EVENT_FACTOR times the pooled median, stay in and are counted in
 *   events: the value saw them too);
 *   s.stderr_, s.ci_lo, s.ci_hi = the between-pass error and 95 % CI of
 *   the value (mbx_passes; levels from the probes when there are two or
 *   more); iid_stderr, iid_ci_lo, iid_ci_hi the pooled observations' iid
 *   figures (named as such);
 *   passes, pass_span, levels, level_lo, level_hi;
 *   a point made final by an UNRELIABLE or INVALID pass gets that pass's
 *   row as it is (its observations alone, nothing widened; its
 *   status_reason too, when the pass's row has one);
 *   nmin the observations of one pass, nmax those of max_passes passes;
 *   a CI bound below 0 is cut to 0 (no time is negative);
 *   status: INVALID or UNRELIABLE if a pass was; else SHIFTED when the
 *   passes ran at two or more levels; else SETTLED when the passes are,
 *   else UNSETTLED;
 *   batches, wall, invalid, events, faults summed over the passes;
 *   probe: the probe before its first pass, probe_after after its last;
 *   status_reason: why a point is not SETTLED, when the scheduler knows:
 *   "point-time SEC s" (point_time reached), "max-passes N" (max_passes
 *   reached unsettled), "time-limit SEC s" (the run's time_limit stopped
 *   it), "stopped" (mbx_sched_stop from the front end), "pass cut short"
 *   (a pass took fewer observations than asked), "level shift" (SHIFTED),
 *   "below timer resolution" (UNRELIABLE), "no valid observation"
 *   (INVALID); empty when SETTLED.
 * Levels come from the monitor's probes (mbx_levels over the series so
 * far); a call after the run ended uses the whole series. Errors:
 * MBX_E_INVAL (no such point, no pass), MBX_E_NOMEM. */
MBX_NODISCARD int mbx_sched_result(mbx_sched *s, size_t i, mbx_result *out);

/* The observations of point i pooled over its passes (every one, or past
 * keep_obs the sample; the explorer's export and inspector; --raw takes
 * every one through obs_sink instead), valid until the next call into s. */
const double *mbx_sched_obs(const mbx_sched *s, size_t i, size_t *n);

/* How the observations of mbx_sched_obs divide into passes: n counts,
 * one a measured pass in the order measured, summing to the observations
 * (passes preloaded from a journal have none and are not in it). Valid
 * until the next call into s. For the `pass` column of an export. */
const size_t *mbx_sched_obs_passes(const mbx_sched *s, size_t i, size_t *n);

/* The pass medians of point i in the order measured (n of them), valid
 * until the next call into s: the units of a fair comparison of two
 * interleaved points (mbx_wilcoxon on pass medians). */
const double *mbx_sched_pass_medians(const mbx_sched *s, size_t i, size_t *n);

/* The machine level of each of point i's passes (the order of
 * mbx_sched_pass_medians), from the monitor's probes so far: level ids
 * 0, 1, ... (mbx_levels_detect over the probe series), or
 * MBX_PASSES_NO_LEVEL for all of them while the probes show one level.
 * Writes at most cap ids; returns how many it wrote. */
size_t mbx_sched_pass_levels(const mbx_sched *s, size_t i, int *out, size_t cap);

/* The run time between two passes of one point now (the pacing,
 * mbx/pacing.h): max(S / (R - 1), 2 tau) with tau the probes' correlation
 * time so far, seconds; 0 when passes are not paced (R < 2 or S = 0 and
 * no tau). A point's passes come a jittered gap (0.5 to 1.5 of it) apart,
 * a longer one while they have not spanned their least span. */
double mbx_sched_pass_gap(const mbx_sched *s);

/* The pacing as it stands (for the `# passes:` line and the env file). */
typedef struct mbx_sched_pacing {
    double tau;        /* the probes' correlation time, s; NAN: not known yet */
    int mature;        /* 1: the probes span 20 tau (before, tau is at least span / 20;
                          no point settles before they span 3 S) */
    size_t probes;     /* the probes it is from */
    size_t changes;    /* level changes the probes showed */
    double dwell;      /* mean dwell of a level, s; NAN with no change */
    double host_dwell; /* with no change: the stay the host's history shows, which the pacing
                          takes (mbx_hosthist_dwell); NAN: none */
    double gap;        /* mbx_sched_pass_gap */
    double span;       /* a point's least span now (no time limit) */
    double need;       /* the span the machine asks for */
    int cannot_cover;  /* 1: need > the most a point may span (max_span) */
} mbx_sched_pacing;

void mbx_sched_pacing_get(const mbx_sched *s, mbx_sched_pacing *out);

/* This run as a row of the host's history (mbx/hosthist.h): its probes,
 * their span, the level changes they showed and their median, for a job of
 * procs ranks ending at time now (seconds since the epoch). 1 when the run
 * has one to record (at least MBX_PACING_MIN_PROBES probes over
 * MBX_HOSTHIST_MIN_SPAN_S), else 0 and *out untouched. */
int mbx_sched_host_record(mbx_sched *s, int procs, long long now, mbx_hosthist_rec *out);

/* The run time of each of point i's passes (the order of
 * mbx_sched_pass_medians): the middle of its batch, in the clock of
 * mbx_sched_pass_report.t_start. Writes at most cap; returns how many. */
size_t mbx_sched_pass_times(const mbx_sched *s, size_t i, double *out, size_t cap);

/* The refinement summary of curve c: points, refined points proposed, the
 * worst segment error (mbx_refine_worst_any); zeros without refinement. */
void mbx_sched_curve_refine(const mbx_sched *s, size_t c, size_t *points, size_t *refined,
                            double *worst);

/* The monitor's probes so far (times and values, n of each). */
void mbx_sched_probes(const mbx_sched *s, const double **t, const double **v, size_t *n);

void mbx_sched_stats_get(const mbx_sched *s, mbx_sched_stats *out);

#endif
