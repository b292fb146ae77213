/* The explorer's one key table: dispatch, the footer and the help overlay
 * are all generated from it, so they cannot disagree. (internal) */
#ifndef MBX_EX_KEYS_H
#define MBX_EX_KEYS_H

#include "explorer.h"

typedef enum mbx_ex_action {
    EXA_NONE = 0,
    EXA_QUIT,
    EXA_HELP,
    EXA_NEXT_SCREEN,
    EXA_PICKER,
    EXA_PARAMS,
    EXA_RUNVIEW,
    EXA_RESULTS,
    EXA_BEFF,
    EXA_START,
    EXA_BEFF_START, /* r on the b_eff screen: its form's benchmark */
    EXA_PAUSE,
    EXA_CANCEL,
    EXA_BANDWIDTH,
    EXA_THEME,
    EXA_GLYPHS,
    EXA_EXPORT,
    EXA_REPORT,
    EXA_UP,
    EXA_DOWN,
    EXA_PGUP,
    EXA_PGDN,
    EXA_HOME,
    EXA_END,
    EXA_LEFT,
    EXA_RIGHT,
    EXA_TOGGLE,
    EXA_ALL,
    EXA_NOSEL,
    EXA_TWICE,
    EXA_FILTER,
    EXA_ENTER,
    EXA_SORT,
    EXA_REVERSE,
    EXA_XAXIS,
    EXA_COMPARE,
    EXA_RATIOS,
    EXA_CHOOSE,
    EXA_BACK,
    EXA_INSPECT, /* the run view's point inspector */
    EXA_ERRBARS, /* the run view's error bars */
    EXA_MESSAGE,
    EXA_GL_RUN,      /* r on the guidelines screen: the rules' plan */
    EXA_PAIRS,       /* the pairs screen */
    EXA_PAIRS_START, /* r on the pairs screen: its form's run */
    EXA_PAIRS_FORM,  /* f on the pairs screen: the form or the matrix */
    EXA_PAIRS_ZOOM,  /* z on the pairs screen: blocks of nodes or one a cell */
} mbx_ex_action;

/* Screens a binding applies to. */
#define S_PICK (1u << EX_PICKER)
#define S_PARM (1u << EX_PARAMS)
#define S_RUN (1u << EX_RUN)
#define S_RES (1u << EX_RESULTS)
#define S_BEFF (1u << EX_BEFF)
#define S_GL (1u << EX_GUIDELINES)
#define S_PAIRS (1u << EX_PAIRS)
#define S_ALL (S_PICK | S_PARM | S_RUN | S_RES | S_BEFF | S_GL | S_PAIRS)
/* Not a screen: the series chooser open over the run view owns the keys. */
#define S_CHOOSE (1u << EX_NSCREENS)

/* The action bound to key on screen s (EXA_NONE if none). */
mbx_ex_action mbx_ex_key_action(int key, mbx_ex_screen s);
/* The same for a context mask (a screen bit or S_CHOOSE). */
mbx_ex_action mbx_ex_key_action_in(int key, unsigned ctx);

/* Entry i of the key table: its label and help; 1 when it applies in
 * context ctx, 0 when not, -1 past the table's end (the help overlay). */
int mbx_ex_key_entry(size_t i, unsigned ctx, const char **label, const char **help);

#endif
