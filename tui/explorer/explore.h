/* `mpibex explore`: the live explorer (rank 0 of an MPI job, or the fake
 * back end without MPI for demos and headless tests). */
#ifndef MBX_EXPLORE_H
#define MBX_EXPLORE_H

/* argv[0] is "explore". Returns the exit code. With --fake it runs without
 * MPI; otherwise it starts the MPI job itself (all ranks call it). */
int mbx_explore_main(int argc, char **argv);

void mbx_explore_usage(void);

#endif
