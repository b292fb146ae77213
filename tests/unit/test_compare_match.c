/* mpibex compare: which points are matched (directories of launches, key
 * parts left out, the point identity and rma_sync) and every input it must
 * refuse, on synthetic files
 * (compare_fixture.h). */
#define CMP_DIR "compare_match_tests"
#include "compare_fixture.h"
#include "mbx/pointid.h"

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
}

/* DIR/launch-01..05.csv with medians base + i * step at 8 B and 64 B; in
 * launch 3 the 64 B point is UNRELIABLE, and launch `drop` lacks 8 B. */
static void write_launches(const char *dir, double base, int drop)
{
    make_dir(tmp("%s", dir));
    for (int i = 1; i <= 5; i++) {
        mbx_result r[] = {row("pingpong.send_recv", 64, base + 0.5 + 0.01 * i, i == 3 ? BAD : OK),
                          row("pingpong.send_recv", 8, base + 0.01 * i, OK)};
        write_results(tmp("%s/launch-%02d.csv", dir, i), r, i == drop ? 1 : 2);
    }
    /* Sidecars and other files are no launches. */
    write_text(tmp("%s/launch-01.env.csv", dir), "key,value\nformat_version,1\n");
    write_text(tmp("%s/launch-01.obs.csv", dir), "not,a,results,table\n");
    write_text(tmp("%s/launch-02.probe.csv", dir), "x\n");
    write_text(tmp("%s/launch-02.log", dir), "mpibex: done\n");
    write_text(tmp("%s/merged.csv", dir), "benchmark\n");
    write_text(tmp("%s/repeat.csv", dir), "key,value\n");
}

static void launch_directories(void **state)
{
    (void)state;
    write_launches("dirA", 1.0, 0);
    write_launches("dirB", 2.0, 5);
    mbx_compare *c = NULL;
    char msg[512] = "";
    if (mbx_compare_load(tmp("dirA"), tmp("dirB"), 0.05, &c, msg, sizeof msg) != MBX_OK)
        fail_msg("%s", msg);
    assert_int_equal(mbx_compare_count(c), 2);
    const mbx_cmp_point *p = mbx_compare_get(c, 0); /* sorted: 8 bytes first */
    assert_int_equal(p->bytes, 8);
    assert_int_equal(p->n_a, 5);
    assert_int_equal(p->n_b, 4); /* missing from B's launch 5 */
    assert_float_equal(p->w.p_less, 1.0 / 126, 1e-12);
    assert_float_equal(p->median_a, 1.03e-6, 1e-12);
    assert_float_equal(p->median_b, 2.025e-6, 1e-12);
    p = mbx_compare_get(c, 1);
    assert_int_equal(p->bytes, 64);
    assert_int_equal(p->n_a, 4); /* launch 3 UNRELIABLE */
    assert_int_equal(p->n_b, 4);
    assert_int_equal(p->verdict, '<');
    /* 4 against 4 apart: P(W <= 10) = 1 / C(8, 4) */
    assert_float_equal(p->w.p_less, 1.0 / 70, 1e-12);
    assert_float_equal(p->median_a, (1.52 + 1.54) / 2 * 1e-6, 1e-12);
    mbx_compare_summary s;
    mbx_compare_summarize(c, &s);
    assert_string_equal(s.kind_a, "launches");
    assert_int_equal(s.faster, 2);
    mbx_compare_free(c);

    /* the same directory against itself: every point the same, p = 1 */
    assert_int_equal(mbx_compare_load(tmp("dirA"), tmp("dirA"), 0.05, &c, NULL, 0), MBX_OK);
    mbx_compare_summarize(c, &s);
    assert_int_equal(s.same, 2);
    for (size_t i = 0; i < mbx_compare_count(c); i++)
        assert_float_equal(mbx_compare_get(c, i)->w.p_two_sided, 1.0, 1e-12);
    mbx_compare_free(c);

    /* mixed kinds: launches against observations */
    write_obs_pair();
    assert_int_equal(mbx_compare_load(tmp("dirA"), tmp("A.csv"), 0.05, &c, NULL, 0), MBX_OK);
    mbx_compare_summarize(c, &s);
    assert_string_equal(s.kind_a, "launches");
    assert_string_equal(s.kind_b, "observations");
    assert_int_equal(s.tested, 2);
    assert_int_equal(s.only_b, 2); /* the reduce and 1 KiB */
    mbx_compare_free(c);
}

