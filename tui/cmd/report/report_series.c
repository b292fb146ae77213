/* mpibex report: grouping points into series (one plot family each) and
 * finding a point's significance test. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/pointid.h"
#include "report_int.h"

/* A string -> index map (open addressing, at most half full). */
typedef struct smap {
    char **key;
    size_t *val;
    size_t nslots, n;
} smap;

static size_t hash(const char *s)
{
    uint64_t h = 14695981039346656037ULL; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return (size_t)h;
}

static size_t slot_of(const smap *m, const char *k)
{
    size_t mask = m->nslots - 1, i = hash(k) & mask;
    while (m->key[i] != NULL && strcmp(m->key[i], k) != 0)
        i = (i + 1) & mask;
    return i;
}

static void smap_free(smap *m)
{
    for (size_t i = 0; i < m->nslots; i++)
        free(m->key[i]);
    free(m->key);
    free(m->val);
    memset(m, 0, sizeof *m);
}

/* The value of k, or SIZE_MAX. */
static size_t smap_get(const smap *m, const char *k)
{
    if (m->nslots == 0)
        return SIZE_MAX;
    size_t s = slot_of(m, k);
    return m->key[s] ? m->val[s] : SIZE_MAX;
}

/* Insert k (copied) with value v unless present; 0 or -1 (no memory). */
static int smap_put(smap *m, const char *k, size_t v)
{
    if (2 * (m->n + 1) > m->nslots) {
        smap big = {.nslots = m->nslots ? 2 * m->nslots : 64};
        big.key = calloc(big.nslots, sizeof *big.key);
        big.val = calloc(big.nslots, sizeof *big.val);
        if (big.key == NULL || big.val == NULL) {
            free(big.key);
            free(big.val);
            return -1;
        }
        for (size_t i = 0; i < m->nslots; i++) {
            if (m->key[i] == NULL)
                continue;
            size_t s = slot_of(&big, m->key[i]);
            big.key[s] = m->key[i];
            big.val[s] = m->val[i];
        }
        big.n = m->n;
        free(m->key);
        free(m->val);
        *m = big;
    }
    size_t s = slot_of(m, k);
    if (m->key[s] != NULL)
        return 0;
    if ((m->key[s] = strdup(k)) == NULL)
        return -1;
    m->val[s] = v;
    m->n++;
    return 0;
}

void mbx_rpt_sanitize(char *stem)
{
    for (char *c = stem; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '.' || *c == '-' || *c == '+' || *c == '_'))
            *c = '_';
}

/* What the axis of a group (a series without procs) depends on. */
typedef struct group {
    long long procs;
    unsigned long long bytes;
    int multi_procs, multi_bytes;
} group;

/* The identity of p's curve: its point identity (mbx/pointid.h) without
 * the bytes and, unless with_procs, the procs (0: no point has 0 procs). */
static char *group_key(const mbx_rpt_point *p, int with_procs)
{
    const char *text[MBX_PID_NTEXT] = {
        [MBX_PID_BENCH] = p->bench, [MBX_PID_LABEL] = p->label, [MBX_PID_ROOT] = p->root,
        [MBX_PID_OP] = p->op,       [MBX_PID_PARAM] = p->param, [MBX_PID_RMA_SYNC] = p->rma_sync};
    return mbx_pid_key(text, with_procs ? (unsigned long long)p->procs : 0, 0);
}

/* Whether p's curve runs over processes rather than bytes: its group has
 * one size and several process counts, or is of an unsized benchmark. A
 * sized benchmark measured at 0 B only (--sizes 0) is still sized: its
 * curve is over bytes. Sized-ness comes from the registry (r->sized); a
 * name it does not know falls back to "all points at 0 bytes". */
static int over_procs(const mbx_rpt *r, const group *g, const char *bench)
{
    int sized = r->sized ? r->sized(bench) : -1;
    int unsized = sized == 0 || (sized < 0 && g->bytes == 0);
    return !g->multi_bytes && (g->multi_procs || unsized);
}

