#include "mbx/merge.h"

#include "mbx/passes.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/ascii.h"
#include "mbx/csvio.h"
#include "mbx/grow.h"
#include "mbx/pointid.h"
#include "mbx/profile.h"
#include "mbx/result.h"
#include "mbx/stats.h"
#include "msg.h"

const char *const mbx_merge_columns[MBX_MERGE_NCOLS] = {
    "benchmark",      "procs",      "bytes",      "label",
    "root",           "op",         "param",      "param_name",
    "ranks",          "runs",       "files",      "runs_without_value",
    "settled_runs",   "status",     "median_us",  "median_min_us",
    "median_max_us",  "spread_rel", "tmean_us",   "n_total",
    "bandwidth_MBps", "stderr_us",  "ci95_lo_us", "ci95_hi_us",
    "rma_sync",       "ci_scope",   "pi95_lo_us", "pi95_hi_us",
};

/* A results table's columns are the column table's (mbx/result.h): the
 * ones marked MBX_READ_MERGE it must have; any other a file lacks reads
 * as empty. The point's identity columns are mbx/pointid.h's. */

/* Text of a key as first seen (procs and bytes are kept as numbers), in
 * the order of the merged file's columns from root on. */
enum { T_BENCH, T_LABEL, T_ROOT, T_OP, T_PARAM, T_PARAM_NAME, T_RANKS, T_RMA_SYNC, NTEXT };

struct mkey {
    char *text[NTEXT];
    char *id; /* the joined key, for the hash table */
    unsigned long long procs, bytes;
    double *med, *tm; /* the runs' medians and trimmed means, ascending */
    size_t nmed, ntm, cap;
    size_t runs, files, without, settled;
    size_t last_file; /* 1-based index of the last file that had the key */
    unsigned long long n_total;
    int worst; /* mbx_point_status */
    /* Messages of `bytes` one observation moves (bandwidth_MBps x
     * median_us / bytes of a run, rounded: master-worker's 2 x pieces,
     * bw.uni's window, ...); 0 when no run said, then 1. */
    double factor;
};

struct mbx_merge {
    struct mkey *keys;
    size_t nkeys, keycap;
    size_t *slot; /* open addressing: an index into keys, or SIZE_MAX */
    size_t nslots;
    size_t files, rows;
};

/* One checked data row of the table being added. */
struct rowval {
    unsigned long long procs, bytes, n;
    double med, tm; /* NAN when the field is empty */
    double bw;      /* bandwidth_MBps; NAN when empty or absent */
    int status;
};

int mbx_merge_new(mbx_merge **out)
{
    if (out == NULL)
        return MBX_E_INVAL;
    *out = calloc(1, sizeof **out);
    return *out ? MBX_OK : MBX_E_NOMEM;
}

void mbx_merge_free(mbx_merge *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->nkeys; i++) {
        struct mkey *k = &m->keys[i];
        for (int t = 0; t < NTEXT; t++)
            free(k->text[t]);
        free(k->id);
        free(k->med);
        free(k->tm);
    }
    free(m->keys);
    free(m->slot);
    free(m);
}

static int parse_status(const char *s, int *st)
{
    mbx_point_status v;
    if (!mbx_point_status_parse(s, &v))
        return 0;
    *st = (int)v;
    return 1;
}

/* Order of statuses from best to worst: SETTLED, FIXED (every observation
 * asked for, no target), UNSETTLED, SHIFTED, UNRELIABLE, INVALID, HUNG. */
static int badness(int st)
{
    switch (st) {
    case MBX_POINT_SETTLED: return 0;
    case MBX_POINT_FIXED: return 1;
    case MBX_POINT_UNSETTLED: return 2;
    case MBX_POINT_SHIFTED: return 3;
    case MBX_POINT_UNRELIABLE: return 4;
    case MBX_POINT_INVALID: return 5;
    default: return 6;
    }
}

