/* Batch front end. All ranks enter; rank 0 parses and validates everything
 * before the first measurement and tells the others to quit with code 2 on
 * bad input, so every rank exits alike and no partial file is left. */
#include "run.h"
#include "mbx/envfile.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "job.h"
#include "mbx/backend.h"
#include "mbx/bench.h"
#include "mbx/csvio.h"
#include "mbx/dir.h"
#include "mbx/engine.h"
#include "mbx/file.h"
#include "mbx/journal.h"
#include "mbx/monitor.h"
#include "mbx/output.h"
#include "mbx/plan.h"
#include "mbx/refine.h"
#include "mbx/sched.h"
#include "mbx/threads.h"
#include "mbx/thrinfo.h"
#include "mbx/version.h"
#include "sig.h"
#include "tprint.h"

extern const char mbx_embedded_quick_plan[];

#define MSG_LEN 512
/* Round trips of one monitor probe (after one warm-up). */
#define PROBE_ROUNDS 50

/* A curve: one benchmark at fixed parameters, measured along one axis
 * (message size; for unsized benchmarks process count, or the benchmark's
 * parameter, e.g. threads, when only that varies), grid first, then
 * adaptive refinement when the plan asks for it (size and P only). */
enum { AXIS_NONE, AXIS_SIZE, AXIS_PROCS, AXIS_PARAM };

typedef struct series {
    const mbx_measurement *meas;
    int bench_id;
    int64_t param;  /* 0: the benchmark's default; AXIS_PARAM: unused */
    int procs;      /* AXIS_SIZE / AXIS_PARAM / AXIS_NONE */
    uint64_t bytes; /* AXIS_PROCS / AXIS_NONE */
    int axis;
    uint64_t *grid; /* x: bytes or procs */
    size_t ngrid;
    int refine; /* refinement applies */
} series;

typedef struct run_state {
    mbx_run_opts opt;
    mbx_plan *plan;
    series *ser;
    size_t nser;
    size_t ngrid; /* grid points over every series */
    /* What measures: the MPI engine (mbx_backend_engine) or the fake
     * (--fake N); engine-only extras are the entries the fake leaves NULL. */
    mbx_backend *be, be_store;
    double t_idle;     /* the fake's clock stands still while the run idles: added */
    size_t passes_run; /* requests measured (MBX_TEST_FAKE_STOP_PASSES) */
    mbx_timer_info timer;
    int pair_a, pair_b; /* the ping-pong pair */
    int need_pair;
    int pair_known; /* given, resumed or 2 ranks; else the scheduler asks for a scan */
    uint64_t hash;
    mbx_csv_writer *csv, *obs;
    mbx_journal *journal;
    char *env_path, *obs_path, *journal_path;
    mbx_output out; /* -o claimed: its lock, or standard output (out_fd), or discard */
    int out_fd;
    int write_failed; /* a failed write was reported: the run stops, no second message */
    mbx_resume res;
    /* This run's clock to the journal's timeline: pass lines go after the
     * passes of the run resumed (mbx_resume.pass_end), so a run resumed
     * twice carries over passes that do not overlap in time. */
    double jt_offset;
    /* The journal's passes of unfinished points go into the run: not into
     * a file of an earlier format, whose rows have no passes column and
     * whose n, quartiles and fixed counts speak of one row's observations. */
    int carry;
    double t0, last_progress;
    double hook_t0;        /* MBX_TEST_PROBE_SHIFT: the first probe's time; <0: none yet */
    long rss0_kib;         /* rank 0's resident memory before the first point; -1: unknown */
    mbx_window_stats wsum; /* window sync: the points' window moves, summed */
    size_t wpoints;        /* window sync: points measured */
    size_t done, refined, skipped, kept_grid;
    size_t counts[MBX_POINT_STATUS_COUNT];
    uint64_t seed; /* the order's seed */
    /* The machine-state monitor (DESIGN, "The machine changes under you"). */
    mbx_monitor mon;
    mbx_sched *sched; /* the run's scheduler while it runs */
    size_t sched_min_passes, sched_max;
    double sched_span, sched_floor;
    const mbx_point_spec *spec;
    int tty;
    char notes[1024]; /* comment lines for the table's head */
    /* The thread binding of the threaded points (thrinfo.h): the last
     * gather, failed binds seen so far, and whether the warning is out. */
    const mbx_thread_bind *thr;
    int thr_seen, thr_warned;
    /* Points of accurate benchmarks (mbx_bench.companion), measured or kept
     * from a resumed run, for the table at the end (accurate_summary). */
    struct acc_row *acc;
    size_t nacc, capacc;
} run_state;

typedef struct acc_row {
    size_t ser;        /* index of the curve in run_state.ser */
    uint64_t x;        /* the point on the curve's axis */
    double acc, plain; /* the two medians in seconds; NAN when none */
} acc_row;

static void fail(const char *msg)
{
    mbx_tprintf(stderr, "mpibex: %s\n", msg);
}

/* Claim -o for this run (mbx/output.h): locked against a second run,
 * refused over earlier results without --force, never the plan file; "-"
 * puts the CSV rows on standard output (the table moves to stderr) and
 * /dev/null discards, both without sidecars. */