static void append(char *buf, size_t len, const char *fmt, const char *a, const char *b)
{
    size_t used = strlen(buf);
    if (used < len)
        snprintf(buf + used, len - used, fmt, a, b);
}

/* The title's parts after the benchmark (label, params), as in name_series. */
static void curve_parts(char *title, size_t len, const mbx_rpt_point *p)
{
    if (p->label[0] && strcmp(p->label, "cli") != 0)
        append(title, len, " [%s]%s", p->label, "");
    if (p->root[0])
        append(title, len, ", root %s%s", p->root, "");
    if (p->op[0])
        append(title, len, ", %s%s", p->op, "");
    if (p->param[0])
        append(title, len, ", %s %s", p->param_name[0] ? p->param_name : "param", p->param);
    if (p->rma_sync[0])
        append(title, len, ", %s%s", p->rma_sync, "");
}

/* The series' file stem, title and legend text from its first point. */
static int name_series(mbx_rpt_series *s, const mbx_rpt_point *p, smap *names, size_t idx)
{
    char stem[200] = "", title[400] = "", curve[400] = "", procs[32];
    snprintf(procs, sizeof procs, "%lld", p->procs);
    append(stem, sizeof stem, "%s%s", p->bench, "");
    append(title, sizeof title, "%s%s", p->bench, "");
    append(curve, sizeof curve, "%s%s", p->bench, "");
    curve_parts(curve, sizeof curve, p);
    if (p->label[0] && strcmp(p->label, "cli") != 0) {
        append(stem, sizeof stem, "-%s%s", p->label, "");
        append(title, sizeof title, " [%s]%s", p->label, "");
    }
    if (!s->by_procs) {
        append(stem, sizeof stem, "-p%s%s", procs, "");
        append(title, sizeof title, ", %s %s", procs, p->procs == 1 ? "process" : "processes");
    }
    if (p->root[0]) {
        append(stem, sizeof stem, "-root%s%s", p->root, "");
        append(title, sizeof title, ", root %s%s", p->root, "");
    }
    if (p->op[0]) {
        append(stem, sizeof stem, "-%s%s", p->op, "");
        append(title, sizeof title, ", %s%s", p->op, "");
    }
    if (p->param[0]) {
        append(stem, sizeof stem, "-%s%s", p->param_name[0] ? p->param_name : "param", p->param);
        append(title, sizeof title, ", %s %s", p->param_name[0] ? p->param_name : "param",
               p->param);
    }
    if (p->rma_sync[0]) {
        append(stem, sizeof stem, "-%s%s", p->rma_sync, "");
        append(title, sizeof title, ", %s%s", p->rma_sync, "");
    }
    if (s->by_procs) {
        char b[48];
        snprintf(b, sizeof b, "%llu", p->bytes);
        append(title, sizeof title, ", %s %s, over processes", b, p->bytes == 1 ? "byte" : "bytes");
    }
    mbx_rpt_sanitize(stem);
    char uniq[220];
    snprintf(uniq, sizeof uniq, "%s", stem);
    for (int k = 2; smap_get(names, uniq) != SIZE_MAX; k++)
        snprintf(uniq, sizeof uniq, "%s-%d", stem, k);
    if (smap_put(names, uniq, idx) < 0)
        return -1;
    s->name = strdup(uniq);
    s->title = strdup(title);
    s->curve = strdup(curve);
    return s->name && s->title && s->curve ? 0 : -1;
}

static int add_series(mbx_rpt *r, size_t i, size_t j, int by_procs, smap *names)
{
    if (r->nse == r->secap) {
        size_t cap = r->secap ? 2 * r->secap : 32;
        mbx_rpt_series *se = realloc(r->se, cap * sizeof *se);
        if (se == NULL)
            return -1;
        r->se = se;
        r->secap = cap;
    }
    mbx_rpt_series *s = &r->se[r->nse];
    memset(s, 0, sizeof *s);
    s->by_procs = by_procs;
    s->first = i;
    s->first_pt = j;
    r->nse++;
    return name_series(s, &r->in[i].pt[j], names, r->nse - 1);
}

