/* The picker screen (screens/ex_picker.c): the benchmarks by pattern, a
 * filter. What is picked (explorer.sel) is the run's request and lives
 * in the model; the rest is the screen's. (internal) */
#ifndef MBX_EX_PICKER_H
#define MBX_EX_PICKER_H

#include "ex_model.h"

typedef struct explorer explorer;

typedef struct mbx_ex_picker {
    unsigned char collapsed[EX_MAX_PATTERNS];
    int cursor, top;
    char filter[32];
    int filtering;
} mbx_ex_picker;

/* The benchmarks picked. */
int mbx_ex_picker_count(const explorer *x);

#endif
