/* Running the explorer's MPI job for the launcher (launcher.h): a private
 * part of the launcher, split from option parsing. */
#ifndef MBX_LAUNCHER_JOB_H
#define MBX_LAUNCHER_JOB_H

typedef struct mbx_ljob_spec {
    char **argv;             /* the full command line, NULL-terminated */
    int nwords;              /* how many of them are the launcher's (mpiexec -n N) */
    int pass_env;            /* name rank 0's variables with -x (Open MPI's mpirun) */
    int tty, socket;         /* which bridges to offer rank 0 */
    const char *bridge_addr; /* listen and advertise; NULL: every interface, host name */
    const char *log_path;    /* NULL: a new file in the state directory */
} mbx_ljob_spec;

/* Runs the job to its end with the environment of term.h, relaying the
 * terminal when asked, and restores the terminal whatever happened.
 * Returns the launcher's exit code: rank 0's status file, else the
 * command's exit status, else 128 + the signal that killed it; 1 or 127
 * (with a line on stderr) when the job could not be started. */
int mbx_ljob_run(const mbx_ljob_spec *spec);

#endif
