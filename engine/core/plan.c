/* Plans (see mbx/plan.h): parsing a plan file's sections and keys,
 * loading one, and the command-line overrides of its keys. A
 * measurement's keys are in plan_keys.c. */
#include "mbx/plan.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/ascii.h"
#include "mbx/names.h"
#include "msg.h"
#include "plan_int.h"

#define PLAN_FILE_MAX ((size_t)1 << 20)

struct parse_state {
    const char *name;
    mbx_plan *plan;
    mbx_measurement *cur;
    int key_line[KEY_COUNT]; /* line where each key was set in cur, 0 if not */
    int section_line[MBX_PLAN_MAX_MEAS];
};

static int section_line(struct parse_state *st, char *line, int lineno, char *msg, size_t msglen)
{
    size_t len = strlen(line);
    if (line[len - 1] != ']') {
        mbx_msgf(msg, msglen, "%s:%d: expected a section header like [label]", st->name, lineno);
        return MBX_E_INVAL;
    }
    line[len - 1] = '\0';
    char *label = mbx_plan_trim(line + 1);
    size_t n = strlen(label);
    if (n == 0 || n >= MBX_NAME_MAX ||
        strspn(label, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != n) {
        mbx_msgf(msg, msglen,
                 "%s:%d: bad section label [%.*s]; expected 1..%d characters: letters, digits, "
                 ". _ -",
                 st->name, lineno, MBX_NAME_MAX, label, MBX_NAME_MAX - 1);
        return MBX_E_INVAL;
    }
    mbx_plan *plan = st->plan;
    for (size_t i = 0; i < plan->nmeas; i++) {
        if (strcmp(plan->meas[i].label, label) == 0) {
            mbx_msgf(msg, msglen, "%s:%d: duplicate section [%s] (first at line %d)", st->name,
                     lineno, label, st->section_line[i]);
            return MBX_E_INVAL;
        }
    }
    if (plan->nmeas == MBX_PLAN_MAX_MEAS) {
        mbx_msgf(msg, msglen, "%s:%d: too many sections; at most %d measurements per plan",
                 st->name, lineno, MBX_PLAN_MAX_MEAS);
        return MBX_E_INVAL;
    }
    st->section_line[plan->nmeas] = lineno;
    st->cur = &plan->meas[plan->nmeas++];
    mbx_measurement_defaults(st->cur, label);
    memset(st->key_line, 0, sizeof st->key_line);
    return MBX_OK;
}

static int key_line(struct parse_state *st, char *line, int lineno, char *msg, size_t msglen)
{
    char *eq = strchr(line, '=');
    if (eq == NULL) {
        mbx_msgf(msg, msglen, "%s:%d: expected key = value, a [section] header or a # comment",
                 st->name, lineno);
        return MBX_E_INVAL;
    }
    *eq = '\0';
    char *key = mbx_plan_trim(line);
    char *value = mbx_plan_trim(eq + 1);
    if (*key == '\0') {
        mbx_msgf(msg, msglen, "%s:%d: missing key before '='", st->name, lineno);
        return MBX_E_INVAL;
    }
    int k = mbx_plan_key_index(key);
    if (k < 0) {
        char why[REASON_MAX];
        mbx_plan_unknown_key(key, why, sizeof why);
        mbx_msgf(msg, msglen, "%s:%d: %s: %s", st->name, lineno, key, why);
        return MBX_E_UNKNOWN;
    }
    if (st->cur == NULL) {
        mbx_msgf(msg, msglen, "%s:%d: %s: key outside a section; start one with [label]", st->name,
                 lineno, key);
        return MBX_E_INVAL;
    }
    if (st->key_line[k] != 0) {
        mbx_msgf(msg, msglen, "%s:%d: %s: duplicate key in [%s] (first at line %d)", st->name,
                 lineno, key, st->cur->label, st->key_line[k]);
        return MBX_E_INVAL;
    }
    char why[REASON_MAX];
    int rc = mbx_plan_set_key(st->cur, key, value, why, sizeof why);
    if (rc < 0) {
        mbx_msgf(msg, msglen, "%s:%d: %s: %s", st->name, lineno, key, why);
        return rc;
    }
    st->key_line[k] = lineno;
    return MBX_OK;
}

static int check_current(struct parse_state *st, char *msg, size_t msglen)
{
    char why[REASON_MAX];
    if (st->cur != NULL && mbx_measurement_check(st->cur, why, sizeof why) < 0) {
        mbx_msgf(msg, msglen, "%s: [%s]: %s", st->name, st->cur->label, why);
        return MBX_E_INVAL;
    }
    return MBX_OK;
}

int mbx_plan_parse(const char *text, const char *name, mbx_plan *out, char *msg, size_t msglen)
{
    if (name == NULL) {
        name = "plan";
    }
    if (text == NULL || out == NULL) {
        mbx_msgf(msg, msglen, "%s: no plan given", name);
        return MBX_E_INVAL;
    }
    struct parse_state *st = calloc(1, sizeof *st);
    char *buf = malloc(strlen(text) + 1);
    if (st == NULL || buf == NULL) {
        free(st);
        free(buf);
        mbx_msgf(msg, msglen, "%s: out of memory", name);
        return MBX_E_NOMEM;
    }
    /* Editors on Windows start a UTF-8 file with a byte-order mark: it is
     * no part of the first line. */
    strcpy(buf, strncmp(text, "\xEF\xBB\xBF", 3) == 0 ? text + 3 : text);
    st->name = name;
    st->plan = out;
    out->nmeas = 0;
    int rc = MBX_OK;
    int lineno = 0;
    for (char *line = buf; line != NULL && rc == MBX_OK;) {
        char *nl = strchr(line, '\n');
        if (nl) {
            *nl = '\0';
        }
        lineno++;
        char *s = mbx_plan_trim(line);
        if (*s == '[') {
            if ((rc = check_current(st, msg, msglen)) == MBX_OK) {
                rc = section_line(st, s, lineno, msg, msglen);
            }
        } else if (*s != '\0' && *s != '#' && *s != ';') {
            rc = key_line(st, s, lineno, msg, msglen);
        }
        line = nl ? nl + 1 : NULL;
    }
    if (rc == MBX_OK) {
        rc = check_current(st, msg, msglen);
    }
    if (rc == MBX_OK && out->nmeas == 0) {
        mbx_msgf(msg, msglen, "%s: no measurements; add a [label] section with bench = ...", name);
        rc = MBX_E_INVAL;
    }
    free(buf);
    free(st);
    return rc;
}

int mbx_plan_load(const char *path, mbx_plan *out, char *msg, size_t msglen)
{
    if (path == NULL) {
        mbx_msgf(msg, msglen, "no plan path given");
        return MBX_E_INVAL;
    }
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        mbx_msgf(msg, msglen, "cannot read plan %s: %s", path, strerror(errno));
        return MBX_E_IO;
    }
    /* One byte more than the limit tells "exactly 1 MiB" from "larger". */
    char *buf = malloc(PLAN_FILE_MAX + 2);
    if (buf == NULL) {
        fclose(f);
        mbx_msgf(msg, msglen, "cannot read plan %s: out of memory", path);
        return MBX_E_NOMEM;
    }
    size_t n = fread(buf, 1, PLAN_FILE_MAX + 1, f);
    int rc = MBX_OK;
    if (ferror(f)) {
        mbx_msgf(msg, msglen, "cannot read plan %s: %s", path, strerror(errno));
        rc = MBX_E_IO;
    } else if (n > PLAN_FILE_MAX) {
        mbx_msgf(msg, msglen, "plan %s is larger than 1 MiB; is it really a plan?", path);
        rc = MBX_E_INVAL;
    } else if (n >= 2 && (memcmp(buf, "\xFF\xFE", 2) == 0 || memcmp(buf, "\xFE\xFF", 2) == 0)) {
        mbx_msgf(msg, msglen,
                 "plan %s starts with a UTF-16 byte-order mark; save it as UTF-8 (plain text)",
                 path);
        rc = MBX_E_INVAL;
    } else if (memchr(buf, '\0', n) != NULL) {
        mbx_msgf(msg, msglen, "plan %s contains a NUL byte; expected a text file", path);
        rc = MBX_E_INVAL;
    } else {
        buf[n] = '\0';
        rc = mbx_plan_parse(buf, path, out, msg, msglen);
    }
    free(buf);
    fclose(f);
    return rc;
}

