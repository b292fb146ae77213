/* Unit tests for the glyph canvas: dot-to-glyph bitmaps, owners, markers,
 * clipping and lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "canvas.h"

static mbx_canvas *new_canvas(int cols, int rows, mbx_glyphs g)
{
    mbx_canvas *c = mbx_canvas_new(cols, rows, g);
    assert_non_null(c);
    return c;
}

static void expect_cell(const mbx_canvas *c, int col, int row, const char *text, int owner)
{
    char out[8];
    int who = -1;
    memset(out, 'Z', sizeof out);
    mbx_canvas_cell(c, col, row, out, &who);
    if (strcmp(out, text) != 0 || who != owner) {
        fail_msg("cell (%d,%d): got \"%s\" owner %d, want \"%s\" owner %d", col, row, out, who,
                 text, owner);
    }
}

/* UTF-8 of a code point in U+0800..U+FFFF, built independently of the
 * canvas's own encoder. */
static void utf8_3(unsigned cp, char out[8])
{
    snprintf(out, 8, "%c%c%c", (char)(0xE0 | (cp >> 12)), (char)(0x80 | ((cp >> 6) & 0x3F)),
             (char)(0x80 | (cp & 0x3F)));
}

/* The dot pattern of a braille cell, decoded from its UTF-8 text. */
static unsigned braille_bits(const mbx_canvas *c, int col, int row)
{
    char out[8];
    int who;
    mbx_canvas_cell(c, col, row, out, &who);
    assert_int_equal(strlen(out), 3);
    unsigned cp = ((unsigned char)out[0] & 0x0Fu) << 12 | ((unsigned char)out[1] & 0x3Fu) << 6 |
                  ((unsigned char)out[2] & 0x3Fu);
    assert_true(cp >= 0x2800 && cp <= 0x28FF);
    return cp - 0x2800;
}

static void test_new_rejects_bad_sizes(void **state)
{
    (void)state;
    assert_null(mbx_canvas_new(0, 5, MBX_GLYPHS_BRAILLE));
    assert_null(mbx_canvas_new(5, 0, MBX_GLYPHS_BRAILLE));
    assert_null(mbx_canvas_new(-1, 5, MBX_GLYPHS_ASCII));
    assert_null(mbx_canvas_new(INT_MAX, INT_MAX, MBX_GLYPHS_BRAILLE));
}

static void test_dimensions(void **state)
{
    (void)state;
    static const struct {
        mbx_glyphs g;
        int dx, dy;
    } want[] = {{MBX_GLYPHS_BRAILLE, 2, 4}, {MBX_GLYPHS_BLOCK, 2, 2}, {MBX_GLYPHS_ASCII, 1, 1}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        mbx_canvas *c = new_canvas(7, 3, want[i].g);
        assert_int_equal(mbx_canvas_cols(c), 7);
        assert_int_equal(mbx_canvas_rows(c), 3);
        assert_int_equal(mbx_canvas_dot_width(c), 7 * want[i].dx);
        assert_int_equal(mbx_canvas_dot_height(c), 3 * want[i].dy);
        mbx_canvas_free(c);
    }
    mbx_canvas_free(NULL);
}

static void test_empty_cell_is_space(void **state)
{
    (void)state;
    mbx_canvas *c = new_canvas(3, 2, MBX_GLYPHS_BRAILLE);
    for (int r = 0; r < 2; r++) {
        for (int col = 0; col < 3; col++) {
            expect_cell(c, col, r, " ", 0);
            assert_false(mbx_canvas_cell_used(c, col, r));
        }
    }
    mbx_canvas_free(c);
}

