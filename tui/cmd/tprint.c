/* Every line of the offline commands that can echo a field or a file name
 * goes through here, so the terminal escaping is decided once
 * (mbx_esc_term) rather than at each print site. */
#include "tprint.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mbx/esc.h"

const char *mbx_tesc(const char *s, char *buf, size_t len)
{
    mbx_status st = mbx_esc_term(s, buf, len); /* a cut value is still safe to show */
    (void)st;
    return buf;
}

int mbx_vtprintf(FILE *f, const char *fmt, va_list ap)
{
    char small[1024], *text = small, *esc = NULL;
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(small, sizeof small, fmt, cp);
    va_end(cp);
    if (n < 0)
        return -1;
    if ((size_t)n >= sizeof small) {
        if ((text = malloc((size_t)n + 1)) == NULL)
            return -1;
        vsnprintf(text, (size_t)n + 1, fmt, ap);
    }
    int nl = n > 0 && text[n - 1] == '\n';
    if (nl)
        text[n - 1] = '\0';
    size_t len = MBX_ESC_MAX((size_t)n);
    int rc = -1;
    if ((esc = malloc(len)) != NULL) {
        mbx_status st = mbx_esc_term(text, esc, len); /* len always suffices */
        (void)st;
        size_t m = strlen(esc);
        if (fwrite(esc, 1, m, f) == m && (!nl || fputc('\n', f) != EOF))
            rc = (int)(m + (size_t)nl);
    }
    free(esc);
    if (text != small)
        free(text);
    return rc;
}

int mbx_tprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = mbx_vtprintf(f, fmt, ap);
    va_end(ap);
    return rc;
}

void mbx_tprint_line(const char *prefix, const char *line)
{
    mbx_tprintf(stderr, "%s%s\n", prefix, line);
}

FILE *mbx_tbuf_open(mbx_tbuf *t, FILE *out)
{
    *t = (mbx_tbuf){.out = out};
    if (!isatty(fileno(out)))
        return out;
    t->mem = open_memstream(&t->buf, &t->len);
    return t->mem;
}

int mbx_tbuf_close(mbx_tbuf *t)
{
    if (t->mem == NULL)
        return 0;
    int rc = fclose(t->mem) == 0 ? 0 : -1;
    t->mem = NULL;
    for (char *line = t->buf, *end; rc == 0 && line != NULL && *line != '\0'; line = end) {
        char *nl = strchr(line, '\n');
        end = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        if (mbx_tprintf(t->out, nl ? "%s\n" : "%s", line) < 0)
            rc = -1;
    }
    free(t->buf);
    t->buf = NULL;
    return rc;
}
