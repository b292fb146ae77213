/* Command encode/decode: round trips, fixed layout, and rejection of bad
 * frames (magic, version, opcode, payload length); the same for a point's
 * parameters (POINT_BEGIN's payload), field by field from their list. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/command.h"
#include "mbx/pointparams.h"

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

static mbx_point_params params_sample(void)
{
    return (mbx_point_params){.bench_id = 12,
                              .procs = 4,
                              .bytes = 65536,
                              .param = 3,
                              .pair_a = 1,
                              .pair_b = 3,
                              .root = 2,
                              .rma_sync = MBX_RMA_PSCW,
                              .resync = 1,
                              .warm_calls = 128,
                              .warm_floor_s = 1e-3,
                              .buf_offset = 192,
                              .rbuf_offset = 4032,
                              .buf_set = 5,
                              .comm_dup = 1,
                              .companion = 2.5e-6};
}

/* Every field of the list equal, bit for bit (a NaN too). */
#define SAME_(type, name, lo, hi) &&memcmp(&a->name, &b->name, sizeof a->name) == 0
static int same_params(const mbx_point_params *a, const mbx_point_params *b)
{
    return 1 MBX_POINT_PARAMS(SAME_);
}
#undef SAME_

static void params_round_trip(void **state)
{
    (void)state;
    mbx_point_params in = params_sample(), out;
    unsigned char buf[MBX_POINT_PARAMS_WIRE_SIZE];
    char why[128] = "";
    assert_int_equal(mbx_point_params_encode(&in, buf, why, sizeof why), MBX_OK);
    assert_int_equal(mbx_point_params_decode(buf, sizeof buf, &out, why, sizeof why), MBX_OK);
    assert_true(same_params(&in, &out));
    assert_true(out.root == 2 && out.rma_sync == MBX_RMA_PSCW && out.buf_offset == 192);
    in.companion = NAN; /* none */
    assert_int_equal(mbx_point_params_encode(&in, buf, why, sizeof why), MBX_OK);
    assert_int_equal(mbx_point_params_decode(buf, sizeof buf, &out, why, sizeof why), MBX_OK);
    assert_true(same_params(&in, &out) && isnan(out.companion));
}

/* The layout is a contract between ranks: version, length, then the list. */
static void params_layout(void **state)
{
    (void)state;
    mbx_point_params in = params_sample();
    unsigned char buf[MBX_POINT_PARAMS_WIRE_SIZE];
    assert_int_equal(mbx_point_params_encode(&in, buf, NULL, 0), MBX_OK);
    assert_int_equal(buf[0] | buf[1] << 8, MBX_POINT_PARAMS_VERSION);
    assert_int_equal(buf[2] | buf[3] << 8, MBX_POINT_PARAMS_WIRE_SIZE);
    assert_int_equal(buf[4], 12); /* bench_id, the list's first field */
    size_t end = 4;
    for (size_t i = 0; mbx_point_field_at(i); i++) {
        const mbx_point_field *f = mbx_point_field_at(i);
        assert_int_equal(f->wire_offset, end);
        end += strchr("iI", f->type) ? 4 : 8;
    }
    assert_int_equal(end, MBX_POINT_PARAMS_WIRE_SIZE);
    assert_null(mbx_point_field_at(1000));
}

static void params_reject_version_and_length(void **state)
{
    (void)state;
    mbx_point_params in = params_sample(), out = {0};
    unsigned char buf[MBX_POINT_PARAMS_WIRE_SIZE], bad[MBX_POINT_PARAMS_WIRE_SIZE];
    char why[128];
    assert_int_equal(mbx_point_params_encode(&in, buf, NULL, 0), MBX_OK);
    memcpy(bad, buf, sizeof bad);
    bad[0] = MBX_POINT_PARAMS_VERSION + 1;
    assert_int_equal(mbx_point_params_decode(bad, sizeof bad, &out, why, sizeof why), MBX_E_PROTO);
    assert_non_null(strstr(why, "version"));
    memcpy(bad, buf, sizeof bad);
    bad[2] ^= 8;
    assert_int_equal(mbx_point_params_decode(bad, sizeof bad, &out, why, sizeof why), MBX_E_PROTO);
    assert_non_null(strstr(why, "length"));
    assert_int_equal(mbx_point_params_decode(buf, sizeof buf - 1, &out, why, sizeof why),
                     MBX_E_PROTO);
    assert_non_null(strstr(why, "bytes"));
    assert_int_equal(mbx_point_params_decode(NULL, 0, &out, why, sizeof why), MBX_E_INVAL);
    assert_int_equal(out.procs, 0); /* untouched on failure */
}

