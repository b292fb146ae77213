/* Locale-free text (see mbx/ascii.h). Numbers go through the C locale with
 * uselocale, which is per thread: the process locale and other threads are
 * never touched, so this is safe inside benchmark threads and in a host
 * program that set its own locale. */
#include "mbx/ascii.h"

#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static locale_t c_loc = (locale_t)0;
static pthread_once_t c_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void)
{
    c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

/* The C locale object, or 0 when it could not be made (out of memory);
 * then the caller runs in the current locale, which the front ends keep
 * at "C" for numbers anyway. */
static locale_t c_locale(void)
{
    pthread_once(&c_once, make_c_locale);
    return c_loc;
}

int mbx_ascii_casecmp(const char *a, const char *b)
{
    const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
    int d;
    while ((d = mbx_ascii_tolower(*p) - mbx_ascii_tolower(*q)) == 0 && *p) {
        p++;
        q++;
    }
    return d;
}

int mbx_ascii_ncasecmp(const char *a, const char *b, size_t n)
{
    const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
    for (; n > 0; n--, p++, q++) {
        int d = mbx_ascii_tolower(*p) - mbx_ascii_tolower(*q);
        if (d != 0 || *p == '\0')
            return d;
    }
    return 0;
}

double mbx_strtod(const char *s, char **end)
{
    locale_t c = c_locale();
    locale_t old = c ? uselocale(c) : (locale_t)0;
    double v = strtod(s, end);
    if (c)
        uselocale(old);
    return v;
}

int mbx_vsnprintf_c(char *buf, size_t len, const char *fmt, va_list ap)
{
    locale_t c = c_locale();
    locale_t old = c ? uselocale(c) : (locale_t)0;
    int n = vsnprintf(buf, len, fmt, ap);
    if (c)
        uselocale(old);
    return n;
}

int mbx_snprintf_c(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = mbx_vsnprintf_c(buf, len, fmt, ap);
    va_end(ap);
    return n;
}
