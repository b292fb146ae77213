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
#include <stddef.h>
#include <stdint.h>

#include "mbx/kv.h"
#include "mbx/result.h"
#include "mbx/status.h"
#include "mbx/stop.h"
#include "mbx/timer.h"

typedef struct mbx_engine mbx_engine;

#define MBX_HOST_MAX 64
#define MBX_BINDING_MAX 128

/* What one rank reports about itself (MBX_OP_DESCRIBE). */
typedef struct mbx_rank_info {
    char host[MBX_HOST_MAX];
    char binding[MBX_BINDING_MAX]; /* CPU list from sched_getaffinity, "0-1,4" */
    uint64_t mem_avail;            /* MemAvailable of its host, bytes */
    double cpu_seconds;            /* user + system CPU time used by the rank */
    int32_t node_rank, node_size;  /* within its shared-memory node */
    int32_t host_id;               /* index into the job's host list (set by root) */
    int32_t bound;                 /* 1 if the affinity mask is narrower than the host */
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
int mbx_engine_rank(const mbx_engine *e);
int mbx_engine_size(const mbx_engine *e);

/* Non-root ranks: execute commands until QUIT; *exit_code receives the
 * code rank 0 passed to mbx_engine_quit(). */
MBX_NODISCARD int mbx_engine_serve(mbx_engine *e, int *exit_code);

/* ---- rank 0 only ---- */

/* Broadcast QUIT with an exit code; serving ranks return from serve. */
MBX_NODISCARD int mbx_engine_quit(mbx_engine *e, int exit_code);

/* One empty command: the command loop's own round trip. */
MBX_NODISCARD int mbx_engine_nop(mbx_engine *e);

/* Gather every rank's host, binding, memory and CPU time. The result stays
 * valid until the next describe or destroy. */
MBX_NODISCARD int mbx_engine_describe(mbx_engine *e, const mbx_job_info **out);

/* Select the timer on every rank and calibrate it there. `out` gets rank
 * 0's figures; max_overhead the largest overhead of any rank. */
MBX_NODISCARD int mbx_engine_configure(mbx_engine *e, mbx_timer_kind kind, mbx_timer_info *out,
                                       double *max_overhead);

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
    int validate;       /* after the stop rule, check received data (MBX_E_VALIDATE) */
} mbx_point_spec;

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
 * next measurement. Errors: MBX_E_INVAL for a bad spec, MBX_E_NOMEM,
 * MBX_E_MPI if any rank's MPI call failed, MBX_E_ABORTED. */
MBX_NODISCARD int mbx_engine_measure(mbx_engine *e, const mbx_point_spec *spec,
                                     mbx_progress_fn progress, void *ud, mbx_result *out,
                                     const double **obs, size_t *nobs);

/* Quick latency scan (rank 0 only, collective through the command loop):
 * rank 0 runs `rounds` untimed-warm 1-byte round trips with each other rank
 * in turn; lat[i] receives the median one-way latency to rank i in seconds
 * (lat[0] = 0); lat must hold size entries. *far is the rank with the
 * largest latency (ties: the lowest rank). Used to pick the ping-pong pair
 * that crosses the network on an SMP cluster. */
MBX_NODISCARD int mbx_engine_pair_scan(mbx_engine *e, int rounds, double *lat, int *far);

/* Fill a result from a finished measurement (any back end): benchmark and
 * timing from the registry, and the status by the rules: UNRELIABLE when
 * the corrected median is not positive, else SETTLED when the rule was met,
 * else UNSETTLED. label is left NULL. */
void mbx_result_fill(mbx_result *out, const mbx_point_spec *spec, const mbx_summary *s,
                     mbx_stop_verdict verdict, size_t nmin, size_t nmax, double overhead,
                     size_t batches, double wall);

/* Environment capture for the sidecar file: tool version, MPI library,
 * ranks and hosts, binding of every rank, timer, sync, compiler and flags,
 * and library-tuning variables (MPICH_*, MPIR_CVAR_*, UCX_*, OMPI_*, FI_*)
 * only. Uses the last describe and configure. Rank 0 only. */
MBX_NODISCARD int mbx_engine_environment(mbx_engine *e, mbx_kvlist *out);

#endif
