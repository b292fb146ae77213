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
    "benchmark", "label",   "procs",    "bytes",         "root",        "op",
    "param",     "n_a",     "n_b",      "median_a_us",   "median_b_us", "ratio_b_over_a",
    "shift_us",  "w",       "z",        "p_two_sided",   "p_less",      "p_greater",
    "exact",     "verdict", "rma_sync", "compare_scope", "hl_ratio",    "hl_lo",
    "hl_hi",     "q_bh",    "equiv",    "equiv_delta",
};

void mbx_compare_side_free(struct side *s)
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
    mbx_compare_side_free(&c->s[0]);
    mbx_compare_side_free(&c->s[1]);
    free(c->pt);
    free(c->sa);
    free(c->cv);
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
    return v == '<' ? "<" : v == '>' ? ">" : v == '?' ? "none" : "same";
}

const char *mbx_compare_point_word(const mbx_cmp_point *p)
{
    if (p->verdict != '=')
        return mbx_compare_verdict_word(p->verdict);
    return p->equiv == 'y' ? "same" : "not_distinguishable";
}

void mbx_compare_scope_text(mbx_compare_scope scope, size_t k, char *buf, size_t len)
{
    if (scope == MBX_CMP_SCOPE_LAUNCHES)
        snprintf(buf, len, "launches:%zu", k);
    else
        snprintf(buf, len, "%s", scope == MBX_CMP_SCOPE_ONE_JOB ? "passes-of-one-job" : "none");
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
    /* A ratio over levels would mix them: no HL ratio, no equivalence. */
    out->hl_ratio = out->hl_lo = out->hl_hi = out->hl_conf = out->eq_lo = out->eq_hi = NAN;
    out->equiv = 0;
    out->q = out->w.p_two_sided;
    out->scope = MBX_CMP_SCOPE_ONE_JOB;
    return verdict_of(a, na, b, nb, alpha, out);
}

int mbx_compare_samples(const double *a, size_t na, const double *b, size_t nb, double alpha,
                        mbx_cmp_point *out)
{
    if (out == NULL || !(alpha > 0 && alpha < 1))
        return MBX_E_INVAL;
    int rc = mbx_wilcoxon_test(a, na, b, nb, &out->w);
    if (rc == MBX_OK)
        rc = verdict_of(a, na, b, nb, alpha, out);
    if (rc == MBX_OK)
        rc = mbx_compare_shift(a, na, b, nb, MBX_COMPARE_DELTA_DEFAULT, out);
    out->q = out->w.p_two_sided;
    out->scope = MBX_CMP_SCOPE_ONE_JOB;
    return rc;
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

/* The key of s with a sample that matches text; NULL when none. With one
 * file on both sides (self: the key being matched), a key never matches
 * itself: its sections are compared with each other. */
static const struct ckey *find_sampled(const struct side *s, const char *const *text,
                                       unsigned long long procs, unsigned long long bytes,
                                       const struct ckey *self)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->key[i].nv > 0 && mbx_compare_key_is(&s->key[i], text, procs, bytes) &&
            !(self && strcmp(self->id, s->key[i].id) == 0))
            return &s->key[i];
    return NULL;
}

/* Whether both sides are one file (or one directory). */
static int one_input(const struct side *a, const struct side *b)
{
    return a->dev == b->dev && a->ino == b->ino;
}

/* With parts of the key ignored, two points of B must not become one (one
 * file on both sides: a point and its one other section may). */
