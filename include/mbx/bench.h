/* mpibex benchmark registry.
 *
 * A benchmark is a pattern plus an operation variant. Its `run` executes k
 * observations on the point's communicator and writes each rank's raw local
 * durations (seconds) into t[0..k); ranks that do not time (the ping-pong
 * responder) leave ctx->timing at 0. The engine subtracts the timer
 * overhead, reduces the maximum over ranks to rank 0, and divides by
 * `divisor` (2 for ping-pong's half round trip). Nothing in `run` may print,
 * allocate, or touch the front end. */
#ifndef MBX_BENCH_H
#define MBX_BENCH_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "mbx/timer.h"

typedef struct mbx_bench_ctx {
    MPI_Comm comm;  /* the point's communicator; every rank in it takes part */
    int rank, size; /* in comm */
    uint64_t bytes; /* message size of the point (aligned to the unit) */
    void *sbuf, *rbuf;
    size_t buf_len; /* bytes of each of sbuf and rbuf */
    mbx_timer_kind timer;
    int timing; /* set by setup/run: 1 if this rank's t[] are meaningful */
    int count;  /* elements of the benchmark's datatype in one message */
    void *priv; /* the benchmark's own state, made in setup */
} mbx_bench_ctx;

enum {
    MBX_BENCH_SIZED = 1u << 0, /* varies over message size */
};

typedef struct mbx_bench {
    const char *name;    /* "pingpong.send_recv" */
    const char *pattern; /* "pingpong", "coll" */
    const char *summary; /* one line for `mpibex list` */
    const char *timing;  /* "half_round_trip" or "max_over_ranks" */
    int min_procs;
    unsigned flags;
    unsigned unit;  /* datatype size: message bytes are multiples of it */
    double divisor; /* observation = max over ranks / divisor */
    /* Bytes of each send and receive buffer a rank needs. */
    uint64_t (*buf_bytes)(uint64_t bytes, int procs);
    /* Optional: prepare priv/count after buffers exist. MPI error code. */
    int (*setup)(mbx_bench_ctx *ctx);
    /* Run k observations. Returns an MPI error code (MPI_SUCCESS). */
    int (*run)(mbx_bench_ctx *ctx, size_t k, double *t);
    void (*teardown)(mbx_bench_ctx *ctx);
} mbx_bench;

/* The registry, in display order. */
size_t mbx_bench_count(void);
const mbx_bench *mbx_bench_get(int id); /* NULL if out of range */
int mbx_bench_find(const char *name);   /* id, or -1 */

/* The size actually measured for a requested size: rounded down to the
 * unit, at least one unit; 0 for unsized benchmarks. */
uint64_t mbx_bench_align(const mbx_bench *b, uint64_t bytes);

/* Pattern tables (registry.c concatenates them). */
extern const mbx_bench mbx_bench_pingpong_table[];
extern const size_t mbx_bench_pingpong_count;
extern const mbx_bench mbx_bench_coll_table[];
extern const size_t mbx_bench_coll_count;

#endif
