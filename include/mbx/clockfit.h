/* mpibex: the line of a clock model from offset samples, with the test
 * that decides whether its slope is kept (docs/algorithms.md,
 * "Observation method"). Pure arithmetic, no MPI. */
#ifndef MBX_CLOCKFIT_H
#define MBX_CLOCKFIT_H

#include <stddef.h>

#include "mbx/status.h"

typedef struct mbx_clockfit {
    double intercept, slope; /* the kept model: offset(t) = intercept + slope * t */
    double slope_fit;        /* the least-squares slope, kept or not */
    double slope_se;         /* its standard error (INFINITY with fewer than 3 samples) */
    double t_crit;           /* the threshold |slope_fit| / slope_se had to reach */
    double span;             /* seconds from the first sample to the last */
    double drift_err;        /* how fast the kept model's error may grow, seconds per
                                second: slope_se when the slope is kept, otherwise
                                |slope_fit| + slope_se */
    int slope_kept;          /* 1: the slope is significant and kept; 0: offset only */
} mbx_clockfit;

/* The two-sided 95 % critical value of Student's t with df degrees of
 * freedom (a table up to 30, then 1.96 + 2.4 / df); INFINITY for df < 1. */
double mbx_clockfit_tcrit(int df);

/* Fit offset = a + b * t through n samples (t: local times, o: offsets,
 * rtt: each sample's round trip, weighted 1 / rtt^2), centred on the
 * weighted mean time. The slope is kept only when |b| / se(b) reaches
 * t_min (0: mbx_clockfit_tcrit(n - 2), a 95 % test) and the samples span at
 * least min_span seconds; otherwise the model is the weighted mean offset
 * alone. se(b) is estimated from the weighted residuals (n - 2 degrees of
 * freedom), as the weights are only relative. Errors: MBX_E_INVAL (NULL
 * pointers, n < 1, t_min < 0, min_span < 0, non-finite input). */
MBX_NODISCARD int mbx_clockfit_line(const double *t, const double *o, const double *rtt, size_t n,
                                    double t_min, double min_span, mbx_clockfit *out);

#endif
