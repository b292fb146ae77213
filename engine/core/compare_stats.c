/* The statistics of a comparison beyond the rank-sum test (see
 * mbx/compare.h; docs/algorithms.md, "Comparing launches"): the
 * Hodges-Lehmann ratio B/A with its intervals and the equivalence test
 * (TOST), Benjamini-Hochberg q-values, the curve-level test stratified
 * over sizes, and the coverage of an order-statistic interval. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "mbx/stats.h"

int mbx_compare_bh(const double *p, size_t m, double *q)
{
    if ((m > 0 && (p == NULL || q == NULL)))
        return MBX_E_INVAL;
    for (size_t i = 0; i < m; i++)
        if (!(p[i] >= 0 && p[i] <= 1))
            return MBX_E_INVAL;
    size_t *order = malloc((m ? m : 1) * sizeof *order);
    if (order == NULL)
        return MBX_E_NOMEM;
    /* Insertion sort by p: tables are hundreds of points, and a stable
     * order keeps equal p-values in table order. */
    for (size_t i = 0; i < m; i++) {
        size_t j = i;
        for (; j > 0 && p[order[j - 1]] > p[i]; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    /* q_(i) = min over j >= i of m p_(j) / j, at most 1 (step-up). */
    double run = 1.0;
    for (size_t r = m; r > 0; r--) {
        double v = (double)m * p[order[r - 1]] / (double)r;
        run = v < run ? v : run;
        q[order[r - 1]] = run;
    }
    free(order);
    return MBX_OK;
}

double mbx_compare_os_coverage(size_t k, size_t l)
{
    if (l == 0 || 2 * l > k + 1)
        return NAN;
    /* P(B <= l - 1), B ~ Bin(k, 1/2), summed in logs: k may be 1000. */
    double tail = 0.0;
    for (size_t i = 0; i < l; i++)
        tail += exp(lgamma((double)k + 1) - lgamma((double)i + 1) - lgamma((double)(k - i) + 1) -
                    (double)k * log(2.0));
    double c = 1.0 - 2.0 * tail;
    return c > 0 ? c : 0.0;
}

size_t mbx_compare_os_rank(size_t k, double conf, double *coverage)
{
    size_t l = 1;
    while (2 * (l + 1) <= k + 1 && mbx_compare_os_coverage(k, l + 1) >= conf)
        l++;
    if (coverage != NULL)
        *coverage = mbx_compare_os_coverage(k, l);
    return l;
}

/* log of x[0..n) into out; 0 when a value is not positive. */
static int logs_of(const double *x, size_t n, double *out)
{
    for (size_t i = 0; i < n; i++) {
        if (!(x[i] > 0))
            return 0;
        out[i] = log(x[i]);
    }
    return 1;
}

int mbx_compare_shift(const double *a, size_t na, const double *b, size_t nb, double delta,
                      mbx_cmp_point *out)
{
    if (a == NULL || b == NULL || out == NULL || na == 0 || nb == 0 || !(delta > 0 && delta < 1))
        return MBX_E_INVAL;
    out->hl_ratio = out->hl_lo = out->hl_hi = out->hl_conf = NAN;
    out->eq_lo = out->eq_hi = NAN;
    out->equiv = 0;
    double *lg = malloc((na + nb) * sizeof *lg);
    if (lg == NULL)
        return MBX_E_NOMEM;
    int rc = MBX_OK;
    if (logs_of(b, nb, lg) && logs_of(a, na, lg + nb)) {
        /* log B - log A: the shift of B over A on the log scale is the
         * log of the ratio B/A (a slower B gives a ratio above 1). */
        mbx_hl ci95, ci90;
        rc = mbx_wilcoxon_hl_ci(lg, nb, lg + nb, na, 0.95, &ci95);
        if (rc == MBX_OK)
            rc = mbx_wilcoxon_hl_ci(lg, nb, lg + nb, na, 0.90, &ci90);
        if (rc == MBX_OK) {
            out->hl_ratio = exp(ci95.est);
            out->hl_lo = exp(ci95.lo);
            out->hl_hi = exp(ci95.hi);
            out->hl_conf = ci95.conf;
            out->eq_lo = exp(ci90.lo);
            out->eq_hi = exp(ci90.hi);
            /* TOST at 5 % a side: the 90 % interval inside the margin,
             * symmetric on the log scale so that A/B and B/A agree. */
            double bound = log1p(delta);
            out->equiv = ci90.lo >= -bound && ci90.hi <= bound ? 'y' : 'n';
        }
    }
    free(lg);
    return rc;
}

/* Whether points x and y lie on one curve: every part of the key but
 * bytes. */
static int same_curve(const mbx_cmp_point *x, const mbx_cmp_point *y)
{
    return strcmp(x->benchmark, y->benchmark) == 0 && strcmp(x->label, y->label) == 0 &&
           x->procs == y->procs && x->root == y->root && x->param == y->param &&
           strcmp(x->op ? x->op : "", y->op ? y->op : "") == 0 &&
           strcmp(x->rma_sync ? x->rma_sync : "", y->rma_sync ? y->rma_sync : "") == 0;
}

static int cmp_dbl(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Adds side's values of sample s (launch ids l) to the launches' score
 * sums: log(v) - center. */
static void add_scores(const double *v, const unsigned long long *l, size_t n, double center,
                       double *sum, size_t *cnt, size_t nl)
{
    for (size_t j = 0; j < n; j++)
        if (l[j] < nl && v[j] > 0)
            sum[l[j]] += log(v[j]) - center, cnt[l[j]]++;
}

/* One score per launch and side: the mean over the curve's sizes of the
 * launch's log median less that size's pooled median. A launch moves all
 * its points together (one launch factor), so the sizes of one launch are
 * not independent draws: the launches are the units of the curve test. */
static int launch_scores(const mbx_compare *c, const size_t *members, size_t nm, mbx_cmp_curve *cv)
{
    size_t nl[2] = {0, 0}, most = 0;
    for (size_t i = 0; i < nm; i++) {
        const struct cmp_sample *s = &c->sa[members[i]];
        for (size_t j = 0; j < s->na; j++)
            nl[0] = s->la[j] + 1 > nl[0] ? s->la[j] + 1 : nl[0];
        for (size_t j = 0; j < s->nb; j++)
            nl[1] = s->lb[j] + 1 > nl[1] ? s->lb[j] + 1 : nl[1];
        most = s->na + s->nb > most ? s->na + s->nb : most;
    }
    double *sum = calloc(nl[0] + nl[1], sizeof *sum), *pool = malloc((most + 1) * sizeof *pool);
    size_t *cnt = calloc(nl[0] + nl[1], sizeof *cnt);
    int rc = sum && pool && cnt ? MBX_OK : MBX_E_NOMEM;
    for (size_t i = 0; rc == MBX_OK && i < nm; i++) {
        const struct cmp_sample *s = &c->sa[members[i]];
        size_t np = 0;
        for (size_t j = 0; j < s->na + s->nb; j++) {
            double v = j < s->na ? s->a[j] : s->b[j - s->na];
            if (v > 0)
                pool[np++] = log(v);
        }
        qsort(pool, np, sizeof *pool, cmp_dbl);
        double center = np ? mbx_stats_quantile_sorted(pool, np, 0.5) : 0;
        add_scores(s->a, s->la, s->na, center, sum, cnt, nl[0]);
        add_scores(s->b, s->lb, s->nb, center, sum + nl[0], cnt + nl[0], nl[1]);
    }
    size_t n[2] = {0, 0};
    for (size_t j = 0; rc == MBX_OK && j < nl[0] + nl[1]; j++) {
        int side = j >= nl[0];
        if (cnt[j] > 0)
            sum[(side ? nl[0] : 0) + n[side]++] = sum[j] / (double)cnt[j];
    }
    if (rc == MBX_OK && (n[0] == 0 || n[1] == 0))
        rc = MBX_E_INVAL;
    if (rc == MBX_OK)
        rc = mbx_wilcoxon_test(sum, n[0], sum + nl[0], n[1], &cv->w);
    if (rc == MBX_OK)
        cv->ratio = exp(-cv->w.shift);
    free(sum);
    free(pool);
    free(cnt);
    return rc;
}

/* The test of curve cv: over launch scores when its sides are launches,
 * else stratified by size (one stratum a size), its ratio the geometric
 * mean of the points' HL ratios. */
static int test_curve(const mbx_compare *c, mbx_cmp_curve *cv, const size_t *members, size_t nm)
{
    if (c->sa[members[0]].la != NULL && c->sa[members[0]].lb != NULL)
        return launch_scores(c, members, nm, cv);
    size_t na = 0, nb = 0;
    for (size_t i = 0; i < nm; i++)
        na += c->sa[members[i]].na, nb += c->sa[members[i]].nb;
    double *v = malloc((na + nb) * sizeof *v);
    int *lv = malloc((na + nb) * sizeof *lv);
    int rc = v && lv ? MBX_OK : MBX_E_NOMEM;
    size_t ia = 0, ib = na, nlog = 0;
    double logsum = 0;
    for (size_t i = 0; rc == MBX_OK && i < nm; i++) {
        const struct cmp_sample *s = &c->sa[members[i]];
        for (size_t j = 0; j < s->na; j++)
            v[ia] = s->a[j], lv[ia++] = (int)i;
        for (size_t j = 0; j < s->nb; j++)
            v[ib] = s->b[j], lv[ib++] = (int)i;
        double r = c->pt[members[i]].hl_ratio;
        if (isfinite(r) && r > 0)
            logsum += log(r), nlog++;
    }
    if (rc == MBX_OK)
        rc = mbx_wilcoxon_stratified(v, lv, na, v + na, lv + na, nb, &cv->w, NULL);
    cv->ratio = nlog ? exp(logsum / (double)nlog) : NAN;
    free(v);
    free(lv);
    return rc;
}

int mbx_compare_curves(mbx_compare *c, double alpha)
{
    size_t *members = malloc((c->npt ? c->npt : 1) * sizeof *members);
    char *done = calloc(c->npt ? c->npt : 1, 1);
    c->cv = calloc(c->npt ? c->npt : 1, sizeof *c->cv);
    int rc = members && done && c->cv ? MBX_OK : MBX_E_NOMEM;
    for (size_t i = 0; rc == MBX_OK && i < c->npt; i++) {
        if (done[i])
            continue;
        size_t nm = 0;
        for (size_t j = i; j < c->npt; j++)
            if (!done[j] && same_curve(&c->pt[i], &c->pt[j]))
                members[nm++] = j, done[j] = 1;
        /* The stratified test (passes) is always exact: its cost grows
         * with each size's sample, so large ones get no curve test. */
        int small = 1;
        for (size_t j = 0; j < nm; j++)
            small &= c->sa[members[j]].na + c->sa[members[j]].nb <= MBX_WILCOXON_EXACT_MAX;
        if (!small && c->sa[i].la == NULL)
            continue;
        mbx_cmp_curve *cv = &c->cv[c->ncv];
        cv->first = i;
        cv->sizes = nm;
        rc = test_curve(c, cv, members, nm);
        c->ncv += rc == MBX_OK;
    }
    double *p = calloc((c->ncv ? c->ncv : 1) * 2, sizeof *p);
    if (rc == MBX_OK && p == NULL)
        rc = MBX_E_NOMEM;
    for (size_t i = 0; rc == MBX_OK && i < c->ncv; i++)
        p[i] = c->cv[i].w.p_two_sided;
    if (rc == MBX_OK)
        rc = mbx_compare_bh(p, c->ncv, p + c->ncv);
    for (size_t i = 0; rc == MBX_OK && i < c->ncv; i++) {
        mbx_cmp_curve *cv = &c->cv[i];
        cv->q = p[c->ncv + i];
        cv->verdict = cv->q < alpha ? (cv->w.p_less <= cv->w.p_greater ? '<' : '>') : '=';
    }
    free(p);
    free(members);
    free(done);
    return rc;
}
