/* `mpibex run`: the text on standard output and standard error. The
 * title and method lines, the table's head and rows, progress, the stop
 * report and the summaries at the end (curves, passes, accurate
 * benchmarks). */
#include "run_int.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/grow.h"
#include "mbx/results_sort.h"
#include "mbx/rowview.h"
#include "mbx/thrinfo.h"
#include "mbx/version.h"
#include "sig.h"
#include "tprint.h"

int mbx_run_on_progress(void *ud, const mbx_progress *p)
{
    run_state *st = ud;
    if (mbx_stop_signal)
        return 1;
    if (st->opt.quiet || !st->tty)
        return 0;
    double now = mbx_run_clock(st);
    if (now - st->last_progress < 0.1)
        return 0;
    st->last_progress = now;
    fprintf(stderr, "\r\033[K[%zu/%zu%s] %s P=%d %llu B  n=%zu  err=%.2f%% (target %.2f%%)",
            st->done + 1, st->ngrid, st->refined ? "+" : "", mbx_bench_get(p->spec->bench_id)->name,
            p->spec->procs, (unsigned long long)p->spec->bytes, p->s->n, 100.0 * p->rel,
            p->spec->stop.kind == MBX_STOP_FIXED ? 100.0 : 100.0 * p->spec->stop.eps);
    return 0;
}

void mbx_run_print_title(const run_state *st, int nranks)
{
    printf("# mpibex %s; %d ranks on %d host%s; timer %s (resolution %.0f ns, overhead %.0f ns)\n",
           MBX_VERSION, nranks, st->be->nhosts, st->be->nhosts == 1 ? "" : "s",
           mbx_timer_name(st->timer.kind), st->timer.resolution * 1e9, st->timer.overhead * 1e9);
    if (st->be->fake)
        printf("# fake back end (--fake %d): simulated ranks in one process, no MPI; times are "
               "made up and their clock advances by what they take: for tests and demos, "
               "nothing is measured\n",
               nranks);
    printf("# MPI thread level: asked %s, granted %s\n",
           mbx_thread_level_name(st->be->thread_asked),
           mbx_thread_level_name(st->be->thread_granted));
}

/* The table's columns after the name, in order, and their widths; a
 * terminal narrower than the full line loses them in drop_order. */
enum { T_PROCS, T_RANKS, T_BYTES, T_N, T_MEDIAN, T_TMEAN, T_CI, T_ERR, T_BW, T_NCOLS };
static const int col_w[T_NCOLS] = {5, -7, 11, 6, 11, 11, 23, 7, 10};
static const int drop_order[] = {T_TMEAN, T_CI, T_RANKS, T_N, T_BW};
#define NAME_W 26
#define STATUS_W 10 /* "UNRELIABLE" */

void mbx_run_fit_table(run_state *st, int cols)
{
    st->cols = cols;
    st->hide = 0;
    st->namew = NAME_W;
    if (cols <= 0)
        return;
    /* The longest name of the run's curves ("threads.mutex threads=4"). */
    int w = 11;
    for (size_t i = 0; i < st->nser; i++) {
        const mbx_bench *b = mbx_bench_get(st->ser[i].bench_id);
        int n = (int)strlen(b->name) + (b->param_name ? (int)strlen(b->param_name) + 8 : 0);
        w = n > w ? n : w;
    }
    st->namew = w < NAME_W ? w : NAME_W;
    int width = st->namew + 2 + STATUS_W;
    for (int c = 0; c < T_NCOLS; c++)
        width += abs(col_w[c]) + 1;
    for (size_t k = 0; width > cols && k < sizeof drop_order / sizeof *drop_order; k++) {
        st->hide |= 1u << drop_order[k];
        width -= abs(col_w[drop_order[k]]) + 1;
    }
}

/* The cells of one line: each shown column's text at its width. */
static void print_cells(const run_state *st, const char *name, const char *const cell[T_NCOLS],
                        const char *status)
{
    printf("%-*s", st->namew, name);
    for (int c = 0; c < T_NCOLS; c++)
        if (!(st->hide & (1u << c)))
            printf(" %*s", col_w[c], cell[c]);
    printf("  %s", status);
}

