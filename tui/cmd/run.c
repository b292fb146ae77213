/* Batch front end (`mpibex run`). All ranks enter; rank 0 parses and
 * validates everything before the first measurement and tells the others
 * to quit with code 2 on bad input, so every rank exits alike and no
 * partial file is left. This file: the steps of rank 0's run (parse, plan,
 * back end, output, resume, timer, method) and the entry points; the
 * pieces are in run_plan.c (curves), run_loop.c (measuring),
 * run_output.c (files), run_print.c (text) and run_resume.c (--resume). */
#include "run.h"
#include "run_int.h"
#include "watchdog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "job.h"
#include "mbx/file.h"
#include "mbx/results_sort.h"
#include "mbx/sizes.h"
#include "mbx/thrinfo.h"
#include "outfit.h"
#include "sig.h"
#include "tprint.h"

void mbx_run_fail(const char *msg)
{
    mbx_tprintf(stderr, "mpibex: %s\n", msg);
}

/* splitmix64: the seed of a run when none is given. */
static uint64_t next_rand(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The observation method on every rank, the order's seed and the monitor's
 * peer. Returns 0, or an exit code with msg. */
static int set_method(run_state *st, int nranks, char *msg)
{
    int rc = st->be->set_method(st->be, &st->opt.method);
    if (rc == MBX_E_UNSUPPORTED) {
        snprintf(msg, MSG_LEN,
                 "--cache: cold needs the last-level cache size, which hwloc did not "
                 "find on every rank; use --cache warm");
        return 2;
    }
    if (rc == MBX_E_RANGE) {
        char want[32] = "the last-level cache", most[32];
        if (st->opt.method.cache_bytes)
            mbx_size_format(st->opt.method.cache_bytes, want, sizeof want);
        /* Whole MiB, rounded down: the figure moves with the machine. */
        uint64_t mib = 1024 * 1024, b = st->be->cache_budget;
        mbx_size_format(b >= mib ? b / mib * mib : b, most, sizeof most);
        snprintf(msg, MSG_LEN,
                 "--cache: cold:%s is more memory than each rank can take here; allowed "
                 "4KiB..%s (the memory available on a node, its cgroup's limit included, "
                 "over the ranks on it)",
                 want, most);
        return 2;
    }
    if (rc < 0) {
        snprintf(msg, MSG_LEN, "--sync %s: setting up the method failed: %s",
                 mbx_sync_name(st->opt.method.sync), mbx_strerror(rc));
        return 1;
    }
    if (st->opt.resume && st->res.have_seed)
        st->seed = st->res.seed;
    else if (st->opt.have_seed)
        st->seed = st->opt.seed;
    else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x =
            (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
        st->seed = next_rand(&x) % 1000000000000ull; /* short enough to type */
    }
    mbx_monitor_init(&st->mon, st->opt.monitor && nranks > 1 ? nranks - 1 : 0, st->opt.shift_rel);
    return 0;
}

/* Threads calling MPI at once need MPI_THREAD_MULTIPLE: a plan with such
 * points is refused before any point when MPI did not grant it. */
static int check_thread_level(const run_state *st, char *msg)
{
    if (st->be->thread_granted >= MPI_THREAD_MULTIPLE)
        return 0;
    const mbx_bench *which = NULL;
    int64_t fewest = 0;
    for (size_t i = 0; i < st->nser; i++)
        for (size_t g = 0; g < st->ser[i].ngrid; g++) {
            mbx_point_spec spec;
            pointref p = {&st->ser[i], st->ser[i].grid[g], 0};
            mbx_run_spec_of(st, &p, &spec);
            const mbx_bench *b = mbx_bench_get(spec.bench_id);
            int64_t t = mbx_thrinfo_mpi_threads(b, spec.param);
            if (t > 1 && (!which || t < fewest)) {
                which = b;
                fewest = t;
            }
        }
    if (!which)
        return 0;
    mbx_thrinfo_multiple_msg(which, fewest, st->be->thread_asked, st->be->thread_granted, msg,
                             MSG_LEN);
    return 2;
}

/* What the run measures with: the fake of --fake N (its thread level the
 * one asked for: it grants anything), else the engine, described. */
static int backend_of(run_state *st, mbx_engine *e)
{
    if (st->opt.fake || !e) {
        mbx_backend_fake(st->opt.fake ? st->opt.fake : 1, &st->be_store);
        if (!st->be_store.impl)
            return MBX_E_NOMEM;
        st->be_store.thread_asked = st->be_store.thread_granted = st->opt.thread_level;
    } else {
        int rc =
            mbx_backend_engine(e, mbx_job_thread_asked(), mbx_job_thread_granted(), &st->be_store);
        if (rc < 0)
            return rc;
    }
    st->be = &st->be_store;
    return MBX_OK;
}

/* The run's setup from the command line: the plan, the back end, the
 * curves, the thread level they need and -o. Returns 0 (*nranks set), or
 * an exit code with msg. */
static int prepare(mbx_engine *e, run_state *st, int *nranks, char *msg)
{
    int rc;
    if (st->opt.resume && !st->opt.output) {
        snprintf(msg, MSG_LEN, "--resume: needs -o FILE, the results file of the run to continue");
        return 2;
    }
    if (st->opt.retry_hung && !st->opt.resume) {
        snprintf(msg, MSG_LEN,
                 "--retry-hung: only with --resume (it measures a resumed run's "
                 "HUNG points again)");
        return 2;
    }
    if ((rc = mbx_run_build_plan(st, msg)) != 0 || (rc = backend_of(st, e)) < 0 ||
        (rc = mbx_run_build_series(st, *nranks = st->be->nranks, msg)) != 0 ||
        (rc = check_thread_level(st, msg)) != 0 ||
        (st->opt.output && (rc = mbx_run_claim_output(st, msg)) != 0)) {
        if (rc == -1)
            rc = 2;
        else if (rc < 0) {
            snprintf(msg, MSG_LEN, "describing the job failed: %s", mbx_strerror(rc));
            rc = 1;
        }
        return rc;
    }
    return 0;
}

/* --resume: what the interrupted run left (its rows and journal), and
 * whether its passes can be carried over. Returns 0 or an exit code with
 * msg. */
static int load_resume(run_state *st, char *msg)
{
    size_t dropped = 0;
    const char *hung = mbx_point_status_name(MBX_POINT_HUNG);
    int rc = st->opt.retry_hung ? mbx_results_drop_status(st->opt.output, hung, &dropped) : MBX_OK;
    if (rc == MBX_E_INVAL) {
        snprintf(msg, MSG_LEN,
                 "--retry-hung: '%s' has no status column or a row of another width than its "
                 "header (a torn last row?); --resume without --retry-hung cuts a torn row, "
                 "but keeps the HUNG points",
                 st->opt.output);
        return 2;
    }
    if (rc < 0) {
        snprintf(msg, MSG_LEN, "--retry-hung: rewriting '%s' without its HUNG rows failed: %s",
                 st->opt.output, rc == MBX_E_NOMEM ? "out of memory" : mbx_file_why(errno));
        return 1;
    }
    if (dropped)
        printf("# --retry-hung: %zu HUNG row%s taken out of %s, to be measured again\n", dropped,
               dropped == 1 ? "" : "s", st->opt.output);
    char *jp = mbx_csv_sidecar(st->opt.output, ".journal");
    rc = jp ? mbx_resume_load(st->opt.output, jp, st->hash, &st->res, msg, MSG_LEN) : MBX_E_NOMEM;
    free(jp);
    if (rc)
        return rc == MBX_E_NOMEM ? 1 : 2;
    if (st->res.torn_bytes)
        fprintf(stderr, "mpibex: --resume: cut a torn last row (%zu bytes) off %s\n",
                st->res.torn_bytes, st->opt.output);
    st->jt_offset = st->res.pass_end > 0 ? st->res.pass_end + 1e-3 : 0.0;
    st->seq = st->res.seq_max; /* new rows count on */
    st->carry = st->res.ncols == 0;
    for (size_t c = 0; c < st->res.ncols; c++)
        st->carry |= strcmp(mbx_result_columns[c], "passes") == 0;
    return 0;
}

/* The timer asked for, checked here and set on every rank. Returns 0 or
 * exit code 2 with msg. */
static int set_timer(run_state *st, char *msg)
{
    char why[160];
    int rc;
    if (mbx_timer_available(st->opt.timer, why, sizeof why) < 0) {
        snprintf(msg, MSG_LEN, "--timer: %s cannot be used here: %s", mbx_timer_name(st->opt.timer),
                 why);
        return 2;
    }
    if ((rc = st->be->configure(st->be, st->opt.timer, &st->timer)) < 0) {
        snprintf(msg, MSG_LEN, "--timer: %s cannot be used here: %s", mbx_timer_name(st->opt.timer),
                 mbx_strerror(rc));
        return 2;
    }
    return 0;
}

/* Everything before the first point once the run is set up: the text's
 * head, the output files, the journal's seed, the warm-up's size. Returns
 * 0 or an exit code (the message printed). */
static int start_run(run_state *st, int nranks)
{
    char msg[MSG_LEN] = "";
    int rc;
    /* A terminal gets lines that fit it; a file or a pipe the full table. */
    mbx_run_fit_table(st, mbx_outfit_columns());
    if (mbx_outfit_start(st->cols) < 0)
        mbx_run_fit_table(st, 0);
    mbx_run_print_title(st, nranks);
    mbx_run_print_method(st, nranks);
    mbx_run_choose_pair(st, nranks);
    if ((rc = mbx_run_open_outputs(st, msg)) != 0) {
        mbx_run_fail(msg);
        return rc;
    }
    if ((!st->opt.resume || !st->res.have_seed) &&
        (rc = mbx_journal_seed(st->journal, st->seed)) < 0)
        return mbx_run_write_failure(st, st->journal_path, rc);
    mbx_run_rma_check(st);
    fputs(st->notes, stdout);
    mbx_run_print_scope(st);
    mbx_run_print_header(st);
    st->tty = isatty(STDERR_FILENO);
    if (st->be->set_warmup &&
        (rc = st->be->set_warmup(st->be, st->opt.warmup, mbx_run_plan_largest(st))) < 0) {
        mbx_run_fail(mbx_strerror(rc));
        return 1;
    }
    return 0;
}

static int root_run(mbx_engine *e, int argc, char **argv, run_state *st)
{
    char msg[MSG_LEN] = "";
    int nranks = 0, rc;
    if ((rc = mbx_cli_parse_run(argc, argv, &st->opt, msg, sizeof msg)) != 0) {
        mbx_run_fail(msg);
        return rc;
    }
    if (st->opt.help) {
        mbx_cli_run_usage();
        return 0;
    }
    if ((rc = prepare(e, st, &nranks, msg)) != 0) {
        mbx_run_fail(msg);
        return rc;
    }
    st->hash = mbx_run_plan_hash(st, nranks);
    if ((st->opt.resume && (rc = load_resume(st, msg)) != 0) || (rc = set_timer(st, msg)) != 0 ||
        (rc = set_method(st, nranks, msg)) != 0) {
        mbx_run_fail(msg);
        return rc;
    }
    if ((rc = mbx_profile_use_open(&st->prof, st->opt.profile, st->be->fake,
                                   (long long)time(NULL))) != 0) {
        mbx_run_fail(st->prof.note);
        return rc;
    }
    if ((rc = mbx_history_use_open(&st->hist, st->opt.history, st->be->fake, nranks,
                                   (long long)time(NULL))) != 0) {
        mbx_run_fail(st->hist.note);
        return rc;
    }
    if ((rc = start_run(st, nranks)) != 0)
        return rc;
    rc = mbx_run_measure_all(st);
    mbx_run_binding_env(st, nranks);
    return rc;
}

int mbx_batch_root(mbx_engine *e, int argc, char **argv)
{
    run_state st;
    memset(&st, 0, sizeof st);
    int code = root_run(e, argc, argv, &st);
    /* A failed write leaves its mark on the real stdout, which
     * mbx_sig_check_stdout reads when the job ends. */
    (void)mbx_outfit_stop();
    int csv_bad = mbx_csv_writer_close(st.csv) < 0, obs_bad = mbx_csv_writer_close(st.obs) < 0;
    mbx_obs_spool_free(st.spool);
    mbx_profile_use_free(&st.prof);
    if ((csv_bad || obs_bad) && !st.write_failed) {
        fprintf(stderr, "mpibex: closing '%s' failed: %s\n", csv_bad ? st.opt.output : st.obs_path,
                strerror(errno));
        code = 1;
    }
    /* A complete run's rows, sorted: rewritten in one rename,
     * so the file is whole at every moment; an interrupted run keeps the
     * order appended, which --resume continues. */
    if (code == 0 && st.opt.output && !st.write_failed && mbx_results_sort_file(st.opt.output) < 0)
        fprintf(stderr,
                "mpibex: warning: sorting '%s' failed (%s); its rows are complete, in the order "
                "measured (see the seq column)\n",
                st.opt.output, mbx_file_why(errno));
    mbx_journal_close(st.journal);
    /* A complete run needs no journal; an mbx_run_interrupted one keeps it. */
    if (code == 0 && st.journal_path)
        (void)unlink(st.journal_path);
    /* A complete run, sorted, or one that went on past a HUNG point: the
     * points whose data was wrong are named either way. */
    if (code == 0 || code == MBX_WATCHDOG_EXIT) {
        int bad = mbx_run_check_report(&st);
        code = code ? code : bad;
    }
    /* A stop after the last point (the summaries, the sort): the results
     * are whole, but the user asked to stop, and a script must see it. */
    char done[320];
    const char *out = st.opt.output;
    snprintf(done, sizeof done, "every point finished%s%s",
             !out                    ? ""
             : strcmp(out, "-") == 0 ? "; results on standard output"
                                     : "; results in ",
             out && strcmp(out, "-") != 0 ? out : "");
    code = mbx_sig_late(code, 1, done);
    mbx_output_release(&st.out);
    for (size_t i = 0; i < st.nser; i++)
        free(st.ser[i].grid);
    free(st.ser);
    free(st.acc);
    free(st.rows);
    free(st.badcheck);
    free(st.plan);
    free(st.env_path);
    free(st.obs_path);
    free(st.journal_path);
    mbx_monitor_free(&st.mon);
    mbx_resume_free(&st.res);
    if (st.be && st.be->fake)
        mbx_backend_fake_free(st.be);
    return code;
}

/* Does the command line ask for the fake (--fake, whatever its value: the
 * parser judges it)? Then no MPI is started at all. */
static int wants_fake(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--fake") == 0 || strncmp(argv[i], "--fake=", 7) == 0)
            return 1;
    return 0;
}

int mbx_batch_run(int argc, char **argv)
{
    if (!wants_fake(argc, argv))
        return mbx_job_run_at(argc, argv, mbx_cli_thread_level(argc, argv), mbx_batch_root);
    /* One process, no MPI: signals as in a job (a stop ends the run at the
     * next pass, with the journal kept for --resume). */
    mbx_sig_catch(1);
    return mbx_batch_root(NULL, argc, argv);
}
