/* The benchmark picker: the registry as a tree (pattern, then variant),
 * multi-select, filtered by typing after '/'. */
#include <stdio.h>
#include <string.h>

#include "ex_keys.h"
#include "explorer.h"
#include "mbx/bench.h"
#include "mbx/names.h"
#include "screens/screen.h"

#define MAX_PATTERNS EX_MAX_PATTERNS

typedef struct row {
    int pattern; /* index into the pattern list */
    int bench;   /* registry id, or -1 for the pattern's own row */
} row;

static int patterns(const char *names[MAX_PATTERNS])
{
    int n = 0;
    for (size_t i = 0; i < mbx_bench_count(); i++) {
        const char *p = mbx_bench_get((int)i)->pattern;
        int seen = 0;
        for (int j = 0; j < n; j++)
            seen |= strcmp(names[j], p) == 0;
        if (!seen && n < MAX_PATTERNS)
            names[n++] = p;
    }
    return n;
}

/* A filter with a glob character ("coll.i*") matches whole names as
 * --bench does (mbx/names.h); any other is a substring of name or summary. */
static int matches(const explorer *x, const mbx_bench *b)
{
    if (mbx_name_is_glob(x->pick.filter))
        return mbx_name_glob(x->pick.filter, b->name);
    return x->pick.filter[0] == '\0' || strstr(b->name, x->pick.filter) != NULL ||
           strstr(b->summary, x->pick.filter) != NULL;
}

/* The rows on screen, in order; a pattern with no match is left out. */
static int visible_rows(const explorer *x, row *out, int max)
{
    const char *pn[MAX_PATTERNS];
    int np = patterns(pn), n = 0;
    for (int p = 0; p < np; p++) {
        int first = n;
        if (n < max)
            out[n++] = (row){p, -1};
        int any = 0;
        for (size_t i = 0; i < mbx_bench_count(); i++) {
            const mbx_bench *b = mbx_bench_get((int)i);
            if (strcmp(b->pattern, pn[p]) != 0 || !matches(x, b))
                continue;
            any = 1;
            if (!x->pick.collapsed[p] && n < max)
                out[n++] = (row){p, (int)i};
        }
        if (!any)
            n = first;
    }
    return n;
}

int mbx_ex_picker_count(const explorer *x)
{
    int n = 0;
    for (size_t i = 0; i < mbx_bench_count() && i < EX_MAX_BENCH; i++)
        n += x->sel[i] != 0;
    return n;
}

static void select_pattern(explorer *x, int p, int on)
{
    const char *pn[MAX_PATTERNS];
    patterns(pn);
    for (size_t i = 0; i < mbx_bench_count() && i < EX_MAX_BENCH; i++) {
        const mbx_bench *b = mbx_bench_get((int)i);
        if (strcmp(b->pattern, pn[p]) == 0 && matches(x, b))
            x->sel[i] = !on ? 0 : x->sel[i] ? x->sel[i] : 1;
    }
}

static int pattern_state(const explorer *x, int p)
{
    const char *pn[MAX_PATTERNS];
    patterns(pn);
    int all = 1, any = 0;
    for (size_t i = 0; i < mbx_bench_count() && i < EX_MAX_BENCH; i++) {
        const mbx_bench *b = mbx_bench_get((int)i);
        if (strcmp(b->pattern, pn[p]) != 0 || !matches(x, b))
            continue;
        all &= x->sel[i] != 0;
        any |= x->sel[i] != 0;
    }
    return all ? 2 : any ? 1 : 0;
}

