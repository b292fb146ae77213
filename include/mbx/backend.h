/* What the explorer measures with: the MPI engine, or a deterministic fake
 * for headless tests and demos. The explorer only ever talks to this. */
#ifndef MBX_BACKEND_H
#define MBX_BACKEND_H

#include "mbx/beff_run.h"
#include "mbx/beffio_run.h"
#include "mbx/engine.h"
#include "mbx/pairs_run.h"

typedef struct mbx_backend mbx_backend;

struct mbx_backend {
    int nranks;
    uint64_t mem_per_rank; /* bytes a rank may use for buffers */
    char desc[160];        /* "2 ranks on 1 host, MPICH Version: 4.0.2" */
    int (*configure)(mbx_backend *b, mbx_timer_kind timer, mbx_timer_info *out);
    int (*measure)(mbx_backend *b, const mbx_point_spec *spec, mbx_progress_fn progress, void *ud,
                   mbx_result *out, const double **obs, size_t *nobs);
    int (*environment)(mbx_backend *b, mbx_kvlist *out);
    /* Ping-pong pair scan: lat[i] the one-way latency from rank 0 to rank i
     * (nranks entries, lat[0] = 0), *far the rank with the largest. */
    int (*pair_scan)(mbx_backend *b, double *lat, int *far);
    double (*now)(mbx_backend *b); /* seconds; simulated for the fake */
    /* How observations are taken (mbx_engine_set_method) on every rank; the
     * fake records it and fills the method columns of its results. */
    int (*set_method)(mbx_backend *b, const mbx_method *m);
    void (*clock_info)(mbx_backend *b, mbx_clock_info *out); /* the last clock sync */
    /* The machine-state probe (mbx_engine_probe): `rounds` 1-byte round
     * trips of rank 0 and peer, *lat the median one-way seconds. The fake
     * follows a fixed schedule of levels (mbx_backend_fake). */
    int (*probe)(mbx_backend *b, int peer, int rounds, double *lat);
    /* b_eff and b_eff_io, the whole benchmark (include/mbx/beff_run.h,
     * include/mbx/beffio_run.h): rows through the callback as they land, then the
     * summary. The fake makes up rows of the same shape (and the summary by
     * the same aggregation rules) from a model, not from measurements. */
    int (*beff)(mbx_backend *b, const mbx_beff_opts *o, mbx_beff_progress cb, void *ud,
                mbx_beff_summary *out);
    int (*beffio)(mbx_backend *b, const mbx_beffio_opts *o, mbx_beffio_progress cb, void *ud,
                  mbx_beffio_summary *out, char *msg, size_t msglen);
    /* Every rank's thread binding record of the threaded benchmarks
     * (mbx_engine_thread_binding, nranks entries), between points; NULL in
     * the fake, which binds nothing. */
    int (*thread_binding)(mbx_backend *b, const mbx_thread_bind **out);
    /* The run's largest message size, before its first point, for the
     * engine's pre-fault (mbx_engine_set_warmup); NULL in the fake. */
    int (*set_largest)(mbx_backend *b, uint64_t largest);
    /* The engine's warm-up (mbx_engine_set_warmup: calls per point, 0 the
     * default, and the largest size to pre-fault) and what it did so far
     * (mbx_engine_warmup_info); NULL in the fake, which warms nothing. */
    int (*set_warmup)(mbx_backend *b, int64_t calls, uint64_t largest);
    void (*warmup_info)(mbx_backend *b, mbx_warmup_info *out);
    /* Ranks not bound to cores (mbx_engine_unbound: how many, and their
     * list in who); NULL in the fake, whose ranks are not processes. */
    int (*unbound)(mbx_backend *b, char *who, size_t len);
    /* The rank whose carried signal stopped the run (mbx_engine_stop_rank),
     * or -1; NULL in the fake: one process, its own signals only. */
    int (*stop_rank)(mbx_backend *b);
    /* The text of the last MPI failure (mbx_engine_why: "MPI_Send: ..."),
     * "" when none; NULL in the fake, which calls no MPI. */
    const char *(*why)(mbx_backend *b);
    /* Every pair of nodes (include/mbx/pairs_run.h): pairs_nodes puts the
     * nodes of `per` (mbx_pairs_per) in rank (their ranks, ascending) and
     * host (their host names), both nranks entries, and returns how many,
     * or MBX_E_INVAL with one line in msg (--per socket with a rank bound
     * across sockets). pairs runs plan p (p->n of them) over those ranks,
     * cb after each pass as in mbx_pairs_hooks (non-zero stops: MBX_E_ABORTED
     * with the cells so far), into *out (free with mbx_pairs_run_free), and
     * frees the nodes' state on every rank after. The fake makes the
     * times up from a model (mbx_backend_fake). */
    int (*pairs_nodes)(mbx_backend *b, int per, int *rank, char (*host)[MBX_HOST_MAX], char *msg,
                       size_t msglen);
    int (*pairs)(mbx_backend *b, const mbx_pairs_plan *p, const int *rank, mbx_pairs_progress_fn cb,
                 void *ud, mbx_pairs_run *out, char *msg, size_t msglen);
    int nhosts;                       /* hosts of the job; the fake: 1 */
    int thread_asked, thread_granted; /* the MPI thread level (job.h); the fake: single */
    /* After set_method with a cold cache: the bytes the rank with the least
     * memory to spare may take (MBX_E_RANGE when the buffer is larger);
     * UINT64_MAX when unknown. */
    uint64_t cache_budget;
    /* The runner carried out a request of this kind (mbx/runner.h: a
     * pass reported, or MBX_SCHED_DONE at the end of a run); NULL in the
     * engine. The fake's test model may raise a stop signal here. */
    void (*on_request)(mbx_backend *b, int kind);
    int fake; /* 1: the fake back end, nothing is measured */
    void *impl;
};

