/* The line being edited (a form field, the picker's filter, the export
 * and report prompts): the keys of text entry mapped to the pure editor
 * (core/textedit.h), and the line drawn with its cursor. */
#include <stdio.h>
#include <string.h>

#include "explorer.h"

#define CTRL(c) ((c)&0x1f)

void mbx_ex_edit_begin(explorer *x, const char *buf, int select_all)
{
    mbx_lineedit_begin(&x->ed, buf, select_all);
    snprintf(x->ed_orig, sizeof x->ed_orig, "%s", buf);
}

void mbx_ex_edit_revert(explorer *x, char *buf, size_t size)
{
    snprintf(buf, size, "%s", x->ed_orig);
}

/* The editor's operation for key; -1 when key is not an editing key. */
static int edit_op(int key)
{
    switch (key) {
    case KEY_BACKSPACE:
    case 127:
    case 8: return MBX_EDIT_BACKSPACE;
    case KEY_DC:
    case CTRL('d'): return MBX_EDIT_DELETE;
    case KEY_LEFT:
    case CTRL('b'): return MBX_EDIT_LEFT;
    case KEY_RIGHT:
    case CTRL('f'): return MBX_EDIT_RIGHT;
    case KEY_HOME:
    case CTRL('a'): return MBX_EDIT_HOME;
    case KEY_END:
    case CTRL('e'): return MBX_EDIT_END;
    case CTRL('u'): return MBX_EDIT_KILL_START;
    case CTRL('k'): return MBX_EDIT_KILL_END;
    case CTRL('w'): return MBX_EDIT_KILL_WORD;
    default: return key >= 32 && key < 127 ? MBX_EDIT_INSERT : -1;
    }
}

int mbx_ex_line_edit(explorer *x, char *buf, size_t size, int key)
{
    int op = edit_op(key);
    if (op < 0)
        return 0;
    return mbx_lineedit_apply(&x->ed, buf, size, (mbx_edit_op)op, key);
}

/* n cells from (y, c) in role's look, reversed. */
static void reverse(explorer *x, int y, int c, int n, int role)
{
    attr_t a = mbx_ex_attr(x, role);
    mvchgat(y, c, n, (a & ~A_COLOR) ^ A_REVERSE, (short)PAIR_NUMBER(a), NULL);
}

void mbx_ex_put_edit(explorer *x, int y, int x0, int w, int role, const char *buf)
{
    size_t len = strlen(buf), cur = x->ed.cur < len ? x->ed.cur : len;
    if (w < 2)
        return;
    /* A text longer than the room shows the part around the cursor. */
    size_t first = cur + 1 > (size_t)w ? cur + 1 - (size_t)w : 0;
    const char *s = buf + first;
    if (x->ed.sel) {
        mbx_ex_put(x, y, x0, w, role, s);
        reverse(x, y, x0, (int)strlen(s) < w ? (int)strlen(s) : w, role);
        return;
    }
    mbx_ex_put(x, y, x0, w, role, s);
    int at = x0 + (int)(cur - first);
    if (cur == len) /* the cursor after the text, as the form always showed it */
        mbx_ex_put(x, y, at, 1, role, "_");
    else if (at < x0 + w && at < x->cols)
        reverse(x, y, at, 1, role);
}
