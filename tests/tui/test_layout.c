/* Unit tests for the screen layout arithmetic, over every terminal size up
 * to 250 x 80. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>

#include "layout.h"

#define MAX_COLS 250
#define MAX_ROWS 80
#define MAX_SERIES 8

static int area(const mbx_rect *r)
{
    return r->h * r->w;
}

/* Checks shared by frame and run layouts; cmocka asserts are too slow and
 * too vague for 180,000 layouts, so failures name the size. */
static void check_rects(const mbx_rect *const *r, const char *const *name, int n, int rows,
                        int cols, int nseries)
{
    for (int i = 0; i < n; i++) {
        if (r[i]->h < 0 || r[i]->w < 0 || !mbx_rect_inside(r[i], rows, cols)) {
            fail_msg("%dx%d/%d: %s {%d,%d,%d,%d} outside", cols, rows, nseries, name[i], r[i]->y,
                     r[i]->x, r[i]->h, r[i]->w);
        }
        for (int j = i + 1; j < n; j++) {
            if (mbx_rect_overlap(r[i], r[j])) {
                fail_msg("%dx%d/%d: %s overlaps %s", cols, rows, nseries, name[i], name[j]);
            }
        }
    }
}

static void test_rect_helpers(void **state)
{
    (void)state;
    mbx_rect a = {0, 0, 2, 2}, b = {1, 1, 2, 2}, c = {2, 0, 1, 5}, z = {1, 1, 0, 3};
    mbx_rect zw = {0, 0, 5, 0}, big = {INT_MAX - 1, INT_MAX - 1, 5, 5};
    assert_true(mbx_rect_overlap(&a, &b));
    assert_true(mbx_rect_overlap(&b, &a));
    assert_true(mbx_rect_overlap(&a, &a));
    assert_false(mbx_rect_overlap(&a, &c)); /* touching edges share no cell */
    assert_true(mbx_rect_overlap(&b, &c));
    assert_false(mbx_rect_overlap(&a, &z)); /* zero-size never overlaps */
    assert_false(mbx_rect_overlap(&z, &z));
    assert_false(mbx_rect_overlap(&zw, &a));
    assert_true(mbx_rect_overlap(&big, &big));
    assert_true(mbx_rect_inside(&a, 2, 2));
    assert_false(mbx_rect_inside(&a, 1, 2));
    assert_false(mbx_rect_inside(&a, 2, 1));
    assert_true(mbx_rect_inside(&z, 1, 4)); /* zero rows at the bottom edge */
    assert_false(mbx_rect_inside(&big, 10, 10));
    mbx_rect neg = {-1, 0, 1, 1}, negh = {0, 0, -1, 1};
    assert_false(mbx_rect_inside(&neg, 10, 10));
    assert_false(mbx_rect_inside(&negh, 10, 10));
}

static void test_frame_every_size(void **state)
{
    (void)state;
    for (int rows = 0; rows <= MAX_ROWS; rows++) {
        for (int cols = 0; cols <= MAX_COLS; cols++) {
            mbx_frame_layout f;
            mbx_layout_frame(rows, cols, &f);
            const mbx_rect *r[] = {&f.title, &f.body, &f.footer};
            static const char *const name[] = {"title", "body", "footer"};
            check_rects(r, name, 3, rows, cols, 0);
            assert_int_equal(f.ok, cols >= MBX_MIN_COLS && rows >= MBX_MIN_ROWS);
            if (rows >= 3 && cols >= 1) {
                /* The three bands tile the screen exactly. */
                assert_true(f.title.y == 0 && f.title.h == 1 && f.title.w == cols);
                assert_true(f.footer.y == rows - 1 && f.footer.h == 1 && f.footer.w == cols);
                assert_int_equal(area(&f.body), (rows - 2) * cols);
                assert_int_equal(f.body.y, 1);
            }
        }
    }
}

