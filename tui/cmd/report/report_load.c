/* mpibex report: reading the inputs (results CSVs, merged CSVs, directories
 * of launches) and their environment sidecars. Every CSV goes through the
 * libcsv reader (mbx/csvio.h) and is read by column name. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mbx/ascii.h"
#include "mbx/compare.h"
#include "mbx/csvio.h"
#include "mbx/merge.h"
#include "mbx/pointid.h"
#include "mbx/result.h"
#include "report_int.h"

/* Filled marks for settled points, hollow ones for the doubtful (distinct
 * shapes, so that they read without colour too), and a large diamond around
 * a refined point whatever its status. */
const mbx_rpt_mark_style mbx_rpt_marks[MBX_RPT_NMARKS] = {
    [MBX_RPT_SETTLED] = {"settled", 7, 1.1, "settled (filled circle)"},
    [MBX_RPT_UNSETTLED] = {"unsettled", 6, 1.1, "unsettled (hollow circle)"},
    [MBX_RPT_SHIFTED] = {"shifted", 8, 1.1,
                         "shifted: level shift during the point (hollow triangle)"},
    [MBX_RPT_UNRELIABLE] = {"unreliable", 4, 1.1, "unreliable (hollow square)"},
    [MBX_RPT_INVALID] = {"invalid", 2, 1.1, "invalid (cross)"},
    [MBX_RPT_REFINED] = {"refined", 12, 2.2, "refined: added by refinement (diamond around)"},
};

mbx_rpt_mark mbx_rpt_point_mark(const mbx_rpt_point *p)
{
    static const char *const names[] = {"SETTLED", "UNSETTLED", "SHIFTED", "UNRELIABLE", "INVALID"};
    /* A fixed count took every observation asked for: a filled mark. */
    if (strcmp(p->status, "FIXED") == 0)
        return MBX_RPT_SETTLED;
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (strcmp(p->status, names[k]) == 0)
            return (mbx_rpt_mark)k;
    return MBX_RPT_SETTLED;
}

