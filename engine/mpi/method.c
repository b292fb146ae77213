/* How observations start (docs/algorithms.md, "Observation method";
 * docs/user-guide.md, "Reproducible measurements"): barrier or window
 * sync on a global clock, warm or cold cache; and the machine-state probe
 * (docs/user-guide.md, "The machine-state monitor").
 *
 * Window sync: rank 0 gives each batch the global time of its first
 * window and the window length; observation i of the batch starts on every
 * rank when its global clock reads win_start + i * win_len. A rank that
 * reaches that moment late marks the observation; measure.c drops it and
 * counts it, as it does an observation that overruns its window. */
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "mbx/cache.h"
#include "mbx/memavail.h"
#include "mbx/stats.h"

#define PROBE_TAG 33
/* Window sync: a rank waiting for its window's start yields the CPU until
 * this close to it, then spins. */
#define YIELD_BEFORE_S 200e-6

double mbx_engine_clock(void *ud)
{
    const mbx_engine *e = ud;
    return mbx_timer_now(e->timer.kind);
}

static void flush_cb(void *ud)
{
    mbx_cache_flush(ud);
}

static void drop_flusher(mbx_engine *e)
{
    if (e->flusher) {
        mbx_cache_flusher_free(e->flusher);
        free(e->flusher);
        e->flusher = NULL;
    }
}

void mbx_method_free(mbx_engine *e)
{
    drop_flusher(e);
    free(e->starts);
    free(e->late);
    e->starts = NULL;
    e->late = NULL;
    e->sync_cap = 0;
}

/* Whether the timer reads one clock on every rank of a host: CLOCK_MONOTONIC
 * is the kernel's; the TSC is one counter, but each rank calibrated its own
 * frequency, so only when all ranks came to the same figure. MPI_Wtime
 * says nothing of where it reads. Collective. */
static int timer_host_wide(mbx_engine *e, int *wide)
{
    double hz[2] = {e->timer.tsc_hz, -e->timer.tsc_hz}, all[2];
    int mrc = MPI_Allreduce(hz, all, 2, MPI_DOUBLE, MPI_MIN, e->cmd);
    if (mrc != MPI_SUCCESS)
        return MBX_MPI_FAIL(e, mrc, "MPI_Allreduce");
    *wide =
        e->timer.kind == MBX_TIMER_CLOCK || (e->timer.kind == MBX_TIMER_TSC && all[0] == -all[1]);
    return MBX_OK;
}

/* Every rank: synchronize the clocks, then (rank 0) check how well. Ranks
 * that read one host clock take the identity: a fitted model could only add
 * the fit's noise to a difference that is exactly 0. MBX_TEST_CLOCK_FIT=1
 * (in every rank's environment) fits anyway, to compare. */
int mbx_clock_sync_exec(mbx_engine *e)
{
    double t0 = MPI_Wtime();
    mbx_clock_model m = {0};
    int wide = 0, all_id = 0;
    int rc = timer_host_wide(e, &wide);
    if (rc < 0)
        return rc;
    const char *force = getenv("MBX_TEST_CLOCK_FIT");
    if (force && strcmp(force, "1") == 0)
        wide = 0;
    if ((rc = mbx_clocksync_model(e->cmd, &e->method.clock, wide, NULL, mbx_engine_clock, e, &m,
                                  &all_id)) < 0)
        return rc;
    e->clock = m;
    double de = m.drift_err, de_max = 0.0;
    int kept = m.slope_kept, nkept = 0;
    int mrc = MPI_Allreduce(&de, &de_max, 1, MPI_DOUBLE, MPI_MAX, e->cmd);
    if (mrc == MPI_SUCCESS)
        mrc = MPI_Allreduce(&kept, &nkept, 1, MPI_INT, MPI_SUM, e->cmd);
    if (mrc != MPI_SUCCESS)
        return MBX_MPI_FAIL(e, mrc, "MPI_Allreduce");
    double dur = MPI_Wtime() - t0, worst = 0.0, rtt = 0.0;
    rc = mbx_clocksync_check(e->cmd, &e->clock, mbx_engine_clock, e, 10, &worst, &rtt);
    if (rc < 0)
        return rc;
    e->clock_at = mbx_engine_clock(e);
    e->clock_info.syncs++;
    e->clock_info.duration = dur;
    e->clock_info.max_offset = worst;
    e->clock_info.rtt_min = rtt;
    e->clock_info.identity = all_id;
    e->clock_info.slopes_kept = nkept;
    e->clock_info.drift_err = de_max;
    return MBX_OK;
}

