/* `mpibex repeat`: the launch processes. The launch command (launcher
 * words, this binary's `run`, -o and --raw), starting a launch in its own
 * process group, waiting for it while passing on SIGINT and SIGTERM, and
 * the command as a shell line for the record. */
#include "repeat_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher.h"
#include "mbx/file.h"
#include "mbx/version.h"

extern char **environ;

#define MAX_WORDS 130     /* launcher words, as the explorer's launcher allows */
#define KILL_GRACE_S 15.0 /* after the first forwarded signal, then SIGKILL */

static volatile sig_atomic_t got_signal, signal_count;

static void on_signal(int sig)
{
    got_signal = sig;
    signal_count = signal_count + 1;
}

/* The signal that stopped the repeat (SIGINT or SIGTERM, the last one
 * caught), 0 while none came. */
int mbx_repeat_signal(void)
{
    return signal_count ? (int)got_signal : 0;
}

static struct sigaction old_int, old_term;

/* on: catch SIGINT and SIGTERM for the repeat (wait_launch passes them on
 * to the launch); 0: put back what was there before. */
void mbx_repeat_catch_signals(int on)
{
    if (!on) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        return;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
}

/* launcher words, SELF run [run options] -o CSV --raw */
int mbx_repeat_build_argv(rep *r, const char *self)
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
                                     : mbx_launcher_default());
    r->argv[k++] = (char *)self;
    r->argv[k++] = "run";
    for (int i = 0; i < o->nrun; i++)
        r->argv[k++] = o->run[i];
    r->argv[k++] = "-o";
    r->argv[k++] = r->csv; /* each launch's name is written there */
    r->argv[k++] = "--raw";
    /* A launch's interval is its own: the launches are what a profile
     * is made of (mpibex calibrate), never widened by one. */
    int named = 0;
    for (int i = 0; i < o->nrun; i++)
        named |= strncmp(o->run[i], "--profile", 9) == 0;
    if (!named) {
        r->argv[k++] = "--profile";
        r->argv[k++] = "none";
    }
    r->argv[k] = NULL;
    r->width = o->k < 100 ? 2 : 3;
    return 0;
}

void mbx_repeat_free_argv(rep *r)
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
void mbx_repeat_join_command(char *const *argv, char *buf, size_t len)
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

double mbx_repeat_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Start the launch: stdin /dev/null, stdout and stderr to its log, in a
 * process group of its own so that Ctrl-C reaches it once, through us.
 * Returns 0 or an errno. */
int mbx_repeat_spawn_launch(rep *r, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, def;
    sigemptyset(&none);
    sigemptyset(&def);
    sigaddset(&def, SIGINT);
    sigaddset(&def, SIGTERM);
    sigaddset(&def, SIGPIPE);
    /* The launch's log is made here as every output file is
     * (mbx_file_create), and handed to the child open. */
    int logfd;
    if (mbx_file_create(r->log, 0666, &logfd) != MBX_OK)
        return errno;
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc != 0) {
        close(logfd);
        return rc;
    }
    if ((rc = posix_spawnattr_init(&at)) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        close(logfd);
        return rc;
    }
    if (!rc)
        rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (!rc)
        rc = posix_spawn_file_actions_adddup2(&fa, logfd, 1);
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
    close(logfd);
    return rc;
}

/* Wait for the launch, passing on every SIGINT and SIGTERM we get; a
 * launch that still runs KILL_GRACE_S after the first is killed. Returns
 * the exit code (128 + signal when killed by one). */
int mbx_repeat_wait_launch(pid_t pid)
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
                kill_at = mbx_repeat_now_s() + KILL_GRACE_S;
        }
        if (kill_at > 0 && mbx_repeat_now_s() > kill_at) {
            kill(-pid, SIGKILL);
            kill_at = -1;
        }
        nanosleep(&tick, NULL);
    }
}
