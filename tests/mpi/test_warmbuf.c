/* The two engine features a pass scheduler needs: the light
 * warm-up of a point's later passes (mbx_point_spec.warm_light) and fresh
 * buffers at a page offset per measurement (mbx_point_spec.buf_offset).
 *
 *   test_warmbuf measure   under mpiexec: full and light warm-ups are
 *                          counted apart and the light one runs at most
 *                          MBX_WARMUP_LIGHT_CALLS calls; every rank's
 *                          buffers start at the asked offset; ping-pong and
 *                          allreduce validate at offsets 0, 64 and 4032
 *   test_warmbuf all [WRONG,...]  under mpiexec: every benchmark of the registry
 *                          that fits the job, at 4032 B past a page
 *                          boundary, with --validate where it has a check
 *   test_warmbuf redraw    under mpiexec: over 20 measurements of a point,
 *                          rank 0's buffer addresses, pool sets and
 *                          receive offsets (drawn apart from the send
 *                          offset) vary; the communicator is duplicated
 *                          for the first by default, for each when always,
 *                          for none when never
 *   test_warmbuf short     under mpiexec, a made-up /proc with 2 MiB
 *                          available (MBX_TEST_MEMROOT): large points keep
 *                          fewer buffer sets, at least one, and say so
 *   test_warmbuf bad       under mpiexec: an offset that is not a multiple
 *                          of 64 or above 4032, and warm_light 2, are
 *                          MBX_E_INVAL, and the engine still measures
 *
 * Properties only, never a time. Any failed check aborts the job. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mbx/bench.h"
#include "mbx/engine.h"

static void require(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "test_warmbuf: FAILED: %s\n", what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static mbx_point_spec spec_of(mbx_engine *e, const char *name, uint64_t bytes, int light,
                              uint32_t offset)
{
    int id = -1;
    require(mbx_bench_find(name, &id) == MBX_OK, "benchmark in registry");
    mbx_point_spec s = {.bench_id = id,
                        .bytes = mbx_bench_align(mbx_bench_get(id), bytes),
                        .procs = mbx_engine_size(e),
                        .stop = {MBX_STOP_FIXED, 0, 16},
                        .nmin = 16,
                        .nmax = 16,
                        .validate = 1,
                        .warm_light = light,
                        .buf_offset = offset};
    return s;
}

/* One validated point; the buffer offsets every rank saw must be `offset`. */
static void point(mbx_engine *e, const char *name, uint64_t bytes, int light, uint32_t offset)
{
    mbx_point_spec s = spec_of(e, name, bytes, light, offset);
    mbx_result r;
    int rc = mbx_engine_measure(e, &s, NULL, NULL, &r, NULL, NULL);
    if (rc != MBX_OK)
        fprintf(stderr, "test_warmbuf: %s %llu B light %d offset %u: %s\n", name,
                (unsigned long long)bytes, light, offset, mbx_strerror(rc));
    require(rc == MBX_OK, "measure succeeds, data validated");
    require(r.validated == 1 && r.s.n + r.events == 16, "validated, fixed:16 observations");
    int lo = -2, hi = -2;
    mbx_engine_buffer_offsets(e, &lo, &hi);
    printf("%-20s %6llu B  warm %-5s  offset %4u: buffers at %d..%d  median %.3f us\n", name,
           (unsigned long long)bytes, light ? "light" : "full", offset, lo, hi, r.s.median * 1e6);
    mbx_buffer_place pl;
    mbx_engine_buffer_place(e, &pl);
    int ro = (int)pl.recv_offset, so = (int)offset;
    require(pl.send_offset == offset, "the send buffer at the asked offset");
    require(lo == (so < ro ? so : ro) && hi == (so > ro ? so : ro),
            "every rank's buffers start at the send and the drawn receive offset");
}

