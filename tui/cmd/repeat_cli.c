/* mpibex repeat: its usage and options (repeat_int.h). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/opt.h"
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
           "  --gap SEC           wait SEC seconds, 0..86400, between one launch's end\n"
           "                      and the next one's start (default 0): launches\n"
           "                      spread over the time a machine profile is to serve\n"
           "                      (mpibex calibrate) see how the machine drifts in it\n"
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

/* Bad input: "mpibex repeat: " and one line on stderr (exit 2). */
static const mbx_opt_out said = {.prefix = "mpibex repeat: ", .print = mbx_tprint_line};

int mbx_repeat_bad(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = mbx_opt_vbad(&said, fmt, ap);
    va_end(ap);
    return rc;
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

static int on_k(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    (void)o, (void)name;
    return whole("-k", v, 1, MBX_REPEAT_MAX_K, "launches", &((mbx_repeat_opts *)p->dst)->k);
}

static int on_n(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    (void)o, (void)name;
    return whole("-n", v, 1, MBX_REPEAT_MAX_RANKS, "ranks", &((mbx_repeat_opts *)p->dst)->n);
}

static int on_gap(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    (void)o, (void)name;
    return whole("--gap", v, 0, 86400, "seconds", &((mbx_repeat_opts *)p->dst)->gap);
}

static int on_mpiexec(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    (void)o, (void)name;
    ((mbx_repeat_opts *)p->dst)->mpiexec = v;
    if (v == NULL || *v == '\0' || strpbrk(v, " \t\n"))
        return mbx_repeat_bad("--mpiexec: expected one program such as mpiexec, got '%s' (a "
                              "command with arguments goes to --launcher)",
                              v ? v : "");
    return 0;
}

static int on_launcher(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    (void)o, (void)name;
    ((mbx_repeat_opts *)p->dst)->launcher = v;
    if (v == NULL || strspn(v, " \t\n") == strlen(v))
        return mbx_repeat_bad("--launcher: missing command; allowed a command such as 'mpiexec'");
    return 0;
}

/* -o DIR, before or after '--'. */
static int on_dir(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    mbx_repeat_opts *r = p->dst;
    (void)o;
    if (v == NULL || *v == '\0')
        return mbx_repeat_bad("%s: missing directory", name);
    if (r->dir && strcmp(r->dir, v) != 0)
        return mbx_repeat_bad("-o: only one directory is allowed (got '%s' and '%s')", r->dir, v);
    r->dir = v;
    return 0;
}

static const mbx_opt repeat_opts[] = {
    {"--help", "-h", NULL, 0, mbx_opt_help, 0},
    {NULL, "-k", "K", MBX_OPT_GLUED, on_k, 0},
    {NULL, "-n", "N", MBX_OPT_GLUED, on_n, 0},
    {"--gap", NULL, "SEC", MBX_OPT_EQ, on_gap, 0},
    {"--mpiexec", NULL, "PATH", MBX_OPT_EQ, on_mpiexec, 0},
    {"--launcher", NULL, "CMD", MBX_OPT_EQ, on_launcher, 0},
    {"--force", NULL, NULL, 0, NULL, offsetof(mbx_repeat_opts, force)},
    {"--quiet", "-q", NULL, 0, NULL, offsetof(mbx_repeat_opts, quiet)},
    {"--output", "-o", "DIR", MBX_OPT_EQ, on_dir, 0},
};

/* The run's options after '--': -o goes to o->dir, --raw is dropped (it is
 * always added), --resume and --fake are refused, the rest is the run's. */
static int on_resume(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    (void)p, (void)o, (void)name, (void)v;
    return mbx_repeat_bad("--resume: not with repeat, each launch is a new run; allowed run "
                          "options are those of 'mpibex run --help' but -o, --raw, --resume and "
                          "--fake");
}

static int on_fake(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    (void)p, (void)o, (void)name, (void)v;
    return mbx_repeat_bad("--fake: not with repeat, its launches are MPI jobs; a fake run is one "
                          "process: 'mpibex run --fake N'");
}

static int on_raw(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    (void)p, (void)o, (void)name, (void)v;
    return 0;
}

static int on_run_word(mbx_opt_parser *p, const char *word)
{
    mbx_repeat_opts *r = p->dst;
    r->run[r->nrun++] = (char *)word;
    return 0;
}

static const mbx_opt run_opts[] = {
    {"--output", "-o", "DIR", MBX_OPT_EQ, on_dir, 0},
    {"--resume", NULL, NULL, 0, on_resume, 0},
    {"--fake", NULL, "N", MBX_OPT_OPTIONAL, on_fake, 0},
    {"--raw", NULL, NULL, 0, on_raw, 0},
};

static int parse_own(int argc, char **argv, mbx_repeat_opts *o)
{
    mbx_opt_parser p = {.opts = repeat_opts,
                        .nopts = MBX_OPT_COUNT(repeat_opts),
                        .flags = MBX_OPT_STOP_DASHDASH,
                        .dst = o,
                        .out = said,
                        .unknown = "unknown option '%s'; run options go after '--' (see 'mpibex "
                                   "repeat --help')"};
    int rc = mbx_opt_parse(&p, argc, argv, 0);
    if ((o->help = p.help) != 0)
        return rc;
    mbx_opt_parser run = {.opts = run_opts,
                          .nopts = MBX_OPT_COUNT(run_opts),
                          .dst = o,
                          .out = said,
                          .operand = on_run_word,
                          .pass_unknown = 1};
    if (rc == 0)
        rc = mbx_opt_parse(&run, argc, argv, p.next);
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
