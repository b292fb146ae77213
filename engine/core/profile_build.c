/* A machine profile from K launches' results files (`mpibex calibrate`):
 * each point's launch medians and within-launch errors, grouped by
 * benchmark, rank count and size class, then mbx_profile_estimate
 * (docs/algorithms.md, "Launch variance and the machine profile"). */
#include "mbx/profile_build.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/csvio.h"
#include "mbx/grow.h"
#include "mbx/pointid.h"
#include "mbx/status.h"
#include "msg.h"

struct bpoint {
    char *id; /* mbx_pid_key */
    char bench[64];
    int procs;
    uint64_t bytes;
    double *y, *w; /* k each: log median, (stderr / median)^2; NAN: none */
};

struct mbx_profile_builder {
    size_t k;
    struct bpoint *pt;
    size_t n, cap;
};

int mbx_profile_builder_new(size_t k, mbx_profile_builder **out)
{
    *out = k >= 1 ? calloc(1, sizeof **out) : NULL;
    if (*out == NULL)
        return k >= 1 ? MBX_E_NOMEM : MBX_E_INVAL;
    (*out)->k = k;
    return MBX_OK;
}

void mbx_profile_builder_free(mbx_profile_builder *b)
{
    for (size_t i = 0; b != NULL && i < b->n; i++) {
        free(b->pt[i].id);
        free(b->pt[i].y);
        free(b->pt[i].w);
    }
    if (b != NULL)
        free(b->pt);
    free(b);
}

/* The point of key id, created (every launch empty) if new. */
static struct bpoint *point_of(mbx_profile_builder *b, char *id, const char *bench, int procs,
                               uint64_t bytes)
{
    for (size_t i = 0; i < b->n; i++)
        if (strcmp(b->pt[i].id, id) == 0) {
            free(id);
            return &b->pt[i];
        }
    if (mbx_grow((void **)&b->pt, &b->cap, b->n + 1, sizeof *b->pt) != MBX_OK) {
        free(id);
        return NULL;
    }
    struct bpoint *p = &b->pt[b->n];
    memset(p, 0, sizeof *p);
    p->y = malloc(b->k * sizeof *p->y);
    p->w = malloc(b->k * sizeof *p->w);
    if (p->y == NULL || p->w == NULL) {
        free(p->y);
        free(p->w);
        free(id);
        return NULL;
    }
    for (size_t i = 0; i < b->k; i++)
        p->y[i] = p->w[i] = NAN;
    p->id = id;
    snprintf(p->bench, sizeof p->bench, "%s", bench);
    p->procs = procs;
    p->bytes = bytes;
    b->n++;
    return p;
}

/* One data row: its median kept when the row measured in passes (SETTLED,
 * FIXED, UNSETTLED or SHIFTED) and is positive; its error only when the
 * row is SETTLED or FIXED. An INVALID, HUNG or UNRELIABLE row has no
 * launch median to give. An UNSETTLED or SHIFTED row's median is what
 * that launch would have reported, so it counts in the spread of the
 * launch medians: leaving it out kept a machine's long states out of the
 * profile (two levels with 5 s stays gave sigma_L 0 where the launches
 * differ threefold). Its err is no error of its median, though (a launch
 * at a 4 ms level for seconds gave err 300-660 % beside a median as
 * steady as the other launches'), and one such w swamps the spread, so
 * the within-launch part comes from the settled rows alone
 * (docs/algorithms.md). */
static int add_row(mbx_profile_builder *b, size_t launch, char *const *c, const int *col,
                   const int *pid)
{
    unsigned long long procs, bytes;
    double med, se;
    mbx_point_status st;
    if (mbx_csv_count(c[col[MBX_COL_PROCS]], INT_MAX, &procs) < 0 || procs == 0 ||
        mbx_csv_count(c[col[MBX_COL_BYTES]], LLONG_MAX, &bytes) < 0)
        return MBX_E_PROTO;
    /* A widened error already holds a launch component: it is no
     * within-launch error (a run of repeat is told --profile none). */
    if (col[MBX_COL_CI_SCOPE] >= 0 && strcmp(c[col[MBX_COL_CI_SCOPE]], "profile") == 0)
        return MBX_E_RANGE;
    if (col[MBX_COL_STDERR_US] < 0 || !mbx_point_status_parse(c[col[MBX_COL_STATUS]], &st) ||
        (st != MBX_POINT_SETTLED && st != MBX_POINT_FIXED && st != MBX_POINT_UNSETTLED &&
         st != MBX_POINT_SHIFTED))
        return MBX_OK;
    int settled = st == MBX_POINT_SETTLED || st == MBX_POINT_FIXED;
    if (mbx_csv_time_us(c[col[MBX_COL_MEDIAN_US]], 1, &med) < 0 || !(med > 0))
        return MBX_OK;
    if (mbx_csv_time_us(c[col[MBX_COL_STDERR_US]], 1, &se) < 0 || !(se >= 0))
        se = NAN;
    if (settled && !isfinite(se))
        return MBX_OK;
    const char *idt[MBX_PID_NTEXT];
    mbx_pid_texts(c, pid, idt);
    char *id = mbx_pid_key(idt, procs, bytes);
    struct bpoint *p = id ? point_of(b, id, idt[MBX_PID_BENCH], (int)procs, bytes) : NULL;
    if (p == NULL)
        return MBX_E_NOMEM;
    p->y[launch] = log(med);
    p->w[launch] = settled ? (se / med) * (se / med) : NAN;
    return MBX_OK;
}

