/* The form widget: labelled fields, each a text or a choice between < >,
 * with its hint or its message beside it. The parameter form
 * (screens/ex_params.c) and the b_eff form (screens/ex_beff.c) are two of
 * it; the screen keeps the fields' text and messages and says what a
 * change means through the hooks. (internal) */
#ifndef MBX_EX_FORM_H
#define MBX_EX_FORM_H

#include <stddef.h>

#include "core/layout.h"

typedef struct explorer explorer;
struct mbx_ex_mouse;

typedef struct mbx_ex_fielddef {
    const char *label;
    const char *hint;
    const char *const *choices; /* NULL: text */
} mbx_ex_fielddef;

typedef struct mbx_ex_form {
    const mbx_ex_fielddef *defs; /* every field of the form, by index */
    int nfields;
    char *text; /* field f's text at text + f * tsize (the screen's) */
    size_t tsize;
    char *err; /* its message at err + f * esize, "" when valid */
    size_t esize;
    int screen;                    /* mbx_ex_screen: whose key bindings */
    int label_w, value_x, value_w; /* columns from the body's left edge */
    int cursor;                    /* the row under the cursor, of those listed */
    int editing;                   /* the field under the cursor is being typed in */
    /* Hooks; NULL when the form has none. */
    const int *(*list)(const explorer *x, int *n); /* the fields listed; NULL all */
    void (*changed)(explorer *x);                  /* a value changed: check the form */
    void (*turned)(explorer *x, int f);            /* choice f turned: its effect on others */
    const char *(*locked)(const explorer *x);      /* why no value may change now */
    void (*hint)(const explorer *x, int f, char *buf, size_t len);
    int (*unused)(const explorer *x, int f); /* f does not apply now: dim */
} mbx_ex_form;

char *mbx_ex_form_text(const mbx_ex_form *fm, int f);
char *mbx_ex_form_err(const mbx_ex_form *fm, int f);
/* The field index under the cursor (the cursor kept within the list). */
int mbx_ex_form_field(const explorer *x, mbx_ex_form *fm);
/* Whether no field listed has a message. */
int mbx_ex_form_ok(const explorer *x, const mbx_ex_form *fm);
/* Choice f to the next (dir 1) or previous (-1) of its choices. */
void mbx_ex_form_cycle(explorer *x, mbx_ex_form *fm, int f, int dir);
/* Its keys: typing while editing, up and down, left and right turn a
 * choice, Enter turns it or starts typing; 0 when not taken. */
int mbx_ex_form_key(explorer *x, mbx_ex_form *fm, int key);
/* The listed rows first..last-1 from row y of r (while r has room);
 * returns the row after the last drawn. */
int mbx_ex_form_draw(explorer *x, const mbx_ex_form *fm, const mbx_rect *r, int y, int first,
                     int last);
/* A click on a row (rows drawn from y0, the first listed row first, rows
 * of them) puts the cursor there, on the value it turns a choice ("<"
 * back, elsewhere on) or starts typing at that character; the wheel moves
 * the cursor. 1 when something changed. */
int mbx_ex_form_mouse(explorer *x, mbx_ex_form *fm, const mbx_rect *r, int y0, int first, int rows,
                      const struct mbx_ex_mouse *m);

#endif
