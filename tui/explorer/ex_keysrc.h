/* Where the explorer's keys come from (internal): the terminal through
 * curses, or a headless script of tokens:
 *   a single printable character   that key (r, q, ?, /, 2, ...)
 *   enter esc tab space bs up down left right pgup pgdn home end f1 f5
 *   text:abc                      the keys a, b, c
 *   tick:N                        N polls with no key (lets a run go on)
 *   wait                          polls with no key until the run (or
 *                                 b_eff) has ended: scripts on real MPI,
 *                                 where a run takes what it takes
 *   dump:NAME                     write the screen to DIR/NAME.txt
 *   resize:COLSxROWS              the terminal changes size
 *   ctrl-u ctrl-w ... del         Ctrl with a letter; Delete
 *   mouse:COL,ROW[,BUTTON]        a mouse event at the cell (from 0, as
 *                                 in the dumps): BUTTON left (default),
 *                                 middle, right, wheelup, wheeldown, with
 *                                 shift+ in front for Shift held
 * Whitespace separates tokens; '#' starts a comment to the end of the line.
 * After the last token the source returns EX_KEY_EOF. */
#ifndef MBX_EX_KEYSRC_H
#define MBX_EX_KEYSRC_H

#include "explorer.h"

#define EX_KEY_EOF (KEY_MAX + 1)

/* From curses (ncurses must be initialized). */
mbx_ex_keysrc *mbx_ex_keysrc_terminal(void);
/* From a script file; dumps go to dir. NULL with a message on error. */
mbx_ex_keysrc *mbx_ex_keysrc_script(const char *path, const char *dir, int rows, int cols,
                                    char *msg, size_t msglen);
void mbx_ex_keysrc_free(mbx_ex_keysrc *k);

/* The next key, waiting at most wait_ms (terminal only), or ERR. Script
 * actions (dump, resize) are carried out on x on the way. */
int mbx_ex_keysrc_next(mbx_ex_keysrc *k, explorer *x, int wait_ms);

/* Mouse events from the terminal (curses' mousemask) when on. */
void mbx_ex_mouse_enable(int on);

/* The size a script set last (unchanged otherwise). */
void mbx_ex_keysrc_size(mbx_ex_keysrc *k, int *rows, int *cols);

/* Dumps written, and whether any failed (headless exit status). */
int mbx_ex_keysrc_dumps(const mbx_ex_keysrc *k, int *failed);

#endif
