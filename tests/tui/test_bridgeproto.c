/* Bridge framing: round trips of every frame type, delivery in pieces,
 * rejections (and that they stick), tokens and their comparison; SHA-256
 * and HMAC-SHA256 against the published vectors, and the handshake's
 * MACs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bridgeauth.h"
#include "bridgeproto.h"

static const char token_a[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

static const unsigned char mac_a[MBX_BRIDGE_MAC] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};

static unsigned char big[MBX_BRIDGE_MAX_FRAME];

static int setup(void **state)
{
    mbx_bridge_decoder *d = mbx_bridge_decoder_new();
    *state = d;
    return d ? 0 : -1;
}

static int teardown(void **state)
{
    mbx_bridge_decoder_free(*state);
    return 0;
}

/* Feeds everything, popping as the decoder asks; returns the last pop. */
static int feed_all(mbx_bridge_decoder *d, const void *data, size_t len, mbx_bridge_frame *f)
{
    const unsigned char *p = data;
    int rc = 0;
    while (len > 0) {
        size_t n = mbx_bridge_feed(d, p, len);
        p += n, len -= n;
        if (n == 0 || len > 0) {
            rc = mbx_bridge_pop(d, f);
            if (rc != 1)
                return rc < 0 ? rc : -100;
        }
    }
    return mbx_bridge_pop(d, f);
}

static void round_trip(mbx_bridge_decoder *d, int type, const void *payload, size_t len)
{
    size_t n = 0;
    mbx_bridge_frame f;
    assert_int_equal(mbx_bridge_encode(big, sizeof big, type, payload, len, &n), MBX_OK);
    assert_int_equal(n, MBX_BRIDGE_HEADER + len);
    assert_int_equal(feed_all(d, big, n, &f), 1);
    assert_int_equal(f.type, type);
    assert_int_equal(f.len, len);
    if (len > 0)
        assert_memory_equal(f.payload, payload, len);
    assert_int_equal(mbx_bridge_pop(d, &f), 0);
    assert_null(mbx_bridge_decoder_error(d));
}

static void round_trips_every_type(void **state)
{
    mbx_bridge_decoder *d = *state;
    static unsigned char payload[MBX_BRIDGE_MAX_PAYLOAD];
    for (size_t i = 0; i < sizeof payload; i++)
        payload[i] = (unsigned char)(i * 7 + 3);
    round_trip(d, MBX_BRIDGE_CHALLENGE, payload, MBX_BRIDGE_NONCE);
    round_trip(d, MBX_BRIDGE_PROOF, payload, MBX_BRIDGE_NONCE + MBX_BRIDGE_MAC);
    round_trip(d, MBX_BRIDGE_HELLO, mac_a, MBX_BRIDGE_MAC);
    round_trip(d, MBX_BRIDGE_ACCEPTED, NULL, 0);
    round_trip(d, MBX_BRIDGE_DATA, "x", 1);
    round_trip(d, MBX_BRIDGE_DATA, payload, 300);
    round_trip(d, MBX_BRIDGE_DATA, payload, sizeof payload);
    round_trip(d, MBX_BRIDGE_DATA, NULL, 0);
    round_trip(d, MBX_BRIDGE_GOODBYE, NULL, 0);

    size_t n = 0;
    unsigned rows = 0, cols = 0;
    mbx_bridge_frame f;
    assert_int_equal(mbx_bridge_encode_winsize(big, sizeof big, 40, 300, &n), MBX_OK);
    assert_int_equal(n, 9);
    const unsigned char want[9] = {'W', 0, 0, 0, 4, 0, 40, 1, 44};
    assert_memory_equal(big, want, 9);
    assert_int_equal(feed_all(d, big, n, &f), 1);
    assert_int_equal(mbx_bridge_winsize(&f, &rows, &cols), MBX_OK);
    assert_int_equal(rows, 40);
    assert_int_equal(cols, 300);
    assert_int_equal(mbx_bridge_encode_winsize(big, sizeof big, 70000, 1, &n), MBX_OK);
    assert_int_equal(feed_all(d, big, n, &f), 1);
    assert_int_equal(mbx_bridge_winsize(&f, &rows, &cols), MBX_OK);
    assert_int_equal(rows, 65535);
    assert_int_equal(cols, 1);
}

