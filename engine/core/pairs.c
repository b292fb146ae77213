/* The node-pair model (mbx/pairs.h): checking the matrix, and the robust
 * fit of y = log(value) = a_src + a_dst + e (a_i = mu / 2 + u_i). The
 * verdicts are engine/core/pairs_verdict.c's; the method and why is in
 * docs/algorithms.md, "Every pair of nodes".
 *
 * The fit is a Tukey bisquare M-estimate by iteratively reweighted least
 * squares, started from a median fit: the slow link looked for is itself
 * an outlier, and a least-squares start would spread it over its two
 * nodes and the pairs around them, and on few nodes lead the reweighting
 * astray. Each weighted least-squares step is solved by conjugate
 * gradients preconditioned with each node's own weight: the normal
 * matrix is each node's weight on its diagonal plus the pairs' weights
 * off it, and off the all-ones direction its spectrum clusters near 1
 * (within O(1/n) for a complete matrix), so a few iterations of O(cells)
 * each solve it at any n; a dense solve would cost O(n^3) per step. On
 * up to 8 nodes, where a slow node and a slow link can be traded, the fit
 * is started from every pair left out too (multistart()). */
#include "mbx/pairs.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "pairs_int.h"

#define BISQUARE_C 4.685 /* 95 % efficiency at normal errors */
#define MAD_NORMAL 1.4826
/* A floor on the scale, relative on the cells' log scale: identical
 * cells (a noiseless matrix, a coarse timer) must not divide by 0. */
#define SIGMA_FLOOR 1e-6
#define IRLS_MAX 100
#define POLISH_SWEEPS 4
#define CG_MAX 400
/* Up to this many nodes the fit is started from every pair left out too. */
#define MULTISTART_MAX 8
#define CG_TOL 1e-5
/* Medians over all cells take about this many at most. */
#define SAMPLE_CELLS ((size_t)1 << 18) /* see pick_sample() */
#define NODE_CELLS 256

/* The median of v[0..n), n > 0; v is reordered (Wirth's selection with a
 * median-of-three pivot, which leaves v[0..n/2) <= v[n/2]). */
static double median_of(double *v, size_t n)
{
    ptrdiff_t k = (ptrdiff_t)(n / 2), l = 0, h = (ptrdiff_t)n - 1;
    while (l < h) {
        double a = v[l], b = v[k], c = v[h];
        double x = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        ptrdiff_t i = l, j = h;
        do {
            while (v[i] < x)
                i++;
            while (x < v[j])
                j--;
            if (i <= j) {
                double t = v[i];
                v[i++] = v[j], v[j--] = t;
            }
        } while (i <= j);
        if (j < k)
            l = i;
        if (k < i)
            h = j;
    }
    double upper = v[k];
    if (n % 2)
        return upper;
    double lower = v[0];
    for (ptrdiff_t i = 1; i < k; i++)
        if (v[i] > lower)
            lower = v[i];
    return (lower + upper) / 2;
}

static double resid(const mbx_pairs_work *wk, size_t k)
{
    return wk->y[k] - wk->a[wk->s[k]] - wk->a[wk->d[k]];
}

/* The cells the medians over all cells are taken over: above
 * SAMPLE_CELLS, a fixed pseudo-random SAMPLE_CELLS of them (by a hash of
 * the cell's index, so no stride of the caller's order aliases). A median
 * of 2^18 values is within about 0.2 % of the whole's, and selecting in
 * 16.8 million cells (4096 nodes) at every step would cost most of the
 * fit. 0, or MBX_E_NOMEM. */
static int pick_sample(mbx_pairs_work *wk)
{
    if (wk->m <= SAMPLE_CELLS)
        return MBX_OK;
    wk->sample = malloc(2 * SAMPLE_CELLS * sizeof *wk->sample);
    if (!wk->sample)
        return MBX_E_NOMEM;
    double cut = 0x1p64 * (double)SAMPLE_CELLS / (double)wk->m;
    for (size_t k = 0; k < wk->m && wk->nsample < 2 * SAMPLE_CELLS; k++) {
        uint64_t z = (uint64_t)k * 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        if ((double)(z ^ (z >> 31)) < cut)
            wk->sample[wk->nsample++] = (uint32_t)k;
    }
    return MBX_OK;
}

/* The residuals (or, y, the values) of the sample's cells into tmp; their
 * count. tmp: m doubles, or 2 SAMPLE_CELLS above that many cells. */
