/* mpibex report: the rows of `mpibex pairs` (tui/cmd/pairs_out.c) as a
 * matrix of nodes, and the verdicts sidecar beside them (OUT.verdicts.csv).
 * A node is a world rank that a cell names; pairs numbers its nodes by
 * ascending rank, and so does the matrix here. The verdicts name nodes as
 * pairs prints them ("host", or "host:rank" with --per rank), which is how
 * they are matched to the matrix's nodes. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/csvio.h"
#include "mbx/grow.h"
#include "mbx/pairs_run.h"
#include "report_int.h"

int mbx_rpt_pairs_metric(const char *bench)
{
    for (int m = 0; m < MBX_PAIRS_METRICS; m++)
        if (strcmp(bench, mbx_pairs_bench_name(m)) == 0)
            return m;
    return -1;
}

const char *mbx_rpt_pairs_what(int m)
{
    return m == 0 ? "latency" : "bandwidth";
}

const char *mbx_rpt_pairs_unit(int m)
{
    return m == 0 ? "µs" : "MB/s";
}

double mbx_rpt_cell_value(const mbx_rpt_cell *c)
{
    double v = c->metric == 0 ? c->p.med : c->p.bw;
    return v > 0 && isfinite(v) ? v : NAN;
}

/* "SRC,DST": two different world ranks, digits only. */
static int parse_ranks(const char *s, int *src, int *dst)
{
    const char *comma = strchr(s, ',');
    char a[24];
    unsigned long long u, v;
    if (comma == NULL || comma == s || (size_t)(comma - s) >= sizeof a)
        return 0;
    memcpy(a, s, (size_t)(comma - s));
    a[comma - s] = '\0';
    if (mbx_csv_count(a, INT_MAX, &u) < 0 || mbx_csv_count(comma + 1, INT_MAX, &v) < 0 || u == v)
        return 0;
    *src = (int)u;
    *dst = (int)v;
    return 1;
}

