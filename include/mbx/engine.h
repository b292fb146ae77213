/* mpibex engine: the command loop and the measurement of one point.
 *
 * Every rank creates an engine on the same communicator. Rank 0 is the
 * command root: it calls the root-only functions below, each of which
 * broadcasts one command that every rank (rank 0 included) executes. All
 * other ranks call mbx_engine_serve() and stay there until rank 0 calls
 * mbx_engine_quit(). While no command comes, serving ranks wait on a
 * non-blocking broadcast with a sleep back-off, so an idle job costs almost
 * no CPU. The engine never prints, draws or exits. */
#ifndef MBX_ENGINE_H
#define MBX_ENGINE_H

#include <mpi.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "mbx/clocksync.h"
#include "mbx/kv.h"
#include "mbx/pointparams.h"
#include "mbx/result.h"
#include "mbx/rmacheck.h"
#include "mbx/status.h"
#include "mbx/stop.h"
#include "mbx/timer.h"

typedef struct mbx_engine mbx_engine;

#define MBX_HOST_MAX 64
#define MBX_BINDING_MAX 128

#define MBX_FACT_MAX 64

/* Facts about one host, read by the rank with node_rank 0 there. A fact
 * that cannot be read says "unavailable (reason)". */
typedef struct mbx_host_facts {
    char cpu_model[MBX_FACT_MAX];  /* /proc/cpuinfo "model name", else hwloc's CPUModel */
    char governor[MBX_FACT_MAX];   /* cpufreq scaling_governor; "a,b (mixed)" if CPUs differ */
    char mhz_cur[MBX_FACT_MAX];    /* current MHz over the CPUs, "2096" or "1200-3000" */
    char mhz_min[MBX_FACT_MAX];    /* cpuinfo_min_freq over the CPUs, MHz */
    char mhz_max[MBX_FACT_MAX];    /* cpuinfo_max_freq over the CPUs, MHz */
    char mhz_source[MBX_FACT_MAX]; /* where mhz_cur came from */
    char llc[MBX_FACT_MAX];        /* "520192 KiB L3, 64 B lines (hwloc)" */
    uint64_t llc_bytes;            /* 0 when unavailable */
} mbx_host_facts;

/* What one rank reports about itself (MBX_OP_DESCRIBE). */
typedef struct mbx_rank_info {
    char host[MBX_HOST_MAX];
    /* hwloc CPU binding as OS PU indices, "0-1,4"; when bound followed by
     * the cores it covers, "2-3 (core L#1)" or "0 (part of core L#0)". */
    char binding[MBX_BINDING_MAX];
    uint64_t mem_avail;           /* MemAvailable of its host, bytes */
    double cpu_seconds;           /* user + system CPU time used by the rank */
    int32_t node_rank, node_size; /* within its shared-memory node */
    int32_t host_id;              /* index into the job's host list (set by root) */
    int32_t bound;                /* 1 if the binding is narrower than the host's allowed CPUs */
    int32_t package;              /* the package (socket) the binding lies in; -1: several */
    int32_t has_facts;            /* 1 on the rank that filled facts (node_rank 0) */
    mbx_host_facts facts;         /* that host's facts; zero on other ranks */
} mbx_rank_info;

typedef struct mbx_job_info {
    int nranks, nhosts;
    int max_ranks_per_host;
    uint64_t mem_per_rank; /* min over hosts of MemAvailable / ranks on that host */
    double wall;           /* MPI_Wtime at rank 0 when the description was taken */
    mbx_rank_info *rank;   /* nranks entries, owned by the engine */
} mbx_job_info;

/* Collective over comm: duplicates it (errors return, never abort) and
 * learns each rank's node. */
MBX_NODISCARD int mbx_engine_create(MPI_Comm comm, mbx_engine **out);
void mbx_engine_destroy(mbx_engine *e); /* local; after quit */
/* Plain values, no status: this rank's number and the number of ranks in
 * the engine's communicator. */
int mbx_engine_rank(const mbx_engine *e);
int mbx_engine_size(const mbx_engine *e);

/* Non-root ranks: execute commands until QUIT; *exit_code receives the
 * code rank 0 passed to mbx_engine_quit(). */
MBX_NODISCARD int mbx_engine_serve(mbx_engine *e, int *exit_code);