static void encoder_rejects_bad_requests(void **state)
{
    (void)state;
    size_t n = 0;
    unsigned char small[8];
    assert_int_equal(mbx_bridge_encode(big, sizeof big, 'X', NULL, 0, &n), MBX_E_INVAL);
    assert_int_equal(
        mbx_bridge_encode(big, sizeof big, MBX_BRIDGE_DATA, big, MBX_BRIDGE_MAX_PAYLOAD + 1, &n),
        MBX_E_INVAL);
    assert_int_equal(mbx_bridge_encode(small, sizeof small, MBX_BRIDGE_DATA, "abcd", 4, &n),
                     MBX_E_RANGE);
    assert_int_equal(mbx_bridge_encode(small, sizeof small, MBX_BRIDGE_DATA, "abc", 3, &n), MBX_OK);
    /* In place: the payload already sits after the header. */
    memcpy(big + MBX_BRIDGE_HEADER, "hello", 5);
    assert_int_equal(
        mbx_bridge_encode(big, sizeof big, MBX_BRIDGE_DATA, big + MBX_BRIDGE_HEADER, 5, &n),
        MBX_OK);
    assert_memory_equal(big, "D\0\0\0\5hello", 10);
    mbx_bridge_frame f = {.type = MBX_BRIDGE_DATA, .len = 4, .payload = big};
    unsigned r, c;
    assert_int_equal(mbx_bridge_winsize(&f, &r, &c), MBX_E_PROTO);
}

static void decodes_byte_by_byte(void **state)
{
    mbx_bridge_decoder *d = *state;
    size_t n = 0;
    mbx_bridge_frame f;
    assert_int_equal(
        mbx_bridge_encode(big, sizeof big, MBX_BRIDGE_HELLO, mac_a, MBX_BRIDGE_MAC, &n), MBX_OK);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(mbx_bridge_feed(d, big + i, 1), 1);
        int rc = mbx_bridge_pop(d, &f);
        assert_int_equal(rc, i + 1 == n ? 1 : 0);
    }
    assert_int_equal(f.type, MBX_BRIDGE_HELLO);
    assert_memory_equal(f.payload, mac_a, MBX_BRIDGE_MAC);
    assert_int_equal(mbx_bridge_pop(d, &f), 0);
}

static void decodes_two_frames_in_one_buffer(void **state)
{
    mbx_bridge_decoder *d = *state;
    size_t n1 = 0, n2 = 0, n3 = 0;
    mbx_bridge_frame f;
    assert_int_equal(mbx_bridge_encode(big, sizeof big, MBX_BRIDGE_ACCEPTED, NULL, 0, &n1), MBX_OK);
    assert_int_equal(mbx_bridge_encode_winsize(big + n1, sizeof big - n1, 24, 80, &n2), MBX_OK);
    assert_int_equal(
        mbx_bridge_encode(big + n1 + n2, sizeof big - n1 - n2, MBX_BRIDGE_DATA, "ab", 2, &n3),
        MBX_OK);
    /* All of it plus the first byte of another frame. */
    big[n1 + n2 + n3] = MBX_BRIDGE_DATA;
    assert_int_equal(mbx_bridge_feed(d, big, n1 + n2 + n3 + 1), n1 + n2 + n3 + 1);
    assert_int_equal(mbx_bridge_pop(d, &f), 1);
    assert_int_equal(f.type, MBX_BRIDGE_ACCEPTED);
    assert_int_equal(mbx_bridge_pop(d, &f), 1);
    assert_int_equal(f.type, MBX_BRIDGE_WINSIZE);
    assert_int_equal(mbx_bridge_pop(d, &f), 1);
    assert_int_equal(f.type, MBX_BRIDGE_DATA);
    assert_memory_equal(f.payload, "ab", 2);
    assert_int_equal(mbx_bridge_pop(d, &f), 0);
    const unsigned char rest[] = {0, 0, 0, 1, 'z'};
    assert_int_equal(mbx_bridge_feed(d, rest, sizeof rest), sizeof rest);
    assert_int_equal(mbx_bridge_pop(d, &f), 1);
    assert_int_equal(f.len, 1);
    assert_int_equal(f.payload[0], 'z');
}

static void full_buffer_asks_for_a_pop(void **state)
{
    mbx_bridge_decoder *d = *state;
    size_t n = 0;
    mbx_bridge_frame f;
    assert_int_equal(
        mbx_bridge_encode(big, sizeof big, MBX_BRIDGE_DATA, big, MBX_BRIDGE_MAX_PAYLOAD, &n),
        MBX_OK);
    assert_int_equal(mbx_bridge_feed(d, big, n), n);
    assert_int_equal(mbx_bridge_feed(d, "D", 1), 0);
    assert_int_equal(mbx_bridge_pop(d, &f), 1);
    assert_int_equal(f.len, MBX_BRIDGE_MAX_PAYLOAD);
    assert_int_equal(mbx_bridge_feed(d, "D", 1), 1);
    assert_int_equal(mbx_bridge_pop(d, &f), 0);
}

