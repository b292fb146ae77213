/* Comparing two result sets (see mbx/compare.h): the test of two samples
 * (Wilcoxon, stratified by machine level when both have levels), the
 * pairing of the points of both sides, and the summary. Reading each side
 * is in compare_read.c. */
#include "mbx/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "mbx/stats.h"
#include "msg.h"

const char *const mbx_compare_columns[MBX_COMPARE_NCOLS] = {
    "benchmark", "label",   "procs",    "bytes",       "root",        "op",
    "param",     "n_a",     "n_b",      "median_a_us", "median_b_us", "ratio_b_over_a",
    "shift_us",  "w",       "z",        "p_two_sided", "p_less",      "p_greater",
    "exact",     "verdict", "rma_sync",
};

static void side_free(struct side *s)
{
    for (size_t i = 0; i < s->n; i++) {
        for (int t = 0; t < NTEXT; t++)
            free(s->key[i].text[t]);
        free(s->key[i].id);
        free(s->key[i].v);
        free(s->key[i].pass);
    }
    free(s->key);
    memset(s, 0, sizeof *s);
}

void mbx_compare_free(mbx_compare *c)
{
    if (c == NULL)
        return;
    side_free(&c->s[0]);
    side_free(&c->s[1]);
    free(c->pt);
    free(c);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (type 7); NAN when out of memory. */
static double median_of(const double *v, size_t n)
{
    double *c = malloc(n * sizeof *c);
    if (c == NULL)
        return NAN;
    memcpy(c, v, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp_double);
    double m = mbx_stats_quantile_sorted(c, n, 0.5);
    free(c);
    return m;
}

const char *mbx_compare_verdict_word(char v)
{
    return v == '<' ? "<" : v == '>' ? ">" : "same";
}

/* The rest of a tested point from its test (out->w): sizes, medians,
 * ratio, verdict and stars. Different when the two-sided test says so (so
 * the verdict and the stars agree, and identical settings are called
 * different at rate alpha); the direction is the smaller one-sided p. */
static int verdict_of(const double *a, size_t na, const double *b, size_t nb, double alpha,
                      mbx_cmp_point *out)
{
    out->n_a = na;
    out->n_b = nb;
    out->median_a = median_of(a, na);
    out->median_b = median_of(b, nb);
    if (isnan(out->median_a) || isnan(out->median_b))
        return MBX_E_NOMEM;
    out->ratio = out->median_a > 0 ? out->median_b / out->median_a : NAN;
    if (out->w.p_two_sided < alpha)
        out->verdict = out->w.p_less <= out->w.p_greater ? '<' : '>';
    else
        out->verdict = '=';
    out->stars = mbx_wilcoxon_stars(out->w.p_two_sided);
    return MBX_OK;
}

/* Whether the known levels (ids >= 0) of A's and B's values together are
 * two or more: passes of one point straddle levels, or A and B ran at
 * different ones. */
static int levels_differ(const int *la, size_t na, const int *lb, size_t nb)
{
    int first = -1;
    for (size_t i = 0; i < na + nb; i++) {
        int l = i < na ? la[i] : lb[i - na];
        if (l < 0)
            continue;
        if (first < 0)
            first = l;
        else if (l != first)
            return 1;
    }
    return 0;
}

/* Whether some level (unknown included) has values of both samples. */
static int has_stratum(const int *la, size_t na, const int *lb, size_t nb)
{
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            if (la[i] == lb[j])
                return 1;
    return 0;
}

int mbx_compare_samples_leveled(const double *a, const int *la, size_t na, const double *b,
                                const int *lb, size_t nb, double alpha, mbx_cmp_point *out,
                                size_t *strata)
{
    if (strata)
        *strata = 0;
    if (!la || !lb || !levels_differ(la, na, lb, nb))
        return mbx_compare_samples(a, na, b, nb, alpha, out);
    if (out == NULL || !(alpha > 0 && alpha < 1))
        return MBX_E_INVAL;
    size_t ns = 0;
    int rc = mbx_wilcoxon_stratified(a, la, na, b, lb, nb, &out->w, &ns);
    if (rc == MBX_E_INVAL && !has_stratum(la, na, lb, nb)) {
        /* No level in common: A at one level, B at another; nothing can
         * be said about the operations (p 1, not distinguishable). */
        memset(&out->w, 0, sizeof out->w);
        out->w.p_two_sided = out->w.p_less = out->w.p_greater = 1.0;
        out->w.shift = NAN;
        rc = MBX_OK;
    }
    if (rc < 0)
        return rc;
    if (strata)
        *strata = ns;
    return verdict_of(a, na, b, nb, alpha, out);
}

int mbx_compare_samples(const double *a, size_t na, const double *b, size_t nb, double alpha,
                        mbx_cmp_point *out)
{
    if (out == NULL || !(alpha > 0 && alpha < 1))
        return MBX_E_INVAL;
    int rc = mbx_wilcoxon_test(a, na, b, nb, &out->w);
    if (rc < 0)
        return rc;
    return verdict_of(a, na, b, nb, alpha, out);
}

double mbx_compare_tested_ratio(const double *a, const int *la, size_t na, const double *b,
                                const int *lb, size_t nb)
{
    if (!a || !b || na == 0 || nb == 0)
        return NAN;
    /* The pairs the rank-sum test weighs: all of them, or those of one
     * level when mbx_compare_samples_leveled stratifies. */
    int by_level = la && lb && levels_differ(la, na, lb, nb);
    double *d = malloc(na * nb * sizeof *d);
    if (!d)
        return NAN;
    size_t n = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            if ((!by_level || la[i] == lb[j]) && a[i] > 0 && b[j] > 0)
                d[n++] = log(b[j]) - log(a[i]);
    double m = n ? median_of(d, n) : NAN;
    free(d);
    return exp(m);
}

static void fill_key(mbx_cmp_point *p, const struct ckey *k)
{
    char *end;
    p->benchmark = k->text[T_BENCH];
    p->label = k->text[T_LABEL];
    p->op = k->text[T_OP][0] ? k->text[T_OP] : NULL;
    p->rma_sync = k->text[T_RMA_SYNC][0] ? k->text[T_RMA_SYNC] : NULL;
    p->key = k->id;
    p->procs = (int)k->procs;
    p->bytes = k->bytes;
    long r = strtol(k->text[T_ROOT], &end, 10);
    p->root = k->text[T_ROOT][0] && *end == '\0' ? (int)r : -1;
    long long v = strtoll(k->text[T_PARAM], &end, 10);
    p->param = k->text[T_PARAM][0] && *end == '\0' ? v : 0;
}

/* text of k with the ignored parts NULL (matching anything). */
static void masked(const struct ckey *k, unsigned ignore, const char *text[NTEXT])
{
    for (int t = 0; t < NTEXT; t++)
        text[t] = k->text[t];
    if (ignore & MBX_COMPARE_IGNORE_BENCHMARK)
        text[T_BENCH] = NULL;
    if (ignore & MBX_COMPARE_IGNORE_LABEL)
        text[T_LABEL] = NULL;
    if (ignore & MBX_COMPARE_IGNORE_RMA_SYNC)
        text[T_RMA_SYNC] = NULL;
}

/* The parts ignore leaves out, for messages: "benchmark and rma_sync". */
static void ignored_names(unsigned ignore, char *out, size_t len)
{
    static const char *const name[] = {"benchmark", "label", "rma_sync"};
    size_t used = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < 3; i++)
        if ((ignore & (1u << i)) && used < len)
            used += (size_t)snprintf(out + used, len - used, "%s%s", used ? " and " : "", name[i]);
}

