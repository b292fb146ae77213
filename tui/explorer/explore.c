/* Entry of the explorer: options, the terminal (or a headless virtual
 * screen), looks, and a teardown that leaves the terminal sane on every
 * path. */
#include "explore.h"

#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "benchsel.h"
#include "cli.h"
#include "core/opt.h"
#include "ex_cli.h"
#include "ex_keysrc.h"
#include "ex_tty.h"
#include "ex_watch.h"
#include "explorer.h"
#include "job.h"
#include "mbx/ascii.h"
#include "mbx/bench.h"
#include "mbx/csvio.h"
#include "mbx/dir.h"
#include "mbx/threads.h"
#include "mbx/version.h"
#include "run.h"
#include "share.h"
#include "tprint.h"
#include "watchdog.h"

extern const char mbx_embedded_quick_plan[];

#ifndef MBX_THEMES_INSTALL_DIR
#define MBX_THEMES_INSTALL_DIR "/usr/local/share/mpibex/themes"
#endif
#ifndef MBX_THEMES_SOURCE_DIR
#define MBX_THEMES_SOURCE_DIR "themes"
#endif

/* Where themes are looked for after --theme-dir and the user's directory:
 * beside the executable (PREFIX/share/mpibex/themes of wherever it was
 * installed), the configured prefix's, the source tree's (theme_dirs_init). */
static char share_themes[4200];
static const char *theme_dirs[4];

static void theme_dirs_init(void)
{
    int n = 0;
    if (mbx_share_path("themes", share_themes, sizeof share_themes) == 0)
        theme_dirs[n++] = share_themes;
    theme_dirs[n++] = MBX_THEMES_INSTALL_DIR;
    theme_dirs[n++] = MBX_THEMES_SOURCE_DIR;
    theme_dirs[n] = NULL;
}

typedef struct opts {
    const char *plan, *theme, *theme_dir, *glyphs, *autosave, *keys, *dump_dir, *term_type;
    const char *thread_level; /* checked here; mbx_job_run asks MPI for it */
    int start, no_color, no_mouse, fake, help, hl_cols, hl_rows;
    double settle;            /* seconds of untimed traffic before each run's first point */
    double wd_floor, wd_mult; /* --watchdog SEC[:MULT]; floor 0: off */
    mbx_ex_cli sel;           /* `run`'s selection: --bench, --sizes, ... (ex_cli.h) */
} opts;

/* The explorer cannot start: the reason on stderr (under the launcher, the
 * log) and in the status file, whose reason the launcher prints on the
 * terminal. Returns code. */
static int cannot_start(int code, const char *msg)
{
    mbx_tprintf(stderr, "mpibex: %s\n", msg);
    mbx_term_write_status_why(code, msg);
    return code;
}

static int on_settle(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    char *end = NULL;
    (void)o, (void)name;
    double sv = mbx_strtod(v, &end);
    if (end == v || *end != '\0' || !(sv >= 0.0 && sv <= 60.0))
        return mbx_opt_bad(&p->out, "--settle: expected seconds in 0..60 (got '%s')", v);
    ((opts *)p->dst)->settle = sv;
    return 0;
}

static int on_fake(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    char *end;
    (void)o, (void)name;
    long n = strtol(v, &end, 10);
    if (end == v || *end || n < 1 || n > 4096)
        return mbx_opt_bad(&p->out, "--fake: expected a rank count in 1..4096 (got '%s')", v);
    ((opts *)p->dst)->fake = (int)n;
    return 0;
}

static int on_headless(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    opts *x = p->dst;
    (void)o, (void)name;
    if (sscanf(v, "%dx%d", &x->hl_cols, &x->hl_rows) != 2 || x->hl_cols < 1 || x->hl_rows < 1 ||
        x->hl_cols > 1000 || x->hl_rows > 500)
        return mbx_opt_bad(&p->out, "--headless: expected COLSxROWS like 100x30 (got '%s')", v);
    return 0;
}

