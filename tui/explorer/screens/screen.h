/* The explorer's screens as one table: each screen file contributes its
 * row, the frame (ex_frame.c) walks the table for the title bar, the body
 * and the help overlay's name, and the key dispatcher (ex_input.c) hands
 * a screen the keys the app-wide table leaves. (internal) */
#ifndef MBX_EX_SCREEN_H
#define MBX_EX_SCREEN_H

#include "explorer.h"

typedef struct mbx_ex_screen_def {
    const char *name;  /* the title bar's tab: "1 Picker" */
    const char *brief; /* the tab under 120 columns, room for the job's description */
    const char *help;  /* the help overlay's name for the screen: "picker" */
    void (*draw)(explorer *x, const mbx_rect *body);
    /* The screen's own keys; 1 when the screen changed. */
    int (*key)(explorer *x, int key);
    /* Text entry (or the series chooser) open: it owns the keyboard, every
     * key goes to key before the app-wide ones. */
    int (*typing)(const explorer *x);
    /* A mouse event m in the body (ex_input.c has handled the tab bar, the
     * footer and the overlays); 1 when the screen changed. NULL: the
     * screen takes no mouse events. The run view's puts the inspector's
     * cursor on the clicked point (mbx_ex_run_cursor_at). */
    int (*mouse)(explorer *x, const mbx_rect *body, const mbx_ex_mouse *m);
} mbx_ex_screen_def;

/* The row of screen s (ex_frame.c holds the table, in mbx_ex_screen order). */
const mbx_ex_screen_def *mbx_ex_screen_of(mbx_ex_screen s);

#endif
