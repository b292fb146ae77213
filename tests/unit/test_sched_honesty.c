/* The scheduler and the between-pass estimator at their defaults, driven
 * by simulated machines with memory (sched_sim.c): passes with AR(1)
 * noise on a time scale (rho 0 to 0.8 between passes S / (R - 1) apart),
 * two and three levels with exponential stays of 1 to 20 s, a quantized
 * timer. Each row is the one the run writes, taken when its point
 * becomes final (mbx_sim_run_rows), not one read after the run's last
 * probe. Per model it prints, over seeded runs of a 4-point curve, each
 * with its Wilson 95 % interval: the share of rows that cover the
 * launch's long-run median (known in the model) or flag themselves (not
 * SETTLED, with a reason), the coverage among the rows that do not flag,
 * and the share flagged; and for SETTLED rows the root-mean-square true
 * error over the root-mean-square reported err (docs/algorithms.md, "The
 * scheduler", Pacing). The first share also gets an interval by a
 * bootstrap over runs, whose rows are not independent. Where the target
 * holds it asserts that 93 % is not excluded by that interval, and where the machine has little
 * memory that at most a fifth of the rows of runs with a host history flag; and, in every model
 * with 50 SETTLED rows or more, that true/err (printed with its interval by a bootstrap over
 * runs) lies in [0.8, 1.25]. The runs of a model are one host's: each reads the history
 * (mbx/hosthist.h) the runs before it wrote to a file, as `mpibex run` does, and adds its own; the
 * first 5 have too few runs before them to judge by, and flag the rows of a run that saw no level
 * change
 * ("states unknown"). Each run's rows
 * also go to a results CSV. In groups of MBX_HONESTY_K runs (10 by default), each group's rows are
 * widened (mbx_profile_widen, ci_scope profile) by the profile `mpibex calibrate`'s builder makes
 * of the next group's files: a fresh profile of K launches for every group. It prints their
 * coverage of the long-run median, which in these models every launch shares: what a run with a
 * profile claims (docs/algorithms.md, "Launch variance and the machine profile"), and asserts 93 %
 * is not excluded in every model. MBX_HONESTY_RUNS sets the runs per model (200 by default). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "mbx/csvio.h"
#include "mbx/hosthist.h"
#include "mbx/levels.h"
#include "mbx/profile.h"
#include "mbx/profile_build.h"
#include "sched_sim.h"

static const uint64_t grid4[4] = {1, 4096, 65536, 1048576};
#define SIM_EPOCH 1795000000LL /* the runs' clock, seconds since 1970 */

typedef struct model {
    const char *name;
    double rho;   /* between passes 0.25 s apart: ou_tau = -0.25 / ln rho */
    double ou_sd; /* of the state, log scale */
    size_t nlev;  /* 0: one level */
    double factor[3], dwell[3];
    double tick;
    int holds; /* 1: the target holds (asserted); 0: printed, an open target */
    int quiet; /* 1: little memory: few rows may flag themselves */
} model;

typedef struct tally {
    size_t rows, covered, flagged, open, open_covered, settled;
    double true2, err2;
    size_t widened, widened_covered; /* the rows a profile widened */
    size_t outside;                  /* the rows it left launch-scoped: outside the profile */
    size_t blind, blind_missed;      /* rows of runs whose probes saw no level change; of them
                                        those that neither cover nor flag */
    size_t by_host;                  /* rows the host's history flagged as an unusual state */
    size_t host_paced;               /* rows of runs paced by the stay of the host's history */
    size_t settled_h;                /* SETTLED rows of runs with a history (5 runs before) */
    size_t rows_h, flagged_h;        /* rows of those runs, and of them those flagged */
    size_t young;                    /* rows flagged "states unknown": a history too young */
    double true2_h, err2_h;
} tally;

