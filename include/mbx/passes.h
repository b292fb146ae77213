/* mpibex: progressive measurement of one point in passes (docs/algorithms.md,
 * "Between-pass error").
 *
 * A point is measured in several short passes, separated in time and
 * interleaved with other points by the scheduler. Each pass gives its
 * median, its observation count, its start and end in run seconds and,
 * when the level monitor knows it, the machine level it ran at. This module
 * turns those passes into the point's value and an error bar that comes
 * from the spread BETWEEN passes, so drift and level changes within the run
 * are inside it (the within-burst iid error is not: timings are
 * autocorrelated, and one burst agrees with itself, not with the run).
 *
 * The passes form units (each pass, or with tau > 0 the passes within tau
 * of a unit's first start, or with two or more level ids whose pass
 * medians differ by more than eps the runs on one level); a unit's value is the median of its pass
 * medians. With u(1) <= ... <= u(K) the sorted unit values:
 *  - value  = median of all pass medians (type 7, as mbx/stats.h);
 *  - CI     = the order-statistic interval of the median of the u at its
 *             achieved level: [u(1), u(K)] (level 1 - 2^(1-K)) below 6
 *             units, else interpolated geometrically to 95 % between the
 *             bracketing order statistics (Hettmansperger-Sheather); it
 *             lies within [u(1), u(K)] (widened to contain value), and is
 *             at least the timer resolution wide;
 *  - relerr = ln(ci_hi / ci_lo) / (2 z), z the normal quantile of the
 *             level (1.96 from 6 units): the half-width on the log scale
 *             read as a standard error; se = relerr * value;
 *  - cirel  = (ci_hi - ci_lo) / (2 value);
 *  - cv     = 1.4826 b_K MAD(u) / value, the units' own robust spread.
 * A point is SETTLED when it has at least min_passes units, they span at
 * least min_span seconds (last end - first start), and the figure its
 * stop kind watches (relerr, cirel with a 95 % interval, or cv; see
 * mbx_passes_watched) is below eps (docs/algorithms.md, "Stop rules").
 *
 * Pure C, no MPI, no printing; meant for the scheduler on rank 0. An
 * mbx_passes object is not thread-safe; distinct objects are independent. */
#ifndef MBX_PASSES_H
#define MBX_PASSES_H

#include <stddef.h>

#include "mbx/status.h"
#include "mbx/stop.h"

#define MBX_PASSES_DEFAULT_EPS 0.03
#define MBX_PASSES_DEFAULT_MIN 5    /* R */
#define MBX_PASSES_DEFAULT_SPAN 1.0 /* S, seconds of run time */
#define MBX_PASSES_NO_LEVEL (-1)    /* a pass without a level id */
/* Pass medians this far apart (the second greatest over the second
 * least, minus 1) felt the probes' levels, whatever level ids the passes
 * carry: the levels' own least step (mbx/levels.h, min_rel). */
#define MBX_PASSES_FELT_SHIFT 0.2
#define MBX_PASSES_MAX 1000000 /* passes one point may hold */
/* A settled point's watched figure stays under this many times EPS: a
 * guard for a pilot of 2 or 3 units, whose figure is rough (at the
 * default 5 it never binds in the simulations; docs/algorithms.md). */
#define MBX_PASSES_SETTLED_GUARD 3.0

/* One pass of one point. median in seconds (finite, > 0); n >= 1;
 * t_start <= t_end, both finite, in seconds since the run started; level
 * >= 0 or MBX_PASSES_NO_LEVEL. */
typedef struct mbx_pass {
    double median;
    size_t n;
    double t_start, t_end;
    int level;
} mbx_pass;

typedef struct mbx_passes_opts {
    double eps;        /* target relative error, 0 < eps < 1 */
    size_t min_passes; /* R >= 1, counted in units */
    double min_span;   /* S >= 0, seconds */
    /* Decorrelation time of the machine, seconds; 0 = passes independent.
     * With tau > 0, passes in time order form units: a pass starting less
     * than tau after the start of the current unit's first pass joins it
     * (docs/algorithms.md, "Between-pass error"). Finite, >= 0. */
    double tau;
    /* Timer resolution, seconds; 0 = none. Floors the interval's
     * half-width. Finite, >= 0. */
    double resolution;
    /* The plan's stop kind (mbx_stop_kind): which figure must fall below
     * eps (mbx_passes_watched). MBX_STOP_FIXED settles as stderr does. */
    int kind;
} mbx_passes_opts;

typedef enum mbx_passes_verdict {
    MBX_PASSES_EMPTY = 0,   /* no pass yet */
    MBX_PASSES_FEW = 1,     /* fewer than min_passes passes */
    MBX_PASSES_SHORT = 2,   /* enough passes, span below min_span */
    MBX_PASSES_NOISY = 3,   /* enough passes and span, relerr >= eps */
    MBX_PASSES_SETTLED = 4, /* every condition met */
} mbx_passes_verdict;

/* The between-pass statistics of R pass medians, or of K units. */
typedef struct mbx_between {
    size_t r;            /* pass medians */
    double value;        /* median of the pass medians */
    double mad;          /* median absolute deviation of the units (raw) */
    double sd;           /* robust sd of one unit, 1.4826 b_K MAD; NAN if < 2 units */
    double se;           /* relerr * value; NAN if fewer than 2 units */
    double ci_lo, ci_hi; /* CI of value (equal to value with one unit) */
    double level;        /* achieved level of the order statistics (0.95 from 6) */
    int ci_exact;        /* 1 if level >= 0.95 */
    double relerr;       /* log half-width / z; NAN if fewer than 2 units */
    double cirel;        /* (ci_hi - ci_lo) / (2 value); NAN if fewer than 2 units */
    double cv;           /* sd / value; NAN if fewer than 2 units */
} mbx_between;

