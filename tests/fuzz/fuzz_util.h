/* Helpers shared by the libFuzzer targets in tests/fuzz.
 *
 * A target gets one byte string per run. Text parsers take it as a C
 * string; readers of several files (merge, compare, resume) cut it into
 * files at MBX_FUZZ_SEP and write them into a private directory, since
 * those readers take paths. Checks abort (libFuzzer reports a crash and
 * saves the input), unlike assert(), which RelWithDebInfo compiles out. */
#ifndef MBX_FUZZ_UTIL_H
#define MBX_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Separates the files of a multi-file input (a line of its own). */
#define MBX_FUZZ_SEP "\n@@\n"

#define MBX_FUZZ_CHECK(cond)                                                                       \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* data[0..len) as a NUL-terminated string the caller frees (an embedded NUL
 * ends it early, as it would for the C string the parser gets in real use). */
char *mbx_fuzz_cstr(const uint8_t *data, size_t len);

/* Cut data at each MBX_FUZZ_SEP into at most max parts (the last keeps any
 * further separators); returns how many, at least 1. */
size_t mbx_fuzz_split(const uint8_t *data, size_t len, const uint8_t **part, size_t *plen,
                      size_t max);

/* The process's private directory (mkdtemp under $TMPDIR, else /dev/shm,
 * else /tmp), made on first use and removed with its contents at exit. */
const char *mbx_fuzz_dir(void);

/* Write data to DIR/name, replacing it (name may contain one level of
 * subdirectory, made as needed); the full path goes into path. Aborts when
 * it cannot. A target writes every file it passes on in every run, so no
 * run reads what the one before left. */
void mbx_fuzz_write(const char *name, const void *data, size_t len, char *path, size_t pathlen);

#endif
