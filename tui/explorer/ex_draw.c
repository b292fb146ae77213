/* Paint primitives of the explorer: theme roles to curses attributes,
 * clipped UTF-8 text and filled rows, and the screen dump used by headless
 * tests. The frame that uses them is ex_frame.c. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "explorer.h"
#include "mbx/file.h"

static attr_t to_curses_attrs(unsigned a)
{
    attr_t r = A_NORMAL;
    if (a & MBX_ATTR_BOLD)
        r |= A_BOLD;
    if (a & MBX_ATTR_DIM)
        r |= A_DIM;
    if (a & MBX_ATTR_UNDERLINE)
        r |= A_UNDERLINE;
    if (a & MBX_ATTR_REVERSE)
        r |= A_REVERSE;
    if (a & MBX_ATTR_ITALIC)
        r |= A_ITALIC;
    if (a & MBX_ATTR_STANDOUT)
        r |= A_STANDOUT;
    return r;
}

static int map_color(const explorer *x, mbx_color c)
{
    if (c.kind == MBX_COLOR_DEFAULT)
        return -1;
    return x->color_mode >= 256 ? mbx_color_to_256(c) : mbx_color_to_8(c);
}

void mbx_ex_colors_init(explorer *x)
{
    x->color_mode = 0;
    if (x->no_color || !has_colors())
        return;
    start_color();
    use_default_colors();
    if (COLORS >= 256 && COLOR_PAIRS > MBX_ROLE_COUNT)
        x->color_mode = 256;
    else if (COLORS >= 8 && COLOR_PAIRS > MBX_ROLE_COUNT)
        x->color_mode = 8;
    else
        return;
    for (int r = 0; r < MBX_ROLE_COUNT; r++)
        init_pair((short)(r + 1), (short)map_color(x, x->theme.role[r].fg),
                  (short)map_color(x, x->theme.role[r].bg));
}

attr_t mbx_ex_attr(const explorer *x, int role)
{
    if (role < 0 || role >= MBX_ROLE_COUNT)
        role = MBX_ROLE_NORMAL;
    if (x->color_mode == 0)
        return to_curses_attrs(x->theme.role[role].mono_attrs);
    return COLOR_PAIR(role + 1) | to_curses_attrs(x->theme.role[role].attrs);
}

void mbx_ex_put(explorer *x, int y, int x0, int w, int role, const char *s)
{
    mbx_ex_put_attr(x, y, x0, w, role, 0, s);
}

void mbx_ex_put_attr(explorer *x, int y, int x0, int w, int role, unsigned extra, const char *s)
{
    if (y < 0 || y >= x->rows || x0 < 0 || x0 >= x->cols || w <= 0 || !s)
        return;
    if (x0 + w > x->cols)
        w = x->cols - x0;
    wchar_t buf[512];
    int used = 0, n = 0;
    mbstate_t st;
    memset(&st, 0, sizeof st);
    const char *p = s;
    size_t left = strlen(s);
    while (left > 0 && n < 511) {
        wchar_t wc;
        size_t k = mbrtowc(&wc, p, left, &st);
        if (k == (size_t)-1 || k == (size_t)-2) {
            wc = L'?';
            k = 1;
            memset(&st, 0, sizeof st);
        } else if (k == 0) {
            break;
        }
        int cw = wcwidth(wc);
        if (cw < 0)
            cw = 1, wc = L'?';
        if (used + cw > w)
            break;
        buf[n++] = wc;
        used += cw;
        p += k;
        left -= k;
    }
    buf[n] = L'\0';
    attrset(mbx_ex_attr(x, role) | to_curses_attrs(extra));
    mvaddnwstr(y, x0, buf, n);
    attrset(A_NORMAL);
}

/* Columns of s as drawn (a bad byte is one '?'), and in *cut the bytes of
 * its longest start that takes at most w columns. */
static int text_cols(const char *s, int w, size_t *cut)
{
    mbstate_t st;
    memset(&st, 0, sizeof st);
    int used = 0;
    size_t off = 0, left = strlen(s);
    *cut = 0;
    while (left > 0) {
        wchar_t wc;
        size_t k = mbrtowc(&wc, s + off, left, &st);
        if (k == (size_t)-1 || k == (size_t)-2 || k == 0)
            k = 1, wc = L'?', memset(&st, 0, sizeof st);
        int cw = wcwidth(wc) < 0 ? 1 : wcwidth(wc);
        used += cw;
        off += k, left -= k;
        if (used <= w)
            *cut = off;
    }
    return used;
}

void mbx_ex_put_cut(explorer *x, int y, int x0, int w, int role, const char *s)
{
    const char *ell = x->utf8 ? "\u2026" : "~";
    size_t cut;
    if (w < 2 || text_cols(s, w, &cut) <= w) {
        mbx_ex_put(x, y, x0, w, role, s);
        return;
    }
    text_cols(s, w - 1, &cut);
    char line[512];
    snprintf(line, sizeof line, "%.*s%s", (int)cut, s, ell);
    mbx_ex_put(x, y, x0, w, role, line);
}

