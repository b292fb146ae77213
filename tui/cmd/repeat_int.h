/* Private to `mpibex repeat` (repeat.c, repeat_cli.c): its options. */
#ifndef MBX_REPEAT_INT_H
#define MBX_REPEAT_INT_H

#define MBX_REPEAT_MAX_K 999
#define MBX_REPEAT_MAX_RANKS 4096

typedef struct mbx_repeat_opts {
    long k, n;
    const char *mpiexec, *launcher, *dir;
    int force, quiet, help;
    char **run; /* the run's arguments, without -o and --raw; argc + 1 slots */
    int nrun;
} mbx_repeat_opts;

/* Parse the arguments after "repeat" into o (o->run allocated by the
 * caller, n preset to its default). Returns 0, or 2 after one line on
 * stderr. The run's options are checked as `mpibex run` will check them. */
int mbx_repeat_parse(int argc, char **argv, mbx_repeat_opts *o);

/* "mpibex repeat: " and the message on stderr, one line; returns 2. */
int mbx_repeat_bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
