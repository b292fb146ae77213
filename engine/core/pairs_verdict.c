/* The node-pair model's verdicts (mbx/pairs.h): from the robust fit of
 * engine/core/pairs.c, each node's effect with its standard error and a
 * one-sided t test beyond 1 + tol, each cell's ratio to its prediction
 * and the same test, Holm over each family. docs/algorithms.md, "Every
 * pair of nodes", derives the standard errors. */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "pairs_int.h"

#define Z975 1.959963984540054

/* The inverse of the weighted normal matrix M (n <= MBX_PAIRS_DENSE_MAX)
 * gives Var(u_i) = sigma^2 c' M^-1 c with c = e_i - 1/n (u_i = a_i - mean
 * a). Returns 1 when M is singular to working precision (the weights left
 * some effect undetermined), 0, or MBX_E_NOMEM. */
static int dense_var(const mbx_pairs_work *wk, double *var)
{
    size_t n = (size_t)wk->n;
    double *L = calloc(n * n, sizeof *L), *col = malloc(n * sizeof *col);
    double *rowsum = calloc(n, sizeof *rowsum);
    if (!L || !col || !rowsum) {
        free(L), free(col), free(rowsum);
        return MBX_E_NOMEM;
    }
    for (size_t k = 0; k < wk->m; k++) {
        size_t s = wk->s[k], d = wk->d[k];
        L[s * n + s] += wk->w[k], L[d * n + d] += wk->w[k];
        L[(s > d ? s : d) * n + (s > d ? d : s)] += wk->w[k]; /* lower triangle */
    }
    double big = 0;
    for (size_t i = 0; i < n; i++)
        big = fmax(big, L[i * n + i]);
    int singular = 0;
    for (size_t j = 0; j < n && !singular; j++) { /* Cholesky, M = L L' */
        double v = L[j * n + j];
        for (size_t t = 0; t < j; t++)
            v -= L[j * n + t] * L[j * n + t];
        if (!(v > 1e-12 * big)) {
            singular = 1;
            break;
        }
        L[j * n + j] = sqrt(v);
        for (size_t i = j + 1; i < n; i++) {
            double x = L[i * n + j];
            for (size_t t = 0; t < j; t++)
                x -= L[i * n + t] * L[j * n + t];
            L[i * n + j] = x / L[j * n + j];
        }
    }
    double total = 0;
    for (size_t j = 0; j < n && !singular; j++) { /* column j of M^-1 */
        for (size_t i = 0; i < n; i++) {
            double x = i == j;
            for (size_t t = 0; t < i; t++)
                x -= L[i * n + t] * col[t];
            col[i] = x / L[i * n + i];
        }
        for (size_t i = n; i-- > 0;) {
            double x = col[i];
            for (size_t t = i + 1; t < n; t++)
                x -= L[t * n + i] * col[t];
            col[i] = x / L[i * n + i];
        }
        var[j] = col[j];
        for (size_t i = 0; i < n; i++)
            rowsum[i] += col[i], total += col[i];
    }
    for (size_t i = 0; i < n && !singular; i++)
        var[i] = fmax(0, var[i] - 2 * rowsum[i] / (double)n + total / ((double)n * (double)n));
    free(L), free(col), free(rowsum);
    return singular;
}

/* Each node's variance of u_i over sigma^2. Above MBX_PAIRS_DENSE_MAX
 * nodes: 1 / (its cells' weights), times (n-1)^2 / (n (n-2)), which makes
 * it exact for a complete matrix of equal weights; the estimates of the
 * other nodes and of mu that u_i leans on add O(1/n^2) relative. */
static int node_var(const mbx_pairs_work *wk, double *var)
{
    int n = wk->n;
    if (n <= MBX_PAIRS_DENSE_MAX) {
        int rc = dense_var(wk, var);
        if (rc <= 0)
            return rc;
        for (int i = 0; i < n; i++)
            var[i] = INFINITY;
        return MBX_OK;
    }
    memset(var, 0, (size_t)n * sizeof *var);
    for (size_t k = 0; k < wk->m; k++)
        var[wk->s[k]] += wk->w[k], var[wk->d[k]] += wk->w[k];
    double f = (double)(n - 1) * (n - 1) / ((double)n * (n - 2));
    for (int i = 0; i < n; i++)
        var[i] = var[i] > 0 ? f / var[i] : INFINITY;
    return MBX_OK;
}

typedef struct pkey {
    double p;
    size_t k;
} pkey;

static int pkey_cmp(const void *x, const void *y)
{
    const pkey *a = x, *b = y;
    if (a->p != b->p)
        return a->p < b->p ? -1 : 1;
    return (a->k > b->k) - (a->k < b->k);
}

/* Holm's step-down adjustment of p[0..m) in place: the j-th smallest
 * (from 0) becomes the running maximum of min(1, (m - j) p). Only the
 * p-values below 2 / m are sorted when they are at most half of them: any
 * other one is then at a rank j <= m / 2, where (m - j) p >= 1, so it and
 * all after it adjust to 1. A matrix of 4096 nodes has 16.8 million
 * cells, and sorting them all would take seconds. */
