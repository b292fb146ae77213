/* `mpibex repeat`: K separate launches of one run, then their merge. One
 * launch of an MPI job is one sample of the machine (placement, network
 * state, other jobs); `repeat` takes several and `compare` tests them.
 * Runs outside MPI and starts each launch itself, like the launcher. */
#ifndef MBX_REPEAT_H
#define MBX_REPEAT_H

/* The arguments after "repeat"; self is the absolute path of this mpibex
 * binary (each launch runs `self run ...`). Returns the exit code: 0 every
 * launch finished and was merged; 2 bad input (one line on stderr, nothing
 * created); a failed launch's own exit code (the finished launches are
 * kept and merged); 128 + the signal after Ctrl-C or SIGTERM. */
int mbx_repeat_cmd(int argc, char **argv, const char *self);

/* mpibex repeat --help, on stdout. */
void mbx_repeat_usage(void);

#endif
