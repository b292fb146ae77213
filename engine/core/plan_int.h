/* Private to the plans (plan_keys.c: a measurement's keys, their values
 * and checks; plan.c: plan files and command-line overrides): the keys and
 * what both files need of them. */
#ifndef MBX_PLAN_INT_H
#define MBX_PLAN_INT_H

#include <stddef.h>

#include "mbx/plan.h"

#define REASON_MAX 512

/* The keys (plan_keys.c's table): the first KEY_MEAS are a measurement's,
 * the rest the whole run's (run_key[k - KEY_MEAS]). */
enum { KEY_MEAS = 13, KEY_COUNT = KEY_MEAS + MBX_PLAN_RUN_KEYS };

/* The name of key k (0..KEY_COUNT-1), or NULL. */
const char *mbx_plan_key_name(int k);

/* The KEY_ index of key, or -1 when it is no key's name. */
int mbx_plan_key_index(const char *key);

/* The override of a measurement's key k in ov (NULL: not given). */
const char *mbx_plan_override_of(const mbx_plan_overrides *ov, int k);

/* why: "unknown key (did you mean NEAR?); allowed keys: LIST" (without
 * "did you mean" when no key is near key). */
void mbx_plan_unknown_key(const char *key, char *why, size_t whylen);

/* Trims s in place, returning the first non-space character. */
char *mbx_plan_trim(char *s);

/* mbx_measurement_set without the key prefix, so that plan files and
 * command-line overrides can each name the key their own way; why gets
 * the reason of a failure. MBX_OK or a negative mbx_status. */
MBX_NODISCARD int mbx_plan_set_key(mbx_measurement *m, const char *key, const char *value,
                                   char *why, size_t whylen);

#endif
