/* The results screen's columns (screens/rescols.h): the names it shows,
 * in order, and the looks of those that are not the results file's text
 * (a time in the screen's units, a mark, a head of its own). A column of
 * the results file (MBX_RESULT_COLUMNS) without a look is shown by its
 * name as the file writes it (docs/contributing.md, "Add a results
 * column"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/axis.h"
#include "mbx/ascii.h"
#include "mbx/levels.h"
#include "mbx/rowview.h"
#include "screens/rescols.h"

/* The screen's columns, in order. Status comes before the optional
 * columns so it stays visible on 80-100 column terminals. */
static const char *const shown[] = {
    "benchmark", "bytes",          "n",        "median_us",   "ci95",     "err",
    "status",    "ci_scope",       "plain_us", "overlap_pct", "procs",    "ranks",
    "root",      "param",          "refined",  "remeasured",  "probe_us", "invalid",
    "tmean_us",  "bandwidth_MBps", "events"};
#define NSHOWN (sizeof shown / sizeof *shown)
_Static_assert(NSHOWN <= MBX_EX_RESCOLS_MAX, "more names than the screen plans for");

/* The relative error of a row: between passes (the scheduler's rows),
 * else the stop rule's. */
static double row_err(const mbx_ex_point *p)
{
    const mbx_result *r = &p->r;
    if (r->passes)
        return r->s.median > 0 ? r->s.stderr_ / r->s.median : NAN;
    return mbx_stop_progress(&r->stop, &r->s);
}

/* A time in seconds, or "-" where the row has none (a HUNG or INVALID
 * row's numbers are empty, as in the CSV: docs/csv-format.md). */
static void seconds_text(const explorer *x, double v, char *buf, size_t len)
{
    if (isfinite(v))
        mbx_axis_format(v, MBX_AXIS_SECONDS, x->utf8, buf, (int)len);
    else
        snprintf(buf, len, "-");
}

static const char *bench_text(const mbx_ex_point *p)
{
    return p->r.benchmark;
}
static const char *ranks_text(const mbx_ex_point *p)
{
    return p->r.ranks;
}

static void bench_cell(const explorer *x, const mbx_ex_point *p, char *buf, size_t len)
{
    (void)x;
    snprintf(buf, len, "%s%s", p->r.benchmark, p->copy ? " #2" : "");
}

/* The size: exact below a million unless a multiple of 1 KiB (refined
 * sizes are often not round), "^" after a refined size. */
static void bytes_cell(const explorer *x, const mbx_ex_point *p, char *buf, size_t len)
{
    const mbx_result *r = &p->r;
    (void)x;
    if (r->bytes % 1024 == 0 || r->bytes >= 1000000)
        mbx_axis_format((double)r->bytes, MBX_AXIS_BYTES, 0, buf, (int)len);
    else
        snprintf(buf, len, "%llu", (unsigned long long)r->bytes);
    if (p->origin == EX_REF_SIZE && strlen(buf) + 1 < len)
        strcat(buf, "^");
}
static double bytes_key(const mbx_ex_point *p)
{
    return (double)p->bytes;
}

static void procs_cell(const explorer *x, const mbx_ex_point *p, char *buf, size_t len)
{
    (void)x;
    snprintf(buf, len, "%d%s", p->r.procs, p->origin == EX_REF_PROCS ? "^" : "");
}
static double procs_key(const mbx_ex_point *p)
{
    return p->procs;
}

static void n_cell(const explorer *x, const mbx_ex_point *p, char *buf, size_t len)
{
    (void)x;
    snprintf(buf, len, "%zu", p->r.s.n);
}
static double n_key(const mbx_ex_point *p)
{
    return (double)p->r.s.n;
}

static void median_cell(const explorer *x, const mbx_ex_point *p, char *buf, size_t len)
{
    seconds_text(x, p->r.s.median, buf, len);
}
static double median_key(const mbx_ex_point *p)
{
    return p->r.s.median;
}

static void tmean_cell(const explorer *x, const mbx_ex_point *p, char *buf, size_t len)
{
    seconds_text(x, p->r.s.tmean, buf, len);
}
static double tmean_key(const mbx_ex_point *p)
{
    return p->r.s.tmean;
}

static void plain_cell(const explorer *x, const mbx_ex_point *p, char *buf, size_t len)
{
    seconds_text(x, p->r.plain, buf, len);
}
static double plain_key(const mbx_ex_point *p)
{
    return p->r.plain;
}
static int plain_has(const mbx_result *r)
{
    return isfinite(r->plain);
}

/* ci95: the interval's two ends (ci95_lo_us, ci95_hi_us) as one cell;
 * "n/a, 2 levels" where the row has no interval to show (mbx/rowview.h). */
