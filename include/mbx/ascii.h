/* Locale-free text: ASCII character classes and case, and numbers that are
 * read and written with '.' as the decimal point whatever the locale.
 *
 * Files, plans and command lines mean the same under every locale: the
 * <ctype.h> classes, strcasecmp and toupper follow LC_CTYPE (under tr_TR
 * "KIB" and "kib" differ: 'I' folds to a dotless i), and strtod and printf
 * follow LC_NUMERIC (under de_DE 0.03 is written "0,03"). Every parser and
 * file writer of mpibex uses these helpers instead; the front ends take only
 * LC_CTYPE from the environment (for the terminal's wide characters). */
#ifndef MBX_ASCII_H
#define MBX_ASCII_H

#include <stdarg.h>
#include <stddef.h>

/* The ASCII classes of a byte (as an int, like <ctype.h>); bytes >= 0x80
 * belong to none of them, in every locale. */
static inline int mbx_ascii_isdigit(int c)
{
    return c >= '0' && c <= '9';
}

static inline int mbx_ascii_isupper(int c)
{
    return c >= 'A' && c <= 'Z';
}

static inline int mbx_ascii_islower(int c)
{
    return c >= 'a' && c <= 'z';
}

static inline int mbx_ascii_isalpha(int c)
{
    return mbx_ascii_isupper(c) || mbx_ascii_islower(c);
}

static inline int mbx_ascii_isalnum(int c)
{
    return mbx_ascii_isalpha(c) || mbx_ascii_isdigit(c);
}

static inline int mbx_ascii_isxdigit(int c)
{
    return mbx_ascii_isdigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Space, tab, newline, vertical tab, form feed, carriage return. */
static inline int mbx_ascii_isspace(int c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* 0x20..0x7e: no control character, no byte of a multibyte sequence. */
static inline int mbx_ascii_isprint(int c)
{
    return c >= 0x20 && c <= 0x7e;
}

/* A-Z and a-z swapped case; every other byte is returned unchanged. */
static inline int mbx_ascii_tolower(int c)
{
    return mbx_ascii_isupper(c) ? c - 'A' + 'a' : c;
}

static inline int mbx_ascii_toupper(int c)
{
    return mbx_ascii_islower(c) ? c - 'a' + 'A' : c;
}

/* strcmp after folding A-Z to a-z only: <0, 0 or >0. Both non-NULL. */
int mbx_ascii_casecmp(const char *a, const char *b);

/* mbx_ascii_casecmp over at most n bytes. */
int mbx_ascii_ncasecmp(const char *a, const char *b, size_t n);

/* strtod in the C locale: '.' is the decimal point, the white space it
 * skips is ASCII, and "inf"/"nan" are matched without LC_CTYPE's case
 * rules. Same contract as strtod (end, errno = ERANGE); thread-safe. */
double mbx_strtod(const char *s, char **end);

/* snprintf and vsnprintf in the C locale ('.' as the decimal point, no
 * thousands grouping): for every number that goes into a file, a plan, a
 * command line or a message. Same return value as snprintf. */
int mbx_snprintf_c(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int mbx_vsnprintf_c(char *buf, size_t len, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

#endif
