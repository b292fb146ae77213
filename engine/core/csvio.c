/* Writing CSV files (see mbx/csvio.h): quoting, the writer that appends
 * whole rows (held, committed, rewound, copied), trimming a torn last row,
 * sidecar names and number formatting. Reading is in csvio_read.c. */
#include "mbx/csvio.h"

#include <csv.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "mbx/ascii.h"
#include "mbx/file.h"

struct mbx_csv_writer {
    int fd;
    off_t size; /* bytes of complete rows: where the next one goes */
    char *path;
    size_t ncols;
    int failed;   /* a write failed; reported again by close */
    FILE *held;   /* between hold and commit: the rows so far, in memory */
    int held_bad; /* a held row could not be formatted */
    char *held_buf;
    size_t held_len;
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
    /* The reader drops a byte-order mark at the start of a file. */
    if (len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
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

/* Write a whole record (one or more rows) at the end of the complete ones:
 * all of it lands, or the file is cut back and nothing does. Then make sure
 * the file is still where the user asked for it. */
static int put_record(mbx_csv_writer *w, const char *buf, size_t len)
{
    int rc = mbx_file_append(w->fd, &w->size, buf, len);
    if (rc == MBX_OK && w->path != NULL) {
        rc = mbx_file_still_at(w->fd, w->path);
    }
    if (rc < 0) {
        w->failed = 1;
    }
    return rc;
}

static int write_row(mbx_csv_writer *w, const char *const *fields)
{
    if (w->held != NULL) {
        int rc = mbx_csv_fputrow(w->held, fields, w->ncols);
        if (rc < 0) {
            w->held_bad = 1;
            errno = ENOMEM;
        }
        return rc;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (mem == NULL) {
        w->failed = 1;
        return MBX_E_NOMEM;
    }
    int rc = mbx_csv_fputrow(mem, fields, w->ncols);
    if (fclose(mem) != 0 && rc == MBX_OK) {
        rc = MBX_E_NOMEM;
    }
    if (rc == MBX_OK) {
        rc = put_record(w, buf, len);
    } else {
        w->failed = 1;
        errno = ENOMEM;
    }
    free(buf);
    return rc;
}

static int writer_open(const char *path, int fd, const char *const *cols, size_t ncols,
                       mbx_csv_writer **out, int append)
{
    if (out != NULL) {
        *out = NULL;
    }
    if ((path == NULL && fd < 0) || cols == NULL || ncols == 0 || out == NULL) {
        return MBX_E_INVAL;
    }
    for (size_t i = 0; i < ncols; i++) {
        if (cols[i] == NULL) {
            return MBX_E_INVAL;
        }
    }
    mbx_csv_writer *w = calloc(1, sizeof *w);
    if (w == NULL || (path != NULL && (w->path = strdup(path)) == NULL)) {
        free(w);
        errno = ENOMEM;
        return MBX_E_NOMEM;
    }
    if (fd >= 0) {
        /* Standard output or the like: no path to check, maybe no seek. */
        w->fd = fd;
        off_t end = lseek(fd, 0, SEEK_END);
        w->size = end < 0 ? 0 : end;
    } else if (mbx_file_open(path, append, &w->fd, &w->size) < 0) {
        int err = errno;
        free(w->path);
        free(w);
        errno = err;
        return MBX_E_IO;
    }
    w->ncols = ncols;
    if ((!append || w->size == 0) && write_row(w, cols) < 0) {
        int err = errno;
        (void)mbx_csv_writer_close(w);
        errno = err;
        return MBX_E_IO;
    }
    *out = w;
    return MBX_OK;
}

int mbx_csv_writer_open(const char *path, const char *const *cols, size_t ncols,
                        mbx_csv_writer **out)
{
    return writer_open(path, -1, cols, ncols, out, 0);
}

int mbx_csv_writer_fdopen(int fd, const char *const *cols, size_t ncols, mbx_csv_writer **out)
{
    if (fd < 0) {
        return MBX_E_INVAL;
    }
    return writer_open(NULL, fd, cols, ncols, out, 0);
}

int mbx_csv_writer_append(const char *path, const char *const *cols, size_t ncols,
                          mbx_csv_writer **out)
{
    return writer_open(path, -1, cols, ncols, out, 1);
}

int mbx_csv_trim_torn(const char *path, size_t *removed)
{
    if (removed != NULL) {
        *removed = 0;
    }
    /* Read and cut through one descriptor that never follows a link nor
     * waits on a FIFO, and only a regular file of ours (mbx/file.h). */
    int fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        return MBX_E_IO;
    }
    struct stat st;
    int err = fstat(fd, &st) != 0      ? errno
              : !S_ISREG(st.st_mode)   ? ENXIO
              : st.st_uid != geteuid() ? EPERM
                                       : 0;
    if (err) {
        close(fd);
        errno = err;
        return MBX_E_IO;
    }
    int rc = MBX_OK;
    off_t size = lseek(fd, 0, SEEK_END), keep = 0;
    if (size < 0) {
        rc = MBX_E_IO;
    }
    /* Walk back to the last newline: everything after it is a torn row. */
    char buf[4096];
    for (off_t end = size; rc == MBX_OK && end > 0 && keep == 0;) {
        off_t from = end > (off_t)sizeof buf ? end - (off_t)sizeof buf : 0;
        ssize_t n = pread(fd, buf, (size_t)(end - from), from);
        if (n != end - from) {
            rc = MBX_E_IO;
            break;
        }
        for (ssize_t i = n - 1; i >= 0; i--) {
            if (buf[i] == '\n') {
                keep = from + i + 1;
                break;
            }
        }
        end = from;
    }
    if (rc == MBX_OK && keep < size) {
        if (ftruncate(fd, keep) != 0) {
            rc = MBX_E_IO;
        } else if (removed != NULL) {
            *removed = (size_t)(size - keep);
        }
    }
    err = errno;
    close(fd);
    errno = err;
    return rc;
}

int mbx_csv_writer_row(mbx_csv_writer *w, const char *const *fields)
{
    if (w == NULL || fields == NULL) {
        return MBX_E_INVAL;
    }
    return write_row(w, fields);
}

int mbx_csv_writer_hold(mbx_csv_writer *w)
{
    if (w == NULL || w->held != NULL) {
        return MBX_E_INVAL;
    }
    w->held_bad = 0;
    w->held = open_memstream(&w->held_buf, &w->held_len);
    return w->held != NULL ? MBX_OK : MBX_E_NOMEM;
}

int mbx_csv_writer_commit(mbx_csv_writer *w)
{
    if (w == NULL || w->held == NULL) {
        return MBX_E_INVAL;
    }
    int rc = fclose(w->held) == 0 && !w->held_bad ? MBX_OK : MBX_E_NOMEM;
    w->held = NULL;
    if (rc != MBX_OK) {
        w->failed = 1;
    }
    w->held_bad = 0;
    if (rc == MBX_OK) {
        rc = put_record(w, w->held_buf, w->held_len);
    } else {
        errno = ENOMEM;
    }
    int err = errno;
    free(w->held_buf);
    w->held_buf = NULL;
    w->held_len = 0;
    errno = err;
    return rc;
}

long long mbx_csv_writer_mark(const mbx_csv_writer *w)
{
    return w != NULL ? (long long)w->size : 0;
}

int mbx_csv_writer_rewind(mbx_csv_writer *w, long long mark)
{
    if (w == NULL || mark < 0 || mark > (long long)w->size) {
        return MBX_E_INVAL;
    }
    if (ftruncate(w->fd, (off_t)mark) != 0 || lseek(w->fd, (off_t)mark, SEEK_SET) < 0) {
        w->failed = 1;
        return MBX_E_IO;
    }
    w->size = (off_t)mark;
    return MBX_OK;
}

int mbx_csv_writer_copy(const mbx_csv_writer *w, const char *path)
{
    if (w == NULL || path == NULL) {
        return MBX_E_INVAL;
    }
    return mbx_file_copy(w->fd, w->size, path);
}

int mbx_csv_writer_close(mbx_csv_writer *w)
{
    if (w == NULL) {
        return MBX_OK;
    }
    int failed = w->failed;
    if (w->held != NULL) {
        fclose(w->held);
        free(w->held_buf);
    }
    if (close(w->fd) != 0) {
        failed = 1;
    }
    free(w->path);
    free(w);
    return failed ? MBX_E_IO : MBX_OK;
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

void mbx_csv_fmt_number(char *buf, size_t len, const char *fmt, double x)
{
    if (buf == NULL || len == 0) {
        return;
    }
    if (!isfinite(x)) {
        buf[0] = '\0';
        return;
    }
    mbx_snprintf_c(buf, len, fabs(x) < 1e15 ? fmt : "%.6e", x);
}

/* Digits, then optionally '.' and digits, then optionally an exponent:
 * what a spreadsheet takes as a number after its sign. */
static int plain_number(const char *s)
{
    size_t d = strspn(s, "0123456789");
    s += d;
    if (*s == '.') {
        size_t f = strspn(s + 1, "0123456789");
        d += f;
        s += 1 + f;
    }
    if (d == 0)
        return 0;
    if (*s == 'e' || *s == 'E') {
        s += 1 + (s[1] == '+' || s[1] == '-');
        size_t e = strspn(s, "0123456789");
        if (e == 0)
            return 0;
        s += e;
    }
    return *s == '\0';
}

int mbx_csv_is_formula(const char *s)
{
    if (s == NULL || s[0] == '\0' || strchr("=+-@\t\r", s[0]) == NULL)
        return 0;
    return !((s[0] == '+' || s[0] == '-') && plain_number(s + 1));
}

char *mbx_csv_text_dup(const char *s)
{
    if (s == NULL)
        s = "";
    size_t n = strlen(s), q = (size_t)mbx_csv_is_formula(s);
    char *d = malloc(n + q + 1);
    if (d == NULL)
        return NULL;
    d[0] = '\'';
    memcpy(d + q, s, n + 1);
    return d;
}