static size_t gather(const mbx_pairs_work *wk, int y, double *tmp)
{
    size_t c = wk->sample ? wk->nsample : wk->m;
    for (size_t t = 0; t < c; t++) {
        size_t k = wk->sample ? wk->sample[t] : t;
        tmp[t] = y ? wk->y[k] : resid(wk, k);
    }
    return c;
}

/* The median of the residuals (of the sample); tmp: see gather(). */
static double resid_median(const mbx_pairs_work *wk, double *tmp)
{
    return median_of(tmp, gather(wk, 0, tmp));
}

/* MAD x 1.4826 of the residuals, times sqrt(m / df): the residuals of a
 * fit with n parameters spread less than the errors, which matters on few
 * nodes (12 cells and 4 nodes: by sqrt(3/2)). tmp: see gather(). */
static double robust_scale(const mbx_pairs_work *wk, double *tmp)
{
    size_t c = gather(wk, 0, tmp);
    double med = median_of(tmp, c);
    for (size_t k = 0; k < c; k++)
        tmp[k] = fabs(tmp[k] - med);
    double s = MAD_NORMAL * median_of(tmp, c) * sqrt((double)wk->m / wk->df);
    return s > SIGMA_FLOOR ? s : SIGMA_FLOOR;
}

/* q = (M + ridge I) p, M the weighted normal matrix: every cell adds its
 * weight times p_s + p_d to both its ends. */
static void normal_times(const mbx_pairs_work *wk, double ridge, const double *p, double *q)
{
    for (int i = 0; i < wk->n; i++)
        q[i] = ridge * p[i];
    for (size_t k = 0; k < wk->m; k++) {
        double t = wk->w[k] * (p[wk->s[k]] + p[wk->d[k]]);
        q[wk->s[k]] += t;
        q[wk->d[k]] += t;
    }
}

/* Weighted least squares from the current a, for the current weights or
 * (reweight) the bisquare weights of the current residuals at the
 * current sigma, set in the same pass. tmp: 5 n doubles. */
static void wls_solve(mbx_pairs_work *wk, int reweight, double *tmp)
{
    int n = wk->n;
    double *r = tmp, *z = tmp + n, *p = tmp + 2 * n, *q = tmp + 3 * n, *pre = tmp + 4 * n;
    double *dg = q; /* the diagonal first, then q */
    memset(r, 0, (size_t)n * sizeof *r);
    memset(dg, 0, (size_t)n * sizeof *dg);
    for (size_t k = 0; k < wk->m; k++) {
        double e = resid(wk, k);
        if (reweight) {
            double u = e / (BISQUARE_C * wk->sigma);
            wk->w[k] = fabs(u) < 1 ? (float)((1 - u * u) * (1 - u * u)) : 0;
        }
        double t = wk->w[k] * e;
        r[wk->s[k]] += t, r[wk->d[k]] += t;
        dg[wk->s[k]] += wk->w[k], dg[wk->d[k]] += wk->w[k];
    }
    /* The ridge keeps effects the weights leave undetermined (cells
     * rejected until the pairs split the nodes in two groups, or all of
     * a node's) where they were, instead of letting rounding move them
     * without bound; at 1e-10 of the largest weight it moves determined
     * ones by as little. */
    double rz = 0, r0, ridge = 0;
    for (int i = 0; i < n; i++)
        ridge = fmax(ridge, 1e-10 * dg[i]);
    for (int i = 0; i < n; i++)
        pre[i] = dg[i] + ridge > 0 ? 1 / (dg[i] + ridge) : 0;
    for (int i = 0; i < n; i++)
        p[i] = z[i] = pre[i] * r[i], rz += r[i] * z[i];
    r0 = rz;
    for (int it = 0; it < CG_MAX && rz > CG_TOL * CG_TOL * r0 && rz > 0; it++) {
        normal_times(wk, ridge, p, q);
        double pq = 0;
        for (int i = 0; i < n; i++)
            pq += p[i] * q[i];
        if (!(pq > 0))
            break;
        double al = rz / pq, rz1 = 0;
        for (int i = 0; i < n; i++) {
            wk->a[i] += al * p[i];
            r[i] -= al * q[i];
            z[i] = pre[i] * r[i];
            rz1 += r[i] * z[i];
        }
        for (int i = 0; i < n; i++)
            p[i] = z[i] + rz1 / rz * p[i];
        rz = rz1;
    }
}

