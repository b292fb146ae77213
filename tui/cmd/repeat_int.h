/* Private to `mpibex repeat` (repeat*.c): its options, the state of a
 * repeat and what one file calls in another. */
#ifndef MBX_REPEAT_INT_H
#define MBX_REPEAT_INT_H

#include <stddef.h>
#include <sys/types.h>

#include "mbx/csvio.h"
#include "mbx/output.h"

#define MBX_REPEAT_MAX_K 999
#define MBX_REPEAT_MAX_RANKS 4096

typedef struct mbx_repeat_opts {
    long k, n;
    long gap; /* --gap: seconds between one launch's end and the next one's start */
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

/* One repeat in progress (repeat.c, repeat_launch.c, repeat_dir.c). */
typedef struct rep {
    const mbx_repeat_opts *o;
    char **argv; /* the launch command; its -o value is csv below */
    int nwords, width;
    char csv[4096], log[4096];
    mbx_csv_writer *record; /* DIR/repeat.csv */
    mbx_output claim;       /* DIR, locked for the whole repeat (mbx/output.h) */
    int created_dir;
    int spawn_failed; /* the launcher program could not be started */
    char why[1024];   /* why the last launch failed, when its log does not say */
} rep;

/* The launch processes (repeat_launch.c). */
int mbx_repeat_signal(void);
void mbx_repeat_catch_signals(int on);
int mbx_repeat_build_argv(rep *r, const char *self);
void mbx_repeat_free_argv(rep *r);
void mbx_repeat_join_command(char *const *argv, char *buf, size_t len);
double mbx_repeat_now_s(void);
int mbx_repeat_spawn_launch(rep *r, pid_t *pid);
int mbx_repeat_wait_launch(pid_t pid);

/* DIR and its files (repeat_dir.c). */
int mbx_repeat_prepare_dir(rep *r);
void mbx_repeat_launch_paths(rep *r, long i);
void mbx_repeat_stamp(char *buf, size_t len);
void mbx_repeat_note(rep *r, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void mbx_repeat_record_open(rep *r, const char *self);
void mbx_repeat_record_close(rep *r, const char *result);
long mbx_repeat_count_points(const char *csv, long *unsettled);
void mbx_repeat_remove_launch(rep *r, long i);
void mbx_repeat_last_words(const char *log, char *buf, size_t len);
void mbx_repeat_undo(rep *r);
int mbx_repeat_merge_launches(rep *r, long n);

#endif
