/* The flags OSU and IMB users type out of habit, each with a line naming
 * mpibex's equivalent (mbx_opt_habit, opt.h). One table for every
 * subcommand's walker: an unknown word that is one of these gets its line
 * instead of "unknown option". The facts about the peers' flags come from
 * their documentation (OSU micro-benchmarks 7.4 `--help`, IMB's user
 * guide); none of their text is used. */
#include <string.h>

#include "opt.h"

static const mbx_opt_habit_row habits[] = {
    /* OSU micro-benchmarks: one letter (getopt, so "-m4096" too) and the
     * long forms mpibex does not share. */
    {"-m", "--message-size",
     "OSU's message-size range; mpibex takes --sizes MIN:MAX[:FACTOR] (OSU's -m 1:4096 is "
     "--sizes 1:4KiB)"},
    {"-i", "--iterations",
     "OSU's timed iterations; mpibex stops a point by a rule: --stop fixed:N for exactly N "
     "observations, or --nmax N as a ceiling (OSU's -i 1000 is --stop fixed:1000)"},
    {"-x", NULL,
     "OSU's warm-up iterations; mpibex takes --warmup N (untimed calls before each point, beside "
     "its automatic warm-up)"},
    {"-f", "--full",
     "OSU's full listing; mpibex's CSV (-o FILE) always has min_us, max_us, q1_us, q3_us and the "
     "count n beside the median"},
    {"-W", "--window-size",
     "OSU's window of messages in flight; mpibex's bw.* benchmarks take it as --param W "
     "(default 64)"},
    {"-c", "--validation", "OSU's data validation; mpibex takes --validate"},
    {"-k", "--root-rank", "OSU's root rank; mpibex takes --root R"},
    {"-M", "--mem-limit",
     "OSU's memory limit; mpibex refuses a size whose buffers pass 90% of a rank's memory, so "
     "choose the range with --sizes MIN:MAX"},
    {"-b", "--buffer-num",
     "OSU's multiple buffers; the closest in mpibex is --cache cold[:SIZE] (a cold cache before "
     "every observation)"},
    {"-d", "--accelerator", "OSU's device buffers; mpibex measures host memory only"},
    {"-v", NULL, "OSU's version flag; mpibex's is --version (or -V), before any command"},
    /* Intel MPI Benchmarks: single-dash words. */
    {"-msglog", NULL,
     "IMB's sizes 2^MIN..2^MAX; mpibex takes --sizes MIN:MAX[:FACTOR] in bytes (IMB's -msglog "
     "3:10 is --sizes 8:1KiB)"},
    {"-msglen", NULL,
     "IMB's file of sizes; mpibex takes a list, --sizes 8,64,1KiB, or a plan file's sizes = key"},
    {"-iter", NULL,
     "IMB's repetitions; mpibex stops a point by a rule: --stop fixed:N for exactly N "
     "observations, or --nmax N as a ceiling"},
    {"-iter_policy", NULL, "IMB's iteration policy; mpibex's stop rule is --stop RULE"},
    {"-time", NULL,
     "IMB's time cap per message size; mpibex takes --point-time SEC per point (--time-limit "
     "SEC caps the whole run)"},
    {"-npmin", NULL,
     "IMB's smallest process count; mpibex takes --procs A:B[:F] (IMB's -npmin 2 on 8 ranks is "
     "--procs 2:8)"},
    {"-off_cache", NULL, "IMB's cache flushing; mpibex takes --cache cold[:SIZE]"},
    {"-mem", NULL,
     "IMB's memory limit; mpibex refuses a size whose buffers pass 90% of a rank's memory, so "
     "choose the range with --sizes MIN:MAX"},
    {"-input", NULL, "IMB's file of benchmarks; mpibex takes a plan file (run PLAN.ini)"},
    {"-include", NULL,
     "IMB's extra benchmarks; mpibex takes --bench LIST (names, groups such as pingpong, globs "
     "such as 'coll.*')"},
    {"-exclude", NULL,
     "IMB's excluded benchmarks; mpibex measures what --bench LIST names (names, groups, globs "
     "such as 'coll.i*')"},
    {"-thread_level", NULL, "IMB's thread level; mpibex takes --thread-level L"},
    {"-sync", NULL, "IMB's barrier between samples; mpibex takes --sync barrier|window"},
    {"-zero_size", NULL, "IMB's 0-byte switch; mpibex measures 0 B when --sizes starts at 0"},
    {"-help", NULL, "mpibex's help is -h or --help"},
};

const mbx_opt_habit_row *mbx_opt_habits(size_t *n)
{
    *n = sizeof habits / sizeof habits[0];
    return habits;
}

const mbx_opt_habit_row *mbx_opt_habit(const char *word)
{
    size_t n = sizeof habits / sizeof habits[0], len = strcspn(word, "=");
    for (size_t k = 0; k < n; k++) {
        const char *f = habits[k].flag, *l = habits[k].long_flag;
        if ((strlen(f) == len && strncmp(word, f, len) == 0) ||
            (l && strlen(l) == len && strncmp(word, l, len) == 0))
            return &habits[k];
    }
    /* getopt's glued number: "-m1:4096", "-i1000" (a one-letter flag). */
    for (size_t k = 0; k < n; k++) {
        const char *f = habits[k].flag;
        if (strlen(f) == 2 && word[0] == '-' && word[1] == f[1] && word[2] != '\0' &&
            strchr("0123456789:", word[2]) != NULL)
            return &habits[k];
    }
    return NULL;
}
