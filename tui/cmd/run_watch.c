/* `mpibex run`: the watchdog of its passes (docs/hardening.md, "A point
 * that does not return"). A pass back after its bound gives a HUNG row and
 * the run goes on: every MPI call of the pass completed, so the MPI state
 * is whole. A pass still out after twice its bound cannot be cancelled, so
 * the run ends here: its HUNG row, the journal and the note, then
 * MPI_Abort, which the process manager turns into the end of every rank. */
#include "run_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watchdog.h"

struct run_watch {
    mbx_watchdog *w;
    double *wall; /* per curve: its longest pass so far, seconds */
    uint64_t *at; /* per curve: that pass's x */
    double bound; /* the pass armed */
    mbx_point_spec spec;
    pointref p;
};

int mbx_run_watch_start(run_state *st)
{
    if (st->be->fake || !(st->opt.watchdog_floor > 0))
        return 0; /* the fake cannot hang; off */
    run_watch *rw = calloc(1, sizeof *rw);
    size_t n = st->nser ? st->nser : 1;
    if (!rw || !(rw->wall = calloc(n, sizeof *rw->wall)) || !(rw->at = calloc(n, sizeof *rw->at))) {
        if (rw)
            free(rw->wall);
        free(rw);
        return MBX_E_NOMEM;
    }
    st->watch = rw;
    if (mbx_watchdog_start(&rw->w, mbx_run_watch_end, st) != 0)
        fprintf(stderr, "mpibex: warning: the watchdog's thread could not start; a hung point "
                        "will hang the run\n");
    return 0;
}

void mbx_run_watch_free(run_state *st)
{
    if (!st->watch)
        return;
    mbx_watchdog_stop(st->watch->w);
    free(st->watch->wall);
    free(st->watch->at);
    free(st->watch);
    st->watch = NULL;
}

void mbx_run_watch_arm(run_state *st, const pointref *p, const mbx_point_spec *spec)
{
    run_watch *rw = st->watch;
    if (!rw)
        return;
    /* The expected time: the curve's longest pass so far, scaled up to this
     * point's x (a pass's observations are sized to a time, so this is
     * generous); none yet: the floor alone. */
    size_t c = (size_t)(p->s - st->ser);
    double expected = rw->wall[c];
    if (rw->at[c] > 0 && p->x > rw->at[c])
        expected *= (double)p->x / (double)rw->at[c];
    rw->bound = mbx_watchdog_bound(st->opt.watchdog_floor, st->opt.watchdog_mult, expected);
    rw->spec = *spec;
    rw->p = *p;
    char what[200];
    mbx_watchdog_pass_name(spec, what, sizeof what);
    mbx_watchdog_arm(rw->w, rw->bound, what);
}

int mbx_run_watch_disarm(run_state *st, mbx_result *r)
{
    run_watch *rw = st->watch;
    double took = 0;
    if (!rw || !mbx_watchdog_disarm(rw->w, &took)) {
        if (rw) {
            size_t c = (size_t)(rw->p.s - st->ser);
            if (took > rw->wall[c]) {
                rw->wall[c] = took;
                rw->at[c] = rw->p.x;
            }
        }
        return 0;
    }
    char why[96], what[200];
    snprintf(why, sizeof why, "returned after %.3g s, bound %.3g s", took, rw->bound);
    mbx_watchdog_hung_row(r, why);
    mbx_watchdog_pass_name(&rw->spec, what, sizeof what);
    fprintf(stderr,
            "mpibex: watchdog: %s returned after %.3g s, over its bound of %.3g s: its row is "
            "HUNG, and the run goes on\n",
            what, took, rw->bound);
    return 1;
}

int mbx_run_watch_progress(void *ud, const mbx_progress *pr)
{
    run_state *st = ud;
    if (st->watch)
        mbx_watchdog_guard(st->watch->w);
    return mbx_run_on_progress(ud, pr);
}

/* The end: the armed pass's HUNG row and its journal lines, the files
 * closed, the note; then every rank ends. Runs on the watchdog's thread
 * while the main thread sits in MPI (and stays blocked). */
void mbx_run_watch_end(void *ud, double out)
{
    run_state *st = ud;
    run_watch *rw = st->watch;
    mbx_result r;
    mbx_summary none = {0};
    mbx_result_fill(&r, &rw->spec, &none, MBX_STOP_AT_NMAX, rw->spec.nmin, rw->spec.nmax,
                    st->timer.overhead, 0, out, 0, 0.0);
    char why[96], key[MBX_KEY_MAX], what[200];
    snprintf(why, sizeof why, "no return in %.3g s, bound %.3g s", out, rw->bound);
    mbx_watchdog_hung_row(&r, why);
    r.label = rw->p.s->meas->label;
    r.refined = rw->p.refined;
    r.stop = rw->p.s->meas->stop;
    r.sync = st->opt.method.sync;
    r.cache = st->opt.method.cache;
    r.seq = ++st->seq;
    mbx_run_key_of(&rw->spec, r.label, key);
    int ok = !st->write_failed && mbx_journal_begin(st->journal, key, rw->p.refined) >= 0 &&
             mbx_run_write_result(st, &r, MBX_SCHED_NO_POINT) == 0 &&
             mbx_journal_done(st->journal, key) >= 0;
    ok &= mbx_csv_writer_close(st->csv) >= 0;
    ok &= mbx_csv_writer_close(st->obs) >= 0;
    st->csv = st->obs = NULL;
    mbx_journal_close(st->journal);
    st->journal = NULL;
    mbx_watchdog_pass_name(&rw->spec, what, sizeof what);
    size_t done = st->res.n + st->done + (ok ? 1 : 0);
    fprintf(stderr,
            "mpibex: watchdog: %s has not returned in %.3g s (bound %.3g s) and cannot be "
            "cancelled: the run ends; %zu points finished%s%s%s (its HUNG row among them)%s\n",
            what, out, rw->bound, done, st->opt.output ? " and are in " : "",
            st->opt.output ? st->opt.output : "", ok ? "" : " (writing failed)",
            st->opt.output ? "; continue with --resume, which skips the HUNG point "
                             "(--retry-hung measures it again)"
                           : "");
    mbx_output_release(&st->out);
    mbx_watchdog_abort();
}
