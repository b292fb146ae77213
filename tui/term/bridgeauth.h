/* SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104) for the terminal
 * bridge's mutual handshake (bridgeproto.h, docs/hardening.md). Pure and
 * small; written here rather than linked from a crypto library, which
 * would be a new dependency for two functions. Checked against the
 * published test vectors (tests/tui/test_bridgeproto.c). */
#ifndef MBX_BRIDGEAUTH_H
#define MBX_BRIDGEAUTH_H

#include <stddef.h>
#include <stdint.h>

#define MBX_SHA256_BYTES 32u
#define MBX_SHA256_BLOCK 64u

typedef struct mbx_sha256 {
    uint32_t h[8];
    uint64_t bits; /* message length so far */
    size_t fill;   /* bytes waiting in block */
    unsigned char block[MBX_SHA256_BLOCK];
} mbx_sha256;

void mbx_sha256_init(mbx_sha256 *s);
void mbx_sha256_update(mbx_sha256 *s, const void *data, size_t len);
void mbx_sha256_final(mbx_sha256 *s, unsigned char out[MBX_SHA256_BYTES]);

/* HMAC-SHA256 of the concatenation of n parts (part[i], len[i]) under key. */
void mbx_hmac_sha256(const void *key, size_t keylen, size_t n, const void *const *part,
                     const size_t *len, unsigned char out[MBX_SHA256_BYTES]);

#endif
