/* The runner (mbx/runner.h) over the fake back end: a run from the first
 * request to DONE gives every point one row and every pass to the pass
 * hook; the thread binding is gathered after a point's first pass and a
 * failed bind is noted once; a failed pair scan ends the step with a
 * note; a measurement's stop rule reaches the scheduler guarded and
 * clamped; the fake's test model stops a run after the K-th pass. */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/runner.h"

typedef struct fixture {
    mbx_backend be;
    mbx_sched *sched;
    mbx_monitor mon;
    mbx_runner rn;
    int bench_id;
    double t_idle;
    size_t rows, passes, first_passes, pilots, notes[4], binds, idles;
    size_t row_seen[64];
    mbx_runner_where failed_at;
    const char *unbound_ranks;
} fixture;

static double f_clock(void *ud)
{
    fixture *f = ud;
    return f->be.now(&f->be) + f->t_idle;
}

static int f_spec(void *ud, const mbx_sched_req *rq, mbx_point_spec *spec, const char **label)
{
    fixture *f = ud;
    spec->bench_id = f->bench_id;
    spec->procs = f->be.nranks;
    spec->bytes = rq->x;
    spec->param = 2;
    *label = "lbl";
    return 0;
}

static int f_pass(void *ud, const mbx_sched_req *rq, const mbx_point_spec *spec,
                  const mbx_result *r, double t0, double t1)
{
    fixture *f = ud;
    assert_int_equal(spec->stop.kind, MBX_STOP_FIXED);
    assert_int_equal(spec->stop.fixed, rq->nobs);
    assert_int_equal(spec->warm_light, !rq->warm);
    assert_string_equal(r->label, "lbl");
    assert_true(t1 >= t0);
    f->passes++;
    f->pilots += (size_t)rq->pilot;
    if (rq->pass == 0 && !rq->pilot) {
        f->first_passes++;
        /* the binding was gathered for this very pass, before the hook */
        assert_int_equal(f->binds,
                         mbx_thrinfo_binds(mbx_bench_get(f->bench_id)) ? f->first_passes : 0);
    }
    return 0;
}

static int f_row(void *ud, size_t point)
{
    fixture *f = ud;
    mbx_result r;
    assert_int_equal(mbx_sched_result(f->sched, point, &r), MBX_OK);
    assert_true(r.s.median > 0);
    assert_true(point < 64);
    f->row_seen[point]++;
    f->rows++;
    return 0;
}

static void f_idle(void *ud, double s)
{
    fixture *f = ud;
    assert_true(s > 0);
    f->t_idle += s;
    f->idles++;
}

static int f_note(void *ud, const mbx_runner_note *n)
{
    fixture *f = ud;
    f->notes[n->kind]++;
    if (n->kind == MBX_RUNNER_FAILED)
        f->failed_at = n->where;
    if (n->kind == MBX_RUNNER_UNBOUND)
        f->unbound_ranks = n->ranks;
    return 0;
}

/* Rank 1 fails to bind a thread at its first point; nothing new after. */
static mbx_thread_bind binds[2];
static int fake_binding(mbx_backend *b, const mbx_thread_bind **out)
{
    fixture *f = (fixture *)((char *)b - offsetof(fixture, be));
    f->binds++;
    binds[0].points = binds[1].points = (int32_t)f->binds;
    binds[1].failed = 1;
    snprintf(binds[1].failure, sizeof binds[1].failure, "2 threads: t0 PU1 (failed)");
    *out = binds;
    return MBX_OK;
}

static int fake_pair_fails(mbx_backend *b, double *lat, int *far)
{
    (void)b, (void)lat, (void)far;
    return MBX_E_MPI;
}

static void setup_run(fixture *f, const char *bench, int nranks, int pair)
{
    static const uint64_t grid[] = {1, 64, 4096};
    memset(f, 0, sizeof *f);
    mbx_backend_fake(nranks, &f->be);
    assert_int_equal(f->be.configure(&f->be, MBX_TIMER_WTIME, NULL), MBX_OK);
    assert_int_equal(mbx_bench_find(bench, &f->bench_id), MBX_OK);
    mbx_sched_opts o;
    mbx_sched_opts_init(&o);
    o.seed = 5;
    o.nranks = nranks;
    o.probe_every = 0;
    o.passes.min_span = 0.01;
    assert_int_equal(mbx_sched_create(&o, &f->sched), MBX_OK);
    mbx_measurement m;
    memset(&m, 0, sizeof m);
    m.stop = (mbx_stop_rule){.kind = MBX_STOP_CV, .eps = 0.05};
    m.nmin = 16;
    m.nmax = 64;
    mbx_sched_curve cv = {.grid = grid, .ngrid = 3, .pair = pair, .pair_a = -1, .pair_b = -1};
    mbx_runner_curve_of(&m, o.passes.min_passes, mbx_bench_get(f->bench_id), 1, 0, &cv);
    size_t id;
    assert_int_equal(mbx_sched_add_curve(f->sched, &cv, &id), MBX_OK);
    mbx_monitor_init(&f->mon, nranks - 1, 0.05);
    mbx_runner_hooks h = {.ud = f,
                          .clock = f_clock,
                          .spec = f_spec,
                          .pass = f_pass,
                          .row = f_row,
                          .idle = f_idle,
                          .note = f_note};
    mbx_runner_init(&f->rn, &f->be, f->sched, &f->mon, 10, &h);
}

