/* mpibex results: one measured point, and its CSV row.
 *
 * The column list below is a contract (docs/csv-format.md): scripts and later
 * features (merge, resume, compare) read these exact names. New columns may
 * be appended; none may be renamed or removed. Pure C, no MPI. */
#ifndef MBX_RESULT_H
#define MBX_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/passes.h"
#include "mbx/stats.h"
#include "mbx/status.h"
#include "mbx/stop.h"

/* 4: one between-pass interval, and the profile's columns; setup_us
 * appended since, adding to 4 (docs/csv-format.md). 3: points measured
 * in passes: median_us is the median of the
 * pass medians, stderr_us and ci95_*_us the between-pass error of it, the
 * pass columns (44..51) follow faults. 2: the events column; n counts the
 * observations used (events left out), and no time is written negative.
 * 1: before. */
#define MBX_FORMAT_VERSION 4

typedef enum mbx_point_status {
    MBX_POINT_SETTLED = 0,    /* the stop rule was met */
    MBX_POINT_UNSETTLED = 1,  /* stopped at n_max without meeting it, or events > 0 */
    MBX_POINT_UNRELIABLE = 2, /* corrected median below the resolution of one observation */
    MBX_POINT_SHIFTED = 3,    /* the machine changed level during the point, twice (monitor) */
    MBX_POINT_INVALID = 4,    /* no valid observation (window sync): no numbers */
    /* A fixed count (--stop fixed:N, OSU's -i): every observation asked for
     * was taken, with no precision target to meet or miss. */
    MBX_POINT_FIXED = 5,
    MBX_POINT_HUNG = 6, /* a pass did not return within its bound (watchdog): no numbers */
} mbx_point_status;

#define MBX_POINT_STATUS_COUNT 7

/* Name -> status ("SETTLED", ...): 1 with *out set, or 0 when the name is
 * unknown (a flag, not an mbx_status). */
int mbx_point_status_parse(const char *name, mbx_point_status *out);

/* Observation sync method and cache mode, for the sync and cache columns. */
typedef enum mbx_sync_kind { MBX_SYNC_BARRIER = 0, MBX_SYNC_WINDOW = 1 } mbx_sync_kind;
typedef enum mbx_cache_mode { MBX_CACHE_WARM = 0, MBX_CACHE_COLD = 1 } mbx_cache_mode;
const char *mbx_sync_name(mbx_sync_kind k);   /* "barrier", "window" */
const char *mbx_cache_name(mbx_cache_mode m); /* "warm", "cold" */

const char *mbx_point_status_name(mbx_point_status s);

/* One point, all times in seconds. */
/* Window sync, one point: how its windows moved (not a CSV column; the
 * run's environment file sums them). */
typedef struct mbx_window_stats {
    double first, last, smallest, largest; /* window lengths, seconds */
    size_t grown, shrunk;                  /* batches after which the window grew, shrank */
    size_t resyncs;                        /* clock syncs between this point's batches */
    int gave_up; /* 1: stopped at its time bound or drop limit, not by its rule */
} mbx_window_stats;

/* What a row's interval covers (docs/csv-format.md, ci_scope). */
typedef enum mbx_ci_scope {
    MBX_SCOPE_LAUNCH = 0, /* this launch's long-run median, from its passes */
    MBX_SCOPE_PROFILE = 1 /* widened by a machine profile's launch component */
} mbx_ci_scope;

#define MBX_RESULT_HOST_MAX 48 /* a host column's text, with the NUL (a field's room) */

