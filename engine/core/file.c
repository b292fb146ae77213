#include "mbx/file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int mbx_file_open(const char *path, int append, int *fd, off_t *size)
{
    *fd = -1;
    *size = 0;
    /* Read access is only for mbx_file_copy: a FIFO opened for reading too
     * would be its own reader, and a file the user may write but not read
     * must still work, so those get O_WRONLY. */
    int flags = O_CREAT | O_NOFOLLOW | O_CLOEXEC | (append ? 0 : O_TRUNC);
    struct stat st;
    int fifo = lstat(path, &st) == 0 && S_ISFIFO(st.st_mode);
    int f = open(path, flags | (fifo ? O_WRONLY : O_RDWR), 0666);
    if (f < 0 && errno == EACCES && !fifo)
        f = open(path, flags | O_WRONLY, 0666);
    if (f < 0)
        return MBX_E_IO;
    off_t end = lseek(f, 0, SEEK_END);
    if (end < 0) {
        /* A pipe or terminal (-o /dev/stdout is a link, refused above; a
         * FIFO by name is not): nothing to seek, records just go out. */
        end = 0;
    }
    *fd = f;
    *size = end;
    return MBX_OK;
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
    return strerror(err);
}
