#include <string.h>

#include "mbx/bench.h"

size_t mbx_bench_count(void)
{
    return mbx_bench_pingpong_count + mbx_bench_coll_count;
}

const mbx_bench *mbx_bench_get(int id)
{
    if (id < 0)
        return NULL;
    size_t i = (size_t)id;
    if (i < mbx_bench_pingpong_count)
        return &mbx_bench_pingpong_table[i];
    i -= mbx_bench_pingpong_count;
    if (i < mbx_bench_coll_count)
        return &mbx_bench_coll_table[i];
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
