/* mpibex repeat: its usage and options (repeat_int.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mbx/version.h"
#include "repeat.h"
#include "repeat_int.h"
#include "tprint.h"

void mbx_repeat_usage(void)
{
    printf("Usage: mpibex repeat -k K [-n N] [--mpiexec PATH | --launcher CMD] [--force] [-q]\n"
           "                     -- [PLAN.ini] [run options] -o DIR\n"
           "\n"
           "Run the same measurement K times as K separate MPI launches, one after\n"
           "another: each is 'mpiexec -n N mpibex run [run options] -o DIR/launch-NN.csv\n"
           "--raw' (NN = 01..K). Then merge them into DIR/merged.csv (as 'mpibex merge':\n"
           "per point the median of the launches' medians, their range and spread).\n"
           "Compare two such directories with 'mpibex compare DIR1 DIR2'.\n"
           "\n"
           "Options (before '--'; the run's own options, 'mpibex run --help', after it):\n"
           "  -k K                launches, 1..%d (required)\n"
           "  -n N                ranks per launch, 1..%d (default 2)\n"
           "  --mpiexec PATH      the MPI launcher program (default $MBX_LAUNCHER, else\n"
           "                      %s, the one mpibex was built for);\n"
           "                      \"-n N\" is appended\n"
           "  --launcher CMD      a launcher command of several words; \"%%n\" in CMD\n"
           "                      becomes N, otherwise \"-n N\" is appended\n"
           "  -o, --output DIR    where the launches go; created if missing (may also\n"
           "                      be given after '--')\n"
           "  --force             replace the launches a previous repeat left in DIR\n"
           "  -q, --quiet         no line per launch, only the summary\n"
           "  -h, --help          this text\n"
           "\n"
           "DIR gets launch-NN.csv with its .env.csv and .obs.csv, launch-NN.log (what\n"
           "the launch printed), merged.csv and repeat.csv (K, N, the command lines,\n"
           "start and end times, exit codes). A failed launch stops the repeat: the\n"
           "finished launches are kept and merged, the failed one's files removed\n"
           "(its log stays). Ctrl-C stops the current launch the same way.\n"
           "Exit status: 0 success, 2 bad input, else the failed launch's exit code\n"
           "(128 + signal when stopped by Ctrl-C or SIGTERM).\n",
           MBX_REPEAT_MAX_K, MBX_REPEAT_MAX_RANKS, MBX_MPIEXEC);
}

int mbx_repeat_bad(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char line[2048];
    vsnprintf(line, sizeof line, fmt, ap);
    mbx_tprintf(stderr, "mpibex repeat: %s\n", line);
    va_end(ap);
    return 2;
}

static int is_opt(const char *a, const char *name)
{
    size_t n = strlen(name);
    return strncmp(a, name, n) == 0 && (a[n] == '\0' || a[n] == '=');
}

/* "-k 3", "-k3", "--opt V", "--opt=V"; NULL when missing. */
static const char *value_of(int argc, char **argv, int *i, const char *name)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (a[n] == '=' && a[1] == '-')
        return a + n + 1;
    if (a[n] != '\0')
        return a + n;
    return *i + 1 < argc ? argv[++*i] : NULL;
}

static int whole(const char *name, const char *v, long lo, long hi, const char *what, long *out)
{
    char *end = NULL;
    errno = 0;
    long x = v ? strtol(v, &end, 10) : 0;
    if (v == NULL || *v == '\0' || *end != '\0' || errno || x < lo || x > hi)
        return mbx_repeat_bad("%s: expected %s %ld..%ld, got %s", name, what, lo, hi,
                              v && *v ? v : "nothing");
    *out = x;
    return 0;
}

static int take_dir(mbx_repeat_opts *o, const char *v, const char *name)
{
    if (v == NULL || *v == '\0')
        return mbx_repeat_bad("%s: missing directory", name);
    if (o->dir && strcmp(o->dir, v) != 0)
        return mbx_repeat_bad("-o: only one directory is allowed (got '%s' and '%s')", o->dir, v);
    o->dir = v;
    return 0;
}

