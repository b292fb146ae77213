#include "mbx/sizes.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/ascii.h"
#include "msg.h"

#define SIZE_ALLOWED "sizes like 1, 64, 4K, 4KiB, 1M, 1MiB (binary multiples), up to 1TiB"
#define RANGE_ALLOWED "expected MIN:MAX[:FACTOR] or a list, " SIZE_ALLOWED
#define FACTOR_ALLOWED "FACTOR must be a number > 1 and <= 1024, or sqrt2"
#define SQRT2 1.41421356237309504880

/* Longest item worth copying: anything longer is garbage for sure, and a
 * fixed buffer keeps the parsers allocation-free. */
#define ITEM_MAX 64

/* Copy text[0..len) without surrounding whitespace into buf; 0 if it does
 * not fit. */
static int trimmed_copy(const char *text, size_t len, char *buf, size_t buflen)
{
    while (len > 0 && mbx_ascii_isspace((unsigned char)*text)) {
        text++;
        len--;
    }
    while (len > 0 && mbx_ascii_isspace((unsigned char)text[len - 1])) {
        len--;
    }
    if (len >= buflen) {
        return 0;
    }
    memcpy(buf, text, len);
    buf[len] = '\0';
    return 1;
}

static int suffix_shift(const char *s, unsigned *shift)
{
    static const struct {
        const char *name;
        unsigned shift;
    } table[] = {
        {"", 0},     {"b", 0},  {"k", 10},   {"kib", 10}, {"m", 20},
        {"mib", 20}, {"g", 30}, {"gib", 30}, {"t", 40},   {"tib", 40},
    };
    char low[8];
    size_t n = strlen(s);
    if (n >= sizeof low) {
        return 0;
    }
    for (size_t i = 0; i <= n; i++) {
        low[i] = (char)mbx_ascii_tolower((unsigned char)s[i]);
    }
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(low, table[i].name) == 0) {
            *shift = table[i].shift;
            return 1;
        }
    }
    return 0;
}

/* Parse one byte count; on error writes the reason alone into why, so
 * each caller can add the syntax it expects. */
static int size_parse(const char *text, uint64_t *out, char *why, size_t whylen)
{
    char buf[ITEM_MAX];
    if (!trimmed_copy(text, strlen(text), buf, sizeof buf)) {
        mbx_msgf(why, whylen, "size \"%.20s...\" is too long", text);
        return MBX_E_INVAL;
    }
    if (buf[0] == '\0') {
        mbx_msgf(why, whylen, "empty size");
        return MBX_E_INVAL;
    }
    if (buf[0] == '-') {
        mbx_msgf(why, whylen, "\"%s\": negative sizes are not allowed", buf);
        return MBX_E_INVAL;
    }
    const char *p = buf;
    uint64_t v = 0;
    while (mbx_ascii_isdigit((unsigned char)*p)) {
        /* Saturate once past the limit so huge digit strings cannot wrap. */
        if (v <= MBX_SIZE_MAX_BYTES) {
            v = v * 10 + (uint64_t)(*p - '0');
        }
        p++;
    }
    if (p == buf) {
        mbx_msgf(why, whylen, "\"%s\" is not a size", buf);
        return MBX_E_INVAL;
    }
    if (*p == '.' || *p == 'e' || *p == 'E') {
        mbx_msgf(why, whylen, "\"%s\": fractional sizes are not allowed", buf);
        return MBX_E_INVAL;
    }
    unsigned shift = 0;
    if (!suffix_shift(p, &shift)) {
        /* "4MB", "64kB": a decimal unit where mpibex's are binary. */
        if (strlen(p) == 2 && (p[1] == 'B' || p[1] == 'b') && strchr("kKmMgGtT", p[0]) != NULL)
            mbx_msgf(why, whylen, "\"%s\": unknown suffix \"%s\" (did you mean %.*s%ciB?)", buf, p,
                     (int)(p - buf), buf, mbx_ascii_toupper((unsigned char)p[0]));
        else
            mbx_msgf(why, whylen, "\"%s\": unknown suffix \"%s\"", buf, p);
        return MBX_E_INVAL;
    }
    if (v > (MBX_SIZE_MAX_BYTES >> shift)) {
        mbx_msgf(why, whylen, "\"%s\" is too large", buf);
        return MBX_E_INVAL;
    }
    *out = v << shift;
    return MBX_OK;
}

