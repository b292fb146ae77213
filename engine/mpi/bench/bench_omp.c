/* OpenMP constructs (Sphinx's OpenMP tests, measured the EPCC way). Only
 * rank 0 of the point times; the point is measured with procs = 1 and the
 * other ranks sit it out. The parameter "threads" is the team size, given
 * with the num_threads clause (omp_set_num_threads is never called, so the
 * environment's ICVs, recorded in the env capture, stay as the user set
 * them); a team smaller than asked for fails the point.
 *
 * What one "call" is, and what the CSV holds per call:
 *   omp.parallel      one parallel region (fork + join), each thread runs
 *                     the body once;
 *   omp.for_static,   one worksharing loop of threads * FOR_ITERS
 *   omp.for_dynamic   iterations (schedule static, or dynamic with chunk 1)
 *                     inside a region that stays up for the observation,
 *                     each iteration the body, with its implied barrier;
 *   omp.barrier       the body then a barrier, in a standing region;
 *   omp.reduction     a parallel region with reduction(+:sum), each thread
 *                     runs the body and adds 1 (so it includes the fork and
 *                     join that omp.parallel measures alone);
 *   omp.critical,     one execution by one thread of a critical section or
 *   omp.lock          omp_set_lock ... omp_unset_lock around the body, all
 *                     threads contending: the team runs inner executions in
 *                     all, inner / threads each;
 *   omp.atomic        one `#pragma omp atomic` increment of a shared
 *                     counter, all threads contending, counted as above.
 * The body is a tiny fixed delay (BODY_ITERS volatile adds). Setup times the
 * body alone on the calling thread (the reference: FOR_ITERS bodies for the
 * loops, one plain increment of a volatile for atomic), and every
 * observation has inner references subtracted, so the CSV holds the
 * construct's overhead per call, as EPCC's syncbench reports it. A point
 * whose corrected median is not positive is UNRELIABLE (the harness says so).
 *
 * One observation is an inner loop of calls, sized in setup (the fastest
 * of a few trials) to span at least 100 timer ticks, 10 us, and
 * FORK_FACTOR times the fastest empty parallel region (capped at 1 ms), so
 * the fork and join of the standing region that the loop, barrier,
 * critical, lock and atomic tests run in is at most 1/FORK_FACTOR of an
 * observation (more where the cap applies: many threads on few cores).
 *
 * An observation ends early once it has run LATE_FACTOR times its planned
 * span (at least LATE_MIN_S): a team that shares its cores with another
 * process waits out scheduler slices at every barrier (2 threads on 2 busy
 * cores: 12 ms a barrier, against 0.2 us idle), and an inner loop sized
 * while the cores were free would then run for minutes. The early end is
 * decided by thread 0, read every CHECK_EVERY* calls (a clock read amortized
 * to under 1 % of the fastest call), and agreed by the team at a barrier,
 * so no thread waits in a barrier the others left. Such an observation
 * holds the mean time per call over the calls it made, scaled to inner
 * calls, so its value stays the time per construct. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/bench.h"
#include "mbx/kv.h"
#include "patterns.h"

#define BODY_ITERS 16
#define FOR_ITERS 8 /* loop iterations per thread */
#define THREADS_MAX 256
#define INNER_MAX 10000000
#define MIN_OBS_S 10e-6
#define MAX_OBS_S 1e-3 /* the fork target's cap: oversubscribed forks are slow */
#define MIN_OBS_TICKS 100.0
#define FORK_FACTOR 50.0
#define TRIALS 3
#define FORK_TRIALS 8
#define LATE_FACTOR 100.0
#define LATE_MIN_S 0.05
#define CHECK_EVERY 64         /* calls between clock reads in a standing region */
#define CHECK_EVERY_FORK 16    /* the same for a region per call (a fork is slower) */
#define CHECK_EVERY_SHARED 256 /* the same for atomic, critical, lock (12 ns a call) */
#define NO_STOP INT64_MAX

enum omp_op {
    OP_PARALLEL,
    OP_FOR_STATIC,
    OP_FOR_DYNAMIC,
    OP_BARRIER,
    OP_CRITICAL,
    OP_ATOMIC,
    OP_REDUCTION,
    OP_LOCK
};