int mbx_rpt_group(mbx_rpt *r)
{
    smap gmap = {0}, series_map = {0}, names = {0};
    group *g = NULL;
    size_t ng = 0, gcap = 0;
    int rc = 0;
    /* Pass 1: which values vary within each group, over every input. */
    for (size_t i = 0; rc == 0 && i < r->nin; i++) {
        for (size_t j = 0; rc == 0 && j < r->in[i].npt; j++) {
            const mbx_rpt_point *p = &r->in[i].pt[j];
            char *k = group_key(p, 0);
            size_t at = k ? smap_get(&gmap, k) : SIZE_MAX;
            if (k == NULL) {
                rc = -1;
            } else if (at == SIZE_MAX) {
                if (ng == gcap) {
                    gcap = gcap ? 2 * gcap : 64;
                    group *grown = realloc(g, gcap * sizeof *g);
                    if (grown == NULL)
                        rc = -1;
                    else
                        g = grown;
                }
                if (rc == 0 && smap_put(&gmap, k, ng) < 0)
                    rc = -1;
                if (rc == 0)
                    g[ng++] = (group){p->procs, p->bytes, 0, 0};
            } else {
                g[at].multi_procs |= g[at].procs != p->procs;
                g[at].multi_bytes |= g[at].bytes != p->bytes;
            }
            free(k);
        }
    }
    /* Pass 2: the series of each point, and repeated keys. */
    for (size_t i = 0; rc == 0 && i < r->nin; i++) {
        smap seen = {0};
        for (size_t j = 0; rc == 0 && j < r->in[i].npt; j++) {
            mbx_rpt_point *p = &r->in[i].pt[j];
            char *gk = group_key(p, 0);
            const group *gr = gk ? &g[smap_get(&gmap, gk)] : NULL;
            free(gk);
            int by_procs = gr && over_procs(r, gr, p->bench);
            char *sk = group_key(p, !by_procs), *pk = mbx_rpt_point_key(p);
            if (gr == NULL || sk == NULL || pk == NULL) {
                rc = -1;
            } else {
                size_t s = smap_get(&series_map, sk);
                if (s == SIZE_MAX) {
                    s = r->nse;
                    if (smap_put(&series_map, sk, s) < 0 ||
                        add_series(r, i, j, by_procs, &names) < 0)
                        rc = -1;
                }
                p->series = s;
                p->dup = smap_get(&seen, pk) != SIZE_MAX;
                r->dups += (size_t)p->dup;
                if (rc == 0 && smap_put(&seen, pk, j) < 0)
                    rc = -1;
            }
            free(sk);
            free(pk);
        }
        smap_free(&seen);
    }
    smap_free(&gmap);
    smap_free(&series_map);
    smap_free(&names);
    free(g);
    return rc == 0 ? 0 : 1;
}

/* ---- figures: which series share a plot ---- */

/* Curves (series x inputs) on one plot at most: the Okabe-Ito colours. */
#define MAX_CURVES 8

/* The group of series s under r->overlay: its figure key, the figure's
 * stem (without uniqueness) and title when it holds several series. */
static int fig_key(const mbx_rpt *r, size_t s, char *key, size_t klen, char *stem, size_t slen,
                   char *title, size_t tlen)
{
    const mbx_rpt_series *se = &r->se[s];
    const mbx_rpt_point *p = &r->in[se->first].pt[se->first_pt];
    char kind[160] = "all", fixed[96];
    if (r->overlay == MBX_REPORT_OVERLAY_BENCH)
        return snprintf(key, klen, "s%zu", s) < 0 ? -1 : 0;
    if (r->overlay == MBX_REPORT_OVERLAY_KIND)
        snprintf(kind, sizeof kind, "%.*s", (int)strcspn(p->bench, "."), p->bench);
    if (se->by_procs) {
        snprintf(fixed, sizeof fixed, "%llu %s, over processes", p->bytes,
                 p->bytes == 1 ? "byte" : "bytes");
        snprintf(stem, slen, "%s-%llub-procs", kind, p->bytes);
    } else {
        snprintf(fixed, sizeof fixed, "%lld %s", p->procs, p->procs == 1 ? "process" : "processes");
        snprintf(stem, slen, "%s-p%lld", kind, p->procs);
    }
    mbx_rpt_sanitize(stem);
    if (r->overlay == MBX_REPORT_OVERLAY_KIND)
        snprintf(title, tlen, "%s benchmarks, %s", kind, fixed);
    else
        snprintf(title, tlen, "%s", fixed);
    /* The key keeps the kind apart from the axis: no separator can come
     * from a benchmark name's own characters ("\x1f"). */
    return snprintf(key, klen, "%s\x1f%d\x1f%s", kind, se->by_procs, fixed) < 0 ? -1 : 0;
}

