/* The b_eff / b_eff_io screen: a small form, then the benchmark run as a
 * whole through the back end (include/mbx/beff_run.h,
 * include/mbx/beffio_run.h), with keys read and the screen redrawn between
 * rows; each row is gathered into what the results show (each b_eff
 * series the maximum over the three methods). The results under the form
 * are drawn by ex_beffview.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/axis.h"
#include "ex_keys.h"
#include "explorer.h"
#include "mbx/ascii.h"
#include "mbx/sizes.h"
#include "screens/screen.h"
#include "sig.h"

#define QUICK_DEFAULT "1MiB"

static const char *const benches[] = {"b_eff", "b_eff_io", NULL};
static const char *const caps[] = {"none", "128MiB", NULL};

static const mbx_ex_fielddef fields[EXB_NFIELDS] = {
    {"benchmark", "b_eff: network (section 4); b_eff_io: MPI-IO (section 5)", benches},
    {"quick", "off, or cap L_max at SIZE (>= 4KiB) for a fast look", NULL},
    {"L_max cap", "the paper's 128 MiB cap on L_max", caps},
    {"mem per proc", "auto (host memory / ranks), or 512KiB..1TiB; L_max = mem/128", NULL},
    {"Rmax", "none, or the machine's Linpack GFlop/s: balance factor", NULL},
    {"random", "random patterns, 1..1000 (30, as b_eff 3.x)", NULL},
    {"repetitions", "1..10, the maximum is taken (3, the paper's)", NULL},
    {"T seconds", "scheduled time T, 0.1..86400 (the paper: 900 or more)", NULL},
    {"directory", "where the files go; empty: $TMPDIR, else /tmp", NULL},
};

static const int beff_fields[] = {EXB_BENCH, EXB_QUICK,  EXB_CAP, EXB_MEM,
                                  EXB_RMAX,  EXB_RANDOM, EXB_REPS};
static const int io_fields[] = {EXB_BENCH, EXB_TIME, EXB_DIR};

static int is_io(const explorer *x)
{
    return strcmp(x->bf.field[EXB_BENCH], "b_eff_io") == 0;
}

static const int *form(const explorer *x, int *n)
{
    if (is_io(x)) {
        *n = (int)(sizeof io_fields / sizeof *io_fields);
        return io_fields;
    }
    *n = (int)(sizeof beff_fields / sizeof *beff_fields);
    return beff_fields;
}

/* ---- the form ---- */

static void validate(explorer *x)
{
    mbx_ex_beff *b = &x->bf;
    char why[160];
    uint64_t v;
    for (int f = 0; f < EXB_NFIELDS; f++)
        b->ferr[f][0] = '\0';
    const char *q = b->field[EXB_QUICK];
    if (strcmp(q, "off") != 0 && (mbx_size_parse(q, &v, why, sizeof why) < 0 || v < MBX_BEFF_LMIN))
        snprintf(b->ferr[EXB_QUICK], sizeof b->ferr[0], "quick: expected off or a size >= 4KiB");
    const char *m = b->field[EXB_MEM];
    if (strcmp(m, "auto") != 0 && (mbx_size_parse(m, &v, why, sizeof why) < 0 ||
                                   v < MBX_BEFF_MEM_MIN || v > ((uint64_t)1 << 40)))
        snprintf(b->ferr[EXB_MEM], sizeof b->ferr[0],
                 "mem per proc: expected auto or a size from 512KiB to 1TiB");
    const char *r = b->field[EXB_RMAX];
    if (strcmp(r, "none") != 0) {
        char *end;
        errno = 0;
        double g = mbx_strtod(r, &end);
        if (errno || end == r || *end || !(g > 0) || !isfinite(g))
            snprintf(b->ferr[EXB_RMAX], sizeof b->ferr[0], "Rmax: expected none or GFlop/s > 0");
    }
    static const struct {
        int f;
        long lo, hi;
        const char *msg;
    } ints[] = {{EXB_RANDOM, 1, MBX_BEFF_NRANDOM_MAX, "random: expected an integer in 1..1000"},
                {EXB_REPS, 1, 10, "repetitions: expected an integer in 1..10"}};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
        char *e;
        errno = 0;
        long n = strtol(b->field[ints[i].f], &e, 10);
        if (errno || e == b->field[ints[i].f] || *e || n < ints[i].lo || n > ints[i].hi)
            snprintf(b->ferr[ints[i].f], sizeof b->ferr[0], "%s", ints[i].msg);
    }
    char *end;
    errno = 0;
    double t = mbx_strtod(b->field[EXB_TIME], &end);
    if (errno || end == b->field[EXB_TIME] || *end || !(t >= 0.1 && t <= 86400))
        snprintf(b->ferr[EXB_TIME], sizeof b->ferr[0],
                 "T seconds: expected a number of seconds in 0.1..86400");
}