/* Every rank: the flag (a signal number, 0 for none) this rank's front end
 * sets on a stop signal. Every batch of observations (and every b_eff
 * measurement) carries each rank's flag to rank 0; when another rank's is
 * set and rank 0's is not, rank 0's is set to it, so a signal sent to any
 * one rank stops a run as one sent to rank 0 does (at the next batch; a
 * rank that waits for commands between points is heard at the next point).
 * NULL: none. */
void mbx_engine_watch_stop(mbx_engine *e, volatile sig_atomic_t *flag);

/* Rank 0: the rank whose carried signal set rank 0's flag, or -1 (none, or
 * rank 0's own signal came first). */
int mbx_engine_stop_rank(const mbx_engine *e);

/* This rank's last MPI failure behind an MBX_E_MPI, as "<MPI call>: <the
 * MPI library's text for its error>" (MPI_Error_string); "" when none was
 * recorded (not every MBX_E_MPI has one: a failure another rank reported
 * carries no text here). Behind an MBX_E_INVAL or MBX_E_PROTO of
 * mbx_engine_measure, the line of a point parameter that was refused
 * ("point parameter root: 5 is outside 0..3 (procs 4)"), or "". Rank 0
 * empties it when a measurement starts. Owned by the engine, valid until
 * its next call. */
const char *mbx_engine_why(const mbx_engine *e);

/* ---- rank 0 only ---- */

/* Broadcast QUIT with an exit code; serving ranks return from serve. */
MBX_NODISCARD int mbx_engine_quit(mbx_engine *e, int exit_code);

/* One empty command: the command loop's own round trip. */
MBX_NODISCARD int mbx_engine_nop(mbx_engine *e);

/* Gather every rank's host, binding, memory and CPU time, and each host's
 * CPU model, frequency governor and frequencies, and LLC size. The result
 * stays valid until the next describe or destroy. */
MBX_NODISCARD int mbx_engine_describe(mbx_engine *e, const mbx_job_info **out);

/* Ranks that are not bound to a subset of their host's CPUs, from the last
 * describe: their number in *n (0 when every rank is bound), and them as a
 * rank list ("0-1,3", "" when none) in buf (truncated to len, may be NULL
 * when len is 0). MBX_E_INVAL before a describe or off rank 0. */
MBX_NODISCARD int mbx_engine_unbound(const mbx_engine *e, int *n, char *buf, size_t len);

#define MBX_THREAD_BIND_MAX 256

/* One rank's record of the thread teams of the threaded benchmarks
 * (threads.*, pingpong.mt), which bind every thread to a PU with hwloc
 * (mbx/threads.h). Texts are truncated to fit. */
typedef struct mbx_thread_bind {
    int32_t points;                    /* threaded points this rank took part in so far */
    int32_t failed;                    /* of them, points where hwloc could not bind some thread */
    char last[MBX_THREAD_BIND_MAX];    /* the last point's binding, "2 threads: t0 PU0, t1 PU1";
                                          "" when none */
    char failure[MBX_THREAD_BIND_MAX]; /* the binding of the last point that failed; "" none */
} mbx_thread_bind;

/* Gather every rank's thread binding record, between points. *out gets
 * size entries (by rank), owned by the engine, valid until the next call
 * or destroy. Rank 0 only, through the command loop. Errors: MBX_E_INVAL,
 * MBX_E_NOMEM, MBX_E_MPI. */
MBX_NODISCARD int mbx_engine_thread_binding(mbx_engine *e, const mbx_thread_bind **out);

/* Select the timer on every rank and calibrate it there. `out` gets rank
 * 0's figures; max_overhead the largest overhead of any rank. */
MBX_NODISCARD int mbx_engine_configure(mbx_engine *e, mbx_timer_kind kind, mbx_timer_info *out,
                                       double *max_overhead);

/* How observations are taken (docs/algorithms.md, "Observation method"). */
typedef struct mbx_method {
    mbx_sync_kind sync;       /* barrier (default) or window */
    mbx_clocksync_opts clock; /* window: the global clock's algorithm and sizes */
    double window;            /* window: seconds per observation; 0: automatic */
    double window_delay;      /* window: seconds from a batch's command to its first window;
                                 0: default 1 ms */
    double resync;            /* window: synchronize the clocks again (between batches) when the
                                 last sync is older than this, seconds; 0: default 10 s */
    double window_limit;      /* window: seconds a point may take before it gives up
                                 (UNSETTLED, or INVALID with no valid observation); 0: default
                                 60 s. Rank 0 only: it is not sent to the other ranks */
    mbx_cache_mode cache;     /* warm (default) or cold: overwrite a last-level-cache-sized
                                 buffer before every observation */
    uint64_t cache_bytes;     /* cold: the buffer's size; 0: the last-level cache's (hwloc) */
} mbx_method;

