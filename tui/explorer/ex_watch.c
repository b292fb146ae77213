/* The explorer's watchdog of its passes (docs/hardening.md, "A point that
 * does not return"), on the module `run` uses (tui/cmd/watchdog.h). A pass
 * back after its bound makes its point a HUNG row and the run goes on:
 * every MPI call of the pass completed. A pass still out after twice its
 * bound cannot be cancelled, so the explorer ends: the terminal reset
 * first (the user gets a sane shell whatever happens next), one note of
 * what was kept, then MPI_Abort, which ends every rank. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "explorer.h"
#include "mbx/csvio.h"
#include "watchdog.h"

static void watch_end(void *ud, double out);

void mbx_ex_watch_start(explorer *x)
{
    if (x->be->fake || !(x->wd_floor > 0))
        return; /* the fake cannot hang; off */
    if (mbx_watchdog_start(&x->wd, watch_end, x) != 0)
        mbx_ex_set_msg(x, MBX_ROLE_WARNING,
                       "the watchdog's thread could not start; a hung point will hang the run");
}

void mbx_ex_watch_stop(explorer *x)
{
    mbx_watchdog_stop(x->wd);
    x->wd = NULL;
}

void mbx_ex_watch_arm(explorer *x, const mbx_ex_point *p, const mbx_point_spec *spec)
{
    if (!x->wd || p->curve >= x->ncurves)
        return;
    /* As `run` does: the curve's longest pass so far, scaled up to this
     * point's x; none yet: the floor alone. */
    const mbx_ex_curve *c = &x->curves[p->curve];
    uint64_t at = (uint64_t)mbx_ex_point_x(p, c->s.dim);
    double expected = c->wd_wall;
    if (c->wd_at > 0 && at > c->wd_at)
        expected *= (double)at / (double)c->wd_at;
    x->wd_bound = mbx_watchdog_bound(x->wd_floor, x->wd_mult, expected);
    x->wd_spec = *spec;
    char what[200];
    mbx_watchdog_pass_name(spec, what, sizeof what);
    mbx_watchdog_arm(x->wd, x->wd_bound, what);
}

int mbx_ex_watch_disarm(explorer *x, const mbx_ex_point *p, mbx_result *r)
{
    double took = 0;
    if (!x->wd)
        return 0;
    if (!mbx_watchdog_disarm(x->wd, &took)) {
        mbx_ex_curve *c = p->curve < x->ncurves ? &x->curves[p->curve] : NULL;
        if (c && took > c->wd_wall) {
            c->wd_wall = took;
            c->wd_at = (uint64_t)mbx_ex_point_x(p, c->s.dim);
        }
        return 0;
    }
    char why[96], what[200];
    snprintf(why, sizeof why, "returned after %.3g s, bound %.3g s", took, x->wd_bound);
    mbx_watchdog_hung_row(r, why);
    mbx_watchdog_pass_name(&x->wd_spec, what, sizeof what);
    mbx_ex_set_msg(x, MBX_ROLE_WARNING, "watchdog: %s returned after %.3g s, over its bound of "
                   "%.3g s: HUNG; the run goes on", what, took, x->wd_bound);
    return 1;
}

void mbx_ex_watch_guard(explorer *x)
{
    mbx_watchdog_guard(x->wd);
}

/* On the watchdog's thread, the main thread inside the pass (and blocked
 * for good if it comes back): the terminal first, then the note, on the
 * terminal and in the log, then every rank ends. */
static void watch_end(void *ud, double out)
{
    explorer *x = ud;
    mbx_term_emergency_reset(x->term);
    char what[200], kept[700];
    mbx_watchdog_pass_name(&x->wd_spec, what, sizeof what);
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
             what, out, x->wd_bound, x->ndone, kept);
    FILE *tty = x->term ? mbx_term_out(x->term) : NULL;
    if (tty) {
        fprintf(tty, "\r\n%s\r\n", note);
        fflush(tty);
    }
    fprintf(stderr, "%s\n", note);
    fflush(stderr);
    mbx_term_write_status(MBX_WATCHDOG_EXIT);
    MPI_Abort(MPI_COMM_WORLD, MBX_WATCHDOG_EXIT);
    _exit(MBX_WATCHDOG_EXIT);
}
