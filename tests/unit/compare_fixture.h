/* The fixtures of the compare tests (test_compare.c, test_compare_match.c):
 * synthetic results and observation files written through the csvio
 * writer into the program's temporary directory, MBX_TMP_DIR/CMP_DIR (each
 * program defines CMP_DIR before including this, so the two keep apart
 * under ctest -j). Static helpers: each program has its own copy. */
#ifndef MBX_COMPARE_FIXTURE_H
#define MBX_COMPARE_FIXTURE_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "mbx/compare.h"
#include "mbx/csvio.h"
#include "mbx/result.h"

static const mbx_point_status OK = MBX_POINT_SETTLED, BAD = MBX_POINT_UNRELIABLE;

/* A path under the test's directory: tmp("a.csv"). Rotates over a few
 * buffers so that several can be live at once. */
static const char *tmp(const char *fmt, ...)
{
    static char buf[8][512];
    static int next;
    char *p = buf[next++ % 8];
    int n = snprintf(p, sizeof buf[0], "%s/" CMP_DIR "/", MBX_TMP_DIR);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p + n, sizeof buf[0] - (size_t)n, fmt, ap);
    va_end(ap);
    return p;
}

/* One point of a results table; times in microseconds. */
static mbx_result row(const char *bench, uint64_t bytes, double median_us, mbx_point_status st)
{
    mbx_result r;
    memset(&r, 0, sizeof r);
    r.benchmark = bench;
    r.label = "cli";
    r.timing = "half_round_trip";
    r.procs = 2;
    r.bytes = bytes;
    r.s.n = 20;
    r.s.median = r.s.mean = r.s.tmean = r.s.min = r.s.max = median_us * 1e-6;
    r.s.q1 = r.s.q3 = r.s.ci_lo = r.s.ci_hi = median_us * 1e-6;
    r.s.stddev = r.s.stderr_ = NAN;
    r.status = st;
    r.stop = (mbx_stop_rule){MBX_STOP_STDERR, 0.03, 0};
    r.nmin = 4;
    r.nmax = 100;
    r.root = -1;
    snprintf(r.ranks, sizeof r.ranks, "0-1");
    return r;
}

static mbx_result reduce_row(double median_us)
{
    mbx_result r = row("coll.reduce", 16, median_us, OK);
    r.root = 0;
    r.op = "MPI_SUM/MPI_FLOAT";
    r.timing = "max_over_ranks";
    return r;
}

static void write_results(const char *path, const mbx_result *r, size_t n)
{
    mbx_csv_writer *w;
    assert_int_equal(mbx_csv_writer_open(path, mbx_result_columns, MBX_RESULT_NCOLS, &w), MBX_OK);
    for (size_t i = 0; i < n; i++) {
        mbx_result_fields f;
        mbx_result_format(&r[i], &f);
        assert_int_equal(mbx_csv_writer_row(w, f.field), MBX_OK);
    }
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
}

/* Observations per pass in the files written next (obs_open, write_obs):
 * 0 writes an observation file of format 2, without the pass column. */
static size_t g_per_pass;

/* Observations of r: n values base, base + step, ... (microseconds); with
 * g_per_pass, observation i is in pass i / g_per_pass. */
static void write_obs(mbx_csv_writer *w, const mbx_result *r, size_t n, double base, double step)
{
    for (size_t i = 0; i < n; i++) {
        char procs[16], bytes[24], obs[16], t[32], root[16], pass[16];
        snprintf(procs, sizeof procs, "%d", r->procs);
        snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)r->bytes);
        snprintf(obs, sizeof obs, "%zu", i);
        snprintf(t, sizeof t, "%.4f", base + step * (double)i);
        snprintf(root, sizeof root, "%d", r->root);
        snprintf(pass, sizeof pass, "%zu", g_per_pass ? i / g_per_pass : 0);
        const char *f[MBX_OBS_NCOLS] = {
            r->benchmark, procs, bytes, obs, t, r->label, r->root >= 0 ? root : "", "", pass};
        assert_int_equal(mbx_csv_writer_row(w, f), MBX_OK);
    }
}

static mbx_csv_writer *obs_open(const char *results)
{
    char *p = mbx_csv_sidecar(results, ".obs.csv");
    mbx_csv_writer *w;
    assert_non_null(p);
    size_t ncols = MBX_OBS_NCOLS - (g_per_pass == 0); /* pass is the last column */
    assert_int_equal(mbx_csv_writer_open(p, mbx_obs_columns, ncols, &w), MBX_OK);
    free(p);
    return w;
}

/* A results file of the one point r with n observations beside it. */
static void one_point_file(const char *path, const mbx_result *r, size_t n, double base,
                           double step)
{
    write_results(path, r, 1);
    mbx_csv_writer *w = obs_open(path);
    write_obs(w, r, n, base, step);
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
}

static void make_dir(const char *path)
{
    assert_true(mkdir(path, 0777) == 0 || access(path, F_OK) == 0);
}

static int setup(void **state)
{
    (void)state;
    make_dir(tmp(""));
    return 0;
}

/* A.csv and B.csv with observations: at 8 B A is faster, at 64 B slower,
 * the reduce is the same data; 1 KiB only in A, 4 KiB only in B. */
static void write_obs_pair(void)
{
    mbx_result ra[] = {row("pingpong.send_recv", 8, 1.1, OK),
                       row("pingpong.send_recv", 64, 1.1, OK), reduce_row(3.0),
                       row("pingpong.send_recv", 1024, 9.0, OK)};
    mbx_result rb[] = {row("pingpong.send_recv", 4096, 9.0, OK), reduce_row(3.0),
                       row("pingpong.send_recv", 64, 0.6, OK),
                       row("pingpong.send_recv", 8, 2.1, OK)};
    write_results(tmp("A.csv"), ra, 4);
    write_results(tmp("B.csv"), rb, 4);
    mbx_csv_writer *w = obs_open(tmp("A.csv"));
    write_obs(w, &ra[0], 20, 1.0, 0.01);
    write_obs(w, &ra[1], 20, 1.0, 0.01);
    write_obs(w, &ra[2], 20, 3.0, 0.05);
    write_obs(w, &ra[3], 5, 9.0, 0.01);
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
    w = obs_open(tmp("B.csv"));
    write_obs(w, &rb[0], 5, 9.0, 0.01);
    write_obs(w, &rb[1], 20, 3.0, 0.05);
    write_obs(w, &rb[2], 20, 0.5, 0.01);
    write_obs(w, &rb[3], 20, 2.0, 0.01);
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
}

#endif
