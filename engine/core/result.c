#include "mbx/result.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mbx/ascii.h"
#include "mbx/csvio.h"
#include "msg.h"

const char *const mbx_obs_columns[MBX_OBS_NCOLS] = {"benchmark", "procs", "bytes", "obs", "time_us",
                                                    "label",     "root",  "param", "pass"};

const char *mbx_point_status_name(mbx_point_status s)
{
    switch (s) {
    case MBX_POINT_SETTLED: return "SETTLED";
    case MBX_POINT_UNSETTLED: return "UNSETTLED";
    case MBX_POINT_UNRELIABLE: return "UNRELIABLE";
    case MBX_POINT_SHIFTED: return "SHIFTED";
    case MBX_POINT_INVALID: return "INVALID";
    case MBX_POINT_FIXED: return "FIXED";
    case MBX_POINT_HUNG: return "HUNG";
    }
    return "?";
}

int mbx_point_status_parse(const char *name, mbx_point_status *out)
{
    for (int i = 0; i < MBX_POINT_STATUS_COUNT; i++)
        if (name && strcmp(name, mbx_point_status_name((mbx_point_status)i)) == 0) {
            *out = (mbx_point_status)i;
            return 1;
        }
    return 0;
}

const char *mbx_sync_name(mbx_sync_kind k)
{
    return k == MBX_SYNC_WINDOW ? "window" : "barrier";
}

const char *mbx_cache_name(mbx_cache_mode m)
{
    return m == MBX_CACHE_COLD ? "cold" : "warm";
}

double mbx_result_bandwidth(const mbx_result *r)
{
    uint64_t b = r->moved ? r->moved : r->bytes;
    if (b == 0 || !(r->s.median > 0) || r->status == MBX_POINT_UNRELIABLE ||
        r->status == MBX_POINT_INVALID)
        return NAN;
    return (double)b / r->s.median / 1e6;
}

double mbx_result_msg_rate(const mbx_result *r)
{
    if (r->msgs == 0 || !(r->s.median > 0) || r->status == MBX_POINT_UNRELIABLE ||
        r->status == MBX_POINT_INVALID)
        return NAN;
    return (double)r->msgs / r->s.median;
}

mbx_point_status mbx_point_judge(const mbx_summary *s, size_t events, mbx_stop_verdict verdict,
                                 double res)
{
    /* "Not positive" alone let 4.5e-13 s through as a time: a corrected
     * value under one tick is the correction's noise, not the operation. */
    if (!(s->median > 0) || !(s->median >= res))
        return MBX_POINT_UNRELIABLE;
    /* A correction larger than a quarter of the observations (or than
     * their mean) is no correction of this operation either. */
    if (s->q1 < 0 || s->tmean < 0 || s->mean < 0)
        return MBX_POINT_UNRELIABLE;
    if (events > 0 || verdict != MBX_STOP_MET)
        return MBX_POINT_UNSETTLED;
    return MBX_POINT_SETTLED;
}

void mbx_result_take_passes(mbx_result *r, const mbx_passes_result *p, size_t passes)
{
    r->iid_stderr = r->s.stderr_;
    r->iid_ci_lo = r->s.ci_lo;
    r->iid_ci_hi = r->s.ci_hi;
    r->s.median = p->b.value;
    r->s.stderr_ = p->b.se;
    r->s.ci_lo = p->b.ci_lo > 0 ? p->b.ci_lo : 0.0;
    r->s.ci_hi = p->b.ci_hi;
    r->s.ci_exact = p->b.ci_exact;
    r->passes = passes;
    r->pass_span = p->span;
}

void mbx_summary_drop_negative(mbx_summary *s)
{
    /* The CI cut to where a time can be still holds what it held. */
    if (s->ci_lo < 0 && s->ci_hi >= 0)
        s->ci_lo = 0;
    mbx_quantile *q[] = {&s->p90, &s->p99};
    for (size_t i = 0; i < 2; i++)
        if (q[i]->ci_lo < 0 && q[i]->ci_hi >= 0)
            q[i]->ci_lo = 0;
    double *f[] = {&s->mean,      &s->tmean,     &s->median,    &s->min,       &s->max,
                   &s->q1,        &s->q3,        &s->ci_lo,     &s->ci_hi,     &s->p90.value,
                   &s->p90.ci_lo, &s->p90.ci_hi, &s->p99.value, &s->p99.ci_lo, &s->p99.ci_hi};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        if (*f[i] < 0)
            *f[i] = NAN;
}