static int add_fig(mbx_rpt *r, size_t *cap, const char *stem, const char *title, int by_procs,
                   size_t nmax)
{
    if (r->nfig == *cap) {
        size_t c = *cap ? 2 * *cap : 16;
        mbx_rpt_fig *f = realloc(r->fig, c * sizeof *f);
        if (f == NULL)
            return -1;
        r->fig = f;
        *cap = c;
    }
    mbx_rpt_fig *f = &r->fig[r->nfig++];
    memset(f, 0, sizeof *f);
    f->by_procs = by_procs;
    f->name = strdup(stem);
    f->title = strdup(title);
    f->se = malloc(nmax * sizeof *f->se);
    return f->name && f->title && f->se ? 0 : -1;
}

/* A figure of one series is named after it (the file names of a report
 * without overlays); others keep their group's stem, made unique. */
static int name_figs(mbx_rpt *r)
{
    smap names = {0};
    int rc = 0;
    for (size_t f = 0; rc == 0 && f < r->nfig; f++) {
        mbx_rpt_fig *fg = &r->fig[f];
        if (fg->nse == 1) {
            char *n = strdup(r->se[fg->se[0]].name), *t = strdup(r->se[fg->se[0]].title);
            free(fg->name);
            free(fg->title);
            fg->name = n;
            fg->title = t;
            if (n == NULL || t == NULL)
                rc = -1;
        }
        char uniq[300];
        snprintf(uniq, sizeof uniq, "%s", fg->name ? fg->name : "");
        for (int k = 2; rc == 0 && smap_get(&names, uniq) != SIZE_MAX; k++)
            snprintf(uniq, sizeof uniq, "%s-%d", fg->name, k);
        if (rc == 0 && strcmp(uniq, fg->name) != 0) {
            char *n = strdup(uniq);
            free(fg->name);
            fg->name = n;
        }
        if (rc == 0 && (fg->name == NULL || smap_put(&names, uniq, f) < 0))
            rc = -1;
    }
    smap_free(&names);
    return rc;
}

int mbx_rpt_figures(mbx_rpt *r)
{
    smap open = {0}; /* group key -> its figure that still has room */
    size_t cap = 0, nmax = MAX_CURVES / (r->nin ? r->nin : 1);
    int rc = 0;
    nmax = nmax < 1 ? 1 : nmax;
    for (size_t s = 0; rc == 0 && s < r->nse; s++) {
        char key[400], stem[200] = "", title[300] = "";
        if (fig_key(r, s, key, sizeof key, stem, sizeof stem, title, sizeof title) < 0) {
            rc = -1;
            break;
        }
        size_t f = smap_get(&open, key);
        if (f == SIZE_MAX || r->fig[f].nse == nmax) {
            f = r->nfig;
            if (add_fig(r, &cap, stem, title, r->se[s].by_procs, nmax) < 0)
                rc = -1;
            else if (smap_get(&open, key) == SIZE_MAX)
                rc = smap_put(&open, key, f);
            else
                open.val[slot_of(&open, key)] = f; /* the full one is closed */
        }
        if (rc == 0) {
            r->fig[f].se[r->fig[f].nse++] = s;
            r->se[s].fig = f;
        }
    }
    smap_free(&open);
    if (rc == 0)
        rc = name_figs(r);
    return rc == 0 ? 0 : 1;
}

