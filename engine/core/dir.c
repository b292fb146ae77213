#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* mkdtemp */
#endif
#include "mbx/dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_CLOEXEC)

static int fail(int err, const char *reason, const char **why)
{
    if (why)
        *why = reason ? reason : strerror(err);
    errno = err;
    return MBX_E_IO;
}

/* Is the open directory fd one we may clean? */
static int check_own(int fd, int flags, const char **why)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return fail(errno, NULL, why);
    if (!S_ISDIR(st.st_mode))
        return fail(ENOTDIR, "it is not a directory", why);
    if (st.st_uid != geteuid())
        return fail(EPERM, "it belongs to another user", why);
    if ((flags & MBX_DIR_PRIVATE) && (st.st_mode & (S_IWGRP | S_IWOTH)))
        return fail(EACCES, "other users can write in it", why);
    return MBX_OK;
}

int mbx_dir_open_own(int at, const char *path, int flags, int *fd, const char **why)
{
    *fd = -1;
    int f = openat(at, path, DIR_FLAGS | O_NOFOLLOW);
    if (f < 0) {
        int err = errno;
        struct stat st;
        /* Linux says ENOTDIR or ELOOP for a link; name it either way. */
        if (fstatat(at, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
            return fail(ELOOP, "it is a symbolic link", why);
        return fail(err, err == ENOTDIR ? "it is not a directory" : NULL, why);
    }
    int rc = check_own(f, flags, why);
    if (rc < 0) {
        int err = errno;
        close(f);
        errno = err;
        return rc;
    }
    *fd = f;
    return MBX_OK;
}

int mbx_dir_clean(int dirfd, mbx_dir_pick pick, void *ud, size_t *removed, size_t *left)
{
    size_t gone = 0, kept = 0;
    int first_err = 0;
    int dup_fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        int err = errno;
        if (dup_fd >= 0)
            close(dup_fd);
        errno = err;
        return MBX_E_IO;
    }
    rewinddir(d); /* the copy shares its offset with dirfd */
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        const char *n = e->d_name;
        if (!strcmp(n, ".") || !strcmp(n, ".."))
            continue;
        if (pick && !pick(n, ud)) {
            kept++;
            continue;
        }
        if (unlinkat(dirfd, n, 0) == 0) {
            gone++;
        } else if (errno == EISDIR || errno == EPERM) {
            kept++; /* a subdirectory: not ours to descend into here */
        } else if (errno != ENOENT) {
            kept++;
            if (!first_err)
                first_err = errno;
        }
    }
    closedir(d);
    if (removed)
        *removed = gone;
    if (left)
        *left = kept;
    if (first_err) {
        errno = first_err;
        return MBX_E_IO;
    }
    return MBX_OK;
}

int mbx_dir_remove(int at, const char *path, int flags, mbx_dir_pick pick, void *ud,
                   const char **why)
{
    int fd;
    int rc = mbx_dir_open_own(at, path, flags, &fd, why);
    if (rc < 0) {
        if (errno == ENOENT && (flags & MBX_DIR_MISSING_OK))
            return MBX_OK;
        return rc;
    }
    struct stat was, now;
    size_t left = 0;
    rc = fstat(fd, &was) == 0 ? mbx_dir_clean(fd, pick, ud, NULL, &left) : MBX_E_IO;
    int err = errno;
    close(fd);
    if (rc < 0)
        return fail(err, NULL, why);
    /* The name may have been swapped for another directory since the open:
     * remove it only while it is still the one we emptied. */
    if (fstatat(at, path, &now, AT_SYMLINK_NOFOLLOW) != 0)
        return fail(errno, NULL, why);
    if (now.st_dev != was.st_dev || now.st_ino != was.st_ino)
        return fail(ESTALE, "it was replaced while mpibex cleaned it", why);
    if (unlinkat(at, path, AT_REMOVEDIR) != 0) {
        err = errno;
        if (err == ENOTEMPTY || err == EEXIST)
            return fail(ENOTEMPTY, "it holds files mpibex did not create", why);
        return fail(err, NULL, why);
    }
    return MBX_OK;
}

