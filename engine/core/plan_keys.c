/* A measurement of a plan (see mbx/plan.h): its defaults, the keys and the
 * parsing of their values (benchmarks, sizes, stop rules, ranges of procs
 * and params, pairs, refinement), and the checks of the whole. Plan files
 * and overrides are in plan.c. */
#include "mbx/plan.h"

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/ascii.h"
#include "mbx/names.h"
#include "mbx/rma.h"
#include "msg.h"
#include "plan_int.h"

/* From 0 B, as OSU and IMB start (a range from 0 is 0, 1, 2, 4, ...). */
#define PLAN_DEFAULT_SIZES "0:4MiB:2"

char *mbx_plan_trim(char *s)
{
    while (mbx_ascii_isspace((unsigned char)*s)) {
        s++;
    }
    size_t n = strlen(s);
    while (n > 0 && mbx_ascii_isspace((unsigned char)s[n - 1])) {
        s[--n] = '\0';
    }
    return s;
}

void mbx_measurement_defaults(mbx_measurement *m, const char *label)
{
    memset(m, 0, sizeof *m);
    snprintf(m->label, sizeof m->label, "%s", label ? label : "");
    int rc = mbx_sizes_parse(PLAN_DEFAULT_SIZES, &m->sizes, NULL, 0);
    assert(rc == MBX_OK);
    (void)rc;
    m->stop.kind = MBX_STOP_STDERR;
    m->stop.eps = MBX_STOP_DEFAULT_EPS;
    m->nmin = MBX_NMIN_DEFAULT;
    m->nmax = MBX_NMAX_DEFAULT;
    m->procs_all = 1;
    m->pair_auto = 1;
    m->budget = MBX_BUDGET_DEFAULT;
}

/* A non-negative decimal integer up to lim; -1 if it is not one. */
static long long parse_int(const char *s, long long lim)
{
    size_t len = strlen(s);
    if (len == 0 || len > 12 || strspn(s, "0123456789") != len)
        return -1;
    long long v = strtoll(s, NULL, 10);
    return v <= lim ? v : -1;
}

/* A range A:B[:F] (v is modified): the geometric grid A, A*F, A*F^2, ...
 * rounded and strictly increasing, B always last, at most max values in
 * 1..lim (F defaults to 2). MBX_E_INVAL with why set to the factor's rule
 * when F is bad, and to `expected` when A or B is. */
static int expand_range(char *v, long long lim, size_t max, int64_t *list, size_t *n,
                        const char *expected, char *why, size_t whylen)
{
    char *p1 = strchr(v, ':'), *p2 = strchr(p1 + 1, ':');
    *p1 = '\0';
    if (p2)
        *p2 = '\0';
    long long a = parse_int(mbx_plan_trim(v), lim), b = parse_int(mbx_plan_trim(p1 + 1), lim);
    double f = 2.0;
    char *end = NULL;
    if (p2) {
        f = mbx_strtod(mbx_plan_trim(p2 + 1), &end);
        if (end == p2 + 1 || *end != '\0' || !(f > 1.0 && f <= 64.0)) {
            mbx_msgf(why, whylen, "range factor F must be a number with 1 < F <= 64 (A:B:F)");
            return MBX_E_INVAL;
        }
    }
    if (a < 1 || b < a) {
        mbx_msgf(why, whylen, "%s", expected);
        return MBX_E_INVAL;
    }
    *n = 0;
    double x = (double)a;
    while (*n < max - 1 && (long long)(x + 0.5) < b) {
        int64_t p = (int64_t)(x + 0.5);
        if (*n == 0 || p > list[*n - 1])
            list[(*n)++] = p;
        x *= f;
    }
    if (*n == 0 || list[*n - 1] < b)
        list[(*n)++] = b;
    return MBX_OK;
}

