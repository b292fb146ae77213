/* The run view's status block: the run's progress, the point in flight
 * (its own numbers only: the pass being measured, or its passes so far)
 * or what the run is doing, and the message line. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/axis.h"
#include "explorer.h"
#include "mbx/bench.h"
#include "mbx/rowview.h"
#include "screens/run_int.h"

/* The passes a point needs at least (the scheduler's R). */
static size_t min_passes(const explorer *x)
{
    return x->sopt.passes.min_passes ? x->sopt.passes.min_passes : MBX_PASSES_DEFAULT_MIN;
}

/* ---- the status block ---- */

/* What a point's ranks are: the ping-pong pair, or the first P. */
static void ranks_text(const mbx_ex_point *p, char *buf, size_t len)
{
    const mbx_bench *b = mbx_bench_get(p->bench_id);
    if (b->flags & MBX_BENCH_PAIR)
        snprintf(buf, len, "ranks %d,%d", p->pair_a, p->pair_b);
    else if (p->procs > 1)
        snprintf(buf, len, "ranks 0..%d", p->procs - 1);
    else
        snprintf(buf, len, "rank 0");
}

static void status_info(explorer *x, char *line, size_t len)
{
    size_t k = 0;
    line[0] = '\0';
    if (x->cmp.on) {
        mbx_ex_compare_summary(x, line, len);
        return;
    }
    size_t added = 0;
    double worst = 0;
    for (size_t c = 0; x->sched && c < x->ncurves; c++) {
        size_t pts = 0, ref = 0;
        double w = 0;
        mbx_sched_curve_refine(x->sched, c, &pts, &ref, &w);
        added += ref;
        if (w > worst)
            worst = w;
    }
    if (x->running && added) {
        snprintf(line, len,
                 "refining between passes: %zu points added, worst segment %.1f%% %s %g%%", added,
                 100 * worst, worst < x->meas.refine ? "<" : ">", 100 * x->meas.refine);
        return;
    }
    if (x->method.sync == MBX_SYNC_WINDOW && x->be->clock_info && k < len) {
        mbx_clock_info ci;
        x->be->clock_info(x->be, &ci);
        if (ci.syncs && ci.identity)
            k += (size_t)snprintf(line + k, len - k,
                                  "window sync on one host clock (identity, same boot_id)  ");
        else if (ci.syncs)
            k += (size_t)snprintf(line + k, len - k,
                                  "window sync on a %s clock (offset after sync %.2fus)  ",
                                  mbx_clocksync_name(x->method.clock.method), ci.max_offset * 1e6);
    }
    if (x->scanned && k < len)
        k += (size_t)snprintf(line + k, len - k,
                              "ping-pong pair 0,%d (auto: farthest from rank 0, %.2fus)  ", x->far,
                              x->lat ? x->lat[x->far] * 1e6 : 0);
    if (k < len && mbx_ex_run_nprocs(x) > 1)
        snprintf(line + k, len - k, "a point on P processes runs on ranks 0..P-1 (the first P)");
}

/* The point in flight, p, in w columns: its name and everything after it
 * are p's own. While a pass of it is measured the line says which, and
 * that the numbers are those of its passes before ("after 2"); a point
 * with no pass yet has no numbers. */
