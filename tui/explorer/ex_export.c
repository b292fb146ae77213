/* Export of the explorer's results to CSV in exactly the batch format
 * (mbx_result_format through the same CSV writer, with the sidecars
 * `mpibex run` writes), the report (mbx_report_write), and the run's
 * points freed. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "explorer.h"
#include "mbx/csvio.h"
#include "mbx/envfile.h"
#include "mbx/file.h"
#include "mbx/obsfile.h"
#include "mbx/output.h"
#include "mbx/results_sort.h"
#include "report.h"

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
