#include "mbx/journal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mbx/ascii.h"
#include "mbx/csvio.h"
#include "mbx/file.h"
#include "mbx/grow.h"
#include "mbx/result.h"

#define JOURNAL_MAGIC "# mpibex journal 1"
/* The longest line written (a pass line with its key), with its newline
 * and NUL: the reader takes every line the writer can write. */
#define JOURNAL_LINE_MAX (MBX_KEY_MAX + 160)

void mbx_point_key(char *buf, size_t len, const char *label, const char *bench, int procs,
                   uint64_t bytes, long long param, int root)
{
    snprintf(buf, len, "%s|%s|%d|%llu|%lld|%d", label ? label : "", bench, procs,
             (unsigned long long)bytes, param, root);
}

void mbx_curve_key(char *buf, size_t len, const char *label, const char *bench, long long param,
                   int root)
{
    snprintf(buf, len, "%s|%s|%lld|%d", label ? label : "", bench, param, root);
}

uint64_t mbx_fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

struct mbx_journal {
    int fd;
    off_t size;
    char *path;
};

/* One line, whole or not at all, then the check that the journal is still
 * where it was opened. */
static int put_line(mbx_journal *j, const char *fmt, ...)
{
    if (!j)
        return MBX_OK;
    char line[JOURNAL_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = mbx_vsnprintf_c(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line) {
        errno = ENAMETOOLONG;
        return MBX_E_INVAL;
    }
    int rc = mbx_file_append(j->fd, &j->size, line, (size_t)n);
    return rc < 0 ? rc : mbx_file_still_at(j->fd, j->path);
}

int mbx_journal_open(const char *path, uint64_t hash, int append, mbx_journal **out)
{
    *out = NULL;
    mbx_journal *j = calloc(1, sizeof *j);
    if (!j || !(j->path = strdup(path))) {
        free(j);
        errno = ENOMEM;
        return MBX_E_NOMEM;
    }
    j->fd = -1;
    /* Resuming after a kill or a full disk: a torn last line goes first,
     * so appended lines start on a line of their own. */
    size_t torn = 0;
    int rc = append ? mbx_csv_trim_torn(path, &torn) : MBX_OK;
    if (rc == MBX_OK)
        rc = mbx_file_open(path, append, &j->fd, &j->size);
    if (rc == MBX_OK && !append)
        rc = put_line(j, "%s\nplan %016llx\n", JOURNAL_MAGIC, (unsigned long long)hash);
    if (rc < 0) {
        int err = errno;
        mbx_journal_close(j);
        errno = err;
        return rc;
    }
    *out = j;
    return MBX_OK;
}

int mbx_journal_pair(mbx_journal *j, int a, int b)
{
    return put_line(j, "pair %d %d\n", a, b);
}

int mbx_journal_seed(mbx_journal *j, uint64_t seed)
{
    return put_line(j, "seed %llu\n", (unsigned long long)seed);
}

int mbx_journal_begin(mbx_journal *j, const char *key, int refined)
{
    return put_line(j, "begin %d %s\n", refined ? 1 : 0, key);
}

int mbx_journal_done(mbx_journal *j, const char *key)
{
    return put_line(j, "done %s\n", key);
}

int mbx_journal_pass(mbx_journal *j, const char *key, int refined, const mbx_pass *p)
{
    return put_line(j, "pass %d %.17g %zu %.17g %.17g %s\n", refined ? 1 : 0, p->median, p->n,
                    p->t_start, p->t_end, key);
}

int mbx_journal_copy(const mbx_journal *j, const char *path)
{
    return j ? mbx_file_copy(j->fd, j->size, path) : MBX_E_INVAL;
}

void mbx_journal_close(mbx_journal *j)
{
    if (!j)
        return;
    if (j->fd >= 0)
        close(j->fd);
    free(j->path);
    free(j);
}

void mbx_resume_free(mbx_resume *r)
{
    free(r->key);
    free(r->median_s);
    free(r->plain_s);
    free(r->refined);
    free(r->curve);
    free(r->procs);
    free(r->bytes);
    for (size_t i = 0; i < r->nopen; i++)
        free(r->open[i].pass);
    free(r->open);
    memset(r, 0, sizeof *r);
}

long mbx_resume_find(const mbx_resume *r, const char *key)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->key[i], key) == 0)
            return (long)i;
    return -1;
}

