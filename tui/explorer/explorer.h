/* The live explorer on rank 0: the app (internal). What every screen
 * shares: the terminal, the looks, the run model (ex_model.h), the
 * message line; each screen's own state is a member whose type its
 * header (screens/NAME.h) declares and only its files touch.
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

#include "core/layout.h"
#include "core/textedit.h"
#include "core/theme.h"
#include "ex_export.h"
#include "ex_model.h"
#include "history_use.h"
#include "mbx/backend.h"
#include "mbx/monitor.h"
#include "mbx/refine.h"
#include "mbx/runner.h"
#include "mbx/sched.h"
#include "profile_use.h"
#include "screens/beff.h"
#include "screens/compare.h"
#include "screens/guidelines.h"
#include "screens/pairs.h"
#include "screens/params.h"
#include "screens/picker.h"
#include "screens/results.h"
#include "screens/run.h"
#include "term.h"

/* The screens in tab order, from the list in screens/screens.def. */
typedef enum mbx_ex_screen {
#define MBX_EX_SCREEN(e, name) e,
#include "screens/screens.def"
#undef MBX_EX_SCREEN
    EX_NSCREENS
} mbx_ex_screen;

typedef enum mbx_ex_prompt_kind {
    EX_PROMPT_NONE = 0,
    EX_PROMPT_EXPORT, /* file name */
    EX_PROMPT_OVERWRITE,
    EX_PROMPT_QUIT,
    EX_PROMPT_REPORT, /* directory name */
    EX_PROMPT_RERUN,  /* a new run would drop results not exported */
    EX_PROMPT_OBS,    /* large observations: write them too? */
} mbx_ex_prompt_kind;

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

    /* the run model (ex_model.h) */
    /* The request. Picked: 0 not, 1 once, 2 twice (two curves measured
     * interleaved, a control for the compare view: Send against Send). */
    unsigned char sel[EX_MAX_BENCH];
    /* The form's parameters when last valid (screens/ex_params.c). */
    mbx_measurement meas;
    int procs[EX_MAX_PROCS];
    int nprocs;
    int procs_range; /* the counts came from a range A:B[:F]: refined over P */
    int validate;
    mbx_method method; /* sync, clock sync, cache of the form */
    mbx_timer_kind timer;
    long warmup;          /* the form's warm-up calls per point; 0: the engine's default */
    int configured_timer; /* timer the back end is configured with, -1 none */
    mbx_timer_info tinfo;

    /* The run's points. */
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
    /* the machine profile that widens the rows (auto: this host's and
     * MPI's, profile_use.h), looked for once, at the first run */
    mbx_profile_use prof;
    int prof_tried;
    /* the host's history (history_use.h): read as each run begins, which
     * then adds its row when it is freed */
    mbx_history_use hist;

    /* the machine-state monitor of this run (jobs of 2 ranks or more) */
    mbx_monitor mon;

    /* the ping-pong pair scan of this run (pair auto) */
    double *lat; /* one-way latency from rank 0 to each rank, be->nranks entries */
    int scanned, far;

    /* threaded points: the ranks with a failed bind in this run ("" none)
     * for the run's closing message */
    char thr_unbound[64];

    /* data checks of this run (ex_sched.c): the one line on a library that
     * moves no one-sided data ("" none, or no rma.* in the run), and the
     * passes whose check failed (their points INVALID) */
    char rma_why[256];
    size_t badcheck;

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

    /* the message line (ex_msg.c) */
    char msg[256];
    int msg_role;
    /* Set since the last key: a screen with no status line of its own
     * (the results) shows the message until the next key, so what e and w
     * did is said on every screen that has them. */
    int msg_fresh;

    /* the screens' own state (screens/NAME.h) */
    mbx_ex_picker pick;
    mbx_ex_params par;
    mbx_ex_results res;
    mbx_ex_beff bf;
    mbx_ex_gl gl;
    mbx_ex_pairs pr;
    /* the run view: x axis (mbx_ex_dim), comparison of two curves, the
     * inspector, error bars (E) */
    int xdim;
    mbx_ex_cmp cmp;
    mbx_ex_insp insp;
    int errbars;

    /* export */
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
    /* Read keys and redraw between steps of a long piece of work (the
     * loop's, ex_loop.c); reached through mbx_ex_tick. */
    int (*tick)(struct explorer *x, int wait_ms);
    void (*redraw)(struct explorer *x); /* the frame now; NULL headless */

    /* Files the explorer reads (--plan, --keys, a --theme file): an export
     * is never written over one of them, nor over the autosave
     * (mbx_output_req.inputs). */
    const char *inputs[3];
    size_t ninputs;

    /* figures */
    double draw_total, draw_max, last_draw, last_key_lag;
    size_t frames;
} explorer;

/* The screens' draw and key functions are reached through their rows of
 * the screen table: screens/screen.h. */

/* ex_loop.c: the loop */
int mbx_ex_main_loop(explorer *x);
/* ex_msg.c: the message line; the loop's tick (keys and a redraw) between
 * steps of a long piece of work, 1 to stop it */
void mbx_ex_set_msg(explorer *x, int role, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int mbx_ex_tick(explorer *x, int wait_ms);
/* The frame drawn now (a message before a long wait), not headless. */
void mbx_ex_show_now(explorer *x);
/* A message at (y, x0) in w columns; one longer than that ends in
 * " ... (m)": m opens it in full (ex_overlay.c). */
void mbx_ex_put_msg(explorer *x, int y, int x0, int w, int role, const char *text);
/* ex_app.c: a run of the request from the picker and the form */
void mbx_ex_start_run(explorer *x);

/* ex_input.c: the app-wide keys and prompts, then the screen's */
int mbx_ex_handle_key(explorer *x, int key); /* returns 1 when the screen changed */

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
/* screen: the help's name for the screen in view (its screen table row) */
void mbx_ex_draw_overlay(explorer *x, const char *screen);
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