/* v, a whole number or a double by the field's type, into the record. */
static void poke(unsigned char *buf, const mbx_point_field *f, double v)
{
    uint64_t u;
    if (f->type == 'd' || f->type == 'n')
        memcpy(&u, &v, sizeof u);
    else if (f->type == 'L')
        u = (uint64_t)v;
    else
        u = (uint64_t)(int64_t)v;
    for (int i = 0; i < (strchr("iI", f->type) ? 4 : 8); i++)
        buf[f->wire_offset + (size_t)i] = (unsigned char)(u >> (8 * i));
}

/* Every field of the list, just outside its range on either side, is
 * refused by name: a new field is checked without a new test. */
static void params_every_field_has_its_range(void **state)
{
    (void)state;
    mbx_point_params in = params_sample(), out;
    unsigned char buf[MBX_POINT_PARAMS_WIRE_SIZE], bad[MBX_POINT_PARAMS_WIRE_SIZE];
    char why[128];
    assert_int_equal(mbx_point_params_encode(&in, buf, NULL, 0), MBX_OK);
    for (size_t i = 0; mbx_point_field_at(i); i++) {
        const mbx_point_field *f = mbx_point_field_at(i);
        int fp = f->type == 'd' || f->type == 'n';
        double below = fp ? f->lo - 1.0 : f->lo - 1, above = fp ? f->hi * 2 + 1 : f->hi + 1;
        int below_fits = f->type == 'L' || f->type == 'I' ? f->lo > 0 : f->lo > -9e18;
        int above_fits = f->hi < (f->type == 'i' ? 2147483647.0 : 9e18);
        double tries[3] = {below, above, NAN};
        int use[3] = {below_fits, above_fits, f->type == 'd'};
        int tried = 0;
        for (int t = 0; t < 3; t++) {
            if (!use[t])
                continue;
            memcpy(bad, buf, sizeof bad);
            poke(bad, f, tries[t]);
            why[0] = '\0';
            assert_int_equal(mbx_point_params_decode(bad, sizeof bad, &out, why, sizeof why),
                             MBX_E_INVAL);
            char want[64];
            snprintf(want, sizeof want, "point parameter %s: ", f->name);
            if (strncmp(why, want, strlen(want)) != 0)
                fail_msg("field %s: message '%s'", f->name, why);
            tried++;
        }
        if (!tried)
            fail_msg("field %s: no value outside its range was tried", f->name);
    }
}

/* The rules between fields: ranks below procs, the offset's step. */
static void params_reject_cross_field(void **state)
{
    (void)state;
    char why[128];
    unsigned char buf[MBX_POINT_PARAMS_WIRE_SIZE];
    mbx_point_params p = params_sample();
    p.root = p.procs;
    assert_int_equal(mbx_point_params_encode(&p, buf, why, sizeof why), MBX_E_INVAL);
    assert_string_equal(why, "point parameter root: 4 is outside 0..3 (procs 4)");
    p = params_sample();
    p.pair_b = 7;
    assert_int_equal(mbx_point_params_check(&p, why, sizeof why), MBX_E_INVAL);
    assert_non_null(strstr(why, "pair_b"));
    p = params_sample();
    p.buf_offset = 100;
    assert_int_equal(mbx_point_params_check(&p, why, sizeof why), MBX_E_INVAL);
    assert_string_equal(why, "point parameter buf_offset: 100 is not a multiple of 64");
    p = params_sample();
    p.rbuf_offset = 4000;
    assert_int_equal(mbx_point_params_check(&p, why, sizeof why), MBX_E_INVAL);
    assert_string_equal(why, "point parameter rbuf_offset: 4000 is not a multiple of 64");
    p = params_sample();
    p.buf_set = MBX_BUF_SETS;
    assert_int_equal(mbx_point_params_check(&p, why, sizeof why), MBX_E_INVAL);
    assert_string_equal(why, "point parameter buf_set: 8 is outside 0..7");
    p = params_sample();
    p.rma_sync = MBX_RMA_COUNT_;
    assert_int_equal(mbx_point_params_encode(&p, buf, why, sizeof why), MBX_E_INVAL);
    assert_string_equal(why, "point parameter rma_sync: 5 is outside 0..4");
    p = params_sample();
    p.param = -1;
    assert_int_equal(mbx_point_params_check(&p, why, sizeof why), MBX_E_INVAL);
    assert_string_equal(why, "point parameter param: -1 is below 0");
    assert_int_equal(mbx_point_params_encode(NULL, buf, why, sizeof why), MBX_E_INVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip),
        cmocka_unit_test(every_opcode_round_trips),
        cmocka_unit_test(layout_is_little_endian),
        cmocka_unit_test(rejects_bad_frames),
        cmocka_unit_test(encode_rejects_bad_commands),
        cmocka_unit_test(params_round_trip),
        cmocka_unit_test(params_layout),
        cmocka_unit_test(params_reject_version_and_length),
        cmocka_unit_test(params_every_field_has_its_range),
        cmocka_unit_test(params_reject_cross_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
