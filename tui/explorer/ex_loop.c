/* The explorer's loop: the scheduler's requests (or a b_eff row, or a
 * piece of an export), then the keys and a redraw; and the tick that the
 * run and the b_eff screen call between their steps (ex_msg.c hands it
 * on), so that neither depends on the loop. */
#include <math.h>
#include <time.h>

#include "ex_keysrc.h"
#include "explorer.h"
#include "sig.h"

#define REDRAW_S 0.1 /* at least 10 frames a second while measuring */
#define STEP_S 0.05  /* scheduler requests between two looks at the keys */

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void poll_size(explorer *x, int *changed)
{
    int r = x->rows, c = x->cols;
    if (x->headless)
        mbx_ex_keysrc_size(x->keys, &r, &c);
    else if (x->term)
        mbx_term_size(x->term, &r, &c);
    if ((r != x->rows || c != x->cols) && r > 0 && c > 0) {
        resizeterm(r, c);
        x->rows = r;
        x->cols = c;
        *changed = 1;
    }
}

static int tick(explorer *x, int wait_ms)
{
    int changed = 0;
    poll_size(x, &changed);
    for (;;) {
        int k = mbx_ex_keysrc_next(x->keys, x, wait_ms);
        if (k == ERR)
            break;
        wait_ms = 0;
        double t0 = wall();
        changed |= mbx_ex_handle_key(x, k);
        if (changed && !x->headless) {
            mbx_ex_draw(x);
            x->last_key_lag = wall() - t0;
            x->last_draw = wall();
            changed = 0;
        }
        poll_size(x, &changed);
        if (x->quit)
            break;
    }
    if (mbx_stop_signal || (x->term && mbx_term_lost(x->term)))
        x->quit = x->cancel = 1;
    if (!x->headless && (changed || ((x->running || x->bf.running || x->pr.running || x->xp.on) &&
                                     wall() - x->last_draw >= REDRAW_S))) {
        mbx_ex_draw(x);
        x->last_draw = wall();
    }
    return x->cancel || x->quit;
}

int mbx_ex_main_loop(explorer *x)
{
    x->tick = tick;
    x->redraw = x->headless ? NULL : mbx_ex_draw;
    if (x->start_now)
        mbx_ex_start_run(x);
    if (!x->headless) {
        mbx_ex_draw(x);
        x->last_draw = wall();
    }
    while (!x->quit || x->xp.on) {
        if (x->xp.on) {
            /* Writing observations instead of measuring: a step, keys and
             * the frame. A quit waits for the end; a signal or a lost
             * terminal does not. */
            if (mbx_stop_signal || (x->term && mbx_term_lost(x->term)))
                mbx_ex_export_abandon(x, "export stopped");
            else
                mbx_ex_export_step(x);
            tick(x, 0);
            if (!x->xp.on && !x->headless) /* written or stopped: its last frame */
                mbx_ex_draw(x), x->last_draw = wall();
            continue;
        }
        if (x->pr.running) {
            mbx_ex_pairs_run(x);
            if (!x->headless)
                mbx_ex_draw(x), x->last_draw = wall();
            continue;
        }
        if (x->bf.running) {
            mbx_ex_beff_run(x);
            if (!x->headless)
                mbx_ex_draw(x), x->last_draw = wall();
            continue;
        }
        if (x->running && x->cancel) {
            mbx_ex_sched_stop(x, "cancelled");
            if (!x->headless)
                mbx_ex_draw(x), x->last_draw = wall();
            continue;
        }
        if (x->running && !x->paused) {
            /* Requests until about STEP_S has passed, then keys and a
             * redraw; headless one request a tick, so scripts replay. */
            double t0 = wall(), idle = 0;
            do
                idle = mbx_ex_sched_step(x);
            while (!x->headless && idle == 0 && x->running && !x->paused && !x->cancel &&
                   !x->quit && wall() - t0 < STEP_S);
            tick(x, idle > 0 && !x->headless && !x->be->fake ? (int)ceil(idle * 1000) : 0);
            if (idle > 0 && x->headless && !x->be->fake) /* real ranks: real time passes */
                mbx_sig_sleep(idle);
            if (!x->running && !x->headless) /* the run ended: its last frame */
                mbx_ex_draw(x), x->last_draw = wall();
            continue;
        }
        tick(x, 100);
    }
    /* Quit, a signal, the terminal gone, the end of a script: what was
     * measured becomes final and reaches the autosave. */
    mbx_ex_sched_stop(x, "stopped");
    return 0;
}