static void teardown_run(fixture *f)
{
    mbx_sched_free(f->sched);
    mbx_monitor_free(&f->mon);
    mbx_backend_fake_free(&f->be);
}

static int run_to_end(fixture *f)
{
    int k;
    for (size_t i = 0; i < 100000; i++)
        if ((k = mbx_runner_step(&f->rn)) <= MBX_SCHED_DONE)
            return k;
    fail_msg("the run did not end");
    return -1;
}

static void a_run_gives_every_point_one_row(void **state)
{
    (void)state;
    fixture f;
    setup_run(&f, "pingpong.send_recv", 4, 1);
    int k = run_to_end(&f);
    if (k != MBX_SCHED_DONE)
        fail_msg("step %d, failed at %d", k, (int)f.failed_at);
    assert_int_equal(f.rows, 3);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(f.row_seen[i], 1);
    assert_int_equal(f.first_passes, 3);
    assert_int_equal(f.pilots, 3);
    assert_true(f.passes >= 3 * 4);                /* a pilot and at least R passes each */
    assert_int_equal(f.notes[MBX_RUNNER_PAIR], 1); /* 4 ranks: the scan ran */
    assert_int_equal(f.notes[MBX_RUNNER_FAILED], 0);
    assert_true(f.idles > 0); /* the passes were paced */
    assert_true(f.mon.n > 0); /* the probes reached the monitor */
    teardown_run(&f);
}

static void binding_is_checked_after_the_first_pass(void **state)
{
    (void)state;
    fixture f;
    setup_run(&f, "threads.mutex", 2, 0);
    f.be.thread_binding = fake_binding;
    assert_int_equal(run_to_end(&f), MBX_SCHED_DONE);
    assert_int_equal(f.binds, 3); /* once a point: after its first pass */
    assert_int_equal(f.notes[MBX_RUNNER_UNBOUND], 1);
    assert_int_equal(f.rows, 3);
    teardown_run(&f);
}

static void a_failed_pair_scan_ends_the_step(void **state)
{
    (void)state;
    fixture f;
    setup_run(&f, "pingpong.send_recv", 4, 1);
    f.be.pair_scan = fake_pair_fails;
    int k = mbx_runner_step(&f.rn);
    assert_int_equal(k, MBX_E_MPI);
    assert_int_equal(f.notes[MBX_RUNNER_FAILED], 1);
    assert_int_equal(f.failed_at, MBX_RUNNER_AT_PAIR);
    assert_int_equal(f.rows, 0);
    teardown_run(&f);
}

static void the_stop_rule_reaches_the_curve(void **state)
{
    (void)state;
    mbx_measurement m;
    memset(&m, 0, sizeof m);
    m.nmin = 16;
    m.nmax = 8; /* below nmin: nmin bounds both */
    m.stop = (mbx_stop_rule){.kind = MBX_STOP_FIXED, .fixed = 10};
    mbx_sched_curve cv = {0};
    mbx_runner_curve_of(&m, 3, NULL, 0, 0, &cv);
    assert_int_equal(cv.fixed_n, 4); /* 10 over exactly 3 passes, rounded up */
    assert_int_equal(cv.max_passes, 3);
    assert_int_equal(cv.pass_nmax, 16);
    m.stop.fixed = 0; /* clamped: a pass takes at least one observation */
    memset(&cv, 0, sizeof cv);
    mbx_runner_curve_of(&m, 3, NULL, 0, 0, &cv);
    assert_int_equal(cv.fixed_n, 1);
    m.stop = (mbx_stop_rule){.kind = MBX_STOP_CV, .eps = 1.5}; /* outside (0, 1) */
    memset(&cv, 0, sizeof cv);
    mbx_runner_curve_of(&m, 3, NULL, 0, 0, &cv);
    assert_true(cv.eps == 0); /* the scheduler's */
    assert_int_equal(cv.fixed_n, 0);
    m.stop.eps = 0.02;
    m.refine = 0.1;
    int id;
    assert_int_equal(mbx_bench_find("pingpong.send_recv", &id), MBX_OK);
    mbx_runner_curve_of(&m, 3, mbx_bench_get(id), 1, 5, &cv);
    assert_true(cv.eps == 0.02);
    assert_int_equal(cv.budget, 5);
    assert_true(cv.geometric);
    assert_true(cv.refine_eps == 0.1);
}

static volatile sig_atomic_t got_term;
static void on_term(int sig)
{
    (void)sig;
    got_term++;
}

static void the_fake_model_stops_after_k_passes(void **state)
{
    (void)state;
    setenv("MBX_TEST_FAKE_STOP_PASSES", "5", 1);
    fixture f;
    setup_run(&f, "pingpong.send_recv", 2, 1);
    unsetenv("MBX_TEST_FAKE_STOP_PASSES");
    void (*old)(int) = signal(SIGTERM, on_term);
    got_term = 0;
    while (!got_term && mbx_runner_step(&f.rn) > MBX_SCHED_DONE)
        ;
    signal(SIGTERM, old);
    assert_int_equal(got_term, 1);
    assert_int_equal(f.passes, 5);
    teardown_run(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_run_gives_every_point_one_row),
        cmocka_unit_test(binding_is_checked_after_the_first_pass),
        cmocka_unit_test(a_failed_pair_scan_ends_the_step),
        cmocka_unit_test(the_stop_rule_reaches_the_curve),
        cmocka_unit_test(the_fake_model_stops_after_k_passes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
