/* The verdict on the MPI library for the one-sided benchmarks
 * (mbx/rmacheck.h; docs/user-guide.md, "One-sided"). */
#include "mbx/rmacheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/ascii.h"

int mbx_rma_rcache_off(const char *value)
{
    static const char *const off[] = {"n", "no", "off", "0", "false"};
    if (!value)
        return 0;
    for (size_t i = 0; i < sizeof off / sizeof *off; i++)
        if (mbx_ascii_casecmp(value, off[i]) == 0)
            return 1;
    return 0;
}

/* "MAJOR.MINOR..." at s into the two numbers; 0 or -1 when s does not
 * start with them. The rest (".2", "a1", " (revision ...)") is ignored. */
static int major_minor(const char *s, long *major, long *minor)
{
    char *end;
    if (!s || !mbx_ascii_isdigit((unsigned char)*s))
        return -1;
    *major = strtol(s, &end, 10);
    if (*end != '.' || !mbx_ascii_isdigit((unsigned char)end[1]))
        return -1;
    *minor = strtol(end + 1, NULL, 10);
    return 0;
}

/* The text after "KEY" and its blanks on a line of text, or NULL. */
static const char *field(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    if (!p)
        return NULL;
    p += strlen(key);
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* MPICH's version (its "MPICH Version:" line) is 4.0.x, and its device,
 * when the text names one, is a UCX one (ch4:ucx). */
static int mpich_40_ucx(const char *mpi, char *ver, size_t len)
{
    const char *v = mpi ? field(mpi, "MPICH Version:") : NULL;
    long major, minor;
    if (!v || major_minor(v, &major, &minor) != 0 || major != 4 || minor != 0)
        return 0;
    size_t n = strcspn(v, " \t\r\n");
    snprintf(ver, len, "%.*s", (int)(n < 32 ? n : 32), v);
    const char *dev = field(mpi, "MPICH Device:");
    if (dev) {
        size_t dn = strcspn(dev, "\r\n");
        char d[64];
        snprintf(d, sizeof d, "%.*s", (int)(dn < sizeof d - 1 ? dn : sizeof d - 1), dev);
        if (!strstr(d, "ucx"))
            return 0;
    }
    return 1;
}

mbx_rma_verdict mbx_rma_judge(const mbx_rma_facts *f, char *why, size_t len)
{
    char mver[40];
    long major, minor;
    if (!f || !mpich_40_ucx(f->mpi, mver, sizeof mver) || major_minor(f->ucx, &major, &minor) != 0)
        return MBX_RMA_OK;
    if (major < 1 || (major == 1 && minor < 13) || mbx_rma_rcache_off(f->rcache))
        return MBX_RMA_OK;
    size_t un = strcspn(f->ucx, " \t\r\n");
    char state[64];
    if (f->rcache)
        snprintf(state, sizeof state, "%s=%.16s", MBX_RMA_FIX_VAR, f->rcache);
    else
        snprintf(state, sizeof state, "%s unset", MBX_RMA_FIX_VAR);
    if (why && len)
        snprintf(why, len,
                 "rma.* needs %s=%s in the job's environment here: MPICH %s over UCX %.*s moves "
                 "no data in one-sided operations while UCX's registration cache is on (%s; "
                 "pmodels/mpich#6140), and such rma.* points are INVALID",
                 MBX_RMA_FIX_VAR, MBX_RMA_FIX_VALUE, mver, (int)(un < 32 ? un : 32), f->ucx, state);
    return MBX_RMA_BROKEN;
}