static void measure_case(mbx_engine *e)
{
    mbx_warmup_info w;
    int lo = 0, hi = 0;
    mbx_engine_buffer_offsets(e, &lo, &hi);
    require(lo == -1 && hi == -1, "no buffer offsets before the first point");

    /* First passes: the full warm-up, at least MBX_WARMUP_CALLS calls unless
     * the time cap stops it (a loaded machine: counted in `capped`). */
    point(e, "pingpong.send_recv", 1, 0, 0);
    point(e, "pingpong.send_recv", 8192, 0, 64);
    point(e, "coll.allreduce", 1024, 0, 4032);
    mbx_engine_warmup_info(e, &w);
    printf("full:  %zu points, %lld..%lld calls, %zu capped\n", w.points, (long long)w.point_min,
           (long long)w.point_max, w.capped);
    require(w.points == 3 && w.light_points == 0, "three full warm-ups, no light one");
    require(w.point_min >= 1 && w.capped <= 3, "full warm-ups ran");
    require(w.capped > 0 || w.point_min >= MBX_WARMUP_CALLS,
            "a full warm-up not stopped by the cap runs MBX_WARMUP_CALLS calls");

    /* Later passes: light, at most MBX_WARMUP_LIGHT_CALLS calls; the full
     * figures stay those of the first passes. */
    point(e, "pingpong.send_recv", 1, 1, 4032);
    point(e, "pingpong.send_recv", 8192, 1, 4032);
    point(e, "pingpong.send_recv", 8192, 1, 0);
    point(e, "coll.allreduce", 1024, 1, 64);
    mbx_warmup_info l;
    mbx_engine_warmup_info(e, &l);
    printf("light: %zu points, %lld..%lld calls, %zu capped in all\n", l.light_points,
           (long long)l.light_min, (long long)l.light_max, l.capped);
    require(l.light_points == 4, "four light warm-ups");
    require(l.light_min >= 1 && l.light_max <= MBX_WARMUP_LIGHT_CALLS,
            "a light warm-up runs at most MBX_WARMUP_LIGHT_CALLS calls");
    require(l.capped > w.capped || l.light_min == MBX_WARMUP_LIGHT_CALLS,
            "a light warm-up not stopped by the cap runs MBX_WARMUP_LIGHT_CALLS calls");
    require(l.points == w.points && l.point_min == w.point_min && l.point_max == w.point_max,
            "light warm-ups leave the full warm-up's figures alone");

    /* A warm-up setting below the light count bounds the light one too. */
    require(mbx_engine_set_warmup(e, 4, 0) == MBX_OK, "warm-up of 4 calls");
    point(e, "pingpong.send_recv", 64, 1, 128);
    mbx_engine_warmup_info(e, &l);
    require(l.light_points == 5 && l.light_max <= MBX_WARMUP_LIGHT_CALLS,
            "light count with a small setting");
    require(l.light_min <= 4, "a light warm-up never exceeds a smaller setting");
}

/* Every benchmark at the largest offset (light warm-up: quick): it must
 * measure, and check its data where it can (MBX_E_UNSUPPORTED: not in this
 * job, e.g. pingpong.mt without MPI_THREAD_MULTIPLE). The benchmarks named
 * in `wrong` (a comma list) may fail their check instead: the library
 * moves wrong data there at any offset (mpi.pcoll.oracle.n2 holds them to
 * a plain MPI program). */
static void all_case(mbx_engine *e, const char *wrong)
{
    int ran = 0;
    for (size_t i = 0; i < mbx_bench_count(); i++) {
        const mbx_bench *b = mbx_bench_get((int)i);
        if (b->min_procs > mbx_engine_size(e))
            continue;
        mbx_point_spec s = spec_of(e, b->name, 1024, 1, MBX_BUF_OFFSET_MAX);
        s.stop.fixed = s.nmin = s.nmax = 4;
        s.validate = b->check != NULL;
        mbx_result r;
        int rc = mbx_engine_measure(e, &s, NULL, NULL, &r, NULL, NULL);
        printf("%-28s %s\n", b->name,
               rc == MBX_OK ? (s.validate ? "ok, validated" : "ok") : mbx_strerror(rc));
        char pad[80];
        snprintf(pad, sizeof pad, ",%s,", b->name);
        char list[512];
        snprintf(list, sizeof list, ",%s,", wrong);
        int may = rc == MBX_E_VALIDATE && strstr(list, pad) != NULL;
        require(rc == MBX_OK || rc == MBX_E_UNSUPPORTED || may, "a benchmark at an offset");
        ran += rc == MBX_OK;
    }
    require(ran > 0, "some benchmark ran");
}

/* Values in v[0..n) that differ from v[0]. */
static int varied(const uintptr_t *v, int n)
{
    int d = 0;
    for (int i = 1; i < n; i++)
        d += v[i] != v[0];
    return d;
}

/* What a measurement re-draws: over REDRAW_N measurements of one point
 * (light warm-up, as a point's later passes), rank 0's buffer addresses and
 * sets take more than one value, the receive offset is drawn apart from the
 * send offset, every rank's buffers are where rank 0 drew them, each
 * measurement ran on a communicator duplicated for it, and the data checks
 * out in every set. Then with duplicates off: none. */
