/* `mpibex run`'s options: their table for core/opt.h with a handler per
 * kind of value, MPIBEX_RUN_OPTIONS, and a plan's keys of the whole run
 * (the usage texts are in cli_usage.c). */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/opt.h"
#include "job.h"
#include "mbx/ascii.h"
#include "mbx/sizes.h"
#include "watchdog.h"

/* --sync, --clock-sync, --cache, --order, --monitor: one word each. */
static int on_word(mbx_opt_parser *p, const mbx_opt *opt, const char *name, const char *v)
{
    static const struct {
        const char *opt, *allowed;
    } what[] = {{"--sync", "barrier or window"},
                {"--clock-sync", "jk or hca"},
                {"--cache", "warm, cold or cold:SIZE"},
                {"--order", "shuffle or plan"},
                {"--monitor", "on or off"}};
    mbx_run_opts *o = p->dst;
    int ok = 1;
    (void)opt;
    if (strcmp(name, "--sync") == 0) {
        ok = !strcmp(v, "barrier") || !strcmp(v, "window");
        o->method.sync = !strcmp(v, "window") ? MBX_SYNC_WINDOW : MBX_SYNC_BARRIER;
    } else if (strcmp(name, "--clock-sync") == 0) {
        ok = mbx_clocksync_parse(v, &o->method.clock.method) == MBX_OK;
    } else if (strcmp(name, "--cache") == 0) {
        ok = !strcmp(v, "warm") || !strcmp(v, "cold");
        o->method.cache = !strcmp(v, "cold") ? MBX_CACHE_COLD : MBX_CACHE_WARM;
        if (strncmp(v, "cold:", 5) == 0) {
            char sm[128];
            uint64_t b = 0;
            ok = mbx_size_parse(v + 5, &b, sm, sizeof sm) == MBX_OK && b >= 4096 &&
                 b <= (1ull << 40);
            o->method.cache = MBX_CACHE_COLD;
            o->method.cache_bytes = b;
            if (!ok)
                return mbx_opt_bad(&p->out,
                                   "--cache: cold:SIZE needs a size in 4KiB..1TiB (got '%s')", v);
        }
    } else if (strcmp(name, "--order") == 0) {
        ok = !strcmp(v, "shuffle") || !strcmp(v, "plan");
        o->order_plan = !strcmp(v, "plan");
    } else {
        ok = !strcmp(v, "on") || !strcmp(v, "off");
        o->monitor = !strcmp(v, "on");
    }
    for (size_t i = 0; !ok && i < sizeof what / sizeof *what; i++)
        if (strcmp(what[i].opt, name) == 0)
            return mbx_opt_bad(&p->out, "%s: expected %s (got '%s')", name, what[i].allowed, v);
    return 0;
}

/* A number in lo..hi into *out, else the message "NAME: expected WHAT
 * (got 'V')"; --window also takes auto (0). */
typedef struct num_opt {
    const char *name, *what;
    double lo, hi;
    size_t off; /* the double in mbx_run_opts */
} num_opt;

static const num_opt numbers[] = {
    {"--window", "auto or seconds in 1e-6..10", 1e-6, 10.0, offsetof(mbx_run_opts, method.window)},
    {"--window-delay", "seconds in 1e-6..10", 1e-6, 10.0,
     offsetof(mbx_run_opts, method.window_delay)},
    {"--sync-span", "seconds in 0.01..600", 0.01, 600.0, offsetof(mbx_run_opts, method.clock.span)},
    {"--window-limit", "seconds in 0.1..86400", 0.1, 86400.0,
     offsetof(mbx_run_opts, method.window_limit)},
    {"--resync", "seconds in 0.01..3600", 0.01, 3600.0, offsetof(mbx_run_opts, method.resync)},
    {"--shift", "a relative change in 0.01..10", 0.01, 10.0, offsetof(mbx_run_opts, shift_rel)},
    {"--settle", "seconds in 0..60", 0.0, 60.0, offsetof(mbx_run_opts, settle)},
};

/* --window, --window-delay, --sync-span, --window-limit, --resync, --shift,
 * --settle: seconds (or a ratio) in a range. */
