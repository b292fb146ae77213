/* The flags OSU and IMB users type out of habit, each with a line naming
 * mpibex's equivalent (mbx_opt_habit, opt.h). One table for every
 * subcommand's walker: an unknown word that is one of these gets its line
 * instead of "unknown option". The facts about the peers' flags come from
 * their documentation (OSU micro-benchmarks 7.4 `--help`, IMB's user
 * guide); none of their text is used. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/sizes.h"
#include "opt.h"

/* A whole number 0..max in val, or -1. */
static long long whole(const char *val, long long max)
{
    if (val == NULL || *val == '\0' || strspn(val, "0123456789") != strlen(val) || strlen(val) > 12)
        return -1;
    long long v = strtoll(val, NULL, 10);
    return v <= max ? v : -1;
}

/* "MIN:MAX" (or "MAX", from from0) as two byte counts, mpibex's spelling. */
static int spell_range(const char *min, const char *max, char *out, size_t len)
{
    uint64_t lo, hi;
    char a[32], b[32], why[8];
    if (mbx_size_parse(min, &lo, why, sizeof why) < 0 ||
        mbx_size_parse(max, &hi, why, sizeof why) < 0 || lo > hi)
        return -1;
    mbx_size_format(lo, a, sizeof a);
    mbx_size_format(hi, b, sizeof b);
    snprintf(out, len, "--sizes %s:%s", a, b);
    return 0;
}

/* OSU's -m [MIN:]MAX in bytes; MIN left out is OSU's default, and
 * mpibex starts each benchmark at the smallest size it takes from 0. */
static int spell_m(const char *val, char *out, size_t len)
{
    char min[24] = "0", max[24];
    const char *colon = strchr(val, ':');
    if (colon != NULL) {
        if ((size_t)(colon - val) >= sizeof min)
            return -1;
        memcpy(min, val, (size_t)(colon - val));
        min[colon - val] = '\0';
    }
    snprintf(max, sizeof max, "%s", colon ? colon + 1 : val);
    if (whole(min, (long long)1 << 40) < 0 || whole(max, (long long)1 << 40) < 0)
        return -1;
    return spell_range(min, max, out, len);
}

/* IMB's -msglog [MIN:]MAX: sizes 2^MIN..2^MAX; MAX alone starts at 0. */
static int spell_msglog(const char *val, char *out, size_t len)
{
    char lo[24] = "", hi[24];
    const char *colon = strchr(val, ':');
    long long a = -1, b;
    if (colon != NULL) {
        if ((size_t)(colon - val) >= sizeof lo)
            return -1;
        memcpy(lo, val, (size_t)(colon - val));
        lo[colon - val] = '\0';
        if ((a = whole(lo, 40)) < 0)
            return -1;
    }
    if ((b = whole(colon ? colon + 1 : val, 40)) < 0)
        return -1;
    snprintf(lo, sizeof lo, "%llu", a < 0 ? 0ULL : 1ULL << a);
    snprintf(hi, sizeof hi, "%llu", 1ULL << b);
    return spell_range(lo, hi, out, len);
}

static int spell_count(const char *val, const char *fmt, char *out, size_t len)
{
    long long n = whole(val, 1000000000LL);
    if (n < 1)
        return -1;
    snprintf(out, len, fmt, n);
    return 0;
}

static int spell_iter(const char *val, char *out, size_t len)
{
    return spell_count(val, "--stop fixed:%lld", out, len);
}

static int spell_root(const char *val, char *out, size_t len)
{
    long long r = whole(val, 1 << 20);
    if (r < 0)
        return -1;
    snprintf(out, len, "--root %lld", r);
    return 0;
}

static int spell_npmin(const char *val, char *out, size_t len)
{
    return spell_count(val, "--procs %lld:N on N ranks", out, len);
}

static int spell_npmax(const char *val, char *out, size_t len)
{
    long long n = whole(val, 1 << 20);
    if (n < 2)
        return -1;
    snprintf(out, len, "--procs 2:%lld", n);
    return 0;
}

