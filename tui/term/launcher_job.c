#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* mkdtemp, gethostname */
#endif
#include "launcher_job.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "bridgeproto.h"
#include "launcher_relay.h"
#include "mbx/dir.h"
#include "mbx/file.h"
#include "term.h"

#define KILL_GRACE_MS 5000 /* SIGTERM to SIGKILL */
#define DRAIN_MS 1000      /* last screen bytes after the job ended */

/* SIGINT and SIGQUIT are caught only to be noted: Ctrl-C on the terminal
 * reaches mpiexec, in our process group, which passes it to every rank;
 * the launcher stays to clean up after them. */
static const int caught[] = {SIGTERM, SIGHUP, SIGWINCH, SIGCHLD, SIGINT, SIGQUIT};
static const int ignored[] = {SIGPIPE, SIGTTOU};
#define NSIGS (sizeof caught / sizeof caught[0] + sizeof ignored / sizeof ignored[0])

static int sig_w = -1; /* the self-pipe the handler writes to */

static void on_signal(int sig)
{
    int saved = errno;
    unsigned char b = (unsigned char)sig;
    ssize_t w = write(sig_w, &b, 1);
    (void)w;
    errno = saved;
}

typedef struct job {
    char log_path[PATH_MAX], status_dir[PATH_MAX], status_path[PATH_MAX + 8];
    int logfd, sig_r;
    struct sigaction old[NSIGS];
    struct termios saved;
    int have_saved;
    pid_t fg; /* the terminal's foreground group at the start; <= 0: none */
    mbx_lrelay *relay;
    pid_t pid;
    int interrupted; /* what stopped the job: Ctrl-C, Ctrl-\\, SIGTERM, SIGHUP; 0 if nothing */
    char why[1100];  /* rank 0's reason for not starting (status file), control bytes as \\xHH */
} job;

/* The log's directory when --log is not given: the state directory (made
 * with every parent, private), else a new private directory in $TMPDIR,
 * said on stderr; never a directory of a shared place that others could
 * have made first. dir gets its path; returns its descriptor, or -1 after
 * saying why on stderr. */
static int log_dir(char *dir, size_t len)
{
    const char *why = NULL, *why_tmp = NULL;
    int fd = -1;
    int rc = mbx_dir_state_path(getenv("XDG_STATE_HOME"), getenv("HOME"), dir, len);
    if (rc == MBX_OK && mbx_dir_make(dir, MBX_DIR_PRIVATE, &fd, &why) == MBX_OK)
        return fd;
    char state[PATH_MAX];
    snprintf(state, sizeof state, "%s", rc == MBX_OK ? dir : "");
    if (rc != MBX_OK)
        why = rc == MBX_E_RANGE ? "the state directory's path is too long"
                                : "HOME is unset and the account has no home directory";
    if (mbx_dir_temp(mbx_dir_tmp(), "mpibex-log-", dir, len, &fd, &why_tmp) != MBX_OK) {
        fprintf(stderr,
                "mpibex: no place for the log: %s%s%s, and no private directory in %s: %s "
                "(choose a file with --log FILE)\n",
                state[0] ? state : "", state[0] ? ": " : "", why, mbx_dir_tmp(), why_tmp);
        return -1;
    }
    fprintf(stderr, "mpibex: %s%s%s%s; the log goes to the private directory %s\n",
            state[0] ? "cannot use the state directory " : "", state, state[0] ? ": " : "", why,
            dir);
    return fd;
}

static int open_log(job *j, const char *given)
{
    if (given) {
        snprintf(j->log_path, sizeof j->log_path, "%s", given);
        /* Continued only when it is a regular file of ours, else a new
         * file (0600) renamed into place: never another user's file or
         * FIFO made beforehand in a shared directory (docs/hardening.md). */
        off_t size;
        if (mbx_file_open_mode(j->log_path, 1, 0600, &j->logfd, &size) != MBX_OK)
            j->logfd = -1;
        else /* lines of the launcher and its children go to its end */
            (void)fcntl(j->logfd, F_SETFL, fcntl(j->logfd, F_GETFL) | O_APPEND);
    } else {
        char dir[PATH_MAX - 64], name[64], stamp[32];
        int dfd = log_dir(dir, sizeof dir);
        if (dfd < 0)
            return 1;
        time_t t = time(NULL);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&t));
        snprintf(name, sizeof name, "explore-%s-%ld.log", stamp, (long)getpid());
        snprintf(j->log_path, sizeof j->log_path, "%s/%s", dir, name);
        /* By name, not mbx_file_create: dfd is a private directory of
         * ours (log_dir), where nobody else can put a file first. */
        j->logfd = openat(dfd, name, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        int err = errno;
        close(dfd);
        errno = err;
    }
    if (j->logfd >= 0)
        return 0;
    if (given) {
        fprintf(stderr, "mpibex: --log: cannot open '%s': %s; allowed a writable file of yours\n",
                j->log_path, mbx_file_why(errno));
        return 2;
    }
    fprintf(stderr, "mpibex: cannot open the log '%s': %s (choose another with --log FILE)\n",
            j->log_path, strerror(errno));
    return 1;
}

