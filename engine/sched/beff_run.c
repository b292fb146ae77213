/* b_eff driver on rank 0: patterns x sizes x methods through
 * MBX_OP_BEFF_PATTERN, loop lengths adapted between sizes, then the
 * averaging of paper section 4 (mbx_beff_aggregate). */
#include "mbx/beff_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/beff.h"

static const char *const method_names[MBX_BEFF_NMETHODS] = {"sendrecv", "alltoallv", "nonblocking"};

/* One command: `reps` loops; *best gets the shortest loop (each loop's
 * time is already the maximum over the processes). */
static int measure(mbx_engine *e, const mbx_beff_pattern *pt, uint64_t bytes, int method, int loops,
                   int reps, double *best)
{
    double t[100];
    int rc = mbx_engine_beff_pattern(e, pt, bytes, method, loops, reps, t);
    if (rc < 0)
        return rc;
    *best = t[0];
    for (int r = 1; r < reps; r++)
        if (t[r] < *best)
            *best = t[r];
    if (!(*best > 0))
        *best = 1e-9; /* below the clock: the bandwidth is a lower bound anyway */
    return MBX_OK;
}

#define BEFF_FIXES 2
/* Pattern names handed out in rows, valid until the next run. */
static char row_names[MBX_BEFF_NRINGS + MBX_BEFF_NRANDOM_MAX + 16][24];
#define BEFF_PROBE 10 /* iterations of the loop-length probe at 1 B */

typedef struct loopstate {
    int len;
    double iter_s;
} loopstate;

/* One run's patterns and what their rows add up to. */
typedef struct beff_ctx {
    mbx_engine *e;
    const uint64_t *sizes;
    int reps;
    mbx_beff_progress cb;
    void *ud;
    double *best; /* navg x sizes: the best method's bandwidth (rings, then random) */
    int navg;
    size_t done, total;
    double pingpong_lmax;
} beff_ctx;

/* Memory per process: the option's, or what the job found on its hosts. */
static int mem_per_proc(mbx_engine *e, const mbx_beff_opts *o, mbx_beff_summary *out, uint64_t *mem)
{
    *mem = o->mem_per_proc;
    out->mem_source = "--mem-per-proc";
    if (*mem == 0) {
        const mbx_job_info *job;
        int rc = mbx_engine_describe(e, &job);
        if (rc < 0)
            return rc;
        *mem = job->mem_per_rank;
        out->mem_source = "MemAvailable / ranks on the host (min over hosts)";
    }
    return MBX_OK;
}

/* Measures pattern pt at size k with method m: the loop length predicted
 * from the size before (at the first size, from a short probe), corrected
 * at most BEFF_FIXES times; *len and *t get the loop length and time. */
static int measure_size(beff_ctx *c, const mbx_beff_pattern *pt, int k, int m, loopstate *ls,
                        int *len, double *t)
{
    const uint64_t *sizes = c->sizes;
    int rc;
    *len = MBX_BEFF_LOOP_FIRST;
    if (k > 0) {
        *len = mbx_beff_loop_next(ls->len, ls->iter_s, (double)sizes[k] / (double)sizes[k - 1]);
    } else {
        /* A short untimed-for-the-result probe, so a slow job
         * (oversubscribed cores, a slow link) does not spend
         * 3 x 300 iterations learning that 300 is too many. */
        if ((rc = measure(c->e, pt, sizes[0], m, BEFF_PROBE, 1, t)) < 0)
            return rc;
        *len = mbx_beff_loop_next(MBX_BEFF_LOOP_FIRST, *t / BEFF_PROBE, 1.0);
    }
    if ((rc = measure(c->e, pt, sizes[k], m, *len, c->reps, t)) < 0)
        return rc;
    /* The prediction can miss the 2.5-5 ms window (and a busy
     * machine can stretch a whole measurement): correct the loop
     * length, up to 300, and measure again, at most twice. */
    for (int fixes = 0; fixes < BEFF_FIXES && rc >= 0; fixes++) {
        int fix = mbx_beff_loop_fix(*len, *t, MBX_BEFF_LOOP_FIRST);
        if (fix == *len)
            break;
        *len = fix;
        rc = measure(c->e, pt, sizes[k], m, *len, c->reps, t);
    }
    if (rc < 0)
        return rc;
    ls->len = *len;
    ls->iter_s = *t / *len;
    return MBX_OK;
}

/* Every size and method of pattern i: its rows to the callback, the best
 * bandwidths kept. MBX_E_ABORTED when the callback asks to stop. */
