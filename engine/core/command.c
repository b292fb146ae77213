/* Command wire format: explicit little-endian fields at fixed offsets.
 *
 *   0 magic u32 | 4 version u16 | 6 opcode u16 | 8 seq u32 | 12 bench_id i32
 *  16 procs i32 | 20 payload_len u32 | 24 bytes u64 | 32 iarg[4] i64
 *  64 darg[4] f64 (IEEE-754 bits)  = 96 bytes */
#include "mbx/command.h"

#include <string.h>

static void put_u16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)(v & 0xff);
    p[1] = (unsigned char)(v >> 8);
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint16_t get_u16(const unsigned char *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static uint64_t double_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static double bits_double(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

int mbx_cmd_encode(const mbx_cmd *cmd, unsigned char *buf)
{
    if (!cmd || !buf || cmd->opcode >= MBX_OP_COUNT_ || cmd->payload_len > MBX_CMD_MAX_PAYLOAD)
        return MBX_E_INVAL;
    memset(buf, 0, MBX_CMD_WIRE_SIZE);
    put_u32(buf + 0, MBX_CMD_MAGIC);
    put_u16(buf + 4, MBX_CMD_VERSION);
    put_u16(buf + 6, cmd->opcode);
    put_u32(buf + 8, cmd->seq);
    put_u32(buf + 12, (uint32_t)cmd->bench_id);
    put_u32(buf + 16, (uint32_t)cmd->procs);
    put_u32(buf + 20, cmd->payload_len);
    put_u64(buf + 24, cmd->bytes);
    for (int i = 0; i < MBX_CMD_NPARAM; i++) {
        put_u64(buf + 32 + 8 * i, (uint64_t)cmd->iarg[i]);
        put_u64(buf + 64 + 8 * i, double_bits(cmd->darg[i]));
    }
    return MBX_OK;
}

int mbx_cmd_decode(const unsigned char *buf, mbx_cmd *out)
{
    if (!buf || !out)
        return MBX_E_INVAL;
    if (get_u32(buf) != MBX_CMD_MAGIC || get_u16(buf + 4) != MBX_CMD_VERSION)
        return MBX_E_PROTO;
    mbx_cmd c;
    c.version = get_u16(buf + 4);
    c.opcode = get_u16(buf + 6);
    c.seq = get_u32(buf + 8);
    c.bench_id = (int32_t)get_u32(buf + 12);
    c.procs = (int32_t)get_u32(buf + 16);
    c.payload_len = get_u32(buf + 20);
    c.bytes = get_u64(buf + 24);
    for (int i = 0; i < MBX_CMD_NPARAM; i++) {
        c.iarg[i] = (int64_t)get_u64(buf + 32 + 8 * i);
        c.darg[i] = bits_double(get_u64(buf + 64 + 8 * i));
    }
    if (c.opcode >= MBX_OP_COUNT_ || c.payload_len > MBX_CMD_MAX_PAYLOAD)
        return MBX_E_PROTO;
    *out = c;
    return MBX_OK;
}

const char *mbx_opcode_name(int opcode)
{
    static const char *const names[MBX_OP_COUNT_] = {
        "NOP",        "DESCRIBE", "CONFIGURE", "POINT_BEGIN",    "BATCH",        "POINT_END",
        "QUIT",       "VALIDATE", "PAIR_SCAN", "BEFFIO_PATTERN", "BEFF_PATTERN", "METHOD",
        "CLOCK_SYNC", "PROBE",    "THREADS",   "PREFAULT",
    };
    if (opcode < 0 || opcode >= MBX_OP_COUNT_)
        return "?";
    return names[opcode];
}
