/* The watchdog of a point in flight (docs/hardening.md, "A point that does
 * not return"): rank 0's main thread may sit inside a blocking MPI call of
 * the benchmark, so a thread of its own (it calls no MPI until its end)
 * watches the clock. A pass that is not back within its bound is HUNG;
 * one that is still not back after a second bound cannot be cancelled
 * (MPI cancels no collective, and rank 0 may be inside one), so the
 * watchdog ends the run through the caller's `end` hook. */
#ifndef MBX_WATCHDOG_H
#define MBX_WATCHDOG_H

#include <stddef.h>

#include "mbx/engine.h"
#include "mbx/result.h"

#define MBX_WATCHDOG_FLOOR_S 60.0 /* the smallest bound, --watchdog SEC */
#define MBX_WATCHDOG_MULT 20.0    /* bound = MULT x the expected time */
#define MBX_WATCHDOG_EXIT 3       /* the exit code of a run the watchdog ended */

typedef struct mbx_watchdog mbx_watchdog;

/* Called on the watchdog's thread once a pass has not returned within
 * twice its bound: the main thread is inside the pass and stays blocked
 * (mbx_watchdog_disarm and _guard never return once it runs). `hung_s` is
 * how long the pass has been out. It must not return (it ends the job). */
typedef void (*mbx_watchdog_end_fn)(void *ud, double hung_s);

/* The bound of a pass: max(floor, mult x expected); expected <= 0 or not
 * a number gives the floor. */
double mbx_watchdog_bound(double floor_s, double mult, double expected_s);

/* Start the thread (signals blocked in it). Returns 0, or -1 (no thread:
 * *out NULL, the run goes on without a watchdog). */
int mbx_watchdog_start(mbx_watchdog **out, mbx_watchdog_end_fn end, void *ud);

/* What the HUNG line says follows when the pass stays out ("... and
 * ENDING if it has not in another B s"); ending is kept, not copied.
 * The default is `run`'s: "ends with its rows and journal kept". */
void mbx_watchdog_ending(mbx_watchdog *w, const char *ending);

/* Main thread, before a pass: watch it for bound_s seconds; `what` names
 * the pass in the HUNG line ("pingpong.send_recv on 2 procs at 4 bytes";
 * copied). */
void mbx_watchdog_arm(mbx_watchdog *w, double bound_s, const char *what);

/* Main thread, when the pass returned: 1 when it came back after its
 * bound (HUNG; *took its seconds), else 0. Blocks for good when the end
 * hook has started. A NULL w gives 0. */
int mbx_watchdog_disarm(mbx_watchdog *w, double *took);

/* Main thread, between a pass's batches (its progress callback): blocks
 * for good when the end hook has started, else returns at once. */
void mbx_watchdog_guard(mbx_watchdog *w);

/* Stop and join the thread; NULL is fine. */
void mbx_watchdog_stop(mbx_watchdog *w);

/* What `run` and the explorer share around it. --watchdog's value: "off"
 * (*floor_s 0) or SEC[:MULT], SEC in 0.5..86400, MULT in 2..1000 (else
 * unchanged); 0, or -1 when v is none of these. */
#define MBX_WATCHDOG_BAD                                                                           \
    "--watchdog: expected off or SEC[:MULT], seconds in 0.5..86400 and a multiple in 2..1000 "     \
    "(got '%s')"
int mbx_watchdog_parse(const char *v, double *floor_s, double *mult);

/* The pass's name for the lines: "pingpong.send_recv on 2 procs at 4
 * bytes" (and the parameter of a benchmark that has one). */
void mbx_watchdog_pass_name(const mbx_point_spec *spec, char *buf, size_t len);

/* The end of an end hook, after its note went to stderr: flush, wait
 * MBX_WATCHDOG_DRAIN_S so the launcher forwards the note (hydra stops
 * forwarding a rank's output once it handles the abort, and a note still
 * in the pipe is lost on a loaded machine), then MPI_Abort every rank with
 * MBX_WATCHDOG_EXIT. Never returns. */
#define MBX_WATCHDOG_DRAIN_S 0.5
_Noreturn void mbx_watchdog_abort(void);

/* r as a HUNG row: no numbers (a pass that hung measured the hang), the
 * reason in status_reason. */
void mbx_watchdog_hung_row(mbx_result *r, const char *why);

#endif
