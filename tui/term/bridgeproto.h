/* Framing for the terminal bridge between the launcher and rank 0 (term.h,
 * launcher.h). Pure: no MPI, no curses, no sockets, so it can be unit-tested
 * and fuzzed on its own.
 *
 * A frame is [type: 1 byte][length: 4 bytes, big-endian][payload]:
 *   'C' challenge rank 0 -> launcher, first: a 32-byte random nonce NR
 *   'P' proof     launcher -> rank 0: its own 32-byte random nonce NL, then
 *                 mbx_bridge_mac(token, MBX_BRIDGE_MAC_LAUNCHER, NR, NL)
 *   'H' hello     rank 0 -> launcher, only after checking P:
 *                 mbx_bridge_mac(token, MBX_BRIDGE_MAC_RANK0, NR, NL)
 *   'A' accepted  launcher -> rank 0, empty; always followed at once by a W
 *   'D' data      keys (launcher -> rank 0) or screen bytes (rank 0 -> launcher)
 *   'W' winsize   launcher -> rank 0: rows u16 BE, cols u16 BE
 *   'Q' goodbye   either way, empty: the sender closes after it
 * Payloads are at most MBX_BRIDGE_MAX_PAYLOAD bytes.
 *
 * The token itself never travels: each side proves it holds the token by
 * an HMAC-SHA256 over both nonces, the launcher first, so rank 0 sends
 * nothing derived from the token to a listener that has not proved it
 * holds it too (docs/hardening.md, "The terminal bridge"). */
#ifndef MBX_BRIDGEPROTO_H
#define MBX_BRIDGEPROTO_H

#include <stddef.h>

#include "mbx/status.h"

#define MBX_BRIDGE_HEADER 5u
#define MBX_BRIDGE_MAX_PAYLOAD 65536u
#define MBX_BRIDGE_MAX_FRAME (MBX_BRIDGE_HEADER + MBX_BRIDGE_MAX_PAYLOAD)
#define MBX_BRIDGE_TOKEN_CHARS 64u
#define MBX_BRIDGE_NONCE 32u
#define MBX_BRIDGE_MAC 32u

enum mbx_bridge_type {
    MBX_BRIDGE_CHALLENGE = 'C',
    MBX_BRIDGE_PROOF = 'P',
    MBX_BRIDGE_HELLO = 'H',
    MBX_BRIDGE_ACCEPTED = 'A',
    MBX_BRIDGE_DATA = 'D',
    MBX_BRIDGE_WINSIZE = 'W',
    MBX_BRIDGE_GOODBYE = 'Q',
};

/* A decoded frame. payload points into the decoder and stays valid until
 * the next mbx_bridge_feed or mbx_bridge_pop on that decoder. */
typedef struct mbx_bridge_frame {
    int type;
    size_t len;
    const unsigned char *payload;
} mbx_bridge_frame;

typedef struct mbx_bridge_decoder mbx_bridge_decoder;

/* NULL on allocation failure. The decoder buffers at most one frame. */
mbx_bridge_decoder *mbx_bridge_decoder_new(void);
void mbx_bridge_decoder_free(mbx_bridge_decoder *d);

/* Copies up to len bytes in; returns how many it took. It takes fewer than
 * len only when mbx_bridge_pop has something to report (a complete frame,
 * or a rejection): pop, then feed the rest. After a rejection it takes
 * nothing. */
size_t mbx_bridge_feed(mbx_bridge_decoder *d, const void *data, size_t len);

/* 1 and the next complete frame in *f; 0 when more bytes are needed;
 * MBX_E_PROTO when the stream was rejected: unknown type, payload over the
 * limit, W not 4 bytes, A or Q not empty, C or H not 32 bytes, P not 64.
 * A rejection is final: every later call fails too. */
MBX_NODISCARD int mbx_bridge_pop(mbx_bridge_decoder *d, mbx_bridge_frame *f);

/* Why the decoder failed (a short static phrase), or NULL while it has not. */
const char *mbx_bridge_decoder_error(const mbx_bridge_decoder *d);

/* Writes one frame to out (cap bytes) and its size to *outlen. payload may
 * already sit at out + MBX_BRIDGE_HEADER (encoding in place). MBX_E_INVAL
 * for an unknown type or a payload over the limit, MBX_E_RANGE when out is
 * too small. */
MBX_NODISCARD int mbx_bridge_encode(void *out, size_t cap, int type, const void *payload,
                                    size_t len, size_t *outlen);
/* A W frame; sizes over 65535 are clamped. */
MBX_NODISCARD int mbx_bridge_encode_winsize(void *out, size_t cap, unsigned rows, unsigned cols,
                                            size_t *outlen);
/* Rows and columns of a W frame; MBX_E_PROTO for any other frame. */
MBX_NODISCARD int mbx_bridge_winsize(const mbx_bridge_frame *f, unsigned *rows, unsigned *cols);

/* Milliseconds on CLOCK_MONOTONIC, for both ends' deadlines. */
long long mbx_bridge_now_ms(void);

/* A fresh one-time token: 32 bytes from getrandom() as 64 lowercase hex
 * characters and a NUL. MBX_E_IO when the kernel gives no randomness. */
MBX_NODISCARD int mbx_bridge_token_new(char out[MBX_BRIDGE_TOKEN_CHARS + 1]);
/* 1 when s is exactly 64 lowercase hex characters. */
int mbx_bridge_token_valid(const void *s, size_t len);
/* 1 when equal. The time taken depends only on the lengths, never on where
 * the contents differ, so a stranger cannot guess a token byte by byte. */
int mbx_bridge_token_equal(const void *a, size_t alen, const void *b, size_t blen);

/* Who a MAC speaks for: the two directions use different labels, so one
 * side's proof can never be sent back as the other's. */
enum mbx_bridge_mac_who { MBX_BRIDGE_MAC_LAUNCHER, MBX_BRIDGE_MAC_RANK0 };

/* A fresh nonce from getrandom(); MBX_E_IO when the kernel gives none. */
MBX_NODISCARD int mbx_bridge_nonce_new(unsigned char out[MBX_BRIDGE_NONCE]);
/* HMAC-SHA256 keyed by the 64-character token over who's label, nr (rank
 * 0's nonce) and nl (the launcher's). */
void mbx_bridge_mac(const char *token, int who, const unsigned char nr[MBX_BRIDGE_NONCE],
                    const unsigned char nl[MBX_BRIDGE_NONCE], unsigned char out[MBX_BRIDGE_MAC]);

#endif