/* The field of column c (-1: the file lacks it, read as empty). */
static const char *field(char *const *cell, int c)
{
    return c >= 0 ? cell[c] : "";
}

/* Check one data row; 0 and a message naming `line` when it is bad. */
static int check_row(char *const *cell, const int *col, struct rowval *v, const char *name,
                     size_t line, char *msg, size_t msglen)
{
    int which = -1;
    const char *want = NULL;
    if (cell[col[MBX_COL_BENCHMARK]][0] == '\0')
        which = MBX_COL_BENCHMARK, want = "a benchmark name";
    else if (mbx_csv_count(cell[col[MBX_COL_PROCS]], INT_MAX, &v->procs) < 0 || v->procs == 0)
        which = MBX_COL_PROCS, want = "a whole number, 1 <= procs <= 2147483647";
    else if (mbx_csv_count(cell[col[MBX_COL_BYTES]], LLONG_MAX, &v->bytes) < 0)
        which = MBX_COL_BYTES, want = "a whole number, 0 <= bytes < 2^63";
    else if (mbx_csv_count(cell[col[MBX_COL_N]], MBX_CSV_COUNT_MAX, &v->n) < 0)
        which = MBX_COL_N, want = "a whole number, 0 <= n <= 1e12";
    else if (mbx_csv_time_us(cell[col[MBX_COL_MEDIAN_US]], 1, &v->med) < 0)
        which = MBX_COL_MEDIAN_US, want = MBX_CSV_TIME_WANT " or an empty field";
    else if (mbx_csv_time_us(cell[col[MBX_COL_TMEAN_US]], 1, &v->tm) < 0)
        which = MBX_COL_TMEAN_US, want = MBX_CSV_TIME_WANT " or an empty field";
    else if (!parse_status(cell[col[MBX_COL_STATUS]], &v->status))
        which = MBX_COL_STATUS,
        want = "SETTLED, FIXED, UNSETTLED, SHIFTED, UNRELIABLE, INVALID or HUNG";
    if (which < 0)
        return 1;
    mbx_msgf(msg, msglen, "%s:%zu: %s: expected %s (got '%.40s')", name, line,
             mbx_result_columns[which], want, cell[col[which]]);
    return 0;
}

/* FNV-1a */
static size_t hash(const char *s)
{
    uint64_t h = 14695981039346656037ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return (size_t)h;
}

/* The slot of key id: where it is, or the empty slot where it would go. */
static size_t find_slot(const mbx_merge *m, const char *id)
{
    size_t mask = m->nslots - 1, i = hash(id) & mask;
    while (m->slot[i] != SIZE_MAX && strcmp(m->keys[m->slot[i]].id, id) != 0)
        i = (i + 1) & mask;
    return i;
}

/* Keep the table at most half full. */
static int grow_slots(mbx_merge *m)
{
    if (m->nslots != 0 && 2 * (m->nkeys + 1) <= m->nslots)
        return MBX_OK;
    size_t n = m->nslots ? 2 * m->nslots : 64;
    size_t *slot = malloc(n * sizeof *slot);
    if (slot == NULL)
        return MBX_E_NOMEM;
    free(m->slot);
    m->slot = slot;
    m->nslots = n;
    for (size_t i = 0; i < n; i++)
        slot[i] = SIZE_MAX;
    for (size_t k = 0; k < m->nkeys; k++)
        slot[find_slot(m, m->keys[k].id)] = k;
    return MBX_OK;
}

static void insert_sorted(double *a, size_t *n, double x)
{
    size_t i = *n;
    while (i > 0 && a[i - 1] > x) {
        a[i] = a[i - 1];
        i--;
    }
    a[i] = x;
    ++*n;
}

