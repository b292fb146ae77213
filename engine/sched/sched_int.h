/* Private to the scheduler (sched.c: creating it, its curves and points,
 * the reports of requests; sched_round.c: the order of passes, rounds,
 * pacing and refinement between rounds; sched_rows.c: the between-pass
 * state of a point and what a front end reads of it, rows first;
 * sched_host.c: a row's flags from the machine's levels and the host's
 * history; sched_pace.c: the pacing): the
 * scheduler's state and the helpers its files share. */
#ifndef MBX_SCHED_INT_H
#define MBX_SCHED_INT_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/levels.h"
#include "mbx/pacing.h"
#include "mbx/passes.h"
#include "mbx/refine.h"
#include "mbx/sched.h"

typedef struct spoint {
    size_t curve;
    uint64_t x;
    int refined, kept, final, failed;
    double kept_y;
    size_t per_pass; /* observations per pass; 0: a pilot first */
    mbx_pass *pass;
    size_t npass, cappass;
    double *obs; /* every observation, or past keep_obs a uniform sample of them */
    size_t nobs, capobs;
    size_t *oseg; /* observations of each measured pass, in order (sum: nobs) */
    size_t noseg, caposeg;
    /* All observations taken (nseen >= nobs; more: obs is a sample) and
     * their exact sum, Welford mean and squared deviations, min and max. */
    size_t nseen;
    double osum, omean, om2, omin, omax;
    uint64_t orng;   /* the sample's draws (a point's own: the shuffles stay) */
    mbx_result last; /* the last pass's row: everything but the statistics */
    int bad;         /* a pass was UNRELIABLE or INVALID: last holds it */
    int cut;         /* a pass took fewer observations than asked (a time bound) */
    size_t batches, invalid, events, faults;
    double wall;
    double setup_sum; /* the passes' setup (mbx_result.setup), those that had one */
    size_t nsetup;
    int fed; /* its value went to the curve's refinement at least once */
    int why; /* why it became final without settling: a WHY_ value */
} spoint;

/* Why a point stopped getting passes (its status_reason; mbx/sched.h). */
enum { WHY_NONE, WHY_POINT_TIME, WHY_MAX_PASSES, WHY_TIME_LIMIT, WHY_STOPPED };

typedef struct scurve {
    uint64_t *grid;
    size_t ngrid;
    mbx_sched_curve c;  /* grid points at the copy above */
    mbx_refine *rf;     /* NULL: no refinement */
    mbx_passes_opts po; /* the scheduler's, with the curve's eps */
    size_t fixed_n;     /* observations per pass; 0: a pilot sizes them */
    size_t max_passes;
    double point_time; /* seconds of passes per point; 0: none */
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
    int stop_why;    /* WHY_TIME_LIMIT or WHY_STOPPED, for the points it made final */
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
    /* The machine's memory from the probes (sched_pace.c): tau (NAN:
     * unknown yet) and the levels' dwell times, as of est_n probes. */
    double tau;
    mbx_pacing_dwell dw;
    size_t est_n;
};

/* The index of curve's point at x, or -1 when there is none. */
long mbx_sched_find_point(const mbx_sched *s, size_t curve, uint64_t x);

/* A new point of curve at x (refined: proposed by refinement), its index
 * in *idx. MBX_OK or MBX_E_NOMEM. */
MBX_NODISCARD int mbx_sched_add_point(mbx_sched *s, size_t curve, uint64_t x, int refined,
                                      size_t *idx);

/* The between-pass state of point p, without levels (sched_rows.c). */
MBX_NODISCARD int mbx_sched_point_state(const mbx_sched *s, const spoint *p, mbx_passes_result *r);
/* The same, and in *spread (may be NULL) the result before the widening
 * for the machine's memory: the passes' own scatter. */
MBX_NODISCARD int mbx_sched_point_state2(const mbx_sched *s, const spoint *p, mbx_passes_result *r,
                                         mbx_passes_result *spread);

/* The levels of the probes so far, detected once per probe count; NULL
 * with fewer than 2 probes or when detection failed (sched_rows.c). */
const mbx_levels *mbx_sched_levels_now(mbx_sched *s);

/* Pacing (sched_pace.c). Estimate tau and the dwell times again when
 * enough probes came since the last estimate. MBX_OK or MBX_E_NOMEM. */
MBX_NODISCARD int mbx_sched_pace_update(mbx_sched *s, int force);

/* The pacing rule for point p now (its span cap: the scheduler's max_span,
 * less what the time limit leaves after its first pass); *user 1 when the
 * time limit is the cap that binds (may be NULL). */
void mbx_sched_pace_of(const mbx_sched *s, const spoint *p, mbx_pacing *out, int *user);
/* 1: the probes have watched long enough to measure the memory they show
 * (20 tau); until then tau, and a point's need, are lower bounds. */
int mbx_sched_memory_known(const mbx_sched *s);

/* When point p's next pass is due (-INFINITY: at once). */
double mbx_sched_due_at(const mbx_sched *s, const spoint *p);
/* Widen r's interval by the passes' design effect under tau (sched_pace.c). */
void mbx_sched_widen(const mbx_sched *s, const spoint *p, mbx_passes_result *r);

/* The options of point p's passes: the curve's, with the least span the
 * pacing asks and the effective-pass tau. */
void mbx_sched_passes_opts(const mbx_sched *s, const spoint *p, mbx_passes_opts *o);
/* Seconds the probes have watched: the first probe to the last (0 with
 * fewer than 2). */
double mbx_sched_seen(const mbx_sched *s);
/* The run's probes show the levels switch (their stay is the pacing's). */
int mbx_sched_switching(const mbx_sched *s);
/* With no level change seen, the stay the host's history shows, which the
 * pacing takes (mbx_hosthist_dwell); NAN otherwise. */
double mbx_sched_host_stay(const mbx_sched *s);

/* sched_host.c: a SETTLED row whose passes all ran on machine level
 * `level` (MBX_PASSES_NO_LEVEL: none, or several) of a run whose probes
 * show others a tenth of the time or more becomes UNSETTLED "passes on 1
 * of N levels"; one whose probes over its passes read an unusual state
 * of the host (s->o.host) becomes UNSETTLED "host state Rx usual (N
 * runs)"; one of a run that saw no level change while the host's kept
 * history is too young to say how long its states last becomes
 * UNSETTLED "states unknown (host history N of 5)", and one of a run that
 * saw no level change over 3 of the stays the history shows becomes
 * UNSETTLED "1 state for T s; host's last ~S s". */
void mbx_sched_one_level_only(const mbx_sched *s, int level, mbx_result *out);
void mbx_sched_host_state(const mbx_sched *s, const spoint *p, mbx_result *out);

#endif