/* Two single runs without observation files (no --raw): the ratio of their
 * rows' medians, and no verdict, never a refusal. */
static void two_runs_without_observations(void **state)
{
    (void)state;
    mbx_result r[2] = {row("pingpong.send_recv", 8, 1.0, OK),
                       row("pingpong.send_recv", 64, 3.0, OK)};
    write_results(tmp("noobsA.csv"), r, 2);
    r[0].s.median = 1.5e-6;
    r[1].s.median = 3.0e-6;
    write_results(tmp("noobsB.csv"), r, 2);
    mbx_compare *c = NULL;
    char msg[512] = "";
    if (mbx_compare_load(tmp("noobsA.csv"), tmp("noobsB.csv"), 0.05, &c, msg, sizeof msg) != MBX_OK)
        fail_msg("%s", msg);
    mbx_compare_summary s;
    mbx_compare_summarize(c, &s);
    assert_string_equal(s.kind_a, "row medians");
    assert_int_equal(s.scope, MBX_CMP_SCOPE_NONE);
    assert_non_null(strstr(s.why_none, "no machine-level verdict"));
    assert_int_equal(mbx_compare_count(c), 2);
    const mbx_cmp_point *p = mbx_compare_get(c, 0);
    assert_int_equal(p->bytes, 8);
    assert_float_equal(p->ratio, 1.5, 1e-9);
    assert_int_equal(p->verdict, '?');
    assert_float_equal(mbx_compare_get(c, 1)->ratio, 1.0, 1e-9);
    mbx_compare_free(c);
}

/* Without the benchmark in the key: send_recv in A against ssend_recv in B. */
static void ignoring_key_parts(void **state)
{
    (void)state;
    mbx_result ra = row("pingpong.send_recv", 8, 1.0, OK);
    mbx_result rb = row("pingpong.ssend_recv", 8, 2.0, OK);
    one_point_file(tmp("I1.csv"), &ra, 10, 1.0, 0.01);
    one_point_file(tmp("I2.csv"), &rb, 10, 2.0, 0.01);
    mbx_compare *c = NULL;
    char msg[512];
    assert_int_equal(mbx_compare_load(tmp("I1.csv"), tmp("I2.csv"), 0.05, &c, msg, sizeof msg),
                     MBX_E_INVAL);
    assert_null(c);
    assert_non_null(strstr(msg, "no point in common"));
    assert_int_equal(mbx_compare_load_ex(tmp("I1.csv"), tmp("I2.csv"), 0.05,
                                         MBX_COMPARE_IGNORE_BENCHMARK, &c, msg, sizeof msg),
                     MBX_OK);
    assert_int_equal(mbx_compare_count(c), 1);
    assert_string_equal(mbx_compare_get(c, 0)->benchmark, "pingpong.send_recv"); /* A's key */
    assert_int_equal(mbx_compare_get(c, 0)->verdict, '?');
    mbx_compare_free(c);

    /* B with two benchmarks at one size: ambiguous without the benchmark */
    write_obs_pair();
    mbx_result two[] = {row("pingpong.send_recv", 16, 1.0, OK), reduce_row(1.0)};
    two[0].benchmark = "coll.reduce";
    two[0].root = 0;
    two[0].op = "MPI_SUM/MPI_FLOAT";
    two[0].label = "other";
    write_results(tmp("I3.csv"), two, 2);
    mbx_csv_writer *w = obs_open(tmp("I3.csv"));
    write_obs(w, &two[0], 5, 1.0, 0.1);
    write_obs(w, &two[1], 5, 1.0, 0.1);
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
    assert_int_equal(mbx_compare_load_ex(tmp("A.csv"), tmp("I3.csv"), 0.05,
                                         MBX_COMPARE_IGNORE_LABEL, &c, msg, sizeof msg),
                     MBX_E_INVAL);
    if (strstr(msg, "with the label ignored, coll.reduce [other] and coll.reduce [cli] at 2 "
                    "procs, 16 bytes are one point") == NULL)
        fail_msg("%s", msg);
}

