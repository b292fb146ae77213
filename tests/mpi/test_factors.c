/* Experimental factors: the TSC timer, the cache flusher and the job
 * description's binding and host facts.
 *
 *   test_factors local [--figures]   no MPI: timers, TSC refusal, LLC size,
 *                                    flusher (run under LeakSanitizer)
 *   test_factors mpi [--expect-bound | --expect-unbound]
 *                                    under mpiexec: describe, environment,
 *                                    mbx_engine_unbound, TSC via configure
 *
 * Figures (flush time, cold vs warm reads, timer costs) are printed, never
 * asserted. Any failed check exits non-zero (MPI_Abort under MPI). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/cache.h"
#include "mbx/engine.h"
#include "mbx/timer.h"

static int under_mpi;

static void require(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "test_factors: FAILED: %s\n", what);
        if (under_mpi)
            MPI_Abort(MPI_COMM_WORLD, 1);
        exit(1);
    }
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_s(double s)
{
    double end = mono() + s;
    for (double left = s; left > 0; left = end - mono()) {
        struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        nanosleep(&ts, NULL);
    }
}

/* A TSC reading and the monotonic time it belongs to (tightest bracket). */
static void pair(double *tsc, double *m)
{
    double best = INFINITY;
    for (int i = 0; i < 9; i++) {
        double a = mono(), t = mbx_timer_now(MBX_TIMER_TSC), b = mono();
        if (b - a < best) {
            best = b - a;
            *tsc = t;
            *m = 0.5 * (a + b);
        }
    }
}

/* TSC seconds per CLOCK_MONOTONIC second over `span`, minus one. */
static double tsc_rate_error(double span)
{
    double t0, m0, t1, m1;
    pair(&t0, &m0);
    sleep_s(span);
    pair(&t1, &m1);
    return (t1 - t0) / (m1 - m0) - 1.0;
}

static void print_info(const char *label, const mbx_timer_info *ti)
{
    printf("timer %-5s %-30s nominal %.3g ns  resolution %.1f ns  overhead %.1f ns\n", label,
           mbx_timer_describe(ti->kind), ti->nominal_res * 1e9, ti->resolution * 1e9,
           ti->overhead * 1e9);
}

