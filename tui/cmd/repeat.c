/* `mpibex repeat`: K launches one after the other, each recorded and
 * counted, a failed or stopped one reported (and undone when the first
 * refused its input), then the finished ones merged. The launch processes
 * are in repeat_launch.c, DIR and its files in repeat_dir.c. */
#include "repeat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "launcher.h"
#include "repeat_int.h"
#include "tprint.h"

/* Launch i of K; returns its exit code (0: finished). */
static int one_launch(rep *r, long i)
{
    char cmd[8192], t0[40], t1[40], key[48];
    mbx_repeat_launch_paths(r, i);
    mbx_repeat_join_command(r->argv, cmd, sizeof cmd);
    mbx_repeat_stamp(t0, sizeof t0);
    snprintf(key, sizeof key, "launch.%0*ld.", r->width, i);
    size_t kl = strlen(key);
    mbx_repeat_note(r, strcat(key, "command"), "%s", cmd);
    key[kl] = '\0';
    mbx_repeat_note(r, strcat(key, "start"), "%s", t0);
    key[kl] = '\0';
    pid_t pid;
    double start = mbx_repeat_now_s();
    int err = mbx_repeat_spawn_launch(r, &pid), code;
    if (err != 0) {
        r->spawn_failed = err;
        return 127;
    }
    if (i == 1 && !r->o->quiet) {
        mbx_tprintf(stdout, "repeat: %ld launch%s of: %s\n", r->o->k, r->o->k == 1 ? "" : "es",
                    cmd);
        fflush(stdout);
    }
    code = mbx_repeat_wait_launch(pid);
    double secs = mbx_repeat_now_s() - start;
    /* A launch we stopped ends with our signal's code, whatever the launcher
     * says after it: MPICH's hydra may exit 0 after Ctrl-C, Open MPI's
     * mpirun exits 1 (it ends the job with SIGTERM instead). */
    if (mbx_repeat_signal())
        code = 128 + mbx_repeat_signal();
    mbx_repeat_stamp(t1, sizeof t1);
    mbx_repeat_note(r, strcat(key, "end"), "%s", t1);
    key[kl] = '\0';
    mbx_repeat_note(r, strcat(key, "seconds"), "%.3f", secs);
    key[kl] = '\0';
    mbx_repeat_note(r, strcat(key, "exit"), "%d", code);
    key[kl] = '\0';
    long unsettled, pts = code == 0 ? mbx_repeat_count_points(r->csv, &unsettled) : -1;
    if (code == 0 && pts < 0) {
        snprintf(r->why, sizeof r->why, "it exited 0 but %.900s cannot be read", r->csv);
        code = 1;
    }
    if (code != 0)
        return code;
    mbx_repeat_note(r, strcat(key, "points"), "%ld", pts);
    if (!r->o->quiet) {
        printf("launch %ld/%ld: %ld point%s", i, r->o->k, pts, pts == 1 ? "" : "s");
        if (unsettled)
            printf(" (%ld not settled)", unsettled);
        printf(", %.1f s\n", secs);
        fflush(stdout);
    }
    return 0;
}

/* --gap: the pause before launch i, cut short by a signal. */
static void wait_gap(const rep *r, long i)
{
    if (!r->o->quiet) {
        printf("repeat: waiting %ld s before launch %ld/%ld (--gap)\n", r->o->gap, i, r->o->k);
        fflush(stdout);
    }
    double until = mbx_repeat_now_s() + (double)r->o->gap;
    struct timespec nap = {0, 100000000L};
    while (!mbx_repeat_signal() && mbx_repeat_now_s() < until)
        nanosleep(&nap, NULL);
}

