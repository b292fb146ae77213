#include "mbx/result.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mbx/ascii.h"

const char *const mbx_result_columns[MBX_RESULT_NCOLS] = {
    "benchmark",     "procs",          "bytes",          "n",
    "mean_us",       "tmean_us",       "median_us",      "min_us",
    "max_us",        "q1_us",          "q3_us",          "stddev_us",
    "stderr_us",     "ci95_lo_us",     "ci95_hi_us",     "outliers",
    "status",        "stop_rule",      "bandwidth_MBps", "timing",
    "overhead_us",   "nmin",           "nmax",           "batches",
    "wall_s",        "label",          "root",           "op",
    "param",         "param_name",     "ranks",          "refined",
    "validated",     "sync",           "clock_sync",     "cache",
    "invalid",       "probe_us",       "probe_after_us", "remeasured",
    "plain_us",      "events",         "faults",         "passes",
    "pass_span_s",   "stderr_iid_us",  "ci95_iid_lo_us", "ci95_iid_hi_us",
    "levels",        "level_lo_us",    "level_hi_us",    "seq",
    "status_reason", "msg_rate_per_s", "rma_sync",       "pure_comm_us",
    "compute_us",    "overall_us",     "overlap_pct",
};

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

void mbx_summary_drop_negative(mbx_summary *s)
{
    /* The CI cut to where a time can be still holds what it held. */
    if (s->ci_lo < 0 && s->ci_hi >= 0)
        s->ci_lo = 0;
    double *f[] = {&s->mean, &s->tmean, &s->median, &s->min,  &s->max,
                   &s->q1,   &s->q3,    &s->ci_lo,  &s->ci_hi};
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

/* Microseconds with 0.1 ns resolution; undefined values stay empty, and
 * so do negative ones (mbx_summary_drop_negative): no time is negative. */
static void put_us(mbx_result_fields *o, int i, double seconds)
{
    if (isfinite(seconds) && seconds >= 0) {
        mbx_snprintf_c(o->store[i], sizeof o->store[i], "%.4f", seconds * 1e6 + 0.0);
        o->field[i] = o->store[i];
    } else {
        o->field[i] = "";
    }
}

static void put_u(mbx_result_fields *o, int i, unsigned long long v)
{
    snprintf(o->store[i], sizeof o->store[i], "%llu", v);
    o->field[i] = o->store[i];
}

/* The overlap columns (the row's last four): empty unless r->overlap. */
static void put_overlap(const mbx_result *r, mbx_result_fields *o)
{
    if (!r->overlap)
        return;
    int c = MBX_RESULT_OVERLAP_COL;
    put_us(o, c, r->plain);
    put_us(o, c + 1, r->compute);
    put_us(o, c + 2, r->s.median);
    double pct = mbx_overlap_pct(r->s.median, r->compute, r->plain);
    if (isfinite(pct)) {
        mbx_snprintf_c(o->store[c + 3], sizeof o->store[c + 3], "%.2f", pct + 0.0);
        o->field[c + 3] = o->store[c + 3];
    }
}

/* One statement per column, in the order of mbx_result_columns: a flat
 * table over 80 lines, kept whole so each index reads against the column
 * list in one place. */
void mbx_result_format(const mbx_result *r, mbx_result_fields *o)
{
    memset(o, 0, sizeof *o);
    o->field[0] = r->benchmark;
    put_u(o, 1, (unsigned long long)r->procs);
    put_u(o, 2, (unsigned long long)r->bytes);
    put_u(o, 3, (unsigned long long)r->s.n);
    put_us(o, 4, r->s.mean);
    put_us(o, 5, r->s.tmean);
    put_us(o, 6, r->s.median);
    put_us(o, 7, r->s.min);
    put_us(o, 8, r->s.max);
    put_us(o, 9, r->s.q1);
    put_us(o, 10, r->s.q3);
    put_us(o, 11, r->s.stddev);
    put_us(o, 12, r->s.stderr_);
    put_us(o, 13, r->s.ci_lo);
    put_us(o, 14, r->s.ci_hi);
    put_u(o, 15, (unsigned long long)r->s.outliers);
    o->field[16] = mbx_point_status_name(r->status);
    mbx_stop_format(&r->stop, o->store[17], sizeof o->store[17]);
    o->field[17] = o->store[17];
    double bw = mbx_result_bandwidth(r);
    if (isfinite(bw)) {
        mbx_snprintf_c(o->store[18], sizeof o->store[18], "%.3f", bw);
        o->field[18] = o->store[18];
    } else {
        o->field[18] = "";
    }
    o->field[19] = r->timing;
    put_us(o, 20, r->overhead);
    put_u(o, 21, (unsigned long long)r->nmin);
    put_u(o, 22, (unsigned long long)r->nmax);
    put_u(o, 23, (unsigned long long)r->batches);
    mbx_snprintf_c(o->store[24], sizeof o->store[24], "%.6f", r->wall);
    o->field[24] = o->store[24];
    o->field[25] = r->label ? r->label : "";
    if (r->root >= 0)
        put_u(o, 26, (unsigned long long)r->root);
    else
        o->field[26] = "";
    o->field[27] = r->op ? r->op : "";
    if (r->param_name) {
        snprintf(o->store[28], sizeof o->store[28], "%lld", (long long)r->param);
        o->field[28] = o->store[28];
        o->field[29] = r->param_name;
    } else {
        o->field[28] = o->field[29] = "";
    }
    snprintf(o->store[30], sizeof o->store[30], "%s", r->ranks);
    o->field[30] = o->store[30];
    o->field[31] = r->refined ? "1" : "0";
    o->field[32] = r->validated ? "yes" : "no";
    o->field[33] = mbx_sync_name(r->sync);
    o->field[34] = r->sync == MBX_SYNC_WINDOW && r->clock_sync ? r->clock_sync : "";
    o->field[35] = mbx_cache_name(r->cache);
    put_u(o, 36, (unsigned long long)r->invalid);
    put_us(o, 37, r->probe);
    put_us(o, 38, r->probe_after);
    o->field[39] = r->remeasured ? "1" : "0";
    put_us(o, 40, r->plain);
    put_u(o, 41, (unsigned long long)r->events);
    put_u(o, 42, (unsigned long long)r->faults);
    for (int c = 43; c < MBX_RESULT_NCOLS; c++)
        o->field[c] = "";
    if (r->seq > 0)
        put_u(o, MBX_RESULT_SEQ_COL, (unsigned long long)r->seq);
    if (r->status != MBX_POINT_SETTLED) {
        snprintf(o->store[MBX_RESULT_REASON_COL], sizeof o->store[MBX_RESULT_REASON_COL], "%s",
                 r->status_reason);
        o->field[MBX_RESULT_REASON_COL] = o->store[MBX_RESULT_REASON_COL];
    }
    double rate = mbx_result_msg_rate(r);
    if (isfinite(rate)) {
        mbx_snprintf_c(o->store[MBX_RESULT_MSG_RATE_COL], sizeof o->store[MBX_RESULT_MSG_RATE_COL],
                       "%.1f", rate);
        o->field[MBX_RESULT_MSG_RATE_COL] = o->store[MBX_RESULT_MSG_RATE_COL];
    }
    o->field[MBX_RESULT_RMA_SYNC_COL] = r->rma_sync ? r->rma_sync : "";
    put_overlap(r, o);
    if (r->passes == 0)
        return;
    put_u(o, 43, (unsigned long long)r->passes);
    if (isfinite(r->pass_span)) {
        mbx_snprintf_c(o->store[44], sizeof o->store[44], "%.6f", r->pass_span);
        o->field[44] = o->store[44];
    }
    put_us(o, 45, r->iid_stderr);
    put_us(o, 46, r->iid_ci_lo);
    put_us(o, 47, r->iid_ci_hi);
    if (r->levels > 0) {
        put_u(o, 48, (unsigned long long)r->levels);
        put_us(o, 49, r->level_lo);
        put_us(o, 50, r->level_hi);
    }
}
