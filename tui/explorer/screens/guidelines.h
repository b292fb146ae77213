/* The guidelines screen (screens/ex_guidelines.c, screens/ex_glcells.c):
 * the rules of the built-in catalogue (glplan.h, as `mpibex guidelines`
 * builds them), measured as one run of the explorer and judged live from
 * its points' pass medians (docs/explorer.md, "The guidelines screen").
 * (internal) */
#ifndef MBX_EX_GUIDELINES_H
#define MBX_EX_GUIDELINES_H

#include <stddef.h>
#include <stdint.h>

#include "ex_model.h"
#include "glplan.h"
#include "mbx/sizes.h"

typedef struct explorer explorer;

typedef struct mbx_ex_gl {
    mbx_glp plan; /* the rules as last built; built 0 when it failed (err says why) */
    int built;
    char err[300];
    uint64_t built_key; /* the filter and the form's sizes it was built from */
    char filter[64];    /* GLOB,... as --rules; "" every rule */
    int filtering;
    int cursor, top;
    /* The run: want, the next run is the plan's (r here); active, the run's
     * points are the plan's (twins are the points' second copies); back,
     * Esc on the run view comes back here (Enter opened its compare view). */
    int want, active, back;
    mbx_glp_cell *cell; /* the rules judged, as of the last draw */
    size_t ncell, capcell;
    size_t *wait; /* per rule: cells whose points have no verdict yet */
} mbx_ex_gl;

/* The plan of the rules shown (the filter, the form's sizes), rebuilt when
 * either changed; NULL with the reason in x->gl.err when there is none. */
const mbx_glp *mbx_ex_gl_plan(explorer *x);

/* The run's side (ex_app.c): with the plan's run asked for, how many
 * copies of benchmark bench_id it measures (0 none, 2 with a twin
 * section) and, sized, at which sizes (the union of its sections'). */
int mbx_ex_gl_bench(explorer *x, int bench_id, mbx_size_list *sizes);

/* ex_glcells.c: every rule at every size and process count of the run,
 * judged from its points' pass medians so far (x->gl.cell, x->gl.wait). */
void mbx_ex_gl_judge(explorer *x, double tol, double alpha);
/* The compare view's two curves of rule r: its left side's (A) and its
 * right side's (B); 0 when the run has no point of a side. */
int mbx_ex_gl_series(const explorer *x, size_t r, mbx_ex_series *a, mbx_ex_series *b);
void mbx_ex_gl_free(explorer *x);

#endif
