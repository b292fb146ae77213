/* Unit tests for the run view's point inspector (screens/ex_inspect.c):
 * the cursor a click puts on the nearest drawn point
 * (mbx_ex_run_cursor_at, the mouse's entry), and the keys that open it
 * and move it along a curve and between curves. A small explorer with
 * two curves of three final points each, no terminal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explorer.h"
#include "mbx/bench.h"
#include "screens/run_int.h"

static mbx_backend be = {.nranks = 1}; /* no probe: no monitor row */
static mbx_ex_point pts[6];
static mbx_ex_view view;

/* Two curves (send_recv slower than isend_recv, by half) at 1, 1Ki,
 * 1Mi bytes on a 100x30 screen. */
static explorer *make(void)
{
    static explorer x;
    memset(&x, 0, sizeof x);
    memset(pts, 0, sizeof pts);
    int ids[2];
    assert_int_equal(mbx_bench_find("pingpong.send_recv", &ids[0]), 0);
    assert_int_equal(mbx_bench_find("pingpong.isend_recv", &ids[1]), 0);
    for (int i = 0; i < 6; i++) {
        mbx_ex_point *p = &pts[i];
        p->bench_id = ids[i / 3];
        p->bytes = (uint64_t)1 << (10 * (i % 3));
        p->procs = 2;
        p->state = EX_DONE;
        p->passes = 5;
        p->rel = 0.01;
        p->r.status = MBX_POINT_SETTLED;
        p->r.s.median = 1e-6 * (1 + 4 * (i % 3)) * (i < 3 ? 2 : 1);
        p->r.s.n = 100;
    }
    x.be = &be;
    x.pts = pts;
    x.npts = 6;
    x.rows = 30;
    x.cols = 100;
    x.utf8 = 1;
    x.glyphs = MBX_GLYPHS_BRAILLE;
    x.screen = EX_RUN;
    x.xdim = EX_DIM_SIZE;
    x.cur = 4; /* isend_recv at 1Ki was measured last */
    return &x;
}

/* The screen cell of point i. */
static void cell_of(explorer *x, int i, int *row, int *col)
{
    mbx_run_layout l;
    assert_true(mbx_ex_run_view(x, &view, &l));
    int dx, dy;
    assert_true(mbx_ex_view_dot(x, &view, &pts[i], &dx, &dy));
    *col = view.px + dx / (view.dw / view.pw);
    *row = view.py + dy / (view.dh / view.ph);
}

static void test_click(void **state)
{
    (void)state;
    explorer *x = make();
    int row, col;
    cell_of(x, 2, &row, &col); /* send_recv at 1Mi */
    assert_int_equal(mbx_ex_run_cursor_at(x, row, col), 1);
    assert_true(x->insp.on);
    assert_int_equal(x->insp.xv, 1048576.0);
    assert_int_equal(x->insp.ser.bench_id, pts[2].bench_id);
    /* one column off still hits it */
    x->insp.on = 0;
    assert_int_equal(mbx_ex_run_cursor_at(x, row, col + 1), 1);
    assert_int_equal(x->insp.xv, 1048576.0);
    /* the title bar, the side column: nothing there, nothing changes */
    x->insp.on = 0;
    assert_int_equal(mbx_ex_run_cursor_at(x, 0, 0), 0);
    assert_int_equal(mbx_ex_run_cursor_at(x, row, x->cols - 1), 0);
    assert_false(x->insp.on);
    /* another screen: no plot to click */
    x->screen = EX_RESULTS;
    assert_int_equal(mbx_ex_run_cursor_at(x, row, col), 0);
}

static void test_keys(void **state)
{
    (void)state;
    explorer *x = make();
    /* i opens on the point measured last */
    assert_int_equal(mbx_ex_insp_key(x, 'i'), 1);
    assert_true(x->insp.on);
    assert_int_equal(x->insp.ser.bench_id, pts[4].bench_id);
    assert_int_equal(x->insp.xv, 1024.0);
    /* along the curve, stopping at its ends */
    assert_int_equal(mbx_ex_insp_key(x, KEY_RIGHT), 1);
    assert_int_equal(x->insp.xv, 1048576.0);
    assert_int_equal(mbx_ex_insp_key(x, 'l'), 1);
    assert_int_equal(x->insp.xv, 1048576.0);
    assert_int_equal(mbx_ex_insp_key(x, KEY_LEFT), 1);
    assert_int_equal(mbx_ex_insp_key(x, 'h'), 1);
    assert_int_equal(x->insp.xv, 1.0);
    /* to the other curve at the same x */
    assert_int_equal(mbx_ex_insp_key(x, KEY_UP), 1);
    assert_int_equal(x->insp.ser.bench_id, pts[0].bench_id);
    assert_int_equal(x->insp.xv, 1.0);
    int s;
    mbx_run_layout l;
    mbx_ex_run_view(x, &view, &l);
    assert_ptr_equal(mbx_ex_insp_point(x, &view, &s), &pts[0]);
    /* Esc closes; then it is not the inspector's key */
    assert_int_equal(mbx_ex_insp_key(x, 27), 1);
    assert_false(x->insp.on);
    assert_int_equal(mbx_ex_insp_key(x, 27), 0);
    assert_null(mbx_ex_insp_point(x, &view, &s));
    /* keys of the run view that are not the inspector's */
    assert_int_equal(mbx_ex_insp_key(x, 'b'), 0);
    /* an arrow opens it too; i closes */
    assert_int_equal(mbx_ex_insp_key(x, KEY_DOWN), 1);
    assert_true(x->insp.on);
    assert_int_equal(mbx_ex_insp_key(x, 'i'), 1);
    assert_false(x->insp.on);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_click),
        cmocka_unit_test(test_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
