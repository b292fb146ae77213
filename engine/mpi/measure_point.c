/* Measuring one point, every rank's side (docs/algorithms.md, "One point").
 *
 * POINT_BEGIN sets up the communicator and buffers and runs the untimed
 * warm-up (warmup.c); its payload is the point's parameters
 * (mbx/pointparams.h), made here from a spec on rank 0; each BATCH runs k observations and reduces
 * the per-observation maxima and its minor page faults to rank 0 in one MPI_Reduce; VALIDATE runs
 * the benchmark's check once; POINT_END frees. Rank 0 drives these commands from
 * mbx_engine_measure() (measure.c). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_internal.h"
#include "mbx/ascii.h"
#include "mbx/rma.h"
#include "measure_int.h"

int mbx_measure_grow(double **a, double **b, size_t *cap, size_t need)
{
    if (need <= *cap)
        return MBX_OK;
    size_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    double *x = realloc(*a, c * sizeof *x);
    if (x)
        *a = x;
    double *y = realloc(*b, c * sizeof *y);
    if (y)
        *b = y;
    if (!x || !y)
        return MBX_E_NOMEM;
    *cap = c;
    return MBX_OK;
}

/* Bytes from the last page boundary to p. */
static int page_offset(const void *p)
{
    return (int)((uintptr_t)p % 4096u);
}

static int subcomm_for(mbx_engine *e, int procs, MPI_Comm *out)
{
    /* subcomm[p] holds the communicator of the first p ranks; ranks outside
     * it keep MPI_COMM_SELF as a "made, not a member" marker. */
    if (e->subcomm[procs] == MPI_COMM_NULL) {
        MPI_Comm c;
        int color = e->rank < procs ? 0 : MPI_UNDEFINED;
        int mrc = MPI_Comm_split(e->cmd, color, e->rank, &c);
        if (mrc != MPI_SUCCESS)
            return MBX_MPI_FAIL(e, mrc, "MPI_Comm_split");
        e->subcomm[procs] = c == MPI_COMM_NULL ? MPI_COMM_SELF : c;
    }
    *out = e->rank < procs ? e->subcomm[procs] : MPI_COMM_NULL;
    return MBX_OK;
}

/* Rank 0: what every rank gets for spec, resolved (no "0: the default" on
 * the wire): the parameter, the ping-pong pair, the one-sided sync mode,
 * the warm-up of a pass of at most nmax observations. The clock resync
 * and the companion are the driver's (measure.c, point_open). */
void mbx_point_params_of(const mbx_engine *e, const mbx_point_spec *spec, const mbx_bench *b,
                         size_t nmax, mbx_point_params *p)
{
    int pa = spec->pair_a, pb = spec->pair_b;
    if (pa == pb) {
        pa = 0;
        pb = spec->procs - 1;
    }
    /* A light warm-up: the point's first pass already faulted the FIFO.
     * It runs as one chunk, and no longer than the pass it warms: at most
     * as many calls as the pass has observations (a pass of one 2.8 s
     * observation spent 8 x 2.8 s warming up before it). */
    int64_t calls = e->warm.calls;
    if (spec->warm_light) {
        int64_t light =
            (int64_t)nmax < MBX_WARMUP_LIGHT_CALLS ? (int64_t)nmax : MBX_WARMUP_LIGHT_CALLS;
        if (calls > light)
            calls = light;
    }
    *p = (mbx_point_params){
        .bench_id = spec->bench_id,
        .procs = spec->procs,
        .bytes = spec->bytes,
        .param = spec->param ? spec->param : b->param_default,
        .pair_a = pa,
        .pair_b = pb,
        .root = spec->root,
        .rma_sync = (b->flags & MBX_BENCH_RMA) ? mbx_rma_sync_resolve(spec->rma_sync) : 0,
        .warm_calls = calls,
        .warm_floor_s = spec->warm_light ? 0.0 : MBX_WARMUP_FLOOR_S,
        .warm_cap_s = MBX_WARMUP_CAP_S,
        .buf_offset = spec->buf_offset,
        .companion = NAN,
    };
}

