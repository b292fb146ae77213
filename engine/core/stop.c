/* Stop rules: parsing, canonical text, and the per-batch verdict (see
 * mbx/stop.h and docs/algorithms.md, "Stop rules"). */
#include "mbx/stop.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/ascii.h"

#define MSG_GENERIC                                                                                \
    "expected stderr:EPS, cv:EPS, ci:EPS or fixed:N with 0 < EPS < 1 (e.g. stderr:3%)"

static const struct {
    const char *name;
    mbx_stop_kind kind;
} rule_names[] = {
    {"stderr", MBX_STOP_STDERR},
    {"cv", MBX_STOP_CV},
    {"ci", MBX_STOP_CI},
    {"fixed", MBX_STOP_FIXED},
};

static const char *kind_name(mbx_stop_kind kind)
{
    for (size_t i = 0; i < sizeof rule_names / sizeof rule_names[0]; i++)
        if (rule_names[i].kind == kind)
            return rule_names[i].name;
    return NULL;
}

static int fail(char *msg, size_t msglen, const char *reason)
{
    if (msg != NULL && msglen > 0)
        snprintf(msg, msglen, "%s", reason);
    return MBX_E_INVAL;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* strtod and strtoull skip leading white space and accept signs; a rule
 * written as "stderr: 3%" or "fixed:-1" is a typo, not a value, so the
 * value must start with a digit (or '.' for EPS). */
static int parse_eps(const char *v, double *eps)
{
    if (!is_digit(v[0]) && !(v[0] == '.' && is_digit(v[1])))
        return -1;
    char *end;
    errno = 0;
    double d = mbx_strtod(v, &end);
    if (end == v || errno == ERANGE)
        return -1;
    if (*end == '%') {
        d /= 100.0;
        end++;
    }
    /* isnormal: "1e-307%" divides down to a subnormal, which strtod would
     * refuse (ERANGE) when the rule's canonical text is read back. */
    if (*end != '\0' || !isnormal(d) || !(d > 0.0 && d < 1.0))
        return -1;
    *eps = d;
    return 0;
}

static int parse_count(const char *v, size_t *count)
{
    if (!is_digit(v[0]))
        return -1;
    char *end;
    errno = 0;
    unsigned long long u = strtoull(v, &end, 10);
    if (end == v || *end != '\0' || errno == ERANGE || u < 1 || u > MBX_NMAX_LIMIT)
        return -1;
    *count = (size_t)u;
    return 0;
}

int mbx_stop_parse(const char *text, mbx_stop_rule *out, char *msg, size_t msglen)
{
    if (text == NULL || out == NULL)
        return fail(msg, msglen, MSG_GENERIC);
    const char *colon = strchr(text, ':');
    if (colon == NULL)
        return fail(msg, msglen, MSG_GENERIC);

    size_t len = (size_t)(colon - text);
    const char *name = NULL;
    mbx_stop_kind kind = MBX_STOP_STDERR;
    for (size_t i = 0; i < sizeof rule_names / sizeof rule_names[0]; i++) {
        if (strlen(rule_names[i].name) == len && strncmp(rule_names[i].name, text, len) == 0) {
            name = rule_names[i].name;
            kind = rule_names[i].kind;
        }
    }
    if (name == NULL)
        return fail(msg, msglen, MSG_GENERIC);

    mbx_stop_rule r;
    memset(&r, 0, sizeof r); /* no padding garbage: rules are compared bytewise */
    r.kind = kind;
    if (kind == MBX_STOP_FIXED) {
        if (parse_count(colon + 1, &r.fixed) != 0) {
            char reason[96];
            snprintf(reason, sizeof reason, "fixed:N needs an integer N in 1..%d", MBX_NMAX_LIMIT);
            return fail(msg, msglen, reason);
        }
    } else if (parse_eps(colon + 1, &r.eps) != 0) {
        char reason[128];
        snprintf(reason, sizeof reason,
                 "%s:EPS needs a number 0 < EPS < 1, as a fraction (0.03) or a percentage (3%%)",
                 name);
        return fail(msg, msglen, reason);
    }
    *out = r;
    return MBX_OK;
}

/* %g's six digits, or as many more as it takes for the text to be a rule
 * again: 0.9999999 would print as "1", which is no EPS. Seventeen digits
 * always read back as the same double, so the loop ends with valid text
 * for any EPS the parser accepted. */
static void format_eps(const char *name, double eps, char *buf, size_t len)
{
    for (int digits = 6; digits <= 17; digits++) {
        char text[40];
        double back;
        mbx_snprintf_c(text, sizeof text, "%.*g", digits, eps);
        if (parse_eps(text, &back) == 0 || digits == 17) {
            snprintf(buf, len, "%s:%s", name, text);
            return;
        }
    }
}

void mbx_stop_format(const mbx_stop_rule *rule, char *buf, size_t len)
{
    if (buf == NULL || len == 0)
        return;
    const char *name = rule != NULL ? kind_name(rule->kind) : NULL;
    if (name == NULL)
        snprintf(buf, len, "invalid");
    else if (rule->kind == MBX_STOP_FIXED)
        snprintf(buf, len, "%s:%zu", name, rule->fixed);
    else
        format_eps(name, rule->eps, buf, len);
}

/* A ratio against a location that is not positive has no meaning as a
 * relative error (corrected times can be <= 0), so it is undefined. */
static double rel(double spread, double location)
{
    if (!(location > 0.0) || !isfinite(spread) || !isfinite(location))
        return NAN;
    return spread / location;
}

double mbx_stop_progress(const mbx_stop_rule *rule, const mbx_summary *s)
{
    if (rule == NULL || s == NULL)
        return NAN;
    switch (rule->kind) {
    case MBX_STOP_STDERR: return rel(s->stderr_, s->tmean);
    case MBX_STOP_CV: return rel(s->stddev, s->mean);
    case MBX_STOP_CI:
        /* The [min, max] fallback is not a 95 % interval; showing its width
         * would suggest a precision the data cannot support. */
        return s->ci_exact ? rel((s->ci_hi - s->ci_lo) / 2.0, s->median) : NAN;
    case MBX_STOP_FIXED: return rule->fixed > 0 ? (double)s->n / (double)rule->fixed : NAN;
    }
    return NAN;
}

/* NAN comparisons are false, so an undefined ratio never meets a rule. */
static int rule_met(const mbx_stop_rule *rule, const mbx_summary *s, double tick)
{
    switch (rule->kind) {
    case MBX_STOP_STDERR:
        /* SKaMPI's resolution guard: the total time must dwarf one timer
         * tick, or a tiny stderr only reflects quantized readings. */
        return s->sum >= tick / rule->eps && rel(s->stderr_, s->tmean) < rule->eps;
    case MBX_STOP_CV: return rel(s->stddev, s->mean) < rule->eps;
    case MBX_STOP_CI: return s->ci_exact && rel((s->ci_hi - s->ci_lo) / 2.0, s->median) < rule->eps;
    case MBX_STOP_FIXED: return s->n >= rule->fixed;
    }
    return 0;
}

mbx_stop_verdict mbx_stop_eval(const mbx_stop_rule *rule, const mbx_summary *s, double tick,
                               size_t n_min, size_t n_max)
{
    /* Without a rule or data there is nothing to wait for; stopping as
     * UNSETTLED cannot loop forever the way GO_ON could. */
    if (rule == NULL || s == NULL)
        return MBX_STOP_AT_NMAX;
    if (rule->kind == MBX_STOP_FIXED)
        return s->n >= rule->fixed ? MBX_STOP_MET : MBX_STOP_GO_ON;
    if (s->n >= n_min && rule_met(rule, s, tick))
        return MBX_STOP_MET;
    return s->n >= n_max ? MBX_STOP_AT_NMAX : MBX_STOP_GO_ON;
}
