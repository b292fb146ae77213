/* `mpibex` started by a user in a terminal, outside MPI: the launcher.
 *
 *   mpibex [-n N] [--launcher CMD] [--bridge auto|tty|socket]
 *          [--bridge-addr ADDR] [--log FILE] [explorer options]
 *
 * It runs CMD (default $MBX_LAUNCHER, else mbx_launcher_default(): srun
 * inside a Slurm allocation, otherwise MBX_MPIEXEC, the mpiexec of the MPI
 * mpibex was built with) split into words, with every "%n" replaced by
 * N (default 2) or, when CMD has no "%n", followed by "-n N"; then the path
 * of this mpibex binary, "explore", and the explorer options. The job's
 * stdin is /dev/null (so the launcher never steals a key from rank 0);
 * every rank's stdout and stderr go to the log file (default
 * $XDG_STATE_HOME/mpibex/ or ~/.local/state/mpibex/, one file a run; its
 * path is printed on exit). It passes the variables of term.h (naming them
 * with -x when CMD is Open MPI's mpirun, which passes nothing else to other
 * hosts), waits for the job, restores the terminal whatever happened, and
 * exits with rank 0's code (from MBX_STATUS_FILE; otherwise the launcher's
 * status; 128+signal when the launcher command was killed by a signal). */
#ifndef MBX_LAUNCHER_H
#define MBX_LAUNCHER_H

/* 1 when this process was not started by an MPI launcher (none of PMI_RANK,
 * PMI_SIZE, PMIX_RANK, OMPI_COMM_WORLD_SIZE, MPI_LOCALRANKID, and not a
 * Slurm task step: SLURM_PROCID together with SLURM_STEP_ID). */
int mbx_launcher_outside_mpi(void);

/* argv[0] is "mpibex"; self is the absolute path of the running binary
 * (/proc/self/exe). Returns the process exit code; bad options exit 2 with
 * one line on stderr. */
int mbx_launcher_main(int argc, char **argv, const char *self);

/* The words that start an MPI job of n ranks, as the launcher builds them:
 * cmd (NULL: $MBX_LAUNCHER, else mbx_launcher_default()) split on blanks, every "%n"
 * replaced by n, "-n N" appended when cmd has no "%n". Stores at most max
 * malloc'd words into out, which must be zeroed (a NULL word among them: a
 * strdup failed), and returns how many; -1 when cmd has no word or too
 * many. The caller frees every non-NULL word, also after -1. */
int mbx_launcher_words(const char *cmd, long n, char **out, int max);

/* The launcher command when none is given: inside a Slurm allocation
 * (SLURM_JOB_ID set) "srun --mpi=pmi2 --quit-on-interrupt" for MPICH
 * ("--mpi=pmix" for Open MPI, no --mpi for another MPI), otherwise
 * MBX_MPIEXEC. */
const char *mbx_launcher_default(void);

#endif