const char *mbx_rpt_pl(size_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* The columns the report reads; which name each has depends on the kind. */
enum {
    K_BENCH,
    K_PROCS,
    K_BYTES,
    K_MED,
    K_STATUS,
    K_LABEL,
    K_ROOT,
    K_OP,
    K_PARAM,
    K_PARAM_NAME,
    K_BW,
    K_N,
    K_LO,
    K_HI,
    K_RUNS,
    K_SPREAD,
    K_PASSES,
    K_RMA_SYNC,
    K_REFINED,
    K_REMEASURED,
    K_LEVELS,
    K_REASON,
    K_SCOPE,
    K_RANKS, /* the node-pair columns (results only) */
    K_SRC_HOST,
    K_DST_HOST,
    K_TOPOLOGY,
    NK
};
/* A results file's columns, by the column table's ids (mbx/result.h);
 * -1: it has none (runs, spread). */
static const int results_ids[NK] = {MBX_COL_BENCHMARK,
                                    MBX_COL_PROCS,
                                    MBX_COL_BYTES,
                                    MBX_COL_MEDIAN_US,
                                    MBX_COL_STATUS,
                                    MBX_COL_LABEL,
                                    MBX_COL_ROOT,
                                    MBX_COL_OP,
                                    MBX_COL_PARAM,
                                    MBX_COL_PARAM_NAME,
                                    MBX_COL_BANDWIDTH_MBPS,
                                    MBX_COL_N,
                                    MBX_COL_CI95_LO_US,
                                    MBX_COL_CI95_HI_US,
                                    -1,
                                    -1,
                                    MBX_COL_PASSES,
                                    MBX_COL_RMA_SYNC,
                                    MBX_COL_REFINED,
                                    MBX_COL_REMEASURED,
                                    MBX_COL_LEVELS,
                                    MBX_COL_STATUS_REASON,

                                    MBX_COL_CI_SCOPE,
                                    MBX_COL_RANKS,
                                    MBX_COL_SRC_HOST,
                                    MBX_COL_DST_HOST,
                                    MBX_COL_TOPOLOGY};
/* A merged file has no passes, refined or remeasured (NULL). */
static const char *const merged_cols[NK] = {"benchmark",
                                            "procs",
                                            "bytes",
                                            "median_us",
                                            "status",
                                            "label",
                                            "root",
                                            "op",
                                            "param",
                                            "param_name",
                                            "bandwidth_MBps",
                                            "n_total",
                                            "median_min_us",
                                            "median_max_us",
                                            "runs",
                                            "spread_rel",
                                            NULL,
                                            "rma_sync",
                                            NULL,
                                            NULL,
                                            NULL,
                                            NULL,

                                            "ci_scope",
                                            NULL,
                                            NULL,
                                            NULL,
                                            NULL};
/* Without the columns the column table marks MBX_READ_REPORT (a merged
 * file has them too, under the same names) the file is not one of ours;
 * the rest read as empty. */

/* The name column k has in a file of this kind; NULL: it has none. */
static const char *col_name(mbx_rpt_kind kind, int k)
{
    if (kind == MBX_RPT_MERGED)
        return merged_cols[k];
    return results_ids[k] >= 0 ? mbx_result_columns[results_ids[k]] : NULL;
}

/* The kind of a table from its header, and where each column is. 0, or 2
 * and a message naming the missing column. */
static int map_cols(const char *const *hdr, size_t n, const char *name, mbx_rpt_kind *kind,
                    int *col, char *msg, size_t msglen)
{
    *kind = mbx_csv_col(hdr, n, "median_min_us") >= 0 && mbx_csv_col(hdr, n, "runs") >= 0
                ? MBX_RPT_MERGED
                : MBX_RPT_RESULTS;
    for (int k = 0; k < NK; k++) {
        const char *kname = col_name(*kind, k);
        col[k] = kname != NULL ? mbx_csv_col(hdr, n, kname) : -1;
    }
    const char *need[MBX_RESULT_NCOLS];
    size_t nneed = mbx_result_required(MBX_READ_REPORT, need, MBX_RESULT_NCOLS);
    for (size_t i = 0; i < nneed; i++) {
        if (mbx_csv_col(hdr, n, need[i]) < 0) {
            mbx_report_msgf(msg, msglen,
                            "'%s' is not an mpibex results or merged CSV: no '%s' column", name,
                            need[i]);
            return 2;
        }
    }
    return 0;
}

static int parse_ll(const char *s, long long *v)
{
    unsigned long long u;
    if (mbx_csv_count(s, LLONG_MAX, &u) < 0)
        return 0;
    *v = (long long)u;
    return 1;
}

/* A number below max (the shared strict reader), or NAN for an empty
 * field. */
static int parse_num(const char *s, double max, double *v)
{
    return mbx_csv_number(s, max, 1, v) == MBX_OK;
}

static const char *field(const char *const *f, const int *col, int k)
{
    return col[k] >= 0 ? f[col[k]] : "";
}

static char *dup_field(const char *const *f, const int *col, int k)
{
    return strdup(field(f, col, k));
}

void mbx_rpt_point_free(mbx_rpt_point *p)
{
    free(p->bench);
    free(p->label);
    free(p->root);
    free(p->op);
    free(p->param);
    free(p->param_name);
    free(p->status);
    free(p->rma_sync);
    free(p->reason);
    free(p->scope);
}

/* Check and append one row (fields by the table's columns). */
static int add_row(mbx_rpt_input *in, const char *const *f, const int *col, const char *name,
                   size_t line, char *msg, size_t msglen)
{
    mbx_rpt_point p = {.lo = NAN, .hi = NAN, .bw = NAN, .spread = NAN, .n = -1, .runs = 1};
    unsigned long long bytes = 0;
    long long v = 0;
    int bad = -1;
    const char *want = NULL;
    const int nums[] = {K_MED, K_LO, K_HI, K_BW, K_SPREAD};
    double *dst[] = {&p.med, &p.lo, &p.hi, &p.bw, &p.spread};
    const double max[] = {MBX_CSV_TIME_US_MAX, MBX_CSV_TIME_US_MAX, MBX_CSV_TIME_US_MAX,
                          MBX_CSV_NUMBER_MAX, MBX_CSV_NUMBER_MAX};
    const char *const wants[] = {
        MBX_CSV_TIME_WANT " or an empty field", MBX_CSV_TIME_WANT " or an empty field",
        MBX_CSV_TIME_WANT " or an empty field", MBX_CSV_NUMBER_WANT " or an empty field",
        MBX_CSV_NUMBER_WANT " or an empty field"};
    if (f[col[K_BENCH]][0] == '\0')
        bad = K_BENCH, want = "a benchmark name";
    else if (!parse_ll(f[col[K_PROCS]], &p.procs) || p.procs < 1)
        bad = K_PROCS, want = "a whole number >= 1";
    else if (!parse_ll(f[col[K_BYTES]], &v))
        bad = K_BYTES, want = "a whole number >= 0";
    else if (f[col[K_STATUS]][0] == '\0')
        bad = K_STATUS, want = "a status (SETTLED, UNSETTLED, ...)";
    bytes = (unsigned long long)v;
    for (size_t i = 0; bad < 0 && i < sizeof nums / sizeof *nums; i++)
        if (col[nums[i]] >= 0 && !parse_num(f[col[nums[i]]], max[i], dst[i]))
            bad = nums[i], want = wants[i];
    if (bad < 0 && col[K_N] >= 0 && f[col[K_N]][0] != '\0' && !parse_ll(f[col[K_N]], &p.n))
        bad = K_N, want = "a whole number >= 0";
    if (bad < 0 && col[K_RUNS] >= 0 && !parse_ll(f[col[K_RUNS]], &p.runs))
        bad = K_RUNS, want = "a whole number >= 0";
    /* Files before format 3 have no passes column: measured in one go. */
    if (bad < 0 && col[K_PASSES] >= 0 && f[col[K_PASSES]][0] != '\0' &&
        !parse_ll(f[col[K_PASSES]], &p.passes))
        bad = K_PASSES, want = "a whole number >= 0 or an empty field";
    /* Marks only (older files lack the columns): anything but "1" is 0. */
    p.refined = col[K_REFINED] >= 0 && strcmp(f[col[K_REFINED]], "1") == 0;
    p.remeasured = col[K_REMEASURED] >= 0 && strcmp(f[col[K_REMEASURED]], "1") == 0;
    /* Levels told apart and the reason: what the views show of a flagged
     * row (mbx/rowview.h); files before format 3 have neither. */
    if (bad < 0 && col[K_LEVELS] >= 0 && f[col[K_LEVELS]][0] != '\0' &&
        !parse_ll(f[col[K_LEVELS]], &p.levels))
        bad = K_LEVELS, want = "a whole number >= 0 or an empty field";
    if (bad >= 0) {
        mbx_report_msgf(msg, msglen, "%s:%zu: %s: expected %s (got '%.40s')", name, line,
                        col_name(in->kind, bad), want, f[col[bad]]);
        return 2;
    }
    p.bytes = bytes;
    p.bench = dup_field(f, col, K_BENCH);
    p.label = dup_field(f, col, K_LABEL);
    p.root = dup_field(f, col, K_ROOT);
    p.op = dup_field(f, col, K_OP);
    p.param = dup_field(f, col, K_PARAM);
    p.param_name = dup_field(f, col, K_PARAM_NAME);
    p.status = dup_field(f, col, K_STATUS);
    p.rma_sync = dup_field(f, col, K_RMA_SYNC);
    p.reason = dup_field(f, col, K_REASON);
    p.scope = dup_field(f, col, K_SCOPE);
    if (!p.bench || !p.label || !p.root || !p.op || !p.param || !p.param_name || !p.status ||
        !p.rma_sync || !p.reason || !p.scope)
        goto nomem;
    /* A node-pair cell is a place in a matrix, not a point of a curve:
     * its rows differ only in ranks (docs/user-guide.md, "Reports"). */
    int m = in->kind == MBX_RPT_RESULTS ? mbx_rpt_pairs_metric(p.bench) : -1;
    if (m >= 0) {
        const char *pf[4] = {field(f, col, K_RANKS), field(f, col, K_SRC_HOST),
                             field(f, col, K_DST_HOST), field(f, col, K_TOPOLOGY)};
        int rc = mbx_rpt_pairs_add(&in->pairs, &p, m, pf, name, line, msg, msglen);
        if (rc != 0)
            mbx_rpt_point_free(&p);
        return rc;
    }
    if (in->npt == in->cap) {
        size_t cap = in->cap ? 2 * in->cap : 64;
        mbx_rpt_point *pt = realloc(in->pt, cap * sizeof *pt);
        if (pt == NULL)
            goto nomem;
        in->pt = pt;
        in->cap = cap;
    }
    in->pt[in->npt++] = p;
    in->passes |= p.passes > 0;
    return 0;
nomem:
    mbx_rpt_point_free(&p);
    mbx_report_msgf(msg, msglen, "out of memory");
    return 1;
}

/* Environment sidecar: a key,value table. Problems are notes, not errors:
 * the sidecar is optional. */
static int read_env(mbx_kvlist *env, const char *path, char *note, size_t notelen)
{
    mbx_csv_table t;
    if (mbx_csv_read_file(path, &t) < 0) {
        if (errno == ENOENT)
            mbx_report_msgf(note, notelen, "no environment file (%s)", path);
        else
            mbx_report_msgf(note, notelen, "%s: not readable as CSV", path);
        return 0;
    }
    int kc = mbx_csv_table_col(&t, "key"), vc = mbx_csv_table_col(&t, "value"), rc = 1;
    if (kc < 0 || vc < 0) {
        mbx_report_msgf(note, notelen, "%s is not a key,value table", path);
        rc = 0;
    }
    for (size_t r = 1; rc == 1 && r < t.nrows; r++) {
        if (t.ncols[r] <= (size_t)kc || t.ncols[r] <= (size_t)vc || t.cell[r][kc][0] == '\0')
            continue;
        if (mbx_kv_addf(env, t.cell[r][kc], "%s", t.cell[r][vc]) < 0)
            rc = -1;
    }
    mbx_csv_table_free(&t);
    return rc;
}

/* A results or merged CSV read row by row: only the points are kept. */
struct loading {
    mbx_rpt_input *in;
    const char *path;
    int col[NK];
    size_t ncols; /* the header's; 0 before it */
    int rc;       /* 0, or the exit status of the row that stopped the reading */
    char *msg;
    size_t msglen;
};

static int load_row(void *ctx, char *const *f, size_t n, size_t line)
{
    struct loading *l = ctx;
    if (l->ncols == 0) {
        l->ncols = n;
        l->rc =
            map_cols((const char *const *)f, n, l->path, &l->in->kind, l->col, l->msg, l->msglen);
    } else if (n != l->ncols) {
        mbx_report_msgf(l->msg, l->msglen, "%s:%zu: %zu fields, the header has %zu", l->path, line,
                        n, l->ncols);
        l->rc = 2;
    } else {
        l->rc = add_row(l->in, (const char *const *)f, l->col, l->path, line, l->msg, l->msglen);
    }
    return l->rc == 0 ? MBX_OK : MBX_E_ABORTED;
}

static int load_csv(mbx_rpt_input *in, const char *path, char *msg, size_t msglen)
{
    struct loading l = {.in = in, .path = path, .msg = msg, .msglen = msglen};
    errno = 0;
    mbx_csv_why why;
    int st = mbx_csv_read_rows_why(path, load_row, &l, &why), rc = l.rc;
    if (st < 0 && st != MBX_E_ABORTED) {
        if (st == MBX_E_IO)
            mbx_report_msgf(msg, msglen, "cannot read '%s': %s", path, strerror(errno));
        else if (st == MBX_E_NOMEM)
            mbx_report_msgf(msg, msglen, "out of memory");
        else
            mbx_report_msgf(msg, msglen, "'%s' is not valid CSV: line %zu: %s", path, why.line,
                            why.text);
        return st == MBX_E_NOMEM ? 1 : 2;
    }
    if (rc == 0 && l.ncols == 0) {
        mbx_report_msgf(msg, msglen, "'%s' is empty: not an mpibex results or merged CSV", path);
        return 2;
    }
    if (rc == 0 && in->npt == 0 && in->pairs.ncell == 0) {
        mbx_report_msgf(msg, msglen, "'%s' has no data rows", path);
        rc = 2;
    }
    if (rc != 0)
        return rc;
    if (in->pairs.ncell > 0 && mbx_rpt_pairs_index(&in->pairs, path) != 0) {
        mbx_report_msgf(msg, msglen, "out of memory");
        return 1;
    }
    if ((in->env_path = mbx_csv_sidecar(path, ".env.csv")) == NULL)
        return 1;
    if (read_env(&in->env, in->env_path, in->env_note, sizeof in->env_note) <= 0) {
        free(in->env_path);
        in->env_path = NULL;
    }
    if (in->kind == MBX_RPT_MERGED) {
        snprintf(in->why_not, sizeof in->why_not,
                 "%s is a merged CSV, which keeps no samples to test (compare the directories "
                 "of launches, or results CSVs written with --raw)",
                 path);
        return 0;
    }
    char *obs = mbx_csv_sidecar(path, ".obs.csv");
    if (obs == NULL)
        return 1;
    in->comparable = access(obs, R_OK) == 0;
    if (!in->comparable)
        snprintf(in->why_not, sizeof in->why_not,
                 "%s has no raw observations: %s is missing (run with --raw, or compare "
                 "directories of launches)",
                 path, obs);
    free(obs);
    return 0;
}

static char *join(const char *dir, const char *name)
{
    size_t ld = strlen(dir);
    while (ld > 1 && dir[ld - 1] == '/')
        ld--;
    char *p = malloc(ld + strlen(name) + 2);
    if (p != NULL)
        sprintf(p, "%.*s/%s", (int)ld, dir, name);
    return p;
}

/* The first launch's environment; a note lists the keys whose values
 * differ between launches (the date at least). */
static int dir_env(mbx_rpt_input *in, char **files, size_t n)
{
    size_t used = 0;
    char *note = in->env_note;
    for (size_t i = 0; i < n; i++) {
        char *p = mbx_csv_sidecar(files[i], ".env.csv");
        if (p == NULL)
            return 1;
        mbx_kvlist other = {0};
        mbx_kvlist *dst = in->env_path == NULL ? &in->env : &other;
        char tmp[512] = "";
        int rc = read_env(dst, p, tmp, sizeof tmp);
        if (rc < 0) {
            free(p);
            mbx_kv_free(&other);
            return 1;
        }
        if (rc > 0 && in->env_path == NULL) {
            in->env_path = p;
            continue;
        }
        free(p);
        for (size_t k = 0; rc > 0 && k < in->env.n; k++) {
            const char *v = mbx_kv_get(&other, in->env.v[k].key);
            if (v != NULL && strcmp(v, in->env.v[k].value) == 0)
                continue;
            const char *key = in->env.v[k].key;
            if (strstr(note, key) != NULL) /* listed already (close enough for a note) */
                continue;
            size_t room = sizeof in->env_note - used;
            int w = snprintf(note + used, room, "%s%s",
                             used == 0 ? "keys whose values differ between launches: " : ", ", key);
            if (w > 0 && (size_t)w < room)
                used += (size_t)w;
        }
        mbx_kv_free(&other);
    }
    if (in->env_path == NULL && n > 0)
        snprintf(in->env_note, sizeof in->env_note, "no environment file beside the launches");
    return 0;
}

static int load_dir(mbx_rpt_input *in, const char *path, char *msg, size_t msglen)
{
    char **files = NULL;
    size_t n = 0;
    int st = mbx_compare_list_launches(path, &files, &n, msg, msglen);
    if (st < 0)
        return st == MBX_E_NOMEM ? 1 : 2;
    int rc = 0;
    if (n == 0) {
        mbx_report_msgf(
            msg, msglen,
            "'%s' is a directory without launch-*.csv files (not written by 'mpibex repeat')",
            path);
        rc = 2;
    }
    mbx_merge *m = NULL;
    if (rc == 0 && mbx_merge_new(&m) < 0)
        rc = 1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        int mst = mbx_merge_add_file(m, files[i], msg, msglen);
        if (mst < 0)
            rc = mst == MBX_E_NOMEM ? 1 : 2;
    }
    int col[NK];
    mbx_rpt_kind kind;
    if (rc == 0)
        rc = map_cols(mbx_merge_columns, MBX_MERGE_NCOLS, path, &kind, col, msg, msglen);
    in->kind = MBX_RPT_MERGED; /* the rows are merged rows */
    mbx_merge_summary s = {0};
    if (rc == 0)
        mbx_merge_summarize(m, &s);
    for (size_t i = 0; rc == 0 && i < s.keys; i++) {
        mbx_merge_fields f;
        mbx_merge_format(m, i, &f);
        rc = add_row(in, f.field, col, path, i + 2, msg, msglen);
    }
    mbx_merge_free(m);
    in->kind = MBX_RPT_LAUNCHES;
    in->launches = s.files;
    in->comparable = 1;
    if (rc == 0 && dir_env(in, files, n) != 0)
        rc = 1;
    char *rep = rc == 0 ? join(path, "repeat.csv") : NULL, note[512];
    if (rep != NULL && read_env(&in->repeat, rep, note, sizeof note) < 0)
        rc = 1;
    free(rep);
    for (size_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
    if (rc == 1)
        mbx_report_msgf(msg, msglen, "out of memory");
    return rc;
}

static char *display_name(const char *path, int is_dir)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    const char *base = path;
    for (size_t i = 0; i + 1 < len; i++)
        if (path[i] == '/')
            base = path + i + 1;
    size_t bl = (size_t)(path + len - base);
    char *s = malloc(bl + 2);
    if (s != NULL)
        snprintf(s, bl + 2, "%.*s%s", (int)bl, base, is_dir && base[bl - 1] != '/' ? "/" : "");
    return s;
}

