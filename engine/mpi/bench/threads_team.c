/* The thread team of the threaded benchmarks (threads.*, pingpong.mt;
 * see threads_team.h): making, binding, waking and joining the workers,
 * the record of the last point's binding, and the job's MPI thread
 * level. */
#include <hwloc.h>
#include <mpi.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwtopo.h"
#include "mbx/status.h"
#include "mbx/threads.h"
#include "threads_team.h"

/* Spins of a parked worker (and of the caller waiting for the last worker)
 * before it sleeps or yields. */
#define SPIN_WAKE 20000
#define SPIN_DONE 2000

/* ---- the binding record ---- */

static char bind_text[512], bind_fail_text[512];
static int bind_bad, bind_points, bind_failed_points;

void mbx_threads_set_binding(const char *text, int failed)
{
    snprintf(bind_text, sizeof bind_text, "%s", text);
    bind_bad = failed;
    bind_points++;
    if (failed) {
        bind_failed_points++;
        snprintf(bind_fail_text, sizeof bind_fail_text, "%s", text);
    }
}

int mbx_threads_binding(char *buf, size_t len)
{
    if (buf && len)
        snprintf(buf, len, "%s", bind_text);
    return bind_bad;
}

void mbx_threads_binding_counts(int *points, int *failed, char *failure, size_t len)
{
    if (points)
        *points = bind_points;
    if (failed)
        *failed = bind_failed_points;
    if (failure && len)
        snprintf(failure, len, "%s", bind_fail_text);
}

int mbx_engine_thread_level(int *level)
{
    int init = 0, fin = 0;
    *level = -1;
    if (MPI_Initialized(&init) != MPI_SUCCESS || !init || MPI_Finalized(&fin) != MPI_SUCCESS ||
        fin || MPI_Query_thread(level) != MPI_SUCCESS) {
        *level = -1;
        return MBX_E_UNSUPPORTED;
    }
    return MBX_OK;
}

const char *mbx_thread_level_name(int level)
{
    if (level == MPI_THREAD_SINGLE)
        return "MPI_THREAD_SINGLE";
    if (level == MPI_THREAD_FUNNELED)
        return "MPI_THREAD_FUNNELED";
    if (level == MPI_THREAD_SERIALIZED)
        return "MPI_THREAD_SERIALIZED";
    if (level == MPI_THREAD_MULTIPLE)
        return "MPI_THREAD_MULTIPLE";
    return "unknown";
}

static void append(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

/* ---- the team ---- */

static void *worker_main(void *arg);

typedef struct worker_arg {
    mbx_team *tm;
    int idx;
} worker_arg;

static worker_arg wargs[MBX_TEAM_MAX];
static pthread_mutex_t wargs_lock = PTHREAD_MUTEX_INITIALIZER;

/* The PUs this process may run on, OS indices, in order; 0 when unknown. */
static int allowed_pus(hwloc_topology_t t, int *pu, int max)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int n = 0;
    if (!set)
        return 0;
    if (hwloc_get_cpubind(t, set, HWLOC_CPUBIND_PROCESS) != 0)
        hwloc_bitmap_copy(set, hwloc_topology_get_allowed_cpuset(t));
    unsigned i;
    hwloc_bitmap_foreach_begin(i, set)
    {
        if (n < max)
            pu[n++] = (int)i;
    }
    hwloc_bitmap_foreach_end();
    hwloc_bitmap_free(set);
    return n;
}

/* Bind thread idx (0: the caller) to its PU; record the outcome. */
static int bind_one(hwloc_topology_t t, mbx_team *tm, int idx, int pu)
{
    /* Test hook: every worker's bind fails, so the tests see how a failed
     * binding is reported (tests/mpi/threadlevel_tests.cmake). */
    const char *hook = getenv("MBX_TEST_BIND_FAIL");
    if (idx > 0 && hook && strcmp(hook, "1") == 0)
        return -1;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set)
        return -1;
    hwloc_bitmap_only(set, (unsigned)pu);
    int rc = idx == 0 ? hwloc_set_cpubind(t, set, HWLOC_CPUBIND_THREAD)
                      : hwloc_set_thread_cpubind(t, tm->tid[idx], set, HWLOC_CPUBIND_THREAD);
    hwloc_bitmap_free(set);
    return rc;
}

int mbx_team_size(long long param, long long def, int max, int *n)
{
    long long v = param ? param : def;
    if (v < 1 || v > max)
        return MPI_ERR_ARG;
    int level = MPI_THREAD_SINGLE;
    if (v > 1 && (MPI_Query_thread(&level) != MPI_SUCCESS || level < MPI_THREAD_MULTIPLE))
        return MPI_ERR_UNSUPPORTED_OPERATION;
    *n = (int)v;
    return MPI_SUCCESS;
}