int mbx_size_parse(const char *text, uint64_t *out, char *msg, size_t msglen)
{
    char why[128];
    if (text == NULL || out == NULL) {
        mbx_msgf(msg, msglen, "no size given; expected " SIZE_ALLOWED);
        return MBX_E_INVAL;
    }
    if (size_parse(text, out, why, sizeof why) < 0) {
        mbx_msgf(msg, msglen, "%s; expected " SIZE_ALLOWED, why);
        return MBX_E_INVAL;
    }
    return MBX_OK;
}

static int parse_factor(const char *text, double *out, char *msg, size_t msglen)
{
    char buf[ITEM_MAX];
    if (!trimmed_copy(text, strlen(text), buf, sizeof buf) || buf[0] == '\0') {
        mbx_msgf(msg, msglen, "bad FACTOR; " FACTOR_ALLOWED);
        return MBX_E_INVAL;
    }
    size_t n = strlen(buf);
    char low[ITEM_MAX];
    for (size_t i = 0; i <= n; i++) {
        low[i] = (char)mbx_ascii_tolower((unsigned char)buf[i]);
    }
    if (strcmp(low, "sqrt2") == 0) {
        *out = SQRT2;
        return MBX_OK;
    }
    /* strtod alone would also take hex, inf and nan. */
    if (strspn(buf, "0123456789.") != n) {
        mbx_msgf(msg, msglen, "FACTOR \"%s\" is not a number; " FACTOR_ALLOWED, buf);
        return MBX_E_INVAL;
    }
    char *end = NULL;
    double f = mbx_strtod(buf, &end);
    if (end != buf + n || !(f > 1.0) || f > 1024.0) {
        mbx_msgf(msg, msglen, "FACTOR \"%s\" is out of range; " FACTOR_ALLOWED, buf);
        return MBX_E_INVAL;
    }
    *out = f;
    return MBX_OK;
}

static int push(mbx_size_list *out, uint64_t v, char *msg, size_t msglen)
{
    if (out->n >= MBX_SIZES_MAX_POINTS) {
        mbx_msgf(msg, msglen,
                 "more than %d sizes; use a larger FACTOR, a narrower range or a shorter list",
                 MBX_SIZES_MAX_POINTS);
        return MBX_E_INVAL;
    }
    out->v[out->n++] = v;
    return MBX_OK;
}

static int expand_range(uint64_t lo, uint64_t hi, double factor, mbx_size_list *out, char *msg,
                        size_t msglen)
{
    const double lf = log(factor);
    double k = 0.0;
    int rc;
    for (;;) {
        uint64_t v = (uint64_t)llround((double)lo * pow(factor, k));
        if (v >= hi) {
            break;
        }
        if (out->n == 0 || v > out->v[out->n - 1]) {
            if ((rc = push(out, v, msg, msglen)) < 0) {
                return rc;
            }
        }
        /* With a factor close to 1 many k round to the same size; jump to
         * just before the first k that can round higher (lo * F^k >= v + 0.5)
         * instead of stepping through them one by one. */
        double next = floor(log(((double)v + 0.5) / (double)lo) / lf) - 1.0;
        k = next > k + 1.0 ? next : k + 1.0;
        if (k >= 0x1p52) {
            /* k + 1 would no longer change k: the loop could not finish. */
            mbx_msgf(msg, msglen, "FACTOR %.17g is too close to 1; " FACTOR_ALLOWED, factor);
            return MBX_E_INVAL;
        }
    }
    return push(out, hi, msg, msglen);
}