/* "bench [label]", with " rma_sync=MODE" when it has one. */
static void key_name(const struct ckey *k, char *out, size_t len)
{
    snprintf(out, len, "%s [%s]%s%s", k->text[T_BENCH], k->text[T_LABEL],
             k->text[T_RMA_SYNC][0] ? " rma_sync=" : "", k->text[T_RMA_SYNC]);
}

/* The key of s with a sample that matches text; NULL when none. */
static const struct ckey *find_sampled(const struct side *s, const char *const *text,
                                       unsigned long long procs, unsigned long long bytes)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->key[i].nv > 0 && mbx_compare_key_is(&s->key[i], text, procs, bytes))
            return &s->key[i];
    return NULL;
}

/* With parts of the key ignored, two points of B must not become one. */
static int check_unique(const struct side *b, unsigned ignore, const char *path, char *msg,
                        size_t msglen)
{
    for (size_t i = 0; ignore && i < b->n; i++) {
        const struct ckey *k = &b->key[i];
        const char *text[NTEXT];
        masked(k, ignore, text);
        for (size_t j = i + 1; k->nv > 0 && j < b->n; j++) {
            const struct ckey *o = &b->key[j];
            if (o->nv > 0 && mbx_compare_key_is(o, text, k->procs, k->bytes)) {
                char parts[48], kn[160], on[160];
                ignored_names(ignore, parts, sizeof parts);
                key_name(k, kn, sizeof kn);
                key_name(o, on, sizeof on);
                mbx_msgf(msg, msglen,
                         "'%s': with the %s ignored, %s and %s at %llu procs, %llu bytes are one "
                         "point; compare inputs with one %s each",
                         path, parts, kn, on, k->procs, k->bytes, parts);
                return MBX_E_INVAL;
            }
        }
    }
    return MBX_OK;
}

