/* Standard output fitted to the terminal (outfit.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fopencookie */
#endif
#include "outfit.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIN_COLS 40
#define LINE_MAX_BYTES 65536 /* longer: written as it comes */

/* The width of the terminal open on fd, or 0. */
static int tty_cols(int fd)
{
    struct winsize ws;
    if (!isatty(fd))
        return 0;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *c = getenv("COLUMNS");
    long v = c && *c ? strtol(c, NULL, 10) : 0;
    return v > 0 && v < 10000 ? (int)v : 80;
}

/* The parent of pid and its command name, from /proc/PID/stat; -1. */
static long parent_of(long pid, char *comm, size_t len)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *open = strchr(buf, '('), *close = strrchr(buf, ')');
    long ppid;
    if (!open || !close || close < open || sscanf(close + 1, " %*c %ld", &ppid) != 1)
        return -1;
    snprintf(comm, len, "%.*s", (int)(close - open - 1), open + 1);
    return ppid;
}

static int is_manager(const char *comm)
{
    static const char *const names[] = {
        "hydra_pmi_proxy", "mpiexec", "mpiexec.hydra", "mpiexec.mpich", "mpirun",
        "mpiexec.openmpi", "orted",   "prterun",       "prted",         "srun",
        "slurmstepd"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(comm, names[i]) == 0)
            return 1;
    return 0;
}

/* What the standard output of process pid is ("/dev/pts/3", "pipe:[..]");
 * 0, or -1 when it cannot be read. */
static int stdout_of(long pid, char *target, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/fd/1", pid);
    ssize_t n = readlink(path, target, len - 1);
    if (n <= 0)
        return -1;
    target[n] = '\0';
    return 0;
}

/* The terminal width of the standard output of process pid, or 0. */
static int proc_stdout_cols(long pid)
{
    char target[PATH_MAX];
    if (stdout_of(pid, target, sizeof target) < 0 ||
        (strncmp(target, "/dev/pts/", 9) != 0 && strncmp(target, "/dev/tty", 8) != 0))
        return 0;
    int fd = open(target, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int cols = tty_cols(fd);
    close(fd);
    return cols;
}

/* Is standard output, a terminal, one the parent process manager made to
 * forward it (Open MPI gives each rank a pseudo-terminal of its own,
 * without a size, and copies it to its own output, which may be a file),
 * rather than a terminal the manager passed on (its own)? */
static int forwarded_tty(void)
{
    char comm[64], mine[PATH_MAX], theirs[PATH_MAX];
    long pid = (long)getppid();
    if (parent_of(pid, comm, sizeof comm) < 0 || !is_manager(comm))
        return 0;
    return stdout_of((long)getpid(), mine, sizeof mine) == 0 &&
           (stdout_of(pid, theirs, sizeof theirs) < 0 || strcmp(mine, theirs) != 0);
}

/* The width of the terminal the process managers above this process
 * write to: the nearest one whose standard output is a terminal; 0. */
static int manager_cols(void)
{
    char comm[64];
    long pid = (long)getppid();
    int cols = 0;
    for (int depth = 0; cols == 0 && pid > 1 && depth < 4; depth++) {
        long up = parent_of(pid, comm, sizeof comm);
        if (up < 0 || !is_manager(comm))
            break;
        cols = proc_stdout_cols(pid);
        pid = up;
    }
    return cols;
}

int mbx_outfit_columns(void)
{
    int cols = tty_cols(STDOUT_FILENO);
    struct stat sb;
    /* A pipe: to a process manager that forwards it, or to a reader (|
     * less, | tee): only the former's own output counts; so it does for a
     * terminal the manager made. */
    if (cols > 0 ? forwarded_tty()
                 : fstat(STDOUT_FILENO, &sb) == 0 && (S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode)))
        cols = manager_cols();
    return cols == 0 ? 0 : cols < MIN_COLS ? MIN_COLS : cols;
}

typedef struct fitter {
    FILE *out; /* the original stdout */
    int cols, failed;
    char *line;
    size_t len, cap;
} fitter;

static fitter fit;

static void put(const char *s, size_t n)
{
    if (n && fwrite(s, 1, n, fit.out) != n)
        fit.failed = 1;
}

/* One line without its newline, wrapped at blanks into fit.cols. */
static void emit(const char *s, size_t n)
{
    int comment = n > 0 && s[0] == '#';
    const char *cont = comment ? "#   " : "    ";
    size_t avail = (size_t)fit.cols;
    int first = 1;
    while (n > avail) {
        size_t cut = avail;
        /* A table row: at two blanks, before its trailing notes ("  5
         * passes over 1.00 s", "  [reason]"), where there are some. */
        while (!comment && cut > avail / 3 && !(s[cut] == ' ' && s[cut - 1] == ' '))
            cut--;
        if (comment || cut <= avail / 3)
            for (cut = avail; cut > avail / 3 && s[cut] != ' ';)
                cut--;
        if (s[cut] != ' ')
            cut = avail; /* one long word: cut it */
        size_t keep = cut;
        while (keep > 0 && s[keep - 1] == ' ')
            keep--;
        if (!first)
            put(cont, 4);
        put(s, keep);
        put("\n", 1);
        while (cut < n && s[cut] == ' ')
            cut++;
        s += cut, n -= cut;
        first = 0;
        avail = (size_t)fit.cols - 4;
    }
    if (!first && n)
        put(cont, 4);
    put(s, n);
    put("\n", 1);
}

static ssize_t fit_write(void *cookie, const char *buf, size_t size)
{
    (void)cookie;
    for (size_t i = 0; i < size; i++) {
        if (buf[i] == '\n') {
            emit(fit.line ? fit.line : "", fit.len);
            fit.len = 0;
            continue;
        }
        if (fit.len == fit.cap) {
            size_t cap = fit.cap ? fit.cap * 2 : 256;
            char *p = cap <= LINE_MAX_BYTES ? realloc(fit.line, cap) : NULL;
            if (!p) { /* a huge line, or no memory: as it comes */
                put(fit.line, fit.len);
                fit.len = 0;
                put(buf + i, 1);
                continue;
            }
            fit.line = p;
            fit.cap = cap;
        }
        fit.line[fit.len++] = buf[i];
    }
    /* Whole lines now: the original stream may be flushed before this one
     * at exit, and a line must not wait in it. */
    if (fflush(fit.out) != 0)
        fit.failed = 1;
    return fit.failed ? -1 : (ssize_t)size;
}

int mbx_outfit_start(int cols)
{
    if (cols <= 0 || fit.out)
        return 0;
    cookie_io_functions_t io = {.write = fit_write};
    FILE *f = fopencookie(NULL, "w", io);
    if (!f)
        return -1;
    setvbuf(f, NULL, _IOLBF, 0);
    fflush(stdout);
    fit.out = stdout;
    fit.cols = cols < MIN_COLS ? MIN_COLS : cols;
    /* glibc's stdout is an assignable FILE *: every printf of the run now
     * goes through fit_write. */
    stdout = f;
    return 0;
}

int mbx_outfit_stop(void)
{
    if (!fit.out)
        return 0;
    fflush(stdout);
    FILE *f = stdout;
    stdout = fit.out;
    if (fit.len)
        put(fit.line, fit.len);
    fclose(f);
    int bad = fit.failed || fflush(stdout) != 0;
    free(fit.line);
    memset(&fit, 0, sizeof fit);
    return bad;
}