/* The form's hooks (ex_form.h): a change checks it and ends a refusal's
 * message; a new benchmark lists other fields; no change while a run is
 * on. */
static void changed(explorer *x)
{
    validate(x);
    x->msg[0] = '\0'; /* a refusal no longer applies */
}

static void turned(explorer *x, int f)
{
    if (f == EXB_BENCH)
        x->bf.form.cursor = 0;
}

static const char *locked(const explorer *x)
{
    return x->bf.running ? "a run is in progress: c cancels it" : NULL;
}

void mbx_ex_beff_init(explorer *x)
{
    mbx_ex_beff *b = &x->bf;
    memset(b, 0, sizeof *b);
    b->form = (mbx_ex_form){.defs = fields,
                            .nfields = EXB_NFIELDS,
                            .text = b->field[0],
                            .tsize = sizeof b->field[0],
                            .err = b->ferr[0],
                            .esize = sizeof b->ferr[0],
                            .screen = EX_BEFF,
                            .label_w = 13,
                            .value_x = 16,
                            .value_w = 14,
                            .list = form,
                            .changed = changed,
                            .turned = turned,
                            .locked = locked};
    snprintf(b->field[EXB_BENCH], sizeof b->field[0], "b_eff");
    snprintf(b->field[EXB_QUICK], sizeof b->field[0], QUICK_DEFAULT);
    snprintf(b->field[EXB_CAP], sizeof b->field[0], "none");
    snprintf(b->field[EXB_MEM], sizeof b->field[0], "auto");
    snprintf(b->field[EXB_RMAX], sizeof b->field[0], "none");
    snprintf(b->field[EXB_RANDOM], sizeof b->field[0], "30");
    snprintf(b->field[EXB_REPS], sizeof b->field[0], "3");
    snprintf(b->field[EXB_TIME], sizeof b->field[0], "10");
    validate(x);
}

static int beff_key(explorer *x, int key)
{
    if (!x->bf.form.editing && mbx_ex_key_action(key, EX_BEFF) == EXA_BEFF_START) {
        mbx_ex_beff_start(x);
        return 1;
    }
    return mbx_ex_form_key(x, &x->bf.form, key);
}

/* ---- the run ---- */

static double now(const explorer *x)
{
    return x->be->now(x->be);
}

/* Between rows: keys and redraws as during a point; 1 stops the run. */
static int tick(explorer *x)
{
    if (mbx_ex_tick(x, 0))
        return 1;
    return x->bf.cancel || x->quit;
}

static int series_of(const mbx_beff_row *r)
{
    if (r->kind == MBX_BEFF_RING && strncmp(r->pattern, "ring", 4) == 0) {
        int k = atoi(r->pattern + 4);
        return k >= 1 && k <= 6 ? k - 1 : -1;
    }
    if (r->kind == MBX_BEFF_RANDOM)
        return 6;
    if (strcmp(r->pattern, "pingpong") == 0)
        return 7;
    return -1;
}

static int on_beff_row(void *ud, const mbx_beff_row *r, size_t done, size_t total)
{
    explorer *x = ud;
    mbx_ex_beff *b = &x->bf;
    b->ndone = done;
    b->ntotal = total;
    int si = r->size_index;
    char sz[16];
    mbx_axis_format((double)r->bytes, MBX_AXIS_BYTES, 0, sz, sizeof sz);
    snprintf(b->cur, sizeof b->cur, "%s %sB %s: %.1f MB/s (loop %d)", r->pattern, sz, r->method,
             r->mbps, r->looplength);
    int s = series_of(r);
    if (si >= 0 && si < MBX_BEFF_NSIZES && s >= 0 && r->mbps > 0 && isfinite(r->mbps)) {
        b->bytes[si] = r->bytes;
        if (s < 6 || s == 7) {
            if (r->mbps > b->bw[s][si])
                b->bw[s][si] = r->mbps;
        } else if (strcmp(b->rkey, r->pattern) == 0 && b->rsize == si) {
            /* another method of the random pattern and size in flight */
            if (r->mbps > b->rlast) {
                b->rlog[si] += log(r->mbps) - log(b->rlast);
                b->rlast = r->mbps;
            }
        } else {
            snprintf(b->rkey, sizeof b->rkey, "%s", r->pattern);
            b->rsize = si;
            b->rlast = r->mbps;
            b->rlog[si] += log(r->mbps);
            b->rcount[si]++;
        }
        if (b->rcount[si])
            b->bw[6][si] = exp(b->rlog[si] / b->rcount[si]);
    }
    return tick(x);
}