/* The key of row `cell`, created at the end of the list if new. */
static int lookup(mbx_merge *m, char *const *cell, const int *pid, const int *col,
                  const struct rowval *v, struct mkey **out)
{
    const char *idt[MBX_PID_NTEXT];
    mbx_pid_texts(cell, pid, idt);
    const char *text[NTEXT] = {[T_BENCH] = idt[MBX_PID_BENCH],
                               [T_LABEL] = idt[MBX_PID_LABEL],
                               [T_ROOT] = idt[MBX_PID_ROOT],
                               [T_OP] = idt[MBX_PID_OP],
                               [T_PARAM] = idt[MBX_PID_PARAM],
                               [T_RMA_SYNC] = idt[MBX_PID_RMA_SYNC],
                               [T_PARAM_NAME] = field(cell, col[MBX_COL_PARAM_NAME]),
                               [T_RANKS] = field(cell, col[MBX_COL_RANKS])};
    char *id = mbx_pid_key(idt, v->procs, v->bytes);
    if (id == NULL || grow_slots(m) < 0) {
        free(id);
        return MBX_E_NOMEM;
    }
    size_t s = find_slot(m, id);
    if (m->slot[s] != SIZE_MAX) {
        free(id);
        *out = &m->keys[m->slot[s]];
        return MBX_OK;
    }
    if (mbx_grow((void **)&m->keys, &m->keycap, m->nkeys + 1, sizeof *m->keys) != MBX_OK) {
        free(id);
        return MBX_E_NOMEM;
    }
    struct mkey *k = &m->keys[m->nkeys];
    memset(k, 0, sizeof *k);
    k->id = id;
    k->procs = v->procs;
    k->bytes = v->bytes;
    /* Written as text cells: a formula copied from an input is defused. */
    for (int t = 0; t < NTEXT; t++) {
        if ((k->text[t] = mbx_csv_text_dup(text[t])) == NULL) {
            for (int u = 0; u < t; u++)
                free(k->text[u]);
            free(id);
            return MBX_E_NOMEM;
        }
    }
    m->slot[s] = m->nkeys++;
    *out = k;
    return MBX_OK;
}

static int add_run(struct mkey *k, const struct rowval *v, size_t file)
{
    if (k->runs == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 4;
        double *med = realloc(k->med, cap * sizeof *med);
        if (med == NULL)
            return MBX_E_NOMEM;
        k->med = med;
        double *tm = realloc(k->tm, cap * sizeof *tm);
        if (tm == NULL)
            return MBX_E_NOMEM;
        k->tm = tm;
        k->cap = cap;
    }
    k->runs++;
    if (isnan(v->med))
        k->without++;
    else
        insert_sorted(k->med, &k->nmed, v->med);
    if (!isnan(v->tm))
        insert_sorted(k->tm, &k->ntm, v->tm);
    k->n_total += v->n;
    if (k->factor == 0 && v->bytes > 0 && v->med > 0 && v->bw > 0) {
        double f = round(v->bw * v->med / (double)v->bytes);
        k->factor = f >= 1 && f <= 1e9 ? f : 0;
    }
    k->settled += v->status == MBX_POINT_SETTLED;
    if (k->runs == 1 || badness(v->status) > badness(k->worst))
        k->worst = v->status;
    if (k->last_file != file) {
        k->last_file = file;
        k->files++;
    }
    return MBX_OK;
}

/* One input file as its rows come: the header, then each data row checked
 * and, when `add` is set, added. Only the merge grows: a file is never
 * held whole. */
struct adder {
    mbx_merge *m;
    const char *name;
    char *msg;
    size_t msglen;
    int col[MBX_RESULT_NCOLS]; /* by MBX_COL_*; -1: the file lacks it */
    int pid[MBX_PID_NTEXT];    /* the identity's columns (mbx/pointid.h) */
    size_t ncols;              /* the header's; 0 before it */
    size_t rows;               /* data rows seen */
    size_t file;               /* 1-based index of the file being added */
    int add;                   /* 0: check only */
};

