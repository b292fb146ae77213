/* The selection of `mpibex run` on the explorer's command line
 * (`mpibex -n 2 --bench ... --sizes ...`): the options of `run` that
 * choose what to measure, taken as `run` takes them, into the plan the
 * explorer opens with; every other option of `run` refused in one line.
 * (internal to the explorer) */
#ifndef MBX_EX_CLI_H
#define MBX_EX_CLI_H

#include <stddef.h>

#include "core/opt.h"
#include "mbx/plan.h"

/* The form's keys of the whole run that the command line may give, in
 * this order (mbx_plan_run_key names). */
enum { EXC_VALIDATE = 0, EXC_TIMER, EXC_SYNC, EXC_CLOCK, EXC_CACHE, EXC_WARMUP, EXC_NKEYS };

typedef struct mbx_ex_cli {
    mbx_plan_overrides ov;      /* --bench, --sizes, --stop, ...: NULL when not given */
    const char *key[EXC_NKEYS]; /* --validate ("on"), --timer, ...: NULL when not given */
} mbx_ex_cli;

/* The handler of --validate, --timer, --sync, --clock-sync, --cache and
 * --warmup: the value checked against what the parameter screen offers
 * (one line naming the option and the allowed values, exit 2), then kept
 * in the mbx_ex_cli at o->off of the parser's dst. */
int mbx_ex_cli_key(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *val);

/* The parser's operand: an option of `run` the explorer has no use for
 * (-o, --raw, --resume, --passes, ...) refused in one line that says
 * where the explorer does that; anything else an unknown option (with
 * "did you mean" as the parser gives it). Returns 2. */
int mbx_ex_cli_other(mbx_opt_parser *p, const char *word);

/* The plan the explorer opens with: c's selection over it as `run`
 * applies it (mbx_plan_override), and c's keys of the whole run into its
 * first section, which the parameter screen reads. MBX_OK, or an error
 * with the line in msg. */
int mbx_ex_cli_apply(const mbx_ex_cli *c, mbx_plan *plan, char *msg, size_t len);

#endif