static int set_procs(mbx_measurement *m, char *v, char *why, size_t whylen)
{
    int list[MBX_PLAN_MAX_PROCS];
    size_t n = 0;
    int range = 0;
    if (strcmp(v, "all") == 0) {
        m->procs_all = 1;
        m->procs_range = 0;
        m->nprocs = 0;
        return MBX_OK;
    }
    if (strchr(v, ':')) {
        int64_t grid[MBX_PLAN_MAX_PROCS];
        char expected[128];
        snprintf(expected, sizeof expected,
                 "expected all, a list like 2,4,8, or a range A:B[:F] with 1 <= A <= B <= %d",
                 MBX_PROCS_LIMIT);
        if (expand_range(v, MBX_PROCS_LIMIT, MBX_PLAN_MAX_PROCS, grid, &n, expected, why, whylen) <
            0)
            return MBX_E_INVAL;
        for (size_t i = 0; i < n; i++)
            list[i] = (int)grid[i];
        range = 1;
    } else {
        for (char *save = NULL, *tok = strtok_r(v, ",", &save); tok;
             tok = strtok_r(NULL, ",", &save)) {
            long long p = parse_int(mbx_plan_trim(tok), MBX_PROCS_LIMIT);
            if (p < 1) {
                mbx_msgf(why, whylen,
                         "expected all, a list like 2,4,8, or a range A:B[:F]; counts are "
                         "1..%d (got '%s')",
                         MBX_PROCS_LIMIT, mbx_plan_trim(tok));
                return MBX_E_INVAL;
            }
            if (n > 0 && p <= list[n - 1]) {
                mbx_msgf(why, whylen, "process counts must increase (%lld after %d)", p,
                         list[n - 1]);
                return MBX_E_INVAL;
            }
            if (n == MBX_PLAN_MAX_PROCS) {
                mbx_msgf(why, whylen, "at most %d process counts", MBX_PLAN_MAX_PROCS);
                return MBX_E_INVAL;
            }
            list[n++] = (int)p;
        }
        if (n == 0) {
            mbx_msgf(why, whylen, "expected all, a list like 2,4,8, or a range A:B[:F]");
            return MBX_E_INVAL;
        }
    }
    memcpy(m->procs, list, n * sizeof list[0]);
    m->nprocs = n;
    m->procs_all = 0;
    m->procs_range = range;
    return MBX_OK;
}

static int set_param(mbx_measurement *m, char *v, char *why, size_t whylen)
{
    int64_t list[MBX_PLAN_MAX_PARAM];
    size_t n = 0;
    if (strchr(v, ':')) {
        char expected[128];
        snprintf(expected, sizeof expected,
                 "expected a list like 1,2,4 or a range A:B[:F] with 1 <= A <= B <= %d",
                 MBX_PARAM_LIMIT);
        if (expand_range(v, MBX_PARAM_LIMIT, MBX_PLAN_MAX_PARAM, list, &n, expected, why, whylen) <
            0)
            return MBX_E_INVAL;
    } else {
        for (char *save = NULL, *tok = strtok_r(v, ",", &save); tok;
             tok = strtok_r(NULL, ",", &save)) {
            long long p = parse_int(mbx_plan_trim(tok), MBX_PARAM_LIMIT);
            if (p < 1 || n == MBX_PLAN_MAX_PARAM) {
                mbx_msgf(why, whylen,
                         "expected a list of at most %d integers in 1..%d, or a range A:B[:F] "
                         "(got '%s')",
                         MBX_PLAN_MAX_PARAM, MBX_PARAM_LIMIT, mbx_plan_trim(tok));
                return MBX_E_INVAL;
            }
            list[n++] = p;
        }
    }
    if (n == 0) {
        mbx_msgf(why, whylen, "expected a list of integers in 1..%d, or a range A:B[:F]",
                 MBX_PARAM_LIMIT);
        return MBX_E_INVAL;
    }
    memcpy(m->param, list, n * sizeof list[0]);
    m->nparam = n;
    return MBX_OK;
}

static int set_pair(mbx_measurement *m, char *v, char *why, size_t whylen)
{
    if (strcmp(v, "auto") == 0) {
        m->pair_auto = 1;
        m->pair_a = m->pair_b = 0;
        return MBX_OK;
    }
    char *comma = strchr(v, ',');
    long long a = -1, b = -1;
    if (comma) {
        *comma = '\0';
        a = parse_int(mbx_plan_trim(v), MBX_PROCS_LIMIT - 1);
        b = parse_int(mbx_plan_trim(comma + 1), MBX_PROCS_LIMIT - 1);
    }
    if (a < 0 || b < 0 || a == b) {
        mbx_msgf(why, whylen, "expected auto or two different ranks A,B in 0..%d",
                 MBX_PROCS_LIMIT - 1);
        return MBX_E_INVAL;
    }
    m->pair_auto = 0;
    m->pair_a = (int)a;
    m->pair_b = (int)b;
    return MBX_OK;
}

