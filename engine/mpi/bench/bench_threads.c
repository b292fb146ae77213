/* The threads pattern: Pthreads overheads on one rank (Sphinx's threads
 * tests). Only rank 0 of the point measures; other ranks sit it out, as in
 * the simple pattern. The parameter `threads` (T, default 2) is the number
 * of threads, the calling MPI thread included as thread 0; it varies as an
 * independent variable (--param).
 *
 * Except create_join, the T-1 worker threads are made once per point in
 * setup, bound with hwloc round-robin over the PUs this rank is allowed
 * (the caller too, its binding restored at the end of the point), and
 * parked between observations (see threads_team.h). One observation, timed
 * by the caller only: mbx_obs_sync, release the workers, read the timer,
 * every thread runs its share of the inner loop, wait until the last thread
 * is done, read the timer. So an observation is the time until the slowest
 * thread finishes (timing "max_over_threads"), and includes one release
 * and one completion handshake, amortized over the inner loop (setup sizes
 * it to at least 100 timer ticks and MIN_OBS_S). The engine subtracts the
 * timer overhead and divides by ctx->inner:
 *
 *   threads.create_join      inner = T: create T threads (empty body, the
 *                            caller's binding inherited), then join them;
 *                            time per thread created and joined.
 *   threads.mutex            each thread locks and unlocks its own mutex L
 *                            times (no sharing); inner = L: time per
 *                            lock/unlock pair, threads running in parallel.
 *   threads.mutex_contended  every thread locks one shared mutex L times,
 *                            incrementing a shared counter; inner = T * L:
 *                            time per lock/unlock pair, all threads
 *                            together (the inverse of the throughput).
 *   threads.cond             a token passes around a ring of T threads, each
 *                            waiting on its own condition variable under
 *                            one mutex and signalling the next; inner = L
 *                            trips: time per trip around the ring (for T = 2
 *                            a signal/wait round trip; for T = 1, lock,
 *                            signal with no waiter, unlock).
 *   threads.barrier          every thread calls pthread_barrier_wait L
 *                            times on one T-thread barrier; inner = L: time
 *                            per barrier.
 *
 * Nothing here prints; a setup that cannot run (T out of range, no thread)
 * fails the point. */
#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/bench.h"
#include "patterns.h"
#include "threads_team.h"

#define THR_DEFAULT 2
#define INNER_MAX (1 << 22)
#define MIN_OBS_S 200e-6
#define MIN_OBS_TICKS 100.0
#define TRIALS 3
#define CACHE_LINE 128

/* ---- the benchmarks ---- */

enum thr_op { OP_CREATE, OP_MUTEX, OP_CONTENDED, OP_COND, OP_BARRIER };

typedef struct padded_mutex {
    pthread_mutex_t m;
    long count;
    char pad[CACHE_LINE];
} padded_mutex;

typedef struct thr_state {
    mbx_team team;
    enum thr_op op;
    int n;
    int64_t per;       /* inner-loop iterations of each thread */
    padded_mutex *own; /* OP_MUTEX: one per thread */
    pthread_mutex_t shared;
    long counter;       /* OP_CONTENDED, under shared */
    pthread_cond_t *cv; /* OP_COND: one per thread */
    int turn;           /* OP_COND, under shared */
    long passes;        /* OP_COND, under shared: handoffs so far */
    pthread_barrier_t bar;
    atomic_long arrived; /* OP_BARRIER check */
    atomic_int bad;      /* check: a thread saw something wrong */
    int checking;
    int have_shared, have_bar, ncv;
} thr_state;

static volatile int sink;

static void *empty_main(void *arg)
{
    if (arg)
        atomic_store((atomic_int *)arg, 1);
    return NULL;
}

