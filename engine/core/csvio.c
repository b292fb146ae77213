#include "mbx/csvio.h"

#include <csv.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

struct mbx_csv_writer {
    FILE *f;
    size_t ncols;
    int failed; /* a write or flush failed; reported again by close */
};

/* libcsv's reader drops spaces and tabs around unquoted fields and treats
 * CR/LF as row ends, so such fields must be quoted to read back the same. */
static int needs_quotes(const char *s, size_t len)
{
    if (len == 0) {
        return 0;
    }
    if (s[0] == ' ' || s[0] == '\t' || s[len - 1] == ' ' || s[len - 1] == '\t') {
        return 1;
    }
    return strpbrk(s, ",\"\r\n") != NULL;
}

int mbx_csv_fputrow(FILE *f, const char *const *fields, size_t n)
{
    if (f == NULL || fields == NULL || n == 0) {
        return MBX_E_INVAL;
    }
    for (size_t i = 0; i < n; i++) {
        const char *s = fields[i] ? fields[i] : "";
        size_t len = strlen(s);
        if (i > 0 && fputc(',', f) == EOF) {
            return MBX_E_IO;
        }
        /* A lone empty field would make a blank line, which readers skip. */
        if (needs_quotes(s, len) || (n == 1 && len == 0)) {
            if (csv_fwrite(f, s, len) != 0) {
                return MBX_E_IO;
            }
        } else if (len > 0 && fwrite(s, 1, len, f) != len) {
            return MBX_E_IO;
        }
    }
    return fputc('\n', f) == EOF ? MBX_E_IO : MBX_OK;
}

static int write_row(mbx_csv_writer *w, const char *const *fields)
{
    int rc = mbx_csv_fputrow(w->f, fields, w->ncols);
    if (rc == MBX_OK && fflush(w->f) != 0) {
        rc = MBX_E_IO;
    }
    if (rc < 0) {
        w->failed = 1;
    }
    return rc;
}

static int writer_open(const char *path, const char *const *cols, size_t ncols,
                       mbx_csv_writer **out, int append)
{
    if (out != NULL) {
        *out = NULL;
    }
    if (path == NULL || cols == NULL || ncols == 0 || out == NULL) {
        return MBX_E_INVAL;
    }
    for (size_t i = 0; i < ncols; i++) {
        if (cols[i] == NULL) {
            return MBX_E_INVAL;
        }
    }
    mbx_csv_writer *w = calloc(1, sizeof *w);
    if (w == NULL) {
        return MBX_E_NOMEM;
    }
    w->f = fopen(path, append ? "ab" : "wb");
    if (w->f == NULL) {
        free(w);
        return MBX_E_IO;
    }
    w->ncols = ncols;
    if ((!append || ftell(w->f) == 0) && write_row(w, cols) < 0) {
        (void)mbx_csv_writer_close(w);
        return MBX_E_IO;
    }
    *out = w;
    return MBX_OK;
}

int mbx_csv_writer_open(const char *path, const char *const *cols, size_t ncols,
                        mbx_csv_writer **out)
{
    return writer_open(path, cols, ncols, out, 0);
}

int mbx_csv_writer_append(const char *path, const char *const *cols, size_t ncols,
                          mbx_csv_writer **out)
{
    return writer_open(path, cols, ncols, out, 1);
}

int mbx_csv_trim_torn(const char *path, size_t *removed)
{
    if (removed != NULL) {
        *removed = 0;
    }
    FILE *f = fopen(path, "rb+");
    if (f == NULL) {
        return MBX_E_IO;
    }
    int rc = MBX_OK;
    long size = -1, keep = 0;
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0) {
        rc = MBX_E_IO;
    }
    /* Walk back to the last newline: everything after it is a torn row. */
    for (long pos = size - 1; rc == MBX_OK && pos >= 0; pos--) {
        if (fseek(f, pos, SEEK_SET) != 0) {
            rc = MBX_E_IO;
            break;
        }
        int c = fgetc(f);
        if (c == '\n') {
            keep = pos + 1;
            break;
        }
    }
    if (fclose(f) != 0 && rc == MBX_OK) {
        rc = MBX_E_IO;
    }
    if (rc == MBX_OK && keep < size) {
        if (truncate(path, (off_t)keep) != 0) {
            return MBX_E_IO;
        }
        if (removed != NULL) {
            *removed = (size_t)(size - keep);
        }
    }
    return rc;
}

int mbx_csv_writer_row(mbx_csv_writer *w, const char *const *fields)
{
    if (w == NULL || fields == NULL) {
        return MBX_E_INVAL;
    }
    return write_row(w, fields);
}

int mbx_csv_writer_close(mbx_csv_writer *w)
{
    if (w == NULL) {
        return MBX_OK;
    }
    int failed = w->failed;
    if (fflush(w->f) != 0) {
        failed = 1;
    }
    if (fclose(w->f) != 0) {
        failed = 1;
    }
    free(w);
    return failed ? MBX_E_IO : MBX_OK;
}