typedef struct mbx_result {
    const char *benchmark; /* registry name (not owned) */
    const char *label;     /* plan section (not owned) */
    const char *timing;    /* how an observation is timed: mbx_bench.timing */
    int procs;
    uint64_t bytes;
    mbx_summary s;
    mbx_point_status status;
    mbx_stop_rule stop;
    size_t nmin, nmax;
    double overhead; /* timer overhead subtracted from each observation */
    size_t batches;
    double wall; /* wall time spent on the point, seconds */
    /* Parameters of the point (columns 27..): */
    int root;               /* rooted benchmarks; -1: none (empty field) */
    const char *op;         /* "MPI_SUM/MPI_FLOAT", or NULL (empty field) */
    int64_t param;          /* with param_name; ignored when param_name is NULL */
    const char *param_name; /* "pieces", or NULL (both fields empty) */
    char ranks[32];         /* ranks of the job that took part: "0-3", "0,3" */
    int refined;            /* 1: added by adaptive refinement; 0: a grid point */
    int validated;          /* 1: received data was checked and right (--validate) */
    uint64_t moved;         /* bytes one observation moves, for bandwidth; 0: bytes */
    uint64_t msgs;          /* messages one observation moves (column 52); 0: none counted */
    /* Method and machine state (columns 34..): */
    mbx_sync_kind sync;
    const char *clock_sync; /* window sync: "jk" or "hca"; NULL (empty) for barrier */
    mbx_cache_mode cache;
    size_t invalid;     /* observations taken but not used (window missed or overrun) */
    double probe;       /* monitor probe before the point, seconds; NAN: none (empty) */
    double probe_after; /* and after it */
    int remeasured;     /* 1: measured again because the first try straddled a shift */
    /* Accurate benchmarks (mbx_bench.companion, column 41): the median of
     * the plain benchmark measured at the same point right before, seconds.
     * NAN (empty) for every other benchmark, and when that measurement has
     * no meaningful median (INVALID, or UNRELIABLE: median <= 0); an
     * UNSETTLED median is kept, plain_status says so. */
    double plain;
    mbx_point_status plain_status; /* the plain measurement's; INVALID when there is none */
    /* Observations left out as events (column 42, MBX_EVENT_FACTOR times
     * the median or more): a stopped or preempted rank, not the operation. */
    size_t events;
    /* Minor page faults in the point's kept timed batches (column 43): per
     * batch the largest count of any rank (getrusage ru_minflt around the
     * batch's calls). A batch that faulted was measured once more first;
     * faults here are in batches that faulted again (then the point stops
     * redoing). */
    size_t faults;
    /* Passes (columns 44..51; mbx/sched.h). passes 0: the point
     * was measured in one go, and the fields below are empty. Otherwise
     * s.median is the median of the pass medians and s.stderr_, s.ci_lo,
     * s.ci_hi the between-pass error and CI; the pooled observations' iid
     * figures are kept as iid_*. */
    size_t passes;
    double pass_span; /* seconds from the first pass's start to the last's end */
    double iid_stderr, iid_ci_lo, iid_ci_hi; /* pooled observations, as if iid */
    size_t levels;                           /* machine levels the passes ran at (0: unknown) */
    double level_lo, level_hi; /* median of the pass medians at the fastest and slowest level */
    mbx_window_stats window;   /* window sync: how the point's windows moved */
    /* Overlap benchmarks (MBX_BENCH_OVERLAP, the last four columns:
     * pure_comm_us, compute_us, overall_us, overlap_pct). overlap 1 marks
     * such a row; then plain is the pure communication time (the coll.i*
     * companion's median), compute the inserted computation timed alone,
     * s.median the overall time (start + computation + wait), and the
     * percentage is mbx_overlap_pct of the three. 0: the columns are
     * empty. */
    int overlap;
    double compute; /* seconds; NAN: unknown */
    /* One-sided benchmarks (column rma_sync): the synchronisation mode's
     * word (mbx_rma_sync_name), NULL (empty field) for every other
     * benchmark. */
    const char *rma_sync;
    /* Columns seq and status_reason: the row's place in the order the points
     * were measured (1, 2, ...; 0: empty), which the sorted file no longer
     * shows; and why a point is not SETTLED, in a few words ("point-time 2
     * s", "max-passes 15", "time-limit 60 s"; docs/csv-format.md), empty
     * when SETTLED or unknown. */
    size_t seq;
    char status_reason[40];
    /* What the interval covers (column ci_scope; docs/csv-format.md):
     * LAUNCH, the default, or PROFILE after mbx_profile_widen, which also
     * sets pi_lo, pi_hi (columns pi95_lo_us, pi95_hi_us, seconds): where
     * another launch's median is expected, 95 %. Read only under PROFILE. */
    mbx_ci_scope ci_scope;
    double pi_lo, pi_hi;
    /* Column profile_ratio: median / the machine profile's center for this
     * point (mbx_profile_widen); 0: no profile center, empty. */
    double profile_ratio;
    /* Column stderr_launch_us: the launch-scoped err, seconds. Under
     * PROFILE, what stderr_us was before mbx_profile_widen added the
     * launch component (the within-launch error a reader checks against
     * the launch's own passes); under LAUNCH, stderr_us itself. */
    double launch_err;
    /* Columns level_share_lo and level_share_hi: the share of the run's
     * time (the monitor's probes) at its fastest and slowest level, when
     * the probes showed two levels or more; 0: unknown (empty fields). */
    double level_share_lo, level_share_hi;
    /* Column setup_us: what the benchmark made once per pass outside the
     * timed region (mbx_bench_ctx.setup_s: a persistent operation's
     * MPI_*_init, a topology), the maximum over ranks, seconds; a point measured in
     * passes carries their mean. NAN (empty) for a benchmark without one. */
    double setup;
    /* Column topology: the process topology the point ran on, as the
     * benchmark named it (mbx_bench_ctx.topology: "cart 2x2 periodic",
     * "ring 4"); empty for the benchmarks that make none. */
    char topology[32];
    /* Columns perceived_MBps, overhead_pct, early_bird_pct (part.*; the
     * last pass's set-up rounds, docs/algorithms.md, "Partitioned
     * communication"): the perceived time, seconds (the message over it
     * is the perceived bandwidth), the partitioned over one MPI_Send's
     * one-way time (overhead = 100 (ratio - 1)), and the early-bird share,
     * 0..1. NAN (or 0 from a zeroed row): empty. */
    double part_seen, part_ratio, part_early;
    /* Columns src_host and dst_host: the hosts of a node-pair cell's
     * sender and receiver (pairs.*; mbx/pairs_run.h); empty for every
     * other benchmark. */
    char src_host[MBX_RESULT_HOST_MAX], dst_host[MBX_RESULT_HOST_MAX];
} mbx_result;

