/* The pairs screen (screens/pairs.h; docs/explorer.md, "The pairs
 * screen"): a form as `mpibex pairs` takes it, then every pair of nodes
 * measured through the back end (include/mbx/pairs_run.h), with keys read
 * and the matrix redrawn between passes and the verdicts fitted again
 * after each round. The matrix and what goes beside it are drawn by
 * ex_pairsmap.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ex_keys.h"
#include "explorer.h"
#include "mbx/ascii.h"
#include "mbx/sizes.h"
#include "screens/screen.h"

static const char *const metrics[] = {"both", "latency", "bandwidth", NULL};
static const char *const modes[] = {"shift", "one", NULL};
static const char *const pers[] = {"node", "socket", "rank", NULL};

static const mbx_ex_fielddef fields[EXP_NFIELDS] = {
    {"metric", "latency (a small message), bandwidth (a window of large ones), or both", metrics},
    {"mode", "shift: N-1 steps, all pairs of a step at once; one: a pair at a time", modes},
    {"per", "a node is the lowest rank of each host, of each socket, or every rank", pers},
    {"latency size", "bytes of a latency message, 0..1GiB (8)", NULL},
    {"bandwidth size", "bytes of a bandwidth message, 1..1GiB (1MiB)", NULL},
    {"window", "bandwidth messages in flight, 1..4096 (16)", NULL},
    {"steps", "all, or K steps drawn from the seed (sampling loses the cells left out)", NULL},
    {"time limit", "seconds, 0 for none: cells not SETTLED by then say so", NULL},
};

/* ---- the form ---- */

