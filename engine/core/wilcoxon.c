/* mpibex: Wilcoxon rank-sum test (see include/mbx/wilcoxon.h).
 *
 * Ranks come from merging the two sorted samples, so no pooled sort is
 * needed. Ranks are kept doubled (2 x midrank = first + last 1-based
 * position of a tie group), which makes every rank and every rank sum an
 * integer; the exact null distribution is then a subset-sum count: cnt[k][s]
 * = number of k-subsets of the pooled doubled ranks with sum s. Counts reach
 * C(50, 25) ~ 1.3e14 < 2^53, so doubles hold them exactly.
 *
 * The Hodges-Lehmann shift needs the median of n1 n2 differences. Instead of
 * storing them, the k-th smallest difference is found by bisection over the
 * ordered bit patterns of doubles: for a threshold t, the number of pairs
 * with fl(a_i - b_j) <= t is a two-pointer walk over the sorted samples
 * (fl(a - b) is monotone in a and in -b), and the smallest double t whose
 * count reaches k is the k-th difference itself. At most 64 walks of
 * n1 + n2 steps: exact, O((n1 + n2) log(n1 + n2)) time, no n1 n2 memory. */
#include "mbx/wilcoxon.h"

#include "wilcoxon_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static int all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

/* Standard normal CDF. */
static double phi(double x)
{
    return 0.5 * erfc(-x / sqrt(2.0));
}

/* The p-quantile of the standard normal (0 < p < 1), by bisection on phi:
 * a few microseconds, called once per interval. */