/* The results columns, in file order: the one table of them
 * (docs/csv-format.md, "OUT.csv columns"; docs/contributing.md, "Add a
 * results column"). X(ID, name, unit, since, readers, formatter):
 *   ID        MBX_COL_<ID>, the column's index in a row of this version;
 *   name      the header's word, a contract: never renamed or removed;
 *   unit      as the docs' table gives it ("" for none);
 *   since     the format_version that brought it (a file of an earlier
 *             version lacks it, and a reader reads it as empty);
 *   readers   the readers that refuse a file without it (MBX_READ_*);
 *   formatter result.c's function that writes its field.
 * A new column goes at the end: files are read by name, and a resumed
 * run keeps its file's width (a prefix of this list). */
#define MBX_READ_COMPARE 1u /* mpibex compare */
#define MBX_READ_MERGE 2u   /* mpibex merge (and repeat) */
#define MBX_READ_RESUME 4u  /* run --resume */
#define MBX_READ_REPORT 8u  /* mpibex report */
#define MBX_READ_ALL (MBX_READ_COMPARE | MBX_READ_MERGE | MBX_READ_RESUME | MBX_READ_REPORT)
#define MBX_READ_CMR (MBX_READ_COMPARE | MBX_READ_MERGE | MBX_READ_REPORT)
#define MBX_READ_CMS (MBX_READ_COMPARE | MBX_READ_MERGE | MBX_READ_RESUME)