static int header_row(struct adder *a, char *const *f, size_t n)
{
    const char *missing = mbx_result_find_cols((const char *const *)f, n, MBX_READ_MERGE, a->col);
    if (missing != NULL) {
        mbx_msgf(a->msg, a->msglen, "'%s' is not an mpibex results CSV: no '%s' column", a->name,
                 missing);
        return MBX_E_PROTO;
    }
    mbx_pid_find_columns((const char *const *)f, n, a->pid);
    a->ncols = n;
    return MBX_OK;
}

static int merge_row(void *ctx, char *const *f, size_t n, size_t line)
{
    struct adder *a = ctx;
    if (a->ncols == 0)
        return header_row(a, f, n);
    if (n != a->ncols) {
        mbx_msgf(a->msg, a->msglen, "%s:%zu: %zu field%s, the header has %zu", a->name, line, n,
                 n == 1 ? "" : "s", a->ncols);
        return MBX_E_PROTO;
    }
    struct rowval v;
    if (!check_row(f, a->col, &v, a->name, line, a->msg, a->msglen))
        return MBX_E_PROTO;
    a->rows++;
    if (!a->add)
        return MBX_OK;
    /* The bandwidth only tells what a run moved: a field that is no
     * number is left aside, never an error (it is no key and no value). */
    v.bw = NAN;
    const char *bwf = field(f, a->col[MBX_COL_BANDWIDTH_MBPS]);
    if (bwf[0] != '\0') {
        char *end;
        double bw = mbx_strtod(bwf, &end);
        if (*end == '\0' && isfinite(bw) && bw > 0)
            v.bw = bw;
    }
    struct mkey *k;
    int rc = lookup(a->m, f, a->pid, a->col, &v, &k);
    return rc == MBX_OK ? add_run(k, &v, a->file) : rc;
}

static void adder_init(struct adder *a, mbx_merge *m, const char *name, int add, char *msg,
                       size_t msglen)
{
    memset(a, 0, sizeof *a);
    a->m = m;
    a->name = name;
    a->msg = msg;
    a->msglen = msglen;
    a->file = m->files + 1;
    a->add = add;
}

/* After the last row: an empty file is no results file; a file added is
 * counted. */
static int adder_done(struct adder *a, int rc)
{
    if (rc == MBX_OK && a->ncols == 0) {
        mbx_msgf(a->msg, a->msglen, "'%s' is not an mpibex results CSV: the file is empty",
                 a->name);
        rc = MBX_E_PROTO;
    }
    if (rc == MBX_E_NOMEM)
        mbx_msgf(a->msg, a->msglen, "out of memory while merging '%s'", a->name);
    if (rc == MBX_OK && a->add) {
        a->m->files = a->file;
        a->m->rows += a->rows;
    }
    return rc;
}

static int table_rows(const mbx_csv_table *t, struct adder *a)
{
    int rc = MBX_OK;
    for (size_t r = 0; rc == MBX_OK && r < t->nrows; r++)
        rc = merge_row(a, t->cell[r], t->ncols[r], t->line != NULL ? t->line[r] : r + 1);
    return adder_done(a, rc);
}

int mbx_merge_add_table(mbx_merge *m, const mbx_csv_table *t, const char *name, char *msg,
                        size_t msglen)
{
    if (m == NULL || t == NULL || name == NULL)
        return MBX_E_INVAL;
    struct adder a;
    adder_init(&a, m, name, 0, msg, msglen);
    int rc = table_rows(t, &a);
    if (rc == MBX_OK) {
        adder_init(&a, m, name, 1, msg, msglen);
        rc = table_rows(t, &a);
    }
    return rc;
}