void mbx_obs_format_us(double seconds, char *buf, size_t len)
{
    /* + 0.0 turns -0.0 into 0.0, which would print as "-0.0000". */
    mbx_snprintf_c(buf, len, "%.4f", seconds > 0 ? seconds * 1e6 + 0.0 : 0.0);
}

double mbx_overlap_pct(double overall, double compute, double pure)
{
    if (!isfinite(overall) || !isfinite(compute) || !isfinite(pure) || !(pure > 0) || overall < 0 ||
        compute < 0)
        return NAN;
    double f = 1.0 - (overall - compute) / pure;
    return 100.0 * fmin(1.0, fmax(0.0, f));
}

/* The field texts: each formatter returns its field, written into buf
 * (MBX_RESULT_FIELD_MAX bytes) or a string of r's or a constant; "" for
 * an undefined value. */
typedef const char *(*col_fn)(const mbx_result *r, char *buf);

/* Microseconds with 0.1 ns resolution; undefined values stay empty, and
 * so do negative ones (mbx_summary_drop_negative): no time is negative. */
static const char *us(char *buf, double seconds)
{
    if (!(isfinite(seconds) && seconds >= 0))
        return "";
    mbx_snprintf_c(buf, MBX_RESULT_FIELD_MAX, "%.4f", seconds * 1e6 + 0.0);
    return buf;
}

static const char *u(char *buf, unsigned long long v)
{
    snprintf(buf, MBX_RESULT_FIELD_MAX, "%llu", v);
    return buf;
}

/* A number in C's notation whatever the locale; "" when not finite. */
static const char *fixed(char *buf, const char *fmt, double v)
{
    if (!isfinite(v))
        return "";
    mbx_snprintf_c(buf, MBX_RESULT_FIELD_MAX, fmt, v);
    return buf;
}

static const char *text(const char *s)
{
    return s ? s : "";
}

/* One line per column that is a plain field of r: a time, a count, a
 * string, and the pass columns (empty for a point measured in one go). */
#define COL_US(fn, expr)                                                                           \
    static const char *fn(const mbx_result *r, char *b)                                            \
    {                                                                                              \
        return us(b, expr);                                                                        \
    }
#define COL_U(fn, expr)                                                                            \
    static const char *fn(const mbx_result *r, char *b)                                            \
    {                                                                                              \
        return u(b, (unsigned long long)(expr));                                                   \
    }
#define COL_TEXT(fn, expr)                                                                         \
    static const char *fn(const mbx_result *r, char *b)                                            \
    {                                                                                              \
        (void)b;                                                                                   \
        return text(expr);                                                                         \
    }
#define COL_PASS_US(fn, expr)                                                                      \
    static const char *fn(const mbx_result *r, char *b)                                            \
    {                                                                                              \
        return r->passes ? us(b, expr) : "";                                                       \
    }
#define COL_LEVEL_US(fn, expr)                                                                     \
    static const char *fn(const mbx_result *r, char *b)                                            \
    {                                                                                              \
        return r->passes && r->levels > 0 ? us(b, expr) : "";                                      \
    }
#define COL_OVERLAP_US(fn, expr)                                                                   \
    static const char *fn(const mbx_result *r, char *b)                                            \
    {                                                                                              \
        return r->overlap ? us(b, expr) : "";                                                      \
    }