static int holm(double *p, size_t m)
{
    size_t c = 0;
    for (size_t k = 0; k < m; k++)
        c += p[k] * (double)m < 2;
    int all = 2 * c > m;
    if (all)
        c = m;
    pkey *key = malloc((c ? c : 1) * sizeof *key);
    if (!key)
        return MBX_E_NOMEM;
    size_t j = 0;
    for (size_t k = 0; k < m; k++) {
        if (all || p[k] * (double)m < 2)
            key[j].p = p[k], key[j++].k = k;
        else
            p[k] = 1;
    }
    qsort(key, c, sizeof *key, pkey_cmp);
    double run = 0;
    for (j = 0; j < c; j++) {
        run = fmax(run, fmin(1, (double)(m - j) * key[j].p));
        p[key[j].k] = run;
    }
    free(key);
    return MBX_OK;
}

static int node_cmp(const void *x, const void *y)
{
    const mbx_pairs_node *a = x, *b = y;
    if (a->effect != b->effect)
        return a->effect > b->effect ? -1 : 1;
    return (a->node > b->node) - (a->node < b->node);
}

/* The one-sided t p-values of the statistics t[0..m) in place, exactly
 * where Holm can leave them below 1, else 1: when at most half of them
 * are below 2 / m, the others adjust to 1 (holm()). The t distribution's
 * tail costs about as much as the rest of a cell's verdict. */
static void t_pvalues(double *t, size_t m, int df)
{
    double tc = gsl_cdf_tdist_Qinv(fmin(1, 2.0 / (double)m), df);
    size_t c = 0;
    for (size_t k = 0; k < m; k++)
        c += t[k] > tc;
    for (size_t k = 0; k < m; k++)
        t[k] = (2 * c <= m && !(t[k] > tc)) || t[k] == -INFINITY ? 1 : gsl_cdf_tdist_Q(t[k], df);
}

/* What the links' sort moves of a cell, in 24 bytes. */
typedef struct link_rec {
    double r;    /* the residual on the log scale */
    double p;    /* Holm-adjusted */
    float scale; /* sqrt(sigma^2 + se_c^2) */
    uint16_t src, dst;
} link_rec;

static uint32_t desc_key(double r);

/* Sort rec[0..m) by r descending as far as a float tells values apart
 * (desc_key), stably: LSD radix sort over three
 * 11-bit digits, a digit all keys share skipped. The records themselves
 * move, from one array to the other in turn and in order: the 16.8
 * million cells of 4096 nodes take a fraction of a second, where qsort
 * takes seconds, and sorting an index instead leaves a gather in random
 * order, a cache miss a cell. *out: rec or tmp, whichever holds the
 * result. */
static void radix_sort(link_rec *rec, link_rec *tmp, size_t m, link_rec **out)
{
    size_t hist[3][2048] = {{0}};
    for (size_t j = 0; j < m; j++)
        for (int d = 0; d < 3; d++)
            hist[d][desc_key(rec[j].r) >> (11 * d) & 2047]++;
    link_rec *a = rec, *b = tmp;
    for (int d = 0; d < 3 && m; d++) {
        if (hist[d][desc_key(rec[0].r) >> (11 * d) & 2047] == m)
            continue;
        size_t sum = 0;
        for (int q = 0; q < 2048; q++) {
            size_t h = hist[d][q];
            hist[d][q] = sum, sum += h;
        }
        for (size_t j = 0; j < m; j++)
            b[hist[d][desc_key(a[j].r) >> (11 * d) & 2047]++] = a[j];
        link_rec *t = a;
        a = b, b = t;
    }
    *out = a;
}
/* The nodes: effect exp(u_i) with u_i = a_i - mean a, and the one-sided
 * t test of H0: u_i <= log(1 + tol). p gets the t statistics. */
static int judge_nodes(const mbx_pairs_work *wk, double mean_a, double lt, double tq, double *p,
                       mbx_pairs_fit *f)
{
    double *var = malloc((size_t)wk->n * sizeof *var);
    if (!var)
        return MBX_E_NOMEM;
    int rc = node_var(wk, var);
    for (int i = 0; i < wk->n && rc == MBX_OK; i++) {
        double u = wk->a[i] - mean_a, se = wk->sigma * sqrt(var[i]);
        mbx_pairs_node *nd = &f->node[i];
        nd->node = i;
        nd->effect = exp(u);
        nd->lo = exp(u - tq * se);
        nd->hi = exp(u + tq * se);
        p[i] = isfinite(se) ? (u - lt) / se : -INFINITY;
    }
    free(var);
    return rc;
}

/* A key whose ascending order is r's descending order, as far as a
 * float tells them apart: the bits of a float order as it does once a
 * negative one's are all flipped and a positive one's sign bit is set. */
