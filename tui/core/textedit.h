/* Pure text pieces of the explorer's input: a one-line editor over a
 * caller's buffer (a cursor, the whole text selected on entry, the usual
 * kill keys) and word wrapping for overlays. No curses: the explorer maps
 * its keys to the operations, the unit tests call them directly. */
#ifndef MBX_CORE_TEXTEDIT_H
#define MBX_CORE_TEXTEDIT_H

#include <stddef.h>

typedef enum mbx_edit_op {
    MBX_EDIT_INSERT = 0, /* the character ch (printable ASCII) at the cursor */
    MBX_EDIT_BACKSPACE,  /* the character before the cursor */
    MBX_EDIT_DELETE,     /* the character under the cursor */
    MBX_EDIT_LEFT,       /* the cursor one back */
    MBX_EDIT_RIGHT,      /* the cursor one on */
    MBX_EDIT_HOME,       /* the cursor to the start (Home, Ctrl-A) */
    MBX_EDIT_END,        /* the cursor to the end (End, Ctrl-E) */
    MBX_EDIT_KILL_START, /* everything before the cursor (Ctrl-U) */
    MBX_EDIT_KILL_END,   /* everything from the cursor on (Ctrl-K) */
    MBX_EDIT_KILL_WORD   /* the word before the cursor (Ctrl-W) */
} mbx_edit_op;

/* The state of the one line being edited; the text is the caller's. */
typedef struct mbx_lineedit {
    size_t cur; /* the cursor: a byte offset, 0..strlen */
    int sel;    /* the whole text is selected: typing replaces it */
} mbx_lineedit;

/* Editing of buf begins: the cursor at its end, the whole text selected
 * when select_all (a proposed name the user most often replaces). */
void mbx_lineedit_begin(mbx_lineedit *e, const char *buf, int select_all);

/* op on buf (size bytes, NUL-terminated); ch is the character of
 * MBX_EDIT_INSERT. With the text selected, an insert or a deletion
 * replaces or removes all of it, a move drops the selection (Home and Left
 * to the start, End and Right to the end). Returns 1 when op was taken
 * (even if nothing changed, like Backspace at the start), 0 when it was
 * not: a character that is not printable ASCII, or a full buffer. */
int mbx_lineedit_apply(mbx_lineedit *e, char *buf, size_t size, mbx_edit_op op, int ch);

/* Word wrapping: the first line of s in at most width columns (UTF-8: a
 * column a code point). Returns the bytes of that line (trailing spaces
 * not counted) and sets *next to the offset where the following line
 * starts (spaces after a break skipped; a '\n' ends a line). A word longer
 * than width is cut. 0 and *next = 0 when s is empty. */
size_t mbx_wrap_line(const char *s, int width, size_t *next);

/* Lines s takes when wrapped to width (at least 1 for an empty text). */
int mbx_wrap_count(const char *s, int width);

#endif
