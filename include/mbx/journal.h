/* The run journal: what makes `mpibex run --resume` possible (SKaMPI).
 *
 * Next to OUT.csv, OUT.journal records the plan's fingerprint, the ping-
 * pong pair in use, a "pass" line after every pass the scheduler accepted,
 * and a "begin" line before every point's row and a "done" line after it.
 * After a crash the CSV's complete rows are the finished points (a torn
 * last row is cut off), and the pass lines of the points without a row are
 * carried over into the resumed run (mbx_sched_preload): a crash loses at
 * most the pass in flight. */
#ifndef MBX_JOURNAL_H
#define MBX_JOURNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mbx/passes.h"

#define MBX_KEY_MAX 192

/* A point's identity in a run: label, benchmark, procs, bytes, param (0 when
 * the benchmark has none), root (-1 when it has none). */
void mbx_point_key(char *buf, size_t len, const char *label, const char *bench, int procs,
                   uint64_t bytes, long long param, int root);

/* A point of a killed run without a row and the passes it had: times on the
 * journal's timeline (seconds; see mbx_resume.pass_end). */
typedef struct mbx_resume_open {
    char key[MBX_KEY_MAX];
    char curve[MBX_KEY_MAX]; /* the key without procs and bytes */
    int refined;
    int procs;
    uint64_t bytes;
    mbx_pass *pass; /* npass, in the order measured */
    size_t npass, cappass;
} mbx_resume_open;

typedef struct mbx_resume {
    size_t n;                   /* finished points (rows of OUT.csv) */
    char (*key)[MBX_KEY_MAX];   /* n keys */
    double *median_s;           /* n medians in seconds (NAN when empty) */
    double *plain_s;            /* n plain_us in seconds (NAN when empty or no such column) */
    int *refined;               /* n flags */
    char (*curve)[MBX_KEY_MAX]; /* n curve keys: the key without procs and bytes */
    int *procs;                 /* n */
    uint64_t *bytes;            /* n */
    /* Points without a row whose passes the journal recorded (pass lines),
     * nopen of them, and the passes of all of them (npass). */
    size_t nopen, npass;
    struct mbx_resume_open *open;
    /* The latest pass end of the journal's timeline (every pass line,
     * with or without a row; 0 when none): a resumed run's passes go after
     * it, so a journal resumed twice keeps one timeline. */
    double pass_end;
    int pair_a, pair_b, have_pair; /* the ping-pong pair the run used */
    size_t torn_bytes;             /* bytes of a torn last row cut off */
    uint64_t seed;                 /* the order's seed the run used */
    int have_seed;
    /* Columns of OUT.csv's header: the first ncols of mbx_result_columns
     * (fewer than MBX_RESULT_NCOLS when an earlier version wrote it; rows
     * appended must have as many); 0 when the file is empty. */
    size_t ncols;
    /* The largest seq of OUT.csv's rows, at least its row count
     * n (a file without a seq column, of an earlier version): the resumed
     * run's rows
     * count on from it, whether the file is still in the order appended or
     * was sorted when an earlier resume ended. */
    size_t seq_max;
} mbx_resume;

/* A curve's identity: label, benchmark, param, root (see mbx_point_key). */
void mbx_curve_key(char *buf, size_t len, const char *label, const char *bench, long long param,
                   int root);

/* Load OUT.csv and its journal for a resume of the run with fingerprint
 * `hash`. Returns MBX_OK, or with a one-line message: MBX_E_IO when a file
 * cannot be read (a missing journal included), MBX_E_INVAL when a file is
 * not what a resume needs (another plan, a CSV that is not ours, a header
 * that is not a prefix of mbx_result_columns, a row of another width than
 * the header), MBX_E_NOMEM when out of memory. After a failure *out holds
 * nothing (mbx_resume_free is still allowed). */
MBX_NODISCARD int mbx_resume_load(const char *csv, const char *journal, uint64_t hash,
                                  mbx_resume *out, char *msg, size_t len);
void mbx_resume_free(mbx_resume *r);
/* Index of key among the finished points, or -1 when it is none of them. */
long mbx_resume_find(const mbx_resume *r, const char *key);
/* Index of key among the unfinished points with passes (r->open), or -1
 * when it is none of them. */
long mbx_resume_find_open(const mbx_resume *r, const char *key);

typedef struct mbx_journal mbx_journal; /* opaque */

/* Open the journal: a new one (truncate; write the fingerprint), or append
 * to the one being resumed (a torn last line is cut off first). Never
 * through a symbolic link; mode 0666 less the umask. MBX_E_IO with errno
 * on failure. */
int mbx_journal_open(const char *path, uint64_t hash, int append, mbx_journal **out);
/* One line each, written whole or not at all (mbx/file.h). Errors: MBX_E_IO
 * with errno (ENOSPC, ...), MBX_E_GONE when the journal's path no longer
 * names it. A NULL journal accepts everything. */
int mbx_journal_pair(mbx_journal *j, int a, int b);
int mbx_journal_seed(mbx_journal *j, uint64_t seed);
int mbx_journal_begin(mbx_journal *j, const char *key, int refined);
int mbx_journal_done(mbx_journal *j, const char *key);
/* A pass the scheduler accepted (not a pilot): "pass R MEDIAN N T0 T1 KEY",
 * numbers in the C locale, MEDIAN and times in seconds to 17 digits (read
 * back exactly). One write(2), no fsync: what a SIGKILL of the process
 * must not lose is in the kernel once write returns. */
int mbx_journal_pass(mbx_journal *j, const char *key, int refined, const mbx_pass *p);
/* Save what the journal holds into a new file at path (see
 * mbx_csv_writer_copy). */
int mbx_journal_copy(const mbx_journal *j, const char *path);
void mbx_journal_close(mbx_journal *j);

/* FNV-1a, for fingerprints. */
uint64_t mbx_fnv1a(uint64_t h, const void *data, size_t len);
#define MBX_FNV_OFFSET 0xcbf29ce484222325ull

#endif
