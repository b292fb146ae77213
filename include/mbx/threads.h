/* Threaded benchmarks (threads.*, pingpong.mt): facts a front end reports
 * next to their results. Rank-local: call on the rank that measured (rank 0
 * of a point is world rank 0, where the front end runs). */
#ifndef MBX_THREADS_H
#define MBX_THREADS_H

#include <stddef.h>

/* The CPU binding of the last threaded point on this rank, e.g.
 * "4 threads: t0 PU0, t1 PU1, t2 PU0, t3 PU1" (OS PU indices), followed by
 * "; binding failed: ..." when hwloc could not bind some thread. An empty
 * string when no threaded point ran. Returns 1 when some bind failed, 0
 * otherwise. */
int mbx_threads_binding(char *buf, size_t len); /* a flag, not a status */

/* Threaded points this rank took part in so far (*points) and, of them,
 * those where some bind failed (*failed); `failure` (may be NULL) gets the
 * binding text of the last of those, "" when none. Any pointer may be NULL.
 * mbx_engine_thread_binding gathers this from every rank. */
void mbx_threads_binding_counts(int *points, int *failed, char *failure, size_t len);

/* The thread support MPI granted this process (MPI_Query_thread) in
 * *level: MBX_OK, or MBX_E_UNSUPPORTED with *level = -1 when MPI is not
 * initialized (or already finalized). */
int mbx_engine_thread_level(int *level);

/* "MPI_THREAD_SINGLE" ... "MPI_THREAD_MULTIPLE" for a level; "unknown". */
const char *mbx_thread_level_name(int level);

#endif
