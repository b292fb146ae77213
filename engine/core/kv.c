#include "mbx/kv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/ascii.h"
#include "mbx/grow.h"

/* Flatten line breaks: sidecar files are one fact per row. */
static char *one_line(const char *s)
{
    size_t extra = 0;
    for (const char *p = s; *p; p++)
        if (*p == '\n' || *p == '\r')
            extra += 2;
    char *out = malloc(strlen(s) + extra + 1), *q = out;
    if (!out)
        return NULL;
    for (const char *p = s; *p; p++) {
        if (*p == '\r')
            continue;
        if (*p == '\n') {
            if (p[1] == '\0')
                break;
            memcpy(q, " | ", 3);
            q += 3;
        } else {
            *q++ = *p;
        }
    }
    *q = '\0';
    /* Drop trailing blanks and separators left by a final line break. */
    while (q > out && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '|'))
        *--q = '\0';
    return out;
}

int mbx_kv_addf(mbx_kvlist *l, const char *key, const char *fmt, ...)
{
    if (!l || !key || !fmt)
        return MBX_E_INVAL;
    if (mbx_grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v) != MBX_OK)
        return MBX_E_NOMEM;
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int len = mbx_vsnprintf_c(NULL, 0, fmt, ap);
    va_end(ap);
    if (len < 0) {
        va_end(ap2);
        return MBX_E_INVAL;
    }
    char *raw = malloc((size_t)len + 1);
    if (!raw) {
        va_end(ap2);
        return MBX_E_NOMEM;
    }
    mbx_vsnprintf_c(raw, (size_t)len + 1, fmt, ap2);
    va_end(ap2);
    char *val = one_line(raw);
    free(raw);
    char *k = strdup(key);
    if (!val || !k) {
        free(val);
        free(k);
        return MBX_E_NOMEM;
    }
    l->v[l->n].key = k;
    l->v[l->n].value = val;
    l->n++;
    return MBX_OK;
}

const char *mbx_kv_get(const mbx_kvlist *l, const char *key)
{
    for (size_t i = 0; l && i < l->n; i++)
        if (strcmp(l->v[i].key, key) == 0)
            return l->v[i].value;
    return NULL;
}

void mbx_kv_free(mbx_kvlist *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].key);
        free(l->v[i].value);
    }
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}
