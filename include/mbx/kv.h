/* A growable list of key/value strings: the environment capture and other
 * sidecar facts. Pure C, no MPI. */
#ifndef MBX_KV_H
#define MBX_KV_H

#include <stddef.h>

#include "mbx/status.h"

typedef struct mbx_kv {
    char *key, *value;
} mbx_kv;

typedef struct mbx_kvlist {
    mbx_kv *v;
    size_t n, cap;
} mbx_kvlist;

/* Append key = printf(fmt, ...). Newlines and carriage returns in the value
 * become " | " so every value stays on one line. */
MBX_NODISCARD int mbx_kv_addf(mbx_kvlist *l, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Value of the first entry named key, or NULL. */
const char *mbx_kv_get(const mbx_kvlist *l, const char *key);

void mbx_kv_free(mbx_kvlist *l);

#endif
