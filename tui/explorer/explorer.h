/* The live explorer on rank 0: state shared by its modules (internal).
 *
 * One thread, strict phases: the scheduler (mbx/sched.h) hands out one
 * request at a time (a pass of a point, or a monitor probe), the back end
 * carries it out, and between requests the loop reads keys without
 * waiting and redraws what changed. Nothing here runs inside a timed
 * region. */
#ifndef MBX_EXPLORER_H
#define MBX_EXPLORER_H

#include <curses.h>
#include <stddef.h>
#include <stdint.h>

#include "core/axis.h"
#include "core/canvas.h"
#include "core/layout.h"
#include "core/textedit.h"
#include "core/theme.h"
#include "ex_export.h"
#include "mbx/backend.h"
#include "mbx/beff.h"
#include "mbx/beffio.h"
#include "mbx/compare.h"
#include "mbx/monitor.h"
#include "mbx/plan.h"
#include "mbx/refine.h"
#include "mbx/runner.h"
#include "mbx/sched.h"
#include "term.h"

#define EX_MAX_BENCH 128
#define EX_MAX_POINTS 8192 /* refinement stops adding points here */
#define EX_MAX_PROCS MBX_PLAN_MAX_PROCS
#define EX_MAX_PATTERNS 16
#define EX_MAX_SERIES 256

typedef enum mbx_ex_screen {
    EX_PICKER = 0,
    EX_PARAMS,
    EX_RUN,
    EX_RESULTS,
    EX_BEFF,
    EX_NSCREENS
} mbx_ex_screen;

typedef enum mbx_ex_field {
    EX_F_SIZE_MIN = 0,
    EX_F_SIZE_MAX,
    EX_F_FACTOR,
    EX_F_PROCS,
    EX_F_RULE,
    EX_F_EPS,
    EX_F_NMIN,
    EX_F_NMAX,
    EX_F_REFINE,
    EX_F_BUDGET,
    EX_F_ROOT,
    EX_F_PARAM,
    EX_F_PAIR,
    EX_F_VALIDATE,
    EX_F_TIMER,
    EX_F_SYNC,
    EX_F_CLOCK, /* window sync's global clock: jk or hca */
    EX_F_CACHE,
    EX_F_RMA_SYNC,   /* one-sided rma.*: lock_all, fence, lock or pscw */
    EX_F_POINT_TIME, /* seconds of passes per point (run --point-time) */
    EX_F_WARMUP,     /* untimed calls per point (run --warmup), or default */
    EX_NFIELDS
} mbx_ex_field;

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

/* The Wilcoxon rank-sum test of a compared pair of points (their pass
 * medians), kept until the run changes. */
typedef struct mbx_ex_sig {
    const mbx_ex_point *a, *b;
    size_t na, nb;
    size_t probes; /* the probes the levels came from */
    int ok;        /* 0: no test (no observations, or the test failed) */
    size_t strata; /* levels the test was stratified by; 0: all passes as one */
    size_t cut;    /* passes left out: outside the span both were measured in */
    mbx_cmp_point cp;
} mbx_ex_sig;

#define EX_ALPHA 0.05 /* significance level of the comparison's verdicts */

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

/* The run view's comparison of two curves (screens/ex_compare.c): the
 * chooser, the pair compared and the tests of its points so far. */
typedef struct mbx_ex_cmp {
    int on; /* 1: series s[0] (A) and s[1] (B) are compared */
    mbx_ex_series s[2];
    int choosing; /* the series chooser: 0 closed, 1 picking A, 2 picking B */
    int cursor, top;
    mbx_rect list;   /* where the chooser's list was drawn last: clicks */
    int ratios;      /* the side column lists B/A at each common x */
    mbx_ex_sig *sig; /* tests of compared pairs so far */
    size_t nsig, capsig;
} mbx_ex_cmp;

