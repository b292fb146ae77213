/* The command broadcast loop: rank 0 submits, every rank dispatches. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_internal.h"

/* Waiting ranks poll without sleeping for a short window (a command usually
 * follows the last one within microseconds while a plan runs), then sleep
 * with a doubling back-off up to a cap, so an idle job uses almost no CPU. */
#define SPIN_IDLE_S 0.002
#define SPIN_POINT_S 0.050
#define SLEEP_MIN_NS 50000L
#define SLEEP_MAX_NS 4000000L
#define SLEEP_QUIET_MAX_NS 1000000L /* a bystander of a batch: back within 1 ms */

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int mbx_engine_create(MPI_Comm comm, mbx_engine **out)
{
    if (!out)
        return MBX_E_INVAL;
    mbx_engine *e = calloc(1, sizeof *e);
    if (!e)
        return MBX_E_NOMEM;
    if (MPI_Comm_dup(comm, &e->cmd) != MPI_SUCCESS) {
        free(e);
        return MBX_E_MPI;
    }
    MPI_Comm_set_errhandler(e->cmd, MPI_ERRORS_RETURN);
    MPI_Comm_rank(e->cmd, &e->rank);
    MPI_Comm_size(e->cmd, &e->size);
    if (MPI_Comm_split_type(e->cmd, MPI_COMM_TYPE_SHARED, e->rank, MPI_INFO_NULL, &e->node) !=
        MPI_SUCCESS) {
        MPI_Comm_free(&e->cmd);
        free(e);
        return MBX_E_MPI;
    }
    e->subcomm = calloc((size_t)e->size + 1, sizeof *e->subcomm);
    if (!e->subcomm) {
        mbx_engine_destroy(e);
        return MBX_E_NOMEM;
    }
    for (int p = 0; p <= e->size; p++)
        e->subcomm[p] = MPI_COMM_NULL;
    e->timer.kind = MBX_TIMER_CLOCK;
    e->stop_rank = -1;
    e->warm.calls = MBX_WARMUP_CALLS;
    e->buf_off_lo = e->buf_off_hi = -1;
    e->pass_comm = MPI_COMM_NULL;
    e->dup_mode = MBX_COMM_DUP_BUDGET;
    e->cache_budget = UINT64_MAX;
    *out = e;
    return MBX_OK;
}

void mbx_engine_destroy(mbx_engine *e)
{
    if (!e)
        return;
    if (e->in_point)
        (void)mbx_point_end(e);
    if (e->subcomm)
        for (int p = 0; p <= e->size; p++)
            /* MPI_COMM_SELF marks "made, not a member" (measure_point.c). */
            if (e->subcomm[p] != MPI_COMM_NULL && e->subcomm[p] != MPI_COMM_SELF)
                MPI_Comm_free(&e->subcomm[p]);
    free(e->subcomm);
    mbx_bufpool_free(e);
    mbx_pairs_free(e);
    if (e->node != MPI_COMM_NULL)
        MPI_Comm_free(&e->node);
    if (e->cmd != MPI_COMM_NULL)
        MPI_Comm_free(&e->cmd);
    mbx_method_free(e);
    free(e->local);
    free(e->reduced);
    free(e->obs);
    free(e->scan);
    free(e->scratch);
    free(e->warm_buf);
    free(e->job.rank);
    free(e->thr);
    free(e);
}

int mbx_engine_rank(const mbx_engine *e)
{
    return e->rank;
}

int mbx_engine_size(const mbx_engine *e)
{
    return e->size;
}

const char *mbx_engine_why(const mbx_engine *e)
{
    return e ? e->why : "";
}

/* Test req until done: poll for `spin` seconds, then sleep between tests
 * from SLEEP_MIN_NS doubling up to max_ns. */
static int wait_backoff(mbx_engine *e, MPI_Request *req, double spin, long max_ns)
{
    double start = spin > 0 ? wall_now() : 0.0;
    long pause = 0;
    for (;;) {
        int done = 0;
        int mrc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (mrc != MPI_SUCCESS)
            return MBX_MPI_FAIL(e, mrc, "MPI_Test");
        if (done)
            return MBX_OK;
        if (pause == 0 && spin > 0 && wall_now() - start < spin)
            continue;
        pause = pause ? pause * 2 : SLEEP_MIN_NS;
        if (pause > max_ns)
            pause = max_ns;
        struct timespec ts = {0, pause};
        nanosleep(&ts, NULL);
    }
}

