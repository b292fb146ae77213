/* The parameter form. Every field is validated as it is typed, through the
 * same core parsers, rules and messages as the command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/axis.h"
#include "ex_keys.h"
#include "explorer.h"
#include "mbx/sizes.h"

typedef struct fielddef {
    const char *label;
    const char *hint;
    const char *const *choices; /* NULL for text */
} fielddef;

static const char *const rules[] = {"stderr", "cv", "ci", "fixed", NULL};
static const char *const timers[] = {"clock", "wtime", NULL};
static const char *const syncs[] = {"barrier", NULL};

static const fielddef fields[EX_NFIELDS] = {
    {"size min", "bytes: 1, 64, 4K, 4KiB, 1M (binary multiples)", NULL},
    {"size max", "always measured", NULL},
    {"size factor", "> 1 and <= 1024, or sqrt2", NULL},
    {"processes", "rank counts: all, or a list like 2,4", NULL},
    {"stop rule", "stderr (SKaMPI), cv (Sphinx), ci (median CI), fixed", rules},
    {"EPS / N", "target, 0.03 or 3%; N for fixed", NULL},
    {"n_min", "minimum observations", NULL},
    {"n_max", "maximum observations (UNSETTLED when reached)", NULL},
    {"timer", "clock_gettime(MONOTONIC) or MPI_Wtime", timers},
    {"sync", "barrier (window sync comes later)", syncs},
};

static int choice_index(const char *const *choices, const char *v)
{
    for (int i = 0; choices[i]; i++)
        if (strcmp(choices[i], v) == 0)
            return i;
    return 0;
}

void ex_params_init(explorer *x, const mbx_measurement *m)
{
    char a[32], b[32];
    mbx_size_format(m->sizes.v[0], a, sizeof a);
    mbx_size_format(m->sizes.v[m->sizes.n - 1], b, sizeof b);
    snprintf(x->field[EX_F_SIZE_MIN], sizeof x->field[0], "%s", a);
    snprintf(x->field[EX_F_SIZE_MAX], sizeof x->field[0], "%s", b);
    /* A plan's grid came from some factor; the ratio of its first step is it. */
    double f = m->sizes.n > 1 ? (double)m->sizes.v[1] / (double)m->sizes.v[0] : 2.0;
    snprintf(x->field[EX_F_FACTOR], sizeof x->field[0], "%g", f > 1 ? f : 2.0);
    snprintf(x->field[EX_F_PROCS], sizeof x->field[0], "all");
    static const char *const kinds[] = {"stderr", "cv", "ci", "fixed"};
    snprintf(x->field[EX_F_RULE], sizeof x->field[0], "%s", kinds[m->stop.kind]);
    if (m->stop.kind == MBX_STOP_FIXED)
        snprintf(x->field[EX_F_EPS], sizeof x->field[0], "%zu", m->stop.fixed);
    else
        snprintf(x->field[EX_F_EPS], sizeof x->field[0], "%g%%", 100.0 * m->stop.eps);
    snprintf(x->field[EX_F_NMIN], sizeof x->field[0], "%zu", m->nmin);
    snprintf(x->field[EX_F_NMAX], sizeof x->field[0], "%zu", m->nmax);
    snprintf(x->field[EX_F_TIMER], sizeof x->field[0], "%s", mbx_timer_name(x->timer));
    snprintf(x->field[EX_F_SYNC], sizeof x->field[0], "barrier");
    ex_params_validate(x);
}

static void parse_procs(explorer *x)
{
    const char *t = x->field[EX_F_PROCS];
    x->nprocs = 0;
    if (strcmp(t, "all") == 0) {
        x->procs[x->nprocs++] = x->be->nranks;
        return;
    }
    char buf[64];
    snprintf(buf, sizeof buf, "%s", t);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *end;
        long v = strtol(tok, &end, 10);
        if (end == tok || *end != '\0' || v < 1 || v > x->be->nranks) {
            snprintf(x->ferr[EX_F_PROCS], sizeof x->ferr[0],
                     "processes: expected all or a list of counts in 1..%d (got '%s')",
                     x->be->nranks, tok);
            x->nprocs = 0;
            return;
        }
        if (x->nprocs > 0 && v <= x->procs[x->nprocs - 1]) {
            snprintf(x->ferr[EX_F_PROCS], sizeof x->ferr[0],
                     "processes: counts must be ascending (got %ld after %d)", v,
                     x->procs[x->nprocs - 1]);
            x->nprocs = 0;
            return;
        }
        if (x->nprocs < EX_MAX_PROCS)
            x->procs[x->nprocs++] = (int)v;
    }
    if (x->nprocs == 0)
        snprintf(x->ferr[EX_F_PROCS], sizeof x->ferr[0], "processes: expected all or a list");
}