/* What the last clock synchronization achieved (rank 0). */
typedef struct mbx_clock_info {
    int syncs;         /* synchronizations so far */
    double duration;   /* seconds the last one took */
    double max_offset; /* largest |global clock offset| to rank 0 right after it, seconds */
    double rtt_min;    /* the largest over ranks of each rank's shortest round trip in that check:
                          every offset is known to within about half of it */
    int identity;      /* 1: every rank reads one host clock (same boot_id, a host-wide timer):
                          the model is the identity, no fit */
    int slopes_kept;   /* ranks whose fitted slope was significant and is used */
    double drift_err;  /* the largest over ranks of the model's error growth, s per s */
} mbx_clock_info;

/* Set the method on every rank (collective through the command loop);
 * window sync synchronizes the clocks now. Errors: MBX_E_INVAL (bad
 * fields), MBX_E_UNSUPPORTED (cold cache without a cache size from hwloc),
 * MBX_E_RANGE (a cold-cache buffer larger than some rank may take:
 * mbx_engine_cache_budget), MBX_E_MPI, MBX_E_NOMEM. Until called, barrier
 * sync and a warm cache. */
MBX_NODISCARD int mbx_engine_set_method(mbx_engine *e, const mbx_method *m);
/* After mbx_engine_set_method with a cold cache: the bytes the rank with
 * the least memory to spare may take (mbx/memavail.h); UINT64_MAX when
 * unknown. */
uint64_t mbx_engine_cache_budget(const mbx_engine *e);
void mbx_engine_clock_info(const mbx_engine *e, mbx_clock_info *out);

/* The machine-state probe (docs/algorithms.md, "Observation method"): rank 0
 * and `peer` exchange `rounds` 1-byte round trips after one warm-up; *lat
 * gets the median one-way time in seconds. Rank 0 only, through the
 * command loop. Errors: MBX_E_INVAL (peer not another rank, rounds outside
 * 1..1000), MBX_E_MPI. */
MBX_NODISCARD int mbx_engine_probe(mbx_engine *e, int peer, int rounds, double *lat);

/* Warm-up (docs/algorithms.md, "One point"). Each point starts with untimed
 * calls of its benchmark at its own size: at least `calls` (default
 * MBX_WARMUP_CALLS, twice the 64-descriptor shared-memory receive FIFO of
 * UCX, which is page-faulted on first use) and at least
 * MBX_WARMUP_FLOOR_S, but stopping after MBX_WARMUP_CAP_S (huge messages).
 * Before the job's first point every pair of ranks that may communicate
 * (rank 0 with each rank, and ring neighbours) is pre-faulted with ping-pongs
 * at every protocol regime up to the largest size: 64 B (eager), 8 KiB (one
 * FIFO descriptor), 64 KiB (above common rendezvous thresholds), 1 MiB, and
 * the largest itself. A later pass of a point already warmed by its first
 * pass (mbx_point_spec.warm_light) runs only MBX_WARMUP_LIGHT_CALLS calls
 * (or `calls`, or the pass's observations, whichever is fewest) and no time
 * floor: enough to bring the code path and the fresh buffers back into
 * cache, not to fault the FIFO again, and never longer than the pass. */
#define MBX_WARMUP_CALLS 128
#define MBX_WARMUP_LIGHT_CALLS 8
#define MBX_WARMUP_FLOOR_S 1e-3
#define MBX_WARMUP_CAP_S 0.05
#define MBX_PREFAULT_SIZES 5