static int run_pattern(beff_ctx *c, const mbx_beff_pattern *pt, size_t i)
{
    loopstate ls[MBX_BEFF_NMETHODS] = {{0, 0}};
    int nm = pt->pingpong ? 1 : MBX_BEFF_NMETHODS;
    int rc = MBX_OK;
    for (int k = 0; k < MBX_BEFF_NSIZES && rc >= 0; k++) {
        for (int m = 0; m < nm && rc >= 0; m++) {
            int len;
            double t;
            if ((rc = measure_size(c, pt, k, m, &ls[m], &len, &t)) < 0)
                break;
            mbx_beff_row row = {
                .pattern = row_names[i],
                .kind = pt->kind,
                .bytes = c->sizes[k],
                .method = method_names[m],
                .looplength = len,
                .time_s = t,
                .mbps = (double)c->sizes[k] * pt->messages * len / t / 1e6,
                .index = c->done,
                .size_index = k,
                .messages = pt->messages,
            };
            size_t at = i * MBX_BEFF_NSIZES + (size_t)k;
            if ((int)i < c->navg && row.mbps > c->best[at])
                c->best[at] = row.mbps;
            if (pt->pingpong && k == MBX_BEFF_NSIZES - 1)
                c->pingpong_lmax = row.mbps;
            c->done++;
            if (c->cb && c->cb(c->ud, &row, c->done, c->total))
                rc = MBX_E_ABORTED;
        }
    }
    return rc;
}

/* The figures of the summary from the best bandwidths (section 4). */
static int summarize(const beff_ctx *c, const mbx_beff_patterns *ps, int procs, double rmax_gflops,
                     mbx_beff_summary *out)
{
    mbx_beff_agg a;
    int rc = mbx_beff_aggregate(c->best, ps->nring, ps->nrandom, &a);
    if (rc >= 0) {
        out->beff_mbps = a.beff;
        out->beff_per_proc_mbps = a.beff / procs;
        out->beff_lmax_mbps = a.beff_lmax;
        out->ring_lmax_mbps = a.ring_lmax;
        out->ring_logavg_mbps = a.ring;
        out->random_logavg_mbps = a.random;
        out->pingpong_lmax_mbps = c->pingpong_lmax;
        out->balance = rmax_gflops > 0 ? a.beff / (rmax_gflops * 1e3) : 0;
    }
    return rc;
}

int mbx_beff_run(mbx_engine *e, const mbx_beff_opts *o, mbx_beff_progress cb, void *ud,
                 mbx_beff_summary *out)
{
    if (!e || !o || !out || mbx_engine_rank(e) != 0 || o->reps < 0 || o->reps > 100 ||
        o->nrandom < 0 || o->nrandom > MBX_BEFF_NRANDOM_MAX || mbx_engine_size(e) < 2 ||
        o->rmax_gflops < 0)
        return MBX_E_INVAL;
    memset(out, 0, sizeof *out);
    int procs = mbx_engine_size(e), reps = o->reps ? o->reps : 3;
    int nrandom = o->nrandom ? o->nrandom : MBX_BEFF_NRANDOM;
    uint64_t mem;
    int rc = mem_per_proc(e, o, out, &mem);
    if (rc < 0)
        return rc;
    if (mem < MBX_BEFF_MEM_MIN)
        return MBX_E_INVAL;
    uint64_t lmax = mbx_beff_lmax(mem, o->cap128, o->quick_lmax);
    if (lmax > (uint64_t)INT32_MAX / MBX_BEFF_MAXSTEPS)
        return MBX_E_INVAL;
    uint64_t sizes[MBX_BEFF_NSIZES];
    if ((rc = mbx_beff_sizes(lmax, sizes)) < 0)
        return rc;
    mbx_beff_patterns ps;
    if ((rc = mbx_beff_patterns_build(procs, nrandom, o->seed, &ps)) < 0)
        return rc;
    beff_ctx c = {.e = e, .sizes = sizes, .reps = reps, .cb = cb, .ud = ud};
    for (size_t i = 0; i < ps.n && i < sizeof row_names / sizeof row_names[0]; i++)
        memcpy(row_names[i], ps.p[i].name, sizeof row_names[i]);
    for (size_t i = 0; i < ps.n; i++)
        c.total += (size_t)MBX_BEFF_NSIZES * (ps.p[i].pingpong ? 1 : MBX_BEFF_NMETHODS);
    c.navg = ps.nring + ps.nrandom;
    c.best = calloc((size_t)c.navg * MBX_BEFF_NSIZES, sizeof *c.best);
    if (!c.best) {
        mbx_beff_patterns_free(&ps);
        return MBX_E_NOMEM;
    }
    for (size_t i = 0; i < ps.n && rc >= 0; i++)
        rc = run_pattern(&c, &ps.p[i], i);
    int rr = mbx_engine_beff_release(e);
    if (rc >= 0 && rr < 0)
        rc = rr;
    if (rc >= 0)
        rc = summarize(&c, &ps, procs, o->rmax_gflops, out);
    out->lmax = lmax;
    out->mem_per_proc = mem;
    out->lmax_capped = lmax < mem / 128;
    out->procs = procs;
    out->nrandom = ps.nrandom;
    mbx_beff_rules(out->rules, sizeof out->rules, procs, ps.nrandom, reps, o->seed, lmax,
                   out->lmax_capped);
    free(c.best);
    mbx_beff_patterns_free(&ps);
    return rc;
}