typedef enum mbx_ex_prompt_kind {
    EX_PROMPT_NONE = 0,
    EX_PROMPT_EXPORT, /* file name */
    EX_PROMPT_OVERWRITE,
    EX_PROMPT_QUIT,
    EX_PROMPT_REPORT, /* directory name */
    EX_PROMPT_RERUN,  /* a new run would drop results not exported */
    EX_PROMPT_OBS,    /* large observations: write them too? */
} mbx_ex_prompt_kind;

/* The b_eff / b_eff_io screen: its form, and what the rows so far show.
 * Fields of both benchmarks; the form lists the chosen one's. */
enum {
    EXB_BENCH = 0, /* b_eff or b_eff_io */
    EXB_QUICK,     /* b_eff: off or a cap on L_max (>= 4KiB) */
    EXB_CAP,       /* b_eff: none or 128MiB */
    EXB_MEM,       /* b_eff: auto or SIZE */
    EXB_RMAX,      /* b_eff: none or GFlop/s */
    EXB_RANDOM,    /* b_eff: random patterns 1..1000 */
    EXB_REPS,      /* b_eff: repetitions 1..10 */
    EXB_TIME,      /* b_eff_io: T seconds */
    EXB_DIR,       /* b_eff_io: directory, empty for $TMPDIR */
    EXB_NFIELDS
};
#define EXB_NSERIES 8 /* ring1..ring6, random (log average), pingpong */

typedef struct mbx_ex_beff {
    char field[EXB_NFIELDS][128];
    char ferr[EXB_NFIELDS][160];
    int fcursor, editing;
    int io;                     /* the run shown: 0 b_eff, 1 b_eff_io */
    int started, running, done; /* done: the summary is valid */
    int cancel;
    double t0, t1; /* back end clock at the start and at the end */
    size_t ndone, ntotal;
    char cur[128]; /* the last row, as text */
    /* b_eff: bandwidth of each series at each of the 21 sizes, the max over
     * methods (random: the log average over the random patterns of theirs) */
    uint64_t bytes[MBX_BEFF_NSIZES];
    double bw[EXB_NSERIES][MBX_BEFF_NSIZES];
    double rlog[MBX_BEFF_NSIZES]; /* random: sum of logs of the maxima */
    int rcount[MBX_BEFF_NSIZES];
    double rlast;  /* the maximum so far of the random (pattern, size) in flight */
    char rkey[32]; /* which one: pattern name */
    int rsize;     /* and size index */
    mbx_beff_summary sum;
    /* b_eff_io: bytes and time of every type and access method so far */
    double io_bytes[MBX_BEFFIO_NTYPES][MBX_BEFFIO_NACCESS];
    double io_time[MBX_BEFFIO_NTYPES][MBX_BEFFIO_NACCESS];
    mbx_beffio_summary iosum;
} mbx_ex_beff;

/* Where keys come from: the terminal, or a headless script. */
typedef struct mbx_ex_keysrc mbx_ex_keysrc;

/* A mouse event. The key source returns KEY_MOUSE and leaves the event in
 * explorer.mouse (ex_keysrc.c: curses' getmouse, or a script's mouse:
 * token); ex_input.c hands it to the tab bar, the footer, an overlay or
 * the screen's mouse hook (screens/screen.h). */
typedef enum mbx_ex_button {
    EX_MB_NONE = 0,
    EX_MB_LEFT,
    EX_MB_MIDDLE,
    EX_MB_RIGHT,
    EX_MB_WHEEL_UP,
    EX_MB_WHEEL_DOWN
} mbx_ex_button;

typedef struct mbx_ex_mouse {
    int y, x;   /* the cell: row and column from 0 */
    int button; /* mbx_ex_button */
    int shift;  /* Shift held: the wheel scrolls sideways */
} mbx_ex_mouse;

#define EX_WHEEL_ROWS 3 /* rows a notch of the wheel scrolls */

/* The overlays over a screen: the help (?), the message in full (m). */
enum { EX_OVERLAY_NONE = 0, EX_OVERLAY_HELP, EX_OVERLAY_MSG };

