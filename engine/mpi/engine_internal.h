/* State shared by the engine's modules; not part of the public API. */
#ifndef MBX_ENGINE_INTERNAL_H
#define MBX_ENGINE_INTERNAL_H

#include "mbx/bench.h"
#include "mbx/command.h"
#include "mbx/engine.h"
#include "mpierr.h"

/* The engine's message buffer: the last MPI failure on this rank. */
#define MBX_ENGINE_WHY_LEN 256

/* One set of the buffer pool: two mappings of len bytes each. */
typedef struct mbx_bufset {
    void *s, *r;
    size_t len;
} mbx_bufset;

struct mbx_engine {
    MPI_Comm cmd;  /* the command communicator (a duplicate) */
    MPI_Comm node; /* ranks sharing this rank's node */
    int rank, size;
    uint32_t seq;

    mbx_timer_info timer;
    double max_overhead;
    int configured;

    /* The point in flight, on every rank. */
    const mbx_bench *bench;
    mbx_bench_ctx ctx;
    int in_point, member;
    MPI_Comm *subcomm; /* subcomm[p]: the first p ranks, made on first use */

    double *local, *reduced; /* batch buffers: k times + 1 error flag + 1 stop flag */
    size_t cap;

    /* Rank 0: observations of the current point and scratch for stats. */
    double *obs, *scratch;
    size_t obs_cap;

    int bad;                       /* the last VALIDATE's worst verdict, on every rank */
    int test_hung;                 /* MBX_TEST_HANG (measure_point.c) has stopped this rank once */
    const char *test_label;        /* rank 0: the point in flight's section (MBX_TEST_STEP) */
    double *scan;                  /* rank 0: the last PAIR_SCAN's latencies, size entries */
    struct mbx_pairs_state *pairs; /* MBX_OP_PAIRS (pairs_exec.c), NULL until the first */

    /* Observation method (MBX_OP_METHOD) and the global clock. */
    mbx_method method;
    mbx_clock_model clock;
    double clock_at; /* local time of the last clock sync (rank 0 decides resyncs) */
    mbx_clock_info clock_info;
    mbx_window_stats window_stats; /* rank 0: the point in flight's windows */
    double *starts;                /* window: per-observation local start times */
    unsigned char *late;           /* window: per-observation late flags */
    size_t sync_cap;
    void *flusher;         /* cold cache: the engine's flusher, NULL when warm */
    uint64_t cache_budget; /* rank 0: the least any rank may take (cold cache) */
    double probe;          /* rank 0: the last PROBE's median one-way time */

    /* Warm-up (warmup.c): rank 0's settings and record; warm_buf on every rank. */
    mbx_warmup_info warm;
    uint64_t warm_largest; /* the plan's largest size; 0: not told */
    int prefaulted;
    double *warm_buf;
    size_t warm_cap;
    int64_t warm_done; /* every rank: the last POINT_BEGIN's warm-up calls */
    int warm_capped;   /* every rank: 1 if the time cap stopped it early */
    /* Every rank: the buffer pool (bufpool.c); ctx.sbuf and ctx.rbuf start
     * their offsets into set pool_set. pool_len: each mapping's bytes;
     * pool_sets: the sets memory allows at that length. */
    mbx_bufset pool[MBX_BUF_SETS];
    size_t pool_len;
    int pool_sets, pool_set;
    MPI_Comm pass_comm; /* every member: the point's duplicate, or MPI_COMM_NULL */
    /* Rank 0: the last point's buffer offsets seen by its ranks (-1: none),
     * how it placed them, and the draws' state (measure.c). */
    int buf_off_lo, buf_off_hi;
    mbx_buffer_place place;
    uint64_t place_rng;
    mbx_comm_dup_mode dup_mode;
    double dup_debt; /* rank 0: the duplicates' seconds not yet paid back */
    double dup_s;    /* rank 0: what the last POINT_BEGIN's duplicate took */

    mbx_job_info job;
    int have_job;
    mbx_thread_bind *thr; /* rank 0: the last THREADS gather, size entries */
    int exit_code;
    int quit;

    volatile sig_atomic_t *stop; /* this rank's stop-signal flag (mbx_engine_watch_stop) */
    int stop_rank;               /* rank 0: the rank whose signal set its flag, or -1 */

    char why[MBX_ENGINE_WHY_LEN]; /* the last MPI failure (mbx_engine_why), "" none */
};

/* Rank 0: broadcast cmd (and payload, if any) and execute it locally. */
int mbx_engine_submit(mbx_engine *e, mbx_cmd *cmd, void *payload);

/* Every rank: execute one decoded command. */
int mbx_engine_dispatch(mbx_engine *e, const mbx_cmd *cmd, void *payload);

