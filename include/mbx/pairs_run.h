/* Measuring every pair of nodes in passes (docs/algorithms.md, "Every pair
 * of nodes"): the plan of steps, rounds of passes in shuffled order, and
 * each directed cell's between-pass value and interval.
 *
 * A step is one shift k (every node i sends to i + k at once) or one pair
 * (src to dst alone), for one metric. A round runs every step of the plan
 * once, in an order drawn afresh each round, each step as one pass of
 * nobs observations after nwarm untimed ones; each node's observations in
 * the pass give its cell one pass median. Rounds go on, at least
 * round_gap seconds apart, until every cell is SETTLED (mbx/passes.h) or
 * a limit is met. The steps run through a function the caller gives (the
 * MPI engine, or a model for tests and the fake back end), so this module
 * is pure C: no MPI, no printing. */
#ifndef MBX_PAIRS_RUN_H
#define MBX_PAIRS_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/pairs.h"
#include "mbx/passes.h"
#include "mbx/status.h"

#define MBX_PAIRS_METRICS 2 /* latency, bandwidth (mbx_pairs_metric's order) */
#define MBX_PAIRS_RUN_NODES_MAX 4096

/* One step as the runner asks for it (the same fields as the engine's
 * mbx_pairs_step, without MPI). */
typedef struct mbx_pairs_req {
    int mode, metric; /* 0 shift / 1 one; 0 latency / 1 bandwidth */
    uint64_t bytes;
    int window;
    int k;        /* shift */
    int src, dst; /* one */
    int nobs, nwarm;
} mbx_pairs_req;

/* Runs one step: t (n x nobs) gets node i's observations at
 * t[i * nobs + j], seconds, NAN where node i sent nothing. Returns
 * MBX_OK or a negative status (the run stops with it). */
typedef int (*mbx_pairs_step_fn)(void *ud, const mbx_pairs_req *req, double *t);
/* Seconds on a monotonic clock (the run's t_start and t_end). */
typedef double (*mbx_pairs_clock_fn)(void *ud);
/* Sleep for s seconds (the gap between rounds); may return early. */
typedef void (*mbx_pairs_sleep_fn)(void *ud, double s);

typedef struct mbx_pairs_plan {
    int n;       /* nodes, 2 .. MBX_PAIRS_RUN_NODES_MAX */
    int mode;    /* 0 shift, 1 one pair at a time */
    int metrics; /* bit m set: metric m measured (1 latency, 2 bandwidth, 3 both) */
    uint64_t bytes[MBX_PAIRS_METRICS];
    int window;                  /* bandwidth: messages per observation */
    int nobs[MBX_PAIRS_METRICS]; /* observations per pass */
    int nwarm;                   /* untimed observations before each pass */
    int steps;              /* steps of each metric to measure: 0 = all, else a seeded sample */
    uint64_t seed;          /* the sample and the order of every round */
    mbx_passes_opts passes; /* eps, min passes, min span per cell */
    int max_rounds;         /* >= 1 */
    double time_limit;      /* seconds; 0: none */
    double round_gap;       /* seconds from one round's start to the next's, at least */
} mbx_pairs_plan;

/* One directed cell's state: src sends to dst. */
typedef struct mbx_pairs_cellrun {
    int src, dst, metric;
    int k; /* shift distance (dst - src mod n), for the row */
    mbx_passes *passes;
    mbx_passes_result r; /* after mbx_pairs_run: the cell's figures */
    /* Every timed observation, pooled over the passes (seconds), for the
     * row's pooled statistics: rank 0 keeps 8 bytes an observation. */
    double *obs;
    size_t nobs, obs_cap;
    /* Its pass medians in the order they were taken (seconds): the
     * explorer's inspector draws them over time. */
    double *pm;
    size_t npm, pm_cap;
} mbx_pairs_cellrun;

typedef struct mbx_pairs_run {
    mbx_pairs_plan plan;
    int nsteps; /* steps per metric in the plan */
    int *step;  /* nsteps: shift distances, or pair indices (src * n + dst) */
    mbx_pairs_cellrun *cell;
    size_t ncells; /* measured cells, metric-major, then src, then dst */
    int rounds;    /* done */
    double wall;   /* seconds from the first step to the last */
    /* Per metric: steps run and the seconds inside them (the command, the
     * exchange and the gather: what a step costs, for the time of a run
     * at another N). */
    size_t steps_done[MBX_PAIRS_METRICS];
    double step_s[MBX_PAIRS_METRICS];
    const char *ended; /* "settled", "max-rounds N", "time-limit S s", "stopped" */
    char ended_buf[48];
} mbx_pairs_run;

/* Defaults: shift, both metrics, 8 B and 1 MiB, window 16, 20 and 3
 * observations a pass, 2 untimed, every step, eps 5 %, 5 passes over
 * 1 s, 200 rounds, no time limit, rounds 0.1 s apart. */
void mbx_pairs_plan_init(mbx_pairs_plan *p);

/* Check a plan for n nodes; the steps a metric has: n - 1 shifts, or
 * n (n - 1) pairs. Errors: MBX_E_INVAL with one line in msg naming the
 * field and its range. */
MBX_NODISCARD int mbx_pairs_plan_check(const mbx_pairs_plan *p, char *msg, size_t msglen);
int mbx_pairs_plan_steps(const mbx_pairs_plan *p); /* steps a metric has in full */

/* Before each round and after each pass: return non-zero to stop the run
 * (a signal). done and total count the passes of the round. */
typedef int (*mbx_pairs_progress_fn)(void *ud, const mbx_pairs_run *r, size_t done, size_t total);

typedef struct mbx_pairs_hooks {
    mbx_pairs_step_fn step;
    mbx_pairs_clock_fn clock;
    mbx_pairs_sleep_fn sleep;       /* NULL: rounds are not spaced */
    mbx_pairs_progress_fn progress; /* NULL: none */
    void *ud;
} mbx_pairs_hooks;

/* Run the plan (checked first) into *out (zeroed first; free with
 * mbx_pairs_run_free, also after an error). Errors: MBX_E_INVAL (the plan,
 * or a step's times: a node that should have timed gave NAN or a value
 * <= 0 is kept out of its pass, not an error), MBX_E_NOMEM, MBX_E_ABORTED
 * (progress asked to stop; the cells hold what was measured), or the step
 * function's status. */
MBX_NODISCARD int mbx_pairs_run_plan(const mbx_pairs_plan *p, const mbx_pairs_hooks *h,
                                     mbx_pairs_run *out, char *msg, size_t msglen);
void mbx_pairs_run_free(mbx_pairs_run *r);

/* The cell src -> dst of metric m, or NULL when the plan left it out. */
const mbx_pairs_cellrun *mbx_pairs_run_cell(const mbx_pairs_run *r, int metric, int src, int dst);

/* The verdicts (mbx/pairs.h) on metric m's cells of r as they stand
 * (each cell's r: its value and between-pass CI; a cell with no pass is
 * left out, one with one pass has no CI): mbx_pairs_fit_model's result
 * and errors. */
MBX_NODISCARD int mbx_pairs_run_fit(const mbx_pairs_run *r, int m, const mbx_pairs_opts *o,
                                    mbx_pairs_fit *out, char *msg, size_t msglen);

/* "pairs.lat" / "pairs.bw"; "shift" / "one pair". */
const char *mbx_pairs_bench_name(int metric);
const char *mbx_pairs_mode_name(int mode);

#endif
