/* csvcheck's rules for one row of a results CSV (csvcheck.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csvcheck.h"
#include "mbx/passes.h"
#include "mbx/result.h"
#include "mbx/stop.h"

int mbx_cc_failures;

/* Values are printed with 4 decimals in microseconds: allow that rounding. */
static int le_rounded(double ratio_num, double ratio_den, double eps)
{
    double slack = 1e-4 / ratio_den;
    return ratio_num / ratio_den <= eps + slack + 1e-12;
}

/* a <= b, or either undefined (an empty field: negative statistics are
 * written empty, so UNRELIABLE rows may lack some). */
static int le_def(double a, double b)
{
    return isnan(a) || isnan(b) || a <= b;
}

/* Which columns a file must have comes from the column table
 * (mbx/result.h): those of format 2 always; the pass columns
 * (passes .. level_hi_us) all together or not at all (up to format 3's
 * first 51); the overlap columns (pure_comm_us .. overlap_pct) likewise;
 * the other columns appended since are checked where present. */

/* A whole number >= lo (an empty field is not). */
static int count_field(const char *v, double lo)
{
    char *end;
    double d = strtod(v, &end);
    return v[0] != '\0' && v[0] != '-' && v[0] != '+' && *end == '\0' && d == floor(d) && d >= lo;
}

/* The pass columns of row r; returns passes, 0 when the row was
 * measured in one go. */
static double check_passes(const mbx_csv_table *t, size_t r, const char *bench)
{
    if (mbx_csv_table_col(t, "passes") < 0)
        return 0;
    const char *pass_cols[] = {"pass_span_s", "stderr_iid_us", "ci95_iid_lo_us", "ci95_iid_hi_us",
                               "levels",      "level_lo_us",   "level_hi_us"};
    const char *passes = str(t, r, "passes");
    if (passes[0] == '\0') {
        for (size_t k = 0; k < sizeof pass_cols / sizeof *pass_cols; k++)
            CHECK(str(t, r, pass_cols[k])[0] == '\0', "row %zu (%s): %s '%s' without passes", r,
                  bench, pass_cols[k], str(t, r, pass_cols[k]));
        return 0;
    }
    CHECK(count_field(passes, 1), "row %zu (%s): passes '%s', expected an integer >= 1", r, bench,
          passes);
    const char *span = str(t, r, "pass_span_s");
    CHECK(span[0] == '\0' || num(t, r, "pass_span_s") >= 0, "row %zu (%s): pass_span_s '%s'", r,
          bench, span);
    const char *se = str(t, r, "stderr_iid_us");
    CHECK(se[0] == '\0' || num(t, r, "stderr_iid_us") >= 0, "row %zu (%s): stderr_iid_us '%s'", r,
          bench, se);
    CHECK(le_def(num(t, r, "ci95_iid_lo_us"), num(t, r, "ci95_iid_hi_us")),
          "row %zu (%s): ci95_iid_lo_us %s > ci95_iid_hi_us %s", r, bench,
          str(t, r, "ci95_iid_lo_us"), str(t, r, "ci95_iid_hi_us"));
    const char *levels = str(t, r, "levels");
    double lo = num(t, r, "level_lo_us"), hi = num(t, r, "level_hi_us");
    if (levels[0] == '\0') {
        CHECK(isnan(lo) && isnan(hi), "row %zu (%s): level_lo_us/level_hi_us without levels", r,
              bench);
    } else {
        CHECK(count_field(levels, 1), "row %zu (%s): levels '%s', expected an integer >= 1", r,
              bench, levels);
        /* Per-level values at the lowest and the highest probe level: one
         * level gives one value; two are not ordered (a size the probe's
         * level does not touch may be as fast at the higher one). */
        CHECK(str(t, r, "level_lo_us")[0] != '\0' && str(t, r, "level_hi_us")[0] != '\0',
              "row %zu (%s): levels %s without level_lo_us/level_hi_us", r, bench, levels);
        CHECK(num(t, r, "levels") != 1 || (le_def(lo, hi) && le_def(hi, lo)),
              "row %zu (%s): one level but level_lo_us %g != level_hi_us %g", r, bench, lo, hi);
    }
    return num(t, r, "passes");
}

