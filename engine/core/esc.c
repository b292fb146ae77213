/* Escaping for each sink (see mbx/esc.h). One scanner splits the input into
 * units (an ASCII byte, a valid UTF-8 sequence, or one byte that is neither)
 * and each sink says what a unit becomes; the bytes that no sink may pass
 * on raw are decided in one place (unshowable), so the sinks cannot drift
 * apart. */
#include "mbx/esc.h"

#include <stdio.h>
#include <string.h>

typedef enum sink { SINK_TERM, SINK_HTML, SINK_MD, SINK_GNUPLOT } sink;

typedef struct out {
    char *buf;
    size_t len, pos;
    size_t keep; /* bytes kept free for the end (the closing quote) */
    int full;
} out;

/* Append n bytes as a whole, or nothing and mark the output full. */
static void put(out *o, const char *s, size_t n)
{
    if (o->full || o->pos + n + o->keep + 1 > o->len) {
        o->full = 1;
        return;
    }
    memcpy(o->buf + o->pos, s, n);
    o->pos += n;
}

static void put_hex(out *o, const char *pre, const unsigned char *b, size_t n)
{
    char tmp[48];
    size_t used = 0;
    for (size_t i = 0; i < n; i++)
        used += (size_t)snprintf(tmp + used, sizeof tmp - used, "%s\\x%02x", pre, b[i]);
    put(o, tmp, used);
}

/* Length of the valid UTF-8 sequence at p (shortest form, no surrogates,
 * at most U+10FFFF) and its code point, or 0 when p[0] starts none. */
static size_t utf8_len(const unsigned char *p, unsigned long *cp)
{
    unsigned char c = p[0];
    size_t n;
    unsigned long v, min;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, v = c & 0x1f, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, v = c & 0x0f, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, v = c & 0x07, min = 0x10000;
    else
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80) /* also stops at the NUL */
            return 0;
        v = v << 6 | (p[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return n;
}

/* Code points that change what a terminal or a renderer shows around them:
 * the C1 controls (CSI is U+009B) and the bidirectional overrides. */
static int unshowable_cp(unsigned long cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

static void put_ascii(out *o, sink k, unsigned char c)
{
    char ch = (char)c;
    switch (k) {
    case SINK_TERM: put(o, &ch, 1); return;
    case SINK_HTML:
        switch (c) {
        case '&': put(o, "&amp;", 5); return;
        case '<': put(o, "&lt;", 4); return;
        case '>': put(o, "&gt;", 4); return;
        case '"': put(o, "&quot;", 6); return;
        case '\'': put(o, "&#39;", 5); return;
        default: put(o, &ch, 1); return;
        }
    case SINK_MD:
        if (strchr("\\`*_[]<>|#!{}&", c) != NULL) {
            char two[2] = {'\\', ch};
            put(o, two, 2);
        } else {
            put(o, &ch, 1);
        }
        return;
    case SINK_GNUPLOT:
        /* Not '' (gnuplot 5.4 misreads '''x' and 'a''''b'): close the
         * literal, join a double-quoted quote, open it again. The quote
         * is written \047: gnuplot's macro scanner, which runs before its
         * parser, toggles its single-quote flag on a ' inside double
         * quotes too, and would expand an @name later on the line. */
        if (c == '\'')
            put(o, "'.\"\\047\".'", 10);
        else
            put(o, &ch, 1);
        return;
    }
}

static mbx_status esc(sink k, const char *s, char *buf, size_t len)
{
    out o = {.buf = buf, .len = len, .keep = k == SINK_GNUPLOT};
    /* A backslash starts each escape; Markdown needs it doubled to show. */
    const char *pre = k == SINK_MD ? "\\" : "";
    if (len < (k == SINK_GNUPLOT ? 3u : 1u)) {
        if (len > 0)
            buf[0] = '\0';
        return MBX_E_RANGE;
    }
    if (s == NULL)
        s = "";
    if (k == SINK_GNUPLOT)
        put(&o, "'", 1);
    const unsigned char *p = (const unsigned char *)s;
    while (*p != '\0' && !o.full) {
        unsigned long cp = 0;
        size_t n = *p < 0x80 ? 1 : utf8_len(p, &cp);
        if (n == 0) { /* a byte that starts no valid UTF-8 */
            put_hex(&o, pre, p, 1);
            p++;
        } else if (n == 1 && (*p < 0x20 || *p == 0x7f)) {
            if (k == SINK_HTML && *p == '\t')
                put(&o, (const char *)p, 1);
            else
                put_hex(&o, pre, p, 1);
            p++;
        } else if (n == 1) {
            put_ascii(&o, k, *p++);
        } else if (unshowable_cp(cp)) {
            char tmp[16];
            if (cp <= 0x9f)
                put_hex(&o, pre, p, n);
            else
                put(&o, tmp, (size_t)snprintf(tmp, sizeof tmp, "%s\\u%04lx", pre, cp));
            p += n;
        } else {
            put(&o, (const char *)p, n);
            p += n;
        }
    }
    int cut = o.full || *p != '\0';
    if (k == SINK_GNUPLOT) {
        o.keep = 0;
        o.full = 0;
        put(&o, "'", 1);
    }
    buf[o.pos] = '\0';
    return cut ? MBX_E_RANGE : MBX_OK;
}

mbx_status mbx_esc_term(const char *s, char *out, size_t len)
{
    return esc(SINK_TERM, s, out, len);
}

mbx_status mbx_esc_html(const char *s, char *out, size_t len)
{
    return esc(SINK_HTML, s, out, len);
}

mbx_status mbx_esc_md(const char *s, char *out, size_t len)
{
    return esc(SINK_MD, s, out, len);
}

mbx_status mbx_esc_gnuplot(const char *s, char *out, size_t len)
{
    return esc(SINK_GNUPLOT, s, out, len);
}
