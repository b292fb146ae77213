/* mpibex: level shifts in the machine-state probe (see include/mbx/levels.h).
 *
 * Two phases.
 *
 * 1. Propose boundaries by seeded binary segmentation (Kovacs, Li, Buhlmann
 *    and Munk, "Seeded binary segmentation", Biometrika 2023): a fixed,
 *    deterministic set of intervals at scales n, n/2, n/4, ... down to
 *    2 min_seg, each scale's intervals overlapping by half. In each interval
 *    of m samples the candidate split k maximizes the standardized rank-sum
 *    statistic of the left part, |R_k - k(m+1)/2| / sqrt(k(m-k)(m+1)/12),
 *    R_k the sum of the first k midranks (Pettitt's / Mann-Whitney CUSUM),
 *    over min_seg <= k <= m - min_seg. A candidate counts only when the two
 *    sides in its interval differ in median by max/min - 1 >= min_rel AND
 *    mbx_wilcoxon_test finds them different at alpha. Candidates are then
 *    taken greedily by decreasing statistic, each only if no boundary taken
 *    before lies inside its interval (which also keeps every segment at
 *    least min_seg long). Ranks are those of log(x), i.e. of x.
 *    Why not plain binary segmentation on the whole series: a short
 *    excursion that returns (low 100, high 8, low 100) moves neither the
 *    two sides' medians nor the whole-series rank statistic enough, for any
 *    k; some small interval around each of its edges sees a clean step.
 *
 * 2. Prune. Every boundary between adjacent final segments must show a
 *    relative median shift >= min_rel AND a rank test p < alpha between the
 *    two segments (at most JUDGE_SIDE samples each, those next to it). While some boundary fails,
 * the failing boundary with the smallest shift (the first in series order on a tie) is removed and
 * its neighbours re-tested. Then each boundary is moved to where it best separates its two
 * segments' levels (see refine()), and pruned again.
 *
 *    Clean steps (min_seg samples on each side, each beyond the other
 *    side's median by min_rel) are proposed too: see propose_steps().
 *
 * Levels: segment medians sorted ascending, a new level wherever a median is
 * at least min_rel above the previous one; a level's value is the median of
 * all its samples. Deterministic: no random numbers, ties broken by
 * position. Cost: about 2n samples per scale, each interval sorted once:
 * O(n log^2 n); 10^4 samples take milliseconds. */
#include "mbx/levels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/stats.h"
#include "mbx/wilcoxon.h"

#include "wilcoxon_internal.h"

#define DEFAULT_MIN_REL 0.2
#define DEFAULT_MIN_SEG 3
#define DEFAULT_ALPHA 0.001

typedef struct pair {
    double v;
    size_t i;
} pair;

typedef struct cand {
    size_t b, e, k; /* interval [b, e), split before sample k */
    double z;       /* standardized rank statistic */
} cand;

/* Working state of one detection. */
typedef struct ctx {
    const double *x;
    size_t n, min_seg;
    double min_rel, alpha;
    pair *pairs;        /* n: sort buffer */
    double *rank;       /* n: midranks of the segment being split */
    double *tmp;        /* n: sorted copies for medians */
    cand *cand;         /* candidates of phase 1 */
    unsigned char *cut; /* n + 1: cut[k] = 1 if a boundary lies before sample k */
} ctx;