int mbx_point_params_submit(mbx_engine *e, const mbx_point_params *p)
{
    unsigned char wire[MBX_POINT_PARAMS_WIRE_SIZE];
    int rc = mbx_point_params_encode(p, wire, e->why, sizeof e->why);
    if (rc < 0)
        return rc;
    mbx_cmd c = {.opcode = MBX_OP_POINT_BEGIN, .payload_len = sizeof wire};
    return mbx_engine_submit(e, &c, wire);
}

/* A POINT_BEGIN's parameters (its payload), decoded and checked against the
 * registry and the job: the same bytes on every rank, so the checks fail
 * everywhere or nowhere; the reason in e->why. */
static const mbx_bench *point_params_read(mbx_engine *e, const mbx_cmd *cmd, const void *payload,
                                          mbx_point_params *p, int *rc)
{
    *rc =
        mbx_point_params_decode(payload, payload ? cmd->payload_len : 0, p, e->why, sizeof e->why);
    if (*rc < 0)
        return NULL;
    const mbx_bench *b = mbx_bench_get(p->bench_id);
    if (!b || p->procs < b->min_procs || p->procs > e->size) {
        snprintf(e->why, sizeof e->why, "point parameter procs: %d is outside %d..%d",
                 (int)p->procs, b ? b->min_procs : 1, e->size);
        *rc = MBX_E_INVAL;
        return NULL;
    }
    return b;
}

/* Member ranks: the benchmark's context on comm, its buffers, its set-up
 * and the warm-up. Returns the error flag: 0, 1 failed, 2 this job cannot
 * run it. */
static int point_setup(mbx_engine *e, const mbx_bench *b, const mbx_point_params *a, MPI_Comm comm)
{
    e->ctx.comm = comm;
    MPI_Comm_rank(comm, &e->ctx.rank);
    MPI_Comm_size(comm, &e->ctx.size);
    e->ctx.bytes = a->bytes;
    e->ctx.count = (int)(a->bytes / b->unit);
    e->ctx.timer = e->timer.kind;
    e->ctx.tick = e->timer.resolution;
    e->ctx.overhead = e->timer.overhead;
    e->ctx.inner = 1;
    e->ctx.param = a->param;
    e->ctx.pair_a = a->pair_a;
    e->ctx.pair_b = a->pair_b;
    e->ctx.root = a->root;
    e->ctx.rma_sync = a->rma_sync;
    e->ctx.companion_median = a->companion;
    if (mbx_bufpool_take(e, (size_t)b->buf_bytes(a->bytes, a->procs), a->buf_offset, a->rbuf_offset,
                         a->buf_set) < 0)
        return 1;
    /* A setup that cannot run in this job (e.g. pingpong.mt without
     * MPI_THREAD_MULTIPLE) says so with MPI_ERR_UNSUPPORTED_OPERATION. */
    int src = b->setup ? b->setup(&e->ctx) : MPI_SUCCESS;
    if (src == MPI_ERR_UNSUPPORTED_OPERATION)
        return 2;
    if (src != MPI_SUCCESS) {
        (void)MBX_MPI_FAIL(e, src, "the benchmark's set-up");
        return 1;
    }
    if (mbx_warmup_point(e, a->warm_calls, a->warm_floor_s, a->warm_cap_s) < 0)
        return 1;
    return 0;
}

/* Rank 0: how this measurement placed its buffers (mbx_buffer_place), and
 * the pool's record; sets_min is the fewest sets any member rank kept. */
static void place_record(mbx_engine *e, const mbx_point_params *a, int sets_min)
{
    e->place = (mbx_buffer_place){.set = e->pool_set,
                                  .sets = e->pool_sets,
                                  .send_offset = a->buf_offset,
                                  .recv_offset = a->rbuf_offset,
                                  .sbuf = e->ctx.sbuf,
                                  .rbuf = e->ctx.rbuf,
                                  .comm_dup = a->comm_dup};
    if (e->warm.buf_sets_min == 0 || sets_min < e->warm.buf_sets_min)
        e->warm.buf_sets_min = sets_min;
    e->warm.buf_fewer += sets_min < MBX_BUF_SETS;
    e->warm.comm_dups += (size_t)a->comm_dup;
}

