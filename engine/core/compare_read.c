/* Reading one side of a comparison (see mbx/compare.h): a results CSV and
 * its observation file (OUT.obs.csv), or a directory of launches (one
 * results file each), into the keys and samples of compare_int.h. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare_int.h"
#include "mbx/csvio.h"
#include "mbx/grow.h"
#include "mbx/result.h"
#include "mbx/stats.h"
#include "msg.h"

/* A results table's columns are the column table's (mbx/result.h), the
 * required ones those marked MBX_READ_COMPARE. */
/* Columns of an observation file, by name; label, root, param came later,
 * op and rma_sync it has not (the point's results row has them). */
enum { O_BENCH, O_PROCS, O_BYTES, O_TIME, NOREQ };
static const char *const obs_required[NOREQ] = {"benchmark", "procs", "bytes", "time_us"};

int mbx_compare_key_is(const struct ckey *k, const char *const *text, unsigned long long procs,
                       unsigned long long bytes)
{
    return mbx_pid_match((const char *const *)k->text, k->procs, k->bytes, text, procs, bytes);
}

/* The key matching (text, procs, bytes), searched from the last hit on. */
static struct ckey *find(struct side *s, const char *const *text, unsigned long long procs,
                         unsigned long long bytes)
{
    for (size_t j = 0; j < s->n; j++) {
        size_t i = (s->hint + j) % s->n;
        if (mbx_compare_key_is(&s->key[i], text, procs, bytes)) {
            s->hint = i;
            return &s->key[i];
        }
    }
    return NULL;
}

/* The key of (text, procs, bytes), added at the end when new; NULL when
 * out of memory. Every text part must be given. */
static struct ckey *find_or_add(struct side *s, const char *const *text, unsigned long long procs,
                                unsigned long long bytes)
{
    struct ckey *k = find(s, text, procs, bytes);
    if (k != NULL)
        return k;
    if (mbx_grow((void **)&s->key, &s->cap, s->n + 1, sizeof *s->key) != MBX_OK)
        return NULL;
    k = &s->key[s->n];
    memset(k, 0, sizeof *k);
    for (int t = 0; t < NTEXT; t++) {
        if ((k->text[t] = strdup(text[t])) == NULL) {
            for (int u = 0; u < t; u++)
                free(k->text[u]);
            return NULL;
        }
    }
    if ((k->id = mbx_pid_key(text, procs, bytes)) == NULL) {
        for (int t = 0; t < NTEXT; t++)
            free(k->text[t]);
        return NULL;
    }
    k->procs = procs;
    k->bytes = bytes;
    k->usable = 1;
    k->row_median = NAN;
    s->hint = s->n++;
    return k;
}

static int push(struct ckey *k, double x)
{
    if (mbx_grow((void **)&k->v, &k->cap, k->nv + 1, sizeof *k->v) != MBX_OK)
        return MBX_E_NOMEM;
    k->v[k->nv++] = x;
    return MBX_OK;
}

/* x with the pass it was observed in (an observation file with a pass
 * column): the pass numbers are kept beside the values. */
static int push_pass(struct ckey *k, double x, unsigned long long pass)
{
    size_t cap = k->cap;
    int rc = push(k, x);
    if (rc < 0)
        return rc;
    if (k->pass == NULL || k->cap != cap) {
        unsigned long long *p = realloc(k->pass, k->cap * sizeof *p);
        if (p == NULL)
            return MBX_E_NOMEM;
        k->pass = p;
    }
    k->pass[k->nv - 1] = pass;
    return MBX_OK;
}

typedef int (*row_fn)(struct side *s, const char *const *text, unsigned long long procs,
                      unsigned long long bytes, double median, int usable);

/* One file being read row by row: its header's columns, then each row
 * checked and used at once (a file is never held whole). */
struct reading {
    struct side *s;
    const char *path, *what;
    const char *const *names; /* an observation file's required columns */
    int nreq;
    int col[NOREQ];             /* an observation file's */
    int rcol[MBX_RESULT_NCOLS]; /* a results file's, by MBX_COL_* */
    int pid[MBX_PID_NTEXT];     /* the identity's columns (mbx/pointid.h) */
    int c_pass;
    size_t ncols; /* the header's; 0 before it */
    row_fn fn;    /* results rows; NULL for an observation file */
    char *msg;
    size_t msglen;
};

static int bad_field(const struct reading *rd, size_t line, const char *col, const char *want,
                     const char *got)
{
    mbx_msgf(rd->msg, rd->msglen, "%s:%zu: %s: expected %s (got '%.40s')", rd->path, line, col,
             want, got);
    return MBX_E_PROTO;
}

