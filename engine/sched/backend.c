/* The back ends of the explorer (see mbx/backend.h): settling, on either
 * back end, and the real back end over the MPI engine. The fake back end
 * (simulated ranks) is in backend_fake.c. */
#include "mbx/backend.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mbx/bench.h"
#include "mbx/envfile.h"
#include "mbx/thrinfo.h"

/* ---- settling, on either back end ---- */

typedef struct settle_clock {
    mbx_backend *b;
    double t0, secs;
    int (*stop)(void *ud);
    void *ud;
} settle_clock;

/* Rank 0 ends a round of settling barriers between two batches once the
 * time is up or the front end says stop; the other ranks follow its
 * POINT_END. */
static int settle_due(void *ud, const mbx_progress *p)
{
    const settle_clock *sc = ud;
    (void)p;
    return (sc->stop && sc->stop(sc->ud)) || sc->b->now(sc->b) - sc->t0 >= sc->secs;
}

int mbx_backend_settle(mbx_backend *b, double secs, int (*stop)(void *ud), void *ud, double *spent)
{
    settle_clock sc = {b, b->now(b), secs, stop, ud};
    int barrier = -1;
    (void)mbx_bench_find("coll.barrier", &barrier);
    mbx_point_spec spec = {.bench_id = barrier,
                           .procs = b->nranks,
                           .stop = {.kind = MBX_STOP_FIXED, .fixed = 256},
                           .nmin = 256,
                           .nmax = 256};
    int rc = 0;
    while (b->now(b) - sc.t0 < secs && !(stop && stop(ud))) {
        mbx_result r;
        rc = b->measure(b, &spec, settle_due, &sc, &r, NULL, NULL);
        if (rc == MBX_E_ABORTED) { /* the time is up, or a stop */
            rc = 0;
            break;
        }
        if (rc < 0)
            break;
    }
    if (spent)
        *spent = b->now(b) - sc.t0;
    return rc < 0 ? rc : 0;
}

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

/* The engine's capture, the thread level, and the thread binding of the
 * threaded points so far (a gather through the command loop). */
static int eng_environment(mbx_backend *b, mbx_kvlist *out)
{
    const mbx_thread_bind *tb = NULL;
    int rc = mbx_engine_environment(b->impl, out);
    if (rc >= 0)
        rc = mbx_thrinfo_level_env(out, b->thread_asked, b->thread_granted);
    if (rc >= 0)
        rc = mbx_engine_thread_binding(b->impl, &tb);
    if (rc >= 0)
        rc = mbx_thrinfo_binding_env(tb, b->nranks, out);
    return rc;
}

static int eng_thread_binding(mbx_backend *b, const mbx_thread_bind **out)
{
    return mbx_engine_thread_binding(b->impl, out);
}

static int eng_pair_scan(mbx_backend *b, double *lat, int *far)
{
    return mbx_engine_pair_scan(b->impl, 20, lat, far);
}

static int eng_beff(mbx_backend *b, const mbx_beff_opts *o, mbx_beff_progress cb, void *ud,
                    mbx_beff_summary *out)
{
    return mbx_beff_run(b->impl, o, cb, ud, out);
}

static int eng_beffio(mbx_backend *b, const mbx_beffio_opts *o, mbx_beffio_progress cb, void *ud,
                      mbx_beffio_summary *out, char *msg, size_t msglen)
{
    return mbx_beffio_run(b->impl, o, cb, ud, out, msg, msglen);
}

static double eng_now(mbx_backend *b)
{
    (void)b;
    return MPI_Wtime();
}

/* ---- every pair of nodes ---- */

static int eng_pairs_nodes(mbx_backend *b, int per, int *rank, char (*host)[MBX_HOST_MAX],
                           char *msg, size_t msglen)
{
    const mbx_job_info *job;
    int rc = mbx_engine_describe(b->impl, &job);
    if (rc < 0)
        return rc;
    int n = mbx_pairs_pick_nodes(job, per, rank, msg, msglen);
    for (int i = 0; i < n; i++)
        snprintf(host[i], MBX_HOST_MAX, "%s", job->rank[rank[i]].host);
    return n;
}

typedef struct eng_pairs_ctx {
    mbx_engine *e;
    const int *rank;
    int n;
    mbx_pairs_progress_fn cb;
    void *ud;
} eng_pairs_ctx;

static int eng_pairs_step(void *ud, const mbx_pairs_req *q, double *t)
{
    eng_pairs_ctx *c = ud;
    mbx_pairs_step s = {.mode = q->mode,
                        .metric = q->metric,
                        .bytes = q->bytes,
                        .window = q->window,
                        .k = q->k,
                        .src = q->src,
                        .dst = q->dst,
                        .nobs = q->nobs,
                        .nwarm = q->nwarm};
    return mbx_engine_pairs_step(c->e, c->rank, c->n, &s, t);
}

static double eng_pairs_clock(void *ud)
{
    (void)ud;
    return MPI_Wtime();
}

