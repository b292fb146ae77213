#include <string.h>

#include "mbx/bench.h"

/* Every pattern's table, in display order. */
static const struct {
    const mbx_bench *v;
    const size_t *n;
} tables[] = {
    {mbx_bench_pingpong_table, &mbx_bench_pingpong_count},
    {mbx_bench_simple_table, &mbx_bench_simple_count},
    {mbx_bench_coll_table, &mbx_bench_coll_count},
    {mbx_bench_fanout_table, &mbx_bench_fanout_count},
    {mbx_bench_mw_table, &mbx_bench_mw_count},
    {mbx_bench_threads_table, &mbx_bench_threads_count},
    {mbx_bench_mt_table, &mbx_bench_mt_count},
#ifdef MBX_HAVE_OPENMP
    {mbx_bench_omp_table, &mbx_bench_omp_count},
#endif
};
#define NTABLES (sizeof tables / sizeof tables[0])

size_t mbx_bench_count(void)
{
    size_t n = 0;
    for (size_t t = 0; t < NTABLES; t++)
        n += *tables[t].n;
    return n;
}

const mbx_bench *mbx_bench_get(int id)
{
    if (id < 0)
        return NULL;
    size_t i = (size_t)id;
    for (size_t t = 0; t < NTABLES; t++) {
        if (i < *tables[t].n)
            return &tables[t].v[i];
        i -= *tables[t].n;
    }
    return NULL;
}

int mbx_bench_find(const char *name)
{
    for (size_t i = 0; i < mbx_bench_count(); i++)
        if (strcmp(mbx_bench_get((int)i)->name, name) == 0)
            return (int)i;
    return -1;
}

uint64_t mbx_bench_align(const mbx_bench *b, uint64_t bytes)
{
    if (!(b->flags & MBX_BENCH_SIZED))
        return 0;
    uint64_t a = bytes - bytes % b->unit;
    return a < b->unit ? b->unit : a;
}