static void test_timers(int figures)
{
    mbx_timer_kind k;
    require(mbx_timer_parse("tsc", &k) == MBX_OK && k == MBX_TIMER_TSC, "parse tsc");
    require(strcmp(mbx_timer_name(MBX_TIMER_TSC), "tsc") == 0, "name tsc");
    require(mbx_timer_parse("rdtsc", &k) == MBX_E_INVAL, "unknown timer refused");
    require(MBX_TIMER_CLOCK == 0 && MBX_TIMER_WTIME == 1 && MBX_TIMER_TSC == 2, "kind values");

    char why[160];
    require(mbx_timer_available(MBX_TIMER_CLOCK, why, sizeof why) == MBX_OK, "clock available");
    require(mbx_timer_available(MBX_TIMER_COUNT_, why, sizeof why) == MBX_E_INVAL, "bad kind");

    /* The refusal path: a reason, and calibrate refuses too. */
    setenv("MBX_TEST_NO_TSC", "1", 1);
    mbx_timer_info ti;
    require(mbx_timer_available(MBX_TIMER_TSC, why, sizeof why) == MBX_E_UNSUPPORTED,
            "MBX_TEST_NO_TSC refuses the TSC");
    require(strstr(why, "MBX_TEST_NO_TSC") != NULL && strchr(why, '\n') == NULL,
            "one-line reason names the cause");
    require(mbx_timer_calibrate(MBX_TIMER_TSC, &ti) == MBX_E_UNSUPPORTED, "calibrate refuses");
    unsetenv("MBX_TEST_NO_TSC");

    mbx_timer_info clk;
    require(mbx_timer_calibrate(MBX_TIMER_CLOCK, &clk) == MBX_OK, "calibrate clock");
    require(clk.tsc_hz == 0.0, "no tsc figures for clock");
    print_info("clock", &clk);

    if (mbx_timer_available(MBX_TIMER_TSC, why, sizeof why) != MBX_OK) {
        require(why[0] != '\0', "unavailable TSC says why");
        printf("tsc not available here: %s\n", why);
        return;
    }
    require(mbx_timer_calibrate(MBX_TIMER_TSC, &ti) == MBX_OK, "calibrate tsc");
    require(ti.kind == MBX_TIMER_TSC && ti.tsc_hz > 1e6 && ti.tsc_hz < 1e11, "tsc frequency");
    require(ti.resolution > 0 && ti.overhead >= 0, "tsc resolution and overhead");
    require(strncmp(mbx_timer_describe(MBX_TIMER_TSC), "TSC via ", 8) == 0, "describe tsc");
    printf("tsc %.6f MHz, calibrations agree to %.1e\n", ti.tsc_hz * 1e-6, ti.tsc_spread);
    print_info("tsc", &ti);

    double t0 = mbx_timer_now(MBX_TIMER_TSC), t1 = mbx_timer_now(MBX_TIMER_TSC);
    require(t1 >= t0, "tsc does not go backwards");
    double err = tsc_rate_error(0.2);
    printf("tsc rate vs CLOCK_MONOTONIC over 0.2 s: %+.2e\n", err);
    require(fabs(err) < 1e-3, "tsc advances at CLOCK_MONOTONIC's rate within 1e-3");
    if (figures) {
        err = tsc_rate_error(1.0);
        printf("tsc rate vs CLOCK_MONOTONIC over 1 s: %+.2e (%.1f ns per s)\n", err, err * 1e9);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static volatile uint64_t sink;

static void read_all(const uint64_t *b, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += b[i];
    sink = s;
}

#define REPS 21

static void test_cache(void)
{
    uint64_t llc = 0;
    require(mbx_cache_llc_bytes(&llc) == MBX_OK && llc > 0, "llc bytes > 0");
    require(mbx_cache_llc_bytes(NULL) == MBX_E_INVAL, "llc NULL refused");
    printf("llc %llu bytes (%.1f MiB)\n", (unsigned long long)llc, (double)llc / 1048576.0);

    mbx_cache_flusher f;
    require(mbx_cache_flusher_init(&f, 0) == MBX_E_INVAL && f.buf == NULL, "0 bytes refused");
    mbx_cache_flusher_free(&f); /* harmless on an empty one */
    require(mbx_cache_flusher_init(&f, 1000) == MBX_OK, "small flusher");
    require(f.bytes >= 1000 && f.bytes % f.line == 0 && ((uintptr_t)f.buf & 4095) == 0,
            "rounded to lines, page-aligned");
    uint64_t before = f.buf[0];
    mbx_cache_flush(&f);
    require(f.buf[0] != before && f.buf[f.bytes / 8 - f.line / 8] == f.buf[0],
            "flush writes every line, a new value each time");
    mbx_cache_flusher_free(&f);
    require(f.buf == NULL, "free empties");

    require(mbx_cache_flusher_init(&f, llc) == MBX_OK, "llc-sized flusher");
    double flush[REPS], warm[REPS], cold[REPS];
    size_t n = 65536 / sizeof(uint64_t);
    uint64_t *b = malloc(65536);
    require(b != NULL, "64 KiB buffer");
    for (size_t i = 0; i < n; i++)
        b[i] = i;
    for (int r = 0; r < REPS; r++) {
        double t0 = mono();
        mbx_cache_flush(&f);
        flush[r] = mono() - t0;
        t0 = mono();
        read_all(b, n);
        cold[r] = mono() - t0;
        read_all(b, n);
        t0 = mono();
        read_all(b, n);
        warm[r] = mono() - t0;
    }
    qsort(flush, REPS, sizeof *flush, cmp_double);
    qsort(cold, REPS, sizeof *cold, cmp_double);
    qsort(warm, REPS, sizeof *warm, cmp_double);
    printf("flush of %.1f MiB: median %.2f ms (min %.2f)\n", (double)f.bytes / 1048576.0,
           flush[REPS / 2] * 1e3, flush[0] * 1e3);
    printf("read 64 KiB: warm median %.2f us, after a flush %.2f us (x%.1f)\n",
           warm[REPS / 2] * 1e6, cold[REPS / 2] * 1e6, cold[REPS / 2] / warm[REPS / 2]);
    free(b);
    mbx_cache_flusher_free(&f);
}

/* ---- under MPI ---- */

static int fact_ok(const char *v)
{
    if (!v || !*v)
        return 0;
    if (strncmp(v, "unavailable", 11) == 0)
        return strncmp(v, "unavailable (", 13) == 0 && v[strlen(v) - 1] == ')';
    return 1;
}

/* Every recorded factor checked in turn (over 80 lines): a list of cases, not logic. */
static void root(mbx_engine *e, const char *expect)
{
    const mbx_job_info *job;
    char list[256], why[160];
    int n = -1;
    require(mbx_engine_unbound(e, &n, list, sizeof list) == MBX_E_INVAL, "unbound before describe");
    require(mbx_engine_describe(e, &job) == MBX_OK, "describe");
    int facts = 0, unbound = 0;
    for (int r = 0; r < job->nranks; r++) {
        const mbx_rank_info *ri = &job->rank[r];
        printf("rank %d on %s: binding %s%s\n", r, ri->host, ri->binding,
               ri->bound ? "" : " (unbound)");
        require(ri->binding[0] != '\0' && strncmp(ri->binding, "unavailable", 11) != 0,
                "binding read by hwloc");
        require(ri->has_facts == (ri->node_rank == 0), "facts from node_rank 0 only");
        facts += ri->has_facts;
        unbound += !ri->bound;
        if (ri->bound)
            require(strstr(ri->binding, "core") && strstr(ri->binding, " L#"),
                    "a bound rank names its cores");
    }
    require(facts == job->nhosts, "one set of facts per host");

    require(mbx_engine_unbound(e, &n, list, sizeof list) == MBX_OK, "unbound after describe");
    require(n == unbound, "mbx_engine_unbound counts the unbound ranks");
    require((n == 0) == (list[0] == '\0'), "list empty exactly when all are bound");
    int n2 = -1;
    require(mbx_engine_unbound(e, &n2, NULL, 0) == MBX_OK && n2 == n, "count without a buffer");
    if (strcmp(expect, "--expect-bound") == 0)
        require(n == 0, "every rank bound (-bind-to core)");
    if (strcmp(expect, "--expect-unbound") == 0)
        require(n == job->nranks, "no rank bound");
    printf("unbound: %d [%s]\n", n, list);

    mbx_timer_kind tk = MBX_TIMER_CLOCK;
    if (mbx_timer_available(MBX_TIMER_TSC, why, sizeof why) == MBX_OK)
        tk = MBX_TIMER_TSC;
    else
        printf("tsc not available: %s\n", why);
    mbx_timer_info ti, wt;
    double worst;
    require(mbx_engine_configure(e, MBX_TIMER_WTIME, &wt, &worst) == MBX_OK, "configure wtime");
    print_info("wtime", &wt);
    require(mbx_engine_configure(e, tk, &ti, &worst) == MBX_OK, "configure clock or tsc");
    require(ti.kind == tk && (tk != MBX_TIMER_TSC || ti.tsc_hz > 0), "configured timer");
    print_info(mbx_timer_name(tk), &ti);

    mbx_kvlist kv = {0};
    require(mbx_engine_environment(e, &kv) == MBX_OK, "environment");
    static const char *const host_keys[] = {"name",           "cpu_model",   "cpu_governor",
                                            "cpu_mhz_cur",    "cpu_mhz_min", "cpu_mhz_max",
                                            "cpu_mhz_source", "llc",         "llc_bytes"};
    char key[64];
    for (int h = 0; h < job->nhosts; h++)
        for (size_t k = 0; k < sizeof host_keys / sizeof *host_keys; k++) {
            snprintf(key, sizeof key, "host.%d.%s", h, host_keys[k]);
            const char *v = mbx_kv_get(&kv, key);
            printf("  %-22s %s\n", key, v ? v : "(missing)");
            require(fact_ok(v), key);
        }
    static const char *const keys[] = {"rank.0.binding", "rank.1.binding", "timer_method"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        const char *v = mbx_kv_get(&kv, keys[k]);
        printf("  %-22s %s\n", keys[k], v ? v : "(missing)");
        require(fact_ok(v), keys[k]);
    }
    snprintf(key, sizeof key, "host.%d.name", job->nhosts);
    require(mbx_kv_get(&kv, key) == NULL, "no facts for hosts that do not exist");
    const char *ub = mbx_kv_get(&kv, "unbound");
    require(ub && strcmp(ub, list) == 0, "unbound key holds the rank list");
    if (tk == MBX_TIMER_TSC) {
        const char *hz = mbx_kv_get(&kv, "timer_tsc_hz");
        require(hz && atof(hz) > 1e6, "timer_tsc_hz recorded");
        require(mbx_kv_get(&kv, "timer_tsc_calibration_spread") != NULL, "spread recorded");
    }
    const char *lb = mbx_kv_get(&kv, "host.0.llc_bytes");
    uint64_t llc = 0;
    if (mbx_cache_llc_bytes(&llc) == MBX_OK)
        require(lb && strtoull(lb, NULL, 10) == llc, "host llc_bytes matches the cache module");
    mbx_kv_free(&kv);
}

static int run_mpi(const char *expect)
{
    under_mpi = 1;
    MPI_Init(NULL, NULL);
    mbx_engine *e;
    require(mbx_engine_create(MPI_COMM_WORLD, &e) == MBX_OK, "engine");
    int code = 0;
    if (mbx_engine_rank(e) == 0) {
        require(mbx_engine_size(e) >= 2, "needs 2 ranks");
        root(e, expect);
        require(mbx_engine_quit(e, 0) == MBX_OK, "quit");
    } else {
        require(mbx_engine_serve(e, &code) == MBX_OK, "serve");
    }
    int rank = mbx_engine_rank(e);
    mbx_engine_destroy(e);
    /* MPICH 4.0.2 with UCX over TCP can hang in MPI_Finalize when ranks
     * arrive at different times (tests/netns/pingpong_two_hosts.sh). */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0)
        printf("test_factors mpi: ok\n");
    return code;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc >= 2 && strcmp(argv[1], "local") == 0) {
        int figures = argc >= 3 && strcmp(argv[2], "--figures") == 0;
        test_timers(figures);
        test_cache();
        printf("test_factors local: ok\n");
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "mpi") == 0) {
        return run_mpi(argc >= 3 ? argv[2] : "");
    }
    fprintf(stderr,
            "usage: test_factors local [--figures] | mpi [--expect-bound|--expect-unbound]\n");
    return 2;
}
