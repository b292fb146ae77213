/* The grid (mbx/grid.h) over benchmarks made up for the test: the points
 * of a plan and their order (parameter, process count, size), sizes that
 * align to one point, 0 B a reduction cannot measure, process counts under
 * the minimum and roots outside a count, the memory check, and a hook that
 * ends a curve or the whole walk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/grid.h"

typedef struct rec {
    mbx_grid_event ev[64];
    size_t n;
    mbx_grid_kind stop_at; /* answer `answer` to this kind */
    int answer;
} rec;

static int record(void *ud, const mbx_grid_event *ev)
{
    rec *r = ud;
    assert_true(r->n < 64);
    r->ev[r->n++] = *ev;
    return ev->kind == r->stop_at ? r->answer : 0;
}

static uint64_t same_bytes(uint64_t bytes, int procs)
{
    (void)procs;
    return bytes;
}

static mbx_bench bench(unsigned flags, unsigned unit, const char *op)
{
    mbx_bench b = {.name = "made.up", .min_procs = 2, .flags = flags, .unit = unit, .op = op};
    b.buf_bytes = same_bytes;
    return b;
}

/* The points of a walk as (param, procs, bytes) triples. */
static size_t points(const rec *r, uint64_t out[][3])
{
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++)
        if (r->ev[i].kind == MBX_GRID_POINT) {
            out[n][0] = (uint64_t)r->ev[i].param;
            out[n][1] = (uint64_t)r->ev[i].procs;
            out[n++][2] = r->ev[i].bytes;
        }
    return n;
}

static void sizes_in_order_duplicates_once(void **state)
{
    (void)state;
    mbx_bench b = bench(MBX_BENCH_SIZED, 4, NULL);
    mbx_size_list sz = {.v = {0, 1, 4, 6, 8, 1024}, .n = 6};
    int procs[] = {2, 4};
    mbx_grid g = {.b = &b, .procs = procs, .nprocs = 2, .sizes = &sz};
    rec r = {.stop_at = -1};
    assert_int_equal(mbx_grid_expand(&g, record, &r), 0);
    uint64_t p[16][3];
    assert_int_equal(points(&r, p), 8); /* 1 and 6 align to 4: one point */
    const uint64_t want[] = {0, 4, 8, 1024};
    for (size_t i = 0; i < 8; i++) {
        assert_int_equal(p[i][1], i < 4 ? 2 : 4);
        assert_int_equal(p[i][2], want[i % 4]);
    }
    /* Each process count is one curve: begin, its points, end. */
    assert_int_equal(r.ev[0].kind, MBX_GRID_CURVE);
    assert_int_equal(r.ev[5].kind, MBX_GRID_CURVE_END);
    assert_int_equal(r.ev[5].npoints, 4);
    assert_int_equal(r.ev[6].kind, MBX_GRID_CURVE);
    assert_int_equal(r.n, 12);
}

static void zero_bytes_of_a_reduction_skipped(void **state)
{
    (void)state;
    mbx_bench b = bench(MBX_BENCH_SIZED, 4, "MPI_SUM/MPI_FLOAT");
    mbx_size_list sz = {.v = {0, 4, 8}, .n = 3};
    int procs[] = {2};
    mbx_grid g = {.b = &b, .procs = procs, .nprocs = 1, .sizes = &sz};
    rec r = {.stop_at = -1};
    assert_int_equal(mbx_grid_expand(&g, record, &r), 0);
    assert_int_equal(r.ev[1].kind, MBX_GRID_ZERO);
    assert_int_equal(r.ev[1].isize, 0);
    uint64_t p[8][3];
    assert_int_equal(points(&r, p), 2);
    assert_int_equal(p[0][2], 4);
    assert_int_equal(p[1][2], 8);
}

static void parameters_outermost(void **state)
{
    (void)state;
    mbx_bench b = bench(MBX_BENCH_PARAM, 1, NULL);
    mbx_size_list sz = {.v = {64}, .n = 1};
    int64_t param[] = {1, 2, 3};
    int procs[] = {2, 3};
    mbx_grid g = {.b = &b, .param = param, .nparam = 3, .procs = procs, .nprocs = 2, .sizes = &sz};
    rec r = {.stop_at = -1};
    assert_int_equal(mbx_grid_expand(&g, record, &r), 0);
    uint64_t p[16][3];
    assert_int_equal(points(&r, p), 6);
    for (size_t i = 0; i < 6; i++) {
        assert_int_equal(p[i][0], 1 + i / 2);
        assert_int_equal(p[i][1], 2 + i % 2);
        assert_int_equal(p[i][2], 0); /* unsized: one point of 0 bytes */
    }
    /* A benchmark without a parameter ignores the list: one pass, 0. */
    b.flags = 0;
    r.n = 0;
    assert_int_equal(mbx_grid_expand(&g, record, &r), 0);
    assert_int_equal(points(&r, p), 2);
    assert_int_equal(p[0][0], 0);
}