/* Complete a request; with `quiet`, test with a sleeping back-off instead
 * of busy-polling (for ranks that are not being timed). */
int mbx_engine_wait(mbx_engine *e, MPI_Request *req, int quiet);

/* A stop signal at any rank reaches rank 0 inside a reduction the command
 * makes anyway (MPI_MAX): each rank adds mbx_engine_stop_carry's value, and
 * rank 0 passes the result to mbx_engine_stop_note, which sets its own flag
 * (if not set already) and remembers the rank. */
double mbx_engine_stop_carry(const mbx_engine *e);
void mbx_engine_stop_note(mbx_engine *e, double carried);

/* Rank 0, measure_point.c: the parameters every rank gets for spec, resolved,
 * in a pass of at most nmax observations (the resync and companion fields
 * are left for the caller), and POINT_BEGIN with them as its payload. mbx_point_params_submit's
 * errors: those of mbx_point_params_encode (its line in e->why) and of the point's set-up on any
 * rank. */
void mbx_point_params_of(const mbx_engine *e, const mbx_point_spec *spec, const mbx_bench *b,
                         size_t nmax, mbx_point_params *p);
MBX_NODISCARD int mbx_point_params_submit(mbx_engine *e, const mbx_point_params *p);

/* In bufpool.c, every rank: point ctx.sbuf and ctx.rbuf at offsets soff
 * and roff into the pool's set `set` (modulo the sets this rank may keep)
 * of at least len bytes each, filled with the benchmarks' starting
 * contents; MBX_E_NOMEM. mbx_bufpool_free unmaps every set. */
int mbx_bufpool_take(mbx_engine *e, size_t len, uint32_t soff, uint32_t roff, int set);
void mbx_bufpool_free(mbx_engine *e);
/* Rank 0, bufpool.c: the receive offset, the set and the duplicate of the
 * next measurement, drawn into p (its buf_offset already set). */
void mbx_bufpool_draw(mbx_engine *e, mbx_point_params *p);
/* Rank 0, after a measurement: its duplicate took dup_s, it all wall_s. */
void mbx_bufpool_paid(mbx_engine *e, double dup_s, double wall_s);

/* Handlers in measure_point.c */
int mbx_point_begin(mbx_engine *e, const mbx_cmd *cmd, const void *payload);
int mbx_point_batch(mbx_engine *e, const mbx_cmd *cmd);
int mbx_point_end(mbx_engine *e);
int mbx_point_validate(mbx_engine *e);
/* Handler in pairs_exec.c (payload: see there), and its state freed */
int mbx_pairs_exec(mbx_engine *e, const mbx_cmd *cmd, const void *payload);
void mbx_pairs_free(mbx_engine *e);
/* Handler in pairscan.c */
int mbx_pair_scan_exec(mbx_engine *e, const mbx_cmd *cmd);

/* In warmup.c. Member ranks, in POINT_BEGIN after the set-up: untimed calls
 * of the point's benchmark at its own size, at least `calls` and `floor_s`
 * seconds, at most `cap_s` seconds (the members agree on the clock by a
 * maximum, so all run the same number); e->warm_done gets the count and
 * e->warm_capped says whether the cap ended it first. */
int mbx_warmup_point(mbx_engine *e, int64_t calls, double floor_s, double cap_s);
/* Every rank: MBX_OP_PREFAULT (iarg = {largest bytes, round trips}, darg[0]
 * the time cap of one size). */
int mbx_prefault_exec(mbx_engine *e, const mbx_cmd *cmd);
/* Rank 0, before a point: pre-fault every pair once per job. */
int mbx_prefault_once(mbx_engine *e, uint64_t bytes);
/* Minor page faults of this process so far (getrusage), 0 if unknown. */
long mbx_minflt(void);

/* Handler in beffio_exec.c */
int mbx_beffio_exec(mbx_engine *e, const mbx_cmd *cmd, const void *payload);

/* Handler in beff_exec.c (payload: see there; rank 0 gets the times in it) */
int mbx_beff_exec(mbx_engine *e, const mbx_cmd *cmd, void *payload);

/* Handlers in method.c */
int mbx_method_exec(mbx_engine *e, const mbx_cmd *cmd);
int mbx_clock_sync_exec(mbx_engine *e);
int mbx_probe_exec(mbx_engine *e, const mbx_cmd *cmd);
void mbx_method_free(mbx_engine *e);
/* Member ranks, before a batch of k: the sync fields of e->ctx. */
int mbx_method_batch(mbx_engine *e, size_t k, double win_start, double win_len);
/* The engine's timer as a clock function (ud: the engine). */
double mbx_engine_clock(void *ud);

/* Handlers in envcap.c */
int mbx_describe_exec(mbx_engine *e);
int mbx_threads_exec(mbx_engine *e);

#endif
