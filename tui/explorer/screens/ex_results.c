/* The results table (scrolls, sorts), export to CSV in exactly the batch
 * format (mbx_result_format through the same CSV writer, with the sidecars
 * `mpibex run` writes) and the report (mbx_report_write). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/axis.h"
#include "ex_keys.h"
#include "explorer.h"
#include "mbx/csvio.h"
#include "mbx/envfile.h"
#include "mbx/file.h"
#include "mbx/levels.h"
#include "mbx/obsfile.h"
#include "mbx/output.h"
#include "mbx/results_sort.h"
#include "report.h"
#include "screens/screen.h"

/* The relative error of a row: between passes (the scheduler's rows),
 * else the stop rule's. */
static double row_err(const mbx_result *r)
{
    if (r->passes)
        return r->s.median > 0 ? r->s.stderr_ / r->s.median : NAN;
    return mbx_stop_progress(&r->stop, &r->s);
}

/* Status comes before the optional columns so it stays visible on 80-100
 * column terminals; a refined point's bytes carry the plot's ^ mark. The
 * plain companion's median (accurate benchmarks; an overlap benchmark's
 * pure communication time), the overlap percentage (overlap.*: OSU's
 * formula, mbx_overlap_pct), root, parameter, refined,
 * again (measured a second time: the machine changed level), the monitor's
 * probe, invalid observations and events (observations 100x the median,
 * left out) appear when some point has them. */
enum {
    C_BENCH,
    C_BYTES,
    C_N,
    C_MEDIAN,
    C_CI,
    C_ERR,
    C_STATUS,
    C_PLAIN,
    C_OVERLAP,
    C_PROCS,
    C_RANKS,
    C_ROOT,
    C_PARAM,
    C_REFINED,
    C_AGAIN,
    C_PROBE,
    C_INVALID,
    C_TMEAN,
    C_BW,
    C_EVENTS,
    C_COUNT
};
static const char *const col_names[C_COUNT] = {
    "benchmark", "bytes",    "n",       "median", "ci95", "err",   "status",
    "plain",     "overlap%", "procs",   "ranks",  "root", "param", "refined",
    "again",     "probe_us", "invalid", "tmean",  "MB/s", "events"};
static const int col_w[C_COUNT] = {19, 6, 5, 8, 16, 6, 10, 8, 8, 5, 7, 4, 8, 7, 5, 9, 7, 8, 7, 6};

static const explorer *sort_ctx;

/* Whether column c applies to the finished points of the run. */
static int applies(const explorer *x, int c)
{
    if (c != C_ROOT && c != C_PARAM && c != C_REFINED && c != C_AGAIN && c != C_PROBE &&
        c != C_INVALID && c != C_PLAIN && c != C_OVERLAP && c != C_EVENTS)
        return 1;
    for (size_t i = 0; i < x->npts; i++) {
        const mbx_result *r = &x->pts[i].r;
        if (x->pts[i].state != EX_DONE)
            continue;
        if ((c == C_ROOT && r->root >= 0) || (c == C_PARAM && r->param_name) ||
            (c == C_REFINED && r->refined) || (c == C_AGAIN && r->remeasured) ||
            (c == C_PROBE && isfinite(r->probe)) || (c == C_INVALID && r->invalid) ||
            (c == C_PLAIN && isfinite(r->plain)) || (c == C_OVERLAP && r->overlap) ||
            (c == C_EVENTS && r->events))
            return 1;
    }
    return 0;
}

/* The parameter column is named after the parameter ("pieces"). */
static const char *col_name(const explorer *x, int c)
{
    if (c == C_PARAM)
        for (size_t i = 0; i < x->npts; i++)
            if (x->pts[i].state == EX_DONE && x->pts[i].r.param_name)
                return x->pts[i].r.param_name;
    return col_names[c];
}

