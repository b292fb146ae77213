/* Command wire format: explicit little-endian fields at fixed offsets.
 *
 *   0 magic u32 | 4 version u16 | 6 opcode u16 | 8 seq u32 | 12 bench_id i32
 *  16 procs i32 | 20 payload_len u32 | 24 bytes u64 | 32 iarg[4] i64
 *  64 darg[4] f64 (IEEE-754 bits)  = 96 bytes
 *
 * The payload of POINT_BEGIN, a point's parameters, is encoded here too,
 * field by field from the list in mbx/pointparams.h. */
#include "mbx/command.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mbx/pointparams.h"

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
        "CLOCK_SYNC", "PROBE",    "THREADS",   "PREFAULT",       "PAIRS",
    };
    if (opcode < 0 || opcode >= MBX_OP_COUNT_)
        return "?";
    return names[opcode];
}

/* ---- A point's parameters (mbx/pointparams.h) ---- */

enum { PP_I32, PP_U32, PP_I64, PP_U64, PP_F64, PP_F64N };
#define PP_LETTER_I32 'i'
#define PP_LETTER_U32 'I'
#define PP_LETTER_I64 'l'
#define PP_LETTER_U64 'L'
#define PP_LETTER_F64 'd'
#define PP_LETTER_F64N 'n'

/* The wire offset of each field: the enumerators count up from the end of
 * the record's head (bytes 0..3), each field's last byte one before the next
 * field's first. */
#define PP_AT_(type, name, lo, hi)                                                                 \
    PP_AT_##name, PP_LAST_##name = PP_AT_##name + MBX_PP_WIDTH_##type - 1,
enum { PP_HEAD_LAST_ = 3, MBX_POINT_PARAMS(PP_AT_) PP_END_ };
#undef PP_AT_
_Static_assert(PP_END_ == MBX_POINT_PARAMS_WIRE_SIZE, "wire offsets add up to the size");
_Static_assert(MBX_POINT_PARAMS_WIRE_SIZE <= UINT16_MAX, "the length fits its u16");

typedef struct pp_field {
    mbx_point_field pub;
    int type;
    size_t at; /* offset in mbx_point_params */
} pp_field;

