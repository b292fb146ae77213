/* Command encode/decode: round trips, fixed layout, and rejection of bad
 * frames (magic, version, opcode, payload length). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/command.h"

static mbx_cmd sample(void)
{
    mbx_cmd c;
    memset(&c, 0, sizeof c);
    c.version = MBX_CMD_VERSION;
    c.opcode = MBX_OP_BATCH;
    c.seq = 0xdeadbeefu;
    c.bench_id = -7;
    c.procs = 512;
    c.bytes = (uint64_t)1 << 40;
    c.iarg[0] = 128;
    c.iarg[1] = -1;
    c.iarg[2] = INT64_MAX;
    c.iarg[3] = INT64_MIN;
    c.darg[0] = 0.03;
    c.darg[1] = -1e-300;
    c.darg[2] = INFINITY;
    c.darg[3] = 12345.678;
    c.payload_len = 4096;
    return c;
}

static void round_trip(void **state)
{
    (void)state;
    mbx_cmd in = sample(), out;
    unsigned char buf[MBX_CMD_WIRE_SIZE];
    assert_int_equal(mbx_cmd_encode(&in, buf), MBX_OK);
    assert_int_equal(mbx_cmd_decode(buf, &out), MBX_OK);
    assert_int_equal(out.version, MBX_CMD_VERSION);
    assert_int_equal(out.opcode, MBX_OP_BATCH);
    assert_int_equal(out.seq, 0xdeadbeefu);
    assert_int_equal(out.bench_id, -7);
    assert_int_equal(out.procs, 512);
    assert_true(out.bytes == ((uint64_t)1 << 40));
    assert_true(out.iarg[0] == 128 && out.iarg[1] == -1);
    assert_true(out.iarg[2] == INT64_MAX && out.iarg[3] == INT64_MIN);
    assert_true(out.darg[0] == 0.03 && out.darg[1] == -1e-300);
    assert_true(isinf(out.darg[2]) && out.darg[3] == 12345.678);
    assert_int_equal(out.payload_len, 4096);
}

static void every_opcode_round_trips(void **state)
{
    (void)state;
    for (int op = 0; op < MBX_OP_COUNT_; op++) {
        mbx_cmd in = sample(), out;
        unsigned char buf[MBX_CMD_WIRE_SIZE];
        in.opcode = (uint16_t)op;
        assert_int_equal(mbx_cmd_encode(&in, buf), MBX_OK);
        assert_int_equal(mbx_cmd_decode(buf, &out), MBX_OK);
        assert_int_equal(out.opcode, op);
        assert_string_not_equal(mbx_opcode_name(op), "?");
    }
    assert_string_equal(mbx_opcode_name(MBX_OP_COUNT_), "?");
    assert_string_equal(mbx_opcode_name(-1), "?");
}

/* The layout is a contract between ranks: pin a few bytes. */
static void layout_is_little_endian(void **state)
{
    (void)state;
    mbx_cmd in = sample();
    unsigned char buf[MBX_CMD_WIRE_SIZE];
    assert_int_equal(mbx_cmd_encode(&in, buf), MBX_OK);
    static const unsigned char magic[4] = {0x43, 0x58, 0x42, 0x4d};
    assert_memory_equal(buf, magic, 4);
    assert_int_equal(buf[4], MBX_CMD_VERSION);
    assert_int_equal(buf[5], 0);
    assert_int_equal(buf[6], MBX_OP_BATCH);
    assert_int_equal(buf[8], 0xef);
    assert_int_equal(buf[11], 0xde);
    assert_int_equal(buf[24 + 5], 1); /* bytes = 2^40 */
    assert_int_equal(buf[32], 128);
}

static void rejects_bad_frames(void **state)
{
    (void)state;
    mbx_cmd in = sample(), out;
    unsigned char buf[MBX_CMD_WIRE_SIZE], bad[MBX_CMD_WIRE_SIZE];
    assert_int_equal(mbx_cmd_encode(&in, buf), MBX_OK);

    memcpy(bad, buf, sizeof bad);
    bad[0] ^= 0xff;
    assert_int_equal(mbx_cmd_decode(bad, &out), MBX_E_PROTO);

    memcpy(bad, buf, sizeof bad);
    bad[4] = MBX_CMD_VERSION + 1;
    assert_int_equal(mbx_cmd_decode(bad, &out), MBX_E_PROTO);

    memcpy(bad, buf, sizeof bad);
    bad[6] = MBX_OP_COUNT_;
    assert_int_equal(mbx_cmd_decode(bad, &out), MBX_E_PROTO);

    memcpy(bad, buf, sizeof bad);
    bad[23] = 0x10; /* payload_len way above the limit */
    assert_int_equal(mbx_cmd_decode(bad, &out), MBX_E_PROTO);

    memset(bad, 0, sizeof bad);
    assert_int_equal(mbx_cmd_decode(bad, &out), MBX_E_PROTO);
    assert_int_equal(mbx_cmd_decode(NULL, &out), MBX_E_INVAL);
}

static void encode_rejects_bad_commands(void **state)
{
    (void)state;
    unsigned char buf[MBX_CMD_WIRE_SIZE];
    mbx_cmd c = sample();
    c.opcode = MBX_OP_COUNT_;
    assert_int_equal(mbx_cmd_encode(&c, buf), MBX_E_INVAL);
    c = sample();
    c.payload_len = MBX_CMD_MAX_PAYLOAD + 1;
    assert_int_equal(mbx_cmd_encode(&c, buf), MBX_E_INVAL);
    assert_int_equal(mbx_cmd_encode(NULL, buf), MBX_E_INVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip),
        cmocka_unit_test(every_opcode_round_trips),
        cmocka_unit_test(layout_is_little_endian),
        cmocka_unit_test(rejects_bad_frames),
        cmocka_unit_test(encode_rejects_bad_commands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
