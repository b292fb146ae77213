/* mpibex compare: are two settings different, point by point? (Hunold &
 * Carpen-Amarie; docs/user-guide.md, "Comparing: compare").
 *
 * Each side is either
 *  - a directory of launches (what `mpibex repeat` writes: DIR/launch-*.csv):
 *    a point's sample is the list of its per-launch medians; or
 *  - one results file OUT.csv with its raw observations beside it
 *    (OUT.obs.csv, written with --raw): a point's sample is its
 *    observations.
 * A point's key is its identity (mbx/pointid.h: benchmark, label, procs,
 * bytes, root, op, param, rma_sync). Points
 * present on both sides get a Wilcoxon rank-sum test (mbx/wilcoxon.h); the
 * verdict at level alpha is '<' (A faster: the two-sided test is
 * significant and the one-sided "less" p is the smaller), '>' (A slower)
 * or '=' (not distinguishable). Points on one
 * side only are counted, not tested. Pure C, no MPI. */
#ifndef MBX_COMPARE_H
#define MBX_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/status.h"
#include "mbx/wilcoxon.h"

#define MBX_COMPARE_NCOLS 21
/* benchmark,label,procs,bytes,root,op,param,n_a,n_b,median_a_us,median_b_us,
 * ratio_b_over_a,shift_us,w,z,p_two_sided,p_less,p_greater,exact,verdict,
 * rma_sync (appended: files of earlier versions end at verdict) */
extern const char *const mbx_compare_columns[MBX_COMPARE_NCOLS];

/* The verdict column's word for verdict v: "<", ">" or "same" (not a bare
 * "=", which a spreadsheet opening the CSV would take for a formula). */
const char *mbx_compare_verdict_word(char v);

typedef struct mbx_cmp_point {
    const char *benchmark, *label, *op; /* op: NULL if none */
    const char *rma_sync;               /* rma.*: fence, lock, lock_all or pscw; NULL if none */
    const char *key; /* A's identity, mbx_pid_key; NULL from mbx_compare_samples */
    int procs, root; /* root -1: none */
    uint64_t bytes;
    long long param; /* 0: none */
    size_t n_a, n_b;
    double median_a, median_b; /* medians of the two samples, seconds */
    double ratio;              /* median_b / median_a */
    mbx_wilcoxon w;            /* w.shift in seconds */
    char verdict;              /* '<', '>' or '=' */
    const char *stars;         /* of the two-sided p: "***", "**", "*" or "" */
} mbx_cmp_point;

typedef struct mbx_compare mbx_compare;

typedef struct mbx_compare_summary {
    size_t tested;               /* points on both sides */
    size_t faster, slower;       /* A faster ('<'), A slower ('>') */
    size_t same;                 /* not distinguishable ('=') */
    size_t only_a, only_b;       /* points on one side only */
    const char *kind_a, *kind_b; /* "launches", "pass medians" or "observations" */
} mbx_compare_summary;

/* Load both sides and test every common point at level alpha (0 < alpha <
 * 1). Errors with one line in msg (naming the file and, where it applies,
 * the line and column): MBX_E_IO (unreadable, or a missing OUT.obs.csv:
 * the message says to run with --raw or to compare directories of
 * launches), MBX_E_PROTO (not a results table), MBX_E_INVAL (bad alpha,
 * or no common point), MBX_E_NOMEM. */
MBX_NODISCARD int mbx_compare_load(const char *path_a, const char *path_b, double alpha,
                                   mbx_compare **out, char *msg, size_t msglen);
void mbx_compare_free(mbx_compare *c);

/* Key parts mbx_compare_load_ex can leave out when it matches A's points
 * to B's: to compare two benchmarks (send_recv with ssend_recv) or two plan
 * sections. The points keep A's key. B must not hold two points that then
 * match the same key (MBX_E_INVAL, naming them). */
#define MBX_COMPARE_IGNORE_BENCHMARK 1u
#define MBX_COMPARE_IGNORE_LABEL 2u
/* one-sided sync modes: fence in A against lock_all in B */
#define MBX_COMPARE_IGNORE_RMA_SYNC 4u

/* mbx_compare_load with `ignore`, a set of MBX_COMPARE_IGNORE_* bits. */
MBX_NODISCARD int mbx_compare_load_ex(const char *path_a, const char *path_b, double alpha,
                                      unsigned ignore, mbx_compare **out, char *msg, size_t msglen);

/* tested points, sorted by benchmark, label, procs, bytes, root, op, param,
 * rma_sync */
size_t mbx_compare_count(const mbx_compare *c);
const mbx_cmp_point *mbx_compare_get(const mbx_compare *c, size_t i);
void mbx_compare_summarize(const mbx_compare *c, mbx_compare_summary *out);

/* Test two samples directly (the explorer's comparison uses this): fills
 * n, medians, ratio, w, verdict and stars; leaves the key fields alone.
 * Errors: as mbx_wilcoxon_test. */
MBX_NODISCARD int mbx_compare_samples(const double *a, size_t na, const double *b, size_t nb,
                                      double alpha, mbx_cmp_point *out);

/* mbx_compare_samples for two interleaved points whose passes carry
 * machine levels (la, lb: a level id per sample; negative: unknown, a
 * level of its own). When the passes of either point ran at two or more
 * levels, a rank-sum over all of them mixes the levels (a slow-level pass
 * of the faster point outranks the slower point's fast-level passes), so
 * the test is stratified by level (mbx_wilcoxon_stratified): passes are
 * ranked only against passes of the same level, and the rank sums of all
 * levels add up. When A ran at one level and B at another (no level in
 * common), nothing can be said: p 1, verdict '='. *strata gets the number
 * of levels added up, or 0 when the plain test ran (levels unknown, one
 * level for both) or none could. la or lb may be NULL (no levels).
 * Errors: as mbx_compare_samples. */
MBX_NODISCARD int mbx_compare_samples_leveled(const double *a, const int *la, size_t na,
                                              const double *b, const int *lb, size_t nb,
                                              double alpha, mbx_cmp_point *out, size_t *strata);

/* The ratio B over A that mbx_compare_samples_leveled tests (the
 * explorer shows it beside the verdict): the Hodges-Lehmann estimate on
 * the log scale, the median of b[j] / a[i] over the pairs the rank-sum
 * weighs (every pair, or only pairs of one level when the test is
 * stratified; la, lb as there). Above 1 exactly when more than half of
 * those pairs have A faster, so it never points against the verdict.
 * NAN without such a pair (no level in common), or out of memory. */
double mbx_compare_tested_ratio(const double *a, const int *la, size_t na, const double *b,
                                const int *lb, size_t nb);

/* The launches of a directory that `mpibex repeat` wrote: every
 * DIR/launch-NN.csv (NN digits; sidecars such as launch-NN.env.csv are
 * not launches), as malloc'd paths in launch order (*out and each path
 * are the caller's to free; *n may be 0). Errors: MBX_E_IO (the directory
 * cannot be read; msg says why), MBX_E_NOMEM. */
MBX_NODISCARD int mbx_compare_list_launches(const char *dir, char ***out, size_t *n, char *msg,
                                            size_t msglen);

#endif
