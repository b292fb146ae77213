/* mpibex stop rules: when a point's measurement has converged.
 *
 *   stderr:EPS  n >= n_min, sum of observations >= tick/EPS, and
 *               stderr(trimmed mean) / trimmed mean < EPS      (SKaMPI)
 *   cv:EPS      n >= n_min and stddev / mean < EPS            (Sphinx)
 *   ci:EPS      n >= n_min and half-width of the 95 % CI of the median
 *               / median < EPS, where half-width = (ci_hi - ci_lo) / 2
 *               and the CI must be exact (LibSciBench style)
 *   fixed:N     n >= N                                       (ReproMPI)
 * Every rule also stops at n_max; a point stopped there without meeting
 * its rule is UNSETTLED. EPS may be written as a fraction (0.03) or a
 * percentage (3%); it must lie in (0, 1). */
#ifndef MBX_STOP_H
#define MBX_STOP_H

#include <stddef.h>

#include "mbx/stats.h"
#include "mbx/status.h"

typedef enum mbx_stop_kind {
    MBX_STOP_STDERR = 0,
    MBX_STOP_CV = 1,
    MBX_STOP_CI = 2,
    MBX_STOP_FIXED = 3,
} mbx_stop_kind;

typedef struct mbx_stop_rule {
    mbx_stop_kind kind;
    double eps;   /* for stderr, cv, ci */
    size_t fixed; /* for fixed */
} mbx_stop_rule;

#define MBX_STOP_DEFAULT_EPS 0.03
#define MBX_NMIN_DEFAULT 16
/* In passes (mbx/sched.h), per pass: a 1 ms pass of a 50 ns call. */
#define MBX_NMAX_DEFAULT 20000
#define MBX_NMAX_LIMIT 10000000 /* largest n_max or fixed:N accepted */

typedef enum mbx_stop_verdict {
    MBX_STOP_GO_ON = 0,   /* measure more */
    MBX_STOP_MET = 1,     /* rule met: SETTLED */
    MBX_STOP_AT_NMAX = 2, /* n_max reached without the rule: UNSETTLED */
} mbx_stop_verdict;

/* Parse "stderr:0.03", "cv:5%", "ci:0.02", "fixed:100". On error returns
 * MBX_E_INVAL and, if msg is not NULL, writes a one-line reason (without
 * the field name) into msg[0..msglen). */
MBX_NODISCARD int mbx_stop_parse(const char *text, mbx_stop_rule *out, char *msg, size_t msglen);

/* Canonical text of a rule ("stderr:0.03", "fixed:100") into buf. */
void mbx_stop_format(const mbx_stop_rule *rule, char *buf, size_t len);

/* The relative error the rule watches, for progress displays:
 * stderr/tmean, stddev/mean, ci half-width/median; for fixed: n/N.
 * NAN when undefined. */
double mbx_stop_progress(const mbx_stop_rule *rule, const mbx_summary *s);

/* Decide after a batch. s summarizes all observations so far; tick is the
 * timer resolution in the same unit as the observations; n_min <= n_max.
 * For fixed:N the limits are N and N. */
mbx_stop_verdict mbx_stop_eval(const mbx_stop_rule *rule, const mbx_summary *s, double tick,
                               size_t n_min, size_t n_max);

#endif