static int claim_output(run_state *st, char *msg)
{
    static const char *const sidecars[] = {".env.csv", ".obs.csv", ".probe.csv", ".journal", NULL};
    const char *out = st->opt.output;
    if (strcmp(out, "-") == 0 && (st->opt.resume || st->opt.raw)) {
        snprintf(msg, MSG_LEN, "-o -: standard output takes the result rows only; %s needs -o FILE",
                 st->opt.resume ? "--resume" : "--raw (FILE.obs.csv)");
        return 2;
    }
    const char *inputs[] = {st->opt.plan_path};
    mbx_output_req req = {.path = out,
                          .flags = MBX_OUTPUT_ALLOW_STDOUT | MBX_OUTPUT_ALLOW_DISCARD |
                                   (st->opt.force ? MBX_OUTPUT_FORCE : 0) |
                                   (st->opt.resume ? MBX_OUTPUT_RESUME : 0),
                          .sidecars = sidecars,
                          .journal = ".journal",
                          .inputs = inputs,
                          .ninputs = st->opt.plan_path ? 1 : 0,
                          .input_what = "the plan file"};
    int rc = mbx_output_claim(&req, &st->out, msg, MSG_LEN);
    if (rc < 0)
        return rc == MBX_E_NOMEM ? 1 : 2;
    if (st->out.kind == MBX_OUTPUT_DISCARD && st->opt.resume) {
        snprintf(msg, MSG_LEN, "--resume: -o '%.200s' is the null device; nothing to continue",
                 out);
        return 2;
    }
    if (st->out.kind == MBX_OUTPUT_STDOUT) {
        fflush(stdout);
        st->out_fd = dup(STDOUT_FILENO);
        if (st->out_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
            snprintf(msg, MSG_LEN, "-o -: cannot use standard output: %s", strerror(errno));
            return 1;
        }
    }
    if (st->out.kind == MBX_OUTPUT_STDOUT || st->out.kind == MBX_OUTPUT_DISCARD)
        st->opt.output = NULL; /* no sidecars, no journal */
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

static int check_memory(run_state *st, const mbx_bench *b, uint64_t bytes, int procs, char *msg)
{
    uint64_t need = 2 * b->buf_bytes(bytes, procs);
    if (bytes > INT32_MAX || need > st->be->mem_per_rank / 10 * 9) {
        char a[32], h[32], sz[32];
        human_bytes((double)need, a, sizeof a);
        human_bytes((double)st->be->mem_per_rank, h, sizeof h);
        mbx_size_format(bytes, sz, sizeof sz);
        snprintf(msg, MSG_LEN,
                 "sizes: %s at %s needs %s of buffers per rank; allowed: at most "
                 "90%% of the %s available per rank, and messages under 2GiB",
                 b->name, sz, a, h);
        return 2;
    }
    return 0;
}

static series *add_series(run_state *st, size_t cap, const mbx_measurement *me, int id,
                          int64_t param, char *msg)
{
    if (st->nser == cap) {
        snprintf(msg, MSG_LEN, "too many curves in the plan (at most %zu)", cap);
        return NULL;
    }
    series *s = &st->ser[st->nser++];
    memset(s, 0, sizeof *s);
    s->meas = me;
    s->bench_id = id;
    s->param = param;
    return s;
}

/* The process counts of a measurement, checked against the job. */
static int procs_of(const mbx_measurement *me, const mbx_bench *b, int nranks, const int **pv,
                    size_t *pn, int *one, char *msg)
{
    if (me->procs_all) {
        *one = nranks;
        *pv = one;
        *pn = 1;
    } else {
        *pv = me->procs;
        *pn = me->nprocs;
    }
    for (size_t i = 0; i < *pn; i++) {
        int p = (*pv)[i];
        if (p > nranks) {
            snprintf(msg, MSG_LEN, "procs: %d in [%s] is more than the job's %d ranks", p,
                     me->label, nranks);
            return 2;
        }
        if (p < b->min_procs) {
            snprintf(msg, MSG_LEN, "procs: %s needs at least %d ranks; [%s] asks for %d", b->name,
                     b->min_procs, me->label, p);
            return 2;
        }
        if ((b->flags & MBX_BENCH_ROOTED) && me->root >= p) {
            snprintf(msg, MSG_LEN, "root: %d is not a rank of a %d-process point; allowed 0..%d",
                     me->root, p, p - 1);
            return 2;
        }
    }
    return 0;
}

/* Resolve names, check ranks, roots, pairs and memory, build the curves. */
static int build_series(run_state *st, int nranks, char *msg)
{
    size_t cap = 0;
    for (size_t m = 0; m < st->plan->nmeas; m++) {
        /* A range is a wish, not a list: it ends at the job's size, so one
         * plan serves jobs of every size. */
        mbx_measurement *mm = &st->plan->meas[m];
        if (mm->procs_range && mm->procs[mm->nprocs - 1] > nranks && mm->procs[0] <= nranks) {
            while (mm->nprocs > 0 && mm->procs[mm->nprocs - 1] >= nranks)
                mm->nprocs--;
            mm->procs[mm->nprocs++] = nranks;
            size_t used = strlen(st->notes);
            snprintf(st->notes + used, sizeof st->notes - used,
                     "# [%s]: the procs range ends at the job's %d ranks\n", mm->label, nranks);
        }
    }
    for (size_t m = 0; m < st->plan->nmeas; m++) {
        const mbx_measurement *me = &st->plan->meas[m];
        cap += me->nbench * (me->nparam ? me->nparam : 1) * (me->nprocs ? me->nprocs : 1);
    }
    st->ser = calloc(cap ? cap : 1, sizeof *st->ser);
    if (!st->ser) {
        snprintf(msg, MSG_LEN, "out of memory");
        return 1;
    }
    for (size_t m = 0; m < st->plan->nmeas; m++) {
        const mbx_measurement *me = &st->plan->meas[m];
        for (size_t bi = 0; bi < me->nbench; bi++) {
            int id = -1;
            if (mbx_bench_find(me->bench[bi], &id) < 0) {
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
            int sized = (b->flags & MBX_BENCH_SIZED) != 0, one = nranks, rc;
            const int *pv = &one;
            size_t pn = 1;
            if (b->flags & MBX_BENCH_PAIR) {
                /* Ping-pong runs on the whole job; the pair exchanges. */
                st->need_pair = 1;
                if (!me->pair_auto && (me->pair_a >= nranks || me->pair_b >= nranks)) {
                    snprintf(msg, MSG_LEN, "pair: %d,%d is not a pair of ranks 0..%d of the job",
                             me->pair_a, me->pair_b, nranks - 1);
                    return 2;
                }
            } else if (b->flags & MBX_BENCH_INNER) {
                one = 1; /* one rank times calls; the others would only wait */
            } else if ((rc = procs_of(me, b, nranks, &pv, &pn, &one, msg)) != 0) {
                return rc;
            }
            if (me->nparam && !(b->flags & MBX_BENCH_PARAM)) {
                snprintf(msg, MSG_LEN, "param: %s takes no parameter (only %s)", b->name,
                         "benchmarks that list one, e.g. mw.* pieces");
                return 2;
            }
            for (size_t pi = 0; b->param_max && pi < me->nparam; pi++)
                if (me->param[pi] > b->param_max) {
                    snprintf(msg, MSG_LEN, "param: %s takes %s in 1..%lld (got %lld)", b->name,
                             b->param_name, (long long)b->param_max, (long long)me->param[pi]);
                    return 2;
                }
            if (!sized && pn == 1 && me->nparam > 1) {
                /* Only the parameter varies: one curve over it. */
                series *s = add_series(st, cap, me, id, 0, msg);
                if (!s)
                    return 1;
                s->axis = AXIS_PARAM;
                s->procs = pv[0];
                if (!(s->grid = calloc(me->nparam, sizeof *s->grid)))
                    return 1;
                for (size_t k = 0; k < me->nparam; k++)
                    s->grid[s->ngrid++] = (uint64_t)me->param[k];
                st->ngrid += s->ngrid;
                continue;
            }
            size_t npar = me->nparam ? me->nparam : 1;
            for (size_t pi = 0; pi < npar; pi++) {
                int64_t param = me->nparam ? me->param[pi] : 0;
                if (!sized && pn > 1) {
                    series *s = add_series(st, cap, me, id, param, msg);
                    if (!s)
                        return 1;
                    s->axis = AXIS_PROCS;
                    s->refine = me->refine > 0 && me->procs_range;
                    if (!(s->grid = calloc(pn, sizeof *s->grid)))
                        return 1;
                    for (size_t k = 0; k < pn; k++)
                        s->grid[s->ngrid++] = (uint64_t)pv[k];
                    st->ngrid += s->ngrid;
                    continue;
                }
                for (size_t k = 0; k < pn; k++) {
                    series *s = add_series(st, cap, me, id, param, msg);
                    if (!s)
                        return 1;
                    s->procs = pv[k];
                    s->axis = sized ? AXIS_SIZE : AXIS_NONE;
                    s->refine = sized && me->refine > 0;
                    if (!(s->grid = calloc(sized ? me->sizes.n : 1, sizeof *s->grid)))
                        return 1;
                    size_t nsz = sized ? me->sizes.n : 1;
                    uint64_t last = UINT64_MAX;
                    for (size_t si = 0; si < nsz; si++) {
                        uint64_t bytes = mbx_bench_align(b, me->sizes.v[si]);
                        if (bytes == last)
                            continue; /* two requested sizes round to one measured size */
                        last = bytes;
                        if ((rc = check_memory(st, b, bytes, s->procs, msg)) != 0)
                            return rc;
                        s->grid[s->ngrid++] = bytes;
                    }
                    st->ngrid += s->ngrid;
                }
            }
        }
    }
    return 0;
}

/* The fingerprint a resumed run must match: everything that decides which
 * points exist and how they are measured. */
static uint64_t plan_hash(const run_state *st, int nranks)
{
    char buf[512];
    uint64_t h = MBX_FNV_OFFSET;
    const mbx_method *m = &st->opt.method;
    int n =
        snprintf(buf, sizeof buf,
                 "ranks=%d timer=%d validate=%d sync=%d clock=%d,%d,%d window=%g,%g cache=%d,%llu",
                 nranks, (int)st->opt.timer, st->opt.validate, (int)m->sync, (int)m->clock.method,
                 m->clock.fitpoints, m->clock.exchanges, m->window, m->window_delay, (int)m->cache,
                 (unsigned long long)m->cache_bytes);
    h = mbx_fnv1a(h, buf, (size_t)n);
    /* The thread level changes what MPI costs; single adds nothing, so
     * journals of runs from before --thread-level still match. */
    if (st->be->thread_asked != MPI_THREAD_SINGLE) {
        n = snprintf(buf, sizeof buf, " thread_level=%d", st->be->thread_asked);
        h = mbx_fnv1a(h, buf, (size_t)n);
    }
    /* Made-up times never continue a measured run, nor the other way. */
    if (st->be->fake)
        h = mbx_fnv1a(h, " fake", 5);
    for (size_t i = 0; i < st->nser; i++) {
        const series *s = &st->ser[i];
        const mbx_measurement *me = s->meas;
        char rule[64];
        mbx_stop_format(&me->stop, rule, sizeof rule);
        n = snprintf(buf, sizeof buf, "|%s|%s|%lld|%d|%llu|%d|%d|%s|%zu|%zu|%g|%zu|%d|%d,%d,%d",
                     me->label, mbx_bench_get(s->bench_id)->name, (long long)s->param, s->procs,
                     (unsigned long long)s->bytes, s->axis, s->refine, rule, me->nmin, me->nmax,
                     me->refine, me->budget, me->root, me->pair_auto, me->pair_a, me->pair_b);
        h = mbx_fnv1a(h, buf, (size_t)n);
        h = mbx_fnv1a(h, s->grid, s->ngrid * sizeof *s->grid);
    }
    return h;
}

/* The run's clock in seconds: MPI_Wtime for the engine; for the fake its
 * simulated time, plus the time the run idled (which the fake does not
 * see), so passes are paced and spans reached without sleeping. */
static double run_clock(const run_state *st)
{
    return st->be->now(st->be) + st->t_idle;
}

/* The run's environment file: the back end's capture (the engine's, as
 * mbx_env_write, with the thread binding so far: none before the first
 * point; the fake's names the fake). */
static int env_write(run_state *st, const char *path)
{
    mbx_kvlist env = {0};
    int rc = st->be->environment(st->be, &env);
    return mbx_env_file_write(path, &env, rc);
}

static int open_outputs(run_state *st, char *msg)
{
    if (st->out.kind == MBX_OUTPUT_STDOUT &&
        mbx_csv_writer_fdopen(st->out_fd, mbx_result_columns, MBX_RESULT_NCOLS, &st->csv) < 0) {
        snprintf(msg, MSG_LEN, "-o -: writing to standard output failed: %s", strerror(errno));
        return 1;
    }
    if (!st->opt.output)
        return 0;
    st->env_path = mbx_csv_sidecar(st->opt.output, ".env.csv");
    st->journal_path = mbx_csv_sidecar(st->opt.output, ".journal");
    st->obs_path = st->opt.raw ? mbx_csv_sidecar(st->opt.output, ".obs.csv") : NULL;
    if (!st->env_path || !st->journal_path || (st->opt.raw && !st->obs_path)) {
        snprintf(msg, MSG_LEN, "out of memory");
        return 1;
    }
    const char *failed = st->env_path;
    int rc = env_write(st, st->env_path);
    if (rc >= 0) {
        /* The front end's own factors: the order and the monitor. */
        static const char *const kvcols[] = {"key", "value"};
        mbx_csv_writer *w = NULL;
        char seed[32];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)st->seed);
        const char *rows[][2] = {{"order", st->opt.order_plan ? "plan" : "shuffle"},
                                 {"seed", seed}};
        rc = mbx_csv_writer_append(st->env_path, kvcols, 2, &w);
        for (size_t i = 0; rc >= 0 && i < sizeof rows / sizeof *rows; i++)
            rc = mbx_csv_writer_row(w, rows[i]);
        if (mbx_csv_writer_close(w) < 0 && rc >= 0)
            rc = MBX_E_IO;
        if (rc >= 0)
            rc = mbx_monitor_write(&st->mon, st->opt.output, st->env_path, MBX_MONITOR_SETTINGS);
    }
    int (*open)(const char *, const char *const *, size_t, mbx_csv_writer **) =
        st->opt.resume ? mbx_csv_writer_append : mbx_csv_writer_open;
    if (rc >= 0) {
        /* A resumed file of an earlier version keeps its columns. */
        failed = st->opt.output;
        rc = open(st->opt.output, mbx_result_columns,
                  st->opt.resume && st->res.ncols ? st->res.ncols : MBX_RESULT_NCOLS, &st->csv);
    }
    if (rc >= 0 && st->obs_path) {
        failed = st->obs_path;
        /* A kill in the middle of a point's observations may have torn
         * the last one; appended rows must start on a line of their own. */
        if (st->opt.resume && access(st->obs_path, F_OK) == 0)
            rc = mbx_csv_trim_torn(st->obs_path, NULL);
        if (rc >= 0)
            rc = open(st->obs_path, mbx_obs_columns, MBX_OBS_NCOLS, &st->obs);
    }
    if (rc >= 0) {
        failed = st->journal_path;
        rc = mbx_journal_open(st->journal_path, st->hash, st->opt.resume, &st->journal);
        if (rc >= 0 && st->pair_known && (!st->opt.resume || !st->res.have_pair))
            rc = mbx_journal_pair(st->journal, st->pair_a, st->pair_b);
    }
    if (rc < 0) {
        snprintf(msg, MSG_LEN, "-o: cannot write '%s': %s", failed, mbx_file_why(errno));
        return 1;
    }
    return 0;
}

/* A result file could not take a write (rc from the writer, errno set):
 * say which, why, what is kept and how to go on, in one line; the run
 * stops with exit 1. When the file was removed or renamed under us (its
 * directory deleted), what the open files still hold is copied into a
 * new private directory, so the finished points survive and --resume can
 * continue from there. */
