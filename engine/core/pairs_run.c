/* Measuring every pair of nodes in passes (mbx/pairs_run.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/grow.h"
#include "mbx/pairs_run.h"
#include "mbx/stats.h"

static uint64_t next_rand(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Fisher-Yates over a[0..n). */
static void shuffle(int *a, int n, uint64_t *s)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(next_rand(s) % (uint64_t)(i + 1));
        int x = a[i];
        a[i] = a[j];
        a[j] = x;
    }
}

void mbx_pairs_plan_init(mbx_pairs_plan *p)
{
    memset(p, 0, sizeof *p);
    p->mode = 0;
    p->metrics = 3;
    p->bytes[0] = 8;
    p->bytes[1] = 1u << 20;
    p->window = 16;
    p->nobs[0] = 20;
    p->nobs[1] = 3;
    p->nwarm = 2;
    p->seed = 1;
    mbx_passes_opts_init(&p->passes);
    p->passes.eps = 0.05;
    p->max_rounds = 200;
    p->round_gap = 0.1;
}

int mbx_pairs_plan_steps(const mbx_pairs_plan *p)
{
    return p->mode == 0 ? p->n - 1 : p->n * (p->n - 1);
}

#define BAD(...) (snprintf(msg, msglen, __VA_ARGS__), MBX_E_INVAL)

int mbx_pairs_plan_check(const mbx_pairs_plan *p, char *msg, size_t msglen)
{
    if (!p)
        return BAD("pairs: no plan");
    if (p->n < 2 || p->n > MBX_PAIRS_RUN_NODES_MAX)
        return BAD("pairs: the job has %d node%s; the matrix needs 2 to %d (--per rank counts "
                   "every rank as one)",
                   p->n, p->n == 1 ? "" : "s", MBX_PAIRS_RUN_NODES_MAX);
    if (p->mode != 0 && p->mode != 1)
        return BAD("--mode: expected shift or one");
    if (p->metrics < 1 || p->metrics > 3)
        return BAD("--metric: expected lat, bw or lat,bw");
    int all = mbx_pairs_plan_steps(p);
    if (p->steps < 0 || p->steps > all)
        return BAD("--steps: %d asked; %d nodes have %d %s (1..%d)", p->steps, p->n, all,
                   p->mode == 0 ? "shift steps" : "directed pairs", all);
    for (int m = 0; m < MBX_PAIRS_METRICS; m++)
        if ((p->metrics >> m & 1) && (p->nobs[m] < 1 || p->nobs[m] > 100000))
            return BAD("--obs: expected 1..100000 observations a pass, got %d", p->nobs[m]);
    if ((p->metrics & 2) && (p->window < 1 || p->window > 4096))
        return BAD("--window: expected 1..4096 messages, got %d", p->window);
    if ((p->metrics & 2) && p->bytes[1] < 1)
        return BAD("--bw-bytes: expected 1 B or more");
    if (p->nwarm < 0 || p->nwarm > 1000)
        return BAD("--warmup: expected 0..1000 untimed observations, got %d", p->nwarm);
    if (p->max_rounds < 1 || p->max_rounds > 1000000)
        return BAD("--max-rounds: expected 1..1000000, got %d", p->max_rounds);
    if (!(p->time_limit >= 0) || !isfinite(p->time_limit))
        return BAD("--time-limit: expected seconds >= 0");
    if (!(p->round_gap >= 0) || p->round_gap > 3600)
        return BAD("--round-gap: expected 0..3600 seconds");
    if (!(p->passes.eps > 0 && p->passes.eps < 1))
        return BAD("--eps: expected a relative error in (0, 1)");
    return MBX_OK;
}

void mbx_pairs_run_free(mbx_pairs_run *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->ncells; i++) {
        mbx_passes_free(r->cell[i].passes);
        free(r->cell[i].obs);
        free(r->cell[i].pm);
    }
    free(r->cell);
    free(r->step);
    memset(r, 0, sizeof *r);
}

const char *mbx_pairs_bench_name(int metric)
{
    return metric == 0 ? "pairs.lat" : "pairs.bw";
}

const char *mbx_pairs_mode_name(int mode)
{
    return mode == 0 ? "shift" : "one pair";
}

/* The cells of one metric's step: shift k gives (i, i + k) for every i,
 * a pair index one cell. */
static int step_cells(const mbx_pairs_plan *p, int step, int i, int *src, int *dst)
{
    if (p->mode == 0) {
        *src = i;
        *dst = (i + step) % p->n;
        return p->n;
    }
    *src = step / p->n;
    *dst = step % p->n;
    return 1;
}

