/* mpibex CSV files, written and read through libcsv.
 *
 * The writer quotes every field libcsv says needs it and writes each row
 * with one write(2) as it comes (mbx/file.h): a crash loses at most the row
 * in flight, a full disk leaves no half row (the file is cut back), a
 * symbolic link planted at the path is never followed, and a file removed
 * or renamed under the writer is noticed at the next row. The reader hands
 * over one row at a time with its line (or loads a whole file into a table
 * of strings, the header row first), and the number readers below are the
 * one definition of what a number field may hold. Pure C, no MPI. */
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
    size_t *line;  /* the line row r begins on (1-based) */
    size_t cap;    /* rows allocated */
} mbx_csv_table;

/* One row of a CSV file for mbx_csv_read_rows: n NUL-terminated fields
 * (valid during the call only; the callee may change their bytes) and the
 * line the row begins on (1-based; quoted fields may span lines, blank
 * lines are no rows). Returns MBX_OK to go on, or a negative status that
 * stops the reading and is returned by it. */
typedef int (*mbx_csv_row_fn)(void *ctx, char *const *field, size_t n, size_t line);

/* The most bytes one row may hold (its fields together): a longer row is
 * refused, so a file without line ends (/dev/zero) cannot fill memory. */
#define MBX_CSV_ROW_MAX (1024 * 1024)

/* Where and why the reader refused its input (not fn): the line the
 * refused row begins on, and "malformed CSV quoting", "a NUL byte in
 * field N" or "a row longer than MBX_CSV_ROW_MAX bytes". */
typedef struct mbx_csv_why {
    size_t line;
    char text[64];
} mbx_csv_why;

/* Read the CSV file at path one row at a time, the header row first, with
 * strict RFC 4180 quoting; memory holds one row whatever the file's size.
 * A leading UTF-8 byte-order mark (as spreadsheets write) is skipped.
 * Errors: MBX_E_IO (errno) unreadable, MBX_E_PROTO malformed quoting, a
 * NUL byte in a field (it would cut the field short) or a row over
 * MBX_CSV_ROW_MAX bytes, MBX_E_NOMEM, or the status fn returned. */
MBX_NODISCARD int mbx_csv_read_rows(const char *path, mbx_csv_row_fn fn, void *ctx);
/* The same from an open stream (read to its end, not closed). */
MBX_NODISCARD int mbx_csv_read_stream(FILE *f, mbx_csv_row_fn fn, void *ctx);
/* The same two, with why (may be NULL) filled when the reader itself
 * refuses the input (MBX_E_PROTO). */
MBX_NODISCARD int mbx_csv_read_rows_why(const char *path, mbx_csv_row_fn fn, void *ctx,
                                        mbx_csv_why *why);
MBX_NODISCARD int mbx_csv_read_stream_why(FILE *f, mbx_csv_row_fn fn, void *ctx, mbx_csv_why *why);
/* The same over len bytes of data. */
MBX_NODISCARD int mbx_csv_parse_rows(const char *data, size_t len, mbx_csv_row_fn fn, void *ctx);

/* Parse a whole CSV file into a table (through mbx_csv_read_rows: the same
 * quoting and byte-order mark rules). Errors: MBX_E_IO for an unreadable
 * file, MBX_E_PROTO for malformed CSV. */
MBX_NODISCARD int mbx_csv_read_file(const char *path, mbx_csv_table *out);
MBX_NODISCARD int mbx_csv_read_buffer(const char *data, size_t len, mbx_csv_table *out);
void mbx_csv_table_free(mbx_csv_table *t);

/* The path of a sidecar file: OUT.csv -> OUT<suffix> (".env.csv"), and
 * OUT -> OUT<suffix> when OUT does not end in ".csv". Caller frees; NULL
 * when out of memory. */
char *mbx_csv_sidecar(const char *path, const char *suffix);

/* Index of column `name` in the header row, or -1 when there is none. */
int mbx_csv_table_col(const mbx_csv_table *t, const char *name);

/* Index of column `name` in a header row of n fields, or -1 when there is
 * none. */
int mbx_csv_col(const char *const *hdr, size_t n, const char *name);

/* The numbers of results files, read by every reader (merge, compare,
 * report, resume, repeat): plain decimal text only, the same in every
 * locale. A number is digits with at most one '.', and optionally an
 * exponent (e or E, an optional sign, digits); no sign, no spaces, no hex,
 * no inf or nan. */

/* Largest time a results file may hold, in microseconds (11.6 days). */
#define MBX_CSV_TIME_US_MAX 1e12
/* Words for an error message: what a time field may hold. */
#define MBX_CSV_TIME_WANT "a time in microseconds, 0 <= t < 1e12 (plain decimal)"
/* Largest other number (bandwidth, ratio) a results file may hold. */
#define MBX_CSV_NUMBER_MAX 1e30
#define MBX_CSV_NUMBER_WANT "a number, 0 <= x < 1e30 (plain decimal)"
/* Largest observation count (n) a results row may hold. */
#define MBX_CSV_COUNT_MAX 1000000000000ULL

/* s as a number in [0, max): MBX_OK and *v, MBX_E_INVAL when s is not a
 * number as above, MBX_E_RANGE when it is max or more. An empty s gives
 * NAN and MBX_OK when empty_ok. */
MBX_NODISCARD int mbx_csv_number(const char *s, double max, int empty_ok, double *v);

/* s as a time in microseconds: mbx_csv_number with MBX_CSV_TIME_US_MAX. */
MBX_NODISCARD int mbx_csv_time_us(const char *s, int empty_ok, double *v);

/* x as a field with printf format fmt (one double, fixed point such as
 * "%.4f") into buf, or in exponent form ("%.6e") when |x| >= 1e15, so that
 * no field is ever hundreds of digits long or cut short; empty when x is
 * not finite. */
void mbx_csv_fmt_number(char *buf, size_t len, const char *fmt, double x);

/* Spreadsheets run a cell that starts with = + - @ TAB or CR as a
 * formula (=HYPERLINK(...), @SUM(...)|cmd, +1+1): a text cell copied from
 * an input file into a CSV that someone will open in one. 1 when s is such
 * a cell and not a plain number (-1.5 and +3e2 stay numbers), else 0. */
int mbx_csv_is_formula(const char *s);

/* A malloc'd copy of the text cell s to write, with a leading single
 * quote when mbx_csv_is_formula(s) (OWASP's rule for CSV injection: the
 * spreadsheet shows it as text). NULL when out of memory. */
char *mbx_csv_text_dup(const char *s);

/* s as a whole number in [0, max]: digits only (no sign, no spaces), else
 * MBX_E_INVAL; MBX_E_RANGE above max. */
MBX_NODISCARD int mbx_csv_count(const char *s, unsigned long long max, unsigned long long *v);

#endif
