/* Export of the explorer's results to CSV in exactly the batch format
 * (mbx_result_format through the same CSV writer, with the sidecars
 * `mpibex run` writes), its observations a few points a tick, the report
 * (mbx_report_write). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "explorer.h"
#include "mbx/csvio.h"
#include "mbx/envfile.h"
#include "mbx/file.h"
#include "mbx/obsfile.h"
#include "mbx/output.h"
#include "mbx/results_sort.h"
#include "report.h"

static int digits(unsigned long long v)
{
    int n = 1;
    while (v >= 10)
        v /= 10, n++;
    return n;
}

uint64_t mbx_ex_obs_bytes(const explorer *x, size_t *rows)
{
    uint64_t bytes = 0;
    size_t n = 0;
    for (size_t i = 0; i < x->npts; i++) {
        const mbx_ex_point *p = &x->pts[i];
        if (p->state != EX_DONE || !p->nobs)
            continue;
        /* A row: the point's key, the index, the time in microseconds
         * (about 7 characters), the pass, 8 commas and the newline. */
        size_t row = strlen(p->r.benchmark) + (size_t)digits((unsigned)p->procs) +
                     (size_t)digits(p->r.bytes) + (size_t)digits(p->nobs) +
                     (p->r.label ? strlen(p->r.label) : 0) + 2 + 7 + (size_t)digits(p->noseg) + 9;
        bytes += (uint64_t)row * p->nobs;
        n += p->nobs;
    }
    if (rows)
        *rows = n;
    return bytes;
}

static int cmp_export(const void *a, const void *b)
{
    return mbx_result_order(*(const mbx_result *const *)a, *(const mbx_result *const *)b);
}

/* The results CSV: the rows as run -o leaves them, sorted by benchmark,
 * procs, param and bytes, the order measured in seq. */
static int write_results(explorer *x, const char *path)
{
    mbx_csv_writer *w = NULL;
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
    return rc;
}

/* The environment and the monitor (its settings and figures in the
 * environment, its series beside the results: OUT.probe.csv). */
static int write_env(explorer *x, const char *path)
{
    char *env_path = mbx_csv_sidecar(path, ".env.csv");
    int rc = env_path ? MBX_OK : MBX_E_NOMEM;
    if (rc >= 0) {
        mbx_kvlist env = {0};
        rc = mbx_env_file_write(env_path, &env, x->be->environment(x->be, &env));
    }
    if (rc >= 0)
        rc = mbx_monitor_write(&x->mon, path, env_path,
                               MBX_MONITOR_SETTINGS | MBX_MONITOR_FIGURES | MBX_MONITOR_SERIES);
    free(env_path);
    return rc;
}

static void failed(explorer *x, int rc)
{
    mbx_ex_set_msg(x, MBX_ROLE_ERROR, "export to %.150s failed: %s", x->xp.path,
                   rc == MBX_E_NOMEM ? "out of memory" : mbx_file_why(errno ? errno : EIO));
}

/* The claim on the name, as every -o's (mbx/output.h): not while a run
 * writes there, never a device or FIFO. The user has already agreed to
 * write over an existing file (the y/n question), hence FORCE; but the y
 * is no licence to replace what the explorer reads or is writing: those
 * are inputs, refused as the plan is by `run -o`. */
static int claim(explorer *x)
{
    static const char *const sidecars[] = {".env.csv", ".obs.csv", ".probe.csv", NULL};
    const char *inputs[sizeof x->inputs / sizeof x->inputs[0] + 1];
    size_t ninputs = 0;
    for (size_t i = 0; i < x->ninputs; i++)
        inputs[ninputs++] = x->inputs[i];
    if (x->autosave_path[0])
        inputs[ninputs++] = x->autosave_path;
    mbx_output_req req = {.path = x->xp.path,
                          .flags = MBX_OUTPUT_FORCE,
                          .sidecars = sidecars,
                          .inputs = inputs,
                          .ninputs = ninputs,
                          .input_what = "a file the explorer reads or autosaves to",
                          .opt = "export"};
    char msg[sizeof x->msg];
    if (mbx_output_claim(&req, &x->xp.claim, msg, sizeof msg) < 0) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "%s%s", x->xp.report ? "report: " : "", msg);
        return -1;
    }
    return 0;
}

static void finish(explorer *x);

void mbx_ex_export_begin(explorer *x)
{
    mbx_ex_xport *e = &x->xp;
    e->done_path[0] = '\0';
    if (claim(x) < 0)
        return;
    errno = 0;
    int rc = write_results(x, e->path);
    if (rc >= 0)
        rc = write_env(x, e->path);
    char *obs_path = e->obs ? mbx_csv_sidecar(e->path, ".obs.csv") : NULL;
    if (rc >= 0 && e->obs)
        rc = obs_path ? mbx_csv_writer_open(obs_path, mbx_obs_columns, MBX_OBS_NCOLS, &e->w)
                      : MBX_E_NOMEM;
    free(obs_path);
    if (rc < 0) {
        failed(x, rc);
        mbx_csv_writer_close(e->w);
        e->w = NULL;
        mbx_output_release(&e->claim);
        return;
    }
    e->next = e->rows = 0;
    (void)mbx_ex_obs_bytes(x, &e->total);
    e->on = 1;
    mbx_ex_export_step(x); /* a small export is written at once */
}