static void ci_cell(const explorer *x, const mbx_ex_point *p, char *buf, size_t len)
{
    char a[16], b[16];
    if (mbx_row_ci_na(p->r.status, p->r.levels, buf, len))
        return;
    seconds_text(x, p->r.s.ci_lo, a, sizeof a);
    seconds_text(x, p->r.s.ci_hi, b, sizeof b);
    if (isfinite(p->r.s.ci_lo) || isfinite(p->r.s.ci_hi))
        snprintf(buf, len, "[%s, %s]", a, b);
    else
        snprintf(buf, len, "-");
}
static double ci_key(const mbx_ex_point *p)
{
    return p->r.s.ci_hi - p->r.s.ci_lo;
}

/* err: stderr_us over median_us between passes, else the stop rule's. */
static void err_cell(const explorer *x, const mbx_ex_point *p, char *buf, size_t len)
{
    double e = row_err(p);
    char na[32];
    (void)x;
    if (mbx_row_ci_na(p->r.status, p->r.levels, na, sizeof na))
        snprintf(buf, len, "n/a");
    else if ((!p->r.passes && p->r.stop.kind == MBX_STOP_FIXED) || !isfinite(e))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.2f%%", 100 * e);
}

static void status_cell(const explorer *x, const mbx_ex_point *p, char *buf, size_t len)
{
    (void)x;
    snprintf(buf, len, "%s", mbx_point_status_name(p->r.status));
}
/* Settled or fixed is good news, unsettled or shifted a warning, the
 * rest an error. */
static int status_role(const mbx_result *r)
{
    return r->status == MBX_POINT_SETTLED || r->status == MBX_POINT_FIXED       ? MBX_ROLE_OK
           : r->status == MBX_POINT_UNSETTLED || r->status == MBX_POINT_SHIFTED ? MBX_ROLE_WARNING
                                                                                : MBX_ROLE_ERROR;
}

/* again and probe_us: a warning on a point measured a second time. */
static int again_role(const mbx_result *r)
{
    return r->remeasured ? MBX_ROLE_WARNING : MBX_ROLE_NORMAL;
}

static double status_key(const mbx_ex_point *p)
{
    return p->r.status;
}

/* overlap.*: OSU's formula (mbx_overlap_pct). */
static void overlap_cell(const explorer *x, const mbx_ex_point *p, char *buf, size_t len)
{
    double pct = mbx_overlap_pct(p->r.s.median, p->r.compute, p->r.plain);
    (void)x;
    if (p->r.overlap && isfinite(pct))
        snprintf(buf, len, "%.1f", pct);
    else
        snprintf(buf, len, "-");
}
static double overlap_key(const mbx_ex_point *p)
{
    return mbx_overlap_pct(p->r.s.median, p->r.compute, p->r.plain);
}
static int overlap_has(const mbx_result *r)
{
    return r->overlap;
}

static void root_cell(const explorer *x, const mbx_ex_point *p, char *buf, size_t len)
{
    (void)x;
    if (p->r.root >= 0)
        snprintf(buf, len, "%d", p->r.root);
    else
        snprintf(buf, len, "-");
}
static double root_key(const mbx_ex_point *p)
{
    return p->r.root;
}
static int root_has(const mbx_result *r)
{
    return r->root >= 0;
}

/* param: its head is the parameter's name ("pieces", ex_results.c). */
static void param_cell(const explorer *x, const mbx_ex_point *p, char *buf, size_t len)
{
    (void)x;
    if (p->r.param_name)
        snprintf(buf, len, "%lld", (long long)p->r.param);
    else
        snprintf(buf, len, "-");
}
static double param_key(const mbx_ex_point *p)
{
    return p->r.param_name ? (double)p->r.param : -1;
}
static int param_has(const mbx_result *r)
{
    return r->param_name != NULL;
}

/* A yes/blank column of a result flag: its cell, its sort key and whether
 * a row has it. refined: a point refinement added; again: measured a
 * second time (the machine changed level). */
#define FLAG_COLUMN(name, field)                                                                   \
    static void name##_cell(const explorer *x, const mbx_ex_point *p, char *buf, size_t len)       \
    {                                                                                              \
        (void)x;                                                                                   \
        snprintf(buf, len, "%s", p->r.field ? "yes" : "");                                         \
    }                                                                                              \
    static double name##_key(const mbx_ex_point *p)                                                \
    {                                                                                              \
        return p->r.field;                                                                         \
    }                                                                                              \
    static int name##_has(const mbx_result *r)                                                     \
    {                                                                                              \
        return r->field;                                                                           \
    }
