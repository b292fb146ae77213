#include "watchdog.h"

#include <math.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mbx/ascii.h"
#include "mbx/bench.h"

enum { W_IDLE, W_ARMED, W_ENDING, W_QUIT };

struct mbx_watchdog {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int state;
    int fired; /* the HUNG line is out for the pass armed */
    double bound, armed_at;
    char what[200];
    const char *ending; /* the HUNG line's "and ENDING if it has not" */
    mbx_watchdog_end_fn end;
    void *ud;
};

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static struct timespec at_time(double t)
{
    struct timespec ts;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

double mbx_watchdog_bound(double floor_s, double mult, double expected_s)
{
    double b = mult * expected_s;
    return isfinite(b) && b > floor_s ? b : floor_s;
}

/* The thread: sleeps until the armed pass's bound, says it is HUNG, and at
 * twice the bound hands the run to the end hook. */
static void *watch_main(void *arg)
{
    mbx_watchdog *w = arg;
    pthread_mutex_lock(&w->lock);
    while (w->state != W_QUIT) {
        if (w->state != W_ARMED) {
            pthread_cond_wait(&w->wake, &w->lock);
            continue;
        }
        double due = w->armed_at + (w->fired ? 2.0 : 1.0) * w->bound;
        struct timespec ts = at_time(due);
        if (pthread_cond_timedwait(&w->wake, &w->lock, &ts) == 0 || w->state != W_ARMED ||
            mono_now() < due)
            continue;
        double out = mono_now() - w->armed_at;
        if (!w->fired) {
            w->fired = 1;
            fprintf(stderr,
                    "mpibex: watchdog: %s has not returned within %.3g s: HUNG (a rank stopped "
                    "answering?); the run goes on if it returns, and %s if it has not in another "
                    "%.3g s\n",
                    w->what, w->bound, w->ending, w->bound);
            continue;
        }
        w->state = W_ENDING;
        pthread_mutex_unlock(&w->lock);
        w->end(w->ud, out); /* does not return */
        abort();
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

int mbx_watchdog_start(mbx_watchdog **out, mbx_watchdog_end_fn end, void *ud)
{
    *out = NULL;
    mbx_watchdog *w = calloc(1, sizeof *w);
    if (!w)
        return -1;
    w->end = end;
    w->ud = ud;
    w->ending = "ends with its rows and journal kept";
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int ok = pthread_mutex_init(&w->lock, NULL) == 0;
    if (ok && pthread_cond_init(&w->wake, &ca) != 0) {
        pthread_mutex_destroy(&w->lock);
        ok = 0;
    }
    pthread_condattr_destroy(&ca);
    if (!ok) {
        free(w);
        return -1;
    }
    /* Signals stay with the main thread (docs/hardening.md, "Signals"). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&w->thread, NULL, watch_main, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
        free(w);
        return -1;
    }
    *out = w;
    return 0;
}

void mbx_watchdog_ending(mbx_watchdog *w, const char *ending)
{
    if (w)
        w->ending = ending;
}

void mbx_watchdog_arm(mbx_watchdog *w, double bound_s, const char *what)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    w->state = W_ARMED;
    w->fired = 0;
    w->bound = bound_s;
    w->armed_at = mono_now();
    snprintf(w->what, sizeof w->what, "%s", what);
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
}

/* The end hook has the run: this thread waits for it to end the job. */
static void block_for_good(mbx_watchdog *w)
{
    for (;;)
        pthread_cond_wait(&w->wake, &w->lock);
}

int mbx_watchdog_disarm(mbx_watchdog *w, double *took)
{
    if (!w)
        return 0;
    pthread_mutex_lock(&w->lock);
    if (w->state == W_ENDING)
        block_for_good(w);
    int hung = w->state == W_ARMED && mono_now() - w->armed_at >= w->bound;
    if (took)
        *took = mono_now() - w->armed_at;
    w->state = W_IDLE;
    w->fired = 0;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    return hung;
}

void mbx_watchdog_guard(mbx_watchdog *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    if (w->state == W_ENDING)
        block_for_good(w);
    pthread_mutex_unlock(&w->lock);
}

void mbx_watchdog_stop(mbx_watchdog *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    w->state = W_QUIT;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    free(w);
}

int mbx_watchdog_parse(const char *v, double *floor_s, double *mult)
{
    if (strcmp(v, "off") == 0) {
        *floor_s = 0.0;
        return 0;
    }
    char *end = NULL;
    double sec = mbx_strtod(v, &end), m = MBX_WATCHDOG_MULT;
    int ok = end != v && sec >= 0.5 && sec <= 86400.0;
    if (ok && *end == ':') {
        const char *ms = end + 1;
        m = mbx_strtod(ms, &end);
        ok = end != ms && m >= 2.0 && m <= 1000.0;
    }
    if (!ok || *end != '\0')
        return -1;
    *floor_s = sec;
    *mult = m;
    return 0;
}

void mbx_watchdog_pass_name(const mbx_point_spec *spec, char *buf, size_t len)
{
    const mbx_bench *b = mbx_bench_get(spec->bench_id);
    int n = snprintf(buf, len, "%s on %d procs at %llu bytes", b->name, spec->procs,
                     (unsigned long long)spec->bytes);
    if ((b->flags & MBX_BENCH_PARAM) && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " (%s %lld)", b->param_name,
                 (long long)(spec->param ? spec->param : b->param_default));
}

void mbx_watchdog_hung_row(mbx_result *r, const char *why)
{
    double *f[] = {&r->s.mean, &r->s.tmean,  &r->s.median,  &r->s.min,   &r->s.max,  &r->s.q1,
                   &r->s.q3,   &r->s.stddev, &r->s.stderr_, &r->s.ci_lo, &r->s.ci_hi};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        *f[i] = NAN;
    r->s.n = 0;
    r->s.outliers = 0;
    r->events = 0;
    r->status = MBX_POINT_HUNG;
    snprintf(r->status_reason, sizeof r->status_reason, "%s", why);
}

_Noreturn void mbx_watchdog_abort(void)
{
    fflush(stdout);
    fflush(stderr);
    struct timespec drain = {0, (long)(MBX_WATCHDOG_DRAIN_S * 1e9)};
    while (nanosleep(&drain, &drain) != 0)
        ;
    MPI_Abort(MPI_COMM_WORLD, MBX_WATCHDOG_EXIT);
    _exit(MBX_WATCHDOG_EXIT);
}
