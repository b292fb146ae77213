/* Guidelines (mbx/guideline.h): the catalogue's parser, and a rule's
 * verdict at one point from two samples. */
#include "mbx/guideline.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/compare.h"
#include "mbx/wilcoxon.h"
#include "msg.h"
#include "plan_int.h"

#define GL_FILE_MAX ((size_t)1 << 20)

static const char name_chars[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";

/* "coll.bcast" or "coll.bcast@2x" into s; 0, or -1 with why. */
static int parse_side(char *t, mbx_gl_side *s, char *why, size_t len)
{
    t = mbx_plan_trim(t);
    char *at = strchr(t, '@');
    s->factor = 1;
    if (at) {
        *at = '\0';
        char *end = NULL;
        errno = 0;
        long f = strtol(at + 1, &end, 10);
        if (errno || end == at + 1 || strcmp(end, "x") != 0 || f < 2 || f > MBX_GL_FACTOR_MAX) {
            snprintf(why, len, "'@%s': a size factor is @Nx, N in 2..%d (coll.bcast@2x)", at + 1,
                     MBX_GL_FACTOR_MAX);
            return -1;
        }
        s->factor = (int)f;
    }
    t = mbx_plan_trim(t);
    size_t n = strlen(t);
    if (n == 0 || n >= sizeof s->bench || strspn(t, name_chars) != n || !strchr(t, '.')) {
        snprintf(why, len,
                 "'%s': expected a benchmark's name (coll.allreduce), at most %d characters", t,
                 (int)sizeof s->bench - 1);
        return -1;
    }
    memcpy(s->bench, t, n + 1);
    return 0;
}

/* "LEFT <= RIGHT" into r; 0, or -1 with why. */
static int parse_holds(char *v, mbx_gl_rule *r, char *why, size_t len)
{
    char *le = strstr(v, "<=");
    if (!le || strstr(le + 2, "<=")) {
        snprintf(why, len,
                 "expected LEFT <= RIGHT, two benchmarks (coll.allreduce <= "
                 "mock.reduce_bcast)");
        return -1;
    }
    *le = '\0';
    if (parse_side(v, &r->lhs, why, len) < 0 || parse_side(le + 2, &r->rhs, why, len) < 0)
        return -1;
    return 0;
}

struct gl_parse {
    const char *name;
    mbx_gl_catalogue *cat;
    mbx_gl_rule *cur;
    int holds_line, what_line;
};

static int gl_section(struct gl_parse *st, char *s, int lineno, char *msg, size_t msglen)
{
    size_t len = strlen(s);
    if (s[len - 1] != ']') {
        mbx_msgf(msg, msglen, "%s:%d: expected a section header like [rule.name]", st->name,
                 lineno);
        return MBX_E_INVAL;
    }
    s[len - 1] = '\0';
    char *label = mbx_plan_trim(s + 1);
    size_t n = strlen(label);
    if (n == 0 || n >= MBX_GL_NAME_MAX || strspn(label, name_chars) != n) {
        mbx_msgf(msg, msglen,
                 "%s:%d: bad rule name [%.*s]; expected 1..%d characters: letters, digits, . _ -",
                 st->name, lineno, MBX_GL_NAME_MAX, label, MBX_GL_NAME_MAX - 1);
        return MBX_E_INVAL;
    }
    for (size_t i = 0; i < st->cat->n; i++)
        if (strcmp(st->cat->rule[i].name, label) == 0) {
            mbx_msgf(msg, msglen, "%s:%d: duplicate rule [%s] (first at line %d)", st->name, lineno,
                     label, st->cat->rule[i].line);
            return MBX_E_INVAL;
        }
    if (st->cat->n == MBX_GL_RULES_MAX) {
        mbx_msgf(msg, msglen, "%s:%d: too many rules; at most %d", st->name, lineno,
                 MBX_GL_RULES_MAX);
        return MBX_E_INVAL;
    }
    st->cur = &st->cat->rule[st->cat->n++];
    memset(st->cur, 0, sizeof *st->cur);
    memcpy(st->cur->name, label, n + 1);
    st->cur->line = lineno;
    st->holds_line = st->what_line = 0;
    return MBX_OK;
}

static int gl_key(struct gl_parse *st, char *s, int lineno, char *msg, size_t msglen)
{
    char *eq = strchr(s, '=');
    /* "a <= b" has a '=' of its own: the key ends at the first one. */
    if (!eq) {
        mbx_msgf(msg, msglen, "%s:%d: expected key = value, a [rule] header or a # comment",
                 st->name, lineno);
        return MBX_E_INVAL;
    }
    *eq = '\0';
    char *key = mbx_plan_trim(s), *value = mbx_plan_trim(eq + 1);
    int holds = strcmp(key, "holds") == 0, what = strcmp(key, "what") == 0;
    if (!holds && !what) {
        mbx_msgf(msg, msglen,
                 "%s:%d: %s: unknown key (a rule has holds = LEFT <= RIGHT and what "
                 "= a sentence)",
                 st->name, lineno, key);
        return MBX_E_UNKNOWN;
    }
    if (!st->cur) {
        mbx_msgf(msg, msglen, "%s:%d: %s: key outside a rule; start one with [name]", st->name,
                 lineno, key);
        return MBX_E_INVAL;
    }
    int *seen = holds ? &st->holds_line : &st->what_line;
    if (*seen) {
        mbx_msgf(msg, msglen, "%s:%d: %s: duplicate key in [%s] (first at line %d)", st->name,
                 lineno, key, st->cur->name, *seen);
        return MBX_E_INVAL;
    }
    *seen = lineno;
    if (what) {
        if (strlen(value) >= sizeof st->cur->what) {
            mbx_msgf(msg, msglen, "%s:%d: what: at most %d characters", st->name, lineno,
                     (int)sizeof st->cur->what - 1);
            return MBX_E_INVAL;
        }
        strcpy(st->cur->what, value);
        return MBX_OK;
    }
    char why[160];
    if (parse_holds(value, st->cur, why, sizeof why) < 0) {
        mbx_msgf(msg, msglen, "%s:%d: holds: %s", st->name, lineno, why);
        return MBX_E_INVAL;
    }
    return MBX_OK;
}

static int gl_close(struct gl_parse *st, char *msg, size_t msglen)
{
    if (st->cur && !st->holds_line) {
        mbx_msgf(msg, msglen, "%s:%d: [%s]: no holds = LEFT <= RIGHT", st->name, st->cur->line,
                 st->cur->name);
        return MBX_E_INVAL;
    }
    return MBX_OK;
}

int mbx_gl_parse(const char *text, const char *name, mbx_gl_catalogue *out, char *msg,
                 size_t msglen)
{
    name = name ? name : "guidelines";
    if (!text || !out) {
        mbx_msgf(msg, msglen, "%s: no catalogue given", name);
        return MBX_E_INVAL;
    }
    if (strncmp(text, "\xEF\xBB\xBF", 3) == 0) /* a UTF-8 byte-order mark */
        text += 3;
    char *buf = strdup(text);
    if (!buf) {
        mbx_msgf(msg, msglen, "%s: out of memory", name);
        return MBX_E_NOMEM;
    }
    struct gl_parse st = {.name = name, .cat = out};
    out->n = 0;
    int rc = MBX_OK, lineno = 0;
    for (char *line = buf; line && rc == MBX_OK;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        char *s = mbx_plan_trim(line);
        if (*s == '[') {
            rc = gl_close(&st, msg, msglen);
            if (rc == MBX_OK)
                rc = gl_section(&st, s, lineno, msg, msglen);
        } else if (*s && *s != '#' && *s != ';') {
            rc = gl_key(&st, s, lineno, msg, msglen);
        }
        line = nl ? nl + 1 : NULL;
    }
    if (rc == MBX_OK)
        rc = gl_close(&st, msg, msglen);
    if (rc == MBX_OK && out->n == 0) {
        mbx_msgf(msg, msglen, "%s: no rules; add a [name] section with holds = LEFT <= RIGHT",
                 name);
        rc = MBX_E_INVAL;
    }
    free(buf);
    return rc;
}

int mbx_gl_load(const char *path, mbx_gl_catalogue *out, char *msg, size_t msglen)
{
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f) {
        mbx_msgf(msg, msglen, "cannot read guidelines %s: %s", path ? path : "(none)",
                 strerror(path ? errno : EINVAL));
        return MBX_E_IO;
    }
    char *buf = malloc(GL_FILE_MAX + 2);
    if (!buf) {
        fclose(f);
        mbx_msgf(msg, msglen, "cannot read guidelines %s: out of memory", path);
        return MBX_E_NOMEM;
    }
    size_t n = fread(buf, 1, GL_FILE_MAX + 1, f);
    int rc;
    if (ferror(f)) {
        mbx_msgf(msg, msglen, "cannot read guidelines %s: %s", path, strerror(errno));
        rc = MBX_E_IO;
    } else if (n > GL_FILE_MAX) {
        mbx_msgf(msg, msglen, "guidelines %s is larger than 1 MiB; is it really a catalogue?",
                 path);
        rc = MBX_E_INVAL;
    } else if (memchr(buf, '\0', n)) {
        mbx_msgf(msg, msglen, "guidelines %s contains a NUL byte; expected a text file", path);
        rc = MBX_E_INVAL;
    } else {
        buf[n] = '\0';
        rc = mbx_gl_parse(buf, path, out, msg, msglen);
    }
    free(buf);
    fclose(f);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(const double *v, size_t n)
{
    double *s = malloc(n * sizeof *s);
    if (!s)
        return NAN;
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
    free(s);
    return m;
}

int mbx_gl_test(const double *lhs, size_t nl, const double *rhs, size_t nr, mbx_gl_judgement *out)
{
    if (!out || (!lhs && nl) || (!rhs && nr))
        return MBX_E_INVAL;
    *out = (mbx_gl_judgement){.n_lhs = nl,
                              .n_rhs = nr,
                              .med_lhs = NAN,
                              .med_rhs = NAN,
                              .ratio = NAN,
                              .lo = NAN,
                              .hi = NAN,
                              .p = NAN,
                              .q = NAN,
                              .verdict = MBX_GL_NONE};
    if (nl < 2 || nr < 2)
        return MBX_OK;
    out->med_lhs = median_of(lhs, nl);
    out->med_rhs = median_of(rhs, nr);
    if (isnan(out->med_lhs) || isnan(out->med_rhs))
        return MBX_E_NOMEM;
    mbx_wilcoxon w;
    int rc = mbx_wilcoxon_test(rhs, nr, lhs, nl, &w);
    if (rc < 0)
        return rc;
    /* B/A with A the right side: the left over the right. */
    mbx_cmp_point pt;
    memset(&pt, 0, sizeof pt);
    rc = mbx_compare_shift(rhs, nr, lhs, nl, MBX_COMPARE_DELTA_DEFAULT, &pt);
    if (rc < 0)
        return rc;
    out->p = w.p_two_sided;
    out->ratio = pt.hl_ratio;
    /* No interval reaches 95 % with too few values (it is then the whole
     * line, 0 to infinity): none, not a bound. */
    int ci = pt.hl_conf >= 0.95 && pt.hl_lo > 0 && isfinite(pt.hl_hi);
    out->lo = ci ? pt.hl_lo : NAN;
    out->hi = ci ? pt.hl_hi : NAN;
    out->verdict = MBX_GL_UNCLEAR;
    return MBX_OK;
}

int mbx_gl_decide(mbx_gl_judgement *j, size_t n, double tol, double alpha)
{
    if ((!j && n) || !(tol >= 0 && tol <= MBX_GL_TOL_MAX) || !(alpha > 0 && alpha < 1))
        return MBX_E_INVAL;
    double *p = malloc((n ? n : 1) * sizeof *p), *q = malloc((n ? n : 1) * sizeof *q);
    size_t *at = malloc((n ? n : 1) * sizeof *at), m = 0;
    int rc = p && q && at ? MBX_OK : MBX_E_NOMEM;
    for (size_t i = 0; rc == MBX_OK && i < n; i++)
        if (j[i].verdict != MBX_GL_NONE && j[i].p >= 0 && j[i].p <= 1) {
            p[m] = j[i].p;
            at[m++] = i;
        }
    if (rc == MBX_OK && m)
        rc = mbx_compare_bh(p, m, q);
    for (size_t k = 0; rc == MBX_OK && k < m; k++) {
        mbx_gl_judgement *x = &j[at[k]];
        x->q = q[k];
        if (!isfinite(x->ratio))
            x->verdict = MBX_GL_NONE;
        else if (x->q < alpha && x->ratio > 1.0 + tol)
            x->verdict = MBX_GL_VIOLATED;
        else if (isfinite(x->hi) && x->hi <= 1.0 + tol)
            x->verdict = MBX_GL_HOLDS;
        else
            x->verdict = MBX_GL_UNCLEAR;
    }
    free(p);
    free(q);
    free(at);
    return rc;
}

const char *mbx_gl_verdict_word(mbx_gl_verdict v)
{
    switch (v) {
    case MBX_GL_HOLDS: return "holds";
    case MBX_GL_VIOLATED: return "violated";
    case MBX_GL_UNCLEAR: return "not_distinguishable";
    default: return "none";
    }
}
