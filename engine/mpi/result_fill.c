/* The row of a measured point, made from its summary and its spec
 * (mbx/engine.h, mbx_result_fill): what every back end fills the same
 * way, the real engine (measure.c) and the fake one alike. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mbx/bench.h"
#include "mbx/engine.h"
#include "mbx/rma.h"
#include "mbx/stats.h"

void mbx_result_fill(mbx_result *out, const mbx_point_spec *spec, const mbx_summary *s,
                     mbx_stop_verdict verdict, size_t nmin, size_t nmax, double overhead,
                     size_t batches, double wall, size_t events, double res)
{
    const mbx_bench *b = mbx_bench_get(spec->bench_id);
    memset(out, 0, sizeof *out);
    out->benchmark = b ? b->name : "?";
    out->timing = b ? b->timing : "?";
    out->procs = spec->procs;
    out->bytes = spec->bytes;
    out->s = *s;
    out->stop = spec->stop;
    out->nmin = nmin;
    out->nmax = nmax;
    out->overhead = overhead;
    out->batches = batches;
    out->wall = wall;
    out->root = -1;
    if (b && (b->flags & MBX_BENCH_ROOTED))
        out->root = spec->root;
    out->op = b ? b->op : NULL;
    if (b && (b->flags & MBX_BENCH_PARAM)) {
        out->param_name = b->param_name;
        out->param = spec->param ? spec->param : b->param_default;
    }
    /* What one observation moves (master-worker: every piece out and its
     * result back; bw.*: the window), for bandwidth and message rate. */
    if (b && b->moved) {
        int64_t param = spec->param ? spec->param : b->param_default;
        b->moved(spec->bytes, spec->procs, param, &out->moved, &out->msgs);
    }
    if (b && (b->flags & MBX_BENCH_RMA))
        out->rma_sync = mbx_rma_sync_name(mbx_rma_sync_resolve(spec->rma_sync));
    if (b && (b->flags & MBX_BENCH_PAIR)) {
        int pa = spec->pair_a, pb = spec->pair_b;
        if (pa == pb)
            pa = 0, pb = spec->procs - 1;
        snprintf(out->ranks, sizeof out->ranks, "%d,%d", pa, pb);
    } else if (spec->procs > 1) {
        snprintf(out->ranks, sizeof out->ranks, "0-%d", spec->procs - 1);
    } else {
        snprintf(out->ranks, sizeof out->ranks, "0");
    }
    out->probe = out->probe_after = NAN;
    out->plain = NAN;
    out->plain_status = MBX_POINT_INVALID;
    out->overlap = b && (b->flags & MBX_BENCH_OVERLAP) ? 1 : 0;
    out->compute = NAN;
    out->setup = NAN;
    out->topology[0] = '\0';
    out->part_seen = out->part_ratio = out->part_early = NAN;
    out->events = events;
    out->status = mbx_point_judge(s, events, verdict, res);
    mbx_summary_drop_negative(&out->s);
}
