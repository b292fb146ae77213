/* mpibex: growing arrays (the capacity doubling every growing list in
 * the engine shares). */
#ifndef MBX_GROW_H
#define MBX_GROW_H

#include <stddef.h>

#include "mbx/status.h"

/* Makes the array at *p (of *cap elements of elem bytes) hold at least
 * need elements: the capacity doubles from *cap (16 when 0) until it does,
 * and the array is reallocated. MBX_OK (also when *cap already suffices)
 * or MBX_E_NOMEM, with *p and *cap as they were. */
MBX_NODISCARD int mbx_grow(void **p, size_t *cap, size_t need, size_t elem);

#endif
