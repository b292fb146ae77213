/* Command-line parsing for `mpibex run` and friends. Front end only. */
#ifndef MBX_CLI_H
#define MBX_CLI_H

#include <stddef.h>

#include <stdint.h>

#include "mbx/engine.h"
#include "mbx/plan.h"
#include "mbx/timer.h"

#define MBX_SETTLE_DEFAULT 0.1
#define MBX_SHIFT_DEFAULT 0.2

typedef struct mbx_run_opts {
    const char *plan_path; /* NULL: --bench or the embedded quick plan */
    mbx_plan_overrides ov;
    const char *output; /* -o: results CSV, NULL for none */
    int raw;            /* --raw: also OUT.obs.csv */
    int validate;       /* --validate: check received data after each point */
    int resume;         /* --resume: continue OUT.csv from its journal */
    int force;          /* --force: write over the results (and journal) at -o */
    double settle;      /* --settle: seconds of untimed traffic before the first point */
    long warmup;        /* --warmup: untimed calls before each point; 0: the engine's default */
    mbx_timer_kind timer;
    mbx_method method; /* --sync, --clock-sync, --window, --window-delay, --resync, --cache */
    int order_plan;    /* --order plan: the plan's order instead of a shuffled one */
    int have_seed;     /* --seed given */
    uint64_t seed;     /* --seed: the shuffle's seed */
    int monitor;       /* --monitor on (default) | off */
    double shift_rel;  /* --shift: relative probe change that counts as a level shift */
    int thread_level;  /* --thread-level: MPI_THREAD_SINGLE (default) .. MPI_THREAD_MULTIPLE;
                          mbx_job_run has already asked MPI for it */
    /* Passes (mbx/sched.h; 0: the default): --passes R, --span SEC,
     * --pass-ms MS (stored in seconds), --max-passes N, --time-limit SEC. */
    long passes;
    double span; /* < 0: the default */
    double pass_floor;
    long max_passes;
    double time_limit;
    /* The watchdog (tui/cmd/watchdog.h): --watchdog SEC[:MULT], the bound's
     * floor (0: off) and multiple; --retry-hung (with --resume). */
    double watchdog_floor, watchdog_mult;
    int retry_hung;
    /* The command line parsed (after "run"), parsed again over a plan's
     * keys of the whole run so that its options win. */
    int argc;
    char **argv;
    /* --profile PATH|auto|none: the machine profile that widens the rows
     * (profile_use.h); NULL: auto. */
    const char *profile;
    /* --history auto|none: read this host's earlier runs and add this one
     * (history_use.h); NULL: auto. */
    const char *history;
    int fake;  /* --fake N: N simulated ranks in one process, no MPI (0: MPI) */
    int quiet; /* no progress on stderr */
    int help;
} mbx_run_opts;

#define MBX_FAKE_MAX_RANKS 4096 /* --fake N: N in 1..this */

/* Parse the arguments after "run". Returns 0 on success, 2 on bad input
 * with a one-line message (no "mpibex: " prefix) in msg. */
int mbx_cli_parse_run(int argc, char **argv, mbx_run_opts *o, char *msg, size_t len);

/* A plan's keys of the whole run (mbx_plan_run_key: every option of
 * `run` but -o, --force, --resume, --fake, -q and -h) into o, each checked
 * and applied as its option of the same name ("max_passes" is
 * --max-passes; --validate and --raw take on, off, yes or no): the
 * sections that give one must agree. The one rule of precedence: the
 * built-in default, then the plan's key, then MPIBEX_RUN_OPTIONS, then
 * the command line (o's, parsed again), so an option given wins. Returns
 * 0, or 2 with a one-line message naming the plan (`name`), the section
 * and the key. */
int mbx_cli_plan_run_keys(mbx_run_opts *o, const mbx_plan *plan, const char *name, char *msg,
                          size_t len);

/* The MPI thread level `run` with these arguments asks for, before MPI
 * starts (every rank): --thread-level, or the plan file's thread_level
 * (read here on every rank), by the rule above; single when the
 * arguments or the plan are bad (rank 0 then says why and exits 2). */
int mbx_cli_thread_level(int argc, char **argv);

void mbx_cli_usage(void);     /* mpibex --help, on stdout */
void mbx_cli_run_usage(void); /* mpibex run --help, on stdout */

/* A message size for people: "1 B", "64 KiB", "1.5 MiB". */
void mbx_size_text(uint64_t bytes, char *buf, size_t len);

#endif