/* mbx_compare_load must fail with `want` and a message containing `part`. */
static void refuse(const char *a, const char *b, double alpha, int want, const char *part)
{
    mbx_compare *c = (mbx_compare *)&c; /* must be set to NULL */
    char msg[512] = "";
    int rc = mbx_compare_load(a, b, alpha, &c, msg, sizeof msg);
    if (rc != want || strstr(msg, part) == NULL || strchr(msg, '\n') != NULL)
        fail_msg("rc %d (want %d), message '%s' (want '%s')", rc, want, msg, part);
    assert_null(c);
}

static void refuses_bad_input(void **state)
{
    (void)state;
    write_obs_pair();
    write_launches("dirA", 1.0, 0);
    refuse(tmp("nope.csv"), tmp("B.csv"), 0.05, MBX_E_IO,
           "/" CMP_DIR "/nope.csv': No such file or directory");
    refuse(tmp("A.csv"), tmp("A.csv"), 2, MBX_E_INVAL, "alpha: expected 0 < alpha < 1, got 2");
    refuse(tmp("A.csv"), tmp("A.csv"), 0, MBX_E_INVAL, "alpha");

    write_text(tmp("env.csv"), "key,value\nformat_version,1\n");
    refuse(tmp("env.csv"), tmp("A.csv"), 0.05, MBX_E_PROTO,
           "env.csv' is not an mpibex results CSV: no 'benchmark' column");
    write_text(tmp("empty.csv"), "");
    refuse(tmp("A.csv"), tmp("empty.csv"), 0.05, MBX_E_PROTO, "the file is empty");

    /* malformed fields, by file and line */
    const char *head = "benchmark,procs,bytes,median_us,status,label\n";
    char text[512];
    snprintf(text, sizeof text,
             "%spingpong.send_recv,2,8,1.0,SETTLED,cli\n"
             "pingpong.send_recv,x,8,1.0,SETTLED,cli\n",
             head);
    write_text(tmp("badprocs.csv"), text);
    refuse(tmp("badprocs.csv"), tmp("A.csv"), 0.05, MBX_E_PROTO,
           "badprocs.csv:3: procs: expected a whole number, 1 <= procs <= 2147483647 (got 'x')");
    snprintf(text, sizeof text, "%spingpong.send_recv,2,8,1.0,DONE,cli\n", head);
    write_text(tmp("badstatus.csv"), text);
    refuse(tmp("badstatus.csv"), tmp("A.csv"), 0.05, MBX_E_PROTO, "badstatus.csv:2: status:");
    snprintf(text, sizeof text, "%spingpong.send_recv,2\n", head);
    write_text(tmp("short.csv"), text);
    refuse(tmp("short.csv"), tmp("A.csv"), 0.05, MBX_E_PROTO,
           "short.csv:2: 2 fields, the header has 6");
    snprintf(text, sizeof text, "%spingpong.send_recv,2,8,1.0,SETTLED,cli\n", head);
    write_text(tmp("badobs.csv"), text);
    write_text(tmp("badobs.obs.csv"), "benchmark,procs,bytes,obs,time_us,label,root,param\n"
                                      "pingpong.send_recv,2,8,0,fast,cli,,\n");
    refuse(tmp("badobs.csv"), tmp("A.csv"), 0.05, MBX_E_PROTO,
           "badobs.obs.csv:2: time_us: expected a time in microseconds, 0 <= t < 1e12 (plain "
           "decimal) (got 'fast')");
    write_text(tmp("noobscol.csv"), text);
    write_text(tmp("noobscol.obs.csv"), "benchmark,procs,bytes\n");
    refuse(tmp("noobscol.csv"), tmp("A.csv"), 0.05, MBX_E_PROTO, "no 'time_us' column");

    /* directories: fewer than 2 launches, a launch that is no table */
    mbx_result r = row("pingpong.send_recv", 8, 1.0, OK);
    make_dir(tmp("empty"));
    refuse(tmp("empty"), tmp("A.csv"), 0.05, MBX_E_INVAL, "empty: 0 launches (" /* ... */);
    make_dir(tmp("one"));
    write_results(tmp("one/launch-01.csv"), &r, 1);
    refuse(tmp("A.csv"), tmp("one"), 0.05, MBX_E_INVAL, "one: 1 launch (" /* ... */);
    refuse(tmp("A.csv"), tmp("one"), 0.05, MBX_E_INVAL, "a directory side needs at least 2");
    make_dir(tmp("broken"));
    write_results(tmp("broken/launch-01.csv"), &r, 1);
    write_text(tmp("broken/launch-02.csv"), "key,value\n");
    refuse(tmp("broken"), tmp("A.csv"), 0.05, MBX_E_PROTO,
           "broken/launch-02.csv' is not an mpibex results CSV");

    /* nothing in common */
    mbx_result other = row("coll.barrier", 0, 1.0, OK);
    one_point_file(tmp("other.csv"), &other, 3, 1.0, 0.1);
    refuse(tmp("A.csv"), tmp("other.csv"), 0.05, MBX_E_INVAL, "have no point in common (4 and 1");
}

