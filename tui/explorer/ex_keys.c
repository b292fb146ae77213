#include "ex_keys.h"

#include <stdio.h>
#include <string.h>

#include "screens/screen.h"

#define CTRL(c) ((c)&0x1f)

typedef struct mbx_ex_keydef {
    int key[3];        /* up to three keys, 0-terminated */
    const char *label; /* as shown in the footer and help */
    const char *word;  /* the footer's name for it */
    const char *help;
    unsigned screens;
    int footer; /* shown in the footer of those screens */
    mbx_ex_action act;
} mbx_ex_keydef;

/* Order matters: the footer lists entries in this order, and the first
 * binding of a key for a screen wins. */
static const mbx_ex_keydef keytab[] = {
    {{'q', 0, 0}, "q", "quit", "quit (asks when results are not exported)", S_ALL, 1, EXA_QUIT},
    {{'?', KEY_F(1), 0}, "?", "help", "this help", S_ALL | S_CHOOSE, 1, EXA_HELP},
    {{'\t', 0, 0}, "Tab", "screens", "next screen", S_ALL, 1, EXA_NEXT_SCREEN},
    {{'1', 0, 0}, "1", "picker", "benchmark picker", S_ALL, 0, EXA_PICKER},
    {{'2', 0, 0}, "2", "params", "parameters", S_ALL, 0, EXA_PARAMS},
    {{'3', 0, 0}, "3", "run view", "run view", S_ALL, 0, EXA_RUNVIEW},
    {{'4', 0, 0}, "4", "results", "results table", S_ALL, 0, EXA_RESULTS},
    {{'5', 0, 0}, "5", "b_eff", "b_eff and b_eff_io, the effective bandwidths", S_ALL, 0, EXA_BEFF},
    {{'6', 0, 0}, "6", "pairs", "every pair of nodes: latency and bandwidth", S_ALL, 0, EXA_PAIRS},
    {{'r', KEY_F(5), 0},
     "r",
     "run",
     "run the selected benchmarks",
     S_PICK | S_PARM | S_RUN | S_RES,
     1,
     EXA_START},
    {{'r', KEY_F(5), 0},
     "r",
     "run",
     "run b_eff or b_eff_io as set in the form",
     S_BEFF,
     1,
     EXA_BEFF_START},
    {{'r', KEY_F(5), 0},
     "r",
     "run",
     "run the rules' plan: their benchmarks at their sizes, 10 passes a point at least",
     S_GL,
     1,
     EXA_GL_RUN},
    {{'r', KEY_F(5), 0},
     "r",
     "run",
     "measure every pair of nodes as set in the form",
     S_PAIRS,
     1,
     EXA_PAIRS_START},
    {{'f', 0, 0}, "f", "form", "the form, or back to the matrix", S_PAIRS, 1, EXA_PAIRS_FORM},
    {{'b', 0, 0}, "b", "lat/bw", "the latency or the bandwidth matrix", S_PAIRS, 1, EXA_BANDWIDTH},
    {{'z', 0, 0},
     "z",
     "zoom",
     "blocks of nodes that fit, or one node a cell (the map scrolls)",
     S_PAIRS,
     0,
     EXA_PAIRS_ZOOM},
    {{'\n', KEY_ENTER, '\r'},
     "Enter",
     "inspect",
     "the cell in the inspector (in the form: edit the field)",
     S_PAIRS,
     1,
     EXA_ENTER},
    {{'i', 0, 0}, "i", "inspect", "the cell in the inspector", S_PAIRS, 0, EXA_INSPECT},
    {{KEY_LEFT, 'h', 0}, "Left/h", "left", "the cell to the left", S_PAIRS, 0, EXA_LEFT},
    {{KEY_RIGHT, 'l', 0}, "Right/l", "right", "the cell to the right", S_PAIRS, 0, EXA_RIGHT},
    {{27, 0, 0}, "Esc", "close", "close the inspector", S_PAIRS, 0, EXA_BACK},
    {{' ', 0, 0},
     "Space",
     "select",
     "select or unselect a benchmark (all of a pattern on its row)",
     S_PICK,
     1,
     EXA_TOGGLE},
    {{'a', 0, 0}, "a", "all", "select every benchmark shown", S_PICK, 1, EXA_ALL},
    {{'n', 0, 0}, "n", "none", "select none", S_PICK, 0, EXA_NOSEL},
    {{'d', 0, 0},
     "d",
     "twice",
     "measure a benchmark twice: two interleaved curves, a control for compare (v)",
     S_PICK,
     0,
     EXA_TWICE},
    {{'/', 0, 0},
     "/",
     "filter",
     "filter by typing (Enter keeps, Esc clears)",
     S_PICK,
     1,
     EXA_FILTER},
    {{'\n', KEY_ENTER, '\r'},
     "Enter",
     "open",
     "open a pattern / edit a field / next",
     S_PICK | S_PARM | S_BEFF,
     1,
     EXA_ENTER},
    {{'\n', KEY_ENTER, '\r'},
     "Enter",
     "compare",
     "compare the rule's two curves in the run view (Esc comes back); before a run, r",
     S_GL,
     1,
     EXA_ENTER},
    {{'/', 0, 0},
     "/",
     "rules",
     "the rules shown and run: globs as --rules (Enter keeps, Esc clears)",
     S_GL,
     1,
     EXA_FILTER},
    {{'p', ' ', 0}, "p", "pause", "pause or resume", S_RUN | S_GL, 1, EXA_PAUSE},
    {{'c', 0, 0},
     "c",
     "cancel",
     "cancel the run (the point in flight is dropped)",
     S_RUN | S_GL,
     1,
     EXA_CANCEL},
    {{'c', 0, 0},
     "c",
     "cancel",
     "cancel the b_eff / b_eff_io run (no summary then)",
     S_BEFF,
     1,
     EXA_CANCEL},
    {{'c', 0, 0},
     "c",
     "cancel",
     "cancel the pairs run (the cells so far stay)",
     S_PAIRS,
     1,
     EXA_CANCEL},
    {{'b', 0, 0}, "b", "latency/bandwidth", "plot latency or bandwidth", S_RUN, 1, EXA_BANDWIDTH},
    {{'x', 0, 0},
     "x",
     "axis",
     "x axis: message size, process count P (ranks 0..P-1) or parameter (threads)",
     S_RUN,
     1,
     EXA_XAXIS},
    {{'v', 0, 0},
     "v",
     "compare",
     "compare two curves: pick A and B, their ratio B/A under the plot",
     S_RUN,
     1,
     EXA_COMPARE},
    {{'=', 0, 0}, "=", "ratios", "list B/A at every common x", S_RUN, 0, EXA_RATIOS},
    {{'e', 0, 0}, "e", "export", "export results to CSV", S_RUN | S_RES, 1, EXA_EXPORT},
    {{'w', 0, 0},
     "w",
     "report",
     "write a report: the results and their sidecars, plots, index.html (gnuplot)",
     S_RUN | S_RES,
     1,
     EXA_REPORT},
    {{'i', 0, 0}, "i", "inspect", "inspect a point: stats, passes, hist", S_RUN, 1, EXA_INSPECT},
    {{KEY_LEFT, 'h', 0},
     "Left/h",
     "left",
     "inspector: previous point on curve",
     S_RUN,
     0,
     EXA_LEFT},
    {{KEY_RIGHT, 'l', 0},
     "Right/l",
     "right",
     "inspector: next point on the curve",
     S_RUN,
     0,
     EXA_RIGHT},
    {{KEY_UP, 'k', 0}, "Up/k", "up", "inspector: the curve above", S_RUN, 0, EXA_UP},
    {{KEY_DOWN, 'j', 0}, "Down/j", "down", "inspector: the curve below", S_RUN, 0, EXA_DOWN},
    {{27, 0, 0}, "Esc", "close", "close the inspector (or i again)", S_RUN, 0, EXA_BACK},
    {{'E', 0, 0}, "E", "error bars", "error bars: 95% CI from the passes", S_RUN, 0, EXA_ERRBARS},
    /* Not keys (no key matches 0): what the run view's marks mean. */
    {{0, 0, 0}, "o+x*#@", "", "each curve's marker (and line style)", S_RUN, 0, EXA_NONE},
    {{0, 0, 0}, "o o o", "", "bold settled, dim open, rev. flagged", S_RUN, 0, EXA_NONE},
    {{0, 0, 0}, "flagged", "", "final, not SETTLED: i says why", S_RUN, 0, EXA_NONE},
    {{0, 0, 0}, "^ p", "", "refined point; plain median", S_RUN, 0, EXA_NONE},
    {{0, 0, 0}, "bars", "", "fill as it converges: full = target", S_RUN, 0, EXA_NONE},
    {{'s', 0, 0}, "s", "sort", "sort by the next column", S_RES, 1, EXA_SORT},
    {{'S', 0, 0}, "S", "reverse", "reverse the sort order", S_RES, 0, EXA_REVERSE},
    {{'t', 0, 0}, "t", "theme", "next colour theme", S_ALL, 0, EXA_THEME},
    {{'m', 0, 0},
     "m",
     "message",
     "the message in full (and the form's errors), wrapped",
     S_ALL,
     0,
     EXA_MESSAGE},
    {{'g', 0, 0}, "g", "glyphs", "next glyph set (braille, block, ascii)", S_ALL, 0, EXA_GLYPHS},
    {{'\n', KEY_ENTER, '\r'},
     "Enter",
     "choose",
     "take the curve under the cursor as A, then as B",
     S_CHOOSE,
     1,
     EXA_CHOOSE},
    {{27, 'q', 0}, "Esc/q", "back", "close the chooser", S_CHOOSE, 1, EXA_BACK},
    {{KEY_UP, 'k', 0},
     "Up/k",
     "up",
     "move up",
     S_PICK | S_PARM | S_RES | S_BEFF | S_GL | S_PAIRS | S_CHOOSE,
     0,
     EXA_UP},
    {{KEY_DOWN, 'j', 0},
     "Down/j",
     "down",
     "move down",
     S_PICK | S_PARM | S_RES | S_BEFF | S_GL | S_PAIRS | S_CHOOSE,
     0,
     EXA_DOWN},
    {{KEY_PPAGE, CTRL('b'), 0}, "PgUp", "page up", "page up", S_PICK | S_RES | S_GL, 0, EXA_PGUP},
    {{KEY_NPAGE, CTRL('f'), 0},
     "PgDn",
     "page down",
     "page down",
     S_PICK | S_RES | S_GL,
     0,
     EXA_PGDN},
    {{KEY_HOME, 0, 0}, "Home", "top", "first row", S_PICK | S_RES | S_GL, 0, EXA_HOME},
    {{KEY_END, 'G', 0}, "End/G", "bottom", "last row", S_PICK | S_RES | S_GL, 0, EXA_END},
    {{KEY_LEFT, 'h', 0}, "Left/h", "previous", "previous choice", S_PARM | S_BEFF, 0, EXA_LEFT},
    {{KEY_RIGHT, 'l', 0}, "Right/l", "next", "next choice", S_PARM | S_BEFF, 0, EXA_RIGHT},
    {{KEY_LEFT, 'h', 0},
     "Left/h",
     "columns",
     "scroll the columns right of the size back",
     S_RES,
     0,
     EXA_LEFT},
    {{KEY_RIGHT, 'l', 0},
     "Right/l",
     "columns",
     "scroll the columns sideways: MB/s and the rest on narrow terminals",
     S_RES,
     0,
     EXA_RIGHT},
};
#define NKEYS (sizeof keytab / sizeof keytab[0])

