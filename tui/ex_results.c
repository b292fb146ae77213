/* The results table (scrolls, sorts) and export to CSV in exactly the
 * batch format (mbx_result_format through the same CSV writer). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/axis.h"
#include "ex_keys.h"
#include "explorer.h"
#include "mbx/csvio.h"

/* Status comes before the optional columns so it stays visible on 80-100
 * column terminals. */
enum { C_BENCH, C_BYTES, C_N, C_MEDIAN, C_CI, C_ERR, C_STATUS, C_PROCS, C_TMEAN, C_BW, C_COUNT };
static const char *const col_names[C_COUNT] = {"benchmark", "bytes",  "n",     "median", "ci95",
                                               "err",       "status", "procs", "tmean",  "MB/s"};
static const int col_w[C_COUNT] = {19, 5, 5, 8, 16, 6, 10, 5, 8, 7};

static const explorer *sort_ctx;

static double sort_key(const ex_point *p, int col)
{
    switch (col) {
    case C_PROCS: return p->procs;
    case C_BYTES: return (double)p->bytes;
    case C_N: return (double)p->r.s.n;
    case C_MEDIAN: return p->r.s.median;
    case C_TMEAN: return p->r.s.tmean;
    case C_CI: return p->r.s.ci_hi - p->r.s.ci_lo;
    case C_ERR: return mbx_stop_progress(&p->r.stop, &p->r.s);
    case C_BW: return mbx_result_bandwidth(&p->r);
    case C_STATUS: return p->r.status;
    default: return 0;
    }
}

static int cmp_rows(const void *a, const void *b)
{
    const ex_point *p = *(const ex_point *const *)a, *q = *(const ex_point *const *)b;
    int c = 0;
    if (sort_ctx->sort_col == C_BENCH) {
        c = strcmp(p->r.benchmark, q->r.benchmark);
    } else {
        double u = sort_key(p, sort_ctx->sort_col), v = sort_key(q, sort_ctx->sort_col);
        c = isnan(u) ? (isnan(v) ? 0 : 1) : isnan(v) ? -1 : (u > v) - (u < v);
    }
    if (c == 0) /* stable by measured order */
        c = (p > q) - (p < q);
    return sort_ctx->sort_desc ? -c : c;
}

/* Done points in display order; returns how many. */
static size_t sorted_rows(explorer *x, const ex_point **out)
{
    size_t n = 0;
    for (size_t i = 0; i < x->npts; i++)
        if (x->pts[i].state == EX_DONE)
            out[n++] = &x->pts[i];
    sort_ctx = x;
    qsort(out, n, sizeof *out, cmp_rows);
    return n;
}

int ex_results_key(explorer *x, int key)
{
    size_t n = x->ndone;
    switch (ex_key_action(key, EX_RESULTS)) {
    case EXA_UP: x->rcursor = x->rcursor > 0 ? x->rcursor - 1 : 0; break;
    case EXA_DOWN: x->rcursor = (size_t)x->rcursor + 1 < n ? x->rcursor + 1 : x->rcursor; break;
    case EXA_PGUP: x->rcursor = x->rcursor > 10 ? x->rcursor - 10 : 0; break;
    case EXA_PGDN:
        x->rcursor = (size_t)x->rcursor + 10 < n ? x->rcursor + 10 : (n ? (int)n - 1 : 0);
        break;
    case EXA_HOME: x->rcursor = 0; break;
    case EXA_END: x->rcursor = n ? (int)n - 1 : 0; break;
    case EXA_SORT: x->sort_col = (x->sort_col + 1) % C_COUNT; break;
    case EXA_REVERSE: x->sort_desc = !x->sort_desc; break;
    default: return 0;
    }
    return 1;
}