#define PP_ROW_(type, name, lo, hi)                                                                \
    {{#name, PP_LETTER_##type, PP_AT_##name, (double)(lo), (double)(hi)},                          \
     PP_##type,                                                                                    \
     offsetof(mbx_point_params, name)},
static const pp_field pp_fields[] = {MBX_POINT_PARAMS(PP_ROW_)};
#undef PP_ROW_
#define PP_COUNT (sizeof pp_fields / sizeof *pp_fields)

const mbx_point_field *mbx_point_field_at(size_t i)
{
    return i < PP_COUNT ? &pp_fields[i].pub : NULL;
}

/* A field's value as a double (for its range) and as an integer (for the
 * message), from the struct. */
static double pp_value(const mbx_point_params *p, const pp_field *f, long long *whole)
{
    const char *at = (const char *)p + f->at;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    double d;
    switch (f->type) {
    case PP_I32:
        memcpy(&i32, at, sizeof i32);
        *whole = i32;
        return i32;
    case PP_U32:
        memcpy(&u32, at, sizeof u32);
        *whole = u32;
        return u32;
    case PP_I64:
        memcpy(&i64, at, sizeof i64);
        *whole = i64;
        return (double)i64;
    case PP_U64:
        memcpy(&u64, at, sizeof u64);
        *whole = u64 > INT64_MAX ? -1 : (long long)u64;
        return (double)u64;
    default:
        memcpy(&d, at, sizeof d);
        *whole = 0;
        return d;
    }
}

static int pp_refuse(char *why, size_t len, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int pp_refuse(char *why, size_t len, int rc, const char *fmt, ...)
{
    if (why && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, len, fmt, ap);
        va_end(ap);
    }
    return rc;
}

static int pp_out_of_range(const pp_field *f, double v, long long whole, char *why, size_t len)
{
    const char *name = f->pub.name;
    if (f->type == PP_F64 || f->type == PP_F64N)
        return pp_refuse(why, len, MBX_E_INVAL, "point parameter %s: %g is outside %g..%g%s", name,
                         v, f->pub.lo, f->pub.hi, f->type == PP_F64N ? " (or none)" : "");
    if (f->type == PP_U64 && whole < 0)
        return pp_refuse(why, len, MBX_E_INVAL, "point parameter %s: %.0f is outside %.0f..%.0f",
                         name, v, f->pub.lo, f->pub.hi);
    if (f->pub.hi >= 9e18) /* INT64_MAX: no upper bound worth printing */
        return pp_refuse(why, len, MBX_E_INVAL, "point parameter %s: %lld is below %.0f", name,
                         whole, f->pub.lo);
    return pp_refuse(why, len, MBX_E_INVAL, "point parameter %s: %lld is outside %.0f..%.0f", name,
                     whole, f->pub.lo, f->pub.hi);
}

int mbx_point_params_check(const mbx_point_params *p, char *why, size_t len)
{
    if (!p)
        return pp_refuse(why, len, MBX_E_INVAL, "point parameters: none");
    for (size_t i = 0; i < PP_COUNT; i++) {
        const pp_field *f = &pp_fields[i];
        long long whole;
        double v = pp_value(p, f, &whole);
        if (!(v >= f->pub.lo && v <= f->pub.hi) && !(f->type == PP_F64N && isnan(v)))
            return pp_out_of_range(f, v, whole, why, len);
    }
    /* The rules between fields: ranks of the point, the offset's step. */
    const int32_t rank[] = {p->pair_a, p->pair_b, p->root};
    static const char *const rank_name[] = {"pair_a", "pair_b", "root"};
    for (int i = 0; i < 3; i++)
        if (rank[i] >= p->procs)
            return pp_refuse(why, len, MBX_E_INVAL,
                             "point parameter %s: %d is outside 0..%d (procs %d)", rank_name[i],
                             (int)rank[i], (int)p->procs - 1, (int)p->procs);
    const uint32_t off[] = {p->buf_offset, p->rbuf_offset};
    static const char *const off_name[] = {"buf_offset", "rbuf_offset"};
    for (int i = 0; i < 2; i++)
        if (off[i] % MBX_BUF_OFFSET_STEP != 0)
            return pp_refuse(why, len, MBX_E_INVAL,
                             "point parameter %s: %u is not a multiple of %d", off_name[i],
                             (unsigned)off[i], MBX_BUF_OFFSET_STEP);
    return MBX_OK;
}

int mbx_point_params_encode(const mbx_point_params *p, unsigned char *buf, char *why, size_t len)
{
    if (!buf)
        return pp_refuse(why, len, MBX_E_INVAL, "point parameters: no buffer");
    int rc = mbx_point_params_check(p, why, len);
    if (rc < 0)
        return rc;
    memset(buf, 0, MBX_POINT_PARAMS_WIRE_SIZE);
    put_u16(buf, MBX_POINT_PARAMS_VERSION);
    put_u16(buf + 2, MBX_POINT_PARAMS_WIRE_SIZE);
    for (size_t i = 0; i < PP_COUNT; i++) {
        const pp_field *f = &pp_fields[i];
        const char *at = (const char *)p + f->at;
        unsigned char *w = buf + f->pub.wire_offset;
        uint32_t u32;
        uint64_t u64;
        if (f->type == PP_I32 || f->type == PP_U32) { /* same width, same bits */
            memcpy(&u32, at, sizeof u32);
            put_u32(w, u32);
        } else { /* the 64-bit types; a double's IEEE-754 bits */
            memcpy(&u64, at, sizeof u64);
            put_u64(w, u64);
        }
    }
    return MBX_OK;
}

int mbx_point_params_decode(const unsigned char *buf, size_t size, mbx_point_params *out, char *why,
                            size_t len)
{
    if (!buf || !out)
        return pp_refuse(why, len, MBX_E_INVAL, "point parameters: none");
    if (size != MBX_POINT_PARAMS_WIRE_SIZE)
        return pp_refuse(why, len, MBX_E_PROTO, "point parameters: %zu bytes, expected %d", size,
                         MBX_POINT_PARAMS_WIRE_SIZE);
    unsigned version = get_u16(buf), length = get_u16(buf + 2);
    if (version != MBX_POINT_PARAMS_VERSION)
        return pp_refuse(why, len, MBX_E_PROTO,
                         "point parameters: version %u, this build reads version %d", version,
                         MBX_POINT_PARAMS_VERSION);
    if (length != MBX_POINT_PARAMS_WIRE_SIZE)
        return pp_refuse(why, len, MBX_E_PROTO, "point parameters: length %u, expected %d", length,
                         MBX_POINT_PARAMS_WIRE_SIZE);
    mbx_point_params p;
    for (size_t i = 0; i < PP_COUNT; i++) {
        const pp_field *f = &pp_fields[i];
        char *at = (char *)&p + f->at;
        const unsigned char *w = buf + f->pub.wire_offset;
        if (f->type == PP_I32 || f->type == PP_U32) {
            uint32_t u32 = get_u32(w);
            memcpy(at, &u32, sizeof u32);
        } else {
            uint64_t u64 = get_u64(w);
            memcpy(at, &u64, sizeof u64);
        }
    }
    int rc = mbx_point_params_check(&p, why, len);
    if (rc < 0)
        return rc;
    *out = p;
    return MBX_OK;
}
