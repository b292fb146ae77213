/* The machine profile (engine/core/profile*.c): the file's round trip;
 * bad, foreign and stale profiles refused with one line; the random-effects
 * estimate on seeded launches with a known launch component (coverage of
 * its CI, with a Wilson interval); the widening of a row. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/profile.h"
#include "mbx/profile_build.h"
#include "mbx/status.h"

static void tmp_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/profile-test-%s", MBX_TMP_DIR, name);
}

static mbx_profile sample(void)
{
    mbx_profile p = {.created = 1700000000, .k = 10, .span_s = 600};
    snprintf(p.host, sizeof p.host, "node1");
    snprintf(p.mpi, sizeof p.mpi, "MPICH Version: 4.0.2, with \"quotes\", commas");
    mbx_profile_entry e = {.procs = 2,
                           .class_lo = 16,
                           .points = 2,
                           .df = 9,
                           .sigma = 0.05,
                           .sigma_lo = 0.03,
                           .sigma_hi = 0.09,
                           .within = 0.01};
    snprintf(e.bench, sizeof e.bench, "pingpong.send_recv");
    assert_int_equal(mbx_profile_add(&p, &e), MBX_OK);
    e.class_lo = 0, e.sigma_hi = INFINITY, e.sigma = 0;
    assert_int_equal(mbx_profile_add(&p, &e), MBX_OK);
    mbx_profile_center c = {.procs = 2, .bytes = 32, .median = 10e-6, .n = 10};
    snprintf(c.bench, sizeof c.bench, "pingpong.send_recv");
    assert_int_equal(mbx_profile_add_center(&p, &c), MBX_OK);
    return p;
}

static void round_trip(void **state)
{
    (void)state;
    char path[512], msg[512];
    tmp_path(path, sizeof path, "rt.csv");
    mbx_profile p = sample(), q;
    assert_int_equal(mbx_profile_write(&p, path), MBX_OK);
    assert_int_equal(mbx_profile_read(path, &q, msg, sizeof msg), MBX_OK);
    assert_string_equal(q.host, p.host);
    assert_string_equal(q.mpi, p.mpi);
    assert_int_equal(q.created, p.created);
    assert_int_equal(q.k, p.k);
    assert_int_equal(q.span_s, 600);
    assert_int_equal(q.n, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_string_equal(q.e[i].bench, p.e[i].bench);
        assert_int_equal(q.e[i].procs, p.e[i].procs);
        assert_int_equal(q.e[i].class_lo, p.e[i].class_lo);
        assert_int_equal(q.e[i].df, p.e[i].df);
        assert_true(fabs(q.e[i].sigma - p.e[i].sigma) < 1e-6);
        assert_true(q.e[i].sigma_hi == p.e[i].sigma_hi ||
                    fabs(q.e[i].sigma_hi - p.e[i].sigma_hi) < 1e-6);
    }
    assert_non_null(mbx_profile_find(&q, "pingpong.send_recv", 2, 63));
    assert_null(mbx_profile_find(&q, "pingpong.send_recv", 2, 64));
    assert_null(mbx_profile_find(&q, "pingpong.send_recv", 4, 16));
    assert_non_null(mbx_profile_find(&q, "pingpong.send_recv", 2, 0));
    assert_int_equal(q.nc, 1);
    const mbx_profile_center *c = mbx_profile_find_center(&q, "pingpong.send_recv", 2, 32);
    assert_non_null(c);
    assert_true(fabs(c->median / 10e-6 - 1) < 1e-5 && c->n == 10);
    assert_null(mbx_profile_find_center(&q, "pingpong.send_recv", 2, 16));
    mbx_profile_free(&p);
    mbx_profile_free(&q);
}

/* A version-1 file (no centers) is still read: its entries widen, and no
 * row is held against a center. */
