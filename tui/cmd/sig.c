#include "sig.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t mbx_stop_signal;

static volatile sig_atomic_t watching, told, own, stopping;
static struct timespec stopped_at; /* written once, before stopping is set */
static int checked;

/* A repeat of a stop signal within this long of the first is the same stop
 * delivered twice, not a user's second one: Slurm signals the processes
 * of a job and of its step when a time limit ends the job (both
 * "CANCELLED" lines, the same millisecond), and rank 0 died of the second
 * SIGTERM before it could write its note. A user's second signal comes
 * after the "hung" line, which waits a second. */
#define REPEAT_GRACE_NS 500000000L

static void on_stop(int sig)
{
    own = sig;
    if (!mbx_stop_signal)
        mbx_stop_signal = sig;
    if (sig == SIGPIPE)
        return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!stopping) {
        stopped_at = now;
        stopping = 1;
        if (watching)
            alarm(1);
        return;
    }
    long long ns = (long long)(now.tv_sec - stopped_at.tv_sec) * 1000000000LL +
                   (now.tv_nsec - stopped_at.tv_nsec);
    if (ns >= REPEAT_GRACE_NS) { /* the second stop: end now, as the signal would */
        signal(sig, SIG_DFL);
        raise(sig);
    }
}

/* Async-signal-safe: a decimal number into buf (at least 12 bytes). */
static size_t put_int(char *buf, long v)
{
    char tmp[24];
    size_t n = 0, len = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0 && n < sizeof tmp);
    while (n > 0)
        buf[len++] = tmp[--n];
    return len;
}

static void add(char *buf, size_t *len, size_t cap, const char *s)
{
    for (; *s && *len < cap; s++)
        buf[(*len)++] = *s;
}

/* Still running a second after the stop: the point in flight waits inside
 * MPI for a rank that does not answer. Only write(2) here. */
static void on_watch(int sig)
{
    (void)sig;
    if (!watching || !mbx_stop_signal)
        return;
    char line[400];
    size_t len = 0;
    add(line, &len, sizeof line, "mpibex: signal ");
    len += put_int(line + len, (long)mbx_stop_signal);
    add(line, &len, sizeof line,
        " noted, but the point in flight has not returned within a second: it is hung inside "
        "MPI (a rank stopped or lost?); end the run with a second Ctrl-C or kill -TERM ");
    len += put_int(line + len, (long)getpid());
    add(line, &len, sizeof line, "\n");
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
}

void mbx_sig_catch(int stop)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, NULL); /* every time: writes fail with EPIPE */
    if (!stop)
        return;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

void mbx_sig_watch(int on)
{
    if (on) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_watch;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGALRM, &sa, NULL);
        watching = 1;
        return;
    }
    watching = 0;
    alarm(0);
}

void mbx_sig_reported(void)
{
    told = 1;
}

int mbx_sig_check_stdout(int code)
{
    if (checked)
        return code;
    checked = 1;
    errno = 0;
    int flushed = fflush(stdout) == 0, err = errno;
    if (flushed && !ferror(stdout))
        return code;
    if (err == 0 || flushed)
        err = mbx_stop_signal == SIGPIPE ? EPIPE : EIO;
    if (err == EPIPE) {
        if (!told)
            fprintf(stderr,
                    "mpibex: stopped by signal %d: standard output was closed (its reader "
                    "left); the output was cut short\n",
                    SIGPIPE);
        return code ? code : 128 + SIGPIPE;
    }
    fprintf(stderr, "mpibex: writing standard output failed: %s\n", strerror(err));
    return code ? code : 1;
}

int mbx_sig_late(int code, int say, const char *done)
{
    int sig = (int)mbx_stop_signal;
    if (code != 0 || (sig != SIGINT && sig != SIGTERM && sig != SIGHUP))
        return code;
    if (say && !told)
        fprintf(stderr, "mpibex: stopped by signal %d after the work was done: %s\n", sig,
                done ? done : "nothing was cut short");
    told = 1;
    fflush(stderr);
    return 128 + sig;
}

int mbx_sig_from_rank(int rank)
{
    if (rank <= 0)
        return -1;
    /* hydra forwards a signal to every rank: rank 1's may be carried to
     * rank 0 just before rank 0's own arrives. Then it was not rank 1's. */
    for (int i = 0; i < 10 && !own; i++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return own ? -1 : rank;
}

void mbx_sig_sleep(double seconds)
{
    time_t whole = (time_t)seconds;
    struct timespec ts = {whole, (long)((seconds - (double)whole) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && !mbx_stop_signal)
        ;
}