static int field_long(const char *s, long lo, long hi, long *out)
{
    char *e;
    errno = 0;
    long v = strtol(s, &e, 10);
    if (errno || e == s || *e || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static void validate(explorer *x)
{
    mbx_ex_pairs *p = &x->pr;
    char why[160];
    uint64_t v;
    long l;
    for (int f = 0; f < EXP_NFIELDS; f++)
        p->ferr[f][0] = '\0';
    if (mbx_size_parse(p->field[EXP_LAT], &v, why, sizeof why) < 0 || v > MBX_PAIRS_BYTES_MAX)
        snprintf(p->ferr[EXP_LAT], sizeof p->ferr[0], "latency size: expected a size 0..1GiB");
    if (mbx_size_parse(p->field[EXP_BW], &v, why, sizeof why) < 0 || v < 1 ||
        v > MBX_PAIRS_BYTES_MAX)
        snprintf(p->ferr[EXP_BW], sizeof p->ferr[0], "bandwidth size: expected a size 1..1GiB");
    if (field_long(p->field[EXP_WINDOW], 1, MBX_PAIRS_WINDOW_MAX, &l) < 0)
        snprintf(p->ferr[EXP_WINDOW], sizeof p->ferr[0], "window: expected an integer in 1..4096");
    if (strcmp(p->field[EXP_STEPS], "all") != 0 &&
        field_long(p->field[EXP_STEPS], 1, 1L << 24, &l) < 0)
        snprintf(p->ferr[EXP_STEPS], sizeof p->ferr[0], "steps: expected all or an integer >= 1");
    char *e;
    errno = 0;
    double t = mbx_strtod(p->field[EXP_LIMIT], &e);
    if (errno || e == p->field[EXP_LIMIT] || *e || !(t >= 0 && t <= 86400))
        snprintf(p->ferr[EXP_LIMIT], sizeof p->ferr[0],
                 "time limit: expected seconds in 0..86400 (0: none)");
}

static void changed(explorer *x)
{
    validate(x);
    x->msg[0] = '\0';
}

static const char *locked(const explorer *x)
{
    return x->pr.running ? "a run is in progress: c cancels it" : NULL;
}

void mbx_ex_pairs_init(explorer *x)
{
    mbx_ex_pairs *p = &x->pr;
    memset(p, 0, sizeof *p);
    p->form = (mbx_ex_form){.defs = fields,
                            .nfields = EXP_NFIELDS,
                            .text = p->field[0],
                            .tsize = sizeof p->field[0],
                            .err = p->ferr[0],
                            .esize = sizeof p->ferr[0],
                            .screen = EX_PAIRS,
                            .label_w = 15,
                            .value_x = 17,
                            .value_w = 14,
                            .changed = changed,
                            .locked = locked};
    static const char *const init[EXP_NFIELDS] = {"both", "shift", "node", "8",
                                                  "1MiB", "16",    "all",  "60"};
    for (int f = 0; f < EXP_NFIELDS; f++)
        snprintf(p->field[f], sizeof p->field[0], "%s", init[f]);
    p->editing_form = 1;
    validate(x);
}

static void free_run(mbx_ex_pairs *p)
{
    mbx_pairs_run_free(&p->run);
    free(p->cache);
    p->cache = NULL;
    p->ncache = 0;
    for (int m = 0; m < MBX_PAIRS_METRICS; m++) {
        mbx_pairs_fit_free(&p->fit[m]);
        p->fitted[m] = 0;
        p->fiterr[m][0] = '\0';
    }
}

void mbx_ex_pairs_free(explorer *x)
{
    mbx_ex_pairs *p = &x->pr;
    free_run(p);
    free(p->rank);
    free(p->host);
    free(p->label);
    p->rank = NULL, p->host = NULL, p->label = NULL;
}

/* ---- the run ---- */

static double now(const explorer *x)
{
    return x->be->now(x->be);
}

/* Node labels for the axes: the host names without what they all share
 * at the front (mbxh1.. -> 1..), at most 3 characters; per rank "rN". */
static void make_labels(mbx_ex_pairs *p)
{
    size_t pre = strlen(p->host[0]);
    for (int i = 1; i < p->n; i++) {
        size_t k = 0;
        while (k < pre && p->host[i][k] == p->host[0][k])
            k++;
        pre = k;
    }
    for (int i = 0; i < p->n; i++) {
        const char *h = p->host[i] + pre;
        size_t len = strlen(h);
        if (p->per == MBX_PER_RANK || len == 0)
            snprintf(p->label[i], sizeof p->label[0], "%d", p->rank[i]);
        else
            snprintf(p->label[i], sizeof p->label[0], "%s", len > 3 ? h + len - 3 : h);
    }
}

/* The plan of the form (checked: validate passed). */
static void form_plan(explorer *x, mbx_pairs_plan *pl)
{
    mbx_ex_pairs *p = &x->pr;
    char why[160];
    mbx_pairs_plan_init(pl);
    pl->n = p->n;
    pl->mode = strcmp(p->field[EXP_MODE], "one") == 0;
    pl->metrics = !strcmp(p->field[EXP_METRIC], "latency")     ? 1
                  : !strcmp(p->field[EXP_METRIC], "bandwidth") ? 2
                                                               : 3;
    if (mbx_size_parse(p->field[EXP_LAT], &pl->bytes[0], why, sizeof why) < 0)
        pl->bytes[0] = 8;
    if (mbx_size_parse(p->field[EXP_BW], &pl->bytes[1], why, sizeof why) < 0)
        pl->bytes[1] = 1 << 20;
    pl->window = atoi(p->field[EXP_WINDOW]);
    pl->steps = strcmp(p->field[EXP_STEPS], "all") ? atoi(p->field[EXP_STEPS]) : 0;
    pl->time_limit = mbx_strtod(p->field[EXP_LIMIT], NULL);
    /* a fixed seed for the fake (stable screens), the time otherwise */
    pl->seed = x->be->fake ? 1 : (uint64_t)time(NULL);
}

void mbx_ex_pairs_start(explorer *x)
{
    mbx_ex_pairs *p = &x->pr;
    if (p->running)
        return;
    if (x->running || x->bf.running || x->xp.on) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "%s",
                       x->running ? "a point run is in progress: cancel it first (3, c)"
                       : x->xp.on ? "an export is being written: wait for it (3 c stops it)"
                                  : "b_eff is running: cancel it first (5, c)");
        return;
    }
    validate(x);
    if (!mbx_ex_form_ok(x, &p->form)) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "fix the fields in red first");
        return;
    }
    if (!x->be->pairs || !x->be->pairs_nodes) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "this back end cannot measure node pairs");
        return;
    }
    int nr = x->be->nranks;
    int *rank = realloc(p->rank, (size_t)nr * sizeof *rank);
    if (rank)
        p->rank = rank;
    char(*host)[MBX_HOST_MAX] = realloc(p->host, (size_t)nr * sizeof *host);
    if (host)
        p->host = host;
    char(*label)[8] = realloc(p->label, (size_t)nr * sizeof *label);
    if (label)
        p->label = label;
    if (!rank || !host || !label) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "out of memory");
        return;
    }
    char msg[256] = "";
    int per = !strcmp(p->field[EXP_PER], "rank")     ? MBX_PER_RANK
              : !strcmp(p->field[EXP_PER], "socket") ? MBX_PER_SOCKET
                                                     : MBX_PER_NODE;
    int n = x->be->pairs_nodes(x->be, per, p->rank, p->host, msg, sizeof msg);
    if (n < 0) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "%s", msg[0] ? msg : mbx_strerror(n));
        return;
    }
    if (n < 2) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR,
                       "the job's %d rank%s run on 1 %s (%s): the matrix needs 2 nodes or more "
                       "(more hosts, or per rank)",
                       nr, nr == 1 ? "" : "s", per == MBX_PER_SOCKET ? "socket" : "host",
                       p->host[0]);
        return;
    }
    mbx_pairs_plan pl;
    p->n = n;
    form_plan(x, &pl);
    if (mbx_pairs_plan_check(&pl, msg, sizeof msg) < 0) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "%s", msg);
        return;
    }
    free_run(p);
    p->per = per;
    p->plan = pl;
    make_labels(p);
    p->pdone = p->ptotal = 0;
    p->fit_round = 0;
    p->metric = pl.metrics == 2 ? 1 : 0;
    p->cur_src = 0, p->cur_dst = 1;
    p->top = p->left = 0;
    p->started = p->running = 1;
    p->done = p->cancel = 0;
    p->editing_form = 0;
    p->form.editing = 0;
    x->screen = EX_PAIRS;
    x->msg[0] = '\0';
}

