/* A measurement of a plan (see mbx/plan.h): its defaults, the keys and the
 * parsing of their values (benchmarks, sizes, stop rules, ranges of procs
 * and params, pairs, refinement), and the checks of the whole. Plan files
 * and overrides are in plan.c. */
#include "mbx/plan.h"

#include <assert.h>
#include <errno.h>
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

const char *const mbx_plan_key_names[KEY_COUNT] = {
    "bench",  "sizes",  "stop",     "nmin",       "nmax", "procs", "param", "root", "pair",
    "refine", "budget", "rma_sync", "point_time", "sync", "cache", "timer", "seed", "warmup"};

const char *const mbx_plan_run_keys[MBX_PLAN_RUN_KEYS] = {"sync", "cache", "timer", "seed",
                                                          "warmup"};

int mbx_plan_key_index(const char *key)
{
    for (int i = 0; i < KEY_COUNT; i++) {
        if (strcmp(key, mbx_plan_key_names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

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

static int set_refine(mbx_measurement *m, const char *v, char *why, size_t whylen)
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
            strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789._*?[]!-") != len) {
            /* Names, groups and globs; the front end expands them against
             * the registry (mbx_name_select, mbx/names.h). */
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
static int set_point_time(mbx_measurement *m, const char *v, char *why, size_t whylen)
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

int mbx_plan_set_key(mbx_measurement *m, const char *key, const char *value, char *why,
                     size_t whylen)
{
    int k = key ? mbx_plan_key_index(key) : -1;
    const char *near =
        k < 0 && key ? mbx_name_suggest(mbx_plan_key_names, KEY_COUNT, key, strlen(key)) : NULL;
    if (near != NULL) {
        mbx_msgf(why, whylen, "unknown key (did you mean %s?); allowed keys: " KEYS_ALLOWED, near);
        return MBX_E_UNKNOWN;
    }
    if (k < 0) {
        mbx_msgf(why, whylen, "unknown key; allowed keys: " KEYS_ALLOWED);
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
    } else if (k == KEY_BENCH) {
        rc = set_bench(m, v, why, whylen);
    } else if (k == KEY_SIZES) {
        /* Parse aside so a bad value leaves the measurement untouched. */
        mbx_size_list *tmp = malloc(sizeof *tmp);
        if (tmp == NULL) {
            mbx_msgf(why, whylen, "out of memory");
            rc = MBX_E_NOMEM;
        } else if ((rc = mbx_sizes_parse(v, tmp, why, whylen)) == MBX_OK) {
            memcpy(m->sizes.v, tmp->v, tmp->n * sizeof tmp->v[0]);
            m->sizes.n = tmp->n;
            m->sizes_given = 1;
        }
        free(tmp);
    } else if (k == KEY_STOP) {
        mbx_stop_rule rule;
        if ((rc = mbx_stop_parse(v, &rule, why, whylen)) == MBX_OK) {
            /* Member by member: struct assignment may carry the parser's
             * uninitialised padding into a plan that is compared bytewise. */
            m->stop.kind = rule.kind;
            m->stop.eps = rule.eps;
            m->stop.fixed = rule.fixed;
        }
    } else if (k == KEY_PROCS) {
        rc = set_procs(m, v, why, whylen);
    } else if (k == KEY_PARAM) {
        rc = set_param(m, v, why, whylen);
    } else if (k == KEY_ROOT) {
        long long r = parse_int(v, MBX_PROCS_LIMIT - 1);
        if (r < 0) {
            mbx_msgf(why, whylen, "expected a rank in 0..%d", MBX_PROCS_LIMIT - 1);
            rc = MBX_E_INVAL;
        } else {
            m->root = (int)r;
        }
    } else if (k == KEY_PAIR) {
        rc = set_pair(m, v, why, whylen);
    } else if (k == KEY_REFINE) {
        rc = set_refine(m, v, why, whylen);
    } else if (k == KEY_RMA_SYNC) {
        if (mbx_rma_sync_parse(v, &m->rma_sync) < 0) {
            mbx_msgf(why, whylen, "expected %s (got '%s')", MBX_RMA_SYNC_WORDS, v);
            rc = MBX_E_INVAL;
        }
    } else if (k == KEY_BUDGET) {
        long long b = parse_int(v, MBX_BUDGET_LIMIT);
        if (b < 0) {
            mbx_msgf(why, whylen, "expected an integer in 0..%d", MBX_BUDGET_LIMIT);
            rc = MBX_E_INVAL;
        } else {
            m->budget = (size_t)b;
        }
    } else if (k == KEY_POINT_TIME) {
        rc = set_point_time(m, v, why, whylen);
    } else if (k >= KEY_SYNC) {
        /* A key of the whole run: kept as written for the front end. */
        if (strlen(v) >= MBX_PLAN_RUN_VALUE_MAX) {
            mbx_msgf(why, whylen, "value too long (at most %d characters)",
                     MBX_PLAN_RUN_VALUE_MAX - 1);
            rc = MBX_E_INVAL;
        } else {
            snprintf(m->run_key[k - KEY_SYNC], MBX_PLAN_RUN_VALUE_MAX, "%s", v);
        }
    } else {
        rc = parse_count(v, k == KEY_NMIN ? &m->nmin : &m->nmax, why, whylen);
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
