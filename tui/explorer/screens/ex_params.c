/* The parameter form. Every field is validated as it is typed, through the
 * same core parsers, rules and messages as the command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/axis.h"
#include "ex_keys.h"
#include "explorer.h"
#include "mbx/ascii.h"
#include "mbx/rma.h"
#include "mbx/sizes.h"
#include "screens/screen.h"

/* Refinement defaults as in batch runs (off, budget MBX_BUDGET_DEFAULT):
 * the grid alone is the fast, predictable first run; why, in
 * docs/user-guide.md, "Adaptive refinement". */
#define EX_STR_(v) #v
#define EX_STR(v) EX_STR_(v)

static const char *const rules[] = {"stderr", "cv", "ci", "fixed", NULL};
static const char *const timers[] = {"clock", "wtime", NULL};
static const char *const syncs[] = {"barrier", "window", NULL};
static const char *const clocks[] = {"jk", "hca", NULL};
static const char *const caches[] = {"warm", "cold", NULL};
static const char *const onoff[] = {"off", "on", NULL};
static const char *const rma_syncs[] = {"lock_all", "fence", "lock", "pscw", NULL};

/* Hints naming a range of ranks get it filled in (%d: the last rank). */
static const mbx_ex_fielddef fields[EX_NFIELDS] = {
    {"size min", "bytes: 0, 1, 64, 4K, 4KiB, 1M (binary multiples)", NULL},
    {"size max", "always measured", NULL},
    {"size factor", "> 1 and <= 1024, or sqrt2", NULL},
    {"processes", "all, 2,4,8, or A:B[:F] of 1..%d+1 (F: factor, 2)", NULL},
    {"stop rule", "stderr (SKaMPI), cv (Sphinx), ci (median CI), fixed", rules},
    {"EPS / N", "target, 0.03 or 3%; N for fixed", NULL},
    {"n_min", "fewest observations of one pass", NULL},
    {"n_max", "most observations of one pass", NULL},
    {"refine", "default off; or EPS (5%): error target of a segment", NULL},
    {"refine budget", "default " EX_STR(MBX_BUDGET_DEFAULT) ", 0..10000: most points a curve gains",
     NULL},
    {"root", "0..%d: root of rooted collectives and mw.*", NULL},
    {"param", "default, N,M or A:B[:F]: mw.* pieces, threads.*/omp.* threads", NULL},
    {"pair", "auto (farthest from 0), or A,B in 0..%d", NULL},
    {"validate", "check the data that arrived (per point)", onoff},
    {"timer", "clock_gettime(MONOTONIC) or MPI_Wtime", timers},
    {"sync", "barrier before each observation, or window (a global clock)", syncs},
    {"clock sync", "window's clock: jk (Jones-Koenig) or hca (hierarchical)", clocks},
    {"cache", "warm, or cold (an LLC-sized buffer overwritten before each)", caches},
    {"rma sync", "rma.*: lock_all+flush, fence, lock/unlock, or pscw", rma_syncs},
    {"point time", "0, or seconds a point's passes may take (IMB's -time)", NULL},
    {"warm-up", "default, or untimed calls at each point's size, 1..1000000", NULL},
};

static void hint(const explorer *x, int f, char *buf, size_t len)
{
    const char *h = fields[f].hint;
    const char *pct = strstr(h, "%d");
    if (!pct) {
        snprintf(buf, len, "%s", h);
        return;
    }
    int last = x->be->nranks - 1;
    if (pct[2] == '+') /* "%d+1": the count, not the last rank */
        snprintf(buf, len, "%.*s%d%s", (int)(pct - h), h, last + 1, pct + 4);
    else
        snprintf(buf, len, "%.*s%d%s", (int)(pct - h), h, last, pct + 2);
}

static int choice_index(const char *const *choices, const char *v)
{
    for (int i = 0; choices[i]; i++)
        if (strcmp(choices[i], v) == 0)
            return i;
    return 0;
}

/* A choice turned: keep EPS meaningful when switching to and from fixed. */
static void turned(explorer *x, int f)
{
    if (f != EX_F_RULE)
        return;
    int fixed = strcmp(x->par.field[EX_F_RULE], "fixed") == 0;
    char *eps = x->par.field[EX_F_EPS];
    if (fixed && strchr(eps, '%'))
        snprintf(eps, sizeof x->par.field[0], "100");
    else if (!fixed && !strchr(eps, '%') && !strchr(eps, '.'))
        snprintf(eps, sizeof x->par.field[0], "3%%");
}