long mbx_resume_find_open(const mbx_resume *r, const char *key)
{
    for (size_t i = 0; i < r->nopen; i++)
        if (strcmp(r->open[i].key, key) == 0)
            return (long)i;
    return -1;
}

/* "R MEDIAN N T0 T1 KEY" of a pass line into *p, *refined and the key's
 * place in s. A line that does not parse, or a pass the scheduler would
 * refuse, is skipped (0): it cannot describe a measured pass. */
static int parse_pass(char *s, int *refined, mbx_pass *p, const char **key)
{
    char *e;
    if ((s[0] != '0' && s[0] != '1') || s[1] != ' ')
        return 0;
    *refined = s[0] == '1';
    p->median = mbx_strtod(s + 2, &e);
    if (e == s + 2 || *e != ' ' || !mbx_ascii_isdigit((unsigned char)e[1]))
        return 0;
    s = e + 1;
    errno = 0;
    unsigned long long n = strtoull(s, &e, 10);
    if (errno || *e != ' ' || n == 0)
        return 0;
    p->n = (size_t)n;
    s = e + 1;
    p->t_start = mbx_strtod(s, &e);
    if (e == s || *e != ' ')
        return 0;
    s = e + 1;
    p->t_end = mbx_strtod(s, &e);
    if (e == s || *e != ' ' || e[1] == '\0')
        return 0;
    p->level = MBX_PASSES_NO_LEVEL;
    *key = e + 1;
    return p->median > 0 && isfinite(p->median) && isfinite(p->t_start) && isfinite(p->t_end) &&
           p->t_start <= p->t_end && strlen(*key) < MBX_KEY_MAX;
}

/* The key's fields procs and bytes, and its curve key (mbx_curve_key):
 * the key without them. Read from the right: the label is the one field
 * that is free text. */
static int split_key(mbx_resume_open *o)
{
    const char *bar[4]; /* the bars before procs, bytes, param and root */
    const char *e = o->key + strlen(o->key);
    for (int i = 3; i >= 0; i--) {
        while (e > o->key && e[-1] != '|')
            e--;
        if (e == o->key)
            return 0;
        bar[i] = --e;
    }
    char f[2][24];
    for (int i = 0; i < 2; i++) {
        size_t n = (size_t)(bar[i + 1] - bar[i] - 1);
        if (n >= sizeof f[i])
            return 0;
        memcpy(f[i], bar[i] + 1, n);
        f[i][n] = '\0';
    }
    unsigned long long procs, bytes;
    if (mbx_csv_count(f[0], INT_MAX, &procs) < 0 || procs == 0 ||
        mbx_csv_count(f[1], LLONG_MAX, &bytes) < 0)
        return 0;
    o->procs = (int)procs;
    o->bytes = bytes;
    size_t head = (size_t)(bar[0] - o->key), tail = strlen(bar[2]);
    memcpy(o->curve, o->key, head);
    memcpy(o->curve + head, bar[2], tail + 1); /* "|param|root" and the NUL */
    return 1;
}

/* One pass line: its point's passes grow by one. MBX_OK or MBX_E_NOMEM. */
static int add_pass(mbx_resume *out, size_t *cap, const char *key, int refined, const mbx_pass *p)
{
    if (p->t_end > out->pass_end)
        out->pass_end = p->t_end;
    long at = mbx_resume_find_open(out, key);
    if (at < 0) {
        if (mbx_grow((void **)&out->open, cap, out->nopen + 1, sizeof *out->open) != MBX_OK)
            return MBX_E_NOMEM;
        mbx_resume_open *o = &out->open[out->nopen];
        memset(o, 0, sizeof *o);
        snprintf(o->key, sizeof o->key, "%s", key);
        if (!split_key(o))
            return MBX_OK; /* not a key of ours: nothing to carry over */
        o->refined = refined;
        at = (long)out->nopen++;
    }
    mbx_resume_open *o = &out->open[at];
    if (mbx_grow((void **)&o->pass, &o->cappass, o->npass + 1, sizeof *o->pass) != MBX_OK)
        return MBX_E_NOMEM;
    o->pass[o->npass++] = *p;
    out->npass++;
    return MBX_OK;
}

