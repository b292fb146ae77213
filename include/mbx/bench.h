/* mpibex benchmark registry.
 *
 * A benchmark is a pattern plus an operation variant. Its `run` executes k
 * observations on the point's communicator and writes each rank's raw local
 * durations (seconds) into t[0..k); ranks that do not time (the ping-pong
 * responder) leave ctx->timing at 0. The engine subtracts the timer
 * overhead, reduces the maximum over ranks to rank 0, and divides by
 * `divisor` (2 for ping-pong's half round trip). Nothing in `run` may print,
 * allocate, or touch the front end. */
#ifndef MBX_BENCH_H
#define MBX_BENCH_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "mbx/timer.h"

typedef struct mbx_bench_ctx {
    MPI_Comm comm;  /* the point's communicator; every rank in it takes part */
    int rank, size; /* in comm */
    uint64_t bytes; /* message size of the point (aligned to the unit) */
    /* Fresh per point, 64-byte aligned but not page-aligned: each starts the
     * point's buf_offset bytes (0..4032) after a page boundary. A benchmark
     * that needs page alignment allocates its own (as pingpong.mt does). */
    void *sbuf, *rbuf;
    size_t buf_len; /* bytes of each of sbuf and rbuf */
    mbx_timer_kind timer;
    int timing; /* set by setup/run: 1 if this rank's t[] are meaningful */
    int count;  /* elements of the benchmark's datatype in one message */
    void *priv; /* the benchmark's own state, made in setup */
    /* Parameters of the point (mbx_point_spec), already checked: */
    int64_t param;      /* MBX_BENCH_PARAM benchmarks: e.g. work pieces; else 0 */
    int pair_a, pair_b; /* ping-pong ranks in comm (pair_a != pair_b) */
    int root;           /* rooted collectives and master-worker: root in comm */
    int rma_sync;       /* MBX_BENCH_RMA: the mbx_rma_sync mode (never 0 here); else 0 */
    double tick;        /* the timer's resolution, seconds (inner-loop sizing) */
    double overhead;    /* the timer's overhead on this rank, seconds */
    /* MBX_BENCH_INNER: calls per observation, set by setup (default 1). The
     * engine subtracts the timer overhead once per observation, then
     * divides by inner. */
    int64_t inner;
    /* Set by the engine for each batch: how observation i starts (see
     * mbx_obs_sync). Benchmarks only pass ctx to mbx_obs_sync. */
    int sync;                            /* mbx_sync_kind */
    const struct mbx_clock_model *clock; /* window: this rank's global clock */
    double win_start, win_len;           /* window: global start of observation 0, length */
    double *starts;                      /* window: local start time of each observation */
    unsigned char *late;                 /* window: 1 if this rank missed the window's start */
    void (*flush)(void *ud);             /* cold cache: called before every observation */
    void *flush_ud;
    /* A benchmark with a companion (mbx_bench.companion): the companion's
     * median at this point, seconds, as rank 0 measured it right before
     * (the max over ranks of each observation, the median over them). The
     * engine hands it to every rank of the point with POINT_BEGIN, before
     * setup runs. NAN when the benchmark has no companion or the companion
     * had no usable median (INVALID or UNRELIABLE). The overlap benchmarks
     * compute that long between the start and the wait. */
    double companion_median;
    /* MBX_BENCH_OVERLAP: set by setup on every rank of the point to the
     * same value, the inserted computation timed alone, seconds (the
     * maximum over ranks of each rank's median); rank 0's value becomes
     * mbx_result.compute. NAN until setup sets it. */
    double compute;
    /* Set by setup on every rank of the point to the same value, when the
     * benchmark makes something once per pass outside the timed region
     * whose cost is worth a column (the persistent operations' MPI_*_init
     * calls, a neighbourhood collective's topology): its time, the
     * maximum over ranks, seconds. Rank 0's
     * value becomes mbx_result.setup (setup_us). NAN: none. */
    double setup_s;
    /* Set by setup on every rank of the point: the process topology the
     * benchmark made ("cart 2x2 periodic", "ring 4"; neigh.*), which
     * becomes the row's topology column. Empty: none. */
    char topology[32];
    /* part.*: set by setup on every rank of the point, the pair's figures
     * of its set-up rounds (bench_part.c), NAN when unknown: the perceived
     * time (last MPI_Pready to the receiver's completion, seconds), the
     * partitioned over one MPI_Send's one-way time, and the early-bird
     * share of the partitions (0..1). Rank 0's reach the row. */
    double part_seen_s, part_ratio, part_early;
} mbx_bench_ctx;

