#include "mbx/merge.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/ascii.h"
#include "mbx/result.h"
#include "mbx/stats.h"
#include "msg.h"

const char *const mbx_merge_columns[MBX_MERGE_NCOLS] = {
    "benchmark",      "procs",      "bytes",     "label",
    "root",           "op",         "param",     "param_name",
    "ranks",          "runs",       "files",     "runs_without_value",
    "settled_runs",   "status",     "median_us", "median_min_us",
    "median_max_us",  "spread_rel", "tmean_us",  "n_total",
    "bandwidth_MBps",
};

/* Columns a results table must have. The columns after `label` came later
 * and are optional: a missing one reads as empty. */
enum { C_BENCH, C_PROCS, C_BYTES, C_N, C_TMEAN, C_MEDIAN, C_STATUS, C_LABEL, NREQ };
static const char *const required[NREQ] = {"benchmark", "procs",     "bytes",  "n",
                                           "tmean_us",  "median_us", "status", "label"};
enum { O_ROOT, O_OP, O_PARAM, O_PARAM_NAME, O_RANKS, NOPT };
static const char *const optional[NOPT] = {"root", "op", "param", "param_name", "ranks"};

/* Text of a key as first seen (procs and bytes are kept as numbers). */
enum { T_BENCH, T_LABEL, T_ROOT, T_OP, T_PARAM, T_PARAM_NAME, T_RANKS, NTEXT };

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

static int parse_count(const char *s, unsigned long long *v)
{
    if (*s < '0' || *s > '9')
        return 0;
    char *end;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return errno == 0 && *end == '\0';
}

/* A finite number, or NAN for an empty field; 0 when malformed. */
static int parse_time(const char *s, double *v)
{
    if (*s == '\0') {
        *v = NAN;
        return 1;
    }
    char *end;
    errno = 0;
    *v = mbx_strtod(s, &end);
    return errno == 0 && end != s && *end == '\0' && isfinite(*v);
}

static int parse_status(const char *s, int *st)
{
    mbx_point_status v;
    if (!mbx_point_status_parse(s, &v))
        return 0;
    *st = (int)v;
    return 1;
}

/* Order of statuses from best to worst: SETTLED, UNSETTLED, SHIFTED,
 * UNRELIABLE, INVALID (the enum's order). */
static int badness(int st)
{
    switch (st) {
    case MBX_POINT_SETTLED: return 0;
    case MBX_POINT_UNSETTLED: return 1;
    case MBX_POINT_SHIFTED: return 2;
    case MBX_POINT_UNRELIABLE: return 3;
    default: return 4;
    }
}

static size_t newlines(char *const *cells, size_t n)
{
    size_t k = 0;
    for (size_t c = 0; c < n; c++)
        for (const char *s = cells[c]; *s; s++)
            k += *s == '\n';
    return k;
}

/* Check one data row; 0 and a message naming `line` when it is bad. */
static int check_row(char *const *cell, const int *col, struct rowval *v, const char *name,
                     size_t line, char *msg, size_t msglen)
{
    int which = -1;
    const char *want = NULL;
    if (cell[col[C_BENCH]][0] == '\0')
        which = C_BENCH, want = "a benchmark name";
    else if (!parse_count(cell[col[C_PROCS]], &v->procs) || v->procs == 0)
        which = C_PROCS, want = "a whole number >= 1";
    else if (!parse_count(cell[col[C_BYTES]], &v->bytes))
        which = C_BYTES, want = "a whole number";
    else if (!parse_count(cell[col[C_N]], &v->n))
        which = C_N, want = "a whole number";
    else if (!parse_time(cell[col[C_MEDIAN]], &v->med))
        which = C_MEDIAN, want = "a number or an empty field";
    else if (!parse_time(cell[col[C_TMEAN]], &v->tm))
        which = C_TMEAN, want = "a number or an empty field";
    else if (!parse_status(cell[col[C_STATUS]], &v->status))
        which = C_STATUS, want = "SETTLED, UNSETTLED, SHIFTED, UNRELIABLE or INVALID";
    if (which < 0)
        return 1;
    mbx_msgf(msg, msglen, "%s:%zu: %s: expected %s (got '%.40s')", name, line, required[which],
             want, cell[col[which]]);
    return 0;
}