void mbx_ex_export_step(explorer *x)
{
    mbx_ex_xport *e = &x->xp;
    size_t rows = 0;
    int rc = MBX_OK;
    errno = 0;
    for (; rc >= 0 && e->w && e->next < x->npts && rows < EX_EXPORT_STEP_ROWS; e->next++) {
        const mbx_ex_point *p = &x->pts[e->next];
        if (p->state != EX_DONE)
            continue;
        rc = mbx_obs_write_point(e->w, &p->r, p->obs, p->nobs, p->oseg, p->noseg);
        rows += p->nobs;
    }
    e->rows += rows;
    if (rc < 0) {
        failed(x, rc);
        mbx_ex_export_abandon(x, NULL);
    } else if (!e->w || e->next >= x->npts) {
        finish(x);
    } else {
        mbx_ex_set_msg(
            x, MBX_ROLE_DIM,
            "writing the observations beside %.120s: %zu%% (%zu of %zu rows); 3 c stops it",
            e->path, e->total ? 100 * e->rows / e->total : 100, e->rows, e->total);
    }
}

void mbx_ex_export_abandon(explorer *x, const char *why)
{
    mbx_ex_xport *e = &x->xp;
    if (!e->on)
        return;
    mbx_csv_writer_close(e->w);
    e->w = NULL;
    char *obs_path = mbx_csv_sidecar(e->path, ".obs.csv");
    if (obs_path && e->obs)
        unlink(obs_path); /* half a file would pass for the whole */
    free(obs_path);
    mbx_output_release(&e->claim);
    e->on = e->report = 0;
    if (why)
        mbx_ex_set_msg(x, MBX_ROLE_WARNING,
                       "%s: %.150s has the results, its observations were not written", why,
                       e->path);
}

static void finish(explorer *x)
{
    mbx_ex_xport *e = &x->xp;
    int rc = mbx_csv_writer_close(e->w) < 0 ? MBX_E_IO : MBX_OK;
    e->w = NULL;
    mbx_output_release(&e->claim);
    e->on = 0;
    if (rc < 0) {
        failed(x, rc);
        e->report = 0;
        return;
    }
    x->exported = 1;
    snprintf(e->done_path, sizeof e->done_path, "%s", e->path);
    e->done_ndone = x->ndone;
    if (e->report) {
        e->report = 0;
        mbx_ex_report_of(x, e->path, e->dir, 0);
        return;
    }
    mbx_ex_set_msg(x, MBX_ROLE_OK, "exported %zu points to %s (environment%s%s beside it)",
                   x->ndone, e->path, e->obs ? ", observations" : "",
                   x->mon.peer ? ", probes" : "");
}

const char *mbx_ex_export_current(const explorer *x)
{
    const mbx_ex_xport *e = &x->xp;
    struct stat sb;
    if (!x->exported || x->running || !e->done_path[0] || e->done_ndone != x->ndone ||
        stat(e->done_path, &sb) != 0)
        return NULL;
    return e->done_path;
}

int mbx_ex_report_of(explorer *x, const char *results, const char *dir, int reused)
{
    char out[PATH_MAX], m[400];
    if (snprintf(out, sizeof out, "%s/report", dir) >= (int)sizeof out) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "report: the directory name is too long");
        return -1;
    }
    /* gnuplot takes a moment: say so on the screen first. */
    mbx_ex_set_msg(x, MBX_ROLE_DIM, "writing the report to %s ...", dir);
    mbx_ex_show_now(x);
    char title[256];
    snprintf(title, sizeof title, "mpibex explorer: %s", x->be->desc);
    const char *inputs[1] = {results}, *names[1] = {"explorer"};
    mbx_report_opts o = {.title = title, .names = names, .alpha = EX_ALPHA};
    m[0] = '\0';
    int rc = mbx_report_write(inputs, 1, out, &o, m, sizeof m);
    if (rc != 0) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "report: %.150s (the results are in %.80s)",
                       m[0] ? m : "failed", results);
        return -1;
    }
    /* The full path, to open it from anywhere (not in tests: it names
     * the machine's directories). */
    char full[PATH_MAX];
    const char *where = !x->headless && realpath(out, full) ? full : out;
    mbx_ex_set_msg(x, MBX_ROLE_OK, "report in %.120s/index.html (results: %.100s%s)", where,
                   results, reused ? ", exported before" : " and its sidecars");
    return 0;
}