static int header(struct reading *rd, char *const *f, size_t n)
{
    const char *const *hdr = (const char *const *)f;
    const char *missing = NULL;
    if (rd->fn != NULL)
        missing = mbx_result_find_cols(hdr, n, MBX_READ_COMPARE, rd->rcol);
    for (int c = 0; c < rd->nreq && missing == NULL; c++)
        if ((rd->col[c] = mbx_csv_col(hdr, n, rd->names[c])) < 0)
            missing = rd->names[c];
    if (missing != NULL) {
        mbx_msgf(rd->msg, rd->msglen, "'%s' is not %s: no '%s' column", rd->path, rd->what,
                 missing);
        return MBX_E_PROTO;
    }
    mbx_pid_find_columns(hdr, n, rd->pid);
    rd->c_pass = mbx_csv_col(hdr, n, "pass");
    rd->ncols = n;
    return MBX_OK;
}

/* A row's field count, procs (column cp) and bytes (column cb). */
static int check_place(const struct reading *rd, char *const *cell, size_t n, size_t line, int cp,
                       int cb, unsigned long long *procs, unsigned long long *bytes)
{
    if (n != rd->ncols) {
        mbx_msgf(rd->msg, rd->msglen, "%s:%zu: %zu field%s, the header has %zu", rd->path, line, n,
                 n == 1 ? "" : "s", rd->ncols);
        return MBX_E_PROTO;
    }
    if (mbx_csv_count(cell[cp], INT_MAX, procs) < 0 || *procs == 0)
        return bad_field(rd, line, "procs", "a whole number, 1 <= procs <= 2147483647", cell[cp]);
    if (mbx_csv_count(cell[cb], LLONG_MAX, bytes) < 0)
        return bad_field(rd, line, "bytes", "a whole number, 0 <= bytes < 2^63", cell[cb]);
    return MBX_OK;
}

/* A launch's row: its median is one value of the key's sample. */
static int add_launch_row(struct side *s, const char *const *text, unsigned long long procs,
                          unsigned long long bytes, double median, int usable)
{
    struct ckey *k = find_or_add(s, text, procs, bytes);
    if (k == NULL)
        return MBX_E_NOMEM;
    /* the launch kept beside the value: a curve's launches are its units */
    return usable && !isnan(median) ? push_pass(k, median * 1e-6, s->launch) : MBX_OK;
}

/* A row of a results file whose observations form the samples. */
static int add_obs_point(struct side *s, const char *const *text, unsigned long long procs,
                         unsigned long long bytes, double median, int usable)
{
    size_t before = s->n;
    struct ckey *k = find_or_add(s, text, procs, bytes);
    if (k == NULL)
        return MBX_E_NOMEM;
    k->usable = k->usable && usable;
    /* A second row of one point (a merged file) leaves no single median. */
    k->row_median = s->n > before ? median * 1e-6 : NAN;
    return MBX_OK;
}

/* No observation file: each point's sample is its row's median, one value.
 * Enough for the ratio of two runs' medians, which is all two single runs
 * can give (mbx_compare_load_opts makes no verdict of it). */
static int use_row_medians(struct side *s)
{
    s->kind = "row medians";
    int rc = MBX_OK;
    for (size_t i = 0; rc == MBX_OK && i < s->n; i++) {
        struct ckey *k = &s->key[i];
        if (k->usable && isfinite(k->row_median))
            rc = push(k, k->row_median);
    }
    return rc;
}

static int results_row(void *ctx, char *const *cell, size_t n, size_t line)
{
    struct reading *rd = ctx;
    if (rd->ncols == 0)
        return header(rd, cell, n);
    const int *col = rd->rcol;
    unsigned long long procs, bytes;
    double med;
    mbx_point_status st;
    int rc = check_place(rd, cell, n, line, col[MBX_COL_PROCS], col[MBX_COL_BYTES], &procs, &bytes);
    if (rc < 0)
        return rc;
    if (cell[col[MBX_COL_BENCHMARK]][0] == '\0')
        return bad_field(rd, line, "benchmark", "a benchmark name", "");
    const char *median = cell[col[MBX_COL_MEDIAN_US]], *status = cell[col[MBX_COL_STATUS]];
    if (mbx_csv_time_us(median, 1, &med) < 0)
        return bad_field(rd, line, "median_us", MBX_CSV_TIME_WANT " or an empty field", median);
    if (!mbx_point_status_parse(status, &st))
        return bad_field(rd, line, "status", "a point status such as SETTLED", status);
    const char *text[NTEXT];
    mbx_pid_texts(cell, rd->pid, text); /* a column the file lacks reads as empty */
    int usable = st != MBX_POINT_UNRELIABLE && st != MBX_POINT_INVALID && st != MBX_POINT_HUNG;
    return rd->fn(rd->s, text, procs, bytes, med, usable);
}

