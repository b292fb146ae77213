/* The app-wide services every screen and the run use: the message line
 * (set, drawn, shown at once before a long wait), and the tick between
 * steps of a long piece of work. The loop installs the tick and the
 * redraw (ex_loop.c); nothing here calls a screen or the loop directly,
 * so the files that use these form no cycle with them. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "explorer.h"

void mbx_ex_set_msg(explorer *x, int role, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->msg, sizeof x->msg, fmt, ap);
    va_end(ap);
    x->msg_role = role;
    x->msg_fresh = 1;
}

int mbx_ex_tick(explorer *x, int wait_ms)
{
    if (x->tick)
        return x->tick(x, wait_ms);
    return x->cancel || x->quit;
}

void mbx_ex_show_now(explorer *x)
{
    if (x->redraw)
        x->redraw(x);
}

/* The overlay (ex_overlay.c draws it) opened from any screen's keys. */
void mbx_ex_overlay_open(explorer *x, int which)
{
    x->help = which;
    x->help_top = 0;
}

void mbx_ex_put_msg(explorer *x, int y, int x0, int w, int role, const char *text)
{
    static const char more[] = " ... (m)";
    int cols = 0, ml = (int)sizeof more - 1;
    size_t cut = 0;
    for (const char *p = text; *p; p++)
        if (((unsigned char)*p & 0xC0) != 0x80 && ++cols == w - ml)
            cut = (size_t)(p - text) + 1;
    if (cols <= w || w <= ml + 8) {
        mbx_ex_put(x, y, x0, w, role, text);
        return;
    }
    while (cut < strlen(text) && ((unsigned char)text[cut] & 0xC0) == 0x80)
        cut++; /* the whole of the last character */
    char line[600];
    snprintf(line, sizeof line, "%.*s%s", (int)cut, text, more);
    mbx_ex_put(x, y, x0, w, role, line);
}