void mbx_run_print_header(const run_state *st)
{
    printf("# ping-pong: half round trip between the ranks shown; collectives and master-worker: "
           "the first P ranks; times in microseconds; + marks a refined point\n");
    if (st->hide)
        printf("# this terminal's %d columns show part of the table (the CSV and a "
               "redirected output have every column)\n",
               st->cols);
    static const char *const head[T_NCOLS] = {"procs",    "ranks",   "bytes", "n",   "median_us",
                                              "tmean_us", "ci95_us", "err",   "MB/s"};
    print_cells(st, "# benchmark", head, "status");
    putchar('\n');
    fflush(stdout);
}

void mbx_run_print_row(const run_state *st, const mbx_result *r)
{
    char ci[48], bw[24], name[48], bytes[32];
    /* A row that mixes levels it tells apart has no interval to show, nor
     * an err (mbx/rowview.h): every view says so in the same words. */
    const char *na = mbx_row_ci_na(r->status, r->levels, ci, sizeof ci);
    if (!na)
        snprintf(ci, sizeof ci, "[%.4g, %.4g]", r->s.ci_lo * 1e6, r->s.ci_hi * 1e6);
    double b = mbx_result_bandwidth(r);
    if (isfinite(b))
        snprintf(bw, sizeof bw, "%.2f", b);
    else
        snprintf(bw, sizeof bw, "-");
    /* Measured in passes: the between-pass relative error of the value. */
    double rel = r->passes ? r->s.stderr_ / r->s.median : mbx_stop_progress(&r->stop, &r->s);
    char relbuf[16];
    if (na)
        snprintf(relbuf, sizeof relbuf, "n/a");
    else if ((r->stop.kind == MBX_STOP_FIXED && !r->passes) || !isfinite(rel))
        snprintf(relbuf, sizeof relbuf, "-");
    else
        snprintf(relbuf, sizeof relbuf, "%.2f%%", 100.0 * rel);
    if (r->param_name)
        snprintf(name, sizeof name, "%s %s=%lld", r->benchmark, r->param_name, (long long)r->param);
    else
        snprintf(name, sizeof name, "%s", r->benchmark);
    snprintf(bytes, sizeof bytes, "%s%llu", r->refined ? "+" : "", (unsigned long long)r->bytes);
    char procs[16], n[24], med[32], tmean[32];
    snprintf(procs, sizeof procs, "%d", r->procs);
    snprintf(n, sizeof n, "%zu", r->s.n);
    snprintf(med, sizeof med, "%.4f", r->s.median * 1e6);
    snprintf(tmean, sizeof tmean, "%.4f", r->s.tmean * 1e6);
    const char *const cell[T_NCOLS] = {procs, r->ranks, bytes, n, med, tmean, ci, relbuf, bw};
    print_cells(st, name, cell, mbx_point_status_name(r->status));
    if (r->passes)
        printf("  %zu passes over %.2f s", r->passes, r->pass_span);
    if (r->levels > 1)
        printf(" (%zu levels: %.4g-%.4g us)", r->levels, r->level_lo * 1e6, r->level_hi * 1e6);
    if (r->events)
        printf("  events %zu", r->events); /* left out of the statistics */
    if (r->rma_sync)                       /* one-sided: how its epochs were synchronised */
        printf("  rma_sync %s", r->rma_sync);
    /* An accurate benchmark: the plain one's median at the same point. */
    int bid = -1;
    (void)mbx_bench_find(r->benchmark, &bid);
    const mbx_bench *bn = mbx_bench_get(bid);
    if (bn && (bn->flags & MBX_BENCH_OVERLAP)) {
        /* OSU's figures: pure communication, computation, overlap. */
        double pct = mbx_overlap_pct(r->s.median, r->compute, r->plain);
        printf("  pure %.4f us compute %.4f us", r->plain * 1e6, r->compute * 1e6);
        if (isfinite(pct))
            printf(" overlap %.1f %%", pct);
        else
            printf(" overlap -");
        if (r->plain_status != MBX_POINT_SETTLED)
            printf(" (pure %s)", mbx_point_status_name(r->plain_status));
    } else if (bn && bn->companion) {
        if (isfinite(r->plain))
            printf("  plain %.4f us", r->plain * 1e6);
        else
            printf("  plain -");
        if (r->plain_status != MBX_POINT_SETTLED)
            printf(" (%s)", mbx_point_status_name(r->plain_status));
    }
    if (r->topology[0]) /* neigh.*: the process topology */
        printf("  %s", r->topology);
    if (r->setup > 0) /* made once per pass, untimed: an init, a topology */
        printf("  setup %.4f us", r->setup * 1e6);
    if (r->part_seen > 0) { /* part.*: its set-up rounds' figures */
        uint64_t mv = r->moved ? r->moved : r->bytes;
        printf("  perceived %.1f MB/s", (double)mv / r->part_seen / 1e6);
        if (r->part_ratio > 0)
            printf(" overhead %+.1f %%", 100.0 * (r->part_ratio - 1.0));
        if (r->part_early >= 0)
            printf(" early-bird %.0f %%", 100.0 * r->part_early);
    }
    if (r->status != MBX_POINT_SETTLED && r->status_reason[0])
        printf("  [%s]", r->status_reason); /* the status_reason column */
    /* and for a flagged point, what to do (mbx/rowview.h) */
    const char *advice = mbx_row_advice(r->status, r->status_reason);
    if (advice)
        printf("  -> %s", advice);
    putchar('\n');
    fflush(stdout);
}