typedef struct omp_state {
    int threads;
    double ref; /* the reference's time per call, seconds */
    long sum;   /* the last reduction's result */
    /* The early end of an observation (see the top): */
    mbx_timer_kind timer; /* thread 0's clock */
    double late_s;        /* an observation's span before it ends early */
    double t_late;        /* the current observation's end, on timer */
    int64_t done;         /* calls made by the current observation */
    /* --validate only (NULL while timing): */
    long *cnt;         /* critical, lock: executions, updated inside */
    int *mark;         /* parallel: per thread; for: per iteration */
    long *arrived;     /* barrier: the round each thread reached */
    volatile int *bad; /* set by any thread that sees a wrong state */
    /* What the team writes while timed, each on a cache line of its own,
     * so that no construct pays for another's traffic (reading stop_at
     * from the atomic counter's line cost omp.atomic 3 ns a call): */
    _Alignas(64) long counter;    /* atomic's target */
    _Alignas(64) int64_t stop_at; /* the round after which the team leaves */
    _Alignas(64) omp_lock_t lock;
} omp_state;

static uint64_t no_buf(uint64_t bytes, int procs)
{
    (void)bytes;
    (void)procs;
    return 0;
}

/* The tiny body: each thread's own stack, so threads do not share it. */
static inline void body(void)
{
    volatile unsigned a = 0;
    for (unsigned j = 0; j < BODY_ITERS; j++)
        a += j;
}

/* Thread 0, every `every` calls (j counts from 0): whether the
 * observation has run past its end. */
static inline int late(const omp_state *s, int64_t j, int every)
{
    return j % every == every - 1 && mbx_timer_now(s->timer) > s->t_late;
}

/* Calls made by each thread of a team that shares `inner` calls. */
static inline int shared_calls(enum omp_op op)
{
    return op == OP_CRITICAL || op == OP_ATOMIC || op == OP_LOCK;
}

static void loop_for(omp_state *s, int64_t n, int dynamic)
{
    const int nit = s->threads * FOR_ITERS;
    int *mark = s->mark;
    int64_t done = n;
#pragma omp parallel num_threads(s->threads)
    for (int64_t j = 0; j < n; j++) {
        /* Written before round j's implied barrier, read after it: a thread
         * still reading round j - 1's value never sees j - 1 here. */
        if (omp_get_thread_num() == 0 && late(s, j, CHECK_EVERY)) {
#pragma omp atomic write
            s->stop_at = j;
        }
        if (dynamic) {
#pragma omp for schedule(dynamic, 1)
            for (int it = 0; it < nit; it++) {
                body();
                if (mark)
                    mark[it]++;
            }
        } else {
#pragma omp for schedule(static)
            for (int it = 0; it < nit; it++) {
                body();
                if (mark)
                    mark[it]++;
            }
        }
        int64_t stop;
#pragma omp atomic read
        stop = s->stop_at;
        if (stop == j) {
            if (omp_get_thread_num() == 0)
                done = j + 1;
            break;
        }
    }
    s->done = done;
}

static void loop_barrier(omp_state *s, int64_t n)
{
    long *arrived = s->arrived;
    volatile int *bad = s->bad;
    const int nt = s->threads;
    int64_t done = n;
#pragma omp parallel num_threads(nt)
    {
        int me = omp_get_thread_num();
        for (int64_t j = 0; j < n; j++) {
            body();
            if (arrived) {
#pragma omp atomic write
                arrived[me] = (long)j + 1;
            }
            if (me == 0 && late(s, j, CHECK_EVERY)) {
#pragma omp atomic write
                s->stop_at = j;
            }
#pragma omp barrier
            /* After round j's barrier every thread has reached round j. */
            for (int x = 0; arrived && x < nt; x++) {
                long a;
#pragma omp atomic read
                a = arrived[x];
                if (a < (long)j + 1)
                    *bad = 1;
            }
            int64_t stop;
#pragma omp atomic read
            stop = s->stop_at;
            if (stop == j) {
                if (me == 0)
                    done = j + 1;
                break;
            }
        }
    }
    s->done = done;
}

/* The shared ops run in blocks of CHECK_EVERY_SHARED calls, the loop of a block
 * as tight as without the early end. After a block thread 0 marks the
 * observation late, and every thread leaves at its next look. No barrier
 * follows, so the threads need not leave at the same call. */
static inline int shared_late(omp_state *s)
{
    int64_t stop;
    if (omp_get_thread_num() == 0 && mbx_timer_now(s->timer) > s->t_late) {
#pragma omp atomic write
        s->stop_at = 0;
    }
#pragma omp atomic read
    stop = s->stop_at;
    return stop != NO_STOP;
}

/* The end of the block of shared calls that starts at j. */
static inline int64_t block_end(int64_t j, int64_t per)
{
    return per - j > CHECK_EVERY_SHARED ? j + CHECK_EVERY_SHARED : per;
}

/* Up to n calls of op with the state's team (inner = n); returns the calls
 * made: n unless the observation ran past s->t_late. */