static void expect_reject(mbx_bridge_decoder *d, const void *bytes, size_t len)
{
    mbx_bridge_frame f;
    assert_int_equal(feed_all(d, bytes, len, &f), MBX_E_PROTO);
    assert_non_null(mbx_bridge_decoder_error(d));
    /* Stays failed: a perfectly good frame afterwards is not accepted. */
    size_t n = 0;
    unsigned char ok[16];
    assert_int_equal(mbx_bridge_encode(ok, sizeof ok, MBX_BRIDGE_DATA, "a", 1, &n), MBX_OK);
    assert_int_equal(mbx_bridge_feed(d, ok, n), 0);
    assert_int_equal(mbx_bridge_pop(d, &f), MBX_E_PROTO);
}

static void rejects_unknown_type(void **state)
{
    expect_reject(*state, "GET / HTTP/1.0\r\n\r\n", 18);
}

static void rejects_oversize(void **state)
{
    /* Rejected from the header alone, before any payload arrives. */
    const unsigned char hdr[] = {'D', 0, 1, 0, 1};
    expect_reject(*state, hdr, sizeof hdr);
}

static void rejects_bad_winsize(void **state)
{
    const unsigned char w[] = {'W', 0, 0, 0, 3, 0, 24, 0};
    expect_reject(*state, w, sizeof w);
}

static void rejects_nonempty_accept(void **state)
{
    const unsigned char a[] = {'A', 0, 0, 0, 1, 'x'};
    expect_reject(*state, a, sizeof a);
}

/* Each handshake frame has one length; a frame one byte short or long is
 * refused as soon as its header is in. */
static void rejects_handshake_frames_of_other_lengths(void **state)
{
    (void)state;
    const struct {
        int type;
        size_t len;
    } want[] = {{MBX_BRIDGE_CHALLENGE, MBX_BRIDGE_NONCE},
                {MBX_BRIDGE_PROOF, MBX_BRIDGE_NONCE + MBX_BRIDGE_MAC},
                {MBX_BRIDGE_HELLO, MBX_BRIDGE_MAC}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        for (int delta = -1; delta <= 1; delta += 2) {
            mbx_bridge_decoder *d = mbx_bridge_decoder_new();
            unsigned char h[MBX_BRIDGE_HEADER + 80] = {0};
            size_t n = 0;
            assert_non_null(d);
            assert_int_equal(mbx_bridge_encode(h, sizeof h, want[i].type, h + MBX_BRIDGE_HEADER,
                                               want[i].len + (size_t)delta, &n),
                             MBX_OK);
            expect_reject(d, h, n);
            mbx_bridge_decoder_free(d);
        }
    }
}

