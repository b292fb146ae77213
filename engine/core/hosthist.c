/* The host's history (see mbx/hosthist.h): the reference of the earlier
 * runs, the rule that judges a probe against it, and the file. */
#include "mbx/hosthist.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mbx/csvio.h"
#include "mbx/levels.h"
#include "mbx/stats.h"
#include "msg.h"
#include "statefile.h"

#define NCOLS 6
static const char *const cols[NCOLS] = {"end_s",  "procs",   "probes",
                                        "span_s", "changes", "probe_median_us"};

void mbx_hosthist_reference(double *logs, size_t n, mbx_hosthist_ref *ref)
{
    ref->runs = n;
    ref->center = NAN;
    ref->spread = NAN;
    if (n == 0)
        return;
    double c = mbx_stats_median_sort(logs, n);
    for (size_t i = 0; i < n; i++)
        logs[i] = fabs(logs[i] - c);
    ref->center = exp(c);
    ref->spread = 1.482602218505602 * mbx_stats_median_sort(logs, n);
}

int mbx_hosthist_unusual(const mbx_hosthist_ref *ref, double probe, double *ratio)
{
    if (!ref || ref->runs < MBX_HOSTHIST_MIN_RUNS || !(probe > 0) || !(ref->center > 0) ||
        !isfinite(ref->spread))
        return 0;
    double r = probe / ref->center;
    if (ratio)
        *ratio = r;
    return mbx_levels_shifted(probe, ref->center, NULL) &&
           fabs(log(r)) > MBX_HOSTHIST_SDS * ref->spread;
}

double mbx_hosthist_dwell(const mbx_hosthist_ref *ref, double seen)
{
    if (!ref || ref->runs < MBX_HOSTHIST_MIN_RUNS || ref->changes < MBX_HOSTHIST_MIN_CHANGES ||
        !(ref->seconds > 0))
        return NAN;
    return (ref->seconds + (seen > 0 ? seen : 0)) / (double)ref->changes;
}

int mbx_hosthist_path(const char *dir, const char *host, const char *mpi, char *out, size_t len)
{
    return mbx_state_file_path(dir, "history", host, mpi, out, len);
}

/* The record's row (into a memory stream: one write appends it). */
static int put_rec(FILE *f, const mbx_hosthist_rec *r)
{
    char s[NCOLS][48];
    const char *row[NCOLS];
    snprintf(s[0], sizeof s[0], "%lld", r->when);
    snprintf(s[1], sizeof s[1], "%d", r->procs);
    snprintf(s[2], sizeof s[2], "%zu", r->probes);
    mbx_csv_fmt_number(s[3], sizeof s[3], "%.3f", r->span);
    snprintf(s[4], sizeof s[4], "%zu", r->changes);
    mbx_csv_fmt_number(s[5], sizeof s[5], "%.6g", r->probe_median * 1e6);
    for (int i = 0; i < NCOLS; i++)
        row[i] = s[i];
    return mbx_csv_fputrow(f, row, NCOLS);
}

/* The file's head: version, host, mpi and the header row. */
static int put_head(FILE *f, const char *host, const char *mpi)
{
    char v[16];
    snprintf(v, sizeof v, "%d", MBX_HOSTHIST_VERSION);
    const char *r0[2] = {"mpibex_history", v}, *r1[2] = {"host", host}, *r2[2] = {"mpi", mpi};
    int rc = mbx_csv_fputrow(f, r0, 2);
    rc = rc ? rc : mbx_csv_fputrow(f, r1, 2);
    rc = rc ? rc : mbx_csv_fputrow(f, r2, 2);
    return rc ? rc : mbx_csv_fputrow(f, cols, NCOLS);
}

/* buf[0..n) to fd in one write (a regular file's appends of a few hundred
 * bytes are not interleaved with another process's). */
static int write_all(int fd, const char *buf, size_t n)
{
    ssize_t w = write(fd, buf, n);
    if (w < 0)
        return MBX_E_IO;
    if ((size_t)w != n) {
        errno = ENOSPC;
        return MBX_E_IO;
    }
    return MBX_OK;
}

int mbx_hosthist_append(const char *path, const char *host, const char *mpi,
                        const mbx_hosthist_rec *rec)
{
    if (!path || !host || !mpi || !rec || rec->probes == 0 || !(rec->probe_median > 0) ||
        !isfinite(rec->probe_median) || !(rec->span >= 0) || !isfinite(rec->span) ||
        rec->procs < 1 || rec->when < 0)
        return MBX_E_INVAL;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int fresh = fd >= 0;
    if (!fresh && errno == EEXIST)
        fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return MBX_E_IO;
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    int rc = m ? MBX_OK : MBX_E_NOMEM;
    if (rc == MBX_OK && fresh)
        rc = put_head(m, host, mpi);
    if (rc == MBX_OK)
        rc = put_rec(m, rec);
    if (m && fclose(m) != 0 && rc == MBX_OK)
        rc = MBX_E_NOMEM;
    if (rc == MBX_OK)
        rc = write_all(fd, buf, n);
    int err = errno;
    free(buf);
    if (close(fd) != 0 && rc == MBX_OK)
        rc = MBX_E_IO, err = errno;
    errno = err;
    return rc;
}

/* The reader's state: the ring of the most recent matching runs. */
typedef struct reader {
    const char *path, *host, *mpi;
    int procs;
    long long now;
    char *msg;
    size_t len;
    size_t row; /* rows read so far */
    struct {
        double log_probe, span;
        size_t changes;
        long long when;
    } ring[MBX_HOSTHIST_USE_RUNS];
    size_t nring, next; /* filled, and the slot the next run takes */
} reader;

