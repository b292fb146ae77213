/* mpibex merge: combine the results of several runs (SKaMPI's postprocessor).
 *
 * Each input is one results table (OUT.csv of `mpibex run`). A point's key is
 * (benchmark, label, procs, bytes, root, op, param, rma_sync); every row is one run of
 * its key. Per key the merge keeps the median of the runs' medians, their
 * minimum, maximum and relative spread, the median of the runs' trimmed
 * means, the total observation count and the worst status. Keys keep the
 * order of their first appearance (file order, then row order). The output
 * columns are a contract described in docs/csv-format.md. Pure C, no MPI. */
#ifndef MBX_MERGE_H
#define MBX_MERGE_H

#include <stddef.h>
#include <stdio.h>

#include "mbx/csvio.h"
#include "mbx/status.h"

typedef struct mbx_merge mbx_merge; /* opaque accumulator */

/* 21..23: stderr_us, ci95_lo_us, ci95_hi_us of median_us with the runs as
 * the units (mbx_passes_between over the runs' medians; empty below two
 * runs with a value): a CI over launches, for `mpibex repeat`. 24: rma_sync
 * (one-sided benchmarks' sync mode, empty for others and for inputs without
 * the column). 25: ci_scope, launches:K (K the runs with a value) beside
 * such a CI. 26..27: pi95_lo_us, pi95_hi_us, where another launch's median
 * is expected, 95 % (docs/algorithms.md; empty below two runs). */
#define MBX_MERGE_NCOLS 28
extern const char *const mbx_merge_columns[MBX_MERGE_NCOLS];

/* Create an empty merge. Errors: MBX_E_NOMEM. */
MBX_NODISCARD int mbx_merge_new(mbx_merge **out);

/* Free a merge and everything it owns; NULL is allowed. */
void mbx_merge_free(mbx_merge *m);

/* Add one results table (header row first) as the next input file; `name`
 * (a path, used only in messages) is not kept. The whole table is checked
 * before anything is added, so after MBX_E_PROTO the merge is unchanged.
 * Errors, with one line in msg (no trailing newline):
 *  - MBX_E_PROTO: not a results table: a required column is missing (the
 *    message names the column and the file), a row has the wrong number of
 *    fields ("NAME:LINE: ..."), or a value is malformed ("NAME:LINE: col: ...");
 *  - MBX_E_NOMEM (the merge may hold part of the table: free it). */
MBX_NODISCARD int mbx_merge_add_table(mbx_merge *m, const mbx_csv_table *t, const char *name,
                                      char *msg, size_t msglen);

/* Read the CSV file at path and add it (see mbx_merge_add_table): one row
 * at a time, twice (check, then add), so memory holds the merge and one
 * row whatever the file's size; a pipe is read once, and may leave part of
 * it merged when refused. Extra errors: MBX_E_IO when the file cannot be
 * read (the message names it and gives strerror), MBX_E_PROTO for
 * malformed CSV quoting. */
MBX_NODISCARD int mbx_merge_add_file(mbx_merge *m, const char *path, char *msg, size_t msglen);

typedef struct mbx_merge_summary {
    size_t files;        /* tables added */
    size_t rows;         /* data rows read over all files */
    size_t keys;         /* distinct keys = rows of the merged output */
    size_t partial_keys; /* keys missing from at least one file */
} mbx_merge_summary;

void mbx_merge_summarize(const mbx_merge *m, mbx_merge_summary *out);

/* One merged row as CSV fields. fields[i] points into `store`, into the
 * merge (valid until mbx_merge_free) or to "" for an undefined value. */
typedef struct mbx_merge_fields {
    char store[MBX_MERGE_NCOLS][48];
    const char *field[MBX_MERGE_NCOLS];
} mbx_merge_fields;

/* Format key i (0 <= i < keys, first-appearance order). */
void mbx_merge_format(const mbx_merge *m, size_t i, mbx_merge_fields *out);

/* Write every merged row to w, a writer opened with mbx_merge_columns
 * (which wrote the header); the caller closes it. Errors: MBX_E_IO. */
MBX_NODISCARD int mbx_merge_write(const mbx_merge *m, mbx_csv_writer *w);

/* The header and every merged row to an open stream (e.g. stdout), flushed
 * at the end. Errors: MBX_E_IO. */
MBX_NODISCARD int mbx_merge_write_stream(const mbx_merge *m, FILE *f);

#endif