static void thr_work(mbx_team *tm, int idx)
{
    thr_state *s = tm->ud;
    int64_t per = s->per;
    switch (s->op) {
    case OP_MUTEX: {
        padded_mutex *pm = &s->own[idx];
        for (int64_t j = 0; j < per; j++) {
            pthread_mutex_lock(&pm->m);
            pm->count++;
            pthread_mutex_unlock(&pm->m);
        }
        break;
    }
    case OP_CONTENDED:
        for (int64_t j = 0; j < per; j++) {
            pthread_mutex_lock(&s->shared);
            s->counter++;
            pthread_mutex_unlock(&s->shared);
        }
        break;
    case OP_COND: {
        int next = (idx + 1) % s->n;
        for (int64_t j = 0; j < per; j++) {
            pthread_mutex_lock(&s->shared);
            while (s->turn != idx)
                pthread_cond_wait(&s->cv[idx], &s->shared);
            if (s->checking && s->passes != j * s->n + idx)
                atomic_store(&s->bad, 1);
            s->passes++;
            s->turn = next;
            pthread_cond_signal(&s->cv[next]);
            pthread_mutex_unlock(&s->shared);
        }
        break;
    }
    case OP_BARRIER:
        for (int64_t j = 0; j < per; j++) {
            if (s->checking)
                atomic_fetch_add(&s->arrived, 1);
            pthread_barrier_wait(&s->bar);
            /* Every thread has arrived at barrier j before any leaves it. */
            if (s->checking && atomic_load(&s->arrived) < (long)s->n * (j + 1))
                atomic_store(&s->bad, 1);
            /* ... and no thread arrives at j + 1 before all have left j: a
             * second barrier keeps the count exact for the next check. */
            if (s->checking)
                pthread_barrier_wait(&s->bar);
        }
        break;
    case OP_CREATE: break;
    }
}

/* One create_join observation: T threads created, then joined. */
static int create_join(thr_state *s, atomic_int *flags)
{
    pthread_t tid[MBX_TEAM_MAX];
    int made = 0, rc = MPI_SUCCESS;
    for (; made < s->n; made++)
        if (pthread_create(&tid[made], NULL, empty_main, flags ? &flags[made] : NULL) != 0) {
            rc = MPI_ERR_OTHER;
            break;
        }
    for (int i = 0; i < made; i++)
        pthread_join(tid[i], NULL);
    return rc;
}

static int thr_loop(mbx_bench_ctx *c, size_t k, double *t)
{
    if (c->rank != 0)
        return MPI_SUCCESS;
    thr_state *s = c->priv;
    int rc = MPI_SUCCESS;
    c->timing = 1;
    for (size_t i = 0; i < k && rc == MPI_SUCCESS; i++) {
        if ((rc = mbx_obs_sync(c, i, 0)) != MPI_SUCCESS)
            break;
        if (s->op == OP_CREATE) {
            double t0 = mbx_timer_now(c->timer);
            rc = create_join(s, NULL);
            t[i] = mbx_timer_now(c->timer) - t0;
            continue;
        }
        mbx_team_go(&s->team);
        double t0 = mbx_timer_now(c->timer);
        thr_work(&s->team, 0);
        rc = mbx_team_done(&s->team);
        t[i] = mbx_timer_now(c->timer) - t0;
    }
    return rc;
}

static void set_inner(mbx_bench_ctx *c, thr_state *s)
{
    c->inner = s->op == OP_CREATE ? s->n : s->op == OP_CONTENDED ? s->per * s->n : s->per;
}

static void thr_teardown(mbx_bench_ctx *c)
{
    thr_state *s = c->priv;
    if (!s)
        return;
    mbx_team_stop(&s->team);
    if (s->own) {
        for (int i = 0; i < s->n; i++)
            pthread_mutex_destroy(&s->own[i].m);
        free(s->own);
    }
    for (int i = 0; i < s->ncv; i++)
        pthread_cond_destroy(&s->cv[i]);
    free(s->cv);
    if (s->have_shared)
        pthread_mutex_destroy(&s->shared);
    if (s->have_bar)
        pthread_barrier_destroy(&s->bar);
    free(s);
    c->priv = NULL;
}

