/* A team of threads for one point of a threaded benchmark (threads.*,
 * pingpong.mt). Internal to the engine.
 *
 * Thread 0 is the calling (MPI) thread; threads 1..n-1 are workers made in
 * the benchmark's setup and ended in its teardown. Every thread, the caller
 * included, is bound with hwloc to one PU, round-robin over the PUs this
 * process is allowed (thread i on the (first + i)-th PU modulo their number); the
 * caller's own binding is put back when the team stops.
 *
 * One observation: the caller calls mbx_team_go (every worker starts the
 * team's function), runs the function itself as thread 0, then
 * mbx_team_done waits until every worker has finished it. Between
 * observations a worker spins briefly, then sleeps on a condition variable
 * (parked), so an idle point costs no CPU. */
#ifndef MBX_THREADS_TEAM_H
#define MBX_THREADS_TEAM_H

#include <pthread.h>
#include <stdatomic.h>

#define MBX_TEAM_MAX 256

struct mbx_team;
typedef void (*mbx_team_fn)(struct mbx_team *tm, int idx);

typedef struct mbx_team {
    int n;                /* threads, the caller included */
    int made;             /* workers created */
    mbx_team_fn fn;       /* what each thread runs per observation */
    void *ud;             /* the benchmark's state */
    atomic_uint gen;      /* bumped by mbx_team_go */
    atomic_int done;      /* workers finished with the current gen */
    atomic_int sleepers;  /* workers asleep on wake */
    atomic_int quit;      /* set when the team stops */
    atomic_int err;       /* first error a worker reports (an MPI code), 0 none */
    pthread_mutex_t lock; /* guards the sleep on wake */
    pthread_cond_t wake;
    pthread_t tid[MBX_TEAM_MAX];
    void *saved;     /* the caller's binding before the team (hwloc_bitmap_t) */
    int bind_failed; /* some thread could not be bound */
} mbx_team;

/* The team size of a point whose param is `param` (0: def): *n, and
 * MPI_SUCCESS; MPI_ERR_ARG outside 1..max, MPI_ERR_UNSUPPORTED_OPERATION
 * when more than one thread would call MPI and the library did not grant
 * MPI_THREAD_MULTIPLE (the front ends name the level and the remedy). */
int mbx_team_size(long long param, long long def, int max, int *n);

/* Make the team (n >= 1 threads, n <= MBX_TEAM_MAX) and bind it, thread i
 * to the (first + i)-th allowed PU modulo their number (ranks sharing a
 * node and its PUs pass different `first`); `bind` 0 leaves every thread
 * where it is. Records the binding (see
 * mbx_threads_binding). Returns an MPI error code. On failure the team
 * is already stopped. */
int mbx_team_start(mbx_team *tm, int n, int bind, int first, mbx_team_fn fn, void *ud);

/* Caller: start the workers on the function (untimed part first). */
void mbx_team_go(mbx_team *tm);

/* Caller: wait for every worker to finish; returns the first error a worker
 * stored in tm->err (MPI_SUCCESS when none) and clears it. */
int mbx_team_done(mbx_team *tm);

/* Join every worker and restore the caller's binding. Idempotent. */
void mbx_team_stop(mbx_team *tm);

/* Record the binding text of a point that binds no team (create_join). */
void mbx_threads_set_binding(const char *text, int failed);

#endif