/* The median start: per node, the median of its cells' residuals moves
 * its effect (Gauss-Seidel over the nodes), then the median of all
 * residuals moves the level; a few sweeps. A node's median is taken over
 * at most NODE_CELLS of its cells, evenly spread: a start needs to be
 * near, not exact. off/idx: the cells of each node
 * (idx[off[i]..off[i+1])); tmp: see gather(); v: 2 (n - 1) doubles. */
static void median_start(mbx_pairs_work *wk, const size_t *off, const uint32_t *idx, double *tmp,
                         double *v)
{
    int n = wk->n;
    size_t c = gather(wk, 1, tmp);
    double level = median_of(tmp, c) / 2;
    for (int i = 0; i < n; i++)
        wk->a[i] = level;
    for (int sweep = 0; sweep < POLISH_SWEEPS; sweep++) {
        for (int i = 0; i < n; i++) {
            size_t cnt = off[i + 1] - off[i], step = (cnt + NODE_CELLS - 1) / NODE_CELLS;
            c = 0;
            for (size_t t = off[i]; t < off[i + 1]; t += step)
                v[c++] = resid(wk, idx[t]);
            wk->a[i] += median_of(v, c);
        }
        double shift = resid_median(wk, tmp) / 2;
        for (int i = 0; i < n; i++)
            wk->a[i] += shift;
    }
}

/* Every node has a cell, and the measured pairs tie all effects
 * together: the graph of pairs is connected and not bipartite (on a
 * bipartite graph one group's effects can rise as the other's fall).
 * A 2-colouring by breadth-first search finds both. */
static int check_tied(const mbx_pairs_work *wk, const size_t *off, const uint32_t *idx, char *msg,
                      size_t msglen)
{
    int n = wk->n, rc = MBX_OK;
    for (int i = 0; i < n; i++)
        if (off[i] == off[i + 1]) {
            mbx_msgf(msg, msglen, "node %d has no measured cell: its effect is undetermined", i);
            return MBX_E_INVAL;
        }
    signed char *col = malloc((size_t)n);
    int *queue = malloc((size_t)n * sizeof *queue);
    if (!col || !queue) {
        free(col), free(queue);
        return MBX_E_NOMEM;
    }
    memset(col, -1, (size_t)n);
    int head = 0, tail = 0, odd = 0;
    col[0] = 0, queue[tail++] = 0;
    while (head < tail) {
        int i = queue[head++];
        for (size_t t = off[i]; t < off[i + 1]; t++) {
            int j = wk->s[idx[t]] == i ? wk->d[idx[t]] : wk->s[idx[t]];
            if (col[j] < 0)
                col[j] = (signed char)!col[i], queue[tail++] = j;
            else if (col[j] == col[i])
                odd = 1;
        }
    }
    if (tail < n) {
        int j = 0;
        while (col[j] >= 0)
            j++;
        mbx_msgf(msg, msglen,
                 "the measured pairs split the nodes into groups with no pair between them "
                 "(node 0 and node %d): their effects are undetermined",
                 j);
        rc = MBX_E_INVAL;
    } else if (!odd) {
        int j = 1;
        while (col[j] == col[0])
            j++;
        mbx_msgf(msg, msglen,
                 "every measured pair joins two groups of nodes (node 0's and node %d's): one "
                 "group's effects could rise as the other's fall",
                 j);
        rc = MBX_E_INVAL;
    }
    free(col), free(queue);
    return rc;
}

/* The cells of each node: off (n + 1, and n more for the filling) and
 * idx (2 m). */
static void index_nodes(const mbx_pairs_work *wk, size_t *off, uint32_t *idx)
{
    memset(off, 0, ((size_t)wk->n + 1) * sizeof *off);
    for (size_t k = 0; k < wk->m; k++)
        off[wk->s[k] + 1]++, off[wk->d[k] + 1]++;
    for (int i = 0; i < wk->n; i++)
        off[i + 1] += off[i];
    size_t *fill = off + wk->n + 1; /* n more entries */
    memcpy(fill, off, (size_t)wk->n * sizeof *fill);
    for (size_t k = 0; k < wk->m; k++) {
        idx[fill[wk->s[k]]++] = (uint32_t)k;
        idx[fill[wk->d[k]]++] = (uint32_t)k;
    }
}

/* Reweight until the effects move by less than 1e-4 of the scale (their
 * standard errors are at least 1 % of it, at 4096 nodes). */
