/* The hwloc topology (shared with envcap.c) and the cold-cache flusher. */
#include "mbx/cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwtopo.h"

static hwloc_topology_t topo;
static int topo_state; /* 0 not tried, 1 loaded, -1 failed */
static char topo_why[96];

hwloc_topology_t mbx_hwtopo_get(char *why, size_t len)
{
    if (topo_state == 0) {
        topo_state = -1;
        if (hwloc_topology_init(&topo) != 0) {
            snprintf(topo_why, sizeof topo_why, "hwloc_topology_init: %s", strerror(errno));
        } else if (hwloc_topology_load(topo) != 0) {
            snprintf(topo_why, sizeof topo_why, "hwloc_topology_load: %s", strerror(errno));
            hwloc_topology_destroy(topo);
        } else {
            topo_state = 1;
        }
    }
    if (topo_state < 0 && why && len)
        snprintf(why, len, "%s", topo_why);
    return topo_state > 0 ? topo : NULL;
}

int mbx_hwtopo_llc(uint64_t *bytes, unsigned *depth, unsigned *line, char *why, size_t len)
{
    hwloc_topology_t t = mbx_hwtopo_get(why, len);
    if (!t)
        return -1;
    hwloc_obj_t best = NULL;
    int levels = hwloc_topology_get_depth(t);
    for (int d = 0; d < levels; d++) {
        if (!hwloc_obj_type_is_dcache(hwloc_get_depth_type(t, d)))
            continue;
        for (hwloc_obj_t o = hwloc_get_next_obj_by_depth(t, d, NULL); o;
             o = hwloc_get_next_obj_by_depth(t, d, o))
            if (o->attr && (!best || o->attr->cache.size > best->attr->cache.size))
                best = o;
    }
    if (!best || best->attr->cache.size == 0) {
        if (why && len)
            snprintf(why, len, "hwloc reports no data cache");
        return -1;
    }
    *bytes = best->attr->cache.size;
    *depth = best->attr->cache.depth;
    *line = best->attr->cache.linesize;
    return 0;
}

int mbx_cache_llc_bytes(uint64_t *out)
{
    unsigned depth, line;
    if (!out)
        return MBX_E_INVAL;
    return mbx_hwtopo_llc(out, &depth, &line, NULL, 0) < 0 ? MBX_E_UNSUPPORTED : MBX_OK;
}

int mbx_cache_flusher_init(mbx_cache_flusher *f, uint64_t bytes)
{
    if (!f)
        return MBX_E_INVAL;
    memset(f, 0, sizeof *f);
    if (bytes == 0 || bytes > SIZE_MAX / 2)
        return MBX_E_INVAL;
    uint64_t size, unused_bytes;
    unsigned depth, line = 0;
    if (mbx_hwtopo_llc(&unused_bytes, &depth, &line, NULL, 0) < 0 || line < sizeof(uint64_t) ||
        (line & (line - 1)) != 0)
        line = 64;
    size = (bytes + line - 1) / line * line;
    long page = sysconf(_SC_PAGESIZE);
    void *p = NULL;
    if (posix_memalign(&p, page > 0 ? (size_t)page : 4096, (size_t)size) != 0)
        return MBX_E_NOMEM;
    memset(p, 0, (size_t)size); /* fault every page in now, not in the first flush */
    f->buf = p;
    f->bytes = size;
    f->line = line;
    f->stamp = 1;
    return MBX_OK;
}

void mbx_cache_flush(mbx_cache_flusher *f)
{
    if (!f || !f->buf)
        return;
    /* Volatile stores of a value that changes every call: the compiler may
     * neither drop them nor prove them redundant. One store per line makes
     * the CPU fetch and dirty every line, evicting what was cached. */
    volatile uint64_t *p = f->buf;
    size_t step = f->line / sizeof *p, n = (size_t)(f->bytes / sizeof *p);
    uint64_t v = f->stamp++;
    for (size_t i = 0; i < n; i += step)
        p[i] = v;
}

void mbx_cache_flusher_free(mbx_cache_flusher *f)
{
    if (!f)
        return;
    free(f->buf);
    memset(f, 0, sizeof *f);
}
