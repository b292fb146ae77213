/* Batch front end. All ranks enter; rank 0 parses and validates everything
 * before the first measurement and tells the others to quit with code 2 on
 * bad input, so every rank exits alike and no partial file is left. */
#include "batch.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "job.h"
#include "mbx/bench.h"
#include "mbx/csvio.h"
#include "mbx/engine.h"
#include "mbx/plan.h"
#include "mbx/version.h"

extern const char mbx_embedded_quick_plan[];

#define MSG_LEN 512

typedef struct point {
    const mbx_measurement *meas;
    int bench_id;
    uint64_t bytes;
} point;

typedef struct run_state {
    mbx_run_opts opt;
    mbx_plan *plan;
    point *pts;
    size_t npts;
    const mbx_job_info *job;
    mbx_timer_info timer;
    double max_overhead;
    mbx_csv_writer *csv, *obs;
    char *env_path, *obs_path;
    double t0, last_progress;
    size_t done;
    int tty;
} run_state;

static void fail(const char *msg)
{
    fprintf(stderr, "mpibex: %s\n", msg);
}

/* Writable without creating it: the directory accepts files and an
 * existing file may be replaced. */
static int check_writable(const char *path, char *msg)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(msg, MSG_LEN, "-o: cannot write '%.200s': directory '%.200s': %s", path, dir,
                 strerror(errno));
        return -1;
    }
    if (access(path, F_OK) == 0 && access(path, W_OK) != 0) {
        snprintf(msg, MSG_LEN, "-o: cannot write '%.200s': %s", path, strerror(errno));
        return -1;
    }
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        snprintf(msg, MSG_LEN, "-o: '%.200s' is a directory; expected a file name", path);
        return -1;
    }
    return 0;
}

static void human_bytes(double b, char *buf, size_t len)
{
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    while (b >= 1024 && i < 4) {
        b /= 1024;
        i++;
    }
    snprintf(buf, len, "%.1f %s", b, u[i]);
}

static int build_plan(run_state *st, char *msg)
{
    int rc;
    st->plan = calloc(1, sizeof *st->plan);
    if (!st->plan) {
        snprintf(msg, MSG_LEN, "out of memory");
        return 1;
    }
    if (st->opt.plan_path) {
        rc = mbx_plan_load(st->opt.plan_path, st->plan, msg, MSG_LEN);
    } else if (st->opt.ov.bench) {
        st->plan->nmeas = 1;
        mbx_measurement_defaults(&st->plan->meas[0], "cli");
        rc = MBX_OK; /* --bench and the rest arrive as overrides below */
    } else {
        rc =
            mbx_plan_parse(mbx_embedded_quick_plan, "quick.ini (built in)", st->plan, msg, MSG_LEN);
    }
    if (rc < 0)
        return 2;
    if (mbx_plan_override(st->plan, &st->opt.ov, msg, MSG_LEN) < 0)
        return 2;
    return 0;
}

/* Resolve names, check rank counts and memory, expand the points. */
static int expand_points(run_state *st, int nranks, char *msg)
{
    size_t cap = 0;
    for (size_t m = 0; m < st->plan->nmeas; m++)
        cap += st->plan->meas[m].nbench * (st->plan->meas[m].sizes.n + 1);
    st->pts = calloc(cap ? cap : 1, sizeof *st->pts);
    if (!st->pts) {
        snprintf(msg, MSG_LEN, "out of memory");
        return 1;
    }
    for (size_t m = 0; m < st->plan->nmeas; m++) {
        const mbx_measurement *me = &st->plan->meas[m];
        for (size_t bi = 0; bi < me->nbench; bi++) {
            int id = mbx_bench_find(me->bench[bi]);
            if (id < 0) {
                snprintf(msg, MSG_LEN,
                         "bench: unknown benchmark '%s' in [%s] (see 'mpibex list' for the "
                         "%zu available)",
                         me->bench[bi], me->label, mbx_bench_count());
                return 2;
            }
            const mbx_bench *b = mbx_bench_get(id);
            if (nranks < b->min_procs) {
                snprintf(msg, MSG_LEN, "bench: %s needs at least %d ranks, the job has %d", b->name,
                         b->min_procs, nranks);
                return 2;
            }
            size_t nsz = (b->flags & MBX_BENCH_SIZED) ? me->sizes.n : 1;
            uint64_t last = UINT64_MAX;
            for (size_t si = 0; si < nsz; si++) {
                uint64_t bytes = mbx_bench_align(b, me->sizes.v[si]);
                if (bytes == last)
                    continue; /* two requested sizes round to one measured size */
                last = bytes;
                uint64_t need = 2 * b->buf_bytes(bytes, nranks);
                if (bytes > INT32_MAX || need > st->job->mem_per_rank / 10 * 9) {
                    char a[32], h[32], sz[32];
                    human_bytes((double)need, a, sizeof a);
                    human_bytes((double)st->job->mem_per_rank, h, sizeof h);
                    mbx_size_format(bytes, sz, sizeof sz);
                    snprintf(msg, MSG_LEN,
                             "sizes: %s at %s needs %s of buffers per rank; allowed: at most "
                             "90%% of the %s available per rank, and messages under 2GiB",
                             b->name, sz, a, h);
                    return 2;
                }
                st->pts[st->npts++] = (point){me, id, bytes};
            }
        }
    }
    return 0;
}