static int make_status_dir(job *j)
{
    const char *why = NULL;
    if (mbx_dir_temp(mbx_dir_tmp(), "mpibex-", j->status_dir, sizeof j->status_dir, NULL, &why) !=
        MBX_OK) {
        fprintf(stderr, "mpibex: cannot create a private directory in %s: %s\n", mbx_dir_tmp(),
                why);
        j->status_dir[0] = '\0';
        return -1;
    }
    snprintf(j->status_path, sizeof j->status_path, "%s/status", j->status_dir);
    return 0;
}

static int status_file(const char *name, void *ud)
{
    (void)ud;
    return strcmp(name, "status") == 0;
}

/* Rank 0's exit code, or -1 when it wrote none (crashed, killed, another
 * host). Removes the file and its directory. */
static int take_status(job *j)
{
    char buf[1100] = "";
    int code = -1;
    if (!j->status_dir[0])
        return -1;
    int fd = open(j->status_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, buf, sizeof buf - 1);
        buf[n > 0 ? n : 0] = '\0';
        char *end;
        long v = n > 0 ? strtol(buf, &end, 10) : -1;
        if (n > 0 && end != buf && (*end == '\n' || *end == '\0') && v >= 0 && v <= 255) {
            code = (int)v;
            /* The second line, if any: why rank 0 did not start. */
            const char *w = *end == '\n' ? end + 1 : end;
            size_t k = 0;
            for (; *w && *w != '\n' && k + 5 < sizeof j->why; w++) {
                unsigned char c = (unsigned char)*w;
                if (c < 0x20 || c == 0x7f)
                    k += (size_t)snprintf(j->why + k, sizeof j->why - k, "\\x%02x", c);
                else
                    j->why[k++] = (char)c;
            }
            j->why[k] = '\0';
        }
        close(fd);
    }
    const char *why = NULL;
    if (mbx_dir_remove(AT_FDCWD, j->status_dir, MBX_DIR_PRIVATE | MBX_DIR_MISSING_OK, status_file,
                       NULL, &why) != MBX_OK)
        dprintf(j->logfd, "mpibex: left '%s' in place: %s\n", j->status_dir, why);
    return code;
}

static int setup_signals(job *j)
{
    int p[2];
    if (pipe(p) < 0)
        return -1;
    for (int i = 0; i < 2; i++) {
        fcntl(p[i], F_SETFD, FD_CLOEXEC);
        fcntl(p[i], F_SETFL, O_NONBLOCK);
    }
    j->sig_r = p[0];
    sig_w = p[1];
    size_t k = 0;
    struct sigaction sa = {0};
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sa.sa_handler = on_signal;
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
        sigaction(caught[i], &sa, &j->old[k++]);
    sa.sa_handler = SIG_IGN;
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
        sigaction(ignored[i], &sa, &j->old[k++]);
    return 0;
}

static void restore_signals(job *j)
{
    size_t k = 0;
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
        sigaction(caught[i], &j->old[k++], NULL);
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
        sigaction(ignored[i], &j->old[k++], NULL);
    close(j->sig_r);
    close(sig_w);
    sig_w = -1;
}

