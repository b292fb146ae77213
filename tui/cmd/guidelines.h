/* mpibex guidelines: measure and judge self-consistent performance
 * guidelines (mbx/guideline.h; docs/user-guide.md, "Guidelines:
 * guidelines"). */
#ifndef MBX_GUIDELINES_CMD_H
#define MBX_GUIDELINES_CMD_H

/* `mpibex guidelines [CATALOGUE] [options] [run options]`: under mpiexec
 * (or --fake) measure every benchmark the rules name in one job, then
 * judge each rule; with --judge PATH judge a finished run or a directory
 * of launches, no MPI; with --print-plan print the run's plan. Returns
 * the exit code: 0, 2 for bad input, or the run's. */
int mbx_guidelines_cmd(int argc, char **argv);

#endif