/* Start observation i (0-based within the batch), untimed: flush the cache
 * when the mode is cold, then with barrier sync call MPI_Barrier when
 * `barrier` is set (patterns that synchronize themselves, like ping-pong,
 * pass 0), or with window sync wait until this rank's global clock reaches
 * the window's start, recording the start and whether it came too late.
 * Returns an MPI error code. The caller reads its timer right after. */
int mbx_obs_sync(mbx_bench_ctx *ctx, size_t i, int barrier);

enum {
    MBX_BENCH_SIZED = 1u << 0,  /* varies over message size */
    MBX_BENCH_PAIR = 1u << 1,   /* two ranks exchange (pair_a, pair_b); the rest wait */
    MBX_BENCH_ROOTED = 1u << 2, /* has a root (ctx->root) */
    MBX_BENCH_PARAM = 1u << 3,  /* uses ctx->param (param_name says what it is) */
    MBX_BENCH_INNER = 1u << 4,  /* one observation is an inner loop of calls, time per call */
    MBX_BENCH_TEAM = 1u << 5,   /* runs a team of hwloc-bound threads (the binding is recorded) */
    MBX_BENCH_MPI_THREADS = 1u << 6, /* param threads per rank call MPI at once (MULTIPLE) */
    /* One observation is a window of messages in flight at once (bw.*):
     * the fake back end models it from `moved` and `streams`. */
    MBX_BENCH_STREAM = 1u << 7,
    /* A local call that moves no message (the simple pattern): the fake
     * back end gives it a constant time per call. */
    MBX_BENCH_LOCAL = 1u << 8,
    /* Overlap of a non-blocking collective with computation (OSU's
     * method; bench_overlap.c): the companion (the coll.i* itself) gives
     * the pure communication time (ctx->companion_median, the result's
     * plain), setup calibrates and times the computation alone
     * (ctx->compute), and each observation is start + computation + wait.
     * The row carries pure_comm_us, compute_us, overall_us, overlap_pct.
     * (A high bit: the flags below it are the patterns' own.) */
    MBX_BENCH_OVERLAP = 1u << 12,
    /* One-sided (rma.*): the point's rma_sync mode reaches ctx->rma_sync,
     * is a column of its row and tells the fake back end its cost. */
    MBX_BENCH_RMA = 1u << 9,
    /* The check runs after every point's timed loop, --validate or not, and
     * wrong data fails the point (MBX_E_VALIDATE): a library can complete
     * one-sided operations without moving the data (MPICH 4.0 over UCX
     * 1.13 with its registration cache, docs/user-guide.md), and such
     * times must never reach a results file. */
    MBX_BENCH_CHECKED = 1u << 10,
};

struct mbx_kvlist;