static int picker_key(explorer *x, int key)
{
    row rows[EX_MAX_BENCH + MAX_PATTERNS];
    if (x->pick.filtering) {
        if (key == 27) {
            x->pick.filter[0] = '\0';
            x->pick.filtering = 0;
        } else if (key == '\n' || key == '\r' || key == KEY_ENTER) {
            x->pick.filtering = 0;
        } else if (!mbx_ex_line_edit(x, x->pick.filter, sizeof x->pick.filter, key)) {
            return 0;
        }
        x->pick.cursor = 0;
        x->pick.top = 0;
        return 1;
    }
    int n = visible_rows(x, rows, (int)(sizeof rows / sizeof *rows));
    mbx_ex_action a = mbx_ex_key_action(key, EX_PICKER);
    const row *cur = n > 0 && x->pick.cursor < n ? &rows[x->pick.cursor] : NULL;
    int page = x->rows - 6 > 1 ? x->rows - 6 : 1; /* the list's height: a page */
    switch (a) {
    case EXA_UP: x->pick.cursor = x->pick.cursor > 0 ? x->pick.cursor - 1 : 0; break;
    case EXA_DOWN:
        x->pick.cursor = x->pick.cursor + 1 < n ? x->pick.cursor + 1 : x->pick.cursor;
        break;
    case EXA_PGUP:
        x->pick.cursor = x->pick.cursor > page ? x->pick.cursor - page : 0;
        x->pick.top = x->pick.top > page ? x->pick.top - page : 0;
        break;
    case EXA_PGDN:
        x->pick.cursor = x->pick.cursor + page < n ? x->pick.cursor + page : (n > 0 ? n - 1 : 0);
        x->pick.top += page;
        break;
    case EXA_HOME: x->pick.cursor = 0; break;
    case EXA_END: x->pick.cursor = n > 0 ? n - 1 : 0; break;
    case EXA_TOGGLE:
        if (!cur)
            return 0;
        if (cur->bench >= 0)
            x->sel[cur->bench] = !x->sel[cur->bench];
        else
            select_pattern(x, cur->pattern, pattern_state(x, cur->pattern) != 2);
        break;
    case EXA_TWICE:
        if (!cur || cur->bench < 0)
            return 0;
        x->sel[cur->bench] = x->sel[cur->bench] == 2 ? 1 : 2;
        break;
    case EXA_ENTER:
        if (cur && cur->bench < 0)
            x->pick.collapsed[cur->pattern] = !x->pick.collapsed[cur->pattern];
        else
            x->screen = EX_PARAMS;
        break;
    case EXA_ALL:
    case EXA_NOSEL:
        for (int i = 0; i < n; i++)
            if (rows[i].bench >= 0)
                x->sel[rows[i].bench] = a == EXA_NOSEL          ? 0
                                        : x->sel[rows[i].bench] ? x->sel[rows[i].bench]
                                                                : 1;
        if (a == EXA_ALL) /* collapsed patterns too */
            for (int p = 0; p < MAX_PATTERNS; p++)
                if (x->pick.collapsed[p])
                    select_pattern(x, p, 1);
        break;
    case EXA_FILTER:
        x->pick.filtering = 1;
        mbx_ex_edit_begin(x, x->pick.filter, 0);
        break;
    default: return 0;
    }
    return 1;
}

/* The head line: how many are selected (and twice), and the filter. */
static void picker_head(explorer *x, const mbx_rect *body)
{
    char head[128];
    int twice = 0;
    for (size_t i = 0; i < mbx_bench_count() && i < EX_MAX_BENCH; i++)
        twice += x->sel[i] == 2;
    int k = snprintf(head, sizeof head, "Benchmarks: %d selected of %zu", mbx_ex_picker_count(x),
                     mbx_bench_count());
    if (twice)
        snprintf(head + k, sizeof head - (size_t)k, " (%d twice)", twice);
    mbx_ex_put(x, body->y, body->x + 1, body->w - 1, MBX_ROLE_NORMAL, head);
    char filt[80];
    if (x->pick.filtering) {
        mbx_ex_put(x, body->y, body->x + 40, 8, MBX_ROLE_CURSOR, "filter: ");
        mbx_ex_put_edit(x, body->y, body->x + 48, body->w - 48, MBX_ROLE_CURSOR, x->pick.filter);
    } else if (x->pick.filter[0]) {
        snprintf(filt, sizeof filt, "filter: %s", x->pick.filter);
        mbx_ex_put(x, body->y, body->x + 40, body->w - 40, MBX_ROLE_DIM, filt);
    }
}

