/* Neighbourhood collectives (MPI 3.0), neigh.*: MPI_Neighbor_allgather(v)
 * and MPI_Neighbor_alltoall(v,w), blocking and non-blocking (start +
 * MPI_Wait), on a process topology made once per pass in set-up, outside
 * the timed region: the point's param picks it, 1 a distributed-graph
 * ring (sources left and right, destinations right and left), 2 or 3 a
 * periodic Cartesian grid of that many dimensions from MPI_Dims_create
 * (default 2). Each observation is MPI_Barrier on the point's
 * communicator, then the call on the topology's, timed on every rank; the
 * engine takes the maximum over ranks. The size is the block one rank
 * sends to (or receives from) one neighbour; the v- and w-variants use
 * equal counts and contiguous displacements. The row's topology column
 * names the grid ("cart 2x2 periodic", "ring 4"), and setup_us is the
 * topology's creation, the maximum over ranks.
 *
 * The data check (--validate) fills each block a rank sends with a pattern
 * of the sender, the block's place in its destination list and the
 * position, and checks that every receive slot got a block the standard
 * says it must: from the slot's source, one the source addressed to this
 * rank. Where a source appears twice in one list (a periodic dimension of
 * 1 or 2 ranks, a ring of 2) either of its blocks for this rank will do,
 * but each once. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patterns.h"

#define NEIGH_MAX 6 /* neighbours of a rank in a 3-D grid */

enum neigh_op {
    N_ALLGATHER,
    N_ALLGATHERV,
    N_ALLTOALL,
    N_ALLTOALLV,
    N_ALLTOALLW,
    N_IALLGATHER,
    N_IALLGATHERV,
    N_IALLTOALL,
    N_IALLTOALLV,
    N_IALLTOALLW,
};

typedef struct neigh_priv {
    enum neigh_op op;
    MPI_Comm topo; /* the topology's communicator (MPI_COMM_NULL until made) */
    int ndims, dims[3];
    int nin, nout; /* this rank's neighbours, sources and destinations */
    int counts[NEIGH_MAX], displs[NEIGH_MAX];
    MPI_Aint wdispls[NEIGH_MAX];
    MPI_Datatype types[NEIGH_MAX];
    int corrupt; /* MBX_TEST_CORRUPT=1: the check flips a received byte */
} neigh_priv;

static uint64_t neigh_buf(uint64_t bytes, int procs)
{
    (void)procs;
    return bytes * NEIGH_MAX;
}

static int is_gather(enum neigh_op op)
{
    return op == N_ALLGATHER || op == N_ALLGATHERV || op == N_IALLGATHER || op == N_IALLGATHERV;
}

/* Rank r's sources (in) and destinations (out) in p's topology, as the
 * standard orders them: a grid's, per dimension the rank one step down,
 * then one step up, for both; the ring's as it was made. Returns the
 * count (both lists have it). */
static int neighbours_of(const neigh_priv *p, int r, int size, int *in, int *out)
{
    if (p->ndims == 0) {
        int left = (r - 1 + size) % size, right = (r + 1) % size;
        in[0] = left, in[1] = right, out[0] = right, out[1] = left;
        return 2;
    }
    int c[3], n = 0;
    if (MPI_Cart_coords(p->topo, r, p->ndims, c) != MPI_SUCCESS)
        return -1;
    for (int d = 0; d < p->ndims; d++)
        for (int step = -1; step <= 1; step += 2) {
            int cc[3] = {c[0], c[1], c[2]}, nr = -1;
            cc[d] = (c[d] + step + p->dims[d]) % p->dims[d];
            if (MPI_Cart_rank(p->topo, cc, &nr) != MPI_SUCCESS)
                return -1;
            in[n] = out[n] = nr;
            n++;
        }
    return n;
}

/* The topology of param (1 ring, 2 or 3 grid dimensions) on c->comm, its
 * name in c->topology. */
