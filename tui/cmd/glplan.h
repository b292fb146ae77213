/* The plan of the guidelines (mbx/guideline.h; docs/user-guide.md,
 * "Guidelines: guidelines"), shared by `mpibex guidelines` and the
 * explorer's guidelines screen: the catalogue's rules resolved against the
 * registry, the sizes each rule takes, what every benchmark must be
 * measured at (its needs) and the plan sections they fall into; and, once
 * judged, each rule's summary. Prints nothing: errors are one line in the
 * caller's buffer. (internal to the front ends) */
#ifndef MBX_GLPLAN_H
#define MBX_GLPLAN_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/bench.h"
#include "mbx/guideline.h"
#include "mbx/sizes.h"

#define MBX_GLP_SIZES_DEFAULT "1:1M"
#define MBX_GLP_SECTIONS_MAX 32
#define MBX_GLP_PASSES 10 /* the least passes of a point: why in docs/user-guide.md */

/* One rule of the catalogue, resolved. */
typedef struct mbx_glp_rule {
    const mbx_gl_rule *r;
    const mbx_bench *lb, *rb; /* a side not in this build stays NULL (skip says why) */
    const char *skip;         /* why it is not measured (not in this build), or NULL */
    uint64_t *m;              /* the rule's sizes (0 alone for two unsized benchmarks) */
    size_t nm;
    int twin;            /* both sides one benchmark at one size: the right in a twin section */
    const char *ll, *rl; /* the sections that measure the two sides ("gl-1", "gl-twin-2") */
} mbx_glp_rule;

/* What one benchmark (in its section, or in its twin section) must be
 * measured at: sizes ascending, none for an unsized benchmark. */
typedef struct mbx_glp_need {
    const mbx_bench *b;
    int twin, unsized;
    uint64_t *v;
    size_t n, cap;
    int section; /* index into mbx_glp.label */
} mbx_glp_need;

typedef struct mbx_glp {
    mbx_gl_catalogue *cat;
    const char *cat_name; /* the file's name, or "guidelines.ini (built in)" */
    mbx_size_list *sizes;
    mbx_glp_rule *rule; /* the selected rules, in the catalogue's order */
    size_t nrule, nskip;
    mbx_glp_need *need;
    size_t nneed;
    char label[MBX_GLP_SECTIONS_MAX][24];
    size_t nsection;
} mbx_glp;

typedef struct mbx_glp_opts {
    const char *catalogue; /* an ini file of rules; NULL: the built-in samples/guidelines.ini */
    /* The sizes: a range MIN:MAX[:F] (each rule takes those it can) or a
     * list (each size must fit every rule); NULL: MBX_GLP_SIZES_DEFAULT. */
    const char *sizes;
    /* Instead of sizes when not NULL: a list taken as a range (the
     * explorer's form). */
    const mbx_size_list *range;
    const char *rules; /* GLOB,...,!GLOB: the rules whose names match, less those
                          an !GLOB matches; NULL: all */
} mbx_glp_opts;

/* Build p (zeroed by the caller) from o. MBX_OK; MBX_E_INVAL with one
 * line in msg for bad input (a catalogue that does not parse, an unknown
 * benchmark, sizes a rule cannot take, no rule selected or measurable,
 * more than MBX_GLP_SECTIONS_MAX size lists); MBX_E_NOMEM. p owns its
 * memory either way: mbx_glp_free. */
int mbx_glp_build(mbx_glp *p, const mbx_glp_opts *o, char *msg, size_t len);
void mbx_glp_free(mbx_glp *p);

/* The need of benchmark b in its twin section (twin 1) or its own; NULL
 * when the plan has none. */
const mbx_glp_need *mbx_glp_need_of(const mbx_glp *p, const mbx_bench *b, int twin);

/* Whether name matches one of the globs of rules (NULL: every name) and
 * none of its exclusions, the globs written !GLOB (a list of exclusions
 * only: every name they do not match). */
int mbx_glp_selected(const char *rules, const char *name);

/* One rule at one size and process count, judged. */
typedef struct mbx_glp_cell {
    size_t rule; /* index into mbx_glp.rule */
    int procs;
    uint64_t m; /* the rule's size */
    mbx_gl_judgement j;
} mbx_glp_cell;

/* mbx_gl_decide over the judgements of c[0..n): the q-values and the
 * verdicts. MBX_OK, MBX_E_INVAL (tol, alpha), MBX_E_NOMEM. */
int mbx_glp_decide(mbx_glp_cell *c, size_t n, double tol, double alpha);

/* A rule's verdicts counted over its cells (of procs, or of every count
 * when procs is 0), the violated sizes' range and the largest ratio. */
typedef struct mbx_glp_sum {
    size_t holds, violated, unclear, none;
    uint64_t lo, hi;               /* the smallest and the largest violated size */
    const mbx_gl_judgement *worst; /* the violated cell of the largest ratio, or NULL */
} mbx_glp_sum;

void mbx_glp_summarize(const mbx_glp_cell *c, size_t n, size_t rule, int procs, mbx_glp_sum *out);
/* "16-512 (1.135 [1.071, 1.189])": the violated range and the largest
 * ratio with its CI; "" when nothing is violated. */
void mbx_glp_sum_format(const mbx_glp_sum *s, char *buf, size_t len);

#endif