static void version_1_read(void **state)
{
    (void)state;
    char path[512], msg[512];
    tmp_path(path, sizeof path, "v1.csv");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("mpibex_profile,1\nhost,node1\nmpi,MPICH\ncreated_s,1700000000\nlaunches,10\n"
          "benchmark,procs,class_lo_bytes,class_hi_bytes,points,df,sigma_rel,sigma_lo_rel,"
          "sigma_hi_rel,within_rel\n"
          "pingpong.send_recv,2,16,63,2,9,0.05,0.03,0.09,0.01\n",
          f);
    assert_int_equal(fclose(f), 0);
    mbx_profile q;
    if (mbx_profile_read(path, &q, msg, sizeof msg) != MBX_OK)
        fail_msg("%s", msg);
    assert_int_equal(q.n, 1);
    assert_int_equal(q.nc, 0);
    assert_int_equal(q.span_s, -1); /* not said */
    mbx_result r = {.benchmark = "pingpong.send_recv", .procs = 2, .bytes = 32};
    r.s.median = 30e-6, r.s.stderr_ = 0.3e-6, r.s.ci_lo = 29.4e-6, r.s.ci_hi = 30.6e-6;
    assert_int_equal(mbx_profile_widen(&q, &r), 1);
    assert_true(r.profile_ratio == 0);
    mbx_profile_free(&q);
}

/* Against the center of its point: a median 10 % off the profile's
 * launches is within what sigma_L 5 % allows (t(9) sqrt(0.05^2 + 0.01^2 +
 * (0.05^2 + 0.01^2) / 10) = 0.121 on the log scale) and is widened; one 30
 * % off (log 1.3 = 0.262) is outside: left as it was, launch-scoped, its
 * profile_ratio set. */
static void widen_holds_a_launch_against_the_center(void **state)
{
    (void)state;
    mbx_profile p = sample();
    mbx_result near = {.benchmark = "pingpong.send_recv", .procs = 2, .bytes = 32};
    near.s.median = 11e-6, near.s.stderr_ = 0.11e-6, near.s.ci_lo = 10.8e-6, near.s.ci_hi = 11.2e-6;
    mbx_result far = near;
    far.s.median = 13e-6, far.s.stderr_ = 0.13e-6, far.s.ci_lo = 12.75e-6, far.s.ci_hi = 13.25e-6;
    assert_int_equal(mbx_profile_widen(&p, &near), 1);
    assert_int_equal(near.ci_scope, MBX_SCOPE_PROFILE);
    assert_true(fabs(near.profile_ratio - 1.1) < 1e-9);
    assert_int_equal(mbx_profile_widen(&p, &far), MBX_PROFILE_OUTSIDE);
    assert_int_equal(far.ci_scope, MBX_SCOPE_LAUNCH);
    assert_true(fabs(far.profile_ratio - 1.3) < 1e-9);
    assert_true(far.s.ci_lo == 12.75e-6 && far.s.ci_hi == 13.25e-6 && far.s.stderr_ == 0.13e-6);
    mbx_profile_free(&p);
}

static void size_classes(void **state)
{
    (void)state;
    assert_int_equal(mbx_profile_class(0), 0);
    assert_int_equal(mbx_profile_class(1), 1);
    assert_int_equal(mbx_profile_class(3), 1);
    assert_int_equal(mbx_profile_class(4), 4);
    assert_int_equal(mbx_profile_class(1048575), 262144);
    assert_int_equal(mbx_profile_class(1048576), 1048576);
}

