/* The installed data directory next to the executable (share.h). */
#include "share.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int mbx_share_path(const char *what, char *buf, size_t len)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash == NULL)
        return -1;
    *slash = '\0'; /* PREFIX/bin */
    int w = snprintf(buf, len, "%s/../share/mpibex/%s", self, what);
    struct stat st;
    if (w < 0 || (size_t)w >= len || stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        return -1;
    return 0;
}
