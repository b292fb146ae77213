/* The node-pair runner (mbx/pairs_run.h) on a model machine: each node
 * adds its own delay to every cell it takes part in, one link more, the
 * clock advances by the work done. What the runner must get right: the
 * cells each mode and sample covers, each cell's value from its own
 * node's times, the stop rules, bad plans refused with the field named. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/pairs_run.h"

typedef struct model {
    int n;
    double node[16]; /* each node's added seconds */
    int slow_a, slow_b;
    double link; /* added to both directions of (slow_a, slow_b) */
    double now;
    int steps, max_in_step, stop_after;
    int seen_k[16];
    uint64_t rng;
} model;

static double noise(model *m)
{
    m->rng = m->rng * 6364136223846793005u + 1442695040888963407u;
    return 1.0 + 0.01 * ((double)(m->rng >> 11) / 9007199254740992.0 - 0.5);
}

static double cell_time(model *m, int src, int dst)
{
    double t = 1e-6 + m->node[src] + m->node[dst];
    if ((src == m->slow_a && dst == m->slow_b) || (src == m->slow_b && dst == m->slow_a))
        t += m->link;
    return t * noise(m);
}

static int step(void *ud, const mbx_pairs_req *q, double *t)
{
    model *m = ud;
    m->steps++;
    int in_step = 0;
    for (int i = 0; i < m->n; i++)
        for (int j = 0; j < q->nobs; j++) {
            int dst = -1;
            if (q->mode == 0)
                dst = (i + q->k) % m->n;
            else if (i == q->src)
                dst = q->dst;
            t[i * q->nobs + j] = dst < 0 ? NAN : cell_time(m, i, dst);
            in_step += dst >= 0 && j == 0;
        }
    if (q->mode == 0)
        m->seen_k[q->k]++;
    if (in_step > m->max_in_step)
        m->max_in_step = in_step;
    m->now += 0.01;
    return MBX_OK;
}

static double clock_of(void *ud)
{
    return ((model *)ud)->now;
}

static void sleep_of(void *ud, double s)
{
    ((model *)ud)->now += s;
}

static int stop_progress(void *ud, const mbx_pairs_run *r, size_t done, size_t total)
{
    model *m = ud;
    (void)r, (void)done, (void)total;
    return m->stop_after > 0 && m->steps >= m->stop_after;
}

static mbx_pairs_hooks hooks(model *m)
{
    return (mbx_pairs_hooks){
        .step = step, .clock = clock_of, .sleep = sleep_of, .progress = stop_progress, .ud = m};
}

static void shift_measures_every_cell_from_its_senders_times(void **state)
{
    (void)state;
    model m = {.n = 5, .slow_a = 1, .slow_b = 3, .link = 4e-6, .rng = 7};
    m.node[2] = 2e-6;
    mbx_pairs_plan p;
    mbx_pairs_plan_init(&p);
    p.n = 5;
    p.metrics = 1;
    mbx_pairs_hooks h = hooks(&m);
    mbx_pairs_run r;
    char msg[200];
    assert_int_equal(mbx_pairs_run_plan(&p, &h, &r, msg, sizeof msg), MBX_OK);
    assert_int_equal(r.nsteps, 4);
    assert_int_equal((int)r.ncells, 20);
    assert_int_equal(m.max_in_step, 5); /* every node sends in every shift step */
    for (int k = 1; k < 5; k++)
        assert_int_equal(m.seen_k[k], r.rounds);
    assert_string_equal(r.ended, "settled");
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            const mbx_pairs_cellrun *c = mbx_pairs_run_cell(&r, 0, i, j);
            if (i == j) {
                assert_null(c);
                continue;
            }
            assert_non_null(c);
            double want = 1e-6 + m.node[i] + m.node[j] +
                          ((i == 1 && j == 3) || (i == 3 && j == 1) ? m.link : 0);
            assert_true(fabs(c->r.b.value / want - 1) < 0.01);
            assert_int_equal(c->r.verdict, MBX_PASSES_SETTLED);
            assert_int_equal(c->k, (j - i + 5) % 5);
        }
    /* Passes span at least min_span: the rounds were spaced. */
    assert_true(r.cell[0].r.span >= p.passes.min_span);
    /* What a step cost: the model's 10 ms each, gaps left out. */
    assert_int_equal((int)r.steps_done[0], r.rounds * 4);
    assert_true(fabs(r.step_s[0] - 0.01 * (double)r.steps_done[0]) < 1e-9);
    assert_int_equal((int)r.steps_done[1], 0);
    mbx_pairs_run_free(&r);
}

