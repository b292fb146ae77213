/* The pieces of `mpibex run` (run.c and run_*.c): the run's state, its
 * curves, and what one piece calls in another. Private to tui/cmd. */
#ifndef MBX_RUN_INT_H
#define MBX_RUN_INT_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "history_use.h"
#include "mbx/backend.h"
#include "mbx/bench.h"
#include "mbx/csvio.h"
#include "mbx/engine.h"
#include "mbx/journal.h"
#include "mbx/kv.h"
#include "mbx/monitor.h"
#include "mbx/obsfile.h"
#include "mbx/output.h"
#include "mbx/plan.h"
#include "mbx/refine.h"
#include "mbx/result.h"
#include "mbx/runner.h"
#include "mbx/sched.h"
#include "mbx/threads.h"
#include "profile_use.h"

#define MSG_LEN 512
/* Round trips of one monitor probe (after one warm-up). */
#define PROBE_ROUNDS 50

/* A curve: one benchmark at fixed parameters, measured along one axis
 * (message size; for unsized benchmarks process count, or the benchmark's
 * parameter, e.g. threads, when only that varies), grid first, then
 * adaptive refinement when the plan asks for it (size and P only). */
enum { AXIS_NONE, AXIS_SIZE, AXIS_PROCS, AXIS_PARAM };

typedef struct series {
    const mbx_measurement *meas;
    int bench_id;
    int64_t param;  /* 0: the benchmark's default; AXIS_PARAM: unused */
    int procs;      /* AXIS_SIZE / AXIS_PARAM / AXIS_NONE */
    uint64_t bytes; /* AXIS_PROCS / AXIS_NONE */
    int axis;
    uint64_t *grid; /* x: bytes or procs */
    size_t ngrid;
    int refine; /* refinement applies */
} series;

typedef struct run_state {
    mbx_run_opts opt;
    mbx_plan *plan;
    series *ser;
    size_t nser;
    size_t ngrid; /* grid points over every series */
    /* What measures: the MPI engine (mbx_backend_engine) or the fake
     * (--fake N); engine-only extras are the entries the fake leaves NULL. */
    mbx_backend *be, be_store;
    double t_idle; /* the fake's clock stands still while the run idles: added */
    int stop_code; /* the exit code a hook of the runner ended the run with */
    mbx_timer_info timer;
    int pair_a, pair_b; /* the ping-pong pair */
    int need_pair;
    int pair_known; /* given, resumed or 2 ranks; else the scheduler asks for a scan */
    uint64_t hash;
    mbx_csv_writer *csv, *obs;
    /* --raw: each pass's observations on disk until their point is
     * written (mbx/obsfile.h); obs_err: the spool's failed write (errno
     * obs_errno), for the pass that made it. */
    mbx_obs_spool *spool;
    int obs_err, obs_errno;
    mbx_journal *journal;
    char *env_path, *obs_path, *journal_path;
    mbx_output out; /* -o claimed: its lock, or standard output (out_fd), or discard */
    int out_fd;
    int write_failed; /* a failed write was reported: the run stops, no second message */
    mbx_resume res;
    /* This run's clock to the journal's timeline: pass lines go after the
     * passes of the run resumed (mbx_resume.pass_end), so a run resumed
     * twice carries over passes that do not overlap in time. */
    double jt_offset;
    /* The journal's passes of unfinished points go into the run: not into
     * a file of an earlier format, whose rows have no passes column and
     * whose n, quartiles and fixed counts speak of one row's observations. */
    int carry;
    double t0, last_progress;
    double hook_t0;        /* MBX_TEST_PROBE_SHIFT: the first probe's time; <0: none yet */
    long rss0_kib;         /* rank 0's resident memory before the first point; -1: unknown */
    mbx_window_stats wsum; /* window sync: the points' window moves, summed */
    size_t wpoints;        /* window sync: points measured */
    size_t done, refined, skipped, kept_grid;
    size_t counts[MBX_POINT_STATUS_COUNT];
    uint64_t seed; /* the order's seed */
    /* The machine-state monitor (docs/user-guide.md, "The machine-state monitor"). */
    mbx_monitor mon;
    mbx_sched *sched; /* the run's scheduler while it runs */
    size_t sched_min_passes, sched_max;
    double sched_span, sched_floor;
    const mbx_point_spec *spec;
    int tty;
    char notes[8192]; /* comment lines for the table's head */
    /* Standard output's terminal width (outfit.h; 0: a file or a pipe,
     * the full table), the table's columns it hides (1 << T_*, run_print.c)
     * and the width of its name column. */
    int cols;
    unsigned hide;
    int namew;
    /* The thread binding of the threaded points (thrinfo.h): the last
     * gather, failed binds seen so far, and whether the warning is out. */
    const mbx_thread_bind *thr;
    int thr_seen, thr_warned;
    /* Points of accurate benchmarks (mbx_bench.companion), measured or kept
     * from a resumed run, for the table at the end (mbx_run_accurate_summary). */
    struct acc_row *acc;
    size_t nacc, capacc;
    /* The last row's seq (a resumed run counts on from its file's
     * largest), and the rows of this run for the table printed sorted when
     * it ends (mbx_run_print_table). */
    size_t seq;
    mbx_result *rows;
    size_t nrows, caprows;
    /* Per benchmark id, passes whose data check failed, then the INVALID
     * rows they made (run_check.c); NULL: none so far. */
    size_t *badcheck;
    struct run_watch *watch; /* the passes' watchdog (run_watch.c); NULL: none */
    /* The machine profile (--profile; profile_use.h) and the runner whose
     * rows it widens (mbx_runner_result) while the points run. */
    mbx_profile_use prof;
    mbx_history_use hist;
    const struct mbx_runner *rn;
} run_state;

