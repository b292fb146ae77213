/* The explorer's run model (internal): the points of a run, the curves they
 * lie on, the scheduler's curves, and the functions over them (ex_series.c,
 * ex_sched.c, ex_autosave.c). The members of struct explorer that hold a
 * run are together in explorer.h under "the run model". */
#ifndef MBX_EX_MODEL_H
#define MBX_EX_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/backend.h"
#include "mbx/plan.h"

typedef struct explorer explorer;

#define EX_MAX_BENCH 256
#define EX_MAX_POINTS 8192 /* refinement stops adding points here */
#define EX_MAX_PROCS MBX_PLAN_MAX_PROCS
#define EX_MAX_PATTERNS 16
#define EX_MAX_SERIES 256

/* PENDING: no pass yet; RUNNING: some passes, not final (r holds the row
 * so far); DONE: final with a row; DROPPED: its pass failed. */
typedef enum mbx_ex_pstate { EX_PENDING = 0, EX_RUNNING, EX_DONE, EX_DROPPED } mbx_ex_pstate;

/* The x axis of a curve: message size, process count P (the point runs on
 * the first P ranks of the job), or the benchmark's parameter (threads,
 * work pieces). */
typedef enum mbx_ex_dim { EX_DIM_SIZE = 0, EX_DIM_PROCS = 1, EX_DIM_PARAM = 2 } mbx_ex_dim;

/* Why a point is in the run: the grid of the form, or a refinement along
 * one dimension (it then belongs to curves along that dimension only). */
enum { EX_GRID = 0, EX_REF_SIZE = 1, EX_REF_PROCS = 2 };

typedef struct mbx_ex_point {
    int bench_id;
    uint64_t bytes;
    int procs;
    int64_t param;      /* MBX_BENCH_PARAM: the value; 0: the benchmark's default */
    int root;           /* MBX_BENCH_ROOTED: the root; else 0 */
    int pair_a, pair_b; /* MBX_BENCH_PAIR: the two ranks; else 0, 0 */
    int rma_sync;       /* MBX_BENCH_RMA: the form's mbx_rma_sync when the run started; else 0 */
    int origin;         /* EX_GRID, EX_REF_SIZE or EX_REF_PROCS */
    int copy;           /* 0; 1: the second curve of a benchmark picked twice */
    size_t curve;       /* the scheduler's curve of the point (explorer.curves) */
    size_t sp;          /* the point's index in the scheduler */
    mbx_ex_pstate state;
    double rel;    /* the between-pass relative error so far (NAN below 2 passes) */
    size_t passes; /* passes so far */
    mbx_result r;  /* valid when EX_RUNNING with passes, and EX_DONE */
    double *obs;   /* EX_DONE: the observations of all its passes, seconds; owned */
    size_t nobs;
    size_t *oseg; /* EX_DONE: observations of each measured pass, in order; owned */
    size_t noseg;
    double *pm; /* the pass medians so far, in the order measured; owned */
    size_t npm;
} mbx_ex_point;

/* Whether p has a value to draw: some pass, or final with a row. */
#define EX_HAS_VALUE(p) ((p)->state == EX_DONE || ((p)->state == EX_RUNNING && (p)->passes > 0))

/* One curve: everything but its x fixed. Along EX_DIM_SIZE the curve is
 * (benchmark, procs, param, root) over bytes; along EX_DIM_PROCS it is
 * (benchmark, bytes, param, root) over P; along EX_DIM_PARAM (benchmarks
 * with a parameter) (benchmark, bytes, procs, root) over the parameter. */
typedef struct mbx_ex_series {
    int dim;
    int bench_id;
    uint64_t bytes; /* EX_DIM_PROCS and EX_DIM_PARAM */
    int procs;      /* EX_DIM_SIZE and EX_DIM_PARAM */
    int64_t param;  /* EX_DIM_SIZE and EX_DIM_PROCS */
    int root;
    int copy; /* mbx_ex_point.copy */
} mbx_ex_series;

/* One curve of the scheduler: the explorer's curve along the dimension
 * the scheduler measures (and refines) it over. Every point is on exactly
 * one, so no point is measured twice. */