static pid_t spawn(char **argv, int logfd)
{
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC), ep[2], err = 0;
    if (devnull < 0 || pipe(ep) < 0) {
        fprintf(stderr, "mpibex: cannot start the job: %s\n", strerror(errno));
        return -1;
    }
    fcntl(ep[0], F_SETFD, FD_CLOEXEC);
    fcntl(ep[1], F_SETFD, FD_CLOEXEC);
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old); /* no handler of ours may run in the child */
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        for (int s = 1; s < NSIG; s++)
            signal(s, SIG_DFL);
        sigprocmask(SIG_SETMASK, &old, NULL);
        /* Killing the launcher outright must still take the job down. */
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
            _exit(127);
        if (dup2(devnull, 0) < 0 || dup2(logfd, 1) < 0 || dup2(logfd, 2) < 0)
            _exit(127);
        execvp(argv[0], argv);
        err = errno;
        ssize_t w = write(ep[1], &err, sizeof err);
        (void)w;
        _exit(127);
    }
    int fork_err = errno;
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(ep[1]);
    close(devnull);
    if (pid < 0) {
        close(ep[0]);
        fprintf(stderr, "mpibex: cannot start the job: %s\n", strerror(fork_err));
        return -1;
    }
    ssize_t n;
    while ((n = read(ep[0], &err, sizeof err)) < 0 && errno == EINTR)
        ;
    close(ep[0]);
    if (n == (ssize_t)sizeof err) {
        waitpid(pid, NULL, 0);
        fprintf(stderr, "mpibex: cannot run '%s': %s\n", argv[0], strerror(err));
        return -1;
    }
    return pid;
}

/* Sends sig to every live descendant of this process (found through the
 * parent links in /proc) and returns how many there were. The launcher is
 * a child subreaper, so descendants orphaned on the way are still ours;
 * signalling the process group instead would hit the launcher itself and
 * whatever script started it, which share the group with mpiexec. */
static int signal_descendants(int sig)
{
    struct proc {
        pid_t pid, ppid;
        int mine;
    } *ps = NULL;
    size_t n = 0, cap = 0;
    int count = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        char path[64], buf[512], state = 0, *rp;
        int ppid = 0;
        long pid = strtol(e->d_name, &rp, 10);
        if (*rp != '\0' || pid <= 0)
            continue;
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        FILE *f = fopen(path, "r");
        size_t got = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        if (f)
            fclose(f);
        buf[got] = '\0';
        char *close_paren = strrchr(buf, ')'); /* the command name may hold anything */
        if (!close_paren || sscanf(close_paren + 1, " %c %d", &state, &ppid) != 2 || state == 'Z')
            continue;
        if (n == cap) {
            struct proc *grown = realloc(ps, (cap = cap ? 2 * cap : 256) * sizeof *ps);
            if (!grown)
                break;
            ps = grown;
        }
        ps[n++] = (struct proc){(pid_t)pid, (pid_t)ppid, 0};
    }
    if (d)
        closedir(d);
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = 0; i < n; i++) {
            if (ps[i].mine)
                continue;
            int mine = ps[i].ppid == getpid();
            for (size_t k = 0; k < n && !mine; k++)
                mine = ps[k].mine && ps[k].pid == ps[i].ppid;
            if (mine)
                ps[i].mine = changed = 1;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (ps[i].mine && (sig == 0 || kill(ps[i].pid, sig) == 0))
            count++;
    free(ps);
    return count;
}

static void reap_all(void)
{
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
}

/* Never leave a child running: whatever outlived the launcher command
 * gets SIGTERM, then SIGKILL a second later. */
static void sweep(void)
{
    reap_all();
    if (signal_descendants(SIGTERM) == 0)
        return;
    for (int i = 0; i < 10 && signal_descendants(0) > 0; i++) {
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
        reap_all();
    }
    if (signal_descendants(SIGKILL) > 0)
        for (int i = 0; i < 20 && signal_descendants(0) > 0; i++) {
            struct timespec ts = {0, 50000000};
            nanosleep(&ts, NULL);
            reap_all();
        }
    reap_all();
}

/* Waits for the job, acting on signals and relaying. Returns its wait status. */
static int wait_job(job *j)
{
    long long kill_at = 0;
    int status = 0;
    for (;;) {
        struct pollfd p[1 + MBX_LRELAY_NFDS];
        int n = 1, timeout = -1;
        p[0] = (struct pollfd){.fd = j->sig_r, .events = POLLIN};
        if (j->relay) {
            mbx_lrelay_pollfds(j->relay, p + 1, &timeout);
            n += MBX_LRELAY_NFDS;
        }
        if (kill_at) {
            long long left = kill_at - mbx_bridge_now_ms();
            timeout = left <= 0 ? 0 : (timeout < 0 || left < timeout ? (int)left : timeout);
        }
        if (poll(p, (nfds_t)n, timeout) < 0)
            for (int i = 0; i < n; i++)
                p[i].revents = 0;
        unsigned char sigs[64];
        ssize_t got = (p[0].revents & POLLIN) ? read(j->sig_r, sigs, sizeof sigs) : 0;
        for (ssize_t i = 0; i < got; i++) {
            if ((sigs[i] == SIGTERM || sigs[i] == SIGHUP) && !kill_at) {
                dprintf(j->logfd, "mpibex: launcher got signal %d, stopping the job\n", sigs[i]);
                kill(j->pid, SIGTERM);
                kill_at = mbx_bridge_now_ms() + KILL_GRACE_MS;
                j->interrupted = sigs[i];
            } else if (sigs[i] == SIGWINCH && j->relay) {
                mbx_lrelay_winch(j->relay);
            } else if (sigs[i] == SIGINT || sigs[i] == SIGQUIT) {
                j->interrupted = sigs[i];
            }
        }
        if (j->relay && mbx_lrelay_handle(j->relay, p + 1) > 0) {
            kill(j->pid, SIGINT);
            j->interrupted = SIGINT;
        }
        for (pid_t w; (w = waitpid(-1, &status, WNOHANG)) > 0;)
            if (w == j->pid)
                return status;
        if (kill_at && mbx_bridge_now_ms() >= kill_at) {
            dprintf(j->logfd, "mpibex: the job ignored SIGTERM for %d s, killing it\n",
                    KILL_GRACE_MS / 1000);
            signal_descendants(SIGKILL);
            kill_at = 0;
        }
    }
}