/* --thread-level L (not empty) or --thread-level=L (checked after the walk). */
static int on_watchdog(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    opts *op = p->dst;
    (void)o, (void)name;
    if (mbx_watchdog_parse(v, &op->wd_floor, &op->wd_mult) != 0)
        return mbx_opt_bad(&p->out, MBX_WATCHDOG_BAD, v);
    return 0;
}

static int on_thread_level(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    (void)o;
    if (!p->attached && v[0] == '\0')
        return mbx_opt_bad(&p->out, p->missing, name);
    ((opts *)p->dst)->thread_level = v;
    return 0;
}

#define TEXT(name, field)                                                                          \
    {                                                                                              \
        name, NULL, "VALUE", MBX_OPT_NONEMPTY, NULL, offsetof(opts, field)                         \
    }
#define KEY(name, arg)                                                                             \
    {                                                                                              \
        name, NULL, arg, MBX_OPT_EQ | MBX_OPT_NONEMPTY, mbx_ex_cli_key, offsetof(opts, sel)        \
    }

/* The explorer's options, in the order they were always tried. */
static const mbx_opt explore_opts[] = {
    {"--start", NULL, NULL, 0, NULL, offsetof(opts, start)},
    {"--settle", NULL, "SECONDS", 0, on_settle, 0},
    {"--no-color", NULL, NULL, 0, NULL, offsetof(opts, no_color)},
    {"--no-mouse", NULL, NULL, 0, NULL, offsetof(opts, no_mouse)},
    {"--help", "-h", NULL, 0, mbx_opt_help, 0},
    TEXT("--plan", plan),
    TEXT("--theme", theme),
    TEXT("--theme-dir", theme_dir),
    TEXT("--glyphs", glyphs),
    TEXT("--autosave", autosave),
    TEXT("--keys", keys),
    TEXT("--dump-dir", dump_dir),
    TEXT("--term", term_type),
    {"--thread-level", NULL, "L", MBX_OPT_EQ, on_thread_level, 0},
    {"--fake", NULL, "N", 0, on_fake, 0},
    {"--headless", NULL, "COLSxROWS", 0, on_headless, 0},
    {"--watchdog", NULL, "SEC[:MULT]|off", 0, on_watchdog, 0},
    /* run's selection (mbx_plan_overrides) and the form's run keys */
    TEXT("--bench", sel.ov.bench),
    TEXT("--sizes", sel.ov.sizes),
    TEXT("--stop", sel.ov.stop),
    TEXT("--nmin", sel.ov.nmin),
    TEXT("--nmax", sel.ov.nmax),
    TEXT("--procs", sel.ov.procs),
    TEXT("--param", sel.ov.param),
    TEXT("--root", sel.ov.root),
    TEXT("--pair", sel.ov.pair),
    TEXT("--refine", sel.ov.refine),
    TEXT("--budget", sel.ov.budget),
    TEXT("--rma-sync", sel.ov.rma_sync),
    TEXT("--point-time", sel.ov.point_time),
    {"--validate", NULL, NULL, 0, mbx_ex_cli_key, offsetof(opts, sel)},
    KEY("--timer", "clock|wtime"),
    KEY("--sync", "barrier|window"),
    KEY("--clock-sync", "jk|hca"),
    KEY("--cache", "warm|cold"),
    KEY("--warmup", "N"),
};

