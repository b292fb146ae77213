/* The explorer's frame: the screen table, and each frame drawn from it
 * (the title bar's tabs, the body of the screen in view, the footer or a
 * prompt, the help overlay). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "explorer.h"
#include "mbx/version.h"
#include "screens/screen.h"

/* The rows, one a screen file (screens/screens.def lists them); this table
 * is their only user. */
#define MBX_EX_SCREEN(e, name) extern const mbx_ex_screen_def mbx_ex_screen_##name;
#include "screens/screens.def"
#undef MBX_EX_SCREEN

/* One row a screen, in mbx_ex_screen order: Tab walks it, the keys 1..5
 * name its rows. */
static const mbx_ex_screen_def *const screens[EX_NSCREENS] = {
#define MBX_EX_SCREEN(e, name) [e] = &mbx_ex_screen_##name,
#include "screens/screens.def"
#undef MBX_EX_SCREEN
};

const mbx_ex_screen_def *mbx_ex_screen_of(mbx_ex_screen s)
{
    return screens[(unsigned)s < EX_NSCREENS ? s : EX_PICKER];
}

/* The title's tabs: where tab s starts and its width (brackets
 * included); the title bar and the mouse (mbx_ex_tab_at) agree on it. */
static int tab_span(int width, int s, int *len)
{
    char head[32];
    int col = snprintf(head, sizeof head, " mpibex %s ", MBX_VERSION) + 1;
    for (int i = 0; i <= s; i++) {
        /* Short names under 120 columns leave room for the job's description. */
        const char *name = width < 120 ? screens[i]->brief : screens[i]->name;
        *len = (int)strlen(name) + 2;
        if (i < s)
            col += *len; /* a tab's own blanks part it from the next */
    }
    return col;
}

int mbx_ex_tab_at(const explorer *x, int col)
{
    for (int s = 0; s < EX_NSCREENS; s++) {
        int len, c0 = tab_span(x->cols, s, &len);
        if (col >= c0 && col < c0 + len)
            return s;
    }
    return -1;
}

static void draw_title(explorer *x, const mbx_rect *r)
{
    mbx_ex_fill(x, r->y, r->x, r->w, MBX_ROLE_TITLE);
    char head[32];
    snprintf(head, sizeof head, " mpibex %s ", MBX_VERSION);
    mbx_ex_put(x, r->y, r->x, r->w, MBX_ROLE_TITLE, head);
    int col = 0, len = 0;
    for (int s = 0; s < EX_NSCREENS; s++) {
        const char *name = r->w < 120 ? screens[s]->brief : screens[s]->name;
        col = r->x + tab_span(r->w, s, &len);
        char tab[24];
        snprintf(tab, sizeof tab, s == (int)x->screen ? "[%s]" : " %s ", name);
        mbx_ex_put(x, r->y, col, len, s == (int)x->screen ? MBX_ROLE_SELECTED : MBX_ROLE_TITLE,
                   tab);
    }
    col += len + 1;
    /* The job's description, right-aligned, cut to what is left. */
    int room = r->x + r->w - col - 2, dl = (int)strlen(x->be->desc);
    if (room > 8)
        mbx_ex_put(x, r->y, dl < room ? r->x + r->w - dl - 1 : col + 1, room, MBX_ROLE_TITLE,
                   x->be->desc);
}

static void draw_prompt(explorer *x, const mbx_rect *r)
{
    char line[400];
    switch (x->prompt) {
    case EX_PROMPT_EXPORT:
    case EX_PROMPT_REPORT: {
        /* The name, editable: the cursor shows, the proposed name is
         * selected until a key changes or moves it. */
        const char *ask = x->prompt == EX_PROMPT_EXPORT
                              ? "Export CSV to: "
                              : "Write the report into the new directory: ";
        int at = r->x + 1 + (int)strlen(ask);
        mbx_ex_fill(x, r->y, r->x, r->w, MBX_ROLE_CURSOR);
        mbx_ex_put(x, r->y, r->x + 1, r->w - 1, MBX_ROLE_CURSOR, ask);
        mbx_ex_put_edit(x, r->y, at, r->x + r->w - at, MBX_ROLE_CURSOR, x->input);
        return;
    }
    case EX_PROMPT_OVERWRITE:
        snprintf(line, sizeof line, "%.300s exists. Overwrite? (y/n)", x->pending_path);
        break;
    case EX_PROMPT_QUIT:
        snprintf(line, sizeof line, "Results are not exported. Quit anyway? (y/n)");
        break;
    case EX_PROMPT_OBS: {
        size_t rows = 0;
        char size[32];
        mbx_size_text(mbx_ex_obs_bytes(x, &rows), size, sizeof size);
        snprintf(line, sizeof line,
                 "The observations are %zu rows, about %s. Write them too? (y/n; Esc: nothing)",
                 rows, size);
        break;
    }
    case EX_PROMPT_RERUN:
        snprintf(line, sizeof line,
                 "Results are not exported; a new run replaces them. Run anyway? (y/n)");
        break;
    default: return;
    }
    mbx_ex_fill(x, r->y, r->x, r->w, MBX_ROLE_CURSOR);
    mbx_ex_put(x, r->y, r->x + 1, r->w - 1, MBX_ROLE_CURSOR, line);
}

void mbx_ex_draw(explorer *x)
{
    struct timespec w0;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    erase();
    mbx_frame_layout f;
    mbx_layout_frame(x->rows, x->cols, &f);
    if (!f.ok) {
        char m[96];
        snprintf(m, sizeof m, "terminal too small: %dx%d, need %dx%d", x->cols, x->rows,
                 MBX_MIN_COLS, MBX_MIN_ROWS);
        mbx_ex_put(x, x->rows / 2, 0, x->cols, MBX_ROLE_WARNING, m);
    } else {
        draw_title(x, &f.title);
        mbx_ex_screen_of(x->screen)->draw(x, &f.body);
        if (x->prompt != EX_PROMPT_NONE)
            draw_prompt(x, &f.footer);
        else
            mbx_ex_draw_footer(x, &f.footer);
        if (x->help)
            mbx_ex_draw_overlay(x, mbx_ex_screen_of(x->screen)->help);
    }
    wnoutrefresh(stdscr);
    doupdate();
    struct timespec w1;
    clock_gettime(CLOCK_MONOTONIC, &w1);
    double dt = (double)(w1.tv_sec - w0.tv_sec) + 1e-9 * (double)(w1.tv_nsec - w0.tv_nsec);
    x->draw_total += dt;
    if (dt > x->draw_max)
        x->draw_max = dt;
    x->frames++;
}
