/* mpibex commands: what rank 0 broadcasts to every rank.
 *
 * A command is a fixed-size header, encoded little-endian into exactly
 * MBX_CMD_WIRE_SIZE bytes, optionally followed by a payload of
 * payload_len bytes broadcast separately. Encoding is explicit (no struct
 * memcpy), so the wire format does not depend on padding or endianness.
 * Pure C, no MPI. */
#ifndef MBX_COMMAND_H
#define MBX_COMMAND_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/status.h"

#define MBX_CMD_MAGIC 0x4d425843u /* "MBXC" */
#define MBX_CMD_VERSION 1
#define MBX_CMD_WIRE_SIZE 96
#define MBX_CMD_NPARAM 4
#define MBX_CMD_MAX_PAYLOAD (1u << 20)

typedef enum mbx_opcode {
    MBX_OP_NOP = 0,         /* no work; used to time the command loop */
    MBX_OP_DESCRIBE = 1,    /* gather host, binding and memory of every rank */
    MBX_OP_CONFIGURE = 2,   /* set the timer (iarg[0]); calibrate it */
    MBX_OP_POINT_BEGIN = 3, /* payload: the point's parameters (mbx/pointparams.h), the
                               header's own fields unused: set up buffers, warm up */
    MBX_OP_BATCH = 4,       /* run iarg[0] observations, reduce to rank 0 */
    MBX_OP_POINT_END = 5,   /* free the point's resources */
    MBX_OP_QUIT = 6,        /* leave the serve loop; iarg[0] is the exit code */
    MBX_OP_VALIDATE = 7,    /* in a point: check received data; reduce a bad flag to rank 0 */
    MBX_OP_PAIR_SCAN = 8,   /* quick 1-byte ping-pong of rank 0 with every rank, in turn */
    /* b_eff_io: one pattern type under one access method (beffio_exec.c) */
    MBX_OP_BEFFIO_PATTERN = 9,
    /* b_eff: one pattern at one size and method, `reps` timed loops (beff_exec.c) */
    MBX_OP_BEFF_PATTERN = 10,
    /* iarg = {sync, clock-sync method, cache mode, fitpoints << 16 | exchanges}:
       set the observation method; synchronize the clocks when it is window */
    MBX_OP_METHOD = 11,
    MBX_OP_CLOCK_SYNC = 12, /* synchronize the global clock again (window sync) */
    MBX_OP_PROBE = 13,      /* iarg = {rounds, peer}: 1-byte ping-pong of rank 0 with peer */
    MBX_OP_THREADS = 14,    /* gather every rank's thread binding record (threads.*, pingpong.mt) */
    /* iarg = {largest bytes, round trips}, darg[0] = seconds per size: untimed ping-pongs
       of rank 0 with every rank and of ring neighbours at each protocol regime */
    MBX_OP_PREFAULT = 15,
    /* payload: one step of the node-pair matrix (pairs_exec.c); iarg[0] = 1 frees its state */
    MBX_OP_PAIRS = 16,
    MBX_OP_COUNT_ = 17
} mbx_opcode;

typedef struct mbx_cmd {
    uint16_t version;
    uint16_t opcode;
    uint32_t seq;
    int32_t bench_id;
    int32_t procs;
    uint64_t bytes;
    int64_t iarg[MBX_CMD_NPARAM];
    double darg[MBX_CMD_NPARAM];
    uint32_t payload_len;
} mbx_cmd;

/* Encode into buf[MBX_CMD_WIRE_SIZE]. Errors: MBX_E_INVAL for an opcode out
 * of range or a payload longer than MBX_CMD_MAX_PAYLOAD. */
MBX_NODISCARD int mbx_cmd_encode(const mbx_cmd *cmd, unsigned char *buf);

/* Decode buf[MBX_CMD_WIRE_SIZE]. Errors: MBX_E_PROTO for a wrong magic,
 * an unsupported version, an unknown opcode or an oversized payload. */
MBX_NODISCARD int mbx_cmd_decode(const unsigned char *buf, mbx_cmd *out);

/* Name of an opcode ("BATCH"), or "?" */
const char *mbx_opcode_name(int opcode);

#endif