/* A row for the table at the end (its strings are the registry's and the
 * plan's, which outlive the run). 0, or 1 when out of memory. */
int mbx_run_keep_row(run_state *st, const mbx_result *r)
{
    if (mbx_grow((void **)&st->rows, &st->caprows, st->nrows + 1, sizeof *st->rows) != MBX_OK)
        return 1;
    st->rows[st->nrows++] = *r;
    mbx_run_check_row(st, r);
    return 0;
}

static int cmp_rows(const void *a, const void *b)
{
    return mbx_result_order(a, b);
}

/* The points of this run, sorted by benchmark, procs, param and bytes
 * (a table in measuring order zig-zags), then forgotten. */
void mbx_run_print_table(run_state *st)
{
    size_t widened = 0, outside = 0;
    double rlo = INFINITY, rhi = 0;
    if (st->nrows > 1)
        qsort(st->rows, st->nrows, sizeof *st->rows, cmp_rows);
    for (size_t i = 0; i < st->nrows; i++) {
        const mbx_result *r = &st->rows[i];
        mbx_run_print_row(st, r);
        widened += r->ci_scope == MBX_SCOPE_PROFILE;
        if (r->ci_scope != MBX_SCOPE_PROFILE && r->profile_ratio > 0) { /* mbx/profile.h */
            outside++;
            rlo = fmin(rlo, r->profile_ratio);
            rhi = fmax(rhi, r->profile_ratio);
        }
    }
    if (st->nrows > 0 && st->prof.loaded)
        printf("# ci_scope: %zu of %zu rows profile (this launch widened by %s), the rest "
               "launch (the profile has no entry for their benchmark, ranks and size%s)\n",
               widened, st->nrows, st->prof.path, outside ? ", or they are outside it" : "");
    if (outside > 0) {
        char span[64] = "";
        if (st->prof.p.span_s >= 0)
            snprintf(span, sizeof span, " (its launches started over %lld s)", st->prof.p.span_s);
        printf("# outside the profile: %zu rows, median %.3g..%.3gx where the profile's launches "
               "were (profile_ratio): the machine is not as it was calibrated%s, so these rows "
               "stay launch-scoped; if it stays so, calibrate again from launches spread over "
               "time (mpibex repeat --gap SEC)\n",
               outside, rlo, rhi, span);
    }
    st->nrows = 0;
}

void mbx_run_print_scope(const run_state *st)
{
    mbx_tprintf(stdout, "# %s\n", st->prof.note);
    mbx_tprintf(stdout, "# %s\n", st->hist.note);
}

