/* Measuring one point, every rank's side (docs/algorithms.md, "One point").
 *
 * POINT_BEGIN sets up the communicator and buffers and runs the untimed
 * warm-up (warmup.c); its optional payload is one double, the companion's
 * median (mbx_bench_ctx.companion_median); each BATCH runs k observations and reduces the
 * per-observation maxima and its minor page faults to rank 0 in one
 * MPI_Reduce; VALIDATE runs the benchmark's check once; POINT_END frees.
 * Rank 0 drives these commands from mbx_engine_measure() (measure.c). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_internal.h"
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

static void free_buffers(mbx_engine *e)
{
    free(e->sbuf_base);
    free(e->rbuf_base);
    e->sbuf_base = e->rbuf_base = NULL;
    e->ctx.sbuf = e->ctx.rbuf = NULL;
}

/* Both buffers start `offset` bytes after a page boundary (a multiple of 64,
 * so every benchmark's element types stay aligned); each is a fresh
 * allocation per point. */
static int alloc_buffers(mbx_engine *e, size_t len, size_t offset)
{
    /* Never a zero-size buffer: MPI calls with count 0 still get a pointer. */
    size_t n = len ? len : 64;
    if (n > SIZE_MAX - offset)
        return MBX_E_NOMEM;
    void *s = NULL, *r = NULL;
    if (posix_memalign(&s, 4096, n + offset) != 0)
        s = NULL;
    if (posix_memalign(&r, 4096, n + offset) != 0)
        r = NULL;
    e->sbuf_base = s;
    e->rbuf_base = r;
    if (!s || !r) {
        free_buffers(e);
        return MBX_E_NOMEM;
    }
    e->ctx.sbuf = (char *)s + offset;
    e->ctx.rbuf = (char *)r + offset;
    /* Touch every page now so first-touch faults are not timed. */
    memset(e->ctx.sbuf, 0x5a, n);
    memset(e->ctx.rbuf, 0, n);
    e->ctx.buf_len = n;
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

/* A POINT_BEGIN's arguments, checked. Rank 0 sends the warm-up calls in
 * darg[1] (at least one), the warm-up's time floor in darg[2] and the
 * buffer offset in darg[3]: the same on every rank, so the checks fail
 * everywhere or nowhere. */
typedef struct point_args {
    const mbx_bench *b;
    int procs, pa, pb, root, rma_sync;
    int64_t param, calls;
    double floor_s, off;
} point_args;

static int point_args_read(const mbx_engine *e, const mbx_cmd *cmd, point_args *a)
{
    const mbx_bench *b = mbx_bench_get(cmd->bench_id);
    int procs = cmd->procs;
    if (!b || procs < b->min_procs || procs < 1 || procs > e->size || cmd->bytes > INT32_MAX)
        return MBX_E_INVAL; /* identical on every rank: all return here */
    int64_t param = cmd->iarg[0];
    int pa = (int)cmd->iarg[1], pb = (int)cmd->iarg[2];
    /* iarg[3]: the root in the low 32 bits, the one-sided sync mode above. */
    int root = (int)(int32_t)(uint32_t)(cmd->iarg[3] & 0xffffffff);
    int64_t rs = cmd->iarg[3] >> 32;
    if (rs < 0 || rs >= MBX_RMA_COUNT_)
        return MBX_E_INVAL;
    if (pa == pb) {
        pa = 0;
        pb = procs - 1;
    }
    if (param < 0 || pa < 0 || pb < 0 || pa >= procs || pb >= procs || root < 0 || root >= procs)
        return MBX_E_INVAL;
    double floor_s = cmd->darg[2], off = cmd->darg[3];
    if (!(floor_s >= 0.0 && floor_s <= 1.0) || !(off >= 0.0 && off <= MBX_BUF_OFFSET_MAX) ||
        (uint32_t)off % MBX_BUF_OFFSET_STEP != 0 || off != (double)(uint32_t)off)
        return MBX_E_INVAL;
    *a = (point_args){.b = b,
                      .procs = procs,
                      .pa = pa,
                      .pb = pb,
                      .root = root,
                      .rma_sync = (b->flags & MBX_BENCH_RMA) ? mbx_rma_sync_resolve((int)rs) : 0,
                      .param = param == 0 ? b->param_default : param,
                      .calls =
                          cmd->darg[1] >= 1.0 && cmd->darg[1] <= 1e6 ? (int64_t)cmd->darg[1] : 1,
                      .floor_s = floor_s,
                      .off = off};
    return MBX_OK;
}

/* Member ranks: the benchmark's context on comm, its buffers, its set-up
 * and the warm-up. Returns the error flag: 0, 1 failed, 2 this job cannot
 * run it. */
static int point_setup(mbx_engine *e, const mbx_cmd *cmd, const point_args *a, MPI_Comm comm)
{
    const mbx_bench *b = a->b;
    e->ctx.comm = comm;
    MPI_Comm_rank(comm, &e->ctx.rank);
    MPI_Comm_size(comm, &e->ctx.size);
    e->ctx.bytes = cmd->bytes;
    e->ctx.count = (int)(cmd->bytes / b->unit);
    e->ctx.timer = e->timer.kind;
    e->ctx.tick = e->timer.resolution;
    e->ctx.overhead = e->timer.overhead;
    e->ctx.inner = 1;
    e->ctx.param = a->param;
    e->ctx.pair_a = a->pa;
    e->ctx.pair_b = a->pb;
    e->ctx.root = a->root;
    e->ctx.rma_sync = a->rma_sync;
    if (alloc_buffers(e, (size_t)b->buf_bytes(cmd->bytes, a->procs), (size_t)a->off) < 0)
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
    if (mbx_warmup_point(e, a->calls, a->floor_s, MBX_WARMUP_CAP_S) < 0)
        return 1;
    return 0;
}

/* Every rank: the largest error flag of any rank; rank 0 also keeps the
 * range of the buffers' page offsets its ranks saw (-1 after an error). */
static int point_agree(mbx_engine *e, int err)
{
    /* With the error flag, the buffers' page offsets as this rank sees them
     * (highest and negated lowest; a rank without buffers cannot win). */
    int v[3] = {err, -4096, -4096}, all[3] = {1, -1, 1};
    if (!err && e->member && e->ctx.sbuf && e->ctx.rbuf) {
        int so = page_offset(e->ctx.sbuf), ro = page_offset(e->ctx.rbuf);
        v[1] = so > ro ? so : ro;
        v[2] = -(so < ro ? so : ro);
    }
    int mrc = MPI_Allreduce(v, all, 3, MPI_INT, MPI_MAX, e->cmd);
    if (mrc != MPI_SUCCESS) {
        (void)MBX_MPI_FAIL(e, mrc, "MPI_Allreduce");
        all[0] = 1;
    }
    int anyerr = all[0];
    if (e->rank == 0) {
        e->buf_off_lo = anyerr ? -1 : -all[2];
        e->buf_off_hi = anyerr ? -1 : all[1];
    }
    return anyerr;
}

int mbx_point_begin(mbx_engine *e, const mbx_cmd *cmd, const void *payload)
{
    if (e->in_point)
        (void)mbx_point_end(e);
    point_args a;
    int rc = point_args_read(e, cmd, &a);
    if (rc < 0)
        return rc;
    /* Rank 0 decided that the clocks need a new sync (window sync). */
    if (cmd->darg[0] != 0.0 && e->method.sync == MBX_SYNC_WINDOW) {
        int src = mbx_clock_sync_exec(e);
        if (src < 0)
            return src; /* the same status on every rank */
    }

    memset(&e->ctx, 0, sizeof e->ctx);
    /* The companion's median, when rank 0 sent one (the payload). */
    e->ctx.companion_median = NAN;
    e->ctx.compute = NAN;
    if (payload && cmd->payload_len == sizeof(double))
        memcpy(&e->ctx.companion_median, payload, sizeof(double));
    MPI_Comm comm = MPI_COMM_NULL;
    int err = subcomm_for(e, a.procs, &comm) < 0 ? 1 : 0;
    e->bench = a.b;
    e->member = comm != MPI_COMM_NULL;
    e->in_point = 1;
    if (!err && e->member)
        err = point_setup(e, cmd, &a, comm);
    int anyerr = point_agree(e, err);
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
#else
static void test_hang(mbx_engine *e)
{
    (void)e;
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
    return mbx_engine_wait(e, &req, quiet);
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
    free_buffers(e);
    e->in_point = 0;
    e->member = 0;
    e->bench = NULL;
    return MBX_OK;
}