typedef struct mbx_warmup_info {
    int64_t calls; /* the setting: warm-up calls per point (at least) */
    /* The job-start pre-fault: sizes and the round trips each pair ran at
     * each (the smallest over pairs); nsizes 0 before it ran. */
    int nsizes;
    uint64_t size[MBX_PREFAULT_SIZES];
    int64_t rounds[MBX_PREFAULT_SIZES];
    int pairs;      /* pairs pre-faulted */
    double seconds; /* what the pre-fault took */
    /* Measurements (mbx_engine_measure calls; an accurate benchmark's
     * companion is one more) with the full warm-up so far, and the fewest
     * and most warm-up calls one of them ran; the same for the measurements
     * with the light warm-up (warm_light 1: a point's later passes). */
    size_t points;
    int64_t point_min, point_max;
    size_t light_points;
    int64_t light_min, light_max;
    /* Warm-ups of either kind that MBX_WARMUP_CAP_S stopped before their
     * calls (and floor) were done: huge messages, or a loaded machine. */
    size_t capped;
    size_t redone; /* timed batches that page-faulted and were measured again */
    /* The buffer pool (mbx_buffer_place): the fewest sets any rank could
     * keep for a measurement (MBX_BUF_SETS when memory never was short; 0
     * before the first), the measurements at which some rank had fewer,
     * and the measurements on a communicator duplicated for them. */
    int buf_sets_min;
    size_t buf_fewer;
    size_t comm_dups;
} mbx_warmup_info;

/* Set, before the first point, the warm-up calls per point (0: the default)
 * and the largest message size the run will use (0: unknown; the pre-fault
 * then covers the first point's size and 64 KiB). A largest size above the
 * one pre-faulted so far pre-faults again before the next point. Rank 0
 * only; local.
 * Errors: MBX_E_INVAL for calls outside 0..1000000 or off rank 0. */
MBX_NODISCARD int mbx_engine_set_warmup(mbx_engine *e, int64_t calls, uint64_t largest);

/* Rank 0: what the warm-up did so far. */
void mbx_engine_warmup_info(const mbx_engine *e, mbx_warmup_info *out);

typedef struct mbx_point_spec {
    int bench_id;
    uint64_t bytes; /* already aligned with mbx_bench_align() */
    int procs;      /* the first `procs` ranks take part, 1..size */
    mbx_stop_rule stop;
    size_t nmin, nmax;
    /* Zero means "the default" for each of these, so {0} stays valid: */
    int64_t param;      /* MBX_BENCH_PARAM: e.g. master-worker pieces; 0: param_default */
    int pair_a, pair_b; /* ping-pong pair as ranks of the point; pair_a == pair_b: 0 and procs-1 */
    int root;           /* rooted benchmarks: root rank of the point, 0..procs-1 */
    int rma_sync;       /* MBX_BENCH_RMA: mbx_rma_sync (0: the default, lock_all); else 0 */
    int validate;       /* after the stop rule, check received data (MBX_E_VALIDATE) */
    /* 0: the full warm-up (MBX_WARMUP_CALLS, MBX_WARMUP_FLOOR_S); 1: the light
     * one, for a later pass of a point whose first pass already ran. */
    int warm_light;
    /* Bytes by which the send buffer starts after a page boundary on every
     * rank of the point, a multiple of MBX_BUF_OFFSET_STEP up to
     * MBX_BUF_OFFSET_MAX (0: page-aligned). A scheduler varies it per pass
     * so that where the buffers land is re-drawn, not fixed at launch; the
     * engine draws the receive buffer's offset and the pool's set apart
     * (mbx_buffer_place). */
    uint32_t buf_offset;
    /* The first batch's size when larger than the engine's own start (8,
     * doubling): a pass of known length in one batch. 0: the default. */
    size_t batch_first;
    /* Rank 0: the plan section the point belongs to (the runner sets it),
     * for the test hooks that plant a step in one section's times
     * (MBX_TEST_STEP); NULL: none. Not sent to the other ranks. */
    const char *label;
} mbx_point_spec;

/* Rank 0: where the last point's send and receive buffers started after a
 * page boundary, in bytes, the lowest (*lo) and highest (*hi) over both
 * buffers of every rank of the point, as the ranks saw their addresses;
 * both -1 before the first point. */
void mbx_engine_buffer_offsets(const mbx_engine *e, int *lo, int *hi);

/* Rank 0: how the last measurement placed its buffers and on which
 * communicator it ran (docs/algorithms.md, "One point"). Every rank keeps
 * a pool of MBX_BUF_SETS buffer sets, each in mappings of its own; rank 0
 * draws per measurement the set (each rank takes it modulo the sets its
 * memory allows), the receive buffer's page offset apart from the send
 * buffer's (spec.buf_offset), and whether the point's communicator is
 * duplicated for it. sbuf and rbuf are rank 0's addresses, to compare,
 * never to use; all zero before the first measurement. */