/* The journal's passes into out, when it is the journal of the plan with
 * fingerprint hash: MBX_OK, or (msg set) MBX_E_NOMEM, MBX_E_IO when it
 * cannot be read (missing included), MBX_E_INVAL when it is not an mpibex
 * journal or another plan's. */
static int read_journal(const char *path, uint64_t hash, mbx_resume *out, char *msg, size_t len)
{
    FILE *j = fopen(path, "rb");
    if (!j && errno == ENOENT) {
        snprintf(msg, len,
                 "--resume: no journal '%s': that run finished (a complete run removes its "
                 "journal) or never started; nothing to resume",
                 path);
        return MBX_E_IO;
    }
    if (!j) {
        snprintf(msg, len, "--resume: cannot read the journal '%s': %s", path, strerror(errno));
        return MBX_E_IO;
    }
    char line[JOURNAL_LINE_MAX];
    int lineno = 0, seen_plan = 0;
    size_t cap = 0;
    mbx_pass ps;
    const char *pkey;
    while (fgets(line, sizeof line, j)) {
        lineno++;
        size_t n = strlen(line);
        if (n == 0 || line[n - 1] != '\n')
            break; /* a torn last line: the kill came mid-write */
        line[n - 1] = '\0';
        if (lineno == 1) {
            if (strcmp(line, JOURNAL_MAGIC) != 0)
                break;
            continue;
        }
        unsigned long long h;
        int a, b, refined;
        if (sscanf(line, "plan %llx", &h) == 1) {
            if (h != hash) {
                fclose(j);
                snprintf(msg, len,
                         "--resume: '%s' belongs to another plan, job size or option set; "
                         "rerun without --resume, or with the original plan and options",
                         path);
                return MBX_E_INVAL;
            }
            seen_plan = 1;
        } else if (sscanf(line, "seed %llu", &h) == 1) {
            out->seed = (uint64_t)h;
            out->have_seed = 1;
        } else if (sscanf(line, "pair %d %d", &a, &b) == 2) {
            out->pair_a = a;
            out->pair_b = b;
            out->have_pair = 1;
        } else if (strncmp(line, "pass ", 5) == 0 && parse_pass(line + 5, &refined, &ps, &pkey)) {
            if (add_pass(out, &cap, pkey, refined, &ps)) {
                fclose(j);
                snprintf(msg, len, "out of memory");
                return MBX_E_NOMEM;
            }
        }
    }
    fclose(j);
    if (!seen_plan) {
        snprintf(msg, len, "--resume: '%s' is not an mpibex journal", path);
        return MBX_E_INVAL;
    }
    return MBX_OK;
}

/* The columns of results file csv (table t) a resume reads, in col: MBX_OK,
 * or MBX_E_INVAL with msg set when one is missing or the header is not this
 * version's. */
static int resume_columns(const char *csv, const mbx_csv_table *t, int col[MBX_RESULT_NCOLS],
                          mbx_resume *out, char *msg, size_t len)
{
    /* The columns a resume needs are the column table's MBX_READ_RESUME. */
    const char *const *hdr = t->nrows > 0 ? (const char *const *)t->cell[0] : NULL;
    const char *missing = mbx_result_find_cols(hdr, hdr ? t->ncols[0] : 0, MBX_READ_RESUME, col);
    /* label is named first: it is what a file of an early version lacks. */
    if (missing != NULL && col[MBX_COL_LABEL] < 0)
        missing = mbx_result_columns[MBX_COL_LABEL];
    if (missing != NULL) {
        snprintf(msg, len,
                 "--resume: '%s' has no column '%s'; it is not a results file of "
                 "this version",
                 csv, missing);
        return MBX_E_INVAL;
    }
    /* Rows appended later must match the header: files of an earlier
     * version have a prefix of today's columns, and get rows of as many. */
    out->ncols = t->nrows > 0 ? t->ncols[0] : 0;
    for (size_t c = 0; c < out->ncols; c++) {
        if (c >= MBX_RESULT_NCOLS || strcmp(t->cell[0][c], mbx_result_columns[c]) != 0) {
            snprintf(msg, len,
                     "--resume: '%s' column %zu is '%s', this version writes '%s' there; rerun "
                     "without --resume",
                     csv, c + 1, t->cell[0][c], c < MBX_RESULT_NCOLS ? mbx_result_columns[c] : "-");
            return MBX_E_INVAL;
        }
    }
    return MBX_OK;
}