void mbx_ex_draw_box(explorer *x, const mbx_rect *b, int role)
{
    static const char *const u[] = {"\u250c", "\u2510", "\u2514", "\u2518", "\u2500", "\u2502"};
    static const char *const a[] = {"+", "+", "+", "+", "-", "|"};
    const char *const *g = x->utf8 ? u : a;
    for (int r = 0; r < b->h; r++)
        mbx_ex_fill(x, b->y + r, b->x, b->w, MBX_ROLE_NORMAL);
    for (int c = 1; c < b->w - 1; c++) {
        mbx_ex_put(x, b->y, b->x + c, 1, role, g[4]);
        mbx_ex_put(x, b->y + b->h - 1, b->x + c, 1, role, g[4]);
    }
    for (int r = 1; r < b->h - 1; r++) {
        mbx_ex_put(x, b->y + r, b->x, 1, role, g[5]);
        mbx_ex_put(x, b->y + r, b->x + b->w - 1, 1, role, g[5]);
    }
    mbx_ex_put(x, b->y, b->x, 1, role, g[0]);
    mbx_ex_put(x, b->y, b->x + b->w - 1, 1, role, g[1]);
    mbx_ex_put(x, b->y + b->h - 1, b->x, 1, role, g[2]);
    mbx_ex_put(x, b->y + b->h - 1, b->x + b->w - 1, 1, role, g[3]);
}

void mbx_ex_fill(explorer *x, int y, int x0, int w, int role)
{
    if (y < 0 || y >= x->rows || x0 < 0 || w <= 0)
        return;
    if (x0 + w > x->cols)
        w = x->cols - x0;
    attrset(mbx_ex_attr(x, role));
    mvhline(y, x0, ' ', w);
    attrset(A_NORMAL);
}

static const char *attr_words(attr_t a, char *buf, size_t len)
{
    buf[0] = '\0';
    static const struct {
        attr_t a;
        const char *n;
    } names[] = {{A_BOLD, "bold"},       {A_DIM, "dim"},       {A_UNDERLINE, "underline"},
                 {A_REVERSE, "reverse"}, {A_ITALIC, "italic"}, {A_STANDOUT, "standout"}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (a & names[i].a)
            snprintf(buf + strlen(buf), len - strlen(buf), " %s", names[i].n);
    return buf;
}

/* Text first (one line a row, UTF-8), then the attributes as runs per row:
 * "@row col-col role fg/bg attrs". Golden files compare both, so a change
 * of colour under a 256-, 8- or no-colour terminal shows. */
int mbx_ex_dump(explorer *x, const char *path)
{
    FILE *f = mbx_file_fopen(path);
    if (!f)
        return -1;
    fprintf(f, "# screen %dx%d colors=%d glyphs=%d\n", x->cols, x->rows, x->color_mode,
            (int)x->glyphs);
    for (int y = 0; y < x->rows; y++) {
        char line[4096];
        size_t used = 0;
        for (int c = 0; c < x->cols; c++) {
            cchar_t cc;
            wchar_t wc[CCHARW_MAX + 1];
            attr_t a;
            short pair;
            if (mvin_wch(y, c, &cc) == ERR || getcchar(&cc, wc, &a, &pair, NULL) == ERR)
                wc[0] = L' ';
            char mb[MB_LEN_MAX];
            mbstate_t st;
            memset(&st, 0, sizeof st);
            size_t k = wcrtomb(mb, wc[0] ? wc[0] : L' ', &st);
            if (k == (size_t)-1) {
                mb[0] = '?';
                k = 1;
            }
            if (used + k < sizeof line) {
                memcpy(line + used, mb, k);
                used += k;
            }
            if (wcwidth(wc[0]) == 2)
                c++;
        }
        while (used > 0 && line[used - 1] == ' ')
            used--;
        line[used] = '\0';
        fprintf(f, "%s\n", line);
    }
    for (int y = 0; y < x->rows; y++) {
        int start = 0;
        attr_t prev_a = 0;
        short prev_p = -1;
        for (int c = 0; c <= x->cols; c++) {
            attr_t a = 0;
            short pair = 0;
            if (c < x->cols) {
                cchar_t cc;
                wchar_t wc[CCHARW_MAX + 1];
                if (mvin_wch(y, c, &cc) != ERR)
                    getcchar(&cc, wc, &a, &pair, NULL);
                a &= ~A_COLOR;
            }
            if (c == x->cols || (c > 0 && (a != prev_a || pair != prev_p))) {
                if (prev_p > 0 || prev_a != 0) {
                    short fg = -1, bg = -1;
                    if (prev_p > 0)
                        pair_content(prev_p, &fg, &bg);
                    char words[64];
                    fprintf(f, "@%d %d-%d %s %d/%d%s\n", y, start, c - 1,
                            prev_p > 0 ? mbx_role_name((mbx_role)(prev_p - 1)) : "-", fg, bg,
                            attr_words(prev_a, words, sizeof words));
                }
                start = c;
            }
            prev_a = a;
            prev_p = pair;
        }
    }
    return fclose(f) == 0 ? 0 : -1;
}
