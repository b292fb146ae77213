/* Growing arrays (see mbx/grow.h). */
#include "mbx/grow.h"

#include <stdlib.h>

int mbx_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return MBX_OK;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return MBX_E_NOMEM;
    *p = q;
    *cap = n;
    return MBX_OK;
}
