/* Bridge framing: round trips of every frame type, delivery in pieces,
 * rejections (and that they stick), tokens and their comparison. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bridgeproto.h"

static const char token_a[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

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
    round_trip(d, MBX_BRIDGE_HELLO, token_a, 64);
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
    assert_int_equal(mbx_bridge_encode(big, sizeof big, MBX_BRIDGE_HELLO, token_a, 64, &n), MBX_OK);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(mbx_bridge_feed(d, big + i, 1), 1);
        int rc = mbx_bridge_pop(d, &f);
        assert_int_equal(rc, i + 1 == n ? 1 : 0);
    }
    assert_int_equal(f.type, MBX_BRIDGE_HELLO);
    assert_memory_equal(f.payload, token_a, 64);
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

static void rejects_short_hello(void **state)
{
    unsigned char h[5 + 63];
    size_t n = 0;
    assert_int_equal(mbx_bridge_encode(h, sizeof h, MBX_BRIDGE_HELLO, token_a, 63, &n), MBX_OK);
    expect_reject(*state, h, n);
}

static void rejects_hello_not_hex(void **state)
{
    char tok[65];
    memcpy(tok, token_a, sizeof tok);
    tok[10] = 'G';
    unsigned char h[5 + 64];
    size_t n = 0;
    assert_int_equal(mbx_bridge_encode(h, sizeof h, MBX_BRIDGE_HELLO, tok, 64, &n), MBX_OK);
    expect_reject(*state, h, n);
}

static void rejects_hello_upper_case(void **state)
{
    char tok[65];
    memcpy(tok, token_a, sizeof tok);
    tok[63] = 'F';
    unsigned char h[5 + 64];
    size_t n = 0;
    assert_int_equal(mbx_bridge_encode(h, sizeof h, MBX_BRIDGE_HELLO, tok, 64, &n), MBX_OK);
    expect_reject(*state, h, n);
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
        cmocka_unit_test_setup_teardown(rejects_short_hello, setup, teardown),
        cmocka_unit_test_setup_teardown(rejects_hello_not_hex, setup, teardown),
        cmocka_unit_test_setup_teardown(rejects_hello_upper_case, setup, teardown),
        cmocka_unit_test_setup_teardown(rejects_after_good_frames, setup, teardown),
        cmocka_unit_test(tokens_are_fresh_hex),
        cmocka_unit_test(compares_tokens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
