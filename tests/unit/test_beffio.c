/* b_eff_io pure core: Table 2 (chunk sizes, +8 byte rows, time units), MPART,
 * the schedule, the repeating factors and segment sizes of types 3 and 4,
 * the minimum space, and the weights on hand-computed tables. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/beffio.h"

#define KB 1024ull
#define MB 1048576ull

typedef struct expect {
    int type;
    uint64_t l, L; /* 0: MPART */
    int wellformed, unit, fill;
} expect;

/* Table 2 as printed in the paper, row by row (L := l written out). */
static const expect table2[MBX_BEFFIO_NPATTERNS] = {
    /* type 0: scatter, collective */
    {0, MB, MB, 1, 0, 0},
    {0, 0, 0, 1, 4, 0},
    {0, MB, 2 * MB, 1, 4, 0},
    {0, MB, MB, 1, 4, 0},
    {0, 32 * KB, MB, 1, 2, 0},
    {0, KB, MB, 1, 2, 0},
    {0, 32 * KB + 8, MB + 256, 0, 2, 0},
    {0, KB + 8, MB + 8 * KB, 0, 2, 0},
    {0, MB + 8, MB + 8, 0, 2, 0},
    /* type 1: shared file, collective */
    {1, MB, MB, 1, 0, 0},
    {1, 0, 0, 1, 4, 0},
    {1, MB, MB, 1, 2, 0},
    {1, 32 * KB, 32 * KB, 1, 1, 0},
    {1, KB, KB, 1, 1, 0},
    {1, 32 * KB + 8, 32 * KB + 8, 0, 1, 0},
    {1, KB + 8, KB + 8, 0, 1, 0},
    {1, MB + 8, MB + 8, 0, 2, 0},
    /* type 2: separate files */
    {2, MB, MB, 1, 0, 0},
    {2, 0, 0, 1, 2, 0},
    {2, MB, MB, 1, 2, 0},
    {2, 32 * KB, 32 * KB, 1, 1, 0},
    {2, KB, KB, 1, 1, 0},
    {2, 32 * KB + 8, 32 * KB + 8, 0, 1, 0},
    {2, KB + 8, KB + 8, 0, 1, 0},
    {2, MB + 8, MB + 8, 0, 2, 0},
    /* type 3: 25-32 as 17-24, 33 fill up segments */
    {3, MB, MB, 1, 0, 0},
    {3, 0, 0, 1, 2, 0},
    {3, MB, MB, 1, 2, 0},
    {3, 32 * KB, 32 * KB, 1, 1, 0},
    {3, KB, KB, 1, 1, 0},
    {3, 32 * KB + 8, 32 * KB + 8, 0, 1, 0},
    {3, KB + 8, KB + 8, 0, 1, 0},
    {3, MB + 8, MB + 8, 0, 2, 0},
    {3, 1, 1, 1, 0, 1},
    /* type 4: 34-42 as 25-33 */
    {4, MB, MB, 1, 0, 0},
    {4, 0, 0, 1, 2, 0},
    {4, MB, MB, 1, 2, 0},
    {4, 32 * KB, 32 * KB, 1, 1, 0},
    {4, KB, KB, 1, 1, 0},
    {4, 32 * KB + 8, 32 * KB + 8, 0, 1, 0},
    {4, KB + 8, KB + 8, 0, 1, 0},
    {4, MB + 8, MB + 8, 0, 2, 0},
    {4, 1, 1, 1, 0, 1},
};

static void check_table(uint64_t mpart)
{
    mbx_beffio_pattern t[MBX_BEFFIO_NPATTERNS];
    mbx_beffio_table(mpart, t);
    int sumU = 0;
    for (int i = 0; i < MBX_BEFFIO_NPATTERNS; i++) {
        const expect *x = &table2[i];
        assert_int_equal(t[i].no, i);
        assert_int_equal(t[i].type, x->type);
        assert_int_equal(t[i].unit, x->unit);
        assert_int_equal(t[i].fill, x->fill);
        assert_int_equal(t[i].index, i - mbx_beffio_type_first(x->type));
        sumU += t[i].unit;
        if (x->fill) {
            assert_true(t[i].l == 0 && t[i].L == 0); /* set at run time */
            continue;
        }
        assert_int_equal(t[i].wellformed, x->wellformed);
        assert_true(t[i].l == (x->l ? x->l : mpart));
        assert_true(t[i].L == (x->L ? x->L : mpart));
        /* Type 0's memory chunk is a whole number of disk chunks. */
        assert_true(t[i].L % t[i].l == 0);
        if (!x->wellformed)
            assert_true((t[i].l - 8) && ((t[i].l - 8) & (t[i].l - 9)) == 0);
    }
    assert_int_equal(sumU, MBX_BEFFIO_SUM_U);
}