/* One pass over the open file f (from its start). */
static int file_pass(FILE *f, struct adder *a)
{
    errno = 0;
    mbx_csv_why why;
    int rc = mbx_csv_read_stream_why(f, merge_row, a, &why);
    if (rc == MBX_E_PROTO && a->msg != NULL && a->msglen > 0 && a->msg[0] == '\0')
        mbx_msgf(a->msg, a->msglen, "'%s' is not an mpibex results CSV: line %zu: %s", a->name,
                 why.line, why.text);
    else if (rc == MBX_E_IO)
        mbx_msgf(a->msg, a->msglen, "cannot read '%s': %s", a->name,
                 errno ? strerror(errno) : "read error");
    return adder_done(a, rc);
}

int mbx_merge_add_file(mbx_merge *m, const char *path, char *msg, size_t msglen)
{
    if (m == NULL || path == NULL)
        return MBX_E_INVAL;
    if (msg != NULL && msglen > 0)
        msg[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        int err = errno;
        mbx_msgf(msg, msglen, "cannot read '%s': %s", path, strerror(err));
        return err == ENOMEM ? MBX_E_NOMEM : MBX_E_IO;
    }
    /* Check every row, then read again and add: a refused file leaves the
     * merge as it was, and neither pass holds more than a row. A pipe
     * cannot be read twice; it is added as it is checked. */
    struct adder a;
    int rc = MBX_OK, seekable = fseek(f, 0, SEEK_SET) == 0;
    if (seekable) {
        adder_init(&a, m, path, 0, msg, msglen);
        rc = file_pass(f, &a);
        if (rc == MBX_OK && fseek(f, 0, SEEK_SET) != 0) {
            mbx_msgf(msg, msglen, "cannot read '%s': %s", path, strerror(errno));
            rc = MBX_E_IO;
        }
    }
    if (rc == MBX_OK) {
        adder_init(&a, m, path, 1, msg, msglen);
        rc = file_pass(f, &a);
    }
    fclose(f);
    return rc;
}

void mbx_merge_summarize(const mbx_merge *m, mbx_merge_summary *out)
{
    memset(out, 0, sizeof *out);
    out->files = m->files;
    out->rows = m->rows;
    out->keys = m->nkeys;
    for (size_t i = 0; i < m->nkeys; i++)
        out->partial_keys += m->keys[i].files < m->files;
}

static void put(mbx_merge_fields *o, int i, const char *fmt, double x)
{
    /* Fixed point for the values a run gives; a quotient of extremes (a
     * spread or bandwidth over a tiny median) in exponent form, so no field
     * is ever hundreds of digits long, and none that a reader would refuse. */
    if (isfinite(x) && fabs(x) < MBX_CSV_NUMBER_MAX) {
        mbx_csv_fmt_number(o->store[i], sizeof o->store[i], fmt, x);
        o->field[i] = o->store[i];
    } else {
        o->field[i] = "";
    }
}

static void put_u(mbx_merge_fields *o, int i, unsigned long long v)
{
    snprintf(o->store[i], sizeof o->store[i], "%llu", v);
    o->field[i] = o->store[i];
}

/* Where another launch's median is expected, 95 %, from the K launch
 * medians: on the log scale, mean +- t(K-1) s sqrt(1 + 1/K)
 * (docs/algorithms.md, "Prediction interval over launches"). */
static void merge_pi(const double *med, size_t k, mbx_merge_fields *o)
{
    double sum = 0, ss = 0;
    if (k < 2 || !(med[0] > 0))
        return;
    for (size_t i = 0; i < k; i++)
        sum += log(med[i]);
    double mean = sum / (double)k;
    for (size_t i = 0; i < k; i++)
        ss += (log(med[i]) - mean) * (log(med[i]) - mean);
    double s = sqrt(ss / (double)(k - 1));
    double h = mbx_profile_t_quantile(0.975, (double)(k - 1)) * s * sqrt(1 + 1.0 / (double)k);
    put(o, 26, "%.4f", exp(mean - h));
    put(o, 27, "%.4f", exp(mean + h));
}