static int irls(mbx_pairs_work *wk, double *tmp)
{
    int n = wk->n;
    double *prev = malloc(6 * (size_t)n * sizeof *prev);
    if (!prev)
        return MBX_E_NOMEM;
    for (int it = 0; it < IRLS_MAX; it++) {
        wk->sigma = robust_scale(wk, tmp);
        memcpy(prev, wk->a, (size_t)n * sizeof *prev);
        wls_solve(wk, 1, prev + n);
        double moved = 0;
        for (int i = 0; i < n; i++)
            moved = fmax(moved, fabs(wk->a[i] - prev[i]));
        if (moved <= 1e-4 * wk->sigma)
            break;
    }
    free(prev);
    /* The weights stay those the last step solved with; the scale is the
     * final residuals'. */
    wk->sigma = robust_scale(wk, tmp);
    return MBX_OK;
}

/* The bisquare loss of the fit a at the scale sigma: 1 for each cell
 * beyond c sigma, rho(t) = 1 - (1 - t^2)^3 within. */
static double bisquare_loss(const mbx_pairs_work *wk, const double *a, double sigma)
{
    double sum = 0;
    for (size_t k = 0; k < wk->m; k++) {
        double t = (wk->y[k] - a[wk->s[k]] - a[wk->d[k]]) / (BISQUARE_C * sigma);
        double q = 1 - t * t;
        sum += fabs(t) < 1 ? 1 - q * q * q : 1;
    }
    return sum;
}

/* The sum of squares of the effects u_i = a_i - mean a. */
static double effect_spread(const double *a, int n)
{
    double mean = 0, ss = 0;
    for (int i = 0; i < n; i++)
        mean += a[i] / n;
    for (int i = 0; i < n; i++)
        ss += (a[i] - mean) * (a[i] - mean);
    return ss;
}

/* The cells' own noise, which no fit has chosen: MAD x 1.4826 of the
 * differences between the two directions of the pairs measured both
 * ways, over sqrt(2) (node effects, and a link slow both ways, cancel in
 * them). 0 when fewer than 3 pairs have both. n <= MULTISTART_MAX. */
static double direction_scale(const mbx_pairs_work *wk)
{
    int n = wk->n, at[MULTISTART_MAX * MULTISTART_MAX];
    double diff[MULTISTART_MAX * MULTISTART_MAX / 2];
    size_t nd = 0;
    for (int i = 0; i < n * n; i++)
        at[i] = -1;
    for (size_t k = 0; k < wk->m; k++)
        at[wk->s[k] * n + wk->d[k]] = (int)k;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (at[i * n + j] >= 0 && at[j * n + i] >= 0)
                diff[nd++] = fabs(wk->y[at[i * n + j]] - wk->y[at[j * n + i]]);
    return nd >= 3 ? MAD_NORMAL * median_of(diff, nd) / sqrt(2) : 0;
}

/* On few nodes a slow node and a slow link can be traded. On 4 nodes (6
 * pairs, 4 effects) a link slow by f has an exact twin, the pair that
 * shares no node with it, slow by f, with other node effects: a slow node
 * with a slow link fits as well as a fast node, two slow ones and the
 * other link. And the reweighting may settle on either, from any one
 * start. So up to MULTISTART_MAX nodes the fit is also started from least
 * squares without each pair in turn (n (n - 1) / 2 starts); the bisquare
 * loss of every fit is taken at one scale that none of them chose (a fit
 * that rejects more cells has a smaller scale of its own, and at it would
 * look best), the directions' noise; and of the fits within one rejected
 * cell of the smallest loss the one with the smallest node effects (sum
 * of u_i^2) wins: no node is slower than the data need. The median start
 * is the first candidate and wins ties. tmp: see gather(). */