static int on_number(mbx_opt_parser *p, const mbx_opt *opt, const char *name, const char *v)
{
    const num_opt *n = &numbers[opt->off];
    double *slot = (double *)(void *)((char *)p->dst + n->off);
    (void)name;
    if (strcmp(n->name, "--window") == 0 && strcmp(v, "auto") == 0) {
        *slot = 0.0;
        return 0;
    }
    char *end = NULL;
    double x = mbx_strtod(v, &end);
    int ok = end != v && *end == '\0' && x >= n->lo && x <= n->hi;
    if (!ok)
        return mbx_opt_bad(&p->out, "%s: expected %s (got '%s')", n->name, n->what, v);
    *slot = x;
    return 0;
}

/* --passes, --max-passes. */
static int on_passes(mbx_opt_parser *p, const mbx_opt *opt, const char *name, const char *v)
{
    mbx_run_opts *o = p->dst;
    char *end = NULL;
    (void)opt;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (end == v || *end != '\0' || errno || n < 2 || n > 10000)
        return mbx_opt_bad(&p->out, "%s: expected passes in 2..10000 (got '%s')", name, v);
    *(name[2] == 'p' ? &o->passes : &o->max_passes) = n;
    return 0;
}

/* --span, --pass-ms, --time-limit. */
static int on_pass_time(mbx_opt_parser *p, const mbx_opt *opt, const char *name, const char *v)
{
    mbx_run_opts *o = p->dst;
    char *end = NULL;
    (void)opt;
    double d = mbx_strtod(v, &end);
    double lo = name[2] == 'p' ? 0.01 : 0.0, hi = name[2] == 'p' ? 1000.0 : 86400.0;
    if (end == v || *end != '\0' || !(d >= lo && d <= hi))
        return mbx_opt_bad(&p->out, "%s: expected %s in %g..%g (got '%s')", name,
                           name[2] == 'p' ? "milliseconds" : "seconds", lo, hi, v);
    if (name[2] == 's')
        o->span = d;
    else if (name[2] == 'p')
        o->pass_floor = d * 1e-3;
    else
        o->time_limit = d;
    return 0;
}

/* --watchdog SEC[:MULT] or off: the bound of a pass is MULT times its
 * expected time, at least SEC seconds (tui/cmd/watchdog.h). */
static int on_watchdog(mbx_opt_parser *p, const mbx_opt *opt, const char *name, const char *v)
{
    mbx_run_opts *o = p->dst;
    (void)opt, (void)name;
    if (mbx_watchdog_parse(v, &o->watchdog_floor, &o->watchdog_mult) != 0)
        return mbx_opt_bad(&p->out, MBX_WATCHDOG_BAD, v);
    return 0;
}

/* --fake, --warmup: whole numbers in a range. */
static int on_count(mbx_opt_parser *p, const mbx_opt *opt, const char *name, const char *v)
{
    mbx_run_opts *o = p->dst;
    int fake = strcmp(name, "--fake") == 0;
    long hi = fake ? MBX_FAKE_MAX_RANKS : 1000000;
    char *end = NULL;
    (void)opt;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (end == v || *end != '\0' || errno || n < 1 || n > hi)
        return fake ? mbx_opt_bad(&p->out, "--fake: expected a rank count in 1..%d (got '%s')",
                                  MBX_FAKE_MAX_RANKS, v)
                    : mbx_opt_bad(&p->out,
                                  "--warmup: expected round trips in 1..1000000 (got '%s')", v);
    if (fake)
        o->fake = (int)n;
    else
        o->warmup = n;
    return 0;
}

static int on_seed(mbx_opt_parser *p, const mbx_opt *opt, const char *name, const char *v)
{
    mbx_run_opts *o = p->dst;
    char *end = NULL;
    (void)opt, (void)name;
    errno = 0;
    unsigned long long sd = strtoull(v, &end, 10);
    if (end == v || *end != '\0' || errno || v[0] == '-')
        return mbx_opt_bad(&p->out, "--seed: expected a whole number 0..%llu (got '%s')",
                           (unsigned long long)UINT64_MAX, v);
    o->seed = sd;
    o->have_seed = 1;
    return 0;
}

