/* Private to the comparison of two result sets (compare.c: the tests and
 * the pairing of points; compare_read.c: reading each side, a results CSV
 * with its observation file or a directory of launches): the keys and
 * samples of each side. */
#ifndef MBX_COMPARE_INT_H
#define MBX_COMPARE_INT_H

#include <stddef.h>

#include "mbx/compare.h"
#include "mbx/pointid.h"

/* The text parts of a key (mbx/pointid.h); procs and bytes are kept as
 * numbers. */
enum {
    T_BENCH = MBX_PID_BENCH,
    T_LABEL = MBX_PID_LABEL,
    T_ROOT = MBX_PID_ROOT,
    T_OP = MBX_PID_OP,
    T_PARAM = MBX_PID_PARAM,
    T_RMA_SYNC = MBX_PID_RMA_SYNC,
    NTEXT = MBX_PID_NTEXT
};

struct ckey {
    char *text[NTEXT];
    unsigned long long procs, bytes;
    char *id;   /* the whole identity as one string (mbx_pid_key) */
    int usable; /* the status lets its values count (not UNRELIABLE, not INVALID) */
    double *v;  /* the sample, seconds */
    size_t nv, cap;
    unsigned long long *pass; /* an observation file's pass column, beside v; NULL: none */
    double row_median;        /* the results row's median_us, seconds (NaN: none, or several) */
};

struct side {
    const char *kind;            /* "launches", "pass medians", "observations" or "row medians" */
    int dir;                     /* a directory of launches */
    unsigned long long dev, ino; /* of the file or directory: one file on both sides */
    struct ckey *key;
    size_t n, cap;
    size_t hint;   /* where the last lookup hit: files list their points in one order */
    size_t launch; /* a directory: the launch being read (its values' pass field) */
};

/* A tested point's two samples (the sides' own arrays). */
struct cmp_sample {
    const double *a, *b;
    size_t na, nb;
    const unsigned long long *la, *lb; /* each value's launch (directories); NULL: none */
};

struct mbx_compare {
    struct side s[2];
    mbx_cmp_point *pt;
    struct cmp_sample *sa; /* beside pt */
    size_t npt;
    mbx_cmp_curve *cv;
    size_t ncv;
    mbx_compare_summary sum;
};

/* The curves of c's points (every part of the key but bytes), each tested
 * stratified over its sizes (c->cv, c->ncv), with BH q-values over the
 * curves and verdicts at alpha. MBX_OK or MBX_E_NOMEM. */
MBX_NODISCARD int mbx_compare_curves(mbx_compare *c, double alpha);

/* Whether key k matches (text, procs, bytes); a NULL text part matches
 * anything. 1 or 0. */
int mbx_compare_key_is(const struct ckey *k, const char *const *text, unsigned long long procs,
                       unsigned long long bytes);

/* Frees what side s holds and zeroes it. */
void mbx_compare_side_free(struct side *s);

/* Reads side s from path: a results CSV and its observation file, or a
 * directory of launches. MBX_OK or a negative mbx_status with msg set. */
MBX_NODISCARD int mbx_compare_load_side(struct side *s, const char *path, char *msg, size_t msglen);

#endif