static void hex32(const unsigned char *d, char *out)
{
    for (int i = 0; i < 32; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

/* FIPS 180-2 appendix B and RFC 4231 test cases 1, 2 and 6. */
static void sha256_and_hmac_match_published_vectors(void **state)
{
    (void)state;
    unsigned char out[32];
    char hex[65];
    mbx_sha256 s;
    static const char *const msg[] = {"", "abc",
                                      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"};
    static const char *const digest[] = {
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"};
    for (int i = 0; i < 3; i++) {
        mbx_sha256_init(&s);
        mbx_sha256_update(&s, msg[i], strlen(msg[i]));
        mbx_sha256_final(&s, out);
        hex32(out, hex);
        assert_string_equal(hex, digest[i]);
    }
    /* A million 'a's, in pieces that straddle the blocks. */
    memset(big, 'a', 1000);
    mbx_sha256_init(&s);
    for (int i = 0; i < 1000; i++)
        mbx_sha256_update(&s, big, 1000);
    mbx_sha256_final(&s, out);
    hex32(out, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

    unsigned char key[131];
    memset(key, 0x0b, 20);
    const void *p1[] = {"Hi There"};
    const size_t l1[] = {8};
    mbx_hmac_sha256(key, 20, 1, p1, l1, out);
    hex32(out, hex);
    assert_string_equal(hex, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    const void *p2[] = {"what do ya want ", "for nothing?"};
    const size_t l2[] = {16, 12};
    mbx_hmac_sha256("Jefe", 4, 2, p2, l2, out);
    hex32(out, hex);
    assert_string_equal(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    memset(key, 0xaa, sizeof key);
    const char *m6 = "Test Using Larger Than Block-Size Key - Hash Key First";
    const void *p6[] = {m6};
    const size_t l6[] = {strlen(m6)};
    mbx_hmac_sha256(key, sizeof key, 1, p6, l6, out);
    hex32(out, hex);
    assert_string_equal(hex, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

/* The launcher's proof and rank 0's hello differ for the same nonces (one
 * cannot be sent back as the other), and each changes with either nonce
 * and with the token. */
static void handshake_macs_bind_side_nonces_and_token(void **state)
{
    (void)state;
    unsigned char nr[MBX_BRIDGE_NONCE], nl[MBX_BRIDGE_NONCE], base[MBX_BRIDGE_MAC],
        other[MBX_BRIDGE_MAC];
    char token_b[MBX_BRIDGE_TOKEN_CHARS + 1];
    assert_int_equal(mbx_bridge_nonce_new(nr), MBX_OK);
    assert_int_equal(mbx_bridge_nonce_new(nl), MBX_OK);
    assert_memory_not_equal(nr, nl, sizeof nr);
    mbx_bridge_mac(token_a, MBX_BRIDGE_MAC_LAUNCHER, nr, nl, base);
    mbx_bridge_mac(token_a, MBX_BRIDGE_MAC_LAUNCHER, nr, nl, other);
    assert_memory_equal(base, other, sizeof base);
    mbx_bridge_mac(token_a, MBX_BRIDGE_MAC_RANK0, nr, nl, other);
    assert_memory_not_equal(base, other, sizeof base);
    mbx_bridge_mac(token_a, MBX_BRIDGE_MAC_LAUNCHER, nl, nr, other);
    assert_memory_not_equal(base, other, sizeof base);
    nr[31] ^= 1;
    mbx_bridge_mac(token_a, MBX_BRIDGE_MAC_LAUNCHER, nr, nl, other);
    assert_memory_not_equal(base, other, sizeof base);
    nr[31] ^= 1;
    memcpy(token_b, token_a, sizeof token_b);
    token_b[0] = '1';
    mbx_bridge_mac(token_b, MBX_BRIDGE_MAC_LAUNCHER, nr, nl, other);
    assert_memory_not_equal(base, other, sizeof base);
}

static void rejects_after_good_frames(void **state)
{
    mbx_bridge_decoder *d = *state;
    mbx_bridge_frame f;
    const unsigned char s[] = {'D', 0, 0, 0, 1, 'k', 'Z', 0, 0, 0, 0};
    assert_int_equal(mbx_bridge_feed(d, s, sizeof s), sizeof s);
    assert_int_equal(mbx_bridge_pop(d, &f), 1);
    assert_int_equal(f.payload[0], 'k');
    assert_int_equal(mbx_bridge_pop(d, &f), MBX_E_PROTO);
    assert_int_equal(mbx_bridge_pop(d, &f), MBX_E_PROTO);
}

static void tokens_are_fresh_hex(void **state)
{
    (void)state;
    char a[MBX_BRIDGE_TOKEN_CHARS + 1], b[MBX_BRIDGE_TOKEN_CHARS + 1];
    assert_int_equal(mbx_bridge_token_new(a), MBX_OK);
    assert_int_equal(mbx_bridge_token_new(b), MBX_OK);
    assert_int_equal(strlen(a), 64);
    assert_true(mbx_bridge_token_valid(a, strlen(a)));
    assert_true(mbx_bridge_token_valid(b, strlen(b)));
    assert_string_not_equal(a, b);
    assert_false(mbx_bridge_token_valid(a, 63));
    assert_false(mbx_bridge_token_valid("", 0));
}

static void compares_tokens(void **state)
{
    (void)state;
    char b[65];
    memcpy(b, token_a, sizeof b);
    assert_true(mbx_bridge_token_equal(token_a, 64, b, 64));
    b[0] = '1';
    assert_false(mbx_bridge_token_equal(token_a, 64, b, 64));
    b[0] = '0';
    b[63] = '0';
    assert_false(mbx_bridge_token_equal(token_a, 64, b, 64));
    assert_false(mbx_bridge_token_equal(token_a, 64, token_a, 63));
    assert_false(mbx_bridge_token_equal(token_a, 63, token_a, 64));
    assert_false(mbx_bridge_token_equal(token_a, 64, "", 0));
    assert_true(mbx_bridge_token_equal("", 0, "", 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(round_trips_every_type, setup, teardown),
        cmocka_unit_test(encoder_rejects_bad_requests),
        cmocka_unit_test_setup_teardown(decodes_byte_by_byte, setup, teardown),
        cmocka_unit_test_setup_teardown(decodes_two_frames_in_one_buffer, setup, teardown),
        cmocka_unit_test_setup_teardown(full_buffer_asks_for_a_pop, setup, teardown),
        cmocka_unit_test_setup_teardown(rejects_unknown_type, setup, teardown),
        cmocka_unit_test_setup_teardown(rejects_oversize, setup, teardown),
        cmocka_unit_test_setup_teardown(rejects_bad_winsize, setup, teardown),
        cmocka_unit_test_setup_teardown(rejects_nonempty_accept, setup, teardown),
        cmocka_unit_test(rejects_handshake_frames_of_other_lengths),
        cmocka_unit_test(sha256_and_hmac_match_published_vectors),
        cmocka_unit_test(handshake_macs_bind_side_nonces_and_token),
        cmocka_unit_test_setup_teardown(rejects_after_good_frames, setup, teardown),
        cmocka_unit_test(tokens_are_fresh_hex),
        cmocka_unit_test(compares_tokens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
