/* The explorer's watchdog of its passes (docs/hardening.md, "A point that
 * does not return"), on the module `run` uses (tui/cmd/watchdog.h). A pass
 * back after its bound makes its point a HUNG row and the run goes on:
 * every MPI call of the pass completed. A pass still out after twice its
 * bound cannot be cancelled, so the explorer ends: the terminal reset
 * first (the user gets a sane shell whatever happens next), one note of
 * what was kept, then MPI_Abort, which ends every rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ex_watch.h"
#include "explorer.h"
#include "mbx/csvio.h"
#include "watchdog.h"

struct mbx_ex_watch {
    mbx_watchdog *w;
    double floor, mult; /* --watchdog SEC[:MULT] */
    double bound;       /* the pass armed */
    char what[200];
    int late;    /* past its bound before a pause (hold) */
    double held; /* its seconds out before the pause */
};

static void watch_end(void *ud, double out);

void mbx_ex_watch_start(explorer *x, double floor_s, double mult)
{
    if (x->be->fake || !(floor_s > 0))
        return; /* the fake cannot hang; off */
    mbx_ex_watch *xw = calloc(1, sizeof *xw);
    if (!xw || mbx_watchdog_start(&xw->w, watch_end, x) != 0) {
        free(xw);
        mbx_ex_set_msg(x, MBX_ROLE_WARNING,
                       "the watchdog's thread could not start; a hung point will hang the run");
        return;
    }
    /* The explorer keeps no journal: what it keeps is in its end note. */
    mbx_watchdog_ending(xw->w, "the explorer ends");
    xw->floor = floor_s;
    xw->mult = mult;
    x->watch = xw;
}

void mbx_ex_watch_stop(explorer *x)
{
    if (!x->watch)
        return;
    mbx_watchdog_stop(x->watch->w);
    free(x->watch);
    x->watch = NULL;
}

void mbx_ex_watch_arm(explorer *x, const mbx_ex_point *p, const mbx_point_spec *spec)
{
    mbx_ex_watch *xw = x->watch;
    if (!xw || p->curve >= x->ncurves)
        return;
    /* As `run` does: the curve's longest pass so far, scaled up to this
     * point's x; none yet: the floor alone. */
    const mbx_ex_curve *c = &x->curves[p->curve];
    uint64_t at = (uint64_t)mbx_ex_point_x(p, c->s.dim);
    double expected = c->wd_wall;
    if (c->wd_at > 0 && at > c->wd_at)
        expected *= (double)at / (double)c->wd_at;
    xw->bound = mbx_watchdog_bound(xw->floor, xw->mult, expected);
    xw->late = 0;
    xw->held = 0;
    mbx_watchdog_pass_name(spec, xw->what, sizeof xw->what);
    mbx_watchdog_arm(xw->w, xw->bound, xw->what);
}

void mbx_ex_watch_hold(explorer *x, int hold)
{
    mbx_ex_watch *xw = x->watch;
    double took = 0;
    if (!xw)
        return;
    if (!hold) { /* the pass goes on: a full bound again */
        mbx_watchdog_arm(xw->w, xw->bound, xw->what);
        return;
    }
    xw->late |= mbx_watchdog_disarm(xw->w, &took);
    xw->held += took;
}

int mbx_ex_watch_disarm(explorer *x, const mbx_ex_point *p, mbx_result *r)
{
    mbx_ex_watch *xw = x->watch;
    double took = 0;
    if (!xw)
        return 0;
    int hung = mbx_watchdog_disarm(xw->w, &took) || xw->late;
    took += xw->held;
    if (!hung) {
        mbx_ex_curve *c = p->curve < x->ncurves ? &x->curves[p->curve] : NULL;
        if (c && took > c->wd_wall) {
            c->wd_wall = took;
            c->wd_at = (uint64_t)mbx_ex_point_x(p, c->s.dim);
        }
        return 0;
    }
    char why[96];
    snprintf(why, sizeof why, "returned after %.3g s, bound %.3g s", took, xw->bound);
    mbx_watchdog_hung_row(r, why);
    mbx_ex_set_msg(x, MBX_ROLE_WARNING,
                   "watchdog: %s returned after %.3g s, over its bound of %.3g s: HUNG; the run "
                   "goes on",
                   xw->what, took, xw->bound);
    return 1;
}

void mbx_ex_watch_guard(explorer *x)
{
    if (x->watch)
        mbx_watchdog_guard(x->watch->w);
}

/* On the watchdog's thread, the main thread inside the pass (and blocked
 * for good if it comes back): the terminal first, then the note, on the
 * terminal and in the log, then every rank ends. */
static void watch_end(void *ud, double out)
{
    explorer *x = ud;
    const mbx_ex_watch *xw = x->watch;
    mbx_term_emergency_reset(x->term);
    char kept[700];
    if (x->autosave && mbx_csv_writer_close(x->autosave) >= 0)
        snprintf(kept, sizeof kept, "autosaved in %s", x->autosave_path);
    else if (x->autosave)
        snprintf(kept, sizeof kept, "the autosave %s failed on closing", x->autosave_path);
    else
        snprintf(kept, sizeof kept, "not autosaved (--autosave none), not exported");
    x->autosave = NULL;
    char note[1200];
    snprintf(note, sizeof note,
             "mpibex: watchdog: %s has not returned in %.3g s (bound %.3g s) and cannot be "
             "cancelled: the explorer ends; %zu points finished, %s",
             xw->what, out, xw->bound, x->ndone, kept);
    FILE *tty = x->term ? mbx_term_out(x->term) : NULL;
    if (tty) {
        fprintf(tty, "\r\n%s\r\n", note);
        fflush(tty);
    }
    fprintf(stderr, "%s\n", note);
    mbx_term_write_status(MBX_WATCHDOG_EXIT);
    mbx_watchdog_abort();
}
