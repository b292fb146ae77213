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
#include <sys/types.h>

#include "mbx/status.h"

/* Open path for writing (and, where allowed, for reading back by
 * mbx_file_copy; never a FIFO): created with mode 0666 less the umask,
 * truncated unless `append`. A symbolic link at the last component is
 * never followed (O_NOFOLLOW): the open fails with errno ELOOP and the
 * link's target is untouched. Directories in the path are the user's and
 * are followed.
 * Returns the descriptor (close-on-exec) and, in *size, the file's length;
 * MBX_E_IO with errno set on failure. */
MBX_NODISCARD int mbx_file_open(const char *path, int append, int *fd, off_t *size);

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

/* A one-line reason for a failed mbx_file_open or write: "is a symbolic
 * link; mpibex never writes through one" for ELOOP, else strerror(err). */
const char *mbx_file_why(int err);

#endif
