#include <string.h>

#include "bench_coll.h"
#include "mbx/bench.h"
#include "patterns.h"

/* Every pattern's table, in the order of patterns.def (MBX_PATTERN_ORDER). */
static const struct {
    const mbx_bench *v;
    const size_t *n;
} tables[] = {
#define MBX_PATTERN(name) {mbx_bench_##name##_table, &mbx_bench_##name##_count},
#ifdef MBX_HAVE_OPENMP
#define MBX_PATTERN_OPENMP(name) MBX_PATTERN(name)
#else
#define MBX_PATTERN_OPENMP(name)
#endif
#include "patterns.def"
#undef MBX_PATTERN
#undef MBX_PATTERN_OPENMP
};
#define NTABLES (sizeof tables / sizeof tables[0])

#define MBX_STR_(x) #x
#define MBX_STR(x) MBX_STR_(x)
/* The MPI's version as its header gives it, for the reasons below. */
#define MPI_IS "its MPI is " MBX_STR(MPI_VERSION) "." MBX_STR(MPI_SUBVERSION)

/* What the configure checks found missing (engine/mpi/CMakeLists.txt):
 * the names the pattern files would have made, and why they did not. */
static const struct {
    const char *name, *why;
} absent[] = {
#ifndef MBX_HAVE_MPI_PCOLL
#define ABSENT_PCOLL(x, ...)                                                                       \
    {"coll." #x "_init", MPI_IS ", without the MPI-4.0 persistent collectives (MPI_Bcast_init)"},
    MBX_PCOLL_LIST(ABSENT_PCOLL)
#undef ABSENT_PCOLL
#endif
#ifndef MBX_HAVE_MPI_PART
        {"part.send_recv", MPI_IS ", without MPI-4.0 partitioned communication (MPI_Psend_init)"},
    {"part.mt", MPI_IS ", without MPI-4.0 partitioned communication (MPI_Psend_init)"},
#endif
    {NULL, NULL}, /* never empty */
};

int mbx_bench_absent(size_t i, const char **name, const char **why)
{
    for (size_t k = 0; absent[k].name; k++)
        if (k == i) {
            *name = absent[k].name;
            *why = absent[k].why;
            return 1;
        }
    return 0;
}

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

int mbx_bench_find(const char *name, int *id)
{
    for (size_t i = 0; i < mbx_bench_count(); i++)
        if (strcmp(mbx_bench_get((int)i)->name, name) == 0) {
            *id = (int)i;
            return MBX_OK;
        }
    *id = -1;
    return MBX_E_UNKNOWN;
}

const char *mbx_bench_zero_why(const mbx_bench *b)
{
    if (!(b->flags & MBX_BENCH_SIZED))
        return NULL;
    /* MPI takes a count of 0 everywhere; but a reduction of nothing
     * combines nothing, and its time is no reduction's. */
    if (b->op)
        return "a reduction needs at least one element";
    return NULL;
}

uint64_t mbx_bench_align(const mbx_bench *b, uint64_t bytes)
{
    if (!(b->flags & MBX_BENCH_SIZED))
        return 0;
    if (bytes == 0 && !mbx_bench_zero_why(b))
        return 0;
    uint64_t a = bytes - bytes % b->unit;
    return a < b->unit ? b->unit : a;
}
