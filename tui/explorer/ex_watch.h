/* The explorer's watchdog of its passes (docs/hardening.md, "A point
 * that does not return"), on run's module (tui/cmd/watchdog.h).
 * (internal to the explorer) */
#ifndef MBX_EX_WATCH_H
#define MBX_EX_WATCH_H

#include "explorer.h"

typedef struct mbx_ex_watch mbx_ex_watch;

/* Started with the explorer (not --watchdog off, floor_s 0, nor the
 * fake), armed around each pass (p's curve's longest pass so far
 * sets the bound); disarm makes r a HUNG row when the pass came back late
 * (1, with the message line), else 0. A pass still out after twice its
 * bound ends the explorer: the terminal reset first, one note, MPI_Abort. */
void mbx_ex_watch_start(explorer *x, double floor_s, double mult); /* --watchdog */
void mbx_ex_watch_stop(explorer *x);
void mbx_ex_watch_arm(explorer *x, const mbx_ex_point *p, const mbx_point_spec *spec);
int mbx_ex_watch_disarm(explorer *x, const mbx_ex_point *p, mbx_result *r);
void mbx_ex_watch_guard(explorer *x); /* between batches: blocks once the end began */
/* The user paused in the middle of a pass (hold 1) or resumed (0): the
 * pause is not the pass's time, and resuming gives it a full bound again
 * (its time before the pause still counts in the HUNG reason). */
void mbx_ex_watch_hold(explorer *x, int hold);

#endif