/* Write text at path and read it as a profile: its status and line. */
static int read_text(const char *name, const char *text, char *msg, size_t len)
{
    char path[512];
    tmp_path(path, sizeof path, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    mbx_profile p;
    int rc = mbx_profile_read(path, &p, msg, len);
    printf("# %s: %s\n", name, rc == MBX_OK ? "(read)" : msg);
    mbx_profile_free(&p);
    return rc;
}

#define HEAD "mpibex_profile,1\nhost,n\nmpi,m\ncreated_s,1700000000\nlaunches,10\n"
#define COLS                                                                                       \
    "benchmark,procs,class_lo_bytes,class_hi_bytes,points,df,sigma_rel,sigma_lo_rel,sigma_hi_rel," \
    "within_rel\n"

static void bad_files_refused(void **state)
{
    (void)state;
    char msg[512];
    assert_int_equal(
        read_text("ok.csv", HEAD COLS "a,2,4,15,1,9,0.1,0.05,0.2,0.01\n", msg, sizeof msg), MBX_OK);
    assert_int_equal(read_text("notprofile.csv", "benchmark,procs\n", msg, sizeof msg),
                     MBX_E_PROTO);
    assert_non_null(strstr(msg, "mpibex_profile"));
    assert_int_equal(read_text("version.csv", "mpibex_profile,9\n", msg, sizeof msg), MBX_E_PROTO);
    assert_non_null(strstr(msg, "version 1"));
    assert_int_equal(read_text("nohost.csv", "mpibex_profile,1\nmpi,m\n" COLS, msg, sizeof msg),
                     MBX_E_PROTO);
    assert_non_null(strstr(msg, "'host'"));
    assert_int_equal(
        read_text("sigma.csv", HEAD COLS "a,2,4,15,1,9,-0.1,0,0.2,0.01\n", msg, sizeof msg),
        MBX_E_PROTO);
    assert_non_null(strstr(msg, "sigma_rel"));
    assert_non_null(strstr(msg, ":7:"));
    assert_int_equal(
        read_text("class.csv", HEAD COLS "a,2,5,15,1,9,0.1,0,0.2,0.01\n", msg, sizeof msg),
        MBX_E_PROTO);
    assert_non_null(strstr(msg, "class_lo_bytes"));
    assert_int_equal(read_text("k.csv",
                               "mpibex_profile,1\nhost,n\nmpi,m\ncreated_s,1\nlaunches,2\n" COLS,
                               msg, sizeof msg),
                     MBX_E_PROTO);
    assert_non_null(strstr(msg, "launches"));
}

static void foreign_and_stale_refused(void **state)
{
    (void)state;
    char msg[512];
    mbx_profile p = sample();
    long long now = p.created + 86400;
    assert_int_equal(mbx_profile_check(&p, "node1", p.mpi, now, 30, msg, sizeof msg), MBX_OK);
    assert_int_equal(mbx_profile_check(&p, "node2", p.mpi, now, 30, msg, sizeof msg),
                     MBX_E_UNSUPPORTED);
    printf("# foreign host: %s\n", msg);
    assert_non_null(strstr(msg, "host 'node1'"));
    assert_int_equal(mbx_profile_check(&p, "node1", "Open MPI v4.1", now, 30, msg, sizeof msg),
                     MBX_E_UNSUPPORTED);
    printf("# foreign MPI: %s\n", msg);
    assert_non_null(strstr(msg, "Open MPI v4.1"));
    now = p.created + 31 * 86400;
    assert_int_equal(mbx_profile_check(&p, "node1", p.mpi, now, 30, msg, sizeof msg), MBX_E_RANGE);
    printf("# stale: %s\n", msg);
    assert_non_null(strstr(msg, "31 days old"));
    mbx_profile_free(&p);
}

/* xorshift64* and Box-Muller: seeded normal draws. */
static uint64_t rng = 88172645463325252ULL;
static double unif(void)
{
    rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
    return ((double)((rng * 2685821657736338717ULL) >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void)
{
    return sqrt(-2 * log(unif())) * cos(6.283185307179586 * unif());
}

/* Wilson 95 % interval of x successes in n. */
static void wilson(double x, double n, double *lo, double *hi)
{
    double z = 1.96, p = x / n, d = 1 + z * z / n, c = p + z * z / (2 * n);
    double h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n));
    *lo = (c - h) / d;
    *hi = (c + h) / d;
}

/* K launches of 3 sizes in one class: a launch effect N(0, sL) shared by
 * the sizes, each size's launch median off by N(0, e) with e known to
 * the launch (its within error). The estimate's CI covers sL. */
static void estimate_covers(void **state)
{
    (void)state;
    enum { K = 10, J = 3, TRIALS = 2000 };
    static const double sigmas[] = {0.0, 0.03, 0.10};
    for (size_t s = 0; s < sizeof sigmas / sizeof *sigmas; s++) {
        double sl = sigmas[s], e = 0.02, hit = 0, mean = 0;
        for (int t = 0; t < TRIALS; t++) {
            double y[J * K], w[J * K];
            for (int i = 0; i < K; i++) {
                double l = sl * gauss();
                for (int j = 0; j < J; j++) {
                    y[j * K + i] = log(5e-6 * (j + 1)) + l + e * gauss();
                    w[j * K + i] = e * e;
                }
            }
            mbx_profile_entry en = {0};
            assert_int_equal(mbx_profile_estimate(y, w, J, K, &en), MBX_OK);
            assert_int_equal(en.df, K - 1);
            assert_true(en.sigma_lo <= en.sigma && en.sigma <= en.sigma_hi);
            hit += en.sigma_lo <= sl && sl <= en.sigma_hi;
            mean += en.sigma / TRIALS;
        }
        double lo, hi;
        wilson(hit, TRIALS, &lo, &hi);
        printf("# sigma_L %.2f, within %.2f, K %d: CI covers %.1f %% (Wilson 95 %% %.1f..%.1f), "
               "mean estimate %.4f\n",
               sl, e, K, 100 * hit / TRIALS, 100 * lo, 100 * hi, mean);
        assert_true(lo >= 0.93); /* a 95 % interval, not less (floored at 0: more) */
        if (sl > 0)
            assert_true(mean > 0.75 * sl && mean < 1.15 * sl);
    }
}

static void estimate_needs_two_launches(void **state)
{
    (void)state;
    double y[3] = {1, NAN, NAN}, w[3] = {0, 0, 0};
    mbx_profile_entry e;
    assert_int_equal(mbx_profile_estimate(y, w, 1, 3, &e), MBX_E_RANGE);
}

static void quantiles(void **state)
{
    (void)state;
    static const double t[][2] = {{1, 12.706}, {2, 4.303},  {3, 3.182},   {4, 2.776},
                                  {9, 2.262},  {29, 2.045}, {1000, 1.962}};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        assert_true(fabs(mbx_profile_t_quantile(0.975, t[i][0]) / t[i][1] - 1) < 2e-3);
    /* chi-square: 2.700 and 19.023 at 9 df; 16.047 and 45.722 at 29 df */
    assert_true(fabs(mbx_profile_chi2_quantile(0.025, 9) / 2.700 - 1) < 0.01);
    assert_true(fabs(mbx_profile_chi2_quantile(0.975, 9) / 19.023 - 1) < 0.01);
    assert_true(fabs(mbx_profile_chi2_quantile(0.025, 29) / 16.047 - 1) < 0.01);
    assert_true(fabs(mbx_profile_chi2_quantile(0.975, 29) / 45.722 - 1) < 0.01);
}

static void widen_row(void **state)
{
    (void)state;
    mbx_profile p = sample();
    mbx_result r = {.benchmark = "pingpong.send_recv", .procs = 2, .bytes = 32};
    r.s.median = 10e-6;
    r.s.stderr_ = 0.1e-6; /* 1 % */
    r.s.ci_lo = 9.8e-6;
    r.s.ci_hi = 10.2e-6;
    assert_int_equal(mbx_profile_widen(&p, &r), 1);
    assert_int_equal(r.ci_scope, MBX_SCOPE_PROFILE);
    /* each side: its own log distance and the launch component, at
     * Student's t with the entry's 9 degrees of freedom (2.262) */
    double v = 0.01 * 0.01 + 0.05 * 0.05, zl = 2.262157 * 0.05;
    double hlo = sqrt(pow(log(10 / 9.8), 2) + zl * zl),
           hhi = sqrt(pow(log(10.2 / 10), 2) + zl * zl);
    assert_true(fabs(r.s.ci_lo / (10e-6 * exp(-hlo)) - 1) < 1e-4);
    assert_true(fabs(r.s.ci_hi / (10e-6 * exp(hhi)) - 1) < 1e-4);
    assert_true(fabs(r.s.stderr_ - 10e-6 * sqrt(v)) < 1e-12);
    /* the launch-scoped err stays readable (column stderr_launch_us) */
    assert_true(r.launch_err == 0.1e-6);
    mbx_result_fields f;
    mbx_result_format(&r, &f);
    assert_string_equal(f.field[MBX_COL_STDERR_LAUNCH_US], "0.1000");
    assert_string_equal(f.field[MBX_COL_STDERR_US], "0.5099");
    assert_true(fabs(r.pi_lo / (10e-6 * exp(-sqrt(2.0) * hlo)) - 1) < 1e-4);
    assert_true(r.pi_lo < r.s.ci_lo && r.pi_hi > r.s.ci_hi);
    /* A one-sided launch interval (the median at the lowest pass, one
     * pass 6500x slower): the lower end moves by the launch component
     * only, never mirrored from the upper side below the data. */
    mbx_result u = {.benchmark = "pingpong.send_recv", .procs = 2, .bytes = 32};
    u.s.median = 0.61e-6, u.s.ci_lo = 0.61e-6, u.s.ci_hi = 4000e-6;
    u.s.stderr_ = 0.61e-6 * log(4000 / 0.61) / 2 / 1.96;
    assert_int_equal(mbx_profile_widen(&p, &u), 1);
    assert_true(fabs(u.s.ci_lo / (0.61e-6 * exp(-zl)) - 1) < 1e-4);
    assert_true(u.s.ci_hi > 4000e-6 && u.pi_lo > 0.5e-6);
    /* no entry (another size class), no interval: as it was */
    mbx_result q = {.benchmark = "pingpong.send_recv", .procs = 2, .bytes = 64};
    q.s.median = 10e-6, q.s.stderr_ = 0.1e-6, q.s.ci_lo = 9.8e-6, q.s.ci_hi = 10.2e-6;
    assert_int_equal(mbx_profile_widen(&p, &q), 0);
    assert_int_equal(q.ci_scope, MBX_SCOPE_LAUNCH);
    assert_true(q.s.ci_lo == 9.8e-6);
    q.bytes = 32, q.s.ci_lo = NAN;
    assert_int_equal(mbx_profile_widen(&p, &q), 0);
    mbx_profile_free(&p);
}

/* A profile from 10 launch files, each a header and what rows() writes
 * for its launch, through mpibex calibrate's builder. */
static void calibrate_10(void (*rows)(FILE *f, size_t launch), mbx_profile *p)
{
    mbx_profile_builder *b = NULL;
    assert_int_equal(mbx_profile_builder_new(10, &b), MBX_OK);
    for (size_t i = 0; i < 10; i++) {
        char path[512], msg[256] = "";
        tmp_path(path, sizeof path, "launch.csv");
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "benchmark,procs,bytes,n,tmean_us,median_us,stderr_us,status,label\n");
        rows(f, i);
        assert_int_equal(fclose(f), 0);
        if (mbx_profile_builder_add_file(b, i, path, msg, sizeof msg) != MBX_OK)
            fail_msg("%s", msg);
    }
    memset(p, 0, sizeof *p);
    assert_int_equal(mbx_profile_builder_finish(b, p), MBX_OK);
    mbx_profile_builder_free(b);
}

