/* The form widget (ex_form.h). */
#include <stdio.h>
#include <string.h>

#include "ex_form.h"
#include "ex_keys.h"
#include "explorer.h"

char *mbx_ex_form_text(const mbx_ex_form *fm, int f)
{
    return fm->text + (size_t)f * fm->tsize;
}

char *mbx_ex_form_err(const mbx_ex_form *fm, int f)
{
    return fm->err + (size_t)f * fm->esize;
}

/* The fields listed, n of them; NULL: every field, in order. */
static const int *listed(const explorer *x, const mbx_ex_form *fm, int *n)
{
    if (fm->list)
        return fm->list(x, n);
    *n = fm->nfields;
    return NULL;
}

static int at(const int *fl, int i)
{
    return fl ? fl[i] : i;
}

int mbx_ex_form_field(const explorer *x, mbx_ex_form *fm)
{
    int n;
    const int *fl = listed(x, fm, &n);
    if (fm->cursor >= n)
        fm->cursor = n - 1;
    return at(fl, fm->cursor);
}

int mbx_ex_form_ok(const explorer *x, const mbx_ex_form *fm)
{
    int n;
    const int *fl = listed(x, fm, &n);
    for (int i = 0; i < n; i++)
        if (mbx_ex_form_err(fm, at(fl, i))[0])
            return 0;
    return 1;
}

void mbx_ex_form_cycle(explorer *x, mbx_ex_form *fm, int f, int dir)
{
    const char *const *c = fm->defs[f].choices;
    char *t = mbx_ex_form_text(fm, f);
    int n = 0, i = 0;
    while (c[n])
        n++;
    for (int k = n - 1; k >= 0; k--)
        if (strcmp(c[k], t) == 0)
            i = k;
    snprintf(t, fm->tsize, "%s", c[(i + dir + n) % n]);
    if (fm->turned)
        fm->turned(x, f);
}

static void changed(explorer *x, const mbx_ex_form *fm)
{
    if (fm->changed)
        fm->changed(x);
}

/* A value may change; else why not on the message line. */
static int may_change(explorer *x, const mbx_ex_form *fm)
{
    const char *why = fm->locked ? fm->locked(x) : NULL;
    if (why)
        mbx_ex_set_msg(x, MBX_ROLE_WARNING, "%s", why);
    return !why;
}

static int typing_key(explorer *x, mbx_ex_form *fm, int f, int key)
{
    char *t = mbx_ex_form_text(fm, f);
    if (key == 27) /* Esc: the field as it was */
        mbx_ex_edit_revert(x, t, fm->tsize);
    if (key == '\n' || key == '\r' || key == KEY_ENTER || key == 27 || key == '\t')
        fm->editing = 0;
    else if (!mbx_ex_line_edit(x, t, fm->tsize, key))
        return 0;
    changed(x, fm);
    return 1;
}

int mbx_ex_form_key(explorer *x, mbx_ex_form *fm, int key)
{
    int n;
    listed(x, fm, &n);
    int f = mbx_ex_form_field(x, fm);
    if (fm->editing)
        return typing_key(x, fm, f, key);
    mbx_ex_action a = mbx_ex_key_action(key, (mbx_ex_screen)fm->screen);
    switch (a) {
    case EXA_UP: fm->cursor = fm->cursor > 0 ? fm->cursor - 1 : 0; return 1;
    case EXA_DOWN: fm->cursor = fm->cursor + 1 < n ? fm->cursor + 1 : fm->cursor; return 1;
    case EXA_LEFT:
    case EXA_RIGHT:
        if (!fm->defs[f].choices)
            return 0;
        if (may_change(x, fm)) {
            mbx_ex_form_cycle(x, fm, f, a == EXA_RIGHT ? 1 : -1);
            changed(x, fm);
        }
        return 1;
    case EXA_ENTER:
        if (!may_change(x, fm))
            return 1;
        if (fm->defs[f].choices) {
            mbx_ex_form_cycle(x, fm, f, 1);
        } else { /* the value selected: typing replaces it */
            fm->editing = 1;
            mbx_ex_edit_begin(x, mbx_ex_form_text(fm, f), 1);
        }
        changed(x, fm);
        return 1;
    default: return 0;
    }
}

