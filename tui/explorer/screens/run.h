/* The run view (screens/ex_run.c, ex_runside.c, ex_runstatus.c,
 * ex_inspect.c): the plot's axis and canvas, the point inspector's
 * cursor. Its pieces among themselves: screens/run_int.h. (internal) */
#ifndef MBX_EX_RUN_H
#define MBX_EX_RUN_H

#include "core/axis.h"
#include "core/canvas.h"
#include "core/theme.h"
#include "ex_model.h"

typedef struct explorer explorer;

/* The point inspector (i, arrows, a click): a cursor on curve ser at x
 * value xv of the view's axis. */
typedef struct mbx_ex_insp {
    int on;
    mbx_ex_series ser;
    double xv;
} mbx_ex_insp;

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

#endif