/* The clock sync matters only with window sync. */
static int unused(const explorer *x, int f)
{
    return f == EX_F_CLOCK && x->method.sync != MBX_SYNC_WINDOW;
}

/* A plan's process counts as the form writes them: all, the range A:B
 * when that gives the same counts, else the list. */
static void format_procs(const mbx_measurement *m, char *buf, size_t len)
{
    if (m->procs_all || m->nprocs == 0) {
        snprintf(buf, len, "all");
        return;
    }
    if (m->procs_range) {
        mbx_measurement t;
        mbx_measurement_defaults(&t, "");
        char r[32], msg[200];
        snprintf(r, sizeof r, "%d:%d", m->procs[0], m->procs[m->nprocs - 1]);
        if (mbx_measurement_set(&t, "procs", r, msg, sizeof msg) == 0 && t.nprocs == m->nprocs &&
            memcmp(t.procs, m->procs, m->nprocs * sizeof m->procs[0]) == 0) {
            snprintf(buf, len, "%s", r);
            return;
        }
    }
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < m->nprocs && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%d", i ? "," : "", m->procs[i]);
}

void mbx_ex_params_init(explorer *x, const mbx_measurement *m)
{
    x->par.form = (mbx_ex_form){.defs = fields,
                                .nfields = EX_NFIELDS,
                                .text = x->par.field[0],
                                .tsize = sizeof x->par.field[0],
                                .err = x->par.ferr[0],
                                .esize = sizeof x->par.ferr[0],
                                .screen = EX_PARAMS,
                                .label_w = 15,
                                .value_x = 17,
                                .value_w = 18,
                                .changed = mbx_ex_params_validate,
                                .turned = turned,
                                .hint = hint,
                                .unused = unused};
    char a[32], b[32];
    mbx_size_format(m->sizes.v[0], a, sizeof a);
    mbx_size_format(m->sizes.v[m->sizes.n - 1], b, sizeof b);
    snprintf(x->par.field[EX_F_SIZE_MIN], sizeof x->par.field[0], "%s", a);
    snprintf(x->par.field[EX_F_SIZE_MAX], sizeof x->par.field[0], "%s", b);
    /* A plan's grid came from some factor; the ratio of its first step is
     * it (a grid from 0 is 0, 1, F, ...: its second step). */
    size_t s0 = m->sizes.v[0] == 0 ? 1 : 0;
    double f = m->sizes.n > s0 + 1 ? (double)m->sizes.v[s0 + 1] / (double)m->sizes.v[s0] : 2.0;
    snprintf(x->par.field[EX_F_FACTOR], sizeof x->par.field[0], "%g", f > 1 ? f : 2.0);
    format_procs(m, x->par.field[EX_F_PROCS], sizeof x->par.field[0]);
    static const char *const kinds[] = {"stderr", "cv", "ci", "fixed"};
    snprintf(x->par.field[EX_F_RULE], sizeof x->par.field[0], "%s", kinds[m->stop.kind]);
    if (m->stop.kind == MBX_STOP_FIXED)
        snprintf(x->par.field[EX_F_EPS], sizeof x->par.field[0], "%zu", m->stop.fixed);
    else
        snprintf(x->par.field[EX_F_EPS], sizeof x->par.field[0], "%g%%", 100.0 * m->stop.eps);
    snprintf(x->par.field[EX_F_NMIN], sizeof x->par.field[0], "%zu", m->nmin);
    snprintf(x->par.field[EX_F_NMAX], sizeof x->par.field[0], "%zu", m->nmax);
    if (m->refine > 0)
        snprintf(x->par.field[EX_F_REFINE], sizeof x->par.field[0], "%g%%", 100.0 * m->refine);
    else
        snprintf(x->par.field[EX_F_REFINE], sizeof x->par.field[0], "off");
    snprintf(x->par.field[EX_F_BUDGET], sizeof x->par.field[0], "%zu", m->budget);
    snprintf(x->par.field[EX_F_ROOT], sizeof x->par.field[0], "%d", m->root);
    if (m->nparam == 0) {
        snprintf(x->par.field[EX_F_PARAM], sizeof x->par.field[0], "default");
    } else {
        size_t k = 0;
        for (size_t i = 0; i < m->nparam && k < sizeof x->par.field[0]; i++)
            k += (size_t)snprintf(x->par.field[EX_F_PARAM] + k, sizeof x->par.field[0] - k,
                                  "%s%lld", i ? "," : "", (long long)m->param[i]);
    }
    if (m->pair_auto)
        snprintf(x->par.field[EX_F_PAIR], sizeof x->par.field[0], "auto");
    else
        snprintf(x->par.field[EX_F_PAIR], sizeof x->par.field[0], "%d,%d", m->pair_a, m->pair_b);
    snprintf(x->par.field[EX_F_RMA_SYNC], sizeof x->par.field[0], "%s",
             mbx_rma_sync_name(mbx_rma_sync_resolve(m->rma_sync)));
    snprintf(x->par.field[EX_F_VALIDATE], sizeof x->par.field[0], "off");
    snprintf(x->par.field[EX_F_TIMER], sizeof x->par.field[0], "%s", mbx_timer_name(x->timer));
    snprintf(x->par.field[EX_F_SYNC], sizeof x->par.field[0], "barrier");
    snprintf(x->par.field[EX_F_CLOCK], sizeof x->par.field[0], "jk");
    snprintf(x->par.field[EX_F_CACHE], sizeof x->par.field[0], "warm");
    mbx_snprintf_c(x->par.field[EX_F_POINT_TIME], sizeof x->par.field[0], "%g", m->point_time);
    snprintf(x->par.field[EX_F_WARMUP], sizeof x->par.field[0], "default");
    /* A plan's keys of the whole run that the form has (the rest, seed
     * and the passes' keys among them, shape batch runs only). A choice
     * the form does not offer (cold:SIZE, tsc) keeps the form's default; validate's yes and no are
     * its on and off; a warm-up is checked below like one typed. */
    static const struct {
        const char *key;
        int field;
    } run_field[] = {{"sync", EX_F_SYNC},   {"cache", EX_F_CACHE},       {"clock_sync", EX_F_CLOCK},
                     {"timer", EX_F_TIMER}, {"validate", EX_F_VALIDATE}, {"warmup", EX_F_WARMUP}};
    for (size_t i = 0; i < sizeof run_field / sizeof run_field[0]; i++) {
        const char *v = m->run_key[mbx_plan_run_key_index(run_field[i].key)];
        const char *const *choices = fields[run_field[i].field].choices;
        v = !strcmp(v, "yes") ? "on" : !strcmp(v, "no") ? "off" : v;
        if (v[0] && (!choices || strcmp(choices[choice_index(choices, v)], v) == 0))
            snprintf(x->par.field[run_field[i].field], sizeof x->par.field[0], "%s", v);
    }
    mbx_ex_params_validate(x);
}