/* The options after argv[0]; 0, or 2 after cannot_start's line. */
static int parse(int argc, char **argv, opts *o)
{
    char msg[600];
    memset(o, 0, sizeof o[0]);
    o->settle = MBX_SETTLE_DEFAULT;
    o->wd_floor = MBX_WATCHDOG_FLOOR_S;
    o->wd_mult = MBX_WATCHDOG_MULT;
    mbx_opt_parser p = {.opts = explore_opts,
                        .nopts = MBX_OPT_COUNT(explore_opts),
                        .dst = o,
                        .out = {.msg = msg, .len = sizeof msg},
                        .unknown = "explore: unknown option '%s' (see 'mpibex explore --help')",
                        .missing = "%s: missing value",
                        .operand = mbx_ex_cli_other,
                        .pass_unknown = 1};
    int rc = mbx_opt_parse(&p, argc, argv, 1);
    o->help = p.help;
    if (rc == 0 && !o->help && o->glyphs && strcmp(o->glyphs, "braille") &&
        strcmp(o->glyphs, "block") && strcmp(o->glyphs, "ascii"))
        rc =
            mbx_opt_bad(&p.out, "--glyphs: expected braille, block or ascii (got '%s')", o->glyphs);
    if (rc == 0 && !o->help && o->thread_level && mbx_job_thread_level_parse(o->thread_level) < 0)
        rc = mbx_opt_bad(&p.out, "--thread-level: expected " MBX_THREAD_LEVEL_WORDS " (got '%s')",
                         o->thread_level);
    if (rc == 0 && !o->help && o->hl_cols && !o->keys)
        rc = mbx_opt_bad(&p.out, "--headless: needs --keys FILE");
    return rc ? cannot_start(rc, msg) : 0;
}

static int setup_explorer(explorer *x, const opts *o, char *msg, size_t msglen)
{
    x->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    x->glyphs = x->utf8 ? MBX_GLYPHS_BRAILLE : MBX_GLYPHS_ASCII;
    if (o->glyphs)
        x->glyphs = !strcmp(o->glyphs, "braille") ? MBX_GLYPHS_BRAILLE
                    : !strcmp(o->glyphs, "block") ? MBX_GLYPHS_BLOCK
                                                  : MBX_GLYPHS_ASCII;
    x->no_color = o->no_color || (getenv("NO_COLOR") && getenv("NO_COLOR")[0]);
    x->mouse_on = !o->no_mouse;
    x->theme_dir = o->theme_dir;
    theme_dirs_init();
    x->theme_dirs = theme_dirs;
    x->ninputs = 0;
    if (o->plan)
        x->inputs[x->ninputs++] = o->plan;
    if (o->keys)
        x->inputs[x->ninputs++] = o->keys;
    if (o->theme && strchr(o->theme, '/'))
        x->inputs[x->ninputs++] = o->theme;
    snprintf(x->theme_name, sizeof x->theme_name, "%s", o->theme ? o->theme : "default");
    if (mbx_theme_load(x->theme_name, x->theme_dir, theme_dirs, &x->theme, NULL, 0, msg, msglen) <
        0)
        return 2;
    x->configured_timer = -1;
    x->start_now = o->start;
    x->settle = o->settle;
    if (x->be->thread_granted < x->be->thread_asked)
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "the MPI library granted only %s (asked %s)",
                       mbx_thread_level_name(x->be->thread_granted),
                       mbx_thread_level_name(x->be->thread_asked));
    mbx_monitor_init(&x->mon, 0, 0.0); /* its peer is set when a run starts */

    mbx_plan *plan = calloc(1, sizeof *plan);
    if (!plan)
        return 1;
    /* As `run` takes it: the plan, else with --bench one section of the
     * defaults, else the quick plan; the command line's selection over it. */
    int rc = MBX_OK;
    if (o->plan)
        rc = mbx_plan_load(o->plan, plan, msg, msglen);
    else if (o->sel.ov.bench) {
        plan->nmeas = 1;
        mbx_measurement_defaults(&plan->meas[0], "cli");
    } else
        rc = mbx_plan_parse(mbx_embedded_quick_plan, "quick.ini (built in)", plan, msg, msglen);
    if (rc >= 0)
        rc = mbx_ex_cli_apply(&o->sel, plan, msg, msglen);
    if (rc < 0 || mbx_benchsel_plan(plan, msg, msglen) != 0) {
        free(plan);
        return 2;
    }
    for (size_t m = 0; m < plan->nmeas; m++)
        for (size_t b = 0; b < plan->meas[m].nbench; b++) {
            int id = -1;
            if (mbx_bench_find(plan->meas[m].bench[b], &id) < 0 || id >= EX_MAX_BENCH) {
                snprintf(msg, msglen, "bench: unknown benchmark '%s' in [%s]",
                         plan->meas[m].bench[b], plan->meas[m].label);
                free(plan);
                return 2;
            }
            /* Named in two sections: two curves (a control for compare). */
            if (x->sel[id] < 2)
                x->sel[id]++;
        }
    mbx_ex_params_init(x, &plan->meas[0]);
    free(plan);
    mbx_ex_beff_init(x);
    mbx_ex_pairs_init(x);

    if (o->autosave && !strcmp(o->autosave, "none")) {
        x->autosave_dir[0] = '\0';
    } else if (o->autosave) {
        snprintf(x->autosave_dir, sizeof x->autosave_dir, "%s", o->autosave);
    } else if (!x->headless) {
        /* Never a shared place (HOME unset used to mean /tmp/.local/...):
         * without a home, a private directory in $TMPDIR (ex_app.c). */
        x->autosave_private = 1;
        if (mbx_dir_state_path(getenv("XDG_STATE_HOME"), getenv("HOME"), x->autosave_dir,
                               sizeof x->autosave_dir) != MBX_OK) {
            x->autosave_dir[0] = '\0';
            x->autosave_tmp = 1;
        }
    }
    return 0;
}

