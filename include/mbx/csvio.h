/* mpibex CSV files, written and read through libcsv.
 *
 * The writer quotes every field libcsv says needs it and flushes after
 * each row, so a crash loses at most the row in flight. The reader loads a
 * whole file into a table of strings, the header row first. Pure C, no MPI. */
#ifndef MBX_CSVIO_H
#define MBX_CSVIO_H

#include <stddef.h>
#include <stdio.h>

#include "mbx/status.h"

typedef struct mbx_csv_writer mbx_csv_writer; /* opaque */

/* Create (truncate) path and write the header row of ncols columns.
 * Returns MBX_E_IO if the file cannot be created. */
MBX_NODISCARD int mbx_csv_writer_open(const char *path, const char *const *cols, size_t ncols,
                                      mbx_csv_writer **out);

/* Open path for appending; the header row is written only when the file
 * is empty (the caller has checked that an existing header matches). */
MBX_NODISCARD int mbx_csv_writer_append(const char *path, const char *const *cols, size_t ncols,
                                        mbx_csv_writer **out);

/* Cut a torn last row (bytes after the last newline) off a file written by
 * a process that was killed mid-row; *removed gets the bytes cut. */
MBX_NODISCARD int mbx_csv_trim_torn(const char *path, size_t *removed);

/* Write one row of exactly the header's column count, then flush. NULL
 * fields are written empty. */
MBX_NODISCARD int mbx_csv_writer_row(mbx_csv_writer *w, const char *const *fields);

/* Flush and close; returns MBX_E_IO if any write failed. NULL is allowed. */
int mbx_csv_writer_close(mbx_csv_writer *w);

/* Write a single CSV row to a stream (fields quoted as needed), no flush. */
MBX_NODISCARD int mbx_csv_fputrow(FILE *f, const char *const *fields, size_t n);

typedef struct mbx_csv_table {
    size_t nrows;  /* including the header row */
    size_t *ncols; /* per row */
    char ***cell;  /* cell[r][c], NUL-terminated */
} mbx_csv_table;

/* Parse a whole CSV file (strict RFC 4180 quoting). Errors: MBX_E_IO for
 * an unreadable file, MBX_E_PROTO for malformed CSV. */
MBX_NODISCARD int mbx_csv_read_file(const char *path, mbx_csv_table *out);
MBX_NODISCARD int mbx_csv_read_buffer(const char *data, size_t len, mbx_csv_table *out);
void mbx_csv_table_free(mbx_csv_table *t);

/* The path of a sidecar file: OUT.csv -> OUT<suffix> (".env.csv"), and
 * OUT -> OUT<suffix> when OUT does not end in ".csv". Caller frees; NULL
 * when out of memory. */
char *mbx_csv_sidecar(const char *path, const char *suffix);

/* Index of column `name` in the header row, or -1. */
int mbx_csv_table_col(const mbx_csv_table *t, const char *name);

#endif
