/* --validate for the collectives: fill the inputs with a pattern of rank and
 * position, run the operation once (untimed, after the timed loop), and
 * compare each rank's output with what the standard says it must receive.
 *
 * Byte operations send pat(src, dst, i): the sending rank, the receiving
 * rank (or `procs` when one block goes to everyone) and the position, so a
 * misplaced block, a swapped rank or a lost byte all show. Reductions sum
 * small integers (1..17) in MPI_FLOAT: every partial sum is an integer well
 * below 2^24, exact in any reduction order, so results are compared exactly,
 * not within a tolerance. Before the call the output region is filled with
 * the complement of what must arrive, so stale data never passes.
 *
 * Expected values are computed per position, never stored: the check
 * allocates nothing, so a rank cannot leave the collective for want of
 * memory while the others wait in it. */
#include <time.h>

#include "bench_coll.h"

#define ORDER_TAG 19
#define ORDER_DELAY_S 0.002

static unsigned char pat(int src, int dst, size_t i)
{
    return (unsigned char)((unsigned)src * 37u + (unsigned)dst * 101u + (unsigned)i * 7u +
                           (unsigned)(i >> 8) * 13u + 1u);
}

static float val(int rank, size_t i)
{
    return (float)(1 + rank % 7 + (int)(i % 11));
}

/* Sum of val(r, i) over ranks lo <= r < hi. */
static float sum_val(int lo, int hi, size_t i)
{
    float s = 0.0f;
    for (int r = lo; r < hi; r++)
        s += val(r, i);
    return s;
}

enum shape {
    BCAST,
    GATHER,
    SCATTER,
    ALLGATHER,
    ALLTOALL,
    REDUCE,
    ALLREDUCE,
    RSCATTER,
    SCAN,
    EXSCAN
};

static enum shape shape_of(enum mbx_coll_op op)
{
    switch (op) {
    case MBX_COLL_BCAST:
    case MBX_COLL_IBCAST: return BCAST;
    case MBX_COLL_GATHER:
    case MBX_COLL_GATHERV:
    case MBX_COLL_IGATHER:
    case MBX_COLL_IGATHERV: return GATHER;
    case MBX_COLL_SCATTER:
    case MBX_COLL_SCATTERV:
    case MBX_COLL_ISCATTER:
    case MBX_COLL_ISCATTERV: return SCATTER;
    case MBX_COLL_ALLGATHER:
    case MBX_COLL_ALLGATHERV:
    case MBX_COLL_IALLGATHER:
    case MBX_COLL_IALLGATHERV: return ALLGATHER;
    case MBX_COLL_ALLTOALL:
    case MBX_COLL_ALLTOALLV:
    case MBX_COLL_IALLTOALL:
    case MBX_COLL_IALLTOALLV: return ALLTOALL;
    case MBX_COLL_REDUCE:
    case MBX_COLL_IREDUCE: return REDUCE;
    case MBX_COLL_REDUCE_SCATTER:
    case MBX_COLL_REDUCE_SCATTER_BLOCK:
    case MBX_COLL_IREDUCE_SCATTER:
    case MBX_COLL_IREDUCE_SCATTER_BLOCK: return RSCATTER;
    case MBX_COLL_SCAN:
    case MBX_COLL_ISCAN: return SCAN;
    case MBX_COLL_EXSCAN:
    case MBX_COLL_IEXSCAN: return EXSCAN;
    default: return ALLREDUCE; /* allreduce; barrier and communicators never get here */
    }
}

static int is_float(enum shape s)
{
    return s >= REDUCE;
}

/* Elements this rank must verify after the call (0: its output is not
 * defined by the standard, e.g. non-roots of gather and reduce, rank 0 of
 * exscan). Floats for reductions, bytes otherwise. */
