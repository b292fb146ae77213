/* mpibex b_eff_io driver (rank 0): runs the effective MPI-IO bandwidth
 * benchmark of Rabenseifner & Koniges (section 5, Table 2) through the
 * command loop and computes the b_eff_io value of the partition.
 *
 * Interface notes (stable; changes are listed here):
 *  - mem_per_proc 0 means MemAvailable of the host / ranks on the host (from
 *    mbx_engine_describe); MPART = max(2 MiB, mem_per_proc / 128).
 *  - dir NULL means $TMPDIR, else /tmp. The run uses its own directory
 *    DIR/mpibex-beffio-HOST-PID, removes it at the end, on failure and on
 *    SIGINT/SIGTERM (the caller's stop flag), and at the next start removes
 *    stale mpibex-beffio-HOST-PID directories of this host whose PID is dead
 *    (the only cleanup possible after a SIGKILL of rank 0).
 *  - keep is ignored: files are always removed.
 *  - mbx_beffio_row.bytes_total is summed over all ranks; mbps is MB/s with
 *    1 MB = 10^6 bytes (like the rest of mpibex: bandwidth_MBps).
 *  - The progress callback runs on rank 0 outside any timed region, once
 *    per row, after each phase (one pattern type under one access method);
 *    a non-zero return stops the run before the next phase (files removed,
 *    MBX_E_ABORTED). `done`/`total` count rows (total 129). The caller's
 *    stop flag (opts.stop_flag: SIGINT/SIGTERM) also stops it, between
 *    repetition batches. */
#ifndef MBX_TUI_BEFFIO_RUN_H
#define MBX_TUI_BEFFIO_RUN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "mbx/engine.h"

typedef struct mbx_beffio_opts {
    const char *dir;       /* NULL: $TMPDIR or /tmp */
    double T_s;            /* scheduled time T in seconds; 0: the short default (10 s) */
    uint64_t mem_per_proc; /* 0: host memory / ranks on the host */
    int keep;              /* ignored: files are always removed */
    /* The caller's stop flag, set by its signal handler (mbx_stop_signal),
     * or NULL: a set flag stops the run between repetition batches. */
    volatile sig_atomic_t *stop_flag;
} mbx_beffio_opts;

typedef struct mbx_beffio_row {
    int type;             /* pattern type 0..4 */
    int pattern;          /* row number of Table 2, 0..42 */
    const char *access;   /* "write", "rewrite", "read" */
    uint64_t chunk_bytes; /* l: contiguous chunk on disk */
    uint64_t mem_bytes;   /* L: contiguous chunk in memory (type 0), else l */
    int wellformed;       /* 1: power of two; 0: +8 byte */
    int unit;             /* U of Table 2 */
    uint64_t reps;        /* repetitions of the pattern (calls per rank) */
    double bytes_total, time_s, mbps;
} mbx_beffio_row;

typedef struct mbx_beffio_summary {
    double beffio_mbps;
    double per_access_mbps[3];     /* write, rewrite, read: weighted over types */
    double per_type_mbps[5];       /* weighted over access methods (25/25/50) */
    double type_access_mbps[5][3]; /* bytes / (open..close) of one type and method */
    int procs;
    double T_s;
    uint64_t mpart_bytes;
    double wall_s;
    char rules[512];
    char stale_note[600]; /* a stale run directory that was left in place, and why; "" if none */
} mbx_beffio_summary;

/* Rank 0 after every finished row; non-zero return stops the run. */
typedef int (*mbx_beffio_progress)(void *ud, const mbx_beffio_row *row, size_t done, size_t total);

/* Rank 0 only; every other rank must be in mbx_engine_serve(). Runs the
 * whole benchmark; `out` gets the summary. Returns MBX_OK or an error code
 * with a one-line reason in msg: MBX_E_INVAL (bad options, msg names the
 * field), MBX_E_RANGE (the directory lacks the space the schedule needs;
 * msg gives both figures), MBX_E_IO (directory unusable), MBX_E_MPI,
 * MBX_E_ABORTED (callback or stop signal). Files are removed on every path. */
int mbx_beffio_run(mbx_engine *e, const mbx_beffio_opts *o, mbx_beffio_progress cb, void *ud,
                   mbx_beffio_summary *out, char *msg, size_t msglen);

/* The summary's weighted figures from its type_access_mbps, as b_eff_io
 * weighs them (mbx/beffio.h): per_access_mbps over the types,
 * per_type_mbps over the access methods, and beffio_mbps over
 * per_access_mbps. The real back end and the fake both end with it. */
void mbx_beffio_summarize(mbx_beffio_summary *out);

/* Remove this host's stale mpibex-beffio-* directories in dir whose PID is
 * dead; returns how many were removed (a count >= 0: what cannot be removed
 * is left, and said in note). Called by mbx_beffio_run(). Only a
 * directory of this user that nobody else can write in is cleaned, and
 * only of the files a run creates (mbx_dir_remove): a planted link, a
 * directory of another user or one holding other files is left in place,
 * and note (may be NULL) says which and why in one line ("" if none). */
int mbx_beffio_cleanup_stale(const char *dir, char *note, size_t notelen);

#endif
