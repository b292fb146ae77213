/* Private to the plans (plan_keys.c: a measurement's keys, their values
 * and checks; plan.c: plan files and command-line overrides): the keys and
 * what both files need of them. */
#ifndef MBX_PLAN_INT_H
#define MBX_PLAN_INT_H

#include <stddef.h>

#include "mbx/plan.h"

#define KEYS_ALLOWED                                                                               \
    "bench, sizes, stop, nmin, nmax, procs, param, root, pair, refine, budget, rma_sync, "         \
    "point_time, sync, cache, timer, seed, warmup"
#define REASON_MAX 512

enum {
    KEY_BENCH,
    KEY_SIZES,
    KEY_STOP,
    KEY_NMIN,
    KEY_NMAX,
    KEY_PROCS,
    KEY_PARAM,
    KEY_ROOT,
    KEY_PAIR,
    KEY_REFINE,
    KEY_BUDGET,
    KEY_RMA_SYNC,
    KEY_POINT_TIME,
    /* Keys of the whole run (MBX_PLAN_RUN_KEYS, in this order): kept as
     * written, checked and applied by the front end. */
    KEY_SYNC,
    KEY_CACHE,
    KEY_TIMER,
    KEY_SEED,
    KEY_WARMUP,
    KEY_COUNT
};

/* The names of the keys, by KEY_ index. */
extern const char *const mbx_plan_key_names[KEY_COUNT];

/* The KEY_ index of key, or -1 when it is no key's name. */
int mbx_plan_key_index(const char *key);

/* Trims s in place, returning the first non-space character. */
char *mbx_plan_trim(char *s);

/* mbx_measurement_set without the key prefix, so that plan files and
 * command-line overrides can each name the key their own way; why gets
 * the reason of a failure. MBX_OK or a negative mbx_status. */
MBX_NODISCARD int mbx_plan_set_key(mbx_measurement *m, const char *key, const char *value,
                                   char *why, size_t whylen);

#endif