/* The core parsers name their key ("budget: ..."); the form names its
 * field ("refine budget: ..."). */
static void field_err(explorer *x, int f, const char *key, const char *msg)
{
    size_t kl = strlen(key);
    const char *rest = strncmp(msg, key, kl) == 0 && msg[kl] == ':' ? msg + kl + 1 : msg;
    while (*rest == ' ')
        rest++;
    snprintf(x->par.ferr[f], sizeof x->par.ferr[0], "%s: %.180s", fields[f].label, rest);
}

/* Process counts: the plan's syntax (its own reasons for a bad factor or
 * order), then the job's limit. */
static void check_procs(explorer *x, mbx_measurement *m)
{
    char msg[200];
    int n = x->be->nranks;
    x->nprocs = 0;
    x->procs_range = 0;
    if (mbx_measurement_set(m, "procs", x->par.field[EX_F_PROCS], msg, sizeof msg) < 0) {
        if (strstr(msg, "expected all"))
            snprintf(x->par.ferr[EX_F_PROCS], sizeof x->par.ferr[0],
                     "processes: all, a list 2,4,8 or a range A:B[:F]; counts 1..%d", n);
        else
            field_err(x, EX_F_PROCS, "procs", msg);
        return;
    }
    if (m->procs_all) {
        x->procs[x->nprocs++] = n;
        return;
    }
    if (m->nprocs && m->procs[m->nprocs - 1] > n) { /* ascending: the last is the largest */
        snprintf(x->par.ferr[EX_F_PROCS], sizeof x->par.ferr[0],
                 "processes: %d is more than the job's ranks; counts 1..%d",
                 m->procs[m->nprocs - 1], n);
        return;
    }
    for (size_t i = 0; i < m->nprocs && i < EX_MAX_PROCS; i++)
        x->procs[x->nprocs++] = m->procs[i];
    x->procs_range = m->procs_range && m->nprocs > 2;
}