static int exit_code(int rank0, int status, int interrupted)
{
    if (rank0 >= 0)
        return rank0;
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    /* After Ctrl-C or SIGTERM hydra sometimes exits 0 though rank 0 never
     * finished; a job we stopped did not succeed. */
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && interrupted)
        return 128 + interrupted;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* When rank 0 could not report (a rank crashed or was killed, and the MPI
 * launcher took the job down): one line saying so, with the launcher's own
 * verdict from the end of the log when it left one (hydra: "YOUR
 * APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal 9)"). */
static void say_job_failed(const job *j, int status, int code)
{
    static const char mark[] = "EXIT STRING: ";
    char tail[4097] = "", verdict[128] = "", how[64];
    int fd = open(j->log_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        off_t end = lseek(fd, 0, SEEK_END), from = end > 4096 ? end - 4096 : 0;
        ssize_t n = end > 0 ? pread(fd, tail, (size_t)(end - from), from) : 0;
        tail[n > 0 ? n : 0] = '\0';
        close(fd);
    }
    const char *v = NULL;
    for (const char *p = tail; (p = strstr(p, mark)) != NULL; p += sizeof mark - 1)
        v = p + sizeof mark - 1; /* the last one */
    if (v)
        snprintf(verdict, sizeof verdict, ": \"%.*s\"", (int)strcspn(v, "\r\n"), v);
    if (WIFSIGNALED(status))
        snprintf(how, sizeof how, "killed by signal %d", WTERMSIG(status));
    else
        snprintf(how, sizeof how, "exit code %d", WIFEXITED(status) ? WEXITSTATUS(status) : code);
    fprintf(stderr,
            "mpibex: the job ended before rank 0 could report (the MPI launcher's %s%s): a rank "
            "crashed or was killed; the log has every rank's output\n",
            how, verdict);
}

static int offer_bridges(job *j, const mbx_ljob_spec *s)
{
    char host[256] = "", token[MBX_BRIDGE_TOKEN_CHARS + 1], advert[320], why[256];
    const char *tty = s->tty ? ttyname(0) : NULL;
    gethostname(host, sizeof host - 1);
    setenv("MBX_LAUNCHED", "1", 1);
    setenv("MBX_LAUNCH_HOST", host, 1);
    setenv("MBX_STATUS_FILE", j->status_path, 1);
    if (tty)
        setenv("MBX_TTY", tty, 1);
    else
        unsetenv("MBX_TTY");
    unsetenv("MBX_BRIDGE");
    unsetenv("MBX_BRIDGE_TOKEN");
    if (!s->socket)
        return 0;
    if (mbx_bridge_token_new(token) < 0) {
        fprintf(stderr, "mpibex: no randomness for the bridge token\n");
        return 1;
    }
    if (mbx_lrelay_open(&j->relay, s->bridge_addr, token, j->logfd, advert, sizeof advert, why,
                        sizeof why) < 0) {
        if (!s->bridge_addr) {
            fprintf(stderr, "mpibex: cannot listen for the bridge: %s\n", why);
            return 1;
        }
        fprintf(stderr,
                "mpibex: --bridge-addr: cannot listen on '%s': %s; allowed an address "
                "of this host\n",
                s->bridge_addr, why);
        return 2;
    }
    setenv("MBX_BRIDGE", advert, 1);
    setenv("MBX_BRIDGE_TOKEN", token, 1);
    memset(token, 0, sizeof token);
    return 0;
}