static int open_outputs(run_state *st, mbx_engine *e, char *msg)
{
    if (!st->opt.output)
        return 0;
    st->env_path = mbx_csv_sidecar(st->opt.output, ".env.csv");
    st->obs_path = st->opt.raw ? mbx_csv_sidecar(st->opt.output, ".obs.csv") : NULL;
    if (!st->env_path || (st->opt.raw && !st->obs_path)) {
        snprintf(msg, MSG_LEN, "out of memory");
        return 1;
    }
    mbx_kvlist env = {0};
    int rc = mbx_engine_environment(e, &env);
    if (rc < 0) {
        snprintf(msg, MSG_LEN, "environment capture failed: %s", mbx_strerror(rc));
        mbx_kv_free(&env);
        return 1;
    }
    static const char *const kvcols[] = {"key", "value"};
    mbx_csv_writer *w = NULL;
    rc = mbx_csv_writer_open(st->env_path, kvcols, 2, &w);
    for (size_t i = 0; rc >= 0 && i < env.n; i++) {
        const char *f[2] = {env.v[i].key, env.v[i].value};
        rc = mbx_csv_writer_row(w, f);
    }
    if (mbx_csv_writer_close(w) < 0 && rc >= 0)
        rc = MBX_E_IO;
    mbx_kv_free(&env);
    if (rc >= 0)
        rc = mbx_csv_writer_open(st->opt.output, mbx_result_columns, MBX_RESULT_NCOLS, &st->csv);
    if (rc >= 0 && st->obs_path)
        rc = mbx_csv_writer_open(st->obs_path, mbx_obs_columns, MBX_OBS_NCOLS, &st->obs);
    if (rc < 0) {
        snprintf(msg, MSG_LEN, "-o: cannot write results next to '%s': %s", st->opt.output,
                 strerror(errno));
        return 1;
    }
    return 0;
}

static int on_progress(void *ud, const mbx_progress *p)
{
    run_state *st = ud;
    if (mbx_stop_signal)
        return 1;
    if (st->opt.quiet || !st->tty)
        return 0;
    double now = MPI_Wtime();
    if (now - st->last_progress < 0.1)
        return 0;
    st->last_progress = now;
    fprintf(stderr, "\r\033[K[%zu/%zu] %s %llu B  n=%zu  err=%.2f%% (target %.2f%%)", st->done + 1,
            st->npts, mbx_bench_get(p->spec->bench_id)->name, (unsigned long long)p->spec->bytes,
            p->s->n, 100.0 * p->rel,
            p->spec->stop.kind == MBX_STOP_FIXED ? 100.0 : 100.0 * p->spec->stop.eps);
    return 0;
}