/* Check every data row of t (field count and values); fills v[1..nrows).
 * lines[r] is the line row r starts on; without it, lines are counted from
 * the line breaks inside fields (right unless the file has blank lines). */
static int check_rows(const mbx_csv_table *t, const size_t *lines, const int *col, const char *name,
                      struct rowval *v, char *msg, size_t msglen)
{
    size_t line = 2 + newlines(t->cell[0], t->ncols[0]); /* where row 1 starts */
    for (size_t r = 1; r < t->nrows; r++, line++) {
        if (lines != NULL)
            line = lines[r];
        if (t->ncols[r] != t->ncols[0]) {
            mbx_msgf(msg, msglen, "%s:%zu: %zu field%s, the header has %zu", name, line,
                     t->ncols[r], t->ncols[r] == 1 ? "" : "s", t->ncols[0]);
            return MBX_E_PROTO;
        }
        if (!check_row(t->cell[r], col, &v[r], name, line, msg, msglen))
            return MBX_E_PROTO;
        line += newlines(t->cell[r], t->ncols[r]);
    }
    return MBX_OK;
}

/* The line each row of a CSV text starts on, as libcsv splits it: line
 * breaks inside quotes stay in the row and empty lines are no rows. NULL
 * when out of memory or when the count differs from the table's. */
