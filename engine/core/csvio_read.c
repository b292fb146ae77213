/* Reading CSV files (see mbx/csvio.h): rows one at a time over libcsv
 * (from a buffer, a stream or a file), whole tables, columns by name, and
 * the checked parsing of numbers, times and counts in fields. */
#include <csv.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/ascii.h"
#include "mbx/csvio.h"
#include "mbx/grow.h"

/* One row at a time: the fields of the row being read live in one buffer
 * that is reused for the next row, so reading a file of any size holds
 * one row. */
struct rows {
    mbx_csv_row_fn fn;
    void *ctx;
    char *text; /* the row's fields, each NUL-terminated */
    size_t text_len, text_cap;
    size_t *start; /* where each field begins in text */
    char **field;  /* the row handed to fn */
    size_t n, cap, field_cap;
    size_t line;      /* the line the next row begins on */
    size_t row_nl;    /* line breaks inside the row's quoted fields */
    int pending_cr;   /* the last row ended at a CR: a line end unless LF follows */
    int rc;           /* MBX_OK, or what stopped the reading */
    int bom_checked;  /* the first bytes were looked at for a byte-order mark */
    mbx_csv_why *why; /* where and why the reader refused the input; may be NULL */
};

/* The reader refuses the row that begins on r->line: MBX_E_PROTO, and
 * why: "WHAT N TAIL", or WHAT alone for n 0. */
static void refuse(struct rows *r, const char *what, size_t n, const char *tail)
{
    r->rc = MBX_E_PROTO;
    if (r->why == NULL)
        return;
    r->why->line = r->line + (r->pending_cr && r->n == 0);
    if (n > 0)
        snprintf(r->why->text, sizeof r->why->text, "%s %zu%s", what, n, tail);
    else
        snprintf(r->why->text, sizeof r->why->text, "%s", what);
}

static void on_field(void *s, size_t len, void *data)
{
    struct rows *r = data;
    if (r->rc != MBX_OK) {
        return;
    }
    if (r->n == 0 && r->pending_cr) {
        r->line++; /* a lone CR ended the line before */
        r->pending_cr = 0;
    }
    /* A NUL would end the field's C string early: "name\0EVIL" would be
     * read as "name" (docs/hardening.md, "Hostile CSV"). */
    if (len > 0 && memchr(s, '\0', len) != NULL) {
        refuse(r, "a NUL byte in field", r->n + 1, "");
        return;
    }
    if (r->text_len + len > MBX_CSV_ROW_MAX) {
        refuse(r, "a row longer than", (size_t)MBX_CSV_ROW_MAX, " bytes");
        return;
    }
    if (mbx_grow((void **)&r->start, &r->cap, r->n + 1, sizeof *r->start) != MBX_OK ||
        mbx_grow((void **)&r->text, &r->text_cap, r->text_len + len + 1, 1) != MBX_OK) {
        r->rc = MBX_E_NOMEM;
        return;
    }
    r->start[r->n++] = r->text_len;
    if (len > 0) {
        memcpy(r->text + r->text_len, s, len);
        for (const char *c = s, *e = c + len; (c = memchr(c, '\n', (size_t)(e - c))) != NULL; c++) {
            r->row_nl++;
        }
    }
    r->text_len += len;
    r->text[r->text_len++] = '\0';
}

static void on_row(int term, void *data)
{
    struct rows *r = data;
    if (r->pending_cr) {
        /* CR LF is one line end, a lone CR (old Mac files) another. */
        r->pending_cr = 0;
        r->line++;
        if (r->n == 0 && term == '\n') {
            return;
        }
    }
    if (r->rc == MBX_OK && r->n > 0) {
        if (mbx_grow((void **)&r->field, &r->field_cap, r->n, sizeof *r->field) != MBX_OK) {
            r->rc = MBX_E_NOMEM;
            return;
        }
        char **field = r->field;
        for (size_t i = 0; i < r->n; i++) {
            field[i] = r->text + r->start[i];
        }
        r->rc = r->fn(r->ctx, field, r->n, r->line);
    }
    /* CSV_REPALL_NL reports every line break outside a row as an empty
     * row, blank lines included: the count stays right through them. */
    r->line += r->row_nl + (term == '\n');
    r->pending_cr = term == '\r';
    r->row_nl = 0;
    r->n = 0;
    r->text_len = 0;
}