static double norm_quantile(double p)
{
    double lo = -40.0, hi = 40.0;
    for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
        double mid = 0.5 * (lo + hi);
        if (phi(mid) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* Order-preserving map between doubles (not NaN) and unsigned integers. */
static uint64_t dkey(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return (u & UINT64_C(0x8000000000000000)) ? ~u : (u | UINT64_C(0x8000000000000000));
}

static double dval(uint64_t k)
{
    uint64_t u = (k & UINT64_C(0x8000000000000000)) ? (k & ~UINT64_C(0x8000000000000000)) : ~k;
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* Number of pairs (i, j) with a[i] - b[j] <= t; a and b ascending. */
static size_t count_le(const double *a, size_t n1, const double *b, size_t n2, double t)
{
    size_t j = 0, c = 0;
    for (size_t i = 0; i < n1; i++) {
        while (j < n2 && !(a[i] - b[j] <= t))
            j++;
        c += n2 - j;
    }
    return c;
}

/* The k-th smallest (1-based) of the differences a[i] - b[j]. */
static double kth_diff(const double *a, size_t n1, const double *b, size_t n2, size_t k)
{
    uint64_t lo = dkey(a[0] - b[n2 - 1]), hi = dkey(a[n1 - 1] - b[0]);
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (count_le(a, n1, b, n2, dval(mid)) >= k)
            hi = mid;
        else
            lo = mid + 1;
    }
    return dval(lo) + 0.0; /* + 0.0 turns -0 into 0 */
}

static double hodges_lehmann(const double *a, size_t n1, const double *b, size_t n2)
{
    size_t m = n1 * n2; /* no overflow: mbx_wilcoxon_test checked it */
    if (m % 2 == 1)
        return kth_diff(a, n1, b, n2, m / 2 + 1);
    double lo = kth_diff(a, n1, b, n2, m / 2), hi = kth_diff(a, n1, b, n2, m / 2 + 1);
    return 0.5 * lo + 0.5 * hi + 0.0;
}

/* The exact null distribution of the Mann-Whitney count U (pairs with
 * a_i > b_j, no ties) for sizes n1, n2, as counts: u[0..n1 n2], malloc'd.
 * f(u; m, n) = f(u - n; m - 1, n) + f(u; m, n - 1) (the largest of the
 * m + n values is an a or a b), kept as one row per m over n. */
static double *u_counts(size_t n1, size_t n2)
{
    size_t top = n1 * n2;
    double *f = calloc((n1 + 1) * (top + 1), sizeof *f);
    if (f == NULL)
        return NULL;
    /* f[m][u] for the current n, n from 0 up: with n = 0 only u = 0. */
    for (size_t m = 0; m <= n1; m++)
        f[m * (top + 1)] = 1.0;
    for (size_t n = 1; n <= n2; n++)
        for (size_t m = 1; m <= n1; m++) { /* f(.; m, n) from f(.; m-1, n) and f(.; m, n-1) */
            double *row = f + m * (top + 1);
            const double *prev = f + (m - 1) * (top + 1);
            for (size_t u = m * n; u >= n; u--)
                row[u] += prev[u - n];
        }
    double *out = malloc((top + 1) * sizeof *out);
    if (out != NULL)
        memcpy(out, f + n1 * (top + 1), (top + 1) * sizeof *out);
    free(f);
    return out;
}

/* The largest k >= 1 with P(U <= k - 1) <= tail (0: none), and 1 - 2 P(U
 * <= k - 1): the order statistics D_(k), D_(n1 n2 + 1 - k) of the
 * differences bound the shift with that confidence. */
static int hl_rank(size_t n1, size_t n2, double tail, size_t *k, double *conf)
{
    size_t m = n1 * n2;
    *k = 0;
    *conf = 1.0;
    if (n1 + n2 > MBX_WILCOXON_EXACT_MAX) {
        /* Normal approximation with continuity correction (U symmetric
         * about m / 2, variance m (n1 + n2 + 1) / 12). */
        double sd = sqrt((double)m * (double)(n1 + n2 + 1) / 12.0);
        double z = norm_quantile(tail);
        double kk = floor((double)m / 2.0 + z * sd + 0.5);
        if (kk >= 1) {
            *k = (size_t)kk;
            *conf = 1.0 - 2.0 * phi(((double)*k - 1.0 - (double)m / 2.0 + 0.5) / sd);
        }
        return MBX_OK;
    }
    double *u = u_counts(n1, n2);
    if (u == NULL)
        return MBX_E_NOMEM;
    double total = 0.0, cum = 0.0;
    for (size_t i = 0; i <= m; i++)
        total += u[i];
    for (size_t i = 0; i <= m / 2 && (cum + u[i]) / total <= tail; i++) {
        cum += u[i];
        *k = i + 1;
        *conf = 1.0 - 2.0 * cum / total;
    }
    free(u);
    return MBX_OK;
}

int mbx_wilcoxon_hl_ci(const double *a, size_t n1, const double *b, size_t n2, double conf,
                       mbx_hl *out)
{
    if (!a || !b || !out || n1 == 0 || n2 == 0 || n1 > SIZE_MAX / 2 / n2 || !(conf > 0) ||
        !(conf < 1) || !all_finite(a, n1) || !all_finite(b, n2))
        return MBX_E_INVAL;
    double *s = malloc((n1 + n2) * sizeof *s);
    if (s == NULL)
        return MBX_E_NOMEM;
    memcpy(s, a, n1 * sizeof *s);
    memcpy(s + n1, b, n2 * sizeof *s);
    qsort(s, n1, sizeof *s, cmp_double);
    qsort(s + n1, n2, sizeof *s, cmp_double);
    size_t k;
    mbx_hl r = {.exact = n1 + n2 <= MBX_WILCOXON_EXACT_MAX};
    int rc = hl_rank(n1, n2, (1.0 - conf) / 2.0, &k, &r.conf);
    if (rc == MBX_OK) {
        r.est = hodges_lehmann(s, n1, s + n1, n2);
        r.lo = k ? kth_diff(s, n1, s + n1, n2, k) : -INFINITY;
        r.hi = k ? kth_diff(s, n1, s + n1, n2, n1 * n2 + 1 - k) : INFINITY;
        *out = r;
    }
    free(s);
    return rc;
}

/* The exact null distribution of the sum W2 of n1 of the n doubled ranks
 * r[] drawn without replacement, as counts: dist[s] the draws with W2 = s
 * for s in 0..*smax, malloc'd (tails() turns them into probabilities). */
static int exact_dist(const unsigned *r, size_t n, size_t n1, double **dist, size_t *smax)
{
    size_t top = 0;
    for (size_t i = 0; i < n; i++)
        top += r[i];
    size_t width = top + 1;
    double *cnt = calloc((n1 + 1) * width, sizeof *cnt);
    double *d = malloc(width * sizeof *d);
    if (!cnt || !d) {
        free(cnt);
        free(d);
        return MBX_E_NOMEM;
    }
    cnt[0] = 1.0;
    for (size_t i = 0; i < n; i++) {
        size_t kmax = i + 1 < n1 ? i + 1 : n1;
        for (size_t k = kmax; k >= 1; k--) {
            double *dst = cnt + k * width;
            const double *src = cnt + (k - 1) * width;
            for (size_t s = top; s >= r[i]; s--)
                dst[s] += src[s - r[i]];
        }
    }
    memcpy(d, cnt + n1 * width, width * sizeof *d);
    free(cnt);
    *dist = d;
    *smax = top;
    return MBX_OK;
}

/* P(W2 <= w2) and P(W2 >= w2) under the counts dist[0..smax] (a tail
 * that holds every count is exactly 1). */
static void tails(const double *dist, size_t smax, uint64_t w2, double *p_le, double *p_ge)
{
    double total = 0.0, le = 0.0, ge = 0.0;
    for (size_t s = 0; s <= smax; s++) {
        total += dist[s];
        if (s <= w2)
            le += dist[s];
        if (s >= w2)
            ge += dist[s];
    }
    *p_le = le / total;
    *p_ge = ge / total;
}

/* Exact P(W2 <= w2) and P(W2 >= w2) for the sum W2 of n1 of the n doubled
 * ranks r[] drawn without replacement. */
static int exact_p(const unsigned *r, size_t n, size_t n1, uint64_t w2, double *p_le, double *p_ge)
{
    double *dist;
    size_t smax;
    int rc = exact_dist(r, n, n1, &dist, &smax);
    if (rc == MBX_OK) {
        tails(dist, smax, w2, p_le, p_ge);
        free(dist);
    }
    return rc;
}

/* The pooled doubled midranks of a[0..n1) and b[0..n2): sa (n1 + n2
 * entries) gets a and b sorted, a in sa[0..n1) and b after it; rank2 (may
 * be NULL) the doubled rank of each pooled position in order; *w2 A's
 * doubled rank sum; *tie_sum the sum of t^3 - t over tie groups; *ties
 * the values sharing a rank; *groups the distinct values. */
static void doubled_ranks(const double *a, size_t n1, const double *b, size_t n2, double *sa,
                          unsigned *rank2, uint64_t *w2, double *tie_sum, size_t *ties,
                          size_t *groups)
{
    double *sb = sa + n1;
    memcpy(sa, a, n1 * sizeof *sa);
    memcpy(sb, b, n2 * sizeof *sb);
    qsort(sa, n1, sizeof *sa, cmp_double);
    qsort(sb, n2, sizeof *sb, cmp_double);
    /* Merge: each tie group of t values at 0-based positions pos..pos+t-1
     * has doubled midrank (pos + 1) + (pos + t) = 2 pos + t + 1. */
    *w2 = 0;
    *tie_sum = 0.0;
    *ties = *groups = 0;
    size_t pos = 0, i = 0, j = 0;
    while (i < n1 || j < n2) {
        double v = j >= n2 || (i < n1 && sa[i] <= sb[j]) ? sa[i] : sb[j];
        size_t ca = 0, cb = 0;
        while (i < n1 && sa[i] == v)
            i++, ca++;
        while (j < n2 && sb[j] == v)
            j++, cb++;
        size_t t = ca + cb;
        uint64_t r2 = 2 * (uint64_t)pos + t + 1;
        *w2 += ca * r2;
        if (t > 1) {
            *ties += t;
            *tie_sum += ((double)t * t - 1.0) * t;
        }
        if (rank2)
            for (size_t k = 0; k < t; k++)
                rank2[pos + k] = (unsigned)r2;
        pos += t;
        ++*groups;
    }
}

/* E[W] and the tie-corrected Var[W] of A's rank sum (undoubled). */
static void moments(size_t n1, size_t n2, double tie_sum, size_t groups, double *mean, double *var)
{
    double dn1 = (double)n1, dn2 = (double)n2, dn = (double)(n1 + n2);
    *mean = dn1 * (dn + 1.0) / 2.0;
    /* One tie group: every value equal, W is constant. Set exactly rather
     * than trust (N+1) - (N^3-N)/(N(N-1)) to cancel to zero. */
    *var = groups <= 1 ? 0.0 : dn1 * dn2 / 12.0 * ((dn + 1.0) - tie_sum / (dn * (dn - 1.0)));
}

int mbx_wilcoxon_test(const double *a, size_t n1, const double *b, size_t n2, mbx_wilcoxon *out)
{
    return mbx_wilcoxon_test_ex(a, n1, b, n2, 1, out);
}

int mbx_wilcoxon_test_ex(const double *a, size_t n1, const double *b, size_t n2, int want_shift,
                         mbx_wilcoxon *out)
{
    /* The pair count n1 n2 must fit a size_t (only a 32-bit build could
     * reach the bound). */
    if (!a || !b || !out || n1 == 0 || n2 == 0 || n1 > SIZE_MAX / 2 / n2)
        return MBX_E_INVAL;
    if (!all_finite(a, n1) || !all_finite(b, n2))
        return MBX_E_INVAL;

    size_t n = n1 + n2;
    int exact = n <= MBX_WILCOXON_EXACT_MAX;
    double *sa = malloc(n * sizeof *sa);
    unsigned *rank2 = exact ? malloc(n * sizeof *rank2) : NULL;
    if (!sa || (exact && !rank2)) {
        free(sa);
        free(rank2);
        return MBX_E_NOMEM;
    }
    uint64_t w2;
    double tie_sum;
    size_t ties, groups;
    doubled_ranks(a, n1, b, n2, sa, rank2, &w2, &tie_sum, &ties, &groups);

    mbx_wilcoxon r = {.n1 = n1, .n2 = n2, .exact = exact, .ties = ties};
    r.w = (double)w2 / 2.0;
    moments(n1, n2, tie_sum, groups, &r.mean_w, &r.var_w);
    double sd = r.var_w > 0.0 ? sqrt(r.var_w) : 0.0;
    r.z = sd > 0.0 ? (r.w - r.mean_w) / sd : 0.0;

    int rc = MBX_OK;
    if (exact) {
        rc = exact_p(rank2, n, n1, w2, &r.p_less, &r.p_greater);
    } else if (sd > 0.0) {
        r.p_less = phi((r.w - r.mean_w + 0.5) / sd);
        r.p_greater = phi(-(r.w - r.mean_w - 0.5) / sd);
    } else {
        r.p_less = r.p_greater = 1.0;
    }
    if (rc == MBX_OK) {
        double m = r.p_less < r.p_greater ? r.p_less : r.p_greater;
        r.p_less = fmin(r.p_less, 1.0);
        r.p_greater = fmin(r.p_greater, 1.0);
        r.p_two_sided = fmin(2.0 * m, 1.0);
        r.shift = want_shift ? hodges_lehmann(sa, n1, sa + n1, n2) : NAN;
        *out = r;
    }
    free(sa);
    free(rank2);
    return rc;
}

/* The strata of a stratified test so far: the exact distribution of the
 * doubled rank sum W2 (counts, the convolution of the strata's) and the
 * sums of their figures. */
typedef struct strata_acc {
    double *dist; /* dmax + 1 counts */
    size_t dmax, used1, used2, ns, ties_all;
    uint64_t w2;
    double mean, var;
} strata_acc;

/* The values of level la[i] of both samples into va (A's n1, then B's n2);
 * 0 when the level came before i (done already) or B has none of it (a
 * level of one sample only has a constant rank sum and tells nothing). */
static int stratum_values(const double *a, const int *la, size_t na, const double *b, const int *lb,
                          size_t nb, size_t i, double *va, size_t *n1, size_t *n2)
{
    int l = la[i];
    for (size_t j = 0; j < i; j++)
        if (la[j] == l)
            return 0;
    *n1 = *n2 = 0;
    for (size_t j = 0; j < na; j++)
        if (la[j] == l)
            va[(*n1)++] = a[j];
    for (size_t j = 0; j < nb; j++)
        if (lb[j] == l)
            va[*n1 + (*n2)++] = b[j];
    return *n2 > 0;
}

/* Adds the stratum of va (A's n1 values, then B's n2): its exact
 * distribution convolved into acc's, its figures summed. */
static int add_stratum(strata_acc *acc, double *va, size_t n1, size_t n2, double *sorted,
                       unsigned *rank2)
{
    uint64_t sw2;
    double tie_sum, sm, sv;
    size_t ties, groups, smax;
    doubled_ranks(va, n1, va + n1, n2, sorted, rank2, &sw2, &tie_sum, &ties, &groups);
    moments(n1, n2, tie_sum, groups, &sm, &sv);
    double *sd = NULL, *conv = NULL;
    int rc = exact_dist(rank2, n1 + n2, n1, &sd, &smax);
    if (rc != MBX_OK)
        return rc;
    /* As probabilities: the counts of many strata multiply past a double
     * (C(20, 10)^60 > 1e308) and tails() only needs their ratios. */
    double total = 0.0;
    for (size_t y = 0; y <= smax; y++)
        total += sd[y];
    for (size_t y = 0; y <= smax; y++)
        sd[y] /= total;
    if (!(conv = calloc(acc->dmax + smax + 1, sizeof *conv))) {
        free(sd);
        return MBX_E_NOMEM;
    }
    for (size_t x = 0; x <= acc->dmax; x++)
        for (size_t y = 0; acc->dist[x] != 0 && y <= smax; y++)
            conv[x + y] += acc->dist[x] * sd[y];
    free(acc->dist);
    free(sd);
    acc->dist = conv;
    acc->dmax += smax;
    acc->w2 += sw2;
    acc->mean += sm;
    acc->var += sv;
    acc->used1 += n1;
    acc->used2 += n2;
    acc->ties_all += ties;
    acc->ns++;
    return MBX_OK;
}

int mbx_wilcoxon_stratified(const double *a, const int *la, size_t na, const double *b,
                            const int *lb, size_t nb, mbx_wilcoxon *out, size_t *strata)
{
    if (!a || !b || !la || !lb || !out || na == 0 || nb == 0 || !all_finite(a, na) ||
        !all_finite(b, nb))
        return MBX_E_INVAL;
    double *va = malloc((2 * (na + nb)) * sizeof *va); /* a stratum's A then B, and a copy */
    unsigned *rank2 = malloc((na + nb) * sizeof *rank2);
    strata_acc acc = {.dist = malloc(sizeof *acc.dist)}; /* W2 = 0 */
    if (!va || !rank2 || !acc.dist) {
        free(va);
        free(rank2);
        free(acc.dist);
        return MBX_E_NOMEM;
    }
    double *sorted = va + na + nb;
    acc.dist[0] = 1.0;
    int rc = MBX_OK;
    /* Each level both samples have (an unknown level, -1, is one too). */
    for (size_t i = 0; i < na && rc == MBX_OK; i++) {
        size_t n1, n2;
        if (stratum_values(a, la, na, b, lb, nb, i, va, &n1, &n2))
            rc = add_stratum(&acc, va, n1, n2, sorted, rank2);
    }
    if (rc == MBX_OK && acc.ns == 0)
        rc = MBX_E_INVAL; /* no level has values of both */
    if (rc == MBX_OK) {
        mbx_wilcoxon r = {.n1 = acc.used1, .n2 = acc.used2, .exact = 1, .ties = acc.ties_all};
        tails(acc.dist, acc.dmax, acc.w2, &r.p_less, &r.p_greater);
        r.p_less = fmin(r.p_less, 1.0);
        r.p_greater = fmin(r.p_greater, 1.0);
        r.p_two_sided = fmin(2.0 * fmin(r.p_less, r.p_greater), 1.0);
        r.w = (double)acc.w2 / 2.0;
        r.mean_w = acc.mean;
        r.var_w = acc.var;
        r.z = acc.var > 0 ? (r.w - acc.mean) / sqrt(acc.var) : 0.0;
        r.shift = NAN; /* a shift over levels would mix them */
        *out = r;
        if (strata)
            *strata = acc.ns;
    }
    free(va);
    free(rank2);
    free(acc.dist);
    return rc;
}

double mbx_wilcoxon_p(const mbx_wilcoxon *w, mbx_alternative alt)
{
    switch (alt) {
    case MBX_ALT_LESS: return w->p_less;
    case MBX_ALT_GREATER: return w->p_greater;
    case MBX_ALT_TWO_SIDED:
    default: return w->p_two_sided;
    }
}

const char *mbx_wilcoxon_stars(double p)
{
    if (p < 0.001)
        return "***";
    if (p < 0.01)
        return "**";
    if (p < 0.05)
        return "*";
    return "";
}

int mbx_wilcoxon_alt_parse(const char *name, mbx_alternative *out)
{
    if (!name || !out)
        return MBX_E_INVAL;
    if (!strcmp(name, "two-sided") || !strcmp(name, "two_sided") || !strcmp(name, "two.sided"))
        *out = MBX_ALT_TWO_SIDED;
    else if (!strcmp(name, "less"))
        *out = MBX_ALT_LESS;
    else if (!strcmp(name, "greater"))
        *out = MBX_ALT_GREATER;
    else
        return MBX_E_UNKNOWN;
    return MBX_OK;
}

const char *mbx_wilcoxon_alt_name(mbx_alternative alt)
{
    switch (alt) {
    case MBX_ALT_TWO_SIDED: return "two-sided";
    case MBX_ALT_LESS: return "less";
    case MBX_ALT_GREATER: return "greater";
    default: return "?";
    }
}
