/* Internal to the core library: the names of the files a host keeps in
 * the user's state directory (the machine profile, the host's history). */
#ifndef MBX_CORE_STATEFILE_H
#define MBX_CORE_STATEFILE_H

#include <stddef.h>

/* DIR/KIND-HOST-XXXXXXXX.csv: the host's name made safe (letters, digits,
 * '.', '-'; the rest '_'; at most 63 characters), then an FNV-1a hash of
 * the MPI library's line. MBX_E_RANGE when it does not fit. */
int mbx_state_file_path(const char *dir, const char *kind, const char *host, const char *mpi,
                        char *out, size_t len);

#endif