static size_t out_len(const mbx_bench_ctx *c, enum shape s)
{
    size_t n = (size_t)c->count, procs = (size_t)c->size;
    int root = c->rank == c->root;
    switch (s) {
    case GATHER: return root ? procs * n : 0;
    case ALLGATHER:
    case ALLTOALL: return procs * n;
    case REDUCE: return root ? n : 0;
    case EXSCAN: return c->rank > 0 ? n : 0;
    default: return n;
    }
}

static unsigned char want_byte(const mbx_bench_ctx *c, enum shape s, size_t pos)
{
    size_t n = (size_t)c->count, blk = pos / n, i = pos % n;
    switch (s) {
    case BCAST: return pat(c->root, c->size, pos);
    case GATHER: return pat((int)blk, c->root, i);
    case SCATTER: return pat(c->root, c->rank, pos);
    case ALLGATHER: return pat((int)blk, c->size, i);
    default: return pat((int)blk, c->rank, i); /* ALLTOALL */
    }
}

static float want_float(const mbx_bench_ctx *c, enum shape s, size_t j)
{
    switch (s) {
    case RSCATTER: return sum_val(0, c->size, (size_t)c->rank * (size_t)c->count + j);
    case SCAN: return sum_val(0, c->rank + 1, j);
    case EXSCAN: return sum_val(0, c->rank, j);
    default: return sum_val(0, c->size, j); /* REDUCE, ALLREDUCE */
    }
}

/* The send side: what the standard says this rank contributes. */
static void fill_inputs(mbx_bench_ctx *c, enum shape s)
{
    size_t n = (size_t)c->count;
    int procs = c->size;
    unsigned char *sb = c->sbuf;
    float *sf = c->sbuf;
    switch (s) {
    case BCAST:
        if (c->rank == c->root)
            for (size_t i = 0; i < n; i++)
                sb[i] = pat(c->root, procs, i);
        break;
    case GATHER:
        for (size_t i = 0; i < n; i++)
            sb[i] = pat(c->rank, c->root, i);
        break;
    case SCATTER:
        if (c->rank == c->root)
            for (int d = 0; d < procs; d++)
                for (size_t i = 0; i < n; i++)
                    sb[(size_t)d * n + i] = pat(c->root, d, i);
        break;
    case ALLGATHER:
        for (size_t i = 0; i < n; i++)
            sb[i] = pat(c->rank, procs, i);
        break;
    case ALLTOALL:
        for (int d = 0; d < procs; d++)
            for (size_t i = 0; i < n; i++)
                sb[(size_t)d * n + i] = pat(c->rank, d, i);
        break;
    case RSCATTER:
        for (size_t j = 0; j < (size_t)procs * n; j++)
            sf[j] = val(c->rank, j);
        break;
    default:
        for (size_t j = 0; j < n; j++)
            sf[j] = val(c->rank, j);
        break;
    }
}

/* Fill this rank's output region with the complement of what must arrive
 * (with `check` 0), or count the positions that differ (with `check` 1). */
static size_t output_pass(mbx_bench_ctx *c, enum shape s, int check)
{
    size_t len = out_len(c, s), wrong = 0;
    if (is_float(s)) {
        float *o = c->rbuf;
        for (size_t j = 0; j < len; j++) {
            float w = want_float(c, s, j);
            if (!check)
                o[j] = -w - 1.0f;
            else
                wrong += o[j] != w;
        }
        return wrong;
    }
    /* Bcast is in place in sbuf; the root's copy is the input itself. */
    unsigned char *o = s == BCAST ? c->sbuf : c->rbuf;
    if (s == BCAST && c->rank == c->root && !check)
        return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char w = want_byte(c, s, i);
        if (!check)
            o[i] = (unsigned char)~w;
        else
            wrong += o[i] != w;
    }
    return wrong;
}