/* The identity (mbx/pointid.h): its parts in the documented order; a
 * column a header lacks reads as empty and matches only the empty value; a
 * NULL part of the wanted identity matches anything. */
static void point_identity(void **state)
{
    (void)state;
    const char *hdr[] = {"benchmark", "procs", "bytes", "label", "param", "rma_sync"};
    int col[MBX_PID_NTEXT];
    mbx_pid_find_columns(hdr, 6, col);
    assert_int_equal(col[MBX_PID_BENCH], 0);
    assert_int_equal(col[MBX_PID_LABEL], 3);
    assert_int_equal(col[MBX_PID_ROOT], -1);
    assert_int_equal(col[MBX_PID_OP], -1);
    assert_int_equal(col[MBX_PID_PARAM], 4);
    assert_int_equal(col[MBX_PID_RMA_SYNC], 5);
    char *cell[] = {"rma.put", "2", "8", "cli", "", "fence"};
    const char *now[MBX_PID_NTEXT], *old[MBX_PID_NTEXT];
    mbx_pid_texts(cell, col, now);
    assert_string_equal(now[MBX_PID_ROOT], "");
    assert_string_equal(now[MBX_PID_RMA_SYNC], "fence");
    char *k = mbx_pid_key(now, 2, 8);
    assert_non_null(k);
    assert_string_equal(k, "rma.put\x1f"
                           "cli\x1f"
                           "2\x1f"
                           "8\x1f\x1f\x1f\x1f"
                           "fence\x1f");
    /* A header of an earlier version: no rma_sync column. */
    mbx_pid_find_columns(hdr, 5, col);
    assert_int_equal(col[MBX_PID_RMA_SYNC], -1);
    mbx_pid_texts(cell, col, old);
    assert_string_equal(old[MBX_PID_RMA_SYNC], "");
    char *ko = mbx_pid_key(old, 2, 8);
    assert_non_null(ko);
    assert_string_not_equal(k, ko);
    assert_false(mbx_pid_match(now, 2, 8, old, 2, 8));
    old[MBX_PID_RMA_SYNC] = NULL; /* compare --ignore rma_sync */
    assert_true(mbx_pid_match(now, 2, 8, old, 2, 8));
    assert_false(mbx_pid_match(now, 2, 16, old, 2, 8));
    assert_false(mbx_pid_match(now, 4, 8, old, 2, 8));
    free(k);
    free(ko);
}

/* r with n observations beside it, in a results file of the columns
 * before rma_sync only (an earlier version's). */
static void old_point_file(const char *path, const mbx_result *r, size_t n, double base)
{
    mbx_csv_writer *w;
    assert_int_equal(mbx_csv_writer_open(path, mbx_result_columns, MBX_COL_RMA_SYNC, &w), MBX_OK);
    mbx_result_fields f;
    mbx_result_format(r, &f);
    assert_int_equal(mbx_csv_writer_row(w, f.field), MBX_OK);
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
    w = obs_open(path);
    write_obs(w, r, n, base, 0.01);
    assert_int_equal(mbx_csv_writer_close(w), MBX_OK);
}

/* rma.put under fence and under lock_all are two points: not matched,
 * unless --ignore rma_sync. A file without the column matches today's
 * where the mode is empty (ping-pong), not a one-sided mode. */
