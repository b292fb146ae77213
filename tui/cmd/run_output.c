/* `mpibex run`: the output files. Claims -o, opens the results file and
 * its sidecars (environment, observations, journal), writes a point's row
 * and observations, reports a failed write (and rescues what was
 * written), and the rows added to the environment file after the run. */
#include "run_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mbx/dir.h"
#include "mbx/envfile.h"
#include "mbx/file.h"
#include "mbx/obsfile.h"
#include "mbx/thrinfo.h"

/* Claim -o for this run (mbx/output.h): locked against a second run,
 * refused over earlier results without --force, never the plan file; "-"
 * puts the CSV rows on standard output (the table moves to stderr) and
 * /dev/null discards, both without sidecars. */
int mbx_run_claim_output(run_state *st, char *msg)
{
    static const char *const sidecars[] = {".env.csv", ".obs.csv", ".probe.csv", ".journal", NULL};
    const char *out = st->opt.output;
    if (strcmp(out, "-") == 0 && (st->opt.resume || st->opt.raw)) {
        snprintf(msg, MSG_LEN, "-o -: standard output takes the result rows only; %s needs -o FILE",
                 st->opt.resume ? "--resume" : "--raw (FILE.obs.csv)");
        return 2;
    }
    const char *inputs[] = {st->opt.plan_path};
    /* A CSV of the header only (a run that failed before its first
     * point, out of descriptors) is not results to protect. */
    char header[2048];
    size_t h = 0;
    for (size_t i = 0; i < MBX_RESULT_NCOLS && h < sizeof header; i++)
        h += (size_t)snprintf(header + h, sizeof header - h, "%s%s", i ? "," : "",
                              mbx_result_columns[i]);
    mbx_output_req req = {.path = out,
                          .flags = MBX_OUTPUT_ALLOW_STDOUT | MBX_OUTPUT_ALLOW_DISCARD |
                                   (st->opt.force ? MBX_OUTPUT_FORCE : 0) |
                                   (st->opt.resume ? MBX_OUTPUT_RESUME : 0),
                          .sidecars = sidecars,
                          .journal = ".journal",
                          .inputs = inputs,
                          .ninputs = st->opt.plan_path ? 1 : 0,
                          .input_what = "the plan file",
                          .header = h < sizeof header ? header : NULL};
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

/* The run's environment file: the back end's capture (the engine's, as
 * mbx_env_write, with the thread binding so far: none before the first
 * point; the fake's names the fake). */
static int env_write(run_state *st, const char *path)
{
    mbx_kvlist env = {0};
    int rc = st->be->environment(st->be, &env);
    return mbx_env_file_write(path, &env, rc);
}

int mbx_run_open_outputs(run_state *st, char *msg)
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
        mbx_kvlist kv = {0};
        rc = mbx_kv_addf(&kv, "order", "%s", st->opt.order_plan ? "plan" : "shuffle");
        if (rc >= 0)
            rc = mbx_kv_addf(&kv, "seed", "%llu", (unsigned long long)st->seed);
        rc = mbx_env_file_append(st->env_path, &kv, rc);
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
        if (rc >= 0)
            rc = mbx_obs_spool_open(st->obs_path, &st->spool);
    }
    if (rc >= 0) {
        failed = st->journal_path;
        rc = mbx_journal_open(st->journal_path, st->hash, st->opt.resume, &st->journal);
        if (rc >= 0 && st->pair_known && (!st->opt.resume || !st->res.have_pair))
            rc = mbx_journal_pair(st->journal, st->pair_a, st->pair_b);
    }
    /* The probe series is written at the end, but its file is made now:
     * a name left free until then could be taken by another user's FIFO
     * or file (docs/hardening.md). */
    char *probe = rc >= 0 && st->mon.peer ? mbx_csv_sidecar(st->opt.output, ".probe.csv") : NULL;
    if (probe) {
        failed = probe;
        rc = mbx_monitor_open_series(&st->mon, st->opt.output);
    }
    if (rc < 0) {
        snprintf(msg, MSG_LEN, "-o: cannot write '%s': %s", failed, mbx_file_why(errno));
        free(probe);
        return 1;
    }
    free(probe);
    return 0;
}

/* A result file could not take a write (rc from the writer, errno set):
 * say which, why, what is kept and how to go on, in one line; the run
 * stops with exit 1. When the file was removed or renamed under us (its
 * directory deleted), what the open files still hold is copied into a
 * new private directory, so the finished points survive and --resume can
 * continue from there. */
int mbx_run_write_failure(run_state *st, const char *path, int rc)
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

/* Take the row just written back out of the CSV (its observations could
 * not follow, or landed in a file no longer at its path). */
static void take_back(mbx_csv_writer *w, const char *path, long long mark)
{
    int err = errno;
    if (mbx_csv_writer_rewind(w, mark) < 0)
        fprintf(stderr, "mpibex: taking the last rows back out of '%s' failed: %s\n", path,
                strerror(errno));
    errno = err;
}

/* The point's row, then its observations (--raw: from the spool, the
 * scheduler's point `point`; MBX_SCHED_NO_POINT: none), a pass per
 * record: if they cannot all be written, those written and the row are
 * taken back, so a row always has its observations (a point without them
 * is measured again on --resume). Returns 0, or the exit code after
 * mbx_run_write_failure's message. */
