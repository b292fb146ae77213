#define _DEFAULT_SOURCE /* getentropy */
#include "mbx/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Random letters and digits for a temporary name; getentropy(3) cannot
 * be guessed by another user, unlike the PID or the time. */
static int random_tag(char *tag, size_t n)
{
    static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    unsigned char r[32];
    if (n == 0 || n - 1 > sizeof r || getentropy(r, n - 1) != 0)
        return MBX_E_IO;
    for (size_t i = 0; i + 1 < n; i++)
        tag[i] = abc[r[i] % (sizeof abc - 1)];
    tag[n - 1] = '\0';
    return MBX_OK;
}

int mbx_file_temp(const char *path, mode_t mode, int *fd, char **tmp)
{
    *fd = -1;
    *tmp = NULL;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    int dirlen = slash ? (int)(slash - path) + 1 : 0;
    /* ".BASE.tmp-XXXXXXXXXXXX": hidden, beside the target (so a rename
     * reaches it), within NAME_MAX however long BASE is. */
    size_t n = strlen(path) + 32;
    char *t = malloc(n);
    if (t == NULL) {
        errno = ENOMEM;
        return MBX_E_NOMEM;
    }
    for (int tries = 0; tries < 8; tries++) {
        char tag[13];
        if (random_tag(tag, sizeof tag) != MBX_OK)
            break;
        snprintf(t, n, "%.*s.%.200s.tmp-%s", dirlen, path, base, tag);
        int f = open(t, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (f >= 0) {
            *fd = f;
            *tmp = t;
            return MBX_OK;
        }
        if (errno != EEXIST)
            break;
    }
    int err = errno;
    free(t);
    errno = err;
    return MBX_E_IO;
}

/* What is at path may be replaced by a new file (nothing, or a regular
 * file); a link, FIFO, socket, device or directory is refused (ELOOP,
 * ENXIO, EISDIR): it is not ours to replace, and writing into it could block or
 * reach another user (docs/hardening.md). */
static int replaceable(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? MBX_OK : MBX_E_IO;
    if (S_ISREG(st.st_mode))
        return MBX_OK;
    errno = S_ISLNK(st.st_mode) ? ELOOP : S_ISDIR(st.st_mode) ? EISDIR : ENXIO;
    return MBX_E_IO;
}

int mbx_file_create(const char *path, mode_t mode, int *fd)
{
    *fd = -1;
    char *tmp = NULL;
    if (replaceable(path) != MBX_OK)
        return MBX_E_IO;
    int f, rc = mbx_file_temp(path, mode, &f, &tmp);
    if (rc != MBX_OK)
        return rc;
    if (rename(tmp, path) != 0) {
        int err = errno;
        (void)unlink(tmp);
        (void)close(f);
        free(tmp);
        errno = err;
        return MBX_E_IO;
    }
    free(tmp);
    *fd = f;
    return MBX_OK;
}

/* An existing file to continue: opened without following a link and
 * without blocking on a FIFO, then checked on the descriptor to be a
 * regular file of ours (ENXIO, EPERM), so a file planted by another user
 * is never written into. */
static int open_existing(const char *path, int *fd)
{
    int flags = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
    if (replaceable(path) != MBX_OK)
        return MBX_E_IO;
    int f = open(path, flags | O_RDWR);
    if (f < 0 && errno == EACCES)
        f = open(path, flags | O_WRONLY); /* may write, may not read: no copy */
    if (f < 0)
        return MBX_E_IO;
    struct stat st;
    int err = 0;
    if (fstat(f, &st) != 0)
        err = errno;
    else if (!S_ISREG(st.st_mode))
        err = ENXIO;
    else if (st.st_uid != geteuid())
        err = EPERM;
    else if (fcntl(f, F_SETFL, fcntl(f, F_GETFL) & ~O_NONBLOCK) != 0)
        err = errno;
    if (err) {
        (void)close(f);
        errno = err;
        return MBX_E_IO;
    }
    *fd = f;
    return MBX_OK;
}

int mbx_file_open(const char *path, int append, int *fd, off_t *size)
{
    return mbx_file_open_mode(path, append, 0666, fd, size);
}

int mbx_file_open_mode(const char *path, int append, mode_t mode, int *fd, off_t *size)
{
    *fd = -1;
    *size = 0;
    int f = -1, rc = MBX_E_IO;
    if (append)
        rc = open_existing(path, &f);
    if (rc != MBX_OK && (!append || errno == ENOENT))
        rc = mbx_file_create(path, mode, &f);
    if (rc != MBX_OK)
        return MBX_E_IO;
    off_t end = lseek(f, 0, SEEK_END);
    if (end < 0) {
        int err = errno;
        (void)close(f);
        errno = err;
        return MBX_E_IO;
    }
    *fd = f;
    *size = end;
    return MBX_OK;
}

FILE *mbx_file_fopen(const char *path)
{
    int fd;
    if (mbx_file_create(path, 0666, &fd) != MBX_OK)
        return NULL;
    FILE *f = fdopen(fd, "w");
    if (f == NULL) {
        int err = errno;
        (void)close(fd);
        errno = err;
    }
    return f;
}

int mbx_file_append(int fd, off_t *size, const void *buf, size_t len)
{
    const char *p = buf;
    size_t left = len;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int err = n < 0 ? errno : ENOSPC; /* 0 bytes written: no room */
            /* Cut the part of the record that did land; on a full disk
             * this frees blocks, so it works when the write did not. */
            if (ftruncate(fd, *size) == 0)
                (void)lseek(fd, *size, SEEK_SET);
            errno = err;
            return MBX_E_IO;
        }
        p += n;
        left -= (size_t)n;
    }
    *size += (off_t)len;
    return MBX_OK;
}

int mbx_file_still_at(int fd, const char *path)
{
    struct stat open_st, path_st;
    if (fstat(fd, &open_st) != 0)
        return MBX_E_IO;
    if (!S_ISREG(open_st.st_mode))
        return MBX_OK; /* a device or FIFO has no place to vanish from */
    if (open_st.st_nlink == 0 || lstat(path, &path_st) != 0 || path_st.st_dev != open_st.st_dev ||
        path_st.st_ino != open_st.st_ino) {
        errno = ENOENT;
        return MBX_E_GONE;
    }
    return MBX_OK;
}

int mbx_file_copy(int fd, off_t size, const char *path)
{
    /* Into a private directory of ours (mbx_dir_temp): a plain O_EXCL. */
    int out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (out < 0)
        return MBX_E_IO;
    char buf[65536];
    off_t at = 0, written = 0;
    int rc = MBX_OK;
    while (rc == MBX_OK && at < size) {
        size_t want = size - at < (off_t)sizeof buf ? (size_t)(size - at) : sizeof buf;
        ssize_t n = pread(fd, buf, want, at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO; /* shorter than it was: nothing sensible to copy */
            rc = MBX_E_IO;
            break;
        }
        at += n;
        rc = mbx_file_append(out, &written, buf, (size_t)n);
    }
    int err = errno;
    if (close(out) != 0 && rc == MBX_OK) {
        err = errno;
        rc = MBX_E_IO;
    }
    if (rc != MBX_OK) {
        (void)unlink(path);
        errno = err;
    }
    return rc;
}

const char *mbx_file_why(int err)
{
    if (err == ELOOP)
        return "it is a symbolic link, and mpibex never writes through one";
    if (err == ENXIO)
        return "it is not a regular file (a FIFO, socket or device), and mpibex writes only "
               "regular files";
    if (err == EPERM)
        return "it belongs to another user, and mpibex writes only files of yours";
    return strerror(err);
}