static int on_thread_level(mbx_opt_parser *p, const mbx_opt *opt, const char *name, const char *v)
{
    mbx_run_opts *o = p->dst;
    (void)opt, (void)name;
    if ((o->thread_level = mbx_job_thread_level_parse(v)) < 0)
        return mbx_opt_bad(&p->out, "--thread-level: expected %s (got '%s')",
                           MBX_THREAD_LEVEL_WORDS, v);
    return 0;
}

static int on_timer(mbx_opt_parser *p, const mbx_opt *opt, const char *name, const char *v)
{
    (void)opt, (void)name;
    if (mbx_timer_parse(v, &((mbx_run_opts *)p->dst)->timer) < 0)
        return mbx_opt_bad(&p->out, "--timer: expected clock, wtime or tsc (got '%s')", v);
    return 0;
}

static int on_plan(mbx_opt_parser *p, const char *word)
{
    mbx_run_opts *o = p->dst;
    if (o->plan_path)
        return mbx_opt_bad(&p->out, "plan: only one plan file is allowed (got '%s' and '%s')",
                           o->plan_path, word);
    o->plan_path = word;
    return 0;
}

#define FLAG(name, alias, field)                                                                   \
    {                                                                                              \
        name, alias, NULL, 0, NULL, offsetof(mbx_run_opts, field)                                  \
    }
#define TEXT(name, alias, arg, field)                                                              \
    {                                                                                              \
        name, alias, arg, MBX_OPT_NONEMPTY, NULL, offsetof(mbx_run_opts, field)                    \
    }
#define NUMBER(name, k)                                                                            \
    {                                                                                              \
        name, NULL, "SEC", 0, on_number, k                                                         \
    }

/* The options of `mpibex run`, in the order they were always tried. */
static const mbx_opt run_opts[] = {
    {"--help", "-h", NULL, 0, mbx_opt_help, 0},
    FLAG("--raw", NULL, raw),
    FLAG("--validate", NULL, validate),
    FLAG("--quiet", "-q", quiet),
    TEXT("--output", "-o", "FILE", output),
    TEXT("--bench", NULL, "LIST", ov.bench),
    TEXT("--sizes", NULL, "RANGE", ov.sizes),
    TEXT("--stop", NULL, "RULE", ov.stop),
    TEXT("--nmin", NULL, "N", ov.nmin),
    TEXT("--nmax", NULL, "N", ov.nmax),
    TEXT("--procs", NULL, "P", ov.procs),
    TEXT("--param", NULL, "LIST", ov.param),
    TEXT("--root", NULL, "R", ov.root),
    TEXT("--pair", NULL, "auto|A,B", ov.pair),
    TEXT("--refine", NULL, "off|EPS", ov.refine),
    TEXT("--budget", NULL, "N", ov.budget),
    TEXT("--rma-sync", NULL, "MODE", ov.rma_sync),
    TEXT("--point-time", NULL, "SEC", ov.point_time),
    NUMBER("--settle", 6),
    {"--passes", NULL, "R", 0, on_passes, 0},
    {"--max-passes", NULL, "N", 0, on_passes, 0},
    {"--span", NULL, "SEC", 0, on_pass_time, 0},
    {"--pass-ms", NULL, "MS", 0, on_pass_time, 0},
    {"--time-limit", NULL, "SEC", 0, on_pass_time, 0},
    {"--watchdog", NULL, "SEC[:MULT]|off", 0, on_watchdog, 0},
    {"--fake", NULL, "N", 0, on_count, 0},
    {"--warmup", NULL, "N", 0, on_count, 0},
    {"--sync", NULL, "barrier|window", 0, on_word, 0},
    {"--clock-sync", NULL, "jk|hca", 0, on_word, 0},
    {"--cache", NULL, "warm|cold|cold:SIZE", 0, on_word, 0},
    {"--order", NULL, "shuffle|plan", 0, on_word, 0},
    {"--monitor", NULL, "on|off", 0, on_word, 0},
    NUMBER("--window", 0),
    NUMBER("--window-delay", 1),
    NUMBER("--resync", 4),
    NUMBER("--sync-span", 2),
    NUMBER("--window-limit", 3),
    NUMBER("--shift", 5),
    {"--seed", NULL, "N", 0, on_seed, 0},
    FLAG("--resume", NULL, resume),
    FLAG("--retry-hung", NULL, retry_hung),
    FLAG("--force", NULL, force),
    {"--thread-level", NULL, "L", 0, on_thread_level, 0},
    {"--timer", NULL, "clock|wtime|tsc", 0, on_timer, 0},
    TEXT("--profile", NULL, "PATH|auto|none", profile),
    TEXT("--history", NULL, "auto|none", history),
};