/* The verdicts of each metric again, from the cells as the last round
 * left them (their r), with 4 nodes or more. */
static void refit(mbx_ex_pairs *p)
{
    for (int m = 0; m < MBX_PAIRS_METRICS; m++) {
        mbx_pairs_fit_free(&p->fit[m]);
        p->fitted[m] = 0;
        p->fiterr[m][0] = '\0';
        if (!(p->plan.metrics >> m & 1))
            continue;
        if (p->n < MBX_PAIRS_VERDICT_MIN_NODES) {
            snprintf(p->fiterr[m], sizeof p->fiterr[0], "no verdicts: they need %d nodes or more",
                     MBX_PAIRS_VERDICT_MIN_NODES);
            continue;
        }
        int rc = mbx_pairs_run_fit(&p->run, m, NULL, &p->fit[m], p->fiterr[m], sizeof p->fiterr[0]);
        p->fitted[m] = rc == MBX_OK;
    }
    p->fit_round = p->run.rounds;
}

/* Between passes: keys and redraws as during a point, the verdicts after
 * each round; non-zero stops the run. */
static int on_pass(void *ud, const mbx_pairs_run *r, size_t done, size_t total)
{
    explorer *x = ud;
    mbx_ex_pairs *p = &x->pr;
    p->pdone = done;
    p->ptotal = total;
    if (done == 0 && r->rounds > p->fit_round)
        refit(p);
    if (mbx_ex_tick(x, 0))
        return 1;
    return p->cancel || x->quit;
}

void mbx_ex_pairs_run(explorer *x)
{
    mbx_ex_pairs *p = &x->pr;
    char msg[256] = "";
    p->t0 = now(x);
    int rc = x->be->pairs(x->be, &p->plan, p->rank, on_pass, x, &p->run, msg, sizeof msg);
    p->t1 = now(x);
    p->running = 0;
    p->rc = rc;
    refit(p);
    size_t settled = 0;
    for (size_t i = 0; i < p->run.ncells; i++)
        settled += p->run.cell[i].r.verdict == MBX_PASSES_SETTLED;
    const char *fk = x->be->fake ? " (fake back end: modelled, not measured)" : "";
    if (rc == MBX_OK) {
        p->done = 1;
        mbx_ex_set_msg(x, settled == p->run.ncells ? MBX_ROLE_OK : MBX_ROLE_WARNING,
                       "done: %zu of %zu cells SETTLED in %d rounds, %.1f s (%s)%s", settled,
                       p->run.ncells, p->run.rounds, p->t1 - p->t0, p->run.ended, fk);
    } else if (rc == MBX_E_ABORTED) {
        mbx_ex_set_msg(x, MBX_ROLE_WARNING,
                       "cancelled after %d rounds: %zu of %zu cells SETTLED, the rest as they "
                       "stood",
                       p->run.rounds, settled, p->run.ncells);
    } else {
        char why[256];
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "pairs failed: %s",
                       msg[0] ? msg : mbx_backend_strerror(x->be, rc, why, sizeof why));
    }
    p->cancel = 0;
}

/* ---- keys, mouse, the screen's row ---- */

static void move_cursor(mbx_ex_pairs *p, int ds, int dd)
{
    int n = p->n, b = p->zoom ? 1 : (p->map_block > 0 ? p->map_block : 1);
    p->cur_src = (p->cur_src + ds * b + n) % n;
    p->cur_dst = (p->cur_dst + dd * b + n) % n;
}