/* A 5 % launch effect at 4 and 8 bytes; launch 3's 8-byte point is
 * UNSETTLED with err 650 %. */
static void effect_rows(FILE *f, size_t i)
{
    static const double effect[10] = {0.04,  -0.06, 0.07, -0.02, 0.05,
                                      -0.08, 0.01,  0.03, -0.05, 0.01};
    for (int bytes = 4; bytes < 16; bytes *= 2) {
        double m = 1.0 * exp(effect[i]), se = 0.01 * m;
        const char *st = "SETTLED";
        if (i == 3 && bytes == 8)
            se = 6.5 * m, st = "UNSETTLED";
        fprintf(f, "pingpong.send_recv,2,%d,100,%.6f,%.6f,%.6f,%s,cli\n", bytes, m, m, se, st);
    }
}

/* Calibration from 10 launch files with a 5 % launch effect: launch 3's
 * 8-byte point is UNSETTLED with err 650 % (it spent seconds at a 4 ms
 * level; its median is as steady as the others'). Its err is no error of
 * its median, so it must not swamp the launch spread (it floored sigma_L
 * at 0 in a real calibration). */
static void calibration_uses_settled_rows(void **state)
{
    (void)state;
    mbx_profile p;
    calibrate_10(effect_rows, &p);
    const mbx_profile_entry *e = mbx_profile_find(&p, "pingpong.send_recv", 2, 8);
    assert_non_null(e);
    /* the effects' sample sd is 0.050; the within error 1 % */
    if (!(e->sigma > 0.04 && e->sigma < 0.06))
        fail_msg("sigma_L %.4f, want about 0.05", e->sigma);
    mbx_profile_free(&p);
}