int mbx_rpt_pairs_add(mbx_rpt_pairs *pp, mbx_rpt_point *p, int m, const char *const f[4],
                      const char *name, size_t line, char *msg, size_t msglen)
{
    mbx_rpt_cell c = {.metric = m, .seq = pp->ncell};
    if (!parse_ranks(f[0], &c.src, &c.dst)) {
        mbx_report_msgf(msg, msglen,
                        "%s:%zu: ranks: expected SRC,DST, the world ranks of a %s cell's sender "
                        "and receiver (got '%.40s')",
                        name, line, p->bench, f[0]);
        return 2;
    }
    if (mbx_grow((void **)&pp->cell, &pp->cap, pp->ncell + 1, sizeof *pp->cell) < 0)
        goto nomem;
    c.src_host = strdup(f[1]);
    c.dst_host = strdup(f[2]);
    c.topology = strdup(f[3]);
    if (c.src_host == NULL || c.dst_host == NULL || c.topology == NULL)
        goto nomem;
    c.p = *p;
    pp->cell[pp->ncell++] = c;
    return 0;
nomem:
    free(c.src_host);
    free(c.dst_host);
    free(c.topology);
    mbx_report_msgf(msg, msglen, "out of memory");
    return 1;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* By metric, sender, receiver, then file order. */
static int cmp_cell(const void *a, const void *b)
{
    const mbx_rpt_cell *x = a, *y = b;
    if (x->metric != y->metric)
        return x->metric < y->metric ? -1 : 1;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    if (x->d != y->d)
        return x->d < y->d ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static size_t node_of_rank(const mbx_rpt_pairs *pp, int rank)
{
    const int *hit = bsearch(&rank, pp->rank, pp->n, sizeof *pp->rank, cmp_int);
    return hit ? (size_t)(hit - pp->rank) : SIZE_MAX;
}

/* Every rank a cell names, once, ascending. */
static int number_nodes(mbx_rpt_pairs *pp)
{
    int *r = malloc(2 * pp->ncell * sizeof *r);
    if (r == NULL)
        return 1;
    for (size_t k = 0; k < pp->ncell; k++) {
        r[2 * k] = pp->cell[k].src;
        r[2 * k + 1] = pp->cell[k].dst;
    }
    qsort(r, 2 * pp->ncell, sizeof *r, cmp_int);
    size_t n = 0;
    for (size_t k = 0; k < 2 * pp->ncell; k++)
        if (n == 0 || r[n - 1] != r[k])
            r[n++] = r[k];
    pp->rank = r;
    pp->n = n;
    for (size_t k = 0; k < pp->ncell; k++) {
        pp->cell[k].s = node_of_rank(pp, pp->cell[k].src);
        pp->cell[k].d = node_of_rank(pp, pp->cell[k].dst);
    }
    return 0;
}

/* Each node's host from its cells, and its label: the host where every
 * node has a host of its own, else host:rank (pairs --per rank puts
 * several nodes on a host, and names them so). */
static int name_nodes(mbx_rpt_pairs *pp)
{
    const char **from = calloc(pp->n, sizeof *from);
    pp->host = calloc(pp->n, sizeof *pp->host);
    pp->label = calloc(pp->n, sizeof *pp->label);
    if (from == NULL || pp->host == NULL || pp->label == NULL) {
        free(from);
        return 1;
    }
    for (size_t k = 0; k < pp->ncell; k++) {
        const mbx_rpt_cell *c = &pp->cell[k];
        if (from[c->s] == NULL && c->src_host[0] != '\0')
            from[c->s] = c->src_host;
        if (from[c->d] == NULL && c->dst_host[0] != '\0')
            from[c->d] = c->dst_host;
    }
    int own = 1;
    for (size_t i = 0; i < pp->n && own; i++)
        for (size_t j = 0; j < i && own; j++)
            own = from[i] != NULL && from[j] != NULL && strcmp(from[i], from[j]) != 0;
    for (size_t i = 0; i < pp->n; i++) {
        const char *h = from[i] ? from[i] : "";
        size_t len = strlen(h) + 32;
        if ((pp->host[i] = strdup(h)) == NULL || (pp->label[i] = malloc(len)) == NULL) {
            free(from);
            return 1;
        }
        if (h[0] == '\0')
            snprintf(pp->label[i], len, "rank %d", pp->rank[i]);
        else if (own && pp->n > 1)
            snprintf(pp->label[i], len, "%s", h);
        else
            snprintf(pp->label[i], len, "%s:%d", h, pp->rank[i]);
    }
    free(from);
    return 0;
}

size_t mbx_rpt_pairs_node(const mbx_rpt_pairs *pp, const char *name)
{
    char buf[300];
    for (size_t i = 0; i < pp->n; i++) {
        snprintf(buf, sizeof buf, "%s:%d", pp->host[i], pp->rank[i]);
        if (strcmp(name, pp->label[i]) == 0 || strcmp(name, buf) == 0 ||
            (pp->host[i][0] != '\0' && strcmp(name, pp->host[i]) == 0))
            return i;
    }
    return SIZE_MAX;
}

int mbx_rpt_pairs_slow(const mbx_rpt_pairs *pp, int m, size_t i)
{
    for (size_t k = 0; k < pp->nv; k++) {
        const mbx_rpt_verdict *v = &pp->v[k];
        if (v->metric == m && !v->link && v->slow && mbx_rpt_pairs_node(pp, v->src_host) == i)
            return 1;
    }
    return 0;
}

/* The verdicts file's columns, in pairs_out.c's names. */
enum {
    V_METRIC,
    V_KIND,
    V_SRC_HOST,
    V_DST_HOST,
    V_EFFECT,
    V_LO,
    V_HI,
    V_P,
    V_SLOW,
    V_TOL,
    V_ALPHA,
    V_TEST,
    NVCOL
};
static const char *const vcols[NVCOL] = {"metric", "kind",      "src_host", "dst_host",
                                         "effect", "ci95_lo",   "ci95_hi",  "p_holm",
                                         "slow",   "tolerance", "alpha",    "test"};

/* One row into pp->v; rows of another metric or kind are skipped. 0, 1
 * (no memory), or 2 and the note (a field that is no number). */
static int verdict_row(mbx_rpt_pairs *pp, char **row, const int *col, size_t line)
{
    static const int numcol[] = {V_EFFECT, V_LO, V_HI, V_P, V_TOL, V_ALPHA};
    mbx_rpt_verdict v = {.metric = mbx_rpt_pairs_metric(row[col[V_METRIC]])};
    double tol, alpha, *num[] = {&v.effect, &v.lo, &v.hi, &v.p, &tol, &alpha};
    if (v.metric < 0 || (strcmp(row[col[V_KIND]], "node") && strcmp(row[col[V_KIND]], "link")))
        return 0;
    v.link = strcmp(row[col[V_KIND]], "link") == 0;
    v.slow = strcmp(row[col[V_SLOW]], "yes") == 0;
    for (size_t k = 0; k < sizeof numcol / sizeof *numcol; k++) {
        const char *s = row[col[numcol[k]]];
        if (mbx_csv_number(s, MBX_CSV_NUMBER_MAX, 1, num[k]) != MBX_OK) {
            snprintf(pp->vnote, sizeof pp->vnote,
                     "Verdicts not read: %s:%zu: %s: expected %s (got '%.40s')", pp->vpath, line,
                     vcols[numcol[k]], MBX_CSV_NUMBER_WANT, s);
            return 2;
        }
    }
    if (pp->test[v.metric] == NULL) {
        if ((pp->test[v.metric] = strdup(row[col[V_TEST]])) == NULL)
            return 1;
        pp->tol[v.metric] = tol;
        pp->alpha[v.metric] = alpha;
    }
    v.src_host = strdup(row[col[V_SRC_HOST]]);
    v.dst_host = strdup(row[col[V_DST_HOST]]);
    if (v.src_host == NULL || v.dst_host == NULL) {
        free(v.src_host);
        free(v.dst_host);
        return 1;
    }
    pp->v[pp->nv++] = v;
    return 0;
}

static void drop_verdicts(mbx_rpt_pairs *pp)
{
    for (size_t k = 0; k < pp->nv; k++) {
        free(pp->v[k].src_host);
        free(pp->v[k].dst_host);
    }
    free(pp->v);
    pp->v = NULL;
    pp->nv = 0;
    for (int m = 0; m < MBX_PAIRS_METRICS; m++) {
        free(pp->test[m]);
        pp->test[m] = NULL;
    }
}

/* The sidecar is optional, like the environment: a missing or bad one
 * leaves a note for the page instead of failing the report. 0 or 1 (no
 * memory). */
static int read_verdicts(mbx_rpt_pairs *pp)
{
    mbx_csv_table t;
    int col[NVCOL], rc = 0;
    errno = 0;
    int st = mbx_csv_read_file(pp->vpath, &t);
    if (st < 0) {
        if (errno == ENOENT)
            snprintf(pp->vnote, sizeof pp->vnote,
                     "Verdicts not found: no verdicts file beside the input (%s)", pp->vpath);
        else
            snprintf(pp->vnote, sizeof pp->vnote, "Verdicts not read: %s is not valid CSV",
                     pp->vpath);
        return st == MBX_E_NOMEM;
    }
    for (int k = 0; k < NVCOL && rc == 0; k++) {
        if ((col[k] = mbx_csv_table_col(&t, vcols[k])) < 0) {
            snprintf(pp->vnote, sizeof pp->vnote,
                     "Verdicts not read: %s is not a verdicts file of mpibex pairs: no '%s' column",
                     pp->vpath, vcols[k]);
            rc = 2;
        }
    }
    /* A row each, at most: pp->v is never grown. */
    if (rc == 0 && (pp->v = calloc(t.nrows, sizeof *pp->v)) == NULL)
        rc = 1;
    for (size_t r = 1; rc == 0 && r < t.nrows; r++) {
        if (t.ncols[r] != t.ncols[0]) {
            snprintf(pp->vnote, sizeof pp->vnote,
                     "Verdicts not read: %s:%zu: %zu fields, the header has %zu", pp->vpath,
                     t.line[r], t.ncols[r], t.ncols[0]);
            rc = 2;
        } else {
            rc = verdict_row(pp, t.cell[r], col, t.line[r]);
        }
    }
    mbx_csv_table_free(&t);
    pp->vfound = rc == 0;
    if (rc != 0)
        drop_verdicts(pp);
    return rc == 1;
}

int mbx_rpt_pairs_index(mbx_rpt_pairs *pp, const char *path)
{
    if (number_nodes(pp) != 0 || name_nodes(pp) != 0)
        return 1;
    qsort(pp->cell, pp->ncell, sizeof *pp->cell, cmp_cell);
    for (size_t k = 0; k < pp->ncell; k++) {
        mbx_rpt_cell *c = &pp->cell[k], *prev = k ? &pp->cell[k - 1] : NULL;
        c->p.dup = prev && prev->metric == c->metric && prev->s == c->s && prev->d == c->d;
        pp->dups += (size_t)c->p.dup;
        pp->has[c->metric] = 1;
    }
    if ((pp->vpath = mbx_csv_sidecar(path, ".verdicts.csv")) == NULL)
        return 1;
    return read_verdicts(pp);
}

void mbx_rpt_pairs_free(mbx_rpt_pairs *pp)
{
    for (size_t k = 0; k < pp->ncell; k++) {
        mbx_rpt_point_free(&pp->cell[k].p);
        free(pp->cell[k].src_host);
        free(pp->cell[k].dst_host);
        free(pp->cell[k].topology);
    }
    for (size_t i = 0; i < pp->n; i++) {
        free(pp->host ? pp->host[i] : NULL);
        free(pp->label ? pp->label[i] : NULL);
    }
    drop_verdicts(pp);
    free(pp->cell);
    free(pp->rank);
    free(pp->host);
    free(pp->label);
    free(pp->vpath);
}
