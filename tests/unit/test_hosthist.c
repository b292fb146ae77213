/* The host's history (mbx/hosthist.h): its reference and rules on data
 * worked by hand, its file (round trip, what is used, bad, foreign and
 * missing files, links), and what the scheduler does with it over a
 * simulated machine (sched_sim.c): a point measured in an unusual state
 * is flagged, and a run that sees no level change paces by the stay the
 * history shows. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "mbx/hosthist.h"
#include "mbx/rowview.h"
#include "sched_sim.h"

#define NOW 1795000000LL

static void path_of(const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s/hosthist_%s.csv", MBX_TMP_DIR, name);
    (void)remove(out);
}

static mbx_hosthist_rec rec(long long when, int procs, double probe_us)
{
    mbx_hosthist_rec r = {.when = when,
                          .procs = procs,
                          .probes = 80,
                          .span = 5.0,
                          .changes = 1,
                          .probe_median = probe_us * 1e-6};
    return r;
}

/* Probes 1.0, 1.1, 0.9, 1.0, 3.0 us: center 1.0 us; deviations of the
 * logs 0, 0.0953, 0.1054, 0, 1.0986, whose median is 0.0953 = log 1.1:
 * spread 1.4826 * 0.0953 = 0.1413. */
static void reference_by_hand(void **state)
{
    (void)state;
    double v[5] = {1.0, 1.1, 0.9, 1.0, 3.0};
    for (size_t i = 0; i < 5; i++)
        v[i] = log(v[i] * 1e-6);
    mbx_hosthist_ref r = {0};
    mbx_hosthist_reference(v, 5, &r);
    assert_int_equal(r.runs, 5);
    assert_true(fabs(r.center - 1e-6) < 1e-15);
    assert_true(fabs(r.spread - 1.482602218505602 * log(1.1)) < 1e-9);
    mbx_hosthist_reference(v, 0, &r);
    assert_int_equal(r.runs, 0);
    assert_true(isnan(r.center));
}

static void unusual_needs_both_bounds(void **state)
{
    (void)state;
    mbx_hosthist_ref r = {.runs = 5, .center = 1e-6, .spread = 0.01};
    double ratio = 0;
    assert_int_equal(mbx_hosthist_unusual(&r, 1.25e-6, &ratio), 1); /* 25 %, 22 sds */
    assert_true(fabs(ratio - 1.25) < 1e-12);
    assert_int_equal(mbx_hosthist_unusual(&r, 0.7e-6, &ratio), 1);  /* faster counts too */
    assert_int_equal(mbx_hosthist_unusual(&r, 1.15e-6, &ratio), 0); /* under a level shift */
    r.spread = 0.1;                                                 /* log 1.25 = 0.223 < 3 sds */
    assert_int_equal(mbx_hosthist_unusual(&r, 1.25e-6, &ratio), 0);
    assert_int_equal(mbx_hosthist_unusual(&r, 3e-6, &ratio), 1);
    r.runs = MBX_HOSTHIST_MIN_RUNS - 1;
    assert_int_equal(mbx_hosthist_unusual(&r, 3e-6, &ratio), 0);
    r.runs = 5;
    assert_int_equal(mbx_hosthist_unusual(&r, 0, &ratio), 0);
    assert_int_equal(mbx_hosthist_unusual(&r, NAN, &ratio), 0);
    assert_int_equal(mbx_hosthist_unusual(NULL, 3e-6, &ratio), 0);
}

static void dwell_counts_all_time_watched(void **state)
{
    (void)state;
    mbx_hosthist_ref r = {.runs = 5, .seconds = 100, .changes = 4};
    assert_true(fabs(mbx_hosthist_dwell(&r, 20) - 30) < 1e-12);
    assert_true(fabs(mbx_hosthist_dwell(&r, 0) - 25) < 1e-12);
    r.changes = MBX_HOSTHIST_MIN_CHANGES - 1;
    assert_true(isnan(mbx_hosthist_dwell(&r, 0)));
    r.changes = 4;
    r.runs = MBX_HOSTHIST_MIN_RUNS - 1;
    assert_true(isnan(mbx_hosthist_dwell(&r, 0)));
}

/* Runs of 2 ranks, one of 4 and one older than 30 days: the reference is
 * of the 2-rank runs of the last 30 days only. */
