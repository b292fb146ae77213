/* Every pair of nodes (docs/algorithms.md, "Every pair of nodes"): one
 * MBX_OP_PAIRS runs one step of the node-pair matrix, a pass of nobs
 * observations after nwarm untimed ones, and gathers every node's times
 * to rank 0.
 *
 * The nodes are the ranks the payload lists (one per host by default,
 * rank 0 first); they get a communicator of their own, kept while the list
 * stays the same. A step is either the shift by k (mpiGraph's schedule:
 * every node i sends to i + k and serves i - k, all at once after a
 * barrier) or one pair (src to dst, the other nodes idle). A node times
 * only what it sends:
 *   latency   src sends `bytes` to dst, dst answers with `bytes`; the
 *             observation is half the round trip, as ping-pong's;
 *   bandwidth src sends a window of W messages of `bytes` from one
 *             buffer, dst answers with 0 bytes once all W arrived; the
 *             observation is the window's time (bw.uni's), not halved.
 * Every message is non-blocking and progressed by one MPI_Test loop, so a
 * node serves its src while it waits for its dst: the shift's sends and
 * answers run at once without ordering, and the one-pair mode runs the
 * same code (its latency is not the blocking ping-pong's to the
 * nanosecond; compare pairs with pairs).
 *
 * Command: bytes; iarg[0] = 1 frees the cached state instead. Payload,
 * little-endian i32: magic, n, mode, metric, k, src, dst, window, nobs,
 * nwarm, then the n node ranks (ascending, the first 0). Rank 0's handler
 * leaves the n x nobs times (seconds, NAN where a node did not time) in
 * the engine's pairs state, read by mbx_engine_pairs_step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "mbx/grow.h"

#define PAIRS_MAGIC 0x53524150u /* "PARS" */
#define PAIRS_HEAD 10           /* i32 fields before the node list */
#define TAG_PING 4201
#define TAG_PONG 4202
#define TAG_DATA 4203
#define TAG_ACK 4204

struct mbx_pairs_state {
    int *nodes; /* the node list the communicator was made for */
    int n;
    MPI_Comm comm;     /* the nodes', or MPI_COMM_NULL (not a node) */
    int me;            /* this rank's node index, -1: not a node */
    char *sbuf, *rbuf; /* cap bytes, and twice that */
    size_t cap;
    MPI_Request *req; /* a window's receives and sends, and 2 more */
    MPI_Status *st;   /* real statuses: GCC flags MPI_STATUSES_IGNORE as a zero-size array */
    size_t nreq, nst;
    double *out; /* nobs + 1 (the error flag) on every node; rank 0: n x that */
    size_t out_cap;
    double *all;
    size_t all_cap;
};

static int32_t get_i32(const unsigned char *p)
{
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    return (int32_t)v;
}

static void put_i32(unsigned char *p, int32_t x)
{
    uint32_t v = (uint32_t)x;
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

void mbx_pairs_free(mbx_engine *e)
{
    struct mbx_pairs_state *s = e->pairs;
    if (!s)
        return;
    if (s->comm != MPI_COMM_NULL)
        MPI_Comm_free(&s->comm);
    free(s->nodes);
    free(s->sbuf);
    free(s->rbuf);
    free(s->req);
    free(s->st);
    free(s->out);
    free(s->all);
    free(s);
    e->pairs = NULL;
}

/* The nodes' communicator for this list, made (collectively over every
 * rank) when the list differs from the last one. */
static int nodes_comm(mbx_engine *e, const int *nodes, int n)
{
    struct mbx_pairs_state *s = e->pairs;
    if (s->nodes && s->n == n && memcmp(s->nodes, nodes, (size_t)n * sizeof *nodes) == 0)
        return MBX_OK;
    if (s->comm != MPI_COMM_NULL)
        MPI_Comm_free(&s->comm);
    free(s->nodes);
    s->nodes = malloc((size_t)n * sizeof *nodes);
    int fail = !s->nodes;
    if (!fail)
        memcpy(s->nodes, nodes, (size_t)n * sizeof *nodes);
    s->n = fail ? 0 : n;
    s->me = -1;
    for (int i = 0; !fail && i < n; i++)
        if (nodes[i] == e->rank)
            s->me = i;
    /* Every rank takes part in the split, even after a failure here. */
    int mrc = MPI_Comm_split(e->cmd, s->me >= 0 ? 0 : MPI_UNDEFINED, s->me, &s->comm);
    if (mrc != MPI_SUCCESS)
        return MBX_MPI_FAIL(e, mrc, "MPI_Comm_split");
    if (fail) {
        free(s->nodes);
        s->nodes = NULL;
        return MBX_E_NOMEM;
    }
    if (s->comm != MPI_COMM_NULL)
        MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN);
    return MBX_OK;
}