/* Rows under construction; cells are owned here until the table takes them. */
struct reader {
    mbx_csv_table *t;
    size_t cell_cap, ncols_cap; /* capacity of t->cell and t->ncols */
    char **row;
    size_t row_n, row_cap;
    int nomem;
};

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) {
        return p;
    }
    size_t n = *cap ? *cap * 2 : 16;
    while (n < need) {
        n *= 2;
    }
    void *q = realloc(p, n * elem);
    if (q != NULL) {
        *cap = n;
    }
    return q;
}

static void on_field(void *s, size_t len, void *data)
{
    struct reader *r = data;
    if (r->nomem) {
        return;
    }
    char **row = grow(r->row, &r->row_cap, r->row_n + 1, sizeof *row);
    char *cell = malloc(len + 1);
    if (row == NULL || cell == NULL) {
        free(cell);
        r->nomem = 1;
        return;
    }
    r->row = row;
    if (len > 0) {
        memcpy(cell, s, len);
    }
    cell[len] = '\0';
    r->row[r->row_n++] = cell;
}

static void on_row(int term, void *data)
{
    struct reader *r = data;
    mbx_csv_table *t = r->t;
    (void)term;
    if (r->nomem) {
        return;
    }
    char ***cell = grow(t->cell, &r->cell_cap, t->nrows + 1, sizeof *cell);
    if (cell != NULL) {
        t->cell = cell;
    }
    size_t *ncols = grow(t->ncols, &r->ncols_cap, t->nrows + 1, sizeof *ncols);
    if (ncols != NULL) {
        t->ncols = ncols;
    }
    if (cell == NULL || ncols == NULL) {
        r->nomem = 1;
        return;
    }
    /* A table keeps every row while the parser's slack is per row: trim it. */
    char **row = r->row;
    if (r->row_n > 0 && r->row_n < r->row_cap) {
        char **fit = realloc(row, r->row_n * sizeof *fit);
        if (fit != NULL) {
            row = fit;
        }
    }
    t->cell[t->nrows] = row;
    t->ncols[t->nrows] = r->row_n;
    t->nrows++;
    r->row = NULL;
    r->row_n = r->row_cap = 0;
}

static void reader_discard_row(struct reader *r)
{
    for (size_t i = 0; i < r->row_n; i++) {
        free(r->row[i]);
    }
    free(r->row);
    r->row = NULL;
    r->row_n = r->row_cap = 0;
}

static int error_status(struct csv_parser *p)
{
    return csv_error(p) == CSV_EPARSE ? MBX_E_PROTO : MBX_E_NOMEM;
}

/* Feed one chunk; returns MBX_OK or the error that stopped the parser. */
static int feed(struct csv_parser *p, struct reader *r, const char *data, size_t len)
{
    if (csv_parse(p, data, len, on_field, on_row, r) != len) {
        return error_status(p);
    }
    return r->nomem ? MBX_E_NOMEM : MBX_OK;
}

static int finish(struct csv_parser *p, struct reader *r, int rc)
{
    if (rc == MBX_OK && csv_fini(p, on_field, on_row, r) != 0) {
        rc = error_status(p);
    }
    if (rc == MBX_OK && r->nomem) {
        rc = MBX_E_NOMEM;
    }
    csv_free(p);
    reader_discard_row(r);
    if (rc < 0) {
        mbx_csv_table_free(r->t);
    }
    return rc;
}

static int start(struct csv_parser *p, struct reader *r, mbx_csv_table *out)
{
    memset(out, 0, sizeof *out);
    memset(r, 0, sizeof *r);
    r->t = out;
    return csv_init(p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) == 0 ? MBX_OK : MBX_E_NOMEM;
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
    struct csv_parser p;
    struct reader r;
    if (start(&p, &r, out) < 0) {
        return MBX_E_NOMEM;
    }
    return finish(&p, &r, len > 0 ? feed(&p, &r, data, len) : MBX_OK);
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
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return MBX_E_IO;
    }
    struct csv_parser p;
    struct reader r;
    if (start(&p, &r, out) < 0) {
        fclose(f);
        return MBX_E_NOMEM;
    }
    char buf[16384];
    int rc = MBX_OK;
    size_t n;
    while (rc == MBX_OK && (n = fread(buf, 1, sizeof buf, f)) > 0) {
        rc = feed(&p, &r, buf, n);
    }
    if (rc == MBX_OK && ferror(f)) {
        rc = MBX_E_IO;
    }
    fclose(f);
    return finish(&p, &r, rc);
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
    memset(t, 0, sizeof *t);
}

int mbx_csv_table_col(const mbx_csv_table *t, const char *name)
{
    if (t == NULL || name == NULL || t->nrows == 0) {
        return -1;
    }
    for (size_t c = 0; c < t->ncols[0]; c++) {
        if (strcmp(t->cell[0][c], name) == 0) {
            return (int)c;
        }
    }
    return -1;
}

char *mbx_csv_sidecar(const char *path, const char *suffix)
{
    size_t n = strlen(path);
    if (n > 4 && strcmp(path + n - 4, ".csv") == 0)
        n -= 4;
    char *p = malloc(n + strlen(suffix) + 1);
    if (p) {
        memcpy(p, path, n);
        strcpy(p + n, suffix);
    }
    return p;
}