typedef struct acc_row {
    size_t ser;        /* index of the curve in run_state.ser */
    uint64_t x;        /* the point on the curve's axis */
    double acc, plain; /* the two medians in seconds; NAN when none */
} acc_row;

/* One point of a curve: x on the curve's axis, refined or on the grid. */
typedef struct pointref {
    const series *s;
    uint64_t x;
    int refined;
} pointref;

/* A curve's key and the refined points a resumed run already finished. */
typedef struct curve_state {
    size_t spent;
    char key[MBX_KEY_MAX];
} curve_state;

/* A failed check: "mpibex: msg" on stderr. */
void mbx_run_fail(const char *msg);

/* The plan and its curves (run_plan.c). */
int mbx_run_build_plan(run_state *st, char *msg);
int mbx_run_build_series(run_state *st, int nranks, char *msg);
uint64_t mbx_run_plan_hash(const run_state *st, int nranks);
void mbx_run_spec_of(const run_state *st, const pointref *p, mbx_point_spec *spec);
void mbx_run_key_of(const mbx_point_spec *spec, const char *label, char *key);
uint64_t mbx_run_plan_largest(const run_state *st);
void mbx_run_choose_pair(run_state *st, int nranks);

/* The output files (run_output.c). */
int mbx_run_claim_output(run_state *st, char *msg);
int mbx_run_open_outputs(run_state *st, char *msg);
int mbx_run_write_failure(run_state *st, const char *path, int rc);
int mbx_run_write_result(run_state *st, const mbx_result *r, size_t point);
int mbx_run_raw_sink(void *ud, size_t point, int reset, const double *obs, size_t n);
int mbx_run_raw_failed(run_state *st);
void mbx_run_env_append(const run_state *st, mbx_kvlist *kv, int rc, const char *what);
void mbx_run_binding_env(run_state *st, int nranks);
long mbx_run_proc_status_kib(const char *field);
void mbx_run_memory_report(run_state *st);
void mbx_run_warmup_report(run_state *st);
void mbx_run_window_report(run_state *st);
int mbx_run_monitor_report(run_state *st);

/* Text and summaries (run_print.c). */
int mbx_run_on_progress(void *ud, const mbx_progress *p);
void mbx_run_print_title(const run_state *st, int nranks);
/* The table fitted to cols columns (0: every column): the columns a
 * narrower terminal loses, and the name's width. */
void mbx_run_fit_table(run_state *st, int cols);
void mbx_run_print_header(const run_state *st);
void mbx_run_print_row(const run_state *st, const mbx_result *r);
int mbx_run_keep_row(run_state *st, const mbx_result *r);
void mbx_run_print_table(run_state *st);
/* The "# " line of what the intervals cover: the profile used and its
 * age, or launch-scoped and how to get a profile. */
void mbx_run_print_scope(const run_state *st);
void mbx_run_progress_line(run_state *st, int force);
int mbx_run_interrupted(const run_state *st);
void mbx_run_accurate_summary(run_state *st);
void mbx_run_note_accurate(run_state *st, const pointref *p, double acc, double plain);
void mbx_run_curve_summary(const series *s, size_t points, size_t refined, double worst);
void mbx_run_pass_summary(run_state *st, const mbx_sched *sch);
void mbx_run_print_method(run_state *st, int nranks);
void mbx_run_window_note(run_state *st, const mbx_result *r, const char *name);

/* Data checks (run_check.c): before measuring, one warning line when the
 * run has rma.* and the MPI library is the pairing known to move no data;
 * a pass whose check failed (MBX_E_VALIDATE: its row is INVALID) noted,
 * with one line for a benchmark's first, 0 or 1 (out of memory); after
 * the run, one line naming the benchmarks with INVALID rows from a failed
 * check and 1, or 0 when there are none. */
void mbx_run_rma_check(const run_state *st);
int mbx_run_check_failed(run_state *st, const mbx_point_spec *spec);
void mbx_run_check_row(run_state *st, const mbx_result *r); /* a row kept: counted if so */
int mbx_run_check_report(const run_state *st);

/* Measuring (run_loop.c). */
double mbx_run_clock(const run_state *st);
int mbx_run_measure_all(run_state *st);

/* The watchdog of the passes (run_watch.c, tui/cmd/watchdog.h): started
 * with the outputs open (the engine only, not --watchdog off; MBX_E_NOMEM),
 * armed around each pass with its bound, the pass's progress callback
 * (blocks for good once the watchdog ends the run), disarmed when the pass
 * returns: 1 when it came back after its bound, r then a HUNG row (no
 * numbers, its reason). _end writes the pass's HUNG row, closes the files
 * and ends the job (exit 3); it does not return. */
typedef struct run_watch run_watch;
int mbx_run_watch_start(run_state *st);
void mbx_run_watch_free(run_state *st);
void mbx_run_watch_arm(run_state *st, const pointref *p, const mbx_point_spec *spec);
int mbx_run_watch_progress(void *ud, const mbx_progress *pr);
int mbx_run_watch_disarm(run_state *st, mbx_result *r);
void mbx_run_watch_end(void *ud, double out);

/* A curve for the scheduler, with what a resumed run kept (run_resume.c). */
int mbx_run_sched_curve(run_state *st, mbx_sched *sch, const mbx_sched_opts *so, size_t i,
                        curve_state *c);

#endif
