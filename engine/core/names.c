/* Names typed by users against known ones (mbx/names.h): edit distance,
 * globs, and the benchmark selection of --bench, `bench =` and `list`. */
#include "mbx/names.h"

#include <stdio.h>
#include <string.h>

size_t mbx_edit_distance(const char *a, size_t na, const char *b, size_t nb)
{
    size_t row[64];
    if (na > 63 || nb > 63)
        return (size_t)-1;
    for (size_t j = 0; j <= nb; j++)
        row[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[nb];
}

int mbx_is_typo(size_t d, size_t letters)
{
    return d > 0 && d <= 2 && 2 * d < letters;
}

const char *mbx_name_suggest(const char *const *names, size_t n, const char *word, size_t nword)
{
    size_t best = 3;
    const char *hit = NULL;
    for (size_t k = 0; k < n && nword > 0; k++) {
        if (names[k] == NULL)
            continue;
        size_t nn = strlen(names[k]), letters = nn - strspn(names[k], "-");
        size_t d = mbx_edit_distance(word, nword, names[k], nn);
        if (mbx_is_typo(d, letters) && d < best) {
            best = d;
            hit = names[k];
        }
    }
    return hit;
}

int mbx_name_is_glob(const char *word)
{
    return strpbrk(word, "*?[") != NULL;
}

/* One bracket set at p ("[...]", p after '['): whether c is in it; *end
 * is past the ']' (an unclosed '[' matches itself: *end = NULL). */
static int in_set(const char *p, char c, const char **end)
{
    int neg = *p == '!', hit = 0;
    p += neg;
    const char *start = p;
    for (; *p && (*p != ']' || p == start); p++) {
        if (p[1] == '-' && p[2] && p[2] != ']') {
            hit |= c >= p[0] && c <= p[2];
            p += 2;
        } else {
            hit |= c == *p;
        }
    }
    *end = *p == ']' ? p + 1 : NULL;
    return hit != neg;
}

int mbx_name_glob(const char *pattern, const char *name)
{
    const char *p = pattern, *s = name, *star = NULL, *retry = NULL;
    while (*s) {
        const char *next = NULL;
        int ok = 0;
        if (*p == '*') {
            star = ++p;
            retry = s;
            continue;
        }
        if (*p == '?') {
            ok = 1;
            next = p + 1;
        } else if (*p == '[') {
            ok = in_set(p + 1, *s, &next);
            if (next == NULL) { /* an unclosed '[' is itself */
                ok = *s == '[';
                next = p + 1;
            }
        } else if (*p) {
            ok = *p == *s;
            next = p + 1;
        }
        if (ok) {
            p = next;
            s++;
        } else if (star) {
            p = star;
            s = ++retry;
        } else {
            return 0;
        }
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}

/* The groups of names (each name's part before its first '.'), distinct,
 * in the list's order, into g[0..cap) as NUL-terminated words. */
#define GROUPS_MAX 64
static size_t groups_of(const char *const *names, size_t n, char g[][64], const char **gp)
{
    size_t ng = 0;
    for (size_t k = 0; k < n && ng < GROUPS_MAX; k++) {
        size_t len = strcspn(names[k], ".");
        if (names[k][len] != '.' || len > 63)
            continue;
        size_t j = 0;
        while (j < ng && !(strlen(g[j]) == len && strncmp(g[j], names[k], len) == 0))
            j++;
        if (j == ng) {
            snprintf(g[ng], 64, "%.*s", (int)len, names[k]);
            gp[ng] = g[ng];
            ng++;
        }
    }
    return ng;
}

/* The suggestion for an item that names nothing: a name or a group near
 * a plain word; for a glob "PREFIX.REST", a group near PREFIX, as
 * "GROUP.REST". */
static void suggest(const char *const *names, size_t n, const char *item, mbx_select_why *why)
{
    char g[GROUPS_MAX][64];
    const char *gp[GROUPS_MAX];
    size_t ng = groups_of(names, n, g, gp);
    size_t dot = strcspn(item, ".");
    const char *hit = NULL;
    why->suggest[0] = '\0';
    if (!mbx_name_is_glob(item)) {
        hit = mbx_name_suggest(names, n, item, strlen(item));
        if (hit == NULL)
            hit = mbx_name_suggest(gp, ng, item, strlen(item));
        if (hit != NULL)
            snprintf(why->suggest, sizeof why->suggest, "%s", hit);
        return;
    }
    if (item[dot] == '.' && strpbrk(item, "*?[") > item + dot &&
        (hit = mbx_name_suggest(gp, ng, item, dot)) != NULL)
        snprintf(why->suggest, sizeof why->suggest, "%s%s", hit, item + dot);
}

/* Add id to ids unless it is there; -1 when ids is full. */
static int add(int *ids, size_t cap, size_t *nout, int id)
{
    for (size_t k = 0; k < *nout; k++)
        if (ids[k] == id)
            return 0;
    if (*nout == cap)
        return -1;
    ids[(*nout)++] = id;
    return 0;
}

int mbx_name_select(const char *const *names, size_t n, const char *const *items, size_t nitems,
                    int *ids, size_t cap, size_t *nout, mbx_select_why *why)
{
    *nout = 0;
    for (size_t i = 0; i < nitems; i++) {
        const char *item = items[i];
        size_t len = strlen(item), hits = 0, exact = 0;
        int glob = mbx_name_is_glob(item);
        for (size_t k = 0; k < n && !glob && !exact; k++)
            exact = strcmp(names[k], item) == 0;
        for (size_t k = 0; k < n; k++) {
            int take = glob    ? mbx_name_glob(item, names[k])
                       : exact ? strcmp(names[k], item) == 0
                               : strncmp(names[k], item, len) == 0 && names[k][len] == '.';
            if (!take)
                continue;
            hits++;
            if (add(ids, cap, nout, (int)k) < 0) {
                snprintf(why->what, sizeof why->what,
                         "too many benchmarks: '%s' brings the selection past %zu", item, cap);
                why->suggest[0] = '\0';
                return -1;
            }
        }
        if (hits == 0) {
            if (glob)
                snprintf(why->what, sizeof why->what, "'%s' matches no benchmark", item);
            else
                snprintf(why->what, sizeof why->what, "unknown benchmark '%s'", item);
            suggest(names, n, item, why);
            return -1;
        }
    }
    return 0;
}