static void test_braille_each_dot(void **state)
{
    (void)state;
    /* Unicode braille dot numbering: dots 1-2-3 and 7 down the left column,
     * 4-5-6 and 8 down the right; dot n is bit n-1. */
    static const unsigned bit[2][4] = {{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}};
    mbx_canvas *c = new_canvas(3, 2, MBX_GLYPHS_BRAILLE);
    for (int x = 0; x < 2; x++) {
        for (int y = 0; y < 4; y++) {
            char want[8];
            mbx_canvas_clear(c);
            /* In the middle cell (1,1), so cell offsets are exercised too. */
            mbx_canvas_set_dot(c, 2 + x, 4 + y, 5);
            utf8_3(0x2800 + bit[x][y], want);
            expect_cell(c, 1, 1, want, 5);
            expect_cell(c, 0, 0, " ", 0);
            expect_cell(c, 2, 1, " ", 0);
            assert_true(mbx_canvas_cell_used(c, 1, 1));
        }
    }
    mbx_canvas_clear(c);
    mbx_canvas_set_dot(c, 0, 0, 1);
    expect_cell(c, 0, 0, "\xe2\xa0\x81", 1); /* U+2801 */
    mbx_canvas_clear(c);
    mbx_canvas_set_dot(c, 1, 3, 1);
    expect_cell(c, 0, 0, "\xe2\xa2\x80", 1); /* U+2880 */
    mbx_canvas_free(c);
}

static void test_braille_full_cell(void **state)
{
    (void)state;
    mbx_canvas *c = new_canvas(1, 1, MBX_GLYPHS_BRAILLE);
    for (int x = 0; x < 2; x++) {
        for (int y = 0; y < 4; y++) {
            mbx_canvas_set_dot(c, x, y, 2);
        }
    }
    expect_cell(c, 0, 0, "\xe2\xa3\xbf", 2); /* U+28FF */
    mbx_canvas_free(c);
}

static void test_block_all_quadrants(void **state)
{
    (void)state;
    /* Mask bits: 1 upper left, 2 upper right, 4 lower left, 8 lower right. */
    static const unsigned glyph[16] = {
        0,      0x2598, 0x259D, 0x2580, 0x2596, 0x258C, 0x259E, 0x259B,
        0x2597, 0x259A, 0x2590, 0x259C, 0x2584, 0x2599, 0x259F, 0x2588,
    };
    mbx_canvas *c = new_canvas(2, 2, MBX_GLYPHS_BLOCK);
    for (unsigned mask = 0; mask < 16; mask++) {
        char want[8] = " ";
        mbx_canvas_clear(c);
        for (int q = 0; q < 4; q++) {
            if (mask & (1u << q)) {
                mbx_canvas_set_dot(c, 2 + q % 2, 2 + q / 2, 3);
            }
        }
        if (mask != 0) {
            utf8_3(glyph[mask], want);
        }
        expect_cell(c, 1, 1, want, mask != 0 ? 3 : 0);
        assert_int_equal(mbx_canvas_cell_used(c, 1, 1), mask != 0);
        expect_cell(c, 0, 0, " ", 0);
    }
    mbx_canvas_free(c);
}

static void test_ascii(void **state)
{
    (void)state;
    mbx_canvas *c = new_canvas(4, 3, MBX_GLYPHS_ASCII);
    mbx_canvas_set_dot(c, 2, 1, 4);
    expect_cell(c, 2, 1, ".", 4);
    expect_cell(c, 1, 1, " ", 0);
    expect_cell(c, 2, 0, " ", 0);
    mbx_canvas_mark(c, 3, 2, 'o', 6);
    expect_cell(c, 3, 2, "o", 6);
    mbx_canvas_free(c);
}

static void test_owner_is_last_writer(void **state)
{
    (void)state;
    mbx_canvas *c = new_canvas(2, 1, MBX_GLYPHS_BRAILLE);
    mbx_canvas_set_dot(c, 0, 0, 1);
    mbx_canvas_set_dot(c, 1, 2, 2);
    expect_cell(c, 0, 0, "\xe2\xa0\xa1", 2); /* U+2821: dots 1 and 6 */
    mbx_canvas_set_dot(c, 0, 0, 7);          /* rewriting a set dot counts */
    expect_cell(c, 0, 0, "\xe2\xa0\xa1", 7);
    expect_cell(c, 1, 0, " ", 0);
    mbx_canvas_free(c);
}

