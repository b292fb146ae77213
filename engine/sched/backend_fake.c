/* The fake back end (see mbx/backend.h): simulated ranks with modelled
 * timings, b_eff and b_eff_io rows, probes and clocks, so every front end
 * runs and is tested without MPI calls. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_models.h"
#include "mbx/ascii.h"
#include "mbx/backend.h"
#include "mbx/beff.h"
#include "mbx/beffio.h"
#include "mbx/bench.h"
#include "mbx/memavail.h"
#include "mbx/rma.h"
#include "mbx/sched.h"
#include "mbx/stats.h"

typedef struct fake {
    double clock;
    mbx_timer_info timer;
    uint64_t rng;
    double *obs, *scratch;
    size_t cap;
    mbx_method method; /* recorded, and written into the results */
    int syncs;         /* clock synchronizations "done" (window sync) */
    size_t nprobe;     /* probes so far: the machine's timeline */
    /* The test model's stops (mbx_backend_fake): after this many passes
     * (0: never), and at the end of a run; passes so far. */
    size_t stop_passes, passes;
    int stop_done;
    int plant; /* MBX_TEST_FAKE_PLANT: the planted points (plant_time) */
} fake;

/* A fixed generator, so headless screens are identical on every machine. */
static double fake_uniform(fake *f)
{
    f->rng = f->rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(f->rng >> 11) / 9007199254740992.0;
}

static int fake_configure(mbx_backend *b, mbx_timer_kind timer, mbx_timer_info *out)
{
    fake *f = b->impl;
    f->timer = (mbx_timer_info){
        .kind = timer, .nominal_res = 1e-9, .resolution = 20e-9, .overhead = 25e-9};
    if (out)
        *out = f->timer;
    return MBX_OK;
}

/* The checks the engine makes of a point, so the explorer's specs are
 * tested against the same rules headless. The warm-up kind and the buffer
 * offset are checked and otherwise ignored: the fake has no warm-up and no
 * buffers. */
static int fake_check(const mbx_backend *b, const mbx_point_spec *sp, const mbx_bench *bn)
{
    int pa = sp->pair_a, pb = sp->pair_b;
    if (pa == pb)
        pa = 0, pb = sp->procs - 1;
    if (sp->procs < bn->min_procs || sp->procs < 1 || sp->procs > b->nranks || sp->param < 0 ||
        pa < 0 || pb < 0 || pa >= sp->procs || pb >= sp->procs || sp->root < 0 ||
        sp->root >= sp->procs || sp->bytes > INT32_MAX ||
        (sp->warm_light != 0 && sp->warm_light != 1) || sp->buf_offset % MBX_BUF_OFFSET_STEP != 0 ||
        sp->buf_offset > MBX_BUF_OFFSET_MAX || sp->rma_sync < 0 || sp->rma_sync >= MBX_RMA_COUNT_)
        return MBX_E_INVAL;
    return MBX_OK;
}

static int fake_pair_scan(mbx_backend *b, double *lat, int *far)
{
    fake *f = b->impl;
    *far = 0;
    for (int r = 0; r < b->nranks; r++) {
        lat[r] = mbx_fake_rank_lat(r);
        if (lat[r] > lat[*far])
            *far = r;
        f->clock += 20 * 2 * lat[r];
    }
    return MBX_OK;
}

/* Whether probe i of the fake machine is at its high level (fake_probe's
 * schedule). */
static int probe_high(size_t i)
{
    return (i / 16) % 2 == 1 && i % 32 != 27;
}

/* Whether the fake machine is in its high state now (the square wave of
 * its last probe, without the one-probe dip the level detection smooths). */
static int fake_level_high(const fake *f)
{
    return ((f->nprobe ? f->nprobe - 1 : 0) / 16) % 2 == 1;
}