/* Index of the cell (m, src, dst) in the run's list, -1 when left out. */
static long cell_index(const mbx_pairs_run *r, int m, int src, int dst)
{
    /* Cells are metric-major then (src, dst) ascending: a binary search. */
    size_t lo = 0, hi = r->ncells;
    long key = ((long)m * r->plan.n + src) * r->plan.n + dst;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const mbx_pairs_cellrun *c = &r->cell[mid];
        long k = ((long)c->metric * r->plan.n + c->src) * r->plan.n + c->dst;
        if (k == key)
            return (long)mid;
        if (k < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

const mbx_pairs_cellrun *mbx_pairs_run_cell(const mbx_pairs_run *r, int metric, int src, int dst)
{
    long i = r && src >= 0 && dst >= 0 && src < r->plan.n && dst < r->plan.n
                 ? cell_index(r, metric, src, dst)
                 : -1;
    return i < 0 ? NULL : &r->cell[i];
}

static int cmp_cell(const void *a, const void *b)
{
    const mbx_pairs_cellrun *x = a, *y = b;
    if (x->metric != y->metric)
        return x->metric < y->metric ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The steps (a seeded sample when plan.steps is set) and their cells. */
static int build(mbx_pairs_run *r, uint64_t *rng)
{
    const mbx_pairs_plan *p = &r->plan;
    int all = mbx_pairs_plan_steps(p);
    int *pool = malloc((size_t)all * sizeof *pool);
    if (!pool)
        return MBX_E_NOMEM;
    for (int i = 0, s = 0; s < all; i++) {
        if (p->mode == 1 && i / p->n == i % p->n)
            continue; /* no pair of a node with itself */
        pool[s++] = p->mode == 0 ? i + 1 : i;
    }
    r->nsteps = p->steps ? p->steps : all;
    if (r->nsteps < all)
        shuffle(pool, all, rng);
    qsort(pool, (size_t)r->nsteps, sizeof *pool, cmp_int);
    r->step = pool;
    int per = p->mode == 0 ? p->n : 1;
    int nm = (p->metrics & 1) + (p->metrics >> 1 & 1);
    r->ncells = (size_t)nm * (size_t)r->nsteps * (size_t)per;
    r->cell = calloc(r->ncells, sizeof *r->cell);
    if (!r->cell)
        return MBX_E_NOMEM;
    size_t c = 0;
    for (int m = 0; m < MBX_PAIRS_METRICS; m++) {
        if (!(p->metrics >> m & 1))
            continue;
        for (int s = 0; s < r->nsteps; s++)
            for (int i = 0; i < per; i++) {
                mbx_pairs_cellrun *x = &r->cell[c++];
                step_cells(p, r->step[s], i, &x->src, &x->dst);
                x->metric = m;
                x->k = (x->dst - x->src + p->n) % p->n;
            }
    }
    qsort(r->cell, r->ncells, sizeof *r->cell, cmp_cell);
    for (size_t i = 0; i < r->ncells; i++)
        if (mbx_passes_create(&p->passes, &r->cell[i].passes) < 0)
            return MBX_E_NOMEM;
    return MBX_OK;
}

/* One pass of one step: each cell's pass median from its node's times. */
static int pass(mbx_pairs_run *r, const mbx_pairs_hooks *h, int m, int step, double *t,
                double *scratch)
{
    const mbx_pairs_plan *p = &r->plan;
    mbx_pairs_req q = {.mode = p->mode,
                       .metric = m,
                       .bytes = p->bytes[m],
                       .window = p->window,
                       .nobs = p->nobs[m],
                       .nwarm = p->nwarm};
    if (p->mode == 0)
        q.k = step;
    else {
        q.src = step / p->n;
        q.dst = step % p->n;
    }
    double t0 = h->clock(h->ud);
    int rc = h->step(h->ud, &q, t);
    if (rc < 0)
        return rc;
    double t1 = h->clock(h->ud);
    r->steps_done[m]++;
    r->step_s[m] += t1 - t0;
    int per = p->mode == 0 ? p->n : 1;
    for (int i = 0; i < per; i++) {
        int src, dst;
        step_cells(p, step, i, &src, &dst);
        long ci = cell_index(r, m, src, dst);
        if (ci < 0)
            return MBX_E_INVAL;
        size_t n = 0;
        for (int j = 0; j < q.nobs; j++) {
            double v = t[(size_t)src * (size_t)q.nobs + (size_t)j];
            if (isfinite(v) && v > 0)
                scratch[n++] = v;
        }
        if (n == 0)
            continue; /* nothing usable: the cell waits for the next round */
        mbx_pairs_cellrun *x = &r->cell[ci];
        if ((rc = mbx_grow((void **)&x->obs, &x->obs_cap, x->nobs + n, sizeof *x->obs)) < 0)
            return rc;
        memcpy(x->obs + x->nobs, scratch, n * sizeof *scratch);
        x->nobs += n;
        mbx_pass ps = {.median = mbx_stats_median_sort(scratch, n),
                       .n = n,
                       .t_start = t0,
                       .t_end = t1,
                       .level = MBX_PASSES_NO_LEVEL};
        if ((rc = mbx_passes_add(x->passes, &ps)) < 0 ||
            (rc = mbx_grow((void **)&x->pm, &x->pm_cap, x->npm + 1, sizeof *x->pm)) < 0)
            return rc;
        x->pm[x->npm++] = ps.median;
    }
    return MBX_OK;
}

static int all_settled(mbx_pairs_run *r)
{
    int all = 1;
    for (size_t i = 0; i < r->ncells; i++) {
        if (mbx_passes_result_get(r->cell[i].passes, &r->cell[i].r) < 0)
            return -1;
        all &= r->cell[i].r.verdict == MBX_PASSES_SETTLED;
    }
    return all;
}

int mbx_pairs_run_plan(const mbx_pairs_plan *p, const mbx_pairs_hooks *h, mbx_pairs_run *out,
                       char *msg, size_t msglen)
{
    if (!out)
        return MBX_E_INVAL;
    memset(out, 0, sizeof *out);
    int rc = mbx_pairs_plan_check(p, msg, msglen);
    if (rc < 0)
        return rc;
    if (!h || !h->step || !h->clock)
        return BAD("pairs: no step function");
    out->plan = *p;
    uint64_t rng = p->seed;
    if ((rc = build(out, &rng)) < 0)
        return rc;
    int nm = (p->metrics & 1) + (p->metrics >> 1 & 1);
    size_t ntask = (size_t)nm * (size_t)out->nsteps;
    int nobs = p->nobs[0] > p->nobs[1] ? p->nobs[0] : p->nobs[1];
    int *task = malloc(ntask * sizeof *task);
    double *t = malloc((size_t)p->n * (size_t)nobs * sizeof *t);
    double *scratch = malloc((size_t)nobs * sizeof *scratch);
    if (!task || !t || !scratch) {
        free(task);
        free(t);
        free(scratch);
        return MBX_E_NOMEM;
    }
    for (size_t i = 0, m = 0; m < MBX_PAIRS_METRICS; m++)
        for (int s = 0; (p->metrics >> m & 1) && s < out->nsteps; s++)
            task[i++] = (int)m * out->nsteps + s;
    double start = h->clock(h->ud), round_start = start;
    out->ended = "max-rounds";
    snprintf(out->ended_buf, sizeof out->ended_buf, "max-rounds %d", p->max_rounds);
    out->ended = out->ended_buf;
    for (out->rounds = 0; rc >= 0 && out->rounds < p->max_rounds;) {
        if (h->progress && h->progress(h->ud, out, 0, ntask)) {
            rc = MBX_E_ABORTED;
            break;
        }
        double gap = round_start + p->round_gap - h->clock(h->ud);
        if (out->rounds > 0 && gap > 0 && h->sleep)
            h->sleep(h->ud, gap);
        round_start = h->clock(h->ud);
        shuffle(task, (int)ntask, &rng);
        for (size_t i = 0; rc >= 0 && i < ntask; i++) {
            int m = task[i] / out->nsteps;
            rc = pass(out, h, m, out->step[task[i] % out->nsteps], t, scratch);
            if (rc >= 0 && h->progress && h->progress(h->ud, out, i + 1, ntask))
                rc = MBX_E_ABORTED;
        }
        if (rc < 0)
            break;
        out->rounds++;
        int settled = all_settled(out);
        if (settled < 0) {
            rc = MBX_E_NOMEM;
            break;
        }
        if (settled) {
            out->ended = "settled";
            break;
        }
        if (p->time_limit > 0 && h->clock(h->ud) - start >= p->time_limit) {
            snprintf(out->ended_buf, sizeof out->ended_buf, "time-limit %g s", p->time_limit);
            out->ended = out->ended_buf;
            break;
        }
    }
    out->wall = h->clock(h->ud) - start;
    if (rc == MBX_E_ABORTED)
        out->ended = "stopped";
    if (all_settled(out) < 0 && rc >= 0)
        rc = MBX_E_NOMEM;
    free(task);
    free(t);
    free(scratch);
    return rc < 0 ? rc : MBX_OK;
}

int mbx_pairs_run_fit(const mbx_pairs_run *r, int m, const mbx_pairs_opts *o, mbx_pairs_fit *out,
                      char *msg, size_t msglen)
{
    if (!r || !out)
        return MBX_E_INVAL;
    memset(out, 0, sizeof *out);
    mbx_pairs_cell *cell = malloc((r->ncells ? r->ncells : 1) * sizeof *cell);
    if (!cell)
        return MBX_E_NOMEM;
    size_t nc = 0;
    for (size_t i = 0; i < r->ncells; i++) {
        const mbx_pairs_cellrun *x = &r->cell[i];
        if (x->metric != m)
            continue;
        int ok = x->r.b.r > 0 && isfinite(x->r.b.value) && x->r.b.value > 0;
        int ci = ok && x->r.b.r >= 2 && x->r.b.ci_lo > 0 && x->r.b.ci_hi >= x->r.b.ci_lo;
        cell[nc++] = (mbx_pairs_cell){.src = x->src,
                                      .dst = x->dst,
                                      .value = ok ? x->r.b.value : NAN,
                                      .lo = ci ? x->r.b.ci_lo : NAN,
                                      .hi = ci ? x->r.b.ci_hi : NAN};
    }
    int rc = mbx_pairs_fit_model(cell, nc, r->plan.n, o, out, msg, msglen);
    free(cell);
    return rc;
}
