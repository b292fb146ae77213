/* The memory one rank may take (mbx/memavail.h): /proc/meminfo and the
 * cgroup limits of the process, v2 and v1. */
#include "mbx/memavail.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first line of ROOT/PATH as a byte count: 1 and *v, or 0 when the
 * file is missing or holds no number ("max": no limit). */
static int read_bytes(const char *root, const char *path, uint64_t *v)
{
    char p[4096], line[128];
    snprintf(p, sizeof p, "%s%s", root, path);
    FILE *f = fopen(p, "r");
    if (f == NULL)
        return 0;
    int ok = fgets(line, sizeof line, f) != NULL && sscanf(line, "%" SCNu64, v) == 1;
    fclose(f);
    return ok;
}

static int mem_available(const char *root, uint64_t *out)
{
    char p[4096], line[256];
    snprintf(p, sizeof p, "%s/proc/meminfo", root);
    FILE *f = fopen(p, "r");
    if (f == NULL)
        return 0;
    int ok = 0;
    unsigned long long kib;
    while (!ok && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
            *out = (uint64_t)kib * 1024u;
            ok = 1;
        }
    fclose(f);
    return ok;
}

/* The room under the limit of the cgroup at dir (under the controller's
 * mount) and every parent of it, into *room and *why when smaller. */
static void cgroup_room(const char *root, const char *mount, const char *dir, const char *limit,
                        const char *usage, uint64_t *room, char *why, size_t whylen)
{
    char d[2048];
    snprintf(d, sizeof d, "%s", dir);
    for (;;) {
        char lim[4096], use[4096];
        snprintf(lim, sizeof lim, "%s%s/%s", mount, strcmp(d, "/") == 0 ? "" : d, limit);
        snprintf(use, sizeof use, "%s%s/%s", mount, strcmp(d, "/") == 0 ? "" : d, usage);
        uint64_t l, u = 0;
        if (read_bytes(root, lim, &l)) {
            read_bytes(root, use, &u);
            uint64_t r = l > u ? l - u : 0;
            if (r < *room) {
                *room = r;
                snprintf(why, whylen, "%s", lim);
            }
        }
        char *slash = strrchr(d, '/');
        if (slash == NULL || strcmp(d, "/") == 0 || d[0] == '\0')
            break;
        if (slash == d)
            d[1] = '\0';
        else
            *slash = '\0';
    }
}

int mbx_mem_rank_budget(const char *root, int local_ranks, uint64_t *out, char *why, size_t whylen)
{
    if (root == NULL || out == NULL || why == NULL || whylen == 0 || local_ranks < 1)
        return MBX_E_INVAL;
    uint64_t room;
    if (!mem_available(root, &room))
        return MBX_E_IO;
    snprintf(why, whylen, "MemAvailable");
    char p[4096], line[2048];
    snprintf(p, sizeof p, "%s/proc/self/cgroup", root);
    FILE *f = fopen(p, "r");
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        /* "0::/path" (v2), "N:memory:/path" or "N:cpu,memory:/path" (v1) */
        char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
        if (b == NULL)
            continue;
        *b = '\0';
        const char *ctl = a + 1, *dir = b + 1;
        if (*ctl == '\0')
            cgroup_room(root, "/sys/fs/cgroup", dir, "memory.max", "memory.current", &room, why,
                        whylen);
        else if (strcmp(ctl, "memory") == 0 || strstr(ctl, "memory") != NULL)
            cgroup_room(root, "/sys/fs/cgroup/memory", dir, "memory.limit_in_bytes",
                        "memory.usage_in_bytes", &room, why, whylen);
    }
    if (f != NULL)
        fclose(f);
    *out = room / (uint64_t)local_ranks;
    return MBX_OK;
}