/* A row's text: a pattern's header (open or collapsed, how much of it is
 * selected, its count), or a benchmark with its names in namew columns. */
static void row_text(const explorer *x, const row *r, const char *const *pn, int namew, char *line,
                     size_t len)
{
    if (r->bench < 0) {
        static const char *const mark[] = {"[ ]", "[-]", "[x]"};
        int cnt = 0;
        for (size_t b = 0; b < mbx_bench_count(); b++)
            cnt += strcmp(mbx_bench_get((int)b)->pattern, pn[r->pattern]) == 0;
        snprintf(line, len, "%s %s %s (%d)", x->pick.collapsed[r->pattern] ? "+" : "-",
                 mark[pattern_state(x, r->pattern)], pn[r->pattern], cnt);
    } else {
        const mbx_bench *b = mbx_bench_get(r->bench);
        snprintf(line, len, "    %s %-*s >=%d  %s",
                 x->sel[r->bench] == 2 ? "[2]"
                 : x->sel[r->bench]    ? "[x]"
                                       : "[ ]",
                 namew, b->name, b->min_procs, b->summary);
    }
}

/* A scroll bar in the last column when the list of n rows is longer than
 * the screen's list_h, and where the list stands. */
static void scroll_bar(explorer *x, const mbx_rect *body, int n, int list_h)
{
    if (n <= list_h)
        return;
    int thumb = list_h * list_h / n, pos = (list_h - thumb) * x->pick.top / (n - list_h);
    if (thumb < 1)
        thumb = 1;
    for (int i = 0; i < list_h; i++) {
        int on = i >= pos && i < pos + thumb;
        mbx_ex_put(x, body->y + 2 + i, body->x + body->w - 1, 1,
                   on ? MBX_ROLE_SELECTED : MBX_ROLE_DIM,
                   on ? (x->utf8 ? "\u2588" : "#") : (x->utf8 ? "\u2502" : "|"));
    }
    char where[64];
    snprintf(where, sizeof where, "rows %d-%d of %d", x->pick.top + 1,
             x->pick.top + list_h < n ? x->pick.top + list_h : n, n);
    mbx_ex_put(x, body->y + 1, body->x + body->w - (int)strlen(where) - 1, (int)strlen(where),
               MBX_ROLE_DIM, where);
}

static void draw_picker(explorer *x, const mbx_rect *body)
{
    row rows[EX_MAX_BENCH + MAX_PATTERNS];
    int n = visible_rows(x, rows, (int)(sizeof rows / sizeof *rows));
    if (x->pick.cursor >= n)
        x->pick.cursor = n > 0 ? n - 1 : 0;
    const char *pn[MAX_PATTERNS];
    patterns(pn);
    picker_head(x, body);
    int list_h = body->h - 3;
    if (list_h < 1)
        list_h = 1;
    if (x->pick.top > n - list_h)
        x->pick.top = n - list_h > 0 ? n - list_h : 0;
    if (x->pick.cursor < x->pick.top)
        x->pick.top = x->pick.cursor;
    if (x->pick.cursor >= x->pick.top + list_h)
        x->pick.top = x->pick.cursor - list_h + 1;
    int namew = 18;
    for (size_t b = 0; b < mbx_bench_count(); b++) {
        int len = (int)strlen(mbx_bench_get((int)b)->name);
        namew = len > namew ? len : namew;
    }
    /* Which pattern the top row belongs to, when its header scrolled away. */
    const row *top = n > 0 ? &rows[x->pick.top] : NULL;
    int sticky = top && top->bench >= 0;
    for (int i = 0; i < list_h && x->pick.top + i < n; i++) {
        const row *r = &rows[x->pick.top + i];
        int y = body->y + 2 + i, sel = x->pick.top + i == x->pick.cursor;
        char line[256];
        row_text(x, r, pn, namew, line, sizeof line);
        if (sel)
            mbx_ex_fill(x, y, body->x, body->w, MBX_ROLE_CURSOR);
        int role = sel                                   ? MBX_ROLE_CURSOR
                   : (r->bench >= 0 && x->sel[r->bench]) ? MBX_ROLE_SELECTED
                                                         : MBX_ROLE_NORMAL;
        mbx_ex_put(x, y, body->x + 1, body->w - 3, role, line);
    }
    scroll_bar(x, body, n, list_h);
    if (sticky) {
        char head[64];
        snprintf(head, sizeof head, "%s (continued)", pn[top->pattern]);
        mbx_ex_put(x, body->y + 1, body->x + 2, (int)strlen(head), MBX_ROLE_DIM, head);
    }
    /* What the last key did (r refused: nothing selected): this screen has
     * no status line, so the message takes the line above the list until
     * the next key (an export's progress while it lasts), left of "rows
     * A-B of N". */
    if ((x->msg_fresh || x->xp.on) && x->msg[0]) {
        mbx_ex_fill(x, body->y + 1, body->x, body->w - 20, MBX_ROLE_NORMAL);
        mbx_ex_put_msg(x, body->y + 1, body->x + 1, body->w - 22, x->msg_role, x->msg);
    }
    if (n == 0)
        mbx_ex_put(x, body->y + 2, body->x + 2, body->w - 2, MBX_ROLE_DIM,
                   "no benchmark matches the filter (Esc clears it)");
}