/* The test model's planted points (MBX_TEST_FAKE_PLANT set; for the tests
 * that check every view tells one story): at 2 bytes the time follows the
 * probe's level (1.5 times slower at the high one: two real levels far
 * apart), at 4 bytes a timer that ticks in whole microseconds (quantized
 * pass medians); every other point keeps the model, whose time ignores the
 * level (levels the probe sees and the point does not). */
/* MBX_TEST_STEP=BYTES:FACTOR[:NAME], as the engine reads it
 * (measure_point.c): times of points of BYTES or more scaled by FACTOR,
 * with NAME only those of that benchmark or plan section. */
static double step_factor(const mbx_point_spec *sp, const mbx_bench *bn)
{
    const char *v = getenv("MBX_TEST_STEP");
    char *end = NULL;
    unsigned long long bytes = v ? strtoull(v, &end, 10) : 0;
    if (!v || end == v || *end != ':' || sp->bytes < bytes)
        return 1.0;
    double f = mbx_strtod(end + 1, &end);
    if (end && *end == ':' && strcmp(end + 1, bn->name) != 0 &&
        !(sp->label && strcmp(end + 1, sp->label) == 0))
        return 1.0;
    return f > 0 ? f : 1.0;
}

static double plant_time(const fake *f, const mbx_point_spec *sp, double t)
{
    if (f->plant && sp->bytes == 2 && fake_level_high(f))
        return 1.5 * t;
    if (f->plant && sp->bytes == 4)
        return fmax(1e-6, round(t * 1e6) * 1e-6);
    return t;
}

static int fake_measure(mbx_backend *b, const mbx_point_spec *spec, mbx_progress_fn progress,
                        void *ud, mbx_result *out, const double **obs, size_t *nobs)
{
    fake *f = b->impl;
    const mbx_bench *bn = mbx_bench_get(spec->bench_id);
    if (!bn || fake_check(b, spec, bn) < 0)
        return MBX_E_INVAL;
    double t0 = f->clock;
    size_t nmin = spec->nmin, nmax = spec->nmax, n = 0, k = 8, batches = 0;
    if (spec->stop.kind == MBX_STOP_FIXED)
        nmin = nmax = spec->stop.fixed;
    if (nmax > f->cap) {
        double *o = realloc(f->obs, nmax * sizeof *o), *s = realloc(f->scratch, nmax * sizeof *s);
        if (o)
            f->obs = o;
        if (s)
            f->scratch = s;
        if (!o || !s)
            return MBX_E_NOMEM;
        f->cap = nmax;
    }
    double base = mbx_fake_time(spec), step = step_factor(spec, bn);
    size_t events = 0;
    mbx_summary s;
    memset(&s, 0, sizeof s);
    mbx_stop_verdict v = MBX_STOP_GO_ON;
    while (v == MBX_STOP_GO_ON) {
        if (k > nmax - n)
            k = nmax - n;
        for (size_t i = 0; i < k; i++) {
            /* Mostly tight noise, with an occasional slow outlier. */
            double u = fake_uniform(f), noise = 0.15 * (u - 0.5);
            if (fake_uniform(f) < 0.03)
                noise += 1.5;
            f->obs[n + i] = plant_time(f, spec, step * base * (1.0 + noise));
            f->clock += f->obs[n + i] + 2e-6;
        }
        n += k;
        batches++;
        if (mbx_stats_summarize_events(f->obs, n, f->timer.resolution, f->scratch, &s, &events) < 0)
            return MBX_E_INVAL;
        v = mbx_stop_eval(&spec->stop, &s, f->timer.resolution, nmin, nmax);
        if (progress) {
            mbx_progress p = {spec, &s, mbx_stop_progress(&spec->stop, &s), batches};
            if (progress(ud, &p) != 0)
                return MBX_E_ABORTED;
        }
        k *= 2;
    }
    /* The model's times are per call of an inner loop spanning 100 ticks
     * (as the simple pattern's), so they resolve a hundredth of a tick. */
    mbx_result_fill(out, spec, &s, v, nmin, nmax, f->timer.overhead, batches, f->clock - t0, events,
                    f->timer.resolution / 100.0);
    out->validated = 0; /* the fake moves no data, so it never claims a check */
    out->sync = f->method.sync;
    out->clock_sync =
        f->method.sync == MBX_SYNC_WINDOW ? mbx_clocksync_name(f->method.clock.method) : NULL;
    out->cache = f->method.cache;
    /* Window sync: a few observations miss their window (counted, as the
     * engine does; here they are not taken out of the sample). */
    out->invalid = f->method.sync == MBX_SYNC_WINDOW ? n / 64 : 0;
    mbx_point_spec cs;
    if (mbx_fake_companion(spec, &cs)) {
        /* as if the companion had taken as many observations first */
        out->plain = mbx_fake_plain(&cs);
        out->plain_status = MBX_POINT_SETTLED;
        if (out->overlap) /* the computation alone: the pure model time */
            out->compute = mbx_fake_time(&cs);
        f->clock += (double)n * (out->plain + 2e-6);
        out->wall = f->clock - t0;
    }
    if (obs)
        *obs = f->obs;
    if (nobs)
        *nobs = n;
    return MBX_OK;
}