/* Launches 1, 4 and 7 at a level three times slower, UNSETTLED with a
 * large err; the others at 1 us, SETTLED, 1 %. */
static void level_rows(FILE *f, size_t i)
{
    int slow = i % 3 == 1;
    double m = slow ? 3.0 : 1.0, se = slow ? 2.0 * m : 0.01 * m;
    fprintf(f, "pingpong.send_recv,2,8,100,%.6f,%.6f,%.6f,%s,cli\n", m, m, se,
            slow ? "UNSETTLED" : "SETTLED");
}

/* Calibration from 10 launch files where 3 launches spent their point at
 * a level three times slower: their rows are UNSETTLED with a large err,
 * and their medians are what those launches reported. The profile keeps
 * them: sigma_L is the spread of all 10 launch medians (0.53 on the log
 * scale) less the settled rows' 1 % within-launch error, not the 0 of the
 * 7 settled launches alone. */
static void calibration_counts_unsettled_medians(void **state)
{
    (void)state;
    mbx_profile p;
    calibrate_10(level_rows, &p);
    const mbx_profile_entry *e = mbx_profile_find(&p, "pingpong.send_recv", 2, 8);
    assert_non_null(e);
    /* sd of {0 x7, ln 3 x3} = 1.0986 sqrt(0.3 x 0.7 x 10 / 9) = 0.531 */
    if (!(fabs(e->sigma - 0.531) < 0.005) || !(fabs(e->within - 0.01) < 1e-4))
        fail_msg("sigma_L %.4f, within %.4f; want 0.531 and 0.01", e->sigma, e->within);
    /* where the 10 launches were: exp(mean log median) = 3^0.3 us */
    const mbx_profile_center *c = mbx_profile_find_center(&p, "pingpong.send_recv", 2, 8);
    assert_non_null(c);
    if (!(fabs(c->median / (pow(3, 0.3) * 1e-6) - 1) < 1e-4) || c->n != 10)
        fail_msg("center %.6g s over %zu launches; want 1.390e-06 over 10", c->median, c->n);
    mbx_profile_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip),
        cmocka_unit_test(size_classes),
        cmocka_unit_test(bad_files_refused),
        cmocka_unit_test(foreign_and_stale_refused),
        cmocka_unit_test(estimate_covers),
        cmocka_unit_test(estimate_needs_two_launches),
        cmocka_unit_test(quantiles),
        cmocka_unit_test(widen_row),
        cmocka_unit_test(calibration_uses_settled_rows),
        cmocka_unit_test(calibration_counts_unsettled_medians),
        cmocka_unit_test(version_1_read),
        cmocka_unit_test(widen_holds_a_launch_against_the_center),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