static void table2_rows(void **state)
{
    (void)state;
    check_table(2 * MB);
    check_table(96 * MB);
    int counts[MBX_BEFFIO_NTYPES] = {9, 8, 8, 9, 9}, firsts[MBX_BEFFIO_NTYPES] = {0, 9, 17, 25, 34};
    for (int t = 0; t < MBX_BEFFIO_NTYPES; t++) {
        assert_int_equal(mbx_beffio_type_count(t), counts[t]);
        assert_int_equal(mbx_beffio_type_first(t), firsts[t]);
    }
    assert_int_equal(mbx_beffio_type_count(5), 0);
    assert_int_equal(mbx_beffio_type_first(-1), -1);
}

static void mpart_rule(void **state)
{
    (void)state;
    assert_true(mbx_beffio_mpart(0) == 2 * MB);
    assert_true(mbx_beffio_mpart(64 * MB) == 2 * MB);
    assert_true(mbx_beffio_mpart(300 * MB) == 2 * MB);    /* 2.34 MiB -> 2 */
    assert_true(mbx_beffio_mpart(1000 * MB) == 7 * MB);   /* 7.8 MiB -> 7 */
    assert_true(mbx_beffio_mpart(12288 * MB) == 96 * MB); /* 12 GiB */
}

static void schedule_sums_to_T(void **state)
{
    (void)state;
    mbx_beffio_pattern t[MBX_BEFFIO_NPATTERNS];
    mbx_beffio_table(2 * MB, t);
    const double Ts[] = {2.0, 10.0, 900.0};
    for (size_t j = 0; j < 3; j++) {
        double sum = 0.0;
        for (int a = 0; a < MBX_BEFFIO_NACCESS; a++)
            for (int i = 0; i < MBX_BEFFIO_NPATTERNS; i++)
                sum += mbx_beffio_budget(Ts[j], t[i].unit);
        assert_true(fabs(sum - Ts[j]) < 1e-9 * Ts[j]);
    }
    /* T = 15 min: a U = 4 pattern gets 900 * 4 / 64 / 3 = 18.75 s. */
    assert_true(fabs(mbx_beffio_budget(900.0, 4) - 18.75) < 1e-12);
    assert_true(mbx_beffio_budget(900.0, 0) == 0.0);
}

static void derive_reps_of_segmented_types(void **state)
{
    (void)state;
    mbx_beffio_pattern t[MBX_BEFFIO_NPATTERNS];
    mbx_beffio_table(2 * MB, t);
    const uint64_t t2[MBX_BEFFIO_MAXPERTYPE] = {1, 10, 20, 100, 500, 90, 400, 30, 0};
    uint64_t r[MBX_BEFFIO_MAXPERTYPE];
    mbx_beffio_derive_reps(t, 3, t2, r);
    for (int k = 0; k < 8; k++)
        assert_true(r[k] == t2[k]); /* same units as type 2 */
    assert_true(r[8] == 1);         /* the fill row runs once */
    /* Type 4 from type 1: the MPART row has U 4 in type 1, 2 in type 4;
     * the 1 MB row (index 2) has U 2 in both. */
    const uint64_t t1[MBX_BEFFIO_MAXPERTYPE] = {1, 11, 20, 100, 500, 90, 400, 30, 0};
    mbx_beffio_derive_reps(t, 4, t1, r);
    assert_true(r[0] == 1);
    assert_true(r[1] == 6); /* 11 * 2 / 4 = 5.5, rounded */
    for (int k = 2; k < 8; k++)
        assert_true(r[k] == t1[k]);
    const uint64_t one[MBX_BEFFIO_MAXPERTYPE] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    mbx_beffio_derive_reps(t, 4, one, r);
    assert_true(r[1] == 1); /* 0.5 rounds up to at least one */
}