static int pairs_key(explorer *x, int key)
{
    mbx_ex_pairs *p = &x->pr;
    if (p->form.editing)
        return mbx_ex_form_key(x, &p->form, key);
    mbx_ex_action a = mbx_ex_key_action(key, EX_PAIRS);
    switch (a) {
    case EXA_PAIRS_START: mbx_ex_pairs_start(x); return 1;
    case EXA_PAIRS_FORM:
        p->editing_form = !p->editing_form || !p->started;
        p->insp = 0;
        return 1;
    default: break;
    }
    if (p->editing_form || !p->started)
        return mbx_ex_form_key(x, &p->form, key);
    switch (a) {
    case EXA_UP: move_cursor(p, -1, 0); return 1;
    case EXA_DOWN: move_cursor(p, 1, 0); return 1;
    case EXA_LEFT: move_cursor(p, 0, -1); return 1;
    case EXA_RIGHT: move_cursor(p, 0, 1); return 1;
    case EXA_ENTER:
    case EXA_INSPECT: p->insp = !p->insp; return 1;
    case EXA_BACK: p->insp = 0; return 1;
    case EXA_BANDWIDTH:
        if (p->plan.metrics == 3)
            p->metric = !p->metric;
        else
            mbx_ex_set_msg(x, MBX_ROLE_DIM, "this run measured %s only",
                           p->plan.metrics == 1 ? "latency" : "bandwidth");
        return 1;
    case EXA_PAIRS_ZOOM: p->zoom = !p->zoom; return 1;
    default: return 0;
    }
}

static void draw_pairs(explorer *x, const mbx_rect *body)
{
    mbx_ex_pairs *p = &x->pr;
    const char *head = "pairs: every pair of nodes, latency and bandwidth";
    int hl = (int)strlen(head) + 1;
    mbx_ex_put(x, body->y, body->x + 1, body->w - 1, MBX_ROLE_NORMAL, head);
    if (x->be->fake) {
        const char *fk = "fake back end: modelled";
        int len = (int)strlen(fk);
        if (body->w - 2 - hl >= len)
            mbx_ex_put(x, body->y, body->x + body->w - len - 1, len, MBX_ROLE_WARNING, fk);
    }
    int y = body->y + 1;
    if (p->editing_form || !p->started) {
        y = mbx_ex_form_draw(x, &p->form, body, y, 0, EXP_NFIELDS);
    } else {
        char line[400];
        char lat[24], bw[24];
        mbx_size_format(p->plan.bytes[0], lat, sizeof lat);
        mbx_size_format(p->plan.bytes[1], bw, sizeof bw);
        snprintf(line, sizeof line,
                 "%s; %s; %s; latency %s%s, bandwidth %s%s x %d; steps %s; "
                 "limit %s s  (f: the form)",
                 p->field[EXP_METRIC], p->plan.mode ? "one pair at a time" : "shift",
                 p->per == MBX_PER_RANK     ? "every rank a node"
                 : p->per == MBX_PER_SOCKET ? "a rank per socket"
                                            : "a rank per host",
                 lat, mbx_ascii_isdigit((unsigned char)lat[strlen(lat) - 1]) ? " B" : "", bw,
                 mbx_ascii_isdigit((unsigned char)bw[strlen(bw) - 1]) ? " B" : "", p->plan.window,
                 p->field[EXP_STEPS], p->field[EXP_LIMIT]);
        mbx_ex_put_cut(x, y++, body->x + 1, body->w - 1, MBX_ROLE_DIM, line);
    }
    mbx_rect area = {y, body->x, body->y + body->h - y, body->w};
    if (area.h >= 2)
        mbx_ex_draw_pairs_map(x, &area);
}

static int pairs_mouse(explorer *x, const mbx_rect *body, const mbx_ex_mouse *m)
{
    mbx_ex_pairs *p = &x->pr;
    if (p->editing_form || !p->started)
        return mbx_ex_form_mouse(x, &p->form, body, body->y + 1, 0, EXP_NFIELDS, m);
    return mbx_ex_pairs_click(x, m);
}

static int pairs_typing(const explorer *x)
{
    return x->pr.form.editing;
}

/* The screen's row of the screen table (screens/screen.h). */
const mbx_ex_screen_def mbx_ex_screen_pairs = {
    .name = "6 Pairs",
    .brief = "6 Pairs",
    .help = "pairs",
    .draw = draw_pairs,
    .key = pairs_key,
    .typing = pairs_typing,
    .mouse = pairs_mouse,
};
