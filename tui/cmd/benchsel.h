/* Benchmark selection against the registry, for every front end: a plan's
 * `bench =` lists (and --bench) with names, groups and globs expanded
 * (mbx_name_select, mbx/names.h), and `mpibex list [GLOB...]`. */
#ifndef MBX_BENCHSEL_H
#define MBX_BENCHSEL_H

#include <stddef.h>

#include "mbx/plan.h"

/* Replace every measurement's bench list by its expansion: registry
 * names, in the items' order, a glob's or group's names in the registry's
 * order, each once. Returns 0, or 2 with a one-line msg ("bench: unknown
 * benchmark 'coll.alreduce' in [cli]; did you mean coll.allreduce? (see
 * 'mpibex list' for the 71 available)"). */
int mbx_benchsel_plan(mbx_plan *plan, char *msg, size_t len);

/* `mpibex list [GLOB...]`: the registry, or the benchmarks the names,
 * groups and globs select; refuses unknown options and names (exit 2). */
int mbx_list_cmd(int argc, char **argv);
void mbx_list_usage(void);

/* Whether the benchmark called name varies over message size: 1, 0, or -1
 * when the registry has no such name (a renamed or newer benchmark). For
 * `mpibex report` (mbx_report_opts.sized). */
int mbx_benchsel_sized(const char *name);

#endif
