/* The machine-state monitor shared by the front ends (monitor.h). */
#include "mbx/monitor.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/csvio.h"
#include "mbx/envfile.h"

void mbx_monitor_init(mbx_monitor *m, int peer, double shift_rel)
{
    memset(m, 0, sizeof *m);
    m->peer = peer;
    m->shift_rel = shift_rel;
}

void mbx_monitor_reset(mbx_monitor *m)
{
    m->n = 0;
    m->remeasured = m->shifted = 0;
    m->probe_failed = 0;
    mbx_levels_free(&m->lv);
    m->lv_n = 0;
    m->lv_ok = 0;
}

void mbx_monitor_free(mbx_monitor *m)
{
    (void)mbx_csv_writer_close(m->series);
    m->series = NULL;
    mbx_levels_free(&m->lv);
    free(m->t);
    free(m->v);
    m->t = m->v = NULL;
    m->n = m->cap = m->lv_n = 0;
    m->lv_ok = 0;
}

int mbx_monitor_add(mbx_monitor *m, double t, double v)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 256;
        double *nt = realloc(m->t, cap * sizeof *nt);
        if (nt)
            m->t = nt;
        double *nv = realloc(m->v, cap * sizeof *nv);
        if (nv)
            m->v = nv;
        if (!nt || !nv)
            return MBX_E_NOMEM;
        m->cap = cap;
    }
    m->t[m->n] = t;
    m->v[m->n++] = v;
    return MBX_OK;
}

double mbx_monitor_last(const mbx_monitor *m)
{
    return m->n ? m->v[m->n - 1] : NAN;
}

static int take(mbx_monitor *m, mbx_monitor_probe_fn probe, void *ud, double *v)
{
    double t = 0;
    int rc = probe(ud, v, &t);
    if (rc >= 0)
        rc = mbx_monitor_add(m, t, *v);
    if (rc < 0)
        m->probe_failed = 1;
    return rc;
}

int mbx_monitor_measure(mbx_monitor *m, mbx_monitor_probe_fn probe, mbx_monitor_measure_fn measure,
                        void *ud, mbx_result *out, const double **obs, size_t *nobs)
{
    mbx_levels_opts lo = {.min_rel = m->shift_rel};
    int on = m->peer > 0 && probe;
    double before = on ? mbx_monitor_last(m) : NAN, after = NAN;
    int rc = MBX_OK, tries = 0;
    m->probe_failed = 0;
    do {
        if (tries == 1)
            before = after;
        if (on && isnan(before) && (rc = take(m, probe, ud, &before)) < 0)
            return rc;
        if ((rc = measure(ud, out, obs, nobs)) < 0)
            return rc;
        if (on && (rc = take(m, probe, ud, &after)) < 0)
            return rc;
        tries++;
    } while (tries < 2 && on && mbx_levels_shifted(before, after, &lo));
    out->probe = before;
    out->probe_after = after;
    out->remeasured = tries > 1;
    m->remeasured += (size_t)(tries > 1);
    if (on && mbx_levels_shifted(before, after, &lo) &&
        (out->status == MBX_POINT_SETTLED || out->status == MBX_POINT_UNSETTLED ||
         out->status == MBX_POINT_FIXED)) {
        out->status = MBX_POINT_SHIFTED;
        m->shifted++;
    }
    return MBX_OK;
}

const mbx_levels *mbx_monitor_levels(mbx_monitor *m)
{
    if (m->lv_n == m->n && (m->lv_ok || m->n == 0))
        return &m->lv;
    mbx_levels_free(&m->lv);
    mbx_levels_opts lo = {.min_rel = m->shift_rel};
    m->lv_ok = mbx_levels_detect(m->v, m->n, &lo, &m->lv) >= 0;
    m->lv_n = m->n;
    return m->lv_ok ? &m->lv : NULL;
}

void mbx_monitor_summary(mbx_monitor *m, char *buf, size_t len)
{
    const mbx_levels *lv = mbx_monitor_levels(m);
    size_t nlev = lv ? lv->nlevel : 0, nseg = lv ? lv->nseg : 0;
    double span = m->n ? m->t[m->n - 1] - m->t[0] : 0;
    size_t k = (size_t)snprintf(buf, len, "%zu probes over %.1f s: %zu level%s", m->n, span, nlev,
                                nlev == 1 ? "" : "s");
    for (size_t l = 0; l < nlev && k < len; l++)
        k += (size_t)snprintf(buf + k, len - k, "%s%.3f", l ? ", " : " (", lv->level[l] * 1e6);
    if (k < len)
        k += (size_t)snprintf(buf + k, len - k, "%s, %zu shift%s", nlev ? " us)" : "",
                              nseg ? nseg - 1 : 0, nseg == 2 ? "" : "s");
    /* Levels last seconds here: one level in a short run says nothing
     * about the machine, only about the run. */
    if (k < len && nlev == 1 && span < MBX_MONITOR_SAY_SPAN_S)
        k += (size_t)snprintf(buf + k, len - k, " (a run under %.0f s is too short to tell)",
                              MBX_MONITOR_SAY_SPAN_S);
    if (k < len && (m->remeasured || m->shifted))
        snprintf(buf + k, len - k, "; %zu point%s measured again, %zu SHIFTED", m->remeasured,
                 m->remeasured == 1 ? "" : "s", m->shifted);
}