/* Settling, the scheduler's MBX_SCHED_SETTLE: untimed barriers on every
 * rank (batches of a barrier point whose results are dropped) for secs
 * seconds of the back end's clock, ended between two batches (each about
 * 1 ms) once the time is up or stop(ud) returns non-zero (stop may be
 * NULL). *spent gets the seconds it took. Returns 0, or the measurement's
 * error code. */
int mbx_backend_settle(mbx_backend *b, double secs, int (*stop)(void *ud), void *ud, double *spent);

/* The engine on rank 0 (after describe); the MPI thread levels the job
 * asked for and was granted (the job runner's, tui/cmd/job.h). MBX_OK or
 * the error of describing the job. */
int mbx_backend_engine(mbx_engine *e, int thread_asked, int thread_granted, mbx_backend *out);

/* Every pair of nodes over the MPI engine (the engine back end's pairs,
 * and `mpibex pairs`): plan p over the ranks rank[0..p->n) through the
 * engine's steps (MPI_Wtime; the gap between rounds slept), cb after each
 * pass (non-zero stops: MBX_E_ABORTED, the cells so far in *out), then
 * the nodes' state freed on every rank. mbx_pairs_run_plan's errors, or
 * the free's. */
MBX_NODISCARD int mbx_pairs_run_engine(mbx_engine *e, const mbx_pairs_plan *p, const int *rank,
                                       mbx_pairs_progress_fn cb, void *ud, mbx_pairs_run *out,
                                       char *msg, size_t msglen);

/* rc's text for a message: mbx_strerror(rc), and for MBX_E_MPI the failed
 * call and MPI_Error_string's text when the back end recorded them
 * ("MPI error (MPI_Send: Invalid rank, error stack: ...)"), for
 * MBX_E_INVAL and MBX_E_PROTO the point parameter refused (mbx_engine_why),
 * written into buf.
 * Returns buf or mbx_strerror's static text. */
const char *mbx_backend_strerror(mbx_backend *b, int rc, char *buf, size_t len);

/* The fake: nranks simulated ranks, deterministic noise, and time that only
 * advances by what it "measures". Its curves are shaped like real ones so
 * refinement has work to do: a ping-pong switches protocol at 12 KiB (its
 * slope drops), collectives grow with log2 P, master-worker with the
 * pieces per worker; constants come from a hash of the benchmark's name, so
 * adding benchmarks to the registry changes no other curve. Odd ranks sit
 * "across the socket": the pair scan finds the highest odd rank. Its probe
 * sits on one of two levels (0.2 and 0.7 us one-way) and switches every 16
 * probes, with a one-probe dip back (probe 27 of every 32), so a run of a
 * few dozen points shows level shifts, points measured again and a
 * SHIFTED point, the same on every machine. An accurate fan-out benchmark
 * (mbx_bench.companion) sits below its plain collective (0.9 - 0.05 log2 P
 * of it) and reports the plain collective's model time, +-2 % from a hash
 * of the point, as its plain value (no generator draws: other points'
 * noise stays the same). An overlap benchmark (MBX_BENCH_OVERLAP) takes
 * its companion's model time as the computation alone and adds the part
 * of the pure time it does not hide (20..70 % hidden by the name's hash,
 * less above 64 KiB).
 * Its test model stops a run where a test needs it to (the fake is too
 * quick to catch with kill), read from the environment when it is made:
 * MBX_TEST_FAKE_STOP_PASSES=K raises SIGTERM after the K-th pass the
 * runner reports, MBX_TEST_FAKE_STOP_DONE=1 raises SIGINT when the run's
 * last request is done (in the end's summaries and sort).
 * Its node pairs (pairs, pairs_nodes): MBX_TEST_FAKE_HOSTS=H spreads the
 * ranks over H hosts "fake01".. in blocks (default 1 host), one package
 * each; a cell's latency is 1.5 us and its bandwidth 6 GB/s (a window's
 * time), times a factor of the sender and of the receiver, +-3 % from a
 * hash of the cell and the pass. MBX_TEST_FAKE_SLOW_NODE=I makes node I
 * (an index into the nodes) 2x slower in its row and its column, and
 * MBX_TEST_FAKE_SLOW_LINK=S:D the cell S -> D 3x. */
void mbx_backend_fake(int nranks, mbx_backend *out);
void mbx_backend_fake_free(mbx_backend *b);

#endif