void mbx_run_progress_line(run_state *st, int force)
{
    if (st->opt.quiet)
        return;
    double now = mbx_run_clock(st), el = now - st->t0;
    if (st->tty) {
        fprintf(stderr, "\r\033[K");
        if (!force)
            return;
    } else if (!force && now - st->last_progress < 1.0) {
        return;
    }
    st->last_progress = now;
    size_t grid_done = st->done - st->refined + st->kept_grid;
    double eta = grid_done ? el / (double)st->done * (double)(st->ngrid - grid_done) : 0;
    fprintf(stderr,
            "progress: %zu/%zu grid points (%.0f%%) + %zu refined, %.1f s elapsed, "
            "ETA %.0f s (grid)\n",
            grid_done, st->ngrid, 100.0 * (double)grid_done / (double)st->ngrid, st->refined, el,
            eta);
}

/* Report a stop by signal. The count is the file's: rows kept from a
 * resumed run and this run's (passes of unfinished points are in the
 * journal, for --resume). */
int mbx_run_interrupted(const run_state *st)
{
    char who[64] = "";
    int from = mbx_sig_from_rank(st->be->stop_rank ? st->be->stop_rank(st->be) : -1);
    if (from > 0)
        snprintf(who, sizeof who, " (at rank %d)", from);
    else if (mbx_stop_signal == SIGPIPE)
        snprintf(who, sizeof who, " (standard output was closed)");
    /* Slurm ends a step with SIGTERM for scancel, the time limit and a
     * preemption alike (and names which in the job's output); the line
     * says which job it was. */
    const char *job = getenv("SLURM_JOB_ID");
    char slurm[96] = "";
    if (mbx_stop_signal == SIGTERM && job && *job)
        snprintf(slurm, sizeof slurm,
                 " (Slurm job %.20s ending: scancel, time limit or preemption)", job);
    char open[96] = "";
    size_t pts = 0, passes = 0;
    for (size_t i = 0; st->sched && i < mbx_sched_points(st->sched); i++) {
        mbx_sched_point_info in;
        if (mbx_sched_point_info_get(st->sched, i, &in) == 0 && !in.final && in.passes.b.r) {
            pts++;
            passes += in.passes.b.r;
        }
    }
    if (pts && st->journal)
        snprintf(open, sizeof open, "; %zu passes of %zu unfinished points are in its journal",
                 passes, pts);
    else if (pts) /* -o -, /dev/null: nothing to resume them from */
        snprintf(open, sizeof open, "; %zu unfinished point%s (%zu passes) not written", pts,
                 pts == 1 ? "" : "s", passes);
    fprintf(stderr, "mpibex: stopped by signal %d%s%s: %zu points finished%s%s%s%s\n",
            (int)mbx_stop_signal, who, slurm, st->res.n + st->done,
            st->opt.output ? " and are in " : "", st->opt.output ? st->opt.output : "", open,
            st->opt.output ? "; continue with --resume" : "");
    mbx_sig_reported();
    return 128 + (int)mbx_stop_signal;
}

/* Describe a curve for the summary lines: "coll.bcast [bc] P=4". */
static void series_name(const series *s, char *buf, size_t len)
{
    const mbx_bench *b = mbx_bench_get(s->bench_id);
    int n = snprintf(buf, len, "%s [%s]", b->name, s->meas->label);
    if (s->axis == AXIS_PARAM)
        n += snprintf(buf + n, len - (size_t)n, " over %s", b->param_name);
    else if (b->flags & MBX_BENCH_PARAM)
        n += snprintf(buf + n, len - (size_t)n, " %s=%lld", b->param_name,
                      (long long)(s->param ? s->param : b->param_default));
    if (s->axis == AXIS_PROCS)
        snprintf(buf + n, len - (size_t)n, " over P");
    else
        snprintf(buf + n, len - (size_t)n, " P=%d", s->procs);
}

static int cmp_acc(const void *a, const void *b)
{
    const acc_row *u = a, *v = b;
    if (u->ser != v->ser)
        return (u->ser > v->ser) - (u->ser < v->ser);
    return (u->x > v->x) - (u->x < v->x);
}