static double sort_key(const mbx_ex_point *p, int col)
{
    switch (col) {
    case C_PROCS: return p->procs;
    case C_BYTES: return (double)p->bytes;
    case C_N: return (double)p->r.s.n;
    case C_MEDIAN: return p->r.s.median;
    case C_PLAIN: return p->r.plain;
    case C_OVERLAP: return mbx_overlap_pct(p->r.s.median, p->r.compute, p->r.plain);
    case C_TMEAN: return p->r.s.tmean;
    case C_CI: return p->r.s.ci_hi - p->r.s.ci_lo;
    case C_ERR: return row_err(&p->r);
    case C_BW: return mbx_result_bandwidth(&p->r);
    case C_STATUS: return p->r.status;
    case C_ROOT: return p->r.root;
    case C_PARAM: return p->r.param_name ? (double)p->r.param : -1;
    case C_REFINED: return p->r.refined;
    case C_AGAIN: return p->r.remeasured;
    case C_PROBE: return p->r.probe_after;
    case C_INVALID: return (double)p->r.invalid;
    case C_EVENTS: return (double)p->r.events;
    default: return 0;
    }
}

static int cmp_rows(const void *a, const void *b)
{
    const mbx_ex_point *p = *(const mbx_ex_point *const *)a, *q = *(const mbx_ex_point *const *)b;
    int c = 0, col = sort_ctx->sort_col;
    if (col == C_BENCH || col == C_RANKS) {
        c = col == C_BENCH ? strcmp(p->r.benchmark, q->r.benchmark)
                           : strcmp(p->r.ranks, q->r.ranks);
    } else {
        double u = sort_key(p, col), v = sort_key(q, col);
        c = isnan(u) ? (isnan(v) ? 0 : 1) : isnan(v) ? -1 : (u > v) - (u < v);
    }
    /* Ties: along the curve (a refined point among its neighbours), then
     * in measured order. */
    static const int ties[] = {C_PARAM, C_ROOT, C_PROCS, C_BYTES};
    if (c == 0)
        c = strcmp(p->r.benchmark, q->r.benchmark);
    if (c == 0)
        c = p->copy - q->copy;
    for (size_t i = 0; c == 0 && i < sizeof ties / sizeof *ties; i++) {
        double u = sort_key(p, ties[i]), v = sort_key(q, ties[i]);
        c = (u > v) - (u < v);
    }
    if (c == 0)
        c = (p > q) - (p < q);
    return sort_ctx->sort_desc ? -c : c;
}

/* Done points in display order; returns how many. */
static size_t sorted_rows(explorer *x, const mbx_ex_point **out)
{
    size_t n = 0;
    for (size_t i = 0; i < x->npts; i++)
        if (x->pts[i].state == EX_DONE)
            out[n++] = &x->pts[i];
    sort_ctx = x;
    qsort(out, n, sizeof *out, cmp_rows);
    return n;
}

static int results_key(explorer *x, int key)
{
    size_t n = x->ndone;
    switch (mbx_ex_key_action(key, EX_RESULTS)) {
    case EXA_UP: x->rcursor = x->rcursor > 0 ? x->rcursor - 1 : 0; break;
    case EXA_DOWN: x->rcursor = (size_t)x->rcursor + 1 < n ? x->rcursor + 1 : x->rcursor; break;
    case EXA_PGUP: x->rcursor = x->rcursor > 10 ? x->rcursor - 10 : 0; break;
    case EXA_PGDN:
        x->rcursor = (size_t)x->rcursor + 10 < n ? x->rcursor + 10 : (n ? (int)n - 1 : 0);
        break;
    case EXA_HOME: x->rcursor = 0; break;
    case EXA_END: x->rcursor = n ? (int)n - 1 : 0; break;
    case EXA_SORT:
        do
            x->sort_col = (x->sort_col + 1) % C_COUNT;
        while (!applies(x, x->sort_col));
        break;
    case EXA_REVERSE: x->sort_desc = !x->sort_desc; break;
    default: return 0;
    }
    return 1;
}

/* The size column: exact below a million unless a multiple of 1 KiB
 * (refined sizes are often not round), "^" after a refined size. */
static void bytes_text(const mbx_ex_point *p, char *buf, size_t len)
{
    const mbx_result *r = &p->r;
    if (r->bytes % 1024 == 0 || r->bytes >= 1000000)
        mbx_axis_format((double)r->bytes, MBX_AXIS_BYTES, 0, buf, (int)len);
    else
        snprintf(buf, len, "%llu", (unsigned long long)r->bytes);
    if (p->origin == EX_REF_SIZE && strlen(buf) + 1 < len)
        strcat(buf, "^");
}