FLAG_COLUMN(refined, refined)
FLAG_COLUMN(again, remeasured)

/* The monitor's probe in microseconds, before > after when the two lie
 * on different levels. */
static void probe_cell(const explorer *x, const mbx_ex_point *p, char *buf, size_t len)
{
    const mbx_result *r = &p->r;
    (void)x;
    if (!isfinite(r->probe))
        snprintf(buf, len, "-");
    else if (mbx_levels_shifted(r->probe, r->probe_after, &(mbx_levels_opts){0}))
        snprintf(buf, len, "%.2f>%.2f", r->probe * 1e6, r->probe_after * 1e6);
    else
        snprintf(buf, len, "%.2f", r->probe * 1e6);
}
static double probe_key(const mbx_ex_point *p)
{
    return p->r.probe_after;
}
static int probe_has(const mbx_result *r)
{
    return isfinite(r->probe);
}

/* A count column of a result: its cell, its sort key and whether a row
 * has a non-zero count. invalid: observations left out; events: those
 * 100x the median, left out. */
#define COUNT_COLUMN(name, field)                                                                  \
    static void name##_cell(const explorer *x, const mbx_ex_point *p, char *buf, size_t len)       \
    {                                                                                              \
        (void)x;                                                                                   \
        snprintf(buf, len, "%zu", p->r.field);                                                     \
    }                                                                                              \
    static double name##_key(const mbx_ex_point *p)                                                \
    {                                                                                              \
        return (double)p->r.field;                                                                 \
    }                                                                                              \
    static int name##_has(const mbx_result *r)                                                     \
    {                                                                                              \
        return r->field != 0;                                                                      \
    }
COUNT_COLUMN(invalid, invalid)
COUNT_COLUMN(events, events)

static void bw_cell(const explorer *x, const mbx_ex_point *p, char *buf, size_t len)
{
    double bw = mbx_result_bandwidth(&p->r);
    (void)x;
    if (isfinite(bw))
        mbx_axis_format(bw, MBX_AXIS_MBPS, 0, buf, (int)len);
    else
        snprintf(buf, len, "-");
}
static double bw_key(const mbx_ex_point *p)
{
    return mbx_result_bandwidth(&p->r);
}

/* ci_scope: shown when a machine profile widened a row (the run's message
 * line named it); without one every interval is the launch's. */
static void scope_cell(const explorer *x, const mbx_ex_point *p, char *buf, size_t len)
{
    (void)x;
    snprintf(buf, len, "%s", p->r.ci_scope == MBX_SCOPE_PROFILE ? "profile" : "launch");
}
static double scope_key(const mbx_ex_point *p)
{
    return (double)p->r.ci_scope;
}
static int scope_has(const mbx_result *r)
{
    return r->ci_scope == MBX_SCOPE_PROFILE;
}

/* The looks: name, head, width, csv, cell, key, text, has, role. csv is
 * 0 for a column of the file (its index is looked up by name) and -1 for
 * a display entry (ci95, err), which names no column of the file; its
 * cell reads the columns its comment names. */
static const mbx_ex_rescol looks[] = {
    {"benchmark", "benchmark", 19, 0, bench_cell, NULL, bench_text, NULL, NULL},
    {"bytes", "bytes", 6, 0, bytes_cell, bytes_key, NULL, NULL, NULL},
    {"n", "n", 5, 0, n_cell, n_key, NULL, NULL, NULL},
    {"median_us", "median", 8, 0, median_cell, median_key, NULL, NULL, NULL},
    {"ci95", "ci95", 16, -1, ci_cell, ci_key, NULL, NULL, NULL},
    {"err", "err", 6, -1, err_cell, row_err, NULL, NULL, NULL},
    {"status", "status", 10, 0, status_cell, status_key, NULL, NULL, status_role},
    {"ci_scope", "scope", 7, 0, scope_cell, scope_key, NULL, scope_has, NULL},
    {"plain_us", "plain", 8, 0, plain_cell, plain_key, NULL, plain_has, NULL},
    {"overlap_pct", "overlap%", 8, 0, overlap_cell, overlap_key, NULL, overlap_has, NULL},
    {"procs", "procs", 5, 0, procs_cell, procs_key, NULL, NULL, NULL},
    {"ranks", "ranks", 7, 0, NULL, NULL, ranks_text, NULL, NULL},
    {"root", "root", 4, 0, root_cell, root_key, NULL, root_has, NULL},
    {"param", "param", 8, 0, param_cell, param_key, NULL, param_has, NULL},
    {"refined", "refined", 7, 0, refined_cell, refined_key, NULL, refined_has, NULL},
    {"remeasured", "again", 5, 0, again_cell, again_key, NULL, again_has, again_role},
    {"probe_us", "probe_us", 9, 0, probe_cell, probe_key, NULL, probe_has, again_role},
    {"invalid", "invalid", 7, 0, invalid_cell, invalid_key, NULL, invalid_has, NULL},
    {"tmean_us", "tmean", 8, 0, tmean_cell, tmean_key, NULL, NULL, NULL},
    {"bandwidth_MBps", "MB/s", 7, 0, bw_cell, bw_key, NULL, NULL, NULL},
    {"events", "events", 6, 0, events_cell, events_key, NULL, events_has, NULL},
};

