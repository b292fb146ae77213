/* Internal to the core library: the working state of the node-pair model
 * (engine/core/pairs.c fits it, engine/core/pairs_verdict.c judges it;
 * docs/algorithms.md, "Every pair of nodes"). */
#ifndef MBX_CORE_PAIRS_INT_H
#define MBX_CORE_PAIRS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/pairs.h"

/* Up to this many nodes the nodes' standard errors come from the inverse
 * of the weighted design (O(n^3) once); above, from each node's own
 * weights, whose error is O(1/n^2) in the balanced case. */
#define MBX_PAIRS_DENSE_MAX 256

/* The measured cells, compacted, and the fit. Cell k is the k-th cell of
 * the caller's array whose value is not NAN. A cell's prediction is
 * a[s] + a[d], a_i = mu / 2 + u_i: the sum-to-zero constraint on u is
 * applied only when the effects are reported, so the fit has no
 * constraint to carry. */
typedef struct mbx_pairs_work {
    int n;
    size_t m;         /* measured cells */
    int df;           /* m - n */
    uint16_t *s, *d;  /* endpoints (n <= MBX_PAIRS_NODES_MAX fits 16 bits) */
    double *y;        /* log(value) */
    float *w;         /* the final bisquare weights (float: the solver's passes
                       * read them at every step, and precision is moot) */
    double *a;        /* n entries */
    double sigma;     /* robust residual scale of the final fit */
    uint32_t *sample; /* the cells medians are taken over; NULL: all */
    size_t nsample;
} mbx_pairs_work;

/* Judge the fitted model: nodes and links into f (allocated here), sorted;
 * cell is the caller's array (the cells' CIs). 0 or MBX_E_NOMEM. */
int mbx_pairs_judge(const mbx_pairs_work *wk, const mbx_pairs_cell *cell, size_t ncell,
                    double alpha, double tol, mbx_pairs_fit *f);

#endif
