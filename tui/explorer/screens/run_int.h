/* The run view's pieces (internal to screens/ex_run.c, the plot and
 * the frame of the view, screens/ex_runside.c, the side column and the
 * status block, and screens/ex_inspect.c, the point inspector). */
#ifndef MBX_EX_RUN_INT_H
#define MBX_EX_RUN_INT_H

#include "explorer.h"

#define REFINED_MARK '^'
#define PLAIN_MARK 'p' /* an accurate point's plain companion (mbx_result.plain) */

/* Canvas owners of the plot: the curve's owner (1..MBX_NSERIES, the
 * EX_OWNER_* of explorer.h) in the low byte, how its marker is drawn
 * above it. A point keeps its curve's glyph and colour; its state is an
 * attribute: dim while not final, bold once SETTLED (or FIXED: a fixed
 * count, every observation taken), reverse when final but neither
 * (UNSETTLED, SHIFTED, UNRELIABLE, INVALID). */
#define EX_OWN_MASK 0xff
#define EX_OWN_OPEN 0x100    /* not final yet: dim */
#define EX_OWN_SOLID 0x200   /* final and SETTLED: bold */
#define EX_OWN_FLAGGED 0x400 /* final, not SETTLED: reverse */
#define EX_OWN_CURSOR 0x800  /* the inspector's point: the cursor role */

/* The view: which curves, in which order, and where the plot is. */
typedef struct mbx_ex_view {
    mbx_ex_series ser[EX_MAX_SERIES];
    char names[EX_MAX_SERIES][48];
    mbx_ex_style style[EX_MAX_SERIES];
    int nser;
    int draw[EX_MAX_SERIES]; /* drawn: all, or the two compared */
    int nox[EX_MAX_SERIES];  /* no point of it has a place on this axis (barrier by size) */
    int cmp_idx[2];          /* indices of A and B, -1 when absent */
    int any_refined;
    int any_plain; /* some drawn point has a plain companion value */
    int any_point; /* some drawn point has a value: the marks' line */
    int any_nox;   /* some curve is not on this axis */
    mbx_ex_xaxis xa;
    mbx_scale ys;
    int pw, ph, px, py, dw, dh; /* plot cells (pw x ph at px, py), its dots */
} mbx_ex_view;

/* The view of the run as it is now and the plot's place on the screen
 * (the run layout of x->rows x x->cols); 0 when there is no room for a
 * plot. The draw and a click use the same. */
int mbx_ex_run_view(explorer *x, mbx_ex_view *v, mbx_run_layout *l);
/* The dot of a point on the plot: its x and y pixels; 0 when it has none. */
int mbx_ex_view_dot(const explorer *x, const mbx_ex_view *v, const mbx_ex_point *p, int *dx,
                    int *dy);
/* The legend's row count for the layout. */
int mbx_ex_legend_rows(const explorer *x, const mbx_ex_view *v);

/* The side column: the legend (the curves drawn, the marks in use) and a
 * convergence bar a point; the status block under the plot. */
void mbx_ex_draw_legend(explorer *x, const mbx_rect *r, const mbx_ex_view *v);
void mbx_ex_draw_conv(explorer *x, const mbx_rect *r, const mbx_ex_view *v);
void mbx_ex_draw_status(explorer *x, const mbx_rect *r);

/* screens/ex_inspect.c: the point inspector */
/* The point under the cursor, NULL when the inspector is off or its curve
 * has no point there; *s its curve's index in v. */
const mbx_ex_point *mbx_ex_insp_point(explorer *x, const mbx_ex_view *v, int *s);
/* The inspector's panel in r: the point's statistics, pass medians over
 * time with their levels, a histogram of its observations. */
void mbx_ex_draw_inspector(explorer *x, const mbx_rect *r, const mbx_ex_view *v);
/* The inspector's panels over any point's figures (the pairs screen's
 * cells too): pm[0..n) pass medians over time with the level of each
 * (lv, nl of them; NULL, 0: none), two rows from y, returns the next; a
 * histogram of the observations o[0..n) in h rows from y. */
int mbx_ex_draw_passes(explorer *x, const mbx_rect *r, const double *pm, size_t n, const int *lv,
                       size_t nl, int y);
void mbx_ex_draw_hist(explorer *x, const mbx_rect *r, const double *o, size_t n, int y, int h);
/* The inspector's keys (i, arrows, h j k l, Esc); 1 when taken. */
int mbx_ex_insp_key(explorer *x, int key);

/* A click at screen cell (row, col): the inspector's cursor to the drawn
 * point nearest it (within two cells) and the inspector open; 1 when
 * there was one, 0 (nothing changed) when not. For the mouse. */
int mbx_ex_run_cursor_at(explorer *x, int row, int col);

#endif