COL_TEXT(col_benchmark, r->benchmark)
COL_U(col_procs, r->procs)
COL_U(col_bytes, r->bytes)
COL_U(col_n, r->s.n)
COL_US(col_mean, r->s.mean)
COL_US(col_tmean, r->s.tmean)
COL_US(col_median, r->s.median)
COL_US(col_min, r->s.min)
COL_US(col_max, r->s.max)
COL_US(col_q1, r->s.q1)
COL_US(col_q3, r->s.q3)
COL_US(col_stddev, r->s.stddev)
COL_US(col_stderr, r->s.stderr_)
COL_US(col_ci_lo, r->s.ci_lo)
COL_US(col_ci_hi, r->s.ci_hi)
COL_U(col_outliers, r->s.outliers)
COL_TEXT(col_status, mbx_point_status_name(r->status))
COL_TEXT(col_timing, r->timing)
COL_US(col_overhead, r->overhead)
COL_U(col_nmin, r->nmin)
COL_U(col_nmax, r->nmax)
COL_U(col_batches, r->batches)
COL_TEXT(col_label, r->label)
COL_TEXT(col_op, r->op)
COL_TEXT(col_param_name, r->param_name)
COL_TEXT(col_refined, r->refined ? "1" : "0")
COL_TEXT(col_validated, r->validated ? "yes" : "no")
COL_TEXT(col_sync, mbx_sync_name(r->sync))
COL_TEXT(col_clock_sync, r->sync == MBX_SYNC_WINDOW ? r->clock_sync : NULL)
COL_TEXT(col_cache, mbx_cache_name(r->cache))
COL_U(col_invalid, r->invalid)
COL_US(col_probe, r->probe)
COL_US(col_probe_after, r->probe_after)
COL_TEXT(col_remeasured, r->remeasured ? "1" : "0")
COL_US(col_plain, r->plain)
COL_U(col_events, r->events)
COL_U(col_faults, r->faults)
COL_PASS_US(col_iid_stderr, r->iid_stderr)
COL_PASS_US(col_iid_ci_lo, r->iid_ci_lo)
COL_PASS_US(col_iid_ci_hi, r->iid_ci_hi)
COL_LEVEL_US(col_level_lo, r->level_lo)
COL_LEVEL_US(col_level_hi, r->level_hi)
COL_TEXT(col_rma_sync, r->rma_sync)
COL_OVERLAP_US(col_pure_comm, r->plain)
COL_OVERLAP_US(col_compute, r->compute)
COL_OVERLAP_US(col_overall, r->s.median)

static const char *col_stop_rule(const mbx_result *r, char *b)
{
    mbx_stop_format(&r->stop, b, MBX_RESULT_FIELD_MAX);
    return b;
}

static const char *col_bandwidth(const mbx_result *r, char *b)
{
    return fixed(b, "%.3f", mbx_result_bandwidth(r));
}

static const char *col_wall(const mbx_result *r, char *b)
{
    mbx_snprintf_c(b, MBX_RESULT_FIELD_MAX, "%.6f", r->wall);
    return b;
}

static const char *col_root(const mbx_result *r, char *b)
{
    return r->root >= 0 ? u(b, (unsigned long long)r->root) : "";
}

static const char *col_param(const mbx_result *r, char *b)
{
    if (r->param_name == NULL)
        return "";
    snprintf(b, MBX_RESULT_FIELD_MAX, "%lld", (long long)r->param);
    return b;
}

static const char *col_ranks(const mbx_result *r, char *b)
{
    snprintf(b, MBX_RESULT_FIELD_MAX, "%s", r->ranks);
    return b;
}

static const char *col_passes(const mbx_result *r, char *b)
{
    return r->passes ? u(b, (unsigned long long)r->passes) : "";
}

static const char *col_pass_span(const mbx_result *r, char *b)
{
    return r->passes ? fixed(b, "%.6f", r->pass_span) : "";
}

static const char *col_levels(const mbx_result *r, char *b)
{
    return r->passes && r->levels > 0 ? u(b, (unsigned long long)r->levels) : "";
}

static const char *col_seq(const mbx_result *r, char *b)
{
    return r->seq > 0 ? u(b, (unsigned long long)r->seq) : "";
}

static const char *col_status_reason(const mbx_result *r, char *b)
{
    if (r->status == MBX_POINT_SETTLED)
        return "";
    snprintf(b, MBX_RESULT_FIELD_MAX, "%s", r->status_reason);
    return b;
}

