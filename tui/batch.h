/* The batch (headless) front end: `mpibex run` and `mpibex idle`. */
#ifndef MBX_BATCH_H
#define MBX_BATCH_H

/* Each initializes and finalizes MPI itself and returns the exit code. */
int mbx_batch_run(int argc, char **argv); /* mpibex run */
int mbx_idle_run(int argc, char **argv);  /* mpibex idle */

#endif