typedef struct explorer {
    mbx_backend *be;

    /* terminal */
    SCREEN *scr;
    mbx_term *term; /* NULL when headless */
    FILE *devnull_in, *devnull_out;
    int rows, cols;
    int headless;
    mbx_ex_keysrc *keys;
    int mouse_on;       /* mouse events asked for (not --no-mouse) */
    mbx_ex_mouse mouse; /* the event of the last KEY_MOUSE */
    /* The one line being edited (a form field, the filter, a prompt): its
     * cursor and selection; the text is the field's. */
    mbx_lineedit ed;
    char ed_orig[128]; /* the text when editing began: Esc puts it back */

    /* looks */
    mbx_theme theme;
    char theme_name[64];
    const char *theme_dir;
    const char *const *theme_dirs;
    int color_mode; /* 0 none, 8, 256 */
    int no_color;
    mbx_glyphs glyphs;
    int utf8;

    /* picker */
    /* 0: not picked, 1: picked, 2: picked twice (two curves measured
     * interleaved, a control for the compare view: Send against Send) */
    unsigned char sel[EX_MAX_BENCH];
    unsigned char collapsed[EX_MAX_PATTERNS];
    int pcursor, ptop;
    char filter[32];
    int filtering;

    /* parameters: text as typed, and the message of each field */
    char field[EX_NFIELDS][64];
    char ferr[EX_NFIELDS][200];
    int fcursor, editing;
    mbx_measurement meas; /* the last valid parameters */
    int procs[EX_MAX_PROCS];
    int nprocs;
    int procs_range; /* the counts came from a range A:B[:F]: refined over P */
    int validate;
    mbx_method method; /* sync, clock sync, cache of the form */
    mbx_timer_kind timer;
    long warmup;          /* the form's warm-up calls per point; 0: the engine's default */
    int configured_timer; /* timer the back end is configured with, -1 none */
    mbx_timer_info tinfo;

    /* run */
    mbx_ex_point *pts;
    size_t npts, ndone, cur; /* cur: the point of the last pass */
    int measuring;           /* a pass of pts[cur] is being measured now */
    int running, paused, cancel, bandwidth;
    double t_start, t_pause_total, t_pause_begin;
    double t_idle;   /* the fake's run clock stands still: its idle time, added */
    size_t nrefined; /* points added by refinement in this run */

    /* the scheduler of this run and its curves; sp_pt maps its point
     * indices to pts */
    mbx_sched *sched;
    mbx_ex_curve *curves;
    size_t ncurves;
    size_t *sp_pt;
    size_t nsp;
    mbx_sched_stats sst; /* as of the last request */
    mbx_sched_opts sopt; /* the scheduler's options of this run */
    unsigned runs;       /* runs started: the scheduler's seed headless */
    /* the runner that carries out the scheduler's requests (mbx/runner.h),
     * and the seconds its last request said to idle */
    mbx_runner runner;
    double step_wait;

    /* the machine-state monitor of this run (jobs of 2 ranks or more) */
    mbx_monitor mon;

    /* the ping-pong pair scan of this run (pair auto) */
    double *lat; /* one-way latency from rank 0 to each rank, be->nranks entries */
    int scanned, far;

    /* run view: x axis, comparison of two curves */
    int xdim; /* mbx_ex_dim */
    mbx_ex_cmp cmp;
    /* the point inspector (i, arrows, a click): a cursor on curve ser at
     * x value xv of the view's axis; error bars (E) */
    struct {
        int on;
        mbx_ex_series ser;
        double xv;
    } insp;
    int errbars;
    char msg[256]; /* the status line's message */
    int msg_role;
    /* Set since the last key: a screen with no status line of its own
     * (the results) shows the message until the next key, so what e and w
     * did is said on every screen that has them. */
    int msg_fresh;

    /* threaded points: the ranks with a failed bind in this run ("" none)
     * for the run's closing message */
    char thr_unbound[64];

    /* data checks of this run (ex_sched.c): the one line on a library that
     * moves no one-sided data ("" none, or no rma.* in the run), and the
     * passes whose check failed (their points INVALID) */
    char rma_why[256];
    size_t badcheck;

    /* the b_eff / b_eff_io screen */
    mbx_ex_beff bf;

    /* results table; rleft: the columns scrolled off to the left */
    int sort_col, sort_desc, rtop, rcursor, rleft;
    int exported; /* results since the last export: 0 */
    mbx_ex_xport xp;

    /* prompts and overlays */
    mbx_ex_prompt_kind prompt;
    char input[256];
    char pending_path[256];
    int help;     /* EX_OVERLAY_*: the overlay open, any key but a scroll closes it */
    int help_top; /* the overlay's first line shown (it scrolls) */
    mbx_ex_screen screen;
    int quit;

    /* Files the explorer reads (--plan, --keys, a --theme file): an export
     * is never written over one of them, nor over the autosave
     * (mbx_output_req.inputs). */
    const char *inputs[3];
    size_t ninputs;

    /* the autosave: every finished point, as the batch CSV, as it lands */
    char autosave_dir[512];
    char autosave_path[600];
    struct mbx_csv_writer *autosave;
    int autosave_private;       /* the default state directory: private, else one in $TMPDIR */
    int autosave_tmp;           /* no state directory: a private one in $TMPDIR at the first run */
    char autosave_err[800];     /* the last failure, for the closing line; "" if none */
    size_t autosave_lost;       /* finished points that reached no autosave file */
    int start_now;              /* --start */
    double settle;              /* --settle: seconds before each run's first point */
    struct mbx_ex_watch *watch; /* the watchdog of the passes (ex_watch.h); NULL: none */

    /* figures */
    double draw_total, draw_max, last_draw, last_key_lag;
    size_t frames;
} explorer;

