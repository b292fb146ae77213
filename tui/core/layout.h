/* Screen layout arithmetic for the explorer, independent of curses, so it
 * can be unit-tested over many terminal sizes.
 *
 * Every screen has a one-row title bar at the top and a one-row footer at
 * the bottom. The run view splits the body: the plot on the left (with its
 * y-axis labels inside its rectangle), on the right a column holding the
 * legend above the convergence panel, and a status block of 3 rows under
 * both. Rectangles never overlap, never leave the screen, and the plot gets
 * at least 60 % of the body width. Below MBX_MIN_COLS x MBX_MIN_ROWS the
 * layout is not ok and the front end shows "terminal too small". */
#ifndef MBX_LAYOUT_H
#define MBX_LAYOUT_H

#define MBX_MIN_COLS 60
#define MBX_MIN_ROWS 16

typedef struct mbx_rect {
    int y, x, h, w; /* top row, left column, height, width; h,w >= 0 */
} mbx_rect;

typedef struct mbx_frame_layout {
    int ok;
    mbx_rect title, body, footer;
} mbx_frame_layout;

typedef struct mbx_run_layout {
    int ok;
    mbx_rect title, plot, legend, conv, status, footer;
} mbx_run_layout;

void mbx_layout_frame(int rows, int cols, mbx_frame_layout *out);

/* nseries: legend entries wanted (the legend takes nseries + 2 rows, at most
 * half the body; the convergence panel takes the rest of the column). The
 * side column is 24..40 columns wide, about 35 % of the screen. */
void mbx_layout_run(int rows, int cols, int nseries, mbx_run_layout *out);

/* Whether two rectangles share a cell; whether r lies inside 0..rows, 0..cols. */
int mbx_rect_overlap(const mbx_rect *a, const mbx_rect *b);
int mbx_rect_inside(const mbx_rect *r, int rows, int cols);

#endif