static void parse_error(struct csv_parser *p, struct rows *r)
{
    if (csv_error(p) == CSV_EPARSE)
        refuse(r, "malformed CSV quoting", 0, "");
    else
        r->rc = MBX_E_NOMEM;
}

static int rows_start(struct csv_parser *p, struct rows *r, mbx_csv_row_fn fn, void *ctx,
                      mbx_csv_why *why)
{
    memset(r, 0, sizeof *r);
    r->fn = fn;
    r->ctx = ctx;
    r->line = 1;
    r->why = why;
    if (why != NULL) {
        why->line = 0;
        why->text[0] = '\0';
    }
    if (csv_init(p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL | CSV_REPALL_NL) != 0)
        return MBX_E_NOMEM;
    /* libcsv grows a field 128 bytes at a time by default: a field near
     * MBX_CSV_ROW_MAX would be copied thousands of times. */
    csv_set_blk_size(p, 65536);
    return MBX_OK;
}

/* Feed one chunk; returns MBX_OK or what stopped the reading. The first
 * chunk loses a UTF-8 byte-order mark (spreadsheets write one), which is
 * no part of the first column's name. The chunk goes to libcsv in slices
 * so that a row growing past MBX_CSV_ROW_MAX (libcsv holds the field in
 * progress: a file of no commas or newlines, /dev/zero) is refused after
 * at most one more slice, not when memory runs out. */
static int feed(struct csv_parser *p, struct rows *r, const char *data, size_t len)
{
    if (!r->bom_checked) {
        r->bom_checked = 1;
        if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
            data += 3;
            len -= 3;
        }
    }
    static const size_t slice = 65536;
    while (len > 0 && r->rc == MBX_OK) {
        size_t k = len < slice ? len : slice;
        if (csv_parse(p, data, k, on_field, on_row, r) != k && r->rc == MBX_OK)
            parse_error(p, r);
        if (r->rc == MBX_OK && r->text_len + p->entry_pos > MBX_CSV_ROW_MAX)
            refuse(r, "a row longer than", (size_t)MBX_CSV_ROW_MAX, " bytes");
        data += k;
        len -= k;
    }
    return r->rc;
}

static int rows_finish(struct csv_parser *p, struct rows *r, int rc)
{
    if (rc == MBX_OK && csv_fini(p, on_field, on_row, r) != 0 && r->rc == MBX_OK) {
        parse_error(p, r);
    }
    if (rc == MBX_OK) {
        rc = r->rc;
    }
    csv_free(p);
    free(r->text);
    free(r->start);
    free(r->field);
    return rc;
}

int mbx_csv_parse_rows(const char *data, size_t len, mbx_csv_row_fn fn, void *ctx)
{
    if (fn == NULL || (data == NULL && len > 0)) {
        return MBX_E_INVAL;
    }
    struct csv_parser p;
    struct rows r;
    if (rows_start(&p, &r, fn, ctx, NULL) < 0) {
        return MBX_E_NOMEM;
    }
    return rows_finish(&p, &r, feed(&p, &r, data, len));
}

int mbx_csv_read_stream(FILE *f, mbx_csv_row_fn fn, void *ctx)
{
    return mbx_csv_read_stream_why(f, fn, ctx, NULL);
}

