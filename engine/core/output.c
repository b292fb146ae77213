#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* S_ISVTX */
#endif
#include "mbx/output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mbx/csvio.h"

#define DIR_LOCK ".mpibex.lock"

static int say(char *msg, size_t len, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int say(char *msg, size_t len, int rc, const char *fmt, ...)
{
    if (msg != NULL && len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, len, fmt, ap);
        va_end(ap);
    }
    return rc;
}

static const char *kind_of(mode_t m)
{
    if (S_ISFIFO(m))
        return "a FIFO (named pipe)";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISREG(m))
        return "a regular file";
    return "not a regular file";
}

static int null_dev(const struct stat *st)
{
    struct stat nul;
    return S_ISCHR(st->st_mode) && stat("/dev/null", &nul) == 0 && S_ISCHR(nul.st_mode) &&
           st->st_rdev == nul.st_rdev;
}

int mbx_output_is_null(const char *path)
{
    struct stat st;
    return path != NULL && lstat(path, &st) == 0 && null_dev(&st);
}

/* What a file output may be instead of a regular file, for messages. */
static const char *file_allowed(unsigned flags)
{
    if ((flags & MBX_OUTPUT_ALLOW_STDOUT) && (flags & MBX_OUTPUT_ALLOW_DISCARD))
        return "a regular file, '-' for standard output, or /dev/null to discard";
    if (flags & MBX_OUTPUT_ALLOW_STDOUT)
        return "a regular file, or '-' for standard output";
    if (flags & MBX_OUTPUT_ALLOW_DISCARD)
        return "a regular file, or /dev/null to discard";
    return "a regular file";
}

/* The directory part of path ("." when none). */
static void dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(dir, len, ".");
    else if (slash == path)
        snprintf(dir, len, "/");
    else
        snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* The other run's PID and host from its lock file. It writes them right
 * after it got the lock, so an empty file is read again for a moment. */