static int set_refine(mbx_measurement *m, char *v, char *why, size_t whylen)
{
    if (strcmp(v, "off") == 0 || strcmp(v, "0") == 0) {
        m->refine = 0.0;
        return MBX_OK;
    }
    char *end = NULL;
    double e = mbx_strtod(v, &end);
    if (end != v && *end == '%' && end[1] == '\0')
        e /= 100.0;
    else if (end == v || *end != '\0')
        e = -1.0;
    if (!(e > 0.0 && e < 1.0)) {
        mbx_msgf(
            why, whylen,
            "expected off or EPS with 0 < EPS < 1, as a fraction (0.05) or a percentage (5%%)");
        return MBX_E_INVAL;
    }
    m->refine = e;
    return MBX_OK;
}

static int set_bench(mbx_measurement *m, char *value, char *why, size_t whylen)
{
    /* Zeroed so the measurement holds no stray bytes past each name: plans
     * are compared and copied as whole structs. */
    char names[MBX_PLAN_MAX_BENCH][MBX_NAME_MAX] = {{0}};
    size_t n = 0;
    for (char *item = value;;) {
        char *comma = strchr(item, ',');
        if (comma) {
            *comma = '\0';
        }
        char *name = mbx_plan_trim(item);
        size_t len = strlen(name);
        if (len == 0 || len >= MBX_NAME_MAX ||
            strspn(name,
                   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._*?[]!-") !=
                len) {
            /* Names, groups and globs; the front end expands them against
             * the registry (mbx_name_select, mbx/names.h). Capitals pass:
             * no registry name has one, but IMB's names do ("PingPong"),
             * and the front end answers those with the name to use. */
            mbx_msgf(why, whylen,
                     "bad benchmark name \"%.*s\"; expected a comma-separated list of names, "
                     "groups or globs of 1..%d characters a-z 0-9 . _ * ? [ ] ! - (e.g. "
                     "pingpong.send_recv, coll.*)",
                     MBX_NAME_MAX, name, MBX_NAME_MAX - 1);
            return MBX_E_INVAL;
        }
        for (size_t i = 0; i < n; i++) {
            if (strcmp(names[i], name) == 0) {
                mbx_msgf(why, whylen, "benchmark \"%s\" is listed twice", name);
                return MBX_E_INVAL;
            }
        }
        if (n == MBX_PLAN_MAX_BENCH) {
            mbx_msgf(why, whylen, "too many benchmarks; at most %d per measurement",
                     MBX_PLAN_MAX_BENCH);
            return MBX_E_INVAL;
        }
        memcpy(names[n++], name, len + 1);
        if (comma == NULL) {
            break;
        }
        item = comma + 1;
    }
    memcpy(m->bench, names, sizeof names);
    m->nbench = n;
    return MBX_OK;
}

/* Seconds of passes per point (IMB's -time): the words of `run
 * --point-time`. */
static int set_point_time(mbx_measurement *m, char *v, char *why, size_t whylen)
{
    char *end = NULL;
    double d = mbx_strtod(v, &end);
    if (end == v || *end != '\0' || !(d >= 0 && d <= MBX_POINT_TIME_LIMIT)) {
        mbx_msgf(why, whylen, "expected seconds in 0..%g, 0 for no cap (got '%s')",
                 MBX_POINT_TIME_LIMIT, v);
        return MBX_E_INVAL;
    }
    m->point_time = d;
    return MBX_OK;
}

static int parse_count(const char *value, size_t *out, char *why, size_t whylen)
{
    size_t len = strlen(value);
    unsigned long long v = 0;
    int ok = len > 0 && strspn(value, "0123456789") == len;
    for (size_t i = 0; ok && i < len; i++) {
        v = v * 10 + (unsigned)(value[i] - '0');
        ok = v <= MBX_NMAX_LIMIT;
    }
    if (!ok || v < 1) {
        mbx_msgf(why, whylen, "expected an integer in 1..%d", MBX_NMAX_LIMIT);
        return MBX_E_INVAL;
    }
    *out = (size_t)v;
    return MBX_OK;
}

static int set_sizes(mbx_measurement *m, char *v, char *why, size_t whylen)
{
    /* Parsed aside so a bad value leaves the measurement untouched. */
    mbx_size_list *tmp = malloc(sizeof *tmp);
    int rc = MBX_E_NOMEM;
    if (tmp == NULL)
        mbx_msgf(why, whylen, "out of memory");
    else if ((rc = mbx_sizes_parse(v, tmp, why, whylen)) == MBX_OK) {
        memcpy(m->sizes.v, tmp->v, tmp->n * sizeof tmp->v[0]);
        m->sizes.n = tmp->n;
        m->sizes_given = 1;
    }
    free(tmp);
    return rc;
}

static int set_stop(mbx_measurement *m, char *v, char *why, size_t whylen)
{
    mbx_stop_rule rule;
    int rc = mbx_stop_parse(v, &rule, why, whylen);
    if (rc == MBX_OK) {
        /* Member by member: struct assignment may carry the parser's
         * uninitialised padding into a plan that is compared bytewise. */
        m->stop.kind = rule.kind;
        m->stop.eps = rule.eps;
        m->stop.fixed = rule.fixed;
    }
    return rc;
}

static int set_nmin(mbx_measurement *m, char *v, char *why, size_t whylen)
{
    return parse_count(v, &m->nmin, why, whylen);
}

static int set_nmax(mbx_measurement *m, char *v, char *why, size_t whylen)
{
    return parse_count(v, &m->nmax, why, whylen);
}

static int set_root(mbx_measurement *m, char *v, char *why, size_t whylen)
{
    long long r = parse_int(v, MBX_PROCS_LIMIT - 1);
    if (r < 0) {
        mbx_msgf(why, whylen, "expected a rank in 0..%d", MBX_PROCS_LIMIT - 1);
        return MBX_E_INVAL;
    }
    m->root = (int)r;
    return MBX_OK;
}

static int set_budget(mbx_measurement *m, char *v, char *why, size_t whylen)
{
    long long b = parse_int(v, MBX_BUDGET_LIMIT);
    if (b < 0) {
        mbx_msgf(why, whylen, "expected an integer in 0..%d", MBX_BUDGET_LIMIT);
        return MBX_E_INVAL;
    }
    m->budget = (size_t)b;
    return MBX_OK;
}

static int set_rma_sync(mbx_measurement *m, char *v, char *why, size_t whylen)
{
    if (mbx_rma_sync_parse(v, &m->rma_sync) < 0) {
        mbx_msgf(why, whylen, "expected %s (got '%s')", MBX_RMA_SYNC_WORDS, v);
        return MBX_E_INVAL;
    }
    return MBX_OK;
}

typedef int (*key_set_fn)(mbx_measurement *m, char *v, char *why, size_t whylen);

/* Every key of a plan: adding one is a row here. A measurement's keys come
 * first, each with its setter and its field in mbx_plan_overrides (the
 * `run` option that overrides it in every section). The keys of the whole
 * run follow, without a setter: kept as written in run_key[] (in this
 * order) and checked and applied by the front end as its option of the
 * same name (--NAME, '_' as '-'), so their values, ranges and messages
 * are the option's own. */
#define OV(field) offsetof(mbx_plan_overrides, field)
typedef struct plan_key {
    const char *name;
    key_set_fn set; /* NULL: a key of the whole run */
    size_t ov;      /* offset of the override's const char * */
} plan_key;

/* clang-format off */
static const plan_key plan_keys[] = {
    {"bench", set_bench, OV(bench)},
    {"sizes", set_sizes, OV(sizes)},
    {"stop", set_stop, OV(stop)},
    {"nmin", set_nmin, OV(nmin)},
    {"nmax", set_nmax, OV(nmax)},
    {"procs", set_procs, OV(procs)},
    {"param", set_param, OV(param)},
    {"root", set_root, OV(root)},
    {"pair", set_pair, OV(pair)},
    {"refine", set_refine, OV(refine)},
    {"budget", set_budget, OV(budget)},
    {"rma_sync", set_rma_sync, OV(rma_sync)},
    {"point_time", set_point_time, OV(point_time)},
    /* The whole run's (MBX_PLAN_RUN_KEYS of them). */
    {"sync", NULL, 0},
    {"cache", NULL, 0},
    {"timer", NULL, 0},
    {"seed", NULL, 0},
    {"warmup", NULL, 0},
    {"passes", NULL, 0},
    {"max_passes", NULL, 0},
    {"span", NULL, 0},
    {"pass_ms", NULL, 0},
    {"time_limit", NULL, 0},
    {"watchdog", NULL, 0},
    {"settle", NULL, 0},
    {"monitor", NULL, 0},
    {"shift", NULL, 0},
    {"order", NULL, 0},
    {"clock_sync", NULL, 0},
    {"resync", NULL, 0},
    {"sync_span", NULL, 0},
    {"window", NULL, 0},
    {"window_delay", NULL, 0},
    {"window_limit", NULL, 0},
    {"thread_level", NULL, 0},
    {"validate", NULL, 0},
    {"raw", NULL, 0},
};
/* clang-format on */

_Static_assert(
    sizeof plan_keys / sizeof plan_keys[0] == KEY_COUNT,
    "plan_keys: MBX_PLAN_RUN_KEYS (mbx/plan.h) and KEY_MEAS (plan_int.h) count its rows");

const char *mbx_plan_key_name(int k)
{
    return k >= 0 && k < KEY_COUNT ? plan_keys[k].name : NULL;
}

const char *mbx_plan_run_key(int k)
{
    return k >= 0 && k < MBX_PLAN_RUN_KEYS ? plan_keys[KEY_MEAS + k].name : NULL;
}

int mbx_plan_key_index(const char *key)
{
    for (int i = 0; key && i < KEY_COUNT; i++)
        if (strcmp(key, plan_keys[i].name) == 0)
            return i;
    return -1;
}

int mbx_plan_run_key_index(const char *key)
{
    int k = mbx_plan_key_index(key);
    return k >= KEY_MEAS ? k - KEY_MEAS : -1;
}

const char *mbx_plan_override_of(const mbx_plan_overrides *ov, int k)
{
    return k >= 0 && k < KEY_MEAS
               ? *(const char *const *)(const void *)((const char *)ov + plan_keys[k].ov)
               : NULL;
}

void mbx_plan_unknown_key(const char *key, char *why, size_t whylen)
{
    const char *names[KEY_COUNT];
    char list[KEY_COUNT * 16] = "";
    size_t n = 0;
    for (int i = 0; i < KEY_COUNT; i++) {
        names[i] = plan_keys[i].name;
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", names[i]);
    }
    const char *near = key ? mbx_name_suggest(names, KEY_COUNT, key, strlen(key)) : NULL;
    if (near)
        mbx_msgf(why, whylen, "unknown key (did you mean %s?); allowed keys: %s", near, list);
    else
        mbx_msgf(why, whylen, "unknown key; allowed keys: %s", list);
}

int mbx_plan_set_key(mbx_measurement *m, const char *key, const char *value, char *why,
                     size_t whylen)
{
    int k = mbx_plan_key_index(key);
    if (k < 0) {
        mbx_plan_unknown_key(key, why, whylen);
        return MBX_E_UNKNOWN;
    }
    if (value == NULL) {
        mbx_msgf(why, whylen, "no value given");
        return MBX_E_INVAL;
    }
    char *copy = malloc(strlen(value) + 1);
    if (copy == NULL) {
        mbx_msgf(why, whylen, "out of memory");
        return MBX_E_NOMEM;
    }
    strcpy(copy, value);
    char *v = mbx_plan_trim(copy);
    int rc = MBX_OK;
    if (*v == '\0') {
        mbx_msgf(why, whylen, "empty value");
        rc = MBX_E_INVAL;
    } else if (plan_keys[k].set) {
        rc = plan_keys[k].set(m, v, why, whylen);
    } else if (strlen(v) >= MBX_PLAN_RUN_VALUE_MAX) {
        mbx_msgf(why, whylen, "value too long (at most %d characters)", MBX_PLAN_RUN_VALUE_MAX - 1);
        rc = MBX_E_INVAL;
    } else {
        snprintf(m->run_key[k - KEY_MEAS], MBX_PLAN_RUN_VALUE_MAX, "%s", v);
    }
    free(copy);
    return rc;
}

int mbx_measurement_set(mbx_measurement *m, const char *key, const char *value, char *msg,
                        size_t msglen)
{
    char why[REASON_MAX];
    if (m == NULL) {
        mbx_msgf(msg, msglen, "no measurement given");
        return MBX_E_INVAL;
    }
    int rc = mbx_plan_set_key(m, key, value, why, sizeof why);
    if (rc < 0) {
        mbx_msgf(msg, msglen, "%s: %s", key ? key : "(null)", why);
    }
    return rc;
}

int mbx_measurement_check(const mbx_measurement *m, char *msg, size_t msglen)
{
    if (m->nbench == 0) {
        mbx_msgf(msg, msglen, "bench: required");
        return MBX_E_INVAL;
    }
    if (m->sizes.n == 0) {
        mbx_msgf(msg, msglen, "sizes: no sizes");
        return MBX_E_INVAL;
    }
    if (m->nmin > m->nmax) {
        mbx_msgf(msg, msglen, "nmin: %zu is larger than nmax (%zu)", m->nmin, m->nmax);
        return MBX_E_INVAL;
    }
    return MBX_OK;
}