mbx_ex_action mbx_ex_key_action(int key, mbx_ex_screen s)
{
    return mbx_ex_key_action_in(key, 1u << s);
}

unsigned mbx_ex_key_context(const explorer *x)
{
    return x->screen == EX_RUN && x->cmp.choosing ? S_CHOOSE : 1u << x->screen;
}

mbx_ex_action mbx_ex_key_action_in(int key, unsigned ctx)
{
    for (size_t i = 0; i < NKEYS; i++) {
        if (!(keytab[i].screens & ctx))
            continue;
        for (int j = 0; j < 3 && keytab[i].key[j]; j++)
            if (keytab[i].key[j] == key)
                return keytab[i].act;
    }
    return EXA_NONE;
}

const char *mbx_ex_key_name(int key, char *buf, size_t len)
{
    const char *n = keyname(key);
    snprintf(buf, len, "%s", n ? n : "?");
    return buf;
}

/* Whether the footer offers entry k now: pause and cancel while there is
 * a run to pause or cancel, r on the run view when there is none. */
static int footer_now(const explorer *x, const mbx_ex_keydef *k)
{
    switch (k->act) {
    case EXA_PAUSE: return x->running;
    case EXA_CANCEL:
        return x->xp.on || (k->screens & S_BEFF    ? x->bf.running
                            : k->screens & S_PAIRS ? x->pr.running
                                                   : x->running);
    case EXA_START: return x->screen != EX_RUN || !x->running;
    default: return 1;
    }
}