#define REDRAW_N 20
static void redraw_case(mbx_engine *e)
{
    uintptr_t sb[REDRAW_N], rb[REDRAW_N], set[REDRAW_N], roff[REDRAW_N];
    int apart = 0;
    mbx_warmup_info w0, w1;
    /* The default, a time budget, owes nothing before the first. */
    point(e, "pingpong.send_recv", 1, 0, 0);
    mbx_buffer_place first;
    mbx_engine_buffer_place(e, &first);
    require(first.comm_dup == 1, "the first measurement on a duplicate by default");
    require(mbx_engine_set_comm_dup(e, MBX_COMM_DUP_ALWAYS) == MBX_OK, "duplicates always");
    mbx_engine_warmup_info(e, &w0);
    for (int i = 0; i < REDRAW_N; i++) {
        uint32_t off = (uint32_t)(64 * ((7 * i) % 64));
        point(e, "pingpong.send_recv", 1, 1, off);
        mbx_buffer_place pl;
        mbx_engine_buffer_place(e, &pl);
        printf("measurement %2d: set %d of %d, send +%4u at %p, recv +%4u at %p, dup %d\n", i,
               pl.set, pl.sets, pl.send_offset, pl.sbuf, pl.recv_offset, pl.rbuf, pl.comm_dup);
        require(pl.sets >= 1 && pl.sets <= MBX_BUF_SETS && pl.set >= 0 && pl.set < pl.sets,
                "a set of the pool");
        require((uintptr_t)pl.sbuf % 4096 == pl.send_offset &&
                    (uintptr_t)pl.rbuf % 4096 == pl.recv_offset,
                "rank 0's buffers at the drawn offsets");
        require(pl.comm_dup == 1, "a duplicated communicator, always");
        sb[i] = (uintptr_t)pl.sbuf / 4096; /* the page: offsets alone do not count */
        rb[i] = (uintptr_t)pl.rbuf / 4096;
        set[i] = (uintptr_t)pl.set;
        roff[i] = pl.recv_offset;
        apart += pl.recv_offset != pl.send_offset;
    }
    mbx_engine_warmup_info(e, &w1);
    printf("pages: send %d, recv %d of %d differ from the first; sets %d, recv offsets %d; "
           "offsets apart %d; fewest sets %d\n",
           varied(sb, REDRAW_N), varied(rb, REDRAW_N), REDRAW_N - 1, varied(set, REDRAW_N),
           varied(roff, REDRAW_N), apart, w1.buf_sets_min);
    require(varied(sb, REDRAW_N) > 0 && varied(rb, REDRAW_N) > 0,
            "rank 0's buffers' pages take more than one value");
    require(w1.buf_sets_min < 2 || varied(set, REDRAW_N) > 0, "more than one set is drawn");
    require(varied(roff, REDRAW_N) > 0 && apart > 0, "the receive offset is drawn apart");
    require(w1.comm_dups - w0.comm_dups == REDRAW_N, "every measurement counted a duplicate");
    require(w1.buf_sets_min >= 1 && w1.buf_sets_min <= MBX_BUF_SETS &&
                (w1.buf_sets_min == MBX_BUF_SETS) == (w1.buf_fewer == 0),
            "the pool's record: fewer sets only with measurements counted short");

    require(mbx_engine_set_comm_dup(e, MBX_COMM_DUP_NEVER) == MBX_OK, "duplicates off");
    require(mbx_engine_set_comm_dup(e, (mbx_comm_dup_mode)3) == MBX_E_INVAL,
            "an unknown mode is refused");
    point(e, "coll.allreduce", 1024, 1, 128);
    mbx_buffer_place pl;
    mbx_engine_buffer_place(e, &pl);
    mbx_engine_warmup_info(e, &w0);
    require(pl.comm_dup == 0 && w0.comm_dups == w1.comm_dups, "no duplicate when off");
}

/* Memory made short (MBX_TEST_MEMROOT: 2 MiB available, so 1 MiB a rank
 * on 2 ranks and the pool half of it): a 1 B point keeps all sets, 64 KiB
 * fewer, 4 MiB one; the record counts the measurements short, and the
 * data still checks out. */
static void short_case(mbx_engine *e)
{
    mbx_warmup_info w;
    mbx_buffer_place pl;
    point(e, "pingpong.send_recv", 1, 0, 0);
    mbx_engine_warmup_info(e, &w);
    mbx_engine_buffer_place(e, &pl);
    require(pl.sets == MBX_BUF_SETS && w.buf_fewer == 0, "all sets for 1 B");
    point(e, "pingpong.send_recv", 65536, 0, 64);
    mbx_engine_warmup_info(e, &w);
    mbx_engine_buffer_place(e, &pl);
    printf("64 KiB: %d sets, fewest %d, %zu short\n", pl.sets, w.buf_sets_min, w.buf_fewer);
    require(pl.sets > 1 && pl.sets < MBX_BUF_SETS, "fewer sets for 64 KiB");
    require(w.buf_sets_min == pl.sets && w.buf_fewer == 1, "counted short once");
    point(e, "pingpong.send_recv", 4 << 20, 1, 128);
    mbx_engine_warmup_info(e, &w);
    mbx_engine_buffer_place(e, &pl);
    require(pl.sets == 1 && pl.set == 0 && w.buf_sets_min == 1 && w.buf_fewer == 2,
            "one set, at least, for 4 MiB");
}

