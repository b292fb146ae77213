#include "ex_cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "explore.h"
#include "mbx/status.h"

/* The keys of the whole run the parameter screen has, with the values it
 * offers (a plan's key with another value keeps the form's default; on
 * the command line it is refused). */
static const struct {
    const char *opt, *key, *allowed;
    const char *const words[3];
} keys[EXC_NKEYS] = {
    [EXC_VALIDATE] = {"--validate", "validate", "", {NULL}},
    [EXC_TIMER] = {"--timer", "timer", "clock or wtime", {"clock", "wtime", NULL}},
    [EXC_SYNC] = {"--sync", "sync", "barrier or window", {"barrier", "window", NULL}},
    [EXC_CLOCK] = {"--clock-sync", "clock_sync", "jk or hca", {"jk", "hca", NULL}},
    [EXC_CACHE] = {"--cache", "cache", "warm or cold", {"warm", "cold", NULL}},
    [EXC_WARMUP] = {"--warmup", "warmup", "calls in 1..1000000", {NULL}},
};

int mbx_ex_cli_key(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *val)
{
    mbx_ex_cli *c = (mbx_ex_cli *)(void *)((char *)p->dst + o->off);
    int k = 0;
    while (k < EXC_NKEYS && strcmp(keys[k].opt, o->name) != 0)
        k++;
    if (k == EXC_VALIDATE) {
        c->key[k] = "on";
        return 0;
    }
    int ok = 0;
    if (k == EXC_WARMUP) {
        char *end = NULL;
        errno = 0;
        long n = strtol(val, &end, 10);
        ok = end != val && *end == '\0' && !errno && n >= 1 && n <= 1000000;
    }
    for (int i = 0; k < EXC_NKEYS && keys[k].words[i]; i++)
        ok |= strcmp(keys[k].words[i], val) == 0;
    if (k == EXC_NKEYS || !ok)
        return mbx_opt_bad(&p->out, "%s: expected %s in the explorer (got '%s')", name,
                           k < EXC_NKEYS ? keys[k].allowed : "?", val);
    c->key[k] = val;
    return 0;
}

/* The options of `run` that choose no measurement the explorer makes, and
 * where the explorer does their job instead. */
static const struct {
    const char *names[10];
    const char *why;
} batch_only[] = {
    {{"-o", "--output", "--raw", "--resume", "--force", "-q", "--quiet", NULL},
     "the explorer keeps its results on screen and in the autosave: e exports them (with "
     "their observations), w writes a report"},
    {{"--passes", "--max-passes", "--span", "--pass-ms", "--time-limit", "--order", "--seed",
      "--monitor", "--shift", NULL},
     "the explorer's passes run until a point settles or you stop them; --point-time "
     "bounds a point"},
    {{"--window", "--window-delay", "--resync", "--sync-span", "--window-limit", NULL},
     "the explorer's window sync uses its defaults (--sync window)"},
};

int mbx_ex_cli_other(mbx_opt_parser *p, const char *word)
{
    size_t n = strcspn(word, "=");
    for (size_t g = 0; g < sizeof batch_only / sizeof batch_only[0]; g++)
        for (size_t i = 0; batch_only[g].names[i]; i++)
            if (strlen(batch_only[g].names[i]) == n &&
                strncmp(batch_only[g].names[i], word, n) == 0)
                return mbx_opt_bad(&p->out, "%s: an option of 'mpibex run' only; %s",
                                   batch_only[g].names[i], batch_only[g].why);
    /* Not one of them: what the parser says of an unknown word. */
    const mbx_opt_habit_row *h = mbx_opt_habit(word);
    if (h != NULL) {
        char hint[512];
        mbx_opt_habit_line(h, word, p->following, hint, sizeof hint);
        return mbx_opt_bad(&p->out, "%s", hint);
    }
    const char *near = word[0] == '-' ? mbx_opt_suggest(p->opts, p->nopts, word) : NULL;
    char line[600];
    snprintf(line, sizeof line, p->unknown, word);
    if (near == NULL)
        return mbx_opt_bad(&p->out, "%s", line);
    return mbx_opt_bad(&p->out, "%s; did you mean %s?", line, near);
}

int mbx_ex_cli_apply(const mbx_ex_cli *c, mbx_plan *plan, char *msg, size_t len)
{
    int rc = mbx_plan_override(plan, &c->ov, msg, len);
    if (rc < 0)
        return rc;
    for (int k = 0; k < EXC_NKEYS; k++) {
        int i = mbx_plan_run_key_index(keys[k].key);
        for (size_t m = 0; c->key[k] && i >= 0 && m < plan->nmeas; m++)
            snprintf(plan->meas[m].run_key[i], sizeof plan->meas[m].run_key[i], "%s", c->key[k]);
    }
    return MBX_OK;
}

/* The explorer's --help (explore.h). */
void mbx_explore_usage(void)
{
    printf("Usage: mpibex [-n N] [launcher options] [explorer options]\n"
           "       mpiexec -n N mpibex explore [explorer options]\n"
           "\n"
           "Explorer options:\n"
           "  --plan FILE          preload a plan (its benchmarks, and the first section's\n"
           "                       parameters; a benchmark named in two sections is\n"
           "                       measured as two curves); default: the built-in quick plan\n"
           "  --start              start measuring at once\n"
           "  --settle SECONDS     untimed barrier traffic before each run's first point,\n"
           "                       0..60 (default %.1f; nothing to settle with --fake)\n"
           "  --theme NAME|PATH    colour theme (default, light, okabe-ito, high-contrast)\n"
           "  --theme-dir DIR      look for NAME.theme in DIR first\n"
           "  --no-color           attributes only (also when NO_COLOR is set)\n"
           "  --no-mouse           leave the mouse to the terminal (its own selection)\n"
           "  --glyphs SET         braille, block or ascii (default: braille in UTF-8 locales)\n"
           "  --autosave DIR|none  where each point is saved once it is final\n"
           "                       (default $XDG_STATE_HOME/mpibex or ~/.local/state/mpibex;\n"
           "                       without a home, a private directory in $TMPDIR)\n"
           "  --fake N             a simulated back end with N ranks, no MPI (demos, tests)\n"
           "  --headless COLSxROWS draw to a virtual screen; needs --keys (with --fake,\n"
           "                       or under mpiexec on the job's ranks)\n"
           "  --keys FILE          headless key script; --dump-dir DIR for its screen dumps\n"
           "  --term TYPE          headless terminal type (default xterm-256color)\n"
           "  --watchdog SEC[:MULT]|off  a pass not back in MULT x its expected time (at\n"
           "                       least SEC s; 60:20) is HUNG; at twice that, exit 3\n"
           "  --thread-level L     the MPI thread support to ask for: single (default),\n"
           "                       funneled, serialized or multiple; pingpong.mt and\n"
           "                       part.mt with more than 1 thread need multiple (which\n"
           "                       costs MPICH up to a few per cent of latency)\n"
           "\n"
           "What to measure, as 'mpibex run' takes it (over --plan or the quick plan):\n"
           "  --bench LIST --sizes RANGE --stop RULE --nmin N --nmax N --procs P\n"
           "  --param LIST --root R --pair auto|A,B --refine off|EPS --budget N\n"
           "  --rma-sync MODE --point-time SEC --validate --timer clock|wtime\n"
           "  --sync barrier|window --clock-sync jk|hca --cache warm|cold --warmup N\n"
           "  (see 'mpibex run --help'; run's other options are refused)\n",
           MBX_SETTLE_DEFAULT);
}