static int64_t run_op(omp_state *s, enum omp_op op, int64_t n)
{
    const int nt = s->threads;
    const int64_t per = n / nt; /* shared ops: n is a multiple of nt */
    long *cnt = s->cnt;
    int64_t done = 0;
    s->stop_at = NO_STOP;
    s->done = n;
    switch (op) {
    case OP_PARALLEL:
        for (int64_t j = 0; j < n; j++) {
#pragma omp parallel num_threads(nt)
            {
                body();
                if (s->mark)
                    s->mark[omp_get_thread_num()]++;
            }
            if (late(s, j, CHECK_EVERY_FORK)) {
                s->done = j + 1;
                break;
            }
        }
        break;
    case OP_FOR_STATIC: loop_for(s, n, 0); break;
    case OP_FOR_DYNAMIC: loop_for(s, n, 1); break;
    case OP_BARRIER: loop_barrier(s, n); break;
    case OP_CRITICAL:
#pragma omp parallel num_threads(nt) reduction(+ : done)
    {
        int64_t j = 0;
        while (j < per) {
            for (const int64_t end = block_end(j, per); j < end; j++) {
#pragma omp critical(mbx_omp_critical)
                {
                    body();
                    if (cnt)
                        (*cnt)++;
                }
            }
            if (shared_late(s))
                break;
        }
        done += j;
    }
        s->done = done;
        break;
    case OP_ATOMIC:
#pragma omp parallel num_threads(nt) reduction(+ : done)
    {
        int64_t j = 0;
        while (j < per) {
            for (const int64_t end = block_end(j, per); j < end; j++) {
#pragma omp atomic update
                s->counter += 1;
            }
            if (shared_late(s))
                break;
        }
        done += j;
    }
        s->done = done;
        break;
    case OP_REDUCTION:
        for (int64_t j = 0; j < n; j++) {
            long sum = 0;
#pragma omp parallel num_threads(nt) reduction(+ : sum)
            {
                body();
                sum += 1;
            }
            s->sum = sum;
            if (s->bad && sum != nt)
                *s->bad = 1;
            if (late(s, j, CHECK_EVERY_FORK)) {
                s->done = j + 1;
                break;
            }
        }
        break;
    case OP_LOCK:
#pragma omp parallel num_threads(nt) reduction(+ : done)
    {
        int64_t j = 0;
        while (j < per) {
            for (const int64_t end = block_end(j, per); j < end; j++) {
                omp_set_lock(&s->lock);
                body();
                if (cnt)
                    (*cnt)++;
                omp_unset_lock(&s->lock);
            }
            if (shared_late(s))
                break;
        }
        done += j;
    }
        s->done = done;
        break;
    }
    return s->done;
}

/* The reference for n calls, on the calling thread alone. */
static void run_ref(enum omp_op op, int64_t n)
{
    static volatile long plain;
    int64_t bodies = op == OP_FOR_STATIC || op == OP_FOR_DYNAMIC ? n * FOR_ITERS : n;
    if (op == OP_ATOMIC)
        for (int64_t j = 0; j < n; j++)
            plain += 1;
    else
        for (int64_t j = 0; j < bodies; j++)
            body();
}

static double now(const mbx_bench_ctx *c)
{
    return mbx_timer_now(c->timer);
}

/* Fastest of TRIALS timings of n calls (or of the reference), seconds. */
static double best_of(mbx_bench_ctx *c, omp_state *s, enum omp_op op, int64_t n, int ref)
{
    double best = 0.0;
    for (int i = 0; i < TRIALS; i++) {
        double t0 = now(c);
        if (ref)
            run_ref(op, n);
        else
            run_op(s, op, n);
        double d = now(c) - t0 - c->overhead;
        if (i == 0 || d < best)
            best = d;
    }
    return best;
}

/* The smallest inner (doubling; a multiple of the team for shared ops)
 * whose fastest trial lasts the target. */
static int64_t size_inner(mbx_bench_ctx *c, omp_state *s, enum omp_op op, double target, int ref)
{
    int64_t unit = shared_calls(op) ? s->threads : 1, n = unit;
    while (n < INNER_MAX && best_of(c, s, op, n, ref) < target)
        n *= 2;
    return n;
}