static mbx_ex_rescol cols[NSHOWN];
static size_t ncols;

/* Each name shown: its look, else the file's column as written. A name
 * neither is a mistake in the list above: the screen cannot show it. */
static void resolve(void)
{
    for (size_t i = 0; i < NSHOWN; i++) {
        const mbx_ex_rescol *lk = NULL;
        for (size_t j = 0; j < sizeof looks / sizeof *looks && !lk; j++)
            if (strcmp(looks[j].name, shown[i]) == 0)
                lk = &looks[j];
        int csv = mbx_result_col(shown[i]);
        if (lk && lk->csv < 0) { /* a display entry */
            cols[i] = *lk;
            continue;
        }
        if (csv < 0)
            abort(); /* not a column of MBX_RESULT_COLUMNS */
        if (lk) {
            cols[i] = *lk;
        } else {
            size_t w = strlen(shown[i]);
            cols[i] = (mbx_ex_rescol){.name = shown[i], .head = shown[i], .w = w > 8 ? (int)w : 8};
        }
        cols[i].csv = csv;
    }
    ncols = NSHOWN;
}

size_t mbx_ex_rescols(const mbx_ex_rescol **out)
{
    if (!ncols)
        resolve();
    *out = cols;
    return ncols;
}

int mbx_ex_rescol_find(const char *name)
{
    const mbx_ex_rescol *c;
    size_t n = mbx_ex_rescols(&c);
    for (size_t k = 0; k < n; k++)
        if (strcmp(c[k].name, name) == 0)
            return (int)k;
    return -1;
}

/* The results file's text of column csv for r. */
static void file_text(const mbx_result *r, int csv, char *buf, size_t len)
{
    mbx_result_fields f;
    mbx_result_format(r, &f);
    snprintf(buf, len, "%s", f.field[csv]);
}

void mbx_ex_rescol_text(const explorer *x, const mbx_ex_point *p, int k, char *buf, size_t len)
{
    const mbx_ex_rescol *c;
    if ((size_t)k >= mbx_ex_rescols(&c)) {
        buf[0] = '\0';
        return;
    }
    if (c[k].cell)
        c[k].cell(x, p, buf, len);
    else if (c[k].text)
        snprintf(buf, len, "%s", c[k].text(p));
    else
        file_text(&p->r, c[k].csv, buf, len);
}

int mbx_ex_rescol_has(int k, const mbx_result *r)
{
    const mbx_ex_rescol *c;
    mbx_ex_rescols(&c);
    if (c[k].has)
        return c[k].has(r);
    if (c[k].cell || c[k].text)
        return 1;
    char t[MBX_RESULT_FIELD_MAX];
    file_text(r, c[k].csv, t, sizeof t);
    return t[0] != '\0';
}

int mbx_ex_rescol_role(int k, const mbx_result *r)
{
    const mbx_ex_rescol *c;
    mbx_ex_rescols(&c);
    return c[k].role ? c[k].role(r) : MBX_ROLE_NORMAL;
}

static int number(const char *s, double *v)
{
    char *end;
    *v = mbx_strtod(s, &end);
    return *s && *end == '\0';
}

int mbx_ex_rescol_cmp(int k, const mbx_ex_point *p, const mbx_ex_point *q)
{
    const mbx_ex_rescol *c;
    mbx_ex_rescols(&c);
    double u, v;
    if (c[k].text)
        return strcmp(c[k].text(p), c[k].text(q));
    if (c[k].key) {
        u = c[k].key(p);
        v = c[k].key(q);
    } else {
        char a[MBX_RESULT_FIELD_MAX], b[MBX_RESULT_FIELD_MAX];
        file_text(&p->r, c[k].csv, a, sizeof a);
        file_text(&q->r, c[k].csv, b, sizeof b);
        if (!number(a, &u) || !number(b, &v))
            return strcmp(a, b);
    }
    return isnan(u) ? (isnan(v) ? 0 : 1) : isnan(v) ? -1 : (u > v) - (u < v);
}