static int fake_environment(mbx_backend *b, mbx_kvlist *out)
{
    fake *f = b->impl;
    int rc = mbx_kv_addf(out, "format_version", "%d", MBX_FORMAT_VERSION);
    if (rc >= 0)
        rc = mbx_kv_addf(out, "tool", "mpibex (fake back end)");
    if (rc >= 0)
        rc = mbx_kv_addf(out, "ranks", "%d", b->nranks);
    if (rc >= 0)
        rc = mbx_kv_addf(out, "timer", "%s", mbx_timer_name(f->timer.kind));
    if (rc >= 0)
        rc = mbx_kv_addf(out, "sync", "%s", mbx_sync_name(f->method.sync));
    if (rc >= 0 && f->method.sync == MBX_SYNC_WINDOW)
        rc = mbx_kv_addf(out, "clock_sync", "%s", mbx_clocksync_name(f->method.clock.method));
    if (rc >= 0)
        rc = mbx_kv_addf(out, "cache", "%s", mbx_cache_name(f->method.cache));
    return rc;
}

static int fake_set_method(mbx_backend *b, const mbx_method *m)
{
    fake *f = b->impl;
    if (m->sync != MBX_SYNC_BARRIER && m->sync != MBX_SYNC_WINDOW)
        return MBX_E_INVAL;
    if (m->clock.method != MBX_CLOCKSYNC_JK && m->clock.method != MBX_CLOCKSYNC_HCA)
        return MBX_E_INVAL;
    if (m->cache != MBX_CACHE_WARM && m->cache != MBX_CACHE_COLD)
        return MBX_E_INVAL;
    /* The ranks of the fake share this node: a cold-cache buffer each
     * must fit in their share of it, as on a real job (method.c). */
    char why[128];
    b->cache_budget = UINT64_MAX;
    if (m->cache == MBX_CACHE_COLD &&
        mbx_mem_rank_budget("", b->nranks, &b->cache_budget, why, sizeof why) == MBX_OK &&
        m->cache_bytes > b->cache_budget)
        return MBX_E_RANGE;
    f->method = *m;
    if (m->sync == MBX_SYNC_WINDOW) {
        f->syncs++;
        f->clock += 0.02; /* what a synchronization of a few ranks takes */
    }
    return MBX_OK;
}

static void fake_clock_info(mbx_backend *b, mbx_clock_info *out)
{
    fake *f = b->impl;
    *out = (mbx_clock_info){.syncs = f->syncs,
                            .duration = f->syncs ? 0.02 : 0,
                            .max_offset = 0.4e-6,
                            .rtt_min = 0.9e-6};
}

/* The fake machine's probe: a square wave of two levels in the probe's
 * index, 0.2 us for 16 probes, then 0.7 us for 16 with a dip back to 0.2
 * at the 12th (index 27 of every 32), and +-2 % of noise from a hash of
 * the index (not the measurement's generator, so probes do not change the
 * points' noise). */