/* The screens' draw and key functions are reached through their rows of
 * the screen table: screens/screen.h. */

/* ex_app.c */
int mbx_ex_main_loop(explorer *x);
int mbx_ex_tick(explorer *x, int wait_ms); /* read and handle keys, redraw; 1 to cancel a point */
void mbx_ex_start_run(explorer *x);
void mbx_ex_set_msg(explorer *x, int role, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
double mbx_ex_elapsed(const explorer *x);

/* ex_input.c: the app-wide keys and prompts, then the screen's */
int mbx_ex_handle_key(explorer *x, int key); /* returns 1 when the screen changed */

/* ex_autosave.c */
/* A new autosave file for a run, the last one closed; none (and a message
 * on the status line) when it cannot be made. */
void mbx_ex_autosave_open(explorer *x);
/* One final point's row to the autosave (counted as lost when there is
 * none to write to though one was asked for). */
void mbx_ex_autosave_row(explorer *x, const mbx_result *r);

/* The probe of the monitor: 1-byte round trips per probe. */
#define EX_PROBE_ROUNDS 50

/* ex_params.c */
void mbx_ex_params_init(explorer *x, const mbx_measurement *m);
void mbx_ex_params_validate(explorer *x); /* all fields; updates meas and ferr */
int mbx_ex_params_ok(const explorer *x);

/* ex_picker.c */
int mbx_ex_picker_count(const explorer *x);

/* ex_run.c */
/* The monitor's strip: one row, the probe series as a sparkline. */
void mbx_ex_draw_monitor(explorer *x, int y, int x0, int w);
double mbx_ex_point_y(const explorer *x, const mbx_ex_point *p); /* plotted value, NAN if none */
/* The plot's x axis: log bytes, or process counts (linear over a short
 * range, log over a long one). */
typedef struct mbx_ex_xaxis {
    int lin;
    double lo, hi; /* lin */
    mbx_scale s;   /* log */
    int zero;      /* log with 0 B among the points: 0 at the left edge, a gap, then s */
} mbx_ex_xaxis;
mbx_ex_xaxis mbx_ex_xaxis_fit(int dim, double lo, double hi);
int mbx_ex_xaxis_pixel(const mbx_ex_xaxis *a, double v, int pixels);
#define EX_YLABEL_W 7
#define EX_OWNER_GRID (MBX_NSERIES + 1)  /* canvas owner: the ratio strip's 1.0 line */
#define EX_OWNER_RATIO (MBX_NSERIES + 2) /* canvas owner: the ratio curve */
void mbx_ex_draw_canvas(explorer *x, mbx_canvas *cv, int py, int px); /* cells by owner */
void mbx_ex_frame_left(explorer *x, int py, int px, int rows);

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

/* ex_style.c: telling curves apart without colour, and short names */
typedef struct mbx_ex_style {
    char marker;      /* the curve's point marker, ASCII */
    unsigned pattern; /* its line's dot pattern (mbx_canvas_line_styled) */
} mbx_ex_style;
/* Curve s of a view: a marker of its own, and (mono: no colour) a line
 * style of its own; with colour every line is solid. */
void mbx_ex_series_style(int s, int mono, mbx_ex_style *out);
/* Benchmark names without their pattern ("send_recv"), unless two
 * patterns among ids share one: then both whole ("threads.barrier",
 * "omp.barrier"). */
void mbx_ex_short_names(const int *ids, int n, char (*out)[32]);
/* name in at most w columns: the pattern to its first letter, then no
 * underscores, then vowels from the right ("allrdce"), then cut. */
void mbx_ex_fit_name(const char *name, int w, char *out, size_t len);
/* Every one of n names fitted to w, those that became equal told apart
 * by a last digit. */
void mbx_ex_fit_unique(char (*names)[32], int n, int w);

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

/* ex_compare.c: the series chooser, ratios of two curves */
int mbx_ex_compare_count(const explorer *x); /* curves the chooser offers */
int mbx_ex_compare_key(explorer *x, int key);
/* The chooser open: the wheel moves its cursor, a click on a curve takes
 * it (as Enter); 1 when something changed. */
int mbx_ex_compare_mouse(explorer *x, const mbx_ex_mouse *m);
void mbx_ex_draw_chooser(explorer *x, const mbx_rect *plot);
/* B/A at every x both curves have, in increasing x: fills xs, ratio and
 * (if not NULL) the two points, up to max; returns the count. */
int mbx_ex_compare_ratios(const explorer *x, double *xs, double *ratio, const mbx_ex_point **pa,
                          const mbx_ex_point **pb, int max);
void mbx_ex_draw_ratio_table(explorer *x, const mbx_rect *r);
/* The strip under a compared plot: B/A on a log axis centred on 1. */
void mbx_ex_draw_ratio_strip(explorer *x, const mbx_ex_xaxis *xa, int py, int px, int pw, int sh);
/* The row under it: each common point's significance (stars, or a dot). */
void mbx_ex_draw_sig_row(explorer *x, const mbx_ex_xaxis *xa, int y, int px, int pw);
/* The Wilcoxon test of A's point a against B's point b on their pass
 * medians (cached); NULL when there is none (fewer than 2 passes). */
const mbx_cmp_point *mbx_ex_compare_test(explorer *x, const mbx_ex_point *a, const mbx_ex_point *b);
void mbx_ex_compare_forget(explorer *x); /* the run's points change */
/* "interleaved: fair; Wilcoxon 5% on pass medians: A faster at 3 x, ..." */
void mbx_ex_compare_summary(explorer *x, char *buf, size_t len);

/* ex_export.c: export and report (ex_export.h) */
void mbx_ex_points_free(explorer *x); /* the run's points and their observations */

/* ex_beff.c: the b_eff / b_eff_io screen */
void mbx_ex_beff_init(explorer *x);
void mbx_ex_beff_start(explorer *x); /* validate the form; the loop then calls mbx_ex_beff_run */
void mbx_ex_beff_run(explorer *x);   /* the whole benchmark, keys and redraws between rows */
/* ex_beffview.c: what the rows so far show, in area under the form:
 * b_eff's plot, legend and summary, or (io) b_eff_io's table. */
void mbx_ex_draw_beff_results(explorer *x, const mbx_rect *area, int io);

/* ex_draw.c: paint primitives */
void mbx_ex_colors_init(explorer *x);
attr_t mbx_ex_attr(const explorer *x, int role);
void mbx_ex_put(explorer *x, int y, int x0, int w, int role, const char *utf8);
/* The same with attributes (MBX_ATTR_*) over the role's: a point's status
 * on its curve's marker, colour kept. */
void mbx_ex_put_attr(explorer *x, int y, int x0, int w, int role, unsigned extra, const char *utf8);
void mbx_ex_fill(explorer *x, int y, int x0, int w, int role);
/* As mbx_ex_put, but text wider than w columns ends in an ellipsis (the
 * UTF-8 one, or '~' in ASCII) where it is cut. */
void mbx_ex_put_cut(explorer *x, int y, int x0, int w, int role, const char *utf8);
/* A frame in role round rect b (box-drawing lines, or +-| in ASCII), its
 * inside cleared: what is behind an overlay does not show through. */
void mbx_ex_draw_box(explorer *x, const mbx_rect *b, int role);
int mbx_ex_dump(explorer *x, const char *path); /* the screen as text + attributes */

/* ex_frame.c: the frame */
void mbx_ex_draw(explorer *x); /* the whole screen, then doupdate */

/* ex_keys.c: the key table; footer and help are generated from it */
void mbx_ex_draw_footer(explorer *x, const mbx_rect *r);
unsigned mbx_ex_key_context(const explorer *x); /* the screen bit, or the chooser's */
const char *mbx_ex_key_name(int key, char *buf, size_t len);
/* The key of the footer's entry at column c (clicked), 0 for none. */
int mbx_ex_footer_key_at(const explorer *x, int c);

/* ex_frame.c: the screen whose tab is at column c of the title bar, -1 none */
int mbx_ex_tab_at(const explorer *x, int c);

/* ex_overlay.c: the help (EX_OVERLAY_HELP) and the message in full
 * (EX_OVERLAY_MSG) over the screen, wrapped, scrolled by keys and wheel */
void mbx_ex_overlay_open(explorer *x, int which);
/* A message at (y, x0) in w columns; one longer than that ends in
 * " ... (m)": m opens it in full. */
void mbx_ex_put_msg(explorer *x, int y, int x0, int w, int role, const char *text);
void mbx_ex_draw_overlay(explorer *x);
int mbx_ex_overlay_key(explorer *x, int key);                 /* scrolls, or closes */
int mbx_ex_overlay_mouse(explorer *x, const mbx_ex_mouse *m); /* wheel scrolls, click closes */

/* ex_edit.c: the one line being edited (a field, the filter, a prompt) */
/* Editing of buf begins: the cursor at the end, all of it selected when
 * select_all (typing then replaces it); the text is kept for Esc. */
void mbx_ex_edit_begin(explorer *x, const char *buf, int select_all);
/* Esc in a form field: buf (size bytes) back to its text when editing
 * began. */
void mbx_ex_edit_revert(explorer *x, char *buf, size_t size);
/* The editing keys on buf (size bytes): printable characters, Backspace,
 * Delete, Left/Right, Home/End and Ctrl-A/E, Ctrl-U, Ctrl-K, Ctrl-W; 0
 * when key is none of them (or the line is full). Enter and Esc are the
 * caller's. */
int mbx_ex_line_edit(explorer *x, char *buf, size_t size, int key);
/* buf as it is being edited, at (y, x0) in w columns: the cursor cell
 * reversed ('_' after the end), all of it reversed while selected. */
void mbx_ex_put_edit(explorer *x, int y, int x0, int w, int role, const char *buf);

/* ex_input.c: a mouse event (x->mouse after KEY_MOUSE); 1 when the
 * screen changed */
int mbx_ex_handle_mouse(explorer *x, const mbx_ex_mouse *m);

#endif
