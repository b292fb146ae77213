/* The pairs screen (screens/ex_pairs.c: the form, the run and the keys;
 * screens/ex_pairsmap.c: the heatmap, its legend, the cell under the
 * cursor, the verdicts and the cell inspector). (internal) */
#ifndef MBX_EX_PAIRS_H
#define MBX_EX_PAIRS_H

#include "core/layout.h"
#include "ex_form.h"
#include "mbx/engine.h"
#include "mbx/pairs.h"
#include "mbx/pairs_run.h"

typedef struct explorer explorer;
struct mbx_ex_mouse;

enum {
    EXP_METRIC = 0, /* latency, bandwidth or both */
    EXP_MODE,       /* shift or one */
    EXP_PER,        /* node, socket or rank */
    EXP_LAT,        /* latency message size */
    EXP_BW,         /* bandwidth message size */
    EXP_WINDOW,     /* bandwidth window, messages */
    EXP_STEPS,      /* all, or K steps sampled */
    EXP_LIMIT,      /* time limit, seconds (0 none) */
    EXP_NFIELDS
};

#define EXP_LEVELS 5 /* the heatmap's shades: ratio to the typical cell */

/* A cell's figures as of its last pass (mbx_ex_pairs_cell_now). */
typedef struct mbx_ex_pairs_cached {
    size_t passes; /* 0: none yet */
    int ok;
    mbx_passes_result r;
} mbx_ex_pairs_cached;

typedef struct mbx_ex_pairs {
    mbx_ex_form form;
    char field[EXP_NFIELDS][32];
    char ferr[EXP_NFIELDS][160];
    int started, running, done, cancel;
    int editing_form; /* the form has the keys (else the matrix) */
    double t0, t1;    /* back end clock at the start and the end */
    int rc;           /* the run's status */
    /* the nodes of the run: their ranks and hosts, and short labels */
    int n;
    int *rank;
    char (*host)[MBX_HOST_MAX];
    char (*label)[8];
    int per;
    mbx_pairs_plan plan;
    mbx_pairs_run run; /* filled as passes land; freed at the next run */
    size_t pdone, ptotal;
    mbx_ex_pairs_cached *cache; /* by the run's cell index */
    size_t ncache;
    /* per metric: the verdicts so far (after each round) */
    mbx_pairs_fit fit[MBX_PAIRS_METRICS];
    int fitted[MBX_PAIRS_METRICS];
    char fiterr[MBX_PAIRS_METRICS][160];
    int fit_round; /* the rounds the verdicts are of */
    /* the view: the metric shown, the cursor cell (src row, dst column),
     * the inspector, one node a cell (scrolling) or blocks that fit */
    int metric;
    int cur_src, cur_dst;
    int insp, zoom;
    int top, left; /* the first node shown when zoomed */
    /* the map as last drawn, for the mouse: its cells' origin and size,
     * nodes a cell, the first node shown */
    int map_x, map_y, map_cw, map_rows, map_cols, map_block, map_top, map_left;
} mbx_ex_pairs;

void mbx_ex_pairs_init(explorer *x);
void mbx_ex_pairs_free(explorer *x);
void mbx_ex_pairs_start(explorer *x); /* check the form; the loop then calls mbx_ex_pairs_run */
void mbx_ex_pairs_run(explorer *x);   /* the whole run, keys and redraws between passes */
/* ex_pairsmap.c: the matrix part of the screen in area (under the form). */
void mbx_ex_draw_pairs_map(explorer *x, const mbx_rect *area);
/* A click in the matrix: the cursor to that cell; 1 when taken. */
int mbx_ex_pairs_click(explorer *x, const struct mbx_ex_mouse *m);
/* A cell's figures as they stand (its passes so far): 0 when it has none. */
int mbx_ex_pairs_cell_now(explorer *x, int m, int src, int dst, mbx_passes_result *out);

#endif
