#include "msg.h"

#include <stdarg.h>
#include <stdio.h>

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
