/* libFuzzer target: the command rank 0 broadcasts (mbx_cmd_decode). Each
 * MBX_CMD_WIRE_SIZE bytes of the input are one wire header: what decodes
 * must encode back to the same bytes. The input is also read as field
 * values to encode: what encodes must decode to the same command. The same
 * twice more for a point's parameters, POINT_BEGIN's payload
 * (mbx/pointparams.h): each MBX_POINT_PARAMS_WIRE_SIZE bytes, and the whole
 * input, as a record to decode; each run of field values as one to encode. */
#include <string.h>

#include "fuzz_util.h"
#include "mbx/command.h"
#include "mbx/pointparams.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same_cmd(const mbx_cmd *a, const mbx_cmd *b)
{
    int same = a->version == b->version && a->opcode == b->opcode && a->seq == b->seq &&
               a->bench_id == b->bench_id && a->procs == b->procs && a->bytes == b->bytes &&
               a->payload_len == b->payload_len;
    for (int i = 0; i < MBX_CMD_NPARAM; i++)
        same = same && a->iarg[i] == b->iarg[i] &&
               memcmp(&a->darg[i], &b->darg[i], sizeof a->darg[i]) == 0; /* NaN payloads too */
    return same;
}

static void decode_one(const uint8_t *wire)
{
    mbx_cmd c;
    unsigned char again[MBX_CMD_WIRE_SIZE];
    int rc = mbx_cmd_decode(wire, &c);
    if (rc != MBX_OK) {
        MBX_FUZZ_CHECK(rc == MBX_E_PROTO);
        return;
    }
    MBX_FUZZ_CHECK(c.version == MBX_CMD_VERSION && c.opcode < MBX_OP_COUNT_);
    MBX_FUZZ_CHECK(c.payload_len <= MBX_CMD_MAX_PAYLOAD);
    MBX_FUZZ_CHECK(strcmp(mbx_opcode_name(c.opcode), "?") != 0);
    MBX_FUZZ_CHECK(mbx_cmd_encode(&c, again) == MBX_OK);
    MBX_FUZZ_CHECK(memcmp(again, wire, MBX_CMD_WIRE_SIZE) == 0);
}

/* The fields of a command straight from the bytes (no wire format). */
static void encode_one(const uint8_t *p)
{
    mbx_cmd c, back;
    memset(&c, 0, sizeof c);
    c.version = MBX_CMD_VERSION;
    memcpy(&c.opcode, p, sizeof c.opcode);
    memcpy(&c.seq, p + 2, sizeof c.seq);
    memcpy(&c.bench_id, p + 6, sizeof c.bench_id);
    memcpy(&c.procs, p + 10, sizeof c.procs);
    memcpy(&c.bytes, p + 14, sizeof c.bytes);
    memcpy(&c.payload_len, p + 22, sizeof c.payload_len);
    memcpy(c.iarg, p + 26, sizeof c.iarg);
    memcpy(c.darg, p + 26 + sizeof c.iarg, sizeof c.darg);
    unsigned char wire[MBX_CMD_WIRE_SIZE];
    int rc = mbx_cmd_encode(&c, wire);
    if (rc != MBX_OK) {
        MBX_FUZZ_CHECK(rc == MBX_E_INVAL);
        MBX_FUZZ_CHECK(c.opcode >= MBX_OP_COUNT_ || c.payload_len > MBX_CMD_MAX_PAYLOAD);
        return;
    }
    MBX_FUZZ_CHECK(mbx_cmd_decode(wire, &back) == MBX_OK);
    MBX_FUZZ_CHECK(same_cmd(&c, &back));
}

#define FIELDS_SIZE (26 + 8 * MBX_CMD_NPARAM * 2)

/* A point's parameters: a refusal is a documented error with its line; what
 * decodes encodes back to the same bytes. */
static void params_decode_one(const uint8_t *wire, size_t size)
{
    mbx_point_params p;
    char why[160] = "";
    unsigned char again[MBX_POINT_PARAMS_WIRE_SIZE];
    int rc = mbx_point_params_decode(wire, size, &p, why, sizeof why);
    if (rc != MBX_OK) {
        MBX_FUZZ_CHECK(rc == MBX_E_PROTO || rc == MBX_E_INVAL);
        MBX_FUZZ_CHECK(strncmp(why, "point parameter", 15) == 0);
        return;
    }
    MBX_FUZZ_CHECK(size == MBX_POINT_PARAMS_WIRE_SIZE);
    MBX_FUZZ_CHECK(mbx_point_params_encode(&p, again, why, sizeof why) == MBX_OK);
    MBX_FUZZ_CHECK(memcmp(again, wire, size) == 0);
}

#define PARAMS_FIELDS_SIZE (MBX_POINT_PARAMS_WIRE_SIZE - 4)

/* The fields of a point's parameters straight from the bytes, in the
 * list's order: what encodes decodes to the same fields, bit for bit. */
static void params_encode_one(const uint8_t *at)
{
    mbx_point_params p, back;
    memset(&p, 0, sizeof p);
#define FILL_(type, name, lo, hi) memcpy(&p.name, at, sizeof p.name), at += sizeof p.name;
    MBX_POINT_PARAMS(FILL_)
#undef FILL_
    unsigned char wire[MBX_POINT_PARAMS_WIRE_SIZE];
    char why[160] = "";
    int rc = mbx_point_params_encode(&p, wire, why, sizeof why);
    if (rc != MBX_OK) {
        MBX_FUZZ_CHECK(rc == MBX_E_INVAL && strncmp(why, "point parameter", 15) == 0);
        MBX_FUZZ_CHECK(mbx_point_params_check(&p, NULL, 0) == MBX_E_INVAL);
        return;
    }
    MBX_FUZZ_CHECK(mbx_point_params_decode(wire, sizeof wire, &back, why, sizeof why) == MBX_OK);
#define SAME_(type, name, lo, hi) &&memcmp(&p.name, &back.name, sizeof p.name) == 0
    MBX_FUZZ_CHECK(1 MBX_POINT_PARAMS(SAME_));
#undef SAME_
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (size_t off = 0; off + MBX_CMD_WIRE_SIZE <= size; off += MBX_CMD_WIRE_SIZE)
        decode_one(data + off);
    for (size_t off = 0; off + FIELDS_SIZE <= size; off += FIELDS_SIZE)
        encode_one(data + off);
    for (size_t off = 0; off + MBX_POINT_PARAMS_WIRE_SIZE <= size;
         off += MBX_POINT_PARAMS_WIRE_SIZE)
        params_decode_one(data + off, MBX_POINT_PARAMS_WIRE_SIZE);
    params_decode_one(data, size); /* the whole input as one payload: most are the wrong size */
    for (size_t off = 0; off + PARAMS_FIELDS_SIZE <= size; off += PARAMS_FIELDS_SIZE)
        params_encode_one(data + off);
    /* A short tail: the header a truncated broadcast would leave. */
    if (size % MBX_CMD_WIRE_SIZE != 0) {
        unsigned char wire[MBX_CMD_WIRE_SIZE] = {0};
        memcpy(wire, data + size - size % MBX_CMD_WIRE_SIZE, size % MBX_CMD_WIRE_SIZE);
        decode_one(wire);
    }
    return 0;
}