typedef struct mbx_ex_curve {
    mbx_ex_series s;
    size_t tmpl; /* a grid point of it: the parameters of refined points */
    int refine;  /* refinement asked for */
    double wd_wall;
    uint64_t wd_at; /* the watchdog: its longest pass (s) so far, at x */
} mbx_ex_curve;

/* ex_series.c: curves */
int mbx_ex_series_of(const mbx_ex_point *p, int dim,
                     mbx_ex_series *out); /* 0: not on such a curve */
int mbx_ex_series_eq(const mbx_ex_series *a, const mbx_ex_series *b);
int mbx_ex_series_has(const mbx_ex_series *s, const mbx_ex_point *p); /* p is on curve s */
/* The label column of a point's rows: "explorer", or "explorer#2" for the
 * second curve of a benchmark picked twice. */
const char *mbx_ex_point_label(const mbx_ex_point *p);
double mbx_ex_point_x(const mbx_ex_point *p, int dim);
/* Has a place on that axis: x > 0, or 0 B of a sized benchmark. */
int mbx_ex_point_has_x(const mbx_ex_point *p, int dim);
int mbx_ex_series_list(const explorer *x, int dim, mbx_ex_series *out, int max);
/* The points of curve s that have a value (EX_HAS_VALUE) and an x (> 0),
 * in increasing x. */
size_t mbx_ex_series_points(const explorer *x, const mbx_ex_series *s, const mbx_ex_point **out,
                            size_t max);
/* Names of n series, as short as they can be while telling them apart. */
void mbx_ex_series_names(const explorer *x, const mbx_ex_series *s, int n, char (*names)[48]);
int mbx_ex_run_nprocs(const explorer *x); /* distinct process counts among the run's points */
/* The most distinct parameter values of one benchmark with a parameter
 * among the run's points (0 when none has a parameter). */
int mbx_ex_run_nparams(const explorer *x);
/* Whether the run has curves along dim with more than one x. */
int mbx_ex_dim_useful(const explorer *x, int dim);
/* The parameter's name ("threads") when every benchmark of the run that
 * has one calls it so, else "parameter". */
const char *mbx_ex_param_axis_name(const explorer *x);

/* ex_sched.c: the run on the scheduler */
/* A scheduler for the grid points just planned (x->pts): one curve per
 * explorer curve along the dimension the point is measured over. 0 with a
 * message when it cannot be made. */
int mbx_ex_sched_begin(explorer *x);
/* One request of the scheduler carried out: a pass of a point or a probe;
 * points that became final are autosaved. Ends the run when nothing is
 * left or a measurement failed. When nothing is due (passes are paced over
 * the run) it returns the seconds to idle: the caller reads keys
 * meanwhile (the fake back end's clock only moves when it measures, so
 * there the idle time is counted instead). */
double mbx_ex_sched_step(explorer *x); /* > 0: seconds to idle before the next */
/* The runner of the run's scheduler, with the explorer's hooks. */
void mbx_ex_runner_init(explorer *x);
/* Stop the run now (cancel, quit, a signal): every point becomes final as
 * it is and is autosaved; why goes on the status line when not NULL. */
void mbx_ex_sched_stop(explorer *x, const char *why);
void mbx_ex_sched_free(explorer *x); /* the scheduler and its maps */
/* At a run's start: when it has rma.* and the MPI library is the pairing
 * known to move no one-sided data (mbx/rmacheck.h), the cause and the fix
 * on the message line (kept in rma_why); a pass whose data check fails
 * later is an INVALID row and the run goes on. */
void mbx_ex_rma_check(explorer *x);

/* ex_autosave.c */
/* A new autosave file for a run, the last one closed; none (and a message
 * on the status line) when it cannot be made. */
void mbx_ex_autosave_open(explorer *x);
/* One final point's row to the autosave (counted as lost when there is
 * none to write to though one was asked for). */
void mbx_ex_autosave_row(explorer *x, const mbx_result *r);

/* The probe of the monitor: 1-byte round trips per probe. */
#define EX_PROBE_ROUNDS 50

/* The run's clock: seconds measured so far, pauses left out. */
double mbx_ex_elapsed(const explorer *x);
/* ex_export.c: export and report (ex_export.h) */
void mbx_ex_points_free(explorer *x); /* the run's points and their observations */

#endif
