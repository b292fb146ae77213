/* What the front ends say and record about threads: the MPI thread level
 * (asked with --thread-level, granted by MPI_Init_thread; see job.h) and
 * the hwloc binding of the threaded benchmarks' teams (threads.*,
 * pingpong.mt; mbx_engine_thread_binding). Rank 0, between points. */
#ifndef MBX_THRINFO_H
#define MBX_THRINFO_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/bench.h"
#include "mbx/engine.h"
#include "mbx/kv.h"

/* mpi_thread_level_asked and mpi_thread_level (granted), as
 * MPI_THREAD_SINGLE ... MPI_THREAD_MULTIPLE, for an environment file.
 * MBX_OK or the kv error. */
MBX_NODISCARD int mbx_thrinfo_level_env(mbx_kvlist *out, int asked, int granted);

/* Threads per rank that call MPI at once in a point of b with parameter
 * `param` (0: the benchmark's default): the `threads` of an
 * MBX_BENCH_MPI_THREADS benchmark (pingpong.mt), 1 for every other. More
 * than one needs MPI_THREAD_MULTIPLE. */
int64_t mbx_thrinfo_mpi_threads(const mbx_bench *b, int64_t param);

/* Does b run a team of hwloc-bound threads (MBX_BENCH_TEAM: threads.*,
 * pingpong.mt)? */
int mbx_thrinfo_binds(const mbx_bench *b);

/* One line (no "mpibex: " prefix) saying that `threads` threads per rank
 * of b need MPI_THREAD_MULTIPLE, what was granted, and what to do: start
 * with --thread-level multiple, or, when that was asked and not granted,
 * use one thread or an MPI library with thread support. */
void mbx_thrinfo_multiple_msg(const mbx_bench *b, int64_t threads, int asked, int granted,
                              char *buf, size_t len);

/* The binding records of every rank (n entries) as environment keys:
 * threads_binding (the policy), rank.R.threads_binding (the last point's
 * binding) of each rank that ran a threaded point, threads_bind_failed
 * (points where some thread could not be bound, over every rank),
 * threads_bind_failed_ranks and rank.R.threads_bind_failure. Nothing when
 * no threaded point ran. MBX_OK or the kv error. */
MBX_NODISCARD int mbx_thrinfo_binding_env(const mbx_thread_bind *tb, int n, mbx_kvlist *out);

/* Failed binds since the last call: compares the total with *seen (0 at
 * first) and updates it. When there are new ones, returns their number,
 * writes the ranks with a failed bind so far ("1", "0-1") into ranks and
 * points *what at the failure text of the first of them; else 0. */
int mbx_thrinfo_binding_news(const mbx_thread_bind *tb, int n, int *seen, char *ranks, size_t rlen,
                             const char **what);

#endif