static int write_failure(run_state *st, const char *path, int rc)
{
    int err = errno;
    st->write_failed = 1;
    if (rc != MBX_E_GONE && !st->opt.output) { /* -o -: nothing to resume */
        fprintf(stderr, "mpibex: writing the results to standard output failed: %s\n",
                mbx_file_why(err));
        return 1;
    }
    if (rc != MBX_E_GONE) {
        fprintf(stderr,
                "mpibex: writing '%s' failed: %s; %zu finished points are in %s (complete rows "
                "only); free space or fix the file, then continue with --resume\n",
                path, mbx_file_why(err), st->res.n + st->done, st->opt.output);
        return 1;
    }
    /* A new private directory (mkdtemp, then opened without following and
     * checked to be ours and 0700, as every directory mpibex makes in a
     * shared place: mbx_dir_temp). */
    const char *tmp = mbx_dir_tmp(), *why = NULL;
    char dir[4096];
    const char *base = strrchr(st->opt.output, '/');
    base = base ? base + 1 : st->opt.output;
    char csv[4200] = "", *obs = NULL, *jr = NULL;
    int saved = mbx_dir_temp(tmp, "mpibex-rescue-", dir, sizeof dir, NULL, &why) == MBX_OK;
    if (saved) {
        snprintf(csv, sizeof csv, "%s/%s", dir, base);
        obs = st->obs ? mbx_csv_sidecar(csv, ".obs.csv") : NULL;
        jr = mbx_csv_sidecar(csv, ".journal");
        saved = mbx_csv_writer_copy(st->csv, csv) == 0 && jr &&
                mbx_journal_copy(st->journal, jr) == 0 &&
                (!st->obs || (obs && mbx_csv_writer_copy(st->obs, obs) == 0));
    }
    if (saved)
        fprintf(stderr,
                "mpibex: '%s' was removed or renamed while the run wrote it (%s); its %zu "
                "finished points are saved in %s; continue with --resume -o %s\n",
                path, mbx_file_why(err), st->res.n + st->done, csv, csv);
    else
        fprintf(stderr,
                "mpibex: '%s' was removed or renamed while the run wrote it (%s), and saving "
                "the %zu finished points under %s failed: %s\n",
                path, mbx_file_why(err), st->res.n + st->done, tmp, why ? why : strerror(errno));
    free(obs);
    free(jr);
    return 1;
}

static int on_progress(void *ud, const mbx_progress *p)
{
    run_state *st = ud;
    if (mbx_stop_signal)
        return 1;
    if (st->opt.quiet || !st->tty)
        return 0;
    double now = run_clock(st);
    if (now - st->last_progress < 0.1)
        return 0;
    st->last_progress = now;
    fprintf(stderr, "\r\033[K[%zu/%zu%s] %s P=%d %llu B  n=%zu  err=%.2f%% (target %.2f%%)",
            st->done + 1, st->ngrid, st->refined ? "+" : "", mbx_bench_get(p->spec->bench_id)->name,
            p->spec->procs, (unsigned long long)p->spec->bytes, p->s->n, 100.0 * p->rel,
            p->spec->stop.kind == MBX_STOP_FIXED ? 100.0 : 100.0 * p->spec->stop.eps);
    return 0;
}

static void print_title(const run_state *st, int nranks)
{
    printf("# mpibex %s; %d ranks on %d host%s; timer %s (resolution %.0f ns, overhead %.0f ns)\n",
           MBX_VERSION, nranks, st->be->nhosts, st->be->nhosts == 1 ? "" : "s",
           mbx_timer_name(st->timer.kind), st->timer.resolution * 1e9, st->timer.overhead * 1e9);
    if (st->be->fake)
        printf("# fake back end (--fake %d): simulated ranks in one process, no MPI; times are "
               "made up and their clock advances by what they take: for tests and demos, "
               "nothing is measured\n",
               nranks);
    printf("# MPI thread level: asked %s, granted %s\n",
           mbx_thread_level_name(st->be->thread_asked),
           mbx_thread_level_name(st->be->thread_granted));
}

static void print_header(void)
{
    printf("# ping-pong: half round trip between the ranks shown; collectives and master-worker: "
           "the first P ranks; times in microseconds; + marks a refined point\n");
    printf("%-26s %5s %-7s %11s %6s %11s %11s %23s %7s %10s  %s\n", "# benchmark", "procs", "ranks",
           "bytes", "n", "median_us", "tmean_us", "ci95_us", "err", "MB/s", "status");
    fflush(stdout);
}

static void print_row(const mbx_result *r)
{
    char ci[48], bw[24], name[48], bytes[32];
    snprintf(ci, sizeof ci, "[%.4g, %.4g]", r->s.ci_lo * 1e6, r->s.ci_hi * 1e6);
    double b = mbx_result_bandwidth(r);
    if (isfinite(b))
        snprintf(bw, sizeof bw, "%.2f", b);
    else
        snprintf(bw, sizeof bw, "-");
    /* Measured in passes: the between-pass relative error of the value. */
    double rel = r->passes ? r->s.stderr_ / r->s.median : mbx_stop_progress(&r->stop, &r->s);
    char relbuf[16];
    if ((r->stop.kind == MBX_STOP_FIXED && !r->passes) || !isfinite(rel))
        snprintf(relbuf, sizeof relbuf, "-");
    else
        snprintf(relbuf, sizeof relbuf, "%.2f%%", 100.0 * rel);
    if (r->param_name)
        snprintf(name, sizeof name, "%s %s=%lld", r->benchmark, r->param_name, (long long)r->param);
    else
        snprintf(name, sizeof name, "%s", r->benchmark);
    snprintf(bytes, sizeof bytes, "%s%llu", r->refined ? "+" : "", (unsigned long long)r->bytes);
    printf("%-26s %5d %-7s %11s %6zu %11.4f %11.4f %23s %7s %10s  %s", name, r->procs, r->ranks,
           bytes, r->s.n, r->s.median * 1e6, r->s.tmean * 1e6, ci, relbuf, bw,
           mbx_point_status_name(r->status));
    if (r->passes)
        printf("  %zu passes over %.2f s", r->passes, r->pass_span);
    if (r->levels > 1)
        printf(" (%zu levels: %.4g-%.4g us)", r->levels, r->level_lo * 1e6, r->level_hi * 1e6);
    if (r->events)
        printf("  events %zu", r->events); /* left out of the statistics */
    /* An accurate benchmark: the plain one's median at the same point. */
    int bid = -1;
    (void)mbx_bench_find(r->benchmark, &bid);
    const mbx_bench *bn = mbx_bench_get(bid);
    if (bn && bn->companion) {
        if (isfinite(r->plain))
            printf("  plain %.4f us", r->plain * 1e6);
        else
            printf("  plain -");
        if (r->plain_status != MBX_POINT_SETTLED)
            printf(" (%s)", mbx_point_status_name(r->plain_status));
    }
    putchar('\n');
    fflush(stdout);
}

static void progress_line(run_state *st, int force)
{
    if (st->opt.quiet)
        return;
    double now = run_clock(st), el = now - st->t0;
    if (st->tty) {
        fprintf(stderr, "\r\033[K");
        if (!force)
            return;
    } else if (!force && now - st->last_progress < 1.0) {
        return;
    }
    st->last_progress = now;
    size_t grid_done = st->done - st->refined + st->kept_grid;
    double eta = grid_done ? el / (double)st->done * (double)(st->ngrid - grid_done) : 0;
    fprintf(stderr,
            "progress: %zu/%zu grid points (%.0f%%) + %zu refined, %.1f s elapsed, "
            "ETA %.0f s (grid)\n",
            grid_done, st->ngrid, 100.0 * (double)grid_done / (double)st->ngrid, st->refined, el,
            eta);
}

/* The point's row, then its observations as one record: if those cannot
 * be written the row is taken back, so a row always has its observations
 * (a point without them is measured again on --resume). Returns 0, or the
 * exit code after write_failure's message. */
static int write_result(run_state *st, const mbx_result *r, const double *obs, size_t nobs,
                        const size_t *seg, size_t nseg)
{
    long long mark = mbx_csv_writer_mark(st->csv);
    if (st->csv) {
        mbx_result_fields f;
        mbx_result_format(r, &f);
        int rc = mbx_csv_writer_row(st->csv, f.field);
        if (rc < 0) {
            /* Gone: the row landed in a file no longer at its path; take
             * it back so what write_failure saves is the finished points. */
            int err = errno;
            if (rc == MBX_E_GONE && mbx_csv_writer_rewind(st->csv, mark) < 0)
                fprintf(stderr, "mpibex: taking the last row back out of '%s' failed: %s\n",
                        st->opt.output, strerror(errno));
            errno = err;
            return write_failure(st, st->opt.output, rc);
        }
    }
    if (st->obs) {
        char procs[16], bytes[24], idx[24], t[32], root[16] = "", param[24] = "", pass[24];
        snprintf(procs, sizeof procs, "%d", r->procs);
        snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)r->bytes);
        if (r->root >= 0)
            snprintf(root, sizeof root, "%d", r->root);
        if (r->param_name)
            snprintf(param, sizeof param, "%lld", (long long)r->param);
        int rc = mbx_csv_writer_hold(st->obs);
        /* pass: the measured pass each observation belongs to (seg counts
         * them, in order); a compare takes the pass medians as samples. */
        size_t k = 0, left = nseg ? seg[0] : nobs;
        for (size_t i = 0; rc >= 0 && i < nobs; i++) {
            while (left == 0 && k + 1 < nseg)
                left = seg[++k];
            left -= left > 0;
            snprintf(idx, sizeof idx, "%zu", i);
            snprintf(pass, sizeof pass, "%zu", k);
            mbx_obs_format_us(obs[i], t, sizeof t);
            const char *f[MBX_OBS_NCOLS] = {
                r->benchmark, procs, bytes, idx, t, r->label ? r->label : "", root, param, pass};
            rc = mbx_csv_writer_row(st->obs, f);
        }
        if (rc >= 0)
            rc = mbx_csv_writer_commit(st->obs);
        if (rc < 0) {
            int err = errno;
            if (mbx_csv_writer_rewind(st->csv, mark) < 0)
                fprintf(stderr, "mpibex: taking the last row back out of '%s' failed: %s\n",
                        st->opt.output, strerror(errno));
            errno = err;
            return write_failure(st, st->obs_path, rc);
        }
    }
    return 0;
}

/* Report a stop by signal. The count is the file's: rows kept from a
 * resumed run and this run's (passes of unfinished points are in the
 * journal, for --resume). */
static int interrupted(const run_state *st)
{
    char who[64] = "";
    int from = mbx_sig_from_rank(st->be->stop_rank ? st->be->stop_rank(st->be) : -1);
    if (from > 0)
        snprintf(who, sizeof who, " (at rank %d)", from);
    else if (mbx_stop_signal == SIGPIPE)
        snprintf(who, sizeof who, " (standard output was closed)");
    char open[96] = "";
    size_t pts = 0, passes = 0;
    for (size_t i = 0; st->journal && st->sched && i < mbx_sched_points(st->sched); i++) {
        mbx_sched_point_info in;
        if (mbx_sched_point_info_get(st->sched, i, &in) == 0 && !in.final && in.passes.b.r) {
            pts++;
            passes += in.passes.b.r;
        }
    }
    if (pts)
        snprintf(open, sizeof open, "; %zu passes of %zu unfinished points are in its journal",
                 passes, pts);
    fprintf(stderr, "mpibex: stopped by signal %d%s: %zu points finished%s%s%s%s\n",
            (int)mbx_stop_signal, who, st->res.n + st->done, st->opt.output ? " and are in " : "",
            st->opt.output ? st->opt.output : "", open,
            st->opt.output ? "; continue with --resume" : "");
    mbx_sig_reported();
    return 128 + (int)mbx_stop_signal;
}

/* One point of a curve at x. Returns 0 (measured, or skipped as finished),
 * or an exit code. *y gets the median in seconds (NAN if none). */
