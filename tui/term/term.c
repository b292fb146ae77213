#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* openpty, TIOCGWINSZ */
#endif
#include "term.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "mbx/status.h"
#include "term_bridge.h"

/* Every mode the explorer (ncurses, or mpibex itself) may turn on, turned
 * off: attributes; the cursor shown; mouse reports in every tracking mode
 * (1000 presses, 1002 drags, 1003 all motion) and every encoding (1005
 * UTF-8, 1006 SGR, 1015 urxvt); bracketed paste; the keypad's transmit
 * mode (rmkx: cursor keys back to normal, keypad back to numeric); and
 * last the alternate screen, so the reset happens on the screen it leaves
 * too. */
static const char reset_seq[] = "\033[0m\033[?25h"
                                "\033[?1000l\033[?1002l\033[?1003l\033[?1005l\033[?1006l\033[?1015l"
                                "\033[?2004l\033[?1l\033>\033[?1049l";

const char *mbx_term_reset_seq(void)
{
    return reset_seq;
}

struct mbx_term {
    const char *kind;
    FILE *in, *out;
    int fd; /* what rank 0 draws to: size queries and emergency resets */
    mbx_term_bridge *bridge;
    pid_t fg_before; /* the foreground group we took the terminal from; 0: none */
};

/* tcsetpgrp from a background group raises SIGTTOU unless it is blocked. */
static int set_foreground(int fd, pid_t pgrp)
{
    sigset_t ttou, old;
    sigemptyset(&ttou);
    sigaddset(&ttou, SIGTTOU);
    sigprocmask(SIG_BLOCK, &ttou, &old);
    int rc = tcsetpgrp(fd, pgrp);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}

/* Under hydra rank 0 has a session of its own, so the user's terminal is
 * not its controlling terminal and job control leaves it alone. Open MPI's
 * mpirun keeps the ranks in the launcher's session, each in a process group
 * of its own: the terminal is then rank 0's controlling terminal, rank 0 a
 * background job on it, and its first read or mode change would stop it
 * (SIGTTIN, SIGTTOU). So it takes the foreground while it draws, and gives
 * it back in release() (the launcher takes it back after a crash). Ctrl-C
 * then reaches rank 0 alone, which winds every rank down. */
static void take_foreground(mbx_term *t, int fd)
{
    pid_t fg = tcgetpgrp(fd); /* fails unless fd is our controlling terminal */
    if (fg > 0 && fg != getpgrp() && set_foreground(fd, getpgrp()) == 0)
        t->fg_before = fg;
}

static FILE *dup_open(int fd, const char *mode)
{
    int fd2 = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    FILE *f = fd2 >= 0 ? fdopen(fd2, mode) : NULL;
    if (!f && fd2 >= 0)
        close(fd2);
    return f;
}

/* Two FILEs on one terminal: ncurses reads keys from one and draws on the
 * other. Takes fd in every case; release() frees what was made. */
static int wrap_fds(mbx_term *t, int fd, const char *kind, char *why, size_t len)
{
    t->kind = kind;
    if (!(t->in = fdopen(fd, "r")))
        close(fd);
    else if ((t->out = dup_open(fd, "w")) != NULL)
        t->fd = fileno(t->out);
    if (!t->out)
        snprintf(why, len, "%s: %s", kind, strerror(errno));
    return t->out ? 0 : -1;
}

static int same_host(void)
{
    const char *launch = getenv("MBX_LAUNCH_HOST");
    char here[256] = "";
    if (!launch || !*launch)
        return 1;
    if (gethostname(here, sizeof here - 1) < 0)
        return 0;
    return strcmp(here, launch) == 0;
}

static int open_tty(mbx_term *t, const char *path, char *why, size_t len)
{
    /* O_NOCTTY: rank 0 is a session leader without a terminal (hydra's
     * setsid); the user's terminal must not become its controlling one. */
    int fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, len, "cannot open the terminal %s: %s", path, strerror(errno));
        return -1;
    }
    if (!isatty(fd)) {
        snprintf(why, len, "%s is not a terminal", path);
        close(fd);
        return -1;
    }
    if (wrap_fds(t, fd, "tty", why, len) < 0)
        return -1;
    take_foreground(t, t->fd);
    return 0;
}

static int open_socket(mbx_term *t, const char *addr, char *why, size_t len)
{
    int slave = -1;
    if (mbx_term_bridge_open(&t->bridge, addr, getenv("MBX_BRIDGE_TOKEN"), &slave, why, len) < 0)
        return -1;
    return wrap_fds(t, slave, "socket", why, len);
}