static const char *const series_cols[] = {"t_s", "probe_us", "segment", "level"};

int mbx_monitor_open_series(mbx_monitor *m, const char *results_path)
{
    if (m->peer <= 0 || m->series)
        return MBX_OK;
    char *path = mbx_csv_sidecar(results_path, ".probe.csv");
    int rc = path ? mbx_csv_writer_open(path, series_cols, 4, &m->series) : MBX_E_NOMEM;
    int err = errno;
    free(path);
    errno = err;
    return rc;
}

static int write_series(mbx_monitor *m, const mbx_levels *lv, const char *results_path)
{
    mbx_csv_writer *w = m->series;
    m->series = NULL;
    int rc = w ? MBX_OK : mbx_monitor_open_series(m, results_path);
    if (!w) {
        w = m->series;
        m->series = NULL;
    }
    for (size_t g = 0; rc >= 0 && g < lv->nseg; g++)
        for (size_t i = lv->seg[g].begin; rc >= 0 && i < lv->seg[g].end; i++) {
            char t[32], v[32], sg[24], l[24];
            snprintf(t, sizeof t, "%.6f", m->t[i]);
            snprintf(v, sizeof v, "%.4f", m->v[i] * 1e6);
            snprintf(sg, sizeof sg, "%zu", g + 1);
            snprintf(l, sizeof l, "%d", lv->seg[g].level + 1);
            const char *f[4] = {t, v, sg, l};
            rc = mbx_csv_writer_row(w, f);
        }
    int err = errno;
    if (mbx_csv_writer_close(w) < 0 && rc >= 0) {
        rc = MBX_E_IO;
        err = errno;
    }
    errno = err;
    return rc;
}

int mbx_monitor_write(mbx_monitor *m, const char *results_path, const char *env_path, unsigned what)
{
    int on = m->peer > 0;
    const mbx_levels *lv = NULL;
    if (on && (what & (MBX_MONITOR_FIGURES | MBX_MONITOR_SERIES))) {
        lv = mbx_monitor_levels(m);
        if (!lv)
            return MBX_E_NOMEM;
    }
    int rc = MBX_OK;
    if (on && (what & MBX_MONITOR_SERIES) && results_path)
        rc = write_series(m, lv, results_path);
    unsigned env_parts = what & (MBX_MONITOR_SETTINGS | (on ? MBX_MONITOR_FIGURES : 0));
    if (rc < 0 || !env_parts || !env_path)
        return rc;
    mbx_kvlist env = {0};
    if (what & MBX_MONITOR_SETTINGS) {
        rc = mbx_kv_addf(&env, "monitor", "%s", on ? "on" : "off");
        if (rc >= 0)
            rc = mbx_kv_addf(&env, "monitor.shift_threshold", "%g",
                             m->shift_rel > 0 ? m->shift_rel : 0.2);
    }
    if (rc >= 0 && on && (what & MBX_MONITOR_FIGURES)) {
        double span = m->n ? m->t[m->n - 1] - m->t[0] : 0;
        const struct {
            const char *k;
            double v;
        } items[] = {{"monitor.probes", (double)m->n},
                     {"monitor.seconds", span},
                     {"monitor.levels", (double)lv->nlevel},
                     {"monitor.shifts", (double)(lv->nseg ? lv->nseg - 1 : 0)},
                     {"monitor.remeasured", (double)m->remeasured},
                     {"monitor.shifted_points", (double)m->shifted}};
        for (size_t i = 0; rc >= 0 && i < sizeof items / sizeof *items; i++)
            rc = mbx_kv_addf(&env, items[i].k, "%.6g", items[i].v);
        for (size_t l = 0; rc >= 0 && l < lv->nlevel; l++) {
            char key[64];
            snprintf(key, sizeof key, "monitor.level.%zu_us", l + 1);
            rc = mbx_kv_addf(&env, key, "%.4f", lv->level[l] * 1e6);
        }
    }
    return mbx_env_file_append(env_path, &env, rc);
}