int mbx_engine_wait(mbx_engine *e, MPI_Request *req, int quiet)
{
    if (quiet)
        return wait_backoff(e, req, 0.0, SLEEP_QUIET_MAX_NS);
    int mrc = MPI_Wait(req, MPI_STATUS_IGNORE);
    return mrc == MPI_SUCCESS ? MBX_OK : MBX_MPI_FAIL(e, mrc, "MPI_Wait");
}

static int wait_command(mbx_engine *e, unsigned char *buf)
{
    MPI_Request req;
    int mrc = MPI_Ibcast(buf, MBX_CMD_WIRE_SIZE, MPI_BYTE, 0, e->cmd, &req);
    if (mrc != MPI_SUCCESS)
        return MBX_MPI_FAIL(e, mrc, "MPI_Ibcast");
    return wait_backoff(e, &req, e->in_point ? SPIN_POINT_S : SPIN_IDLE_S, SLEEP_MAX_NS);
}

int mbx_engine_serve(mbx_engine *e, int *exit_code)
{
    if (!e || e->rank == 0)
        return MBX_E_INVAL;
    unsigned char buf[MBX_CMD_WIRE_SIZE];
    while (!e->quit) {
        int rc = wait_command(e, buf);
        if (rc < 0)
            return rc;
        mbx_cmd cmd;
        if (mbx_cmd_decode(buf, &cmd) < 0 || cmd.seq != e->seq + 1)
            return MBX_E_PROTO;
        e->seq = cmd.seq;
        void *payload = NULL;
        if (cmd.payload_len > 0) {
            payload = malloc(cmd.payload_len);
            if (!payload)
                return MBX_E_NOMEM;
            int mrc = MPI_Bcast(payload, (int)cmd.payload_len, MPI_BYTE, 0, e->cmd);
            if (mrc != MPI_SUCCESS) {
                free(payload);
                return MBX_MPI_FAIL(e, mrc, "MPI_Bcast");
            }
        }
        rc = mbx_engine_dispatch(e, &cmd, payload);
        free(payload);
        /* A failed point is reported to rank 0 through the batch reduction;
         * only a broken command stream ends serving. */
        if (rc == MBX_E_PROTO)
            return rc;
    }
    if (exit_code)
        *exit_code = e->exit_code;
    return MBX_OK;
}

