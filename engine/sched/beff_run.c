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
    uint64_t mem = o->mem_per_proc;
    out->mem_source = "--mem-per-proc";
    if (mem == 0) {
        const mbx_job_info *job;
        int rc = mbx_engine_describe(e, &job);
        if (rc < 0)
            return rc;
        mem = job->mem_per_rank;
        out->mem_source = "MemAvailable / ranks on the host (min over hosts)";
    }
    if (mem < MBX_BEFF_MEM_MIN)
        return MBX_E_INVAL;
    uint64_t lmax = mbx_beff_lmax(mem, o->cap128, o->quick_lmax);
    if (lmax > (uint64_t)INT32_MAX / MBX_BEFF_MAXSTEPS)
        return MBX_E_INVAL;
    uint64_t sizes[MBX_BEFF_NSIZES];
    int rc = mbx_beff_sizes(lmax, sizes);
    if (rc < 0)
        return rc;
    mbx_beff_patterns ps;
    if ((rc = mbx_beff_patterns_build(procs, nrandom, o->seed, &ps)) < 0)
        return rc;
    size_t total = 0;
    for (size_t i = 0; i < ps.n && i < sizeof row_names / sizeof row_names[0]; i++)
        memcpy(row_names[i], ps.p[i].name, sizeof row_names[i]);
    for (size_t i = 0; i < ps.n; i++)
        total += (size_t)MBX_BEFF_NSIZES * (ps.p[i].pingpong ? 1 : MBX_BEFF_NMETHODS);
    int navg = ps.nring + ps.nrandom;
    double *best = calloc((size_t)navg * MBX_BEFF_NSIZES, sizeof *best);
    if (!best) {
        mbx_beff_patterns_free(&ps);
        return MBX_E_NOMEM;
    }
    size_t done = 0;
    double pingpong_lmax = 0;
    for (size_t i = 0; i < ps.n && rc >= 0; i++) {
        const mbx_beff_pattern *pt = &ps.p[i];
        loopstate ls[MBX_BEFF_NMETHODS] = {{0, 0}};
        int nm = pt->pingpong ? 1 : MBX_BEFF_NMETHODS;
        for (int k = 0; k < MBX_BEFF_NSIZES && rc >= 0; k++) {
            for (int m = 0; m < nm && rc >= 0; m++) {
                int len = MBX_BEFF_LOOP_FIRST;
                double t;
                if (k > 0) {
                    len = mbx_beff_loop_next(ls[m].len, ls[m].iter_s,
                                             (double)sizes[k] / (double)sizes[k - 1]);
                } else {
                    /* A short untimed-for-the-result probe, so a slow job
                     * (oversubscribed cores, a slow link) does not spend
                     * 3 x 300 iterations learning that 300 is too many. */
                    if ((rc = measure(e, pt, sizes[0], m, BEFF_PROBE, 1, &t)) < 0)
                        break;
                    len = mbx_beff_loop_next(MBX_BEFF_LOOP_FIRST, t / BEFF_PROBE, 1.0);
                }
                if ((rc = measure(e, pt, sizes[k], m, len, reps, &t)) < 0)
                    break;
                /* The prediction can miss the 2.5-5 ms window (and a busy
                 * machine can stretch a whole measurement): correct the loop
                 * length, up to 300, and measure again, at most twice. */
                for (int fixes = 0; fixes < BEFF_FIXES && rc >= 0; fixes++) {
                    int fix = mbx_beff_loop_fix(len, t, MBX_BEFF_LOOP_FIRST);
                    if (fix == len)
                        break;
                    len = fix;
                    rc = measure(e, pt, sizes[k], m, len, reps, &t);
                }
                if (rc < 0)
                    break;
                ls[m].len = len;
                ls[m].iter_s = t / len;
                mbx_beff_row row = {
                    .pattern = row_names[i],
                    .kind = pt->kind,
                    .bytes = sizes[k],
                    .method = method_names[m],
                    .looplength = len,
                    .time_s = t,
                    .mbps = (double)sizes[k] * pt->messages * len / t / 1e6,
                    .index = done,
                    .size_index = k,
                    .messages = pt->messages,
                };
                if ((int)i < navg && row.mbps > best[i * MBX_BEFF_NSIZES + (size_t)k])
                    best[i * MBX_BEFF_NSIZES + (size_t)k] = row.mbps;
                if (pt->pingpong && k == MBX_BEFF_NSIZES - 1)
                    pingpong_lmax = row.mbps;
                done++;
                if (cb && cb(ud, &row, done, total))
                    rc = MBX_E_ABORTED;
            }
        }
    }
    int rr = mbx_engine_beff_release(e);
    if (rc >= 0 && rr < 0)
        rc = rr;
    if (rc >= 0) {
        mbx_beff_agg a;
        rc = mbx_beff_aggregate(best, ps.nring, ps.nrandom, &a);
        if (rc >= 0) {
            out->beff_mbps = a.beff;
            out->beff_per_proc_mbps = a.beff / procs;
            out->beff_lmax_mbps = a.beff_lmax;
            out->ring_lmax_mbps = a.ring_lmax;
            out->ring_logavg_mbps = a.ring;
            out->random_logavg_mbps = a.random;
            out->pingpong_lmax_mbps = pingpong_lmax;
            out->balance = o->rmax_gflops > 0 ? a.beff / (o->rmax_gflops * 1e3) : 0;
        }
    }
    out->lmax = lmax;
    out->mem_per_proc = mem;
    out->lmax_capped = lmax < mem / 128;
    out->procs = procs;
    out->nrandom = ps.nrandom;
    mbx_beff_rules(out->rules, sizeof out->rules, procs, ps.nrandom, reps, o->seed, lmax,
                   out->lmax_capped);
    free(best);
    mbx_beff_patterns_free(&ps);
    return rc;
}