/* Every rank: the largest error flag of any rank; rank 0 also keeps the
 * range of the buffers' page offsets its ranks saw (-1 after an error) and
 * the placement's record. */
static int point_agree(mbx_engine *e, int err, const mbx_point_params *a)
{
    /* With the error flag, the buffers' page offsets as this rank sees them
     * (highest and negated lowest; a rank without buffers cannot win) and
     * its pool's sets, negated. */
    int v[4] = {err, -4096, -4096, -MBX_BUF_SETS}, all[4] = {1, -1, 1, -MBX_BUF_SETS};
    if (!err && e->member && e->ctx.sbuf && e->ctx.rbuf) {
        int so = page_offset(e->ctx.sbuf), ro = page_offset(e->ctx.rbuf);
        v[1] = so > ro ? so : ro;
        v[2] = -(so < ro ? so : ro);
        v[3] = -e->pool_sets;
    }
    int mrc = MPI_Allreduce(v, all, 4, MPI_INT, MPI_MAX, e->cmd);
    if (mrc != MPI_SUCCESS) {
        (void)MBX_MPI_FAIL(e, mrc, "MPI_Allreduce");
        all[0] = 1;
    }
    int anyerr = all[0];
    if (e->rank == 0) {
        e->buf_off_lo = anyerr ? -1 : -all[2];
        e->buf_off_hi = anyerr ? -1 : all[1];
        if (!anyerr)
            place_record(e, a, -all[3]);
    }
    return anyerr;
}

int mbx_point_begin(mbx_engine *e, const mbx_cmd *cmd, const void *payload)
{
    if (e->in_point)
        (void)mbx_point_end(e);
    mbx_point_params a;
    int rc;
    const mbx_bench *b = point_params_read(e, cmd, payload, &a, &rc);
    if (!b)
        return rc;
    /* Rank 0 decided that the clocks need a new sync (window sync). */
    if (a.resync && e->method.sync == MBX_SYNC_WINDOW) {
        int src = mbx_clock_sync_exec(e);
        if (src < 0)
            return src; /* the same status on every rank */
    }

    memset(&e->ctx, 0, sizeof e->ctx);
    e->ctx.companion_median = NAN;
    e->ctx.compute = NAN;
    e->ctx.setup_s = NAN;
    e->ctx.part_seen_s = e->ctx.part_ratio = e->ctx.part_early = NAN;
    MPI_Comm comm = MPI_COMM_NULL;
    int err = subcomm_for(e, a.procs, &comm) < 0 ? 1 : 0;
    e->bench = b;
    e->member = comm != MPI_COMM_NULL;
    e->in_point = 1;
    if (!err && e->member && a.comm_dup) {
        /* A communicator of this measurement's own: no state an MPI
         * library keeps per communicator carries over from the last. */
        double t0 = MPI_Wtime();
        int mrc = MPI_Comm_dup(comm, &e->pass_comm);
        e->dup_s = MPI_Wtime() - t0;
        if (mrc != MPI_SUCCESS) {
            (void)MBX_MPI_FAIL(e, mrc, "MPI_Comm_dup");
            err = 1;
        } else {
            comm = e->pass_comm;
        }
    }
    if (!err && e->member)
        err = point_setup(e, b, &a, comm);
    int anyerr = point_agree(e, err, &a);
    if (anyerr) {
        (void)mbx_point_end(e);
        return anyerr == 2 ? MBX_E_UNSUPPORTED : MBX_E_MPI;
    }
    return MBX_OK;
}