typedef struct mbx_passes_result {
    mbx_between b;      /* value, se, CI, relerr (b.r = passes) */
    size_t units;       /* units of the error: passes, tau groups, level visits */
    size_t n_obs;       /* observations over all passes */
    double first_start; /* earliest t_start (NAN with no pass) */
    double last_end;    /* latest t_end (NAN with no pass) */
    double span;        /* last_end - first_start (0 with no pass) */
    size_t nlevels;     /* distinct level ids among the passes */
    int straddles;      /* 1 if nlevels >= 2 */
    mbx_passes_verdict verdict;
    double priority;   /* mbx_passes_priority of this state */
    size_t pilot_need; /* units the pilot fixed (two-stage rule); 0 before it */
} mbx_passes_result;

/* Per-level summary of the passes that carry one level id. */
typedef struct mbx_passes_level {
    int level;     /* the id */
    size_t passes; /* passes at this level */
    double median; /* median of their pass medians */
} mbx_passes_level;

typedef struct mbx_passes mbx_passes; /* one point's passes (opaque) */

/* Fill *o with the defaults (eps 3 %, R = 5, S = 1 s, tau 0, no
 * resolution, kind stderr). */
void mbx_passes_opts_init(mbx_passes_opts *o);

/* Between-pass statistics of m[0..r) (any order; positive finite values).
 * scratch must hold r doubles (it receives the sorted values; m may be
 * scratch). Errors: MBX_E_INVAL for r == 0, a NULL pointer or a value that
 * is not finite and positive. Usable on its own, e.g. over K launches. */
MBX_NODISCARD int mbx_passes_between(const double *m, size_t r, double *scratch, mbx_between *out);

/* The figure stop kind `kind` (mbx_stop_kind) compares with eps: cirel
 * for MBX_STOP_CI (NAN unless ci_exact: a 93.75 % interval is not the
 * 95 % one the rule names), cv for MBX_STOP_CV, relerr otherwise. NAN
 * when undefined (b NULL, fewer than 2 units): never below eps. */
double mbx_passes_watched(int kind, const mbx_between *b);

/* A new, empty point with options o (NULL: defaults), copied. Errors:
 * MBX_E_INVAL (NULL out, eps outside (0, 1), min_passes 0 or above
 * MBX_PASSES_MAX, min_span negative or not finite), MBX_E_NOMEM. *out is
 * NULL on error. Free with mbx_passes_free (NULL is fine). */
MBX_NODISCARD int mbx_passes_create(const mbx_passes_opts *o, mbx_passes **out);
void mbx_passes_free(mbx_passes *p);

/* Set the decorrelation time tau (seconds, finite, >= 0; 0 = passes
 * independent) for the next mbx_passes_result_get; the passes already held
 * are regrouped then. Errors: MBX_E_INVAL (NULL p, tau negative or not
 * finite); p is then unchanged. */
MBX_NODISCARD int mbx_passes_set_tau(mbx_passes *p, double tau);

/* Append one pass (copied). Passes may arrive in any time order. Errors:
 * MBX_E_INVAL (NULL, a field outside the ranges of mbx_pass), MBX_E_RANGE
 * (already MBX_PASSES_MAX passes), MBX_E_NOMEM; p is then unchanged. */
MBX_NODISCARD int mbx_passes_add(mbx_passes *p, const mbx_pass *pass);

/* Passes held (0 for NULL). */
size_t mbx_passes_count(const mbx_passes *p);

/* Everything the scheduler and the front ends report about the point.
 * With no pass, the verdict is MBX_PASSES_EMPTY and the numbers are NAN.
 * Errors: MBX_E_INVAL (NULL), MBX_E_NOMEM. */
MBX_NODISCARD int mbx_passes_result_get(const mbx_passes *p, mbx_passes_result *out);

/* How far the point is from its target, for choosing which points get the
 * next pass (larger first): INFINITY with fewer than 2 passes (no error
 * known yet), 0 when SETTLED, otherwise max(relerr / eps, 1) plus
 * (min_passes - passes) when passes are missing. A point that only lacks
 * span gets exactly 1: it needs a pass later in the run, not urgently.
 * Errors: MBX_E_INVAL, MBX_E_NOMEM. */
MBX_NODISCARD int mbx_passes_priority(const mbx_passes *p, double *out);

/* Rough number of further passes that would bring relerr under eps if the
 * between-pass spread stays as it is (relerr falls as 1/sqrt(R)), and at
 * least what min_passes still asks for. When the error is counted over
 * level visits, passes within one visit add little: the figure is then a
 * lower bound; 0 when SETTLED, SIZE_MAX when
 * unknown (fewer than 2 passes, or a zero or NaN value). r is a result
 * of mbx_passes_result_get on p. */
size_t mbx_passes_needed(const mbx_passes *p, const mbx_passes_result *r);

/* Per-level medians of the passes that carry a level id, ascending by id.
 * Writes at most cap entries to out (out may be NULL when cap is 0) and
 * the number of distinct ids to *nlevels (which may exceed cap: call again
 * with a larger array). Errors: MBX_E_INVAL (NULL p or nlevels, NULL out
 * with cap > 0), MBX_E_NOMEM. */
MBX_NODISCARD int mbx_passes_levels(const mbx_passes *p, mbx_passes_level *out, size_t cap,
                                    size_t *nlevels);

/* A short static name of a verdict ("SETTLED", "FEW_PASSES", ...). */
const char *mbx_passes_verdict_name(mbx_passes_verdict v);

#endif