/* The end of a run with accurate benchmarks: for each of their curves, the
 * accurate median next to the plain one at every point, and their ratio. */
void mbx_run_accurate_summary(run_state *st)
{
    if (st->nacc == 0)
        return;
    qsort(st->acc, st->nacc, sizeof *st->acc, cmp_acc);
    for (size_t i = 0; i < st->nacc;) {
        const series *s = &st->ser[st->acc[i].ser];
        const mbx_bench *b = mbx_bench_get(s->bench_id);
        char name[160];
        series_name(s, name, sizeof name);
        printf("# accurate vs plain, %s (medians in us; plain: %s at the same point, %s "
               "sync):\n",
               name, b->companion, mbx_sync_name(st->opt.method.sync));
        printf("# %14s %11s %11s %15s\n", s->axis == AXIS_PROCS ? "procs" : "bytes", "accurate",
               "plain", "accurate/plain");
        for (; i < st->nacc && &st->ser[st->acc[i].ser] == s; i++) {
            const acc_row *a = &st->acc[i];
            char av[24] = "-", pv[24] = "-", q[24] = "-";
            if (a->acc > 0)
                snprintf(av, sizeof av, "%.4f", a->acc * 1e6);
            if (a->plain > 0)
                snprintf(pv, sizeof pv, "%.4f", a->plain * 1e6);
            if (a->acc > 0 && a->plain > 0)
                snprintf(q, sizeof q, "%.3f", a->acc / a->plain);
            printf("# %14llu %11s %11s %15s\n", (unsigned long long)a->x, av, pv, q);
        }
    }
    fflush(stdout);
}

/* Keep a point of an accurate benchmark for the table at the end; other
 * benchmarks' points (overlap.* too, whose companion is their pure time,
 * not a plain variant) are not kept. Out of memory only shortens the table. */
void mbx_run_note_accurate(run_state *st, const pointref *p, double acc, double plain)
{
    const mbx_bench *b = mbx_bench_get(p->s->bench_id);
    if (!b->companion || (b->flags & MBX_BENCH_OVERLAP)) /* overlap: its row says it all */
        return;
    if (st->nacc == st->capacc) {
        size_t cap = st->capacc ? 2 * st->capacc : 32;
        acc_row *a = realloc(st->acc, cap * sizeof *a);
        if (!a)
            return;
        st->acc = a;
        st->capacc = cap;
    }
    st->acc[st->nacc++] = (acc_row){(size_t)(p->s - st->ser), p->x, acc, plain};
}

void mbx_run_curve_summary(const series *s, size_t points, size_t refined, double worst)
{
    if (s->axis == AXIS_NONE || points < 3)
        return;
    char name[160];
    series_name(s, name, sizeof name);
    printf("# curve %s: %zu points (%zu refined), worst segment prediction error %.2f%%%s\n", name,
           points, refined, 100.0 * worst, s->refine ? "" : " (refinement off)");
    if (s->refine)
        printf("#   refinement target %.2f%%, budget %zu\n", 100.0 * s->meas->refine,
               s->meas->budget);
    fflush(stdout);
}

/* The pacing the run ended with: the gap, the machine's memory it came
 * from (tau of the monitor's probes, the levels' dwell) and the span a
 * point was asked for (docs/algorithms.md, "The scheduler", Pacing). */
static void print_pacing(const mbx_sched *sch)
{
    mbx_sched_pacing pc;
    mbx_sched_pacing_get(sch, &pc);
    char tau[48] = "not known: too few probes", lv[96] = "";
    if (isfinite(pc.tau))
        snprintf(tau, sizeof tau, "%.3f s from %zu probes", pc.tau, pc.probes);
    if (pc.changes > 0)
        snprintf(lv, sizeof lv, "; levels changed %zu times, a stay %.2f s on average", pc.changes,
                 pc.dwell);
    else if (isfinite(pc.host_dwell))
        snprintf(lv, sizeof lv,
                 "; no level change seen, this host's states last ~%.2g s (its "
                 "history)",
                 pc.host_dwell);
    printf("# pacing: passes of a point %.3f s apart (jittered 0.5-1.5x), tau %s%s; a point's "
           "least span %.2f s%s\n",
           pc.gap, tau, lv, pc.span,
           pc.cannot_cover ? " (the machine asks for more: its rows say so)" : "");
}