/* Root, pieces, pair, refinement: the plan's parsers, ranks checked against
 * the job, messages short enough for the form's line. */
static void check_skampi(explorer *x, mbx_measurement *m)
{
    char msg[200];
    int last = x->be->nranks - 1;
    if (mbx_measurement_set(m, "root", x->par.field[EX_F_ROOT], msg, sizeof msg) < 0 ||
        m->root > last)
        snprintf(x->par.ferr[EX_F_ROOT], sizeof x->par.ferr[0], "root: a rank in 0..%d", last);
    if (strcmp(x->par.field[EX_F_PARAM], "default") != 0 &&
        mbx_measurement_set(m, "param", x->par.field[EX_F_PARAM], msg, sizeof msg) < 0)
        snprintf(x->par.ferr[EX_F_PARAM], sizeof x->par.ferr[0],
                 "param: default, N,M or A:B[:F], each in 1..%d", MBX_PARAM_LIMIT);
    if (mbx_measurement_set(m, "pair", x->par.field[EX_F_PAIR], msg, sizeof msg) < 0 ||
        (!m->pair_auto && (m->pair_a > last || m->pair_b > last)))
        snprintf(x->par.ferr[EX_F_PAIR], sizeof x->par.ferr[0],
                 "pair: auto, or two different ranks A,B in 0..%d", last);
    if (mbx_measurement_set(m, "refine", x->par.field[EX_F_REFINE], msg, sizeof msg) < 0)
        snprintf(x->par.ferr[EX_F_REFINE], sizeof x->par.ferr[0],
                 "refine: off, or EPS in (0, 1) like 5%% or 0.05");
    if (mbx_measurement_set(m, "budget", x->par.field[EX_F_BUDGET], msg, sizeof msg) < 0)
        snprintf(x->par.ferr[EX_F_BUDGET], sizeof x->par.ferr[0],
                 "refine budget: an integer in 0..%d", MBX_BUDGET_LIMIT);
    /* A choice, so always one of the words. */
    if (mbx_measurement_set(m, "rma_sync", x->par.field[EX_F_RMA_SYNC], msg, sizeof msg) < 0)
        field_err(x, EX_F_RMA_SYNC, "rma_sync", msg);
    x->validate = strcmp(x->par.field[EX_F_VALIDATE], "on") == 0;
    if (mbx_measurement_set(m, "point_time", x->par.field[EX_F_POINT_TIME], msg, sizeof msg) < 0)
        field_err(x, EX_F_POINT_TIME, "point_time", msg);
    /* The warm-up: the words and the range of run --warmup. */
    const char *w = x->par.field[EX_F_WARMUP];
    char *end = NULL;
    long n = strtol(w, &end, 10);
    x->warmup = 0;
    if (strcmp(w, "default") == 0)
        return;
    if (end == w || *end != '\0' || n < 1 || n > 1000000)
        snprintf(x->par.ferr[EX_F_WARMUP], sizeof x->par.ferr[0],
                 "warm-up: default, or calls in 1..1000000 (got '%.40s')", w);
    else
        x->warmup = n;
}