#ifdef MBX_TEST_HOOKS
/* Test hook, in builds with the test suite only: MBX_TEST_HANG=RANK:BYTES
 * or RANK:BYTES:SEC makes rank RANK stop answering (sleep, no MPI call)
 * for SEC seconds (default an hour) at its first batch of a point of BYTES
 * bytes, once per process: the rank the watchdog must catch
 * (docs/hardening.md, "A point that does not return"). */
static void test_hang(mbx_engine *e)
{
    const char *v = getenv("MBX_TEST_HANG");
    int rank = -1;
    unsigned long long bytes = 0;
    unsigned sec = 3600;
    if (!v || e->test_hung || sscanf(v, "%d:%llu:%u", &rank, &bytes, &sec) < 2 || rank != e->rank ||
        bytes != e->ctx.bytes)
        return;
    e->test_hung = 1;
    struct timespec ts = {(time_t)sec, 0};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Test hook: MBX_TEST_STEP=BYTES:FACTOR[:NAME] scales the durations of
 * points of BYTES bytes or more by FACTOR on every timing rank: a step in
 * a real run's curve that refinement must find whatever the machine's own
 * curve holds (mpi.resume.refine). With NAME, only the points of that
 * benchmark, or of that plan section: a planted guideline violation
 * (docs/user-guide.md, "Guidelines: guidelines"). Only rank 0 knows a
 * point's section, so a section's step scales rank 0's reduced
 * observations (*reduced 1), the others each rank's own. */
static double test_step(const mbx_engine *e, int *reduced)
{
    const char *v = getenv("MBX_TEST_STEP");
    char *end = NULL;
    unsigned long long bytes = v ? strtoull(v, &end, 10) : 0;
    *reduced = 0;
    if (!v || end == v || *end != ':' || e->ctx.bytes < bytes)
        return 1.0;
    double f = mbx_strtod(end + 1, &end);
    f = f > 0 ? f : 1.0;
    if (!end || *end != ':' || (e->bench && strcmp(end + 1, e->bench->name) == 0))
        return f;
    *reduced = e->rank == 0 && e->test_label && strcmp(end + 1, e->test_label) == 0;
    return *reduced ? f : 1.0;
}
#else
static void test_hang(mbx_engine *e)
{
    (void)e;
}

static double test_step(const mbx_engine *e, int *reduced)
{
    (void)e;
    *reduced = 0;
    return 1.0;
}
#endif

int mbx_point_batch(mbx_engine *e, const mbx_cmd *cmd)
{
    size_t k = (size_t)cmd->iarg[0];
    if (k == 0 || k > MBX_BATCH_MAX)
        return MBX_E_INVAL;
    /* Barrier sync reduces k durations; window sync k ends, k negated
     * starts (both relative to each observation's window) and k late
     * flags; then one error flag and the minor page faults of the batch. */
    int window = e->method.sync == MBX_SYNC_WINDOW;
    size_t len = window ? 3 * k : k;
    int rc = mbx_measure_grow(&e->local, &e->reduced, &e->cap, len + 3);
    long faults = 0;
    int failed = rc < 0 || !e->in_point;
    if (!failed && e->member && mbx_method_batch(e, k, cmd->darg[0], cmd->darg[1]) < 0)
        failed = 1;
    if (!failed && e->member) {
        test_hang(e);
        e->ctx.timing = 0;
        long f0 = mbx_minflt();
        int mrc = e->bench->run(&e->ctx, k, e->local);
        faults = mbx_minflt() - f0;
        failed = mrc != MPI_SUCCESS;
        if (failed)
            (void)MBX_MPI_FAIL(e, mrc, "the benchmark's run");
        /* Each rank corrects with its own overhead; non-timing ranks must
         * not win the maximum. */
        double per = e->ctx.inner > 1 ? (double)e->ctx.inner : 1.0;
        int reduced;
        double step = test_step(e, &reduced); /* 1 outside the test suite's builds */
        per /= reduced ? 1.0 : step;
        int timed = e->ctx.timing && !failed;
        if (window) {
            /* Back to front: local[i] holds the duration still. */
            double slope = 1.0 + e->clock.slope;
            for (size_t j = k; j-- > 0;) {
                double d = (e->local[j] - e->timer.overhead) / per;
                double w0 = e->ctx.win_start + (double)j * e->ctx.win_len;
                double gs = mbx_clock_global(&e->clock, e->starts[j]) - w0;
                /* A timing rank that never synced is a bug to show, not
                 * hide; a rank that only serves (a bystander) may not sync. */
                int late = e->late[j] || (timed && isnan(gs));
                e->local[2 * k + j] = failed ? 0.0 : (double)late;
                if (isnan(gs))
                    gs = 0.0;
                e->local[k + j] = timed ? -gs : MBX_NOT_TIMED;
                e->local[j] = timed ? gs + d * slope : MBX_NOT_TIMED;
            }
        } else {
            for (size_t i = 0; i < k; i++)
                e->local[i] = timed ? (e->local[i] - e->timer.overhead) / per : MBX_NOT_TIMED;
        }
    } else if (!failed) {
        for (size_t i = 0; i < len; i++)
            e->local[i] = MBX_NOT_TIMED;
        if (window)
            memset(e->local + 2 * k, 0, k * sizeof *e->local);
    }
    if (failed && rc < 0)
        return rc; /* cannot take part in the reduction without buffers */
    e->local[len] = failed ? 1.0 : 0.0;
    e->local[len + 1] = mbx_engine_stop_carry(e); /* reduced with MAX: the largest signal wins */
    e->local[len + 2] = faults > 0 ? (double)faults : 0.0;
    /* Ranks that did not time (the ping-pong responder, bystanders) reach
     * the reduction while others may still be measuring: they must not
     * busy-poll a core the timed ranks need, so they wait sleeping. */
    int quiet = !(e->member && e->ctx.timing);
    MPI_Request req;
    int mrc = MPI_Ireduce(e->local, e->reduced, (int)len + 3, MPI_DOUBLE, MPI_MAX, 0, e->cmd, &req);
    if (mrc != MPI_SUCCESS)
        return MBX_MPI_FAIL(e, mrc, "MPI_Ireduce");
    int wrc = mbx_engine_wait(e, &req, quiet);
    int reduced;
    double step = e->rank == 0 && !window ? test_step(e, &reduced) : 1.0;
    for (size_t i = 0; wrc == MBX_OK && e->rank == 0 && !window && reduced && i < k; i++)
        if (e->reduced[i] != MBX_NOT_TIMED)
            e->reduced[i] *= step;
    return wrc;
}

/* Every rank: run the benchmark's check once, untimed, and bring the worst
 * verdict to rank 0 (e->bad: 1 wrong data, 2 an MPI error, 3 no check). */
int mbx_point_validate(mbx_engine *e)
{
    int mine = 0;
    e->ctx.sync = MBX_SYNC_BARRIER; /* the check runs untimed, unsynchronized */
    e->ctx.flush = NULL;
    if (!e->in_point)
        mine = 2;
    else if (e->member && !e->bench->check)
        mine = 3;
    else if (e->member) {
        int bad = 0;
        int crc = e->bench->check(&e->ctx, &bad);
        if (crc != MPI_SUCCESS) {
            (void)MBX_MPI_FAIL(e, crc, "the benchmark's check");
            mine = 2;
        } else if (bad)
            mine = 1;
    }
    int worst = 0;
    int mrc = MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, e->cmd);
    if (mrc != MPI_SUCCESS)
        return MBX_MPI_FAIL(e, mrc, "MPI_Allreduce");
    e->bad = worst;
    return MBX_OK;
}

int mbx_point_end(mbx_engine *e)
{
    if (e->in_point && e->member && e->bench && e->bench->teardown)
        e->bench->teardown(&e->ctx);
    e->ctx.sbuf = e->ctx.rbuf = NULL; /* the pool keeps the sets */
    if (e->pass_comm != MPI_COMM_NULL)
        MPI_Comm_free(&e->pass_comm);
    e->in_point = 0;
    e->member = 0;
    e->bench = NULL;
    return MBX_OK;
}
