/* mpibex check's pure part: tolerances, the check file, the verdicts
 * (mbx/check.h; docs/user-guide.md, "Checking against a baseline"). */
#include "mbx/check.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/ascii.h"
#include "mbx/sizes.h"

const char mbx_check_tol_allowed[] =
    "a percentage 0%..100% (such as 5%) or microseconds 0us..1000000us (such as 2us)";

static void say(char *msg, size_t msglen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(char *msg, size_t msglen, const char *fmt, ...)
{
    if (!msg || msglen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
}

int mbx_check_tol_parse(const char *text, mbx_check_tol *out, char *msg, size_t msglen)
{
    const char *t = text ? text : "";
    char *end = NULL;
    errno = 0;
    double x = mbx_strtod(t, &end);
    int ok = end && end != t && errno == 0 && isfinite(x) && x >= 0;
    while (ok && *end == ' ')
        end++;
    mbx_check_tol v = {0};
    if (ok && strcmp(end, "%") == 0 && x <= 100 * MBX_CHECK_TOL_MAX_REL)
        v.value = x / 100;
    else if (ok && (strcmp(end, "us") == 0 || strcmp(end, "\xc2\xb5s") == 0) &&
             x <= MBX_CHECK_TOL_MAX_US)
        v = (mbx_check_tol){.value = x * 1e-6, .absolute = 1};
    else {
        say(msg, msglen, "expected %s, got '%s'", mbx_check_tol_allowed, *t ? t : "nothing");
        return MBX_E_INVAL;
    }
    *out = v;
    return MBX_OK;
}

int mbx_check_dir_parse(const char *text, mbx_check_dir *out, char *msg, size_t msglen)
{
    if (text && strcmp(text, "slower") == 0)
        *out = MBX_CHECK_DIR_SLOWER;
    else if (text && strcmp(text, "both") == 0)
        *out = MBX_CHECK_DIR_BOTH;
    else {
        say(msg, msglen, "expected slower or both, got '%s'", text && *text ? text : "nothing");
        return MBX_E_INVAL;
    }
    return MBX_OK;
}

void mbx_check_tol_text(const mbx_check_tol *t, char *buf, size_t len)
{
    if (t->absolute)
        mbx_snprintf_c(buf, len, "%g us", t->value * 1e6);
    else
        mbx_snprintf_c(buf, len, "%g %%", t->value * 100);
}

void mbx_check_rules_free(mbx_check_rules *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        free(r->v[i].bench);
    free(r->v);
    r->v = NULL;
    r->n = 0;
}

/* A new rule starting at line, matching everything and setting nothing. */
static int add_rule(mbx_check_rules *r, size_t line)
{
    mbx_check_rule *v = realloc(r->v, (r->n + 1) * sizeof *v);
    if (!v)
        return MBX_E_NOMEM;
    r->v = v;
    v[r->n++] = (mbx_check_rule){.max_bytes = UINT64_MAX, .line = line};
    return MBX_OK;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* sizes = MIN:MAX (inclusive) or one size. */
static int parse_sizes(const char *v, mbx_check_rule *rule, char *why, size_t len)
{
    char lo[64], hi[64];
    const char *colon = strchr(v, ':');
    size_t n = colon ? (size_t)(colon - v) : strlen(v);
    if (n >= sizeof lo || (colon && strlen(colon + 1) >= sizeof hi))
        goto bad;
    memcpy(lo, v, n);
    lo[n] = '\0';
    snprintf(hi, sizeof hi, "%s", colon ? colon + 1 : lo);
    if (mbx_size_parse(trim(lo), &rule->min_bytes, NULL, 0) < 0 ||
        mbx_size_parse(trim(hi), &rule->max_bytes, NULL, 0) < 0 ||
        rule->min_bytes > rule->max_bytes)
        goto bad;
    return MBX_OK;
bad:
    say(why, len,
        "expected a size or a range MIN:MAX with MIN <= MAX, 0..1TiB (such as 4K:64K), got '%s'",
        v);
    return MBX_E_INVAL;
}

/* bench = comma list of names or globs (spaces after the commas are
 * dropped); no empty entry. */
static int parse_bench(const char *v, mbx_check_rule *rule, char *why, size_t len)
{
    char *list = strdup(v);
    if (!list)
        return MBX_E_NOMEM;
    size_t n = 0;
    for (const char *c = v; *c; c++)
        if (*c != ' ' && *c != '\t')
            list[n++] = *c;
    list[n] = '\0';
    int ok = n > 0 && list[n - 1] != ',' && *list != ',' && !strstr(list, ",,");
    for (const char *c = list; ok && *c; c++)
        ok = *c > ' ' && *c < 0x7f; /* printable ASCII, no space */
    if (!ok) {
        free(list);
        say(why, len,
            "expected a comma list of benchmark names or globs (such as pingpong.*), got '%s'", v);
        return MBX_E_INVAL;
    }
    rule->bench = list;
    return MBX_OK;
}

static const char *const keys[] = {"bench", "sizes", "tolerance", "direction"};

/* key = value of the current rule; *seen marks the keys it set. */
static int set_key(mbx_check_rule *rule, unsigned *seen, const char *key, const char *v, char *why,
                   size_t len)
{
    size_t k = 0;
    while (k < 4 && strcmp(key, keys[k]) != 0)
        k++;
    if (k == 4) {
        say(why, len, "unknown key; allowed bench, sizes, tolerance, direction");
        return MBX_E_INVAL;
    }
    if (*seen & (1u << k)) {
        say(why, len,
            "given twice in one rule; allowed once (a new [section] starts another rule)");
        return MBX_E_INVAL;
    }
    *seen |= 1u << k;
    switch (k) {
    case 0: return parse_bench(v, rule, why, len);
    case 1: return parse_sizes(v, rule, why, len);
    case 2:
        return (rule->has_tol = mbx_check_tol_parse(v, &rule->tol, why, len) == MBX_OK)
                   ? 0
                   : MBX_E_INVAL;
    default:
        return (rule->has_dir = mbx_check_dir_parse(v, &rule->dir, why, len) == MBX_OK)
                   ? 0
                   : MBX_E_INVAL;
    }
}

/* One line of the file: a comment, a [section], or key = value. */
static int parse_line(char *s, size_t line, mbx_check_rules *out, unsigned *seen,
                      const char **field, char *why, size_t len)
{
    s = trim(s);
    if (*s == '\0' || *s == '#' || *s == ';')
        return MBX_OK;
    if (*s == '[') {
        *field = "section";
        size_t n = strlen(s);
        if (n < 3 || s[n - 1] != ']' || memchr(s + 1, ']', n - 2)) {
            say(why, len, "expected [NAME], got '%s'", s);
            return MBX_E_INVAL;
        }
        *seen = 0;
        return add_rule(out, line);
    }
    char *eq = strchr(s, '=');
    if (!eq) {
        *field = "line";
        say(why, len,
            "expected KEY = VALUE (keys bench, sizes, tolerance, direction), a [section] or a # "
            "comment, got '%s'",
            s);
        return MBX_E_INVAL;
    }
    *eq = '\0';
    char *key = trim(s), *v = trim(eq + 1);
    *field = key;
    return set_key(&out->v[out->n - 1], seen, key, v, why, len);
}

int mbx_check_rules_parse(const char *text, const char *name, mbx_check_rules *out, char *msg,
                          size_t msglen)
{
    *out = (mbx_check_rules){0};
    char *copy = strdup(text ? text : "");
    int rc = copy ? add_rule(out, 1) : MBX_E_NOMEM;
    unsigned seen = 0;
    size_t line = 1;
    for (char *s = copy, *nl; rc == MBX_OK && s; s = nl ? nl + 1 : NULL, line++) {
        if ((nl = strchr(s, '\n')) != NULL)
            *nl = '\0';
        char why[384] = "";
        const char *field = "line";
        rc = parse_line(s, line, out, &seen, &field, why, sizeof why);
        if (rc == MBX_E_INVAL) {
            char f[40];
            snprintf(f, sizeof f, "%.32s", field);
            say(msg, msglen, "%s:%zu: %s: %s", name, line, f, why);
        }
    }
    if (rc == MBX_E_NOMEM)
        say(msg, msglen, "%s: out of memory", name);
    free(copy);
    return rc;
}

int mbx_check_rules_load(const char *path, mbx_check_rules *out, char *msg, size_t msglen)
{
    *out = (mbx_check_rules){0};
    FILE *f = fopen(path, "r");
    if (!f) {
        say(msg, msglen, "cannot read '%s': %s", path, strerror(errno));
        return MBX_E_IO;
    }
    enum { CAP = 1 << 20 };
    char *buf = malloc(CAP + 1);
    size_t n = buf ? fread(buf, 1, CAP + 1, f) : 0;
    int err = ferror(f) ? errno : 0;
    fclose(f);
    int rc = MBX_OK;
    if (!buf) {
        say(msg, msglen, "%s: out of memory", path);
        rc = MBX_E_NOMEM;
    } else if (err) {
        say(msg, msglen, "cannot read '%s': %s", path, strerror(err));
        rc = MBX_E_IO;
    } else if (n > CAP || memchr(buf, '\0', n)) {
        say(msg, msglen, "%s: not a check file: %s; allowed a text file of at most 1 MiB", path,
            n > CAP ? "larger than 1 MiB" : "a NUL byte");
        rc = MBX_E_INVAL;
    } else {
        buf[n] = '\0';
        rc = mbx_check_rules_parse(buf, path, out, msg, msglen);
    }
    free(buf);
    return rc;
}

/* Whether bench matches one of the comma-separated globs of list; a
 * group name without a dot (pingpong) also matches its members. */
static int bench_matches(const char *list, const char *bench)
{
    for (const char *s = list; *s;) {
        size_t n = strcspn(s, ",");
        char g[256];
        if (n < sizeof g - 2) {
            memcpy(g, s, n);
            g[n] = '\0';
            if (fnmatch(g, bench, 0) == 0)
                return 1;
            if (!memchr(g, '.', n) && !strpbrk(g, "*?[")) {
                memcpy(g + n, ".*", 3);
                if (fnmatch(g, bench, 0) == 0)
                    return 1;
            }
        }
        s += n + (s[n] == ',');
    }
    return 0;
}

void mbx_check_rules_for(const mbx_check_rules *r, const char *bench, uint64_t bytes,
                         mbx_check_tol *tol, mbx_check_dir *dir)
{
    for (size_t i = 0; r && i < r->n; i++) {
        const mbx_check_rule *u = &r->v[i];
        if ((u->bench && !bench_matches(u->bench, bench)) || bytes < u->min_bytes ||
            bytes > u->max_bytes)
            continue;
        if (u->has_tol)
            *tol = u->tol;
        if (u->has_dir)
            *dir = u->dir;
    }
}

const char *mbx_check_verdict_word(mbx_check_verdict v)
{
    switch (v) {
    case MBX_CHECK_EQUIVALENT: return "equivalent";
    case MBX_CHECK_SLOWER: return "slower";
    case MBX_CHECK_FASTER: return "faster";
    default: return "undecided";
    }
}

/* The CI as the quantity the tolerance is in: a ratio less 1, or a shift
 * in seconds; and the band [-down, up] that is within tolerance. */
static int as_change(double lo, double hi, double base_s, const mbx_check_tol *tol, double *clo,
                     double *chi, double *down, double *up)
{
    if (!(isfinite(lo) && isfinite(hi) && lo > 0 && hi >= lo))
        return 0;
    if (tol->absolute) {
        if (!(isfinite(base_s) && base_s > 0))
            return 0;
        *clo = (lo - 1) * base_s;
        *chi = (hi - 1) * base_s;
        *down = *up = tol->value;
    } else {
        *clo = lo - 1;
        *chi = hi - 1;
        *up = tol->value;
        *down = 1 - 1 / (1 + tol->value); /* 1/(1+tol): the same factor faster */
    }
    return 1;
}

mbx_check_verdict mbx_check_judge(double lo, double hi, double base_s, const mbx_check_tol *tol)
{
    double clo, chi, down, up;
    if (!as_change(lo, hi, base_s, tol, &clo, &chi, &down, &up))
        return MBX_CHECK_UNDECIDED;
    if (clo > up)
        return MBX_CHECK_SLOWER;
    if (chi < -down)
        return MBX_CHECK_FASTER;
    if (clo >= -down && chi <= up)
        return MBX_CHECK_EQUIVALENT;
    return MBX_CHECK_UNDECIDED;
}

int mbx_check_fails(mbx_check_verdict v, mbx_check_dir dir)
{
    return v == MBX_CHECK_SLOWER || (v == MBX_CHECK_FASTER && dir == MBX_CHECK_DIR_BOTH);
}

int mbx_check_open(mbx_check_verdict v, double lo, double hi, double base_s,
                   const mbx_check_tol *tol, mbx_check_dir dir)
{
    double clo, chi, down, up;
    if (v != MBX_CHECK_UNDECIDED)
        return 0;
    if (!as_change(lo, hi, base_s, tol, &clo, &chi, &down, &up))
        return 1;
    return chi > up || (dir == MBX_CHECK_DIR_BOTH && clo < -down);
}
