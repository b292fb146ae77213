/* The results screen (screens/ex_results.c): the table's sort, scroll
 * and cursor. (internal) */
#ifndef MBX_EX_RESULTS_H
#define MBX_EX_RESULTS_H

typedef struct explorer explorer;

typedef struct mbx_ex_results {
    int sort_col, sort_desc;
    int top, cursor;
    int left; /* the columns scrolled off to the left */
} mbx_ex_results;

#endif
