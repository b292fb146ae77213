#include "canvas.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Segments whose ends lie further than this outside the canvas are cut to
 * the canvas (plus this margin) first, so a point mapped far off-screen by
 * a log scale cannot make a line walk billions of invisible dots. Inside
 * the margin the line is plain Bresenham, dot for dot. */
#define LINE_MARGIN 4096

struct mbx_canvas {
    int cols, rows;
    mbx_glyphs glyphs;
    int dx, dy;          /* dots per cell across, down */
    unsigned char *bits; /* per cell: one bit per dot */
    int *owner;          /* per cell: last writer of a dot */
    char *marker;        /* per cell: 0 or a printable ASCII marker */
    int *marker_owner;   /* per cell: writer of the marker */
};

/* Braille numbers its dots down the left column first, with the fourth
 * row added later as bits 6 and 7; index [x][y] within the cell. */
static const unsigned char braille_bit[2][4] = {
    {0x01, 0x02, 0x04, 0x40},
    {0x08, 0x10, 0x20, 0x80},
};

/* Block glyphs indexed by a quadrant mask: 1 upper left, 2 upper right,
 * 4 lower left, 8 lower right. Half and full blocks stand in where no
 * quadrant character exists for the combination. */
static const unsigned block_glyph[16] = {
    0x0020, 0x2598, 0x259D, 0x2580, 0x2596, 0x258C, 0x259E, 0x259B,
    0x2597, 0x259A, 0x2590, 0x259C, 0x2584, 0x2599, 0x259F, 0x2588,
};

mbx_canvas *mbx_canvas_new(int cols, int rows, mbx_glyphs glyphs)
{
    if (cols <= 0 || rows <= 0) {
        return NULL;
    }
    /* Keep dot coordinates representable as int. */
    if (rows > INT_MAX / 4 || (size_t)cols > (size_t)(INT_MAX / 2) / (size_t)rows) {
        return NULL;
    }
    mbx_canvas *c = calloc(1, sizeof *c);
    if (c == NULL) {
        return NULL;
    }
    size_t n = (size_t)cols * (size_t)rows;
    c->cols = cols;
    c->rows = rows;
    switch (glyphs) {
    case MBX_GLYPHS_BRAILLE:
        c->dx = 2;
        c->dy = 4;
        break;
    case MBX_GLYPHS_BLOCK:
        c->dx = 2;
        c->dy = 2;
        break;
    default:
        glyphs = MBX_GLYPHS_ASCII;
        c->dx = 1;
        c->dy = 1;
        break;
    }
    c->glyphs = glyphs;
    c->bits = calloc(n, sizeof *c->bits);
    c->owner = calloc(n, sizeof *c->owner);
    c->marker = calloc(n, sizeof *c->marker);
    c->marker_owner = calloc(n, sizeof *c->marker_owner);
    if (c->bits == NULL || c->owner == NULL || c->marker == NULL || c->marker_owner == NULL) {
        mbx_canvas_free(c);
        return NULL;
    }
    return c;
}

void mbx_canvas_free(mbx_canvas *c)
{
    if (c == NULL) {
        return;
    }
    free(c->bits);
    free(c->owner);
    free(c->marker);
    free(c->marker_owner);
    free(c);
}

void mbx_canvas_clear(mbx_canvas *c)
{
    if (c == NULL) {
        return;
    }
    size_t n = (size_t)c->cols * (size_t)c->rows;
    memset(c->bits, 0, n * sizeof *c->bits);
    memset(c->owner, 0, n * sizeof *c->owner);
    memset(c->marker, 0, n * sizeof *c->marker);
    memset(c->marker_owner, 0, n * sizeof *c->marker_owner);
}

int mbx_canvas_cols(const mbx_canvas *c)
{
    return c != NULL ? c->cols : 0;
}

int mbx_canvas_rows(const mbx_canvas *c)
{
    return c != NULL ? c->rows : 0;
}

int mbx_canvas_dot_width(const mbx_canvas *c)
{
    return c != NULL ? c->cols * c->dx : 0;
}

int mbx_canvas_dot_height(const mbx_canvas *c)
{
    return c != NULL ? c->rows * c->dy : 0;
}

/* Index of the cell holding dot (x,y), or -1 when the dot is off the
 * canvas. */
static long long cell_of_dot(const mbx_canvas *c, long long x, long long y)
{
    if (x < 0 || y < 0 || x >= (long long)c->cols * c->dx || y >= (long long)c->rows * c->dy) {
        return -1;
    }
    return (y / c->dy) * c->cols + x / c->dx;
}

static unsigned char dot_bit(const mbx_canvas *c, long long x, long long y)
{
    int sx = (int)(x % c->dx);
    int sy = (int)(y % c->dy);
    switch (c->glyphs) {
    case MBX_GLYPHS_BRAILLE: return braille_bit[sx][sy];
    case MBX_GLYPHS_BLOCK: return (unsigned char)(1u << (sy * 2 + sx));
    default: return 1;
    }
}

static void put_dot(mbx_canvas *c, long long x, long long y, int owner)
{
    long long i = cell_of_dot(c, x, y);
    if (i < 0) {
        return;
    }
    c->bits[i] |= dot_bit(c, x, y);
    c->owner[i] = owner;
}

void mbx_canvas_set_dot(mbx_canvas *c, int x, int y, int owner)
{
    if (c != NULL) {
        put_dot(c, x, y, owner);
    }
}

