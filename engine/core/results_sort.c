/* Sorting results (mbx/results_sort.h): the order of two rows, and a
 * results file rewritten in that order, atomically. */
#include "mbx/results_sort.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mbx/csvio.h"
#include "mbx/file.h"

static int cmp_num(long long a, long long b)
{
    return (a > b) - (a < b);
}

int mbx_result_order(const mbx_result *a, const mbx_result *b)
{
    int c = strcmp(a->benchmark ? a->benchmark : "", b->benchmark ? b->benchmark : "");
    if (c)
        return c;
    if ((c = cmp_num(a->procs, b->procs)) != 0)
        return c;
    long long pa = a->param_name ? (long long)a->param : -1;
    long long pb = b->param_name ? (long long)b->param : -1;
    if ((c = cmp_num(pa, pb)) != 0)
        return c;
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes ? -1 : 1;
    /* seq 0 (not set) after every set one. */
    unsigned long long sa = a->seq ? a->seq : ULLONG_MAX, sb = b->seq ? b->seq : ULLONG_MAX;
    return (sa > sb) - (sa < sb);
}

/* One data row of the table and its parsed key. */
typedef struct row_key {
    size_t row;
    const char *bench;
    long long procs, param, bytes;
} row_key;

/* A whole number in a field; -1 when empty or not one (first). */
static long long field_num(const mbx_csv_table *t, size_t r, int c)
{
    if (c < 0 || (size_t)c >= t->ncols[r])
        return -1;
    const char *s = t->cell[r][c];
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    return end == s || *end != '\0' || errno ? -1 : v;
}

static int cmp_row(const void *x, const void *y)
{
    const row_key *a = x, *b = y;
    int c = strcmp(a->bench, b->bench);
    if (c == 0)
        c = cmp_num(a->procs, b->procs);
    if (c == 0)
        c = cmp_num(a->param, b->param);
    if (c == 0)
        c = cmp_num(a->bytes, b->bytes);
    /* qsort is not stable: the file's order breaks ties. */
    return c ? c : cmp_num((long long)a->row, (long long)b->row);
}

/* The header and the nk rows k names, in k's order, into a new file of
 * ours beside path, under a random
 * name (mbx_file_temp: never a name another user or another run could
 * have put a file or a FIFO at), then renamed over path. */
static int write_sorted(const char *path, const mbx_csv_table *t, const row_key *k, size_t nk)
{
    mbx_csv_writer *w = NULL;
    size_t nc = t->ncols[0];
    char *tmp = NULL;
    int fd = -1;
    int rc = mbx_file_temp(path, 0666, &fd, &tmp);
    if (rc == MBX_OK &&
        (rc = mbx_csv_writer_fdopen(fd, (const char *const *)t->cell[0], nc, &w)) != MBX_OK)
        (void)close(fd);
    for (size_t i = 0; rc == MBX_OK && i < nk; i++)
        rc = mbx_csv_writer_row(w, (const char *const *)t->cell[k[i].row]);
    int err = errno;
    if (mbx_csv_writer_close(w) < 0 && rc == MBX_OK) {
        rc = MBX_E_IO;
        err = errno;
    }
    if (rc == MBX_OK && rename(tmp, path) != 0) {
        rc = MBX_E_IO;
        err = errno;
    }
    if (rc != MBX_OK && tmp)
        (void)unlink(tmp);
    free(tmp);
    errno = err;
    return rc;
}

/* path's table, which must have the column col (its index in *c) and
 * every row as wide as its header. MBX_OK with *t to free; 1 when path is
 * not a regular file (/dev/null, a pipe: nothing to rewrite), nothing
 * read; a negative status otherwise, nothing to free. */
static int load_rows(const char *path, const char *col, mbx_csv_table *t, int *c)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return MBX_E_IO;
    if (!S_ISREG(st.st_mode))
        return 1;
    int rc = mbx_csv_read_file(path, t);
    if (rc < 0)
        return rc;
    *c = mbx_csv_table_col(t, col);
    rc = *c < 0 ? MBX_E_INVAL : MBX_OK;
    for (size_t r = 1; rc == MBX_OK && r < t->nrows; r++)
        if (t->ncols[r] != t->ncols[0])
            rc = MBX_E_INVAL;
    if (rc != MBX_OK) {
        int err = errno;
        mbx_csv_table_free(t);
        errno = err;
    }
    return rc;
}

/* rc, after freeing k and t; errno as it was. */
static int finish(int rc, row_key *k, mbx_csv_table *t)
{
    int err = errno;
    free(k);
    mbx_csv_table_free(t);
    errno = err;
    return rc;
}

int mbx_results_sort_file(const char *path)
{
    if (!path) {
        errno = EINVAL;
        return MBX_E_INVAL;
    }
    mbx_csv_table t;
    int cb, rc = load_rows(path, "benchmark", &t, &cb);
    if (rc != MBX_OK)
        return rc > 0 ? MBX_OK : rc;
    int cp = mbx_csv_table_col(&t, "procs"), cx = mbx_csv_table_col(&t, "param");
    int cy = mbx_csv_table_col(&t, "bytes");
    row_key *k = NULL;
    if (t.nrows > 2) {
        k = malloc((t.nrows - 1) * sizeof *k);
        if (!k)
            rc = MBX_E_NOMEM;
        for (size_t r = 1; rc == MBX_OK && r < t.nrows; r++)
            k[r - 1] = (row_key){r, t.cell[r][cb], field_num(&t, r, cp), field_num(&t, r, cx),
                                 field_num(&t, r, cy)};
        if (rc == MBX_OK) {
            qsort(k, t.nrows - 1, sizeof *k, cmp_row);
            rc = write_sorted(path, &t, k, t.nrows - 1);
        }
    }
    return finish(rc, k, &t);
}

int mbx_results_drop_status(const char *path, const char *status, size_t *dropped)
{
    *dropped = 0;
    mbx_csv_table t;
    int cs, rc = load_rows(path, "status", &t, &cs);
    if (rc != MBX_OK)
        return rc > 0 ? MBX_OK : rc;
    row_key *k = NULL;
    size_t nk = 0;
    if (t.nrows > 1) {
        k = malloc((t.nrows - 1) * sizeof *k);
        if (!k)
            rc = MBX_E_NOMEM;
        for (size_t r = 1; rc == MBX_OK && r < t.nrows; r++)
            if (strcmp(t.cell[r][cs], status) != 0)
                k[nk++] = (row_key){.row = r};
        if (rc == MBX_OK && nk + 1 < t.nrows) {
            *dropped = t.nrows - 1 - nk;
            rc = write_sorted(path, &t, k, nk);
        }
    }
    return finish(rc, k, &t);
}