/* The synchronization objects op needs (the shared mutex always; per-thread
 * mutexes, condition variables or a barrier); an MPI error code. */
static int thr_sync_init(thr_state *s, enum thr_op op)
{
    size_t n = (size_t)s->n;
    if (pthread_mutex_init(&s->shared, NULL) != 0)
        return MPI_ERR_OTHER;
    s->have_shared = 1;
    if (op == OP_MUTEX) {
        if (posix_memalign((void **)&s->own, CACHE_LINE, sizeof *s->own * n) != 0) {
            s->own = NULL;
            return MPI_ERR_NO_MEM;
        }
        memset(s->own, 0, sizeof *s->own * n);
        for (int i = 0; i < s->n; i++)
            pthread_mutex_init(&s->own[i].m, NULL);
    }
    if (op == OP_COND) {
        s->cv = calloc(n, sizeof *s->cv);
        if (!s->cv)
            return MPI_ERR_NO_MEM;
        for (int i = 0; i < s->n; i++, s->ncv++)
            if (pthread_cond_init(&s->cv[i], NULL) != 0)
                return MPI_ERR_OTHER;
    }
    if (op == OP_BARRIER) {
        if (pthread_barrier_init(&s->bar, NULL, (unsigned)n) != 0)
            return MPI_ERR_OTHER;
        s->have_bar = 1;
    }
    return MPI_SUCCESS;
}

/* Size the inner loop: double it until the fastest of a few trial
 * observations, corrected for the timer overhead, lasts the target. */
static int thr_size_inner(mbx_bench_ctx *c, thr_state *s)
{
    double target = MIN_OBS_TICKS * c->tick;
    if (target < MIN_OBS_S)
        target = MIN_OBS_S;
    double t[TRIALS];
    for (;;) {
        set_inner(c, s);
        int rc = thr_loop(c, TRIALS, t);
        if (rc != MPI_SUCCESS)
            return rc;
        double best = t[0];
        for (int i = 1; i < TRIALS; i++)
            if (t[i] < best)
                best = t[i];
        if (best - c->overhead >= target || s->per >= INNER_MAX)
            return MPI_SUCCESS;
        s->per = s->per * 2 > INNER_MAX ? INNER_MAX : s->per * 2;
    }
}

static int thr_setup(mbx_bench_ctx *c, enum thr_op op)
{
    c->inner = 1;
    if (c->rank != 0)
        return MPI_SUCCESS;
    int64_t n = c->param ? c->param : THR_DEFAULT;
    if (n < 1 || n > MBX_TEAM_MAX)
        return MPI_ERR_ARG;
    thr_state *s = calloc(1, sizeof *s);
    if (!s)
        return MPI_ERR_NO_MEM;
    c->priv = s;
    s->op = op;
    s->n = (int)n;
    s->per = 1;
    atomic_init(&s->arrived, 0);
    atomic_init(&s->bad, 0);
    int rc = thr_sync_init(s, op);
    if (rc == MPI_SUCCESS && op == OP_CREATE) {
        char text[160];
        snprintf(text, sizeof text,
                 "%d threads created per observation, not bound (the caller's binding "
                 "inherited)",
                 s->n);
        mbx_threads_set_binding(text, 0);
    } else if (rc == MPI_SUCCESS) {
        rc = mbx_team_start(&s->team, s->n, 1, 0, thr_work, s);
    }
    if (rc == MPI_SUCCESS && op != OP_CREATE)
        rc = thr_size_inner(c, s);
    if (rc != MPI_SUCCESS) {
        thr_teardown(c);
        return rc;
    }
    set_inner(c, s);
    c->timing = 0;
    return MPI_SUCCESS;
}

/* --validate, on rank 0 of the point: one observation, untimed, whose
 * result is checked against what the operation must have done. */