static const char *col_msg_rate(const mbx_result *r, char *b)
{
    return fixed(b, "%.1f", mbx_result_msg_rate(r));
}

static const char *col_overlap_pct(const mbx_result *r, char *b)
{
    return r->overlap ? fixed(b, "%.2f", mbx_overlap_pct(r->s.median, r->compute, r->plain) + 0.0)
                      : "";
}

/* What the row's interval covers (docs/csv-format.md, ci_scope): a row
 * with one has this launch's passes (or observations) as its units, unless
 * a machine profile widened it (mbx/profile.h). */
static const char *col_ci_scope(const mbx_result *r, char *b)
{
    (void)b;
    int lo = isfinite(r->s.ci_lo) && r->s.ci_lo >= 0, hi = isfinite(r->s.ci_hi) && r->s.ci_hi >= 0;
    if (!(lo && hi))
        return "";
    return r->ci_scope == MBX_SCOPE_PROFILE ? "profile" : "launch";
}

/* The prediction interval for another launch: only a profile gives one. */
COL_US(col_pi_lo, r->ci_scope == MBX_SCOPE_PROFILE ? r->pi_lo : NAN)
COL_US(col_pi_hi, r->ci_scope == MBX_SCOPE_PROFILE ? r->pi_hi : NAN)

/* This launch against its machine profile's launches (0: no center). */
static const char *col_profile_ratio(const mbx_result *r, char *b)
{
    return r->profile_ratio > 0 && isfinite(r->profile_ratio) ? fixed(b, "%.4f", r->profile_ratio)
                                                              : "";
}

/* The launch-scoped err: before a profile widened stderr_us. */
COL_US(col_stderr_launch, r->ci_scope == MBX_SCOPE_PROFILE ? r->launch_err : r->s.stderr_)

/* A persistent operation's MPI_*_init, once per pass (NAN or 0: none). */
static const char *col_setup(const mbx_result *r, char *b)
{
    return r->setup > 0 ? us(b, r->setup) : "";
}

COL_TEXT(col_topology, r->topology)
COL_TEXT(col_src_host, r->src_host)
COL_TEXT(col_dst_host, r->dst_host)

/* part.*: the set-up rounds' figures (NAN or 0: none). */
static const char *col_perceived(const mbx_result *r, char *b)
{
    uint64_t moved = r->moved ? r->moved : r->bytes;
    return r->part_seen > 0 && moved > 0 ? fixed(b, "%.3f", (double)moved / r->part_seen / 1e6)
                                         : "";
}

static const char *col_part_overhead(const mbx_result *r, char *b)
{
    return r->part_ratio > 0 ? fixed(b, "%.2f", 100.0 * (r->part_ratio - 1.0) + 0.0) : "";
}

static const char *col_early_bird(const mbx_result *r, char *b)
{
    return r->part_early >= 0 && r->part_seen > 0 ? fixed(b, "%.1f", 100.0 * r->part_early + 0.0)
                                                  : "";
}

/* A share of the run's time at a level (0: unknown, empty). */
static const char *share(const mbx_result *r, double v, char *b)
{
    return r->passes && r->levels > 0 && v > 0 && v <= 1 ? fixed(b, "%.3f", v) : "";
}

static const char *col_level_share_lo(const mbx_result *r, char *b)
{
    return share(r, r->level_share_lo, b);
}

static const char *col_level_share_hi(const mbx_result *r, char *b)
{
    return share(r, r->level_share_hi, b);
}

/* The tail percentiles (docs/csv-format.md, p90_us ...; mbx/quantile.h):
 * of the pooled observations the summary was made from. need 0 marks a
 * summary that never saw them (an INVALID or HUNG row's, or one zeroed),
 * and so does n 0. */
static const mbx_quantile *tail(const mbx_result *r, int p99)
{
    const mbx_quantile *q = p99 ? &r->s.p99 : &r->s.p90;
    return r->s.n > 0 && q->need > 0 && isfinite(q->value) ? q : NULL;
}

