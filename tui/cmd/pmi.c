#include "pmi.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bridgeproto.h" /* mbx_bridge_now_ms */

int mbx_pmi_finalize(int timeout_ms)
{
    const char *s = getenv("PMI_FD");
    char *end = NULL;
    errno = 0;
    long fd = s ? strtol(s, &end, 10) : -1;
    if (!s || *s == '\0' || *end != '\0' || errno || fd < 0 || fd > INT_MAX)
        return 0;
    static const char req[] = "cmd=finalize\n";
    ssize_t w;
    while ((w = write((int)fd, req, sizeof req - 1)) < 0 && errno == EINTR)
        ;
    if (w != (ssize_t)(sizeof req - 1))
        return MBX_E_IO;
    char buf[128];
    size_t n = 0;
    long long deadline = mbx_bridge_now_ms() + timeout_ms;
    while (!memchr(buf, '\n', n)) {
        long long left = deadline - mbx_bridge_now_ms();
        struct pollfd p = {.fd = (int)fd, .events = POLLIN};
        int ready = left > 0 ? poll(&p, 1, (int)left) : 0;
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0 || n == sizeof buf)
            return MBX_E_IO;
        ssize_t got = read((int)fd, buf + n, sizeof buf - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return MBX_E_IO;
        n += (size_t)got;
    }
    static const char ack[] = "cmd=finalize_ack";
    size_t k = sizeof ack - 1;
    return n > k && memcmp(buf, ack, k) == 0 && (buf[k] == '\n' || buf[k] == ' ') ? 1 : MBX_E_PROTO;
}