/* The probe column in microseconds, before > after when the two lie on
 * different levels. */
static void probe_text(const mbx_result *r, char *buf, size_t len)
{
    if (!isfinite(r->probe))
        snprintf(buf, len, "-");
    else if (mbx_levels_shifted(r->probe, r->probe_after, &(mbx_levels_opts){0}))
        snprintf(buf, len, "%.2f>%.2f", r->probe * 1e6, r->probe_after * 1e6);
    else
        snprintf(buf, len, "%.2f", r->probe * 1e6);
}

static void cell_text(const explorer *x, const mbx_ex_point *p, int c, char *buf, size_t len)
{
    const mbx_result *r = &p->r;
    char a[16], b[16];
    switch (c) {
    case C_BENCH: snprintf(buf, len, "%s%s", r->benchmark, p->copy ? " #2" : ""); break;
    case C_PROCS: snprintf(buf, len, "%d%s", r->procs, p->origin == EX_REF_PROCS ? "^" : ""); break;
    case C_BYTES: bytes_text(p, buf, len); break;
    case C_RANKS: snprintf(buf, len, "%s", r->ranks); break;
    case C_ROOT:
        if (r->root >= 0)
            snprintf(buf, len, "%d", r->root);
        else
            snprintf(buf, len, "-");
        break;
    case C_PARAM:
        if (r->param_name)
            snprintf(buf, len, "%lld", (long long)r->param);
        else
            snprintf(buf, len, "-");
        break;
    case C_REFINED: snprintf(buf, len, "%s", r->refined ? "yes" : ""); break;
    case C_AGAIN: snprintf(buf, len, "%s", r->remeasured ? "yes" : ""); break;
    case C_INVALID: snprintf(buf, len, "%zu", r->invalid); break;
    case C_EVENTS: snprintf(buf, len, "%zu", r->events); break;
    case C_PROBE: probe_text(r, buf, len); break;
    case C_N: snprintf(buf, len, "%zu", r->s.n); break;
    case C_MEDIAN: mbx_axis_format(r->s.median, MBX_AXIS_SECONDS, x->utf8, buf, (int)len); break;
    case C_TMEAN: mbx_axis_format(r->s.tmean, MBX_AXIS_SECONDS, x->utf8, buf, (int)len); break;
    case C_PLAIN:
        if (isfinite(r->plain))
            mbx_axis_format(r->plain, MBX_AXIS_SECONDS, x->utf8, buf, (int)len);
        else
            snprintf(buf, len, "-");
        break;
    case C_OVERLAP: {
        double pct = mbx_overlap_pct(r->s.median, r->compute, r->plain);
        if (r->overlap && isfinite(pct))
            snprintf(buf, len, "%.1f", pct);
        else
            snprintf(buf, len, "-");
        break;
    }
    case C_CI:
        mbx_axis_format(r->s.ci_lo, MBX_AXIS_SECONDS, x->utf8, a, sizeof a);
        mbx_axis_format(r->s.ci_hi, MBX_AXIS_SECONDS, x->utf8, b, sizeof b);
        snprintf(buf, len, "[%s, %s]", a, b);
        break;
    case C_ERR: {
        double e = row_err(r);
        if ((!r->passes && r->stop.kind == MBX_STOP_FIXED) || !isfinite(e))
            snprintf(buf, len, "-");
        else
            snprintf(buf, len, "%.2f%%", 100 * e);
        break;
    }
    case C_BW: {
        double bw = mbx_result_bandwidth(r);
        if (isfinite(bw))
            mbx_axis_format(bw, MBX_AXIS_MBPS, 0, buf, (int)len);
        else
            snprintf(buf, len, "-");
        break;
    }
    case C_STATUS: snprintf(buf, len, "%s", mbx_point_status_name(r->status)); break;
    default: buf[0] = '\0';
    }
}

/* The columns shown (show), their widths (w) and their order: P beside
 * the size in a run over several process counts. */
