/* The results screen's columns (screens/ex_rescols.c): a list of names
 * of the results table MBX_RESULT_COLUMNS (mbx/result.h), plus display
 * entries built from its columns (the ci95 pair, err). (internal) */
#ifndef MBX_EX_RESCOLS_H
#define MBX_EX_RESCOLS_H

#include <stddef.h>

#include "explorer.h"

#define MBX_EX_RESCOLS_MAX 64 /* names the screen may list */

typedef struct mbx_ex_rescol {
    const char *name; /* in MBX_RESULT_COLUMNS, or a display entry's */
    const char *head; /* its head on the screen */
    int w;
    int csv; /* its column of MBX_RESULT_COLUMNS; -1: a display entry */
    /* Its cell; NULL: the results file's text of column csv. */
    void (*cell)(const explorer *x, const mbx_ex_point *p, char *buf, size_t len);
    /* Its sort key; NULL: sorted by the file's text (as a number when both
     * are one). */
    double (*key)(const mbx_ex_point *p);
    /* Or sorted by this text (benchmark, ranks). */
    const char *(*text)(const mbx_ex_point *p);
    /* Shown only when a finished point has it; NULL: always. (A column
     * without a look: when some point's field is not empty.) */
    int (*has)(const mbx_result *r);
    /* Its cell's role (MBX_ROLE_*); NULL: MBX_ROLE_NORMAL. */
    int (*role)(const mbx_result *r);
} mbx_ex_rescol;

/* The screen's columns in their order (looked up by name on first use). */
size_t mbx_ex_rescols(const mbx_ex_rescol **cols);

/* The index of the screen's column name; -1 when it shows none. */
int mbx_ex_rescol_find(const char *name);

/* Column k's text for point p. */
void mbx_ex_rescol_text(const explorer *x, const mbx_ex_point *p, int k, char *buf, size_t len);

/* Whether column k applies to result r (a finished point). */
int mbx_ex_rescol_has(int k, const mbx_result *r);

/* Column k's role (MBX_ROLE_*) for result r, off the cursor. */
int mbx_ex_rescol_role(int k, const mbx_result *r);

/* Column k's order of p and q: < 0, 0 or > 0 (NAN keys last). */
int mbx_ex_rescol_cmp(int k, const mbx_ex_point *p, const mbx_ex_point *q);

#endif
