#include "repeat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "launcher.h"
#include "mbx/ascii.h"
#include "mbx/csvio.h"
#include "mbx/dir.h"
#include "mbx/merge.h"
#include "mbx/output.h"
#include "mbx/result.h"
#include "mbx/version.h"
#include "repeat_int.h"
#include "tprint.h"

extern char **environ;

#define MAX_WORDS 130     /* launcher words, as the explorer's launcher allows */
#define KILL_GRACE_S 15.0 /* after the first forwarded signal, then SIGKILL */

static volatile sig_atomic_t got_signal, signal_count;

static void on_signal(int sig)
{
    got_signal = sig;
    signal_count = signal_count + 1;
}

/* One repeat in progress. */
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

/* A file name in DIR that a repeat writes. */
static int ours(const char *name)
{
    return strncmp(name, "launch-", 7) == 0 || strcmp(name, "merged.csv") == 0 ||
           strcmp(name, "repeat.csv") == 0;
}

static int ours_pick(const char *name, void *ud)
{
    (void)ud;
    return ours(name);
}

/* DIR is claimed (created if missing, locked) and holds no earlier
 * launches; with --force they are removed. */
static int prepare_dir(rep *r)
{
    const char *dir = r->o->dir;
    char msg[1024];
    mbx_output_req req = {.path = dir,
                          .flags = MBX_OUTPUT_DIRECTORY | (r->o->force ? MBX_OUTPUT_FORCE : 0),
                          .is_result = ours};
    int rc = mbx_output_claim(&req, &r->claim, msg, sizeof msg);
    if (rc < 0)
        return rc == MBX_E_NOMEM ? mbx_repeat_bad("out of memory") : mbx_repeat_bad("%s", msg);
    r->created_dir = r->claim.created_dir;
    if (!r->claim.existed)
        return 0;
    /* Only in a directory of this user that is no symbolic link, and only
     * our names, each removed relative to it (a link among them goes as a
     * link): a planted link must not lead --force into somebody's files. */
    int fd;
    const char *why = NULL;
    if (mbx_dir_open_own(AT_FDCWD, dir, 0, &fd, &why) != MBX_OK)
        return mbx_repeat_bad("-o: --force cleans only a directory of yours; '%s': %s", dir, why);
    rc = mbx_dir_clean(fd, ours_pick, NULL, NULL, NULL);
    int err = errno;
    close(fd);
    if (rc != MBX_OK)
        return mbx_repeat_bad("--force: cannot remove the earlier launches in '%s': %s", dir,
                              strerror(err));
    return 0;
}

/* launcher words, SELF run [run options] -o CSV --raw */
static int build_argv(rep *r, const char *self)
{
    const mbx_repeat_opts *o = r->o;
    r->argv = calloc(MAX_WORDS + (size_t)o->nrun + 8, sizeof *r->argv);
    if (r->argv == NULL)
        return mbx_repeat_bad("out of memory");
    const char *cmd = o->launcher ? o->launcher : o->mpiexec;
    int k = mbx_launcher_words(cmd, o->n, r->argv, MAX_WORDS);
    r->nwords = k < 0 ? MAX_WORDS : k;
    for (int i = 0; i < r->nwords; i++)
        if (r->argv[i] == NULL)
            k = -1;
    if (k <= 0)
        return mbx_repeat_bad(
            "--launcher: cannot build a command from '%s'; allowed a command such as "
            "'mpiexec'",
            cmd                      ? cmd
            : getenv("MBX_LAUNCHER") ? getenv("MBX_LAUNCHER")
                                     : MBX_MPIEXEC);
    r->argv[k++] = (char *)self;
    r->argv[k++] = "run";
    for (int i = 0; i < o->nrun; i++)
        r->argv[k++] = o->run[i];
    r->argv[k++] = "-o";
    r->argv[k++] = r->csv; /* each launch's name is written there */
    r->argv[k++] = "--raw";
    r->argv[k] = NULL;
    r->width = o->k < 100 ? 2 : 3;
    return 0;
}

static void free_argv(rep *r)
{
    for (int i = 0; r->argv && i < r->nwords; i++)
        free(r->argv[i]);
    free(r->argv);
}