/* What the footer drops first when its keys do not fit one row (80
 * columns): the screens' keys (the title bar shows the tabs, 1-5 take
 * them), then b and x (the plot's title names them); then the rest of
 * this list. Keys not listed (q, ?, v, e, w, i) stay; if even they do not
 * fit, the row ends at the first that does not. ? lists every key. */
static const mbx_ex_action footer_drop[] = {EXA_NEXT_SCREEN, EXA_XAXIS, EXA_BANDWIDTH, EXA_FILTER,
                                            EXA_ALL,         EXA_SORT,  EXA_PAUSE,     EXA_CANCEL};
#define NDROP (sizeof footer_drop / sizeof footer_drop[0])

/* The width entry i takes in the footer: "label word" and two blanks. */
static int entry_w(size_t i)
{
    return (int)strlen(keytab[i].label) + 1 + (int)strlen(keytab[i].word) + 2;
}

/* The footer's entries for x's context in w columns: col[i] is entry i's
 * column, or -1 when it is not shown. One layout for drawing and clicks. */
static void footer_layout(const explorer *x, int w, int col[NKEYS])
{
    unsigned ctx = mbx_ex_key_context(x);
    int total = 0;
    for (size_t i = 0; i < NKEYS; i++) {
        col[i] =
            keytab[i].footer && (keytab[i].screens & ctx) && footer_now(x, &keytab[i]) ? 0 : -1;
        total += col[i] == 0 ? entry_w(i) : 0;
    }
    for (size_t d = 0; d < NDROP && total > w; d++)
        for (size_t i = 0; i < NKEYS; i++)
            if (col[i] == 0 && keytab[i].act == footer_drop[d]) {
                col[i] = -1;
                total -= entry_w(i);
            }
    int c = 0, full = 0;
    for (size_t i = 0; i < NKEYS; i++) {
        if (col[i] < 0)
            continue;
        full |= c + entry_w(i) > w;
        col[i] = full ? -1 : c;
        c += full ? 0 : entry_w(i);
    }
}

