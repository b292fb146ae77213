/* The parameter screen (screens/ex_params.c): the form's text, each
 * field's message, the form widget's cursor. What the form says once
 * valid (explorer.meas, procs, method, timer, warmup) is the run's request
 * and lives in the model. (internal) */
#ifndef MBX_EX_PARAMS_H
#define MBX_EX_PARAMS_H

#include "ex_form.h"
#include "mbx/plan.h"

typedef struct explorer explorer;

typedef enum mbx_ex_field {
    EX_F_SIZE_MIN = 0,
    EX_F_SIZE_MAX,
    EX_F_FACTOR,
    EX_F_PROCS,
    EX_F_RULE,
    EX_F_EPS,
    EX_F_NMIN,
    EX_F_NMAX,
    EX_F_REFINE,
    EX_F_BUDGET,
    EX_F_ROOT,
    EX_F_PARAM,
    EX_F_PAIR,
    EX_F_VALIDATE,
    EX_F_TIMER,
    EX_F_SYNC,
    EX_F_CLOCK, /* window sync's global clock: jk or hca */
    EX_F_CACHE,
    EX_F_RMA_SYNC,   /* one-sided rma.*: lock_all, fence, lock or pscw */
    EX_F_POINT_TIME, /* seconds of passes per point (run --point-time) */
    EX_F_WARMUP,     /* untimed calls per point (run --warmup), or default */
    EX_NFIELDS
} mbx_ex_field;

typedef struct mbx_ex_params {
    mbx_ex_form form;
    char field[EX_NFIELDS][64]; /* text as typed */
    char ferr[EX_NFIELDS][200]; /* the message of each field, "" valid */
} mbx_ex_params;

void mbx_ex_params_init(explorer *x, const mbx_measurement *m);
void mbx_ex_params_validate(explorer *x); /* all fields; updates meas and ferr */
int mbx_ex_params_ok(const explorer *x);

#endif