#define MBX_RESULT_COLUMNS(X)                                                                      \
    X(BENCHMARK, "benchmark", "", 1, MBX_READ_ALL, col_benchmark)                                  \
    X(PROCS, "procs", "ranks", 1, MBX_READ_ALL, col_procs)                                         \
    X(BYTES, "bytes", "bytes", 1, MBX_READ_ALL, col_bytes)                                         \
    X(N, "n", "", 1, MBX_READ_MERGE, col_n)                                                        \
    X(MEAN_US, "mean_us", "µs", 1, 0, col_mean)                                                    \
    X(TMEAN_US, "tmean_us", "µs", 1, MBX_READ_MERGE, col_tmean)                                    \
    X(MEDIAN_US, "median_us", "µs", 1, MBX_READ_ALL, col_median)                                   \
    X(MIN_US, "min_us", "µs", 1, 0, col_min)                                                       \
    X(MAX_US, "max_us", "µs", 1, 0, col_max)                                                       \
    X(Q1_US, "q1_us", "µs", 1, 0, col_q1)                                                          \
    X(Q3_US, "q3_us", "µs", 1, 0, col_q3)                                                          \
    X(STDDEV_US, "stddev_us", "µs", 1, 0, col_stddev)                                              \
    X(STDERR_US, "stderr_us", "µs", 1, 0, col_stderr)                                              \
    X(CI95_LO_US, "ci95_lo_us", "µs", 1, 0, col_ci_lo)                                             \
    X(CI95_HI_US, "ci95_hi_us", "µs", 1, 0, col_ci_hi)                                             \
    X(OUTLIERS, "outliers", "count", 1, 0, col_outliers)                                           \
    X(STATUS, "status", "", 1, MBX_READ_CMR, col_status)                                           \
    X(STOP_RULE, "stop_rule", "", 1, 0, col_stop_rule)                                             \
    X(BANDWIDTH_MBPS, "bandwidth_MBps", "MB/s", 1, 0, col_bandwidth)                               \
    X(TIMING, "timing", "", 1, 0, col_timing)                                                      \
    X(OVERHEAD_US, "overhead_us", "µs", 1, 0, col_overhead)                                        \
    X(NMIN, "nmin", "", 1, 0, col_nmin)                                                            \
    X(NMAX, "nmax", "", 1, 0, col_nmax)                                                            \
    X(BATCHES, "batches", "", 1, 0, col_batches)                                                   \
    X(WALL_S, "wall_s", "s", 1, 0, col_wall)                                                       \
    X(LABEL, "label", "", 1, MBX_READ_CMS, col_label)                                              \
    X(ROOT, "root", "rank", 1, MBX_READ_RESUME, col_root)                                          \
    X(OP, "op", "", 1, 0, col_op)                                                                  \
    X(PARAM, "param", "", 1, MBX_READ_RESUME, col_param)                                           \
    X(PARAM_NAME, "param_name", "", 1, 0, col_param_name)                                          \
    X(RANKS, "ranks", "", 1, 0, col_ranks)                                                         \
    X(REFINED, "refined", "0/1", 1, MBX_READ_RESUME, col_refined)                                  \
    X(VALIDATED, "validated", "yes/no", 1, 0, col_validated)                                       \
    X(SYNC, "sync", "", 1, 0, col_sync)                                                            \
    X(CLOCK_SYNC, "clock_sync", "", 1, 0, col_clock_sync)                                          \
    X(CACHE, "cache", "", 1, 0, col_cache)                                                         \
    X(INVALID, "invalid", "count", 1, 0, col_invalid)                                              \
    X(PROBE_US, "probe_us", "µs", 1, 0, col_probe)                                                 \
    X(PROBE_AFTER_US, "probe_after_us", "µs", 1, 0, col_probe_after)                               \
    X(REMEASURED, "remeasured", "0/1", 1, 0, col_remeasured)                                       \
    X(PLAIN_US, "plain_us", "µs", 1, 0, col_plain)                                                 \
    X(EVENTS, "events", "count", 2, 0, col_events)                                                 \
    X(FAULTS, "faults", "count", 2, 0, col_faults)                                                 \
    X(PASSES, "passes", "count", 3, 0, col_passes)                                                 \
    X(PASS_SPAN_S, "pass_span_s", "s", 3, 0, col_pass_span)                                        \
    X(STDERR_IID_US, "stderr_iid_us", "µs", 3, 0, col_iid_stderr)                                  \
    X(CI95_IID_LO_US, "ci95_iid_lo_us", "µs", 3, 0, col_iid_ci_lo)                                 \
    X(CI95_IID_HI_US, "ci95_iid_hi_us", "µs", 3, 0, col_iid_ci_hi)                                 \
    X(LEVELS, "levels", "count", 3, 0, col_levels)                                                 \
    X(LEVEL_LO_US, "level_lo_us", "µs", 3, 0, col_level_lo)                                        \
    X(LEVEL_HI_US, "level_hi_us", "µs", 3, 0, col_level_hi)                                        \
    X(SEQ, "seq", "count", 3, 0, col_seq)                                                          \
    X(STATUS_REASON, "status_reason", "text", 3, 0, col_status_reason)                             \
    X(MSG_RATE_PER_S, "msg_rate_per_s", "messages/s", 3, 0, col_msg_rate)                          \
    X(RMA_SYNC, "rma_sync", "", 3, 0, col_rma_sync)                                                \
    X(PURE_COMM_US, "pure_comm_us", "µs", 3, 0, col_pure_comm)                                     \
    X(COMPUTE_US, "compute_us", "µs", 3, 0, col_compute)                                           \
    X(OVERALL_US, "overall_us", "µs", 3, 0, col_overall)                                           \
    X(OVERLAP_PCT, "overlap_pct", "%", 3, 0, col_overlap_pct)                                      \
    X(CI_SCOPE, "ci_scope", "", 3, 0, col_ci_scope)                                                \
    X(PI95_LO_US, "pi95_lo_us", "µs", 4, 0, col_pi_lo)                                             \
    X(PI95_HI_US, "pi95_hi_us", "µs", 4, 0, col_pi_hi)                                             \
    X(LEVEL_SHARE_LO, "level_share_lo", "share", 4, 0, col_level_share_lo)                         \
    X(LEVEL_SHARE_HI, "level_share_hi", "share", 4, 0, col_level_share_hi)                         \
    X(PROFILE_RATIO, "profile_ratio", "ratio", 4, 0, col_profile_ratio)                            \
    X(STDERR_LAUNCH_US, "stderr_launch_us", "µs", 4, 0, col_stderr_launch)                         \
    X(SETUP_US, "setup_us", "µs", 4, 0, col_setup)                                                 \
    X(TOPOLOGY, "topology", "text", 4, 0, col_topology)                                            \
    X(PERCEIVED_MBPS, "perceived_MBps", "MB/s", 4, 0, col_perceived)                               \
    X(OVERHEAD_PCT, "overhead_pct", "%", 4, 0, col_part_overhead)                                  \
    X(EARLY_BIRD_PCT, "early_bird_pct", "%", 4, 0, col_early_bird)                                 \
    X(SRC_HOST, "src_host", "text", 4, 0, col_src_host)                                            \
    X(DST_HOST, "dst_host", "text", 4, 0, col_dst_host)                                            \
    X(P90_US, "p90_us", "µs", 4, 0, col_p90)                                                       \
    X(P90_CI95_LO_US, "p90_ci95_lo_us", "µs", 4, 0, col_p90_lo)                                    \
    X(P90_CI95_HI_US, "p90_ci95_hi_us", "µs", 4, 0, col_p90_hi)                                    \
    X(P99_US, "p99_us", "µs", 4, 0, col_p99)                                                       \
    X(P99_CI95_LO_US, "p99_ci95_lo_us", "µs", 4, 0, col_p99_lo)                                    \
    X(P99_CI95_HI_US, "p99_ci95_hi_us", "µs", 4, 0, col_p99_hi)                                    \
    X(TAIL_SCOPE, "tail_scope", "", 4, 0, col_tail_scope)                                          \
    X(TAIL_REASON, "tail_reason", "text", 4, 0, col_tail_reason)