static void check_run(int rows, int cols, int nseries)
{
    mbx_run_layout L;
    mbx_layout_run(rows, cols, nseries, &L);
    const mbx_rect *r[] = {&L.title, &L.plot, &L.legend, &L.conv, &L.status, &L.footer};
    static const char *const name[] = {"title", "plot", "legend", "conv", "status", "footer"};
    check_rects(r, name, 6, rows, cols, nseries);
    int want_ok = cols >= MBX_MIN_COLS && rows >= MBX_MIN_ROWS;
    if (L.ok != want_ok) {
        fail_msg("%dx%d: ok %d, want %d", cols, rows, L.ok, want_ok);
    }
    if (!L.ok) {
        return;
    }
    /* 10 * w >= 6 * cols is "w >= 60 % of cols" without rounding. */
    if (10 * L.plot.w < 6 * cols || L.plot.h < 5) {
        fail_msg("%dx%d/%d: plot %dx%d too small", cols, rows, nseries, L.plot.w, L.plot.h);
    }
    if (L.legend.x != L.conv.x || L.legend.w != L.conv.w || L.legend.x != L.plot.x + L.plot.w ||
        L.legend.x + L.legend.w != cols || L.legend.w < 1) {
        fail_msg("%dx%d/%d: side column misplaced (legend x %d w %d, conv x %d w %d)", cols, rows,
                 nseries, L.legend.x, L.legend.w, L.conv.x, L.conv.w);
    }
    if (L.conv.y != L.legend.y + L.legend.h || L.legend.y != L.plot.y ||
        L.conv.y + L.conv.h != L.plot.y + L.plot.h) {
        fail_msg("%dx%d/%d: legend and conv do not stack beside the plot", cols, rows, nseries);
    }
    if (L.legend.h < 3 || L.conv.h < 1) {
        fail_msg("%dx%d/%d: legend %d / conv %d rows", cols, rows, nseries, L.legend.h, L.conv.h);
    }
    int body_h = rows - 2;
    if (L.legend.h > 3 && L.legend.h > body_h / 2) {
        fail_msg("%dx%d/%d: legend %d rows, more than half the body", cols, rows, nseries,
                 L.legend.h);
    }
    if (L.legend.h < nseries + 2 && L.legend.h < body_h / 2) {
        fail_msg("%dx%d/%d: legend %d rows, room for more", cols, rows, nseries, L.legend.h);
    }
    if (L.status.h != 3 || L.status.w != cols || L.status.x != 0 ||
        L.status.y != L.plot.y + L.plot.h || L.status.y + 3 != L.footer.y) {
        fail_msg("%dx%d/%d: status {%d,%d,%d,%d}", cols, rows, nseries, L.status.y, L.status.x,
                 L.status.h, L.status.w);
    }
    if (L.title.y != 0 || L.title.h != 1 || L.footer.y != rows - 1 || L.footer.h != 1 ||
        L.plot.y != 1) {
        fail_msg("%dx%d/%d: title or footer misplaced", cols, rows, nseries);
    }
    /* Nothing of the screen is left unused. */
    int total = 0;
    for (int i = 0; i < 6; i++) {
        total += area(r[i]);
    }
    if (total != rows * cols) {
        fail_msg("%dx%d/%d: rects cover %d of %d cells", cols, rows, nseries, total, rows * cols);
    }
}

static void test_run_every_size(void **state)
{
    (void)state;
    for (int rows = 1; rows <= MAX_ROWS; rows++) {
        for (int cols = 1; cols <= MAX_COLS; cols++) {
            for (int n = 0; n <= MAX_SERIES; n++) {
                check_run(rows, cols, n);
            }
        }
    }
}

static void test_run_side_width(void **state)
{
    (void)state;
    mbx_run_layout L;
    mbx_layout_run(40, 80, 3, &L);
    assert_int_equal(L.legend.w, 28); /* 35 % = 28 */
    mbx_layout_run(40, 100, 3, &L);
    assert_int_equal(L.legend.w, 35);
    mbx_layout_run(40, 250, 3, &L);
    assert_int_equal(L.legend.w, 40); /* capped */
    mbx_layout_run(40, 60, 3, &L);
    assert_int_equal(L.legend.w, 24); /* the floor still leaves the plot 60 % */
    assert_int_equal(L.plot.w, 36);
    mbx_layout_run(40, 80, 3, &L);
    assert_int_equal(L.legend.h, 5);
    mbx_layout_run(16, 80, 8, &L); /* body 14: legend capped at half of it */
    assert_int_equal(L.legend.h, 7);
    assert_int_equal(L.conv.h, 4);
    mbx_layout_run(16, 80, 0, &L); /* 2 rows wanted, 3 at least */
    assert_int_equal(L.legend.h, 3);
    assert_int_equal(L.conv.h, 8);
}

static void test_degenerate_inputs(void **state)
{
    (void)state;
    static const int size[][2] = {{0, 0}, {-5, 80}, {24, -1}, {INT_MIN, INT_MIN}};
    for (size_t i = 0; i < sizeof size / sizeof size[0]; i++) {
        mbx_run_layout L;
        mbx_layout_run(size[i][0], size[i][1], -3, &L);
        assert_false(L.ok);
        const mbx_rect *r[] = {&L.title, &L.plot, &L.legend, &L.conv, &L.status, &L.footer};
        for (int k = 0; k < 6; k++) {
            assert_int_equal(area(r[k]), 0);
            assert_true(r[k]->h >= 0 && r[k]->w >= 0);
        }
    }
    mbx_run_layout L;
    mbx_layout_run(40, 100, -7, &L); /* negative series count acts like 0 */
    assert_true(L.ok);
    assert_int_equal(L.legend.h, 3);
    mbx_layout_run(40, 100, INT_MAX, &L);
    assert_true(L.ok);
    assert_int_equal(L.legend.h, (40 - 2) / 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rect_helpers),      cmocka_unit_test(test_frame_every_size),
        cmocka_unit_test(test_run_every_size),    cmocka_unit_test(test_run_side_width),
        cmocka_unit_test(test_degenerate_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