int mbx_rpt_load(mbx_rpt_input *in, const char *path, char *msg, size_t msglen)
{
    struct stat st;
    in->path = path;
    if (stat(path, &st) != 0) {
        mbx_report_msgf(msg, msglen, "cannot read '%s': %s", path, strerror(errno));
        return 2;
    }
    int is_dir = S_ISDIR(st.st_mode);
    if (in->name == NULL && (in->name = display_name(path, is_dir)) == NULL) {
        mbx_report_msgf(msg, msglen, "out of memory");
        return 1;
    }
    return is_dir ? load_dir(in, path, msg, msglen) : load_csv(in, path, msg, msglen);
}

void mbx_rpt_input_free(mbx_rpt_input *in)
{
    for (size_t i = 0; i < in->npt; i++)
        mbx_rpt_point_free(&in->pt[i]);
    free(in->pt);
    free(in->name);
    free(in->env_path);
    mbx_kv_free(&in->env);
    mbx_kv_free(&in->repeat);
    mbx_rpt_pairs_free(&in->pairs);
}

char *mbx_rpt_point_key(const mbx_rpt_point *p)
{
    const char *text[MBX_PID_NTEXT] = {
        [MBX_PID_BENCH] = p->bench, [MBX_PID_LABEL] = p->label, [MBX_PID_ROOT] = p->root,
        [MBX_PID_OP] = p->op,       [MBX_PID_PARAM] = p->param, [MBX_PID_RMA_SYNC] = p->rma_sync};
    return mbx_pid_key(text, (unsigned long long)p->procs, p->bytes);
}

/* A's identity, as compare built it from the same file's fields. */
char *mbx_rpt_cmp_key(const mbx_cmp_point *c)
{
    return c->key ? strdup(c->key) : NULL;
}
