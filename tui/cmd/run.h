/* The batch (headless) front end: `mpibex run` and `mpibex idle`. */
#ifndef MBX_BATCH_H
#define MBX_BATCH_H

/* Each initializes and finalizes MPI itself and returns the exit code;
 * `run --fake N` starts no MPI: the fake back end (backend.h) in this one
 * process. */
int mbx_batch_run(int argc, char **argv); /* mpibex run */
int mbx_idle_run(int argc, char **argv);  /* mpibex idle */

struct mbx_engine;
/* Rank 0's part of `run` inside a job already started (the explorer falls
 * back to it when rank 0 has no terminal); e NULL, or --fake N in argv:
 * the whole run on the fake back end, no MPI. */
int mbx_batch_root(struct mbx_engine *e, int argc, char **argv);

/* The environment capture (mbx_engine_environment) as a key,value CSV at
 * path: the OUT.env.csv of every command. Rank 0; an mbx_status. */
int mbx_env_write(struct mbx_engine *e, const char *path);

#endif