/* Wilson's 95 % interval of k in n. */
static void wilson(size_t k, size_t n, double *lo, double *hi)
{
    if (n == 0) {
        *lo = 0;
        *hi = 1;
        return;
    }
    double z = 1.959964, p = (double)k / (double)n, d = 1 + z * z / (double)n;
    double c = (p + z * z / (2 * (double)n)) / d;
    double h = z * sqrt(p * (1 - p) / (double)n + z * z / (4.0 * (double)n * (double)n)) / d;
    *lo = c - h;
    *hi = c + h;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A row says it is not to be trusted as a settled CI: not SETTLED, with
 * a reason (the states outlast its span, max-passes, ...). */
static int flagged(const mbx_result *r)
{
    return r->status != MBX_POINT_SETTLED && r->status_reason[0] != '\0';
}

/* The row's CI holds truth. */
static int covers(const mbx_result *r, double truth)
{
    return r->s.ci_lo <= truth && truth <= r->s.ci_hi;
}

/* One seeded run of the 4-point curve: its rows tallied, kept in
 * rows[0..3] with the long-run medians in truth[0..3], and written to the
 * results CSV csv. */
static void one_run(const model *md, uint64_t seed, tally *t, double *elapsed, const char *csv,
                    const char *hist, mbx_result *rows, double *truth)
{
    mbx_sched_opts o;
    mbx_sched_opts_init(&o);
    o.seed = seed;
    o.resolution = md->tick;
    /* The host's history of the runs before this one, through its file,
     * as a run reads it (a run a minute). */
    long long now = SIM_EPOCH + 60 * (long long)seed;
    char msg[256];
    int hrc = mbx_hosthist_read(hist, "sim", "sim", 2, now, &o.host, msg, sizeof msg);
    if (hrc != MBX_OK && hrc != MBX_E_IO)
        fail_msg("%s", msg);
    o.host_kept = 1;
    mbx_sched *s = mbx_sim_make(&o, 1, grid4, 4);
    sim m = {.rng = seed * 7919 + 1,
             .noise = 0.02,
             .probe_noise = 0.02,
             .curve_scale = {1},
             .ou_sd = md->ou_sd,
             .ou_tau = md->rho > 0 ? -0.25 / log(md->rho) : 0.01,
             .nlev = md->nlev,
             .tick = md->tick};
    for (size_t l = 0; l < 3; l++) {
        m.lev_factor[l] = md->factor[l];
        m.lev_dwell[l] = md->dwell[l];
    }
    if (m.ou_sd <= 0 && m.nlev < 2)
        m.ou_tau = 0;
    mbx_result fin[4];
    int got[4];
    *elapsed += mbx_sim_run_rows(s, &m, fin, got, 4);
    mbx_sched_pacing pg;
    mbx_sched_pacing_get(s, &pg);
    mbx_hosthist_rec rec;
    if (mbx_sched_host_record(s, 2, now, &rec))
        assert_int_equal(mbx_hosthist_append(hist, "sim", "sim", &rec), MBX_OK);
    if (getenv("MBX_HONESTY_DEBUG")) {
        print_message(
            " tau %.3g (true %.3g) mature %d dwell %.3g need %.3g span %.3g probes %zu now %.2f\n",
            pg.tau, m.ou_tau, pg.mature, pg.dwell, pg.need, pg.span, pg.probes, m.now);
    }
    mbx_csv_writer *w = NULL;
    assert_int_equal(mbx_csv_writer_open(csv, mbx_result_columns, MBX_RESULT_NCOLS, &w), MBX_OK);
    for (size_t i = 0; i < 4; i++) {
        /* the row as the run wrote it when the point became final */
        assert_true(got[i]);
        mbx_result r = fin[i];
        r.procs = 2;
        r.bytes = grid4[i]; /* as the runner names its row */
        truth[i] = mbx_sim_long_run_median(&m, 0, grid4[i]);
        mbx_result_fields f;
        mbx_result_format(&r, &f);
        assert_int_equal(mbx_csv_writer_row(w, f.field), MBX_OK);
        rows[i] = r;
        int cov = covers(&r, truth[i]), fl = flagged(&r);
        if (getenv("MBX_HONESTY_DEBUG"))
            print_message("  x %8llu st %d reason '%s' passes %zu span %.1f levels %zu med %.3g "
                          "ci %.3g..%.3g truth %.3g probe %.3g host %.3g (%zu) %s\n",
                          (unsigned long long)grid4[i], (int)r.status, r.status_reason, r.passes,
                          r.pass_span, r.levels, r.s.median, r.s.ci_lo, r.s.ci_hi, truth[i],
                          r.probe, o.host.center, o.host.runs, cov ? "" : "MISS");
        if (getenv("MBX_HONESTY_DEBUG") && !cov && r.status == MBX_POINT_SETTLED) {
            size_t np;
            const double *pm = mbx_sched_pass_medians(s, i, &np);
            double pmc[64], pt[64];
            int pl[64];
            np = np < 64 ? np : 64;
            memcpy(pmc, pm, np * sizeof *pmc);
            mbx_sched_pass_levels(s, i, pl, 64);
            mbx_sched_pass_times(s, i, pt, 64);
            for (size_t k = 0; k < np; k++)
                print_message("    DBG t %.2f med %.3g lev %d\n", pt[k], pmc[k], pl[k]);
            const double *tt, *vv;
            size_t npr;
            mbx_sched_probes(s, &tt, &vv, &npr);
            for (size_t k = 0; k < npr; k += 4)
                print_message("    PRB t %.2f %.3g\n", tt[k], vv[k]);
            mbx_levels lv;
            if (mbx_levels_detect(vv, npr, NULL, &lv) == MBX_OK) {
                for (size_t g = 0; g < lv.nseg; g++)
                    print_message("    SEG %.2f..%.2f lev %d med %.3g\n", tt[lv.seg[g].begin],
                                  tt[lv.seg[g].end - 1], lv.seg[g].level, lv.seg[g].median);
                mbx_levels_free(&lv);
            }
        }
        t->rows++;
        t->covered += (size_t)cov;
        t->flagged += (size_t)fl;
        t->open += (size_t)!fl;
        t->open_covered += (size_t)(cov && !fl);
        t->by_host += (size_t)(strncmp(r.status_reason, "host state", 10) == 0);
        t->young += (size_t)(strncmp(r.status_reason, "states unknown", 14) == 0);
        if (o.host.runs >= MBX_HOSTHIST_MIN_RUNS) {
            t->rows_h++;
            t->flagged_h += (size_t)fl;
        }
        t->host_paced += (size_t)isfinite(pg.host_dwell);
        if (md->nlev >= 2 && pg.changes == 0) {
            t->blind++;
            t->blind_missed += (size_t)(!cov && !fl);
        }
        if (r.status == MBX_POINT_SETTLED) {
            t->settled++;
            double e = (r.s.median - truth[i]) / truth[i], se = r.s.stderr_ / r.s.median;
            t->true2 += e * e;
            t->err2 += se * se;
            if (o.host.runs >= MBX_HOSTHIST_MIN_RUNS) {
                t->settled_h++;
                t->true2_h += e * e;
                t->err2_h += se * se;
            }
        }
    }
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
    mbx_sched_free(s);
}

/* The results file of run `run` (0-based) in dir. */
static void run_path(const char *dir, size_t run, char *out, size_t len)
{
    snprintf(out, len, "%s/launch-%04zu.csv", dir, run);
}

/* A profile from runs first .. first + k - 1 as launches, through the
 * files and the builder `mpibex calibrate` uses. */
static void build_profile(const char *dir, size_t first, size_t k, mbx_profile *p)
{
    char path[96], msg[256];
    mbx_profile_builder *b;
    assert_int_equal(mbx_profile_builder_new(k, &b), MBX_OK);
    for (size_t i = 0; i < k; i++) {
        run_path(dir, first + i, path, sizeof path);
        if (mbx_profile_builder_add_file(b, i, path, msg, sizeof msg) != MBX_OK)
            fail_msg("%s", msg);
    }
    memset(p, 0, sizeof *p);
    assert_int_equal(mbx_profile_builder_finish(b, p), MBX_OK);
    mbx_profile_builder_free(b);
}

/* One share with its Wilson 95 % interval, in per cent. */
static void share(const char *what, size_t k, size_t n, double *lo)
{
    double hi;
    wilson(k, n, lo, &hi);
    print_message("  %-26s %5.1f %% [%4.1f, %4.1f] of %zu\n", what,
                  n ? 100.0 * (double)k / (double)n : NAN, 100 * *lo, 100 * hi, n);
}

/* The share of rows that cover truth or flag themselves, with its 95 %
 * interval by a bootstrap over runs: a run's 4 rows share its probes, its
 * tau and its machine path, so they are not independent and Wilson's
 * interval over rows reads too narrow. Seeded. */
static void by_runs(const mbx_result *rows, const double *truth, size_t runs, double *lo,
                    double *hi, double ratio[2])
{
    size_t *ok = calloc(runs, sizeof *ok), nb = 2000, nr = 0;
    double *share_b = calloc(nb, sizeof *share_b), *ratio_b = calloc(nb, sizeof *ratio_b);
    double *t2 = calloc(runs, sizeof *t2), *e2 = calloc(runs, sizeof *e2);
    assert_true(ok && share_b && ratio_b && t2 && e2);
    for (size_t r = 0; r < runs; r++)
        for (size_t i = 4 * r; i < 4 * r + 4; i++) {
            ok[r] += (size_t)(covers(&rows[i], truth[i]) || flagged(&rows[i]));
            if (rows[i].status == MBX_POINT_SETTLED) {
                double e = (rows[i].s.median - truth[i]) / truth[i];
                double se = rows[i].s.stderr_ / rows[i].s.median;
                t2[r] += e * e;
                e2[r] += se * se;
            }
        }
    uint64_t z = 0x2545f4914f6cdd1dull;
    for (size_t b = 0; b < nb; b++) {
        size_t k = 0;
        double tt = 0, ee = 0;
        for (size_t r = 0; r < runs; r++) {
            z ^= z << 13;
            z ^= z >> 7;
            z ^= z << 17;
            k += ok[z % runs];
            tt += t2[z % runs];
            ee += e2[z % runs];
        }
        share_b[b] = (double)k / (double)(4 * runs);
        if (ee > 0)
            ratio_b[nr++] = sqrt(tt / ee);
    }
    qsort(share_b, nb, sizeof *share_b, cmp_double);
    *lo = share_b[nb / 40];
    *hi = share_b[nb - 1 - nb / 40];
    ratio[0] = ratio[1] = NAN;
    if (nr >= nb / 2) { /* with settled rows in most resamples */
        qsort(ratio_b, nr, sizeof *ratio_b, cmp_double);
        ratio[0] = ratio_b[nr / 40];
        ratio[1] = ratio_b[nr - 1 - nr / 40];
    }
    free(ok);
    free(share_b);
    free(ratio_b);
    free(t2);
    free(e2);
}

/* The runs in groups of k: group g's rows widened by the profile of group
 * g + 1's runs (the last group's by the first's), so every profile is a
 * fresh draw of k launches, independent of the rows it widens. */
static void profile_scope(const char *dir, size_t runs, size_t k, const mbx_result *rows,
                          const double *truth, tally *t, double *sigma_med)
{
    size_t groups = runs / k, nsig = 0;
    double *sig = calloc(groups * 4 + 1, sizeof *sig);
    assert_non_null(sig);
    for (size_t g = 0; groups >= 2 && g < groups; g++) {
        mbx_profile prof;
        build_profile(dir, ((g + 1) % groups) * k, k, &prof);
        for (size_t e = 0; e < prof.n; e++)
            sig[nsig++] = prof.e[e].sigma;
        for (size_t i = g * k * 4; i < (g + 1) * k * 4; i++) {
            mbx_result pr = rows[i];
            int w = mbx_profile_widen(&prof, &pr);
            if (w == 1) {
                t->widened++;
                t->widened_covered += (size_t)covers(&pr, truth[i]);
            }
            t->outside += (size_t)(w == MBX_PROFILE_OUTSIDE);
        }
        mbx_profile_free(&prof);
    }
    qsort(sig, nsig, sizeof *sig, cmp_double);
    *sigma_med = nsig ? sig[nsig / 2] : NAN;
    free(sig);
}

static void run_model(const model *md, size_t runs, size_t k)
{
    tally t = {0};
    double elapsed = 0, sigma_med = NAN;
    char dir[] = "/tmp/mbx_honesty_XXXXXX", path[96], hist[96];
    assert_non_null(mkdtemp(dir));
    mbx_result *rows = calloc(4 * runs, sizeof *rows);
    double *truth = calloc(4 * runs, sizeof *truth);
    assert_true(rows && truth);
    snprintf(hist, sizeof hist, "%s/history.csv", dir);
    for (size_t run = 0; run < runs; run++) {
        run_path(dir, run, path, sizeof path);
        one_run(md, run + 1, &t, &elapsed, path, hist, rows + 4 * run, truth + 4 * run);
    }
    if (runs > 0 && remove(hist) != 0)
        assert_int_equal(errno, ENOENT);
    assert_true(t.rows == 4 * runs);
    profile_scope(dir, runs, k, rows, truth, &t, &sigma_med);
    for (size_t run = 0; run < runs; run++) {
        run_path(dir, run, path, sizeof path);
        assert_int_equal(remove(path), 0);
    }
    assert_int_equal(rmdir(dir), 0);
    double blo, bhi, rci[2];
    by_runs(rows, truth, runs, &blo, &bhi, rci);
    free(rows);
    free(truth);
    double ratio = t.settled ? sqrt(t.true2 / t.err2) : NAN, lo, flo, olo, plo, phi;
    size_t ok = t.open_covered + t.flagged;
    print_message("%s: %.1f s a run, %zu settled rows, true/err %.2f [%.2f, %.2f] by a "
                  "bootstrap over runs; of runs with a host history %zu, true/err %.2f\n",
                  md->name, elapsed / (double)runs, t.settled, ratio, rci[0], rci[1], t.settled_h,
                  t.settled_h ? sqrt(t.true2_h / t.err2_h) : NAN);
    share("covered or flagged", ok, t.rows, &lo);
    print_message("  %-26s       [%4.1f, %4.1f] by a bootstrap over %zu runs\n", "", 100 * blo,
                  100 * bhi, runs);
    share("covered, not flagged", t.open_covered, t.open, &olo);
    share("flagged", t.flagged, t.rows, &flo);
    share("flagged, runs with history", t.flagged_h, t.rows_h, &flo);
    share("host history: too young", t.young, t.rows, &flo);
    share("host history: unusual state", t.by_host, t.rows, &flo);
    share("host history: its stays", t.host_paced, t.rows, &flo);
    if (md->nlev >= 2) /* what one run's probes cannot know, and the host's history can */
        print_message("  rows of runs that saw no level change: %zu, of them %zu missed unflagged"
                      " (of %zu misses unflagged)\n",
                      t.blind, t.blind_missed, t.rows - ok);
    print_message("  profiles of %zu launches: median sigma_L %.1f %%\n", k, 100 * sigma_med);
    size_t judged = t.widened + t.outside, pok = t.widened_covered + t.outside;
    share("profile: covered or outside", pok, judged, &plo);
    share("profile: covered, widened", t.widened_covered, t.widened, &plo);
    share("profile: outside it", t.outside, judged, &plo);
    wilson(pok, judged, &plo, &phi);
    /* A run with a profile covers the median every launch shares or says
     * its row is outside the profile, in every model (93 % not excluded),
     * once most rows have an entry; and it says so of few rows. */
    if (runs >= 50 && judged >= t.rows / 2) {
        assert_true(phi >= 0.93);
        assert_true((double)t.outside <= 0.2 * (double)judged);
    }
    if (!md->holds || runs < 50)
        return; /* open: docs/algorithms.md, "The scheduler", Pacing */
    /* Rows that neither cover nor say they cannot: 93 % not excluded by
     * the interval over runs (Wilson's over rows reads too narrow). */
    assert_true(bhi >= 0.93);
    /* Flagging everything would pass the above: where the machine has
     * little memory, at most a fifth of the rows may flag themselves, once
     * the host has a history (the first runs on a host flag every row:
     * they cannot know yet how long its states last). */
    if (md->quiet)
        assert_true((double)t.flagged_h <= 0.2 * (double)t.rows_h);
    /* The err a SETTLED row reports is its true error, in every model with
     * rows enough to tell (the level models flag nearly all of theirs). */
    assert_true(t.settled < 50 || (ratio >= 0.8 && ratio <= 1.25));
}

static size_t env_count(const char *name, size_t dflt)
{
    const char *env = getenv(name);
    return env && atoi(env) > 0 ? (size_t)atoi(env) : dflt;
}

static const model models[] = {
    {"independent passes", 0, 0, 0, {0}, {0}, 0, 1, 1},
    {"AR rho 0.5", 0.5, 0.05, 0, {0}, {0}, 0, 1, 1},
    {"AR rho 0.8", 0.8, 0.05, 0, {0}, {0}, 0, 1, 0},
    {"2 levels, stays 1 s", 0.2, 0.02, 2, {1, 3}, {1, 0.5}, 0, 1, 0},
    {"2 levels, stays 5 s", 0.2, 0.02, 2, {1, 3}, {5, 2.5}, 0, 1, 0},
    {"2 levels, stays 20 s", 0.2, 0.02, 2, {1, 3}, {20, 10}, 0, 1, 0},
    {"3 levels, stays 3 s", 0.2, 0.02, 3, {1, 1.6, 3}, {3, 1.5, 1}, 0, 1, 0},
    {"AR 0.5, 20 ns tick", 0.5, 0.05, 0, {0}, {0}, 20e-9, 1, 0},
    {"AR 0.5, 1 us tick", 0.5, 0.05, 0, {0}, {0}, 1e-6, 1, 0},
};

static void honesty_at_the_defaults(void **state)
{
    (void)state;
    size_t runs = env_count("MBX_HONESTY_RUNS", 200), k = env_count("MBX_HONESTY_K", 10);
    const char *only = getenv("MBX_HONESTY_MODEL"); /* a part of a model's name: that one only */
    for (size_t i = 0; i < sizeof models / sizeof *models; i++)
        if (!only || strstr(models[i].name, only))
            run_model(&models[i], runs, k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(honesty_at_the_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