static const mbx_opt_habit_row habits[] = {
    /* OSU micro-benchmarks: one letter (getopt, so "-m4096" too) and the
     * long forms mpibex does not share. */
    {"-m", "--message-size", "OSU's message-size range; mpibex takes --sizes MIN:MAX[:FACTOR]",
     "1:4096", spell_m},
    {"-i", "--iterations",
     "OSU's timed iterations; mpibex stops a point by a rule: --stop fixed:N for exactly N "
     "observations, or --nmax N as a ceiling",
     "1000", spell_iter},
    {"-x", NULL,
     "OSU's warm-up iterations; mpibex takes --warmup N (untimed calls before each point, beside "
     "its automatic warm-up)",
     NULL, NULL},
    {"-f", "--full",
     "OSU's full listing; mpibex's CSV (-o FILE) always has min_us, max_us, q1_us, q3_us and the "
     "count n beside the median",
     NULL, NULL},
    {"-W", "--window-size",
     "OSU's window of messages in flight; mpibex's bw.* benchmarks take it as --param W "
     "(default 64)",
     NULL, NULL},
    {"-c", "--validation", "OSU's data validation; mpibex takes --validate", NULL, NULL},
    {"-k", "--root-rank", "OSU's root rank; mpibex takes --root R", "1", spell_root},
    {"-M", "--mem-limit",
     "OSU's memory limit; mpibex refuses a size whose buffers pass 90% of a rank's memory, so "
     "choose the range with --sizes MIN:MAX",
     NULL, NULL},
    {"-b", "--buffer-num",
     "OSU's multiple buffers; the closest in mpibex is --cache cold[:SIZE] (a cold cache before "
     "every observation)",
     NULL, NULL},
    {"-d", "--accelerator", "OSU's device buffers; mpibex measures host memory only", NULL, NULL},
    {"-v", NULL, "OSU's version flag; mpibex's is --version (or -V), before any command", NULL,
     NULL},
    /* Intel MPI Benchmarks: single-dash words. */
    {"-msglog", NULL, "IMB's sizes 2^MIN..2^MAX; mpibex takes --sizes MIN:MAX[:FACTOR] in bytes",
     "3:10", spell_msglog},
    {"-msglen", NULL,
     "IMB's file of sizes; mpibex takes a list, --sizes 8,64,1KiB, or a plan file's sizes = key",
     NULL, NULL},
    {"-iter", NULL,
     "IMB's repetitions; mpibex stops a point by a rule: --stop fixed:N for exactly N "
     "observations, or --nmax N as a ceiling",
     "1000", spell_iter},
    {"-iter_policy", NULL, "IMB's iteration policy; mpibex's stop rule is --stop RULE", NULL, NULL},
    {"-time", NULL,
     "IMB's time cap per message size; mpibex takes --point-time SEC per point (--time-limit "
     "SEC caps the whole run)",
     NULL, NULL},
    {"-npmin", NULL,
     "IMB's smallest process count; mpibex takes --procs A:B[:F], a range that ends at the "
     "job's ranks",
     "2", spell_npmin},
    {"-npmax", NULL,
     "a largest process count; mpibex takes --procs A:B[:F], a range that ends at the job's "
     "ranks",
     "8", spell_npmax},
    {"-off_cache", NULL, "IMB's cache flushing; mpibex takes --cache cold[:SIZE]", NULL, NULL},
    {"-mem", NULL,
     "IMB's memory limit; mpibex refuses a size whose buffers pass 90% of a rank's memory, so "
     "choose the range with --sizes MIN:MAX",
     NULL, NULL},
    {"-input", NULL, "IMB's file of benchmarks; mpibex takes a plan file (run PLAN.ini)", NULL,
     NULL},
    {"-include", NULL,
     "IMB's extra benchmarks; mpibex takes --bench LIST (names, groups such as pingpong, globs "
     "such as 'coll.*')",
     NULL, NULL},
    {"-exclude", NULL,
     "IMB's excluded benchmarks; mpibex measures what --bench LIST names (names, groups, globs "
     "such as 'coll.i*')",
     NULL, NULL},
    {"-thread_level", NULL, "IMB's thread level; mpibex takes --thread-level L", NULL, NULL},
    {"-sync", NULL, "IMB's barrier between samples; mpibex takes --sync barrier|window", NULL,
     NULL},
    {"-zero_size", NULL, "IMB's 0-byte switch; mpibex measures 0 B when --sizes starts at 0", NULL,
     NULL},
    {"-help", NULL, "mpibex's help is -h or --help", NULL, NULL},
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

/* The value given with word: glued ("-m8:65536", "--message-size=64"), or
 * next when it is no option. */
static const char *value_of(const mbx_opt_habit_row *h, const char *word, const char *next)
{
    const char *eq = strchr(word, '=');
    if (eq != NULL)
        return eq + 1;
    if (strlen(h->flag) == 2 && strncmp(word, h->flag, 2) == 0 && word[2] != '\0')
        return word + 2;
    return next && next[0] != '-' ? next : NULL;
}

void mbx_opt_habit_line(const mbx_opt_habit_row *h, const char *word, const char *next, char *out,
                        size_t len)
{
    char spelled[128];
    const char *val = value_of(h, word, next);
    if (h->spell == NULL) {
        snprintf(out, len, "%s: %s", h->flag, h->text);
        return;
    }
    if (val == NULL || strlen(val) > 40 || h->spell(val, spelled, sizeof spelled) < 0) {
        val = h->example;
        (void)h->spell(val, spelled, sizeof spelled);
    }
    /* "OSU's" or "IMB's" from the text; -npmax is no flag of either. */
    int who = strncmp(h->text, "OSU's", 5) == 0 || strncmp(h->text, "IMB's", 5) == 0;
    snprintf(out, len, "%s: %s (%.*s%s%s %s is %s)", h->flag, h->text, who ? 5 : 0, h->text,
             who ? " " : "", h->flag, val, spelled);
}