int mbx_engine_submit(mbx_engine *e, mbx_cmd *cmd, void *payload)
{
    if (e->rank != 0)
        return MBX_E_INVAL;
    unsigned char buf[MBX_CMD_WIRE_SIZE];
    cmd->version = MBX_CMD_VERSION;
    cmd->seq = e->seq + 1;
    int rc = mbx_cmd_encode(cmd, buf);
    if (rc < 0)
        return rc;
    e->seq = cmd->seq;
    MPI_Request req;
    int mrc = MPI_Ibcast(buf, MBX_CMD_WIRE_SIZE, MPI_BYTE, 0, e->cmd, &req);
    if (mrc != MPI_SUCCESS)
        return MBX_MPI_FAIL(e, mrc, "MPI_Ibcast");
    if ((mrc = MPI_Wait(&req, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
        return MBX_MPI_FAIL(e, mrc, "MPI_Wait");
    if (cmd->payload_len > 0 &&
        (mrc = MPI_Bcast(payload, (int)cmd->payload_len, MPI_BYTE, 0, e->cmd)) != MPI_SUCCESS)
        return MBX_MPI_FAIL(e, mrc, "MPI_Bcast");
    return mbx_engine_dispatch(e, cmd, payload);
}

static int configure_exec(mbx_engine *e, const mbx_cmd *cmd)
{
    mbx_timer_kind kind = (mbx_timer_kind)cmd->iarg[0];
    int rc = mbx_timer_calibrate(kind, &e->timer);
    double mine = rc < 0 ? -1.0 : e->timer.overhead, worst = 0.0;
    int mrc = MPI_Reduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, e->cmd);
    if (mrc != MPI_SUCCESS)
        return MBX_MPI_FAIL(e, mrc, "MPI_Reduce");
    int bad = rc < 0, anybad = 0;
    if ((mrc = MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, e->cmd)) != MPI_SUCCESS)
        return MBX_MPI_FAIL(e, mrc, "MPI_Allreduce");
    if (anybad)
        return MBX_E_INVAL;
    e->max_overhead = worst;
    e->configured = 1;
    return MBX_OK;
}

int mbx_engine_dispatch(mbx_engine *e, const mbx_cmd *cmd, void *payload)
{
    (void)payload;
    switch ((mbx_opcode)cmd->opcode) {
    case MBX_OP_NOP: return MBX_OK;
    case MBX_OP_DESCRIBE: return mbx_describe_exec(e);
    case MBX_OP_CONFIGURE: return configure_exec(e, cmd);
    case MBX_OP_POINT_BEGIN: return mbx_point_begin(e, cmd, payload);
    case MBX_OP_BATCH: return mbx_point_batch(e, cmd);
    case MBX_OP_POINT_END: return mbx_point_end(e);
    case MBX_OP_VALIDATE: return mbx_point_validate(e);
    case MBX_OP_PAIR_SCAN: return mbx_pair_scan_exec(e, cmd);
    case MBX_OP_BEFFIO_PATTERN: return mbx_beffio_exec(e, cmd, payload);
    case MBX_OP_BEFF_PATTERN: return mbx_beff_exec(e, cmd, payload);
    case MBX_OP_METHOD: return mbx_method_exec(e, cmd);
    case MBX_OP_CLOCK_SYNC: return mbx_clock_sync_exec(e);
    case MBX_OP_PROBE: return mbx_probe_exec(e, cmd);
    case MBX_OP_THREADS: return mbx_threads_exec(e);
    case MBX_OP_PREFAULT: return mbx_prefault_exec(e, cmd);
    case MBX_OP_PAIRS: return mbx_pairs_exec(e, cmd, payload);
    case MBX_OP_QUIT:
        if (e->in_point)
            (void)mbx_point_end(e);
        e->exit_code = (int)cmd->iarg[0];
        e->quit = 1;
        return MBX_OK;
    case MBX_OP_COUNT_: break;
    }
    return MBX_E_PROTO;
}

void mbx_engine_watch_stop(mbx_engine *e, volatile sig_atomic_t *flag)
{
    if (e)
        e->stop = flag;
}

/* A carried stop: signal * STOP_RANKS + rank; 0 for none. */
#define STOP_RANKS 16777216.0

double mbx_engine_stop_carry(const mbx_engine *e)
{
    int sig = e->stop ? (int)*e->stop : 0;
    return sig > 0 ? (double)sig * STOP_RANKS + e->rank : 0.0;
}

void mbx_engine_stop_note(mbx_engine *e, double carried)
{
    if (!(carried > 0.0) || !e->stop || *e->stop)
        return;
    e->stop_rank = (int)fmod(carried, STOP_RANKS);
    *e->stop = (sig_atomic_t)(carried / STOP_RANKS);
}

int mbx_engine_stop_rank(const mbx_engine *e)
{
    return e ? e->stop_rank : -1;
}

int mbx_engine_quit(mbx_engine *e, int exit_code)
{
    mbx_cmd c = {.opcode = MBX_OP_QUIT};
    c.iarg[0] = exit_code;
    return mbx_engine_submit(e, &c, NULL);
}

int mbx_engine_nop(mbx_engine *e)
{
    mbx_cmd c = {.opcode = MBX_OP_NOP};
    return mbx_engine_submit(e, &c, NULL);
}

int mbx_engine_configure(mbx_engine *e, mbx_timer_kind kind, mbx_timer_info *out,
                         double *max_overhead)
{
    if (kind < 0 || kind >= MBX_TIMER_COUNT_)
        return MBX_E_INVAL;
    mbx_cmd c = {.opcode = MBX_OP_CONFIGURE};
    c.iarg[0] = kind;
    int rc = mbx_engine_submit(e, &c, NULL);
    if (rc < 0)
        return rc;
    if (out)
        *out = e->timer;
    if (max_overhead)
        *max_overhead = e->max_overhead;
    return MBX_OK;
}
