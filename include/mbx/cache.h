/* Cold-cache support (--cache cold): between observations the engine
 * overwrites a buffer the size of the last-level cache, so the next
 * observation starts without the benchmark's data in any cache (the paper's
 * "overwrite a last-level-cache-sized buffer"). The flusher is per rank;
 * ranks sharing a cache each flush their own buffer. */
#ifndef MBX_CACHE_H
#define MBX_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/status.h"

/* Size of the largest data or unified cache hwloc finds on this machine
 * (the last-level cache), in bytes. MBX_E_UNSUPPORTED when hwloc reports no
 * such cache or cannot load the topology; MBX_E_INVAL for a NULL out.
 * Loads the topology on first use (shared with the job description). */
MBX_NODISCARD int mbx_cache_llc_bytes(uint64_t *out);

typedef struct mbx_cache_flusher {
    uint64_t *buf;  /* page-aligned, bytes long; owned */
    uint64_t bytes; /* a multiple of line */
    size_t line;    /* stride of the writes: the LLC line size, else 64 */
    uint64_t stamp; /* the value written by the next flush; changes every call */
} mbx_cache_flusher;

/* Allocate and touch a buffer of `bytes` (rounded up to whole cache lines;
 * use mbx_cache_llc_bytes for the LLC size). MBX_E_INVAL for 0 bytes or a
 * NULL f, MBX_E_NOMEM. On error *f is left empty (free is harmless). */
MBX_NODISCARD int mbx_cache_flusher_init(mbx_cache_flusher *f, uint64_t bytes);

/* Write one new value into every cache line of the buffer (volatile
 * stores the compiler cannot drop). Call it outside timed regions. */
void mbx_cache_flush(mbx_cache_flusher *f);

/* Release the buffer; *f becomes empty. Safe on an empty flusher. */
void mbx_cache_flusher_free(mbx_cache_flusher *f);

#endif
