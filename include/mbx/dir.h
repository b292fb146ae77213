/* Directories that mpibex creates and cleans, without being led elsewhere
 * by a symbolic link someone planted in a shared place (/tmp, $TMPDIR, a
 * group directory).
 *
 * The rule, everywhere: a directory about to be cleaned is opened with
 * O_NOFOLLOW | O_DIRECTORY, must belong to this user (and, where asked,
 * be writable by nobody else), and only entries inside that open
 * directory are removed (unlinkat relative to its descriptor), only the
 * names the caller says it created. A link among them is removed as a
 * link; its target is never touched. Pure POSIX, no MPI. */
#ifndef MBX_DIR_H
#define MBX_DIR_H

#include <stddef.h>

#include "mbx/status.h"

/* Flags of mbx_dir_open_own, mbx_dir_remove and mbx_dir_make. */
enum {
    MBX_DIR_PRIVATE = 1,    /* also refuse a directory group or others may write in */
    MBX_DIR_MISSING_OK = 2, /* mbx_dir_remove: a directory that is not there is removed */
};

/* Which entries of a directory the caller created: non-zero to remove. */
typedef int (*mbx_dir_pick)(const char *name, void *ud);

/* Open the directory at path (relative to the directory descriptor `at`,
 * or AT_FDCWD) for cleaning: the last component is never followed, and
 * the directory must belong to the effective user (with MBX_DIR_PRIVATE:
 * and have no group or other write bit). Earlier components are followed
 * (they are the user's own path). On success *fd is a close-on-exec
 * descriptor the caller closes. On failure MBX_E_IO, errno set and *why a
 * static reason: "it is a symbolic link", "it is not a directory", "it
 * belongs to another user", "other users can write in it", or strerror. */
MBX_NODISCARD int mbx_dir_open_own(int at, const char *path, int flags, int *fd, const char **why);

/* Remove the entries of the open directory dirfd that pick accepts (every
 * entry when pick is NULL) with unlinkat(dirfd, name, 0): files and links
 * go, a link's target stays, subdirectories are left alone. *removed and
 * *left (each may be NULL) count what went and what stayed. MBX_OK, or
 * MBX_E_IO with errno of the first removal that failed. */
MBX_NODISCARD int mbx_dir_clean(int dirfd, mbx_dir_pick pick, void *ud, size_t *removed,
                                size_t *left);

/* mbx_dir_open_own, mbx_dir_clean and then the directory itself with
 * unlinkat(at, path, AT_REMOVEDIR), which never follows a link. MBX_OK
 * when the directory is gone (also when it was not there, with
 * MBX_DIR_MISSING_OK). MBX_E_IO, errno and *why when it was refused (then
 * nothing was removed) or could not be emptied: errno ENOTEMPTY and "it
 * holds files mpibex did not create" when entries pick refused are left. */
MBX_NODISCARD int mbx_dir_remove(int at, const char *path, int flags, mbx_dir_pick pick, void *ud,
                                 const char **why);

/* mkdir -p: create path and every missing parent with mode 0700, each
 * created component opened with O_NOFOLLOW right after (a link swapped in
 * is refused); components that exist are the user's and followed. The
 * last one must be a directory of this user (with MBX_DIR_PRIVATE: that
 * nobody else can write in). *fd (may be NULL) gets the open directory.
 * MBX_OK, or MBX_E_IO with errno and *why (as mbx_dir_open_own). */
MBX_NODISCARD int mbx_dir_make(const char *path, int flags, int *fd, const char **why);

/* May mpibex make a directory of its own in base and use it by its path?
 * Not when anybody can write in base without the sticky bit: then anybody
 * can rename that directory and plant a link in its place. MBX_OK, or
 * MBX_E_IO with errno (EACCES for that case) and *why. */
MBX_NODISCARD int mbx_dir_base_ok(const char *base, const char **why);

/* A new private directory BASE/PREFIXxxxxxx (mkdtemp, mode 0700; a base
 * that mbx_dir_base_ok refuses is refused): its path in path[len], *fd
 * (may be NULL) the open directory, checked as mbx_dir_open_own with
 * MBX_DIR_PRIVATE. MBX_E_RANGE when the path does not fit; MBX_E_IO with
 * errno and *why otherwise. */
MBX_NODISCARD int mbx_dir_temp(const char *base, const char *prefix, char *path, size_t len,
                               int *fd, const char **why);

/* Where mpibex keeps its state (the explorer's log and autosave):
 * XDG/mpibex when xdg is an absolute path, else HOME/.local/state/mpibex
 * when home is, else the same under the password database's home of the
 * effective user. Never a shared place: with none of them, MBX_E_UNKNOWN
 * (the caller uses mbx_dir_temp, or refuses). MBX_E_RANGE when too long. */
MBX_NODISCARD int mbx_dir_state_path(const char *xdg, const char *home, char *out, size_t len);

/* The directory of $TMPDIR when it is an absolute path, else "/tmp". */
const char *mbx_dir_tmp(void);

#endif