void mbx_merge_format(const mbx_merge *m, size_t i, mbx_merge_fields *o)
{
    const struct mkey *k = &m->keys[i];
    memset(o, 0, sizeof *o);
    o->field[0] = k->text[T_BENCH];
    put_u(o, 1, k->procs);
    put_u(o, 2, k->bytes);
    o->field[3] = k->text[T_LABEL];
    for (int t = T_ROOT; t <= T_RANKS; t++)
        o->field[4 + t - T_ROOT] = k->text[t];
    put_u(o, 9, k->runs);
    put_u(o, 10, k->files);
    put_u(o, 11, k->without);
    put_u(o, 12, k->settled);
    o->field[13] = mbx_point_status_name((mbx_point_status)k->worst);
    double med = NAN, lo = NAN, hi = NAN, tm = NAN;
    if (k->nmed > 0) {
        med = mbx_stats_quantile_sorted(k->med, k->nmed, 0.5);
        lo = k->med[0];
        hi = k->med[k->nmed - 1];
    }
    if (k->ntm > 0)
        tm = mbx_stats_quantile_sorted(k->tm, k->ntm, 0.5);
    put(o, 14, "%.4f", med);
    put(o, 15, "%.4f", lo);
    put(o, 16, "%.4f", hi);
    put(o, 17, "%.6f", lo > 0 ? (hi - lo) / lo : NAN);
    put(o, 18, "%.4f", tm);
    put_u(o, 19, k->n_total);
    /* bytes per microsecond is 10^6 bytes per second; the bytes are what
     * one observation moves, as the runs' rows counted them */
    double moved = (double)k->bytes * (k->factor > 0 ? k->factor : 1);
    put(o, 20, "%.3f", k->bytes > 0 && med > 0 ? moved / med : NAN);
    /* The runs as units: their medians are time-separated draws of what a
     * launch measures (its buffers, its placement, its machine level), the
     * between-pass rules of one run applied over launches. */
    o->field[21] = o->field[22] = o->field[23] = "";
    o->field[24] = k->text[T_RMA_SYNC];
    o->field[25] = o->field[26] = o->field[27] = "";
    if (k->nmed >= 2) {
        double *scratch = malloc(k->nmed * sizeof *scratch);
        mbx_between b;
        if (scratch && k->med[0] > 0 &&
            mbx_passes_between(k->med, k->nmed, scratch, &b) == MBX_OK) {
            put(o, 21, "%.4f", b.se);
            put(o, 22, "%.4f", b.ci_lo > 0 ? b.ci_lo : 0.0);
            put(o, 23, "%.4f", b.ci_hi);
            snprintf(o->store[25], sizeof o->store[25], "launches:%zu", k->nmed);
            o->field[25] = o->store[25];
        }
        free(scratch);
        merge_pi(k->med, k->nmed, o);
    }
}

int mbx_merge_write(const mbx_merge *m, mbx_csv_writer *w)
{
    if (m == NULL || w == NULL)
        return MBX_E_INVAL;
    int rc = MBX_OK;
    for (size_t i = 0; rc == MBX_OK && i < m->nkeys; i++) {
        mbx_merge_fields f;
        mbx_merge_format(m, i, &f);
        rc = mbx_csv_writer_row(w, f.field);
    }
    return rc;
}

int mbx_merge_write_stream(const mbx_merge *m, FILE *f)
{
    if (m == NULL || f == NULL)
        return MBX_E_INVAL;
    int rc = mbx_csv_fputrow(f, mbx_merge_columns, MBX_MERGE_NCOLS);
    for (size_t i = 0; rc == MBX_OK && i < m->nkeys; i++) {
        mbx_merge_fields mf;
        mbx_merge_format(m, i, &mf);
        rc = mbx_csv_fputrow(f, mf.field, MBX_MERGE_NCOLS);
    }
    if (fflush(f) != 0 && rc == MBX_OK)
        rc = MBX_E_IO;
    return rc;
}
