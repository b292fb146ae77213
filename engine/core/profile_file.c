/* The machine profile's file (docs/csv-format.md, "Profile file"): a
 * CSV of key,value rows, then a header row and one row per entry, then
 * (version 2) a header row and one row per point's center. */
#include "mbx/profile.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mbx/ascii.h"
#include "mbx/csvio.h"
#include "mbx/status.h"
#include "msg.h"
#include "statefile.h"

#define NENTRY 10
static const char *const entry_cols[NENTRY] = {
    "benchmark", "procs",     "class_lo_bytes", "class_hi_bytes", "points",
    "df",        "sigma_rel", "sigma_lo_rel",   "sigma_hi_rel",   "within_rel"};

/* Version 2: after the entries, where each point's launches were. */
#define NCENTER 6
static const char *const center_cols[NCENTER] = {"kind",  "benchmark", "procs",
                                                 "bytes", "center_us", "launches"};

static void num(char *b, size_t n, const char *fmt, double x)
{
    mbx_csv_fmt_number(b, n, fmt, x);
}

static int kv_row(FILE *f, const char *k, const char *v)
{
    const char *row[2] = {k, v};
    return mbx_csv_fputrow(f, row, 2);
}

static int write_entry(FILE *f, const mbx_profile_entry *e)
{
    char s[NENTRY][64];
    const char *row[NENTRY];
    snprintf(s[0], sizeof s[0], "%s", e->bench);
    snprintf(s[1], sizeof s[1], "%d", e->procs);
    snprintf(s[2], sizeof s[2], "%llu", (unsigned long long)e->class_lo);
    snprintf(s[3], sizeof s[3], "%llu",
             (unsigned long long)(e->class_lo ? 4 * e->class_lo - 1 : 0));
    snprintf(s[4], sizeof s[4], "%zu", e->points);
    snprintf(s[5], sizeof s[5], "%zu", e->df);
    num(s[6], sizeof s[6], "%.6f", e->sigma);
    num(s[7], sizeof s[7], "%.6f", e->sigma_lo);
    if (isfinite(e->sigma_hi))
        num(s[8], sizeof s[8], "%.6f", e->sigma_hi);
    else
        snprintf(s[8], sizeof s[8], "inf");
    num(s[9], sizeof s[9], "%.6f", e->within);
    for (int i = 0; i < NENTRY; i++)
        row[i] = s[i];
    return mbx_csv_fputrow(f, row, NENTRY);
}

static int write_center(FILE *f, const mbx_profile_center *c)
{
    char s[NCENTER][64];
    const char *row[NCENTER];
    snprintf(s[0], sizeof s[0], "center");
    snprintf(s[1], sizeof s[1], "%s", c->bench);
    snprintf(s[2], sizeof s[2], "%d", c->procs);
    snprintf(s[3], sizeof s[3], "%llu", (unsigned long long)c->bytes);
    num(s[4], sizeof s[4], "%.6g", c->median * 1e6);
    snprintf(s[5], sizeof s[5], "%zu", c->n);
    for (int i = 0; i < NCENTER; i++)
        row[i] = s[i];
    return mbx_csv_fputrow(f, row, NCENTER);
}