static void curses_setup(explorer *x)
{
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    mbx_ex_colors_init(x);
    getmaxyx(stdscr, x->rows, x->cols);
}

static void teardown(explorer *x)
{
    if (x->scr) {
        endwin();
        delscreen(x->scr);
        x->scr = NULL;
    }
    mbx_ex_watch_stop(x); /* before the autosave: its end hook closes it */
    mbx_csv_writer_close(x->autosave);
    x->autosave = NULL;
    mbx_ex_keysrc_free(x->keys);
    x->keys = NULL;
    mbx_ex_points_free(x);
    mbx_ex_gl_free(x);
    mbx_ex_pairs_free(x);
    mbx_ex_compare_forget(x);
    free(x->cmp.sig);
    x->cmp.sig = NULL;
    x->cmp.capsig = 0;
    mbx_monitor_free(&x->mon);
    mbx_ex_sched_free(x);
    mbx_profile_use_free(&x->prof);
    free(x->lat);
    x->lat = NULL;
}

/* A crash must not leave the user's terminal in raw mode on the alternate
 * screen: reset it with a plain write, then die as we would have. */
static mbx_term *crash_term;

static void on_crash(int sig)
{
    if (crash_term)
        mbx_term_emergency_reset(crash_term);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_crashes(mbx_term *t)
{
    crash_term = t;
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    signal(SIGFPE, on_crash);
    signal(SIGABRT, on_crash);
}

/* The closing line: what ended the explorer when it was not 'q', how many
 * points were measured and where they are; on the terminal and in the log
 * (stderr), which is what is left to read when the terminal went away.
 * On the terminal it starts with a carriage return and el (clear to the
 * end of the line, "" if none), all in one write. */
static void summary(explorer *x, FILE *out, int lost, const char *el)
{
    char why[96] = "", saved[sizeof x->autosave_err + 64] = "";
    if (mbx_stop_signal)
        snprintf(why, sizeof why, "stopped by signal %d: ", (int)mbx_stop_signal);
    else if (lost)
        snprintf(why, sizeof why, "the terminal went away: ");
    if (x->autosave_err[0])
        snprintf(saved, sizeof saved, "; %s; %zu points not saved", x->autosave_err,
                 x->autosave_lost);
    else if (x->autosave_path[0] && x->ndone)
        snprintf(saved, sizeof saved, "; autosaved in %s", x->autosave_path);
    else if (x->ndone && why[0])
        snprintf(saved, sizeof saved, "; not autosaved (--autosave none)");
    if (!why[0] && !saved[0])
        return;
    if (out && !lost) {
        fprintf(out, "\r%smpibex: %s%zu points measured%s\r\n", el, why, x->ndone, saved);
        fflush(out);
    }
    fprintf(stderr, "mpibex: explorer: %s%zu points measured%s\n", why, x->ndone, saved);
}

/* The explorer on a virtual screen, driven by a key script: on the fake
 * (golden screens) or, under mpiexec, on the ranks of the job (scripts and
 * benchmarks of the explorer itself: bench/explorer_fairness.sh). */
static int headless_run(mbx_backend *be, const opts *o)
{
    explorer x;
    memset(&x, 0, sizeof x);
    x.be = be;
    x.headless = 1;
    char msg[300];
    int rc = setup_explorer(&x, o, msg, sizeof msg);
    if (rc) {
        mbx_tprintf(stderr, "mpibex: %s\n", msg);
        return rc;
    }
    x.keys = mbx_ex_keysrc_script(o->keys, o->dump_dir, o->hl_rows, o->hl_cols, msg, sizeof msg);
    if (!x.keys) {
        mbx_tprintf(stderr, "mpibex: %s\n", msg);
        return 2;
    }
    char num[16];
    snprintf(num, sizeof num, "%d", o->hl_rows);
    setenv("LINES", num, 1);
    snprintf(num, sizeof num, "%d", o->hl_cols);
    setenv("COLUMNS", num, 1);
    use_env(TRUE);
    x.devnull_out = fopen("/dev/null", "w");
    x.devnull_in = fopen("/dev/null", "r");
    x.scr = newterm(o->term_type ? o->term_type : "xterm-256color", x.devnull_out, x.devnull_in);
    if (!x.scr) {
        mbx_tprintf(stderr, "mpibex: --term: unknown terminal type '%s'\n", o->term_type);
        mbx_ex_keysrc_free(x.keys);
        return 2;
    }
    curses_setup(&x);
    mbx_ex_watch_start(&x, o->wd_floor, o->wd_mult);
    mbx_ex_main_loop(&x);
    int failed = 0, dumps = mbx_ex_keysrc_dumps(x.keys, &failed);
    teardown(&x);
    summary(&x, NULL, 0, "");
    fclose(x.devnull_out);
    fclose(x.devnull_in);
    printf("headless: %d screen dumps, %zu points measured, %zu frames\n", dumps, x.ndone,
           x.frames);
    return failed ? 1 : 0;
}

/* The explorer on a real terminal, with any back end. */
static int interactive(mbx_backend *be, const opts *o)
{
    explorer x;
    memset(&x, 0, sizeof x);
    x.be = be;
    char msg[300];
    int rc = setup_explorer(&x, o, msg, sizeof msg);
    if (rc)
        return cannot_start(rc, msg);
    rc = mbx_term_open(&x.term, msg, sizeof msg);
    if (rc == MBX_E_UNSUPPORTED)
        return 3; /* no terminal at all: the caller decides what to do */
    if (rc < 0)
        return cannot_start(1, msg);
    const char *tt = getenv("TERM");
    tt = tt && tt[0] ? tt : "xterm-256color";
    if (!mbx_ex_term_usable(tt, msg, sizeof msg)) {
        mbx_term_close(x.term);
        return cannot_start(2, msg);
    }
    catch_crashes(x.term);
    x.scr = newterm(tt, mbx_term_out(x.term), mbx_term_in(x.term));
    if (!x.scr) {
        snprintf(msg, sizeof msg, "TERM: unknown terminal type '%.100s'", tt);
        mbx_term_close(x.term);
        return cannot_start(2, msg);
    }
    x.keys = mbx_ex_keysrc_terminal();
    curses_setup(&x);
    mbx_ex_mouse_enable(x.mouse_on);
    mbx_ex_no_suspend(mbx_term_in(x.term));
    mbx_ex_watch_start(&x, o->wd_floor, o->wd_mult);
    mbx_ex_main_loop(&x);
    mbx_sig_watch(0); /* the loop saw the signal: nothing hangs; the rest is teardown */
    int code = mbx_stop_signal ? 128 + (int)mbx_stop_signal : 0;
    if (x.frames)
        fprintf(stderr, "mpibex: explorer: %zu frames, draw %.2f ms mean, %.2f ms max\n", x.frames,
                1e3 * x.draw_total / (double)x.frames, 1e3 * x.draw_max);
    FILE *out = mbx_term_out(x.term);
    int lost = mbx_term_lost(x.term);
    /* A terminal that went away is a hang-up, whether the loop saw it go
     * before SIGHUP arrived or the signal never came (a relayed terminal). */
    if (!code && lost)
        code = 128 + SIGHUP;
    /* Leaving the alternate screen (endwin) and the closing line are two
     * writes. When the launcher was killed, the shell has the terminal back
     * and may print its prompt in between, on the normal screen: the line
     * would follow the prompt. So it clears the cursor's line first (the
     * prompt is then as hidden as one printed on the alternate screen);
     * el is read while the screen still exists. */
    char el[16] = "", home[16] = "";
    mbx_ex_copy_cap("el", el, sizeof el);
    if (!lost)
        mbx_ex_leave_blank(home, sizeof home);
    teardown(&x);
    if (home[0] && out) {
        fputs(home, out);
        fflush(out);
    }
    summary(&x, out, lost, el);
    mbx_term_write_status(code);
    crash_term = NULL;
    mbx_term_close(x.term);
    return code;
}

static opts g_opts;

static int explore_root(mbx_engine *e, int argc, char **argv)
{
    int rc = parse(argc, argv, &g_opts);
    if (rc)
        return rc;
    if (g_opts.help) {
        mbx_explore_usage();
        return 0;
    }
    mbx_backend be;
    if ((rc = mbx_backend_engine(e, mbx_job_thread_asked(), mbx_job_thread_granted(), &be)) < 0) {
        fprintf(stderr, "mpibex: describing the job failed: %s\n", mbx_strerror(rc));
        return 1;
    }
    if (g_opts.hl_cols)
        return headless_run(&be, &g_opts);
    rc = interactive(&be, &g_opts);
    if (rc == 3) {
        /* Under MPI with no terminal at all: do what a batch job wants. */
        fprintf(stderr, "mpibex: rank 0 has no terminal, so the explorer cannot start; running "
                        "the built-in quick plan in batch mode instead (start the explorer "
                        "with 'mpibex -n N' from a terminal; batch runs: 'mpibex run --help')\n");
        char *none[] = {NULL};
        return mbx_batch_root(e, 0, none);
    }
    return rc;
}

int mbx_explore_main(int argc, char **argv)
{
    /* Only the terminal's character set comes from the environment (wide
     * characters, braille glyphs). LC_NUMERIC and the rest stay "C", so the
     * CSVs, plans and forms read and write '.' under every locale; parsers
     * fold case in ASCII (mbx/ascii.h), never by LC_CTYPE's rules. */
    setlocale(LC_CTYPE, "");
    /* The picker holds a row for every benchmark: a registry past its
     * room is a build to fix, never benchmarks silently left out. */
    if (mbx_bench_count() > EX_MAX_BENCH) {
        fprintf(stderr, "mpibex: %zu benchmarks, more than the explorer's %d (EX_MAX_BENCH)\n",
                mbx_bench_count(), EX_MAX_BENCH);
        return 1;
    }
    opts o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc;
    if (o.help) {
        mbx_explore_usage();
        return 0;
    }
    if (o.hl_cols && o.fake) {
        mbx_backend be;
        mbx_backend_fake(o.fake, &be);
        rc = headless_run(&be, &o);
        mbx_backend_fake_free(&be);
        return rc;
    }
    if (o.fake) {
        mbx_backend be;
        mbx_backend_fake(o.fake, &be);
        rc = interactive(&be, &o);
        mbx_backend_fake_free(&be);
        if (rc == 3)
            fprintf(stderr, "mpibex: explore --fake needs a terminal (or --headless)\n");
        return rc == 3 ? 2 : rc;
    }
    return mbx_job_run(argc, argv, explore_root);
}
