/* libFuzzer target: the terminal bridge's frame decoder (mbx_bridge_feed,
 * mbx_bridge_pop), which reads what a stranger on the bridge socket sends.
 * The first byte picks how the stream is cut into reads (the decoder must
 * not care); every frame popped must be one the protocol allows, and must
 * encode back to the bytes it came from. The handshake's MACs over the
 * stream's first bytes as nonces: the two sides' never agree, and each
 * is what it was a moment ago (no state). */
#include <string.h>

#include "bridgeproto.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned char again[MBX_BRIDGE_MAX_FRAME];

static void check_frame(const mbx_bridge_frame *f, const uint8_t *stream, size_t consumed)
{
    MBX_FUZZ_CHECK(f->len <= MBX_BRIDGE_MAX_PAYLOAD);
    switch (f->type) {
    case MBX_BRIDGE_CHALLENGE: MBX_FUZZ_CHECK(f->len == MBX_BRIDGE_NONCE); break;
    case MBX_BRIDGE_PROOF: MBX_FUZZ_CHECK(f->len == MBX_BRIDGE_NONCE + MBX_BRIDGE_MAC); break;
    case MBX_BRIDGE_HELLO: MBX_FUZZ_CHECK(f->len == MBX_BRIDGE_MAC); break;
    case MBX_BRIDGE_ACCEPTED:
    case MBX_BRIDGE_GOODBYE: MBX_FUZZ_CHECK(f->len == 0); break;
    case MBX_BRIDGE_WINSIZE: {
        unsigned rows = 0, cols = 0;
        MBX_FUZZ_CHECK(mbx_bridge_winsize(f, &rows, &cols) == MBX_OK);
        MBX_FUZZ_CHECK(rows <= 0xffff && cols <= 0xffff);
        break;
    }
    case MBX_BRIDGE_DATA: break;
    default: MBX_FUZZ_CHECK(!"a frame of an unknown type was accepted");
    }
    if (f->type != MBX_BRIDGE_WINSIZE) {
        unsigned rows, cols;
        MBX_FUZZ_CHECK(mbx_bridge_winsize(f, &rows, &cols) == MBX_E_PROTO);
    }
    /* The frame is the last MBX_BRIDGE_HEADER + len bytes taken so far. */
    size_t n = 0;
    MBX_FUZZ_CHECK(mbx_bridge_encode(again, sizeof again, f->type, f->payload, f->len, &n) ==
                   MBX_OK);
    MBX_FUZZ_CHECK(n == MBX_BRIDGE_HEADER + f->len && n <= consumed);
    MBX_FUZZ_CHECK(memcmp(again, stream + consumed - n, n) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    /* Reads of 1..256 bytes, or all at once when the byte is 0. */
    size_t chunk = data[0] ? data[0] : size;
    const uint8_t *stream = data + 1;
    size_t len = size - 1, fed = 0, popped = 0;
    mbx_bridge_decoder *d = mbx_bridge_decoder_new();
    MBX_FUZZ_CHECK(d != NULL);
    int rc = 0;
    while (rc >= 0) {
        size_t want = len - fed < chunk ? len - fed : chunk;
        size_t took = want > 0 ? mbx_bridge_feed(d, stream + fed, want) : 0;
        MBX_FUZZ_CHECK(took <= want);
        fed += took;
        mbx_bridge_frame f;
        int got = 0;
        while ((rc = mbx_bridge_pop(d, &f)) == 1) {
            got = 1;
            popped += MBX_BRIDGE_HEADER + f.len;
            MBX_FUZZ_CHECK(popped <= fed);
            check_frame(&f, stream, popped);
        }
        if (rc < 0) {
            MBX_FUZZ_CHECK(rc == MBX_E_PROTO && mbx_bridge_decoder_error(d) != NULL);
            /* A rejection is final. */
            MBX_FUZZ_CHECK(mbx_bridge_pop(d, &f) == MBX_E_PROTO);
            MBX_FUZZ_CHECK(mbx_bridge_feed(d, "Q\0\0\0\0", 5) == 0);
            break;
        }
        MBX_FUZZ_CHECK(mbx_bridge_decoder_error(d) == NULL);
        /* The decoder takes fewer bytes than offered only with a frame to
         * pop (so this loop always moves on). */
        MBX_FUZZ_CHECK(took == want || got);
        if (fed == len)
            break;
    }
    mbx_bridge_decoder_free(d);

    if (len >= 2 * MBX_BRIDGE_NONCE) {
        static const char token[] =
            "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
        unsigned char a[MBX_BRIDGE_MAC], b[MBX_BRIDGE_MAC];
        const unsigned char *nr = stream, *nl = stream + MBX_BRIDGE_NONCE;
        mbx_bridge_mac(token, MBX_BRIDGE_MAC_LAUNCHER, nr, nl, a);
        mbx_bridge_mac(token, MBX_BRIDGE_MAC_RANK0, nr, nl, b);
        MBX_FUZZ_CHECK(memcmp(a, b, sizeof a) != 0);
        mbx_bridge_mac(token, MBX_BRIDGE_MAC_LAUNCHER, nr, nl, b);
        MBX_FUZZ_CHECK(memcmp(a, b, sizeof a) == 0);
    }

    /* The token checks see the same bytes as a hello payload would. */
    int valid = mbx_bridge_token_valid(stream, len);
    MBX_FUZZ_CHECK(!valid || len == MBX_BRIDGE_TOKEN_CHARS);
    size_t half = len / 2;
    int eq = mbx_bridge_token_equal(stream, half, stream + half, len - half);
    MBX_FUZZ_CHECK(eq == (half == len - half && memcmp(stream, stream + half, half) == 0));
    return 0;
}