void ex_params_validate(explorer *x)
{
    for (int i = 0; i < EX_NFIELDS; i++)
        x->ferr[i][0] = '\0';
    mbx_measurement m;
    mbx_measurement_defaults(&m, "explorer");
    char msg[200], text[200];
    uint64_t v;
    int size_ok = 1;
    if (mbx_size_parse(x->field[EX_F_SIZE_MIN], &v, msg, sizeof msg) < 0) {
        snprintf(x->ferr[EX_F_SIZE_MIN], sizeof x->ferr[0], "sizes: %.190s", msg);
        size_ok = 0;
    }
    if (mbx_size_parse(x->field[EX_F_SIZE_MAX], &v, msg, sizeof msg) < 0) {
        snprintf(x->ferr[EX_F_SIZE_MAX], sizeof x->ferr[0], "sizes: %.190s", msg);
        size_ok = 0;
    }
    if (size_ok) {
        snprintf(text, sizeof text, "%s:%s:%s", x->field[EX_F_SIZE_MIN], x->field[EX_F_SIZE_MAX],
                 x->field[EX_F_FACTOR]);
        if (mbx_measurement_set(&m, "sizes", text, msg, sizeof msg) < 0) {
            int f = strstr(msg, "FACTOR")     ? EX_F_FACTOR
                    : strstr(msg, "reversed") ? EX_F_SIZE_MAX
                                              : EX_F_SIZE_MIN;
            snprintf(x->ferr[f], sizeof x->ferr[0], "%s", msg);
        }
    }
    snprintf(text, sizeof text, "%s:%s", x->field[EX_F_RULE], x->field[EX_F_EPS]);
    if (mbx_measurement_set(&m, "stop", text, msg, sizeof msg) < 0)
        snprintf(x->ferr[EX_F_EPS], sizeof x->ferr[0], "%s", msg);
    if (mbx_measurement_set(&m, "nmin", x->field[EX_F_NMIN], msg, sizeof msg) < 0)
        snprintf(x->ferr[EX_F_NMIN], sizeof x->ferr[0], "%s", msg);
    if (mbx_measurement_set(&m, "nmax", x->field[EX_F_NMAX], msg, sizeof msg) < 0)
        snprintf(x->ferr[EX_F_NMAX], sizeof x->ferr[0], "%s", msg);
    if (!x->ferr[EX_F_NMIN][0] && !x->ferr[EX_F_NMAX][0] && m.stop.kind != MBX_STOP_FIXED &&
        m.nmin > m.nmax)
        snprintf(x->ferr[EX_F_NMIN], sizeof x->ferr[0], "nmin: %zu is larger than nmax (%zu)",
                 m.nmin, m.nmax);
    parse_procs(x);
    mbx_timer_kind tk;
    if (mbx_timer_parse(x->field[EX_F_TIMER], &tk) == 0)
        x->timer = tk;
    if (ex_params_ok(x)) {
        m.nbench = 0;
        x->meas = m;
    }
}

int ex_params_ok(const explorer *x)
{
    for (int i = 0; i < EX_NFIELDS; i++)
        if (x->ferr[i][0])
            return 0;
    return 1;
}

static void cycle(explorer *x, int f, int dir)
{
    const char *const *c = fields[f].choices;
    int n = 0;
    while (c[n])
        n++;
    int i = (choice_index(c, x->field[f]) + dir + n) % n;
    snprintf(x->field[f], sizeof x->field[0], "%s", c[i]);
    if (f == EX_F_RULE) { /* keep EPS meaningful when switching to and from fixed */
        int fixed = strcmp(c[i], "fixed") == 0;
        if (fixed && strchr(x->field[EX_F_EPS], '%'))
            snprintf(x->field[EX_F_EPS], sizeof x->field[0], "100");
        else if (!fixed && !strchr(x->field[EX_F_EPS], '%') && !strchr(x->field[EX_F_EPS], '.'))
            snprintf(x->field[EX_F_EPS], sizeof x->field[0], "3%%");
    }
}

