/* The explorer's terminal beyond curses' own set-up (internal). */
#ifndef MBX_EX_TTY_H
#define MBX_EX_TTY_H

#include <stddef.h>
#include <stdio.h>

/* Whether terminal type tt can draw the explorer: known to terminfo and
 * able to move the cursor. 1, or 0 with the reason in msg. */
int mbx_ex_term_usable(const char *tt, char *msg, size_t len);

/* Ctrl-Z (and Ctrl-Y) off on the terminal in; endwin restores them. */
void mbx_ex_no_suspend(FILE *in);

/* Capability name of the current terminal into buf ("" when it has none,
 * or only with padding). */
void mbx_ex_copy_cap(const char *name, char *buf, size_t len);

/* Before endwin: on a terminal without an alternate screen (no smcup:
 * TERM=linux) the screen is cleared and home gets the sequence that puts
 * the cursor at its top, to write after endwin; 1 then. 0 (and home "")
 * on a terminal that has one: leaving it brings the shell's screen back. */
int mbx_ex_leave_blank(char *home, size_t len);

#endif