static void print_header(const run_state *st, int nranks)
{
    printf("# mpibex %s; %d ranks on %d host%s; timer %s (resolution %.0f ns, overhead %.0f ns)\n",
           MBX_VERSION, nranks, st->job->nhosts, st->job->nhosts == 1 ? "" : "s",
           mbx_timer_name(st->timer.kind), st->timer.resolution * 1e9, st->timer.overhead * 1e9);
    printf("# ping-pong: half round trip; collectives: max over ranks after a barrier; "
           "times in microseconds\n");
    printf("%-22s %5s %10s %6s %11s %11s %23s %7s %10s  %s\n", "# benchmark", "procs", "bytes", "n",
           "median_us", "tmean_us", "ci95_us", "err", "MB/s", "status");
    fflush(stdout);
}

static void print_row(const mbx_result *r)
{
    char ci[48], bw[24];
    snprintf(ci, sizeof ci, "[%.4g, %.4g]", r->s.ci_lo * 1e6, r->s.ci_hi * 1e6);
    double b = mbx_result_bandwidth(r);
    if (isfinite(b))
        snprintf(bw, sizeof bw, "%.2f", b);
    else
        snprintf(bw, sizeof bw, "-");
    double rel = mbx_stop_progress(&r->stop, &r->s);
    char relbuf[16];
    if (r->stop.kind == MBX_STOP_FIXED || !isfinite(rel))
        snprintf(relbuf, sizeof relbuf, "-");
    else
        snprintf(relbuf, sizeof relbuf, "%.2f%%", 100.0 * rel);
    printf("%-22s %5d %10llu %6zu %11.4f %11.4f %23s %7s %10s  %s\n", r->benchmark, r->procs,
           (unsigned long long)r->bytes, r->s.n, r->s.median * 1e6, r->s.tmean * 1e6, ci, relbuf,
           bw, mbx_point_status_name(r->status));
    fflush(stdout);
}

static void progress_line(run_state *st, int force)
{
    if (st->opt.quiet)
        return;
    double now = MPI_Wtime(), el = now - st->t0;
    if (st->tty) {
        fprintf(stderr, "\r\033[K");
        if (!force)
            return;
    } else if (!force && now - st->last_progress < 1.0) {
        return;
    }
    st->last_progress = now;
    double eta = st->done ? el / (double)st->done * (double)(st->npts - st->done) : 0;
    fprintf(stderr, "progress: %zu/%zu points (%.0f%%), %.1f s elapsed, ETA %.0f s\n", st->done,
            st->npts, 100.0 * (double)st->done / (double)st->npts, el, eta);
}

static int write_result(run_state *st, const mbx_result *r, const double *obs, size_t nobs)
{
    if (st->csv) {
        mbx_result_fields f;
        mbx_result_format(r, &f);
        if (mbx_csv_writer_row(st->csv, f.field) < 0)
            return -1;
    }
    if (st->obs) {
        char procs[16], bytes[24], idx[24], t[32];
        snprintf(procs, sizeof procs, "%d", r->procs);
        snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)r->bytes);
        for (size_t i = 0; i < nobs; i++) {
            snprintf(idx, sizeof idx, "%zu", i);
            snprintf(t, sizeof t, "%.4f", obs[i] * 1e6);
            const char *f[MBX_OBS_NCOLS] = {r->benchmark, procs, bytes, idx, t};
            if (mbx_csv_writer_row(st->obs, f) < 0)
                return -1;
        }
    }
    return 0;
}

/* Report a stop by signal; `inflight` is the point dropped, if any. */
static int interrupted(const run_state *st, const point *inflight)
{
    char lost[160] = "";
    if (inflight)
        snprintf(lost, sizeof lost, "; the point in flight (%s at %llu bytes) was dropped",
                 mbx_bench_get(inflight->bench_id)->name, (unsigned long long)inflight->bytes);
    fprintf(stderr, "mpibex: stopped by signal %d: %zu of %zu points finished%s%s%s\n",
            (int)mbx_stop_signal, st->done, st->npts, st->opt.output ? " and are in " : "",
            st->opt.output ? st->opt.output : "", lost);
    return 128 + (int)mbx_stop_signal;
}

