/* Protocol-aware warm-up (docs/algorithms.md, "One point").
 *
 * The first point of a job above 4 KiB read 5-13 times slow and still
 * settled: the transport's shared-memory receive FIFO (UCX: 64 descriptors
 * of 8 KiB) is page-faulted on first use, one descriptor per round trip, so
 * one warm-up call warmed one descriptor. Two defences: each point starts
 * with enough untimed calls to cycle that FIFO twice at its own size, and
 * before the job's first point every communicating pair is pre-faulted at
 * each protocol regime (eager, one FIFO descriptor, above the rendezvous
 * threshold, the largest size) so the buffers each path uses are resident. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "engine_internal.h"

#define TAG_GO 41
#define TAG_DATA 42
/* Calls per warm-up chunk grow to this: the members agree on the clock
 * after each chunk, so a chunk bounds the overshoot past the time cap. */
#define CHUNK_MAX 64
/* The pre-fault of a size never lasts longer than this per pair. */
#define PREFAULT_CAP_S 0.05
/* Pre-fault buffers stay below this (MPI counts are int). */
#define PREFAULT_MAX_BYTES (1u << 30)

long mbx_minflt(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : 0;
}

int mbx_engine_set_warmup(mbx_engine *e, int64_t calls, uint64_t largest)
{
    if (!e || e->rank != 0 || calls < 0 || calls > 1000000)
        return MBX_E_INVAL;
    e->warm.calls = calls ? calls : MBX_WARMUP_CALLS;
    e->warm_largest = largest;
    /* A later run (the explorer's) with larger messages pre-faults again. */
    if (e->prefaulted && e->size > 1 &&
        (e->warm.nsizes == 0 || largest > e->warm.size[e->warm.nsizes - 1]))
        e->prefaulted = 0;
    return MBX_OK;
}

void mbx_engine_warmup_info(const mbx_engine *e, mbx_warmup_info *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (e)
        *out = e->warm;
}

int mbx_warmup_point(mbx_engine *e, int64_t calls, double floor_s, double cap_s)
{
    int64_t done = 0;
    /* A light warm-up (no time floor) runs its few calls as one chunk: one
     * reduction, not one per doubling, since every pass pays for it. */
    size_t chunk = floor_s > 0 || calls < 1 ? 1 : calls < CHUNK_MAX ? (size_t)calls : CHUNK_MAX;
    double t0 = MPI_Wtime();
    e->warm_done = 0;
    e->warm_capped = 0;
    e->ctx.timing = 0;
    for (;;) {
        if (e->warm_cap < chunk) {
            double *b = realloc(e->warm_buf, CHUNK_MAX * sizeof *b);
            if (!b)
                return MBX_E_NOMEM; /* only before the first chunk: none ran yet */
            e->warm_buf = b;
            e->warm_cap = CHUNK_MAX;
        }
        double v[2] = {0.0, 0.0};
        int brc = e->bench->run(&e->ctx, chunk, e->warm_buf);
        if (brc != MPI_SUCCESS)
            v[1] = mbx_mpi_fail(brc, "the benchmark's warm-up run", e->why, sizeof e->why) < 0;
        done += (int64_t)chunk;
        v[0] = MPI_Wtime() - t0;
        /* The slowest member's clock decides for all, so every member runs
         * the same calls and none waits in a call the others never make. */
        int mrc = MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, e->ctx.comm);
        if (mrc != MPI_SUCCESS)
            return MBX_MPI_FAIL(e, mrc, "MPI_Allreduce");
        if (v[1] != 0.0)
            return MBX_E_MPI;
        if (done >= calls && v[0] >= floor_s)
            break;
        if (v[0] >= cap_s) {
            e->warm_capped = 1;
            break;
        }
        chunk = chunk * 2 > CHUNK_MAX ? CHUNK_MAX : chunk * 2;
        if (done < calls && (int64_t)chunk > calls - done)
            chunk = (size_t)(calls - done);
    }
    e->warm_done = done;
    return MBX_OK;
}

/* The sizes to pre-fault up to `largest`, ascending; returns how many. */
static int regimes(uint64_t largest, uint64_t *size)
{
    static const uint64_t ladder[] = {64, 8192, 65536, 1u << 20};
    int n = 0;
    for (size_t i = 0; i < sizeof ladder / sizeof *ladder; i++)
        if (ladder[i] < largest)
            size[n++] = ladder[i];
    size[n++] = largest;
    return n;
}

/* The initiator of one pair at one size: round trips in chunks, each
 * announced to the responder (0 ends the size). Returns the round trips. */
static int64_t lead(mbx_engine *e, int peer, char *sb, char *rb, int len, int64_t rounds, int *fail)
{
    int64_t done = 0;
    int chunk = 1;
    double t0 = MPI_Wtime();
    for (;;) {
        int go = 0;
        if (!*fail && done < rounds && MPI_Wtime() - t0 < PREFAULT_CAP_S)
            go = rounds - done < chunk ? (int)(rounds - done) : chunk;
        if (MPI_Send(&go, 1, MPI_INT, peer, TAG_GO, e->cmd) != MPI_SUCCESS) {
            *fail = 1;
            return done;
        }
        if (!go)
            return done;
        for (int i = 0; i < go && !*fail; i++)
            if (MPI_Send(sb, len, MPI_BYTE, peer, TAG_DATA, e->cmd) != MPI_SUCCESS ||
                MPI_Recv(rb, len, MPI_BYTE, peer, TAG_DATA, e->cmd, MPI_STATUS_IGNORE) !=
                    MPI_SUCCESS)
                *fail = 1;
        done += go;
        chunk = chunk * 2 > CHUNK_MAX ? CHUNK_MAX : chunk * 2;
    }
}