static void results_columns(const explorer *x, const mbx_rect *body, const mbx_ex_point **rows,
                            size_t n, int *show, int *w, int *order)
{
    /* Wide terminals give long benchmark names their room. */
    for (int c = 0; c < C_COUNT; c++) {
        show[c] = applies(x, c);
        w[c] = col_w[c];
        order[c] = c;
    }
    /* A run over several process counts: P is part of the point, so it
     * goes beside the size (and names get shorter on narrow screens). */
    if (mbx_ex_run_nprocs(x) > 1) {
        for (int c = C_PROCS; c > C_BYTES + 1; c--)
            order[c] = order[c - 1];
        order[C_BYTES + 1] = C_PROCS;
        if (body->w < 100)
            w[C_BENCH] = 14;
    }
    if (body->w >= 100)
        for (size_t i = 0; i < n; i++) {
            int len = (int)strlen(rows[i]->r.benchmark);
            if (len > w[C_BENCH])
                w[C_BENCH] = len > 26 ? 26 : len;
        }
}

/* The two head lines: the count, the sort and whether they are exported;
 * how the points were taken (first row's method), and what the monitor saw. */
static void results_head(explorer *x, const mbx_rect *body, const mbx_ex_point **rows, size_t n)
{
    char head[128];
    snprintf(head, sizeof head, "Results: %zu points%s  (sorted by %s%s; s next column, S reverse)",
             n,
             x->exported ? ", exported"
             : n         ? ", not exported (e exports)"
                         : "",
             col_name(x, x->sort_col), x->sort_desc ? ", descending" : "");
    mbx_ex_put(x, body->y, body->x + 1, body->w - 1, MBX_ROLE_NORMAL, head);
    if (!n)
        return;
    const mbx_result *r0 = &rows[0]->r;
    char line[256], mon[160] = "monitor off (one rank)";
    if (x->mon.peer) {
        const mbx_levels *lv = mbx_monitor_levels(&x->mon);
        size_t nl = lv ? lv->nlevel : 0, ns = lv && lv->nseg ? lv->nseg - 1 : 0;
        double span = x->mon.n ? x->mon.t[x->mon.n - 1] - x->mon.t[0] : 0;
        snprintf(mon, sizeof mon, "monitor: %zu probes over %.1f s, %zu level%s%s, %zu shift%s",
                 x->mon.n, span, nl, nl == 1 ? "" : "s",
                 nl == 1 && span < MBX_MONITOR_SAY_SPAN_S ? " (too short to tell)" : "", ns,
                 ns == 1 ? "" : "s");
    }
    snprintf(line, sizeof line, "%s sync%s%s%s, %s cache; %s", mbx_sync_name(r0->sync),
             r0->clock_sync ? " (" : "", r0->clock_sync ? r0->clock_sync : "",
             r0->clock_sync ? " clock)" : "", mbx_cache_name(r0->cache), mon);
    mbx_ex_put(x, body->y + 1, body->x + 1, body->w - 1, MBX_ROLE_DIM, line);
}

/* Point p's row at y, under the cursor or not. */
static void results_row(explorer *x, const mbx_rect *body, const mbx_ex_point *p, int y, int cur,
                        const int *show, const int *w, const int *order)
{
    if (cur)
        mbx_ex_fill(x, y, body->x, body->w, MBX_ROLE_CURSOR);
    int col = body->x + 1;
    for (int k = 0; k < C_COUNT && col < body->x + body->w; k++) {
        int c = order[k];
        if (!show[c])
            continue;
        char t[64];
        cell_text(x, p, c, t, sizeof t);
        int role = cur ? MBX_ROLE_CURSOR : MBX_ROLE_NORMAL;
        if (c == C_STATUS && !cur)
            role = p->r.status == MBX_POINT_SETTLED ? MBX_ROLE_OK
                   : p->r.status == MBX_POINT_UNSETTLED || p->r.status == MBX_POINT_SHIFTED
                       ? MBX_ROLE_WARNING
                       : MBX_ROLE_ERROR;
        if ((c == C_AGAIN || c == C_PROBE) && !cur && p->r.remeasured)
            role = MBX_ROLE_WARNING;
        mbx_ex_put(x, y, col, w[c], role, t);
        col += w[c] + 1;
    }
}

