#include "journal.h"

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
#include "mbx/result.h"

#define JOURNAL_MAGIC "# mpibex journal 1"

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
    char line[MBX_KEY_MAX + 64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
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
    memset(r, 0, sizeof *r);
}

long mbx_resume_find(const mbx_resume *r, const char *key)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->key[i], key) == 0)
            return (long)i;
    return -1;
}

static int read_journal(const char *path, uint64_t hash, mbx_resume *out, char *msg, size_t len)
{
    FILE *j = fopen(path, "rb");
    if (!j && errno == ENOENT) {
        snprintf(msg, len,
                 "--resume: no journal '%s': that run finished (a complete run removes its "
                 "journal) or never started; nothing to resume",
                 path);
        return 2;
    }
    if (!j) {
        snprintf(msg, len, "--resume: cannot read the journal '%s': %s", path, strerror(errno));
        return 2;
    }
    char line[MBX_KEY_MAX + 32];
    int lineno = 0, seen_plan = 0;
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
                return 2;
            }
            seen_plan = 1;
        } else if (sscanf(line, "seed %llu", &h) == 1) {
            out->seed = (uint64_t)h;
            out->have_seed = 1;
        } else if (sscanf(line, "pair %d %d", &a, &b) == 2) {
            out->pair_a = a;
            out->pair_b = b;
            out->have_pair = 1;
        } else if (strncmp(line, "begin ", 6) == 0 && sscanf(line + 6, "%d", &refined) == 1 &&
                   strlen(line) > 8) {
            snprintf(out->inflight, sizeof out->inflight, "%.*s", MBX_KEY_MAX - 1, line + 8);
            out->inflight_refined = refined;
        } else if (strncmp(line, "done ", 5) == 0) {
            if (strcmp(out->inflight, line + 5) == 0)
                out->inflight[0] = '\0';
        }
    }
    fclose(j);
    if (!seen_plan) {
        snprintf(msg, len, "--resume: '%s' is not an mpibex journal", path);
        return 2;
    }
    return 0;
}

