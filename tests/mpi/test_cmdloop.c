/* Engine round trip on N ranks: rank 0 drives NOPs, DESCRIBE, CONFIGURE
 * and measurements of several benchmarks through the command loop; the
 * other ranks serve. Checks the job description, the results against their
 * stop rules, the thread binding records (THREADS), an invalid spec
 * rejected on rank 0 alone, a point's parameters (POINT_BEGIN's payload)
 * arriving whole on every rank and a bad one refused by every rank with
 * the field named, and that QUIT's exit code reaches every rank.
 * Any failed check aborts the job (non-zero exit). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h" /* mbx_engine_submit: a payload no spec can make */
#include "mbx/bench.h"
#include "mbx/engine.h"
#include "mbx/pointparams.h"
#include "mbx/rma.h"

#define QUIT_CODE 7

static void require(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "test_cmdloop: FAILED: %s\n", what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static int count_progress(void *ud, const mbx_progress *p)
{
    (void)p;
    ++*(int *)ud;
    return 0;
}

static int abort_at_once(void *ud, const mbx_progress *p)
{
    (void)ud;
    (void)p;
    return 1;
}

static void measure_on(mbx_engine *e, const char *name, uint64_t bytes, int procs,
                       mbx_stop_rule rule, size_t nmin, size_t nmax)
{
    int id = -1;
    require(mbx_bench_find(name, &id) == MBX_OK, "benchmark in registry");
    mbx_point_spec spec = {.bench_id = id,
                           .bytes = mbx_bench_align(mbx_bench_get(id), bytes),
                           .procs = procs,
                           .stop = rule,
                           .nmin = nmin,
                           .nmax = nmax};
    mbx_result r;
    const double *obs = NULL;
    size_t nobs = 0;
    int calls = 0;
    require(mbx_engine_measure(e, &spec, count_progress, &calls, &r, &obs, &nobs) == MBX_OK,
            "measure succeeds");
    require(calls >= 1 && (size_t)calls == r.batches, "one progress call per batch");
    /* Events (observations 100x the median) are handed back but left out. */
    require(nobs == r.s.n + r.events && obs != NULL, "observations returned");
    require(strcmp(r.benchmark, name) == 0, "result names its benchmark");
    require(isnan(r.plain), "no plain value without a companion");
    require(r.procs == procs, "result names its process count");
    if (rule.kind == MBX_STOP_FIXED) {
        require(r.s.n + r.events == rule.fixed, "fixed:N takes exactly N observations");
    } else {
        require(r.s.n <= nmax, "n <= nmax");
        if (r.status == MBX_POINT_SETTLED) {
            require(r.s.n >= nmin, "settled only after nmin");
            if (rule.kind == MBX_STOP_STDERR)
                require(r.s.stderr_ / r.s.tmean < rule.eps, "settled meets stderr rule");
            if (rule.kind == MBX_STOP_CV)
                require(r.s.stddev / r.s.mean < rule.eps, "settled meets cv rule");
        } else if (r.status == MBX_POINT_UNSETTLED) {
            require(r.s.n + r.events == nmax || r.events > 0,
                    "unsettled only at nmax or by events");
        }
    }
    double sum = 0;
    for (size_t i = 0; i < nobs; i++)
        sum += obs[i];
    require(r.events > 0 || r.status == MBX_POINT_UNRELIABLE ||
                fabs(sum / (double)nobs - r.s.mean) <= 1e-9 * fabs(r.s.mean) + 1e-15,
            "mean matches the observations");
    printf("%-20s %8llu B  P=%d  n=%4zu  median %.3f us  %s\n", name,
           (unsigned long long)spec.bytes, procs, r.s.n, r.s.median * 1e6,
           mbx_point_status_name(r.status));
}

/* Progress of an accurate point: calls for the companion (measured first)
 * and for the point itself; `cancel` stops the point in the companion. */
typedef struct acc_progress {
    int companion_id, accurate_id;
    int companion_calls, accurate_calls, order_ok, cancel;
} acc_progress;

static int count_accurate(void *ud, const mbx_progress *p)
{
    acc_progress *a = ud;
    if (p->spec->bench_id == a->companion_id) {
        a->companion_calls++;
        a->order_ok &= a->accurate_calls == 0; /* the companion comes first */
        return a->cancel;
    }
    a->order_ok &= p->spec->bench_id == a->accurate_id;
    a->accurate_calls++;
    return 0;
}

/* An accurate fan-out point: its plain companion is measured first at the
 * same point and its median lands in r.plain; the observations handed back
 * are the accurate ones; cancelling in the companion cancels the point. */
static void measure_accurate(mbx_engine *e, const char *name, const char *companion)
{
    acc_progress a = {.companion_id = -1, .accurate_id = -1, .order_ok = 1};
    require(mbx_bench_find(companion, &a.companion_id) == MBX_OK &&
                mbx_bench_find(name, &a.accurate_id) == MBX_OK,
            "accurate benchmark and companion");
    require(strcmp(mbx_bench_get(a.accurate_id)->companion, companion) == 0, "companion named");
    mbx_point_spec spec = {.bench_id = a.accurate_id,
                           .bytes = 64,
                           .procs = mbx_engine_size(e),
                           .stop = {MBX_STOP_FIXED, 0, 24},
                           .nmin = 1,
                           .nmax = 24};
    mbx_result r;
    const double *obs = NULL;
    size_t nobs = 0;
    require(mbx_engine_measure(e, &spec, count_accurate, &a, &r, &obs, &nobs) == MBX_OK,
            "accurate point measured");
    require(a.order_ok && a.companion_calls >= 1 && (size_t)a.accurate_calls == r.batches,
            "companion first, then the point's own batches");
    require(strcmp(r.benchmark, name) == 0 && strcmp(r.timing, "max_over_receivers") == 0,
            "the row is the accurate benchmark's");
    require(nobs == 24 && r.s.n + r.events == 24, "the accurate observations are handed back");
    require(r.plain > 0 && isfinite(r.plain), "plain median of the companion");
    /* UNSETTLED only by an event (a preempted rank) in the companion. */
    require(r.plain_status == MBX_POINT_SETTLED || r.plain_status == MBX_POINT_UNSETTLED,
            "fixed:N companion settles");
    printf("%-20s %8d B  P=%d  n=%4zu  median %.3f us  plain %.3f us  %s\n", name, 64, spec.procs,
           r.s.n, r.s.median * 1e6, r.plain * 1e6, mbx_point_status_name(r.status));
    a = (acc_progress){
        .companion_id = a.companion_id, .accurate_id = a.accurate_id, .order_ok = 1, .cancel = 1};
    require(mbx_engine_measure(e, &spec, count_accurate, &a, &r, NULL, NULL) == MBX_E_ABORTED &&
                a.accurate_calls == 0,
            "cancelled in the companion");
}

static void measure(mbx_engine *e, const char *name, uint64_t bytes, mbx_stop_rule rule,
                    size_t nmin, size_t nmax)
{
    measure_on(e, name, bytes, mbx_engine_size(e), rule, nmin, nmax);
}

/* A point's parameters that are not the defaults reach every rank as sent:
 * the data checks pass only if every rank used the same root, pair and
 * one-sided sync mode, and every rank's buffers start at the offset sent. */
static void params_round_trip(mbx_engine *e, const char *name, int root, int pair_a, int rma_sync,
                              uint32_t offset)
{
    int id = -1, size = mbx_engine_size(e);
    require(mbx_bench_find(name, &id) == MBX_OK, "benchmark in registry");
    mbx_point_spec spec = {.bench_id = id,
                           .bytes = mbx_bench_align(mbx_bench_get(id), 64),
                           .procs = size,
                           .stop = {MBX_STOP_FIXED, 0, 8},
                           .nmin = 1,
                           .nmax = 8,
                           .root = root,
                           .pair_a = pair_a,
                           .pair_b = size - 1,
                           .rma_sync = rma_sync,
                           .validate = 1,
                           .buf_offset = offset};
    mbx_result r;
    int lo = -1, hi = -1;
    require(mbx_engine_measure(e, &spec, NULL, NULL, &r, NULL, NULL) == MBX_OK &&
                r.status != MBX_POINT_INVALID,
            "a point with its parameters set runs and its data checks pass");
    mbx_engine_buffer_offsets(e, &lo, &hi);
    mbx_buffer_place pl;
    mbx_engine_buffer_place(e, &pl);
    int so = (int)offset, ro = (int)pl.recv_offset;
    require(pl.send_offset == offset && lo == (so < ro ? so : ro) && hi == (so > ro ? so : ro),
            "every rank's buffers at the offsets sent");
    printf("%-20s params: root %d pair %d,%d rma_sync %d offset %u: %s\n", name, root, pair_a,
           size - 1, rma_sync, offset, mbx_point_status_name(r.status));
}

/* A POINT_BEGIN whose payload holds a value out of its range (a rank of a
 * build that sends what this one cannot read): every rank refuses it, rank 0
 * names the field, and the loop goes on. */
static void params_refused(mbx_engine *e)
{
    mbx_point_params p = {.procs = mbx_engine_size(e),
                          .pair_b = mbx_engine_size(e) - 1,
                          .warm_calls = 1,
                          .companion = NAN};
    require(mbx_bench_find("coll.barrier", &p.bench_id) == MBX_OK, "coll.barrier");
    unsigned char wire[MBX_POINT_PARAMS_WIRE_SIZE];
    require(mbx_point_params_encode(&p, wire, NULL, 0) == MBX_OK, "payload encodes");
    const mbx_point_field *f = NULL;
    for (size_t i = 0; (f = mbx_point_field_at(i)) && strcmp(f->name, "rma_sync") != 0; i++)
        ;
    require(f != NULL, "rma_sync is a field");
    wire[f->wire_offset] = 9;
    mbx_cmd c = {.opcode = MBX_OP_POINT_BEGIN, .payload_len = sizeof wire};
    require(mbx_engine_submit(e, &c, wire) == MBX_E_INVAL, "a bad payload is refused");
    require(strcmp(mbx_engine_why(e), "point parameter rma_sync: 9 is outside 0..4") == 0,
            "the refusal names the field and its range");
    p.root = p.procs; /* what no rank would accept is not even sent */
    require(mbx_point_params_submit(e, &p) == MBX_E_INVAL &&
                strstr(mbx_engine_why(e), "point parameter root") != NULL,
            "rank 0 refuses to send a root outside the point");
}

/* Rank 0's side of the command round trips (over 80 lines): one command after another, read top to
 * bottom. */
static void root(mbx_engine *e)
{
    for (int i = 0; i < 100; i++)
        require(mbx_engine_nop(e) == MBX_OK, "nop");
    const mbx_job_info *job;
    require(mbx_engine_describe(e, &job) == MBX_OK, "describe");
    require(job->nranks == mbx_engine_size(e), "describe sees every rank");
    require(job->nhosts >= 1 && job->max_ranks_per_host >= 1, "hosts counted");
    require(job->mem_per_rank > 0, "memory known");
    for (int r = 0; r < job->nranks; r++)
        require(job->rank[r].host[0] != '\0' && job->rank[r].binding[0] != '\0',
                "host and binding of every rank");

    mbx_point_spec bad = {.bench_id = 0,
                          .bytes = 8,
                          .procs = mbx_engine_size(e),
                          .stop = {MBX_STOP_STDERR, 0.03, 0},
                          .nmin = 16,
                          .nmax = 100};
    mbx_result r;
    require(mbx_engine_measure(e, &bad, NULL, NULL, &r, NULL, NULL) == MBX_E_INVAL,
            "measure before configure is refused");

    mbx_timer_info ti;
    double worst;
    require(mbx_engine_configure(e, MBX_TIMER_CLOCK, &ti, &worst) == MBX_OK, "configure");
    require(ti.resolution > 0 && ti.resolution < 1e-3, "timer resolution plausible");
    require(ti.overhead >= 0 && worst >= ti.overhead, "overhead measured");

    bad.nmin = 200; /* > nmax */
    require(mbx_engine_measure(e, &bad, NULL, NULL, &r, NULL, NULL) == MBX_E_INVAL,
            "nmin > nmax refused");
    bad.nmin = 16;
    bad.procs = mbx_engine_size(e) + 1;
    require(mbx_engine_measure(e, &bad, NULL, NULL, &r, NULL, NULL) == MBX_E_INVAL,
            "too many procs refused");

    mbx_stop_rule se = {MBX_STOP_STDERR, 0.05, 0}, cv = {MBX_STOP_CV, 0.5, 0};
    mbx_stop_rule fixed = {MBX_STOP_FIXED, 0, 37};
    measure(e, "pingpong.send_recv", 1, se, 16, 300);
    measure(e, "pingpong.isend_recv", 4096, cv, 8, 200);
    measure(e, "coll.barrier", 0, fixed, 1, 1000);
    measure(e, "coll.allreduce", 1024, se, 16, 200);
    measure(e, "coll.alltoall", 64, se, 16, 100);

    /* A cancelled point leaves the loop usable. */
    int bcast = -1;
    (void)mbx_bench_find("coll.bcast", &bcast);
    mbx_point_spec sp = {.bench_id = bcast,
                         .bytes = 64,
                         .procs = mbx_engine_size(e),
                         .stop = se,
                         .nmin = 16,
                         .nmax = 100};
    require(mbx_engine_measure(e, &sp, abort_at_once, NULL, &r, NULL, NULL) == MBX_E_ABORTED,
            "progress callback cancels");
    measure(e, "coll.bcast", 64, se, 16, 100);
    measure_accurate(e, "coll.bcast_accurate", "coll.bcast");
    measure_accurate(e, "coll.scatter_accurate", "coll.scatter");
    measure(e, "coll.scatter", 64, se, 16, 100); /* the loop goes on after a cancel */

    /* Sub-communicators of the first P ranks (the explorer's process
     * counts): the other ranks stand by, and come back for the next point. */
    int size = mbx_engine_size(e);
    measure_on(e, "coll.barrier", 0, 1, se, 8, 100);
    if (size >= 3) {
        measure_on(e, "coll.allreduce", 64, 2, se, 16, 100);
        measure_on(e, "pingpong.send_recv", 8, size - 1, se, 16, 200);
    }
    measure(e, "coll.allgather", 32, se, 16, 100);

    /* The point's parameters, non-default, on every rank; a bad one refused. */
    params_round_trip(e, "coll.bcast", size - 1, 0, 0, 128);
    params_round_trip(e, "pingpong.send_recv", 0, size > 2 ? 1 : 0, 0, 4032);
    params_round_trip(e, "rma.put", 0, 0, MBX_RMA_FENCE, 64);
    params_round_trip(e, "rma.get", 0, 0, MBX_RMA_PSCW, 0);
    params_refused(e);
    measure(e, "coll.barrier", 0, se, 8, 100); /* the loop goes on */

    require(mbx_engine_configure(e, MBX_TIMER_WTIME, &ti, &worst) == MBX_OK, "wtime timer");
    measure(e, "pingpong.ssend_recv", 8, se, 16, 200);

    /* The thread binding records (THREADS): before any threaded point none;
     * threads.mutex (2 threads by default) binds a team on rank 0 only. */
    const mbx_thread_bind *tb = NULL;
    require(mbx_engine_thread_binding(e, &tb) == MBX_OK && tb, "thread binding gather");
    for (int q = 0; q < size; q++)
        require(tb[q].points == 0 && tb[q].last[0] == '\0', "no threaded point yet");
    measure_on(e, "threads.mutex", 0, 1, se, 8, 100);
    require(mbx_engine_thread_binding(e, &tb) == MBX_OK, "thread binding gather again");
    require(tb[0].points == 1 && strncmp(tb[0].last, "2 threads:", 10) == 0,
            "rank 0 reports its team's binding");
    for (int q = 1; q < size; q++)
        require(tb[q].points == 0, "the other ranks ran no team");

    mbx_kvlist env = {0};
    require(mbx_engine_environment(e, &env) == MBX_OK, "environment");
    require(mbx_kv_get(&env, "timer") && strcmp(mbx_kv_get(&env, "timer"), "wtime") == 0,
            "environment names the timer");
    mbx_kv_free(&env);
    require(mbx_engine_quit(e, QUIT_CODE) == MBX_OK, "quit");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    mbx_engine *e;
    require(mbx_engine_create(MPI_COMM_WORLD, &e) == MBX_OK, "create");
    if (mbx_engine_rank(e) == 0) {
        root(e);
    } else {
        int code = -1;
        require(mbx_engine_serve(e, &code) == MBX_OK, "serve");
        require(code == QUIT_CODE, "quit code reaches every rank");
    }
    mbx_engine_destroy(e);
    MPI_Barrier(MPI_COMM_WORLD); /* see tui/cmd/job.c: MPICH 4.0.2 + UCX/TCP finalize */
    MPI_Finalize();
    return 0;
}
