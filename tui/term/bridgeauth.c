#include "bridgeauth.h"

#include <string.h>

/* The first 32 bits of the fractional parts of the cube roots of the first
 * 64 primes (FIPS 180-4, 4.2.2). */
static const uint32_t k256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t h[8], const unsigned char *p)
{
    uint32_t w[64], v[8];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
               (uint32_t)p[4 * t + 2] << 8 | (uint32_t)p[4 * t + 3];
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    memcpy(v, h, sizeof v);
    for (int t = 0; t < 64; t++) {
        uint32_t e = v[4], a = v[0];
        uint32_t t1 = v[7] + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & v[5]) ^ (~e & v[6])) +
                      k256[t] + w[t];
        uint32_t t2 =
            (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & v[1]) ^ (a & v[2]) ^ (v[1] & v[2]));
        memmove(v + 1, v, 7 * sizeof v[0]);
        v[4] += t1;
        v[0] = t1 + t2;
    }
    for (int i = 0; i < 8; i++)
        h[i] += v[i];
}

void mbx_sha256_init(mbx_sha256 *s)
{
    /* The fractional parts of the square roots of the first 8 primes. */
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, h0, sizeof h0);
    s->bits = 0;
    s->fill = 0;
}

void mbx_sha256_update(mbx_sha256 *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    s->bits += (uint64_t)len * 8;
    while (len > 0) {
        size_t n = MBX_SHA256_BLOCK - s->fill;
        n = n < len ? n : len;
        memcpy(s->block + s->fill, p, n);
        s->fill += n, p += n, len -= n;
        if (s->fill == MBX_SHA256_BLOCK) {
            compress(s->h, s->block);
            s->fill = 0;
        }
    }
}

void mbx_sha256_final(mbx_sha256 *s, unsigned char out[MBX_SHA256_BYTES])
{
    uint64_t bits = s->bits;
    unsigned char pad[MBX_SHA256_BLOCK + 8] = {0x80};
    /* 0x80, zeros up to 56 mod 64, then the length as 64 bits big-endian. */
    size_t padlen = (s->fill < 56 ? 56 : 120) - s->fill;
    for (int i = 0; i < 8; i++)
        pad[padlen + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
    mbx_sha256_update(s, pad, padlen + 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(s->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)s->h[i];
    }
    memset(s, 0, sizeof *s);
}

void mbx_hmac_sha256(const void *key, size_t keylen, size_t n, const void *const *part,
                     const size_t *len, unsigned char out[MBX_SHA256_BYTES])
{
    unsigned char k[MBX_SHA256_BLOCK] = {0}, pad[MBX_SHA256_BLOCK], inner[MBX_SHA256_BYTES];
    mbx_sha256 s;
    if (keylen > MBX_SHA256_BLOCK) {
        mbx_sha256_init(&s);
        mbx_sha256_update(&s, key, keylen);
        mbx_sha256_final(&s, k);
    } else if (keylen > 0) {
        memcpy(k, key, keylen);
    }
    for (size_t i = 0; i < sizeof pad; i++)
        pad[i] = k[i] ^ 0x36;
    mbx_sha256_init(&s);
    mbx_sha256_update(&s, pad, sizeof pad);
    for (size_t i = 0; i < n; i++)
        mbx_sha256_update(&s, part[i], len[i]);
    mbx_sha256_final(&s, inner);
    for (size_t i = 0; i < sizeof pad; i++)
        pad[i] = k[i] ^ 0x5c;
    mbx_sha256_init(&s);
    mbx_sha256_update(&s, pad, sizeof pad);
    mbx_sha256_update(&s, inner, sizeof inner);
    mbx_sha256_final(&s, out);
    memset(k, 0, sizeof k);
    memset(pad, 0, sizeof pad);
    memset(inner, 0, sizeof inner);
}
