/* mpibex: a drift-aware global clock, Jones-Koenig and HCA (Hunold &
 * Carpen-Amarie; include/mbx/clocksync.h, docs/algorithms.md, "Observation method").
 *
 * One offset sample between a child and its reference (parent): the child
 * reads t_send, sends it, the parent answers with its *global* time t_ref
 * (its local time mapped through its model; rank 0's model is the
 * identity), the child reads t_recv. The sample is t_ref - mid at local time
 * mid = (t_send + t_recv) / 2; of `exchanges` such ping-pongs the child
 * keeps the one with the shortest round trip, whose error is at most half
 * of it. The child fits offset = intercept + slope * t through `fitpoints`
 * samples by least squares, each weighted by 1 / rtt^2 (see fit_line) and
 * centred on the mean time so that large clock readings lose no precision.
 *
 * Spacing. The slope comes from how far the samples are apart in time:
 * with offset noise s and samples spread over T seconds, the slope is off
 * by about s * sqrt(12 / fitpoints) / T, and the global clock drifts by
 * that much per second after the sync. Consecutive samples are only a few
 * microseconds apart, so the parent starts a new round of samples at most
 * every gap = span / (fitpoints - 1) seconds (sleeping in between) and the
 * samples of one child span at least `span` (default 1 s; it was 95 ms,
 * whose slope noise gave 0.3-2.9 us of error 10 s later on one host). The
 * slope is kept only when significant (mbx_clockfit_line, 95 %): clocks
 * that do not drift apart get an offset-only model, not a noisy slope.
 *  - JK interleaves the children: in each round rank 0 takes one sample
 *    with rank 1, then rank 2, ..., then waits out the gap. One sync takes
 *    about (fitpoints - 1) * max(gap, (p - 1) * one sample).
 *  - HCA (top-down): in round r = 0 .. ceil(log2 p) - 1, every rank
 *    i < 2^r (which already holds its model) is the reference of rank
 *    i + 2^r, if that exists. Because the parent answers with its global
 *    time, the child's fitted line maps its local clock straight to rank
 *    0's: the composition of the child-to-parent line with the parent's
 *    model happens in the parent's answer, and errors add up along the
 *    ceil(log2 p) levels. Pairs of one round run at the same time, so one
 *    sync takes about ceil(log2 p) * span.
 *
 * Oversubscribed nodes (4 ranks on 2 cores, or other jobs about): a rank
 * spinning in a blocking call holds its core for a whole scheduler slice
 * (about 4 ms) while the partner it waits for may need that core. So
 * waiting ranks (a child before its turn, a rank with no partner in an HCA
 * round, everyone at the closing agreement) poll with MPI_Iprobe/MPI_Test
 * and sleep in between, and the receives inside a ping-pong spin briefly,
 * then yield the core between polls. Measured on a 2-vCPU VM with two
 * busy loops beside 4 ranks, this took the best round trips of a sample
 * from 3-8 ms down to 30-200 us.
 *
 * Tags: this module uses tags 900-920 on the caller's communicator (so far
 * 900-904); no other traffic with these tags may be pending during a call.
 * Every rank returns the same status (an allreduce of the local ones).
 * After an MPI error in the middle of an exchange the partner may wait
 * forever: nothing can be done about that short of a timeout, and MPI
 * errors on a working communicator are rare. */
#include "mbx/clocksync.h"

#include <stdio.h>

#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mbx/clockfit.h"

#define TAG_GO 900         /* parent -> child: take one sample now (empty) */
#define TAG_PING 901       /* child -> parent: the child's send time, more to come */
#define TAG_PONG 902       /* parent -> child: the parent's global time */
#define TAG_CHECK_PING 903 /* rank 0 -> rank r (check) */
#define TAG_CHECK_PONG 904 /* rank r -> rank 0 (check): r's global time */