static int multistart(mbx_pairs_work *wk, double *tmp)
{
    int n = wk->n, npairs = n * (n - 1) / 2, rc = MBX_E_NOMEM;
    size_t stride = (size_t)n;
    double *cand = malloc((size_t)(npairs + 1) * stride * sizeof *cand);
    double *ws = malloc(5 * (size_t)n * sizeof *ws);
    double *loss = malloc((size_t)(npairs + 1) * sizeof *loss);
    if (!cand || !ws || !loss)
        goto out;
    memcpy(cand, wk->a, (size_t)n * sizeof *cand);
    double ref = direction_scale(wk), smin = wk->sigma;
    int c = 1;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++, c++) {
            for (size_t k = 0; k < wk->m; k++)
                wk->w[k] =
                    (wk->s[k] == i && wk->d[k] == j) || (wk->s[k] == j && wk->d[k] == i) ? 0 : 1;
            memcpy(wk->a, cand, (size_t)n * sizeof *wk->a);
            wls_solve(wk, 0, ws);
            if ((rc = irls(wk, tmp)) != MBX_OK)
                goto out;
            memcpy(cand + (size_t)c * stride, wk->a, (size_t)n * sizeof *cand);
            smin = fmin(smin, wk->sigma);
        }
    if (!(ref > SIGMA_FLOOR))
        ref = smin;
    double jmin = INFINITY, spread_best = INFINITY;
    for (c = 0; c <= npairs; c++)
        jmin = fmin(jmin, loss[c] = bisquare_loss(wk, cand + (size_t)c * stride, ref));
    int best = 0;
    for (c = 0; c <= npairs; c++) {
        double spread = effect_spread(cand + (size_t)c * stride, n);
        if (loss[c] <= jmin + 1 && spread < spread_best * (1 - 1e-9))
            spread_best = spread, best = c;
    }
    /* Once more from the winner, for its weights and scale. */
    memcpy(wk->a, cand + (size_t)best * stride, (size_t)n * sizeof *wk->a);
    rc = irls(wk, tmp);
out:
    free(cand), free(ws), free(loss);
    return rc;
}

/* Each cell's indices, value and CI; *m gets the measured cells. */
static int check_cells(const mbx_pairs_cell *cell, size_t ncell, int n, size_t *m, char *msg,
                       size_t msglen)
{
    unsigned char *seen = calloc(((size_t)n * (size_t)n + 7) / 8, 1);
    if (!seen)
        return MBX_E_NOMEM;
    int rc = MBX_OK;
    *m = 0;
    for (size_t k = 0; k < ncell && rc == MBX_OK; k++) {
        const mbx_pairs_cell *c = &cell[k];
        rc = MBX_E_INVAL;
        if (c->src < 0 || c->src >= n || c->dst < 0 || c->dst >= n) {
            mbx_msgf(msg, msglen, "cell %zu: %d -> %d is outside nodes 0..%d", k, c->src, c->dst,
                     n - 1);
            break;
        }
        if (c->src == c->dst) {
            mbx_msgf(msg, msglen, "cell %zu: %d -> %d is on the diagonal, which has no cell", k,
                     c->src, c->dst);
            break;
        }
        size_t bit = (size_t)c->src * (size_t)n + (size_t)c->dst;
        if (seen[bit / 8] & (1u << bit % 8)) {
            mbx_msgf(msg, msglen, "cell %zu: %d -> %d is given twice", k, c->src, c->dst);
            break;
        }
        seen[bit / 8] |= (unsigned char)(1u << bit % 8);
        rc = MBX_OK;
        if (isnan(c->value))
            continue;
        if (!(c->value > 0) || isinf(c->value)) {
            mbx_msgf(msg, msglen, "cell %zu: %d -> %d has value %g, not a positive time", k, c->src,
                     c->dst, c->value);
            rc = MBX_E_INVAL;
        } else if (!isnan(c->lo) && !isnan(c->hi) && !(c->lo > 0 && c->lo <= c->hi)) {
            mbx_msgf(msg, msglen, "cell %zu: %d -> %d has the CI %g..%g, not 0 < lo <= hi", k,
                     c->src, c->dst, c->lo, c->hi);
            rc = MBX_E_INVAL;
        }
        (*m)++;
    }
    free(seen);
    return rc;
}

static void work_free(mbx_pairs_work *wk)
{
    free(wk->s), free(wk->d), free(wk->y), free(wk->w), free(wk->a), free(wk->sample);
}

/* Compact the measured cells and fit them (docs/algorithms.md, "Every
 * pair of nodes"). */