int mbx_method_exec(mbx_engine *e, const mbx_cmd *cmd)
{
    mbx_method m = e->method;
    m.sync = (mbx_sync_kind)cmd->iarg[0];
    m.clock.method = (mbx_clocksync_method)cmd->iarg[1];
    m.cache = (mbx_cache_mode)cmd->iarg[2];
    m.clock.fitpoints = (int)((cmd->iarg[3] >> 16) & 0xffff);
    m.clock.exchanges = (int)(cmd->iarg[3] & 0xffff);
    m.clock.span = (double)(cmd->iarg[3] >> 32) * 1e-3;
    m.window = cmd->darg[0];
    m.window_delay = cmd->darg[1];
    m.resync = cmd->darg[2];
    m.cache_bytes = (uint64_t)cmd->darg[3];
    int err = 0;
    drop_flusher(e);
    uint64_t budget = UINT64_MAX;
    if (m.cache == MBX_CACHE_COLD) {
        uint64_t llc = m.cache_bytes;
        /* The buffer against the memory this rank may take (the node's, its
         * cgroup's limit included, over the ranks on the node): an
         * oversized one is refused, not killed by the OOM killer. */
        int local = 1;
        char why[128];
        MPI_Comm_size(e->node, &local);
        if (mbx_mem_rank_budget("", local, &budget, why, sizeof why) != MBX_OK)
            budget = UINT64_MAX;
        mbx_cache_flusher *f = NULL;
        if (!llc && mbx_cache_llc_bytes(&llc) < 0)
            err = 1;
        else if (llc > budget)
            err = 2;
        else if (!(f = calloc(1, sizeof *f)) || mbx_cache_flusher_init(f, llc) < 0)
            err = 1;
        if (err)
            free(f);
        else
            e->flusher = f;
    }
    int anyerr = 0;
    int mrc = MPI_Allreduce(&err, &anyerr, 1, MPI_INT, MPI_MAX, e->cmd);
    if (mrc == MPI_SUCCESS)
        mrc = MPI_Allreduce(&budget, &e->cache_budget, 1, MPI_UINT64_T, MPI_MIN, e->cmd);
    if (mrc != MPI_SUCCESS)
        return MBX_MPI_FAIL(e, mrc, "MPI_Allreduce");
    if (anyerr) {
        drop_flusher(e);
        return anyerr == 2 ? MBX_E_RANGE : MBX_E_UNSUPPORTED;
    }
    e->method = m;
    if (m.sync == MBX_SYNC_WINDOW)
        return mbx_clock_sync_exec(e);
    e->clock = (mbx_clock_model){0};
    return MBX_OK;
}

int mbx_engine_set_method(mbx_engine *e, const mbx_method *m)
{
    if (!e || !m || e->rank != 0 || !e->configured)
        return MBX_E_INVAL;
    if ((m->sync != MBX_SYNC_BARRIER && m->sync != MBX_SYNC_WINDOW) ||
        (m->cache != MBX_CACHE_WARM && m->cache != MBX_CACHE_COLD) || m->clock.method < 0 ||
        m->clock.method >= MBX_CLOCKSYNC_COUNT_ || m->clock.fitpoints < 0 ||
        m->clock.fitpoints > 1000 || m->clock.exchanges < 0 || m->clock.exchanges > 1000 ||
        !(m->window >= 0 && m->window <= 10.0) ||
        !(m->window_delay >= 0 && m->window_delay <= 10.0) ||
        !(m->resync >= 0 && m->resync <= 1e6) || m->cache_bytes > (1ull << 40) ||
        !(m->clock.span == 0 || (m->clock.span >= 1e-3 && m->clock.span <= 600)) ||
        !(m->window_limit >= 0 && m->window_limit <= 1e6))
        return MBX_E_INVAL;
    e->method.window_limit = m->window_limit; /* rank 0's alone */
    mbx_cmd c = {.opcode = MBX_OP_METHOD};
    c.iarg[0] = m->sync;
    c.iarg[1] = m->clock.method;
    c.iarg[2] = m->cache;
    c.iarg[3] = ((int64_t)llround(m->clock.span * 1e3) << 32) |
                ((int64_t)m->clock.fitpoints << 16) | m->clock.exchanges;
    c.darg[0] = m->window;
    c.darg[1] = m->window_delay;
    c.darg[2] = m->resync;
    c.darg[3] = (double)m->cache_bytes;
    return mbx_engine_submit(e, &c, NULL);
}

uint64_t mbx_engine_cache_budget(const mbx_engine *e)
{
    return e ? e->cache_budget : UINT64_MAX;
}