static int make_topology(mbx_bench_ctx *c, neigh_priv *p)
{
    int in[NEIGH_MAX], out[NEIGH_MAX];
    if (c->param == 1) {
        p->ndims = 0;
        (void)neighbours_of(p, c->rank, c->size, in, out);
        snprintf(c->topology, sizeof c->topology, "ring %d", c->size);
        /* Equal weights, not MPI_UNWEIGHTED: the same graph, and Open
         * MPI's MPI_UNWEIGHTED (a pointer to one int) trips GCC's
         * -Wstringop-overread. */
        int w[2] = {1, 1};
        return MPI_Dist_graph_create_adjacent(c->comm, 2, in, w, 2, out, w, MPI_INFO_NULL, 0,
                                              &p->topo);
    }
    p->ndims = c->param == 3 ? 3 : 2;
    int periods[3] = {1, 1, 1};
    p->dims[0] = p->dims[1] = p->dims[2] = 0;
    int rc = MPI_Dims_create(c->size, p->ndims, p->dims);
    if (rc != MPI_SUCCESS)
        return rc;
    if (p->ndims == 2)
        snprintf(c->topology, sizeof c->topology, "cart %dx%d periodic", p->dims[0], p->dims[1]);
    else
        snprintf(c->topology, sizeof c->topology, "cart %dx%dx%d periodic", p->dims[0], p->dims[1],
                 p->dims[2]);
    return MPI_Cart_create(c->comm, p->ndims, p->dims, periods, 0, &p->topo);
}

static void neigh_teardown(mbx_bench_ctx *c)
{
    neigh_priv *p = c->priv;
    if (!p)
        return;
    if (p->topo != MPI_COMM_NULL)
        (void)MPI_Comm_free(&p->topo);
    free(p);
    c->priv = NULL;
}

/* The topology, timed (setup_us: every rank reduces the longest, even
 * after a failure, so no rank is left in the reduction), and the counts
 * and displacements of the v- and w-variants. */
static int neigh_setup(mbx_bench_ctx *c, enum neigh_op op)
{
    neigh_priv *p = calloc(1, sizeof *p);
    if (!p)
        return MPI_ERR_NO_MEM;
    c->priv = p;
    p->op = op;
    p->topo = MPI_COMM_NULL;
    p->corrupt = mbx_test_corrupt();
    double t0 = mbx_timer_now(c->timer);
    int rc = make_topology(c, p);
    double mine = mbx_timer_now(c->timer) - t0, most = NAN;
    int arc = MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, c->comm);
    c->setup_s = most;
    if (rc != MPI_SUCCESS || arc != MPI_SUCCESS)
        return rc != MPI_SUCCESS ? rc : arc;
    int in[NEIGH_MAX], out[NEIGH_MAX];
    int n = neighbours_of(p, c->rank, c->size, in, out);
    if (n < 0)
        return MPI_ERR_TOPOLOGY;
    p->nin = p->nout = n;
    for (int k = 0; k < n; k++) {
        p->counts[k] = c->count;
        p->displs[k] = k * c->count;
        p->wdispls[k] = (MPI_Aint)k * c->count;
        p->types[k] = MPI_BYTE;
    }
    return MPI_SUCCESS;
}

#define B MPI_BYTE