static int cmp_pair(const void *pa, const void *pb)
{
    const pair *a = pa, *b = pb;
    if (a->v != b->v)
        return (a->v > b->v) - (a->v < b->v);
    return (a->i > b->i) - (a->i < b->i);
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static double median_of(ctx *c, size_t b, size_t e)
{
    size_t m = e - b;
    memcpy(c->tmp, c->x + b, m * sizeof *c->tmp);
    qsort(c->tmp, m, sizeof *c->tmp, cmp_double);
    return mbx_stats_quantile_sorted(c->tmp, m, 0.5);
}

/* Two-sided rank-test p between x[b, k) and x[k, e); 1 on failure. */
static int rank_p(const ctx *c, size_t b, size_t k, size_t e, double *p)
{
    mbx_wilcoxon w;
    int rc = mbx_wilcoxon_test_ex(c->x + b, k - b, c->x + k, e - k, 0, &w);
    *p = rc == MBX_OK ? w.p_two_sided : 1.0;
    return rc;
}

/* The best split of [b, e) (0 when there is none) and its statistic. */
static size_t best_split(ctx *c, size_t b, size_t e, double *zbest)
{
    size_t m = e - b;
    for (size_t i = 0; i < m; i++)
        c->pairs[i] = (pair){.v = c->x[b + i], .i = i};
    qsort(c->pairs, m, sizeof *c->pairs, cmp_pair);
    for (size_t i = 0; i < m;) {
        size_t j = i;
        while (j < m && c->pairs[j].v == c->pairs[i].v)
            j++;
        double mid = 0.5 * (double)(i + 1 + j);
        for (size_t k = i; k < j; k++)
            c->rank[c->pairs[k].i] = mid;
        i = j;
    }
    double dm = (double)m, sum = 0.0, best = 0.0;
    size_t at = 0;
    for (size_t k = 1; k + c->min_seg <= m; k++) {
        sum += c->rank[k - 1];
        if (k < c->min_seg)
            continue;
        double dk = (double)k;
        double z = fabs(sum - dk * (dm + 1.0) / 2.0) / sqrt(dk * (dm - dk) * (dm + 1.0) / 12.0);
        if (z > best) {
            best = z;
            at = k;
        }
    }
    *zbest = best;
    return at == 0 ? 0 : b + at;
}

static double rel_shift(double a, double b)
{
    return a > b ? a / b - 1.0 : b / a - 1.0;
}

/* Judge interval [b, e); append a candidate when its best split passes. */
static int consider(ctx *c, size_t b, size_t e, size_t *nc)
{
    if (e - b < 2 * c->min_seg)
        return MBX_OK;
    double z;
    size_t k = best_split(c, b, e, &z);
    if (k == 0 || rel_shift(median_of(c, b, k), median_of(c, k, e)) < c->min_rel)
        return MBX_OK;
    double p;
    int rc = rank_p(c, b, k, e, &p);
    if (rc == MBX_E_NOMEM)
        return rc;
    if (p < c->alpha)
        c->cand[(*nc)++] = (cand){.b = b, .e = e, .k = k, .z = z};
    return MBX_OK;
}

static int cmp_cand(const void *pa, const void *pb)
{
    const cand *a = pa, *b = pb;
    if (a->z != b->z)
        return a->z < b->z ? 1 : -1; /* strongest first */
    if (a->e - a->b != b->e - b->b)
        return a->e - a->b < b->e - b->b ? -1 : 1; /* then the narrowest */
    return (a->b > b->b) - (a->b < b->b);
}

/* The seeded intervals: scale l, start every ceil(l/2), the last one ending
 * at n. At most 4 n / (2 min_seg) + 2 per halving, fewer in total than
 * max_intervals(). */
static size_t scale_step(size_t l)
{
    return (l + 1) / 2;
}

static size_t max_intervals(size_t n, size_t min_len)
{
    size_t total = 0;
    for (size_t l = n; l >= min_len; l = scale_step(l)) {
        total += (n - l) / scale_step(l) + 2;
        if (l == scale_step(l))
            break;
    }
    return total;
}

static int propose(ctx *c)
{
    size_t min_len = 2 * c->min_seg, nc = 0;
    if (c->n < min_len)
        return MBX_OK;
    c->cand = malloc(max_intervals(c->n, min_len) * sizeof *c->cand);
    if (!c->cand)
        return MBX_E_NOMEM;
    int rc = MBX_OK;
    for (size_t l = c->n; l >= min_len && rc == MBX_OK; l = scale_step(l)) {
        size_t st = scale_step(l), b = 0;
        for (; b + l <= c->n && rc == MBX_OK; b += st)
            rc = consider(c, b, b + l, &nc);
        if (rc == MBX_OK && b - st + l < c->n) /* the tail the steps missed */
            rc = consider(c, c->n - l, c->n, &nc);
        if (l == scale_step(l))
            break;
    }
    if (rc != MBX_OK)
        return rc;
    qsort(c->cand, nc, sizeof *c->cand, cmp_cand);
    for (size_t i = 0; i < nc; i++) {
        const cand *d = &c->cand[i];
        size_t k = d->b + 1;
        while (k < d->e && !c->cut[k])
            k++;
        if (k == d->e)
            c->cut[d->k] = 1;
    }
    return MBX_OK;
}

/* Does every sample of [b, b + len) lie at least min_rel away from ref, all
 * on one side (dir: +1 above, -1 below)? */
static int all_away(const ctx *c, size_t b, size_t len, double ref, int dir)
{
    for (size_t j = b; j < b + len; j++) {
        double r = c->x[j] / ref - 1.0, q = ref / c->x[j] - 1.0;
        if (dir > 0 ? r < c->min_rel : q < c->min_rel)
            return 0;
    }
    return 1;
}

/* Clean steps: a boundary before sample k where the min_seg samples on
 * each side all lie at least min_rel beyond the other side's median, in
 * opposite directions. Seeded intervals find such a step only when one of
 * them starts or ends at it: a rank test of 3 samples against m needs m of
 * about 22 before p < 0.001, so a short excursion of a few probes between
 * two long stretches of another level (seen on this project's machines: 3
 * probes at 0.12 us in 750 at 0.61 us) would be missed. One or two outlying
 * samples never pass (min_seg of them must agree). A step within min_seg of
 * a boundary already proposed is left out, so segments stay min_seg long;
 * pruning then tests every boundary as before. */
static void propose_steps(ctx *c)
{
    size_t m = c->min_seg;
    for (size_t k = m; k + m <= c->n; k++) {
        double left = median_of(c, k - m, k), right = median_of(c, k, k + m);
        int dir = right > left ? 1 : -1;
        if (!all_away(c, k, m, left, dir) || !all_away(c, k - m, m, right, -dir))
            continue;
        int near = 0;
        for (size_t j = k + 1 - m; j < k + m && !near; j++)
            near = c->cut[j];
        if (!near)
            c->cut[k] = 1;
    }
}

/* Phase 2 state: boundary i lies between seg[i] and seg[i + 1]. */
typedef struct bound {
    double rel;
    int pass;
} bound;

/* A boundary is tested on at most JUDGE_SIDE samples on each side of it,
 * the nearest ones. With exact p-values (n1 + n2 <= 50) a short segment of
 * 3 against 25 can reach p = 2 / C(28, 3) = 0.0006; against hundreds, the
 * normal approximation never goes below about 0.003, so a real excursion
 * of 3 probes would fail alpha = 0.001 for having long neighbours. */
#define JUDGE_SIDE 25

static int judge(ctx *c, const mbx_segment *s, bound *out)
{
    out->rel = rel_shift(s[0].median, s[1].median);
    out->pass = 0;
    if (out->rel >= c->min_rel) {
        double p;
        size_t k = s[1].begin;
        size_t b = k - s[0].begin > JUDGE_SIDE ? k - JUDGE_SIDE : s[0].begin;
        size_t e = s[1].end - k > JUDGE_SIDE ? k + JUDGE_SIDE : s[1].end;
        int rc = rank_p(c, b, k, e, &p);
        if (rc == MBX_E_NOMEM)
            return rc;
        out->pass = p < c->alpha;
    }
    return MBX_OK;
}

static int prune(ctx *c, mbx_segment *seg, size_t *nseg)
{
    size_t ns = *nseg;
    if (ns < 2)
        return MBX_OK;
    bound *bd = malloc((ns - 1) * sizeof *bd);
    if (!bd)
        return MBX_E_NOMEM;
    int rc = MBX_OK;
    for (size_t i = 0; i + 1 < ns && rc == MBX_OK; i++)
        rc = judge(c, seg + i, bd + i);
    while (rc == MBX_OK && ns > 1) {
        size_t worst = ns;
        for (size_t i = 0; i + 1 < ns; i++)
            if (!bd[i].pass && (worst == ns || bd[i].rel < bd[worst].rel))
                worst = i;
        if (worst == ns)
            break;
        seg[worst].end = seg[worst + 1].end;
        seg[worst].median = median_of(c, seg[worst].begin, seg[worst].end);
        memmove(seg + worst + 1, seg + worst + 2, (ns - worst - 2) * sizeof *seg);
        memmove(bd + worst, bd + worst + 1, (ns - worst - 2) * sizeof *bd);
        ns--;
        if (worst > 0)
            rc = judge(c, seg + worst - 1, bd + worst - 1);
        if (rc == MBX_OK && worst + 1 < ns)
            rc = judge(c, seg + worst, bd + worst);
    }
    free(bd);
    *nseg = ns;
    return rc;
}

/* Move each boundary between seg[i] and seg[i+1] to the k minimizing
 * sum_{j<k} |log x_j - log m_i| + sum_{j>=k} |log x_j - log m_{i+1}| (m the
 * two segments' medians), min_seg kept on each side: every sample goes to
 * the nearer of the two levels, contiguously. The rank statistic that
 * proposed the boundary ignores how far apart the levels are, so it can
 * count the highest samples of the lower level on the upper side (their
 * ranks lie above the interval's middle) and land a few samples off; this
 * fit uses the gap, and a spike moves it by at most the gap between the
 * two levels. The first minimum wins. */
static void refine(ctx *c, mbx_segment *seg, size_t ns)
{
    for (size_t i = 0; i + 1 < ns; i++) {
        size_t b = seg[i].begin, e = seg[i + 1].end, best = seg[i].end;
        double ml = log(seg[i].median), mr = log(seg[i + 1].median);
        /* cost(k) - cost(b): move samples [b, k) from the right level to
         * the left one. */
        double cost = 0.0, low = INFINITY;
        for (size_t k = b + 1; k + c->min_seg <= e; k++) {
            double y = log(c->x[k - 1]);
            cost += fabs(y - ml) - fabs(y - mr);
            if (k >= b + c->min_seg && cost < low) {
                low = cost;
                best = k;
            }
        }
        if (best != seg[i].end) {
            seg[i].end = seg[i + 1].begin = best;
            seg[i].median = median_of(c, b, best);
            seg[i + 1].median = median_of(c, best, e);
        }
    }
}

/* Group segment medians into levels and fill out->level and seg[].level. */
static int group(ctx *c, mbx_levels *out)
{
    size_t ns = out->nseg;
    double *lv = malloc(ns * sizeof *lv);
    if (!lv)
        return MBX_E_NOMEM;
    /* Segments by median; equal medians stay in series order. */
    pair *ord = c->pairs;
    for (size_t i = 0; i < ns; i++)
        ord[i] = (pair){.v = out->seg[i].median, .i = i};
    qsort(ord, ns, sizeof *ord, cmp_pair);
    size_t nl = 0;
    for (size_t a = 0; a < ns;) {
        size_t z = a + 1;
        while (z < ns && ord[z].v / ord[z - 1].v - 1.0 < c->min_rel)
            z++;
        size_t cnt = 0;
        for (size_t k = a; k < z; k++) {
            mbx_segment *s = &out->seg[ord[k].i];
            memcpy(c->tmp + cnt, c->x + s->begin, (s->end - s->begin) * sizeof *c->tmp);
            cnt += s->end - s->begin;
            s->level = (int)nl;
        }
        qsort(c->tmp, cnt, sizeof *c->tmp, cmp_double);
        lv[nl++] = mbx_stats_quantile_sorted(c->tmp, cnt, 0.5);
        a = z;
    }
    out->level = lv;
    out->nlevel = nl;
    return MBX_OK;
}

static int resolve_opts(const mbx_levels_opts *o, double *min_rel, size_t *min_seg, double *alpha)
{
    *min_rel = DEFAULT_MIN_REL;
    *min_seg = DEFAULT_MIN_SEG;
    *alpha = DEFAULT_ALPHA;
    if (!o)
        return MBX_OK;
    if (!(o->min_rel >= 0.0) || !isfinite(o->min_rel) || !(o->alpha >= 0.0 && o->alpha < 1.0))
        return MBX_E_INVAL;
    if (o->min_rel > 0.0)
        *min_rel = o->min_rel;
    if (o->min_seg > 0)
        *min_seg = o->min_seg;
    if (o->alpha > 0.0)
        *alpha = o->alpha;
    return MBX_OK;
}

int mbx_levels_detect(const double *x, size_t n, const mbx_levels_opts *o, mbx_levels *out)
{
    if (!out)
        return MBX_E_INVAL;
    memset(out, 0, sizeof *out);
    if (n > 0 && !x)
        return MBX_E_INVAL;
    ctx c = {.x = x, .n = n};
    if (resolve_opts(o, &c.min_rel, &c.min_seg, &c.alpha) != MBX_OK)
        return MBX_E_INVAL;
    for (size_t i = 0; i < n; i++)
        if (!(x[i] > 0.0) || !isfinite(x[i]))
            return MBX_E_INVAL;
    if (n == 0)
        return MBX_OK;

    c.pairs = malloc(n * sizeof *c.pairs);
    c.rank = malloc(n * sizeof *c.rank);
    c.tmp = malloc(n * sizeof *c.tmp);
    c.cut = calloc(n + 1, 1);
    int rc = MBX_E_NOMEM;
    if (!c.pairs || !c.rank || !c.tmp || !c.cut)
        goto done;
    if ((rc = propose(&c)) != MBX_OK)
        goto done;
    propose_steps(&c);

    size_t ns = 1;
    for (size_t k = 1; k < n; k++)
        ns += c.cut[k];
    out->seg = malloc(ns * sizeof *out->seg);
    rc = MBX_E_NOMEM;
    if (!out->seg)
        goto done;
    size_t s = 0, b = 0;
    for (size_t k = 1; k <= n; k++)
        if (k == n || c.cut[k]) {
            out->seg[s++] = (mbx_segment){.begin = b, .end = k, .median = median_of(&c, b, k)};
            b = k;
        }
    if ((rc = prune(&c, out->seg, &ns)) != MBX_OK)
        goto done;
    refine(&c, out->seg, ns);
    if ((rc = prune(&c, out->seg, &ns)) != MBX_OK)
        goto done;
    out->nseg = ns;
    rc = group(&c, out);

done:
    free(c.pairs);
    free(c.rank);
    free(c.tmp);
    free(c.cand);
    free(c.cut);
    if (rc != MBX_OK)
        mbx_levels_free(out);
    return rc;
}

void mbx_levels_free(mbx_levels *l)
{
    if (!l)
        return;
    free(l->seg);
    free(l->level);
    memset(l, 0, sizeof *l);
}

int mbx_levels_shifted(double before, double after, const mbx_levels_opts *o)
{
    double min_rel = o && o->min_rel > 0.0 ? o->min_rel : DEFAULT_MIN_REL;
    if (!(before > 0.0) || !(after > 0.0))
        return 0;
    return rel_shift(before, after) >= min_rel;
}
