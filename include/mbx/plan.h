/* mpibex plans: what to measure, from a plan file (INI) or the command line.
 *
 * A plan is a list of measurements. In a plan file each [section] is one
 * measurement (the section name is its label) with these keys, the same as
 * the `run` options:
 *   bench  = comma-separated benchmark names (required)
 *   sizes  = MIN:MAX[:FACTOR] or a list (see sizes.h); default 0:4MiB:2
 *   stop   = stop rule (see stop.h); default stderr:0.03
 *   nmin   = minimum observations, 1..MBX_NMAX_LIMIT; default 16
 *   nmax   = maximum observations, 1..MBX_NMAX_LIMIT; default 1000
 *   procs  = process counts: all (default), a list (2,4,8), or a range
 *            A:B[:F], a geometric grid from A by factor F (default 2) with B
 *            always included; only a range is refined over P
 *   param  = benchmark parameter values (master-worker pieces, threads of
 *            threads.*, omp.* and pingpong.mt), a list of integers
 *            1..MBX_PARAM_LIMIT or a range A:B[:F] as for procs; default:
 *            the benchmark's own
 *   root   = root rank of rooted benchmarks, 0..MBX_PROCS_LIMIT-1; default 0
 *   pair   = ping-pong ranks: auto (default: rank 0 and the rank with the
 *            largest latency from a quick scan) or A,B
 *   refine = adaptive refinement: off (default) or EPS (0.05 or 5%)
 *   budget = most points refinement may add per curve, 0..10000; default 32
 *   rma_sync = synchronisation of the one-sided benchmarks (rma.*): fence,
 *            lock, lock_all (default) or pscw (mbx/rma.h)
 *   point_time = seconds a point's passes may take in all (IMB's -time,
 *            per point), 0..86400; 0 (default): no cap
 * and the keys of the whole run (mbx_plan_run_key: every other `run`
 * option but -o, --force, --resume, --fake, -q and -h, '_' for '-': sync,
 * cache, timer, seed, warmup, passes, max_passes, span, pass_ms,
 * time_limit, settle, monitor, shift, order, clock_sync, resync,
 * sync_span, window, window_delay, window_limit, thread_level, validate,
 * raw), the same in every section that gives them, kept as written and
 * checked by the front end as its option of the same name (`run`: the
 * option given on the command line wins over the key, the key over the
 * default).
 * Lines starting with # or ; are comments; blank lines are ignored; keys
 * outside any section are an error; unknown keys are an error.
 * Benchmark names are checked by the caller (the registry lives in the MPI
 * engine). Pure C, no MPI. */
#ifndef MBX_PLAN_H
#define MBX_PLAN_H

#include <stddef.h>

#include "mbx/sizes.h"
#include "mbx/status.h"
#include "mbx/stop.h"

#define MBX_PLAN_MAX_BENCH 256 /* a glob like "*" takes the whole registry */
#define MBX_PLAN_MAX_MEAS 64
#define MBX_NAME_MAX 64
#define MBX_PLAN_MAX_PROCS 256
#define MBX_PLAN_MAX_PARAM 32
#define MBX_PROCS_LIMIT (1 << 22)
#define MBX_PARAM_LIMIT 100000000
#define MBX_BUDGET_DEFAULT 32
#define MBX_BUDGET_LIMIT 10000
#define MBX_POINT_TIME_LIMIT 86400.0
#define MBX_PLAN_RUN_KEYS 24 /* the rows of plan_keys.c's table without a setter */
#define MBX_PLAN_RUN_VALUE_MAX 48

typedef struct mbx_measurement {
    char label[MBX_NAME_MAX];
    char bench[MBX_PLAN_MAX_BENCH][MBX_NAME_MAX];
    size_t nbench;
    mbx_size_list sizes;
    /* 1: sizes came from the plan or --sizes; 0: the default (from 0 B:
     * a benchmark that cannot measure 0 B starts at its next size; given
     * sizes with 0 are refused for it instead). */
    int sizes_given;
    mbx_stop_rule stop;
    size_t nmin, nmax;
    /* process counts: procs_all (the job size), or procs[0..nprocs) in
     * increasing order; procs_range marks a range (refined over P) */
    int procs_all, procs_range;
    int procs[MBX_PLAN_MAX_PROCS];
    size_t nprocs;
    int64_t param[MBX_PLAN_MAX_PARAM]; /* nparam 0: the benchmark's default */
    size_t nparam;
    int root;
    int pair_auto, pair_a, pair_b; /* pair_auto, or the ranks A,B */
    double refine;                 /* 0: off */
    size_t budget;
    int rma_sync;      /* mbx_rma_sync; 0: the default (lock_all) */
    double point_time; /* seconds; 0: none */
    /* The keys of the whole run (mbx_plan_run_keys, in that order) as
     * written; "" when the section does not give them. */
    char run_key[MBX_PLAN_RUN_KEYS][MBX_PLAN_RUN_VALUE_MAX];
} mbx_measurement;

/* The name of the whole run's key k (0..MBX_PLAN_RUN_KEYS-1: the index of
 * run_key[]), the `run` option without its "--" and with '_' for '-'
 * ("max_passes"); NULL for another k. */
const char *mbx_plan_run_key(int k);

/* The run_key[] index of the whole run's key named key; -1 when key is no
 * such key (a measurement's key, or none). */
int mbx_plan_run_key_index(const char *key);

typedef struct mbx_plan {
    mbx_measurement meas[MBX_PLAN_MAX_MEAS];
    size_t nmeas;
} mbx_plan;

/* Which plan keys were given explicitly (used for command-line overrides). */
typedef struct mbx_plan_overrides {
    const char *bench, *sizes, *stop, *nmin, *nmax; /* NULL: not given */
    const char *procs, *param, *root, *pair, *refine, *budget;
    const char *rma_sync;
    const char *point_time;
} mbx_plan_overrides;

/* Initialize m with defaults and the given label. */
void mbx_measurement_defaults(mbx_measurement *m, const char *label);

/* Set one key of a measurement from its text value. On error writes a one-
 * line message naming the key and what is allowed into msg. */
MBX_NODISCARD int mbx_measurement_set(mbx_measurement *m, const char *key, const char *value,
                                      char *msg, size_t msglen);

/* Check invariants that span keys (nmin <= nmax, at least one bench).
 * The message names the field. */
MBX_NODISCARD int mbx_measurement_check(const mbx_measurement *m, char *msg, size_t msglen);

/* Parse INI text (name is used in messages, e.g. the file path). Messages
 * look like "plan.ini:12: nmin: expected an integer in 1..10000000". */
MBX_NODISCARD int mbx_plan_parse(const char *text, const char *name, mbx_plan *out, char *msg,
                                 size_t msglen);

/* Read and parse a file; an unreadable file is MBX_E_IO with a message. */
MBX_NODISCARD int mbx_plan_load(const char *path, mbx_plan *out, char *msg, size_t msglen);

/* Apply command-line overrides to every measurement of a plan. */
MBX_NODISCARD int mbx_plan_override(mbx_plan *plan, const mbx_plan_overrides *ov, char *msg,
                                    size_t msglen);

#endif