int mbx_profile_write(const mbx_profile *p, const char *path)
{
    char tmp[4200], v[64], date[32];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return MBX_E_IO;
    }
    FILE *f = fopen(tmp, "w");
    if (f == NULL)
        return MBX_E_IO;
    time_t t = (time_t)p->created;
    struct tm tm;
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
    snprintf(v, sizeof v, "%d", MBX_PROFILE_VERSION);
    int rc = kv_row(f, "mpibex_profile", v);
    rc = rc ? rc : kv_row(f, "host", p->host);
    rc = rc ? rc : kv_row(f, "mpi", p->mpi);
    rc = rc ? rc : kv_row(f, "created_utc", date);
    snprintf(v, sizeof v, "%lld", p->created);
    rc = rc ? rc : kv_row(f, "created_s", v);
    snprintf(v, sizeof v, "%zu", p->k);
    rc = rc ? rc : kv_row(f, "launches", v);
    snprintf(v, sizeof v, "%lld", p->span_s);
    if (p->span_s >= 0)
        rc = rc ? rc : kv_row(f, "launches_span_s", v);
    rc = rc ? rc : mbx_csv_fputrow(f, entry_cols, NENTRY);
    for (size_t i = 0; rc == MBX_OK && i < p->n; i++)
        rc = write_entry(f, &p->e[i]);
    if (p->nc > 0)
        rc = rc ? rc : mbx_csv_fputrow(f, center_cols, NCENTER);
    for (size_t i = 0; rc == MBX_OK && i < p->nc; i++)
        rc = write_center(f, &p->c[i]);
    int err = errno;
    if (fclose(f) != 0 && rc == MBX_OK)
        rc = MBX_E_IO, err = errno;
    if (rc == MBX_OK && rename(tmp, path) != 0)
        rc = MBX_E_IO, err = errno;
    if (rc != MBX_OK) {
        remove(tmp);
        errno = err;
        return MBX_E_IO;
    }
    return MBX_OK;
}

/* A number field of an entry in [lo, hi]; "inf" allowed where inf_ok. */
static int get_num(const char *s, double lo, double hi, int inf_ok, double *out)
{
    if (inf_ok && strcmp(s, "inf") == 0) {
        *out = INFINITY;
        return 1;
    }
    char *end;
    double x = mbx_strtod(s, &end);
    if (end == s || *end != '\0' || !(x >= lo && x <= hi))
        return 0;
    *out = x;
    return 1;
}

static int bad(char *msg, size_t len, const char *path, size_t line, const char *field,
               const char *want, const char *got)
{
    mbx_msgf(msg, len, "%s:%zu: %s: expected %s (got '%.40s')", path, line, field, want, got);
    return MBX_E_PROTO;
}

static int read_entry(char *const *c, size_t n, const char *path, size_t line, mbx_profile_entry *e,
                      char *msg, size_t len)
{
    double v[NENTRY];
    static const double hi[NENTRY] = {0, INT_MAX, 9.3e18, 0, 1e9, 1e6, 10, 10, 10, 10};
    if (n != NENTRY)
        return bad(msg, len, path, line, "entry", "10 fields", c[0]);
    if (c[0][0] == '\0' || strlen(c[0]) >= sizeof e->bench)
        return bad(msg, len, path, line, "benchmark", "a benchmark name", c[0]);
    for (int i = 1; i < NENTRY; i++) {
        if (i == 3)
            continue; /* class_hi_bytes: for the reader of the file */
        if (!get_num(c[i], i == 1 ? 1 : 0, hi[i], i == 8, &v[i]))
            return bad(msg, len, path, line, entry_cols[i],
                       i <= 5 ? "a whole number" : "a number in 0..10", c[i]);
    }
    memset(e, 0, sizeof *e);
    snprintf(e->bench, sizeof e->bench, "%s", c[0]);
    e->procs = (int)v[1];
    e->class_lo = (uint64_t)v[2];
    if (mbx_profile_class(e->class_lo) != e->class_lo)
        return bad(msg, len, path, line, "class_lo_bytes", "0 or a power of 4", c[2]);
    e->points = (size_t)v[4];
    e->df = (size_t)v[5];
    e->sigma = v[6];
    e->sigma_lo = v[7];
    e->sigma_hi = v[8];
    e->within = v[9];
    return MBX_OK;
}