static int fake_probe(mbx_backend *b, int peer, int rounds, double *lat)
{
    fake *f = b->impl;
    if (peer <= 0 || peer >= b->nranks || rounds < 1 || rounds > 1000)
        return MBX_E_INVAL;
    size_t i = f->nprobe++;
    int high = probe_high(i);
    uint32_t h = (uint32_t)(i * 2654435761u);
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    double noise = 0.04 * ((double)(h % 1000) / 1000.0 - 0.5);
    *lat = (high ? 0.7e-6 : 0.2e-6) * (1.0 + noise);
    f->clock += (double)(rounds + 1) * 2.0 * *lat;
    return MBX_OK;
}

/* ---- the fake's b_eff and b_eff_io: rows of the real shape (the real
 * patterns, sizes, methods; Table 2's patterns and time units) with
 * bandwidths from a simple model, so the screen can be tested headless.
 * The summary follows the aggregation rules of the paper on these made-up
 * rows; its rules text says so. ---- */

static const char *const fake_methods[MBX_BEFF_NMETHODS] = {"sendrecv", "alltoallv", "nonblocking"};

/* Time of one iteration: every process sends nsteps messages of L bytes;
 * the method costs latency, the pattern kind and the ring number cost
 * bandwidth. */
static double fake_beff_iter(fake *f, const mbx_beff_pattern *p, int method, uint64_t L)
{
    static const double mlat[] = {1.0, 1.6, 0.9}, mbw[] = {1.0, 0.85, 1.08};
    double lat = 1.5e-6 * mlat[method], bw = 3000e6 * mbw[method];
    if (p->kind == MBX_BEFF_RING)
        bw *= 1.0 - 0.05 * (double)atoi(p->name + 4);
    else if (p->kind == MBX_BEFF_RANDOM)
        bw *= 0.6;
    else
        bw *= 0.75;
    double noise = 1.0 + 0.06 * (fake_uniform(f) - 0.5);
    return (double)(p->nsteps > 0 ? p->nsteps : 1) * (lat + (double)L / bw) * noise;
}

static double fake_beff_logavg_of(const double *per, const mbx_beff_patterns *ps, int kind)
{
    double v[MBX_BEFF_NRANDOM_MAX];
    size_t n = 0;
    for (size_t i = 0; i < ps->n && n < MBX_BEFF_NRANDOM_MAX; i++)
        if (ps->p[i].kind == kind)
            v[n++] = per[i];
    return mbx_beff_logavg(v, n);
}

/* What the fake's b_eff rows add up to, pattern by pattern. */
typedef struct fake_beff_sums {
    double *per;          /* the best method's bandwidth, summed over sizes / 21 */
    double *atmax;        /* the best method's bandwidth at Lmax */
    double pingpong_lmax; /* the ping-pong's at Lmax */
} fake_beff_sums;

/* The modelled rows of every pattern, size and method, handed to cb, and
 * their sums. MBX_OK, or MBX_E_ABORTED when cb asks to stop. */
