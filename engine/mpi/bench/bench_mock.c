/* Mock-ups, mock.*: a collective built from others, the right-hand side of
 * a self-consistent performance guideline (Traff, Gropp and Thakur; the
 * rules are data, samples/guidelines.ini, and `mpibex guidelines` judges
 * them). Each is one observation: MPI_Barrier, the timer, every call of
 * the composition in turn, the timer, on every rank; the maximum over
 * ranks, as the collective it stands in for is timed. The sizes are those
 * of the collective it mocks, so the two compare point by point:
 *
 *   mock.reduce_bcast        MPI_Reduce to the root + MPI_Bcast from it
 *                            (an MPI_Allreduce of bytes)
 *   mock.rsb_allgather       MPI_Reduce_scatter_block + MPI_Allgather in
 *                            place (an MPI_Allreduce); _v forms when the
 *                            elements do not split evenly over the ranks
 *   mock.scatter_allgather   MPI_Scatter from the root + MPI_Allgather in
 *                            place (an MPI_Bcast of bytes); _v forms when
 *                            uneven
 *   mock.gather_bcast        MPI_Gather to rank 0 + MPI_Bcast of the whole
 *                            (an MPI_Allgather of bytes per rank)
 *   mock.exscan_local        MPI_Exscan + this rank's own elements added
 *                            (an MPI_Scan)
 *   mock.allreduce_halves    two MPI_Allreduce, of the first and the second
 *                            half of the elements (one MPI_Allreduce)
 *
 * Reductions are MPI_SUM of MPI_FLOAT, as coll.*. The check (--validate)
 * fills the inputs with small integers and compares each rank's result
 * with the mocked collective's, exactly. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bench_coll.h"
#include "patterns.h"

enum mock_op {
    M_REDUCE_BCAST,
    M_RSB_ALLGATHER,
    M_SCATTER_ALLGATHER,
    M_GATHER_BCAST,
    M_EXSCAN_LOCAL,
    M_HALVES
};

typedef struct mock_priv {
    enum mock_op op;
    int *counts, *displs; /* the even-or-not split of the elements (bytes) over the ranks */
    int even;
    int corrupt; /* MBX_TEST_CORRUPT=1: the check flips a result */
} mock_priv;

#define B MPI_BYTE
#define F MPI_FLOAT

static int mock_once(mbx_bench_ctx *c, mock_priv *p)
{
    void *s = c->sbuf, *r = c->rbuf;
    int n = c->count, root = c->root, rc, me = c->rank;
    MPI_Comm w = c->comm;
    switch (p->op) {
    case M_REDUCE_BCAST:
        rc = MPI_Reduce(s, r, n, F, MPI_SUM, root, w);
        return rc == MPI_SUCCESS ? MPI_Bcast(r, n, F, root, w) : rc;
    case M_RSB_ALLGATHER: {
        float *mine = (float *)r + p->displs[me];
        if (p->even) {
            rc = MPI_Reduce_scatter_block(s, mine, p->counts[0], F, MPI_SUM, w);
            return rc == MPI_SUCCESS ? MPI_Allgather(MPI_IN_PLACE, 0, F, r, p->counts[0], F, w)
                                     : rc;
        }
        rc = MPI_Reduce_scatter(s, mine, p->counts, F, MPI_SUM, w);
        return rc == MPI_SUCCESS ? MPI_Allgatherv(MPI_IN_PLACE, 0, F, r, p->counts, p->displs, F, w)
                                 : rc;
    }
    case M_SCATTER_ALLGATHER: {
        char *mine = (char *)r + p->displs[me];
        if (p->even) {
            rc = MPI_Scatter(s, p->counts[0], B, mine, p->counts[0], B, root, w);
            return rc == MPI_SUCCESS ? MPI_Allgather(MPI_IN_PLACE, 0, B, r, p->counts[0], B, w)
                                     : rc;
        }
        rc = MPI_Scatterv(s, p->counts, p->displs, B, mine, p->counts[me], B, root, w);
        return rc == MPI_SUCCESS ? MPI_Allgatherv(MPI_IN_PLACE, 0, B, r, p->counts, p->displs, B, w)
                                 : rc;
    }
    case M_GATHER_BCAST:
        rc = MPI_Gather(s, n, B, r, n, B, 0, w);
        return rc == MPI_SUCCESS ? MPI_Bcast(r, n * c->size, B, 0, w) : rc;
    case M_EXSCAN_LOCAL: {
        rc = MPI_Exscan(s, r, n, F, MPI_SUM, w);
        const float *x = s;
        float *y = r;
        for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
            y[i] = me == 0 ? x[i] : y[i] + x[i]; /* rank 0's Exscan result is undefined */
        return rc;
    }
    case M_HALVES: {
        int h = n / 2;
        rc = MPI_Allreduce(s, r, h, F, MPI_SUM, w);
        return rc == MPI_SUCCESS
                   ? MPI_Allreduce((float *)s + h, (float *)r + h, n - h, F, MPI_SUM, w)
                   : rc;
    }
    }
    return MPI_ERR_OTHER;
}

