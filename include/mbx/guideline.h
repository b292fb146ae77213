/* Self-consistent performance guidelines (Traff, Gropp and Thakur; Hunold's
 * PGMPI): rules an MPI library should obey, each a pair of benchmarks at
 * the same point with the relation "the left is no slower than the right"
 * (docs/user-guide.md, "Guidelines: guidelines").
 *
 * A catalogue is an ini file (samples/guidelines.ini): one section a rule,
 *
 *   [allreduce.reduce_bcast]
 *   what  = MPI_Allreduce is no slower than MPI_Reduce followed by MPI_Bcast
 *   holds = coll.allreduce <= mock.reduce_bcast
 *
 * each side a benchmark's name, optionally at N times the rule's size
 * (`coll.bcast <= coll.bcast@2x`: more data is never faster). The names
 * are checked against the registry by the front end, not here.
 *
 * A rule is judged at each size from two samples of positive times: the
 * pass medians of the two points in one job (measured interleaved, pass
 * by pass), or their launch medians over launches of `repeat`. Pure C,
 * no MPI. */
#ifndef MBX_GUIDELINE_H
#define MBX_GUIDELINE_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/status.h"

#define MBX_GL_NAME_MAX 48  /* a rule's name (its section), with the NUL */
#define MBX_GL_BENCH_MAX 48 /* a side's benchmark name, with the NUL */
#define MBX_GL_WHAT_MAX 160 /* a rule's sentence, with the NUL */
#define MBX_GL_RULES_MAX 256
#define MBX_GL_FACTOR_MAX 64 /* a side's size factor: @2x .. @64x */

/* The default tolerance: a violation must exceed 5 %. */
#define MBX_GL_TOL_DEFAULT 0.05
#define MBX_GL_TOL_MAX 0.5

typedef struct mbx_gl_side {
    char bench[MBX_GL_BENCH_MAX];
    int factor; /* the side's size: factor x the rule's (1: the same) */
} mbx_gl_side;

typedef struct mbx_gl_rule {
    char name[MBX_GL_NAME_MAX];
    char what[MBX_GL_WHAT_MAX]; /* "" when the file gives none */
    mbx_gl_side lhs, rhs;       /* lhs <= rhs must hold */
    int line;                   /* its section's line in the file */
} mbx_gl_rule;

typedef struct mbx_gl_catalogue {
    mbx_gl_rule rule[MBX_GL_RULES_MAX];
    size_t n;
} mbx_gl_catalogue;

/* Parse a catalogue's text (name: the file's, for messages). Errors with
 * one line in msg naming the file, the line and the key: MBX_E_INVAL (a
 * bad section, key or side, a rule without `holds`, no rule, more than
 * MBX_GL_RULES_MAX), MBX_E_UNKNOWN (an unknown key), MBX_E_NOMEM. */
MBX_NODISCARD int mbx_gl_parse(const char *text, const char *name, mbx_gl_catalogue *out, char *msg,
                               size_t msglen);

/* mbx_gl_parse of the file at path (at most 1 MiB of text): MBX_E_IO when
 * it cannot be read. */
MBX_NODISCARD int mbx_gl_load(const char *path, mbx_gl_catalogue *out, char *msg, size_t msglen);

/* A rule at one point, judged. */
typedef enum mbx_gl_verdict {
    MBX_GL_HOLDS = 0, /* the 95 % CI of left/right lies at or below 1 + tolerance */
    MBX_GL_VIOLATED =
        1, /* the left is slower: significant (q < alpha), by more than the tolerance */
    MBX_GL_UNCLEAR = 2, /* neither: not distinguishable */
    MBX_GL_NONE = 3,    /* too few values on a side to judge */
} mbx_gl_verdict;

typedef struct mbx_gl_judgement {
    size_t n_lhs, n_rhs;
    double med_lhs, med_rhs; /* the samples' medians, seconds */
    /* The Hodges-Lehmann ratio left/right (exp of the median of all log
     * differences) and its 95 % CI; NAN when there is none. */
    double ratio, lo, hi;
    double p; /* the two-sided rank-sum p-value */
    double q; /* its Benjamini-Hochberg q-value over the report (mbx_gl_decide) */
    mbx_gl_verdict verdict;
} mbx_gl_judgement;

/* The rank-sum test and the HL ratio of left over right (positive values,
 * at least 2 a side; fewer gives verdict NONE and NANs). MBX_OK,
 * MBX_E_INVAL (NULL), MBX_E_NOMEM. The verdict is left to mbx_gl_decide. */
MBX_NODISCARD int mbx_gl_test(const double *lhs, size_t nl, const double *rhs, size_t nr,
                              mbx_gl_judgement *out);

/* The q-values of j[0..n) (Benjamini-Hochberg over those with a p) and
 * each verdict at tolerance tol (0 <= tol <= MBX_GL_TOL_MAX) and level
 * alpha (0 < alpha < 1): VIOLATED when q < alpha and ratio > 1 + tol,
 * HOLDS when hi <= 1 + tol, UNCLEAR otherwise, NONE without a ratio.
 * MBX_OK, MBX_E_INVAL (a bad tol or alpha), MBX_E_NOMEM. */
MBX_NODISCARD int mbx_gl_decide(mbx_gl_judgement *j, size_t n, double tol, double alpha);

/* "holds", "violated", "not_distinguishable" or "none". */
const char *mbx_gl_verdict_word(mbx_gl_verdict v);

/* The samples a judgement is made from: a results file with its
 * observation file (OUT.obs.csv, written with --raw), each point's pass
 * medians; or a directory of launches (`mpibex repeat`), each point's
 * launch medians. */
typedef struct mbx_gl_data mbx_gl_data;

/* Load path. *scope gets "passes-of-one-job" or "launches" (the
 * interval's scope in the report). Errors with one line in msg:
 * MBX_E_IO (unreadable, no OUT.obs.csv), MBX_E_PROTO (not a results
 * table), MBX_E_INVAL (a file measured without passes: its observations
 * are no units to judge by), MBX_E_NOMEM. */
MBX_NODISCARD int mbx_gl_data_load(const char *path, mbx_gl_data **out, const char **scope,
                                   char *msg, size_t msglen);
void mbx_gl_data_free(mbx_gl_data *d);

/* The sample of the point of benchmark bench in plan section label on
 * procs ranks at bytes (the first such point, whatever its root, op or
 * param), seconds, *n values; NULL with *n 0 when there is none, or its
 * row is UNRELIABLE or INVALID. */
const double *mbx_gl_data_sample(const mbx_gl_data *d, const char *bench, const char *label,
                                 int procs, uint64_t bytes, size_t *n);

/* The process counts the points of bench in section label were measured
 * on, ascending, at most max into out; returns how many. */
size_t mbx_gl_data_procs(const mbx_gl_data *d, const char *bench, const char *label, int *out,
                         size_t max);

#endif