int ex_params_key(explorer *x, int key)
{
    int f = x->fcursor;
    if (x->editing) {
        size_t len = strlen(x->field[f]);
        if (key == '\n' || key == '\r' || key == KEY_ENTER || key == 27 || key == '\t') {
            x->editing = 0;
        } else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
            if (len > 0)
                x->field[f][len - 1] = '\0';
        } else if (key >= 32 && key < 127 && len + 1 < sizeof x->field[0]) {
            x->field[f][len] = (char)key;
            x->field[f][len + 1] = '\0';
        } else {
            return 0;
        }
        ex_params_validate(x);
        return 1;
    }
    switch (ex_key_action(key, EX_PARAMS)) {
    case EXA_UP: x->fcursor = f > 0 ? f - 1 : 0; break;
    case EXA_DOWN: x->fcursor = f + 1 < EX_NFIELDS ? f + 1 : f; break;
    case EXA_LEFT:
    case EXA_RIGHT:
        if (!fields[f].choices)
            return 0;
        cycle(x, f, ex_key_action(key, EX_PARAMS) == EXA_RIGHT ? 1 : -1);
        break;
    case EXA_ENTER:
        if (fields[f].choices)
            cycle(x, f, 1);
        else
            x->editing = 1;
        break;
    default: return 0;
    }
    ex_params_validate(x);
    return 1;
}

void ex_draw_params(explorer *x, const mbx_rect *body)
{
    ex_put(x, body->y, body->x + 1, body->w - 1, MBX_ROLE_NORMAL,
           "Parameters (Enter edits a field or cycles a choice; checked as you type)");
    int y = body->y + 2;
    for (int f = 0; f < EX_NFIELDS && y < body->y + body->h; f++, y++) {
        int cur = f == x->fcursor;
        if (cur)
            ex_fill(x, y, body->x, body->w, MBX_ROLE_CURSOR);
        int role = cur ? MBX_ROLE_CURSOR : MBX_ROLE_NORMAL;
        ex_put(x, y, body->x + 2, 14, role, fields[f].label);
        char val[96];
        if (fields[f].choices)
            snprintf(val, sizeof val, "< %s >", x->field[f]);
        else
            snprintf(val, sizeof val, "%s%s", x->field[f], cur && x->editing ? "_" : "");
        ex_put(x, y, body->x + 17, 18, x->ferr[f][0] ? MBX_ROLE_ERROR : role, val);
        if (x->ferr[f][0]) {
            ex_put(x, y, body->x + 36, body->w - 37, MBX_ROLE_ERROR, x->ferr[f]);
        } else {
            ex_put(x, y, body->x + 36, body->w - 37, cur ? MBX_ROLE_CURSOR : MBX_ROLE_DIM,
                   fields[f].hint);
        }
    }
    y++;
    if (y >= body->y + body->h)
        return;
    char line[256];
    if (ex_params_ok(x)) {
        char a[16], b[16];
        mbx_axis_format((double)x->meas.sizes.v[0], MBX_AXIS_BYTES, 0, a, sizeof a);
        mbx_axis_format((double)x->meas.sizes.v[x->meas.sizes.n - 1], MBX_AXIS_BYTES, 0, b,
                        sizeof b);
        snprintf(line, sizeof line, "%zu sizes from %s to %s, %d benchmark%s, %d process count%s",
                 x->meas.sizes.n, a, b, ex_picker_count(x), ex_picker_count(x) == 1 ? "" : "s",
                 x->nprocs, x->nprocs == 1 ? "" : "s");
        ex_put(x, y, body->x + 2, body->w - 3, MBX_ROLE_OK, line);
    } else {
        ex_put(x, y, body->x + 2, body->w - 3, MBX_ROLE_ERROR,
               "fix the fields marked in red before running");
    }
}