static int obs_row(void *ctx, char *const *cell, size_t n, size_t line)
{
    struct reading *rd = ctx;
    if (rd->ncols == 0)
        return header(rd, cell, n);
    const int *col = rd->col;
    unsigned long long procs, bytes;
    double x;
    int rc = check_place(rd, cell, n, line, col[O_PROCS], col[O_BYTES], &procs, &bytes);
    if (rc < 0)
        return rc;
    if (mbx_csv_time_us(cell[col[O_TIME]], 0, &x) < 0)
        return bad_field(rd, line, "time_us", MBX_CSV_TIME_WANT, cell[col[O_TIME]]);
    /* op and rma_sync are not in the file: the point's row in the results
     * gives them (one run writes one of each per label). A file without
     * label, root or param matches any. */
    const char *text[NTEXT];
    for (int t = 0; t < NTEXT; t++)
        text[t] = rd->pid[t] >= 0 ? cell[rd->pid[t]] : NULL;
    struct ckey *k = find(rd->s, text, procs, bytes);
    /* Observations of a point with no results row (the point in flight
     * when a run was stopped) are not used. */
    if (k == NULL || !k->usable)
        return MBX_OK;
    if (rd->c_pass < 0)
        return push(k, x * 1e-6);
    unsigned long long pass;
    if (mbx_csv_count(cell[rd->c_pass], ULLONG_MAX, &pass) < 0)
        return bad_field(rd, line, "pass", "a whole number, 0 <= pass", cell[rd->c_pass]);
    if (k->nv > 0 && k->pass == NULL) {
        mbx_msgf(rd->msg, rd->msglen, "%s:%zu: pass: a point's observations are in passes or not",
                 rd->path, line);
        return MBX_E_PROTO;
    }
    return push_pass(k, x * 1e-6, pass);
}

static int cmp_pass_value(const void *a, const void *b)
{
    const double *x = a, *y = b; /* pairs (pass, value) */
    if (x[0] != y[0])
        return (x[0] > y[0]) - (x[0] < y[0]);
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* A point measured in passes: its sample becomes its pass medians, the
 * units the explorer's compare view tests (passes are time-separated;
 * the observations within one are not independent draws). */
static int to_pass_medians(struct ckey *k)
{
    if (k->pass == NULL || k->nv == 0)
        return MBX_OK;
    double *pv = malloc(2 * k->nv * sizeof *pv);
    if (pv == NULL)
        return MBX_E_NOMEM;
    for (size_t i = 0; i < k->nv; i++) {
        pv[2 * i] = (double)k->pass[i];
        pv[2 * i + 1] = k->v[i];
    }
    qsort(pv, k->nv, 2 * sizeof *pv, cmp_pass_value);
    double *one = malloc(k->nv * sizeof *one);
    if (one == NULL) {
        free(pv);
        return MBX_E_NOMEM;
    }
    size_t nm = 0;
    for (size_t b = 0; b < k->nv;) {
        size_t e = b;
        while (e < k->nv && pv[2 * e] == pv[2 * b])
            one[e - b] = pv[2 * e + 1], e++;
        k->v[nm++] = mbx_stats_quantile_sorted(one, e - b, 0.5);
        b = e;
    }
    free(one);
    free(pv);
    free(k->pass);
    k->pass = NULL;
    k->nv = nm;
    return MBX_OK;
}

/* Every row of the file at path through the reading's callbacks; the
 * message names the file (`what` says what it should have been). */
static int read_file(struct reading *rd, mbx_csv_row_fn fn)
{
    errno = 0;
    if (rd->msg != NULL && rd->msglen > 0)
        rd->msg[0] = '\0';
    mbx_csv_why why;
    int rc = mbx_csv_read_rows_why(rd->path, fn, rd, &why);
    if (rc == MBX_E_PROTO && rd->msg != NULL && rd->msglen > 0 && rd->msg[0] == '\0')
        mbx_msgf(rd->msg, rd->msglen, "'%s' is not %s: line %zu: %s", rd->path, rd->what, why.line,
                 why.text);
    else if (rc == MBX_E_IO)
        mbx_msgf(rd->msg, rd->msglen, "cannot read '%s': %s", rd->path,
                 errno ? strerror(errno) : "read error");
    else if (rc == MBX_E_NOMEM)
        mbx_msgf(rd->msg, rd->msglen, "out of memory while reading '%s'", rd->path);
    else if (rc < 0 && rd->msg != NULL && rd->msglen > 0 && rd->msg[0] == '\0')
        mbx_msgf(rd->msg, rd->msglen, "cannot read '%s': %s", rd->path, mbx_strerror(rc));
    if (rc == MBX_OK && rd->ncols == 0) {
        mbx_msgf(rd->msg, rd->msglen, "'%s' is not %s: the file is empty", rd->path, rd->what);
        rc = MBX_E_PROTO;
    }
    return rc;
}

