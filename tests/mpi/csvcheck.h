/* csvcheck's per-row rules (csvcheck_row.c) and what they share with its
 * main (csvcheck.c): the failure count, CHECK and the cell readers. */
#ifndef MBX_CSVCHECK_H
#define MBX_CSVCHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mbx/csvio.h"

extern int mbx_cc_failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "csvcheck: " __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                                   \
            mbx_cc_failures++;                                                                     \
        }                                                                                          \
    } while (0)

/* The number in column col of row r; NAN when empty, absent or not one. */
static inline double num(const mbx_csv_table *t, size_t r, const char *col)
{
    int c = mbx_csv_table_col(t, col);
    if (c < 0 || (size_t)c >= t->ncols[r] || t->cell[r][c][0] == '\0')
        return NAN;
    char *end;
    double v = strtod(t->cell[r][c], &end);
    return *end == '\0' ? v : NAN;
}

/* The text in column col of row r; "" when absent. */
static inline const char *str(const mbx_csv_table *t, size_t r, const char *col)
{
    int c = mbx_csv_table_col(t, col);
    return c < 0 || (size_t)c >= t->ncols[r] ? "" : t->cell[r][c];
}

/* Every rule of one row (docs/csv-format.md), part.*'s set-up figures,
 * and the overlap columns of the benchmarks named (n of them). */
void mbx_cc_check_row(const mbx_csv_table *t, size_t r);
void mbx_cc_check_part(const mbx_csv_table *t, size_t r);
void mbx_cc_check_overlap(const mbx_csv_table *t, size_t r, const char *const *names, int n);

#endif
