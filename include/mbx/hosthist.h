/* The host's history (docs/algorithms.md, "A launch in an unusual state
 * of its host"; docs/csv-format.md, "History file"): one row per earlier
 * run on this host and MPI library, with the median of the monitor's
 * probes over that run, kept in the user's state directory. A run whose
 * probes never leave one state cannot tell from its own probes that the
 * machine has others, lasting longer than the run; the history can: a
 * point measured while the probe reads far from what this host's runs
 * usually read is in a state the launch's long run would not be in, and
 * its row says so. Pure C, no MPI; nothing here prints. */
#ifndef MBX_HOSTHIST_H
#define MBX_HOSTHIST_H

#include <stddef.h>

#include "mbx/status.h"

#define MBX_HOSTHIST_VERSION 1       /* the file's first row: mpibex_history,1 */
#define MBX_HOSTHIST_MIN_RUNS 5      /* earlier runs a reference needs */
#define MBX_HOSTHIST_USE_RUNS 50     /* the most recent runs it is from */
#define MBX_HOSTHIST_MAX_AGE_DAYS 30 /* older runs are not used */
#define MBX_HOSTHIST_MIN_SPAN_S 1.0  /* a run records itself after this many seconds of probes */
/* A probe this many robust standard deviations (1.4826 MAD of the log
 * probe medians of the earlier runs) from their center, and at least a
 * level shift away (mbx_levels_shifted at its default 20 %), is in an
 * unusual state. */
#define MBX_HOSTHIST_SDS 3.0
/* Level changes the earlier runs must have shown for a stay estimate. */
#define MBX_HOSTHIST_MIN_CHANGES 2

/* One earlier run. */
typedef struct mbx_hosthist_rec {
    long long when;      /* its end, seconds since the epoch, UTC */
    int procs;           /* ranks of the job: the probe's pair depends on them */
    size_t probes;       /* probes it took */
    double span;         /* seconds they spanned */
    size_t changes;      /* level changes they showed */
    double probe_median; /* their median, seconds; > 0 */
} mbx_hosthist_rec;

/* What the earlier runs of this host and MPI with the same ranks read. */
typedef struct mbx_hosthist_ref {
    size_t runs;      /* runs it is from; below MBX_HOSTHIST_MIN_RUNS it judges nothing */
    double center;    /* exp(median of their log probe medians), seconds */
    double spread;    /* 1.4826 MAD of those logs */
    double seconds;   /* the seconds their probes watched in all */
    size_t changes;   /* the level changes they saw in all */
    long long oldest; /* the oldest run used, seconds since the epoch */
} mbx_hosthist_ref;

/* The reference of n log probe medians (any order; reordered): runs n,
 * center and spread; the other fields are left as they are. */
void mbx_hosthist_reference(double *logs, size_t n, mbx_hosthist_ref *ref);

/* Whether a probe median (seconds) lies in an unusual state of ref's
 * host: 1, with *ratio = probe / center; 0 when it does not, or ref has
 * fewer than MBX_HOSTHIST_MIN_RUNS runs, or probe is not positive. */
int mbx_hosthist_unusual(const mbx_hosthist_ref *ref, double probe, double *ratio);

/* The mean stay in one machine state that ref's runs and seen further
 * seconds without a level change show: (seconds + seen) / changes, the
 * exponential's estimate over all the time watched (a stay cut off by the
 * end of a run counts its part). NAN when ref has fewer than
 * MBX_HOSTHIST_MIN_RUNS runs or fewer than MBX_HOSTHIST_MIN_CHANGES
 * changes. */
double mbx_hosthist_dwell(const mbx_hosthist_ref *ref, double seen);

/* The file name of the history of host and mpi in state directory dir:
 * DIR/history-HOST-XXXXXXXX.csv (as mbx_profile_path names a profile).
 * MBX_E_RANGE when it does not fit. */
int mbx_hosthist_path(const char *dir, const char *host, const char *mpi, char *out, size_t len);

/* Append rec to the history at path, creating it (mode 0600, with its
 * host and mpi rows) when it is not there; one write, so runs that end
 * together do not interleave their rows. MBX_E_IO (errno), MBX_E_INVAL
 * for a record that is not one (no probes, a probe median <= 0). */
int mbx_hosthist_append(const char *path, const char *host, const char *mpi,
                        const mbx_hosthist_rec *rec);

/* The reference of the history at path for a run of procs ranks on host
 * with mpi at time now: the most recent MBX_HOSTHIST_USE_RUNS runs of
 * procs ranks at most MBX_HOSTHIST_MAX_AGE_DAYS old. MBX_E_IO when it
 * cannot be read (errno; ENOENT: no history yet), MBX_E_PROTO for a bad
 * file or one of another host or MPI, with one line in msg naming the
 * line and the field. */
int mbx_hosthist_read(const char *path, const char *host, const char *mpi, int procs, long long now,
                      mbx_hosthist_ref *ref, char *msg, size_t len);

#endif