static pid_t read_holder(int fd, char *host, size_t hostlen)
{
    host[0] = '\0';
    for (int tries = 0; tries < 40; tries++) {
        char buf[320];
        ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
        if (n > 0) {
            buf[n] = '\0';
            long pid = 0;
            char h[256] = "";
            if (sscanf(buf, "%ld %255s", &pid, h) >= 1 && pid > 0) {
                /* The file is anyone's to write: only a plain host name
                 * reaches a message. */
                if (strspn(h,
                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") ==
                    strlen(h))
                    snprintf(host, hostlen, "%s", h);
                return (pid_t)pid;
            }
        }
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

static int lock_busy(const mbx_output_req *req, const char *opt, mbx_output *out, int fd, char *msg,
                     size_t msglen)
{
    char host[256], me[256] = "";
    out->holder = read_holder(fd, host, sizeof host);
    (void)gethostname(me, sizeof me - 1);
    char who[320] = "";
    if (out->holder > 0 && host[0] != '\0' && strcmp(host, me) != 0)
        snprintf(who, sizeof who, " (PID %ld on %s)", (long)out->holder, host);
    else if (out->holder > 0)
        snprintf(who, sizeof who, " (PID %ld)", (long)out->holder);
    return say(msg, msglen, MBX_E_BUSY,
               "%s: '%s' is in use by another run%s; wait for it to end, or choose another %s", opt,
               req->path, who, opt);
}

/* An existing file of the output (or its lock) that another user owns:
 * they could read and change the results later, or have made it a hard
 * link to a file of ours. Writing into it is refused, as writing through
 * a symbolic link is. */
static int foreign(const struct stat *st)
{
    return st->st_uid != geteuid();
}

/* Take the exclusive lock on out->lock_path. The holder removes the file
 * when it is done; a file we opened just before that is no longer at the
 * path once we hold its lock, so we open again. */
static int take_lock(const mbx_output_req *req, const char *opt, mbx_output *out, char *msg,
                     size_t msglen)
{
    for (int tries = 0; tries < 10; tries++) {
        /* The one file opened by its own name, not made new and renamed
         * (mbx/file.h): two runs must meet at the same file to lock it. So
         * what is there is checked on the descriptor, below; O_RDWR does
         * not wait on a FIFO. */
        int fd = open(out->lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0) {
            int err = errno;
            if (err == ELOOP)
                return say(msg, msglen, MBX_E_INVAL,
                           "%s: the lock file '%s' is a symbolic link; mpibex never writes "
                           "through one (remove it)",
                           opt, out->lock_path);
            return say(msg, msglen, MBX_E_IO, "%s: cannot create the lock file '%s': %s", opt,
                       out->lock_path, strerror(err));
        }
        struct stat fs, ps;
        if (fstat(fd, &fs) != 0 || !S_ISREG(fs.st_mode)) {
            close(fd);
            return say(msg, msglen, MBX_E_INVAL, "%s: the lock file '%s' is %s; remove it", opt,
                       out->lock_path, kind_of(fs.st_mode));
        }
        if (foreign(&fs)) {
            close(fd);
            return say(msg, msglen, MBX_E_INVAL,
                       "%s: the lock file '%s' belongs to another user (uid %ld); choose "
                       "another %s",
                       opt, out->lock_path, (long)fs.st_uid, opt);
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int err = errno;
            int rc = err == EWOULDBLOCK ? lock_busy(req, opt, out, fd, msg, msglen)
                                        : say(msg, msglen, MBX_E_IO, "%s: cannot lock '%s': %s",
                                              opt, out->lock_path, strerror(err));
            close(fd);
            return rc;
        }
        if (lstat(out->lock_path, &ps) != 0 || ps.st_dev != fs.st_dev || ps.st_ino != fs.st_ino) {
            close(fd);
            continue;
        }
        /* A file of that name that is not a lock of ours is the user's:
         * it is neither written over nor removed. */
        char old[64];
        ssize_t got = pread(fd, old, sizeof old - 1, 0);
        long opid;
        if (got > 0) {
            old[got] = '\0';
            if (sscanf(old, "%ld", &opid) != 1 || opid <= 0 ||
                memchr(old, '\n', (size_t)got) == NULL) {
                close(fd);
                return say(msg, msglen, MBX_E_INVAL,
                           "%s: '%s' exists and is not an mpibex lock file; remove it, or choose "
                           "another %s",
                           opt, out->lock_path, opt);
            }
        }
        /* The PID is for the other run's message only: on a full disk the
         * lock still holds, and the run's own writes report the disk. */
        char me[256] = "", line[320];
        (void)gethostname(me, sizeof me - 1);
        int n = snprintf(line, sizeof line, "%ld %s\n", (long)getpid(), me[0] ? me : "-");
        if (ftruncate(fd, 0) == 0 && pwrite(fd, line, (size_t)n, 0) != n)
            (void)ftruncate(fd, 0);
        out->lock_fd = fd;
        out->lock_dev = fs.st_dev;
        out->lock_ino = fs.st_ino;
        return MBX_OK;
    }
    return say(msg, msglen, MBX_E_BUSY,
               "%s: '%s' is in use by other runs that keep replacing its lock", opt, req->path);
}

/* Is `path` (which may not exist) the same file as one of the inputs? */
static const char *an_input(const mbx_output_req *req, const char *path)
{
    struct stat p, in;
    int have = stat(path, &p) == 0;
    for (size_t i = 0; i < req->ninputs; i++) {
        const char *f = req->inputs[i];
        if (f == NULL)
            continue;
        if (strcmp(f, path) == 0 ||
            (have && stat(f, &in) == 0 && in.st_dev == p.st_dev && in.st_ino == p.st_ino))
            return f;
    }
    return NULL;
}

static int check_input(const mbx_output_req *req, const char *opt, const char *path, char *msg,
                       size_t msglen)
{
    const char *in = an_input(req, path);
    if (in == NULL)
        return MBX_OK;
    const char *what = req->input_what ? req->input_what : "an input";
    if (strcmp(path, req->path) == 0 && req->input_what == NULL)
        return say(msg, msglen, MBX_E_INVAL, "%s: the output '%s' is also an input", opt,
                   req->path);
    if (strcmp(path, req->path) == 0)
        return say(msg, msglen, MBX_E_INVAL,
                   "%s: the output '%s' is %s ('%s'); mpibex never writes over its input, not "
                   "even with --force: choose another %s",
                   opt, req->path, what, in, opt);
    return say(msg, msglen, MBX_E_INVAL,
               "%s: '%s' would be written beside '%s', and it is %s ('%s'); choose another %s", opt,
               path, req->path, what, in, opt);
}

/* Every suffix mpibex gives a file it writes beside an output
 * (mbx_csv_sidecar): the lock, the journal and the sidecars of every
 * command, not only of the one claiming. A new sidecar goes here too. */
static const char *const reserved[] = {".lock",        ".journal",   ".env.csv", ".obs.csv",
                                       ".summary.csv", ".probe.csv", NULL};

static const char *ends_in(const char *path, const char *suffix)
{
    size_t n = strlen(path), k = strlen(suffix);
    return k > 0 && n > k && strcmp(path + n - k, suffix) == 0 && path[n - k - 1] != '/' ? suffix
                                                                                         : NULL;
}

/* An output named like a file written beside another output (a.env.csv is
 * where `-o a.csv` puts its environment, a.lock its lock) would have its
 * results replaced by that other run, or replace its lock, and the two
 * claims take different locks. So no output name ends in one of those
 * suffixes: then the files of two claims are the same only when their
 * stems, and so their locks, are. */
static const char *reserved_suffix(const mbx_output_req *req)
{
    const char *s = NULL;
    for (size_t i = 0; s == NULL && reserved[i]; i++)
        s = ends_in(req->path, reserved[i]);
    for (size_t i = 0; s == NULL && req->sidecars && req->sidecars[i]; i++)
        s = ends_in(req->path, req->sidecars[i]);
    if (s == NULL && req->journal)
        s = ends_in(req->path, req->journal);
    return s;
}

static int check_owner(const char *opt, const char *out, const char *f, char *msg, size_t msglen)
{
    struct stat st;
    if (lstat(f, &st) != 0 || !foreign(&st))
        return MBX_OK;
    if (strcmp(out, f) == 0)
        return say(msg, msglen, MBX_E_INVAL,
                   "%s: '%s' belongs to another user (uid %ld); mpibex writes only files of "
                   "yours: choose another %s",
                   opt, f, (long)st.st_uid, opt);
    return say(msg, msglen, MBX_E_INVAL,
               "%s: '%s' (written beside '%s') belongs to another user (uid %ld); mpibex writes "
               "only files of yours: choose another %s",
               opt, f, out, (long)st.st_uid, opt);
}

/* Does the regular file at path (size st_size) hold the header line and
 * nothing else? Read through a descriptor that follows no link. */
static int header_only(const char *path, const char *header, off_t size)
{
    size_t n = header ? strlen(header) : 0;
    if (n == 0 || size != (off_t)n + 1)
        return 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char *buf = malloc(n + 1);
    int same = buf && pread(fd, buf, n + 1, 0) == (ssize_t)(n + 1) && memcmp(buf, header, n) == 0 &&
               buf[n] == '\n';
    free(buf);
    close(fd);
    return same;
}

/* A file output: the path, its sidecars and the lock beside it. */
static int check_file(const mbx_output_req *req, const char *opt, mbx_output *out, char *msg,
                      size_t msglen)
{
    const char *suffix = reserved_suffix(req);
    if (suffix != NULL) {
        size_t n = strlen(req->path) - strlen(suffix);
        return say(msg, msglen, MBX_E_INVAL,
                   "%s: '%s' ends in '%s', the name mpibex gives a file it writes beside "
                   "'%.*s.csv' (another run would replace it); choose a name without '%s'",
                   opt, req->path, suffix, (int)n, req->path, suffix);
    }
    char dir[4096];
    dir_of(req->path, dir, sizeof dir);
    if (access(dir, W_OK | X_OK) != 0)
        return say(msg, msglen, MBX_E_INVAL, "%s: cannot write '%s': directory '%s': %s", opt,
                   req->path, dir, strerror(errno));
    if (access(req->path, F_OK) == 0 && access(req->path, W_OK) != 0)
        return say(msg, msglen, MBX_E_INVAL, "%s: cannot write '%s': %s", opt, req->path,
                   strerror(errno));
    int rc = check_owner(opt, req->path, req->path, msg, msglen);
    if (rc != MBX_OK)
        return rc;
    rc = check_input(req, opt, req->path, msg, msglen);
    for (size_t i = 0; rc == MBX_OK && req->sidecars && req->sidecars[i]; i++) {
        char *f = mbx_csv_sidecar(req->path, req->sidecars[i]);
        struct stat st;
        if (f == NULL)
            return say(msg, msglen, MBX_E_NOMEM, "out of memory");
        if (lstat(f, &st) == 0 && S_ISLNK(st.st_mode))
            rc = say(msg, msglen, MBX_E_INVAL,
                     "%s: '%s' is a symbolic link; mpibex never writes through one (remove it, "
                     "or choose another %s)",
                     opt, f, opt);
        else if (lstat(f, &st) == 0 && !S_ISREG(st.st_mode))
            rc = say(msg, msglen, MBX_E_INVAL,
                     "%s: '%s' (written beside '%s') is %s; remove it, or choose another %s", opt,
                     f, req->path, kind_of(st.st_mode), opt);
        else if ((rc = check_owner(opt, req->path, f, msg, msglen)) == MBX_OK)
            rc = check_input(req, opt, f, msg, msglen);
        free(f);
    }
    if (rc != MBX_OK)
        return rc;
    if ((out->lock_path = mbx_csv_sidecar(req->path, ".lock")) == NULL)
        return say(msg, msglen, MBX_E_NOMEM, "out of memory");
    if ((rc = check_input(req, opt, out->lock_path, msg, msglen)) != MBX_OK)
        return rc;
    if ((rc = take_lock(req, opt, out, msg, msglen)) != MBX_OK)
        return rc;
    /* Only now, holding the lock, is what is there ours to judge. */
    struct stat st;
    char *jr = req->journal ? mbx_csv_sidecar(req->path, req->journal) : NULL;
    if (req->journal && jr == NULL)
        return say(msg, msglen, MBX_E_NOMEM, "out of memory");
    int journal = jr && lstat(jr, &st) == 0;
    int results = lstat(req->path, &st) == 0 && st.st_size > 0 &&
                  !header_only(req->path, req->header, st.st_size);
    out->existed = journal || results;
    if (out->existed && !(req->flags & (MBX_OUTPUT_FORCE | MBX_OUTPUT_RESUME))) {
        if (journal)
            rc = say(msg, msglen, MBX_E_INVAL,
                     "%s: '%s' is an interrupted run (%s is there); continue it with --resume, "
                     "or start over with --force",
                     opt, req->path, jr);
        else
            rc = say(msg, msglen, MBX_E_INVAL,
                     "%s: '%s' exists and holds results; --force writes over it, or choose "
                     "another %s",
                     opt, req->path, opt);
    }
    free(jr);
    return rc;
}

/* A directory output: created when absent; earlier results need FORCE. */
static int check_dir(const mbx_output_req *req, const char *opt, int exists, mbx_output *out,
                     char *msg, size_t msglen)
{
    int rc = check_input(req, opt, req->path, msg, msglen);
    if (rc != MBX_OK)
        return rc;
    if (!exists) {
        if (mkdir(req->path, 0777) != 0)
            return say(msg, msglen, MBX_E_IO, "%s: cannot create directory '%s': %s", opt,
                       req->path, strerror(errno));
        out->created_dir = 1;
    } else if (access(req->path, W_OK | X_OK) != 0) {
        return say(msg, msglen, MBX_E_INVAL, "%s: cannot write in '%s': %s", opt, req->path,
                   strerror(errno));
    } else {
        /* Pages, plots (gnuplot's own) and data files are written there by
         * name, through whatever link is at that name by then: only in a
         * directory where nobody else can put one. */
        struct stat st;
        if (lstat(req->path, &st) != 0)
            return say(msg, msglen, MBX_E_INVAL, "%s: cannot use '%s': %s", opt, req->path,
                       strerror(errno));
        if (st.st_uid != geteuid())
            return say(msg, msglen, MBX_E_INVAL,
                       "%s: '%s' belongs to another user (uid %ld), who could put links where "
                       "mpibex writes; choose a directory of yours",
                       opt, req->path, (long)st.st_uid);
        if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
            return say(msg, msglen, MBX_E_INVAL,
                       "%s: anybody can write in '%s' (mode %04o), and could put links where "
                       "mpibex writes; chmod o-w it, or choose another directory",
                       opt, req->path, (unsigned)(st.st_mode & 07777));
    }
    size_t n = strlen(req->path) + sizeof "/" DIR_LOCK;
    if ((out->lock_path = malloc(n)) == NULL)
        return say(msg, msglen, MBX_E_NOMEM, "out of memory");
    snprintf(out->lock_path, n, "%s/%s", req->path, DIR_LOCK);
    if ((rc = take_lock(req, opt, out, msg, msglen)) != MBX_OK)
        return rc;
    DIR *d = opendir(req->path);
    if (d == NULL)
        return say(msg, msglen, MBX_E_INVAL, "%s: cannot read '%s': %s", opt, req->path,
                   strerror(errno));
    for (struct dirent *e; rc == MBX_OK && (e = readdir(d)) != NULL;) {
        const char *name = e->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strcmp(name, DIR_LOCK) == 0)
            continue;
        if (req->is_result != NULL && !req->is_result(name))
            continue;
        out->existed = 1;
        if (!(req->flags & (MBX_OUTPUT_FORCE | MBX_OUTPUT_RESUME)))
            rc = say(msg, msglen, MBX_E_INVAL,
                     "%s: '%s' already holds results ('%s'); --force replaces them, or choose "
                     "another directory",
                     opt, req->path, name);
    }
    closedir(d);
    return rc;
}

int mbx_output_claim(const mbx_output_req *req, mbx_output *out, char *msg, size_t msglen)
{
    memset(out, 0, sizeof *out);
    out->lock_fd = -1;
    if (msg != NULL && msglen > 0)
        msg[0] = '\0';
    const char *opt = req->opt ? req->opt : "-o";
    int isdir = (req->flags & MBX_OUTPUT_DIRECTORY) != 0;
    if (req->path == NULL || req->path[0] == '\0')
        return say(msg, msglen, MBX_E_INVAL, "%s: missing %s name", opt,
                   isdir ? "directory" : "file");
    if (strcmp(req->path, "-") == 0) {
        if (!(req->flags & MBX_OUTPUT_ALLOW_STDOUT) || isdir)
            return say(
                msg, msglen, MBX_E_INVAL,
                "%s -: this command does not write its results to standard output; give a %s "
                "name",
                opt, isdir ? "directory" : "file");
        out->kind = MBX_OUTPUT_STDOUT;
        return MBX_OK;
    }
    struct stat st;
    int exists = lstat(req->path, &st) == 0;
    if (!exists && errno != ENOENT)
        return say(msg, msglen, MBX_E_INVAL, "%s: cannot use '%s': %s", opt, req->path,
                   strerror(errno));
    struct stat to;
    if (exists && S_ISLNK(st.st_mode) && stat(req->path, &to) == 0 &&
        ((!S_ISREG(to.st_mode) && !S_ISDIR(to.st_mode)) || strncmp(req->path, "/dev/", 5) == 0 ||
         strncmp(req->path, "/proc/", 6) == 0))
        /* /dev/stdout, /proc/self/fd/1: "remove it" would be bad advice. */
        return say(msg, msglen, MBX_E_INVAL,
                   "%s: '%s' is a symbolic link to %s; mpibex never writes through one%s", opt,
                   req->path, kind_of(to.st_mode),
                   (req->flags & MBX_OUTPUT_ALLOW_STDOUT) && !isdir
                       ? " (for standard output, give '-')"
                       : "");
    if (exists && S_ISLNK(st.st_mode))
        return say(msg, msglen, MBX_E_INVAL,
                   "%s: '%s' is a symbolic link; mpibex never writes through one (remove it, or "
                   "choose another %s)",
                   opt, req->path, opt);
    if (exists && null_dev(&st)) {
        if (isdir || !(req->flags & MBX_OUTPUT_ALLOW_DISCARD))
            return say(msg, msglen, MBX_E_INVAL, "%s: '%s' is the null device; allowed: %s", opt,
                       req->path,
                       isdir ? "a directory (created if missing)" : file_allowed(req->flags));
        out->kind = MBX_OUTPUT_DISCARD;
        return MBX_OK;
    }
    int rc;
    if (isdir) {
        if (exists && !S_ISDIR(st.st_mode))
            return say(msg, msglen, MBX_E_INVAL,
                       "%s: '%s' exists and is not a directory; allowed: a directory (created "
                       "if missing)",
                       opt, req->path);
        rc = check_dir(req, opt, exists, out, msg, msglen);
        out->kind = MBX_OUTPUT_DIR;
    } else {
        if (exists && S_ISDIR(st.st_mode))
            return say(msg, msglen, MBX_E_INVAL, "%s: '%s' is a directory; expected a file name",
                       opt, req->path);
        if (exists && !S_ISREG(st.st_mode))
            return say(msg, msglen, MBX_E_INVAL, "%s: '%s' is %s; allowed: %s", opt, req->path,
                       kind_of(st.st_mode), file_allowed(req->flags));
        rc = check_file(req, opt, out, msg, msglen);
        out->kind = MBX_OUTPUT_FILE;
    }
    if (rc != MBX_OK) {
        int created = out->created_dir;
        pid_t holder = out->holder;
        mbx_output_release(out);
        if (created)
            (void)rmdir(req->path);
        out->holder = holder;
    }
    return rc;
}

void mbx_output_release(mbx_output *out)
{
    if (out == NULL || out->kind == MBX_OUTPUT_NONE)
        return;
    if (out->lock_fd >= 0) {
        /* Remove the file only while it is the one we lock: after us, the
         * next claim creates a fresh one. */
        struct stat ps;
        if (out->lock_path != NULL && lstat(out->lock_path, &ps) == 0 &&
            ps.st_dev == out->lock_dev && ps.st_ino == out->lock_ino)
            (void)unlink(out->lock_path);
        (void)close(out->lock_fd);
    }
    free(out->lock_path);
    out->lock_path = NULL;
    out->lock_fd = -1;
    out->kind = MBX_OUTPUT_NONE;
}