#define MBX_RESULT_COL_ID_(id, name, unit, since, readers, fmt) MBX_COL_##id,
enum { MBX_RESULT_COLUMNS(MBX_RESULT_COL_ID_) MBX_RESULT_NCOLS };

/* One column of the table above. */
typedef struct mbx_result_column {
    const char *name, *unit;
    int since;        /* format_version */
    unsigned readers; /* MBX_READ_* that require it */
} mbx_result_column;
extern const mbx_result_column mbx_result_cols[MBX_RESULT_NCOLS];

/* The index of column name, or -1. */
int mbx_result_col(const char *name);

/* The columns reader (one MBX_READ_*) requires, in file order: up to max
 * names into names; returns how many there are. */
size_t mbx_result_required(unsigned reader, const char **names, size_t max);

/* A header of n names (a results file of any version): col[c] is where
 * column c of the table is in it, -1 where it lacks it (a reader reads
 * that column as empty). Returns NULL, or the first column (in file order)
 * reader (MBX_READ_*) requires that the header lacks. */
const char *mbx_result_find_cols(const char *const *hdr, size_t n, unsigned reader,
                                 int col[MBX_RESULT_NCOLS]);

/* OSU's overlap of a non-blocking operation with computation, percent:
 * 100 x (1 - (overall - compute) / pure), clamped to 0..100, where pure is
 * the operation alone (start + wait), compute the computation alone, and
 * overall the operation with the computation between its start and its
 * wait (any one unit, the same for all three). NAN when any is not a
 * finite number, pure is not positive, or compute or overall is negative. */
