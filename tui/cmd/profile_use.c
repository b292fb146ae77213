/* The machine profile a run or the explorer uses (profile_use.h). */
#include "profile_use.h"

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mbx/dir.h"
#include "mbx/status.h"

void mbx_profile_identity(int fake, char *host, size_t hlen, char *mpi, size_t mlen)
{
    char h[256] = "";
    if (gethostname(h, sizeof h - 1) != 0)
        snprintf(h, sizeof h, "unknown");
    snprintf(host, hlen, "%s", h);
    if (fake) {
        snprintf(mpi, mlen, "fake back end");
        return;
    }
    /* The environment file's mpi_library: the version string's first line. */
    char ver[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    MPI_Get_library_version(ver, &len);
    ver[strcspn(ver, "\n")] = '\0';
    snprintf(mpi, mlen, "%.127s", ver);
}

int mbx_profile_default_path(const char *host, const char *mpi, char *out, size_t len)
{
    char dir[4096];
    if (mbx_dir_state_path(getenv("XDG_STATE_HOME"), getenv("HOME"), dir, sizeof dir) != MBX_OK)
        return -1;
    return mbx_profile_path(dir, host, mpi, out, len) == MBX_OK ? 0 : -1;
}

static int age_note(mbx_profile_use *u, long long now)
{
    double days = (double)(now - u->p.created) / 86400;
    snprintf(u->note, sizeof u->note,
             "intervals widened by the machine profile %.300s (%zu launches, %.1f day%s old): "
             "ci_scope profile where it has the benchmark, ranks and size",
             u->path, u->p.k, days, days == 1 ? "" : "s");
    u->loaded = 1;
    return 0;
}

int mbx_profile_use_open(mbx_profile_use *u, const char *opt, int fake, long long now)
{
    char host[256], mpi[128], why[1024];
    memset(u, 0, sizeof *u);
    if (opt != NULL && strcmp(opt, "none") == 0) {
        snprintf(u->note, sizeof u->note, "intervals are launch-scoped (--profile none)");
        return 0;
    }
    int named = opt != NULL && strcmp(opt, "auto") != 0;
    mbx_profile_identity(fake, host, sizeof host, mpi, sizeof mpi);
    if (named)
        snprintf(u->path, sizeof u->path, "%s", opt);
    else if (mbx_profile_default_path(host, mpi, u->path, sizeof u->path) != 0) {
        snprintf(u->note, sizeof u->note,
                 "intervals are launch-scoped (no state directory for a profile); %s",
                 MBX_PROFILE_HOWTO);
        return 0;
    }
    struct stat sb;
    if (!named && stat(u->path, &sb) != 0) {
        snprintf(u->note, sizeof u->note,
                 "intervals are launch-scoped (no machine profile for this host and MPI); %s",
                 MBX_PROFILE_HOWTO);
        return 0;
    }
    u->found = 1;
    int rc = mbx_profile_read(u->path, &u->p, why, sizeof why);
    if (rc == MBX_OK) {
        rc = mbx_profile_check(&u->p, host, mpi, now, MBX_PROFILE_MAX_AGE_DAYS, why, sizeof why);
        if (rc == MBX_OK)
            return age_note(u, now);
        mbx_profile_free(&u->p);
        if (!named) /* a path of its own name holds another identity: said, not used */
            snprintf(why + strlen(why), sizeof why - strlen(why), " (%.300s)", u->path);
    }
    if (named) {
        snprintf(u->note, sizeof u->note,
                 "--profile: %s; allowed a profile of this host and "
                 "MPI at most %d days old (mpibex calibrate), auto or none",
                 why, MBX_PROFILE_MAX_AGE_DAYS);
        return 2;
    }
    snprintf(u->note, sizeof u->note, "intervals are launch-scoped: profile not used: %s; %s", why,
             MBX_PROFILE_HOWTO);
    return 0;
}

void mbx_profile_use_free(mbx_profile_use *u)
{
    mbx_profile_free(&u->p);
    u->loaded = 0;
}