static void file_round_trip(void **state)
{
    (void)state;
    char p[512], msg[512];
    path_of("trip", p, sizeof p);
    mbx_hosthist_rec old = rec(NOW - 31 * 86400LL, 2, 9.0);
    assert_int_equal(mbx_hosthist_append(p, "vm", "MPICH, \"4\"", &old), MBX_OK);
    const double us[6] = {0.40, 0.41, 0.39, 0.40, 0.42, 1.20};
    for (int i = 0; i < 6; i++) {
        mbx_hosthist_rec r = rec(NOW - 600 + 60 * i, 2, us[i]);
        assert_int_equal(mbx_hosthist_append(p, "vm", "MPICH, \"4\"", &r), MBX_OK);
    }
    mbx_hosthist_rec four = rec(NOW, 4, 5.0);
    assert_int_equal(mbx_hosthist_append(p, "vm", "MPICH, \"4\"", &four), MBX_OK);
    struct stat sb;
    assert_int_equal(stat(p, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    mbx_hosthist_ref r;
    assert_int_equal(mbx_hosthist_read(p, "vm", "MPICH, \"4\"", 2, NOW, &r, msg, sizeof msg),
                     MBX_OK);
    assert_int_equal(r.runs, 6);
    /* The median of the logs of 0.39 0.40 0.40 0.41 0.42 1.2: the mean of the middle two. */
    assert_true(fabs(r.center - sqrt(0.40 * 0.41) * 1e-6) < 1e-15);
    assert_true(fabs(r.seconds - 30) < 1e-9);
    assert_int_equal(r.changes, 6);
    assert_int_equal(r.oldest, NOW - 600);
    assert_int_equal(mbx_hosthist_read(p, "vm", "MPICH, \"4\"", 4, NOW, &r, msg, sizeof msg),
                     MBX_OK);
    assert_int_equal(r.runs, 1);
    assert_int_equal(remove(p), 0);
}

/* Of 60 runs the 50 most recent count. */
static void most_recent_runs_count(void **state)
{
    (void)state;
    char p[512], msg[512];
    path_of("recent", p, sizeof p);
    for (int i = 0; i < 60; i++) {
        mbx_hosthist_rec r = rec(NOW - 3600 + i, 2, i < 10 ? 9.0 : 1.0);
        assert_int_equal(mbx_hosthist_append(p, "h", "m", &r), MBX_OK);
    }
    mbx_hosthist_ref r;
    assert_int_equal(mbx_hosthist_read(p, "h", "m", 2, NOW, &r, msg, sizeof msg), MBX_OK);
    assert_int_equal(r.runs, MBX_HOSTHIST_USE_RUNS);
    assert_true(fabs(r.center - 1e-6) < 1e-15);
    assert_true(r.spread == 0);
    assert_int_equal(r.oldest, NOW - 3600 + 10);
    assert_int_equal(remove(p), 0);
}

static void write_text(const char *p, const char *text)
{
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void bad_files_are_refused(void **state)
{
    (void)state;
    char p[512], msg[512];
    mbx_hosthist_ref r;
    path_of("bad", p, sizeof p);
    errno = 0;
    assert_int_equal(mbx_hosthist_read(p, "h", "m", 2, NOW, &r, msg, sizeof msg), MBX_E_IO);
    assert_int_equal(errno, ENOENT);
    write_text(p, "mpibex_history,1\nhost,h\nmpi,m\n"
                  "end_s,procs,probes,span_s,changes,probe_median_us\n"
                  "1795000000,2,80,5.0,0,0.4\n1795000060,2,80,5.0,0,-1\n");
    assert_int_equal(mbx_hosthist_read(p, "h", "m", 2, NOW, &r, msg, sizeof msg), MBX_E_PROTO);
    assert_non_null(strstr(msg, ":6: probe_median_us: expected"));
    assert_int_equal(r.runs, 0);
    write_text(p, "mpibex_history,1\nhost,other\nmpi,m\n"
                  "end_s,procs,probes,span_s,changes,probe_median_us\n");
    assert_int_equal(mbx_hosthist_read(p, "h", "m", 2, NOW, &r, msg, sizeof msg), MBX_E_PROTO);
    assert_non_null(strstr(msg, "of host 'other', this run's is 'h'"));
    write_text(p, "mpibex_profile,2\nhost,h\n");
    assert_int_equal(mbx_hosthist_read(p, "h", "m", 2, NOW, &r, msg, sizeof msg), MBX_E_PROTO);
    assert_non_null(strstr(msg, "mpibex_history: expected a history file"));
    write_text(p, "mpibex_history,1\nhost,h\nmpi,m\n");
    assert_int_equal(mbx_hosthist_read(p, "h", "m", 2, NOW, &r, msg, sizeof msg), MBX_E_PROTO);
    write_text(p, "mpibex_history,1\nhost,h\nmpi,m\n"
                  "end_s,procs,probes,span_s,changes,probe_median_us\n\"1795000000,2\n");
    assert_int_equal(mbx_hosthist_read(p, "h", "m", 2, NOW, &r, msg, sizeof msg), MBX_E_PROTO);
    assert_int_equal(remove(p), 0);
}

static void bad_records_and_links_are_refused(void **state)
{
    (void)state;
    char p[512], link[512];
    path_of("rec", p, sizeof p);
    mbx_hosthist_rec r = rec(NOW, 2, 0);
    assert_int_equal(mbx_hosthist_append(p, "h", "m", &r), MBX_E_INVAL);
    r = rec(NOW, 0, 1.0);
    assert_int_equal(mbx_hosthist_append(p, "h", "m", &r), MBX_E_INVAL);
    r = rec(NOW, 2, 1.0);
    r.probes = 0;
    assert_int_equal(mbx_hosthist_append(p, "h", "m", &r), MBX_E_INVAL);
    assert_int_equal(access(p, F_OK), -1);
    /* A link planted at the history's name is not written through. */
    path_of("target", link, sizeof link);
    write_text(link, "keep\n");
    assert_int_equal(symlink(link, p), 0);
    r = rec(NOW, 2, 1.0);
    assert_int_equal(mbx_hosthist_append(p, "h", "m", &r), MBX_E_IO);
    FILE *f = fopen(link, "r");
    char buf[16] = "";
    assert_non_null(f);
    assert_non_null(fgets(buf, sizeof buf, f));
    fclose(f);
    assert_string_equal(buf, "keep\n");
    assert_int_equal(remove(p), 0);
    assert_int_equal(remove(link), 0);
}

/* A 2-point curve over a quiet simulated machine (probes 0.2 us) judged
 * by host (a kept history; NULL: none kept), seed 1: its rows and the
 * pacing as the run ends. */
static void run_with(const mbx_hosthist_ref *host, mbx_result rows[2], mbx_sched_pacing *pg,
                     mbx_hosthist_rec *out, int *recorded)
{
    mbx_sched_opts o;
    mbx_sched_opts_init(&o);
    o.seed = 1;
    if (host) {
        o.host = *host;
        o.host_kept = 1;
    }
    mbx_sched *s = mbx_sim_make(&o, 1, mbx_sim_grid8, 2);
    sim m = {.rng = 5, .noise = 0.01, .probe_noise = 0.02, .curve_scale = {1}};
    mbx_sim_run_all(s, &m);
    for (size_t i = 0; i < 2; i++)
        assert_int_equal(mbx_sched_result(s, i, &rows[i]), MBX_OK);
    mbx_sched_pacing_get(s, pg);
    *recorded = mbx_sched_host_record(s, 2, NOW, out);
    mbx_sched_free(s);
}

static void sched_flags_an_unusual_state(void **state)
{
    (void)state;
    mbx_result rows[2];
    mbx_sched_pacing pg;
    mbx_hosthist_rec hr;
    int recorded;
    run_with(NULL, rows, &pg, &hr, &recorded);
    for (size_t i = 0; i < 2; i++)
        assert_int_equal(rows[i].status, MBX_POINT_SETTLED);
    assert_true(isnan(pg.host_dwell));
    /* The run as a row of the history: its probes' median, near 0.2 us. */
    assert_int_equal(recorded, 1);
    assert_int_equal(hr.procs, 2);
    assert_int_equal(hr.when, NOW);
    assert_true(hr.probes >= 16 && hr.span >= MBX_HOSTHIST_MIN_SPAN_S);
    assert_true(fabs(hr.probe_median / 2e-7 - 1) < 0.02);
    /* The same machine against a host whose probe usually reads it: settled. */
    mbx_hosthist_ref usual = {.runs = 10, .center = 2e-7, .spread = 0.02, .seconds = 50};
    run_with(&usual, rows, &pg, &hr, &recorded);
    for (size_t i = 0; i < 2; i++)
        assert_int_equal(rows[i].status, MBX_POINT_SETTLED);
    /* And against one whose probe usually reads a third of it: flagged. */
    mbx_hosthist_ref fast = usual;
    fast.center = 2e-7 / 3;
    run_with(&fast, rows, &pg, &hr, &recorded);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(rows[i].status, MBX_POINT_UNSETTLED);
        assert_string_equal(rows[i].status_reason, "host state 3x usual (10 runs)");
    }
    /* Four earlier runs judge no state; and a run that saw no level
     * change cannot know yet how long the host's states last. */
    fast.runs = MBX_HOSTHIST_MIN_RUNS - 1;
    run_with(&fast, rows, &pg, &hr, &recorded);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(rows[i].status, MBX_POINT_UNSETTLED);
        assert_string_equal(rows[i].status_reason, "states unknown (host history 4 of 5)");
    }
    assert_non_null(strstr(mbx_row_advice(rows[0].status, rows[0].status_reason), "run again"));
    /* Without a kept history (--history none) the run takes the machine
     * for what its probes saw: one state. */
    run_with(NULL, rows, &pg, &hr, &recorded);
    for (size_t i = 0; i < 2; i++)
        assert_int_equal(rows[i].status, MBX_POINT_SETTLED);
}

/* A run that sees no level change on a host whose runs saw states of
 * about 20 s: it paces by them and its points, spanning less than 3 of
 * them, say so. With 1 change in the history it is as without. */
static void sched_paces_by_the_hosts_stays(void **state)
{
    (void)state;
    mbx_result rows[2];
    mbx_sched_pacing pg;
    mbx_hosthist_rec hr;
    int recorded;
    mbx_hosthist_ref h = {.runs = 10, .center = 2e-7, .spread = 0.02, .seconds = 100, .changes = 5};
    run_with(&h, rows, &pg, &hr, &recorded);
    assert_int_equal(pg.changes, 0);
    assert_true(pg.host_dwell >= 20 && pg.host_dwell < 30); /* (100 + the run's) / 5 */
    assert_int_equal(pg.cannot_cover, 1);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(rows[i].status, MBX_POINT_UNSETTLED);
        assert_non_null(strstr(rows[i].status_reason, "states ~2"));
    }
    h.changes = MBX_HOSTHIST_MIN_CHANGES - 1;
    run_with(&h, rows, &pg, &hr, &recorded);
    assert_true(isnan(pg.host_dwell));
    for (size_t i = 0; i < 2; i++)
        assert_int_equal(rows[i].status, MBX_POINT_SETTLED);
    /* Stays under a second: the points span 3 of them, and the probes
     * saw one state all along, where the history says the host switches.
     * Each point saw one state of the mix: its row says so. */
    h.seconds = 4;
    h.changes = 10;
    run_with(&h, rows, &pg, &hr, &recorded);
    assert_int_equal(pg.changes, 0);
    assert_true(pg.host_dwell > 0.4 && pg.host_dwell < 1);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(rows[i].status, MBX_POINT_UNSETTLED);
        assert_non_null(strstr(rows[i].status_reason, "1 state for "));
        assert_non_null(strstr(rows[i].status_reason, "; host's last ~0."));
    }
    assert_non_null(strstr(mbx_row_advice(rows[0].status, rows[0].status_reason), "one state"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_by_hand),
        cmocka_unit_test(unusual_needs_both_bounds),
        cmocka_unit_test(dwell_counts_all_time_watched),
        cmocka_unit_test(file_round_trip),
        cmocka_unit_test(most_recent_runs_count),
        cmocka_unit_test(bad_files_are_refused),
        cmocka_unit_test(bad_records_and_links_are_refused),
        cmocka_unit_test(sched_flags_an_unusual_state),
        cmocka_unit_test(sched_paces_by_the_hosts_stays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