static int fake_beff_rows(fake *f, const mbx_beff_patterns *ps, const uint64_t *sizes, int reps,
                          mbx_beff_progress cb, void *ud, fake_beff_sums *sum)
{
    int rc = MBX_OK;
    size_t total = 0, done = 0;
    for (size_t i = 0; i < ps->n; i++)
        total += MBX_BEFF_NSIZES * (size_t)(ps->p[i].pingpong ? 1 : MBX_BEFF_NMETHODS);
    for (size_t i = 0; i < ps->n && rc == MBX_OK; i++) {
        const mbx_beff_pattern *p = &ps->p[i];
        int nm = p->pingpong ? 1 : MBX_BEFF_NMETHODS;
        int len[MBX_BEFF_NMETHODS] = {MBX_BEFF_LOOP_FIRST, MBX_BEFF_LOOP_FIRST,
                                      MBX_BEFF_LOOP_FIRST};
        for (int si = 0; si < MBX_BEFF_NSIZES && rc == MBX_OK; si++) {
            double best = 0;
            for (int m = 0; m < nm && rc == MBX_OK; m++) {
                double it = fake_beff_iter(f, p, m, sizes[si]);
                int l = (int)(MBX_BEFF_LOOP_AIM / it);
                len[m] = l < 1 ? 1 : l < len[m] ? l : len[m];
                double t = it * len[m];
                f->clock += reps * t;
                mbx_beff_row row = {.pattern = p->name,
                                    .kind = p->kind,
                                    .bytes = sizes[si],
                                    .method = fake_methods[m],
                                    .looplength = len[m],
                                    .time_s = t,
                                    .mbps = (double)p->messages * (double)sizes[si] / it / 1e6,
                                    .index = done,
                                    .size_index = si,
                                    .messages = p->messages};
                if (row.mbps > best)
                    best = row.mbps;
                done++;
                if (cb && cb(ud, &row, done, total) != 0)
                    rc = MBX_E_ABORTED;
            }
            sum->per[i] += best / MBX_BEFF_NSIZES;
            if (si == MBX_BEFF_NSIZES - 1) {
                sum->atmax[i] = best;
                if (p->pingpong)
                    sum->pingpong_lmax = best;
            }
        }
    }
    return rc;
}

/* The b_eff figures of the sums, aggregated like b_eff's (out is cleared
 * first; the caller adds what the run was asked). */
static void fake_beff_aggregate(const mbx_beff_patterns *ps, const fake_beff_sums *sum, int nranks,
                                double rmax_gflops, mbx_beff_summary *out)
{
    memset(out, 0, sizeof *out);
    out->ring_logavg_mbps = fake_beff_logavg_of(sum->per, ps, MBX_BEFF_RING);
    out->random_logavg_mbps = fake_beff_logavg_of(sum->per, ps, MBX_BEFF_RANDOM);
    double two[2] = {out->ring_logavg_mbps, out->random_logavg_mbps};
    out->beff_mbps = mbx_beff_logavg(two, 2);
    out->beff_per_proc_mbps = out->beff_mbps / nranks;
    out->ring_lmax_mbps = fake_beff_logavg_of(sum->atmax, ps, MBX_BEFF_RING);
    two[0] = out->ring_lmax_mbps;
    two[1] = fake_beff_logavg_of(sum->atmax, ps, MBX_BEFF_RANDOM);
    out->beff_lmax_mbps = mbx_beff_logavg(two, 2);
    out->pingpong_lmax_mbps = sum->pingpong_lmax;
    out->balance = rmax_gflops > 0 ? out->beff_mbps / (rmax_gflops * 1e3) : 0;
}

static int fake_beff(mbx_backend *b, const mbx_beff_opts *o, mbx_beff_progress cb, void *ud,
                     mbx_beff_summary *out)
{
    fake *f = b->impl;
    if (b->nranks < 2 || o->reps < 0 || o->reps > 10 || o->nrandom < 0 ||
        o->nrandom > MBX_BEFF_NRANDOM_MAX)
        return MBX_E_INVAL;
    uint64_t mem = o->mem_per_proc ? o->mem_per_proc : b->mem_per_rank;
    uint64_t lmax = mbx_beff_lmax(mem, o->cap128, o->quick_lmax), sizes[MBX_BEFF_NSIZES];
    if (mbx_beff_sizes(lmax, sizes) < 0)
        return MBX_E_INVAL;
    int nrandom = o->nrandom ? o->nrandom : MBX_BEFF_NRANDOM, reps = o->reps ? o->reps : 3;
    mbx_beff_patterns ps;
    int rc = mbx_beff_patterns_build(b->nranks, nrandom, o->seed, &ps);
    if (rc < 0)
        return rc;
    fake_beff_sums sum = {calloc(ps.n, sizeof *sum.per), calloc(ps.n, sizeof *sum.atmax), 0};
    if (!sum.per || !sum.atmax)
        rc = MBX_E_NOMEM;
    else
        rc = fake_beff_rows(f, &ps, sizes, reps, cb, ud, &sum);
    if (rc == MBX_OK) {
        fake_beff_aggregate(&ps, &sum, b->nranks, o->rmax_gflops, out);
        out->lmax = lmax;
        out->mem_per_proc = mem;
        out->mem_source = o->mem_per_proc ? "--mem-per-proc" : "fake back end: 8 GiB";
        out->lmax_capped = lmax < mem / 128;
        out->procs = b->nranks;
        out->nrandom = nrandom;
        snprintf(out->rules, sizeof out->rules,
                 "fake back end: modelled rows, not measurements; aggregated like b_eff (max "
                 "over methods, sum over sizes / 21, log averages)");
    }
    free(sum.per);
    free(sum.atmax);
    mbx_beff_patterns_free(&ps);
    return rc;
}