typedef struct mbx_bench {
    const char *name;    /* "pingpong.send_recv" */
    const char *pattern; /* "pingpong", "coll" */
    const char *summary; /* one line for `mpibex list` */
    /* half_round_trip, max_over_ranks, max_over_receivers, max_over_threads,
     * master or per_call (docs/csv-format.md) */
    const char *timing;
    int min_procs;
    unsigned flags;
    unsigned unit;  /* datatype size: message bytes are multiples of it */
    double divisor; /* observation = max over ranks / divisor */
    /* Bytes of each send and receive buffer a rank needs. */
    uint64_t (*buf_bytes)(uint64_t bytes, int procs);
    /* Optional: prepare priv/count after buffers exist. MPI error code. */
    int (*setup)(mbx_bench_ctx *ctx);
    /* Run k observations. Returns an MPI error code (MPI_SUCCESS). */
    int (*run)(mbx_bench_ctx *ctx, size_t k, double *t);
    void (*teardown)(mbx_bench_ctx *ctx);
    /* Optional (--validate): on every rank of comm, after the timed loop,
     * fill the send buffers with a known pattern, run the operation once
     * untimed and check what arrived; set *bad to 1 on this rank if it is
     * wrong (floating reductions within a tolerance). MPI error code. */
    int (*check)(mbx_bench_ctx *ctx, int *bad);
    const char *op;         /* reduction op and type ("MPI_SUM/MPI_FLOAT"), or NULL */
    const char *param_name; /* MBX_BENCH_PARAM: "pieces"; NULL otherwise */
    int64_t param_default;  /* used when the point's param is 0 */
    int64_t param_max;      /* largest value the front end accepts; 0: no limit */
    /* The plain benchmark an accurate one is shown next to ("coll.bcast"
     * for coll.bcast_accurate), or NULL. It must take the same points
     * (flags, unit, buffers, root) and need no more ranks. The engine
     * measures it at the same point right before this one
     * (mbx_engine_measure), reports its median as mbx_result.plain and
     * hands it to this benchmark's setup on every rank as
     * ctx->companion_median. Its flags are this one's but for
     * MBX_BENCH_OVERLAP. */
    const char *companion;
    /* Optional: what the environment capture records for this benchmark's
     * pattern (the OpenMP runtime's settings for omp.*), as keys added to
     * out; called once per distinct hook, on rank 0. MBX_OK or the kv
     * error. */
    int (*env)(struct mbx_kvlist *out);
    /* Optional: the bytes and the messages one observation moves, for the
     * CSV's bandwidth_MBps (bytes moved / median) and msg_rate_per_s
     * (messages / median), from the point's bytes, procs and param (the
     * default applied). NULL: bandwidth is bytes / median and the message
     * rate is left empty (collectives). */
    void (*moved)(uint64_t bytes, int procs, int64_t param, uint64_t *bytes_moved, uint64_t *msgs);
    /* MBX_BENCH_STREAM: message streams in flight at once, each over a
     * link of its own (the fake back end's model): 1 one way, 2 both
     * ways; 0: one per pair, procs / 2. */
    int streams;
} mbx_bench;

/* The registry, in display order. */
size_t mbx_bench_count(void);
const mbx_bench *mbx_bench_get(int id); /* NULL if out of range */
/* The id of the benchmark called `name` in *id: MBX_OK, or MBX_E_UNKNOWN
 * with *id = -1 (so mbx_bench_get(*id) is NULL). */
int mbx_bench_find(const char *name, int *id);

/* The benchmarks this build lacks because its MPI library lacks their
 * calls (the MPI-4.0 persistent collectives under an MPI 3.1), in the
 * registry's order: the i-th one's name in *name and the reason, a few
 * words for "not in this build: ...", in *why. 1, or 0 past the last. */
int mbx_bench_absent(size_t i, const char **name, const char **why);

/* Why benchmark b cannot measure 0 bytes ("a reduction needs at least one
 * element": every benchmark with an op), or NULL when it can (or is
 * unsized). The front ends refuse 0 B for such a benchmark rather than
 * measure one unit instead. */
const char *mbx_bench_zero_why(const mbx_bench *b);

/* The size actually measured for a requested size: rounded down to the
 * unit; 0 stays 0 where mbx_bench_zero_why allows it, any other size is at
 * least one unit; 0 for unsized benchmarks. */
uint64_t mbx_bench_align(const mbx_bench *b, uint64_t bytes);

/* The pattern tables are engine/mpi/bench's: each bench_NAME.c with a line
 * `#define MBX_PATTERN_ORDER N` (engine/mpi/CMakeLists.txt lists them). */

#endif