static const char *results_what = "an mpibex results CSV";

/* Every data row of the results file at path, checked, through fn. */
static int read_results(struct side *s, const char *path, row_fn fn, char *msg, size_t msglen)
{
    struct reading rd = {
        .s = s, .path = path, .what = results_what, .fn = fn, .msg = msg, .msglen = msglen};
    return read_file(&rd, results_row);
}

static const char *obs_what = "an mpibex observation file (OUT.obs.csv)";

/* The observations beside the results file at path, into its keys. */
static int read_obs(struct side *s, const char *path, char *msg, size_t msglen)
{
    char *obs = mbx_csv_sidecar(path, ".obs.csv");
    if (obs == NULL)
        return MBX_E_NOMEM;
    struct stat sb;
    if (stat(obs, &sb) != 0) {
        free(obs);
        return use_row_medians(s);
    }
    struct reading rd = {.s = s,
                         .path = obs,
                         .what = obs_what,
                         .names = obs_required,
                         .nreq = NOREQ,
                         .msg = msg,
                         .msglen = msglen};
    int rc = read_file(&rd, obs_row);
    free(obs);
    if (rc < 0 || rd.c_pass < 0)
        return rc;
    s->kind = "pass medians";
    for (size_t i = 0; i < s->n && rc >= 0; i++)
        rc = to_pass_medians(&s->key[i]);
    return rc;
}

/* launch-NN.csv, NN digits: a launch's results. Its sidecars
 * (launch-NN.env.csv, .obs.csv, .probe.csv, ...) and any other file are not. */
static int is_launch_name(const char *name)
{
    size_t digits = strncmp(name, "launch-", 7) == 0 ? strspn(name + 7, "0123456789") : 0;
    return digits > 0 && strcmp(name + 7 + digits, ".csv") == 0;
}

/* launch-9 before launch-10 (repeat pads the numbers; a hand-made
 * directory may not). */
static int by_name(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    size_t lx = strlen(x), ly = strlen(y);
    return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

int mbx_compare_list_launches(const char *dir, char ***out, size_t *n, char *msg, size_t msglen)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        mbx_msgf(msg, msglen, "cannot read '%s': %s", dir, strerror(errno));
        return MBX_E_IO;
    }
    char **names = NULL;
    size_t count = 0, cap = 0;
    int rc = MBX_OK;
    for (struct dirent *e; rc == MBX_OK && (e = readdir(d)) != NULL;) {
        if (!is_launch_name(e->d_name))
            continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *p = malloc(len);
        if (count == cap) {
            cap = cap ? 2 * cap : 16;
            char **more = realloc(names, cap * sizeof *more);
            if (more == NULL)
                cap = count;
            else
                names = more;
        }
        if (p == NULL || count == cap) {
            free(p);
            rc = MBX_E_NOMEM;
            break;
        }
        snprintf(p, len, "%s/%s", dir, e->d_name);
        names[count++] = p;
    }
    closedir(d);
    if (rc == MBX_OK && count > 0)
        qsort(names, count, sizeof *names, by_name);
    *out = names;
    *n = count;
    return rc;
}

static int load_launches(struct side *s, const char *dir, char *msg, size_t msglen)
{
    char **names = NULL;
    size_t n = 0;
    int rc = mbx_compare_list_launches(dir, &names, &n, msg, msglen);
    if (rc == MBX_OK && n < 2) {
        mbx_msgf(msg, msglen,
                 "%s: %zu launch%s (%s/launch-*.csv); a directory side needs at least 2 "
                 "(mpibex repeat -k 2 or more)",
                 dir, n, n == 1 ? "" : "es", dir);
        rc = MBX_E_INVAL;
    }
    for (size_t i = 0; rc == MBX_OK && i < n; i++) {
        s->launch = i;
        rc = read_results(s, names[i], add_launch_row, msg, msglen);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    s->kind = "launches";
    return rc;
}

int mbx_compare_load_side(struct side *s, const char *path, char *msg, size_t msglen)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        mbx_msgf(msg, msglen, "cannot read '%s': %s", path, strerror(errno));
        return MBX_E_IO;
    }
    s->dev = (unsigned long long)sb.st_dev;
    s->ino = (unsigned long long)sb.st_ino;
    s->dir = S_ISDIR(sb.st_mode);
    if (s->dir)
        return load_launches(s, path, msg, msglen);
    s->kind = "observations";
    int rc = read_results(s, path, add_obs_point, msg, msglen);
    return rc < 0 ? rc : read_obs(s, path, msg, msglen);
}