/* b_eff_io: every type, access method and pattern of Table 2, in that
 * order; each pattern takes 90 % of its share of T at a modelled rate. */
static int fake_beffio(mbx_backend *b, const mbx_beffio_opts *o, mbx_beffio_progress cb, void *ud,
                       mbx_beffio_summary *out, char *msg, size_t msglen)
{
    fake *f = b->impl;
    double T = o->T_s > 0 ? o->T_s : 10.0;
    if (!(T >= 0.1 && T <= 86400)) {
        snprintf(msg, msglen, "--time: %g is not a number of seconds in 0.1..86400", T);
        return MBX_E_INVAL;
    }
    uint64_t mem = o->mem_per_proc ? o->mem_per_proc : b->mem_per_rank;
    uint64_t mpart = mbx_beffio_mpart(mem);
    mbx_beffio_pattern tab[MBX_BEFFIO_NPATTERNS];
    mbx_beffio_table(mpart, tab);
    static const double tbw[MBX_BEFFIO_NTYPES] = {900e6, 600e6, 1100e6, 700e6, 800e6};
    static const double abw[MBX_BEFFIO_NACCESS] = {0.7, 0.8, 1.4};
    double bytes[MBX_BEFFIO_NTYPES][MBX_BEFFIO_NACCESS] = {{0}};
    double time[MBX_BEFFIO_NTYPES][MBX_BEFFIO_NACCESS] = {{0}};
    size_t total = MBX_BEFFIO_NPATTERNS * MBX_BEFFIO_NACCESS, done = 0;
    double t0 = f->clock;
    for (int t = 0; t < MBX_BEFFIO_NTYPES; t++)
        for (int a = 0; a < MBX_BEFFIO_NACCESS; a++)
            for (int k = 0; k < mbx_beffio_type_count(t); k++) {
                const mbx_beffio_pattern *p = &tab[mbx_beffio_type_first(t) + k];
                uint64_t l = p->fill || !p->l ? MBX_BEFFIO_MIB : p->l;
                double rate = tbw[t] * abw[a] * (double)l / ((double)l + 65536.0) *
                              (p->wellformed ? 1.0 : 0.55) *
                              (1.0 + 0.06 * (fake_uniform(f) - 0.5)) * b->nranks;
                double ts = 0.9 * mbx_beffio_budget(T, p->unit);
                uint64_t reps = (uint64_t)(rate * ts / ((double)l * b->nranks));
                if (reps < 1)
                    reps = 1;
                double by = (double)reps * (double)l * b->nranks;
                ts = by / rate;
                f->clock += ts;
                bytes[t][a] += by;
                time[t][a] += ts;
                mbx_beffio_row row = {.type = t,
                                      .pattern = p->no,
                                      .access = mbx_beffio_access_name(a),
                                      .chunk_bytes = l,
                                      .mem_bytes = p->L ? p->L : l,
                                      .wellformed = p->wellformed,
                                      .unit = p->unit,
                                      .reps = reps,
                                      .bytes_total = by,
                                      .time_s = ts,
                                      .mbps = by / ts / 1e6};
                done++;
                if (cb && cb(ud, &row, done, total) != 0) {
                    snprintf(msg, msglen, "cancelled");
                    return MBX_E_ABORTED;
                }
            }
    memset(out, 0, sizeof *out);
    for (int t = 0; t < MBX_BEFFIO_NTYPES; t++)
        for (int a = 0; a < MBX_BEFFIO_NACCESS; a++)
            out->type_access_mbps[t][a] = bytes[t][a] / time[t][a] / 1e6;
    mbx_beffio_summarize(out);
    out->procs = b->nranks;
    out->T_s = T;
    out->mpart_bytes = mpart;
    out->wall_s = f->clock - t0;
    snprintf(out->rules, sizeof out->rules,
             "fake back end: modelled rows, not measurements; weighted like b_eff_io");
    return MBX_OK;
}