#define COL_TAIL_US(fn, p99, field)                                                                \
    static const char *fn(const mbx_result *r, char *b)                                            \
    {                                                                                              \
        const mbx_quantile *q = tail(r, p99);                                                      \
        return q ? us(b, q->field) : "";                                                           \
    }
COL_TAIL_US(col_p90, 0, value)
COL_TAIL_US(col_p90_lo, 0, ci_lo)
COL_TAIL_US(col_p90_hi, 0, ci_hi)
COL_TAIL_US(col_p99, 1, value)
COL_TAIL_US(col_p99_lo, 1, ci_lo)
COL_TAIL_US(col_p99_hi, 1, ci_hi)

/* Whose quantiles they are: this job's observations, as if independent. */
static const char *col_tail_scope(const mbx_result *r, char *b)
{
    (void)b;
    return tail(r, 0) || tail(r, 1) ? "observations-of-one-job" : "";
}

/* Why an interval is empty where its percentile is not. */
static int no_ci(const mbx_quantile *q)
{
    return q && !(isfinite(q->ci_lo) && isfinite(q->ci_hi));
}

static const char *col_tail_reason(const mbx_result *r, char *b)
{
    const mbx_quantile *q90 = tail(r, 0), *q99 = tail(r, 1);
    if (no_ci(q90) && no_ci(q99) && q90->lo == 0 && q99->lo == 0)
        mbx_msgf(b, MBX_RESULT_FIELD_MAX, "n too small for P90 (>= %zu) and P99 (>= %zu)",
                 q90->need, q99->need);
    else if (no_ci(q99) && q99->lo == 0)
        mbx_msgf(b, MBX_RESULT_FIELD_MAX, "n too small for P99: needs >= %zu observations",
                 q99->need);
    else if (no_ci(q90) && q90->lo == 0)
        mbx_msgf(b, MBX_RESULT_FIELD_MAX, "n too small for P90: needs >= %zu observations",
                 q90->need);
    else
        return "";
    return b;
}

#define COL_ENTRY_(id, name, unit, since, readers, fmt) {name, unit, since, readers},
const mbx_result_column mbx_result_cols[MBX_RESULT_NCOLS] = {MBX_RESULT_COLUMNS(COL_ENTRY_)};

#define COL_NAME_(id, name, unit, since, readers, fmt) name,
const char *const mbx_result_columns[MBX_RESULT_NCOLS] = {MBX_RESULT_COLUMNS(COL_NAME_)};

#define COL_FN_(id, name, unit, since, readers, fmt) fmt,
static const col_fn col_format[MBX_RESULT_NCOLS] = {MBX_RESULT_COLUMNS(COL_FN_)};

int mbx_result_col(const char *name)
{
    for (int c = 0; name != NULL && c < MBX_RESULT_NCOLS; c++)
        if (strcmp(mbx_result_cols[c].name, name) == 0)
            return c;
    return -1;
}

size_t mbx_result_required(unsigned reader, const char **names, size_t max)
{
    size_t n = 0;
    for (int c = 0; c < MBX_RESULT_NCOLS; c++)
        if (mbx_result_cols[c].readers & reader) {
            if (n < max)
                names[n] = mbx_result_cols[c].name;
            n++;
        }
    return n;
}

const char *mbx_result_find_cols(const char *const *hdr, size_t n, unsigned reader,
                                 int col[MBX_RESULT_NCOLS])
{
    const char *missing = NULL;
    for (int c = 0; c < MBX_RESULT_NCOLS; c++) {
        col[c] = mbx_csv_col(hdr, n, mbx_result_cols[c].name);
        if (col[c] < 0 && (mbx_result_cols[c].readers & reader) && missing == NULL)
            missing = mbx_result_cols[c].name;
    }
    return missing;
}

void mbx_result_format(const mbx_result *r, mbx_result_fields *o)
{
    memset(o, 0, sizeof *o);
    for (int c = 0; c < MBX_RESULT_NCOLS; c++)
        o->field[c] = col_format[c](r, o->store[c]);
}