static int bad(reader *rd, size_t line, const char *field, const char *want, const char *got)
{
    mbx_msgf(rd->msg, rd->len,
             "%s:%zu: %s: expected %s (got '%.40s'); delete the file to start a "
             "new history",
             rd->path, line, field, want, got);
    return MBX_E_PROTO;
}

/* A whole number field in [lo, hi]. */
static int whole(const char *s, double lo, double hi, double *v)
{
    return mbx_csv_number(s, hi + 1, 0, v) == MBX_OK && *v >= lo && *v == floor(*v);
}

static int data_row(reader *rd, char *const *c, size_t n, size_t line)
{
    double v[NCOLS];
    if (n != NCOLS)
        return bad(rd, line, "row", "6 fields", c[0]);
    if (!whole(c[0], 0, 4e12, &v[0]))
        return bad(rd, line, cols[0], "seconds since 1970", c[0]);
    if (!whole(c[1], 1, 1e9, &v[1]))
        return bad(rd, line, cols[1], "a whole number >= 1", c[1]);
    if (!whole(c[2], 1, 1e12, &v[2]))
        return bad(rd, line, cols[2], "a whole number >= 1", c[2]);
    if (mbx_csv_number(c[3], 1e9, 0, &v[3]) != MBX_OK)
        return bad(rd, line, cols[3], "seconds, 0 <= s < 1e9", c[3]);
    if (!whole(c[4], 0, 1e12, &v[4]))
        return bad(rd, line, cols[4], "a whole number", c[4]);
    if (mbx_csv_time_us(c[5], 0, &v[5]) != MBX_OK || !(v[5] > 0))
        return bad(rd, line, cols[5], "a time in microseconds, 0 < t < 1e12", c[5]);
    double age = (double)(rd->now - (long long)v[0]);
    if ((int)v[1] != rd->procs || age > MBX_HOSTHIST_MAX_AGE_DAYS * 86400.0 || age < -86400)
        return MBX_OK;
    rd->ring[rd->next].log_probe = log(v[5] * 1e-6);
    rd->ring[rd->next].span = v[3];
    rd->ring[rd->next].changes = (size_t)v[4];
    rd->ring[rd->next].when = (long long)v[0];
    rd->next = (rd->next + 1) % MBX_HOSTHIST_USE_RUNS;
    if (rd->nring < MBX_HOSTHIST_USE_RUNS)
        rd->nring++;
    return MBX_OK;
}

static int on_row(void *ctx, char *const *c, size_t n, size_t line)
{
    reader *rd = ctx;
    size_t row = rd->row++;
    if (row == 0) {
        if (n != 2 || strcmp(c[0], "mpibex_history") != 0)
            return bad(rd, line, "mpibex_history", "a history file of mpibex", c[0]);
        if (strcmp(c[1], "1") != 0)
            return bad(rd, line, "mpibex_history", "version 1", c[1]);
        return MBX_OK;
    }
    if (row == 1 || row == 2) {
        const char *key = row == 1 ? "host" : "mpi", *want = row == 1 ? rd->host : rd->mpi;
        if (n != 2 || strcmp(c[0], key) != 0)
            return bad(rd, line, key, row == 1 ? "host,NAME" : "mpi,LIBRARY", c[0]);
        if (strcmp(c[1], want) != 0) {
            mbx_msgf(rd->msg, rd->len, "%s: the history is of %s '%.100s', this run's is '%.100s'",
                     rd->path, key, c[1], want);
            return MBX_E_PROTO;
        }
        return MBX_OK;
    }
    if (row == 3) {
        if (n != NCOLS || mbx_csv_col((const char *const *)c, n, "probe_median_us") != NCOLS - 1)
            return bad(rd, line, "header", "end_s,procs,probes,span_s,changes,probe_median_us",
                       c[0]);
        return MBX_OK;
    }
    return data_row(rd, c, n, line);
}

int mbx_hosthist_read(const char *path, const char *host, const char *mpi, int procs, long long now,
                      mbx_hosthist_ref *ref, char *msg, size_t len)
{
    memset(ref, 0, sizeof *ref);
    ref->center = ref->spread = NAN;
    reader rd = {
        .path = path, .host = host, .mpi = mpi, .procs = procs, .now = now, .msg = msg, .len = len};
    mbx_csv_why why = {0};
    int rc = mbx_csv_read_rows_why(path, on_row, &rd, &why);
    if (rc == MBX_E_IO) {
        mbx_msgf(msg, len, "cannot read '%s': %s", path, strerror(errno));
        return rc;
    }
    if (rc == MBX_E_PROTO && why.text[0])
        return bad(&rd, why.line, "file", "CSV", why.text);
    if (rc == MBX_OK && rd.row < 4)
        rc = bad(&rd, rd.row + 1, rd.row == 0 ? "mpibex_history" : "header",
                 "a history file of mpibex", "");
    if (rc == MBX_E_NOMEM)
        mbx_msgf(msg, len, "%s: out of memory", path);
    if (rc != MBX_OK)
        return rc;
    double logs[MBX_HOSTHIST_USE_RUNS];
    for (size_t i = 0; i < rd.nring; i++) {
        logs[i] = rd.ring[i].log_probe;
        ref->seconds += rd.ring[i].span;
        ref->changes += rd.ring[i].changes;
        if (i == 0 || rd.ring[i].when < ref->oldest)
            ref->oldest = rd.ring[i].when;
    }
    mbx_hosthist_reference(logs, rd.nring, ref);
    return MBX_OK;
}