typedef struct mbx_buffer_place {
    int set, sets;                     /* rank 0's set, of its `sets` */
    uint32_t send_offset, recv_offset; /* bytes after a page boundary */
    const void *sbuf, *rbuf;
    int comm_dup; /* 1: a duplicate made for this measurement */
} mbx_buffer_place;
void mbx_engine_buffer_place(const mbx_engine *e, mbx_buffer_place *out);

/* When the point's communicator is duplicated for a measurement
 * (MPI_Comm_dup at POINT_BEGIN, freed at POINT_END): never, always, or (the
 * default) while the duplicates take at most MBX_COMM_DUP_SHARE of the
 * measurements' time, a budget rank 0 keeps from what both really took
 * (docs/algorithms.md, "One point"). Rank 0 only; local. Errors:
 * MBX_E_INVAL off rank 0 or for another mode. */
typedef enum mbx_comm_dup_mode {
    MBX_COMM_DUP_NEVER = 0,
    MBX_COMM_DUP_ALWAYS = 1,
    MBX_COMM_DUP_BUDGET = 2
} mbx_comm_dup_mode;
#define MBX_COMM_DUP_SHARE 0.02
MBX_NODISCARD int mbx_engine_set_comm_dup(mbx_engine *e, mbx_comm_dup_mode mode);

typedef struct mbx_progress {
    const mbx_point_spec *spec;
    const mbx_summary *s; /* all observations so far, seconds */
    double rel;           /* the rule's relative error (mbx_stop_progress) */
    size_t batches;
} mbx_progress;

/* Called on rank 0 after every batch, outside any timed region. A non-zero
 * return cancels the point (MBX_E_ABORTED). */
typedef int (*mbx_progress_fn)(void *ud, const mbx_progress *p);

/* Measure one point to its stop rule: warm-up, batches of observations
 * reduced to rank 0 per batch, overhead correction, status. On success
 * `out` is filled (benchmark, timing, procs, bytes, summary, status, stop,
 * limits, overhead, batches, wall; label is left NULL) and, if obs is not
 * NULL, *obs and *nobs point at the observations in seconds, valid until the
 * next measurement. An accurate benchmark (mbx_bench.companion) first has
 * its companion measured at the same point, back to back, with the same
 * progress callback (whose spec then names the companion); out->plain gets
 * the companion's median (NAN when INVALID or UNRELIABLE), out->wall the
 * time of both, and *obs stays the accurate benchmark's. For every other
 * benchmark out->plain is NAN. Errors: MBX_E_INVAL for a bad spec
 * (among others warm_light not 0 or 1, buf_offset not a multiple of
 * MBX_BUF_OFFSET_STEP or above MBX_BUF_OFFSET_MAX),
 * MBX_E_NOMEM, MBX_E_MPI if any rank's MPI call failed, MBX_E_ABORTED (in
 * either measurement), MBX_E_VALIDATE when the data check (--validate, or
 * always for MBX_BENCH_CHECKED) of either measurement found wrong data:
 * then `out` is filled all the same, as an INVALID row with no numbers and
 * status_reason "received data was wrong" ("plain: ..." for the
 * companion's), *nobs is 0, and the engine is ready for the next point. */
MBX_NODISCARD int mbx_engine_measure(mbx_engine *e, const mbx_point_spec *spec,
                                     mbx_progress_fn progress, void *ud, mbx_result *out,
                                     const double **obs, size_t *nobs);

/* Every pair of nodes (pairs_exec.c; docs/algorithms.md, "Every pair of
 * nodes"): one step of the node-pair matrix. */
typedef enum mbx_pairs_mode {
    MBX_PAIRS_SHIFT = 0, /* node i sends to i + k and serves i - k, all at once */
    MBX_PAIRS_ONE = 1    /* src sends to dst; the other nodes idle */
} mbx_pairs_mode;
typedef enum mbx_pairs_metric {
    MBX_PAIRS_LAT = 0, /* bytes out, bytes back: half the round trip */
    MBX_PAIRS_BW = 1   /* a window of `window` messages out, 0 bytes back: its time */
} mbx_pairs_metric;
#define MBX_PAIRS_STEP_NODES_MAX 4096
#define MBX_PAIRS_OBS_MAX 100000
#define MBX_PAIRS_BYTES_MAX (1u << 30)
#define MBX_PAIRS_WINDOW_MAX 4096

