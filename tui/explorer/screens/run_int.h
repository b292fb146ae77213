/* The run view's pieces (internal to screens/ex_run.c, the plot and
 * the frame of the view, and screens/ex_runside.c, the side column and
 * the status block). */
#ifndef MBX_EX_RUN_INT_H
#define MBX_EX_RUN_INT_H

#include "explorer.h"

#define REFINED_MARK '^'
#define SHIFTED_MARK '~' /* the machine changed level during the point, twice */
#define AGAIN_MARK 'r'   /* measured again after a level shift, then fine */
#define PLAIN_MARK 'p'   /* an accurate point's plain companion (mbx_result.plain) */
/* The marker of the view's curve s: o + x * # @ % &, then again. */
#define MBX_EX_MARKER(s) ("o+x*#@%&"[(s) % MBX_NSERIES])

/* The view: which curves, in which order, and where the plot is. */
typedef struct mbx_ex_view {
    mbx_ex_series ser[EX_MAX_SERIES];
    char names[EX_MAX_SERIES][48];
    int nser;
    int draw[EX_MAX_SERIES]; /* drawn: all, or the two compared */
    int cmp_idx[2];          /* indices of A and B, -1 when absent */
    int any_refined;
    int any_shift; /* some point was measured again or is SHIFTED */
    int any_plain; /* some drawn point has a plain companion value */
    int any_open;  /* some point has passes but is not final yet */
    mbx_ex_xaxis xa;
    int pw, ph, px, py, dw, dh;
} mbx_ex_view;

/* The side column: the legend (the curves drawn, the marks in use) and a
 * convergence bar a point; the status block under the plot. */
void mbx_ex_draw_legend(explorer *x, const mbx_rect *r, const mbx_ex_view *v);
void mbx_ex_draw_conv(explorer *x, const mbx_rect *r);
void mbx_ex_draw_status(explorer *x, const mbx_rect *r);

#endif
