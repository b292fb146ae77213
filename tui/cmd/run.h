/* The batch (headless) front end: `mpibex run`. */
#ifndef MBX_RUN_H
#define MBX_RUN_H

/* Initializes and finalizes MPI itself and returns the exit code;
 * `run --fake N` starts no MPI: the fake back end (backend.h) in this one
 * process. */
int mbx_batch_run(int argc, char **argv); /* mpibex run */

struct mbx_engine;
/* Rank 0's part of `run` inside a job already started (the explorer falls
 * back to it when rank 0 has no terminal); e NULL, or --fake N in argv:
 * the whole run on the fake back end, no MPI. */
int mbx_batch_root(struct mbx_engine *e, int argc, char **argv);

#endif