typedef struct pointref {
    const series *s;
    uint64_t x;
    int refined;
} pointref;

static void spec_of(const run_state *st, const pointref *p, mbx_point_spec *spec)
{
    const series *s = p->s;
    const mbx_measurement *me = s->meas;
    const mbx_bench *b = mbx_bench_get(s->bench_id);
    memset(spec, 0, sizeof *spec);
    spec->bench_id = s->bench_id;
    /* unsized: the grid holds 0 */
    spec->bytes = s->axis == AXIS_PROCS || s->axis == AXIS_PARAM ? s->bytes : p->x;
    spec->procs = s->axis == AXIS_PROCS ? (int)p->x : s->procs;
    spec->stop = me->stop;
    spec->nmin = me->nmin;
    spec->nmax = me->nmax;
    spec->param = s->axis == AXIS_PARAM ? (int64_t)p->x : s->param;
    spec->root = (b->flags & MBX_BENCH_ROOTED) ? me->root : 0;
    if (b->flags & MBX_BENCH_PAIR) {
        spec->pair_a = st->pair_a;
        spec->pair_b = st->pair_b;
    }
    spec->validate = st->opt.validate;
}

static void key_of(const mbx_point_spec *spec, const char *label, char *key)
{
    const mbx_bench *b = mbx_bench_get(spec->bench_id);
    long long param =
        (b->flags & MBX_BENCH_PARAM) ? (spec->param ? spec->param : b->param_default) : 0;
    mbx_point_key(key, MBX_KEY_MAX, label, b->name, spec->procs, spec->bytes, param,
                  (b->flags & MBX_BENCH_ROOTED) ? spec->root : -1);
}

/* The monitor's probe: rank 0 and the last rank. */
static int probe_cb(void *ud, double *lat, double *t)
{
    run_state *st = ud;
    int rc = st->be->probe(st->be, st->mon.peer, PROBE_ROUNDS, lat);
    if (rc < 0)
        return rc;
    /* Test hook: the probe is taken, but reads 1 us for 0.5 s from the
     * first probe and 3 us after, so the passes of every point straddle two
     * levels (tests/mpi/repro_tests.cmake). Fixed values, not the measured
     * one scaled: on a loaded machine the real probe moves by 3x on its
     * own. Counted from the first probe, not from the start: a slow start
     * (settle, pre-faulting) would otherwise put every probe after it. */
    *t = run_clock(st) - st->t0;
    const char *hook = getenv("MBX_TEST_PROBE_SHIFT");
    if (hook && strcmp(hook, "1") == 0) {
        if (st->hook_t0 < 0)
            st->hook_t0 = *t;
        *lat = *t - st->hook_t0 >= 0.5 ? 3e-6 : 1e-6;
    }
    return MBX_OK;
}

/* Keep a point of an accurate benchmark for the table at the end; other
 * benchmarks' points are not kept. Out of memory only shortens the table. */
static void note_accurate(run_state *st, const pointref *p, double acc, double plain)
{
    if (!mbx_bench_get(p->s->bench_id)->companion)
        return;
    if (st->nacc == st->capacc) {
        size_t cap = st->capacc ? 2 * st->capacc : 32;
        acc_row *a = realloc(st->acc, cap * sizeof *a);
        if (!a)
            return;
        st->acc = a;
        st->capacc = cap;
    }
    st->acc[st->nacc++] = (acc_row){(size_t)(p->s - st->ser), p->x, acc, plain};
}

/* After a point of a threaded benchmark: every rank's thread binding, and
 * one warning the first time some thread could not be bound. */
static int check_binding(run_state *st, const mbx_result *r)
{
    if (!st->be->thread_binding)
        return 0; /* the fake binds no threads */
    int rc = st->be->thread_binding(st->be, &st->thr);
    if (rc < 0) {
        st->thr = NULL;
        fprintf(stderr, "mpibex: gathering the thread binding after %s failed: %s\n", r->benchmark,
                mbx_strerror(rc));
        return 1;
    }
    char ranks[128];
    const char *what = "";
    if (mbx_thrinfo_binding_news(st->thr, st->be->nranks, &st->thr_seen, ranks, sizeof ranks,
                                 &what) > 0 &&
        !st->thr_warned) {
        st->thr_warned = 1;
        if (st->tty && !st->opt.quiet)
            fprintf(stderr, "\r\033[K");
        fprintf(stderr,
                "mpibex: warning: %s %s=%lld: threads could not be bound on rank%s %s (%s); "
                "their times may move with the scheduler%s%s\n",
                r->benchmark, r->param_name ? r->param_name : "param", (long long)r->param,
                strpbrk(ranks, ",-") ? "s" : "", ranks, what,
                st->env_path ? "; see threads_bind_* in " : "", st->env_path ? st->env_path : "");
    }
    return 0;
}

/* Rows added to the environment file after the run (it is written before
 * the first point): kv, made by the caller unless rc says it failed. A
 * failure is a warning naming `what`. kv is freed. */
static void env_append(const run_state *st, mbx_kvlist *kv, int rc, const char *what)
{
    static const char *const kvcols[] = {"key", "value"};
    mbx_csv_writer *w = NULL;
    if (rc >= 0 && kv->n > 0)
        rc = mbx_csv_writer_append(st->env_path, kvcols, 2, &w);
    for (size_t i = 0; rc >= 0 && w && i < kv->n; i++) {
        const char *f[2] = {kv->v[i].key, kv->v[i].value};
        rc = mbx_csv_writer_row(w, f);
    }
    if (mbx_csv_writer_close(w) < 0)
        rc = MBX_E_IO;
    mbx_kv_free(kv);
    if (rc < 0)
        fprintf(stderr, "mpibex: warning: could not add %s to %s: %s\n", what, st->env_path,
                mbx_strerror(rc));
}

/* The thread binding of the run's threaded points, after the run. */
static void binding_env(run_state *st, int nranks)
{
    if (!st->thr || !st->env_path)
        return;
    mbx_kvlist kv = {0};
    int rc = mbx_thrinfo_binding_env(st->thr, nranks, &kv);
    env_append(st, &kv, rc, "the thread binding");
}

/* A field of /proc/self/status in KiB (VmRSS: resident now, VmHWM: its
 * peak so far); -1 if unknown. Both from the same counters, so the peak is
 * never below an earlier resident size (getrusage's ru_maxrss and statm
 * are counted differently and can disagree by a few hundred KiB). */
static long proc_status_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    size_t len = strlen(field);
    long kib = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, field, len) == 0 && line[len] == ':') {
            if (sscanf(line + len + 1, "%ld", &kib) != 1)
                kib = -1;
            break;
        }
    fclose(f);
    return kib;
}

/* Rank 0's memory over the run: resident before the first point and the
 * peak, printed and in the environment file. Rank 0 keeps one point's
 * observations (the engine reduces each batch over the ranks before it
 * reaches rank 0), so the growth follows the observations per point, not
 * ranks times observations (docs/hardening.md, "Scale"). */
static void memory_report(run_state *st)
{
    long peak = proc_status_kib("VmHWM");
    if (st->rss0_kib < 0 || peak < 0)
        return;
    printf("# rank 0 memory: %.1f MiB resident before the first point, peak %.1f MiB\n",
           (double)st->rss0_kib / 1024.0, (double)peak / 1024.0);
    if (!st->env_path)
        return;
    mbx_kvlist kv = {0};
    int rc = mbx_kv_addf(&kv, "rank0_rss_first_point_kib", "%ld", st->rss0_kib);
    if (rc >= 0)
        rc = mbx_kv_addf(&kv, "rank0_max_rss_kib", "%ld", peak);
    env_append(st, &kv, rc, "rank 0's memory");
}

/* What the engine's warm-up did (DESIGN, "Measuring one point"): printed
 * and in the environment file, so a test (and a reader) sees that it ran. */
static void warmup_report(run_state *st)
{
    mbx_warmup_info w;
    if (!st->be->warmup_info)
        return; /* the fake warms nothing up */
    st->be->warmup_info(st->be, &w);
    char pre[256] = "none (one rank)";
    size_t at = 0;
    for (int i = 0; i < w.nsizes && at < sizeof pre; i++) {
        char sz[32];
        mbx_size_format(w.size[i], sz, sizeof sz);
        int k = snprintf(pre + at, sizeof pre - at, "%s%s x%lld", i ? ", " : "", sz,
                         (long long)w.rounds[i]);
        at += k > 0 ? (size_t)k : 0;
    }
    if (w.points == 0)
        return;
    printf("# warm-up: %lld-%lld untimed calls before each of %zu points (--warmup %lld); "
           "pre-faulted %d pair%s: %s round trips; %zu batch%s page-faulted and were "
           "measured again\n",
           (long long)w.point_min, (long long)w.point_max, w.points, (long long)w.calls, w.pairs,
           w.pairs == 1 ? "" : "s", pre, w.redone, w.redone == 1 ? "" : "es");
    if (!st->env_path)
        return;
    mbx_kvlist kv = {0};
    int rc = mbx_kv_addf(&kv, "warmup_calls", "%lld", (long long)w.calls);
    if (rc >= 0)
        rc = mbx_kv_addf(&kv, "warmup_point_min", "%lld", (long long)w.point_min);
    if (rc >= 0)
        rc = mbx_kv_addf(&kv, "warmup_point_max", "%lld", (long long)w.point_max);
    if (rc >= 0)
        rc = mbx_kv_addf(&kv, "warmup_points", "%zu", w.points);
    if (rc >= 0)
        rc = mbx_kv_addf(&kv, "warmup_prefault_pairs", "%d", w.pairs);
    if (rc >= 0)
        rc = mbx_kv_addf(&kv, "warmup_prefault", "%s", w.nsizes ? pre : "");
    if (rc >= 0)
        rc = mbx_kv_addf(&kv, "warmup_prefault_s", "%.6f", w.seconds);
    if (rc >= 0)
        rc = mbx_kv_addf(&kv, "faults_redone_batches", "%zu", w.redone);
    if (rc >= 0)
        rc = mbx_kv_addf(&kv, "warmup_light_points", "%zu", w.light_points);
    if (rc >= 0)
        rc = mbx_kv_addf(&kv, "warmup_light_min", "%lld", (long long)w.light_min);
    if (rc >= 0)
        rc = mbx_kv_addf(&kv, "warmup_light_max", "%lld", (long long)w.light_max);
    if (rc >= 0)
        rc = mbx_kv_addf(&kv, "warmup_capped", "%zu", w.capped);
    env_append(st, &kv, rc, "the warm-up");
}

/* The largest message size of the plan: the engine pre-faults every pair
 * up to it before the first point. */
static uint64_t plan_largest(const run_state *st)
{
    uint64_t m = 0;
    for (size_t i = 0; i < st->nser; i++) {
        const series *s = &st->ser[i];
        if (s->axis == AXIS_SIZE) {
            for (size_t g = 0; g < s->ngrid; g++)
                if (s->grid[g] > m)
                    m = s->grid[g];
        } else if (s->bytes > m) {
            m = s->bytes;
        }
    }
    return m;
}