/* rma_sync (where the file has it): a mode for the one-sided rma.*
 * benchmarks, empty for every other. */
static void check_rma_sync(const mbx_csv_table *t, size_t r, const char *bench)
{
    if (mbx_csv_table_col(t, "rma_sync") < 0)
        return;
    const char *v = str(t, r, "rma_sync");
    if (strncmp(bench, "rma.", 4) == 0)
        CHECK(!strcmp(v, "fence") || !strcmp(v, "lock") || !strcmp(v, "lock_all") ||
                  !strcmp(v, "pscw"),
              "row %zu (%s): rma_sync '%s', expected fence, lock, lock_all or pscw", r, bench, v);
    else
        CHECK(v[0] == '\0', "row %zu (%s): rma_sync '%s' on a benchmark that is not one-sided", r,
              bench, v);
}

/* No time is negative: every *_us field is empty or >= 0, never "-0.0000". */
static void check_times(const mbx_csv_table *t, size_t r)
{
    for (size_t c = 0; c < t->ncols[0] && c < t->ncols[r]; c++) {
        const char *name = t->cell[0][c], *v = t->cell[r][c];
        size_t len = strlen(name);
        if (len < 3 || strcmp(name + len - 3, "_us") != 0 || v[0] == '\0')
            continue;
        char *end;
        double d = strtod(v, &end);
        CHECK(*end == '\0' && v[0] != '-' && d >= 0 && isfinite(d),
              "row %zu: %s = '%s', not a time", r, name, v);
    }
}

/* Bytes and messages one observation moves, restated from
 * docs/csv-format.md rather than taken from the registry: master-worker
 * every piece out and back; bw.uni a window of param messages, bw.bi one
 * each way, bw.multi one per pair of procs / 2, bw.exchange IMB's 4
 * messages of one rank; ping-pong one message. Others: bytes, no count
 * (*msgs NAN). */
static double moved_by(const mbx_csv_table *t, size_t r, const char *bench, double bytes,
                       double *msgs)
{
    double w = num(t, r, "param"), procs = num(t, r, "procs");
    *msgs = NAN;
    if (strncmp(bench, "mw.", 3) == 0)
        *msgs = 2 * w;
    else if (strcmp(bench, "bw.uni") == 0 || strcmp(bench, "pairs.bw") == 0)
        *msgs = w;
    else if (strcmp(bench, "bw.bi") == 0)
        *msgs = 2 * w;
    else if (strcmp(bench, "bw.multi") == 0)
        *msgs = floor(procs / 2) * w;
    else if (strcmp(bench, "bw.exchange") == 0)
        *msgs = 4;
    else if ((strncmp(bench, "pingpong.", 9) == 0 && strcmp(bench, "pingpong.mt") != 0) ||
             strcmp(bench, "persist.send_recv") == 0 || strcmp(bench, "pairs.lat") == 0)
        *msgs = 1;
    else if (strncmp(bench, "rma.", 4) == 0) /* a window (rma.*_bw) or one operation */
        *msgs = str(t, r, "param_name")[0] != '\0' ? w : 1;
    else if (strcmp(bench, "part.send_recv") == 0 ||
             strcmp(bench, "part.mt") == 0) { /* one message of param partitions */
        *msgs = 1;
        return w * bytes;
    }
    return isnan(*msgs) ? bytes : *msgs * bytes;
}

/* part.send_recv's set-up figures (docs/csv-format.md): a positive
 * perceived_MBps and a finite overhead_pct on its rows with a time, an
 * early_bird_pct within 0..100 with more than one partition (empty with
 * one); the three empty on every other row. */
