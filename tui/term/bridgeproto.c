#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* getrandom */
#endif
#include "bridgeproto.h"

#include "bridgeauth.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

struct mbx_bridge_decoder {
    size_t start, end; /* unread bytes are buf[start..end) */
    size_t drop;       /* size of the frame last popped, discarded on the next call */
    const char *error; /* non-NULL once rejected */
    unsigned char buf[MBX_BRIDGE_MAX_FRAME];
};

static int known_type(int t)
{
    return t == MBX_BRIDGE_CHALLENGE || t == MBX_BRIDGE_PROOF || t == MBX_BRIDGE_HELLO ||
           t == MBX_BRIDGE_ACCEPTED || t == MBX_BRIDGE_DATA || t == MBX_BRIDGE_WINSIZE ||
           t == MBX_BRIDGE_GOODBYE;
}

static uint32_t get_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

mbx_bridge_decoder *mbx_bridge_decoder_new(void)
{
    mbx_bridge_decoder *d = malloc(sizeof *d);
    if (d) {
        d->start = d->end = d->drop = 0;
        d->error = NULL;
    }
    return d;
}

void mbx_bridge_decoder_free(mbx_bridge_decoder *d)
{
    free(d);
}

static void discard_popped(mbx_bridge_decoder *d)
{
    d->start += d->drop;
    d->drop = 0;
    if (d->start == d->end)
        d->start = d->end = 0;
}

size_t mbx_bridge_feed(mbx_bridge_decoder *d, const void *data, size_t len)
{
    if (d->error)
        return 0;
    discard_popped(d);
    if (sizeof d->buf - d->end < len && d->start > 0) {
        memmove(d->buf, d->buf + d->start, d->end - d->start);
        d->end -= d->start;
        d->start = 0;
    }
    size_t room = sizeof d->buf - d->end;
    size_t n = len < room ? len : room;
    memcpy(d->buf + d->end, data, n);
    d->end += n;
    return n;
}

/* Rejects as soon as the header is in, so a stranger cannot make us wait
 * for (or buffer) a payload we would refuse anyway. */
static const char *check_header(int type, uint32_t len)
{
    if (!known_type(type))
        return "unknown frame type";
    if (len > MBX_BRIDGE_MAX_PAYLOAD)
        return "frame too long";
    if (type == MBX_BRIDGE_WINSIZE && len != 4)
        return "window-size frame not 4 bytes";
    if ((type == MBX_BRIDGE_ACCEPTED || type == MBX_BRIDGE_GOODBYE) && len != 0)
        return "accepted or goodbye frame not empty";
    if (type == MBX_BRIDGE_CHALLENGE && len != MBX_BRIDGE_NONCE)
        return "challenge of the wrong length";
    if (type == MBX_BRIDGE_PROOF && len != MBX_BRIDGE_NONCE + MBX_BRIDGE_MAC)
        return "proof of the wrong length";
    if (type == MBX_BRIDGE_HELLO && len != MBX_BRIDGE_MAC)
        return "hello of the wrong length";
    return NULL;
}

int mbx_bridge_pop(mbx_bridge_decoder *d, mbx_bridge_frame *f)
{
    if (d->error)
        return MBX_E_PROTO;
    discard_popped(d);
    size_t have = d->end - d->start;
    if (have < MBX_BRIDGE_HEADER)
        return 0;
    const unsigned char *p = d->buf + d->start;
    uint32_t len = get_be32(p + 1);
    if ((d->error = check_header(p[0], len)) != NULL)
        return MBX_E_PROTO;
    if (have < MBX_BRIDGE_HEADER + (size_t)len)
        return 0;
    f->type = p[0];
    f->len = len;
    f->payload = p + MBX_BRIDGE_HEADER;
    d->drop = MBX_BRIDGE_HEADER + (size_t)len;
    return 1;
}

const char *mbx_bridge_decoder_error(const mbx_bridge_decoder *d)
{
    return d->error;
}