#undef B
#undef F

static int mock_loop(mbx_bench_ctx *c, size_t k, double *t)
{
    mock_priv *p = c->priv;
    int rc = MPI_SUCCESS;
    c->timing = 1;
    for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
        rc = mbx_obs_sync(c, i, 1);
        double t0 = mbx_timer_now(c->timer);
        if (rc == MPI_SUCCESS)
            rc = mock_once(c, p);
        t[i] = mbx_timer_now(c->timer) - t0;
    }
    return rc;
}

static void mock_teardown(mbx_bench_ctx *c)
{
    mock_priv *p = c->priv;
    if (!p)
        return;
    free(p->counts);
    free(p->displs);
    free(p);
    c->priv = NULL;
}

static int mock_setup(mbx_bench_ctx *c, enum mock_op op)
{
    mock_priv *p = calloc(1, sizeof *p);
    if (!p)
        return MPI_ERR_NO_MEM;
    c->priv = p;
    p->op = op;
    p->corrupt = mbx_test_corrupt();
    p->counts = malloc(sizeof *p->counts * (size_t)c->size);
    p->displs = malloc(sizeof *p->displs * (size_t)c->size);
    if (!p->counts || !p->displs)
        return MPI_ERR_NO_MEM;
    if ((int64_t)c->count * c->size > INT_MAX)
        return MPI_ERR_COUNT;
    /* The elements (bytes for the scatter) split over the ranks, the
     * remainder one each to the first ranks. */
    int q = c->count / c->size, rest = c->count % c->size, at = 0;
    for (int i = 0; i < c->size; i++) {
        p->counts[i] = q + (i < rest);
        p->displs[i] = at;
        at += p->counts[i];
    }
    p->even = rest == 0;
    return MPI_SUCCESS;
}

/* The check's inputs: small integers, exact in any order of summing. */
static float val(int rank, size_t i)
{
    return (float)(1 + rank % 7 + (int)(i % 11));
}

static unsigned char pat(int rank, size_t i)
{
    return (unsigned char)((unsigned)rank * 37u + (unsigned)i * 7u + (unsigned)(i >> 8) * 13u + 1u);
}

