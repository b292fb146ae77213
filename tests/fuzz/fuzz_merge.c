/* libFuzzer target: `mpibex merge` (mbx_merge_add_file) over up to four
 * results files, the parts of the input between MBX_FUZZ_SEP lines. A file
 * it refuses must leave the merge as it was; the merged table must read
 * back as MBX_MERGE_NCOLS columns, one row per key. */
#include <string.h>

#include "fuzz_util.h"
#include "mbx/merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FILES 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *part[MAX_FILES];
    size_t plen[MAX_FILES];
    size_t nparts = mbx_fuzz_split(data, size, part, plen, MAX_FILES);
    mbx_merge *m = NULL;
    MBX_FUZZ_CHECK(mbx_merge_new(&m) == MBX_OK);
    for (size_t i = 0; i < nparts; i++) {
        char name[32], path[4200], msg[512] = "";
        snprintf(name, sizeof name, "run%zu.csv", i + 1);
        mbx_fuzz_write(name, part[i], plen[i], path, sizeof path);
        mbx_merge_summary before, after;
        mbx_merge_summarize(m, &before);
        int rc = mbx_merge_add_file(m, path, msg, sizeof msg);
        mbx_merge_summarize(m, &after);
        if (rc == MBX_OK) {
            MBX_FUZZ_CHECK(after.files == before.files + 1 && after.keys >= before.keys);
        } else {
            MBX_FUZZ_CHECK(rc == MBX_E_PROTO && msg[0] != '\0' && strchr(msg, '\n') == NULL);
            MBX_FUZZ_CHECK(memcmp(&before, &after, sizeof before) == 0);
        }
    }
    mbx_merge_summary sum;
    mbx_merge_summarize(m, &sum);
    MBX_FUZZ_CHECK(sum.partial_keys <= sum.keys && sum.keys <= sum.rows);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    MBX_FUZZ_CHECK(f != NULL);
    MBX_FUZZ_CHECK(mbx_merge_write_stream(m, f) == MBX_OK);
    MBX_FUZZ_CHECK(fclose(f) == 0);
    mbx_csv_table t;
    MBX_FUZZ_CHECK(mbx_csv_read_buffer(text, len, &t) == MBX_OK);
    MBX_FUZZ_CHECK(t.nrows == sum.keys + 1);
    for (size_t r = 0; r < t.nrows; r++)
        MBX_FUZZ_CHECK(t.ncols[r] == MBX_MERGE_NCOLS);
    mbx_csv_table_free(&t);
    free(text);
    mbx_merge_free(m);
    return 0;
}