static void test_marker_wins(void **state)
{
    (void)state;
    mbx_canvas *c = new_canvas(2, 2, MBX_GLYPHS_BRAILLE);
    mbx_canvas_set_dot(c, 2, 4, 1);
    mbx_canvas_mark(c, 3, 7, '*', 2); /* same cell (1,1), another dot */
    expect_cell(c, 1, 1, "*", 2);
    mbx_canvas_set_dot(c, 2, 5, 3); /* dots drawn later stay under it */
    expect_cell(c, 1, 1, "*", 2);
    assert_true(mbx_canvas_cell_used(c, 1, 1));
    mbx_canvas_mark(c, 0, 0, 'x', 4);
    expect_cell(c, 0, 0, "x", 4);
    assert_true(mbx_canvas_cell_used(c, 0, 0));
    mbx_canvas_mark(c, 0, 0, '+', 5); /* a later marker replaces it */
    expect_cell(c, 0, 0, "+", 5);
    mbx_canvas_free(c);
}

static void test_clipping(void **state)
{
    (void)state;
    static const mbx_glyphs all[] = {MBX_GLYPHS_BRAILLE, MBX_GLYPHS_BLOCK, MBX_GLYPHS_ASCII};
    static const int bad[][2] = {{-1, 0},      {0, -1},      {-1, -1},          {6, 0},
                                 {0, 12},      {6, 12},      {INT_MIN, 0},      {0, INT_MAX},
                                 {INT_MAX, 0}, {0, INT_MIN}, {INT_MIN, INT_MAX}};
    for (size_t g = 0; g < 3; g++) {
        mbx_canvas *c = new_canvas(3, 3, all[g]);
        int w = mbx_canvas_dot_width(c), h = mbx_canvas_dot_height(c);
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            int x = bad[i][0] == 6 ? w : bad[i][0];
            int y = bad[i][1] == 12 ? h : bad[i][1];
            mbx_canvas_set_dot(c, x, y, 1);
            mbx_canvas_mark(c, x, y, '#', 1);
            mbx_canvas_line(c, x, y, x, y, 1);
        }
        /* A line wholly outside, and one with far-away ends that only
         * crosses the canvas. */
        mbx_canvas_line(c, -50, -50, -10, INT_MAX, 1);
        for (int r = 0; r < 3; r++) {
            for (int col = 0; col < 3; col++) {
                assert_false(mbx_canvas_cell_used(c, col, r));
            }
        }
        mbx_canvas_line(c, INT_MIN, 0, INT_MAX, 0, 2);
        for (int col = 0; col < 3; col++) {
            assert_true(mbx_canvas_cell_used(c, col, 0));
        }
        expect_cell(c, -1, 0, " ", 0);
        expect_cell(c, 0, 3, " ", 0);
        expect_cell(c, INT_MAX, INT_MIN, " ", 0);
        assert_false(mbx_canvas_cell_used(c, 3, 0));
        mbx_canvas_free(c);
    }
}

static void test_line_diagonal_touches_every_column(void **state)
{
    (void)state;
    static const int size[][2] = {{10, 3}, {3, 10}, {40, 12}, {1, 1}, {17, 1}};
    for (size_t i = 0; i < sizeof size / sizeof size[0]; i++) {
        mbx_canvas *c = new_canvas(size[i][0], size[i][1], MBX_GLYPHS_BRAILLE);
        int w = mbx_canvas_dot_width(c), h = mbx_canvas_dot_height(c);
        mbx_canvas_line(c, 0, 0, w - 1, h - 1, 1);
        for (int col = 0; col < size[i][0]; col++) {
            int used = 0;
            for (int r = 0; r < size[i][1]; r++) {
                used |= mbx_canvas_cell_used(c, col, r);
            }
            if (!used) {
                fail_msg("%dx%d: column %d untouched", size[i][0], size[i][1], col);
            }
        }
        /* The ends are exact: the first and the last dot of the canvas. */
        assert_true(braille_bits(c, 0, 0) & 0x01);
        assert_true(braille_bits(c, size[i][0] - 1, size[i][1] - 1) & 0x80);
        mbx_canvas_free(c);
    }
}

