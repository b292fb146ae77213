/* The global clock against known clocks: every rank's clock is a wrapper
 * around CLOCK_MONOTONIC (one clock for all ranks of one machine, so it is
 * the truth) with a known offset and drift, local_r(T) = T * (1 + d_r) + o_r.
 * After mbx_clocksync_run, rank r's global clock at true time T reads
 * global_r(local_r(T)) and should read local_0(T); the test knows every
 * o_r and d_r, so it computes that residual exactly on rank 0 from the
 * gathered models, right after the sync and after 0.5 s and 1 s of sleep.
 * Also: the identity model (no sync) fails the same check by ~1000 s,
 * mbx_clocksync_check agrees with the true residuals, bad options fail on
 * every rank, and the name helpers. Usage: test_clocksync jk|hca. Any failed
 * check aborts the job (non-zero exit). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mbx/clocksync.h"

typedef struct fake_clock {
    double offset, drift;
} fake_clock;

static int g_rank;

static void require(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "test_clocksync (rank %d): FAILED: %s\n", g_rank, what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static double true_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Rank r's injected clock: offset 1000 s * r + 0.37 s, drift of alternating
 * sign growing with r (rank 0: -500 ppm, 1: +1000, 2: -1500, 3: +2000 ppm).
 * Real clocks drift by a few ppm; these are large so that a model without
 * its drift term (an offset alone) misses by more than a millisecond within
 * the second after the sync, far outside the bounds below. */
static fake_clock fake_params(int r)
{
    return (fake_clock){.offset = 1000.0 * r + 0.37, .drift = (r % 2 ? 1 : -1) * 500e-6 * (r + 1)};
}

static double fake_local(const fake_clock *c, double t)
{
    return t * (1.0 + c->drift) + c->offset;
}

static double fake_now(void *ud)
{
    return fake_local(ud, true_now());
}

/* global_r(local_r(T)) - local_0(T), rank r's global clock error at true T. */
static double residual(int r, const mbx_clock_model *m, double t)
{
    fake_clock cr = fake_params(r), c0 = fake_params(0);
    return mbx_clock_global(m, fake_local(&cr, t)) - fake_local(&c0, t);
}

static double max_residual(int p, const mbx_clock_model *models, double t)
{
    double worst = 0;
    for (int r = 0; r < p; r++)
        worst = fmax(worst, fabs(residual(r, &models[r], t)));
    return worst;
}

/* Whether max_abs, from a check that ran between true times tb and ta, is
 * what the models give: the check measured each rank's offset at some T in
 * [tb, ta] to within rtt / 2, and each rank's residual is linear in T. */
static int check_agrees(int p, const mbx_clock_model *models, double tb, double ta, double max_abs,
                        double rtt)
{
    double hi = 0, lo = 0;
    for (int r = 1; r < p; r++) {
        double eb = residual(r, &models[r], tb), ea = residual(r, &models[r], ta);
        hi = fmax(hi, fmax(fabs(eb), fabs(ea)));
        lo = fmax(lo, (eb > 0) != (ea > 0) ? 0.0 : fmin(fabs(eb), fabs(ea)));
    }
    double slack = 0.5 * rtt + 1e-7;
    return max_abs >= lo - slack && max_abs <= hi + slack;
}

static void sleep_s(double s)
{
    struct timespec d = {.tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&d, &d) != 0)
        ;
}