/* What rank 0 reads from its environment: the variables offer_bridges
 * sets, and the terminal's type and locale. */
static const char *const rank0_vars[] = {"MBX_LAUNCHED", "MBX_LAUNCH_HOST", "MBX_STATUS_FILE",
                                         "MBX_TTY",      "MBX_BRIDGE",      "MBX_BRIDGE_TOKEN",
                                         "TERM",         "NO_COLOR",        "LANG",
                                         "LC_ALL",       "LC_CTYPE"};
#define NVARS (sizeof rank0_vars / sizeof rank0_vars[0])

/* s->argv with "-x NAME" after the launcher's words for each of rank0_vars
 * that is set, for Open MPI's mpirun (by name only: "-x NAME=value" would
 * show the bridge token to ps). The array is new, the words are s->argv's:
 * free the array only. NULL when out of memory. */
static char **with_env_names(const mbx_ljob_spec *s)
{
    size_t n = 0, k = 0;
    while (s->argv[n])
        n++;
    char **argv = calloc(n + 2 * NVARS + 1, sizeof *argv);
    if (!argv)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (i == (size_t)s->nwords)
            for (size_t v = 0; v < NVARS; v++)
                if (getenv(rank0_vars[v])) {
                    argv[k++] = "-x";
                    argv[k++] = (char *)rank0_vars[v];
                }
        argv[k++] = s->argv[i];
    }
    return argv;
}

int mbx_ljob_run(const mbx_ljob_spec *s)
{
    job j = {.logfd = -1, .sig_r = -1, .pid = -1};
    int code = 1, status = 0, started = 0, signals = 0;
    /* Saved before anything runs: in tty mode rank 0 changes the modes of
     * this very device and may die before it can put them back. */
    j.have_saved = tcgetattr(0, &j.saved) == 0;
    j.fg = tcgetpgrp(0);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    if ((code = open_log(&j, s->log_path)) != 0)
        return code;
    int ready = make_status_dir(&j) == 0 ? offer_bridges(&j, s) : 1;
    char **argv = s->argv, **named = NULL;
    if (ready == 0 && s->pass_env && (named = with_env_names(s)) != NULL)
        argv = named;
    code = ready != 0 ? ready : 1;
    if (ready == 0 && (signals = (setup_signals(&j) == 0))) {
        dprintf(j.logfd, "mpibex: starting:");
        for (char **a = argv; *a; a++)
            dprintf(j.logfd, " %s", *a);
        dprintf(j.logfd, "\n");
        j.pid = spawn(argv, j.logfd);
        if (j.pid > 0) {
            started = 1;
            status = wait_job(&j);
        } else {
            code = 127;
        }
    }
    long crowded = 0;
    if (j.relay) {
        mbx_lrelay_drain(j.relay, DRAIN_MS);
        if (!mbx_lrelay_used(j.relay))
            crowded = mbx_lrelay_crowded(j.relay);
        mbx_lrelay_close(j.relay);
    }
    sweep();
    if (j.have_saved)
        tcsetattr(0, TCSANOW, &j.saved); /* SIGTTOU still ignored: works from the background */
    /* Under Open MPI rank 0 takes the foreground of this terminal (term.c);
     * one that died holding it leaves it to a group that is gone. */
    if (j.fg > 0 && tcgetpgrp(0) != j.fg)
        tcsetpgrp(0, j.fg);
    if (signals)
        restore_signals(&j);
    int rank0 = take_status(&j);
    if (started) {
        if (rank0 < 0 || WIFSIGNALED(status)) {
            int fd = isatty(1) ? 1 : 0;
            const char *reset = mbx_term_reset_seq();
            ssize_t w = write(fd, reset, strlen(reset));
            (void)w;
        }
        code = exit_code(rank0, status, j.interrupted);
        dprintf(j.logfd, "mpibex: job ended, exit code %d\n", code);
        if (rank0 < 0 && !j.interrupted)
            say_job_failed(&j, status, code);
        else if (rank0 >= 0 && j.why[0])
            fprintf(stderr, "mpibex: %s\n", j.why); /* rank 0's own words went to the log */
        if (crowded > 0)
            fprintf(stderr,
                    "mpibex: the bridge's port was crowded: %ld waiting connections were dropped "
                    "to make room, and rank 0 never got through; the log names their addresses\n",
                    crowded);
    }
    free(named);
    close(j.logfd);
    fprintf(stderr, "mpibex: log: %s\n", j.log_path);
    return code;
}
