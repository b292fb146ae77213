/* Result files that survive faults: created without following a planted
 * symbolic link, appended one whole record at a time, and checked to still
 * be where the user asked for them.
 *
 * A record (a CSV row, a point's observations, a journal line) is written
 * with one write(2) loop at the end of the complete records; when the disk
 * fills up half way, the file is cut back, so it never ends in half a
 * record. Pure POSIX, no MPI. */
#ifndef MBX_FILE_H
#define MBX_FILE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "mbx/status.h"

/* The one way mpibex creates a file it writes (docs/hardening.md, "Output
 * and temporary files"): never by opening the name it will have, where
 * another user may have put a file, a FIFO or a link first, but as a new
 * file under a random name beside it, then renamed over the name.
 *
 * mbx_file_temp: a new empty file in path's directory, named
 * ".BASE.tmp-RANDOM" (getentropy), created with O_CREAT | O_EXCL |
 * O_NOFOLLOW and `mode` less the umask, so it is ours, regular and empty
 * by construction. *fd (read-write, close-on-exec) and *tmp (malloc'd,
 * the caller frees it, renames it over path or unlinks it). MBX_E_IO or
 * MBX_E_NOMEM with errno. */
MBX_NODISCARD int mbx_file_temp(const char *path, mode_t mode, int *fd, char **tmp);

/* mbx_file_temp, renamed over path at once: path is then a new file of
 * ours whatever was there. Refused, with nothing touched: a symbolic link
 * (ELOOP), a directory (EISDIR), a FIFO, socket or device (ENXIO) at
 * path; in a sticky directory, a file of another user (EPERM, from
 * rename). */
MBX_NODISCARD int mbx_file_create(const char *path, mode_t mode, int *fd);

/* Open path for writing records, at its end: a new file (mbx_file_create,
 * mode 0666 less the umask) unless `append`; with `append`, an existing
 * file is continued only when it is a regular file of the effective user
 * (checked on the open descriptor, opened without following a link or
 * blocking on a FIFO: ELOOP, ENXIO, EPERM), and a missing one is created.
 * Read access where allowed, for mbx_file_copy. Returns the descriptor
 * (close-on-exec) and, in *size, the file's length; MBX_E_IO with errno
 * set on failure. */
MBX_NODISCARD int mbx_file_open(const char *path, int append, int *fd, off_t *size);
/* The same with another mode than 0666 for a new file (a log: 0600). */
MBX_NODISCARD int mbx_file_open_mode(const char *path, int append, mode_t mode, int *fd,
                                     off_t *size);

/* mbx_file_create (mode 0666 less the umask) as a stdio stream, for
 * writers that print (reports, screen dumps); NULL with errno. */
FILE *mbx_file_fopen(const char *path);

/* Write len bytes at offset *size (the end of the complete records) and
 * advance *size. A short or failed write cuts the file back to *size and
 * returns MBX_E_IO with the write's errno (ENOSPC, EDQUOT, EIO, ...). */
MBX_NODISCARD int mbx_file_append(int fd, off_t *size, const void *buf, size_t len);

/* Is path still the file open on fd? MBX_OK, or MBX_E_GONE (errno ENOENT)
 * when it was removed, renamed or replaced (its directory included). */
MBX_NODISCARD int mbx_file_still_at(int fd, const char *path);

/* Copy the first size bytes of fd into a new file at path (O_EXCL, never
 * through a symbolic link, mode 0666 less the umask). MBX_E_IO with errno
 * on failure (the partial copy is removed). */
MBX_NODISCARD int mbx_file_copy(int fd, off_t size, const char *path);

/* A one-line reason for a failed mbx_file_open or write: a symbolic link
 * (ELOOP), not a regular file (ENXIO), another user's (EPERM), else
 * strerror(err). */
const char *mbx_file_why(int err);

#endif
