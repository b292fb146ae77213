/* The two back ends of the explorer. */
#include "backend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/bench.h"
#include "mbx/stats.h"

/* ---- the MPI engine ---- */

static int eng_configure(mbx_backend *b, mbx_timer_kind timer, mbx_timer_info *out)
{
    double worst;
    return mbx_engine_configure(b->impl, timer, out, &worst);
}

static int eng_measure(mbx_backend *b, const mbx_point_spec *spec, mbx_progress_fn progress,
                       void *ud, mbx_result *out, const double **obs, size_t *nobs)
{
    return mbx_engine_measure(b->impl, spec, progress, ud, out, obs, nobs);
}

static int eng_environment(mbx_backend *b, mbx_kvlist *out)
{
    return mbx_engine_environment(b->impl, out);
}

static int eng_pair_scan(mbx_backend *b, double *lat, int *far)
{
    return mbx_engine_pair_scan(b->impl, 20, lat, far);
}

static double eng_now(mbx_backend *b)
{
    (void)b;
    return MPI_Wtime();
}

int mbx_backend_engine(mbx_engine *e, mbx_backend *out)
{
    memset(out, 0, sizeof *out);
    const mbx_job_info *job;
    int rc = mbx_engine_describe(e, &job);
    if (rc < 0)
        return rc;
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(ver, &len);
    ver[strcspn(ver, "\n")] = '\0';
    for (char *p = ver; *p; p++)
        if (*p == '\t')
            *p = ' ';
    out->nranks = job->nranks;
    out->mem_per_rank = job->mem_per_rank;
    snprintf(out->desc, sizeof out->desc, "%d ranks on %d host%s, %.100s", job->nranks, job->nhosts,
             job->nhosts == 1 ? "" : "s", ver);
    out->configure = eng_configure;
    out->measure = eng_measure;
    out->environment = eng_environment;
    out->pair_scan = eng_pair_scan;
    out->now = eng_now;
    out->impl = e;
    return MBX_OK;
}

/* ---- the fake ---- */

typedef struct fake {
    double clock;
    mbx_timer_info timer;
    uint64_t rng;
    double *obs, *scratch;
    size_t cap;
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
    f->timer = (mbx_timer_info){timer, 1e-9, 20e-9, 25e-9};
    if (out)
        *out = f->timer;
    return MBX_OK;
}

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
static double fake_rank_lat(int r)
{
    return r == 0 ? 0.0 : 0.2e-6 + (r % 2 ? 0.3e-6 : 0.0) + 0.01e-6 * (r / 2);
}

#define FAKE_EAGER 12288.0 /* the ping-pong's protocol switch */

static double fake_time(const mbx_point_spec *sp)
{
    const mbx_bench *bn = mbx_bench_get(sp->bench_id);
    uint32_t h = name_hash(bn->name);
    double lat = 0.4e-6 * (1.0 + (double)(h % 64) / 32.0);
    double bw = 8e9 / (1.0 + (double)((h >> 6) % 16) / 8.0);
    double m = (double)sp->bytes, lp = log2((double)sp->procs);
    if (strcmp(bn->pattern, "simple") == 0)
        return 20e-9 * (1.0 + (double)(h % 16) / 4.0);
    if (bn->flags & MBX_BENCH_PAIR) {
        int a = sp->pair_a, b = sp->pair_b;
        if (a == b)
            a = 0, b = sp->procs - 1;
        lat += fabs(fake_rank_lat(b) - fake_rank_lat(a));
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

/* The checks the engine makes of a point, so the explorer's specs are
 * tested against the same rules headless. */
static int fake_check(const mbx_backend *b, const mbx_point_spec *sp, const mbx_bench *bn)
{
    int pa = sp->pair_a, pb = sp->pair_b;
    if (pa == pb)
        pa = 0, pb = sp->procs - 1;
    if (sp->procs < bn->min_procs || sp->procs < 1 || sp->procs > b->nranks || sp->param < 0 ||
        pa < 0 || pb < 0 || pa >= sp->procs || pb >= sp->procs || sp->root < 0 ||
        sp->root >= sp->procs || sp->bytes > INT32_MAX)
        return MBX_E_INVAL;
    return MBX_OK;
}

static int fake_pair_scan(mbx_backend *b, double *lat, int *far)
{
    fake *f = b->impl;
    *far = 0;
    for (int r = 0; r < b->nranks; r++) {
        lat[r] = fake_rank_lat(r);
        if (lat[r] > lat[*far])
            *far = r;
        f->clock += 20 * 2 * lat[r];
    }
    return MBX_OK;
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
    double base = fake_time(spec);
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
            f->obs[n + i] = base * (1.0 + noise);
            f->clock += f->obs[n + i] + 2e-6;
        }
        n += k;
        batches++;
        if (mbx_stats_summarize(f->obs, n, f->scratch, &s) < 0)
            return MBX_E_INVAL;
        v = mbx_stop_eval(&spec->stop, &s, f->timer.resolution, nmin, nmax);
        if (progress) {
            mbx_progress p = {spec, &s, mbx_stop_progress(&spec->stop, &s), batches};
            if (progress(ud, &p) != 0)
                return MBX_E_ABORTED;
        }
        k *= 2;
    }
    mbx_result_fill(out, spec, &s, v, nmin, nmax, f->timer.overhead, batches, f->clock - t0);
    out->validated = 0; /* the fake moves no data, so it never claims a check */
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
    return rc;
}

static double fake_now(mbx_backend *b)
{
    return ((fake *)b->impl)->clock;
}

void mbx_backend_fake(int nranks, mbx_backend *out)
{
    memset(out, 0, sizeof *out);
    fake *f = calloc(1, sizeof *f);
    if (f)
        f->rng = 42;
    out->nranks = nranks;
    out->mem_per_rank = (uint64_t)8 << 30;
    snprintf(out->desc, sizeof out->desc, "%d ranks on 1 host, fake back end (simulated)", nranks);
    out->configure = fake_configure;
    out->measure = fake_measure;
    out->environment = fake_environment;
    out->pair_scan = fake_pair_scan;
    out->now = fake_now;
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
