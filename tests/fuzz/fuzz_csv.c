/* libFuzzer target: the CSV reader (mbx_csv_read_buffer), under merge,
 * compare, report and --resume. A table that reads must be well formed,
 * with rows on increasing lines, and writing it with mbx_csv_fputrow must
 * give text that reads back to the same table: the writer's quoting and
 * the reader agree. Every cell also goes through the number fields every
 * reader shares: what they take is plain decimal, inside the range, and
 * exactly what strtod (C locale here) makes of it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "mbx/csvio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_number(const char *s)
{
    double v;
    int rc = mbx_csv_time_us(s, 1, &v);
    MBX_FUZZ_CHECK(rc == MBX_OK || rc == MBX_E_INVAL || rc == MBX_E_RANGE);
    if (rc == MBX_OK && *s != '\0') {
        MBX_FUZZ_CHECK(strspn(s, "0123456789.eE+-") == strlen(s) && s[0] != '-' && s[0] != '+');
        MBX_FUZZ_CHECK(v >= 0 && v < MBX_CSV_TIME_US_MAX && v == strtod(s, NULL));
    }
    unsigned long long u;
    rc = mbx_csv_count(s, ~0ULL, &u);
    MBX_FUZZ_CHECK(rc == MBX_OK || rc == MBX_E_INVAL || rc == MBX_E_RANGE);
    if (rc == MBX_OK)
        MBX_FUZZ_CHECK(strspn(s, "0123456789") == strlen(s) && u == strtoull(s, NULL, 10));
}

static void check_table(const mbx_csv_table *t)
{
    MBX_FUZZ_CHECK(t->nrows == 0 || (t->cell != NULL && t->ncols != NULL));
    for (size_t r = 0; r < t->nrows; r++) {
        MBX_FUZZ_CHECK(t->ncols[r] >= 1);
        for (size_t c = 0; c < t->ncols[r]; c++)
            MBX_FUZZ_CHECK(t->cell[r][c] != NULL);
    }
    for (size_t r = 0; r < t->nrows; r++) {
        MBX_FUZZ_CHECK(t->line[r] >= 1 && (r == 0 || t->line[r] > t->line[r - 1]));
        for (size_t c = 0; c < t->ncols[r]; c++)
            check_number(t->cell[r][c]);
    }
    for (size_t c = 0; t->nrows > 0 && c < t->ncols[0]; c++) {
        int at = mbx_csv_table_col(t, t->cell[0][c]);
        MBX_FUZZ_CHECK(at >= 0 && (size_t)at <= c && strcmp(t->cell[0][at], t->cell[0][c]) == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mbx_csv_table t;
    int rc = mbx_csv_read_buffer((const char *)data, size, &t);
    /* Every byte but the byte-order mark is in some field: a NUL byte is
     * refused, never cut a field short. */
    MBX_FUZZ_CHECK(memchr(data, '\0', size) == NULL || rc == MBX_E_PROTO);
    if (rc != MBX_OK) {
        MBX_FUZZ_CHECK(rc == MBX_E_PROTO);
        MBX_FUZZ_CHECK(t.nrows == 0 && t.cell == NULL && t.ncols == NULL);
        return 0;
    }
    check_table(&t);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    MBX_FUZZ_CHECK(f != NULL);
    for (size_t r = 0; r < t.nrows; r++)
        MBX_FUZZ_CHECK(mbx_csv_fputrow(f, (const char *const *)t.cell[r], t.ncols[r]) == MBX_OK);
    MBX_FUZZ_CHECK(fclose(f) == 0);

    mbx_csv_table back;
    rc = mbx_csv_read_buffer(text, len, &back);
    if (rc != MBX_OK) {
        fprintf(stderr, "written table does not read back (%d):\n%.*s\n", rc, (int)len, text);
        abort();
    }
    MBX_FUZZ_CHECK(back.nrows == t.nrows);
    for (size_t r = 0; r < t.nrows; r++) {
        MBX_FUZZ_CHECK(back.ncols[r] == t.ncols[r]);
        for (size_t c = 0; c < t.ncols[r]; c++)
            if (strcmp(back.cell[r][c], t.cell[r][c]) != 0) {
                fprintf(stderr, "row %zu field %zu: wrote '%s', read '%s'\n", r, c, t.cell[r][c],
                        back.cell[r][c]);
                abort();
            }
    }
    mbx_csv_table_free(&back);
    mbx_csv_table_free(&t);
    free(text);
    return 0;
}