static void rma_sync_apart(void **state)
{
    (void)state;
    mbx_result fence = row("rma.put", 8, 3.0, OK), lock_all = row("rma.put", 8, 1.0, OK);
    fence.rma_sync = "fence";
    lock_all.rma_sync = "lock_all";
    one_point_file(tmp("R1.csv"), &fence, 10, 3.0, 0.01);
    one_point_file(tmp("R2.csv"), &lock_all, 10, 1.0, 0.01);
    mbx_compare *c = NULL;
    char msg[512] = "";
    assert_int_equal(mbx_compare_load(tmp("R1.csv"), tmp("R2.csv"), 0.05, &c, msg, sizeof msg),
                     MBX_E_INVAL);
    assert_null(c);
    assert_non_null(strstr(msg, "have no point in common (1 and 1"));
    assert_int_equal(mbx_compare_load_ex(tmp("R1.csv"), tmp("R2.csv"), 0.05,
                                         MBX_COMPARE_IGNORE_RMA_SYNC, &c, msg, sizeof msg),
                     MBX_OK);
    assert_int_equal(mbx_compare_count(c), 1);
    const mbx_cmp_point *p = mbx_compare_get(c, 0);
    assert_string_equal(p->rma_sync, "fence"); /* A's */
    assert_non_null(p->key);
    assert_non_null(strstr(p->key, "\x1f"
                                   "fence\x1f"));
    assert_int_equal(p->verdict, '?');
    mbx_compare_free(c);

    /* Files of an earlier version: the column reads as empty. */
    mbx_result pp = row("pingpong.send_recv", 8, 1.0, OK);
    old_point_file(tmp("R3.csv"), &pp, 10, 1.0);
    one_point_file(tmp("R4.csv"), &pp, 10, 2.0, 0.01);
    assert_int_equal(mbx_compare_load(tmp("R3.csv"), tmp("R4.csv"), 0.05, &c, msg, sizeof msg),
                     MBX_OK);
    assert_int_equal(mbx_compare_count(c), 1);
    assert_null(mbx_compare_get(c, 0)->rma_sync);
    assert_int_equal(mbx_compare_get(c, 0)->verdict, '?');
    mbx_compare_free(c);
    mbx_result put = row("rma.put", 8, 1.0, OK); /* its mode unknown */
    old_point_file(tmp("R5.csv"), &put, 10, 1.0);
    assert_int_equal(mbx_compare_load(tmp("R5.csv"), tmp("R2.csv"), 0.05, &c, msg, sizeof msg),
                     MBX_E_INVAL);
    assert_non_null(strstr(msg, "have no point in common"));

    /* Launches holding both modes under one label: one point each, and
     * one point with the mode ignored, which is refused. */
    make_dir(tmp("both"));
    for (int i = 1; i <= 3; i++) {
        mbx_result r[2] = {fence, lock_all};
        r[0].s.median += 1e-8 * i;
        r[1].s.median += 1e-8 * i;
        write_results(tmp("both/launch-%02d.csv", i), r, 2);
    }
    assert_int_equal(mbx_compare_load(tmp("both"), tmp("both"), 0.05, &c, msg, sizeof msg), MBX_OK);
    assert_int_equal(mbx_compare_count(c), 2);
    assert_string_equal(mbx_compare_get(c, 0)->rma_sync, "fence"); /* sorted by mode */
    assert_string_equal(mbx_compare_get(c, 1)->rma_sync, "lock_all");
    mbx_compare_free(c);
    /* One directory on both sides: its two modes against each other, once. */
    assert_int_equal(mbx_compare_load_ex(tmp("both"), tmp("both"), 0.05,
                                         MBX_COMPARE_IGNORE_RMA_SYNC, &c, msg, sizeof msg),
                     MBX_OK);
    assert_int_equal(mbx_compare_count(c), 1);
    assert_string_equal(mbx_compare_get(c, 0)->rma_sync, "fence");
    mbx_compare_free(c);
    /* Another directory as B: its two modes would be one point. */
    make_dir(tmp("both2"));
    for (int i = 1; i <= 3; i++) {
        mbx_result r[2] = {fence, lock_all};
        write_results(tmp("both2/launch-%02d.csv", i), r, 2);
    }
    assert_int_equal(mbx_compare_load_ex(tmp("both"), tmp("both2"), 0.05,
                                         MBX_COMPARE_IGNORE_RMA_SYNC, &c, msg, sizeof msg),
                     MBX_E_INVAL);
    if (strstr(msg, "with the rma_sync ignored, rma.put [cli] rma_sync=fence and rma.put [cli] "
                    "rma_sync=lock_all at 2 procs, 8 bytes are one point") == NULL)
        fail_msg("%s", msg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(launch_directories), cmocka_unit_test(ignoring_key_parts),
        cmocka_unit_test(refuses_bad_input),  cmocka_unit_test(point_identity),
        cmocka_unit_test(rma_sync_apart),     cmocka_unit_test(two_runs_without_observations),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