/* Every rank gets MBX_E_INVAL, also when only the last rank's input is bad. */
static void check_bad_options(mbx_clocksync_method method, int p)
{
    fake_clock c = fake_params(g_rank);
    mbx_clock_model m;
    const mbx_clocksync_opts bad[] = {
        {.method = (mbx_clocksync_method)7}, {.method = method, .fitpoints = 1},
        {.method = method, .fitpoints = -3}, {.method = method, .fitpoints = 10001},
        {.method = method, .exchanges = -1}, {.method = method, .exchanges = 10001},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        require(mbx_clocksync_run(MPI_COMM_WORLD, &bad[i], fake_now, &c, &m) == MBX_E_INVAL,
                "bad options give MBX_E_INVAL");
    require(mbx_clocksync_run(MPI_COMM_WORLD, NULL, fake_now, &c, &m) == MBX_E_INVAL,
            "NULL options give MBX_E_INVAL");
    mbx_clocksync_opts good = {.method = method, .fitpoints = 3, .exchanges = 2};
    const mbx_clocksync_opts *mine = g_rank == p - 1 ? &bad[1] : &good;
    require(mbx_clocksync_run(MPI_COMM_WORLD, mine, fake_now, &c, &m) == MBX_E_INVAL,
            "bad options on one rank give MBX_E_INVAL on every rank");
    require(m.slope == 0 && m.intercept == 0, "failed sync leaves the identity");
    mbx_clocksync_opts differ = {.method = method, .fitpoints = 3 + g_rank % 2, .exchanges = 2};
    require(mbx_clocksync_run(MPI_COMM_WORLD, &differ, fake_now, &c, &m) == MBX_E_INVAL,
            "options that differ between ranks give MBX_E_INVAL on every rank");

    double max_abs, rtt;
    require(mbx_clocksync_check(MPI_COMM_WORLD, &m, fake_now, &c, 0, &max_abs, &rtt) == MBX_E_INVAL,
            "check with 0 rounds gives MBX_E_INVAL");
    require(mbx_clocksync_check(MPI_COMM_WORLD, &m, fake_now, &c, g_rank == p - 1 ? -1 : 5,
                                &max_abs, &rtt) == MBX_E_INVAL,
            "check with bad rounds on one rank gives MBX_E_INVAL everywhere");
}

static void check_names(void)
{
    mbx_clocksync_method m;
    require(mbx_clocksync_parse("jk", &m) == MBX_OK && m == MBX_CLOCKSYNC_JK, "parse jk");
    require(mbx_clocksync_parse("hca", &m) == MBX_OK && m == MBX_CLOCKSYNC_HCA, "parse hca");
    require(mbx_clocksync_parse("HCA2", &m) == MBX_E_INVAL, "parse rejects HCA2");
    require(mbx_clocksync_parse(NULL, &m) == MBX_E_INVAL, "parse rejects NULL");
    require(strcmp(mbx_clocksync_name(MBX_CLOCKSYNC_JK), "jk") == 0, "name jk");
    require(strcmp(mbx_clocksync_name(MBX_CLOCKSYNC_HCA), "hca") == 0, "name hca");
    require(strcmp(mbx_clocksync_name(MBX_CLOCKSYNC_COUNT_), "?") == 0, "name of no method");
}

/* Bound on |residual| over the second after the sync (default options: 20
 * samples of 10 ping-pongs, spread over 95 ms). Measured on the 2-vCPU VM:
 * on an idle machine 2 ranks stay below 1 us and 4 ranks below about 5 us;
 * with other jobs' busy-polling ranks beside them (load average 10), the
 * best round trips are 20-200 us instead of 0.3-1.2 us and residuals reach
 * 60 us on 2 ranks and 45 us on 4. The bounds keep a margin over the loaded
 * figures and still fail by an order of magnitude or more for a missing
 * drift term (> 1 ms after 1 s with the drifts above), a wrong sign or a
 * wrong HCA composition (~1000 s). */
static double residual_bound(int p)
{
    return p <= 2 ? 100e-6 : 300e-6;
}

/* Write this rank's stand-in for the boot_id file (text NULL: none). */
static void put_boot_id(const char *path, const char *text)
{
    remove(path);
    if (!text)
        return;
    FILE *f = fopen(path, "w");
    require(f != NULL, "write a boot_id stand-in");
    fprintf(f, "%s\n", text);
    require(fclose(f) == 0, "close a boot_id stand-in");
}

/* Ranks that read one host clock (the same boot_id, a host-wide
 * timer) take the identity model and say so; any difference fits. All
 * ranks of this test run on one host, so the real boot_id agrees. */
static void check_same_host(const mbx_clocksync_opts *opts, fake_clock *mine)
{
    int same = -1, id = -1;
    require(mbx_clocksync_same_host(MPI_COMM_WORLD, NULL, &same) == MBX_OK && same == 1,
            "ranks of one host share /proc/sys/kernel/random/boot_id");
    char path[64], text[64];
    snprintf(path, sizeof path, "clocksync_boot_id.%d", g_rank);
    put_boot_id(path, "5e0c7a1b-same");
    require(mbx_clocksync_same_host(MPI_COMM_WORLD, path, &same) == MBX_OK && same == 1,
            "equal boot_ids: same host");
    snprintf(text, sizeof text, "5e0c7a1b-%d", g_rank);
    put_boot_id(path, text);
    require(mbx_clocksync_same_host(MPI_COMM_WORLD, path, &same) == MBX_OK && same == 0,
            "different boot_ids: not the same host");
    put_boot_id(path, g_rank == 1 ? NULL : "5e0c7a1b-same");
    require(mbx_clocksync_same_host(MPI_COMM_WORLD, path, &same) == MBX_OK && same == 0,
            "an unreadable boot_id on one rank: not the same host");
    put_boot_id(path, "");
    require(mbx_clocksync_same_host(MPI_COMM_WORLD, path, &same) == MBX_OK && same == 0,
            "empty boot_ids: not the same host");
    remove(path);

    /* The choice: the identity, even on these wrapped clocks (the caller
     * vouched for a host-wide timer), without a fit. */
    mbx_clock_model m = {.slope = 1, .intercept = 1};
    double t0 = true_now();
    require(mbx_clocksync_model(MPI_COMM_WORLD, opts, 1, NULL, fake_now, mine, &m, &id) == MBX_OK &&
                id == 1,
            "same boot_id and a host-wide timer: identity model chosen");
    require(m.slope == 0 && m.intercept == 0 && m.drift_err == 0 && !m.slope_kept,
            "the identity model is offset 0, drift 0");
    require(true_now() - t0 < 0.5, "the identity takes no fit (a fit spans 1 s)");
    /* A timer that is not host-wide on one rank: a fit, on every rank. */
    require(mbx_clocksync_model(MPI_COMM_WORLD, opts, g_rank != 1, NULL, fake_now, mine, &m, &id) ==
                    MBX_OK &&
                id == 0,
            "a timer not host-wide: fitted model");
    if (g_rank != 0)
        require(m.slope != 0 && m.slope_kept, "the fitted model has its slope");
    if (g_rank == 0)
        printf("clocksync: same boot_id -> identity model; a rank without a host-wide timer -> "
               "fitted\n");
}

/* One scenario on every rank (over 80 lines): fit, check the residuals, then the identity and
 * fitted cases, read top to bottom. */
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    mbx_clocksync_method method;
    require(argc == 2 && mbx_clocksync_parse(argv[1], &method) == MBX_OK,
            "usage: test_clocksync jk|hca");
    require(p >= 2, "needs at least 2 ranks");
    const char *name = mbx_clocksync_name(method);
    double bound = residual_bound(p);
    fake_clock mine = fake_params(g_rank);

    check_names();
    check_bad_options(method, p);

    mbx_clock_model *models = malloc((size_t)p * sizeof *models);
    require(models != NULL, "malloc");

    /* Without a sync (identity), the residual check fails by ~the offsets,
     * and mbx_clocksync_check sees the same. */
    mbx_clock_model ident = {0};
    double max_abs, rtt_min, tb = true_now();
    require(mbx_clocksync_check(MPI_COMM_WORLD, &ident, fake_now, &mine, 20, &max_abs, &rtt_min) ==
                MBX_OK,
            "check with the identity");
    double ta = true_now();
    if (g_rank == 0) {
        for (int r = 0; r < p; r++)
            models[r] = ident;
        double truth = max_residual(p, models, ta);
        printf("clocksync %s n=%d: identity: true max |residual| %.3f s, check max_abs %.3f s\n",
               name, p, truth, max_abs);
        require(truth > 1000.0 * (p - 1) - 10 && truth > 1e6 * bound,
                "identity model fails the residual check");
        require(check_agrees(p, models, tb, ta, max_abs, rtt_min),
                "check measures the offsets of the identity model");
    } else {
        require(max_abs == 0 && rtt_min == 0, "check results are on rank 0 only");
    }

    /* The sync, timed. */
    mbx_clocksync_opts opts = {.method = method};
    mbx_clock_model m;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = true_now();
    require(mbx_clocksync_run(MPI_COMM_WORLD, &opts, fake_now, &mine, &m) == MBX_OK, "sync");
    double took = true_now() - t0, took_max;
    MPI_Reduce(&took, &took_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (g_rank == 0)
        require(m.slope == 0 && m.intercept == 0, "rank 0 keeps the identity");
    else
        require(m.slope_kept == 1 && m.drift_err > 0, "a drift of 1000 ppm and more is kept");
    double line[2] = {m.slope, m.intercept}, *lines = malloc(2 * (size_t)p * sizeof *lines);
    require(lines != NULL, "malloc");
    MPI_Gather(line, 2, MPI_DOUBLE, lines, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int r = 0; g_rank == 0 && r < p; r++)
        models[r] = (mbx_clock_model){.slope = lines[2 * r], .intercept = lines[2 * r + 1]};
    free(lines);

    /* Residuals right after the sync, after 0.5 s and after 1 s. */
    enum { MOMENTS = 3 };
    double at[MOMENTS], worst = 0;
    for (int i = 0; i < MOMENTS; i++) {
        if (i > 0)
            sleep_s(0.5);
        at[i] = true_now();
    }
    if (g_rank == 0) {
        printf("clocksync %s n=%d: one sync took %.3f s\n", name, p, took_max);
        for (int r = 1; r < p; r++) {
            printf("  rank %d: slope %+.3e (true %+.3e), residual us:", r, models[r].slope,
                   (1 + fake_params(0).drift) / (1 + fake_params(r).drift) - 1);
            for (int i = 0; i < MOMENTS; i++) {
                double e = residual(r, &models[r], at[i]);
                worst = fmax(worst, fabs(e));
                printf(" %+8.3f", e * 1e6);
            }
            printf("  (at +0, +0.5, +1 s)\n");
        }
        printf("clocksync %s n=%d: max |residual| over 1 s: %.3f us (bound %.0f us)\n", name, p,
               worst * 1e6, bound * 1e6);
        require(worst <= bound, "residual of the global clock within the bound");
    }

    /* mbx_clocksync_check after the sync: small, and close to the truth. */
    tb = true_now();
    require(mbx_clocksync_check(MPI_COMM_WORLD, &m, fake_now, &mine, 20, &max_abs, &rtt_min) ==
                MBX_OK,
            "check after the sync");
    ta = true_now();
    if (g_rank == 0) {
        double truth = max_residual(p, models, ta);
        printf("clocksync %s n=%d: check after 1 s: max_abs %.3f us, rtt_min %.3f us, true max "
               "%.3f us\n",
               name, p, max_abs * 1e6, rtt_min * 1e6, truth * 1e6);
        require(rtt_min > 0, "check reports a round trip");
        require(max_abs <= bound + 0.5 * rtt_min, "check reports a small max_abs after the sync");
        require(check_agrees(p, models, tb, ta, max_abs, rtt_min),
                "check agrees with the true residuals within rtt_min / 2");
    } else {
        require(max_abs == 0 && rtt_min == 0, "check results are on rank 0 only");
    }

    check_same_host(&opts, &mine);
    free(models);
    MPI_Finalize();
    return 0;
}
