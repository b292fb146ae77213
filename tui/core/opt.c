/* The options parser (opt.h): matching a word against a command's table,
 * taking the value, the bad-input line, and the nearest option name. */
#include "opt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/names.h"

int mbx_opt_vbad(const mbx_opt_out *out, const char *fmt, va_list ap)
{
    char line[2048];
    vsnprintf(line, sizeof line, fmt, ap);
    if (out->msg != NULL && out->len > 0)
        snprintf(out->msg, out->len, "%s", line);
    if (out->print != NULL)
        out->print(out->prefix ? out->prefix : "", line);
    return 2;
}

int mbx_opt_whole(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int mbx_opt_bad(const mbx_opt_out *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = mbx_opt_vbad(out, fmt, ap);
    va_end(ap);
    return rc;
}

/* The entry word a names, the name it was given by, and a value attached
 * to it ("=VALUE" or glued; else *val stays NULL). */
static const mbx_opt *match(const mbx_opt_parser *p, const char *a, const char **name,
                            const char **val)
{
    for (size_t k = 0; k < p->nopts; k++) {
        const mbx_opt *o = &p->opts[k];
        int fl = o->flags | p->flags;
        size_t n = o->name ? strlen(o->name) : 0;
        if (o->name && strncmp(a, o->name, n) == 0 &&
            (a[n] == '\0' ||
             (a[n] == '=' && (fl & (MBX_OPT_EQ | MBX_OPT_OPTIONAL)) && o->arg != NULL))) {
            *name = o->name;
            *val = a[n] == '=' ? a + n + 1 : NULL;
            return o;
        }
        n = o->alias ? strlen(o->alias) : 0;
        if (o->alias && strncmp(a, o->alias, n) == 0 &&
            (a[n] == '\0' || ((fl & MBX_OPT_GLUED) && o->arg != NULL))) {
            *name = o->alias;
            *val = a[n] != '\0' ? a + n : NULL;
            return o;
        }
    }
    return NULL;
}

/* An unknown option: the line naming mpibex's equivalent of an OSU or IMB
 * flag, or the command's line with "did you mean" when a name is near. */
static int unknown(const mbx_opt_parser *p, const char *a, const char *next)
{
    const mbx_opt_habit_row *h = mbx_opt_habit(a);
    if (h != NULL) {
        char hint[512];
        mbx_opt_habit_line(h, a, next, hint, sizeof hint);
        return mbx_opt_bad(&p->out, "%s", hint);
    }
    const char *near = mbx_opt_suggest(p->opts, p->nopts, a);
    char line[1024];
    snprintf(line, sizeof line, p->unknown, a);
    if (near == NULL)
        return mbx_opt_bad(&p->out, "%s", line);
    return mbx_opt_bad(&p->out, "%s; did you mean %s?", line, near);
}

/* One word at argv[*i] (and its value, the next word, if it takes one). */
static int take(mbx_opt_parser *p, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *name = NULL, *val = NULL;
    const mbx_opt *o = match(p, a, &name, &val);
    p->following = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (o == NULL) {
        int dash = a[0] == '-' && a[1] != '\0';
        if (p->operand != NULL && (!dash || p->pass_unknown))
            return p->operand(p, a);
        return dash ? unknown(p, a, p->following) : mbx_opt_bad(&p->out, p->unknown, a);
    }
    int fl = o->flags | p->flags;
    p->attached = val != NULL;
    if (o->arg != NULL && val == NULL && !(fl & MBX_OPT_OPTIONAL)) {
        val = *i + 1 < argc ? argv[++*i] : NULL;
        if (val == NULL && p->missing != NULL)
            return mbx_opt_bad(&p->out, p->missing, name);
    }
    if (val != NULL && val[0] == '\0' && (fl & MBX_OPT_NONEMPTY))
        return mbx_opt_bad(&p->out, p->empty ? p->empty : p->missing, name);
    if (o->fn != NULL)
        return o->fn(p, o, name, val);
    if (o->arg != NULL)
        *(const char **)(void *)((char *)p->dst + o->off) = val;
    else
        *(int *)(void *)((char *)p->dst + o->off) = 1;
    return 0;
}

int mbx_opt_help(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *val)
{
    (void)o, (void)name, (void)val;
    p->help = p->stop = 1;
    return 0;
}

int mbx_opt_output(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *val)
{
    const char **slot = (const char **)(void *)((char *)p->dst + o->off);
    if (val == NULL || *val == '\0')
        return mbx_opt_bad(&p->out, "%s: missing file name", name);
    if (*slot != NULL)
        return mbx_opt_bad(&p->out, "-o: only one output is allowed (got '%s' and '%s')", *slot,
                           val);
    *slot = val;
    return 0;
}

int mbx_opt_parse(mbx_opt_parser *p, int argc, char **argv, int first)
{
    int i, rc = 0, opts_on = 1;
    p->stop = 0;
    for (i = first; i < argc && rc == 0 && !p->stop; i++) {
        const char *a = argv[i];
        if (opts_on && (p->flags & (MBX_OPT_DASHDASH | MBX_OPT_STOP_DASHDASH)) &&
            strcmp(a, "--") == 0) {
            if (p->flags & MBX_OPT_STOP_DASHDASH) {
                i++;
                break;
            }
            opts_on = 0;
        } else if (opts_on) {
            rc = take(p, argc, argv, &i);
        } else {
            p->following = i + 1 < argc ? argv[i + 1] : NULL;
            rc = p->operand(p, a);
        }
    }
    p->next = i;
    return rc;
}

const char *mbx_opt_suggest(const mbx_opt *opts, size_t n, const char *word)
{
    size_t nw = strcspn(word, "="), best = 3;
    const char *hit = NULL;
    for (size_t k = 0; k < n && nw > 0; k++) {
        const char *name = opts[k].name;
        if (name == NULL)
            continue;
        size_t nn = strlen(name), letters = nn - strspn(name, "-");
        size_t d = mbx_edit_distance(word, nw, name, nn);
        if (mbx_is_typo(d, letters) && d < best) {
            best = d;
            hit = name;
        }
    }
    return hit;
}