/* Rank-private made-up /proc with 2 MiB available, for short_case. */
static void short_memory(char *dir, size_t len)
{
    snprintf(dir, len, "%s/mbx_memroot_%ld", MBX_TMP_DIR, (long)getpid());
    char p[512];
    snprintf(p, sizeof p, "%s/proc", dir);
    require((mkdir(dir, 0700) == 0 || errno == EEXIST) && (mkdir(p, 0700) == 0 || errno == EEXIST),
            "made-up /proc");
    snprintf(p, sizeof p, "%s/proc/meminfo", dir);
    FILE *f = fopen(p, "w");
    require(f && fprintf(f, "MemTotal: 4096 kB\nMemAvailable: 2048 kB\n") > 0 && fclose(f) == 0,
            "made-up meminfo");
    require(setenv("MBX_TEST_MEMROOT", dir, 1) == 0, "setenv");
}

static void short_cleanup(const char *dir)
{
    char p[512];
    snprintf(p, sizeof p, "%s/proc/meminfo", dir);
    remove(p);
    snprintf(p, sizeof p, "%s/proc", dir);
    remove(p);
    remove(dir);
}

static void bad_case(mbx_engine *e)
{
    static const uint32_t bad_offsets[] = {1, 32, 100, 4033, 4096, 65536};
    mbx_result r;
    for (size_t i = 0; i < sizeof bad_offsets / sizeof *bad_offsets; i++) {
        mbx_point_spec s = spec_of(e, "pingpong.send_recv", 8, 0, bad_offsets[i]);
        int rc = mbx_engine_measure(e, &s, NULL, NULL, &r, NULL, NULL);
        printf("buf_offset %5u: %s\n", bad_offsets[i], mbx_strerror(rc));
        require(rc == MBX_E_INVAL, "an offset off the 64-byte grid or above 4032 is refused");
    }
    mbx_point_spec s = spec_of(e, "pingpong.send_recv", 8, 2, 0);
    require(mbx_engine_measure(e, &s, NULL, NULL, &r, NULL, NULL) == MBX_E_INVAL,
            "warm_light 2 is refused");
    s = spec_of(e, "pingpong.send_recv", 8, 0, MBX_BUF_OFFSET_MAX);
    require(mbx_engine_measure(e, &s, NULL, NULL, &r, NULL, NULL) == MBX_OK,
            "the engine measures after the refusals, at the largest offset");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "";
    require(strcmp(mode, "measure") == 0 || strcmp(mode, "all") == 0 || strcmp(mode, "bad") == 0 ||
                strcmp(mode, "redraw") == 0 || strcmp(mode, "short") == 0,
            "mode measure, all, bad, redraw or short");
    char memroot[256] = "";
    if (strcmp(mode, "short") == 0)
        short_memory(memroot, sizeof memroot);
    mbx_engine *e;
    require(mbx_engine_create(MPI_COMM_WORLD, &e) == MBX_OK, "create");
    if (mbx_engine_rank(e) == 0) {
        mbx_timer_info ti;
        double worst;
        require(mbx_engine_configure(e, MBX_TIMER_WTIME, &ti, &worst) == MBX_OK, "configure");
        if (strcmp(mode, "measure") == 0)
            measure_case(e);
        else if (strcmp(mode, "all") == 0)
            all_case(e, argc > 2 ? argv[2] : "");
        else if (strcmp(mode, "redraw") == 0)
            redraw_case(e);
        else if (strcmp(mode, "short") == 0)
            short_case(e);
        else
            bad_case(e);
        require(mbx_engine_quit(e, 0) == MBX_OK, "quit");
    } else {
        int code = -1;
        require(mbx_engine_serve(e, &code) == MBX_OK && code == 0, "serve");
    }
    mbx_engine_destroy(e);
    if (memroot[0])
        short_cleanup(memroot);
    MPI_Barrier(MPI_COMM_WORLD); /* see tui/cmd/job.c: MPICH 4.0.2 + UCX/TCP finalize */
    MPI_Finalize();
    return 0;
}