static void draw_results(explorer *x, const mbx_rect *body)
{
    const mbx_ex_point **rows = malloc((x->npts ? x->npts : 1) * sizeof *rows);
    if (!rows)
        return;
    if (!applies(x, x->sort_col))
        x->sort_col = C_BENCH;
    size_t n = sorted_rows(x, rows);
    int show[C_COUNT], w[C_COUNT], order[C_COUNT];
    results_columns(x, body, rows, n, show, w, order);
    results_head(x, body, rows, n);
    int col = body->x + 1, y = body->y + 2;
    for (int k = 0; k < C_COUNT && col < body->x + body->w; k++) {
        int c = order[k];
        if (!show[c])
            continue;
        mbx_ex_put(x, y, col, w[c], c == x->sort_col ? MBX_ROLE_SELECTED : MBX_ROLE_AXIS,
                   col_name(x, c));
        col += w[c] + 1;
    }
    int list_h = body->h - 3;
    if (x->rcursor >= (int)n)
        x->rcursor = n ? (int)n - 1 : 0;
    if (x->rcursor < x->rtop)
        x->rtop = x->rcursor;
    if (x->rcursor >= x->rtop + list_h)
        x->rtop = x->rcursor - list_h + 1;
    for (int i = 0; i < list_h && (size_t)(x->rtop + i) < n; i++)
        results_row(x, body, rows[x->rtop + i], y + 1 + i, x->rtop + i == x->rcursor, show, w,
                    order);
    if (n == 0)
        mbx_ex_put(x, y + 1, body->x + 2, body->w - 2, MBX_ROLE_DIM, "no results yet");
    free(rows);
}

void mbx_ex_points_free(explorer *x)
{
    for (size_t i = 0; x->pts && i < x->npts; i++) {
        free(x->pts[i].obs);
        free(x->pts[i].oseg);
        free(x->pts[i].pm);
    }
    free(x->pts);
    x->pts = NULL;
    x->npts = 0;
}

/* OUT.obs.csv as `mpibex run --raw` writes it (mbx/obsfile.h). */
static int write_obs(explorer *x, const char *path)
{
    mbx_csv_writer *w = NULL;
    int rc = mbx_csv_writer_open(path, mbx_obs_columns, MBX_OBS_NCOLS, &w);
    for (size_t i = 0; rc >= 0 && i < x->npts; i++) {
        const mbx_ex_point *p = &x->pts[i];
        if (p->state == EX_DONE)
            rc = mbx_obs_write_point(w, &p->r, p->obs, p->nobs, p->oseg, p->noseg);
    }
    if (mbx_csv_writer_close(w) < 0 && rc >= 0)
        rc = MBX_E_IO;
    return rc;
}

static int cmp_export(const void *a, const void *b)
{
    return mbx_result_order(*(const mbx_result *const *)a, *(const mbx_result *const *)b);
}