int mbx_bridge_encode(void *out, size_t cap, int type, const void *payload, size_t len,
                      size_t *outlen)
{
    if (!known_type(type) || len > MBX_BRIDGE_MAX_PAYLOAD)
        return MBX_E_INVAL;
    if (cap < MBX_BRIDGE_HEADER + len)
        return MBX_E_RANGE;
    unsigned char *o = out;
    if (len > 0)
        memmove(o + MBX_BRIDGE_HEADER, payload, len);
    o[0] = (unsigned char)type;
    o[1] = (unsigned char)(len >> 24);
    o[2] = (unsigned char)(len >> 16);
    o[3] = (unsigned char)(len >> 8);
    o[4] = (unsigned char)len;
    *outlen = MBX_BRIDGE_HEADER + len;
    return MBX_OK;
}

int mbx_bridge_encode_winsize(void *out, size_t cap, unsigned rows, unsigned cols, size_t *outlen)
{
    rows = rows > 0xffff ? 0xffff : rows;
    cols = cols > 0xffff ? 0xffff : cols;
    unsigned char p[4] = {(unsigned char)(rows >> 8), (unsigned char)rows,
                          (unsigned char)(cols >> 8), (unsigned char)cols};
    return mbx_bridge_encode(out, cap, MBX_BRIDGE_WINSIZE, p, sizeof p, outlen);
}

int mbx_bridge_winsize(const mbx_bridge_frame *f, unsigned *rows, unsigned *cols)
{
    if (f->type != MBX_BRIDGE_WINSIZE || f->len != 4)
        return MBX_E_PROTO;
    *rows = (unsigned)f->payload[0] << 8 | f->payload[1];
    *cols = (unsigned)f->payload[2] << 8 | f->payload[3];
    return MBX_OK;
}

long long mbx_bridge_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int random_bytes(unsigned char *out, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = getrandom(out + got, len - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return MBX_E_IO;
        got += (size_t)n;
    }
    return MBX_OK;
}

int mbx_bridge_nonce_new(unsigned char out[MBX_BRIDGE_NONCE])
{
    return random_bytes(out, MBX_BRIDGE_NONCE);
}

void mbx_bridge_mac(const char *token, int who, const unsigned char nr[MBX_BRIDGE_NONCE],
                    const unsigned char nl[MBX_BRIDGE_NONCE], unsigned char out[MBX_BRIDGE_MAC])
{
    /* Fixed-length labels and nonces: the concatenation is unambiguous. */
    static const char launcher[] = "mpibex bridge: launcher proof",
                      rank0[] = "mpibex bridge: rank 0's hello";
    _Static_assert(sizeof launcher == sizeof rank0, "labels of one length");
    const char *label = who == MBX_BRIDGE_MAC_LAUNCHER ? launcher : rank0;
    const void *part[] = {label, nr, nl};
    const size_t len[] = {sizeof launcher, MBX_BRIDGE_NONCE, MBX_BRIDGE_NONCE};
    mbx_hmac_sha256(token, MBX_BRIDGE_TOKEN_CHARS, 3, part, len, out);
}

int mbx_bridge_token_new(char out[MBX_BRIDGE_TOKEN_CHARS + 1])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[MBX_BRIDGE_TOKEN_CHARS / 2];
    if (random_bytes(raw, sizeof raw) != MBX_OK)
        return MBX_E_IO;
    for (size_t i = 0; i < sizeof raw; i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[MBX_BRIDGE_TOKEN_CHARS] = '\0';
    memset(raw, 0, sizeof raw);
    return MBX_OK;
}

int mbx_bridge_token_valid(const void *s, size_t len)
{
    const unsigned char *p = s;
    if (len != MBX_BRIDGE_TOKEN_CHARS)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
            return 0;
    return 1;
}

int mbx_bridge_token_equal(const void *a, size_t alen, const void *b, size_t blen)
{
    /* volatile keeps the compiler from turning the loop into an early-exit
     * memcmp. */
    const volatile unsigned char *x = a, *y = b;
    unsigned diff = alen != blen;
    size_t n = alen < blen ? alen : blen;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned)(x[i] ^ y[i]);
    return diff == 0;
}
