#include "msg.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "mbx/ascii.h"

void mbx_msgf(char *msg, size_t msglen, const char *fmt, ...)
{
    if (msg == NULL || msglen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    mbx_vsnprintf_c(msg, msglen, fmt, ap);
    va_end(ap);
}

int mbx_field_count(const char *s, unsigned long long *v)
{
    if (*s < '0' || *s > '9')
        return 0;
    char *end;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return errno == 0 && *end == '\0';
}

int mbx_field_number(const char *s, double *v, int empty_ok)
{
    if (*s == '\0') {
        *v = NAN;
        return empty_ok;
    }
    char *end;
    errno = 0;
    *v = mbx_strtod(s, &end);
    return errno == 0 && end != s && *end == '\0' && isfinite(*v);
}