/* Field f's row at y: its label, its value (a choice between < >, text
 * being typed with a cursor) and its message or hint. */
static void draw_row(explorer *x, const mbx_ex_form *fm, const mbx_rect *r, int f, int cur, int y)
{
    const char *err = mbx_ex_form_err(fm, f);
    if (cur)
        mbx_ex_fill(x, y, r->x, r->w, MBX_ROLE_CURSOR);
    int role = cur ? MBX_ROLE_CURSOR : MBX_ROLE_NORMAL;
    mbx_ex_put(x, y, r->x + 2, fm->label_w, role, fm->defs[f].label);
    char val[160];
    if (fm->defs[f].choices)
        snprintf(val, sizeof val, "< %s >", mbx_ex_form_text(fm, f));
    else
        snprintf(val, sizeof val, "%s", mbx_ex_form_text(fm, f));
    int unused = fm->unused && fm->unused(x, f);
    int vrole = err[0] ? MBX_ROLE_ERROR : unused && !cur ? MBX_ROLE_DIM : role;
    int hx = fm->value_x + fm->value_w + 1;
    if (cur && fm->editing)
        mbx_ex_put_edit(x, y, r->x + fm->value_x, fm->value_w, vrole, val);
    else
        mbx_ex_put(x, y, r->x + fm->value_x, fm->value_w, vrole, val);
    if (err[0]) {
        mbx_ex_put(x, y, r->x + hx, r->w - hx - 1, MBX_ROLE_ERROR, err);
        return;
    }
    char h[160];
    if (fm->hint)
        fm->hint(x, f, h, sizeof h);
    else
        snprintf(h, sizeof h, "%s", fm->defs[f].hint);
    mbx_ex_put(x, y, r->x + hx, r->w - hx - 1, cur ? MBX_ROLE_CURSOR : MBX_ROLE_DIM, h);
}

int mbx_ex_form_draw(explorer *x, const mbx_ex_form *fm, const mbx_rect *r, int y, int first,
                     int last)
{
    int n;
    const int *fl = listed(x, fm, &n);
    for (int i = first; i < last && i < n && y < r->y + r->h; i++, y++)
        draw_row(x, fm, r, at(fl, i), i == fm->cursor, y);
    return y;
}

int mbx_ex_form_mouse(explorer *x, mbx_ex_form *fm, const mbx_rect *r, int y0, int first, int rows,
                      const struct mbx_ex_mouse *m)
{
    int n, up = m->button == EX_MB_WHEEL_UP;
    const int *fl = listed(x, fm, &n);
    int i = first + m->y - y0, col = m->x - (r->x + fm->value_x);
    if (fm->locked && fm->locked(x))
        return 0;
    fm->editing = 0;
    if (up || m->button == EX_MB_WHEEL_DOWN)
        i = fm->cursor + (up ? -1 : 1);
    else if (m->y < y0 || m->y >= y0 + rows || i >= n)
        return 0;
    fm->cursor = i < 0 ? 0 : i >= n ? n - 1 : i;
    int f = at(fl, fm->cursor);
    if (m->button == EX_MB_LEFT && col >= 0 && col < fm->value_w) {
        if (fm->defs[f].choices) {
            mbx_ex_form_cycle(x, fm, f, col <= 1 ? -1 : 1);
        } else {
            char *t = mbx_ex_form_text(fm, f);
            size_t len = strlen(t);
            fm->editing = 1;
            mbx_ex_edit_begin(x, t, 0);
            x->ed.cur = (size_t)col < len ? (size_t)col : len; /* where it was clicked */
        }
    }
    changed(x, fm);
    return 1;
}