static uint32_t desc_key(double r)
{
    float x = (float)r;
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return ~(b >> 31 ? ~b : b | (uint32_t)1 << 31);
}

/* The cells: the residual r on the log scale against the pair effect's
 * scale and the cell's own uncertainty (its CI's half width over 1.96,
 * 0 when unknown), the one-sided t test of H0: r <= log(1 + tol), Holm
 * over them, and f->link in the order of r, largest first (ties in the
 * cells' order): by a radix sort on r as a float, then insertion where
 * the float did not tell two apart. */
static int judge_links(const mbx_pairs_work *wk, const mbx_pairs_cell *cell, size_t ncell,
                       double lt, double tq, double alpha, mbx_pairs_fit *f)
{
    size_t m = wk->m;
    double *p = malloc(m * sizeof *p);
    link_rec *rec = malloc(m * sizeof *rec), *tmp = malloc(m * sizeof *tmp), *sorted;
    int rc = MBX_E_NOMEM;
    if (!p || !rec || !tmp)
        goto out;
    for (size_t c = 0, k = 0; c < ncell; c++) {
        if (isnan(cell[c].value))
            continue;
        double lo = cell[c].lo, hi = cell[c].hi, se = 0;
        if (lo > 0 && hi >= lo) /* false when either is NAN */
            se = log(hi / lo) / (2 * Z975);
        double s = sqrt(wk->sigma * wk->sigma + se * se);
        double r = wk->y[k] - wk->a[wk->s[k]] - wk->a[wk->d[k]];
        p[k] = isfinite(s) ? (r - lt) / s : -INFINITY;
        rec[k] = (link_rec){r, 0, (float)s, wk->s[k], wk->d[k]};
        k++;
    }
    t_pvalues(p, m, wk->df);
    if ((rc = holm(p, m)) != MBX_OK)
        goto out;
    for (size_t k = 0; k < m; k++)
        rec[k].p = p[k];
    radix_sort(rec, tmp, m, &sorted);
    mbx_pairs_link *ln = f->link;
    for (size_t j = 0; j < m; j++) {
        const link_rec *e = &sorted[j];
        double ratio = exp(e->r), spread = exp(tq * e->scale);
        mbx_pairs_link x = {e->src,         e->dst, ratio,       ratio / spread,
                            ratio * spread, e->p,   e->p < alpha};
        size_t i = j;
        for (; i > 0 && ln[i - 1].ratio < x.ratio; i--)
            ln[i] = ln[i - 1];
        ln[i] = x;
        f->slow_links += x.slow;
    }
out:
    free(p), free(rec), free(tmp);
    return rc;
}
int mbx_pairs_judge(const mbx_pairs_work *wk, const mbx_pairs_cell *cell, size_t ncell,
                    double alpha, double tol, mbx_pairs_fit *f)
{
    int n = wk->n;
    size_t m = wk->m;
    f->n = n;
    f->cells = (int)m;
    f->df = wk->df;
    f->sigma = wk->sigma;
    double mean_a = 0;
    for (int i = 0; i < n; i++)
        mean_a += wk->a[i] / n;
    f->typical = exp(2 * mean_a);
    /* GSL's default error handler aborts, and the core never ends the
     * program: off while the verdicts are computed. None of the calls is
     * known to fail (the tail from -inf to inf was tried at 3 to 16.8
     * million degrees of freedom); a failure would give a NaN p, no
     * verdict. */
    gsl_error_handler_t *handler = gsl_set_error_handler_off();
    double lt = log1p(tol), tq = gsl_cdf_tdist_Pinv(1 - (1 - 0.95) / 2, wk->df);
    f->node = malloc((size_t)n * sizeof *f->node);
    f->link = malloc(m * sizeof *f->link);
    double *p = malloc((size_t)n * sizeof *p);
    int rc = MBX_E_NOMEM;
    if (!f->node || !f->link || !p)
        goto out;
    if ((rc = judge_nodes(wk, mean_a, lt, tq, p, f)) != MBX_OK)
        goto out;
    t_pvalues(p, (size_t)n, wk->df);
    if ((rc = holm(p, (size_t)n)) != MBX_OK)
        goto out;
    for (int i = 0; i < n; i++) {
        f->node[i].p = p[i];
        f->slow_nodes += f->node[i].slow = p[i] < alpha;
    }
    free(p);
    p = NULL;
    qsort(f->node, (size_t)n, sizeof *f->node, node_cmp);
    if ((rc = judge_links(wk, cell, ncell, lt, tq, alpha, f)) != MBX_OK)
        goto out;
    mbx_msgf(f->test, sizeof f->test,
             "robust two-way model of log times (node + node + pair; Tukey bisquare IRLS, df %d); "
             "one-sided t tests of effects beyond x%g, Holm at %g over nodes and over cells",
             wk->df, 1 + tol, alpha);
out:
    gsl_set_error_handler(handler);
    free(p);
    return rc;
}