static int on_beffio_row(void *ud, const mbx_beffio_row *r, size_t done, size_t total)
{
    explorer *x = ud;
    mbx_ex_beff *b = &x->bf;
    b->ndone = done;
    b->ntotal = total;
    int a = !strcmp(r->access, "write") ? 0 : !strcmp(r->access, "rewrite") ? 1 : 2;
    if (r->type >= 0 && r->type < MBX_BEFFIO_NTYPES) {
        b->io_bytes[r->type][a] += r->bytes_total;
        b->io_time[r->type][a] += r->time_s;
    }
    char sz[16];
    mbx_axis_format((double)r->chunk_bytes, MBX_AXIS_BYTES, 0, sz, sizeof sz);
    snprintf(b->cur, sizeof b->cur, "type %d %s pattern %d, l=%sB%s: %.1f MB/s", r->type, r->access,
             r->pattern, sz, r->wellformed ? "" : " (+8)", r->mbps);
    return tick(x);
}

void mbx_ex_beff_start(explorer *x)
{
    mbx_ex_beff *b = &x->bf;
    if (b->running)
        return;
    if (x->running || x->xp.on) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "%s",
                       x->running ? "a point run is in progress: cancel it first (3, c)"
                                  : "an export is being written: wait for it (3 c stops it)");
        return;
    }
    validate(x);
    if (!mbx_ex_form_ok(x, &x->bf.form)) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "fix the fields in red first");
        return;
    }
    if (is_io(x) ? !x->be->beffio : !x->be->beff) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "this back end cannot run %s", x->bf.field[EXB_BENCH]);
        return;
    }
    if (!is_io(x) && x->be->nranks < 2) {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "b_eff needs at least 2 ranks; the job has %d",
                       x->be->nranks);
        return;
    }
    char keep[EXB_NFIELDS][128];
    memcpy(keep, b->field, sizeof keep);
    mbx_ex_form fm = b->form;
    fm.editing = 0;
    memset(b, 0, sizeof *b);
    memcpy(b->field, keep, sizeof keep);
    b->form = fm;
    b->io = is_io(x);
    b->running = b->started = 1;
    x->screen = EX_BEFF;
    x->msg[0] = '\0';
}

void mbx_ex_beff_run(explorer *x)
{
    mbx_ex_beff *b = &x->bf;
    char why[160], msg[256] = "";
    int rc;
    b->t0 = now(x);
    if (!b->io) {
        mbx_beff_opts o;
        memset(&o, 0, sizeof o);
        if (strcmp(b->field[EXB_QUICK], "off") != 0 &&
            mbx_size_parse(b->field[EXB_QUICK], &o.quick_lmax, why, sizeof why) < 0)
            o.quick_lmax = 0;
        o.cap128 = strcmp(b->field[EXB_CAP], "none") != 0;
        if (strcmp(b->field[EXB_MEM], "auto") != 0 &&
            mbx_size_parse(b->field[EXB_MEM], &o.mem_per_proc, why, sizeof why) < 0)
            o.mem_per_proc = 0;
        o.rmax_gflops =
            strcmp(b->field[EXB_RMAX], "none") ? mbx_strtod(b->field[EXB_RMAX], NULL) : 0;
        /* A fixed seed for the fake (stable screens), the time otherwise. */
        o.seed = x->be->fake ? 1 : (unsigned)time(NULL);
        o.nrandom = atoi(b->field[EXB_RANDOM]);
        o.reps = atoi(b->field[EXB_REPS]);
        rc = x->be->beff(x->be, &o, on_beff_row, x, &b->sum);
    } else {
        mbx_beffio_opts o;
        memset(&o, 0, sizeof o);
        o.stop_flag = &mbx_stop_signal;
        o.dir = b->field[EXB_DIR][0] ? b->field[EXB_DIR] : NULL;
        o.T_s = mbx_strtod(b->field[EXB_TIME], NULL);
        rc = x->be->beffio(x->be, &o, on_beffio_row, x, &b->iosum, msg, sizeof msg);
        if (b->iosum.stale_note[0]) /* stderr is the log while the screen is up */
            fprintf(stderr, "mpibex: warning: %s\n", b->iosum.stale_note);
    }
    b->t1 = now(x);
    b->running = 0;
    if (rc == MBX_OK) {
        b->done = 1;
        mbx_ex_set_msg(x, MBX_ROLE_OK, "done: %zu rows in %.1f s%s", b->ndone, b->t1 - b->t0,
                       x->be->fake ? " (fake back end: modelled, not measured)" : "");
    } else if (rc == MBX_E_ABORTED) {
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "cancelled after %zu of %zu rows: no summary", b->ndone,
                       b->ntotal);
    } else {
        mbx_ex_set_msg(x, MBX_ROLE_ERROR, "%s failed: %s", b->io ? "b_eff_io" : "b_eff",
                       msg[0] ? msg : mbx_strerror(rc));
    }
    b->cancel = 0;
}