static void eng_pairs_sleep(void *ud, double s)
{
    (void)ud;
    struct timespec ts = {.tv_sec = (time_t)s, .tv_nsec = (long)((s - floor(s)) * 1e9)};
    nanosleep(&ts, NULL);
}

static int eng_pairs_progress(void *ud, const mbx_pairs_run *r, size_t done, size_t total)
{
    eng_pairs_ctx *c = ud;
    return c->cb ? c->cb(c->ud, r, done, total) : 0;
}

int mbx_pairs_run_engine(mbx_engine *e, const mbx_pairs_plan *p, const int *rank,
                         mbx_pairs_progress_fn cb, void *ud, mbx_pairs_run *out, char *msg,
                         size_t msglen)
{
    eng_pairs_ctx c = {.e = e, .rank = rank, .n = p ? p->n : 0, .cb = cb, .ud = ud};
    mbx_pairs_hooks h = {.step = eng_pairs_step,
                         .clock = eng_pairs_clock,
                         .sleep = eng_pairs_sleep,
                         .progress = eng_pairs_progress,
                         .ud = &c};
    int rc = mbx_pairs_run_plan(p, &h, out, msg, msglen);
    int rf = mbx_engine_pairs_free(e);
    return rc < 0 ? rc : rf;
}

static int eng_pairs(mbx_backend *b, const mbx_pairs_plan *p, const int *rank,
                     mbx_pairs_progress_fn cb, void *ud, mbx_pairs_run *out, char *msg,
                     size_t msglen)
{
    return mbx_pairs_run_engine(b->impl, p, rank, cb, ud, out, msg, msglen);
}

static int eng_set_largest(mbx_backend *b, uint64_t largest)
{
    mbx_warmup_info w;
    mbx_engine_warmup_info(b->impl, &w);
    return mbx_engine_set_warmup(b->impl, w.calls, largest);
}

static int eng_set_warmup(mbx_backend *b, int64_t calls, uint64_t largest)
{
    return mbx_engine_set_warmup(b->impl, calls, largest);
}

static void eng_warmup_info(mbx_backend *b, mbx_warmup_info *out)
{
    mbx_engine_warmup_info(b->impl, out);
}

static int eng_unbound(mbx_backend *b, char *who, size_t len)
{
    int n = 0;
    int rc = mbx_engine_unbound(b->impl, &n, who, len);
    return rc < 0 ? rc : n;
}

static const char *eng_why(mbx_backend *b)
{
    return mbx_engine_why(b->impl);
}

static int eng_stop_rank(mbx_backend *b)
{
    return mbx_engine_stop_rank(b->impl);
}

static int eng_set_method(mbx_backend *b, const mbx_method *m)
{
    int rc = mbx_engine_set_method(b->impl, m);
    b->cache_budget = mbx_engine_cache_budget(b->impl);
    return rc;
}

static void eng_clock_info(mbx_backend *b, mbx_clock_info *out)
{
    mbx_engine_clock_info(b->impl, out);
}

static int eng_probe(mbx_backend *b, int peer, int rounds, double *lat)
{
    return mbx_engine_probe(b->impl, peer, rounds, lat);
}

int mbx_backend_engine(mbx_engine *e, int thread_asked, int thread_granted, mbx_backend *out)
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
    out->set_method = eng_set_method;
    out->set_largest = eng_set_largest;
    out->set_warmup = eng_set_warmup;
    out->warmup_info = eng_warmup_info;
    out->unbound = eng_unbound;
    out->stop_rank = eng_stop_rank;
    out->why = eng_why;
    out->nhosts = job->nhosts;
    out->clock_info = eng_clock_info;
    out->probe = eng_probe;
    out->thread_binding = eng_thread_binding;
    out->thread_asked = thread_asked;
    out->thread_granted = thread_granted;
    out->beff = eng_beff;
    out->beffio = eng_beffio;
    out->pairs_nodes = eng_pairs_nodes;
    out->pairs = eng_pairs;
    out->impl = e;
    return MBX_OK;
}

int mbx_env_write(mbx_engine *e, int thread_asked, int thread_granted, const char *path)
{
    mbx_kvlist env = {0};
    int rc = mbx_engine_environment(e, &env);
    if (rc >= 0)
        rc = mbx_thrinfo_level_env(&env, thread_asked, thread_granted);
    return mbx_env_file_write(path, &env, rc);
}

const char *mbx_backend_strerror(mbx_backend *b, int rc, char *buf, size_t len)
{
    /* An MPI failure's text, or the line of a point's refused parameters
     * ("point parameter ...", engine/core/command.c). The engine keeps one
     * message, the last one: it is added only to the kind of error that
     * wrote it, so an MPI failure's text never explains a later refusal. */
    int has_why = rc == MBX_E_MPI || rc == MBX_E_INVAL || rc == MBX_E_PROTO;
    const char *why = has_why && b && b->why ? b->why(b) : "";
    int refusal = why && strncmp(why, "point parameter", 15) == 0;
    if (!why || !why[0] || !buf || !len || refusal != (rc != MBX_E_MPI))
        return mbx_strerror(rc);
    snprintf(buf, len, "%s (%s)", mbx_strerror(rc), why);
    return buf;
}