typedef struct mbx_pairs_step {
    int mode, metric; /* mbx_pairs_mode, mbx_pairs_metric */
    uint64_t bytes;   /* 0 .. MBX_PAIRS_BYTES_MAX */
    int window;       /* BW: 1 .. MBX_PAIRS_WINDOW_MAX */
    int k;            /* SHIFT: 1 .. n - 1 */
    int src, dst;     /* ONE: node indices, distinct */
    int nobs, nwarm;  /* timed observations (1 .. MBX_PAIRS_OBS_MAX) after nwarm untimed */
} mbx_pairs_step;

/* Rank 0, collective through the command loop: run one step on the nodes
 * nodes[0..n) (ranks ascending, nodes[0] = 0, 2 <= n <=
 * MBX_PAIRS_STEP_NODES_MAX; a new list makes the nodes' communicator
 * anew). t (n x nobs) receives node i's observations at t[i * nobs + j],
 * seconds, the timer's overhead subtracted; NAN where node i sent nothing
 * in the step. Errors: MBX_E_INVAL (a field out of range, on any rank),
 * MBX_E_NOMEM, MBX_E_MPI (an MPI failure on any node; mbx_engine_why has
 * rank 0's). mbx_engine_pairs_free frees the nodes' state on every rank. */
MBX_NODISCARD int mbx_engine_pairs_step(mbx_engine *e, const int *nodes, int n,
                                        const mbx_pairs_step *step, double *t);
MBX_NODISCARD int mbx_engine_pairs_free(mbx_engine *e);

/* What a node of the matrix is: the lowest rank of each host, of each
 * socket (package) of each host, or every rank. */
typedef enum mbx_pairs_per { MBX_PER_NODE = 0, MBX_PER_RANK = 1, MBX_PER_SOCKET = 2 } mbx_pairs_per;

/* The nodes of job for `per` (mbx_pairs_per): their ranks, ascending, into
 * nodes (job->nranks entries); returns how many. MBX_E_INVAL with one
 * line in msg when per is MBX_PER_SOCKET and a rank is bound to CPUs of
 * several sockets (the line names it, its binding and the remedy). */
MBX_NODISCARD int mbx_pairs_pick_nodes(const mbx_job_info *job, int per, int *nodes, char *msg,
                                       size_t msglen);

/* Quick latency scan (rank 0 only, collective through the command loop):
 * rank 0 runs `rounds` untimed-warm 1-byte round trips with each other rank
 * in turn; lat[i] receives the median one-way latency to rank i in seconds
 * (lat[0] = 0); lat must hold size entries. *far is the rank with the
 * largest latency (ties: the lowest rank). Used to pick the ping-pong pair
 * that crosses the network on an SMP cluster. */
MBX_NODISCARD int mbx_engine_pair_scan(mbx_engine *e, int rounds, double *lat, int *far);

/* Fill a result from a finished measurement (any back end): benchmark and
 * timing from the registry, s the summary without the `events` observations
 * left out as events, and the status by mbx_point_judge with res, the
 * resolution of one observation in seconds: UNRELIABLE when the corrected
 * median is below res, else UNSETTLED with events or without the rule met,
 * else SETTLED. Negative statistics become NAN (mbx_summary_drop_negative).
 * label is left NULL; probe, probe_after and plain are NAN. */
void mbx_result_fill(mbx_result *out, const mbx_point_spec *spec, const mbx_summary *s,
                     mbx_stop_verdict verdict, size_t nmin, size_t nmax, double overhead,
                     size_t batches, double wall, size_t events, double res);

/* Environment capture for the sidecar file: tool version, MPI library,
 * ranks and hosts, binding of every rank and the unbound ones, per host
 * CPU model, frequency governor and frequencies and LLC size, timer, sync,
 * compiler and flags, and library-tuning variables (MPICH_*, MPIR_CVAR_*,
 * UCX_*, OMPI_*, FI_*) only. Uses the last describe and configure. Rank 0 only. */
MBX_NODISCARD int mbx_engine_environment(mbx_engine *e, mbx_kvlist *out);

/* The facts mbx_rma_judge (mbx/rmacheck.h) judges, of the calling process:
 * MPI_Get_library_version's text (into mpi, len bytes; out->mpi points to
 * it), the version of the UCX the process has loaded (out->ucx, a static
 * string, NULL when no UCX is loaded where the process's symbols are
 * found), and UCX_RCACHE_ENABLE from its environment (NULL when unset).
 * Needs no engine: callable before MPI_Init, on any rank. */
void mbx_engine_rma_facts(mbx_rma_facts *out, char *mpi, size_t len);

#endif