static int omp_setup(mbx_bench_ctx *c, enum omp_op op)
{
    c->inner = 1;
    if (c->rank != 0)
        return MPI_SUCCESS;
    if (c->param < 1 || c->param > THREADS_MAX || c->param > omp_get_thread_limit())
        return MPI_ERR_ARG;
    omp_state *s = aligned_alloc(_Alignof(omp_state), sizeof *s);
    if (!s)
        return MPI_ERR_NO_MEM;
    memset(s, 0, sizeof *s);
    c->priv = s;
    s->threads = (int)c->param;
    s->timer = c->timer;
    s->t_late = HUGE_VAL; /* sizing and --validate run every call */
    omp_init_lock(&s->lock);
    /* The team must be as large as asked (OMP_DYNAMIC or a thread limit
     * could make it smaller). */
    int got = 0;
#pragma omp parallel num_threads(s->threads)
    {
#pragma omp single
        got = omp_get_num_threads();
    }
    if (got != s->threads)
        return MPI_ERR_OTHER;

    double target = MIN_OBS_TICKS * c->tick;
    if (target < MIN_OBS_S)
        target = MIN_OBS_S;
    /* The fastest of several single regions: the first creates the
     * threads, and one preempted region must not set the target. */
    double fork = 0.0;
    for (int i = 0; i < FORK_TRIALS; i++) {
        double f = best_of(c, s, OP_PARALLEL, 1, 0);
        if (i == 0 || f < fork)
            fork = f;
    }
    double want = FORK_FACTOR * fork < MAX_OBS_S ? FORK_FACTOR * fork : MAX_OBS_S;
    if (want > target)
        target = want;
    c->inner = size_inner(c, s, op, target, 0);
    /* The test hook: MBX_TEST_OMP_SLOWDOWN=F plans observations F times
     * longer than the sizing found, as when the cores fill after set-up. */
    const char *hook = getenv("MBX_TEST_OMP_SLOWDOWN");
    long slow = hook ? strtol(hook, NULL, 10) : 0;
    if (slow > 1 && slow <= 1000000)
        c->inner *= slow;
    s->late_s = LATE_FACTOR * target > LATE_MIN_S ? LATE_FACTOR * target : LATE_MIN_S;
    /* The reference per call, from an inner loop of its own that spans the
     * same target (a body may take less than a tick). */
    int64_t nref = size_inner(c, s, op, target, 1);
    s->ref = best_of(c, s, op, nref, 1) / (double)nref;
    return MPI_SUCCESS;
}

static int omp_run(mbx_bench_ctx *c, size_t k, double *t, enum omp_op op)
{
    if (c->rank != 0)
        return MPI_SUCCESS;
    omp_state *s = c->priv;
    const int64_t inner = c->inner;
    const double ref = (double)inner * s->ref;
    c->timing = 1;
    for (size_t i = 0; i < k; i++) {
        int rc = mbx_obs_sync(c, i, 0);
        if (rc != MPI_SUCCESS)
            return rc;
        double t0 = now(c);
        s->t_late = t0 + s->late_s;
        int64_t done = run_op(s, op, inner);
        double d = now(c) - t0;
        t[i] = (done < inner ? d * (double)inner / (double)done : d) - ref;
    }
    s->t_late = HUGE_VAL;
    return MPI_SUCCESS;
}

static void omp_teardown(mbx_bench_ctx *c)
{
    omp_state *s = c->priv;
    if (s) {
        omp_destroy_lock(&s->lock);
        free(s);
    }
    c->priv = NULL;
}

/* --validate: one untimed inner loop with the checks switched on. Every
 * construct must have done what it promises: each thread of the team ran a
 * region's body once, each loop iteration ran once, no thread left a
 * barrier before all arrived, a reduction summed the team, and critical
 * sections, locks and atomics lost no update. */
static int omp_check(mbx_bench_ctx *c, int *bad, enum omp_op op)
{
    if (c->rank != 0)
        return MPI_SUCCESS;
    omp_state *s = c->priv;
    const int nt = s->threads;
    int64_t n = shared_calls(op) ? 64 * (int64_t)nt : 64;
    volatile int wrong = 0;
    long cnt = 0;
    size_t nmark = op == OP_PARALLEL ? (size_t)nt : (size_t)nt * FOR_ITERS;
    int *mark = calloc(nmark, sizeof *mark);
    long *arrived = calloc((size_t)nt, sizeof *arrived);
    if (!mark || !arrived) {
        free(mark);
        free(arrived);
        return MPI_ERR_NO_MEM;
    }
    s->cnt = &cnt;
    s->mark = op == OP_PARALLEL || op == OP_FOR_STATIC || op == OP_FOR_DYNAMIC ? mark : NULL;
    s->arrived = op == OP_BARRIER ? arrived : NULL;
    s->bad = &wrong;
    s->counter = 0;
    run_op(s, op, n);
    if (s->mark)
        for (size_t x = 0; x < nmark; x++)
            wrong |= mark[x] != n;
    if ((op == OP_CRITICAL || op == OP_LOCK) && cnt != n)
        wrong = 1;
    if (op == OP_ATOMIC && s->counter != n)
        wrong = 1;
    s->cnt = NULL;
    s->mark = NULL;
    s->arrived = NULL;
    s->bad = NULL;
    free(mark);
    free(arrived);
    if (wrong)
        *bad = 1;
    return MPI_SUCCESS;
}