static void cell_text(const explorer *x, const ex_point *p, int c, char *buf, size_t len)
{
    const mbx_result *r = &p->r;
    char a[16], b[16];
    switch (c) {
    case C_BENCH: snprintf(buf, len, "%s", r->benchmark); break;
    case C_PROCS: snprintf(buf, len, "%d", r->procs); break;
    case C_BYTES: mbx_axis_format((double)r->bytes, MBX_AXIS_BYTES, 0, buf, (int)len); break;
    case C_N: snprintf(buf, len, "%zu", r->s.n); break;
    case C_MEDIAN: mbx_axis_format(r->s.median, MBX_AXIS_SECONDS, x->utf8, buf, (int)len); break;
    case C_TMEAN: mbx_axis_format(r->s.tmean, MBX_AXIS_SECONDS, x->utf8, buf, (int)len); break;
    case C_CI:
        mbx_axis_format(r->s.ci_lo, MBX_AXIS_SECONDS, x->utf8, a, sizeof a);
        mbx_axis_format(r->s.ci_hi, MBX_AXIS_SECONDS, x->utf8, b, sizeof b);
        snprintf(buf, len, "[%s, %s]", a, b);
        break;
    case C_ERR: {
        double e = mbx_stop_progress(&r->stop, &r->s);
        if (r->stop.kind == MBX_STOP_FIXED || !isfinite(e))
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

void ex_draw_results(explorer *x, const mbx_rect *body)
{
    const ex_point **rows = malloc((x->npts ? x->npts : 1) * sizeof *rows);
    if (!rows)
        return;
    size_t n = sorted_rows(x, rows);
    char head[128];
    snprintf(head, sizeof head, "Results: %zu points%s  (sorted by %s%s; s next column, S reverse)",
             n,
             x->exported ? ", exported"
             : n         ? ", not exported (e exports)"
                         : "",
             col_names[x->sort_col], x->sort_desc ? ", descending" : "");
    ex_put(x, body->y, body->x + 1, body->w - 1, MBX_ROLE_NORMAL, head);
    int col = body->x + 1, y = body->y + 2;
    for (int c = 0; c < C_COUNT && col < body->x + body->w; c++) {
        ex_put(x, y, col, col_w[c], c == x->sort_col ? MBX_ROLE_SELECTED : MBX_ROLE_AXIS,
               col_names[c]);
        col += col_w[c] + 1;
    }
    int list_h = body->h - 3;
    if (x->rcursor >= (int)n)
        x->rcursor = n ? (int)n - 1 : 0;
    if (x->rcursor < x->rtop)
        x->rtop = x->rcursor;
    if (x->rcursor >= x->rtop + list_h)
        x->rtop = x->rcursor - list_h + 1;
    for (int i = 0; i < list_h && (size_t)(x->rtop + i) < n; i++) {
        const ex_point *p = rows[x->rtop + i];
        int yy = y + 1 + i, cur = x->rtop + i == x->rcursor;
        if (cur)
            ex_fill(x, yy, body->x, body->w, MBX_ROLE_CURSOR);
        col = body->x + 1;
        for (int c = 0; c < C_COUNT && col < body->x + body->w; c++) {
            char t[64];
            cell_text(x, p, c, t, sizeof t);
            int role = cur ? MBX_ROLE_CURSOR : MBX_ROLE_NORMAL;
            if (c == C_STATUS && !cur)
                role = p->r.status == MBX_POINT_SETTLED     ? MBX_ROLE_OK
                       : p->r.status == MBX_POINT_UNSETTLED ? MBX_ROLE_WARNING
                                                            : MBX_ROLE_ERROR;
            ex_put(x, yy, col, col_w[c], role, t);
            col += col_w[c] + 1;
        }
    }
    if (n == 0)
        ex_put(x, y + 1, body->x + 2, body->w - 2, MBX_ROLE_DIM, "no results yet");
    free(rows);
}

int ex_export(explorer *x, const char *path, char *msg, size_t msglen)
{
    mbx_csv_writer *w = NULL;
    int rc = mbx_csv_writer_open(path, mbx_result_columns, MBX_RESULT_NCOLS, &w);
    for (size_t i = 0; rc >= 0 && i < x->npts; i++) {
        if (x->pts[i].state != EX_DONE)
            continue;
        mbx_result_fields f;
        mbx_result_format(&x->pts[i].r, &f);
        rc = mbx_csv_writer_row(w, f.field);
    }
    if (mbx_csv_writer_close(w) < 0 && rc >= 0)
        rc = MBX_E_IO;
    char *env_path = mbx_csv_sidecar(path, ".env.csv");
    if (rc >= 0 && env_path) {
        mbx_kvlist env = {0};
        static const char *const kvcols[] = {"key", "value"};
        rc = x->be->environment(x->be, &env);
        if (rc >= 0)
            rc = mbx_csv_writer_open(env_path, kvcols, 2, &w);
        for (size_t i = 0; rc >= 0 && i < env.n; i++) {
            const char *f[2] = {env.v[i].key, env.v[i].value};
            rc = mbx_csv_writer_row(w, f);
        }
        if (rc >= 0 && mbx_csv_writer_close(w) < 0)
            rc = MBX_E_IO;
        mbx_kv_free(&env);
    }
    if (rc < 0)
        snprintf(msg, msglen, "export to %s failed: %s", path, strerror(errno ? errno : EIO));
    else
        snprintf(msg, msglen, "exported %zu points to %s (environment in %s)", x->ndone, path,
                 env_path ? env_path : "?");
    free(env_path);
    return rc < 0 ? rc : 0;
}