static void follow(mbx_engine *e, int peer, char *sb, char *rb, int len, int *fail)
{
    for (;;) {
        int go = 0;
        if (MPI_Recv(&go, 1, MPI_INT, peer, TAG_GO, e->cmd, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            *fail = 1;
            return;
        }
        if (go <= 0)
            return;
        for (int i = 0; i < go; i++)
            if (MPI_Recv(rb, len, MPI_BYTE, peer, TAG_DATA, e->cmd, MPI_STATUS_IGNORE) !=
                    MPI_SUCCESS ||
                MPI_Send(sb, len, MPI_BYTE, peer, TAG_DATA, e->cmd) != MPI_SUCCESS) {
                *fail = 1;
                return;
            }
    }
}

/* One pair at every size; `mine` keeps the fewest round trips per size. */
static void pair(mbx_engine *e, int peer, int leading, const uint64_t *size, int n, int64_t rounds,
                 char *sb, char *rb, int64_t *mine, int *fail)
{
    for (int i = 0; i < n; i++) {
        if (leading) {
            int64_t d = lead(e, peer, sb, rb, (int)size[i], rounds, fail);
            if (d < mine[i])
                mine[i] = d;
        } else {
            follow(e, peer, sb, rb, (int)size[i], fail);
        }
    }
}

int mbx_prefault_exec(mbx_engine *e, const mbx_cmd *cmd)
{
    uint64_t largest = (uint64_t)cmd->iarg[0];
    int64_t rounds = cmd->iarg[1];
    if (largest < 1 || largest > PREFAULT_MAX_BYTES || rounds < 1 || rounds > 1000000)
        return MBX_E_INVAL; /* the same on every rank */
    double t0 = MPI_Wtime();
    uint64_t size[MBX_PREFAULT_SIZES];
    int n = regimes(largest, size);
    char *sb = malloc(largest), *rb = malloc(largest);
    int nomem = !sb || !rb, anynomem = 1;
    if (!nomem) {
        /* Resident before the first round trip: the pre-fault is for the
         * transport's pages, not these. */
        memset(sb, 0x5a, largest);
        memset(rb, 0, largest);
    }
    int mrc = MPI_Allreduce(&nomem, &anynomem, 1, MPI_INT, MPI_MAX, e->cmd);
    if (mrc != MPI_SUCCESS) {
        free(sb);
        free(rb);
        return MBX_MPI_FAIL(e, mrc, "MPI_Allreduce");
    }
    int64_t mine[MBX_PREFAULT_SIZES];
    for (int i = 0; i < MBX_PREFAULT_SIZES; i++)
        mine[i] = INT64_MAX;
    int fail = 0, pairs = 0, r = e->rank, last = e->size - 1;
    if (!anynomem) {
        /* Rank 0 with every rank, in turn (every point's pair and root);
         * then ring neighbours in two phases of disjoint pairs (the
         * neighbours of collective algorithms). */
        if (r == 0)
            for (int p = 1; p <= last; p++, pairs++)
                pair(e, p, 1, size, n, rounds, sb, rb, mine, &fail);
        else
            pair(e, 0, 0, size, n, rounds, sb, rb, mine, &fail);
        for (int phase = 1; phase <= 2; phase++) {
            /* phase 1: (1,2), (3,4), ...; phase 2: (2,3), (4,5), ... */
            if (r >= 1 && r < last && r % 2 == phase % 2)
                pair(e, r + 1, 1, size, n, rounds, sb, rb, mine, &fail);
            else if (r >= 2 && (r - 1) % 2 == phase % 2)
                pair(e, r - 1, 0, size, n, rounds, sb, rb, mine, &fail);
        }
        if (last >= 2)
            pairs += last - 1;
    }
    free(sb);
    free(rb);
    int64_t fewest[MBX_PREFAULT_SIZES];
    int anyfail = 1;
    if ((mrc = MPI_Reduce(mine, fewest, MBX_PREFAULT_SIZES, MPI_INT64_T, MPI_MIN, 0, e->cmd)) !=
        MPI_SUCCESS)
        return MBX_MPI_FAIL(e, mrc, "MPI_Reduce");
    if ((mrc = MPI_Allreduce(&fail, &anyfail, 1, MPI_INT, MPI_MAX, e->cmd)) != MPI_SUCCESS)
        return MBX_MPI_FAIL(e, mrc, "MPI_Allreduce");
    if (anyfail)
        return MBX_E_MPI;
    if (r == 0 && !anynomem) {
        e->warm.nsizes = n;
        for (int i = 0; i < n; i++) {
            e->warm.size[i] = size[i];
            e->warm.rounds[i] = fewest[i] == INT64_MAX ? 0 : fewest[i];
        }
        e->warm.pairs = pairs;
        e->warm.seconds = MPI_Wtime() - t0;
    }
    return MBX_OK;
}

int mbx_prefault_once(mbx_engine *e, uint64_t bytes)
{
    if (e->prefaulted)
        return MBX_OK;
    e->prefaulted = 1;
    if (e->size < 2)
        return MBX_OK;
    uint64_t largest = e->warm_largest;
    if (largest == 0)
        largest = bytes > 65536 ? bytes : 65536;
    if (largest > PREFAULT_MAX_BYTES)
        largest = PREFAULT_MAX_BYTES;
    mbx_cmd c = {.opcode = MBX_OP_PREFAULT};
    c.iarg[0] = (int64_t)largest;
    c.iarg[1] = e->warm.calls;
    return mbx_engine_submit(e, &c, NULL);
}