static const char *proc_bind_name(omp_proc_bind_t b)
{
    switch (b) {
    case omp_proc_bind_false: return "false";
    case omp_proc_bind_true: return "true";
    case omp_proc_bind_master: return "master";
    case omp_proc_bind_close: return "close";
    case omp_proc_bind_spread: return "spread";
    }
    return "unknown";
}

static int omp_env(struct mbx_kvlist *out)
{
    int rc;
    if ((rc = mbx_kv_addf(out, "omp_version", "%d", (int)_OPENMP)) != MBX_OK ||
        (rc = mbx_kv_addf(out, "omp_max_threads", "%d", omp_get_max_threads())) != MBX_OK ||
        (rc = mbx_kv_addf(out, "omp_num_procs", "%d", omp_get_num_procs())) != MBX_OK ||
        (rc = mbx_kv_addf(out, "omp_dynamic", "%s", omp_get_dynamic() ? "true" : "false")) !=
            MBX_OK ||
        (rc = mbx_kv_addf(out, "omp_proc_bind", "%s", proc_bind_name(omp_get_proc_bind()))) !=
            MBX_OK)
        return rc;
    return MBX_OK;
}

#define OMP_FUNCS(sfx, op)                                                                         \
    static int setup_##sfx(mbx_bench_ctx *c)                                                       \
    {                                                                                              \
        return omp_setup(c, op);                                                                   \
    }                                                                                              \
    static int run_##sfx(mbx_bench_ctx *c, size_t k, double *t)                                    \
    {                                                                                              \
        return omp_run(c, k, t, op);                                                               \
    }                                                                                              \
    static int check_##sfx(mbx_bench_ctx *c, int *bad)                                             \
    {                                                                                              \
        return omp_check(c, bad, op);                                                              \
    }
OMP_FUNCS(parallel, OP_PARALLEL)
OMP_FUNCS(for_static, OP_FOR_STATIC)
OMP_FUNCS(for_dynamic, OP_FOR_DYNAMIC)
OMP_FUNCS(barrier, OP_BARRIER)
OMP_FUNCS(critical, OP_CRITICAL)
OMP_FUNCS(atomic, OP_ATOMIC)
OMP_FUNCS(reduction, OP_REDUCTION)
OMP_FUNCS(lock, OP_LOCK)

#define OMP(nm, sfx, text)                                                                         \
    {                                                                                              \
        .name = nm, .pattern = "omp", .summary = text, .timing = "per_call", .min_procs = 1,       \
        .flags = MBX_BENCH_INNER | MBX_BENCH_PARAM, .unit = 1, .divisor = 1.0,                     \
        .buf_bytes = no_buf, .setup = setup_##sfx, .run = run_##sfx, .teardown = omp_teardown,     \
        .check = check_##sfx, .param_name = "threads", .param_default = 2,                         \
        .param_max = THREADS_MAX, .env = omp_env                                                   \
    }

/* The pattern's place in the registry, the picker's and `mpibex list`'s
 * order (engine/mpi/CMakeLists.txt reads this line). */
#define MBX_PATTERN_ORDER 90
#define MBX_PATTERN_NEEDS_OPENMP /* built only when the compiler has OpenMP */
const mbx_bench mbx_bench_omp_table[] = {
    OMP("omp.parallel", parallel, "OpenMP parallel region enter + leave; overhead per region"),
    OMP("omp.for_static", for_static,
        "OpenMP for, schedule(static), 8 iterations a thread; overhead per loop"),
    OMP("omp.for_dynamic", for_dynamic,
        "OpenMP for, schedule(dynamic,1), 8 iterations a thread; overhead per loop"),
    OMP("omp.barrier", barrier, "OpenMP barrier; overhead per barrier"),
    OMP("omp.critical", critical,
        "OpenMP critical, all threads contending; overhead per entry by one thread"),
    OMP("omp.atomic", atomic,
        "OpenMP atomic increment, all threads contending; overhead per update"),
    OMP("omp.reduction", reduction,
        "OpenMP parallel region with reduction(+); overhead per region"),
    OMP("omp.lock", lock,
        "omp_set_lock + omp_unset_lock, all threads contending; overhead per pair"),
};
const size_t mbx_bench_omp_count = sizeof mbx_bench_omp_table / sizeof mbx_bench_omp_table[0];