/* The arrays of rows finished points (at least one each). */
static int resume_alloc_rows(mbx_resume *out, size_t rows)
{
    out->key = calloc(rows ? rows : 1, sizeof *out->key);
    out->median_s = calloc(rows ? rows : 1, sizeof *out->median_s);
    out->plain_s = calloc(rows ? rows : 1, sizeof *out->plain_s);
    out->refined = calloc(rows ? rows : 1, sizeof *out->refined);
    out->curve = calloc(rows ? rows : 1, sizeof *out->curve);
    out->procs = calloc(rows ? rows : 1, sizeof *out->procs);
    out->bytes = calloc(rows ? rows : 1, sizeof *out->bytes);
    return out->key && out->median_s && out->plain_s && out->refined && out->curve && out->procs &&
                   out->bytes
               ? MBX_OK
               : MBX_E_NOMEM;
}

/* Row r of table t (a finished point) into out: MBX_OK, or MBX_E_INVAL with
 * msg set when a field is malformed. */
static int resume_row(const char *csv, const mbx_csv_table *t, size_t r,
                      const int col[MBX_RESULT_NCOLS], mbx_resume *out, char *msg, size_t len)
{
    if (t->ncols[r] != t->ncols[0]) {
        snprintf(msg, len, "--resume: '%s' row %zu has %zu fields, the header %zu", csv, t->line[r],
                 t->ncols[r], t->ncols[0]);
        return MBX_E_INVAL;
    }
    char **c = t->cell[r];
    const char *plain = col[MBX_COL_PLAIN_US] >= 0 ? c[col[MBX_COL_PLAIN_US]] : "";
    const char *label = c[col[MBX_COL_LABEL]], *bench = c[col[MBX_COL_BENCHMARK]];
    const char *pr = c[col[MBX_COL_PROCS]], *by = c[col[MBX_COL_BYTES]];
    const char *pa = c[col[MBX_COL_PARAM]], *ro = c[col[MBX_COL_ROOT]];
    const char *me = c[col[MBX_COL_MEDIAN_US]];
    unsigned long long procs, bytes, param = 0, root = 0;
    double med, pl;
    const char *bad = NULL, *want = NULL, *got = NULL;
    if (mbx_csv_count(pr, INT_MAX, &procs) < 0 || procs == 0)
        bad = "procs", want = "a whole number, 1 <= procs <= 2147483647", got = pr;
    else if (mbx_csv_count(by, LLONG_MAX, &bytes) < 0)
        bad = "bytes", want = "a whole number, 0 <= bytes < 2^63", got = by;
    else if (*pa && mbx_csv_count(pa, LLONG_MAX, &param) < 0)
        bad = "param", want = "a whole number or an empty field", got = pa;
    else if (*ro && mbx_csv_count(ro, INT_MAX, &root) < 0)
        bad = "root", want = "a rank number or an empty field", got = ro;
    else if (mbx_csv_time_us(me, 1, &med) < 0)
        bad = "median_us", want = MBX_CSV_TIME_WANT " or an empty field", got = me;
    else if (mbx_csv_time_us(plain, 1, &pl) < 0)
        bad = "plain_us", want = MBX_CSV_TIME_WANT " or an empty field", got = plain;
    if (bad != NULL) {
        snprintf(msg, len, "--resume: %s:%zu: %s: expected %s (got '%.40s')", csv, t->line[r], bad,
                 want, got);
        return MBX_E_INVAL;
    }
    long long pv = (long long)param;
    int rv = *ro ? (int)root : -1;
    out->procs[out->n] = (int)procs;
    out->bytes[out->n] = bytes;
    mbx_point_key(out->key[out->n], MBX_KEY_MAX, label, bench, out->procs[out->n],
                  out->bytes[out->n], pv, rv);
    mbx_curve_key(out->curve[out->n], MBX_KEY_MAX, label, bench, pv, rv);
    out->median_s[out->n] = med * 1e-6;
    out->plain_s[out->n] = pl * 1e-6;
    out->refined[out->n] = strcmp(c[col[MBX_COL_REFINED]], "1") == 0;
    out->n++;
    return MBX_OK;
}