int mbx_ex_export(explorer *x, const char *path, char *msg, size_t msglen)
{
    /* The same claim as every -o (mbx/output.h): not while a run writes
     * there, never a device or FIFO. The user has already agreed to write
     * over an existing file (the y/n question), hence FORCE. */
    static const char *const sidecars[] = {".env.csv", ".obs.csv", ".probe.csv", NULL};
    /* The y is no licence to replace what the explorer reads or is
     * writing: those are inputs, refused as the plan is by `run -o`. */
    const char *inputs[sizeof x->inputs / sizeof x->inputs[0] + 1];
    size_t ninputs = 0;
    for (size_t i = 0; i < x->ninputs; i++)
        inputs[ninputs++] = x->inputs[i];
    if (x->autosave_path[0])
        inputs[ninputs++] = x->autosave_path;
    mbx_output claim;
    mbx_output_req req = {.path = path,
                          .flags = MBX_OUTPUT_FORCE,
                          .sidecars = sidecars,
                          .inputs = inputs,
                          .ninputs = ninputs,
                          .input_what = "a file the explorer reads or autosaves to",
                          .opt = "export"};
    int crc = mbx_output_claim(&req, &claim, msg, msglen);
    if (crc < 0)
        return crc;
    mbx_csv_writer *w = NULL;
    errno = 0;
    /* The rows as run -o leaves them: sorted by benchmark, procs, param
     * and bytes, the order measured in seq (issue 18). */
    const mbx_result **rows = calloc(x->npts ? x->npts : 1, sizeof *rows);
    size_t nrows = 0;
    for (size_t i = 0; rows && i < x->npts; i++)
        if (x->pts[i].state == EX_DONE)
            rows[nrows++] = &x->pts[i].r;
    qsort(rows, nrows, sizeof *rows, cmp_export);
    int rc =
        rows ? mbx_csv_writer_open(path, mbx_result_columns, MBX_RESULT_NCOLS, &w) : MBX_E_NOMEM;
    for (size_t i = 0; rc >= 0 && i < nrows; i++) {
        mbx_result_fields f;
        mbx_result_format(rows[i], &f);
        rc = mbx_csv_writer_row(w, f.field);
    }
    free(rows);
    if (mbx_csv_writer_close(w) < 0 && rc >= 0)
        rc = MBX_E_IO;
    char *env_path = mbx_csv_sidecar(path, ".env.csv");
    char *obs_path = mbx_csv_sidecar(path, ".obs.csv");
    if (rc >= 0 && (!env_path || !obs_path))
        rc = MBX_E_NOMEM;
    if (rc >= 0 && env_path) {
        mbx_kvlist env = {0};
        rc = mbx_env_file_write(env_path, &env, x->be->environment(x->be, &env));
    }
    /* The monitor: its settings and figures in the environment, its series
     * beside the results (OUT.probe.csv). */
    if (rc >= 0)
        rc = mbx_monitor_write(&x->mon, path, env_path,
                               MBX_MONITOR_SETTINGS | MBX_MONITOR_FIGURES | MBX_MONITOR_SERIES);
    if (rc >= 0)
        rc = write_obs(x, obs_path);
    if (rc < 0)
        snprintf(msg, msglen, "export to %s failed: %s", path,
                 rc == MBX_E_NOMEM ? "out of memory" : mbx_file_why(errno ? errno : EIO));
    else
        snprintf(msg, msglen, "exported %zu points to %s (environment, observations%s beside it)",
                 x->ndone, path, x->mon.peer ? ", probes" : "");
    free(env_path);
    free(obs_path);
    mbx_output_release(&claim);
    return rc < 0 ? rc : 0;
}

int mbx_ex_write_report(explorer *x, const char *dir, char *msg, size_t msglen)
{
    char path[PATH_MAX], out[PATH_MAX], m[400];
    if (snprintf(path, sizeof path, "%s/results.csv", dir) >= (int)sizeof path ||
        snprintf(out, sizeof out, "%s/report", dir) >= (int)sizeof out) {
        snprintf(msg, msglen, "report: the directory name is too long");
        return -1;
    }
    if (mkdir(dir, 0777) != 0) {
        snprintf(msg, msglen, "report: cannot create %.200s: %s", dir, strerror(errno));
        return -1;
    }
    if (mbx_ex_export(x, path, m, sizeof m) != 0) {
        snprintf(msg, msglen, "report: %s", m);
        return -1;
    }
    x->exported = 1;
    char title[256];
    snprintf(title, sizeof title, "mpibex explorer: %s", x->be->desc);
    const char *inputs[1] = {path}, *names[1] = {"explorer"};
    mbx_report_opts o = {.title = title, .names = names, .alpha = EX_ALPHA};
    m[0] = '\0';
    int rc = mbx_report_write(inputs, 1, out, &o, m, sizeof m);
    if (rc != 0)
        snprintf(msg, msglen, "report: %s (the results are in %s)", m[0] ? m : "failed", path);
    else {
        /* The full path, to open it from anywhere (not in tests: it names
         * the machine's directories). */
        char full[PATH_MAX];
        const char *where = !x->headless && realpath(out, full) ? full : out;
        snprintf(msg, msglen, "report in %s/index.html (results: %s and its sidecars)", where,
                 path);
    }
    return rc == 0 ? 0 : -1;
}

/* The screen's row of the screen table (screens/screen.h). */
const mbx_ex_screen_def mbx_ex_screen_results = {
    .name = "4 Results",
    .brief = "4 Results",
    .help = "results",
    .draw = draw_results,
    .key = results_key,
    .typing = NULL,
};