static int strcmp0(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

/* Sorted by benchmark, label, procs, bytes, root, op, param, rma_sync: runs shuffle
 * their points, so file order means nothing to a reader. */
static int by_key(const void *x, const void *y)
{
    const mbx_cmp_point *a = x, *b = y;
    int c = strcmp0(a->benchmark, b->benchmark);
    if (!c)
        c = strcmp0(a->label, b->label);
    if (!c)
        c = (a->procs > b->procs) - (a->procs < b->procs);
    if (!c)
        c = (a->bytes > b->bytes) - (a->bytes < b->bytes);
    if (!c)
        c = (a->root > b->root) - (a->root < b->root);
    if (!c)
        c = strcmp0(a->op, b->op);
    if (!c)
        c = (a->param > b->param) - (a->param < b->param);
    if (!c)
        c = strcmp0(a->rma_sync, b->rma_sync);
    return c;
}

/* Test every key of A that B has too, and count the rest. */
static int test_all(mbx_compare *c, double alpha, unsigned ignore, char *msg, size_t msglen)
{
    struct side *a = &c->s[0], *b = &c->s[1];
    c->pt = calloc(a->n ? a->n : 1, sizeof *c->pt);
    if (c->pt == NULL)
        return MBX_E_NOMEM;
    for (size_t i = 0; i < a->n; i++) {
        const struct ckey *ka = &a->key[i];
        const char *text[NTEXT];
        masked(ka, ignore, text);
        const struct ckey *kb = find_sampled(b, text, ka->procs, ka->bytes);
        if (ka->nv == 0)
            continue;
        if (kb == NULL) {
            c->sum.only_a++;
            continue;
        }
        mbx_cmp_point *p = &c->pt[c->npt];
        int rc = mbx_compare_samples(ka->v, ka->nv, kb->v, kb->nv, alpha, p);
        if (rc < 0) {
            mbx_msgf(msg, msglen, "%s, %llu bytes: the test failed: %s", ka->text[T_BENCH],
                     ka->bytes, mbx_strerror(rc));
            return rc;
        }
        fill_key(p, ka);
        c->npt++;
        c->sum.faster += p->verdict == '<';
        c->sum.slower += p->verdict == '>';
        c->sum.same += p->verdict == '=';
    }
    for (size_t i = 0; i < b->n; i++) {
        const struct ckey *kb = &b->key[i];
        const char *text[NTEXT];
        masked(kb, ignore, text);
        c->sum.only_b += kb->nv > 0 && find_sampled(a, text, kb->procs, kb->bytes) == NULL;
    }
    qsort(c->pt, c->npt, sizeof *c->pt, by_key);
    c->sum.tested = c->npt;
    c->sum.kind_a = a->kind;
    c->sum.kind_b = b->kind;
    return MBX_OK;
}

int mbx_compare_load(const char *path_a, const char *path_b, double alpha, mbx_compare **out,
                     char *msg, size_t msglen)
{
    return mbx_compare_load_ex(path_a, path_b, alpha, 0, out, msg, msglen);
}

int mbx_compare_load_ex(const char *path_a, const char *path_b, double alpha, unsigned ignore,
                        mbx_compare **out, char *msg, size_t msglen)
{
    if (out == NULL)
        return MBX_E_INVAL;
    *out = NULL;
    if (msg != NULL && msglen > 0)
        msg[0] = '\0';
    if (path_a == NULL || path_b == NULL) {
        mbx_msgf(msg, msglen, "compare: two inputs are needed");
        return MBX_E_INVAL;
    }
    if (!(alpha > 0 && alpha < 1)) {
        mbx_msgf(msg, msglen, "alpha: expected 0 < alpha < 1, got %g", alpha);
        return MBX_E_INVAL;
    }
    mbx_compare *c = calloc(1, sizeof *c);
    if (c == NULL)
        return MBX_E_NOMEM;
    int rc = mbx_compare_load_side(&c->s[0], path_a, msg, msglen);
    if (rc == MBX_OK)
        rc = mbx_compare_load_side(&c->s[1], path_b, msg, msglen);
    if (rc == MBX_OK)
        rc = check_unique(&c->s[1], ignore, path_b, msg, msglen);
    if (rc == MBX_OK)
        rc = test_all(c, alpha, ignore, msg, msglen);
    if (rc == MBX_OK && c->npt == 0) {
        mbx_msgf(msg, msglen,
                 "'%s' and '%s' have no point in common (%zu and %zu points with values)", path_a,
                 path_b, c->sum.only_a, c->sum.only_b);
        rc = MBX_E_INVAL;
    }
    if (rc == MBX_E_NOMEM && msg != NULL && msglen > 0 && msg[0] == '\0')
        mbx_msgf(msg, msglen, "out of memory");
    if (rc < 0) {
        mbx_compare_free(c);
        return rc;
    }
    *out = c;
    return MBX_OK;
}

size_t mbx_compare_count(const mbx_compare *c)
{
    return c ? c->npt : 0;
}

const mbx_cmp_point *mbx_compare_get(const mbx_compare *c, size_t i)
{
    return c && i < c->npt ? &c->pt[i] : NULL;
}

void mbx_compare_summarize(const mbx_compare *c, mbx_compare_summary *out)
{
    if (out == NULL)
        return;
    if (c == NULL)
        memset(out, 0, sizeof *out);
    else
        *out = c->sum;
}