void mbx_ex_draw_footer(explorer *x, const mbx_rect *r)
{
    int col[NKEYS];
    mbx_ex_fill(x, r->y, r->x, r->w, MBX_ROLE_FOOTER);
    footer_layout(x, r->w, col);
    for (size_t i = 0; i < NKEYS; i++) {
        if (col[i] < 0)
            continue;
        int c = r->x + col[i], ll = (int)strlen(keytab[i].label);
        const char *word = keytab[i].word;
        mbx_ex_put(x, r->y, c, ll, MBX_ROLE_FOOTER_KEY, keytab[i].label);
        mbx_ex_put(x, r->y, c + ll, (int)strlen(word) + 1, MBX_ROLE_FOOTER, " ");
        mbx_ex_put(x, r->y, c + ll + 1, (int)strlen(word), MBX_ROLE_FOOTER, word);
    }
}

int mbx_ex_key_entry(size_t i, unsigned ctx, const char **label, const char **help)
{
    if (i >= NKEYS)
        return -1;
    *label = keytab[i].label;
    *help = keytab[i].help;
    return (keytab[i].screens & ctx) != 0;
}

int mbx_ex_footer_key_at(const explorer *x, int c)
{
    int col[NKEYS];
    footer_layout(x, x->cols, col);
    for (size_t i = 0; i < NKEYS; i++)
        if (col[i] >= 0 && c >= col[i] && c < col[i] + entry_w(i) - 2)
            return keytab[i].key[0];
    return 0;
}