static int check_unique(const struct side *b, unsigned ignore, int self, const char *path,
                        char *msg, size_t msglen)
{
    for (size_t i = 0; ignore && i < b->n; i++) {
        const struct ckey *k = &b->key[i];
        const char *text[NTEXT];
        masked(k, ignore, text);
        size_t others = 0;
        for (size_t j = 0; k->nv > 0 && j < b->n; j++) {
            const struct ckey *o = &b->key[j];
            if (j == i || o->nv == 0 || !mbx_compare_key_is(o, text, k->procs, k->bytes))
                continue;
            if (self && ++others < 2)
                continue;
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

/* A tested point with its samples, sorted together. */
struct tested {
    mbx_cmp_point p;
    struct cmp_sample s;
};

static int by_tested(const void *x, const void *y)
{
    return by_key(&((const struct tested *)x)->p, &((const struct tested *)y)->p);
}

/* The scope the two sides allow (mbx_compare_load_opts), with the line
 * that says why there is none. */
static mbx_compare_scope scope_of(const struct side *a, const struct side *b, const char **why)
{
    *why = NULL;
    if (a->dir && b->dir)
        return MBX_CMP_SCOPE_LAUNCHES;
    int one_file = !a->dir && !b->dir && one_input(a, b);
    if (one_file && a->kind && strcmp(a->kind, "pass medians") == 0)
        return MBX_CMP_SCOPE_ONE_JOB;
    if (one_file && a->kind && strcmp(a->kind, "row medians") == 0)
        *why = "no verdict: the file has no observations beside it (OUT.obs.csv) to test its "
               "interleaved sections; run it again with --raw";
    else if (one_file)
        *why = "no machine-level verdict: the file was measured before passes, so its points "
               "were not interleaved; compare directories of 'mpibex repeat -k 10' instead";
    else
        *why = "no machine-level verdict: A and B are not both directories of launches, and a "
               "difference between two launches may be the launches' own; run 'mpibex repeat "
               "-k 10 -- ... -o DIR' for each side and compare the two directories";
    return MBX_CMP_SCOPE_NONE;
}

/* Every common point's test, HL ratio and equivalence, into c->pt (sorted)
 * and c->sa; the rest counted. */
static int test_points(mbx_compare *c, const mbx_compare_opts *o, char *msg, size_t msglen)
{
    struct side *a = &c->s[0], *b = &c->s[1];
    int self = one_input(a, b) && o->ignore != 0;
    struct tested *t = calloc(a->n ? a->n : 1, sizeof *t);
    size_t nt = 0;
    if (t == NULL)
        return MBX_E_NOMEM;
    int rc = MBX_OK;
    for (size_t i = 0; rc == MBX_OK && i < a->n; i++) {
        const struct ckey *ka = &a->key[i];
        const char *text[NTEXT];
        masked(ka, o->ignore, text);
        const struct ckey *kb = find_sampled(b, text, ka->procs, ka->bytes, self ? ka : NULL);
        if (ka->nv == 0 || (self && kb && strcmp(ka->id, kb->id) > 0))
            continue; /* one file: each pair of sections once */
        if (kb == NULL) {
            c->sum.only_a++;
            continue;
        }
        mbx_cmp_point *p = &t[nt].p;
        rc = mbx_compare_samples(ka->v, ka->nv, kb->v, kb->nv, o->alpha, p);
        if (rc == MBX_OK)
            rc = mbx_compare_shift(ka->v, ka->nv, kb->v, kb->nv, o->delta, p);
        if (rc < 0 && rc != MBX_E_NOMEM)
            mbx_msgf(msg, msglen, "%s, %llu bytes: the test failed: %s", ka->text[T_BENCH],
                     ka->bytes, mbx_strerror(rc));
        fill_key(p, ka);
        t[nt++].s = (struct cmp_sample){
            ka->v, kb->v, ka->nv, kb->nv, a->dir ? ka->pass : NULL, b->dir ? kb->pass : NULL};
    }
    for (size_t i = 0; rc == MBX_OK && i < b->n; i++) {
        const struct ckey *kb = &b->key[i];
        const char *text[NTEXT];
        masked(kb, o->ignore, text);
        c->sum.only_b +=
            kb->nv > 0 && find_sampled(a, text, kb->procs, kb->bytes, self ? kb : NULL) == NULL;
    }
    if (rc == MBX_OK && nt > 0)
        qsort(t, nt, sizeof *t, by_tested);
    c->pt = calloc(nt ? nt : 1, sizeof *c->pt);
    c->sa = calloc(nt ? nt : 1, sizeof *c->sa);
    if (rc == MBX_OK && (c->pt == NULL || c->sa == NULL))
        rc = MBX_E_NOMEM;
    for (size_t i = 0; rc == MBX_OK && i < nt; i++)
        c->pt[i] = t[i].p, c->sa[i] = t[i].s;
    c->npt = rc == MBX_OK ? nt : 0;
    free(t);
    return rc;
}

/* The table's q-values and verdicts: different when q < alpha, and no
 * verdict at all without a machine-level scope. */
static int decide(mbx_compare *c, const mbx_compare_opts *o)
{
    mbx_compare_summary *s = &c->sum;
    s->k = SIZE_MAX;
    double *p = malloc((c->npt ? c->npt : 1) * 2 * sizeof *p);
    if (p == NULL)
        return MBX_E_NOMEM;
    for (size_t i = 0; i < c->npt; i++) {
        p[i] = c->pt[i].w.p_two_sided;
        size_t k = c->pt[i].n_a < c->pt[i].n_b ? c->pt[i].n_a : c->pt[i].n_b;
        s->k = k < s->k ? k : s->k;
    }
    int rc = mbx_compare_bh(p, c->npt, p + c->npt);
    for (size_t i = 0; rc == MBX_OK && i < c->npt; i++) {
        mbx_cmp_point *pt = &c->pt[i];
        pt->scope = s->scope;
        pt->q = s->scope == MBX_CMP_SCOPE_NONE ? NAN : p[c->npt + i];
        if (s->scope == MBX_CMP_SCOPE_NONE)
            pt->verdict = '?';
        else if (pt->q < o->alpha)
            pt->verdict = pt->w.p_less <= pt->w.p_greater ? '<' : '>';
        else
            pt->verdict = '=';
        s->faster += pt->verdict == '<';
        s->slower += pt->verdict == '>';
        s->same += pt->verdict == '=';
        s->equivalent += pt->verdict == '=' && pt->equiv == 'y';
        if (pt->verdict == '<' || pt->verdict == '>')
            s->q_max = pt->q > s->q_max ? pt->q : s->q_max;
    }
    free(p);
    s->expected_false = s->q_max * (double)(s->faster + s->slower);
    s->tested = c->npt;
    if (s->k == SIZE_MAX)
        s->k = 0;
    if (rc == MBX_OK && s->scope != MBX_CMP_SCOPE_NONE)
        rc = mbx_compare_curves(c, o->alpha);
    s->curves = c->ncv;
    return rc;
}

int mbx_compare_load(const char *path_a, const char *path_b, double alpha, mbx_compare **out,
                     char *msg, size_t msglen)
{
    return mbx_compare_load_ex(path_a, path_b, alpha, 0, out, msg, msglen);
}

int mbx_compare_load_ex(const char *path_a, const char *path_b, double alpha, unsigned ignore,
                        mbx_compare **out, char *msg, size_t msglen)
{
    mbx_compare_opts o = {.alpha = alpha, .ignore = ignore};
    return mbx_compare_load_opts(path_a, path_b, &o, out, msg, msglen);
}

int mbx_compare_load_opts(const char *path_a, const char *path_b, const mbx_compare_opts *opts,
                          mbx_compare **out, char *msg, size_t msglen)
{
    if (out == NULL || opts == NULL)
        return MBX_E_INVAL;
    mbx_compare_opts o = *opts;
    double alpha = o.alpha;
    unsigned ignore = o.ignore;
    if (o.delta == 0)
        o.delta = MBX_COMPARE_DELTA_DEFAULT;
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
    if (!(o.delta > 0 && o.delta < 1)) {
        mbx_msgf(msg, msglen, "delta: expected 0 < delta < 1, got %g", o.delta);
        return MBX_E_INVAL;
    }
    mbx_compare *c = calloc(1, sizeof *c);
    if (c == NULL)
        return MBX_E_NOMEM;
    int rc = mbx_compare_load_side(&c->s[0], path_a, msg, msglen);
    if (rc == MBX_OK)
        rc = mbx_compare_load_side(&c->s[1], path_b, msg, msglen);
    if (rc == MBX_OK)
        rc = check_unique(&c->s[1], ignore, one_input(&c->s[0], &c->s[1]), path_b, msg, msglen);
    if (rc == MBX_OK)
        rc = test_points(c, &o, msg, msglen);
    c->sum.kind_a = c->s[0].kind;
    c->sum.kind_b = c->s[1].kind;
    c->sum.delta = o.delta;
    if (rc == MBX_OK) {
        c->sum.scope = scope_of(&c->s[0], &c->s[1], &c->sum.why_none);
        rc = decide(c, &o);
    }
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

size_t mbx_compare_curve_count(const mbx_compare *c)
{
    return c ? c->ncv : 0;
}

const mbx_cmp_curve *mbx_compare_curve_get(const mbx_compare *c, size_t i)
{
    return c && i < c->ncv ? &c->cv[i] : NULL;
}
