/* mpibex: dispatch to a front end. */
#ifndef MBX_HAVE_EXPLORER
#define MBX_HAVE_EXPLORER 0 /* -DMBX_CURSES=OFF: the batch subcommands only */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "beff_cmd.h"
#include "beffio_cmd.h"
#include "benchsel.h"
#include "check_cmd.h"
#include "cli.h"
#include "compare_cmd.h"
#include "pairs_cmd.h"
#if MBX_HAVE_EXPLORER
#include "explore.h"
#endif
#include "calibrate.h"
#include "guidelines.h"
#include "idle.h"
#include "launcher.h"
#include "mbx/bench.h"
#include "mbx/version.h"
#include "merge.h"
#include "repeat.h"
#include "report.h"
#include "run.h"
#include "sig.h"
#include "tprint.h"

/* The absolute path of this binary into self; 0, or 1 after a message. */
static int self_exe(char *self, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", self, len - 1);
    if (n <= 0) {
        fprintf(stderr, "mpibex: cannot find my own executable (/proc/self/exe)\n");
        return 1;
    }
    self[n] = '\0';
    return 0;
}

#if MBX_HAVE_EXPLORER
static int explore_main(int argc, char **argv)
{
    return mbx_explore_main(argc, argv);
}
#else
/* A build configured with -DMBX_CURSES=OFF has no explorer: say so and
 * name what it has, on a rank of a job or in place of the launcher. */
static int explore_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "mpibex: this build has no explorer (configured with -DMBX_CURSES=OFF); "
                    "the batch subcommands work: mpiexec -n N mpibex run PLAN -o OUT.csv "
                    "(see 'mpibex --help')\n");
    return 2;
}
#endif

/* The explorer under MPI: `mpiexec -n N mpibex [explorer options]`. */
static int explore_with(int argc, char **argv)
{
    char **v = calloc((size_t)argc + 1, sizeof *v);
    if (!v)
        return 1;
    v[0] = "explore";
    for (int i = 1; i < argc; i++)
        v[i] = argv[i];
    int rc = explore_main(argc, v);
    free(v);
    return rc;
}

/* report asks the registry whether a benchmark is sized (a curve of one
 * 0 B point is still one over message size). */
static int report_cmd(int argc, char **argv)
{
    return mbx_report_cmd(argc, argv, mbx_benchsel_sized);
}

static int repeat_cmd(int argc, char **argv)
{
    char self[4096];
    return self_exe(self, sizeof self) ? 1 : mbx_repeat_cmd(argc, argv, self);
}

/* The subcommands: each gets the arguments after its name. */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"list", mbx_list_cmd},           {"run", mbx_batch_run},
    {"beffio", mbx_beffio_cmd},       {"beff", mbx_beff_cmd},
    {"idle", mbx_idle_run},           {"merge", mbx_merge_cmd},
    {"compare", mbx_compare_cmd},     {"check", mbx_check_cmd},
    {"repeat", repeat_cmd},           {"report", report_cmd},
    {"calibrate", mbx_calibrate_cmd}, {"guidelines", mbx_guidelines_cmd},
    {"pairs", mbx_pairs_cmd},
};

static int dispatch(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        mbx_cli_usage();
        return 0;
    }
    if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
        printf("mpibex %s (%s, %s)\nMPI: %s, launcher %s\n", MBX_VERSION, MBX_COMPILER,
               MBX_BUILD_TYPE, MBX_MPI_FLAVOUR, MBX_MPIEXEC);
#if !MBX_HAVE_EXPLORER
        printf("explorer: none (built with -DMBX_CURSES=OFF: batch subcommands only)\n");
#endif
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(cmd, commands[i].name))
            return commands[i].run(argc - 2, argv + 2);
    /* The explorer on a rank of a job: its own name stays in argv[0]. */
    if (!strcmp(cmd, "explore"))
        return explore_main(argc - 1, argv + 1);
    if (cmd[0] != '\0' && cmd[0] != '-') {
        mbx_tprintf(stderr, "mpibex: unknown command '%s' (try 'mpibex --help')\n", cmd);
        return 2;
    }
    /* No command: the explorer. Outside MPI this process is the launcher
     * that starts the job; inside, it is one of the job's ranks. */
    if (MBX_HAVE_EXPLORER && mbx_launcher_outside_mpi()) {
        char self[4096];
        return self_exe(self, sizeof self) ? 1 : mbx_launcher_main(argc, argv, self);
    }
    return explore_with(argc, argv);
}

int main(int argc, char **argv)
{
    /* One set-up and one check of standard output for every subcommand:
     * a closed pipe or a full disk is a failure said in one line. */
    mbx_sig_catch(0);
    return mbx_sig_check_stdout(dispatch(argc, argv));
}