int mbx_profile_builder_add_file(mbx_profile_builder *b, size_t launch, const char *path, char *msg,
                                 size_t len)
{
    mbx_csv_table t;
    int rc = launch < b->k ? mbx_csv_read_file(path, &t) : MBX_E_INVAL;
    if (rc != MBX_OK) {
        mbx_msgf(msg, len, "cannot read '%s': %s", path,
                 rc == MBX_E_IO ? strerror(errno) : "not a CSV file");
        return rc;
    }
    int col[MBX_RESULT_NCOLS], pid[MBX_PID_NTEXT];
    const char *missing = t.nrows ? mbx_result_find_cols((const char *const *)t.cell[0], t.ncols[0],
                                                         MBX_READ_MERGE, col)
                                  : "benchmark";
    if (missing != NULL) {
        mbx_msgf(msg, len, "'%s' is not an mpibex results CSV: no '%s' column", path, missing);
        mbx_csv_table_free(&t);
        return MBX_E_PROTO;
    }
    mbx_pid_find_columns((const char *const *)t.cell[0], t.ncols[0], pid);
    for (size_t r = 1; rc == MBX_OK && r < t.nrows; r++) {
        if (t.ncols[r] != t.ncols[0]) {
            mbx_msgf(msg, len, "%s:%zu: %zu fields, the header has %zu", path, t.line[r],
                     t.ncols[r], t.ncols[0]);
            rc = MBX_E_PROTO;
        } else if ((rc = add_row(b, launch, t.cell[r], col, pid)) == MBX_E_PROTO) {
            mbx_msgf(msg, len, "%s:%zu: procs or bytes: expected a whole number", path, t.line[r]);
        } else if (rc == MBX_E_RANGE) {
            mbx_msgf(msg, len,
                     "%s:%zu: ci_scope: expected launch (got 'profile': a run widened by a "
                     "profile; measure with --profile none)",
                     path, t.line[r]);
            rc = MBX_E_PROTO;
        }
    }
    mbx_csv_table_free(&t);
    return rc;
}

static int same_class(const struct bpoint *a, const struct bpoint *c)
{
    return a->procs == c->procs && strcmp(a->bench, c->bench) == 0 &&
           mbx_profile_class(a->bytes) == mbx_profile_class(c->bytes);
}

/* The entry of the class of point `first` (every point of it marked). */
static int class_entry(mbx_profile_builder *b, size_t first, char *done, mbx_profile *p)
{
    size_t k = b->k, m = 0;
    double *y = malloc(b->n * k * sizeof *y), *w = malloc(b->n * k * sizeof *w);
    int rc = y && w ? MBX_OK : MBX_E_NOMEM;
    for (size_t i = first; rc == MBX_OK && i < b->n; i++) {
        if (done[i] || !same_class(&b->pt[first], &b->pt[i]))
            continue;
        done[i] = 1;
        memcpy(y + m * k, b->pt[i].y, k * sizeof *y);
        memcpy(w + m * k, b->pt[i].w, k * sizeof *w);
        m++;
    }
    mbx_profile_entry e = {0};
    snprintf(e.bench, sizeof e.bench, "%s", b->pt[first].bench);
    e.procs = b->pt[first].procs;
    e.class_lo = mbx_profile_class(b->pt[first].bytes);
    if (rc == MBX_OK && mbx_profile_estimate(y, w, m, k, &e) == MBX_OK)
        rc = mbx_profile_add(p, &e); /* a class no two launches share gives none */
    free(y);
    free(w);
    return rc;
}

/* Where point pt's launches were: exp of the mean of their log medians,
 * when two launches or more gave one. A run tells its rows apart by
 * benchmark, ranks and size alone, so a point that shares them with
 * another (another label, root or parameter) gets no center. */
static int point_center(const mbx_profile_builder *b, const struct bpoint *pt, mbx_profile *p)
{
    for (size_t i = 0; i < b->n; i++)
        if (&b->pt[i] != pt && b->pt[i].procs == pt->procs && b->pt[i].bytes == pt->bytes &&
            strcmp(b->pt[i].bench, pt->bench) == 0)
            return MBX_OK;
    mbx_profile_center c = {0};
    double sum = 0;
    for (size_t i = 0; i < b->k; i++)
        if (isfinite(pt->y[i]))
            sum += pt->y[i], c.n++;
    if (c.n < 2)
        return MBX_OK;
    snprintf(c.bench, sizeof c.bench, "%s", pt->bench);
    c.procs = pt->procs;
    c.bytes = pt->bytes;
    c.median = exp(sum / (double)c.n) * 1e-6; /* y is of microseconds */
    return mbx_profile_add_center(p, &c);
}

int mbx_profile_builder_finish(mbx_profile_builder *b, mbx_profile *p)
{
    char *done = calloc(b->n ? b->n : 1, 1);
    int rc = done ? MBX_OK : MBX_E_NOMEM;
    for (size_t i = 0; rc == MBX_OK && i < b->n; i++)
        if (!done[i])
            rc = class_entry(b, i, done, p);
    /* A center only where the point's class has an entry to judge by. */
    for (size_t i = 0; rc == MBX_OK && i < b->n; i++)
        if (mbx_profile_find(p, b->pt[i].bench, b->pt[i].procs, b->pt[i].bytes))
            rc = point_center(b, &b->pt[i], p);
    free(done);
    if (rc == MBX_OK)
        p->k = b->k;
    return rc;
}
