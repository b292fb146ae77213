#include "msg.h"

#include <stdarg.h>
#include <stdio.h>

void mbx_msgf(char *msg, size_t msglen, const char *fmt, ...)
{
    if (msg == NULL || msglen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
}