static size_t *row_lines(const char *data, size_t len, size_t nrows)
{
    size_t *lines = malloc((nrows + 1) * sizeof *lines);
    if (lines == NULL)
        return NULL;
    size_t line = 1, n = 0;
    int quoted = 0, in_row = 0;
    for (size_t i = 0; i < len; i++) {
        char c = data[i];
        if (c == '\n' || c == '\r') {
            line += c == '\n';
            if (!quoted)
                in_row = 0;
            continue;
        }
        if (!in_row) {
            in_row = 1;
            if (n++ < nrows)
                lines[n - 1] = line;
        }
        if (c == '"')
            quoted = !quoted;
    }
    if (n != nrows) {
        free(lines);
        return NULL;
    }
    return lines;
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

/* Join the key fields with a separator no results CSV field contains. */
static char *key_id(const char *const *part, size_t n)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(part[i]) + 1;
    char *id = malloc(len), *p = id;
    if (id == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(part[i]);
        memcpy(p, part[i], l);
        p += l;
        *p++ = '\x1f';
    }
    *p = '\0';
    return id;
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
static int lookup(mbx_merge *m, char *const *cell, const int *col, const int *opt,
                  const struct rowval *v, struct mkey **out)
{
    char procs[24], bytes[24];
    snprintf(procs, sizeof procs, "%llu", v->procs);
    snprintf(bytes, sizeof bytes, "%llu", v->bytes);
    const char *text[NTEXT] = {cell[col[C_BENCH]], cell[col[C_LABEL]]};
    for (int o = 0; o < NOPT; o++)
        text[T_ROOT + o] = opt[o] >= 0 ? cell[opt[o]] : "";
    const char *part[] = {text[T_BENCH], text[T_LABEL], procs,        bytes,
                          text[T_ROOT],  text[T_OP],    text[T_PARAM]};
    char *id = key_id(part, sizeof part / sizeof *part);
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
    if (m->nkeys == m->keycap) {
        size_t cap = m->keycap ? 2 * m->keycap : 64;
        struct mkey *keys = realloc(m->keys, cap * sizeof *keys);
        if (keys == NULL) {
            free(id);
            return MBX_E_NOMEM;
        }
        m->keys = keys;
        m->keycap = cap;
    }
    struct mkey *k = &m->keys[m->nkeys];
    memset(k, 0, sizeof *k);
    k->id = id;
    k->procs = v->procs;
    k->bytes = v->bytes;
    for (int t = 0; t < NTEXT; t++) {
        if ((k->text[t] = strdup(text[t])) == NULL) {
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
    k->settled += v->status == MBX_POINT_SETTLED;
    if (k->runs == 1 || badness(v->status) > badness(k->worst))
        k->worst = v->status;
    if (k->last_file != file) {
        k->last_file = file;
        k->files++;
    }
    return MBX_OK;
}

static int add_table(mbx_merge *m, const mbx_csv_table *t, const size_t *lines, const char *name,
                     char *msg, size_t msglen)
{
    if (t->nrows == 0) {
        mbx_msgf(msg, msglen, "'%s' is not an mpibex results CSV: the file is empty", name);
        return MBX_E_PROTO;
    }
    int col[NREQ], opt[NOPT];
    for (int c = 0; c < NREQ; c++) {
        if ((col[c] = mbx_csv_table_col(t, required[c])) < 0) {
            mbx_msgf(msg, msglen, "'%s' is not an mpibex results CSV: no '%s' column", name,
                     required[c]);
            return MBX_E_PROTO;
        }
    }
    for (int o = 0; o < NOPT; o++)
        opt[o] = mbx_csv_table_col(t, optional[o]);
    struct rowval *v = calloc(t->nrows, sizeof *v);
    if (v == NULL)
        return MBX_E_NOMEM;
    int rc = check_rows(t, lines, col, name, v, msg, msglen);
    size_t file = m->files + 1;
    for (size_t r = 1; rc == MBX_OK && r < t->nrows; r++) {
        struct mkey *k;
        if ((rc = lookup(m, t->cell[r], col, opt, &v[r], &k)) == MBX_OK)
            rc = add_run(k, &v[r], file);
    }
    free(v);
    if (rc == MBX_E_NOMEM)
        mbx_msgf(msg, msglen, "out of memory while merging '%s'", name);
    if (rc < 0)
        return rc;
    m->files = file;
    m->rows += t->nrows - 1;
    return MBX_OK;
}

int mbx_merge_add_table(mbx_merge *m, const mbx_csv_table *t, const char *name, char *msg,
                        size_t msglen)
{
    if (m == NULL || t == NULL || name == NULL)
        return MBX_E_INVAL;
    return add_table(m, t, NULL, name, msg, msglen);
}

/* The whole file in memory (results files are small); NULL and errno set
 * when it cannot be read. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *more = realloc(buf, 2 * cap);
        if (more == NULL) {
            free(buf);
            buf = NULL;
            errno = ENOMEM;
        } else {
            buf = more;
            cap *= 2;
        }
    }
    if (buf != NULL && ferror(f)) {
        int err = errno;
        free(buf);
        buf = NULL;
        errno = err ? err : EIO;
    }
    fclose(f);
    *len = n;
    return buf;
}

int mbx_merge_add_file(mbx_merge *m, const char *path, char *msg, size_t msglen)
{
    if (m == NULL || path == NULL)
        return MBX_E_INVAL;
    size_t len = 0;
    errno = 0;
    char *data = slurp(path, &len);
    if (data == NULL) {
        mbx_msgf(msg, msglen, "cannot read '%s': %s", path, errno ? strerror(errno) : "read error");
        return errno == ENOMEM ? MBX_E_NOMEM : MBX_E_IO;
    }
    mbx_csv_table t;
    int rc = mbx_csv_read_buffer(data, len, &t);
    if (rc == MBX_E_PROTO) {
        mbx_msgf(msg, msglen, "'%s' is not an mpibex results CSV: malformed CSV quoting", path);
    } else if (rc < 0) {
        mbx_msgf(msg, msglen, "cannot read '%s': %s", path, mbx_strerror(rc));
    } else {
        size_t *lines = row_lines(data, len, t.nrows);
        rc = add_table(m, &t, lines, path, msg, msglen);
        free(lines);
        mbx_csv_table_free(&t);
    }
    free(data);
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
    if (isfinite(x)) {
        mbx_snprintf_c(o->store[i], sizeof o->store[i], fmt, x);
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
    /* bytes per microsecond is 10^6 bytes per second */
    put(o, 20, "%.3f", k->bytes > 0 && med > 0 ? (double)k->bytes / med : NAN);
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