static void segment_sizes(void **state)
{
    (void)state;
    mbx_beffio_pattern t[MBX_BEFFIO_NPATTERNS];
    mbx_beffio_table(2 * MB, t);
    const mbx_beffio_pattern *rows = t + mbx_beffio_type_first(3);
    const uint64_t reps[MBX_BEFFIO_MAXPERTYPE] = {1, 2, 3, 4, 5, 6, 7, 8, 1};
    uint64_t seg = 0, fill = 0;
    mbx_beffio_segment(rows, reps, &seg, &fill);
    /* 1 x 1 MiB + 2 x 2 MiB + 3 x 1 MiB + 4 x 32 KiB + 5 x 1 KiB + 6 x 32776
     * + 7 x 1032 + 8 x (1 MiB + 8) = 17117352 bytes -> 17 MiB segments. */
    assert_true(seg == 17 * MB);
    assert_true(fill == 17 * MB - 17117352ull);
    /* A sum that is already whole MiB still gets a (full MiB) fill row. */
    const uint64_t whole[MBX_BEFFIO_MAXPERTYPE] = {1, 1, 1, 0, 0, 0, 0, 0, 1};
    mbx_beffio_segment(rows, whole, &seg, &fill);
    assert_true(seg == 5 * MB && fill == MB);
    /* Type 4 has the same list. */
    mbx_beffio_segment(t + mbx_beffio_type_first(4), reps, &seg, &fill);
    assert_true(seg == 17 * MB);
}

static void minimum_space(void **state)
{
    (void)state;
    mbx_beffio_pattern t[MBX_BEFFIO_NPATTERNS];
    mbx_beffio_table(2 * MB, t);
    /* Type 0 is the largest: 11 MiB + 256 + 8 KiB + 8 per process. */
    uint64_t t0 = 11 * MB + 256 + 8 * KB + 8;
    assert_true(mbx_beffio_min_type_bytes(t, 0, 1) == t0);
    assert_true(mbx_beffio_min_bytes(t, 2) == 2 * t0);
    /* Type 3: 1 + 2 + 1 MiB, 32 KiB, 1 KiB, 32776, 1032, 1 MiB + 8, fill 1 MiB. */
    assert_true(mbx_beffio_min_type_bytes(t, 3, 4) ==
                4 * (6 * MB + 32 * KB + KB + 32776 + 1032 + 8));
}

static void weights_on_known_tables(void **state)
{
    (void)state;
    const double flat[MBX_BEFFIO_NTYPES] = {7, 7, 7, 7, 7};
    assert_true(fabs(mbx_beffio_access_value(flat) - 7.0) < 1e-12);
    const double w[MBX_BEFFIO_NTYPES] = {10, 20, 30, 40, 50};
    const double rw[MBX_BEFFIO_NTYPES] = {12, 12, 12, 12, 12};
    const double r[MBX_BEFFIO_NTYPES] = {60, 30, 30, 30, 30};
    double a[MBX_BEFFIO_NACCESS] = {mbx_beffio_access_value(w), mbx_beffio_access_value(rw),
                                    mbx_beffio_access_value(r)};
    assert_true(fabs(a[0] - 160.0 / 6.0) < 1e-12); /* (2*10+20+30+40+50)/6 */
    assert_true(fabs(a[1] - 12.0) < 1e-12);
    assert_true(fabs(a[2] - 40.0) < 1e-12); /* (2*60+4*30)/6 */
    /* 0.25 * 26.667 + 0.25 * 12 + 0.5 * 40 = 29.667 */
    assert_true(fabs(mbx_beffio_partition_value(a) - (160.0 / 24.0 + 3.0 + 20.0)) < 1e-12);
    const double only_read[MBX_BEFFIO_NACCESS] = {0, 0, 100};
    assert_true(fabs(mbx_beffio_partition_value(only_read) - 50.0) < 1e-12);
}

static void names_and_rules(void **state)
{
    (void)state;
    assert_string_equal(mbx_beffio_access_name(0), "write");
    assert_string_equal(mbx_beffio_access_name(1), "rewrite");
    assert_string_equal(mbx_beffio_access_name(2), "read");
    assert_string_equal(mbx_beffio_access_name(3), "?");
    char rules[512];
    mbx_beffio_rules(rules, sizeof rules);
    assert_non_null(strstr(rules, "25% write+25% rewrite+50% read"));
    assert_non_null(strstr(rules, "(2*t0+t1+t2+t3+t4)/6"));
    char small[8];
    mbx_beffio_rules(small, sizeof small);
    assert_int_equal(strlen(small), 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(table2_rows),
        cmocka_unit_test(mpart_rule),
        cmocka_unit_test(schedule_sums_to_T),
        cmocka_unit_test(derive_reps_of_segmented_types),
        cmocka_unit_test(segment_sizes),
        cmocka_unit_test(minimum_space),
        cmocka_unit_test(weights_on_known_tables),
        cmocka_unit_test(names_and_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