static void one_pair_mode_runs_one_sender_a_step(void **state)
{
    (void)state;
    model m = {.n = 4, .rng = 3};
    mbx_pairs_plan p;
    mbx_pairs_plan_init(&p);
    p.n = 4;
    p.mode = 1;
    mbx_pairs_hooks h = hooks(&m);
    mbx_pairs_run r;
    char msg[200];
    assert_int_equal(mbx_pairs_run_plan(&p, &h, &r, msg, sizeof msg), MBX_OK);
    assert_int_equal(r.nsteps, 12);
    assert_int_equal((int)r.ncells, 24); /* both metrics */
    assert_int_equal(m.max_in_step, 1);
    assert_non_null(mbx_pairs_run_cell(&r, 1, 3, 0));
    mbx_pairs_run_free(&r);
}

static void a_sample_of_steps_is_seeded_and_leaves_cells_out(void **state)
{
    (void)state;
    int first[3] = {0};
    for (int rep = 0; rep < 2; rep++) {
        model m = {.n = 8, .rng = 1};
        mbx_pairs_plan p;
        mbx_pairs_plan_init(&p);
        p.n = 8;
        p.metrics = 1;
        p.steps = 3;
        p.seed = 42;
        p.max_rounds = 2;
        mbx_pairs_hooks h = hooks(&m);
        mbx_pairs_run r;
        char msg[200];
        assert_int_equal(mbx_pairs_run_plan(&p, &h, &r, msg, sizeof msg), MBX_OK);
        assert_int_equal((int)r.ncells, 24);
        int measured = 0;
        for (int k = 1; k < 8; k++)
            measured += m.seen_k[k] > 0;
        assert_int_equal(measured, 3);
        for (int s = 0; s < 3; s++) {
            if (rep == 0)
                first[s] = r.step[s];
            assert_int_equal(r.step[s], first[s]); /* the same seed, the same sample */
        }
        assert_string_equal(r.ended, "max-rounds 2");
        mbx_pairs_run_free(&r);
    }
}

static void a_stop_request_ends_the_run_with_what_it_has(void **state)
{
    (void)state;
    model m = {.n = 4, .rng = 5, .stop_after = 7};
    mbx_pairs_plan p;
    mbx_pairs_plan_init(&p);
    p.n = 4;
    mbx_pairs_hooks h = hooks(&m);
    mbx_pairs_run r;
    char msg[200];
    assert_int_equal(mbx_pairs_run_plan(&p, &h, &r, msg, sizeof msg), MBX_E_ABORTED);
    assert_string_equal(r.ended, "stopped");
    assert_int_equal(m.steps, 7);
    mbx_pairs_run_free(&r);
}

static void bad_plans_name_the_field_and_its_range(void **state)
{
    (void)state;
    static const struct {
        int n, mode, steps, window;
        const char *want;
    } bad[] = {
        {1, 0, 0, 16, "pairs: the job has 1 node; the matrix needs 2 to 4096"},
        {4, 0, 4, 16, "--steps: 4 asked; 4 nodes have 3 shift steps (1..3)"},
        {3, 1, 7, 16, "--steps: 7 asked; 3 nodes have 6 directed pairs (1..6)"},
        {4, 2, 0, 16, "--mode: expected shift or one"},
        {4, 0, 0, 0, "--window: expected 1..4096 messages, got 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        mbx_pairs_plan p;
        mbx_pairs_plan_init(&p);
        p.n = bad[i].n;
        p.mode = bad[i].mode;
        p.steps = bad[i].steps;
        p.window = bad[i].window;
        char msg[200] = "";
        assert_int_equal(mbx_pairs_plan_check(&p, msg, sizeof msg), MBX_E_INVAL);
        assert_non_null(strstr(msg, bad[i].want));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shift_measures_every_cell_from_its_senders_times),
        cmocka_unit_test(one_pair_mode_runs_one_sender_a_step),
        cmocka_unit_test(a_sample_of_steps_is_seeded_and_leaves_cells_out),
        cmocka_unit_test(a_stop_request_ends_the_run_with_what_it_has),
        cmocka_unit_test(bad_plans_name_the_field_and_its_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
