#include "layout.h"

#include <stddef.h>

#define SIDE_MIN 24
#define SIDE_MAX 40
#define STATUS_ROWS 3
#define LEGEND_MIN 3

static mbx_rect rect(int y, int x, int h, int w)
{
    mbx_rect r = {y, x, h, w};
    return r;
}

static int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void mbx_layout_frame(int rows, int cols, mbx_frame_layout *out)
{
    if (out == NULL) {
        return;
    }
    if (rows < 0) {
        rows = 0;
    }
    if (cols < 0) {
        cols = 0;
    }
    /* The title is the last thing to give up: with one row it is all the
     * front end can show ("terminal too small"). */
    int th = rows >= 1 ? 1 : 0;
    int fh = rows >= 2 ? 1 : 0;
    out->ok = rows >= MBX_MIN_ROWS && cols >= MBX_MIN_COLS;
    out->title = rect(0, 0, th, cols);
    out->footer = rect(rows - fh, 0, fh, cols);
    out->body = rect(th, 0, rows - th - fh, cols);
}

void mbx_layout_run(int rows, int cols, int nseries, mbx_run_layout *out)
{
    if (out == NULL) {
        return;
    }
    mbx_frame_layout f;
    mbx_layout_frame(rows, cols, &f);
    cols = f.title.w;
    if (nseries < 0) {
        nseries = 0;
    }
    out->ok = f.ok;
    out->title = f.title;
    out->footer = f.footer;

    int sh = f.body.h < STATUS_ROWS ? f.body.h : STATUS_ROWS;
    out->status = rect(f.body.y + f.body.h - sh, 0, sh, cols);

    int uy = f.body.y, uh = f.body.h - sh;
    /* About 35 % for the side column (the convergence bars need room), but
     * never at the plot's expense:
     * the plot keeps ceil(60 %) of the width even if the side gets narrower
     * than SIDE_MIN (only possible below MBX_MIN_COLS). */
    int side = clamp((35 * cols + 50) / 100, SIDE_MIN, SIDE_MAX);
    int plot_min = (6 * cols + 9) / 10;
    if (side > cols - plot_min) {
        side = cols - plot_min;
    }
    int pw = cols - side;
    out->plot = rect(uy, 0, uh, pw);

    int lh = nseries > uh ? uh : nseries + 2; /* no overflow for huge counts */
    if (lh > f.body.h / 2) {
        lh = f.body.h / 2;
    }
    if (lh < LEGEND_MIN) {
        lh = LEGEND_MIN;
    }
    /* Tiny screens (never ok ones) may not fit even that. */
    if (lh > uh) {
        lh = uh;
    }
    out->legend = rect(uy, pw, lh, side);
    out->conv = rect(uy + lh, pw, uh - lh, side);
}

static int empty(const mbx_rect *r)
{
    return r->h <= 0 || r->w <= 0;
}

int mbx_rect_overlap(const mbx_rect *a, const mbx_rect *b)
{
    if (a == NULL || b == NULL || empty(a) || empty(b)) {
        return 0;
    }
    /* Compare in long long so rectangles near INT_MAX cannot overflow. */
    long long ay1 = (long long)a->y + a->h, ax1 = (long long)a->x + a->w;
    long long by1 = (long long)b->y + b->h, bx1 = (long long)b->x + b->w;
    return a->y < by1 && b->y < ay1 && a->x < bx1 && b->x < ax1;
}

int mbx_rect_inside(const mbx_rect *r, int rows, int cols)
{
    if (r == NULL || r->h < 0 || r->w < 0 || r->y < 0 || r->x < 0) {
        return 0;
    }
    return (long long)r->y + r->h <= rows && (long long)r->x + r->w <= cols;
}