/* The finished points of results file csv, read after its torn last row
 * is trimmed: MBX_OK, or (msg set) MBX_E_NOMEM, MBX_E_IO when it cannot be
 * read, MBX_E_INVAL when it is not a results file of this version. */
static int resume_rows(const char *csv, mbx_resume *out, char *msg, size_t len)
{
    if (mbx_csv_trim_torn(csv, &out->torn_bytes) < 0) {
        snprintf(msg, len, "--resume: cannot read '%s': %s", csv, strerror(errno));
        return MBX_E_IO;
    }
    mbx_csv_table t;
    if (mbx_csv_read_file(csv, &t) < 0) {
        snprintf(msg, len, "--resume: '%s' is not a readable CSV file", csv);
        return MBX_E_INVAL;
    }
    int col[MBX_RESULT_NCOLS];
    int rc = resume_columns(csv, &t, col, out, msg, len);
    if (rc == 0 && resume_alloc_rows(out, t.nrows > 0 ? t.nrows - 1 : 0) != MBX_OK) {
        snprintf(msg, len, "out of memory");
        rc = MBX_E_NOMEM;
    }
    int seq_col = rc == 0 ? col[MBX_COL_SEQ] : -1;
    for (size_t r = 1; rc == 0 && r < t.nrows; r++) {
        rc = resume_row(csv, &t, r, col, out, msg, len);
        unsigned long long q = 0;
        if (rc == 0 && seq_col >= 0 && *t.cell[r][seq_col] &&
            mbx_csv_count(t.cell[r][seq_col], MBX_CSV_COUNT_MAX, &q) < 0) {
            snprintf(msg, len,
                     "--resume: %s:%zu: seq: expected a whole number or an empty "
                     "field (got '%.40s')",
                     csv, t.line[r], t.cell[r][seq_col]);
            rc = MBX_E_INVAL;
        }
        if (rc == 0 && q > out->seq_max)
            out->seq_max = (size_t)q;
    }
    /* Without a seq column (or with empty ones) the rows still count. */
    if (rc == 0 && out->seq_max < out->n)
        out->seq_max = out->n;
    mbx_csv_table_free(&t);
    return rc;
}

static int resume_load(const char *csv, const char *journal, uint64_t hash, mbx_resume *out,
                       char *msg, size_t len)
{
    int rc = read_journal(journal, hash, out, msg, len);
    if (rc == 0)
        rc = resume_rows(csv, out, msg, len);
    if (rc)
        return rc;
    /* A point with a row is finished: its passes are in the row. */
    size_t k = 0;
    for (size_t i = 0; i < out->nopen; i++) {
        if (mbx_resume_find(out, out->open[i].key) >= 0) {
            out->npass -= out->open[i].npass;
            free(out->open[i].pass);
            continue;
        }
        out->open[k++] = out->open[i];
    }
    out->nopen = k;
    return MBX_OK;
}

int mbx_resume_load(const char *csv, const char *journal, uint64_t hash, mbx_resume *out, char *msg,
                    size_t len)
{
    memset(out, 0, sizeof *out);
    int rc = resume_load(csv, journal, hash, out, msg, len);
    /* A CSV found bad half-way (a row of the wrong width) leaves the arrays
     * allocated for its rows: a failed load owns nothing. */
    if (rc != 0)
        mbx_resume_free(out);
    return rc;
}
