/* The host's history a run or the explorer uses (history_use.h). */
#include "history_use.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mbx/dir.h"
#include "mbx/status.h"
#include "profile_use.h"

/* The note of a history that was read. */
static void read_note(mbx_history_use *u, long long now)
{
    const mbx_hosthist_ref *r = &u->ref;
    if (r->runs < MBX_HOSTHIST_MIN_RUNS) {
        snprintf(u->note, sizeof u->note,
                 "host history: %zu earlier run%s of %d ranks on this host and MPI (%.300s); "
                 "from %d it says how long the host's states last (until then a run that sees "
                 "no level change flags its points: states unknown)",
                 r->runs, r->runs == 1 ? "" : "s", u->procs, u->path, MBX_HOSTHIST_MIN_RUNS);
        return;
    }
    double age = (double)(now - r->oldest), dwell = mbx_hosthist_dwell(r, 0);
    char over[32];
    if (age < 3600)
        snprintf(over, sizeof over, "%.0f min", age / 60);
    else if (age < 2 * 86400)
        snprintf(over, sizeof over, "%.0f h", age / 3600);
    else
        snprintf(over, sizeof over, "%.0f days", age / 86400);
    char st[96];
    if (isfinite(dwell))
        snprintf(st, sizeof st, "states last ~%.2g s (%zu level changes in %.0f s)", dwell,
                 r->changes, r->seconds);
    else
        snprintf(st, sizeof st, "%zu level change%s in %.0f s", r->changes,
                 r->changes == 1 ? "" : "s", r->seconds);
    snprintf(u->note, sizeof u->note,
             "host history: %zu runs of %d ranks over %s (%.300s): probe usually %.4g us, %s",
             r->runs, u->procs, over, u->path, r->center * 1e6, st);
}

int mbx_history_use_open(mbx_history_use *u, const char *opt, int fake, int procs, long long now)
{
    memset(u, 0, sizeof *u);
    u->ref.center = u->ref.spread = NAN;
    u->procs = procs;
    if (opt != NULL && strcmp(opt, "none") == 0) {
        snprintf(u->note, sizeof u->note, "host history off (--history none)");
        return 0;
    }
    if (opt != NULL && strcmp(opt, "auto") != 0) {
        snprintf(u->note, sizeof u->note, "--history: expected auto or none (got '%.100s')", opt);
        return 2;
    }
    /* The fake's probes are made up: they say nothing of this host, and
     * its runs (the golden screens) must not depend on the ones before. */
    if (fake && opt == NULL) {
        snprintf(u->note, sizeof u->note,
                 "host history off: the fake back end measures no host (--history auto to "
                 "keep one of its own)");
        return 0;
    }
    mbx_profile_identity(fake, u->host, sizeof u->host, u->mpi, sizeof u->mpi);
    char dir[4096];
    if (mbx_dir_state_path(getenv("XDG_STATE_HOME"), getenv("HOME"), dir, sizeof dir) != MBX_OK ||
        mbx_hosthist_path(dir, u->host, u->mpi, u->path, sizeof u->path) != MBX_OK) {
        snprintf(u->note, sizeof u->note, "host history off: no state directory");
        return 0;
    }
    char why[1024] = "";
    int rc = mbx_hosthist_read(u->path, u->host, u->mpi, procs, now, &u->ref, why, sizeof why);
    if (rc == MBX_E_IO && errno == ENOENT) {
        u->on = 1;
        snprintf(u->note, sizeof u->note,
                 "host history: none yet for this host and MPI; this run starts it (%.300s); "
                 "from %d runs it says how long the host's states last (until then a run that "
                 "sees no level change flags its points: states unknown)",
                 u->path, MBX_HOSTHIST_MIN_RUNS);
        return 0;
    }
    if (rc != MBX_OK) { /* another's or a broken file is left as it is, and not added to */
        snprintf(u->note, sizeof u->note, "host history not used: %s", why);
        return 0;
    }
    u->on = 1;
    read_note(u, now);
    return 0;
}

int mbx_history_use_record(mbx_history_use *u, mbx_sched *s, long long now)
{
    mbx_hosthist_rec rec;
    if (!u->on || !s || !mbx_sched_host_record(s, u->procs, now, &rec))
        return 0;
    char dir[4096];
    const char *why = "the path is too long";
    int fd = -1;
    if (mbx_dir_state_path(getenv("XDG_STATE_HOME"), getenv("HOME"), dir, sizeof dir) != MBX_OK ||
        mbx_dir_make(dir, MBX_DIR_PRIVATE, &fd, &why) != MBX_OK) {
        snprintf(u->note, sizeof u->note, "host history: this run not kept: %s (%.300s)", why, dir);
        return -1;
    }
    close(fd);
    if (mbx_hosthist_append(u->path, u->host, u->mpi, &rec) != MBX_OK) {
        snprintf(u->note, sizeof u->note, "host history: this run not kept: %.300s: %s", u->path,
                 strerror(errno));
        return -1;
    }
    return 0;
}