/* A center row of version 2: center,BENCH,PROCS,BYTES,CENTER_US,LAUNCHES. */
static int read_center(char *const *c, size_t n, const char *path, size_t line,
                       mbx_profile_center *ce, char *msg, size_t len)
{
    double v[NCENTER];
    if (n != NCENTER || strcmp(c[0], "center") != 0)
        return bad(msg, len, path, line, "center", "center and 5 fields", c[0]);
    if (c[1][0] == '\0' || strlen(c[1]) >= sizeof ce->bench)
        return bad(msg, len, path, line, "benchmark", "a benchmark name", c[1]);
    if (!get_num(c[2], 1, INT_MAX, 0, &v[2]) || v[2] != floor(v[2]))
        return bad(msg, len, path, line, "procs", "a whole number >= 1", c[2]);
    if (!get_num(c[3], 0, 9.3e18, 0, &v[3]) || v[3] != floor(v[3]))
        return bad(msg, len, path, line, "bytes", "a whole number", c[3]);
    if (!get_num(c[4], 1e-6, 1e12, 0, &v[4]))
        return bad(msg, len, path, line, "center_us", "a time in 1e-6..1e12 us", c[4]);
    if (!get_num(c[5], 2, 1e6, 0, &v[5]) || v[5] != floor(v[5]))
        return bad(msg, len, path, line, "launches", "a whole number >= 2", c[5]);
    memset(ce, 0, sizeof *ce);
    snprintf(ce->bench, sizeof ce->bench, "%s", c[1]);
    ce->procs = (int)v[2];
    ce->bytes = (uint64_t)v[3];
    ce->median = v[4] * 1e-6;
    ce->n = (size_t)v[5];
    return MBX_OK;
}

/* A key,value row before the entries. */
static int read_kv(char *const *c, size_t n, const char *path, size_t line, mbx_profile *p,
                   char *msg, size_t len)
{
    double x;
    if (n != 2)
        return bad(msg, len, path, line, c[0], "key,value", c[0]);
    if (strcmp(c[0], "host") == 0)
        snprintf(p->host, sizeof p->host, "%s", c[1]);
    else if (strcmp(c[0], "mpi") == 0)
        snprintf(p->mpi, sizeof p->mpi, "%s", c[1]);
    else if (strcmp(c[0], "created_s") == 0) {
        if (!get_num(c[1], 0, 4e12, 0, &x))
            return bad(msg, len, path, line, "created_s", "seconds since 1970", c[1]);
        p->created = (long long)x;
    } else if (strcmp(c[0], "launches") == 0) {
        if (!get_num(c[1], MBX_PROFILE_MIN_K, 1e6, 0, &x) || x != floor(x))
            return bad(msg, len, path, line, "launches", "a whole number >= 3", c[1]);
        p->k = (size_t)x;
    } else if (strcmp(c[0], "launches_span_s") == 0) {
        if (!get_num(c[1], 0, 4e12, 0, &x) || x != floor(x))
            return bad(msg, len, path, line, "launches_span_s", "whole seconds >= 0", c[1]);
        p->span_s = (long long)x;
    } /* other keys (created_utc) are for the reader of the file */
    return MBX_OK;
}