/* One call of the operation on the topology (non-blocking: start + wait). */
static inline int neigh_once(mbx_bench_ctx *c, neigh_priv *p)
{
    void *s = c->sbuf, *r = c->rbuf;
    int n = c->count, *cn = p->counts, *dp = p->displs;
    MPI_Aint *wd = p->wdispls;
    MPI_Datatype *ty = p->types;
    MPI_Comm t = p->topo;
    MPI_Request q = MPI_REQUEST_NULL;
    int rc;
    switch (p->op) {
    case N_ALLGATHER: return MPI_Neighbor_allgather(s, n, B, r, n, B, t);
    case N_ALLGATHERV: return MPI_Neighbor_allgatherv(s, n, B, r, cn, dp, B, t);
    case N_ALLTOALL: return MPI_Neighbor_alltoall(s, n, B, r, n, B, t);
    case N_ALLTOALLV: return MPI_Neighbor_alltoallv(s, cn, dp, B, r, cn, dp, B, t);
    case N_ALLTOALLW: return MPI_Neighbor_alltoallw(s, cn, wd, ty, r, cn, wd, ty, t);
    case N_IALLGATHER: rc = MPI_Ineighbor_allgather(s, n, B, r, n, B, t, &q); break;
    case N_IALLGATHERV: rc = MPI_Ineighbor_allgatherv(s, n, B, r, cn, dp, B, t, &q); break;
    case N_IALLTOALL: rc = MPI_Ineighbor_alltoall(s, n, B, r, n, B, t, &q); break;
    case N_IALLTOALLV: rc = MPI_Ineighbor_alltoallv(s, cn, dp, B, r, cn, dp, B, t, &q); break;
    case N_IALLTOALLW: rc = MPI_Ineighbor_alltoallw(s, cn, wd, ty, r, cn, wd, ty, t, &q); break;
    default: return MPI_ERR_OTHER;
    }
    return rc == MPI_SUCCESS ? MPI_Wait(&q, MPI_STATUS_IGNORE) : rc;
}

#undef B

static int neigh_loop(mbx_bench_ctx *c, size_t k, double *t)
{
    neigh_priv *p = c->priv;
    int rc = MPI_SUCCESS;
    c->timing = 1;
    for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
        rc = mbx_obs_sync(c, i, 1);
        double t0 = mbx_timer_now(c->timer);
        if (rc == MPI_SUCCESS)
            rc = neigh_once(c, p);
        t[i] = mbx_timer_now(c->timer) - t0;
    }
    return rc;
}

/* The byte rank `from` puts at position i of the block it sends to its
 * k-th destination (allgather: k = 0, one block for all). */
static unsigned char pat(int from, int k, size_t i)
{
    return (unsigned char)((unsigned)from * 41u + (unsigned)k * 97u + (unsigned)i * 7u +
                           (unsigned)(i >> 8) * 13u + 5u);
}

static int block_is(const unsigned char *b, size_t n, int from, int k)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != pat(from, k, i))
            return 0;
    return 1;
}

/* Slot j of this rank's receive buffer: the destination index of the
 * block it holds, found among the indexes its source sends to this rank
 * (used[] marks those taken, so a source listed twice must fill both
 * slots with different blocks); -1 when it holds none of them. */
static int slot_block(const mbx_bench_ctx *c, const neigh_priv *p, int j, int src,
                      unsigned char used[NEIGH_MAX])
{
    int sin[NEIGH_MAX], sout[NEIGH_MAX];
    int m = neighbours_of(p, src, c->size, sin, sout);
    const unsigned char *blk = (const unsigned char *)c->rbuf + (size_t)j * (size_t)c->count;
    if (is_gather(p->op))
        return block_is(blk, (size_t)c->count, src, 0) ? 0 : -1;
    for (int k = 0; k < m; k++)
        if (sout[k] == c->rank && !used[k] && block_is(blk, (size_t)c->count, src, k)) {
            used[k] = 1;
            return k;
        }
    return -1;
}

static int neigh_check(mbx_bench_ctx *c, int *bad)
{
    neigh_priv *p = c->priv;
    *bad = 0;
    size_t n = (size_t)c->count;
    unsigned char *s = c->sbuf, *r = c->rbuf;
    int blocks = is_gather(p->op) ? 1 : p->nout;
    for (int k = 0; k < blocks; k++)
        for (size_t i = 0; i < n; i++)
            s[(size_t)k * n + i] = pat(c->rank, k, i);
    memset(r, 0, n * (size_t)p->nin);
    int rc = neigh_once(c, p);
    if (rc != MPI_SUCCESS)
        return rc;
    if (p->corrupt && n > 0)
        r[0] ^= 0xff;
    int in[NEIGH_MAX], out[NEIGH_MAX];
    if (neighbours_of(p, c->rank, c->size, in, out) != p->nin)
        return MPI_ERR_TOPOLOGY;
    /* Per source, the destination indexes its blocks already filled. */
    unsigned char used[NEIGH_MAX][NEIGH_MAX] = {{0}};
    for (int j = 0; j < p->nin && !*bad; j++) {
        int first = j; /* the source's first slot keeps its used[] */
        for (int q = 0; q < j; q++)
            if (in[q] == in[j]) {
                first = q;
                break;
            }
        *bad = slot_block(c, p, j, in[j], used[first]) < 0;
    }
    return MPI_SUCCESS;
}

