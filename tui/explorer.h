/* The live explorer on rank 0: state shared by its modules (internal).
 *
 * One thread, strict phases: a point is measured batch by batch by the back
 * end; between batches the progress callback reads keys without waiting and
 * redraws what changed. Nothing here runs inside a timed region. */
#ifndef MBX_EXPLORER_H
#define MBX_EXPLORER_H

#include <curses.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "core/canvas.h"
#include "core/layout.h"
#include "core/theme.h"
#include "mbx/plan.h"
#include "term.h"

#define EX_MAX_BENCH 64
#define EX_MAX_POINTS 8192
#define EX_MAX_PROCS 64

typedef enum ex_screen { EX_PICKER = 0, EX_PARAMS, EX_RUN, EX_RESULTS, EX_NSCREENS } ex_screen;

typedef enum ex_field {
    EX_F_SIZE_MIN = 0,
    EX_F_SIZE_MAX,
    EX_F_FACTOR,
    EX_F_PROCS,
    EX_F_RULE,
    EX_F_EPS,
    EX_F_NMIN,
    EX_F_NMAX,
    EX_F_TIMER,
    EX_F_SYNC,
    EX_NFIELDS
} ex_field;

typedef enum ex_pstate { EX_PENDING = 0, EX_RUNNING, EX_DONE, EX_DROPPED } ex_pstate;

typedef struct ex_point {
    int bench_id;
    uint64_t bytes;
    int procs;
    ex_pstate state;
    double rel;   /* the rule's relative error, live while running */
    mbx_result r; /* valid when EX_DONE */
} ex_point;

typedef enum ex_prompt_kind {
    EX_PROMPT_NONE = 0,
    EX_PROMPT_EXPORT, /* file name */
    EX_PROMPT_OVERWRITE,
    EX_PROMPT_QUIT,
} ex_prompt_kind;

/* Where keys come from: the terminal, or a headless script. */
typedef struct ex_keysrc ex_keysrc;

typedef struct explorer {
    mbx_backend *be;

    /* terminal */
    SCREEN *scr;
    mbx_term *term; /* NULL when headless */
    FILE *devnull_in, *devnull_out;
    int rows, cols;
    int headless;
    ex_keysrc *keys;

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
    unsigned char sel[EX_MAX_BENCH];
    unsigned char collapsed[8];
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
    mbx_timer_kind timer;
    int configured_timer; /* timer the back end is configured with, -1 none */
    mbx_timer_info tinfo;

    /* run */
    ex_point *pts;
    size_t npts, ndone, cur;
    int running, paused, cancel, bandwidth;
    double t_start, t_pause_total, t_pause_begin;
    mbx_summary live;
    int have_live;
    char msg[256]; /* the status line's message */
    int msg_role;

    /* results table */
    int sort_col, sort_desc, rtop, rcursor;
    int exported; /* results since the last export: 0 */

    /* prompts and overlays */
    ex_prompt_kind prompt;
    char input[256];
    char pending_path[256];
    int help;
    ex_screen screen;
    int quit;

    /* the autosave: every finished point, as the batch CSV, as it lands */
    char autosave_dir[512];
    char autosave_path[600];
    struct mbx_csv_writer *autosave;
    int start_now; /* --start */

    /* figures */
    double draw_total, draw_max, last_draw, last_key_lag;
    size_t frames;
} explorer;

/* ex_app.c */
int ex_main_loop(explorer *x);
int ex_handle_key(explorer *x, int key); /* returns 1 when the screen changed */
int ex_tick(explorer *x, int wait_ms);   /* read and handle keys, redraw; 1 to cancel a point */
void ex_start_run(explorer *x);
void ex_set_msg(explorer *x, int role, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
double ex_elapsed(const explorer *x);

/* ex_params.c */
void ex_params_init(explorer *x, const mbx_measurement *m);
void ex_params_validate(explorer *x); /* all fields; updates meas and ferr */
int ex_params_ok(const explorer *x);
int ex_params_key(explorer *x, int key);
void ex_draw_params(explorer *x, const mbx_rect *body);

/* ex_picker.c */
int ex_picker_key(explorer *x, int key);
void ex_draw_picker(explorer *x, const mbx_rect *body);
int ex_picker_count(const explorer *x);

/* ex_run.c */
void ex_draw_run(explorer *x);

/* ex_results.c */
int ex_results_key(explorer *x, int key);
void ex_draw_results(explorer *x, const mbx_rect *body);
int ex_export(explorer *x, const char *path, char *msg, size_t msglen);

/* ex_draw.c */
void ex_colors_init(explorer *x);
attr_t ex_attr(const explorer *x, int role);
void ex_put(explorer *x, int y, int x0, int w, int role, const char *utf8);
void ex_fill(explorer *x, int y, int x0, int w, int role);
void ex_draw(explorer *x);                  /* the whole screen, then doupdate */
int ex_dump(explorer *x, const char *path); /* the screen as text + attributes */

/* ex_keys.c: the key table; footer and help are generated from it */
void ex_draw_footer(explorer *x, const mbx_rect *r);
void ex_draw_help(explorer *x);
const char *ex_key_name(int key, char *buf, size_t len);

#endif