int mbx_dir_make(const char *path, int flags, int *fd, const char **why)
{
    if (fd)
        *fd = -1;
    if (!path || !*path)
        return fail(ENOENT, NULL, why);
    char *copy = strdup(path);
    if (!copy)
        return fail(ENOMEM, NULL, why);
    int cur = open(path[0] == '/' ? "/" : ".", DIR_FLAGS);
    if (cur < 0) {
        free(copy);
        return fail(errno, NULL, why);
    }
    int rc = MBX_OK;
    char *save = NULL;
    for (char *c = strtok_r(copy, "/", &save); c && rc == MBX_OK; c = strtok_r(NULL, "/", &save)) {
        int next;
        if (mkdirat(cur, c, 0700) == 0) {
            /* Ours a moment ago: anything else there now was swapped in. */
            next = openat(cur, c, DIR_FLAGS | O_NOFOLLOW);
        } else if (errno == EEXIST) {
            next = openat(cur, c, DIR_FLAGS);
        } else {
            rc = fail(errno, NULL, why);
            break;
        }
        if (next < 0) {
            int err = errno;
            int last = !save || strspn(save, "/") == strlen(save);
            rc = fail(err,
                      err == ENOTDIR ? (last ? "it is not a directory"
                                             : "a part of its path is not a directory")
                      : err == ELOOP ? "it is a symbolic link"
                                     : NULL,
                      why);
            break;
        }
        close(cur);
        cur = next;
    }
    free(copy);
    if (rc == MBX_OK)
        rc = check_own(cur, flags, why);
    if (rc < 0) {
        int err = errno;
        close(cur);
        errno = err;
        return rc;
    }
    if (fd)
        *fd = cur;
    else
        close(cur);
    return MBX_OK;
}

int mbx_dir_base_ok(const char *base, const char **why)
{
    struct stat st;
    if (stat(base, &st) != 0)
        return fail(errno, NULL, why);
    if (!S_ISDIR(st.st_mode))
        return fail(ENOTDIR, "it is not a directory", why);
    /* Without the sticky bit, anybody may rename our directory there
     * and put a link to another in its place, between our check and our
     * next use of its path (/tmp and the like have the bit). */
    if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
        return fail(EACCES,
                    "anybody can write in it and it has no sticky bit (chmod +t), so anybody "
                    "could replace mpibex's directory there with a link",
                    why);
    return MBX_OK;
}

int mbx_dir_temp(const char *base, const char *prefix, char *path, size_t len, int *fd,
                 const char **why)
{
    if (fd)
        *fd = -1;
    if (mbx_dir_base_ok(base, why) != MBX_OK) {
        int err = errno;
        if (len)
            snprintf(path, len, "%s", base);
        errno = err;
        return MBX_E_IO;
    }
    int n = snprintf(path, len, "%s/%sXXXXXX", base, prefix);
    if (n < 0 || (size_t)n >= len) {
        if (len)
            path[0] = '\0';
        if (why)
            *why = "the path is too long";
        return MBX_E_RANGE;
    }
    if (!mkdtemp(path)) {
        int err = errno;
        snprintf(path, len, "%s", base);
        return fail(err, NULL, why);
    }
    int f;
    int rc = mbx_dir_open_own(AT_FDCWD, path, MBX_DIR_PRIVATE, &f, why);
    if (rc < 0)
        return rc;
    if (fd)
        *fd = f;
    else
        close(f);
    return MBX_OK;
}

int mbx_dir_state_path(const char *xdg, const char *home, char *out, size_t len)
{
    const char *tail = "/.local/state/mpibex";
    if (xdg && xdg[0] == '/') {
        home = xdg;
        tail = "/mpibex";
    } else if (!home || home[0] != '/') {
        /* HOME unset (cron, some batch systems): the account's own home,
         * never a shared fallback such as /tmp. */
        const struct passwd *pw = getpwuid(geteuid());
        home = pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
    }
    if (!home) {
        if (len)
            out[0] = '\0';
        return MBX_E_UNKNOWN;
    }
    int n = snprintf(out, len, "%s%s", home, tail);
    if (n < 0 || (size_t)n >= len)
        return MBX_E_RANGE;
    return MBX_OK;
}

const char *mbx_dir_tmp(void)
{
    const char *t = getenv("TMPDIR");
    return t && t[0] == '/' ? t : "/tmp";
}