/* The run's arguments: -o goes to o->dir, --raw is always added. */
static int parse_run(int argc, char **argv, int i, mbx_repeat_opts *o)
{
    for (; i < argc; i++) {
        const char *a = argv[i];
        int rc = 0;
        if (strcmp(a, "-o") == 0 || is_opt(a, "--output"))
            rc = take_dir(o, value_of(argc, argv, &i, a[1] == 'o' ? "-o" : "--output"),
                          a[1] == 'o' ? "-o" : "--output");
        else if (strcmp(a, "--resume") == 0)
            rc = mbx_repeat_bad(
                "--resume: not with repeat, each launch is a new run; allowed run options "
                "are those of 'mpibex run --help' but -o, --raw, --resume and --fake");
        else if (strcmp(a, "--fake") == 0 || strncmp(a, "--fake=", 7) == 0)
            rc = mbx_repeat_bad("--fake: not with repeat, its launches are MPI jobs; a fake run "
                                "is one process: 'mpibex run --fake N'");
        else if (strcmp(a, "--raw") != 0)
            o->run[o->nrun++] = argv[i];
        if (rc)
            return rc;
    }
    return 0;
}

static int parse_own(int argc, char **argv, mbx_repeat_opts *o)
{
    int i, rc = 0;
    for (i = 0; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            o->help = 1;
            return 0;
        } else if (strncmp(a, "-k", 2) == 0) {
            rc =
                whole("-k", value_of(argc, argv, &i, "-k"), 1, MBX_REPEAT_MAX_K, "launches", &o->k);
        } else if (strncmp(a, "-n", 2) == 0) {
            rc = whole("-n", value_of(argc, argv, &i, "-n"), 1, MBX_REPEAT_MAX_RANKS, "ranks",
                       &o->n);
        } else if (is_opt(a, "--mpiexec")) {
            const char *v = value_of(argc, argv, &i, "--mpiexec");
            if (v == NULL || *v == '\0' || strpbrk(v, " \t\n"))
                rc = mbx_repeat_bad(
                    "--mpiexec: expected one program such as mpiexec, got '%s' (a command "
                    "with arguments goes to --launcher)",
                    v ? v : "");
            o->mpiexec = v;
        } else if (is_opt(a, "--launcher")) {
            const char *v = value_of(argc, argv, &i, "--launcher");
            if (v == NULL || strspn(v, " \t\n") == strlen(v))
                rc = mbx_repeat_bad(
                    "--launcher: missing command; allowed a command such as 'mpiexec'");
            o->launcher = v;
        } else if (strcmp(a, "--force") == 0) {
            o->force = 1;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            o->quiet = 1;
        } else if (strcmp(a, "-o") == 0 || is_opt(a, "--output")) {
            const char *name = a[1] == 'o' ? "-o" : "--output";
            rc = take_dir(o, value_of(argc, argv, &i, name), name);
        } else {
            rc =
                mbx_repeat_bad("unknown option '%s'; run options go after '--' (see 'mpibex repeat "
                               "--help')",
                               a);
        }
    }
    if (rc == 0)
        rc = parse_run(argc, argv, i, o);
    if (rc == 0 && o->mpiexec && o->launcher)
        rc = mbx_repeat_bad("--mpiexec and --launcher: give one of them");
    if (rc == 0 && o->k == 0)
        rc = mbx_repeat_bad("-k: missing; allowed 1..%d launches", MBX_REPEAT_MAX_K);
    if (rc == 0 && o->dir == NULL)
        rc = mbx_repeat_bad("-o DIR is required: the directory the launches go to");
    return rc;
}

/* Parse the run's options as `mpibex run` will, to refuse them now rather
 * than after a launch has started. */
static int check_run_options(const mbx_repeat_opts *o)
{
    char **v = calloc((size_t)o->nrun + 4, sizeof *v), msg[512] = "";
    if (v == NULL)
        return mbx_repeat_bad("out of memory");
    for (int i = 0; i < o->nrun; i++)
        v[i] = o->run[i];
    v[o->nrun] = "-o";
    v[o->nrun + 1] = "launch-01.csv";
    v[o->nrun + 2] = "--raw";
    mbx_run_opts ro;
    int rc = mbx_cli_parse_run(o->nrun + 3, v, &ro, msg, sizeof msg);
    free(v);
    if (rc != 0)
        return mbx_repeat_bad("%s", msg);
    if (ro.help)
        return mbx_repeat_bad("--help after '--': see 'mpibex run --help' for the run's options");
    return 0;
}

int mbx_repeat_parse(int argc, char **argv, mbx_repeat_opts *o)
{
    int rc = parse_own(argc, argv, o);
    return rc != 0 || o->help ? rc : check_run_options(o);
}