int mbx_run_write_result(run_state *st, const mbx_result *r, size_t point)
{
    long long mark = mbx_csv_writer_mark(st->csv);
    if (st->csv) {
        mbx_result_fields f;
        mbx_result_format(r, &f);
        int rc = mbx_csv_writer_row(st->csv, f.field);
        if (rc < 0) {
            /* Gone: the row landed in a file no longer at its path; take
             * it back so what mbx_run_write_failure saves is the finished points. */
            if (rc == MBX_E_GONE)
                take_back(st->csv, st->opt.output, mark);
            return mbx_run_write_failure(st, st->opt.output, rc);
        }
    }
    if (st->obs) {
        long long omark = mbx_csv_writer_mark(st->obs);
        int rc = point == MBX_SCHED_NO_POINT ? MBX_OK
                                             : mbx_obs_spool_write(st->spool, point, st->obs, r);
        if (rc < 0) {
            take_back(st->obs, st->obs_path, omark);
            take_back(st->csv, st->opt.output, mark);
            return mbx_run_write_failure(st, st->obs_path, rc);
        }
    }
    return 0;
}

/* The scheduler's observation sink under --raw (mbx_sched_opts.obs_sink):
 * each pass's observations to the spool as the pass lands. A failed write
 * is kept for mbx_run_raw_failed. */
int mbx_run_raw_sink(void *ud, size_t point, int reset, const double *obs, size_t n)
{
    run_state *st = ud;
    int rc = mbx_obs_spool_add(st->spool, point, reset, obs, n);
    if (rc < 0) {
        st->obs_err = rc;
        st->obs_errno = errno;
    }
    return rc;
}

/* After the scheduler refused a pass: 0, or when the spool's write was
 * the cause, the exit code after the write failure's message. */
int mbx_run_raw_failed(run_state *st)
{
    if (!st->obs_err)
        return 0;
    errno = st->obs_errno;
    return mbx_run_write_failure(st, st->obs_path, st->obs_err);
}

/* Rows added to the environment file after the run (it is written before
 * the first point): kv, made by the caller unless rc says it failed. A
 * failure is a warning naming `what`. kv is freed. */
void mbx_run_env_append(const run_state *st, mbx_kvlist *kv, int rc, const char *what)
{
    rc = mbx_env_file_append(st->env_path, kv, rc);
    if (rc < 0)
        fprintf(stderr, "mpibex: warning: could not add %s to %s: %s\n", what, st->env_path,
                mbx_strerror(rc));
}

/* The thread binding of the run's threaded points, after the run. */
void mbx_run_binding_env(run_state *st, int nranks)
{
    if (!st->thr || !st->env_path)
        return;
    mbx_kvlist kv = {0};
    int rc = mbx_thrinfo_binding_env(st->thr, nranks, &kv);
    mbx_run_env_append(st, &kv, rc, "the thread binding");
}

/* A field of /proc/self/status in KiB (VmRSS: resident now, VmHWM: its
 * peak so far); -1 if unknown. Both from the same counters, so the peak is
 * never below an earlier resident size (getrusage's ru_maxrss and statm
 * are counted differently and can disagree by a few hundred KiB). */
long mbx_run_proc_status_kib(const char *field)
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
void mbx_run_memory_report(run_state *st)
{
    long peak = mbx_run_proc_status_kib("VmHWM");
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
    mbx_run_env_append(st, &kv, rc, "rank 0's memory");
}

/* What the engine's warm-up did (docs/algorithms.md, "One point"): printed
 * and in the environment file, so a test (and a reader) sees that it ran. */
void mbx_run_warmup_report(run_state *st)
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
    /* w.points counts measurements, not points: a point is measured in
     * passes, and a pass after another point's gets the full warm-up. */
    char light[96] = "";
    if (w.light_points)
        snprintf(light, sizeof light, ", %lld-%lld before %zu more (light)", (long long)w.light_min,
                 (long long)w.light_max, w.light_points);
    printf("# warm-up: %lld-%lld untimed calls before %zu measurement%s (passes)%s of %zu "
           "point%s (--warmup %lld); pre-faulted %d pair%s: %s round trips; %zu batch%s "
           "page-faulted and were measured again\n",
           (long long)w.point_min, (long long)w.point_max, w.points, w.points == 1 ? "" : "s",
           light, st->done, st->done == 1 ? "" : "s", (long long)w.calls, w.pairs,
           w.pairs == 1 ? "" : "s", pre, w.redone, w.redone == 1 ? "" : "es");
    if (w.buf_fewer)
        printf("# buffers: memory was short for %zu measurement%s; some rank kept %d of %d buffer "
               "sets, so less of where buffers land was re-drawn\n",
               w.buf_fewer, w.buf_fewer == 1 ? "" : "s", w.buf_sets_min, MBX_BUF_SETS);
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
    if (rc >= 0)
        rc = mbx_kv_addf(&kv, "buffer_sets_fewest", "%d", w.buf_sets_min);
    if (rc >= 0)
        rc = mbx_kv_addf(&kv, "buffer_sets_short", "%zu", w.buf_fewer);
    if (rc >= 0)
        rc = mbx_kv_addf(&kv, "comm_dups", "%zu", w.comm_dups);
    mbx_run_env_append(st, &kv, rc, "the warm-up");
}

/* Window sync: how the windows moved over the run, in the environment
 * file (a bounded run shows few batches per point and windows that shrank
 * back after growing). */
void mbx_run_window_report(run_state *st)
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
    mbx_run_env_append(st, &kv, rc, "the window sync summary");
}

/* The levels the monitor saw: a summary line and one per segment; the
 * probe series next to the results (OUT.probe.csv) and the figures in the
 * environment file. */
int mbx_run_monitor_report(run_state *st)
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
