/* mpibex CSV files, written and read through libcsv.
 *
 * The writer quotes every field libcsv says needs it and writes each row
 * with one write(2) as it comes (mbx/file.h): a crash loses at most the row
 * in flight, a full disk leaves no half row (the file is cut back), a
 * symbolic link planted at the path is never followed, and a file removed
 * or renamed under the writer is noticed at the next row. The reader loads
 * a whole file into a table of strings, the header row first. Pure C, no
 * MPI. */
#ifndef MBX_CSVIO_H
#define MBX_CSVIO_H

#include <stddef.h>
#include <stdio.h>

#include "mbx/status.h"

typedef struct mbx_csv_writer mbx_csv_writer; /* opaque */

/* Create (truncate) path, mode 0666 less the umask, and write the header
 * row of ncols columns. Returns MBX_E_IO with errno if the file cannot be
 * created (ELOOP: path is a symbolic link, which is never followed). */
MBX_NODISCARD int mbx_csv_writer_open(const char *path, const char *const *cols, size_t ncols,
                                      mbx_csv_writer **out);

/* Like mbx_csv_writer_open on a descriptor the writer takes over (closes):
 * standard output for -o -. Rows are written the same way; there is no
 * path to check, and the header goes first. */
MBX_NODISCARD int mbx_csv_writer_fdopen(int fd, const char *const *cols, size_t ncols,
                                        mbx_csv_writer **out);

/* Open path for appending; the header row is written only when the file
 * is empty (the caller has checked that an existing header matches). */
MBX_NODISCARD int mbx_csv_writer_append(const char *path, const char *const *cols, size_t ncols,
                                        mbx_csv_writer **out);

/* Cut a torn last row (bytes after the last newline) off a file written by
 * a process that was killed mid-row (any line-based file: CSV, journal);
 * *removed gets the bytes cut. A symbolic link is not followed (ELOOP). */
MBX_NODISCARD int mbx_csv_trim_torn(const char *path, size_t *removed);

/* Write one row of exactly the header's column count: all of it reaches
 * the file, or none of it does. NULL fields are written empty. Errors:
 * MBX_E_IO with errno (ENOSPC, ...; the file still ends after the last
 * complete row), MBX_E_GONE (errno ENOENT) when the row was written but the
 * path no longer names the file (removed, renamed, its directory gone):
 * mbx_csv_writer_copy can still save what it holds. */
MBX_NODISCARD int mbx_csv_writer_row(mbx_csv_writer *w, const char *const *fields);

/* Rows written between hold and commit are kept in memory and written as
 * one record by commit (all or none; errors as mbx_csv_writer_row). */
MBX_NODISCARD int mbx_csv_writer_hold(mbx_csv_writer *w);
MBX_NODISCARD int mbx_csv_writer_commit(mbx_csv_writer *w);

/* The end of the complete rows so far, and cutting the file back to such a
 * mark (to undo a record whose companion in another file failed). */
long long mbx_csv_writer_mark(const mbx_csv_writer *w);
MBX_NODISCARD int mbx_csv_writer_rewind(mbx_csv_writer *w, long long mark);

/* Copy the complete rows written so far into a new file at path (never
 * through a symbolic link; fails if path exists), even when the writer's
 * own file was removed: it is read through the open descriptor. */
MBX_NODISCARD int mbx_csv_writer_copy(const mbx_csv_writer *w, const char *path);

/* Close; returns MBX_E_IO if any write failed. NULL is allowed. */
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
