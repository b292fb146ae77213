/* The memory one rank may take for a buffer of its own (the cold-cache
 * buffer of --cache cold:SIZE): what the node has available, within the
 * memory limit of the process's cgroup, shared by the ranks on the node.
 * Pure C, no MPI: reads files under a root ("" for the real ones). */
#ifndef MBX_MEMAVAIL_H
#define MBX_MEMAVAIL_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/status.h"

/* Bytes one of local_ranks ranks on this node may allocate: the smaller
 * of MemAvailable (ROOT/proc/meminfo) and the room left under the memory
 * limit of every cgroup from the process's own up to the top (cgroup v2:
 * memory.max less memory.current; v1: memory.limit_in_bytes less
 * memory.usage_in_bytes, from ROOT/proc/self/cgroup and
 * ROOT/sys/fs/cgroup), divided by local_ranks; *why names what set it
 * ("MemAvailable" or the cgroup's limit file). Errors: MBX_E_INVAL
 * (local_ranks < 1, a NULL pointer), MBX_E_IO (no MemAvailable). */
MBX_NODISCARD int mbx_mem_rank_budget(const char *root, int local_ranks, uint64_t *out, char *why,
                                      size_t whylen);

#endif