static int check_data(mbx_bench_ctx *c, const mbx_coll_priv *p, int *bad)
{
    enum shape s = shape_of(p->op);
    fill_inputs(c, s);
    (void)output_pass(c, s, 0);
    int rc = mbx_coll_once(c, p->op);
    if (rc != MPI_SUCCESS)
        return rc;
    if (p->corrupt && out_len(c, s) > 0) {
        unsigned char *o = s == BCAST ? c->sbuf : c->rbuf;
        o[0] ^= 0xff;
    }
    *bad = output_pass(c, s, 1) != 0;
    return MPI_SUCCESS;
}

/* A barrier must not let any rank leave before every rank has entered.
 * Each rank other than the last takes the time, tells the last rank it is
 * about to enter, and enters; the last rank waits for all of those notes,
 * sleeps ORDER_DELAY_S and only then enters. So in real time the last rank
 * enters at least the delay after any other rank's first timer read, and a
 * correct barrier keeps that rank inside for the delay; each measures this
 * on its own clock (no global clock needed). A barrier that returned early
 * fails here; one that waits too long cannot be caught (neither can a
 * broken one that happens to take longer than the delay). 10 % slack
 * absorbs clock-rate differences between hosts. */
static int check_barrier(mbx_bench_ctx *c, const mbx_coll_priv *p, int *bad)
{
    int last = c->size - 1, rc = MPI_SUCCESS;
    double t0 = mbx_timer_now(c->timer);
    if (c->rank == last) {
        char z;
        for (int i = 0; i < last && rc == MPI_SUCCESS; i++)
            rc = MPI_Recv(&z, 0, MPI_BYTE, MPI_ANY_SOURCE, ORDER_TAG, c->comm, MPI_STATUS_IGNORE);
        struct timespec d = {0, (long)(ORDER_DELAY_S * 1e9)};
        while (rc == MPI_SUCCESS && nanosleep(&d, &d) != 0)
            ;
    } else {
        char z = 0;
        rc = MPI_Send(&z, 0, MPI_BYTE, last, ORDER_TAG, c->comm);
    }
    /* The collective is entered even after a failed note, so no rank is
     * left waiting in it; the error is returned afterwards. */
    int crc = mbx_coll_once(c, p->op);
    double held = mbx_timer_now(c->timer) - t0;
    if (rc != MPI_SUCCESS || crc != MPI_SUCCESS)
        return rc != MPI_SUCCESS ? rc : crc;
    *bad = c->rank != last && held < 0.9 * ORDER_DELAY_S;
    return MPI_SUCCESS;
}

/* comm_split: this rank's half has the ranks of its parity, in rank order.
 * comm_dup: the duplicate is congruent (same group and order, new
 * context). */
static int check_comm(mbx_bench_ctx *c, mbx_coll_priv *p, int *bad)
{
    int rc = mbx_coll_once(c, p->op);
    if (rc != MPI_SUCCESS)
        return rc;
    int size = -1, rank = -1, cmp = MPI_UNEQUAL;
    rc = MPI_Comm_size(p->made, &size);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_rank(p->made, &rank);
    if (rc == MPI_SUCCESS && p->op == MBX_COLL_COMM_DUP) {
        rc = MPI_Comm_compare(c->comm, p->made, &cmp);
        *bad = cmp != MPI_CONGRUENT || size != c->size || rank != c->rank;
    } else if (rc == MPI_SUCCESS) {
        int half = c->rank % 2 == 0 ? (c->size + 1) / 2 : c->size / 2;
        *bad = size != half || rank != c->rank / 2;
    }
    int frc = MPI_Comm_free(&p->made);
    return rc != MPI_SUCCESS ? rc : frc;
}

int mbx_coll_check(mbx_bench_ctx *ctx, int *bad)
{
    mbx_coll_priv *p = ctx->priv;
    *bad = 0;
    switch (p->op) {
    case MBX_COLL_BARRIER:
    case MBX_COLL_IBARRIER: return check_barrier(ctx, p, bad);
    case MBX_COLL_COMM_SPLIT:
    case MBX_COLL_COMM_DUP: return check_comm(ctx, p, bad);
    default: return check_data(ctx, p, bad);
    }
}
