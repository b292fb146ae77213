/* The pattern tables of patterns.def (written into the build directory by
 * engine/mpi/CMakeLists.txt from the bench_NAME.c files that have a
 * MBX_PATTERN_ORDER line), declared once: each bench_NAME.c includes this,
 * so its definitions are checked against these. */
#ifndef MBX_PATTERNS_H
#define MBX_PATTERNS_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/bench.h"

#define MBX_PATTERN(name)                                                                          \
    extern const mbx_bench mbx_bench_##name##_table[];                                             \
    extern const size_t mbx_bench_##name##_count;
#define MBX_PATTERN_OPENMP(name) MBX_PATTERN(name)
#include "patterns.def"
#undef MBX_PATTERN
#undef MBX_PATTERN_OPENMP

/* The test hook every data check honours: MBX_TEST_CORRUPT=1 in the
 * environment makes the check flip a received byte (or result), to prove
 * it can fail. Read in set-up or the check, never in a timed loop. */
static inline int mbx_test_corrupt(void)
{
    const char *hook = getenv("MBX_TEST_CORRUPT");
    return hook && strcmp(hook, "1") == 0;
}

#endif