#define NEIGH_FNS(x, code)                                                                         \
    static int setup_##x(mbx_bench_ctx *c)                                                         \
    {                                                                                              \
        return neigh_setup(c, code);                                                               \
    }
NEIGH_FNS(allgather, N_ALLGATHER)
NEIGH_FNS(allgatherv, N_ALLGATHERV)
NEIGH_FNS(alltoall, N_ALLTOALL)
NEIGH_FNS(alltoallv, N_ALLTOALLV)
NEIGH_FNS(alltoallw, N_ALLTOALLW)
NEIGH_FNS(iallgather, N_IALLGATHER)
NEIGH_FNS(iallgatherv, N_IALLGATHERV)
NEIGH_FNS(ialltoall, N_IALLTOALL)
NEIGH_FNS(ialltoallv, N_IALLTOALLV)
NEIGH_FNS(ialltoallw, N_IALLTOALLW)

#define TOPO                                                                                       \
    " on the param's topology (1 ring, 2 or 3 periodic grid dimensions; default 2), made once "    \
    "per pass (setup_us); max over ranks"
#define NEIGH(x, text)                                                                             \
    {                                                                                              \
        .name = "neigh." #x, .pattern = "neigh", .summary = text TOPO, .timing = "max_over_ranks", \
        .min_procs = 1, .flags = MBX_BENCH_SIZED | MBX_BENCH_PARAM, .unit = 1, .divisor = 1.0,     \
        .buf_bytes = neigh_buf, .setup = setup_##x, .run = neigh_loop, .teardown = neigh_teardown, \
        .check = neigh_check, .param_name = "topology", .param_default = 2, .param_max = 3         \
    }

/* The pattern's place in the registry, the picker's and `mpibex list`'s
 * order (engine/mpi/CMakeLists.txt reads this line): after the fan-out
 * collectives. */
#define MBX_PATTERN_ORDER 45
const mbx_bench mbx_bench_neigh_table[] = {
    NEIGH(allgather, "MPI_Neighbor_allgather, bytes per rank"),
    NEIGH(allgatherv, "MPI_Neighbor_allgatherv, bytes per rank, equal counts"),
    NEIGH(alltoall, "MPI_Neighbor_alltoall, bytes per neighbour"),
    NEIGH(alltoallv, "MPI_Neighbor_alltoallv, bytes per neighbour, equal counts"),
    NEIGH(alltoallw, "MPI_Neighbor_alltoallw, bytes per neighbour, MPI_BYTE, equal counts"),
    NEIGH(iallgather, "MPI_Ineighbor_allgather + MPI_Wait, bytes per rank"),
    NEIGH(iallgatherv, "MPI_Ineighbor_allgatherv + MPI_Wait, bytes per rank, equal counts"),
    NEIGH(ialltoall, "MPI_Ineighbor_alltoall + MPI_Wait, bytes per neighbour"),
    NEIGH(ialltoallv, "MPI_Ineighbor_alltoallv + MPI_Wait, bytes per neighbour, equal counts"),
    NEIGH(ialltoallw,
          "MPI_Ineighbor_alltoallw + MPI_Wait, bytes per neighbour, MPI_BYTE, equal counts"),
};
const size_t mbx_bench_neigh_count = sizeof mbx_bench_neigh_table / sizeof mbx_bench_neigh_table[0];