static int room(struct mbx_pairs_state *s, size_t bytes, size_t nreq, size_t nout)
{
    if (bytes > s->cap) {
        free(s->sbuf);
        free(s->rbuf);
        s->sbuf = malloc(bytes);
        s->rbuf = malloc(2 * bytes); /* a ping's and a pong's */
        s->cap = s->sbuf && s->rbuf ? bytes : 0;
        if (!s->cap)
            return MBX_E_NOMEM;
        memset(s->sbuf, 0x5a, bytes); /* resident before the first timed send */
        memset(s->rbuf, 0, 2 * bytes);
    }
    if (mbx_grow((void **)&s->req, &s->nreq, nreq, sizeof *s->req) < 0 ||
        mbx_grow((void **)&s->st, &s->nst, nreq, sizeof *s->st) < 0 ||
        mbx_grow((void **)&s->out, &s->out_cap, nout, sizeof *s->out) < 0)
        return MBX_E_NOMEM;
    return MBX_OK;
}

typedef struct pairs_args {
    int n, mode, metric, k, src, dst, window, nobs, nwarm;
    size_t bytes;
} pairs_args;

/* Whom this node sends to and serves in the step (-1: nobody). */
static void roles(const pairs_args *a, int me, int *to, int *from)
{
    *to = *from = -1;
    if (a->mode == MBX_PAIRS_SHIFT) {
        *to = (me + a->k) % a->n;
        *from = (me - a->k + a->n) % a->n;
    } else {
        if (me == a->src)
            *to = a->dst;
        if (me == a->dst)
            *from = a->src;
    }
}

/* One observation of this node: its time in seconds (NAN when it sends
 * nothing), or an MPI error code in *mrc. */