/* The test model: a stop signal where a test asked for one. */
static void fake_on_request(mbx_backend *b, int kind)
{
    fake *f = b->impl;
    if (kind == MBX_SCHED_PASS && f->stop_passes && ++f->passes == f->stop_passes)
        raise(SIGTERM);
    else if (kind == MBX_SCHED_DONE && f->stop_done)
        raise(SIGINT);
}

static void fake_model_of_env(fake *f)
{
    const char *v = getenv("MBX_TEST_FAKE_STOP_PASSES");
    f->stop_passes = v ? strtoull(v, NULL, 10) : 0;
    f->stop_done = getenv("MBX_TEST_FAKE_STOP_DONE") != NULL;
    f->plant = getenv("MBX_TEST_FAKE_PLANT") != NULL;
}

static int fake_pairs_nodes(mbx_backend *b, int per, int *rank, char (*host)[MBX_HOST_MAX],
                            char *msg, size_t msglen)
{
    (void)msg, (void)msglen;
    return mbx_fake_pairs_nodes(b->nranks, per, rank, host);
}

static int fake_pairs(mbx_backend *b, const mbx_pairs_plan *p, const int *rank,
                      mbx_pairs_progress_fn cb, void *ud, mbx_pairs_run *out, char *msg,
                      size_t msglen)
{
    (void)rank;
    return mbx_fake_pairs(&((fake *)b->impl)->clock, p, cb, ud, out, msg, msglen);
}

static double fake_now(mbx_backend *b)
{
    return ((fake *)b->impl)->clock;
}

void mbx_backend_fake(int nranks, mbx_backend *out)
{
    memset(out, 0, sizeof *out);
    fake *f = calloc(1, sizeof *f);
    if (f) {
        f->rng = 42;
        fake_model_of_env(f);
    }
    out->nranks = nranks;
    out->nhosts = mbx_fake_hosts(nranks);
    out->mem_per_rank = (uint64_t)8 << 30;
    snprintf(out->desc, sizeof out->desc, "%d ranks on %d host%s, fake back end (simulated)",
             nranks, out->nhosts, out->nhosts == 1 ? "" : "s");
    out->configure = fake_configure;
    out->measure = fake_measure;
    out->environment = fake_environment;
    out->pair_scan = fake_pair_scan;
    out->now = fake_now;
    out->set_method = fake_set_method;
    out->clock_info = fake_clock_info;
    out->probe = fake_probe;
    out->beff = fake_beff;
    out->beffio = fake_beffio;
    out->pairs_nodes = f ? fake_pairs_nodes : NULL;
    out->pairs = f ? fake_pairs : NULL;
    out->on_request = f ? fake_on_request : NULL;
    out->thread_asked = out->thread_granted = MPI_THREAD_SINGLE;
    out->fake = 1;
    out->impl = f;
}

void mbx_backend_fake_free(mbx_backend *b)
{
    fake *f = b->impl;
    if (f) {
        free(f->obs);
        free(f->scratch);
        free(f);
    }
    b->impl = NULL;
}
