/* The batch (headless) front end: `mpibex run` and `mpibex idle`. */
#ifndef MBX_BATCH_H
#define MBX_BATCH_H

/* Both initialize and finalize MPI themselves and return the exit code. */
int mbx_batch_run(int argc, char **argv);
int mbx_batch_idle(int argc, char **argv);

#endif