static int fit(const mbx_pairs_cell *cell, size_t ncell, mbx_pairs_work *wk, char *msg,
               size_t msglen)
{
    size_t m = wk->m, n = (size_t)wk->n;
    size_t nscratch = m < 2 * SAMPLE_CELLS ? m : 2 * SAMPLE_CELLS; /* see pick_sample() */
    wk->s = malloc(m * sizeof *wk->s);
    wk->d = malloc(m * sizeof *wk->d);
    wk->y = malloc(m * sizeof *wk->y);
    wk->w = malloc(m * sizeof *wk->w);
    wk->a = malloc(n * sizeof *wk->a);
    uint32_t *idx = malloc(2 * m * sizeof *idx); /* the cells of each node */
    size_t *off = malloc((2 * n + 1) * sizeof *off);
    double *v = malloc(2 * n * sizeof *v), *scratch = malloc(nscratch * sizeof *scratch);
    int rc = MBX_E_NOMEM;
    if (!wk->s || !wk->d || !wk->y || !wk->w || !wk->a || !idx || !off || !v || !scratch)
        goto out;
    for (size_t k = 0, j = 0; k < ncell; k++) {
        if (isnan(cell[k].value))
            continue;
        wk->s[j] = (uint16_t)cell[k].src;
        wk->d[j] = (uint16_t)cell[k].dst;
        wk->y[j++] = log(cell[k].value);
    }
    if ((rc = pick_sample(wk)) != MBX_OK)
        goto out;
    index_nodes(wk, off, idx);
    if ((rc = check_tied(wk, off, idx, msg, msglen)) != MBX_OK)
        goto out;
    median_start(wk, off, idx, scratch, v);
    free(idx), free(off);
    idx = NULL, off = NULL;
    rc = irls(wk, scratch);
    if (rc == MBX_OK && wk->n <= MULTISTART_MAX)
        rc = multistart(wk, scratch);
out:
    free(idx), free(off), free(v), free(scratch);
    return rc;
}

int mbx_pairs_fit_model(const mbx_pairs_cell *cell, size_t ncell, int n, const mbx_pairs_opts *opts,
                        mbx_pairs_fit *out, char *msg, size_t msglen)
{
    mbx_msgf(msg, msglen, "%s", "");
    if (!out) {
        mbx_msgf(msg, msglen, "no place for the fit");
        return MBX_E_INVAL;
    }
    memset(out, 0, sizeof *out);
    double alpha = opts ? opts->alpha : MBX_PAIRS_ALPHA_DEFAULT;
    double tol = opts ? opts->tol : MBX_PAIRS_TOL_DEFAULT;
    if (!(alpha > 0 && alpha < 0.5)) {
        mbx_msgf(msg, msglen, "alpha %g is outside 0 < alpha < 0.5", alpha);
        return MBX_E_INVAL;
    }
    if (!(tol >= 0 && tol <= 4)) {
        mbx_msgf(msg, msglen, "tolerance %g is outside 0..4", tol);
        return MBX_E_INVAL;
    }
    if (n < MBX_PAIRS_VERDICT_MIN_NODES) {
        mbx_msgf(msg, msglen, "verdicts need %d nodes or more; the matrix has %d",
                 MBX_PAIRS_VERDICT_MIN_NODES, n);
        return MBX_E_INVAL;
    }
    if (n > MBX_PAIRS_NODES_MAX) {
        mbx_msgf(msg, msglen, "at most %d nodes; the matrix has %d", MBX_PAIRS_NODES_MAX, n);
        return MBX_E_INVAL;
    }
    if (!cell && ncell) {
        mbx_msgf(msg, msglen, "no cells");
        return MBX_E_INVAL;
    }
    mbx_pairs_work wk = {.n = n};
    int rc = check_cells(cell, ncell, n, &wk.m, msg, msglen);
    if (rc == MBX_OK && wk.m < (size_t)n + 3) {
        mbx_msgf(msg, msglen,
                 "too few measured cells for the model: %zu for %d nodes leave %lld residual "
                 "degrees of freedom, and it needs 3",
                 wk.m, n, (long long)wk.m - n);
        rc = MBX_E_INVAL;
    }
    wk.df = (int)wk.m - n;
    if (rc == MBX_OK)
        rc = fit(cell, ncell, &wk, msg, msglen);
    if (rc == MBX_OK)
        rc = mbx_pairs_judge(&wk, cell, ncell, alpha, tol, out);
    work_free(&wk);
    if (rc != MBX_OK)
        mbx_pairs_fit_free(out);
    if (rc == MBX_E_NOMEM)
        mbx_msgf(msg, msglen, "out of memory for a matrix of %d nodes and %zu cells", n, ncell);
    return rc;
}

void mbx_pairs_fit_free(mbx_pairs_fit *f)
{
    if (!f)
        return;
    free(f->node), free(f->link);
    memset(f, 0, sizeof *f);
}
