/* Printing text that holds untrusted strings (CSV fields, plan values,
 * file names) to a terminal: stdout or stderr. */
#ifndef MBX_TPRINT_H
#define MBX_TPRINT_H

#include <stdarg.h>
#include <stdio.h>

/* fprintf, with the formatted text passed through mbx_esc_term (control
 * characters, ESC, C1 and invalid UTF-8 shown as `\xNN`, never raw); only a
 * final newline is written as one, so a value cannot start a new line or a
 * terminal sequence. Returns the bytes written, or -1 when writing failed. */
int mbx_tprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int mbx_vtprintf(FILE *f, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* prefix and line on stderr as one escaped line (mbx_tprintf): the print
 * function of a command's bad-input line (core/opt.h). */
void mbx_tprint_line(const char *prefix, const char *line);

/* s escaped by mbx_esc_term into buf[len] (cut between whole escapes when
 * it does not fit); returns buf, for table cells and the like. */
const char *mbx_tesc(const char *s, char *buf, size_t len);

/* Data (CSV) for stdout: written raw when stdout is a file or a pipe, but
 * when it is a terminal, collected in memory and shown with every line
 * escaped as above (a field may hold ESC sequences). */
typedef struct mbx_tbuf {
    FILE *out, *mem;
    char *buf;
    size_t len;
} mbx_tbuf;

/* The stream to write the data to: out itself, or a memory stream when out
 * is a terminal (NULL when that cannot be made: out of memory). */
FILE *mbx_tbuf_open(mbx_tbuf *t, FILE *out);

/* Write what was collected, escaped, to out; 0, or -1 when writing failed
 * (errno set). Nothing to do when out was not a terminal. */
int mbx_tbuf_close(mbx_tbuf *t);

#endif