void mbx_engine_clock_info(const mbx_engine *e, mbx_clock_info *out)
{
    *out = e->clock_info;
}

int mbx_obs_sync(mbx_bench_ctx *c, size_t i, int barrier)
{
    if (c->flush)
        c->flush(c->flush_ud);
    if (c->sync != MBX_SYNC_WINDOW)
        return barrier ? MPI_Barrier(c->comm) : MPI_SUCCESS;
    double target = mbx_clock_local(c->clock, c->win_start + (double)i * c->win_len);
    double now = mbx_timer_now(c->timer);
    c->late[i] = now > target;
    /* Far from the start, let other ranks of an oversubscribed node run;
     * near it, spin. */
    while (target - now > YIELD_BEFORE_S) {
        sched_yield();
        now = mbx_timer_now(c->timer);
    }
    while (now < target)
        now = mbx_timer_now(c->timer);
    c->starts[i] = now;
    return MPI_SUCCESS;
}

/* Prepare ctx for a batch of k observations (every member rank). */
int mbx_method_batch(mbx_engine *e, size_t k, double win_start, double win_len)
{
    mbx_bench_ctx *c = &e->ctx;
    c->sync = e->method.sync;
    c->flush = e->flusher ? flush_cb : NULL;
    c->flush_ud = e->flusher;
    if (c->sync != MBX_SYNC_WINDOW)
        return MBX_OK;
    if (k > e->sync_cap) {
        double *s = realloc(e->starts, k * sizeof *s);
        if (s)
            e->starts = s;
        unsigned char *l = realloc(e->late, k);
        if (l)
            e->late = l;
        if (!s || !l)
            return MBX_E_NOMEM;
        e->sync_cap = k;
    }
    memset(e->late, 0, k);
    for (size_t i = 0; i < k; i++)
        e->starts[i] = NAN; /* a benchmark that never synced: every observation invalid */
    c->clock = &e->clock;
    c->win_start = win_start;
    c->win_len = win_len;
    c->starts = e->starts;
    c->late = e->late;
    return MBX_OK;
}

int mbx_probe_exec(mbx_engine *e, const mbx_cmd *cmd)
{
    int rounds = (int)cmd->iarg[0], peer = (int)cmd->iarg[1];
    if (rounds < 1 || rounds > 1000 || peer < 1 || peer >= e->size)
        return MBX_E_INVAL;
    if (e->rank != 0 && e->rank != peer)
        return MBX_OK;
    char byte = 0;
    int rc = MPI_SUCCESS;
    if (e->rank == peer) {
        for (int i = -1; rc == MPI_SUCCESS && i < rounds; i++) {
            rc = MPI_Recv(&byte, 1, MPI_BYTE, 0, PROBE_TAG, e->cmd, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(&byte, 1, MPI_BYTE, 0, PROBE_TAG, e->cmd);
        }
        return rc == MPI_SUCCESS ? MBX_OK : MBX_MPI_FAIL(e, rc, "MPI_Recv/MPI_Send");
    }
    double t[1000], scr[1000];
    for (int i = -1; rc == MPI_SUCCESS && i < rounds; i++) {
        double t0 = mbx_timer_now(e->timer.kind);
        rc = MPI_Send(&byte, 1, MPI_BYTE, peer, PROBE_TAG, e->cmd);
        if (rc == MPI_SUCCESS)
            rc = MPI_Recv(&byte, 1, MPI_BYTE, peer, PROBE_TAG, e->cmd, MPI_STATUS_IGNORE);
        if (i >= 0)
            t[i] = (mbx_timer_now(e->timer.kind) - t0) / 2;
    }
    if (rc != MPI_SUCCESS)
        return MBX_MPI_FAIL(e, rc, "MPI_Send/MPI_Recv");
    mbx_summary s;
    if (mbx_stats_summarize(t, (size_t)rounds, scr, &s) < 0)
        return MBX_E_INVAL;
    e->probe = s.median;
    return MBX_OK;
}

int mbx_engine_probe(mbx_engine *e, int peer, int rounds, double *lat)
{
    if (!e || e->rank != 0 || !lat || peer < 1 || peer >= e->size || rounds < 1 || rounds > 1000)
        return MBX_E_INVAL;
    mbx_cmd c = {.opcode = MBX_OP_PROBE};
    c.iarg[0] = rounds;
    c.iarg[1] = peer;
    int rc = mbx_engine_submit(e, &c, NULL);
    if (rc < 0)
        return rc;
    *lat = e->probe;
    return MBX_OK;
}
