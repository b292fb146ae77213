/* The overlays over a screen: the help (?, the key table of the screen in
 * view with what the mouse and text entry do, and what the numbers on the
 * run view and the results mean) and the message in full (m: the status
 * line's message, a comparison's summary and the form's errors, which
 * their lines cut). Both sit in a frame, wrap to the terminal's width and
 * scroll with the arrows, PgUp/PgDn, Home/End and the wheel; any other key
 * or a click closes. */
#include <stdio.h>
#include <string.h>

#include "ex_keys.h"
#include "explorer.h"

#define MAX_LINES 400
#define LABEL_W 10 /* the help's key column */

/* One line of an overlay: a label (the first line of a key's entry, or
 * NULL) and len bytes of text. */
typedef struct ovl_line {
    const char *label;
    const char *text;
    size_t len;
} ovl_line;

typedef struct ovl {
    ovl_line line[MAX_LINES];
    int n;
    mbx_rect box; /* the overlay on the screen */
    int tw;       /* the text's width */
    int view;     /* lines shown at once */
} ovl;

/* text wrapped into o's lines after label (the first line's). */
static void add(ovl *o, const char *label, const char *text)
{
    size_t off = 0, next = 0;
    do {
        size_t len = mbx_wrap_line(text + off, o->tw, &next);
        if (o->n < MAX_LINES)
            o->line[o->n++] = (ovl_line){off ? NULL : label, text + off, len};
        off += next;
    } while (text[off] && next > 0);
}

static const char mouse_help[] =
    "click a tab, a row, a field, a cell of the pairs matrix, a benchmark (a pattern's box: all of "
    "it) or a column's name "
    "(sorts); the wheel scrolls, with Shift or over the column names sideways; Shift with the "
    "mouse selects text in most terminals (or start with --no-mouse)";
static const char edit_help[] =
    "in a field, the filter or a file name: Home/End or Ctrl-A/E, Left/Right move; Ctrl-U "
    "deletes to the start, Ctrl-W the word before the cursor, Ctrl-K to the end; a proposed "
    "name is selected: typing replaces it";

/* The numbers of the run view and the results, one entry each: the help
 * says what they are, where the screens have room only for the figure. */
static const char *const legend[][2] = {
    {"err 0.30%", "a point's error: the spread between its passes' medians, relative to its "
                  "median; SETTLED once below the stop rule's target"},
    {"pass 7/5", "passes measured / passes a point needs at least (--passes); final 42/42: "
                 "points final / points of the run"},
    {"43% [###]", "the run's points that are final; a point's bar fills as its err nears the "
                  "target (full = met)"},
    {"target 3%", "the stop rule's precision target; eps 5%: refinement's target of a segment"},
    {"level 0112", "inspector: the machine level (0 the first, 1, 2 ...) the monitor's probes "
                   "saw during each pass; a change is a level shift (SHIFTED)"},
    {"2lv 1sh", "probe: the monitor's 1-byte ping-pong: its last time, levels seen, shifts"},
    {"n 1605", "observations of a point, all passes; 1.6s: the span of its passes"},
    {"B/A 0.85", "comparing (v): B's value over A's, as `mpibex compare`; p: the two-sided "
                 "p of the rank-sum test; < A faster, > A slower, = the same"},
};

static ovl g_ovl;           /* one thread; 400 lines do not belong on the stack */
static char g_summary[600]; /* the comparison's summary the m overlay shows */