static void release(mbx_term *t)
{
    if (t->fg_before > 0 && t->in)
        set_foreground(fileno(t->in), t->fg_before);
    /* Slaves first: the relay then reads the last screen bytes (endwin's
     * restore) up to EIO before it stops. */
    if (t->in)
        fclose(t->in);
    if (t->out)
        fclose(t->out);
    mbx_term_bridge_close(t->bridge);
    free(t);
}

static int try_open(mbx_term **out, int (*open_fn)(mbx_term *, const char *, char *, size_t),
                    const char *arg, char *why, size_t len)
{
    mbx_term *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    t->fd = -1;
    if (open_fn(t, arg, why, len) == 0) {
        *out = t;
        return 0;
    }
    release(t);
    return -1;
}

static int open_stdio(mbx_term *t, const char *unused, char *why, size_t len)
{
    (void)unused;
    t->kind = "stdio";
    if ((t->in = dup_open(0, "r")) && (t->out = dup_open(1, "w"))) {
        t->fd = fileno(t->out);
        return 0;
    }
    snprintf(why, len, "stdio: %s", strerror(errno));
    return -1;
}

int mbx_term_open(mbx_term **out, char *msg, size_t msglen)
{
    const char *tty = getenv("MBX_TTY"), *bridge = getenv("MBX_BRIDGE");
    char why[256] = "";
    *out = NULL;
    if (tty && *tty) {
        if (!same_host())
            snprintf(why, sizeof why, "the terminal %s is on host %s, rank 0 is not", tty,
                     getenv("MBX_LAUNCH_HOST"));
        else if (try_open(out, open_tty, tty, why, sizeof why) == 0)
            return MBX_OK;
    }
    /* When both fail, the bridge's reason is the more useful one. */
    if (bridge && *bridge && try_open(out, open_socket, bridge, why, sizeof why) == 0)
        return MBX_OK;
    if (isatty(0) && isatty(1) && try_open(out, open_stdio, NULL, why, sizeof why) == 0)
        return MBX_OK;
    if ((tty && *tty) || (bridge && *bridge)) {
        snprintf(msg, msglen, "%s", why);
        return MBX_E_IO;
    }
    snprintf(msg, msglen,
             "no terminal: rank 0 has none and no launcher named one "
             "(start the explorer with 'mpibex -n N')");
    return MBX_E_UNSUPPORTED;
}

FILE *mbx_term_in(mbx_term *t)
{
    return t->in;
}

FILE *mbx_term_out(mbx_term *t)
{
    return t->out;
}

const char *mbx_term_kind(const mbx_term *t)
{
    return t->kind;
}

int mbx_term_size(mbx_term *t, int *rows, int *cols)
{
    struct winsize ws;
    if (ioctl(t->fd, TIOCGWINSZ, &ws) < 0 || ws.ws_row == 0 || ws.ws_col == 0)
        return MBX_E_IO;
    *rows = ws.ws_row;
    *cols = ws.ws_col;
    return MBX_OK;
}

int mbx_term_lost(mbx_term *t)
{
    if (t->bridge)
        return mbx_term_bridge_lost(t->bridge);
    struct pollfd p = {.fd = fileno(t->in), .events = 0};
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLNVAL));
}

void mbx_term_close(mbx_term *t)
{
    if (t)
        release(t);
}

void mbx_term_emergency_reset(mbx_term *t)
{
    if (t && t->fd >= 0) {
        ssize_t w = write(t->fd, reset_seq, sizeof reset_seq - 1);
        (void)w;
    }
}

void mbx_term_write_status(int code)
{
    mbx_term_write_status_why(code, NULL);
}

void mbx_term_write_status_why(int code, const char *why)
{
    const char *path = getenv("MBX_STATUS_FILE");
    char line[1100];
    if (!path || !*path)
        return;
    int n = snprintf(line, sizeof line, "%d\n%.1024s%s", code, why ? why : "", why ? "\n" : "");
    if (n < 0 || (size_t)n >= sizeof line)
        n = (int)strlen(line);
    /* Opened by name, not through mbx_file_create: the launcher names a
     * file in its private directory (mbx_dir_temp, 0700), where nobody
     * else can put anything. */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return; /* rank 0 on another host: the launcher falls back on mpiexec's status */
    ssize_t w = write(fd, line, (size_t)n);
    (void)w;
    close(fd);
}
