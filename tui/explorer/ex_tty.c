/* The explorer's terminal beyond curses' own set-up: whether a terminal
 * type can draw it, Ctrl-Z switched off, and leaving a terminal without an
 * alternate screen blank. */
#include "ex_tty.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

/* Ctrl-Z on the user's terminal would stop the launcher and mpiexec while
 * the ranks run on; the explorer has no use for suspend, so switch the
 * suspend characters off (endwin restores the saved modes). Ctrl-C keeps
 * working: hydra forwards it and rank 0 winds down. */
void mbx_ex_no_suspend(FILE *in)
{
    struct termios t;
    int fd = in ? fileno(in) : -1;
    if (fd < 0 || tcgetattr(fd, &t) != 0)
        return;
    t.c_cc[VSUSP] = _POSIX_VDISABLE;
#ifdef VDSUSP
    t.c_cc[VDSUSP] = _POSIX_VDISABLE;
#endif
    tcsetattr(fd, TCSANOW, &t);
}

/* Whether terminal type tt can draw the explorer: known to terminfo and
 * able to move the cursor (TERM=dumb, a hard-copy or glass terminal would
 * get a screenful of garbage). 1, or 0 with the reason in msg. */
int mbx_ex_term_usable(const char *tt, char *msg, size_t len)
{
    /* A trial screen on /dev/null: nothing reaches the terminal. */
    FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
    SCREEN *probe = out && in ? newterm(tt, out, in) : NULL;
    int ok = probe != NULL;
    if (probe) {
        SCREEN *was = set_term(probe); /* newterm made it current already */
        const char *cup = tigetstr("cup");
        ok = cup && cup != (const char *)-1;
        endwin();
        delscreen(probe);
        if (was && was != probe)
            set_term(was);
    }
    if (out)
        fclose(out);
    if (in)
        fclose(in);
    if (!probe)
        snprintf(msg, len,
                 "TERM: unknown terminal type '%.100s' (no terminfo entry); set TERM to your "
                 "terminal's type, e.g. xterm-256color",
                 tt);
    else if (!ok)
        snprintf(msg, len,
                 "TERM: terminal type '%.100s' cannot move the cursor (no 'cup' capability); "
                 "the explorer needs one that can, e.g. xterm-256color (batch runs: mpibex run)",
                 tt);
    return ok;
}

/* Terminal capability name into buf when the terminal has it (without
 * padding, which only curses' own output would honour). */
void mbx_ex_copy_cap(const char *name, char *buf, size_t len)
{
    const char *cap = tigetstr(name);
    buf[0] = '\0';
    if (cap && cap != (const char *)-1 && !strstr(cap, "$<") && strlen(cap) < len)
        memcpy(buf, cap, strlen(cap) + 1);
}

static int has_cap(const char *name)
{
    const char *cap = tigetstr(name);
    return cap && cap != (const char *)-1 && cap[0];
}

/* A terminal without an alternate screen (no smcup: TERM=linux, the
 * console) keeps the last frame after endwin, its footer on the lines the
 * shell's prompt comes back to. So the screen is cleared first, and home
 * (read now, written after endwin) puts the closing line and the prompt at
 * the top of the blank screen. */
int mbx_ex_leave_blank(char *home, size_t len)
{
    home[0] = '\0';
    if (has_cap("smcup"))
        return 0;
    erase();
    clear();
    refresh();
    mbx_ex_copy_cap("home", home, len);
    return 1;
}