static int thr_check(mbx_bench_ctx *c, int *bad)
{
    *bad = 0;
    if (c->rank != 0)
        return MPI_SUCCESS;
    thr_state *s = c->priv;
    if (!s)
        return MPI_ERR_OTHER;
    int rc;
    if (s->op == OP_CREATE) {
        atomic_int flags[MBX_TEAM_MAX];
        for (int i = 0; i < s->n; i++)
            atomic_init(&flags[i], 0);
        rc = create_join(s, flags);
        for (int i = 0; rc == MPI_SUCCESS && i < s->n; i++)
            if (!atomic_load(&flags[i]))
                *bad = 1;
        return rc;
    }
    s->checking = 1;
    s->counter = 0;
    s->passes = 0;
    s->turn = 0;
    atomic_store(&s->arrived, 0);
    atomic_store(&s->bad, 0);
    if (s->own)
        for (int i = 0; i < s->n; i++)
            s->own[i].count = 0;
    mbx_team_go(&s->team);
    thr_work(&s->team, 0);
    rc = mbx_team_done(&s->team);
    s->checking = 0;
    if (rc != MPI_SUCCESS)
        return rc;
    if (atomic_load(&s->bad))
        *bad = 1;
    switch (s->op) {
    case OP_MUTEX:
        for (int i = 0; i < s->n; i++)
            if (s->own[i].count != s->per)
                *bad = 1;
        break;
    case OP_CONTENDED:
        if (s->counter != (long)(s->per * s->n))
            *bad = 1;
        break;
    case OP_COND:
        if (s->passes != (long)(s->per * s->n) || s->turn != 0)
            *bad = 1;
        break;
    case OP_BARRIER:
        if (atomic_load(&s->arrived) != (long)(s->per * s->n))
            *bad = 1;
        break;
    case OP_CREATE: break;
    }
    return MPI_SUCCESS;
}

static uint64_t no_buf(uint64_t bytes, int procs)
{
    (void)bytes;
    (void)procs;
    return 0;
}

#define THR_FUNCS(sfx, op)                                                                         \
    static int setup_##sfx(mbx_bench_ctx *c)                                                       \
    {                                                                                              \
        return thr_setup(c, op);                                                                   \
    }
THR_FUNCS(create, OP_CREATE)
THR_FUNCS(mutex, OP_MUTEX)
THR_FUNCS(contended, OP_CONTENDED)
THR_FUNCS(cond, OP_COND)
THR_FUNCS(barrier, OP_BARRIER)

#define THR(nm, sfx, text)                                                                         \
    {                                                                                              \
        .name = nm, .pattern = "threads", .summary = text, .timing = "max_over_threads",           \
        .min_procs = 1, .flags = MBX_BENCH_INNER | MBX_BENCH_PARAM | MBX_BENCH_TEAM, .unit = 1,    \
        .divisor = 1.0, .buf_bytes = no_buf, .setup = setup_##sfx, .run = thr_loop,                \
        .teardown = thr_teardown, .check = thr_check, .param_name = "threads",                     \
        .param_default = THR_DEFAULT, .param_max = MBX_TEAM_MAX                                    \
    }

/* The pattern's place in the registry, the picker's and `mpibex list`'s
 * order (engine/mpi/CMakeLists.txt reads this line). */
#define MBX_PATTERN_ORDER 70
const mbx_bench mbx_bench_threads_table[] = {
    THR("threads.create_join", create,
        "pthread_create + pthread_join of T threads; time per thread"),
    THR("threads.mutex", mutex,
        "T threads lock/unlock their own mutex; time per pair (inner loop)"),
    THR("threads.mutex_contended", contended,
        "T threads lock/unlock one mutex; time per pair, all threads (inner loop)"),
    THR("threads.cond", cond,
        "token around a ring of T threads by condition variables; time per trip"),
    THR("threads.barrier", barrier,
        "pthread_barrier_wait across T threads; time per barrier (inner loop)"),
};
const size_t mbx_bench_threads_count =
    sizeof mbx_bench_threads_table / sizeof mbx_bench_threads_table[0];
