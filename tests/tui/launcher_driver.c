/* End-to-end helper for bridge_e2e.sh: the real launcher without the rest
 * of mpibex. With MBX_EXPLORE_CMD set (see launcher.c) the job runs that
 * command instead of "SELF explore". */
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "launcher.h"

int main(int argc, char **argv)
{
    char self[PATH_MAX];
    const char *given = getenv("MBX_TEST_SELF");
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    return mbx_launcher_main(argc, argv, given && *given ? given : self);
}