/* Window sync: how the windows moved over the run, in the environment
 * file (a bounded run shows few batches per point and windows that shrank
 * back after growing). */
static void window_report(run_state *st)
{
    if (!st->wpoints || !st->env_path)
        return;
    const mbx_window_stats *w = &st->wsum;
    mbx_kvlist kv = {0};
    int rc = mbx_kv_addf(&kv, "window_points", "%zu", st->wpoints);
    if (rc >= 0)
        rc = mbx_kv_addf(&kv, "window_grown", "%zu", w->grown);
    if (rc >= 0)
        rc = mbx_kv_addf(&kv, "window_shrunk", "%zu", w->shrunk);
    if (rc >= 0)
        rc = mbx_kv_addf(&kv, "window_smallest_s", "%.3e", w->smallest);
    if (rc >= 0)
        rc = mbx_kv_addf(&kv, "window_largest_s", "%.3e", w->largest);
    if (rc >= 0)
        rc = mbx_kv_addf(&kv, "window_resyncs", "%zu", w->resyncs);
    if (rc >= 0)
        rc = mbx_kv_addf(&kv, "window_gave_up", "%d", w->gave_up);
    env_append(st, &kv, rc, "the window sync summary");
}

static void window_note(run_state *st, const mbx_result *r, const char *name)
{
    const mbx_window_stats *w = &r->window;
    /* The fake keeps no windows: its rows carry no window figures to sum. */
    if (r->sync != MBX_SYNC_WINDOW || st->be->fake)
        return;
    if (!st->wpoints++) {
        st->wsum.smallest = w->smallest;
        st->wsum.largest = w->largest;
    }
    st->wsum.grown += w->grown;
    st->wsum.shrunk += w->shrunk;
    st->wsum.resyncs += w->resyncs;
    st->wsum.gave_up += w->gave_up;
    st->wsum.smallest = fmin(st->wsum.smallest, w->smallest);
    st->wsum.largest = fmax(st->wsum.largest, w->largest);
    if (w->gave_up)
        printf("# note: %s, %d procs, %llu bytes: window sync gave up after %.1f s and %zu "
               "batches (%zu observations kept, %zu dropped; --window-limit): %s\n",
               name, r->procs, (unsigned long long)r->bytes, r->wall, r->batches, r->s.n,
               r->invalid, mbx_point_status_name(r->status));
}

/* A point's row is in: print it, write it (row and pooled observations),
 * count it. Returns 0 or an exit code. */
static int finish_point(run_state *st, const pointref *p, mbx_result *r, const double *obs,
                        size_t nobs, const size_t *seg, size_t nseg)
{
    mbx_point_spec spec;
    char key[MBX_KEY_MAX];
    int rc;
    spec_of(st, p, &spec);
    key_of(&spec, p->s->meas->label, key);
    r->label = p->s->meas->label;
    r->refined = p->refined;
    r->stop = p->s->meas->stop; /* the target; its passes each took a fixed count */
    print_row(r);
    window_note(st, r, r->benchmark);
    if ((rc = mbx_journal_begin(st->journal, key, p->refined)) < 0)
        return write_failure(st, st->journal_path, rc);
    if ((rc = write_result(st, r, obs, nobs, seg, nseg)) != 0)
        return rc;
    st->counts[r->status]++;
    st->done++;
    /* The row is in: it counts as finished even if "done" cannot follow. */
    if ((rc = mbx_journal_done(st->journal, key)) < 0)
        return write_failure(st, st->journal_path, rc);
    st->refined += (size_t)p->refined;
    double y =
        r->status != MBX_POINT_UNRELIABLE && r->status != MBX_POINT_INVALID ? r->s.median : NAN;
    note_accurate(st, p, y, r->plain);
    if (mbx_thrinfo_binds(mbx_bench_get(spec.bench_id)) && check_binding(st, r) != 0)
        return 1;
    progress_line(st, 0);
    return 0;
}

/* Describe a curve for the summary lines: "coll.bcast [bc] P=4". */
static void series_name(const series *s, char *buf, size_t len)
{
    const mbx_bench *b = mbx_bench_get(s->bench_id);
    int n = snprintf(buf, len, "%s [%s]", b->name, s->meas->label);
    if (s->axis == AXIS_PARAM)
        n += snprintf(buf + n, len - (size_t)n, " over %s", b->param_name);
    else if (b->flags & MBX_BENCH_PARAM)
        n += snprintf(buf + n, len - (size_t)n, " %s=%lld", b->param_name,
                      (long long)(s->param ? s->param : b->param_default));
    if (s->axis == AXIS_PROCS)
        snprintf(buf + n, len - (size_t)n, " over P");
    else
        snprintf(buf + n, len - (size_t)n, " P=%d", s->procs);
}

static int cmp_acc(const void *a, const void *b)
{
    const acc_row *u = a, *v = b;
    if (u->ser != v->ser)
        return (u->ser > v->ser) - (u->ser < v->ser);
    return (u->x > v->x) - (u->x < v->x);
}

/* The end of a run with accurate benchmarks: for each of their curves, the
 * accurate median next to the plain one at every point, and their ratio. */
static void accurate_summary(run_state *st)
{
    if (st->nacc == 0)
        return;
    qsort(st->acc, st->nacc, sizeof *st->acc, cmp_acc);
    for (size_t i = 0; i < st->nacc;) {
        const series *s = &st->ser[st->acc[i].ser];
        const mbx_bench *b = mbx_bench_get(s->bench_id);
        char name[160];
        series_name(s, name, sizeof name);
        printf("# accurate vs plain, %s (medians in us; plain: %s at the same point, %s "
               "sync):\n",
               name, b->companion, mbx_sync_name(st->opt.method.sync));
        printf("# %14s %11s %11s %15s\n", s->axis == AXIS_PROCS ? "procs" : "bytes", "accurate",
               "plain", "accurate/plain");
        for (; i < st->nacc && &st->ser[st->acc[i].ser] == s; i++) {
            const acc_row *a = &st->acc[i];
            char av[24] = "-", pv[24] = "-", q[24] = "-";
            if (a->acc > 0)
                snprintf(av, sizeof av, "%.4f", a->acc * 1e6);
            if (a->plain > 0)
                snprintf(pv, sizeof pv, "%.4f", a->plain * 1e6);
            if (a->acc > 0 && a->plain > 0)
                snprintf(q, sizeof q, "%.3f", a->acc / a->plain);
            printf("# %14llu %11s %11s %15s\n", (unsigned long long)a->x, av, pv, q);
        }
    }
    fflush(stdout);
}

/* A curve's key and the refined points a resumed run already finished. */
typedef struct curve_state {
    size_t spent;
    char key[MBX_KEY_MAX];
} curve_state;

