/* `mpibex idle`: a job that holds its ranks and does nothing. */
#ifndef MBX_IDLE_H
#define MBX_IDLE_H

/* Initializes and finalizes MPI itself and returns the exit code. */
int mbx_idle_run(int argc, char **argv);

#endif