void mbx_cc_check_part(const mbx_csv_table *t, size_t r)
{
    const char *bench = str(t, r, "benchmark");
    const char *pb = str(t, r, "perceived_MBps"), *ov = str(t, r, "overhead_pct");
    const char *eb = str(t, r, "early_bird_pct");
    if (strcmp(bench, "part.send_recv") != 0 || str(t, r, "median_us")[0] == '\0') {
        CHECK(!pb[0] && !ov[0] && !eb[0], "row %zu (%s): part columns '%s' '%s' '%s'", r, bench, pb,
              ov, eb);
        return;
    }
    CHECK(num(t, r, "perceived_MBps") > 0, "row %zu: perceived_MBps '%s'", r, pb);
    CHECK(isfinite(num(t, r, "overhead_pct")), "row %zu: overhead_pct '%s'", r, ov);
    double e = num(t, r, "early_bird_pct");
    if (num(t, r, "param") > 1)
        CHECK(e >= 0 && e <= 100, "row %zu: early_bird_pct '%s'", r, eb);
    else
        CHECK(!eb[0], "row %zu: early_bird_pct '%s' with one partition", r, eb);
}

/* The host columns: a node-pair cell (pairs.*) names both hosts, and its
 * ranks are two distinct ranks, sender first; every other row leaves
 * them empty. */
static void check_hosts(const mbx_csv_table *t, size_t r, const char *bench)
{
    const char *sh = str(t, r, "src_host"), *dh = str(t, r, "dst_host");
    if (strncmp(bench, "pairs.", 6) != 0) {
        CHECK(!sh[0] && !dh[0], "row %zu (%s): host columns '%s' '%s'", r, bench, sh, dh);
        return;
    }
    int a = -1, b = -1, end = 0;
    CHECK(sh[0] && dh[0], "row %zu (%s): src_host '%s', dst_host '%s'", r, bench, sh, dh);
    CHECK(sscanf(str(t, r, "ranks"), "%d,%d%n", &a, &b, &end) == 2 && a >= 0 && b >= 0 && a != b &&
              str(t, r, "ranks")[end] == '\0',
          "row %zu (%s): ranks '%s', expected SRC,DST", r, bench, str(t, r, "ranks"));
}

/* The tail percentiles (p90_us .. tail_reason; absent columns read as
 * empty): all empty when both percentiles are (a percentile below 0, an
 * overhead correction's, is empty alone); else each interval around its
 * percentile, q3 <= P90 <= P99, an interval only from K observations on
 * (36, 368), the scope named, and a reason exactly when an interval is
 * missing. */
static void check_tails(const mbx_csv_table *t, size_t r, const char *bench)
{
    static const char *const cols[] = {"p90_us",     "p90_ci95_lo_us", "p90_ci95_hi_us",
                                       "p99_us",     "p99_ci95_lo_us", "p99_ci95_hi_us",
                                       "tail_scope", "tail_reason"};
    int has90 = str(t, r, "p90_us")[0] != '\0', has99 = str(t, r, "p99_us")[0] != '\0';
    if (!has90 && !has99) {
        for (size_t c = 0; c < sizeof cols / sizeof *cols; c++)
            CHECK(!str(t, r, cols[c])[0], "row %zu (%s): %s '%s' without a percentile", r, bench,
                  cols[c], str(t, r, cols[c]));
        return;
    }
    double p90 = num(t, r, "p90_us"), p99 = num(t, r, "p99_us"), n = num(t, r, "n");
    double l90 = num(t, r, "p90_ci95_lo_us"), h90 = num(t, r, "p90_ci95_hi_us");
    double l99 = num(t, r, "p99_ci95_lo_us"), h99 = num(t, r, "p99_ci95_hi_us");
    CHECK(le_def(l90, p90) && le_def(p90, h90), "row %zu (%s): p90 %s outside [%s, %s]", r, bench,
          str(t, r, "p90_us"), str(t, r, "p90_ci95_lo_us"), str(t, r, "p90_ci95_hi_us"));
    CHECK(le_def(l99, p99) && le_def(p99, h99), "row %zu (%s): p99 %s outside [%s, %s]", r, bench,
          str(t, r, "p99_us"), str(t, r, "p99_ci95_lo_us"), str(t, r, "p99_ci95_hi_us"));
    CHECK(le_def(num(t, r, "q3_us"), p90) && le_def(p90, p99),
          "row %zu (%s): q3 %s, p90 %s, p99 %s", r, bench, str(t, r, "q3_us"), str(t, r, "p90_us"),
          str(t, r, "p99_us"));
    CHECK(isnan(l90) || n >= 36, "row %zu (%s): a P90 interval from n = %g", r, bench, n);
    CHECK(isnan(l99) || n >= 368, "row %zu (%s): a P99 interval from n = %g", r, bench, n);
    CHECK(!strcmp(str(t, r, "tail_scope"), "observations-of-one-job"),
          "row %zu (%s): tail_scope '%s'", r, bench, str(t, r, "tail_scope"));
    int missing = (has90 && isnan(h90)) || (has99 && isnan(h99));
    CHECK(missing == (str(t, r, "tail_reason")[0] != '\0'), "row %zu (%s): tail_reason '%s'", r,
          bench, str(t, r, "tail_reason"));
}

