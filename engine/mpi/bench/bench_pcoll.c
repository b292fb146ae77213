/* Persistent collectives (MPI 4.0), coll.NAME_init: the operation of
 * coll.NAME made once per pass with its MPI_*_init call, in set-up and
 * outside the timed region, then started and completed (MPI_Start +
 * MPI_Wait) once per observation, barrier-synchronized as the blocking
 * collectives are; the engine takes the maximum over ranks. The init's own
 * time, the maximum over ranks, is the row's setup_us. Next to coll.NAME
 * it answers whether the library's persistent path is any faster than its
 * blocking one (docs/user-guide.md, "Persistent operations").
 *
 * Sizes, datatypes, roots and the v-variants' counts are coll.NAME's
 * (bench_coll.c), and so is the data check: it fills the very buffers the
 * request is bound to and runs it once more. It runs after every pass,
 * --validate or not (MBX_BENCH_CHECKED): a young persistent path can
 * complete without moving the data. MPICH 4.0.2's MPI_Gather_init,
 * MPI_Scatter_init and MPI_Allgather_init do so here (the root's own
 * block is never copied, and a later send buffer's contents are not
 * sent), and times of such operations must never reach a results file.
 * Built only when the MPI library has the calls
 * (engine/mpi/CMakeLists.txt). */
#include <math.h>

#include "bench_coll.h"
#include "patterns.h"

#define MBX_PATTERN_NEEDS MBX_HAVE_MPI_PCOLL /* MPI_*_init collectives */

#define B MPI_BYTE
#define F MPI_FLOAT
#define I MPI_INFO_NULL

/* The persistent form of blocking operation op into *q. */
static int pcoll_init(mbx_bench_ctx *c, enum mbx_coll_op op, MPI_Request *q)
{
    mbx_coll_priv *p = c->priv;
    void *s = c->sbuf, *r = c->rbuf;
    int n = c->count, root = c->root, *cn = p->counts, *dp = p->displs;
    MPI_Comm w = c->comm;
    switch (op) {
    case MBX_COLL_BARRIER: return MPI_Barrier_init(w, I, q);
    case MBX_COLL_BCAST: return MPI_Bcast_init(s, n, B, root, w, I, q);
    case MBX_COLL_REDUCE: return MPI_Reduce_init(s, r, n, F, MPI_SUM, root, w, I, q);
    case MBX_COLL_ALLREDUCE: return MPI_Allreduce_init(s, r, n, F, MPI_SUM, w, I, q);
    case MBX_COLL_REDUCE_SCATTER: return MPI_Reduce_scatter_init(s, r, cn, F, MPI_SUM, w, I, q);
    case MBX_COLL_REDUCE_SCATTER_BLOCK:
        return MPI_Reduce_scatter_block_init(s, r, n, F, MPI_SUM, w, I, q);
    case MBX_COLL_SCAN: return MPI_Scan_init(s, r, n, F, MPI_SUM, w, I, q);
    case MBX_COLL_EXSCAN: return MPI_Exscan_init(s, r, n, F, MPI_SUM, w, I, q);
    case MBX_COLL_GATHER: return MPI_Gather_init(s, n, B, r, n, B, root, w, I, q);
    case MBX_COLL_GATHERV: return MPI_Gatherv_init(s, n, B, r, cn, dp, B, root, w, I, q);
    case MBX_COLL_SCATTER: return MPI_Scatter_init(s, n, B, r, n, B, root, w, I, q);
    case MBX_COLL_SCATTERV: return MPI_Scatterv_init(s, cn, dp, B, r, n, B, root, w, I, q);
    case MBX_COLL_ALLGATHER: return MPI_Allgather_init(s, n, B, r, n, B, w, I, q);
    case MBX_COLL_ALLGATHERV: return MPI_Allgatherv_init(s, n, B, r, cn, dp, B, w, I, q);
    case MBX_COLL_ALLTOALL: return MPI_Alltoall_init(s, n, B, r, n, B, w, I, q);
    case MBX_COLL_ALLTOALLV: return MPI_Alltoallv_init(s, cn, dp, B, r, cn, dp, B, w, I, q);
    default: return MPI_ERR_OTHER;
    }
}

#undef B
#undef F
#undef I

/* The collectives' set-up, then the request, timed: every rank takes the
 * maximum of the ranks' init times (the engine reads rank 0's). The
 * reduction runs even after a failed init, so no rank is left in it. */
static int pcoll_setup(mbx_bench_ctx *c, enum mbx_coll_op op)
{
    int rc = mbx_coll_setup(c, op, sizeof(mbx_coll_priv));
    if (rc != MPI_SUCCESS)
        return rc;
    mbx_coll_priv *p = c->priv;
    double t0 = mbx_timer_now(c->timer);
    rc = pcoll_init(c, op, &p->preq);
    double mine = mbx_timer_now(c->timer) - t0, most = NAN;
    if (rc != MPI_SUCCESS)
        p->preq = MPI_REQUEST_NULL;
    p->persistent = 1;
    int arc = MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, c->comm);
    c->setup_s = most;
    return rc != MPI_SUCCESS ? rc : arc;
}

static int pcoll_loop(mbx_bench_ctx *c, size_t k, double *t)
{
    mbx_coll_priv *p = c->priv;
    int rc = MPI_SUCCESS;
    c->timing = 1;
    for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
        rc = mbx_obs_sync(c, i, 1);
        double t0 = mbx_timer_now(c->timer);
        if (rc == MPI_SUCCESS)
            rc = MPI_Start(&p->preq);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&p->preq, MPI_STATUS_IGNORE);
        t[i] = mbx_timer_now(c->timer) - t0;
    }
    return rc;
}

#define PCOLL_FNS(x, op, fl, u, bufs, o, call, what)                                               \
    static int setup_##x(mbx_bench_ctx *c)                                                         \
    {                                                                                              \
        return pcoll_setup(c, op);                                                                 \
    }
MBX_PCOLL_LIST(PCOLL_FNS)

#define SZ MBX_BENCH_SIZED
#define RT (MBX_BENCH_SIZED | MBX_BENCH_ROOTED)
#define SUM "MPI_SUM/MPI_FLOAT"

#define PCOLL(x, code, fl, u, bufs, o, call, what)                                                 \
    {.name = "coll." #x "_init",                                                                   \
     .pattern = "coll",                                                                            \
     .summary = call " once per pass (untimed: setup_us), then MPI_Start + MPI_Wait; " what        \
                     "max over ranks",                                                             \
     .timing = "max_over_ranks",                                                                   \
     .min_procs = 1,                                                                               \
     .flags = (fl) | MBX_BENCH_CHECKED,                                                            \
     .unit = u,                                                                                    \
     .divisor = 1.0,                                                                               \
     .buf_bytes = mbx_coll_buf_##bufs,                                                             \
     .setup = setup_##x,                                                                           \
     .run = pcoll_loop,                                                                            \
     .teardown = mbx_coll_teardown,                                                                \
     .check = mbx_coll_check,                                                                      \
     .op = o},

/* The pattern's place in the registry, the picker's and `mpibex list`'s
 * order (engine/mpi/CMakeLists.txt reads this line): right after coll.*. */
#define MBX_PATTERN_ORDER 31
const mbx_bench mbx_bench_pcoll_table[] = {MBX_PCOLL_LIST(PCOLL)};
const size_t mbx_bench_pcoll_count = sizeof mbx_bench_pcoll_table / sizeof mbx_bench_pcoll_table[0];
