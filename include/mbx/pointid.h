/* A point's identity across results files: which rows of two files (or of
 * the launches of `mpibex repeat`) measured the same thing. merge, compare
 * (and the report's comparisons) and the report's grouping build it here,
 * and only here (docs/csv-format.md, "Which columns identify a point").
 *
 * The identity is (benchmark, label, procs, bytes, root, op, param,
 * rma_sync): the columns that change what a point measures. Every other
 * column is a result (median_us, msg_rate_per_s, overlap_pct, seq,
 * status_reason, ...) or says how it was measured (sync, cache, timer,
 * ranks): runs that differ there are runs of one point, which is what
 * `mpibex compare` tests. A column a file lacks (an earlier version's file)
 * reads as empty, so it matches the empty value only: a one-sided row of a
 * file without rma_sync is not taken for a lock_all row.
 *
 * Within one run, `--resume` keys its points by mbx_point_key
 * (mbx/journal.h) instead: the run's plan fixes op and rma_sync per label,
 * and a resume whose plan differs (a different --rma-sync included) is
 * refused by the plan's fingerprint. Pure C. */
#ifndef MBX_POINTID_H
#define MBX_POINTID_H

#include <stddef.h>

/* The text parts of an identity; procs and bytes are numbers beside them. */
enum {
    MBX_PID_BENCH,    /* benchmark */
    MBX_PID_LABEL,    /* label: the plan section, "cli" from the command line */
    MBX_PID_ROOT,     /* rooted collectives: the root; else empty */
    MBX_PID_OP,       /* reductions: operation/type; else empty */
    MBX_PID_PARAM,    /* benchmarks with a parameter (bw.* window, threads, ...); else empty */
    MBX_PID_RMA_SYNC, /* rma.*: fence, lock, lock_all or pscw; else empty */
    MBX_PID_NTEXT
};

/* The results-CSV column of each text part, in the enum's order. */
extern const char *const mbx_pid_columns[MBX_PID_NTEXT];

/* Where each text part is in a header of n names; -1 where it has none. */
void mbx_pid_find_columns(const char *const *hdr, size_t n, int col[MBX_PID_NTEXT]);

/* The text parts of a row: cell[col[t]], or "" where col[t] < 0. */
void mbx_pid_texts(char *const *cell, const int col[MBX_PID_NTEXT],
                   const char *text[MBX_PID_NTEXT]);

/* Whether the point (text, procs, bytes) is the point (want, procs_w,
 * bytes_w); a NULL part of want matches anything (compare --ignore, and
 * columns an observation file lacks). 1 or 0. */
int mbx_pid_match(const char *const text[MBX_PID_NTEXT], unsigned long long procs,
                  unsigned long long bytes, const char *const want[MBX_PID_NTEXT],
                  unsigned long long procs_w, unsigned long long bytes_w);

/* The identity as one string, for hash tables and sorted lookups: the
 * parts in the order benchmark, label, procs, bytes, root, op, param,
 * rma_sync, each ended by 0x1f (no results field holds it); procs and
 * bytes in decimal. A NULL text part is empty. Malloc'd; NULL when out of
 * memory. */
char *mbx_pid_key(const char *const text[MBX_PID_NTEXT], unsigned long long procs,
                  unsigned long long bytes);

#endif
