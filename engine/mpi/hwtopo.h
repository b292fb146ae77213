/* The hwloc topology of this machine, loaded once per process and shared by
 * the job description (envcap.c) and the cache module (cache.c). Internal. */
#ifndef MBX_HWTOPO_H
#define MBX_HWTOPO_H

#include <hwloc.h>
#include <stddef.h>
#include <stdint.h>

/* The loaded topology, or NULL when hwloc failed (why gets the reason).
 * Kept until exit: the static pointer keeps it reachable for LeakSanitizer. */
hwloc_topology_t mbx_hwtopo_get(char *why, size_t len);

/* The largest data/unified cache: its size, depth (1 = L1, ...) and line
 * size. Returns 0, or -1 when there is none (why says so). */
int mbx_hwtopo_llc(uint64_t *bytes, unsigned *depth, unsigned *line, char *why, size_t len);

#endif