void mbx_ex_params_validate(explorer *x)
{
    for (int i = 0; i < EX_NFIELDS; i++)
        x->par.ferr[i][0] = '\0';
    mbx_measurement m;
    mbx_measurement_defaults(&m, "explorer");
    char msg[200], text[200];
    uint64_t v;
    int size_ok = 1;
    if (mbx_size_parse(x->par.field[EX_F_SIZE_MIN], &v, msg, sizeof msg) < 0) {
        snprintf(x->par.ferr[EX_F_SIZE_MIN], sizeof x->par.ferr[0], "sizes: %.190s", msg);
        size_ok = 0;
    }
    if (mbx_size_parse(x->par.field[EX_F_SIZE_MAX], &v, msg, sizeof msg) < 0) {
        snprintf(x->par.ferr[EX_F_SIZE_MAX], sizeof x->par.ferr[0], "sizes: %.190s", msg);
        size_ok = 0;
    }
    if (size_ok) {
        snprintf(text, sizeof text, "%s:%s:%s", x->par.field[EX_F_SIZE_MIN],
                 x->par.field[EX_F_SIZE_MAX], x->par.field[EX_F_FACTOR]);
        if (mbx_measurement_set(&m, "sizes", text, msg, sizeof msg) < 0) {
            int f = strstr(msg, "FACTOR")     ? EX_F_FACTOR
                    : strstr(msg, "reversed") ? EX_F_SIZE_MAX
                                              : EX_F_SIZE_MIN;
            snprintf(x->par.ferr[f], sizeof x->par.ferr[0], "%s", msg);
        }
    }
    snprintf(text, sizeof text, "%s:%s", x->par.field[EX_F_RULE], x->par.field[EX_F_EPS]);
    if (mbx_measurement_set(&m, "stop", text, msg, sizeof msg) < 0)
        snprintf(x->par.ferr[EX_F_EPS], sizeof x->par.ferr[0], "%s", msg);
    if (mbx_measurement_set(&m, "nmin", x->par.field[EX_F_NMIN], msg, sizeof msg) < 0)
        snprintf(x->par.ferr[EX_F_NMIN], sizeof x->par.ferr[0], "%s", msg);
    if (mbx_measurement_set(&m, "nmax", x->par.field[EX_F_NMAX], msg, sizeof msg) < 0)
        snprintf(x->par.ferr[EX_F_NMAX], sizeof x->par.ferr[0], "%s", msg);
    if (!x->par.ferr[EX_F_NMIN][0] && !x->par.ferr[EX_F_NMAX][0] && m.stop.kind != MBX_STOP_FIXED &&
        m.nmin > m.nmax)
        snprintf(x->par.ferr[EX_F_NMIN], sizeof x->par.ferr[0],
                 "nmin: %zu is larger than nmax (%zu)", m.nmin, m.nmax);
    check_procs(x, &m);
    check_skampi(x, &m);
    mbx_timer_kind tk;
    if (mbx_timer_parse(x->par.field[EX_F_TIMER], &tk) == 0)
        x->timer = tk;
    /* The method: choices, so always valid; the engine's defaults for the
     * window's length, delay and resync. */
    memset(&x->method, 0, sizeof x->method);
    x->method.sync =
        strcmp(x->par.field[EX_F_SYNC], "window") == 0 ? MBX_SYNC_WINDOW : MBX_SYNC_BARRIER;
    x->method.clock.method =
        strcmp(x->par.field[EX_F_CLOCK], "hca") == 0 ? MBX_CLOCKSYNC_HCA : MBX_CLOCKSYNC_JK;
    x->method.cache =
        strcmp(x->par.field[EX_F_CACHE], "cold") == 0 ? MBX_CACHE_COLD : MBX_CACHE_WARM;
    if (mbx_ex_params_ok(x)) {
        m.nbench = 0;
        x->meas = m;
    }
}

int mbx_ex_params_ok(const explorer *x)
{
    for (int i = 0; i < EX_NFIELDS; i++)
        if (x->par.ferr[i][0])
            return 0;
    return 1;
}

static int params_key(explorer *x, int key)
{
    return mbx_ex_form_key(x, &x->par.form, key);
}

/* Valid parameters: what the run will be (sizes, benchmarks, process
 * counts, refinement, the ranks a point uses, the monitor), from row y
 * while the body has room; returns the last row written (or past the
 * body). */