/* Every rule of one row in one place (over 80 lines), in the order of the CSV contract's columns
 * (docs/csv-format.md). */
void mbx_cc_check_row(const mbx_csv_table *t, size_t r)
{
    const char *bench = str(t, r, "benchmark");
    double n = num(t, r, "n"), mean = num(t, r, "mean_us"), tmean = num(t, r, "tmean_us");
    double med = num(t, r, "median_us"), mn = num(t, r, "min_us"), mx = num(t, r, "max_us");
    double q1 = num(t, r, "q1_us"), q3 = num(t, r, "q3_us"), sd = num(t, r, "stddev_us");
    double se = num(t, r, "stderr_us"), lo = num(t, r, "ci95_lo_us"), hi = num(t, r, "ci95_hi_us");
    double nmin = num(t, r, "nmin"), nmax = num(t, r, "nmax"), bytes = num(t, r, "bytes");
    const char *status = str(t, r, "status");
    mbx_point_status st;
    CHECK(mbx_point_status_parse(status, &st), "row %zu: unknown status '%s'", r, status);
    CHECK(!strcmp(str(t, r, "sync"), "barrier") || !strcmp(str(t, r, "sync"), "window"),
          "row %zu: sync '%s'", r, str(t, r, "sync"));
    CHECK(!strcmp(str(t, r, "cache"), "warm") || !strcmp(str(t, r, "cache"), "cold"),
          "row %zu: cache '%s'", r, str(t, r, "cache"));
    CHECK(num(t, r, "invalid") >= 0, "row %zu: invalid '%s'", r, str(t, r, "invalid"));
    CHECK(str(t, r, "probe_us")[0] == '\0' || num(t, r, "probe_us") > 0, "row %zu: probe_us '%s'",
          r, str(t, r, "probe_us"));
    CHECK(str(t, r, "plain_us")[0] == '\0' || num(t, r, "plain_us") > 0, "row %zu: plain_us '%s'",
          r, str(t, r, "plain_us"));
    check_times(t, r);
    check_rma_sync(t, r, bench);
    check_hosts(t, r, bench);
    check_tails(t, r, bench);
    double passes = check_passes(t, r, bench);
    if (strcmp(status, "INVALID") == 0 || strcmp(status, "HUNG") == 0) {
        /* No valid observation (or a pass that hung, the watchdog's): no
         * numbers at all, never zeros; a HUNG row says why. */
        CHECK(n == 0 && isnan(med) && isnan(mean) && isnan(mn), "row %zu (%s): %s but has numbers",
              r, bench, status);
        CHECK(strcmp(status, "HUNG") != 0 || str(t, r, "status_reason")[0] != '\0',
              "row %zu (%s): HUNG without a status_reason", r, bench);
        /* validated says checked and right: never on a row without data. */
        CHECK(strcmp(str(t, r, "validated"), "yes") != 0, "row %zu (%s): %s but validated=yes", r,
              bench, status);
        return;
    }
    CHECK(n >= 1, "row %zu (%s): n = %g", r, bench, n);
    /* Measured in passes (format 3, passes not empty): n pools the passes'
     * observations, nmin is the observations of one pass and nmax what the
     * point's passes could take at most; the value is the median of the
     * pass medians, which lies within the pooled range but not necessarily
     * within the pooled quartiles, and its error the between-pass one. */
    int in_passes = passes >= 1;
    CHECK(in_passes || n >= nmin || strcmp(status, "SETTLED") != 0,
          "row %zu: settled with n < nmin", r);
    CHECK(n <= nmax, "row %zu (%s): n %g > nmax %g", r, bench, n, nmax);
    CHECK(!in_passes || n <= passes * nmin, "row %zu (%s): n %g > %g passes of %g", r, bench, n,
          passes, nmin);
    int unreliable = strcmp(status, "UNRELIABLE") == 0;
    CHECK(le_def(mn, q1) && le_def(q1, q3) && le_def(q3, mx) && le_def(mn, med) && le_def(med, mx),
          "row %zu (%s): quantiles out of order", r, bench);
    CHECK(in_passes || (le_def(q1, med) && le_def(med, q3)), "row %zu (%s): median outside q1..q3",
          r, bench);
    CHECK(le_def(mn, mean) && le_def(mean, mx) && le_def(mn, tmean) && le_def(tmean, mx),
          "row %zu: mean outside range", r);
    CHECK(le_def(lo, med) && le_def(med, hi), "row %zu (%s): median outside its CI", r, bench);
    CHECK(unreliable || (!isnan(med) && !isnan(tmean) && !isnan(q1) && !isnan(lo)),
          "row %zu (%s): %s with an empty statistic", r, bench, status);
    /* One pass has no between-pass error yet (a run stopped early). */
    CHECK(n < 2 || (sd >= 0 && (se >= 0 || (in_passes && passes < 2 && isnan(se)))),
          "row %zu: negative spread", r);
    CHECK(unreliable || med > 0, "row %zu: non-positive median", r);
    /* An event (an observation 100x the median) is left out and keeps the
     * row from SETTLED; files of earlier versions have no events column. */
    double ev = num(t, r, "events");
    CHECK(str(t, r, "events")[0] == '\0' || (ev >= 0 && ev == floor(ev)), "row %zu: events '%s'", r,
          str(t, r, "events"));
    /* In passes the status follows the passes' rule (mbx/sched.h). */
    CHECK(in_passes || !(ev > 0) || strcmp(status, "SETTLED") != 0,
          "row %zu (%s): SETTLED with %g events", r, bench, ev);
    /* Minor page faults in the kept timed batches: a count, empty only in
     * files of earlier versions. */
    double flt = num(t, r, "faults");
    CHECK(str(t, r, "faults")[0] == '\0' || (flt >= 0 && flt == floor(flt)), "row %zu: faults '%s'",
          r, str(t, r, "faults"));
    double bw = num(t, r, "bandwidth_MBps");
    CHECK(!unreliable || isnan(bw), "row %zu (%s): UNRELIABLE with bandwidth %s", r, bench,
          str(t, r, "bandwidth_MBps"));
    double msgs = NAN, moved = moved_by(t, r, bench, bytes, &msgs);
    /* The file's median has 4 decimals of a microsecond: below 0.05 us its
     * rounding alone moves a figure derived from it by over 0.1 %. */
    double rel = 1e-3 + (med > 0 ? 5e-5 / med : 0);
    if (moved > 0 && med > 0 && !unreliable)
        CHECK(fabs(bw - moved / med) <= 0.01 + rel * bw, "row %zu (%s): bandwidth %g != %g", r,
              bench, bw, moved / med);
    /* msg_rate_per_s (files of earlier versions have none): messages per
     * observation over the median, empty where the benchmark counts none. */
    if (mbx_csv_table_col(t, "msg_rate_per_s") >= 0) {
        double rate = num(t, r, "msg_rate_per_s");
        if (msgs > 0 && med > 0 && !unreliable)
            CHECK(fabs(rate - msgs / med * 1e6) <= 0.1 + rel * rate,
                  "row %zu (%s): msg_rate_per_s '%s', expected %g", r, bench,
                  str(t, r, "msg_rate_per_s"), msgs / med * 1e6);
        else
            CHECK(str(t, r, "msg_rate_per_s")[0] == '\0', "row %zu (%s): msg_rate_per_s '%s'", r,
                  bench, str(t, r, "msg_rate_per_s"));
    }
    mbx_stop_rule rule;
    char msg[128];
    CHECK(mbx_stop_parse(str(t, r, "stop_rule"), &rule, msg, sizeof msg) == MBX_OK,
          "row %zu: bad stop_rule '%s'", r, str(t, r, "stop_rule"));
    if (strcmp(status, "SETTLED") != 0)
        return;
    if (in_passes) {
        /* SETTLED in passes: the units the pilot asked for (two-stage
         * rule), with the between-pass relative error under the guard
         * times the rule's EPS (fixed:N has the scheduler's default
         * target). */
        CHECK(passes >= 2 && se >= 0, "row %zu (%s): SETTLED with %g passes", r, bench, passes);
        if (rule.kind != MBX_STOP_FIXED)
            CHECK(le_rounded(se, med, MBX_PASSES_SETTLED_GUARD * rule.eps),
                  "row %zu (%s %g B): SETTLED but stderr/median = %g", r, bench, bytes, se / med);
        return;
    }
    switch (rule.kind) {
    case MBX_STOP_STDERR:
        CHECK(le_rounded(se, tmean, rule.eps), "row %zu (%s %g B): SETTLED but stderr/tmean = %g",
              r, bench, bytes, se / tmean);
        break;
    case MBX_STOP_CV:
        CHECK(le_rounded(sd, mean, rule.eps), "row %zu: SETTLED but cv = %g", r, sd / mean);
        break;
    case MBX_STOP_CI:
        CHECK(le_rounded((hi - lo) / 2, med, rule.eps), "row %zu: SETTLED but CI half-width %g", r,
              (hi - lo) / 2 / med);
        break;
    case MBX_STOP_FIXED:
        CHECK(n == (double)rule.fixed, "row %zu: fixed:%zu but n = %g", r, rule.fixed, n);
        break;
    }
}