static int run_all(rep *r)
{
    const mbx_repeat_opts *o = r->o;
    long done = 0;
    int code = 0;
    if (o->k < 10)
        printf("repeat: -k %ld: fewer than 10 launches (ReproMPI's minimum); compare and the "
               "interval over launches need 10 to hold\n",
               o->k);
    if (o->gap > 0)
        mbx_repeat_note(r, "gap_s", "%ld", o->gap);
    for (long i = 1; i <= o->k && code == 0 && !mbx_repeat_signal(); i++) {
        if (i > 1 && o->gap > 0)
            wait_gap(r, i);
        if (mbx_repeat_signal())
            break;
        if ((code = one_launch(r, i)) == 0)
            done = i;
    }
    if (code == 0 && mbx_repeat_signal())
        code = 128 + mbx_repeat_signal();
    if (code != 0) {
        char why[1024];
        long i = done + 1;
        mbx_repeat_launch_paths(r, i);
        if (r->why[0])
            snprintf(why, sizeof why, "%s", r->why);
        else
            mbx_repeat_last_words(r->log, why, sizeof why);
        mbx_repeat_remove_launch(r, i);
        if (r->spawn_failed && done > 0)
            mbx_tprintf(stderr, "mpibex repeat: cannot run '%s': %s\n", r->argv[0],
                        strerror(r->spawn_failed));
        if (done == 0 && (code == 2 || r->spawn_failed)) {
            /* Bad input the run found (or no launcher): nothing was measured. */
            mbx_repeat_record_close(r, NULL);
            mbx_repeat_undo(r);
            if (r->spawn_failed)
                return mbx_repeat_bad(
                    "--mpiexec: cannot run '%s': %s; allowed an MPI launcher such as "
                    "mpiexec",
                    r->argv[0], strerror(r->spawn_failed));
            return mbx_repeat_bad("launch 1 refused its input: %s", why[0] ? why : "(no message)");
        }
        if (mbx_repeat_signal()) {
            /* what the run said (keep, --resume) is about files now removed */
            why[0] = '\0';
            fprintf(stderr, "mpibex repeat: stopped by signal %d during launch %ld/%ld",
                    mbx_repeat_signal(), i, o->k);
        } else {
            fprintf(stderr, "mpibex repeat: launch %ld/%ld failed with exit code %d", i, o->k,
                    code);
        }
        mbx_tprintf(stderr, "%s%s; its log: %s; %ld finished launch%s kept\n", why[0] ? ": " : "",
                    why, r->log, done, done == 1 ? "" : "es");
        mbx_repeat_note(r, "stopped", "launch %ld, exit code %d", i, code);
    }
    if (done > 0 && mbx_repeat_merge_launches(r, done) != 0 && code == 0)
        code = 1;
    return code;
}

int mbx_repeat_cmd(int argc, char **argv, const char *self)
{
    mbx_repeat_opts o = {.n = 2};
    rep r = {.o = &o};
    if ((o.run = calloc((size_t)argc + 1, sizeof *o.run)) == NULL)
        return mbx_repeat_bad("out of memory");
    int rc = mbx_repeat_parse(argc, argv, &o);
    if (rc == 0 && o.help) {
        mbx_repeat_usage();
    } else if (rc == 0 && !mbx_launcher_outside_mpi()) {
        rc = mbx_repeat_bad("run me outside MPI: 'mpibex repeat' starts every launch itself "
                            "(mpibex repeat -k K -n N -- ...)");
    } else if (rc == 0 && (rc = mbx_repeat_build_argv(&r, self)) == 0 &&
               (rc = mbx_repeat_prepare_dir(&r)) == 0) {
        mbx_repeat_catch_signals(1);
        mbx_repeat_record_open(&r, self);
        rc = run_all(&r);
        if (r.record) {
            char result[64];
            snprintf(result, sizeof result, rc == 0 ? "ok" : "exit code %d", rc);
            mbx_repeat_record_close(&r, result);
        }
        mbx_repeat_catch_signals(0);
    }
    mbx_output_release(&r.claim);
    mbx_repeat_free_argv(&r);
    free(o.run);
    return rc;
}