/* ---- drawing: the form and the progress (the results: ex_beffview.c) ---- */

static void draw_progress(explorer *x, int y, const mbx_rect *r)
{
    mbx_ex_beff *b = &x->bf;
    char line[400];
    if (!b->started) {
        snprintf(line, sizeof line, "ready: r runs %s with these settings", b->field[EXB_BENCH]);
        mbx_ex_put(x, y, r->x + 1, r->w - 1, MBX_ROLE_DIM, line);
        return;
    }
    double el = (b->running ? now(x) : b->t1) - b->t0;
    double frac = b->ntotal ? (double)b->ndone / (double)b->ntotal : 0;
    int barw = r->w >= 100 ? 20 : 10, fill = (int)lround(frac * barw);
    char bar[32];
    for (int i = 0; i < barw; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[barw] = '\0';
    const char *state = b->running ? "running" : b->done ? "done" : "stopped";
    snprintf(line, sizeof line, "%s: row %zu/%zu [%s] %3.0f%%  elapsed %.1fs  %s",
             b->io ? "b_eff_io" : "b_eff", b->ndone, b->ntotal, bar, 100 * frac, el, state);
    mbx_ex_put(x, y, r->x + 1, r->w - 1, MBX_ROLE_NORMAL, line);
    if (x->msg[0])
        mbx_ex_put_msg(x, y + 1, r->x + 1, r->w - 1, x->msg_role, x->msg);
    else if (b->cur[0])
        mbx_ex_put(x, y + 1, r->x + 1, r->w - 1, MBX_ROLE_DIM, b->cur);
}

static void draw_beff(explorer *x, const mbx_rect *body)
{
    mbx_ex_beff *b = &x->bf;
    int io = b->started ? b->io : is_io(x);
    const char *head =
        io ? "b_eff_io: effective MPI-IO bandwidth" : "b_eff: effective network bandwidth";
    int hl = (int)strlen(head) + 1;
    mbx_ex_put(x, body->y, body->x + 1, body->w - 1, MBX_ROLE_NORMAL, head);
    if (x->be->fake) { /* never mistaken for a measurement */
        const char *fk = "fake back end: modelled numbers, not measured";
        int len = (int)strlen(fk);
        if (body->w - 2 - hl >= len)
            mbx_ex_put(x, body->y, body->x + body->w - len - 1, len, MBX_ROLE_WARNING, fk);
        else
            mbx_ex_put(x, body->y, body->x + hl + 2, body->w - hl - 3, MBX_ROLE_WARNING,
                       "fake back end: modelled");
    }
    int y = mbx_ex_form_draw(x, &b->form, body, body->y + 1, 0, EXB_NFIELDS);
    draw_progress(x, y, body);
    y += 2;
    mbx_rect area = {y, body->x, body->y + body->h - y, body->w};
    if (area.h < 4)
        return;
    mbx_ex_draw_beff_results(x, &area, io);
}

/* As the parameter form (the form widget's); not while a run is on. */
static int beff_mouse(explorer *x, const mbx_rect *body, const mbx_ex_mouse *m)
{
    int n;
    form(x, &n);
    return mbx_ex_form_mouse(x, &x->bf.form, body, body->y + 1, 0, n, m);
}

static int beff_typing(const explorer *x)
{
    return x->bf.form.editing;
}

/* The screen's row of the screen table (screens/screen.h). */
const mbx_ex_screen_def mbx_ex_screen_beff = {
    .name = "5 b_eff",
    .brief = "5 b_eff",
    .help = "b_eff",
    .draw = draw_beff,
    .key = beff_key,
    .typing = beff_typing,
    .mouse = beff_mouse,
};