/* The list's height, as draw_picker lays it out. */
static int list_height(const mbx_rect *body)
{
    return body->h - 3 > 1 ? body->h - 3 : 1;
}

/* The wheel: the list by EX_WHEEL_ROWS, the cursor kept in view. */
static void wheel(explorer *x, const mbx_rect *body, int n, int d)
{
    int h = list_height(body), top = x->pick.top + d;
    if (top > n - h)
        top = n - h;
    x->pick.top = top > 0 ? top : 0;
    if (x->pick.cursor < x->pick.top)
        x->pick.cursor = x->pick.top;
    if (x->pick.cursor >= x->pick.top + h)
        x->pick.cursor = x->pick.top + h - 1;
}

/* A click on a benchmark toggles it (as Space); on a pattern's row, a
 * click on its box selects or unselects the whole pattern, anywhere else
 * folds or unfolds it (as Enter). The right button only moves the cursor.
 * A click on the filter ends its typing (the filter stays). */
static int picker_mouse(explorer *x, const mbx_rect *body, const mbx_ex_mouse *m)
{
    row rows[EX_MAX_BENCH + MAX_PATTERNS];
    int n = visible_rows(x, rows, (int)(sizeof rows / sizeof *rows));
    if (m->button == EX_MB_WHEEL_UP || m->button == EX_MB_WHEEL_DOWN) {
        wheel(x, body, n, m->button == EX_MB_WHEEL_UP ? -EX_WHEEL_ROWS : EX_WHEEL_ROWS);
        return 1;
    }
    int i = x->pick.top + m->y - (body->y + 2);
    if (m->y < body->y + 2 || m->y >= body->y + 2 + list_height(body) || i >= n)
        return 0;
    x->pick.filtering = 0;
    x->pick.cursor = i;
    if (m->button != EX_MB_LEFT)
        return 1;
    const row *r = &rows[i];
    int col = m->x - (body->x + 1); /* "- [x] pattern" or "    [x] name" */
    if (r->bench >= 0)
        x->sel[r->bench] = !x->sel[r->bench];
    else if (col >= 2 && col <= 4)
        select_pattern(x, r->pattern, pattern_state(x, r->pattern) != 2);
    else
        x->pick.collapsed[r->pattern] = !x->pick.collapsed[r->pattern];
    return 1;
}

static int picker_typing(const explorer *x)
{
    return x->pick.filtering;
}

/* The screen's row of the screen table (screens/screen.h). */
const mbx_ex_screen_def mbx_ex_screen_picker = {
    .name = "1 Picker",
    .brief = "1 Pick",
    .help = "picker",
    .draw = draw_picker,
    .key = picker_key,
    .typing = picker_typing,
    .mouse = picker_mouse,
};
