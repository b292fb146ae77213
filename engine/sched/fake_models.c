/* The fake back end's (backend_fake.c) models of a point's time, private
 * to engine/sched: every benchmark's modelled time per call from its
 * descriptor (pairs, collectives, streams, one-sided, overlap, local), a
 * rank's one-way latency, and an accurate benchmark's plain companion. */
#include <math.h>
#include <stdint.h>

#include "fake_models.h"
#include "mbx/bench.h"
#include "mbx/rma.h"

/* FNV-1a of a name: per-benchmark constants that do not depend on the
 * benchmark's place in the registry. */
static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* One-way latency from rank 0 to rank r: odd ranks across the "socket". */
double mbx_fake_rank_lat(int r)
{
    return r == 0 ? 0.0 : 0.2e-6 + (r % 2 ? 0.3e-6 : 0.0) + 0.01e-6 * (r / 2);
}

#define FAKE_EAGER 12288.0 /* the ping-pong's protocol switch */

/* An accurate benchmark's companion (the plain one) at the same point: its
 * spec, or 0 when there is none. */
int mbx_fake_companion(const mbx_point_spec *sp, mbx_point_spec *out)
{
    const mbx_bench *bn = mbx_bench_get(sp->bench_id);
    int id = -1;
    if (!bn || !bn->companion || mbx_bench_find(bn->companion, &id) < 0)
        return 0;
    *out = *sp;
    out->bench_id = id;
    return 1;
}

/* The plain median next to an accurate point: the companion's model time
 * with +-2 % of noise from a hash of the size (not the generator, so other
 * points' noise does not depend on whether accurate ones were measured). */
double mbx_fake_plain(const mbx_point_spec *cs)
{
    uint32_t h = (uint32_t)(cs->bytes * 2654435761u + (uint64_t)cs->procs * 40503u);
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    return mbx_fake_time(cs) * (1.0 + 0.04 * ((double)(h % 1000) / 1000.0 - 0.5));
}

/* An overlap benchmark's share of the communication hidden behind the
 * computation: 0.2..0.7 from the name, less for large messages (a library
 * that moves them only inside MPI_Wait). */
static double fake_overlap_share(const mbx_point_spec *sp, const mbx_bench *bn)
{
    double h = (double)(name_hash(bn->name) % 64) / 63.0;
    return (0.2 + 0.5 * h) / (1.0 + (double)sp->bytes / 65536.0);
}

/* One-sided (rma.*): a window of operations (1 for the latency ones),
 * each the data at the pair's bandwidth, and the completion of the sync
 * mode in one-way latencies: a flush or a fence is a round trip, lock and
 * unlock two, post/start/complete/wait one and a half. */
static double fake_rma_time(const mbx_point_spec *sp, const mbx_bench *bn, double lat, double bw)
{
    static const double sync_cost[MBX_RMA_COUNT_] = {2.0, 2.0, 4.0, 2.0, 3.0};
    int a = sp->pair_a, b = sp->pair_b;
    if (a == b)
        a = 0, b = sp->procs - 1;
    lat += fabs(mbx_fake_rank_lat(b) - mbx_fake_rank_lat(a));
    double n =
        (bn->flags & MBX_BENCH_PARAM) ? (double)(sp->param ? sp->param : bn->param_default) : 1.0;
    int sync = sp->rma_sync >= 0 && sp->rma_sync < MBX_RMA_COUNT_ ? sp->rma_sync : 0;
    return sync_cost[sync] * lat + n * ((double)sp->bytes / bw + 0.05e-6);
}

double mbx_fake_time(const mbx_point_spec *sp)
{
    const mbx_bench *bn = mbx_bench_get(sp->bench_id);
    mbx_point_spec cs;
    /* Overlap: the computation (as long as the pure time) plus what of the
     * communication it does not hide. */
    if ((bn->flags & MBX_BENCH_OVERLAP) && mbx_fake_companion(sp, &cs))
        return mbx_fake_time(&cs) * (2.0 - fake_overlap_share(sp, bn));
    /* The operation latency without the barrier exit's skew: below the
     * barrier-synchronized time of its companion, the more so the more
     * receivers there are. */
    if (mbx_fake_companion(sp, &cs))
        return mbx_fake_time(&cs) * (0.9 - 0.05 * log2((double)sp->procs));
    uint32_t h = name_hash(bn->name);
    double lat = 0.4e-6 * (1.0 + (double)(h % 64) / 32.0);
    double bw = 8e9 / (1.0 + (double)((h >> 6) % 16) / 8.0);
    double m = (double)sp->bytes, lp = log2((double)sp->procs);
    if (bn->flags & MBX_BENCH_LOCAL)
        return 20e-9 * (1.0 + (double)(h % 16) / 4.0);
    if (bn->flags & MBX_BENCH_RMA)
        return fake_rma_time(sp, bn, lat, bw);
    if ((bn->flags & MBX_BENCH_STREAM) && bn->moved) {
        /* A window: one latency, then each stream's share of the messages
         * (a small gap each) and of the bytes over a link of its own; the
         * links share a little as more run at once. */
        uint64_t moved = 0, msgs = 0;
        bn->moved(sp->bytes, sp->procs, sp->param ? sp->param : bn->param_default, &moved, &msgs);
        double streams = bn->streams > 0 ? bn->streams : (double)(sp->procs / 2);
        if (streams < 1)
            streams = 1;
        double per = 1.0 + 0.1 * log2(streams);
        return 2 * lat + (double)msgs / streams * 60e-9 * per +
               (double)moved / streams / (2.5 * bw) * per;
    }
    if (bn->flags & MBX_BENCH_PAIR) {
        int a = sp->pair_a, b = sp->pair_b;
        if (a == b)
            a = 0, b = sp->procs - 1;
        lat += fabs(mbx_fake_rank_lat(b) - mbx_fake_rank_lat(a));
        /* Eager copies to the switch, then a faster zero-copy slope. */
        if (m <= FAKE_EAGER)
            return lat + m / bw;
        return lat + FAKE_EAGER / bw + (m - FAKE_EAGER) / (2.5 * bw);
    }
    double data = (double)bn->buf_bytes(sp->bytes, sp->procs);
    if (bn->flags & MBX_BENCH_PARAM) { /* pieces shared by procs - 1 workers */
        double pieces = (double)(sp->param ? sp->param : bn->param_default);
        double workers = sp->procs > 1 ? sp->procs - 1 : 1;
        return lat * (1.0 + lp) + pieces / workers * (lat + m / bw);
    }
    return lat * (1.0 + lp) + data / bw * (1.0 + 0.5 * lp);
}