static int mock_check(mbx_bench_ctx *c, int *bad)
{
    mock_priv *p = c->priv;
    *bad = 0;
    size_t n = (size_t)c->count, len;
    int reduce = p->op != M_SCATTER_ALLGATHER && p->op != M_GATHER_BCAST;
    float *fs = c->sbuf, *fr = c->rbuf;
    unsigned char *bs = c->sbuf, *br = c->rbuf;
    if (reduce) {
        for (size_t i = 0; i < n; i++)
            fs[i] = val(c->rank, i), fr[i] = -1.0f;
        len = n;
    } else {
        /* scatter: the root's n bytes; gather: this rank's n bytes */
        for (size_t i = 0; i < n; i++)
            bs[i] = pat(c->rank, i);
        len = p->op == M_GATHER_BCAST ? n * (size_t)c->size : n;
        memset(br, 0, len);
    }
    int rc = mock_once(c, p);
    if (rc != MPI_SUCCESS)
        return rc;
    if (p->corrupt && len > 0)
        br[0] ^= 0xff;
    for (size_t i = 0; i < len && !*bad; i++) {
        if (reduce) {
            int upto = p->op == M_EXSCAN_LOCAL ? c->rank + 1 : c->size;
            float want = 0.0f;
            for (int k = 0; k < upto; k++)
                want += val(k, i);
            *bad = fr[i] != want;
        } else if (p->op == M_SCATTER_ALLGATHER) {
            *bad = br[i] != pat(c->root, i);
        } else {
            *bad = br[i] != pat((int)(i / n), i % n);
        }
    }
    return MPI_SUCCESS;
}

#define MOCK_FNS(x, code)                                                                          \
    static int setup_##x(mbx_bench_ctx *c)                                                         \
    {                                                                                              \
        return mock_setup(c, code);                                                                \
    }
MOCK_FNS(reduce_bcast, M_REDUCE_BCAST)
MOCK_FNS(rsb_allgather, M_RSB_ALLGATHER)
MOCK_FNS(scatter_allgather, M_SCATTER_ALLGATHER)
MOCK_FNS(gather_bcast, M_GATHER_BCAST)
MOCK_FNS(exscan_local, M_EXSCAN_LOCAL)
MOCK_FNS(allreduce_halves, M_HALVES)

#define SZ MBX_BENCH_SIZED
#define RT (MBX_BENCH_SIZED | MBX_BENCH_ROOTED)
#define SUM "MPI_SUM/MPI_FLOAT"
#define MOCK(x, fl, u, bufs, o, text)                                                              \
    {                                                                                              \
        .name = "mock." #x, .pattern = "mock", .summary = text "; max over ranks",                 \
        .timing = "max_over_ranks", .min_procs = 1, .flags = fl, .unit = u, .divisor = 1.0,        \
        .buf_bytes = mbx_coll_buf_##bufs, .setup = setup_##x, .run = mock_loop,                    \
        .teardown = mock_teardown, .check = mock_check, .op = o                                    \
    }

/* The pattern's place in the registry, the picker's and `mpibex list`'s
 * order (engine/mpi/CMakeLists.txt reads this line): after the
 * collectives they mock. */
#define MBX_PATTERN_ORDER 32
const mbx_bench mbx_bench_mock_table[] = {
    MOCK(reduce_bcast, RT, 4, same, SUM,
         "MPI_Reduce to the root + MPI_Bcast from it, MPI_FLOAT MPI_SUM (mocks MPI_Allreduce)"),
    MOCK(rsb_allgather, SZ, 4, same, SUM,
         "MPI_Reduce_scatter_block + MPI_Allgather in place, MPI_FLOAT MPI_SUM, v forms when "
         "uneven (mocks MPI_Allreduce)"),
    MOCK(scatter_allgather, RT, 1, same, NULL,
         "MPI_Scatter of bytes from the root + MPI_Allgather in place, v forms when uneven (mocks "
         "MPI_Bcast)"),
    MOCK(gather_bcast, SZ, 1, times_procs, NULL,
         "MPI_Gather to rank 0 + MPI_Bcast of the whole, bytes per rank (mocks MPI_Allgather)"),
    MOCK(exscan_local, SZ, 4, same, SUM,
         "MPI_Exscan, MPI_FLOAT MPI_SUM, + this rank's elements added (mocks MPI_Scan)"),
    MOCK(allreduce_halves, SZ, 4, same, SUM,
         "two MPI_Allreduce of half the elements each, MPI_FLOAT MPI_SUM (one MPI_Allreduce "
         "split)"),
};
const size_t mbx_bench_mock_count = sizeof mbx_bench_mock_table / sizeof mbx_bench_mock_table[0];