static void test_line_exact_dots(void **state)
{
    (void)state;
    mbx_canvas *c = new_canvas(5, 1, MBX_GLYPHS_ASCII);
    mbx_canvas_line(c, 4, 0, 0, 0, 1); /* reversed direction */
    for (int col = 0; col < 5; col++) {
        expect_cell(c, col, 0, ".", 1);
    }
    mbx_canvas_free(c);
    c = new_canvas(4, 4, MBX_GLYPHS_ASCII);
    mbx_canvas_line(c, 0, 3, 3, 0, 2); /* anti-diagonal, exactly one per row */
    for (int r = 0; r < 4; r++) {
        for (int col = 0; col < 4; col++) {
            assert_int_equal(mbx_canvas_cell_used(c, col, r), col == 3 - r);
        }
    }
    mbx_canvas_free(c);
}

static void test_line_far_ends_stay_on_course(void **state)
{
    (void)state;
    /* Ends far off-canvas are cut before drawing; the visible part must
     * still be the true diagonal. */
    mbx_canvas *c = new_canvas(10, 10, MBX_GLYPHS_ASCII);
    mbx_canvas_line(c, -1000000, -1000000, 1000000, 1000000, 1);
    mbx_canvas_line(c, 1000000, -1000002, -1000002, 1000000, 2); /* x + y = -2 misses */
    mbx_canvas_line(c, INT_MIN, INT_MIN, INT_MAX, INT_MIN, 2);
    mbx_canvas_line(c, INT_MAX, INT_MIN, INT_MAX, INT_MAX, 2);
    for (int r = 0; r < 10; r++) {
        for (int col = 0; col < 10; col++) {
            assert_int_equal(mbx_canvas_cell_used(c, col, r), col == r);
        }
    }
    mbx_canvas_free(c);
}

/* A styled line draws the dots its pattern sets, and its phase runs on
 * across the segments of a polyline so a dash does not restart. */
static void test_line_styled(void **state)
{
    (void)state;
    mbx_canvas *c = new_canvas(16, 1, MBX_GLYPHS_ASCII);
    unsigned phase = 0;
    mbx_canvas_line_styled(c, 0, 0, 9, 0, 1, 0x5555u, &phase);
    assert_int_equal(phase, 10);
    for (int col = 0; col < 10; col++) {
        assert_int_equal(mbx_canvas_cell_used(c, col, 0), col % 2 == 0);
    }
    /* dots 10..15 at phases 10..15 of 0x0F0F: on at 10, 11, off 12..15 */
    mbx_canvas_line_styled(c, 10, 0, 15, 0, 2, 0x0F0Fu, &phase);
    assert_int_equal(phase, 0);
    for (int col = 10; col < 16; col++) {
        assert_int_equal(mbx_canvas_cell_used(c, col, 0), col < 12);
    }
    /* solid is the plain line */
    mbx_canvas_clear(c);
    mbx_canvas_line_styled(c, 0, 0, 15, 0, 1, MBX_LINE_SOLID, NULL);
    for (int col = 0; col < 16; col++) {
        assert_true(mbx_canvas_cell_used(c, col, 0));
    }
    mbx_canvas_free(c);
}

static void test_clear(void **state)
{
    (void)state;
    mbx_canvas *c = new_canvas(4, 2, MBX_GLYPHS_BLOCK);
    mbx_canvas_line(c, 0, 0, 7, 3, 1);
    mbx_canvas_mark(c, 0, 0, 'o', 2);
    mbx_canvas_clear(c);
    for (int r = 0; r < 2; r++) {
        for (int col = 0; col < 4; col++) {
            expect_cell(c, col, r, " ", 0);
            assert_false(mbx_canvas_cell_used(c, col, r));
        }
    }
    mbx_canvas_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_rejects_bad_sizes),
        cmocka_unit_test(test_dimensions),
        cmocka_unit_test(test_empty_cell_is_space),
        cmocka_unit_test(test_braille_each_dot),
        cmocka_unit_test(test_braille_full_cell),
        cmocka_unit_test(test_block_all_quadrants),
        cmocka_unit_test(test_ascii),
        cmocka_unit_test(test_owner_is_last_writer),
        cmocka_unit_test(test_marker_wins),
        cmocka_unit_test(test_clipping),
        cmocka_unit_test(test_line_diagonal_touches_every_column),
        cmocka_unit_test(test_line_exact_dots),
        cmocka_unit_test(test_line_far_ends_stay_on_course),
        cmocka_unit_test(test_line_styled),
        cmocka_unit_test(test_clear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