static int parse_run_words(int argc, char **argv, mbx_run_opts *o, char *msg, size_t len)
{
    mbx_opt_parser p = {.opts = run_opts,
                        .nopts = MBX_OPT_COUNT(run_opts),
                        .flags = MBX_OPT_EQ,
                        .dst = o,
                        .out = {.msg = msg, .len = len},
                        .unknown = "unknown option '%s' (see 'mpibex run --help')",
                        .missing = "%s: missing value",
                        .empty = "%s: empty value",
                        .operand = on_plan};
    int rc = mbx_opt_parse(&p, argc, argv, 0);
    if (p.help)
        o->help = 1;
    return rc;
}

/* MPIBEX_RUN_OPTIONS: options of every `run`, read before the command
 * line's (which win). Its words live as long as the process: the options
 * keep pointers into them. */
#define ENV_WORDS_MAX 64
static char *env_text;
static char *env_words[ENV_WORDS_MAX];

static int parse_env_options(mbx_run_opts *o, char *msg, size_t len)
{
    const char *env = getenv("MPIBEX_RUN_OPTIONS");
    if (!env || !*env)
        return 0;
    free(env_text);
    if (!(env_text = strdup(env))) {
        snprintf(msg, len, "MPIBEX_RUN_OPTIONS: out of memory");
        return 2;
    }
    int n = 0;
    for (char *save = NULL, *w = strtok_r(env_text, " \t", &save); w;
         w = strtok_r(NULL, " \t", &save)) {
        if (n == ENV_WORDS_MAX) {
            snprintf(msg, len, "MPIBEX_RUN_OPTIONS: more than %d words", ENV_WORDS_MAX);
            return 2;
        }
        env_words[n++] = w;
    }
    char inner[400];
    if (parse_run_words(n, env_words, o, inner, sizeof inner) != 0) {
        snprintf(msg, len, "MPIBEX_RUN_OPTIONS: %s", inner);
        return 2;
    }
    if (o->plan_path || o->help) {
        snprintf(msg, len, "MPIBEX_RUN_OPTIONS: options only (no plan file, no --help; got '%s')",
                 o->plan_path ? o->plan_path : "--help");
        return 2;
    }
    return 0;
}

/* The option of plan key `key` ("max_passes": "--max-passes"), or NULL. */
static const mbx_opt *option_of_key(const char *key, char *word, size_t len)
{
    snprintf(word, len, "--%s", key);
    for (char *u = strchr(word, '_'); u; u = strchr(u, '_'))
        *u = '-';
    for (size_t i = 0; i < MBX_OPT_COUNT(run_opts); i++)
        if (run_opts[i].name && strcmp(run_opts[i].name, word) == 0)
            return &run_opts[i];
    return NULL;
}

/* One key of the whole run into o, as its option: "--NAME VALUE", or for
 * a flag (--validate, --raw) "--NAME" when the value is on or yes. The
 * option's line names the key ("sync: expected ..."). */