void mbx_rpt_figures_free(mbx_rpt *r)
{
    for (size_t f = 0; f < r->nfig; f++) {
        free(r->fig[f].name);
        free(r->fig[f].title);
        free(r->fig[f].se);
    }
    free(r->fig);
    r->fig = NULL;
    r->nfig = 0;
}

double mbx_rpt_x(const mbx_rpt *r, const mbx_rpt_point *p)
{
    return r->se[p->series].by_procs ? (double)p->procs : (double)p->bytes;
}

static const mbx_rpt *sort_r;
static const mbx_rpt_point *sort_pt;
static int by_x(const void *a, const void *b)
{
    double x = mbx_rpt_x(sort_r, &sort_pt[*(const size_t *)a]);
    double y = mbx_rpt_x(sort_r, &sort_pt[*(const size_t *)b]);
    return (x > y) - (x < y);
}

size_t *mbx_rpt_series_points(const mbx_rpt *r, size_t i, size_t s, size_t *n)
{
    const mbx_rpt_input *in = &r->in[i];
    size_t k = 0, *idx = NULL;
    for (size_t j = 0; j < in->npt; j++)
        k += in->pt[j].series == s && !in->pt[j].dup;
    *n = 0;
    if (k == 0 || (idx = malloc(k * sizeof *idx)) == NULL)
        return NULL;
    for (size_t j = 0; j < in->npt; j++)
        if (in->pt[j].series == s && !in->pt[j].dup)
            idx[(*n)++] = j;
    sort_r = r;
    sort_pt = in->pt;
    qsort(idx, *n, sizeof *idx, by_x);
    return idx;
}

static const mbx_rpt_cmp *sort_c;
static int by_key(const void *a, const void *b)
{
    return strcmp(sort_c->keys[*(const size_t *)a], sort_c->keys[*(const size_t *)b]);
}

int mbx_rpt_cmp_index(mbx_rpt_cmp *c)
{
    size_t n = mbx_compare_count(c->c);
    char **keys = calloc(n ? n : 1, sizeof *keys);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    c->keys = keys;
    c->order = order;
    if (keys == NULL || order == NULL)
        return 1;
    for (size_t i = 0; i < n; i++) {
        order[i] = i;
        if ((keys[i] = mbx_rpt_cmp_key(mbx_compare_get(c->c, i))) == NULL)
            return 1;
    }
    sort_c = c;
    qsort(order, n, sizeof *order, by_key);
    return 0;
}

size_t mbx_rpt_cmp_find(const mbx_rpt_cmp *c, const mbx_rpt_point *p)
{
    if (c->c == NULL || c->order == NULL)
        return SIZE_MAX;
    char *k = mbx_rpt_point_key(p);
    if (k == NULL)
        return SIZE_MAX;
    size_t lo = 0, hi = mbx_compare_count(c->c), found = SIZE_MAX;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int d = strcmp(c->keys[c->order[mid]], k);
        if (d == 0) {
            found = c->order[mid];
            break;
        }
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    free(k);
    return found;
}

static const mbx_rpt *sort_rr;
static const mbx_rpt_point *sort_pp;
static int by_series_x(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const mbx_rpt_point *p = &sort_pp[i], *q = &sort_pp[j];
    if (p->series != q->series)
        return p->series < q->series ? -1 : 1;
    double x = mbx_rpt_x(sort_rr, p), y = mbx_rpt_x(sort_rr, q);
    if (x != y)
        return x < y ? -1 : 1;
    return (i > j) - (i < j);
}

size_t *mbx_rpt_sorted(const mbx_rpt *r, size_t i)
{
    const mbx_rpt_input *in = &r->in[i];
    size_t *idx = malloc((in->npt ? in->npt : 1) * sizeof *idx);
    if (idx == NULL)
        return NULL;
    for (size_t j = 0; j < in->npt; j++)
        idx[j] = j;
    sort_rr = r;
    sort_pp = in->pt;
    qsort(idx, in->npt, sizeof *idx, by_series_x);
    return idx;
}
