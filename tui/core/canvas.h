/* A sub-cell plotting canvas for the terminal, independent of curses.
 *
 * A canvas of cols x rows terminal cells holds a grid of dots: 2 x 4 dots a
 * cell with braille glyphs (U+2800..U+28FF), 2 x 2 with block quadrants
 * (U+2596..U+259F, U+2580, U+2584, U+258C, U+2590, U+2588), 1 x 1 with
 * ASCII. Each cell also remembers an owner (a series number, 0 = none) so
 * the front end can colour it: the last writer of any dot in a cell owns
 * it. Markers are single printable ASCII characters put over a whole cell
 * (a series' point marker); a marker wins over dots when the cell is read.
 * Coordinates: x grows right, y grows down, dot (0,0) is top left. Dots
 * outside the canvas are ignored (clipping), never an error. */
#ifndef MBX_CANVAS_H
#define MBX_CANVAS_H

typedef enum mbx_glyphs {
    MBX_GLYPHS_BRAILLE = 0,
    MBX_GLYPHS_BLOCK = 1,
    MBX_GLYPHS_ASCII = 2,
} mbx_glyphs;

typedef struct mbx_canvas mbx_canvas;

/* NULL on allocation failure or non-positive size. */
mbx_canvas *mbx_canvas_new(int cols, int rows, mbx_glyphs glyphs);
void mbx_canvas_free(mbx_canvas *c);
void mbx_canvas_clear(mbx_canvas *c);

int mbx_canvas_cols(const mbx_canvas *c);
int mbx_canvas_rows(const mbx_canvas *c);
int mbx_canvas_dot_width(const mbx_canvas *c);  /* cols * dots per cell across */
int mbx_canvas_dot_height(const mbx_canvas *c); /* rows * dots per cell down */

void mbx_canvas_set_dot(mbx_canvas *c, int x, int y, int owner);
/* Dots on the straight segment from (x0,y0) to (x1,y1) inclusive (Bresenham). */
void mbx_canvas_line(mbx_canvas *c, int x0, int y0, int x1, int y1, int owner);
/* The same line in a style: dot k of it is drawn when bit (*phase + k) %
 * 16 of pattern is set, and *phase moves on by the dots walked, so the
 * dashes of a polyline run on across its segments (phase NULL: from 0).
 * A line that clipping removes whole leaves *phase as it was. */
#define MBX_LINE_SOLID 0xFFFFu
void mbx_canvas_line_styled(mbx_canvas *c, int x0, int y0, int x1, int y1, int owner,
                            unsigned pattern, unsigned *phase);
/* A marker character over the cell that holds dot (x,y). */
void mbx_canvas_mark(mbx_canvas *c, int x, int y, char marker, int owner);

/* The text of cell (col,row) as a NUL-terminated UTF-8 string (at most 4
 * bytes; " " for an empty cell) in out[8], and its owner (0 if empty).
 * ASCII mode renders a dotted cell as '.', and block mode's full cell as
 * U+2588. */
void mbx_canvas_cell(const mbx_canvas *c, int col, int row, char out[8], int *owner);

/* Whether any dot or marker is set in cell (col,row). */
int mbx_canvas_cell_used(const mbx_canvas *c, int col, int row);

#endif