static int parse_range(const char *text, mbx_size_list *out, char *msg, size_t msglen)
{
    char part[3][ITEM_MAX];
    size_t nparts = 0;
    const char *p = text;
    for (;;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        if (nparts == 3) {
            mbx_msgf(msg, msglen, "too many ':' in \"%s\"; " RANGE_ALLOWED, text);
            return MBX_E_INVAL;
        }
        if (!trimmed_copy(p, len, part[nparts], sizeof part[nparts])) {
            mbx_msgf(msg, msglen, "\"%.*s\" is too long; " RANGE_ALLOWED, (int)len, p);
            return MBX_E_INVAL;
        }
        nparts++;
        if (colon == NULL) {
            break;
        }
        p = colon + 1;
    }
    uint64_t lo = 0, hi = 0;
    double factor = 2.0;
    char why[128];
    if (size_parse(part[0], &lo, why, sizeof why) < 0) {
        mbx_msgf(msg, msglen, "MIN: %s; " RANGE_ALLOWED, why);
        return MBX_E_INVAL;
    }
    if (size_parse(part[1], &hi, why, sizeof why) < 0) {
        mbx_msgf(msg, msglen, "MAX: %s; " RANGE_ALLOWED, why);
        return MBX_E_INVAL;
    }
    if (nparts == 3 && parse_factor(part[2], &factor, msg, msglen) < 0) {
        return MBX_E_INVAL;
    }
    if (lo > hi) {
        char a[32], b[32];
        mbx_size_format(lo, a, sizeof a);
        mbx_size_format(hi, b, sizeof b);
        mbx_msgf(msg, msglen, "reversed range: MIN (%s) > MAX (%s); " RANGE_ALLOWED, a, b);
        return MBX_E_INVAL;
    }
    /* A range from 0 (as OSU and IMB start): 0, then the grid from 1 (1,
     * F, F^2, ...): no power of F reaches 1 from 0. */
    if (lo == 0) {
        int rc = push(out, 0, msg, msglen);
        if (rc < 0 || hi == 0) {
            return rc;
        }
        lo = 1;
    }
    return expand_range(lo, hi, factor, out, msg, msglen);
}

static int parse_list(const char *text, mbx_size_list *out, char *msg, size_t msglen)
{
    const char *p = text;
    char why[128];
    int rc;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[ITEM_MAX];
        uint64_t v = 0;
        if (!trimmed_copy(p, len, item, sizeof item)) {
            mbx_msgf(msg, msglen, "\"%.*s\" is too long; " RANGE_ALLOWED, (int)len, p);
            return MBX_E_INVAL;
        }
        if (size_parse(item, &v, why, sizeof why) < 0) {
            mbx_msgf(msg, msglen, "%s; " RANGE_ALLOWED, why);
            return MBX_E_INVAL;
        }
        if (out->n > 0 && v <= out->v[out->n - 1]) {
            char a[32], b[32];
            mbx_size_format(v, a, sizeof a);
            mbx_size_format(out->v[out->n - 1], b, sizeof b);
            mbx_msgf(msg, msglen, "a list must be strictly ascending, but %s follows %s", a, b);
            return MBX_E_INVAL;
        }
        if ((rc = push(out, v, msg, msglen)) < 0) {
            return rc;
        }
        if (comma == NULL) {
            return MBX_OK;
        }
        p = comma + 1;
    }
}

int mbx_sizes_parse(const char *text, mbx_size_list *out, char *msg, size_t msglen)
{
    if (text == NULL || out == NULL) {
        mbx_msgf(msg, msglen, "no sizes given; " RANGE_ALLOWED);
        return MBX_E_INVAL;
    }
    out->n = 0;
    int rc = strchr(text, ':') ? parse_range(text, out, msg, msglen)
                               : parse_list(text, out, msg, msglen);
    if (rc < 0) {
        out->n = 0;
    }
    return rc;
}

void mbx_size_format(uint64_t bytes, char *buf, size_t len)
{
    static const char *const suffix[] = {"KiB", "MiB", "GiB", "TiB"};
    if (buf == NULL || len == 0) {
        return;
    }
    int s = -1;
    uint64_t v = bytes;
    while (s < 3 && v != 0 && v % 1024 == 0) {
        v /= 1024;
        s++;
    }
    if (s < 0) {
        snprintf(buf, len, "%" PRIu64, bytes);
    } else {
        snprintf(buf, len, "%" PRIu64 "%s", v, suffix[s]);
    }
}