/* The overlay's lines and box for the terminal's size. */
static void layout(explorer *x, ovl *o)
{
    int w = x->cols - 4 < 76 ? x->cols - 4 : 76;
    o->n = 0;
    o->tw = x->help == EX_OVERLAY_HELP ? w - 4 - LABEL_W : w - 4;
    if (o->tw < 8)
        o->tw = 8;
    if (x->help == EX_OVERLAY_HELP) {
        unsigned ctx = mbx_ex_key_context(x);
        const char *label, *help;
        for (size_t i = 0; mbx_ex_key_entry(i, ctx, &label, &help) >= 0; i++)
            if (mbx_ex_key_entry(i, ctx, &label, &help) == 1)
                add(o, label, help);
        add(o, "mouse", mouse_help);
        add(o, "Ctrl-U/W", edit_help);
        for (size_t i = 0; (ctx & (S_RUN | S_RES | S_CHOOSE)) && i < sizeof legend / sizeof *legend;
             i++)
            add(o, legend[i][0], legend[i][1]);
    } else {
        if (x->msg[0])
            add(o, NULL, x->msg);
        /* The status block's comparison summary, which its line cuts. */
        if (x->screen == EX_RUN && x->cmp.on) {
            mbx_ex_compare_summary(x, g_summary, sizeof g_summary);
            add(o, NULL, g_summary);
        }
        /* The form's messages, which its lines cut on narrow terminals. */
        for (int f = 0; x->screen == EX_PARAMS && f < EX_NFIELDS; f++)
            if (x->par.ferr[f][0])
                add(o, NULL, x->par.ferr[f]);
        for (int f = 0; x->screen == EX_BEFF && f < EXB_NFIELDS; f++)
            if (x->bf.ferr[f][0])
                add(o, NULL, x->bf.ferr[f]);
        if (o->n == 0)
            add(o, NULL, "(no message)");
    }
    int h = o->n + 2 < x->rows - 2 ? o->n + 2 : x->rows - 2;
    o->box = (mbx_rect){.y = (x->rows - h) / 2, .x = (x->cols - w) / 2, .h = h, .w = w};
    o->view = h - 2 > 1 ? h - 2 : 1;
    if (x->help_top > o->n - o->view)
        x->help_top = o->n - o->view;
    if (x->help_top < 0)
        x->help_top = 0;
}

void mbx_ex_draw_overlay(explorer *x, const char *screen)
{
    ovl *o = &g_ovl;
    layout(x, o);
    const mbx_rect *b = &o->box;
    mbx_ex_draw_box(x, b, MBX_ROLE_AXIS);
    char head[128];
    const char *close = o->n > o->view ? "Up/Down scroll, other keys close" : "any key closes";
    if (x->help == EX_OVERLAY_HELP)
        snprintf(head, sizeof head, " mpibex keys: %s (%s)",
                 mbx_ex_key_context(x) == S_CHOOSE ? "series chooser" : screen, close);
    else
        snprintf(head, sizeof head, " message in full (%s)", close);
    mbx_ex_put_cut(x, b->y, b->x + 1, b->w - 2, MBX_ROLE_TITLE, head);
    int tx = b->x + 2 + (x->help == EX_OVERLAY_HELP ? LABEL_W + 1 : 0);
    for (int i = 0; i < o->view && x->help_top + i < o->n; i++) {
        const ovl_line *l = &o->line[x->help_top + i];
        char text[512];
        snprintf(text, sizeof text, "%.*s", (int)l->len, l->text);
        if (l->label)
            mbx_ex_put(x, b->y + 1 + i, b->x + 2, LABEL_W, MBX_ROLE_FOOTER_KEY, l->label);
        mbx_ex_put(x, b->y + 1 + i, tx, o->tw, MBX_ROLE_NORMAL, text);
    }
    if (o->n > o->view) {
        char where[64];
        snprintf(where, sizeof where, " lines %d-%d of %d ", x->help_top + 1,
                 x->help_top + o->view < o->n ? x->help_top + o->view : o->n, o->n);
        mbx_ex_put(x, b->y + b->h - 1, b->x + b->w - (int)strlen(where) - 2, (int)strlen(where),
                   MBX_ROLE_DIM, where);
    }
}

/* The overlay scrolled by d lines (clamped). */
static void scroll_by(explorer *x, int d)
{
    x->help_top += d;
    layout(x, &g_ovl);
}

int mbx_ex_overlay_key(explorer *x, int key)
{
    const ovl *o = &g_ovl;
    layout(x, &g_ovl);
    switch (key) {
    case KEY_UP:
    case 'k': scroll_by(x, -1); break;
    case KEY_DOWN:
    case 'j': scroll_by(x, 1); break;
    case KEY_PPAGE: scroll_by(x, -o->view); break;
    case KEY_NPAGE:
    case ' ': scroll_by(x, o->view); break;
    case KEY_HOME: scroll_by(x, -o->n); break;
    case KEY_END:
    case 'G': scroll_by(x, o->n); break;
    default: x->help = EX_OVERLAY_NONE; break;
    }
    return 1;
}

int mbx_ex_overlay_mouse(explorer *x, const mbx_ex_mouse *m)
{
    if (m->button == EX_MB_WHEEL_UP || m->button == EX_MB_WHEEL_DOWN)
        scroll_by(x, m->button == EX_MB_WHEEL_UP ? -EX_WHEEL_ROWS : EX_WHEEL_ROWS);
    else
        x->help = EX_OVERLAY_NONE;
    return 1;
}