static int apply_key(mbx_run_opts *o, const char *key, const char *value, char *msg, size_t len)
{
    char word[40], v[MBX_PLAN_RUN_VALUE_MAX], inner[400];
    const mbx_opt *opt = option_of_key(key, word, sizeof word);
    snprintf(v, sizeof v, "%s", value);
    char *words[] = {word, v};
    int n = 2, rc = 0;
    if (!opt) {
        snprintf(msg, len, "%s: no option %s for this key", key, word);
        return 2;
    }
    if (!opt->arg) {
        n = !strcmp(v, "on") || !strcmp(v, "yes") ? 1 : 0;
        if (!n && strcmp(v, "off") != 0 && strcmp(v, "no") != 0) {
            snprintf(msg, len, "%s: expected on, off, yes or no (got '%s')", key, v);
            return 2;
        }
    }
    if (n && (rc = parse_run_words(n, words, o, inner, sizeof inner)) != 0) {
        size_t w = strlen(word);
        const char *rest = strncmp(inner, word, w) == 0 && inner[w] == ':' ? inner + w : NULL;
        if (rest)
            snprintf(msg, len, "%s%s", key, rest);
        else
            snprintf(msg, len, "%s", inner);
    }
    return rc;
}

static void run_defaults(mbx_run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->timer = MBX_TIMER_CLOCK;
    o->settle = MBX_SETTLE_DEFAULT;
    o->span = -1.0;
    o->monitor = 1;
    o->shift_rel = MBX_SHIFT_DEFAULT;
    o->thread_level = MPI_THREAD_SINGLE;
    o->watchdog_floor = MBX_WATCHDOG_FLOOR_S;
    o->watchdog_mult = MBX_WATCHDOG_MULT;
}

int mbx_cli_plan_run_keys(mbx_run_opts *o, const mbx_plan *plan, const char *name, char *msg,
                          size_t len)
{
    /* One rule for every key: the built-in defaults, then the plan's keys,
     * then MPIBEX_RUN_OPTIONS and the command line again, so an option
     * given there wins over the plan, and a plan key over the default. */
    mbx_run_opts r;
    run_defaults(&r);
    for (int k = 0; k < MBX_PLAN_RUN_KEYS; k++) {
        const char *key = mbx_plan_run_key(k);
        const mbx_measurement *first = NULL;
        for (size_t i = 0; i < plan->nmeas; i++) {
            const mbx_measurement *m = &plan->meas[i];
            if (!m->run_key[k][0])
                continue;
            if (first && strcmp(first->run_key[k], m->run_key[k]) != 0) {
                snprintf(msg, len,
                         "%s: [%s]: %s: '%s', but [%s] says '%s'; %s applies to the whole run, "
                         "so every section that gives it must agree",
                         name, m->label, key, m->run_key[k], first->label, first->run_key[k], key);
                return 2;
            }
            first = first ? first : m;
        }
        char inner[400];
        if (first && apply_key(&r, key, first->run_key[k], inner, sizeof inner) != 0) {
            snprintf(msg, len, "%s: [%s]: %s", name, first->label, inner);
            return 2;
        }
    }
    if (parse_env_options(&r, msg, len) != 0 || parse_run_words(o->argc, o->argv, &r, msg, len))
        return 2;
    r.argc = o->argc;
    r.argv = o->argv;
    *o = r;
    return 0;
}

int mbx_cli_parse_run(int argc, char **argv, mbx_run_opts *o, char *msg, size_t len)
{
    run_defaults(o);
    o->argc = argc;
    o->argv = argv;
    if (parse_env_options(o, msg, len) != 0)
        return 2;
    return parse_run_words(argc, argv, o, msg, len);
}

int mbx_cli_thread_level(int argc, char **argv)
{
    mbx_run_opts o;
    char msg[512];
    if (mbx_cli_parse_run(argc, argv, &o, msg, sizeof msg) != 0 || o.help)
        return MPI_THREAD_SINGLE; /* rank 0 says why after start-up */
    mbx_plan *plan = o.plan_path ? calloc(1, sizeof *plan) : NULL;
    if (plan && mbx_plan_load(o.plan_path, plan, msg, sizeof msg) == MBX_OK &&
        mbx_plan_override(plan, &o.ov, msg, sizeof msg) == MBX_OK)
        (void)mbx_cli_plan_run_keys(&o, plan, o.plan_path, msg, sizeof msg);
    free(plan);
    return o.thread_level;
}

void mbx_size_text(uint64_t b, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    int u = 0;
    while (v >= 1024 && u < 4)
        v /= 1024, u++;
    if (v == floor(v))
        snprintf(buf, len, "%.0f %s", v, unit[u]);
    else
        snprintf(buf, len, "%.1f %s", v, unit[u]);
}