/* Liang-Barsky: cut the segment to [xmin,xmax] x [ymin,ymax]; 0 when it
 * misses the box entirely. */
static int clip_segment(double *x0, double *y0, double *x1, double *y1, double xmin, double ymin,
                        double xmax, double ymax)
{
    double ddx = *x1 - *x0, ddy = *y1 - *y0;
    double p[4] = {-ddx, ddx, -ddy, ddy};
    double q[4] = {*x0 - xmin, xmax - *x0, *y0 - ymin, ymax - *y0};
    double t0 = 0.0, t1 = 1.0;
    for (int k = 0; k < 4; k++) {
        if (p[k] == 0.0) {
            if (q[k] < 0.0) {
                return 0;
            }
            continue;
        }
        double t = q[k] / p[k];
        if (p[k] < 0.0) {
            if (t > t1) {
                return 0;
            }
            if (t > t0) {
                t0 = t;
            }
        } else {
            if (t < t0) {
                return 0;
            }
            if (t < t1) {
                t1 = t;
            }
        }
    }
    double ox = *x0, oy = *y0;
    *x0 = ox + t0 * ddx;
    *y0 = oy + t0 * ddy;
    *x1 = ox + t1 * ddx;
    *y1 = oy + t1 * ddy;
    return 1;
}

void mbx_canvas_line(mbx_canvas *c, int x0, int y0, int x1, int y1, int owner)
{
    unsigned phase = 0;
    mbx_canvas_line_styled(c, x0, y0, x1, y1, owner, MBX_LINE_SOLID, &phase);
}

void mbx_canvas_line_styled(mbx_canvas *c, int x0, int y0, int x1, int y1, int owner,
                            unsigned pattern, unsigned *phase)
{
    unsigned ph0 = 0;
    if (phase == NULL) {
        phase = &ph0;
    }
    if (c == NULL) {
        return;
    }
    long long w = (long long)c->cols * c->dx, h = (long long)c->rows * c->dy;
    long long xa = x0, ya = y0, xb = x1, yb = y1;
    long long lo_x = -LINE_MARGIN, hi_x = w + LINE_MARGIN;
    long long lo_y = -LINE_MARGIN, hi_y = h + LINE_MARGIN;
    if (xa < lo_x || xa > hi_x || xb < lo_x || xb > hi_x || ya < lo_y || ya > hi_y || yb < lo_y ||
        yb > hi_y) {
        double fx0 = xa, fy0 = ya, fx1 = xb, fy1 = yb;
        if (!clip_segment(&fx0, &fy0, &fx1, &fy1, (double)lo_x, (double)lo_y, (double)hi_x,
                          (double)hi_y)) {
            return;
        }
        xa = llround(fx0);
        ya = llround(fy0);
        xb = llround(fx1);
        yb = llround(fy1);
    }
    long long adx = llabs(xb - xa), ady = -llabs(yb - ya);
    long long sx = xa < xb ? 1 : -1, sy = ya < yb ? 1 : -1;
    long long err = adx + ady;
    for (;;) {
        if ((pattern >> (*phase % 16u)) & 1u) {
            put_dot(c, xa, ya, owner);
        }
        *phase = (*phase + 1u) % 16u;
        if (xa == xb && ya == yb) {
            break;
        }
        long long e2 = 2 * err;
        if (e2 >= ady) {
            err += ady;
            xa += sx;
        }
        if (e2 <= adx) {
            err += adx;
            ya += sy;
        }
    }
}

void mbx_canvas_mark(mbx_canvas *c, int x, int y, char marker, int owner)
{
    if (c == NULL || marker < 0x21 || marker > 0x7e) {
        return;
    }
    long long i = cell_of_dot(c, x, y);
    if (i < 0) {
        return;
    }
    c->marker[i] = marker;
    c->marker_owner[i] = owner;
}

static void utf8_encode(unsigned cp, char out[8])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        out[1] = '\0';
    } else if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        out[2] = '\0';
    } else {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        out[3] = '\0';
    }
}

void mbx_canvas_cell(const mbx_canvas *c, int col, int row, char out[8], int *owner)
{
    int who = 0;
    out[0] = ' ';
    out[1] = '\0';
    if (c != NULL && col >= 0 && row >= 0 && col < c->cols && row < c->rows) {
        long long i = (long long)row * c->cols + col;
        unsigned char b = c->bits[i];
        if (c->marker[i] != 0) {
            /* The visible glyph is the marker, so its colour must be too. */
            out[0] = c->marker[i];
            who = c->marker_owner[i];
        } else if (b != 0) {
            who = c->owner[i];
            switch (c->glyphs) {
            case MBX_GLYPHS_BRAILLE: utf8_encode(0x2800u + b, out); break;
            case MBX_GLYPHS_BLOCK: utf8_encode(block_glyph[b & 0x0F], out); break;
            default: out[0] = '.'; break;
            }
        }
    }
    if (owner != NULL) {
        *owner = who;
    }
}

int mbx_canvas_cell_used(const mbx_canvas *c, int col, int row)
{
    if (c == NULL || col < 0 || row < 0 || col >= c->cols || row >= c->rows) {
        return 0;
    }
    long long i = (long long)row * c->cols + col;
    return c->bits[i] != 0 || c->marker[i] != 0;
}