/* splitmix64: the seed of a run when none is given. */
static uint64_t next_rand(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void curve_summary(const series *s, size_t points, size_t refined, double worst)
{
    if (s->axis == AXIS_NONE || points < 3)
        return;
    char name[160];
    series_name(s, name, sizeof name);
    printf("# curve %s: %zu points (%zu refined), worst segment prediction error %.2f%%%s\n", name,
           points, refined, 100.0 * worst, s->refine ? "" : " (refinement off)");
    if (s->refine)
        printf("#   refinement target %.2f%%, budget %zu\n", 100.0 * s->meas->refine,
               s->meas->budget);
    fflush(stdout);
}

/* What the passes did: counts, and what SETTLED asked for. */
static void pass_summary(run_state *st, const mbx_sched *sch)
{
    mbx_sched_stats ss;
    mbx_sched_stats_get(sch, &ss);
    size_t n = mbx_sched_points(sch), minp = (size_t)-1, maxp = 0;
    double minspan = INFINITY;
    for (size_t i = 0; i < n; i++) {
        mbx_sched_point_info in;
        if (mbx_sched_point_info_get(sch, i, &in) < 0 || in.passes.b.r == 0)
            continue;
        minp = in.passes.b.r < minp ? in.passes.b.r : minp;
        maxp = in.passes.b.r > maxp ? in.passes.b.r : maxp;
        minspan = in.passes.span < minspan ? in.passes.span : minspan;
    }
    if (maxp == 0)
        return;
    if (st->env_path) {
        mbx_kvlist kv = {0};
        int rc = mbx_kv_addf(&kv, "passes_min", "%zu", st->sched_min_passes);
        if (rc >= 0)
            rc = mbx_kv_addf(&kv, "passes_span_s", "%.3f", st->sched_span);
        if (rc >= 0)
            rc = mbx_kv_addf(&kv, "passes_floor_s", "%.6f", st->sched_floor);
        if (rc >= 0)
            rc = mbx_kv_addf(&kv, "passes_max", "%zu", st->sched_max);
        if (rc >= 0)
            rc = mbx_kv_addf(&kv, "passes_time_limit_s", "%.3f", st->opt.time_limit);
        if (rc >= 0)
            rc = mbx_kv_addf(&kv, "passes_total", "%zu", ss.passes);
        if (rc >= 0)
            rc = mbx_kv_addf(&kv, "passes_rounds", "%zu", ss.rounds);
        if (rc >= 0)
            rc = mbx_kv_addf(&kv, "passes_buffer_offsets", "%s",
                             "random k*64 B, k in 0..63, per pass");
        env_append(st, &kv, rc, "the passes");
    }
    printf("# passes: %zu in %zu rounds over %.2f s (%zu to %zu per point, the shortest point "
           "spanning %.2f s); SETTLED asks for %zu passes over %.2f s and a between-pass error "
           "below the target\n",
           ss.passes, ss.rounds, ss.elapsed, minp, maxp, minspan, st->sched_min_passes,
           st->sched_span);
    /* What one launch cannot bound (issue 16, calibration): the passes
     * re-draw buffer offsets and time, not what a launch fixes. */
    printf("# the CI is between the passes of this launch: what a launch fixes (where buffers "
           "and transport segments land in memory, the machine level of the job) is outside "
           "it; 'mpibex repeat -k 5' gives a CI over launches\n");
    fflush(stdout);
}

/* The scheduler's options from the command line and the run. */
static void sched_opts_of(const run_state *st, mbx_sched_opts *o)
{
    mbx_sched_opts_init(o);
    if (st->opt.passes > 0)
        o->passes.min_passes = (size_t)st->opt.passes;
    if (st->opt.span >= 0)
        o->passes.min_span = st->opt.span;
    if (st->opt.pass_floor > 0)
        o->pass_floor = st->opt.pass_floor;
    if (st->opt.max_passes > 0)
        o->max_passes = (size_t)st->opt.max_passes;
    if (o->max_passes < o->passes.min_passes)
        o->max_passes = o->passes.min_passes;
    o->time_limit = st->opt.time_limit;
    o->probe_every = st->mon.peer ? MBX_SCHED_PROBE_EVERY_S : -1.0;
    o->resolution = st->timer.resolution;
    o->seed = st->seed;
    o->order_plan = st->opt.order_plan;
    o->nranks = st->be->nranks;
    o->settle = st->opt.settle;
}

/* A killed run's passes of a point without a row, moved from the journal's
 * timeline to before this run began (negative times, spacing kept). */
static int preload(run_state *st, mbx_sched *sch, size_t curve, uint64_t x,
                   const mbx_resume_open *o)
{
    mbx_pass *ps = malloc(o->npass * sizeof *ps);
    if (!ps)
        return MBX_E_NOMEM;
    for (size_t k = 0; k < o->npass; k++) {
        ps[k] = o->pass[k];
        ps[k].t_start -= st->jt_offset;
        ps[k].t_end -= st->jt_offset;
    }
    int rc = mbx_sched_preload(sch, curve, x, o->refined, ps, o->npass);
    free(ps);
    return rc;
}

/* One curve for the scheduler: its grid, its stop target, its refinement. */
static int sched_curve(run_state *st, mbx_sched *sch, const mbx_sched_opts *so, size_t i,
                       curve_state *c)
{
    const series *s = &st->ser[i];
    const mbx_bench *b = mbx_bench_get(s->bench_id);
    mbx_point_spec sp0;
    pointref p0 = {s, s->grid[0], 0};
    spec_of(st, &p0, &sp0);
    long long pv = (b->flags & MBX_BENCH_PARAM) ? (sp0.param ? sp0.param : b->param_default) : 0;
    mbx_curve_key(c->key, sizeof c->key, s->meas->label, b->name, pv,
                  (b->flags & MBX_BENCH_ROOTED) ? sp0.root : -1);
    c->spent = 0;
    for (size_t k = 0; k < st->res.n; k++)
        if (st->res.refined[k] && strcmp(st->res.curve[k], c->key) == 0 &&
            (s->axis == AXIS_PROCS || st->res.procs[k] == s->procs))
            c->spent++;
    /* Refined points carried over from the journal took budget too. */
    for (size_t k = 0; st->carry && k < st->res.nopen; k++)
        if (st->res.open[k].refined && strcmp(st->res.open[k].curve, c->key) == 0 &&
            (s->axis == AXIS_PROCS || st->res.open[k].procs == s->procs))
            c->spent++;
    mbx_sched_curve cv = {.grid = s->grid, .ngrid = s->ngrid, .ud = (void *)s};
    if (b->flags & MBX_BENCH_PAIR) {
        cv.pair = 1;
        cv.pair_a = st->pair_known ? st->pair_a : -1;
        cv.pair_b = st->pair_known ? st->pair_b : -1;
    }
    if (s->refine && s->meas->budget > c->spent) {
        cv.refine_eps = s->meas->refine;
        cv.budget = s->meas->budget - c->spent;
        cv.align = s->axis == AXIS_SIZE ? b->unit : 1;
        cv.geometric = s->axis == AXIS_SIZE;
        cv.min_ratio = s->axis == AXIS_SIZE ? MBX_REFINE_MIN_RATIO : 0.0;
    }
    /* nmin and nmax bound each pass (a test or a slow machine keeps
     * passes short with a small nmax). */
    cv.pass_nmin = s->meas->nmin;
    cv.pass_nmax = s->meas->nmax > s->meas->nmin ? s->meas->nmax : s->meas->nmin;
    const mbx_stop_rule *rule = &s->meas->stop;
    if (rule->kind == MBX_STOP_FIXED) { /* N observations over exactly R passes */
        cv.fixed_n = (rule->fixed + so->passes.min_passes - 1) / so->passes.min_passes;
        cv.max_passes = so->passes.min_passes;
    } else
        cv.eps = rule->eps;
    size_t id;
    if (mbx_sched_add_curve(sch, &cv, &id) < 0)
        return 1;
    /* Finished points of a resumed run: kept, fed to refinement. */
    for (size_t g = 0; g < s->ngrid; g++) {
        pointref p = {s, s->grid[g], 0};
        mbx_point_spec spec;
        char key[MBX_KEY_MAX];
        spec_of(st, &p, &spec);
        key_of(&spec, s->meas->label, key);
        long done = mbx_resume_find(&st->res, key);
        if (done < 0)
            continue;
        double y = st->res.median_s[done];
        if (mbx_sched_keep(sch, id, p.x, 0, y > 0 ? y : NAN) < 0)
            return 1;
        note_accurate(st, &p, y, st->res.plain_s[done]);
        st->skipped++;
        st->kept_grid += (size_t)!st->res.refined[done];
    }
    /* Points of a killed run without a row: the passes its journal holds. */
    for (size_t g = 0; g < s->ngrid; g++) {
        pointref p = {s, s->grid[g], 0};
        mbx_point_spec spec;
        char key[MBX_KEY_MAX];
        spec_of(st, &p, &spec);
        key_of(&spec, s->meas->label, key);
        long o = st->carry ? mbx_resume_find_open(&st->res, key) : -1;
        if (o >= 0 && preload(st, sch, id, p.x, &st->res.open[o]) < 0)
            return 1;
    }
    for (size_t k = 0; st->carry && k < st->res.nopen; k++) {
        const mbx_resume_open *o = &st->res.open[k];
        if (!o->refined || strcmp(o->curve, c->key) != 0)
            continue;
        uint64_t x;
        if (s->axis == AXIS_PROCS)
            x = (uint64_t)o->procs;
        else if (o->procs == s->procs)
            x = o->bytes;
        else
            continue;
        int on_grid = 0;
        for (size_t g = 0; g < s->ngrid; g++)
            on_grid |= s->grid[g] == x;
        if (!on_grid && preload(st, sch, id, x, o) < 0)
            return 1;
    }
    for (size_t k = 0; k < st->res.n; k++) {
        if (!st->res.refined[k] || strcmp(st->res.curve[k], c->key) != 0)
            continue;
        uint64_t x;
        if (s->axis == AXIS_PROCS)
            x = (uint64_t)st->res.procs[k];
        else if (st->res.procs[k] == s->procs)
            x = st->res.bytes[k];
        else
            continue;
        double y = st->res.median_s[k];
        if (mbx_sched_keep(sch, id, x, 1, y > 0 ? y : NAN) < 0)
            return 1;
        st->skipped++;
    }
    return 0;
}

/* A pass of a point, as the scheduler asked: a fixed count of
 * observations, a full warm-up only for the point's first measurement. */
static int run_pass(run_state *st, mbx_sched *sch, const mbx_sched_req *rq)
{
    const series *s = rq->curve_ud;
    pointref p = {s, rq->x, rq->refined};
    mbx_point_spec spec;
    spec_of(st, &p, &spec);
    spec.stop = (mbx_stop_rule){.kind = MBX_STOP_FIXED, .fixed = rq->nobs};
    spec.nmin = spec.nmax = rq->nobs;
    spec.warm_light = !rq->warm;
    spec.batch_first = rq->batch_first;
    spec.buf_offset = rq->buf_offset;
    if (mbx_bench_get(spec.bench_id)->flags & MBX_BENCH_PAIR) { /* the scheduler's pair */
        spec.pair_a = rq->pair_a;
        spec.pair_b = rq->pair_b;
    }
    mbx_result r;
    const double *obs = NULL;
    size_t nobs = 0;
    const char *name = mbx_bench_get(spec.bench_id)->name;
    st->spec = &spec;
    double t0 = run_clock(st) - st->t0;
    int rc = st->be->measure(st->be, &spec, on_progress, st, &r, &obs, &nobs);
    double t1 = run_clock(st) - st->t0;
    if (st->tty && !st->opt.quiet)
        fprintf(stderr, "\r\033[K");
    if (rc == MBX_E_ABORTED)
        return -1; /* the caller reports the stop */
    int64_t mpi_threads = mbx_thrinfo_mpi_threads(mbx_bench_get(spec.bench_id), spec.param);
    if (rc == MBX_E_UNSUPPORTED && mpi_threads > 1) {
        char why[MSG_LEN];
        mbx_thrinfo_multiple_msg(mbx_bench_get(spec.bench_id), mpi_threads, st->be->thread_asked,
                                 st->be->thread_granted, why, sizeof why);
        fail(why);
        return 1;
    }
    if (rc < 0) {
        fprintf(stderr, "mpibex: %s on %d procs at %llu bytes failed: %s\n", name, spec.procs,
                (unsigned long long)spec.bytes, mbx_strerror(rc));
        return 1;
    }
    mbx_sched_pass_report rep = {&r, obs, nobs, t0, t1 > t0 ? t1 : t0};
    if ((rc = mbx_sched_pass_done(sch, &rep)) < 0) {
        fprintf(stderr, "mpibex: %s on %d procs at %llu bytes: the scheduler refused a pass: %s\n",
                name, spec.procs, (unsigned long long)spec.bytes, mbx_strerror(rc));
        return 1;
    }
    /* The pass, as the scheduler keeps it, for --resume after a crash: the
     * point's row comes only when it is final. UNRELIABLE and INVALID
     * passes make it final at once (their row follows). */
    if (!rq->pilot && r.s.median > 0 && isfinite(r.s.median) && r.status != MBX_POINT_UNRELIABLE &&
        r.status != MBX_POINT_INVALID) {
        char key[MBX_KEY_MAX];
        key_of(&spec, s->meas->label, key);
        mbx_pass ps = {.median = r.s.median,
                       .n = r.s.n ? r.s.n : 1,
                       .t_start = rep.t_start + st->jt_offset,
                       .t_end = rep.t_end + st->jt_offset};
        if ((rc = mbx_journal_pass(st->journal, key, rq->refined, &ps)) < 0)
            return write_failure(st, st->journal_path, rc);
    }
    /* Test hook: a stop signal after the K-th request, so a test can stop
     * a fake run in the middle at the same place every time (the fake is
     * too quick to catch with kill); the signal's own path does the rest. */
    const char *hook = getenv("MBX_TEST_FAKE_STOP_PASSES");
    if (st->be->fake && hook && ++st->passes_run == strtoull(hook, NULL, 10))
        raise(SIGTERM);
    return 0;
}

/* Rows of the points the scheduler has finished. */
static int flush_final(run_state *st, mbx_sched *sch)
{
    size_t idx[64], n;
    while ((n = mbx_sched_take_final(sch, idx, 64)) > 0)
        for (size_t k = 0; k < n; k++) {
            mbx_sched_point_info in;
            mbx_result r;
            if (mbx_sched_point_info_get(sch, idx[k], &in) < 0 ||
                mbx_sched_result(sch, idx[k], &r) < 0)
                continue; /* a pass that failed: reported when it did */
            /* Curves were added in series order: a curve's index is its series'. */
            pointref p = {&st->ser[in.curve], in.x, in.refined};
            size_t nobs, nseg;
            const double *obs = mbx_sched_obs(sch, idx[k], &nobs);
            const size_t *seg = mbx_sched_obs_passes(sch, idx[k], &nseg);
            int code = finish_point(st, &p, &r, obs, nobs, seg, nseg);
            if (code)
                return code;
        }
    return 0;
}

/* Idle between passes: the scheduler paces a point's passes over the
 * run, and a short plan has nothing else due. The fake's clock is moved
 * on instead (as the explorer does): nothing would change while asleep. */
static void idle_for(run_state *st, double seconds)
{
    if (st->be->fake) {
        st->t_idle += seconds > 0 ? seconds : 1e-3;
        return;
    }
    mbx_sig_sleep(seconds);
}

static int scan_pair(run_state *st, mbx_sched *sch);
static int settle(run_state *st, mbx_sched *sch, double secs);

/* Every curve through the scheduler: passes of every point in shuffled
 * rounds, refinement between rounds, probes between passes; rows as
 * points become final. */
static int run_points(run_state *st)
{
    mbx_sched_opts so;
    sched_opts_of(st, &so);
    mbx_sched *sch = NULL;
    curve_state *cs = calloc(st->nser ? st->nser : 1, sizeof *cs);
    int code = !cs || mbx_sched_create(&so, &sch) < 0;
    for (size_t i = 0; !code && i < st->nser; i++)
        code = sched_curve(st, sch, &so, i, &cs[i]);
    if (code)
        fprintf(stderr, "mpibex: out of memory\n");
    st->sched = sch;
    st->sched_min_passes = so.passes.min_passes;
    st->sched_span = so.passes.min_span;
    st->sched_floor = so.pass_floor;
    st->sched_max = so.max_passes;
    while (!code) {
        if (mbx_stop_signal) {
            /* With a journal, the unfinished points' passes are in it and
             * --resume carries them over: their rows wait for it. Without
             * one (no -o, or -o -) there is nothing to resume: every point
             * is written as it stands. */
            if (!st->journal)
                mbx_sched_stop(sch);
            code = flush_final(st, sch);
            if (!code)
                code = interrupted(st);
            break;
        }
        mbx_sched_req rq;
        double now = run_clock(st) - st->t0;
        int k = mbx_sched_next(sch, now, &rq);
        if (k < 0) {
            fprintf(stderr, "mpibex: out of memory\n");
            code = 1;
        } else if (k == MBX_SCHED_DONE) {
            code = flush_final(st, sch);
            break;
        } else if (k == MBX_SCHED_WAIT) {
            idle_for(st, rq.wait);
        } else if (k == MBX_SCHED_PAIR) {
            code = scan_pair(st, sch);
        } else if (k == MBX_SCHED_SETTLE) {
            code = settle(st, sch, rq.settle);
        } else if (k == MBX_SCHED_PROBE) {
            double lat = NAN, t = now;
            int rc = probe_cb(st, &lat, &t);
            if (rc < 0) {
                fprintf(stderr, "mpibex: the monitor's probe failed: %s\n", mbx_strerror(rc));
                code = 1;
            } else if (mbx_monitor_add(&st->mon, t, lat) < 0 ||
                       mbx_sched_probe_done(sch, t, lat) < 0) {
                fprintf(stderr, "mpibex: out of memory\n");
                code = 1;
            }
        } else {
            int rc = run_pass(st, sch, &rq);
            if (rc < 0)
                continue; /* a signal: the top of the loop reports it */
            code = rc ? rc : flush_final(st, sch);
        }
    }
    for (size_t i = 0; !code && i < st->nser; i++) {
        size_t pts, refined;
        double worst;
        mbx_sched_curve_refine(sch, i, &pts, &refined, &worst);
        curve_summary(&st->ser[i], pts, refined + cs[i].spent, worst);
    }
    if (!code)
        pass_summary(st, sch);
    st->sched = NULL;
    mbx_sched_free(sch);
    free(cs);
    return code;
}

/* The levels the monitor saw: a summary line and one per segment; the
 * probe series next to the results (OUT.probe.csv) and the figures in the
 * environment file. */
static int monitor_report(run_state *st)
{
    if (!st->mon.peer || st->mon.n == 0)
        return 0;
    const mbx_levels *lv = mbx_monitor_levels(&st->mon);
    if (!lv) {
        fprintf(stderr, "mpibex: the monitor's level detection failed\n");
        return 1;
    }
    char line[512];
    mbx_monitor_summary(&st->mon, line, sizeof line);
    printf("# monitor (1-byte ping-pong, rank 0 and rank %d): %s\n", st->mon.peer, line);
    for (size_t g = 0; g < lv->nseg; g++)
        printf("#   %7.2f s - %7.2f s: %.3f us (level %d, %zu probes)\n",
               st->mon.t[lv->seg[g].begin], st->mon.t[lv->seg[g].end - 1], lv->seg[g].median * 1e6,
               lv->seg[g].level + 1, lv->seg[g].end - lv->seg[g].begin);
    fflush(stdout);
    if (st->opt.output && mbx_monitor_write(&st->mon, st->opt.output, st->env_path,
                                            MBX_MONITOR_FIGURES | MBX_MONITOR_SERIES) < 0) {
        fprintf(stderr,
                "mpibex: writing the monitor's files next to '%s' failed: %s; %zu finished "
                "points are in it; continue with --resume to write them\n",
                st->opt.output, mbx_file_why(errno), st->res.n + st->done);
        st->write_failed = 1;
        return 1;
    }
    return 0;
}

static int measure_all(run_state *st)
{
    st->t0 = run_clock(st);
    st->hook_t0 = -1.0;
    st->rss0_kib = proc_status_kib("VmRSS");
    if ((st->res.n || st->res.nopen) && st->carry)
        printf("# resumed: %zu finished points kept; %zu passes of %zu unfinished points "
               "carried over\n",
               st->res.n, st->res.npass, st->res.nopen);
    else if (st->res.n || st->res.nopen)
        printf("# resumed: %zu finished points kept; %zu passes of %zu unfinished points "
               "measured again (%s has no passes column to count them in)\n",
               st->res.n, st->res.npass, st->res.nopen, st->opt.output);
    if (st->opt.resume && st->res.ncols && st->res.ncols < MBX_RESULT_NCOLS)
        printf("# resumed: %s has the %zu columns of an earlier mpibex; new rows get those "
               "only (%s and later are left out)\n",
               st->opt.output, st->res.ncols, mbx_result_columns[st->res.ncols]);
    for (size_t i = 0; i < st->nser; i++)
        if (mbx_bench_get(st->ser[i].bench_id)->companion) {
            printf("# accurate benchmarks' rows end with plain: the median of their plain "
                   "benchmark at the same point, measured right before\n");
            break;
        }
    int code = run_points(st);
    if (code)
        return code;
    accurate_summary(st);
    if (monitor_report(st) != 0)
        return 1;
    memory_report(st);
    warmup_report(st);
    window_report(st);
    if (!st->opt.quiet) {
        progress_line(st, 1);
        fprintf(stderr,
                "done: %zu points measured (%zu refined; %zu settled, %zu unsettled, %zu "
                "unreliable",
                st->done, st->refined, st->counts[MBX_POINT_SETTLED],
                st->counts[MBX_POINT_UNSETTLED], st->counts[MBX_POINT_UNRELIABLE]);
        if (st->counts[MBX_POINT_SHIFTED])
            fprintf(stderr, ", %zu shifted", st->counts[MBX_POINT_SHIFTED]);
        if (st->counts[MBX_POINT_INVALID])
            fprintf(stderr, ", %zu invalid", st->counts[MBX_POINT_INVALID]);
        fprintf(stderr, ") in %.1f s", run_clock(st) - st->t0);
        if (st->skipped)
            fprintf(stderr, "; %zu finished points kept from the interrupted run", st->skipped);
        if (st->opt.output)
            fprintf(stderr, "; results in %s, environment in %s%s%s", st->opt.output, st->env_path,
                    st->obs_path ? ", observations in " : "", st->obs_path ? st->obs_path : "");
        fprintf(stderr, "\n");
    }
    return 0;
}

/* The ping-pong pair: given, kept from the resumed run, or (with more
 * than 2 ranks) left to the scan the scheduler asks for (scan_pair). */
static void choose_pair(run_state *st, int nranks)
{
    const mbx_measurement *me = NULL;
    for (size_t i = 0; i < st->nser && !me; i++)
        if (mbx_bench_get(st->ser[i].bench_id)->flags & MBX_BENCH_PAIR)
            me = st->ser[i].meas;
    st->pair_a = 0;
    st->pair_b = nranks - 1;
    st->pair_known = 1;
    if (!me)
        return;
    if (!me->pair_auto) {
        st->pair_a = me->pair_a;
        st->pair_b = me->pair_b;
        return;
    }
    if (st->res.have_pair) {
        st->pair_a = st->res.pair_a;
        st->pair_b = st->res.pair_b;
        printf("# ping-pong pair: ranks %d and %d (kept from the resumed run)\n", st->pair_a,
               st->pair_b);
        return;
    }
    st->pair_known = nranks <= 2;
}

/* The scheduler's MBX_SCHED_PAIR: a 1-byte latency scan from rank 0; the
 * pair is rank 0 and the farthest rank, and goes into the journal. */
static int scan_pair(run_state *st, mbx_sched *sch)
{
    int nranks = st->be->nranks, far = nranks - 1, rc;
    double *lat = calloc((size_t)nranks, sizeof *lat);
    if (!lat || (rc = st->be->pair_scan(st->be, lat, &far)) < 0 ||
        mbx_sched_pair_done(sch, far) < 0) {
        free(lat);
        fprintf(stderr, "mpibex: the ping-pong pair scan failed\n");
        return 1;
    }
    st->pair_a = 0;
    st->pair_b = far;
    st->pair_known = 1;
    double lo = INFINITY;
    for (int i = 1; i < nranks; i++)
        lo = fmin(lo, lat[i]);
    printf("# ping-pong pair: ranks 0 and %d, the largest latency from rank 0 (%.3f us; the "
           "smallest is %.3f us; 1-byte scan of %d ranks)\n",
           far, lat[far] * 1e6, lo * 1e6, nranks - 1);
    fflush(stdout);
    free(lat);
    if (st->journal && (rc = mbx_journal_pair(st->journal, st->pair_a, st->pair_b)) < 0)
        return write_failure(st, st->journal_path, rc);
    return 0;
}

/* The first fraction of a second of a job is not like the rest: on these
 * machines (MPICH 4.0.2, UCX) ping-pong points measured in it read 5-20
 * times slower, reproducibly, and an earlier point of barrier traffic makes
 * that go away. So the scheduler asks for --settle seconds of untimed
 * barriers on every rank before its first probe (MBX_SCHED_SETTLE). */
static int stop_asked(void *ud)
{
    (void)ud;
    return mbx_stop_signal != 0;
}

static int settle(run_state *st, mbx_sched *sch, double secs)
{
    double spent = 0;
    int rc = mbx_backend_settle(st->be, secs, stop_asked, NULL, &spent);
    if (rc < 0) {
        fprintf(stderr, "mpibex: --settle: barrier traffic failed: %s\n", mbx_strerror(rc));
        return 1;
    }
    if (mbx_sched_settle_done(sch, spent) < 0) {
        fprintf(stderr, "mpibex: the scheduler refused the settling\n");
        return 1;
    }
    printf("# settled: %.2f s of barrier traffic on all %d ranks before the first point "
           "(--settle)\n",
           spent, st->be->nranks);
    fflush(stdout);
    return 0;
}

/* The observation method on every rank, the order's seed and the monitor's
 * peer. Returns 0, or an exit code with msg. */
static int set_method(run_state *st, int nranks, char *msg)
{
    int rc = st->be->set_method(st->be, &st->opt.method);
    if (rc == MBX_E_UNSUPPORTED) {
        snprintf(msg, MSG_LEN,
                 "--cache: cold needs the last-level cache size, which hwloc did not "
                 "find on every rank; use --cache warm");
        return 2;
    }
    if (rc < 0) {
        snprintf(msg, MSG_LEN, "--sync %s: setting up the method failed: %s",
                 mbx_sync_name(st->opt.method.sync), mbx_strerror(rc));
        return 1;
    }
    if (st->opt.resume && st->res.have_seed)
        st->seed = st->res.seed;
    else if (st->opt.have_seed)
        st->seed = st->opt.seed;
    else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x =
            (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
        st->seed = next_rand(&x) % 1000000000000ull; /* short enough to type */
    }
    mbx_monitor_init(&st->mon, st->opt.monitor && nranks > 1 ? nranks - 1 : 0, st->opt.shift_rel);
    return 0;
}

static void print_method(run_state *st, int nranks)
{
    const mbx_method *m = &st->opt.method;
    if (m->sync == MBX_SYNC_WINDOW) {
        mbx_clock_info ci;
        st->be->clock_info(st->be, &ci);
        if (ci.identity)
            printf("# sync: window on one host clock (clock_model=identity: every rank has the "
                   "same boot_id and a host-wide timer; largest offset %.2f us, known to about "
                   "+-%.2f us); windows %s\n",
                   ci.max_offset * 1e6, ci.rtt_min * 0.5e6, m->window > 0 ? "fixed" : "automatic");
        else
            printf("# sync: window on a %s global clock (synchronized in %.1f ms, slope kept on "
                   "%d of %d ranks; largest offset after it %.2f us, known to about +-%.2f us); "
                   "windows %s\n",
                   mbx_clocksync_name(m->clock.method), ci.duration * 1e3, ci.slopes_kept,
                   nranks - 1, ci.max_offset * 1e6, ci.rtt_min * 0.5e6,
                   m->window > 0 ? "fixed" : "automatic");
    } else {
        printf("# sync: barrier before each observation (ping-pong and master-worker: none, "
               "they synchronize themselves)\n");
    }
    if (m->cache == MBX_CACHE_COLD && m->cache_bytes)
        printf("# cache: cold (a %llu-byte buffer is overwritten before every observation)\n",
               (unsigned long long)m->cache_bytes);
    else if (m->cache == MBX_CACHE_COLD)
        printf("# cache: cold (a buffer the size of the last-level cache, from hwloc, is "
               "overwritten before every observation)\n");
    if (st->opt.order_plan)
        printf("# order: the plan's\n");
    else
        printf("# order: shuffled, seed %llu (--seed %llu replays it)%s\n",
               (unsigned long long)st->seed, (unsigned long long)st->seed,
               st->opt.resume && st->res.have_seed ? ", from the journal" : "");
    if (st->mon.peer)
        printf("# monitor: a %d-round 1-byte ping-pong of rank 0 and rank %d before and after "
               "every point; a change above %.0f%% is a level shift\n",
               PROBE_ROUNDS, st->mon.peer, 100.0 * st->opt.shift_rel);
    else if (nranks == 1)
        printf("# monitor: off (one rank: no ping-pong to probe with)\n");
    if (st->be->thread_granted < st->be->thread_asked)
        fprintf(stderr, "mpibex: warning: the MPI library granted only %s (asked %s)\n",
                mbx_thread_level_name(st->be->thread_granted),
                mbx_thread_level_name(st->be->thread_asked));
    char who[128];
    int unbound = st->be->unbound ? st->be->unbound(st->be, who, sizeof who) : 0;
    if (unbound > 0)
        fprintf(stderr,
                "mpibex: warning: %d rank%s (%s) %s not bound to cores; results may move with "
                "the scheduler (mpiexec -bind-to core)\n",
                unbound, unbound == 1 ? "" : "s", who, unbound == 1 ? "is" : "are");
    fflush(stdout);
}

/* Threads calling MPI at once need MPI_THREAD_MULTIPLE: a plan with such
 * points is refused before any point when MPI did not grant it. */
static int check_thread_level(const run_state *st, char *msg)
{
    if (st->be->thread_granted >= MPI_THREAD_MULTIPLE)
        return 0;
    const mbx_bench *which = NULL;
    int64_t fewest = 0;
    for (size_t i = 0; i < st->nser; i++)
        for (size_t g = 0; g < st->ser[i].ngrid; g++) {
            mbx_point_spec spec;
            pointref p = {&st->ser[i], st->ser[i].grid[g], 0};
            spec_of(st, &p, &spec);
            const mbx_bench *b = mbx_bench_get(spec.bench_id);
            int64_t t = mbx_thrinfo_mpi_threads(b, spec.param);
            if (t > 1 && (!which || t < fewest)) {
                which = b;
                fewest = t;
            }
        }
    if (!which)
        return 0;
    mbx_thrinfo_multiple_msg(which, fewest, st->be->thread_asked, st->be->thread_granted, msg,
                             MSG_LEN);
    return 2;
}

/* What the run measures with: the fake of --fake N (its thread level the
 * one asked for: it grants anything), else the engine, described. */
static int backend_of(run_state *st, mbx_engine *e)
{
    if (st->opt.fake || !e) {
        mbx_backend_fake(st->opt.fake ? st->opt.fake : 1, &st->be_store);
        if (!st->be_store.impl)
            return MBX_E_NOMEM;
        st->be_store.thread_asked = st->be_store.thread_granted = st->opt.thread_level;
    } else {
        int rc =
            mbx_backend_engine(e, mbx_job_thread_asked(), mbx_job_thread_granted(), &st->be_store);
        if (rc < 0)
            return rc;
    }
    st->be = &st->be_store;
    return MBX_OK;
}

static int root_run(mbx_engine *e, int argc, char **argv, run_state *st)
{
    char msg[MSG_LEN] = "";
    int nranks = 0, rc;
    if ((rc = mbx_cli_parse_run(argc, argv, &st->opt, msg, sizeof msg)) != 0) {
        fail(msg);
        return rc;
    }
    if (st->opt.help) {
        mbx_cli_run_usage();
        return 0;
    }
    if (st->opt.resume && !st->opt.output) {
        fail("--resume: needs -o FILE, the results file of the run to continue");
        return 2;
    }
    if ((rc = build_plan(st, msg)) != 0 || (rc = backend_of(st, e)) < 0 ||
        (rc = build_series(st, nranks = st->be->nranks, msg)) != 0 ||
        (rc = check_thread_level(st, msg)) != 0 ||
        (st->opt.output && (rc = claim_output(st, msg)) != 0)) {
        if (rc == -1)
            rc = 2;
        else if (rc < 0) {
            snprintf(msg, sizeof msg, "describing the job failed: %s", mbx_strerror(rc));
            rc = 1;
        }
        fail(msg);
        return rc;
    }
    st->hash = plan_hash(st, nranks);
    if (st->opt.resume) {
        char *jp = mbx_csv_sidecar(st->opt.output, ".journal");
        rc = jp ? mbx_resume_load(st->opt.output, jp, st->hash, &st->res, msg, sizeof msg)
                : MBX_E_NOMEM;
        free(jp);
        if (rc) {
            fail(msg);
            return rc == MBX_E_NOMEM ? 1 : 2;
        }
        if (st->res.torn_bytes)
            fprintf(stderr, "mpibex: --resume: cut a torn last row (%zu bytes) off %s\n",
                    st->res.torn_bytes, st->opt.output);
        st->jt_offset = st->res.pass_end > 0 ? st->res.pass_end + 1e-3 : 0.0;
        st->carry = st->res.ncols == 0;
        for (size_t c = 0; c < st->res.ncols; c++)
            st->carry |= strcmp(mbx_result_columns[c], "passes") == 0;
    }
    char why[160];
    if (mbx_timer_available(st->opt.timer, why, sizeof why) < 0) {
        snprintf(msg, sizeof msg, "--timer: %s cannot be used here: %s",
                 mbx_timer_name(st->opt.timer), why);
        fail(msg);
        return 2;
    }
    if ((rc = st->be->configure(st->be, st->opt.timer, &st->timer)) < 0) {
        snprintf(msg, sizeof msg, "--timer: %s cannot be used here: %s",
                 mbx_timer_name(st->opt.timer), mbx_strerror(rc));
        fail(msg);
        return 2;
    }
    if ((rc = set_method(st, nranks, msg)) != 0) {
        fail(msg);
        return rc;
    }
    print_title(st, nranks);
    print_method(st, nranks);
    choose_pair(st, nranks);
    if ((rc = open_outputs(st, msg)) != 0) {
        fail(msg);
        return rc;
    }
    if ((!st->opt.resume || !st->res.have_seed) &&
        (rc = mbx_journal_seed(st->journal, st->seed)) < 0)
        return write_failure(st, st->journal_path, rc);
    fputs(st->notes, stdout);
    print_header();
    st->tty = isatty(STDERR_FILENO);
    if (st->be->set_warmup &&
        (rc = st->be->set_warmup(st->be, st->opt.warmup, plan_largest(st))) < 0) {
        fail(mbx_strerror(rc));
        return 1;
    }
    rc = measure_all(st);
    binding_env(st, nranks);
    return rc;
}

int mbx_batch_root(mbx_engine *e, int argc, char **argv)
{
    run_state st;
    memset(&st, 0, sizeof st);
    int code = root_run(e, argc, argv, &st);
    int csv_bad = mbx_csv_writer_close(st.csv) < 0, obs_bad = mbx_csv_writer_close(st.obs) < 0;
    if ((csv_bad || obs_bad) && !st.write_failed) {
        fprintf(stderr, "mpibex: closing '%s' failed: %s\n", csv_bad ? st.opt.output : st.obs_path,
                strerror(errno));
        code = 1;
    }
    mbx_journal_close(st.journal);
    /* A complete run needs no journal; an interrupted one keeps it. */
    if (code == 0 && st.journal_path)
        (void)unlink(st.journal_path);
    mbx_output_release(&st.out);
    for (size_t i = 0; i < st.nser; i++)
        free(st.ser[i].grid);
    free(st.ser);
    free(st.acc);
    free(st.plan);
    free(st.env_path);
    free(st.obs_path);
    free(st.journal_path);
    mbx_monitor_free(&st.mon);
    mbx_resume_free(&st.res);
    if (st.be && st.be->fake)
        mbx_backend_fake_free(st.be);
    return code;
}

/* Does the command line ask for the fake (--fake, whatever its value: the
 * parser judges it)? Then no MPI is started at all. */
static int wants_fake(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--fake") == 0 || strncmp(argv[i], "--fake=", 7) == 0)
            return 1;
    return 0;
}

int mbx_batch_run(int argc, char **argv)
{
    if (!wants_fake(argc, argv))
        return mbx_job_run(argc, argv, mbx_batch_root);
    /* One process, no MPI: signals as in a job (a stop ends the run at the
     * next pass, with the journal kept for --resume). */
    mbx_sig_catch(1);
    return mbx_batch_root(NULL, argc, argv);
}