/* The overlap columns of row r: any percentage within 0..100; with
 * --overlap, the named benchmarks' rows complete and consistent, every
 * other row's empty. */
void mbx_cc_check_overlap(const mbx_csv_table *t, size_t r, const char *const *names, int n)
{
    const char *pct_s = str(t, r, "overlap_pct");
    double pct = num(t, r, "overlap_pct");
    CHECK(pct_s[0] == '\0' || (pct >= 0 && pct <= 100), "row %zu: overlap_pct '%s'", r, pct_s);
    if (n == 0)
        return;
    int named = 0;
    for (int k = 0; k < n; k++)
        named |= strcmp(str(t, r, "benchmark"), names[k]) == 0;
    static const char *const cols[] = {"pure_comm_us", "compute_us", "overall_us", "overlap_pct"};
    if (!named) {
        for (size_t k = 0; k < 4; k++)
            CHECK(str(t, r, cols[k])[0] == '\0', "row %zu (%s): %s '%s', expected empty", r,
                  str(t, r, "benchmark"), cols[k], str(t, r, cols[k]));
        return;
    }
    double pure = num(t, r, "pure_comm_us"), comp = num(t, r, "compute_us");
    double all = num(t, r, "overall_us"), med = num(t, r, "median_us");
    CHECK(pure > 0, "row %zu: pure_comm_us '%s', expected a time", r, str(t, r, "pure_comm_us"));
    CHECK(comp > 0, "row %zu: compute_us '%s', expected a time", r, str(t, r, "compute_us"));
    CHECK(all > 0 && all == med, "row %zu: overall_us '%s', median_us '%s'", r,
          str(t, r, "overall_us"), str(t, r, "median_us"));
    CHECK(pct >= 0 && pct <= 100, "row %zu: overlap_pct '%s', expected 0..100", r, pct_s);
    /* The printed percentage follows from the printed times (4 decimals of
     * a microsecond each). */
    double want = mbx_overlap_pct(all, comp, pure);
    CHECK(isfinite(want) && fabs(want - pct) <= 0.01 + 100 * 3e-4 / pure,
          "row %zu: overlap_pct %s, the times give %.4f", r, pct_s, want);
}