/* What the passes did: counts, and what SETTLED asked for. */
void mbx_run_pass_summary(run_state *st, const mbx_sched *sch)
{
    mbx_sched_stats ss;
    mbx_sched_stats_get(sch, &ss);
    size_t n = mbx_sched_points(sch), minp = (size_t)-1, maxp = 0;
    double minspan = INFINITY;
    for (size_t i = 0; i < n; i++) {
        mbx_sched_point_info in;
        if (mbx_sched_point_info_get(sch, i, &in) < 0 || in.passes.b.r == 0)
            continue;
        minp = in.passes.b.r < minp ? in.passes.b.r : minp;
        maxp = in.passes.b.r > maxp ? in.passes.b.r : maxp;
        minspan = in.passes.span < minspan ? in.passes.span : minspan;
    }
    if (maxp == 0)
        return;
    if (st->env_path) {
        mbx_kvlist kv = {0};
        int rc = mbx_kv_addf(&kv, "passes_min", "%zu", st->sched_min_passes);
        if (rc >= 0)
            rc = mbx_kv_addf(&kv, "passes_span_s", "%.3f", st->sched_span);
        if (rc >= 0)
            rc = mbx_kv_addf(&kv, "passes_floor_s", "%.6f", st->sched_floor);
        if (rc >= 0)
            rc = mbx_kv_addf(&kv, "passes_max", "%zu", st->sched_max);
        if (rc >= 0)
            rc = mbx_kv_addf(&kv, "passes_time_limit_s", "%.3f", st->opt.time_limit);
        if (rc >= 0)
            rc = mbx_kv_addf(&kv, "passes_total", "%zu", ss.passes);
        if (rc >= 0)
            rc = mbx_kv_addf(&kv, "passes_rounds", "%zu", ss.rounds);
        if (rc >= 0)
            rc = mbx_kv_addf(&kv, "passes_buffer_offsets", "%s",
                             "a buffer set of the pool and send and receive offsets k*64 B, k in "
                             "0..63, drawn apart, per pass");
        /* The host's history the rows were judged by (mbx/hosthist.h). */
        const mbx_hosthist_ref *h = &st->hist.ref;
        if (rc >= 0)
            rc = mbx_kv_addf(&kv, "history_runs", "%zu", st->hist.on ? h->runs : 0);
        if (rc >= 0 && h->runs > 0)
            rc = mbx_kv_addf(&kv, "history_probe_us", "%.4g", h->center * 1e6);
        double hd = mbx_hosthist_dwell(h, 0);
        if (rc >= 0 && isfinite(hd))
            rc = mbx_kv_addf(&kv, "history_stay_s", "%.3g", hd);
        mbx_run_env_append(st, &kv, rc, "the passes");
    }
    printf("# passes: %zu in %zu rounds over %.2f s (%zu to %zu per point, the shortest point "
           "spanning %.2f s); SETTLED asks for %zu passes over %.2f s and a between-pass error "
           "below the target\n",
           ss.passes, ss.rounds, ss.elapsed, minp, maxp, minspan, st->sched_min_passes,
           st->sched_span);
    print_pacing(sch);
    /* What one launch cannot bound (calibration): the passes re-draw
     * buffer sets, offsets, communicators and time, not what a launch
     * fixes (docs/algorithms.md, "What each measurement re-draws"). */
    if (st->prof.loaded)
        printf("# the CI of a ci_scope launch row is between the passes of this launch; a "
               "ci_scope profile row's adds the launch-to-launch component of the profile\n");
    else
        printf("# the CI is between the passes of this launch: what a launch fixes (rank "
               "placement, the addresses of its 8 buffer sets and of the transport's segments, "
               "the machine's state while the job runs) is outside it; 'mpibex repeat -k 10' "
               "gives a CI over launches\n");
    fflush(stdout);
}

