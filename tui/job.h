/* Starting an mpibex job on every rank: MPI, the engine, the serve loop. */
#ifndef MBX_JOB_H
#define MBX_JOB_H

#include <signal.h>

#include "mbx/engine.h"

/* Rank 0's work: returns the exit code every rank will return. */
typedef int (*mbx_root_fn)(mbx_engine *e, int argc, char **argv);

/* Initialize MPI and the engine on every rank; rank 0 runs `root`, the other
 * ranks serve its commands; then rank 0 sends QUIT with root's exit code,
 * and every rank finalizes and returns that code. SIGINT and SIGTERM only
 * set mbx_stop_signal (a second one acts at once): rank 0's front end is
 * expected to look at it between batches and wind down. */
int mbx_job_run(int argc, char **argv, mbx_root_fn root);

extern volatile sig_atomic_t mbx_stop_signal;

#endif