double mbx_overlap_pct(double overall, double compute, double pure);
extern const char *const mbx_result_columns[MBX_RESULT_NCOLS];

/* Bandwidth in MB/s (10^6 bytes per second): moved (or, when it is 0,
 * bytes) over the median time; NAN when that is 0 bytes, the median is
 * not positive, or the point is UNRELIABLE or INVALID (a time below the
 * timer's resolution gives no bandwidth, only an absurd number). */
double mbx_result_bandwidth(const mbx_result *r);

/* Message rate in messages per second: msgs over the median time; NAN
 * when msgs is 0 (the benchmark counts none: collectives), the median is
 * not positive, or the point is UNRELIABLE or INVALID. */
double mbx_result_msg_rate(const mbx_result *r);

/* The status of a measured point from its summary (events left out), the
 * number of events, the stop verdict and the resolution of one observation
 * in seconds (the timer's tick over the inner loop and divisor):
 * UNRELIABLE when the corrected median is below res or not positive (the
 * overhead correction took away all that was measured, or more), or when
 * q1, the trimmed mean or the mean is below 0 (the correction exceeds a
 * quarter of the observations); else
 * UNSETTLED when events > 0 or the rule was not met; else SETTLED. */
mbx_point_status mbx_point_judge(const mbx_summary *s, size_t events, mbx_stop_verdict verdict,
                                 double res);

/* A point measured in passes (mbx/passes.h): the pooled observations'
 * figures already in r->s move to the iid columns, and the value, its
 * error and its CI become p's between-pass ones (the CI cut at 0 below);
 * passes and pass_span are set from `passes` and p. */
void mbx_result_take_passes(mbx_result *r, const mbx_passes_result *p, size_t passes);

/* Corrected times can be negative (overhead subtracted from a duration
 * shorter than it); such a value is no time: every location statistic
 * (mean, tmean, median, min, max, q1, q3, p90, p99, CI bounds) below 0
 * becomes NAN,
 * which is written as an empty field, except a CI's lower bound below 0
 * under an upper bound of 0 or more, which becomes 0 (the interval cut to
 * where a time can be). stddev and stderr are kept. */
void mbx_summary_drop_negative(mbx_summary *s);

/* One observation in microseconds as written to OUT.obs.csv ("%.4f"), a
 * negative corrected value written as 0. */
void mbx_obs_format_us(double seconds, char *buf, size_t len);

/* Format r as CSV fields. `store` provides the text storage; fields[i]
 * points into it (or is "" for undefined values). */
#define MBX_RESULT_FIELD_MAX 48
typedef struct mbx_result_fields {
    char store[MBX_RESULT_NCOLS][MBX_RESULT_FIELD_MAX];
    const char *field[MBX_RESULT_NCOLS];
} mbx_result_fields;
void mbx_result_format(const mbx_result *r, mbx_result_fields *out);

/* Columns of the raw-observation file (OUT.obs.csv): the point's key
 * (benchmark, procs, bytes, label, root, param as in the results; root and
 * param empty where they do not apply), the observation's index and time. */
#define MBX_OBS_NCOLS 9
extern const char *const mbx_obs_columns[MBX_OBS_NCOLS];

#endif
