/* The run view's comparison of two curves (screens/ex_compare.c): the
 * series chooser, ratios and the tests of compared points. (internal) */
#ifndef MBX_EX_COMPARE_H
#define MBX_EX_COMPARE_H

#include "core/layout.h"
#include "mbx/compare.h"
#include "screens/run.h"

typedef struct explorer explorer;

struct mbx_ex_mouse;

/* The Wilcoxon rank-sum test of a compared pair of points (their pass
 * medians), kept until the run changes. */
typedef struct mbx_ex_sig {
    const mbx_ex_point *a, *b;
    size_t na, nb;
    size_t probes; /* the probes the levels came from */
    int ok;        /* 0: no test (no observations, or the test failed) */
    size_t strata; /* levels the test was stratified by; 0: all passes as one */
    size_t cut;    /* passes left out: outside the span both were measured in */
    double ratio;  /* B/A the test weighed (mbx_compare_tested_ratio); NAN: none */
    mbx_cmp_point cp;
} mbx_ex_sig;

#define EX_ALPHA 0.05 /* significance level of the comparison's verdicts */

/* The chooser, the pair compared and the tests of its points so far. */
typedef struct mbx_ex_cmp {
    int on; /* 1: series s[0] (A) and s[1] (B) are compared */
    mbx_ex_series s[2];
    int choosing; /* the series chooser: 0 closed, 1 picking A, 2 picking B */
    int cursor, top;
    mbx_rect list;   /* where the chooser's list was drawn last: clicks */
    int ratios;      /* the side column lists B/A at each common x */
    mbx_ex_sig *sig; /* tests of compared pairs so far */
    size_t nsig, capsig;
} mbx_ex_cmp;

int mbx_ex_compare_count(const explorer *x); /* curves the chooser offers */
int mbx_ex_compare_key(explorer *x, int key);
/* The chooser open: the wheel moves its cursor, a click on a curve takes
 * it (as Enter); 1 when something changed. */
int mbx_ex_compare_mouse(explorer *x, const struct mbx_ex_mouse *m);
void mbx_ex_draw_chooser(explorer *x, const mbx_rect *plot);
/* B/A at every x both curves have, in increasing x: fills xs, ratio and
 * (if not NULL) the two points, up to max; returns the count. */
int mbx_ex_compare_ratios(const explorer *x, double *xs, double *ratio, const mbx_ex_point **pa,
                          const mbx_ex_point **pb, int max);
void mbx_ex_draw_ratio_table(explorer *x, const mbx_rect *r);
/* The strip under a compared plot: B/A on a log axis centred on 1. */
void mbx_ex_draw_ratio_strip(explorer *x, const mbx_ex_xaxis *xa, int py, int px, int pw, int sh);
/* The row under it: each common point's significance (stars, or a dot). */
void mbx_ex_draw_sig_row(explorer *x, const mbx_ex_xaxis *xa, int y, int px, int pw);
/* The Wilcoxon test of A's point a against B's point b on their pass
 * medians (cached); NULL when there is none (fewer than 2 passes). */
const mbx_cmp_point *mbx_ex_compare_test(explorer *x, const mbx_ex_point *a, const mbx_ex_point *b);
/* The ratio B/A that test weighed, beside its verdict in the list: the
 * Hodges-Lehmann ratio of the passes it used (by level when it was
 * stratified); NAN when there is no test. */
double mbx_ex_compare_tested_ratio(explorer *x, const mbx_ex_point *a, const mbx_ex_point *b);
void mbx_ex_compare_forget(explorer *x); /* the run's points change */
/* "interleaved: fair; Wilcoxon 5% on pass medians: A faster at 3 x, ..." */
void mbx_ex_compare_summary(explorer *x, char *buf, size_t len);

#endif