static void bad_counts_and_roots_skipped_or_stop(void **state)
{
    (void)state;
    mbx_bench b = bench(MBX_BENCH_ROOTED, 1, NULL);
    mbx_size_list sz = {.v = {0}, .n = 1};
    int procs[] = {1, 2, 4};
    mbx_grid g = {.b = &b, .procs = procs, .nprocs = 3, .sizes = &sz, .root = 3};
    rec r = {.stop_at = -1};
    assert_int_equal(mbx_grid_expand(&g, record, &r), 0);
    assert_int_equal(r.ev[0].kind, MBX_GRID_FEW_PROCS); /* under min_procs 2 */
    assert_int_equal(r.ev[0].procs, 1);
    assert_int_equal(r.ev[1].kind, MBX_GRID_ROOT); /* rank 3 of 2 */
    assert_int_equal(r.ev[1].root, 3);
    uint64_t p[8][3];
    assert_int_equal(points(&r, p), 1);
    assert_int_equal(p[0][1], 4);
    /* A hook that refuses the root ends the walk with its answer. */
    rec stop = {.stop_at = MBX_GRID_ROOT, .answer = -5};
    assert_int_equal(mbx_grid_expand(&g, record, &stop), -5);
    assert_int_equal(points(&stop, p), 0);
    /* Not rooted: the root is 0 and never checked. */
    b.flags = 0;
    r.n = 0;
    assert_int_equal(mbx_grid_expand(&g, record, &r), 0);
    assert_int_equal(points(&r, p), 2);
}

static void memory_checked_when_asked(void **state)
{
    (void)state;
    mbx_bench b = bench(MBX_BENCH_SIZED, 1, NULL);
    mbx_size_list sz = {.v = {40, 48, (uint64_t)INT32_MAX + 1}, .n = 3};
    int procs[] = {2};
    mbx_grid g = {.b = &b,
                  .procs = procs,
                  .nprocs = 1,
                  .sizes = &sz,
                  .check_memory = 1,
                  .mem_per_rank = (uint64_t)1 << 40};
    rec r = {.stop_at = -1};
    assert_int_equal(mbx_grid_expand(&g, record, &r), 0);
    assert_int_equal(r.ev[3].kind, MBX_GRID_MEMORY); /* 2 GiB and more */
    g.mem_per_rank = 100;                            /* 90 allowed: 2 x 40 fits, 2 x 48 does not */
    r.n = 0;
    assert_int_equal(mbx_grid_expand(&g, record, &r), 0);
    assert_int_equal(r.ev[1].kind, MBX_GRID_POINT);
    assert_int_equal(r.ev[2].kind, MBX_GRID_MEMORY);
    assert_int_equal(r.ev[2].need, 96);
    g.check_memory = 0;
    r.n = 0;
    assert_int_equal(mbx_grid_expand(&g, record, &r), 0);
    uint64_t p[8][3];
    assert_int_equal(points(&r, p), 3);
}

static void hook_ends_a_curve(void **state)
{
    (void)state;
    mbx_bench b = bench(MBX_BENCH_SIZED, 1, NULL);
    mbx_size_list sz = {.v = {1, 2, 4}, .n = 3};
    int procs[] = {2, 4};
    mbx_grid g = {.b = &b, .procs = procs, .nprocs = 2, .sizes = &sz};
    rec r = {.stop_at = MBX_GRID_POINT, .answer = 1};
    assert_int_equal(mbx_grid_expand(&g, record, &r), 0);
    uint64_t p[8][3];
    assert_int_equal(points(&r, p), 2); /* the first size of each count */
    assert_int_equal(r.ev[2].kind, MBX_GRID_CURVE_END);
    assert_int_equal(r.ev[2].npoints, 1);
    assert_int_equal(p[1][1], 4);
}

static void counts_by_kind(void **state)
{
    (void)state;
    int procs[] = {2, 4, 8}, one;
    size_t n;
    mbx_bench pair = bench(MBX_BENCH_PAIR, 1, NULL), inner = bench(MBX_BENCH_INNER, 1, NULL),
              coll = bench(0, 1, NULL);
    const int *pv = mbx_grid_counts(&pair, 6, procs, 3, &one, &n);
    assert_true(n == 1 && pv[0] == 6);
    pv = mbx_grid_counts(&inner, 6, procs, 3, &one, &n);
    assert_true(n == 1 && pv[0] == 1);
    pv = mbx_grid_counts(&coll, 6, procs, 3, &one, &n);
    assert_true(n == 3 && pv == procs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sizes_in_order_duplicates_once),
        cmocka_unit_test(zero_bytes_of_a_reduction_skipped),
        cmocka_unit_test(parameters_outermost),
        cmocka_unit_test(bad_counts_and_roots_skipped_or_stop),
        cmocka_unit_test(memory_checked_when_asked),
        cmocka_unit_test(hook_ends_a_curve),
        cmocka_unit_test(counts_by_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