static double observe(mbx_engine *e, const pairs_args *a, int to, int from, int *mrc)
{
    struct mbx_pairs_state *s = e->pairs;
    MPI_Comm c = s->comm;
    int bw = a->metric == MBX_PAIRS_BW, len = (int)a->bytes, w = bw ? a->window : 1;
    MPI_Request *rx = s->req, *tx = s->req + w, *ans = s->req + 2 * w, *back = ans + 1;
    int rc = MPI_SUCCESS, nrx = 0;
    *ans = *back = MPI_REQUEST_NULL;
    /* Receives first: the data this node serves, and the answer it awaits. */
    for (int i = 0; from >= 0 && i < w && rc == MPI_SUCCESS; i++, nrx++)
        rc = MPI_Irecv(s->rbuf, len, MPI_BYTE, from, bw ? TAG_DATA : TAG_PING, c, &rx[i]);
    /* The answer lands after the served message: a ping and a pong in
     * flight at once must not share a buffer (a window's data does, as
     * osu_bw's). */
    if (to >= 0 && rc == MPI_SUCCESS)
        rc = MPI_Irecv(s->rbuf + (bw ? 0 : a->bytes), bw ? 0 : len, MPI_BYTE, to,
                       bw ? TAG_ACK : TAG_PONG, c, ans);
    if (a->mode == MBX_PAIRS_SHIFT && rc == MPI_SUCCESS)
        rc = MPI_Barrier(c);
    double t0 = mbx_timer_now(e->timer.kind), t1 = NAN;
    int ntx = 0;
    for (int i = 0; to >= 0 && i < w && rc == MPI_SUCCESS; i++, ntx++)
        rc = MPI_Isend(s->sbuf, len, MPI_BYTE, to, bw ? TAG_DATA : TAG_PING, c, &tx[i]);
    /* Progress both roles until this node has its answer and has answered. */
    int served = from < 0, answered = to < 0;
    while (rc == MPI_SUCCESS && (!served || !answered)) {
        int flag = 0;
        if (!served) {
            rc = MPI_Testall(nrx, rx, &flag, s->st);
            if (rc == MPI_SUCCESS && flag) {
                served = 1;
                rc = MPI_Isend(s->sbuf, bw ? 0 : len, MPI_BYTE, from, bw ? TAG_ACK : TAG_PONG, c,
                               back);
            }
        }
        if (!answered && rc == MPI_SUCCESS) {
            rc = MPI_Test(ans, &flag, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS && flag) {
                t1 = mbx_timer_now(e->timer.kind);
                answered = 1;
            }
        }
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Waitall(ntx, tx, s->st);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(back, MPI_STATUS_IGNORE);
    *mrc = rc;
    if (to < 0 || rc != MPI_SUCCESS)
        return NAN;
    double d = t1 - t0 - e->timer.overhead;
    return bw ? d : d / 2;
}

static int read_args(const unsigned char *p, const mbx_cmd *cmd, pairs_args *a, const int **nodes,
                     int *nodes_buf)
{
    if (cmd->payload_len < 4 * PAIRS_HEAD || (uint32_t)get_i32(p) != PAIRS_MAGIC)
        return MBX_E_PROTO;
    *a = (pairs_args){.n = get_i32(p + 4),
                      .mode = get_i32(p + 8),
                      .metric = get_i32(p + 12),
                      .k = get_i32(p + 16),
                      .src = get_i32(p + 20),
                      .dst = get_i32(p + 24),
                      .window = get_i32(p + 28),
                      .nobs = get_i32(p + 32),
                      .nwarm = get_i32(p + 36),
                      .bytes = (size_t)cmd->bytes};
    if (a->n < 2 || a->n > MBX_PAIRS_STEP_NODES_MAX ||
        cmd->payload_len != 4u * (PAIRS_HEAD + (uint32_t)a->n) || a->nobs < 1 ||
        a->nobs > MBX_PAIRS_OBS_MAX || a->nwarm < 0 || a->nwarm > MBX_PAIRS_OBS_MAX ||
        cmd->bytes > MBX_PAIRS_BYTES_MAX ||
        (a->metric != MBX_PAIRS_LAT && a->metric != MBX_PAIRS_BW))
        return MBX_E_INVAL;
    if (a->metric == MBX_PAIRS_BW && (a->window < 1 || a->window > MBX_PAIRS_WINDOW_MAX))
        return MBX_E_INVAL;
    if (a->mode == MBX_PAIRS_SHIFT ? a->k < 1 || a->k >= a->n
                                   : a->mode != MBX_PAIRS_ONE || a->src < 0 || a->src >= a->n ||
                                         a->dst < 0 || a->dst >= a->n || a->src == a->dst)
        return MBX_E_INVAL;
    for (int i = 0; i < a->n; i++) {
        nodes_buf[i] = get_i32(p + 4 * (PAIRS_HEAD + i));
        if (nodes_buf[i] < 0 || (i == 0 && nodes_buf[i] != 0) ||
            (i > 0 && nodes_buf[i] <= nodes_buf[i - 1]))
            return MBX_E_INVAL;
    }
    *nodes = nodes_buf;
    return MBX_OK;
}

int mbx_pairs_exec(mbx_engine *e, const mbx_cmd *cmd, const void *payload)
{
    if (cmd->iarg[0] == 1) {
        mbx_pairs_free(e);
        return MBX_OK;
    }
    if (!e->pairs) {
        e->pairs = calloc(1, sizeof *e->pairs);
        if (!e->pairs)
            return MBX_E_NOMEM; /* every rank has the same few bytes to spare, or none */
        e->pairs->comm = MPI_COMM_NULL;
        e->pairs->me = -1;
    }
    pairs_args a;
    const int *nodes = NULL;
    int *nodes_buf = malloc(sizeof *nodes_buf * MBX_PAIRS_STEP_NODES_MAX);
    if (!nodes_buf)
        return MBX_E_NOMEM;
    int rc = read_args(payload, cmd, &a, &nodes, nodes_buf);
    if (rc == MBX_OK)
        rc = nodes_comm(e, nodes, a.n);
    free(nodes_buf);
    if (rc < 0)
        return rc;
    struct mbx_pairs_state *s = e->pairs;
    if (s->me < 0)
        return MBX_OK; /* not a node: nothing to do in this step */
    /* A node that cannot make room still joins the gather, with its flag. */
    size_t w = a.metric == MBX_PAIRS_BW ? (size_t)a.window : 1;
    size_t per = (size_t)a.nobs + 1;
    int fail = room(s, a.bytes ? a.bytes : 1, 2 * w + 2, per) < 0;
    int to, from, mrc = MPI_SUCCESS;
    roles(&a, s->me, &to, &from);
    for (int j = -a.nwarm; !fail && j < a.nobs; j++) {
        double t = observe(e, &a, to, from, &mrc);
        if (mrc != MPI_SUCCESS) {
            (void)mbx_mpi_fail(mrc, "the pairs step's exchange", e->why, sizeof e->why);
            fail = 1;
        } else if (j >= 0)
            s->out[j] = t;
    }
    if (fail)
        for (int j = 0; j < a.nobs; j++)
            s->out[j] = NAN;
    s->out[a.nobs] = fail ? 1.0 : 0.0;
    if (e->rank == 0 &&
        mbx_grow((void **)&s->all, &s->all_cap, per * (size_t)a.n, sizeof *s->all) < 0)
        return MBX_E_NOMEM; /* the others wait in the gather: the job ends as on an MPI error */
    /* Nodes without a part in the step (one-pair mode) wait here asleep. */
    MPI_Request req;
    mrc = MPI_Igather(s->out, (int)per, MPI_DOUBLE, s->all, (int)per, MPI_DOUBLE, 0, s->comm, &req);
    if (mrc != MPI_SUCCESS)
        return MBX_MPI_FAIL(e, mrc, "MPI_Igather");
    rc = mbx_engine_wait(e, &req, to < 0 && from < 0);
    if (rc < 0)
        return rc;
    if (e->rank == 0)
        for (int i = 0; i < a.n; i++)
            if (s->all[(size_t)i * per + (size_t)a.nobs] != 0.0)
                return MBX_E_MPI;
    return fail ? MBX_E_MPI : MBX_OK;
}

int mbx_engine_pairs_step(mbx_engine *e, const int *nodes, int n, const mbx_pairs_step *step,
                          double *t)
{
    if (!e || e->rank != 0 || !nodes || !step || !t || n < 2 || n > MBX_PAIRS_STEP_NODES_MAX ||
        step->nobs < 1 || step->nobs > MBX_PAIRS_OBS_MAX)
        return MBX_E_INVAL;
    size_t len = 4u * (PAIRS_HEAD + (size_t)n);
    unsigned char *p = malloc(len);
    if (!p)
        return MBX_E_NOMEM;
    const int32_t head[PAIRS_HEAD] = {
        (int32_t)PAIRS_MAGIC, n,          step->mode, step->metric, step->k, step->src, step->dst,
        step->window,         step->nobs, step->nwarm};
    for (int i = 0; i < PAIRS_HEAD; i++)
        put_i32(p + 4 * i, head[i]);
    for (int i = 0; i < n; i++)
        put_i32(p + 4 * (PAIRS_HEAD + i), nodes[i]);
    mbx_cmd c = {.opcode = MBX_OP_PAIRS, .bytes = step->bytes, .payload_len = (uint32_t)len};
    int rc = mbx_engine_submit(e, &c, p);
    free(p);
    if (rc < 0)
        return rc;
    size_t per = (size_t)step->nobs + 1;
    for (int i = 0; i < n; i++)
        memcpy(t + (size_t)i * (size_t)step->nobs, e->pairs->all + (size_t)i * per,
               (size_t)step->nobs * sizeof *t);
    return MBX_OK;
}

int mbx_engine_pairs_free(mbx_engine *e)
{
    if (!e || e->rank != 0)
        return MBX_E_INVAL;
    mbx_cmd c = {.opcode = MBX_OP_PAIRS};
    c.iarg[0] = 1;
    return mbx_engine_submit(e, &c, NULL);
}

int mbx_pairs_pick_nodes(const mbx_job_info *job, int per, int *nodes, char *msg, size_t msglen)
{
    if (!job || !nodes)
        return MBX_E_INVAL;
    for (int r = 0; per == MBX_PER_SOCKET && r < job->nranks; r++)
        if (job->rank[r].package < 0) {
            if (msg)
                snprintf(msg, msglen,
                         "--per socket: rank %d on %s is bound to CPUs of several sockets (%s); "
                         "bind each rank within one (mpiexec -bind-to core), or use --per node",
                         r, job->rank[r].host, job->rank[r].binding);
            return MBX_E_INVAL;
        }
    int n = 0;
    for (int r = 0; r < job->nranks; r++) {
        int first = 1;
        for (int q = 0; per != MBX_PER_RANK && q < r; q++)
            if (!strcmp(job->rank[q].host, job->rank[r].host) &&
                (per == MBX_PER_NODE || job->rank[q].package == job->rank[r].package))
                first = 0;
        if (first)
            nodes[n++] = r;
    }
    return n;
}