int mbx_csv_read_stream_why(FILE *f, mbx_csv_row_fn fn, void *ctx, mbx_csv_why *why)
{
    if (f == NULL || fn == NULL) {
        return MBX_E_INVAL;
    }
    struct csv_parser p;
    struct rows r;
    if (rows_start(&p, &r, fn, ctx, why) < 0) {
        return MBX_E_NOMEM;
    }
    /* fread fills the whole buffer unless the file ends: the first chunk
     * holds a whole byte-order mark if there is one. */
    static const size_t chunk = 65536;
    char *buf = malloc(chunk);
    int rc = buf != NULL ? MBX_OK : MBX_E_NOMEM;
    size_t n;
    errno = 0;
    while (rc == MBX_OK && (n = fread(buf, 1, chunk, f)) > 0) {
        rc = feed(&p, &r, buf, n);
    }
    int err = errno;
    if (rc == MBX_OK && ferror(f)) {
        rc = MBX_E_IO;
    }
    free(buf);
    rc = rows_finish(&p, &r, rc);
    errno = err;
    return rc;
}

int mbx_csv_read_rows(const char *path, mbx_csv_row_fn fn, void *ctx)
{
    return mbx_csv_read_rows_why(path, fn, ctx, NULL);
}

int mbx_csv_read_rows_why(const char *path, mbx_csv_row_fn fn, void *ctx, mbx_csv_why *why)
{
    if (path == NULL || fn == NULL) {
        return MBX_E_INVAL;
    }
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return MBX_E_IO;
    }
    int rc = mbx_csv_read_stream_why(f, fn, ctx, why);
    int err = errno;
    fclose(f);
    errno = err;
    return rc;
}

/* Rows into a table: every cell is copied out of the reader's row. */
static int table_row(void *ctx, char *const *field, size_t n, size_t line)
{
    mbx_csv_table *t = ctx;
    /* Three arrays of as many rows: each grows from the table's capacity. */
    size_t cap = t->cap, cap2 = t->cap, cap3 = t->cap;
    if (mbx_grow((void **)&t->cell, &cap, t->nrows + 1, sizeof *t->cell) != MBX_OK ||
        mbx_grow((void **)&t->ncols, &cap2, t->nrows + 1, sizeof *t->ncols) != MBX_OK ||
        mbx_grow((void **)&t->line, &cap3, t->nrows + 1, sizeof *t->line) != MBX_OK) {
        return MBX_E_NOMEM;
    }
    t->cap = cap;
    char **row = malloc(n * sizeof *row);
    if (row == NULL) {
        return MBX_E_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        if ((row[i] = strdup(field[i])) == NULL) {
            while (i > 0) {
                free(row[--i]);
            }
            free(row);
            return MBX_E_NOMEM;
        }
    }
    t->cell[t->nrows] = row;
    t->ncols[t->nrows] = n;
    t->line[t->nrows] = line;
    t->nrows++;
    return MBX_OK;
}

int mbx_csv_read_buffer(const char *data, size_t len, mbx_csv_table *out)
{
    if (out == NULL) {
        return MBX_E_INVAL;
    }
    memset(out, 0, sizeof *out);
    if (data == NULL && len > 0) {
        return MBX_E_INVAL;
    }
    int rc = mbx_csv_parse_rows(data, len, table_row, out);
    if (rc < 0) {
        mbx_csv_table_free(out);
    }
    return rc;
}

int mbx_csv_read_file(const char *path, mbx_csv_table *out)
{
    if (out == NULL) {
        return MBX_E_INVAL;
    }
    memset(out, 0, sizeof *out);
    if (path == NULL) {
        return MBX_E_INVAL;
    }
    int rc = mbx_csv_read_rows(path, table_row, out);
    if (rc < 0) {
        int err = errno;
        mbx_csv_table_free(out);
        errno = err;
    }
    return rc;
}

void mbx_csv_table_free(mbx_csv_table *t)
{
    if (t == NULL) {
        return;
    }
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t c = 0; c < t->ncols[r]; c++) {
            free(t->cell[r][c]);
        }
        free(t->cell[r]);
    }
    free(t->cell);
    free(t->ncols);
    free(t->line);
    memset(t, 0, sizeof *t);
}

