#include "core/textedit.h"

#include <string.h>

void mbx_lineedit_begin(mbx_lineedit *e, const char *buf, int select_all)
{
    e->cur = strlen(buf);
    e->sel = select_all && e->cur > 0;
}

/* Letters, digits and '_': Ctrl-W stops at '.', '/', ',', '-' and spaces,
 * so it takes one part of a path or a list at a time. */
static int word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Remove bytes [a, b) of buf; the cursor to a. */
static void cut(mbx_lineedit *e, char *buf, size_t a, size_t b)
{
    memmove(buf + a, buf + b, strlen(buf + b) + 1);
    e->cur = a;
}

/* The selection meets op: deletions clear the text, moves drop the
 * selection; 1 when that was all op does. */
static int on_selection(mbx_lineedit *e, char *buf, mbx_edit_op op)
{
    size_t len = strlen(buf);
    e->sel = 0;
    switch (op) {
    case MBX_EDIT_INSERT: buf[0] = '\0', e->cur = 0; return 0; /* then the character */
    case MBX_EDIT_LEFT:
    case MBX_EDIT_HOME: e->cur = 0; return 1;
    case MBX_EDIT_RIGHT:
    case MBX_EDIT_END: e->cur = len; return 1;
    default: buf[0] = '\0', e->cur = 0; return 1;
    }
}

int mbx_lineedit_apply(mbx_lineedit *e, char *buf, size_t size, mbx_edit_op op, int ch)
{
    size_t len = strlen(buf);
    if (op == MBX_EDIT_INSERT && (ch < 32 || ch > 126 || (!e->sel && len + 1 >= size)))
        return 0;
    if (e->cur > len)
        e->cur = len;
    if (e->sel && on_selection(e, buf, op))
        return 1;
    len = strlen(buf);
    size_t c = e->cur, w = c;
    switch (op) {
    case MBX_EDIT_INSERT:
        memmove(buf + c + 1, buf + c, len - c + 1);
        buf[c] = (char)ch;
        e->cur = c + 1;
        break;
    case MBX_EDIT_BACKSPACE:
        if (c > 0)
            cut(e, buf, c - 1, c);
        break;
    case MBX_EDIT_DELETE:
        if (c < len)
            cut(e, buf, c, c + 1);
        break;
    case MBX_EDIT_LEFT: e->cur = c > 0 ? c - 1 : 0; break;
    case MBX_EDIT_RIGHT: e->cur = c < len ? c + 1 : len; break;
    case MBX_EDIT_HOME: e->cur = 0; break;
    case MBX_EDIT_END: e->cur = len; break;
    case MBX_EDIT_KILL_START: cut(e, buf, 0, c); break;
    case MBX_EDIT_KILL_END: buf[c] = '\0'; break;
    case MBX_EDIT_KILL_WORD:
        while (w > 0 && !word_char(buf[w - 1]))
            w--;
        while (w > 0 && word_char(buf[w - 1]))
            w--;
        cut(e, buf, w, c);
        break;
    }
    return 1;
}

/* A code point starts at every byte that is not a UTF-8 continuation. */
static int starts_char(char c)
{
    return ((unsigned char)c & 0xC0) != 0x80;
}

size_t mbx_wrap_line(const char *s, int width, size_t *next)
{
    size_t i = 0, brk = 0, cols = 0;
    int have_brk = 0;
    if (width < 1)
        width = 1;
    for (; s[i] && s[i] != '\n'; i++) {
        if (!starts_char(s[i]))
            continue;
        if (cols == (size_t)width) { /* s[i] does not fit */
            if (s[i] == ' ' || !have_brk)
                brk = i; /* at a space, or a word longer than the line: cut */
            break;
        }
        if (s[i] == ' ' && i > 0 && s[i - 1] != ' ')
            brk = i, have_brk = 1;
        cols++;
    }
    if (!s[i] || s[i] == '\n') {
        brk = i;
    }
    size_t n = brk;
    while (n > 0 && s[n - 1] == ' ')
        n--;
    size_t k = brk;
    if (s[k] == '\n')
        k++;
    else
        while (s[k] == ' ')
            k++;
    *next = k;
    return n;
}

int mbx_wrap_count(const char *s, int width)
{
    int n = 0;
    size_t off = 0, next = 0;
    do {
        mbx_wrap_line(s + off, width, &next);
        off += next;
        n++;
    } while (s[off] && next > 0);
    return n;
}
