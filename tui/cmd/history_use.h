/* The host's history a run or the explorer reads and adds to (--history
 * auto|none; docs/user-guide.md, "The host's history"): the reference
 * of this host's earlier runs, given to the scheduler, and this run's
 * row, appended when it ends. Front end (rank 0). */
#ifndef MBX_HISTORY_USE_H
#define MBX_HISTORY_USE_H

#include <stddef.h>

#include "mbx/hosthist.h"
#include "mbx/sched.h"

typedef struct mbx_history_use {
    int on;               /* 1: read, and this run's row added */
    mbx_hosthist_ref ref; /* what the earlier runs read (runs 0: none) */
    int procs;
    char host[256], mpi[128];
    char path[4200];
    char note[1400]; /* one line: what the history holds, or why it is not used */
} mbx_history_use;

/* Resolve opt (NULL or "auto": the state directory's history of this
 * host and MPI; "none") for a job of procs ranks at time now: 0 with
 * u->note set, or 2 when opt is neither (u->note is the line to print). A
 * history that cannot be read or is not one is not used, and said so. The
 * fake back end (fake) keeps one only when opt is "auto", under its own
 * MPI name. */
int mbx_history_use_open(mbx_history_use *u, const char *opt, int fake, int procs, long long now);

/* Append the run of scheduler s (mbx_sched_host_record) at time now:
 * 0, or -1 with u->note saying why it was not kept (nothing to record is
 * 0). */
int mbx_history_use_record(mbx_history_use *u, mbx_sched *s, long long now);

#endif