/* A bad override's message, named by its option: key rma_sync is
 * --rma-sync. */
static void override_msg(char *msg, size_t msglen, int k, const char *why)
{
    char opt[32];
    snprintf(opt, sizeof opt, "%s", mbx_plan_key_name(k));
    for (char *u = strchr(opt, '_'); u; u = strchr(u, '_'))
        *u = '-';
    mbx_msgf(msg, msglen, "--%s: %s", opt, why);
}

int mbx_plan_override(mbx_plan *plan, const mbx_plan_overrides *ov, char *msg, size_t msglen)
{
    if (plan == NULL || ov == NULL) {
        mbx_msgf(msg, msglen, "no plan given");
        return MBX_E_INVAL;
    }
    /* A measurement's keys (the keys of the whole run are options of
     * their own, never overrides). */
    const char *value[KEY_MEAS];
    for (int k = 0; k < KEY_MEAS; k++)
        value[k] = mbx_plan_override_of(ov, k);
    char why[REASON_MAX];
    int rc;
    /* A value's validity does not depend on the measurement, so trying each
     * on a scratch copy first keeps a bad option from half-applying. */
    mbx_measurement *scratch = malloc(sizeof *scratch);
    if (scratch == NULL) {
        mbx_msgf(msg, msglen, "out of memory");
        return MBX_E_NOMEM;
    }
    mbx_measurement_defaults(scratch, "");
    for (int k = 0; k < KEY_MEAS; k++) {
        if (value[k] != NULL &&
            (rc = mbx_plan_set_key(scratch, mbx_plan_key_name(k), value[k], why, sizeof why)) < 0) {
            override_msg(msg, msglen, k, why);
            free(scratch);
            return rc;
        }
    }
    free(scratch);
    for (size_t i = 0; i < plan->nmeas; i++) {
        for (int k = 0; k < KEY_MEAS; k++) {
            if (value[k] != NULL && (rc = mbx_plan_set_key(&plan->meas[i], mbx_plan_key_name(k),
                                                           value[k], why, sizeof why)) < 0) {
                override_msg(msg, msglen, k, why);
                return rc;
            }
        }
    }
    for (size_t i = 0; i < plan->nmeas; i++) {
        const mbx_measurement *m = &plan->meas[i];
        if (mbx_measurement_check(m, why, sizeof why) < 0) {
            if (m->label[0] != '\0') {
                mbx_msgf(msg, msglen, "[%s]: %s", m->label, why);
            } else {
                mbx_msgf(msg, msglen, "%s", why);
            }
            return MBX_E_INVAL;
        }
    }
    return MBX_OK;
}