#define DEFAULT_FITPOINTS 20
#define DEFAULT_EXCHANGES 10
#define MAX_FITPOINTS 10000
#define MAX_EXCHANGES 10000
#define MAX_CHECK_ROUNDS 1000000
#define DEFAULT_SPAN 1.0
#define MAX_SPAN 600.0

static const double SAMPLE_GAP = 0.005; /* seconds a sample may retake its ping-pongs */
static const long POLL_NS = 50000;      /* sleep between polls of a waiting rank */
static const long SPIN_POLLS = 200;     /* polls before a receive starts to yield */
static const int RETAKE_MAX = 16;       /* ping-pongs of a sample, at most, in exchanges */

static void sleep_ns(long ns)
{
    struct timespec d = {.tv_sec = ns / 1000000000L, .tv_nsec = ns % 1000000000L};
    while (nanosleep(&d, &d) != 0)
        ;
}

/* Wait, sleeping between polls, until a message from src with tag is there. */
static int wait_msg(MPI_Comm comm, int src, int tag)
{
    for (;;) {
        int flag = 0;
        if (MPI_Iprobe(src, tag, comm, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return MBX_E_MPI;
        if (flag)
            return MBX_OK;
        sleep_ns(POLL_NS);
    }
}

/* Receive, spinning at first (a partner on another core answers within
 * microseconds), then yielding the core between polls: on an oversubscribed
 * node a blocking MPI_Recv spins out its whole time slice (milliseconds)
 * while the partner that would answer waits for that core. */
static int recv_yield(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm)
{
    MPI_Request req;
    if (MPI_Irecv(buf, count, type, src, tag, comm, &req) != MPI_SUCCESS)
        return MBX_E_MPI;
    for (long i = 0;; i++) {
        int done = 0;
        if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return MBX_E_MPI;
        if (done)
            return MBX_OK;
        if (i >= SPIN_POLLS)
            sched_yield();
    }
}

/* The smallest (most severe) status over all ranks; sleeps while waiting. */
static int agree(MPI_Comm comm, int st)
{
    int all = st;
    MPI_Request req;
    if (MPI_Iallreduce(&st, &all, 1, MPI_INT, MPI_MIN, comm, &req) != MPI_SUCCESS)
        return MBX_E_MPI;
    for (;;) {
        int done = 0;
        if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return MBX_E_MPI;
        if (done)
            return all;
        sleep_ns(POLL_NS);
    }
}

/* Weighted least squares offset = a + b * t through n samples, centred on
 * the weighted mean time (mbx_clockfit_line). A sample whose shortest
 * round trip took rtt is off by at most rtt / 2 (the reference read its
 * clock somewhere inside the round trip), so its weight is 1 / rtt^2, the
 * inverse of that error's variance: a sample whose every ping-pong waited
 * out a scheduler slice (milliseconds instead of a microsecond) then counts
 * a million times less than a clean one instead of tilting the line. The
 * slope is kept when significant over at least 90 % of the asked span (the
 * sleeps between rounds may come out a little short of it). */
static int fit_line(const double *t, const double *o, const double *rtt, int n, double span,
                    mbx_clock_model *out)
{
    mbx_clockfit f;
    int rc = mbx_clockfit_line(t, o, rtt, (size_t)n, 0.0, 0.9 * span, &f);
    if (rc < 0)
        return rc;
    out->slope = f.slope;
    out->intercept = f.intercept;
    out->drift_err = f.drift_err;
    out->slope_kept = f.slope_kept;
    return MBX_OK;
}

/* Reference side: serve `fitpoints` rounds of samples to ranks first,
 * first + 1, ..., first + count - 1, answering with the global time under m
 * as long as the child says more ping-pongs follow. */
static int serve(MPI_Comm comm, int first, int count, int fitpoints, double gap,
                 const mbx_clock_model *m, mbx_clock_fn now, void *ud)
{
    double start = 0;
    for (int k = 0; k < fitpoints; k++) {
        if (k > 0) {
            double left = gap - (now(ud) - start);
            if (left > 0)
                sleep_ns((long)(left * 1e9));
        }
        start = now(ud);
        for (int c = first; c < first + count; c++) {
            if (MPI_Send(NULL, 0, MPI_BYTE, c, TAG_GO, comm) != MPI_SUCCESS)
                return MBX_E_MPI;
            double ping[2] = {0.0, 1.0}; /* the child's send time, "more to come" */
            while (ping[1] != 0.0) {
                int rc = recv_yield(ping, 2, MPI_DOUBLE, c, TAG_PING, comm);
                if (rc < 0)
                    return rc;
                double t_ref = mbx_clock_global(m, now(ud));
                if (MPI_Send(&t_ref, 1, MPI_DOUBLE, c, TAG_PONG, comm) != MPI_SUCCESS)
                    return MBX_E_MPI;
            }
        }
    }
    return MBX_OK;
}

/* Child side: take `fitpoints` samples against parent's global clock and
 * fit this rank's model. t, o and rtt hold fitpoints doubles each.
 *
 * A sample takes `exchanges` ping-pongs, and more while its shortest round
 * trip is still over twice the shortest of the whole sync, for at most
 * SAMPLE_GAP seconds (and RETAKE_MAX * exchanges ping-pongs): on a busy
 * node the two ranks share a core for a while and every round trip waits
 * for the other to be scheduled, and a little later they run side by side
 * again. Each ping tells the parent whether another one follows. */
static int follow(MPI_Comm comm, int parent, int fitpoints, int exchanges, double span,
                  mbx_clock_fn now, void *ud, double *t, double *o, double *rtt,
                  mbx_clock_model *out)
{
    double shortest = INFINITY;
    for (int k = 0; k < fitpoints; k++) {
        int rc = wait_msg(comm, parent, TAG_GO);
        if (rc < 0)
            return rc;
        if (MPI_Recv(NULL, 0, MPI_BYTE, parent, TAG_GO, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return MBX_E_MPI;
        rtt[k] = INFINITY;
        double start = now(ud);
        for (int e = 0, more = 1; more; e++) {
            double t_send = now(ud), t_ref;
            more = e + 1 < exchanges || (rtt[k] > 2.0 * shortest && t_send - start < SAMPLE_GAP &&
                                         e + 1 < RETAKE_MAX * exchanges);
            double ping[2] = {t_send, more ? 1.0 : 0.0};
            if (MPI_Send(ping, 2, MPI_DOUBLE, parent, TAG_PING, comm) != MPI_SUCCESS ||
                recv_yield(&t_ref, 1, MPI_DOUBLE, parent, TAG_PONG, comm) < 0)
                return MBX_E_MPI;
            double t_recv = now(ud);
            if (t_recv - t_send < rtt[k]) {
                rtt[k] = t_recv - t_send;
                t[k] = t_send + 0.5 * rtt[k];
                o[k] = t_ref - t[k];
            }
        }
        if (rtt[k] < shortest)
            shortest = rtt[k];
    }
    return fit_line(t, o, rtt, fitpoints, span, out);
}

int mbx_clocksync_run(MPI_Comm comm, const mbx_clocksync_opts *o, mbx_clock_fn now, void *ud,
                      mbx_clock_model *out)
{
    int rank, p;
    if (comm == MPI_COMM_NULL)
        return MBX_E_INVAL;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &p) != MPI_SUCCESS)
        return MBX_E_MPI;
    if (out)
        *out = (mbx_clock_model){0};

    /* Options are checked on every rank and agreed on before any exchange,
     * so that a bad value on one rank fails the call everywhere, and so do
     * options that differ between ranks (they would deadlock). */
    int st = MBX_OK, fitpoints = 0, exchanges = 0, method = 0;
    double span = 0.0;
    if (!o || !now || !out || (int)o->method < 0 || o->method >= MBX_CLOCKSYNC_COUNT_) {
        st = MBX_E_INVAL;
    } else {
        method = (int)o->method;
        fitpoints = o->fitpoints ? o->fitpoints : DEFAULT_FITPOINTS;
        exchanges = o->exchanges ? o->exchanges : DEFAULT_EXCHANGES;
        span = o->span > 0 ? o->span : DEFAULT_SPAN;
        if (fitpoints < 2 || fitpoints > MAX_FITPOINTS || exchanges < 1 ||
            exchanges > MAX_EXCHANGES || !(o->span >= 0 && o->span <= MAX_SPAN))
            st = MBX_E_INVAL;
    }
    double *buf = NULL;
    if (st == MBX_OK && !(buf = malloc(3 * (size_t)fitpoints * sizeof *buf)))
        st = MBX_E_NOMEM;
    int mine[7] = {st, method, fitpoints, exchanges, -method, -fitpoints, -exchanges}, all[7];
    if (MPI_Allreduce(mine, all, 7, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        all[0] = MBX_E_MPI;
    else if (all[0] == MBX_OK && (all[1] != -all[4] || all[2] != -all[5] || all[3] != -all[6]))
        all[0] = MBX_E_INVAL;
    double spans[2] = {span, -span}, spans_all[2] = {0, 0};
    if (all[0] == MBX_OK &&
        MPI_Allreduce(spans, spans_all, 2, MPI_DOUBLE, MPI_MIN, comm) != MPI_SUCCESS)
        all[0] = MBX_E_MPI;
    else if (all[0] == MBX_OK && spans_all[0] != -spans_all[1])
        all[0] = MBX_E_INVAL;
    if (all[0] < 0 || p == 1) {
        free(buf);
        return all[0];
    }

    double *t = buf, *off = buf + fitpoints, *rtt = buf + 2 * fitpoints;
    mbx_clock_model m = {0};
    double gap = span / (fitpoints - 1);
    if (o->method == MBX_CLOCKSYNC_JK) {
        if (rank == 0)
            st = serve(comm, 1, p - 1, fitpoints, gap, &m, now, ud);
        else
            st = follow(comm, 0, fitpoints, exchanges, span, now, ud, t, off, rtt, &m);
    } else {
        for (int step = 1; step < p && st == MBX_OK; step *= 2) {
            if (rank < step && rank + step < p)
                st = serve(comm, rank + step, 1, fitpoints, gap, &m, now, ud);
            else if (rank >= step && rank < 2 * step)
                st =
                    follow(comm, rank - step, fitpoints, exchanges, span, now, ud, t, off, rtt, &m);
        }
    }
    free(buf);
    st = agree(comm, st);
    if (st == MBX_OK)
        *out = m;
    return st;
}

int mbx_clocksync_check(MPI_Comm comm, const mbx_clock_model *m, mbx_clock_fn now, void *ud,
                        int rounds, double *max_abs, double *rtt_min)
{
    int rank, p;
    if (comm == MPI_COMM_NULL)
        return MBX_E_INVAL;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &p) != MPI_SUCCESS)
        return MBX_E_MPI;
    int st = (!m || !now || !max_abs || !rtt_min || rounds < 1 || rounds > MAX_CHECK_ROUNDS)
                 ? MBX_E_INVAL
                 : MBX_OK;
    int all = st;
    if (MPI_Allreduce(&st, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        all = MBX_E_MPI;
    if (all < 0)
        return all;
    *max_abs = 0.0;
    *rtt_min = 0.0;
    if (p == 1)
        return MBX_OK;

    if (rank == 0) {
        double worst = 0.0, uncertain = 0.0;
        for (int r = 1; r < p && st == MBX_OK; r++) {
            double best = INFINITY, offset = 0.0;
            for (int k = 0; k < rounds; k++) {
                double t0 = mbx_clock_global(m, now(ud)), g;
                if (MPI_Send(&t0, 1, MPI_DOUBLE, r, TAG_CHECK_PING, comm) != MPI_SUCCESS ||
                    recv_yield(&g, 1, MPI_DOUBLE, r, TAG_CHECK_PONG, comm) < 0) {
                    st = MBX_E_MPI;
                    break;
                }
                double rtt = mbx_clock_global(m, now(ud)) - t0;
                if (rtt < best) {
                    best = rtt;
                    offset = g - (t0 + 0.5 * rtt);
                }
            }
            if (fabs(offset) > worst)
                worst = fabs(offset);
            if (best > uncertain)
                uncertain = best;
        }
        if (st == MBX_OK) {
            *max_abs = worst;
            *rtt_min = uncertain;
        }
    } else {
        st = wait_msg(comm, 0, TAG_CHECK_PING);
        for (int k = 0; k < rounds && st == MBX_OK; k++) {
            double t0, g;
            if (recv_yield(&t0, 1, MPI_DOUBLE, 0, TAG_CHECK_PING, comm) < 0)
                st = MBX_E_MPI;
            g = mbx_clock_global(m, now(ud));
            if (st == MBX_OK && MPI_Send(&g, 1, MPI_DOUBLE, 0, TAG_CHECK_PONG, comm) != MPI_SUCCESS)
                st = MBX_E_MPI;
        }
    }
    st = agree(comm, st);
    if (st < 0) {
        *max_abs = 0.0;
        *rtt_min = 0.0;
    }
    return st;
}

int mbx_clocksync_same_host(MPI_Comm comm, const char *boot_id_path, int *same)
{
    if (!same || comm == MPI_COMM_NULL)
        return MBX_E_INVAL;
    *same = 0;
    char mine[64] = "", ref[64];
    FILE *f = fopen(boot_id_path ? boot_id_path : "/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(mine, sizeof mine, f))
            mine[0] = '\0';
        fclose(f);
        mine[strcspn(mine, "\r\n")] = '\0';
    }
    memcpy(ref, mine, sizeof ref);
    if (MPI_Bcast(ref, (int)sizeof ref, MPI_CHAR, 0, comm) != MPI_SUCCESS)
        return MBX_E_MPI;
    int eq = mine[0] != '\0' && strcmp(mine, ref) == 0, all = 0;
    if (MPI_Allreduce(&eq, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return MBX_E_MPI;
    *same = all;
    return MBX_OK;
}

int mbx_clocksync_model(MPI_Comm comm, const mbx_clocksync_opts *o, int timer_host_wide,
                        const char *boot_id_path, mbx_clock_fn now, void *ud, mbx_clock_model *out,
                        int *identity)
{
    if (!identity || !out || comm == MPI_COMM_NULL)
        return MBX_E_INVAL;
    *identity = 0;
    *out = (mbx_clock_model){0};
    int same = 0;
    int rc = mbx_clocksync_same_host(comm, boot_id_path, &same);
    if (rc < 0)
        return rc;
    int mine = same && timer_host_wide, all = 0;
    if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return MBX_E_MPI;
    if (all) {
        *identity = 1;
        return MBX_OK;
    }
    return mbx_clocksync_run(comm, o, now, ud, out);
}

int mbx_clocksync_parse(const char *text, mbx_clocksync_method *out)
{
    if (!text || !out)
        return MBX_E_INVAL;
    if (strcmp(text, "jk") == 0)
        *out = MBX_CLOCKSYNC_JK;
    else if (strcmp(text, "hca") == 0)
        *out = MBX_CLOCKSYNC_HCA;
    else
        return MBX_E_INVAL;
    return MBX_OK;
}

const char *mbx_clocksync_name(mbx_clocksync_method m)
{
    switch (m) {
    case MBX_CLOCKSYNC_JK: return "jk";
    case MBX_CLOCKSYNC_HCA: return "hca";
    default: return "?";
    }
}