static int measure_all(run_state *st, mbx_engine *e, int nranks)
{
    size_t counts[3] = {0, 0, 0};
    st->t0 = MPI_Wtime();
    print_header(st, nranks);
    for (size_t i = 0; i < st->npts; i++) {
        const point *p = &st->pts[i];
        if (mbx_stop_signal)
            return interrupted(st, NULL);
        mbx_point_spec spec = {.bench_id = p->bench_id,
                               .bytes = p->bytes,
                               .procs = nranks,
                               .stop = p->meas->stop,
                               .nmin = p->meas->nmin,
                               .nmax = p->meas->nmax,
                               .validate = st->opt.validate};
        mbx_result r;
        const double *obs = NULL;
        size_t nobs = 0;
        int rc = mbx_engine_measure(e, &spec, on_progress, st, &r, &obs, &nobs);
        if (st->tty && !st->opt.quiet)
            fprintf(stderr, "\r\033[K");
        if (rc == MBX_E_ABORTED)
            return interrupted(st, p);
        if (rc < 0) {
            fprintf(stderr, "mpibex: %s at %llu bytes failed: %s\n",
                    mbx_bench_get(p->bench_id)->name, (unsigned long long)p->bytes,
                    mbx_strerror(rc));
            return 1;
        }
        r.label = p->meas->label;
        print_row(&r);
        if (write_result(st, &r, obs, nobs) < 0) {
            fprintf(stderr, "mpibex: writing '%s' failed: %s\n", st->opt.output, strerror(errno));
            return 1;
        }
        counts[r.status]++;
        st->done++;
        progress_line(st, st->done == st->npts);
    }
    if (!st->opt.quiet) {
        fprintf(stderr, "done: %zu points (%zu settled, %zu unsettled, %zu unreliable) in %.1f s",
                st->npts, counts[0], counts[1], counts[2], MPI_Wtime() - st->t0);
        if (st->opt.output)
            fprintf(stderr, "; results in %s, environment in %s%s%s", st->opt.output, st->env_path,
                    st->obs_path ? ", observations in " : "", st->obs_path ? st->obs_path : "");
        fprintf(stderr, "\n");
    }
    return 0;
}

static int root_run(mbx_engine *e, int argc, char **argv, run_state *st)
{
    char msg[MSG_LEN] = "";
    int nranks = mbx_engine_size(e), rc;
    if ((rc = mbx_cli_parse_run(argc, argv, &st->opt, msg, sizeof msg)) != 0) {
        fail(msg);
        return rc;
    }
    if (st->opt.help) {
        mbx_cli_run_usage();
        return 0;
    }
    if ((rc = build_plan(st, msg)) != 0 || (rc = mbx_engine_describe(e, &st->job)) < 0 ||
        (rc = expand_points(st, nranks, msg)) != 0 ||
        (st->opt.output && (rc = check_writable(st->opt.output, msg)) != 0)) {
        if (rc == -1)
            rc = 2;
        else if (rc < 0) {
            snprintf(msg, sizeof msg, "describing the job failed: %s", mbx_strerror(rc));
            rc = 1;
        }
        fail(msg);
        return rc;
    }
    if ((rc = mbx_engine_configure(e, st->opt.timer, &st->timer, &st->max_overhead)) < 0) {
        snprintf(msg, sizeof msg, "--timer: %s cannot be used here: %s",
                 mbx_timer_name(st->opt.timer), mbx_strerror(rc));
        fail(msg);
        return 2;
    }
    if ((rc = open_outputs(st, e, msg)) != 0) {
        fail(msg);
        return rc;
    }
    st->tty = isatty(STDERR_FILENO);
    return measure_all(st, e, nranks);
}

int mbx_batch_root(mbx_engine *e, int argc, char **argv)
{
    run_state st;
    memset(&st, 0, sizeof st);
    int code = root_run(e, argc, argv, &st);
    if (mbx_csv_writer_close(st.csv) < 0 || mbx_csv_writer_close(st.obs) < 0) {
        fprintf(stderr, "mpibex: closing '%s' failed: %s\n", st.opt.output, strerror(errno));
        code = 1;
    }
    free(st.plan);
    free(st.pts);
    free(st.env_path);
    free(st.obs_path);
    return code;
}

int mbx_batch_run(int argc, char **argv)
{
    return mbx_job_run(argc, argv, mbx_batch_root);
}