static int params_summary(explorer *x, const mbx_rect *body, int y)
{
    char line[256];
    char a[16], b[16];
    mbx_axis_format((double)x->meas.sizes.v[0], MBX_AXIS_BYTES, 0, a, sizeof a);
    mbx_axis_format((double)x->meas.sizes.v[x->meas.sizes.n - 1], MBX_AXIS_BYTES, 0, b, sizeof b);
    int k =
        snprintf(line, sizeof line, "%zu sizes from %s to %s, %d benchmark%s, %d process count%s",
                 x->meas.sizes.n, a, b, mbx_ex_picker_count(x),
                 mbx_ex_picker_count(x) == 1 ? "" : "s", x->nprocs, x->nprocs == 1 ? "" : "s");
    if (x->meas.nparam > 1 && k > 0 && (size_t)k < sizeof line)
        snprintf(line + k, sizeof line - (size_t)k, ", %zu param values", x->meas.nparam);
    mbx_ex_put(x, y, body->x + 2, body->w - 3, MBX_ROLE_OK, line);
    if (++y >= body->y + body->h)
        return y;
    if (x->meas.refine > 0 && x->meas.budget > 0)
        snprintf(line, sizeof line, "refined to %g%% with up to %zu more points a curve, %s",
                 100.0 * x->meas.refine, x->meas.budget,
                 x->procs_range ? "over size and P" : "over size");
    else
        snprintf(line, sizeof line, "no refinement (the default, as in batch): the grid only");
    mbx_ex_put(x, y, body->x + 2, body->w - 3, MBX_ROLE_DIM, line);
    if (++y < body->y + body->h)
        mbx_ex_put(x, y, body->x + 2, body->w - 3, MBX_ROLE_DIM,
                   "a point on P processes runs on ranks 0..P-1 of the job");
    if (++y < body->y + body->h) {
        if (x->be->nranks > 1)
            snprintf(line, sizeof line,
                     "monitor: a 1-byte ping-pong of ranks 0 and %d between points (%d round "
                     "trips)",
                     x->be->nranks - 1, EX_PROBE_ROUNDS);
        else
            snprintf(line, sizeof line, "monitor: off (one rank: no ping-pong to probe with)");
        mbx_ex_put(x, y, body->x + 2, body->w - 3, MBX_ROLE_DIM, line);
    }
    return y;
}

/* Parameters in error: the whole message of the field under the cursor
 * (or the first in error) at row y; the column beside the field may cut
 * it. */
static void params_error(explorer *x, const mbx_rect *body, int y)
{
    char line[256];
    int f = x->par.ferr[x->par.form.cursor][0] ? x->par.form.cursor : 0, more = 0;
    while (!x->par.ferr[f][0] && f + 1 < EX_NFIELDS)
        f++;
    for (int i = 0; i < EX_NFIELDS; i++)
        more += i != f && x->par.ferr[i][0];
    if (more)
        snprintf(line, sizeof line, "%s (and %d more field%s in red)", x->par.ferr[f], more,
                 more == 1 ? "" : "s");
    else
        snprintf(line, sizeof line, "%s", x->par.ferr[f]);
    mbx_ex_put_msg(x, y, body->x + 2, body->w - 3, MBX_ROLE_ERROR, line);
}

/* The fields shown: the first and how many rows they have. A short
 * terminal scrolls them so the one under the cursor shows, and keeps two
 * rows for the summary (or the error) below. */
static int field_rows(const explorer *x, const mbx_rect *body, int *first)
{
    int rows = body->h - 2;
    *first = 0;
    if (EX_NFIELDS + 2 > rows)
        rows = rows > 4 ? rows - 2 : (rows > 0 ? rows : 1);
    if (EX_NFIELDS > rows && x->par.form.cursor >= rows)
        *first = x->par.form.cursor - rows + 1;
    return rows;
}

static void draw_params(explorer *x, const mbx_rect *body)
{
    mbx_ex_put(x, body->y, body->x + 1, body->w - 1, MBX_ROLE_NORMAL,
               "Parameters (Enter edits a field or cycles a choice; checked as you type)");
    int y = body->y + 2, first;
    int rows = field_rows(x, body, &first);
    y = mbx_ex_form_draw(x, &x->par.form, body, y, first, first + rows);
    y++;
    if (y >= body->y + body->h)
        return;
    if (mbx_ex_params_ok(x))
        y = params_summary(x, body, y);
    else
        params_error(x, body, y);
    /* Why the last run did not start (root, pair or memory against the
     * selection), or anything else the loop had to say. */
    if (x->msg[0] && y + 2 < body->y + body->h)
        mbx_ex_put_msg(x, y + 2, body->x + 2, body->w - 3, x->msg_role, x->msg);
}

/* A click on a field's row or the wheel: the form widget's. */
static int params_mouse(explorer *x, const mbx_rect *body, const mbx_ex_mouse *m)
{
    int first, rows = field_rows(x, body, &first);
    return mbx_ex_form_mouse(x, &x->par.form, body, body->y + 2, first, rows, m);
}

static int params_typing(const explorer *x)
{
    return x->par.form.editing;
}

/* The screen's row of the screen table (screens/screen.h). */
const mbx_ex_screen_def mbx_ex_screen_params = {
    .name = "2 Parameters",
    .brief = "2 Params",
    .help = "parameters",
    .draw = draw_params,
    .key = params_key,
    .typing = params_typing,
    .mouse = params_mouse,
};
