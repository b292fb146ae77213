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

#define MBX_COMPARE_NCOLS 28
/* benchmark,label,procs,bytes,root,op,param,n_a,n_b,median_a_us,median_b_us,
 * ratio_b_over_a,shift_us,w,z,p_two_sided,p_less,p_greater,exact,verdict,
 * rma_sync (appended: files of earlier versions end at verdict),
 * compare_scope,hl_ratio,hl_lo,hl_hi,q_bh,equiv,equiv_delta (appended:
 * files of earlier versions end at rma_sync) */
extern const char *const mbx_compare_columns[MBX_COMPARE_NCOLS];

/* Default equivalence margin: B/A within [1/1.05, 1.05] is "the same". */
#define MBX_COMPARE_DELTA_DEFAULT 0.05

/* What a comparison's samples are, and so what its verdicts are about
 * (docs/user-guide.md, "Comparing: compare"). */
typedef enum mbx_compare_scope {
    MBX_CMP_SCOPE_NONE = 0,     /* two separate launches: no machine-level verdict */
    MBX_CMP_SCOPE_LAUNCHES = 1, /* launch medians, K against K (`launches:K`) */
    MBX_CMP_SCOPE_ONE_JOB = 2,  /* pass medians of interleaved points of one job */
} mbx_compare_scope;

/* The verdict column's word for verdict v: "<", ">", "same" (not a bare
 * "=", which a spreadsheet opening the CSV would take for a formula) or
 * "none" ('?': no verdict). */
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
    char verdict;              /* '<', '>', '=' or '?' (scope none: no verdict) */
    const char *stars;         /* of the two-sided p: "***", "**", "*" or "" */
    /* The Hodges-Lehmann ratio B/A (on the log scale) and its 95 % CI
     * (hl_conf: its achieved confidence; 0 and infinity: too few values),
     * its 90 % CI (eq_lo, eq_hi) and the equivalence test on it: equiv
     * 'y' when [eq_lo, eq_hi] lies in [1/(1+delta), 1+delta], 'n' when
     * not, 0 without a ratio (a value <= 0). NAN when not computed. */
    double hl_ratio, hl_lo, hl_hi, hl_conf, eq_lo, eq_hi;
    char equiv;
    double q; /* Benjamini-Hochberg q-value over the table; the explorer's: p */
    mbx_compare_scope scope;
} mbx_cmp_point;

/* A curve: the points of one key but bytes, tested together stratified
 * over their sizes (mbx_wilcoxon_stratified, each size a stratum), with
 * BH q-values over the curves. */
typedef struct mbx_cmp_curve {
    size_t first;   /* index (mbx_compare_get) of its first point: its key */
    size_t sizes;   /* its points */
    mbx_wilcoxon w; /* w.shift NAN */
    double ratio;   /* geometric mean of its points' hl_ratio */
    double q;
    char verdict; /* '<', '>' or '=' at q < alpha */
} mbx_cmp_curve;

typedef struct mbx_compare mbx_compare;

typedef struct mbx_compare_summary {
    size_t tested;               /* points on both sides */
    size_t faster, slower;       /* A faster ('<'), A slower ('>') */
    size_t same;                 /* not distinguishable ('=') */
    size_t only_a, only_b;       /* points on one side only */
    const char *kind_a, *kind_b; /* "launches", "pass medians" or "observations" */
    mbx_compare_scope scope;
    size_t k;              /* scope launches: the fewest launches of a point */
    const char *why_none;  /* scope none: why, and what to run instead (one line) */
    size_t equivalent;     /* not different, and equiv 'y' */
    double q_max;          /* the largest q of the points called different; 0: none */
    double expected_false; /* q_max x (faster + slower): BH's bound on false calls */
    double delta;          /* the equivalence margin */
    size_t curves;         /* mbx_compare_curve_count */
} mbx_compare_summary;

/* How to compare (mbx_compare_load_opts). */
typedef struct mbx_compare_opts {
    double alpha;    /* 0 < alpha < 1: the BH level (q < alpha: different) */
    unsigned ignore; /* MBX_COMPARE_IGNORE_* */
    double delta;    /* 0 < delta < 1: the equivalence margin; 0: the default */
} mbx_compare_opts;

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

/* mbx_compare_load_ex with options o. The scope (mbx_compare_summary)
 * follows from the inputs: two directories of launches compare launches;
 * one results file on both sides (the same file: sections of one job,
 * measured interleaved in passes) compares pass medians; anything else is
 * two separate launches and gets no verdict (verdict '?', q NAN): a
 * difference between two launches may be the launches'. Errors: as
 * mbx_compare_load, and MBX_E_INVAL for delta outside (0, 1). */
MBX_NODISCARD int mbx_compare_load_opts(const char *path_a, const char *path_b,
                                        const mbx_compare_opts *o, mbx_compare **out, char *msg,
                                        size_t msglen);

/* The CSV's compare_scope word of scope with k launches: "launches:K",
 * "passes-of-one-job" or "none", into buf. */
void mbx_compare_scope_text(mbx_compare_scope scope, size_t k, char *buf, size_t len);

/* A point's verdict as a word: "<", ">", "same" (not different and
 * equivalent within delta), "not_distinguishable" or "none". */
const char *mbx_compare_point_word(const mbx_cmp_point *p);

/* The curves of a comparison (none when its scope is none). */
size_t mbx_compare_curve_count(const mbx_compare *c);
const mbx_cmp_curve *mbx_compare_curve_get(const mbx_compare *c, size_t i);

/* Benjamini-Hochberg q-values of p[0..m): q_(i) = min over j >= i of
 * m p_(j) / j, at most 1 (p sorted ascending). Errors: MBX_E_INVAL (NULL,
 * a p outside [0, 1]), MBX_E_NOMEM. */
MBX_NODISCARD int mbx_compare_bh(const double *p, size_t m, double *q);

/* The HL ratio B/A, its 95 % and 90 % CIs and the equivalence verdict at
 * margin delta (0 < delta < 1) of samples a and b (positive values) into
 * out's hl_*, eq_* and equiv (NAN and 0 when a value is <= 0). Errors:
 * MBX_E_INVAL (NULL, an empty sample, bad delta), MBX_E_NOMEM. */
MBX_NODISCARD int mbx_compare_shift(const double *a, size_t na, const double *b, size_t nb,
                                    double delta, mbx_cmp_point *out);

/* The coverage of [x_(l), x_(k+1-l)] of k exchangeable values for their
 * median: 1 - 2 P(B <= l - 1), B ~ Bin(k, 1/2); NAN when l is 0 or past
 * the middle. */
double mbx_compare_os_coverage(size_t k, size_t l);

/* The largest l whose interval covers with at least conf, else 1 (the
 * range); *coverage (may be NULL) gets its coverage. */
size_t mbx_compare_os_rank(size_t k, double conf, double *coverage);

/* tested points, sorted by benchmark, label, procs, bytes, root, op, param,
 * rma_sync */
size_t mbx_compare_count(const mbx_compare *c);
const mbx_cmp_point *mbx_compare_get(const mbx_compare *c, size_t i);
void mbx_compare_summarize(const mbx_compare *c, mbx_compare_summary *out);

/* Test two samples directly (the explorer's comparison uses this): fills
 * n, medians, ratio, w, verdict and stars, the HL ratio and equivalence at
 * the default delta, q = the two-sided p and scope one job; leaves the key
 * fields alone.
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