void mbx_run_print_method(run_state *st, int nranks)
{
    const mbx_method *m = &st->opt.method;
    if (m->sync == MBX_SYNC_WINDOW) {
        mbx_clock_info ci;
        st->be->clock_info(st->be, &ci);
        if (ci.identity)
            printf("# sync: window on one host clock (clock_model=identity: every rank has the "
                   "same boot_id and a host-wide timer; largest offset %.2f us, known to about "
                   "+-%.2f us); windows %s\n",
                   ci.max_offset * 1e6, ci.rtt_min * 0.5e6, m->window > 0 ? "fixed" : "automatic");
        else
            printf("# sync: window on a %s global clock (synchronized in %.1f ms, slope kept on "
                   "%d of %d ranks; largest offset after it %.2f us, known to about +-%.2f us); "
                   "windows %s\n",
                   mbx_clocksync_name(m->clock.method), ci.duration * 1e3, ci.slopes_kept,
                   nranks - 1, ci.max_offset * 1e6, ci.rtt_min * 0.5e6,
                   m->window > 0 ? "fixed" : "automatic");
    } else {
        printf("# sync: barrier before each observation (ping-pong and master-worker: none, "
               "they synchronize themselves)\n");
    }
    if (m->cache == MBX_CACHE_COLD && m->cache_bytes)
        printf("# cache: cold (a %llu-byte buffer is overwritten before every observation)\n",
               (unsigned long long)m->cache_bytes);
    else if (m->cache == MBX_CACHE_COLD)
        printf("# cache: cold (a buffer the size of the last-level cache, from hwloc, is "
               "overwritten before every observation)\n");
    if (st->opt.order_plan)
        printf("# order: the plan's\n");
    else
        printf("# order: shuffled, seed %llu (--seed %llu replays it)%s\n",
               (unsigned long long)st->seed, (unsigned long long)st->seed,
               st->opt.resume && st->res.have_seed ? ", from the journal" : "");
    if (st->mon.peer)
        printf("# monitor: a %d-round 1-byte ping-pong of rank 0 and rank %d before and after "
               "every point; a change above %.0f%% is a level shift\n",
               PROBE_ROUNDS, st->mon.peer, 100.0 * st->opt.shift_rel);
    else if (nranks == 1)
        printf("# monitor: off (one rank: no ping-pong to probe with)\n");
    if (st->be->thread_granted < st->be->thread_asked)
        fprintf(stderr, "mpibex: warning: the MPI library granted only %s (asked %s)\n",
                mbx_thread_level_name(st->be->thread_granted),
                mbx_thread_level_name(st->be->thread_asked));
    char who[128];
    int unbound = st->be->unbound ? st->be->unbound(st->be, who, sizeof who) : 0;
    if (unbound > 0)
        fprintf(stderr,
                "mpibex: warning: %d rank%s (%s) %s not bound to cores; results may move with "
                "the scheduler (mpiexec -bind-to core)\n",
                unbound, unbound == 1 ? "" : "s", who, unbound == 1 ? "is" : "are");
    fflush(stdout);
}

void mbx_run_window_note(run_state *st, const mbx_result *r, const char *name)
{
    const mbx_window_stats *w = &r->window;
    /* The fake keeps no windows: its rows carry no window figures to sum. */
    if (r->sync != MBX_SYNC_WINDOW || st->be->fake)
        return;
    if (!st->wpoints++) {
        st->wsum.smallest = w->smallest;
        st->wsum.largest = w->largest;
    }
    st->wsum.grown += w->grown;
    st->wsum.shrunk += w->shrunk;
    st->wsum.resyncs += w->resyncs;
    st->wsum.gave_up += w->gave_up;
    st->wsum.smallest = fmin(st->wsum.smallest, w->smallest);
    st->wsum.largest = fmax(st->wsum.largest, w->largest);
    if (w->gave_up)
        printf("# note: %s, %d procs, %llu bytes: window sync gave up after %.1f s and %zu "
               "batches (%zu observations kept, %zu dropped; --window-limit): %s\n",
               name, r->procs, (unsigned long long)r->bytes, r->wall, r->batches, r->s.n,
               r->invalid, mbx_point_status_name(r->status));
}