int mbx_team_start(mbx_team *tm, int n, int bind, int first, mbx_team_fn fn, void *ud)
{
    memset(tm, 0, sizeof *tm);
    if (n < 1 || n > MBX_TEAM_MAX || first < 0)
        return MPI_ERR_ARG;
    tm->n = n;
    tm->fn = fn;
    tm->ud = ud;
    atomic_init(&tm->gen, 0u);
    atomic_init(&tm->done, 0);
    atomic_init(&tm->sleepers, 0);
    atomic_init(&tm->quit, 0);
    atomic_init(&tm->err, 0);
    if (pthread_mutex_init(&tm->lock, NULL) != 0)
        return MPI_ERR_OTHER;
    if (pthread_cond_init(&tm->wake, NULL) != 0) {
        pthread_mutex_destroy(&tm->lock);
        return MPI_ERR_OTHER;
    }
    tm->made = 0;
    for (int i = 1; i < n; i++) {
        pthread_mutex_lock(&wargs_lock);
        wargs[i] = (worker_arg){tm, i};
        pthread_mutex_unlock(&wargs_lock);
        if (pthread_create(&tm->tid[i], NULL, worker_main, &wargs[i]) != 0) {
            mbx_team_stop(tm);
            return MPI_ERR_OTHER;
        }
        tm->made = i;
    }

    char text[512];
    snprintf(text, sizeof text, "%d thread%s:", n, n == 1 ? "" : "s");
    char why[96] = "";
    hwloc_topology_t t = bind ? mbx_hwtopo_get(why, sizeof why) : NULL;
    int pu[MBX_TEAM_MAX], npu = t ? allowed_pus(t, pu, MBX_TEAM_MAX) : 0;
    if (!bind) {
        append(text, sizeof text, " not bound");
    } else if (!t || npu == 0) {
        append(text, sizeof text, " binding failed (%s)", t ? "no allowed PU" : why);
        tm->bind_failed = 1;
    } else {
        hwloc_bitmap_t saved = hwloc_bitmap_alloc();
        if (saved && hwloc_get_cpubind(t, saved, HWLOC_CPUBIND_THREAD) == 0)
            tm->saved = saved;
        else if (saved)
            hwloc_bitmap_free(saved);
        int failed = 0;
        for (int i = 0; i < n; i++) {
            int p = pu[(first + i) % npu];
            int rc = (i == 0 && !tm->saved) ? -1 : bind_one(t, tm, i, p);
            append(text, sizeof text, i ? ", t%d PU%d" : " t%d PU%d", i, p);
            if (rc != 0) {
                append(text, sizeof text, " (failed)");
                failed = 1;
            }
        }
        tm->bind_failed = failed;
        if (failed)
            append(text, sizeof text, "; binding failed for some threads");
    }
    mbx_threads_set_binding(text, tm->bind_failed);
    return MPI_SUCCESS;
}

static void *worker_main(void *arg)
{
    worker_arg *w = arg;
    pthread_mutex_lock(&wargs_lock);
    mbx_team *tm = w->tm;
    int idx = w->idx;
    pthread_mutex_unlock(&wargs_lock);
    unsigned seen = 0;
    for (;;) {
        /* Parked: spin a while, then sleep until the next go. */
        unsigned g = atomic_load(&tm->gen);
        for (int s = 0; g == seen && s < SPIN_WAKE; s++)
            g = atomic_load(&tm->gen);
        if (g == seen) {
            pthread_mutex_lock(&tm->lock);
            atomic_fetch_add(&tm->sleepers, 1);
            while ((g = atomic_load(&tm->gen)) == seen)
                pthread_cond_wait(&tm->wake, &tm->lock);
            atomic_fetch_sub(&tm->sleepers, 1);
            pthread_mutex_unlock(&tm->lock);
        }
        seen = g;
        if (atomic_load(&tm->quit))
            break;
        tm->fn(tm, idx);
        atomic_fetch_add(&tm->done, 1);
    }
    return NULL;
}

void mbx_team_go(mbx_team *tm)
{
    if (tm->n < 2)
        return;
    atomic_store(&tm->done, 0);
    atomic_fetch_add(&tm->gen, 1u);
    /* A worker that counted itself a sleeper before this load checks gen
     * under the lock; one that counts itself later sees the new gen. */
    if (atomic_load(&tm->sleepers) > 0) {
        pthread_mutex_lock(&tm->lock);
        pthread_cond_broadcast(&tm->wake);
        pthread_mutex_unlock(&tm->lock);
    }
}

int mbx_team_done(mbx_team *tm)
{
    if (tm->n >= 2) {
        for (int s = 0; atomic_load(&tm->done) < tm->n - 1; s++)
            if (s > SPIN_DONE)
                sched_yield();
    }
    int e = atomic_exchange(&tm->err, 0);
    return e ? e : MPI_SUCCESS;
}

void mbx_team_stop(mbx_team *tm)
{
    if (tm->n == 0)
        return;
    atomic_store(&tm->quit, 1);
    atomic_fetch_add(&tm->gen, 1u);
    pthread_mutex_lock(&tm->lock);
    pthread_cond_broadcast(&tm->wake);
    pthread_mutex_unlock(&tm->lock);
    for (int i = 1; i <= tm->made; i++)
        pthread_join(tm->tid[i], NULL);
    if (tm->saved) {
        char why[96];
        hwloc_topology_t t = mbx_hwtopo_get(why, sizeof why);
        if (t)
            (void)hwloc_set_cpubind(t, tm->saved, HWLOC_CPUBIND_THREAD);
        hwloc_bitmap_free(tm->saved);
        tm->saved = NULL;
    }
    pthread_cond_destroy(&tm->wake);
    pthread_mutex_destroy(&tm->lock);
    tm->n = 0;
    tm->made = 0;
}