/* Append s to buf[0..len) at *n, cutting what does not fit. */
static void append(char *buf, size_t len, size_t *n, const char *s, size_t l)
{
    if (*n + l >= len)
        l = *n + 1 < len ? len - 1 - *n : 0;
    memcpy(buf + *n, s, l);
    *n += l;
    buf[*n] = '\0';
}

/* The words as a shell would need them: plain words as they are, others in
 * single quotes. */
static void join_command(char *const *argv, char *buf, size_t len)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_./:=,+-@%";
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; argv[i]; i++) {
        const char *w = argv[i];
        int plain = *w != '\0' && strspn(w, safe) == strlen(w);
        if (i > 0)
            append(buf, len, &n, " ", 1);
        if (plain) {
            append(buf, len, &n, w, strlen(w));
            continue;
        }
        append(buf, len, &n, "'", 1);
        for (; *w; w++)
            append(buf, len, &n, *w == '\'' ? "'\\''" : w, *w == '\'' ? 4 : 1);
        append(buf, len, &n, "'", 1);
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void stamp(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    if (localtime_r(&t, &tm) == NULL || strftime(buf, len, "%Y-%m-%dT%H:%M:%S%z", &tm) == 0)
        snprintf(buf, len, "%lld", (long long)t);
}

/* One key,value row of DIR/repeat.csv; a failed write is reported once. */
static void note(rep *r, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void note(rep *r, const char *key, const char *fmt, ...)
{
    char value[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    const char *row[2] = {key, value};
    if (r->record && mbx_csv_writer_row(r->record, row) < 0) {
        mbx_tprintf(stderr, "mpibex repeat: writing %s/repeat.csv failed: %s\n", r->o->dir,
                    strerror(errno));
        mbx_csv_writer_close(r->record);
        r->record = NULL;
    }
}

static void launch_paths(rep *r, long i)
{
    snprintf(r->csv, sizeof r->csv, "%s/launch-%0*ld.csv", r->o->dir, r->width, i);
    snprintf(r->log, sizeof r->log, "%s/launch-%0*ld.log", r->o->dir, r->width, i);
}

/* Start the launch: stdin /dev/null, stdout and stderr to its log, in a
 * process group of its own so that Ctrl-C reaches it once, through us.
 * Returns 0 or an errno. */
static int spawn_launch(rep *r, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, def;
    sigemptyset(&none);
    sigemptyset(&def);
    sigaddset(&def, SIGINT);
    sigaddset(&def, SIGTERM);
    sigaddset(&def, SIGPIPE);
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc != 0)
        return rc;
    if ((rc = posix_spawnattr_init(&at)) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        return rc;
    }
    if (!rc)
        rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (!rc)
        rc = posix_spawn_file_actions_addopen(&fa, 1, r->log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (!rc)
        rc = posix_spawn_file_actions_adddup2(&fa, 1, 2);
    if (!rc)
        rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                               POSIX_SPAWN_SETSIGDEF);
    if (!rc)
        rc = posix_spawnattr_setpgroup(&at, 0);
    if (!rc)
        rc = posix_spawnattr_setsigmask(&at, &none);
    if (!rc)
        rc = posix_spawnattr_setsigdefault(&at, &def);
    if (!rc)
        rc = posix_spawnp(pid, r->argv[0], &fa, &at, r->argv, environ);
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    return rc;
}

/* Wait for the launch, passing on every SIGINT and SIGTERM we get; a
 * launch that still runs KILL_GRACE_S after the first is killed. Returns
 * the exit code (128 + signal when killed by one). */
static int wait_launch(pid_t pid)
{
    sig_atomic_t forwarded = signal_count;
    double kill_at = 0;
    const struct timespec tick = {0, 50000000};
    for (;;) {
        int status;
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            return WIFEXITED(status)     ? WEXITSTATUS(status)
                   : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                         : 1;
        if (w < 0 && errno != EINTR)
            return 1;
        if (signal_count != forwarded) {
            forwarded = signal_count;
            kill(pid, got_signal);
            if (kill_at == 0)
                kill_at = now_s() + KILL_GRACE_S;
        }
        if (kill_at > 0 && now_s() > kill_at) {
            kill(-pid, SIGKILL);
            kill_at = -1;
        }
        nanosleep(&tick, NULL);
    }
}

struct counting {
    int col; /* of status; -1 before the header, -2 when it has none */
    long points, unsettled;
};

static int count_row(void *ctx, char *const *f, size_t n, size_t line)
{
    struct counting *c = ctx;
    (void)line;
    if (c->col == -1) {
        c->col = mbx_csv_col((const char *const *)f, n, "status");
        if (c->col < 0)
            c->col = -2;
        return MBX_OK;
    }
    mbx_point_status st;
    c->points++;
    if (c->col >= 0 && (size_t)c->col < n &&
        !(mbx_point_status_parse(f[c->col], &st) && st == MBX_POINT_SETTLED))
        c->unsettled++;
    return MBX_OK;
}

/* Points of a finished launch, and how many are not SETTLED; -1 when its
 * CSV cannot be read. Read a row at a time: a launch's file may be big. */
static long count_points(const char *csv, long *unsettled)
{
    struct counting c = {.col = -1};
    *unsettled = 0;
    if (mbx_csv_read_rows(csv, count_row, &c) < 0)
        return -1;
    *unsettled = c.unsettled;
    return c.points;
}

/* The failed launch's results and every sidecar (DIR/launch-NN.*); its log
 * stays. */
typedef struct launch_files {
    char prefix[32];
    size_t n;
} launch_files;

static int launch_file(const char *name, void *ud)
{
    const launch_files *l = ud;
    return strncmp(name, l->prefix, l->n) == 0 && strcmp(name + l->n, "log") != 0;
}

static void remove_launch(rep *r, long i)
{
    launch_files l;
    int n = snprintf(l.prefix, sizeof l.prefix, "launch-%0*ld.", r->width, i);
    l.n = n > 0 ? (size_t)n : 0;
    int fd;
    const char *why;
    if (mbx_dir_open_own(AT_FDCWD, r->o->dir, 0, &fd, &why) != MBX_OK)
        return; /* not ours (any more): nothing of it is removed */
    int rc = mbx_dir_clean(fd, launch_file, &l, NULL, NULL);
    (void)rc; /* what could not go is named by the failure's own line */
    close(fd);
}

/* The line of the log most likely to say why: the last one from mpibex,
 * else the last non-empty one. */
static void last_words(const char *log, char *buf, size_t len)
{
    FILE *f = fopen(log, "r");
    char line[1024];
    int from_us = 0;
    buf[0] = '\0';
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        int ours_line = strncmp(line, "mpibex", 6) == 0;
        if (line[0] && (ours_line || !from_us)) {
            snprintf(buf, len, "%s", line);
            from_us |= ours_line;
        }
    }
    if (f)
        fclose(f);
}

/* Merge launches 1..n into DIR/merged.csv and print the summary. */
static int merge_launches(rep *r, long n)
{
    char out[4200], msg[512];
    snprintf(out, sizeof out, "%s/merged.csv", r->o->dir);
    mbx_merge *m = NULL;
    if (mbx_merge_new(&m) < 0) {
        fprintf(stderr, "mpibex repeat: out of memory\n");
        return 1;
    }
    int rc = 0;
    for (long i = 1; rc == 0 && i <= n; i++) {
        launch_paths(r, i);
        if (mbx_merge_add_file(m, r->csv, msg, sizeof msg) < 0)
            rc = 1, mbx_tprintf(stderr, "mpibex repeat: merge: %s\n", msg);
    }
    mbx_csv_writer *w = NULL;
    if (rc == 0 && mbx_csv_writer_open(out, mbx_merge_columns, MBX_MERGE_NCOLS, &w) < 0)
        rc = 1, mbx_tprintf(stderr, "mpibex repeat: cannot write '%s': %s\n", out, strerror(errno));
    if (rc == 0 && (mbx_merge_write(m, w) < 0) + (mbx_csv_writer_close(w) < 0))
        rc = 1,
        mbx_tprintf(stderr, "mpibex repeat: writing '%s' failed: %s\n", out, strerror(errno));
    if (rc == 0) {
        mbx_merge_summary s;
        mbx_merge_summarize(m, &s);
        double worst = -1;
        size_t wi = 0;
        mbx_merge_fields f, wf;
        for (size_t i = 0; i < s.keys; i++) {
            mbx_merge_format(m, i, &f);
            double sp = f.field[17][0] ? mbx_strtod(f.field[17], NULL) : -1;
            if (sp > worst)
                worst = sp, wi = i;
        }
        mbx_tprintf(stdout, "merged %ld launch%s into %s: %zu point%s", n, n == 1 ? "" : "es", out,
                    s.keys, s.keys == 1 ? "" : "s");
        if (s.partial_keys)
            printf(" (%zu not in every launch)", s.partial_keys);
        if (worst >= 0 && n > 1) {
            char sz[24];
            mbx_merge_format(m, wi, &wf);
            mbx_size_text(strtoull(wf.field[2], NULL, 10), sz, sizeof sz);
            mbx_tprintf(stdout,
                        "; worst spread %.1f%% at %s, %s procs, %s (launch medians %s .. %s us)",
                        100 * worst, wf.field[0], wf.field[1], sz, wf.field[15], wf.field[16]);
        }
        printf("\n");
        note(r, "merged", "%s", out);
        note(r, "worst_spread_rel", "%.6f", worst);
    }
    mbx_merge_free(m);
    return rc;
}

/* The last rows of DIR/repeat.csv (result NULL: none) and close it. */
static void record_close(rep *r, const char *result)
{
    if (result != NULL) {
        char t[40];
        stamp(t, sizeof t);
        note(r, "end", "%s", t);
        note(r, "result", "%s", result);
    }
    if (r->record && mbx_csv_writer_close(r->record) < 0)
        mbx_tprintf(stderr, "mpibex repeat: writing %s/repeat.csv failed: %s\n", r->o->dir,
                    strerror(errno));
    r->record = NULL;
}

/* After launch 1 failed on bad input: leave nothing behind. */
static int undo_file(const char *name, void *ud)
{
    const rep *r = ud;
    const char *log = strrchr(r->log, '/');
    return strcmp(name, "repeat.csv") == 0 || (log && strcmp(name, log + 1) == 0);
}

static void undo(rep *r)
{
    const char *why;
    mbx_output_release(&r->claim); /* its lock file is in DIR */
    if (r->created_dir) {
        int rc = mbx_dir_remove(AT_FDCWD, r->o->dir, MBX_DIR_MISSING_OK, undo_file, r, &why);
        (void)rc; /* best effort: the bad input's own line is what the user needs */
        return;
    }
    int fd;
    if (mbx_dir_open_own(AT_FDCWD, r->o->dir, 0, &fd, &why) != MBX_OK)
        return;
    int rc = mbx_dir_clean(fd, undo_file, r, NULL, NULL);
    (void)rc;
    close(fd);
}

/* Launch i of K; returns its exit code (0: finished). */
static int one_launch(rep *r, long i)
{
    char cmd[8192], t0[40], t1[40], key[48];
    launch_paths(r, i);
    join_command(r->argv, cmd, sizeof cmd);
    stamp(t0, sizeof t0);
    snprintf(key, sizeof key, "launch.%0*ld.", r->width, i);
    size_t kl = strlen(key);
    note(r, strcat(key, "command"), "%s", cmd);
    key[kl] = '\0';
    note(r, strcat(key, "start"), "%s", t0);
    key[kl] = '\0';
    pid_t pid;
    double start = now_s();
    int err = spawn_launch(r, &pid), code;
    if (err != 0) {
        r->spawn_failed = err;
        return 127;
    }
    if (i == 1 && !r->o->quiet) {
        mbx_tprintf(stdout, "repeat: %ld launch%s of: %s\n", r->o->k, r->o->k == 1 ? "" : "es",
                    cmd);
        fflush(stdout);
    }
    code = wait_launch(pid);
    double secs = now_s() - start;
    /* A launch we stopped ends with our signal's code, whatever the launcher
     * says after it: MPICH's hydra may exit 0 after Ctrl-C, Open MPI's
     * mpirun exits 1 (it ends the job with SIGTERM instead). */
    if (signal_count)
        code = 128 + got_signal;
    stamp(t1, sizeof t1);
    note(r, strcat(key, "end"), "%s", t1);
    key[kl] = '\0';
    note(r, strcat(key, "seconds"), "%.3f", secs);
    key[kl] = '\0';
    note(r, strcat(key, "exit"), "%d", code);
    key[kl] = '\0';
    long unsettled, pts = code == 0 ? count_points(r->csv, &unsettled) : -1;
    if (code == 0 && pts < 0) {
        snprintf(r->why, sizeof r->why, "it exited 0 but %.900s cannot be read", r->csv);
        code = 1;
    }
    if (code != 0)
        return code;
    note(r, strcat(key, "points"), "%ld", pts);
    if (!r->o->quiet) {
        printf("launch %ld/%ld: %ld point%s", i, r->o->k, pts, pts == 1 ? "" : "s");
        if (unsettled)
            printf(" (%ld not settled)", unsettled);
        printf(", %.1f s\n", secs);
        fflush(stdout);
    }
    return 0;
}

static int run_all(rep *r)
{
    const mbx_repeat_opts *o = r->o;
    long done = 0;
    int code = 0;
    for (long i = 1; i <= o->k && code == 0 && !signal_count; i++) {
        if ((code = one_launch(r, i)) == 0)
            done = i;
    }
    if (code == 0 && signal_count)
        code = 128 + got_signal;
    if (code != 0) {
        char why[1024];
        long i = done + 1;
        launch_paths(r, i);
        if (r->why[0])
            snprintf(why, sizeof why, "%s", r->why);
        else
            last_words(r->log, why, sizeof why);
        remove_launch(r, i);
        if (r->spawn_failed && done > 0)
            mbx_tprintf(stderr, "mpibex repeat: cannot run '%s': %s\n", r->argv[0],
                        strerror(r->spawn_failed));
        if (done == 0 && (code == 2 || r->spawn_failed)) {
            /* Bad input the run found (or no launcher): nothing was measured. */
            record_close(r, NULL);
            undo(r);
            if (r->spawn_failed)
                return mbx_repeat_bad(
                    "--mpiexec: cannot run '%s': %s; allowed an MPI launcher such as "
                    "mpiexec",
                    r->argv[0], strerror(r->spawn_failed));
            return mbx_repeat_bad("launch 1 refused its input: %s", why[0] ? why : "(no message)");
        }
        if (signal_count) {
            /* what the run said (keep, --resume) is about files now removed */
            why[0] = '\0';
            fprintf(stderr, "mpibex repeat: stopped by signal %d during launch %ld/%ld", got_signal,
                    i, o->k);
        } else {
            fprintf(stderr, "mpibex repeat: launch %ld/%ld failed with exit code %d", i, o->k,
                    code);
        }
        mbx_tprintf(stderr, "%s%s; its log: %s; %ld finished launch%s kept\n", why[0] ? ": " : "",
                    why, r->log, done, done == 1 ? "" : "es");
        note(r, "stopped", "launch %ld, exit code %d", i, code);
    }
    if (done > 0 && merge_launches(r, done) != 0 && code == 0)
        code = 1;
    return code;
}

/* DIR/repeat.csv: what was run, where and when (the launch is a factor). */
static void record_open(rep *r, const char *self)
{
    static const char *const cols[2] = {"key", "value"};
    char path[4200], host[256] = "", t[40], cmd[8192];
    snprintf(path, sizeof path, "%s/repeat.csv", r->o->dir);
    if (mbx_csv_writer_open(path, cols, 2, &r->record) < 0) {
        mbx_tprintf(stderr, "mpibex repeat: cannot write '%s': %s (going on without it)\n", path,
                    strerror(errno));
        r->record = NULL;
        return;
    }
    gethostname(host, sizeof host - 1);
    stamp(t, sizeof t);
    note(r, "tool", "mpibex %s", MBX_VERSION);
    note(r, "binary", "%s", self);
    note(r, "host", "%s", host);
    note(r, "k", "%ld", r->o->k);
    note(r, "n", "%ld", r->o->n);
    r->argv[r->nwords] = NULL;
    join_command(r->argv, cmd, sizeof cmd);
    r->argv[r->nwords] = (char *)self;
    note(r, "launcher", "%s", cmd);
    note(r, "dir", "%s", r->o->dir);
    note(r, "start", "%s", t);
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
    } else if (rc == 0 && (rc = build_argv(&r, self)) == 0 && (rc = prepare_dir(&r)) == 0) {
        struct sigaction sa, old_int, old_term;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        record_open(&r, self);
        rc = run_all(&r);
        if (r.record) {
            char result[64];
            snprintf(result, sizeof result, rc == 0 ? "ok" : "exit code %d", rc);
            record_close(&r, result);
        }
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
    }
    mbx_output_release(&r.claim);
    free_argv(&r);
    free(o.run);
    return rc;
}
