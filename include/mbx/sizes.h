/* mpibex message sizes: parsing byte counts and expanding size ranges.
 *
 * A byte count is a decimal integer with an optional binary suffix:
 * K, KiB, M, MiB, G, GiB (case-insensitive, all powers of 1024; "B" alone
 * is allowed: 64B). A size range is MIN:MAX[:FACTOR] with FACTOR > 1
 * (default 2; "sqrt2" is accepted), or a comma-separated list of byte
 * counts. Pure C, no MPI. */
#ifndef MBX_SIZES_H
#define MBX_SIZES_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/status.h"

#define MBX_SIZE_MAX_BYTES ((uint64_t)1 << 40) /* 1 TiB: the largest size accepted */
#define MBX_SIZES_MAX_POINTS 4096

typedef struct mbx_size_list {
    uint64_t v[MBX_SIZES_MAX_POINTS]; /* strictly ascending */
    size_t n;
} mbx_size_list;

/* Parse one byte count ("4K", "1MiB", "64"). Range 0..MBX_SIZE_MAX_BYTES.
 * On error writes a reason into msg (may be NULL). */
MBX_NODISCARD int mbx_size_parse(const char *text, uint64_t *out, char *msg, size_t msglen);

/* Parse a range or list and expand it: the geometric grid
 * round(MIN * FACTOR^k) for k = 0,1,... while < MAX, then MAX itself;
 * duplicates after rounding are dropped. MIN <= MAX (a reversed range is
 * an error); a range from 0 is 0 followed by the range from 1 (0:8 is 0,
 * 1, 2, 4, 8; 0:0 is 0 alone). Lists must be ascending, no duplicates. */
MBX_NODISCARD int mbx_sizes_parse(const char *text, mbx_size_list *out, char *msg, size_t msglen);

/* Format a byte count compactly with binary suffix when exact ("4KiB",
 * "1MiB", "1000"). */
void mbx_size_format(uint64_t bytes, char *buf, size_t len);

#endif