static int resume_load(const char *csv, const char *journal, uint64_t hash, mbx_resume *out,
                       char *msg, size_t len)
{
    int rc = read_journal(journal, hash, out, msg, len);
    if (rc)
        return rc;
    if (mbx_csv_trim_torn(csv, &out->torn_bytes) < 0) {
        snprintf(msg, len, "--resume: cannot read '%s': %s", csv, strerror(errno));
        return 2;
    }
    mbx_csv_table t;
    if (mbx_csv_read_file(csv, &t) < 0) {
        snprintf(msg, len, "--resume: '%s' is not a readable CSV file", csv);
        return 2;
    }
    static const char *const need[] = {"label", "benchmark", "procs",     "bytes",
                                       "param", "root",      "median_us", "refined"};
    int col[8];
    for (int i = 0; i < 8; i++) {
        col[i] = mbx_csv_table_col(&t, need[i]);
        if (col[i] < 0) {
            snprintf(msg, len,
                     "--resume: '%s' has no column '%s'; it is not a results file of "
                     "this version",
                     csv, need[i]);
            mbx_csv_table_free(&t);
            return 2;
        }
    }
    /* Rows appended later must match the header: files of an earlier
     * version have a prefix of today's columns, and get rows of as many. */
    out->ncols = t.nrows > 0 ? t.ncols[0] : 0;
    for (size_t c = 0; c < out->ncols; c++) {
        if (c >= MBX_RESULT_NCOLS || strcmp(t.cell[0][c], mbx_result_columns[c]) != 0) {
            snprintf(msg, len,
                     "--resume: '%s' column %zu is '%s', this version writes '%s' there; rerun "
                     "without --resume",
                     csv, c + 1, t.cell[0][c], c < MBX_RESULT_NCOLS ? mbx_result_columns[c] : "-");
            mbx_csv_table_free(&t);
            return 2;
        }
    }
    int plain_col = mbx_csv_table_col(&t, "plain_us");
    size_t rows = t.nrows > 0 ? t.nrows - 1 : 0;
    out->key = calloc(rows ? rows : 1, sizeof *out->key);
    out->median_s = calloc(rows ? rows : 1, sizeof *out->median_s);
    out->plain_s = calloc(rows ? rows : 1, sizeof *out->plain_s);
    out->refined = calloc(rows ? rows : 1, sizeof *out->refined);
    out->curve = calloc(rows ? rows : 1, sizeof *out->curve);
    out->procs = calloc(rows ? rows : 1, sizeof *out->procs);
    out->bytes = calloc(rows ? rows : 1, sizeof *out->bytes);
    if (!out->key || !out->median_s || !out->plain_s || !out->refined || !out->curve ||
        !out->procs || !out->bytes) {
        mbx_csv_table_free(&t);
        snprintf(msg, len, "out of memory");
        return 1;
    }
    for (size_t r = 1; r < t.nrows; r++) {
        if (t.ncols[r] != t.ncols[0]) {
            snprintf(msg, len, "--resume: '%s' row %zu has %zu fields, the header %zu", csv,
                     t.line[r], t.ncols[r], t.ncols[0]);
            mbx_csv_table_free(&t);
            return 2;
        }
        char **c = t.cell[r];
        const char *plain = plain_col >= 0 ? c[plain_col] : "";
        unsigned long long procs, bytes, param = 0, root = 0;
        double med, pl;
        const char *bad = NULL, *want = NULL, *got = NULL;
        if (mbx_csv_count(c[col[2]], INT_MAX, &procs) < 0 || procs == 0)
            bad = "procs", want = "a whole number, 1 <= procs <= 2147483647", got = c[col[2]];
        else if (mbx_csv_count(c[col[3]], LLONG_MAX, &bytes) < 0)
            bad = "bytes", want = "a whole number, 0 <= bytes < 2^63", got = c[col[3]];
        else if (*c[col[4]] && mbx_csv_count(c[col[4]], LLONG_MAX, &param) < 0)
            bad = "param", want = "a whole number or an empty field", got = c[col[4]];
        else if (*c[col[5]] && mbx_csv_count(c[col[5]], INT_MAX, &root) < 0)
            bad = "root", want = "a rank number or an empty field", got = c[col[5]];
        else if (mbx_csv_time_us(c[col[6]], 1, &med) < 0)
            bad = "median_us", want = MBX_CSV_TIME_WANT " or an empty field", got = c[col[6]];
        else if (mbx_csv_time_us(plain, 1, &pl) < 0)
            bad = "plain_us", want = MBX_CSV_TIME_WANT " or an empty field", got = plain;
        if (bad != NULL) {
            snprintf(msg, len, "--resume: %s:%zu: %s: expected %s (got '%.40s')", csv, t.line[r],
                     bad, want, got);
            mbx_csv_table_free(&t);
            return 2;
        }
        long long pv = (long long)param;
        int rv = *c[col[5]] ? (int)root : -1;
        out->procs[out->n] = (int)procs;
        out->bytes[out->n] = bytes;
        mbx_point_key(out->key[out->n], MBX_KEY_MAX, c[col[0]], c[col[1]], out->procs[out->n],
                      out->bytes[out->n], pv, rv);
        mbx_curve_key(out->curve[out->n], MBX_KEY_MAX, c[col[0]], c[col[1]], pv, rv);
        out->median_s[out->n] = med * 1e-6;
        out->plain_s[out->n] = pl * 1e-6;
        out->refined[out->n] = strcmp(c[col[7]], "1") == 0;
        out->n++;
    }
    mbx_csv_table_free(&t);
    if (out->inflight[0] && mbx_resume_find(out, out->inflight) >= 0)
        out->inflight[0] = '\0'; /* its row landed before the kill */
    return 0;
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