static int read_table(const mbx_csv_table *t, const char *path, mbx_profile *p, char *msg,
                      size_t len)
{
    if (t->nrows == 0 || t->ncols[0] != 2 || strcmp(t->cell[0][0], "mpibex_profile") != 0)
        return bad(msg, len, path, 1, "mpibex_profile", "a profile file (mpibex calibrate)",
                   t->nrows ? t->cell[0][0] : "");
    int version = strcmp(t->cell[0][1], "1") == 0 ? 1 : strcmp(t->cell[0][1], "2") == 0 ? 2 : 0;
    if (version == 0)
        return bad(msg, len, path, 1, "mpibex_profile", "version 1 or 2", t->cell[0][1]);
    size_t r = 1;
    int rc = MBX_OK;
    for (; rc == MBX_OK && r < t->nrows && strcmp(t->cell[r][0], "benchmark") != 0; r++)
        rc = read_kv(t->cell[r], t->ncols[r], path, t->line[r], p, msg, len);
    if (rc != MBX_OK)
        return rc;
    const char *need = !p->host[0]     ? "host"
                       : !p->mpi[0]    ? "mpi"
                       : !p->created   ? "created_s"
                       : !p->k         ? "launches"
                       : r == t->nrows ? "benchmark"
                                       : NULL;
    if (need != NULL) {
        mbx_msgf(msg, len, "%s: no '%s' row; expected a profile file written by mpibex calibrate",
                 path, need);
        return MBX_E_PROTO;
    }
    int centers = 0; /* past the centers' header (version 2) */
    for (r++; rc == MBX_OK && r < t->nrows; r++) {
        char *const *c = t->cell[r];
        if (!centers && version >= 2 && strcmp(c[0], "kind") == 0) {
            centers = 1;
        } else if (centers) {
            mbx_profile_center ce;
            rc = read_center(c, t->ncols[r], path, t->line[r], &ce, msg, len);
            if (rc == MBX_OK)
                rc = mbx_profile_add_center(p, &ce);
        } else {
            mbx_profile_entry e;
            rc = read_entry(c, t->ncols[r], path, t->line[r], &e, msg, len);
            if (rc == MBX_OK)
                rc = mbx_profile_add(p, &e);
        }
    }
    return rc;
}

int mbx_profile_read(const char *path, mbx_profile *p, char *msg, size_t len)
{
    memset(p, 0, sizeof *p);
    mbx_csv_table t;
    int rc = mbx_csv_read_file(path, &t);
    if (rc == MBX_E_IO) {
        mbx_msgf(msg, len, "cannot read '%s': %s", path, strerror(errno));
        return rc;
    }
    if (rc != MBX_OK) {
        mbx_msgf(msg, len,
                 "%s: not a profile file (not CSV); expected one written by mpibex "
                 "calibrate",
                 path);
        return MBX_E_PROTO;
    }
    p->span_s = -1; /* a version-1 file does not say */
    rc = read_table(&t, path, p, msg, len);
    mbx_csv_table_free(&t);
    if (rc != MBX_OK)
        mbx_profile_free(p);
    return rc;
}

int mbx_profile_check(const mbx_profile *p, const char *host, const char *mpi, long long now,
                      double max_age_days, char *msg, size_t len)
{
    if (strcmp(p->host, host) != 0) {
        mbx_msgf(msg, len, "the profile is of host '%s', this run is on '%s'", p->host, host);
        return MBX_E_UNSUPPORTED;
    }
    if (strcmp(p->mpi, mpi) != 0) {
        mbx_msgf(msg, len, "the profile is of MPI '%s', this run uses '%s'", p->mpi, mpi);
        return MBX_E_UNSUPPORTED;
    }
    double days = (double)(now - p->created) / 86400;
    if (days > max_age_days || days < -1) {
        mbx_msgf(msg, len, "the profile is %.0f days old, more than the %.0f allowed", days,
                 max_age_days);
        return MBX_E_RANGE;
    }
    return MBX_OK;
}

int mbx_state_file_path(const char *dir, const char *kind, const char *host, const char *mpi,
                        char *out, size_t len)
{
    char safe[64];
    size_t i = 0;
    for (; host[i] && i + 1 < sizeof safe; i++) {
        unsigned char ch = (unsigned char)host[i];
        safe[i] = mbx_ascii_isalnum(ch) || ch == '.' || ch == '-' ? (char)ch : '_';
    }
    safe[i] = '\0';
    uint32_t h = 2166136261u; /* FNV-1a of the MPI library's line */
    for (const char *s = mpi; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    int n = snprintf(out, len, "%s/%s-%s-%08x.csv", dir, kind, safe, (unsigned)h);
    return n > 0 && (size_t)n < len ? MBX_OK : MBX_E_RANGE;
}

int mbx_profile_path(const char *dir, const char *host, const char *mpi, char *out, size_t len)
{
    return mbx_state_file_path(dir, "profile", host, mpi, out, len);
}
