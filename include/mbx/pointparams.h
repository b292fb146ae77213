/* A point's parameters: what rank 0 tells every rank when a point starts
 * (the payload of MBX_OP_POINT_BEGIN, mbx/command.h).
 *
 * A typed, versioned record, encoded little-endian at fixed offsets:
 *
 *   0 version u16 | 2 length u16 (the whole record, bytes) | 4 the fields
 *   of MBX_POINT_PARAMS in its order, each at its width (4 or 8 bytes)
 *
 * MBX_POINT_PARAMS is the one list of the fields: it makes the struct, the
 * wire layout, the range each field must be in, and what the unit test and
 * the fuzz target check, so a new parameter is one line here
 * (docs/contributing.md, "Add a point parameter"). The values are resolved:
 * no "0 means the default" on the wire. Pure C, no MPI. */
#ifndef MBX_POINTPARAMS_H
#define MBX_POINTPARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/rma.h"
#include "mbx/status.h"

/* Bump with every change of the list: ranks of a mixed build refuse the
 * record instead of misreading it. */
#define MBX_POINT_PARAMS_VERSION 3

/* Where the send and receive buffers may start after a page boundary
 * (mbx_point_spec.buf_offset; the receive buffer's is drawn apart). */
#define MBX_BUF_OFFSET_STEP 64
#define MBX_BUF_OFFSET_MAX 4032
/* Buffer sets in a rank's pool, each its own mappings; a measurement
 * uses one, drawn by rank 0 (docs/algorithms.md, "One point"). */
#define MBX_BUF_SETS 8

/* X(TYPE, name, lo, hi): a field of wire type I32, U32, I64, U64 or F64
 * (F64N: F64, or NaN for "none"), and the closed range decoding accepts.
 * Ranges that depend on another field are checked in engine/core/command.c
 * (ranks below procs, the buffer offsets' step). */
#define MBX_POINT_PARAMS(X)                                                                        \
    X(I32, bench_id, 0, INT32_MAX)             /* the registry's index (mbx/bench.h) */            \
    X(I32, procs, 1, INT32_MAX)                /* the first procs ranks take part */               \
    X(U64, bytes, 0, INT32_MAX)                /* message size */                                  \
    X(I64, param, 0, INT64_MAX)                /* MBX_BENCH_PARAM's value (resolved) */            \
    X(I32, pair_a, 0, INT32_MAX)               /* ping-pong pair, ranks of the point */            \
    X(I32, pair_b, 0, INT32_MAX)               /*   (resolved: never "equal = default") */         \
    X(I32, root, 0, INT32_MAX)                 /* rooted benchmarks' root */                       \
    X(I32, rma_sync, 0, MBX_RMA_COUNT_ - 1)    /* mbx_rma_sync, resolved; 0 for non-RMA */         \
    X(I32, resync, 0, 1)                       /* window sync: sync the clocks first */            \
    X(I64, warm_calls, 1, 1000000)             /* warm-up calls, at least */                       \
    X(F64, warm_floor_s, 0.0, 1.0)             /* warm-up time, at least */                        \
    X(F64, warm_cap_s, 0.0, 60.0)              /* warm-up time, at most (MBX_WARMUP_CAP_S) */      \
    X(U32, buf_offset, 0, MBX_BUF_OFFSET_MAX)  /* send buffer's; a multiple of the step */         \
    X(U32, rbuf_offset, 0, MBX_BUF_OFFSET_MAX) /* receive buffer's; likewise */                    \
    X(I32, buf_set, 0, MBX_BUF_SETS - 1)       /* the pool's set (modulo a rank's own sets) */     \
    X(I32, comm_dup, 0, 1)                     /* 1: a duplicate of the communicator */            \
    X(F64N, companion, 0.0, 1e9)               /* companion's median, s (NaN: none) */

#define MBX_PP_CTYPE_I32 int32_t
#define MBX_PP_CTYPE_U32 uint32_t
#define MBX_PP_CTYPE_I64 int64_t
#define MBX_PP_CTYPE_U64 uint64_t
#define MBX_PP_CTYPE_F64 double
#define MBX_PP_CTYPE_F64N double
#define MBX_PP_WIDTH_I32 4
#define MBX_PP_WIDTH_U32 4
#define MBX_PP_WIDTH_I64 8
#define MBX_PP_WIDTH_U64 8
#define MBX_PP_WIDTH_F64 8
#define MBX_PP_WIDTH_F64N 8

#define MBX_PP_MEMBER_(type, name, lo, hi) MBX_PP_CTYPE_##type name;
typedef struct mbx_point_params {
    MBX_POINT_PARAMS(MBX_PP_MEMBER_)
} mbx_point_params;
#undef MBX_PP_MEMBER_

#define MBX_PP_SIZE_(type, name, lo, hi) +MBX_PP_WIDTH_##type
/* The encoded record's size in bytes. */
#define MBX_POINT_PARAMS_WIRE_SIZE (4 MBX_POINT_PARAMS(MBX_PP_SIZE_))

/* One field as the list describes it, for tests and fuzzing: its name,
 * wire type (a letter of "iIlLdn": I32, U32, I64, U64, F64, F64N), offset in
 * the record, and range. */
typedef struct mbx_point_field {
    const char *name;
    char type;
    size_t wire_offset;
    double lo, hi;
} mbx_point_field;

/* The list's i-th field, from 0; NULL past the last. */
const mbx_point_field *mbx_point_field_at(size_t i);

/* Whether every field is in its range and the ranks, the buffer offset and
 * a NaN fit the rules above. MBX_OK, or MBX_E_INVAL with one line in
 * why[0..len) naming the field and its allowed range
 * ("point parameter root: 5 is outside 0..3"). */
MBX_NODISCARD int mbx_point_params_check(const mbx_point_params *p, char *why, size_t len);

/* Encode into buf[MBX_POINT_PARAMS_WIRE_SIZE] with this build's version.
 * Errors: MBX_E_INVAL (a NULL argument, or what mbx_point_params_check
 * refuses, with its line in why). */
MBX_NODISCARD int mbx_point_params_encode(const mbx_point_params *p, unsigned char *buf, char *why,
                                          size_t len);

/* Decode buf[0..size). Errors, each with one line in why[0..len):
 * MBX_E_PROTO for a size, version or length field that is not this
 * build's; MBX_E_INVAL for a value mbx_point_params_check refuses;
 * MBX_E_INVAL for a NULL buf or out. *out is written only on success. */
MBX_NODISCARD int mbx_point_params_decode(const unsigned char *buf, size_t size,
                                          mbx_point_params *out, char *why, size_t len);

#endif
