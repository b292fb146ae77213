/* Verdicts on a node-pair matrix (docs/algorithms.md, "Every pair of nodes"). Pure C.
 *
 * Every directed pair of nodes (src -> dst) is a cell with an estimate in
 * seconds (larger = slower: a latency, or the time of a bandwidth
 * transfer) and its 95 % CI. The log of a cell is modelled as
 * mu + u_src + u_dst + e: one symmetric effect per node (a slow node slows
 * its row and its column) against the pair effect e. The fit is robust
 * (Tukey bisquare), so one slow link does not leak into its two nodes.
 * A node is slow when its effect exceeds 1 + tol beyond doubt, a link
 * (one directed cell) when its ratio to the model's prediction does; each
 * family is Holm-adjusted at alpha. None flagged means no outlier was
 * found: the slowest node or link is never called slow by rank alone. */
#ifndef MBX_PAIRS_H
#define MBX_PAIRS_H

#include <stddef.h>

#include "mbx/status.h"

#define MBX_PAIRS_NODES_MAX 4096
#define MBX_PAIRS_TOL_DEFAULT 0.20 /* an effect must exceed 20 % */
#define MBX_PAIRS_ALPHA_DEFAULT 0.05
#define MBX_PAIRS_VERDICT_MIN_NODES 4 /* fewer: the matrix, no verdicts */

typedef struct mbx_pairs_cell {
    int src, dst;  /* node indices 0..n-1, src != dst */
    double value;  /* the cell's estimate, > 0 (seconds; larger = slower); NAN: not measured */
    double lo, hi; /* its 95 % CI; NAN when unknown */
} mbx_pairs_cell;

typedef struct mbx_pairs_opts {
    double alpha; /* family-wise error of each family (nodes; links), 0 < alpha < 0.5 */
    double tol;   /* relative tolerance: an effect counts only beyond 1 + tol, 0 <= tol <= 4 */
} mbx_pairs_opts;

typedef struct mbx_pairs_node {
    int node; /* its index */
    /* multiplicative: the node's cells run this many times the typical (1 = typical) */
    double effect;
    double lo, hi; /* 95 % CI of effect (unadjusted, two-sided) */
    double p;      /* Holm-adjusted p of H0: effect <= 1 + tol */
    int slow;      /* p < alpha */
} mbx_pairs_node;

typedef struct mbx_pairs_link {
    int src, dst;
    double ratio;  /* the cell over the model's prediction from the node effects */
    double lo, hi; /* its 95 % interval */
    double p;      /* Holm-adjusted over the cells, H0: ratio <= 1 + tol */
    int slow;
} mbx_pairs_link;

typedef struct mbx_pairs_fit {
    int n;                /* nodes */
    int cells;            /* measured cells used */
    int df;               /* residual degrees of freedom */
    double typical;       /* exp(mu): the typical cell, in the cells' unit */
    double sigma;         /* robust residual scale on the log scale (the pair effect's spread) */
    mbx_pairs_node *node; /* n entries, sorted by effect, largest first */
    mbx_pairs_link *link; /* `cells` entries, sorted by ratio, largest first (ties: input order) */
    int slow_nodes, slow_links;
    char test[200]; /* the test's name, one line, for the output */
} mbx_pairs_fit;

/* Fit the model to cell[0..ncell) of an n-node matrix and judge every
 * node and every measured cell; opts NULL: the defaults (alpha
 * MBX_PAIRS_ALPHA_DEFAULT, tol MBX_PAIRS_TOL_DEFAULT). A cell whose value
 * is NAN is left out; lo and hi may be NAN (the cell's own uncertainty is
 * then taken as 0). Effects are against the mean node (the u_i sum to 0):
 * a node that doubles its row and column among n alike nodes has effect
 * 2^((n-1)/n). On success *out owns its arrays (free them with
 * mbx_pairs_fit_free) and msg is "". Errors, with one line in msg (may be NULL):
 * MBX_E_INVAL for n < MBX_PAIRS_VERDICT_MIN_NODES or above
 * MBX_PAIRS_NODES_MAX, a NULL pointer, a node index out of range, src ==
 * dst, a cell given twice, a value <= 0 or infinite, a CI with lo <= 0 or
 * lo > hi, too few measured cells (residual df = cells - n < 3), measured
 * pairs that leave some node's effect undetermined (a node without cells,
 * or the pairs splitting the nodes in two groups), alpha or tol outside
 * their ranges; MBX_E_NOMEM. On error *out is empty (safe to free). */
MBX_NODISCARD int mbx_pairs_fit_model(const mbx_pairs_cell *cell, size_t ncell, int n,
                                      const mbx_pairs_opts *opts, mbx_pairs_fit *out, char *msg,
                                      size_t msglen);

/* Free the arrays of f and empty it; safe on an empty or NULL f. */
void mbx_pairs_fit_free(mbx_pairs_fit *f);

#endif
