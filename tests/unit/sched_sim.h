/* The simulated machine of the scheduler's unit tests (test_sched.c,
 * test_sched_rows.c, test_sched_honesty.c; sched_sim.c): a clock that
 * advances only by what is "measured", machine levels (two at a fixed
 * period, or two or three with exponential stays), a machine state with
 * memory (an Ornstein-Uhlenbeck process in run seconds), a quantized
 * timer, seeded noise, and helpers that carry out the scheduler's
 * requests. */
#ifndef MBX_SCHED_SIM_H
#define MBX_SCHED_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/sched.h"

typedef struct sim {
    double now;
    uint64_t rng;
    double level_period; /* seconds per machine level; 0: one level */
    double level_factor; /* the slow level's factor */
    double noise;        /* relative noise of an observation */
    double probe_noise;  /* relative noise of a probe (0: none, no draw) */
    double curve_scale[8];
    double obs[20000];
    size_t probes, waits;
    double pass_noise;         /* relative sd of a whole pass (normal); 0: none, no draw */
    double (*curve)(double x); /* the true time at x in seconds; NULL: the built-in curve */
    /* The machine models (all 0: off, and no draws for them). */
    double ou_sd;  /* stationary sd of the log-scale machine state */
    double ou_tau; /* its correlation time, run seconds */
    size_t nlev;   /* 2 or 3: levels with exponential stays (level_period unused) */
    double lev_factor[3], lev_dwell[3]; /* each level's factor and mean stay, s */
    double tick;                        /* the timer's tick, s: observations rounded to it */
    /* > 0: each pass reports a set-up time (mbx_result.setup), setup
     * times the count of passes reported so far (1, 2, 3, ...); their
     * sum lands in setup_sum. 0: none (the field left 0). */
    double setup, setup_sum;
    size_t nsetup;
    /* the models' state */
    double ou_x, ou_t;
    size_t lev;
    double lev_until;
    int started;
} sim;

/* A uniform draw in [0, 1) from the simulation's seed. */
double mbx_sim_urand(sim *m);

/* The machine's level factor now: 1 on the fast level. */
double mbx_sim_level_now(const sim *m);

/* The true time of one observation of curve c at x, on the fast level. */
double mbx_sim_truth(const sim *m, size_t c, uint64_t x);

/* The machine's factor now (level times exp(state)), advancing the
 * models to m->now; mbx_sim_level_now when no model is on. */
double mbx_sim_state(sim *m);

/* The long-run median of a pass median of curve c at x under the models:
 * the median of the stationary mix of levels (shares in proportion to
 * their mean stays: they take turns) with the log-normal state, rounded
 * to the tick. */
double mbx_sim_long_run_median(const sim *m, size_t c, uint64_t x);

/* Carry out one request; returns its kind. */
int mbx_sim_step(mbx_sched *s, sim *m, mbx_sched_req *rq);

/* A scheduler with options o and ncurves curves over grid. */
mbx_sched *mbx_sim_make(const mbx_sched_opts *o, size_t ncurves, const uint64_t *grid, size_t ng);

/* Eight sizes from 1 B to 1 MiB. */
extern const uint64_t mbx_sim_grid8[8];

/* The pacing of point i asserted; returns its passes. */
size_t mbx_sim_check_paced(const mbx_sched *s, const mbx_sched_opts *o, size_t i);

/* Run to the end; returns the simulated run time. */
double mbx_sim_run_all(mbx_sched *s, sim *m);

/* Run to the end, taking each point's row (i < nrows: rows[i], got[i]
 * set) when the scheduler makes it final, from what it knew then: the
 * row a run writes, not one read after the run's last probe. Returns
 * the simulated run time. */
double mbx_sim_run_rows(mbx_sched *s, sim *m, mbx_result *rows, int *got, size_t nrows);

#endif