int mbx_csv_col(const char *const *hdr, size_t n, const char *name)
{
    for (size_t c = 0; hdr != NULL && name != NULL && c < n; c++) {
        if (strcmp(hdr[c], name) == 0) {
            return (int)c;
        }
    }
    return -1;
}

int mbx_csv_table_col(const mbx_csv_table *t, const char *name)
{
    if (t == NULL || t->nrows == 0) {
        return -1;
    }
    return mbx_csv_col((const char *const *)t->cell[0], t->ncols[0], name);
}

/* Exact powers of ten: a double holds each of them without rounding. */
static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

int mbx_csv_number(const char *s, double max, int empty_ok, double *v)
{
    if (s == NULL || v == NULL) {
        return MBX_E_INVAL;
    }
    *v = NAN;
    if (*s == '\0') {
        return empty_ok ? MBX_OK : MBX_E_INVAL;
    }
    /* Check the syntax, and gather up to 19 significant digits. */
    unsigned long long mant = 0;
    int digits = 0, sig = 0, dropped = 0, frac = 0, dot = 0;
    long exp10 = 0;
    const char *p = s;
    for (;; p++) {
        if (*p >= '0' && *p <= '9') {
            digits++;
            if (sig == 0 && *p == '0') {
                frac += dot; /* leading zeros count only for the scale */
            } else if (sig < 19) {
                mant = mant * 10 + (unsigned)(*p - '0');
                sig++;
                frac += dot;
            } else {
                dropped += !dot; /* past 19 digits: only the scale counts */
            }
        } else if (*p == '.' && !dot) {
            dot = 1;
        } else {
            break;
        }
    }
    if (digits == 0) {
        return MBX_E_INVAL;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        int neg = *p == '-';
        if (*p == '-' || *p == '+') {
            p++;
        }
        if (*p < '0' || *p > '9') {
            return MBX_E_INVAL;
        }
        for (; *p >= '0' && *p <= '9'; p++) {
            if (exp10 < 100000) {
                exp10 = exp10 * 10 + (*p - '0');
            }
        }
        exp10 = neg ? -exp10 : exp10;
    }
    if (*p != '\0') {
        return MBX_E_INVAL;
    }
    long scale = exp10 + dropped - frac;
    double x;
    if (mant == 0) {
        x = 0.0;
    } else if (sig <= 15 && dropped == 0 && scale >= -22 && scale <= 22) {
        /* Both operands exact: one correctly rounded operation. */
        x = scale < 0 ? (double)mant / pow10_exact[-scale] : (double)mant * pow10_exact[scale];
    } else if (sig + scale > 40) {
        x = INFINITY; /* far beyond any bound; strtod would say HUGE_VAL */
    } else {
        x = mbx_strtod(s, NULL); /* checked above: plain decimal */
    }
    if (!(x < max)) {
        return MBX_E_RANGE;
    }
    *v = x;
    return MBX_OK;
}

int mbx_csv_time_us(const char *s, int empty_ok, double *v)
{
    return mbx_csv_number(s, MBX_CSV_TIME_US_MAX, empty_ok, v);
}

int mbx_csv_count(const char *s, unsigned long long max, unsigned long long *v)
{
    if (s == NULL || v == NULL) {
        return MBX_E_INVAL;
    }
    *v = 0;
    if (*s == '\0') {
        return MBX_E_INVAL;
    }
    unsigned long long x = 0;
    int over = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') {
            return MBX_E_INVAL;
        }
        unsigned d = (unsigned)(*p - '0');
        if (x > (ULLONG_MAX - d) / 10) {
            over = 1;
        } else {
            x = x * 10 + d;
        }
    }
    if (over || x > max) {
        return MBX_E_RANGE;
    }
    *v = x;
    return MBX_OK;
}