static void point_line(const explorer *x, const mbx_ex_point *p, int w, char *line, size_t len)
{
    char med[16], lo[16], hi[16], sz[16], rk[32], when[48];
    mbx_axis_format(p->r.s.median, MBX_AXIS_SECONDS, x->utf8, med, sizeof med);
    mbx_axis_format(p->r.s.ci_lo, MBX_AXIS_SECONDS, x->utf8, lo, sizeof lo);
    mbx_axis_format(p->r.s.ci_hi, MBX_AXIS_SECONDS, x->utf8, hi, sizeof hi);
    mbx_axis_format((double)p->bytes, MBX_AXIS_BYTES, 0, sz, sizeof sz);
    ranks_text(p, rk, sizeof rk);
    const char *name = mbx_bench_get(p->bench_id)->name, *dot = strchr(name, '.');
    double err = 100 * (isfinite(p->rel) ? p->rel : 0);
    size_t minp = min_passes(x);
    if (!EX_HAS_VALUE(p)) {
        snprintf(line, len, "%s %sB %s: measuring its first pass, no value yet", name, sz, rk);
        if ((int)strlen(line) > w)
            snprintf(line, len, "%s %sB: first pass, no value yet", dot ? dot + 1 : name, sz);
        return;
    }
    if (x->measuring)
        snprintf(when, sizeof when, "pass %zu running, after %zu/%zu", p->passes + 1, p->passes,
                 minp);
    else
        snprintf(when, sizeof when, "pass %zu/%zu", p->passes, minp);
    /* As much as fits: the interval goes first, then the full name. A
     * finished row with no interval to show says so (mbx/rowview.h). */
    char na[32], et[16];
    int nat = p->state == EX_DONE && mbx_row_ci_na(p->r.status, p->r.levels, na, sizeof na);
    snprintf(et, sizeof et, nat ? "n/a" : "%.2f%%", err);
    if (nat)
        snprintf(line, len, "%s %sB %s: %s median %s CI95 %s, err n/a", name, sz, rk, when, med,
                 na);
    else
        snprintf(line, len, "%s %sB %s: %s median %s CI95 [%s, %s] between passes, err %s", name,
                 sz, rk, when, med, lo, hi, et);
    /* An overlap point: its percentage, when the line has room. */
    double pct = p->r.overlap ? mbx_overlap_pct(p->r.s.median, p->r.compute, p->r.plain) : NAN;
    size_t used = strlen(line);
    if (isfinite(pct) && (int)used + 15 <= w)
        snprintf(line + used, len - used, ", overlap %.1f%%", pct);
    if ((int)strlen(line) > w)
        snprintf(line, len, "%s %sB %s: %s median %s err %s", name, sz, rk, when, med, et);
    if ((int)strlen(line) > w)
        snprintf(line, len, "%s %sB: %s %s err %s", dot ? dot + 1 : name, sz, when, med, et);
}

void mbx_ex_draw_status(explorer *x, const mbx_rect *r)
{
    char line[400];
    double el = mbx_ex_elapsed(x);
    double frac = x->npts ? (double)x->ndone / (double)x->npts : 0;
    const char *state = x->running ? (x->paused ? "PAUSED" : "running")
                        : x->npts  ? (x->ndone == x->npts ? "done" : "stopped")
                                   : "idle: pick benchmarks (1), then r";
    int barw = r->w >= 100 ? 20 : 10, fill = (int)lround(frac * barw);
    char bar[64], ref[32] = "";
    for (int i = 0; i < barw; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[barw] = '\0';
    if (x->nrefined)
        snprintf(ref, sizeof ref, " (%zu refined)", x->nrefined);
    snprintf(line, sizeof line, "final %zu/%zu%s [%s] %3.0f%%  %zu passes, round %zu  %.1fs  %s",
             x->ndone, x->npts, ref, bar, 100 * frac, x->sst.passes, x->sst.rounds, el, state);
    if ((int)strlen(line) > r->w - 1)
        snprintf(line, sizeof line, "final %zu/%zu [%s] %zu passes, round %zu %.1fs %s", x->ndone,
                 x->npts, bar, x->sst.passes, x->sst.rounds, el, state);
    mbx_ex_put(x, r->y, r->x + 1, r->w - 1, x->paused ? MBX_ROLE_WARNING : MBX_ROLE_NORMAL, line);

    const mbx_ex_point *p = x->running && x->cur < x->npts ? &x->pts[x->cur] : NULL;
    if (p && (EX_HAS_VALUE(p) || x->measuring)) {
        point_line(x, p, r->w - 1, line, sizeof line);
        mbx_ex_put(x, r->y + 1, r->x + 1, r->w - 1, MBX_ROLE_NORMAL, line);
    } else {
        status_info(x, line, sizeof line);
        /* A comparison's summary outgrows the line: it ends in "... (m)",
         * and m shows it in full. */
        if (x->cmp.on)
            mbx_ex_put_msg(x, r->y + 1, r->x + 1, r->w - 1, MBX_ROLE_DIM, line);
        else
            mbx_ex_put(x, r->y + 1, r->x + 1, r->w - 1, MBX_ROLE_DIM, line);
    }
    if (x->msg[0])
        mbx_ex_put(x, r->y + 2, r->x + 1, r->w - 1, x->msg_role, x->msg);
}
