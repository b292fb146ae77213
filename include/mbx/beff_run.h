/* b_eff driver on rank 0 (paper "beff-and-beff-io", section 4): runs every
 * pattern, size and method through the engine and aggregates the result.
 * Shared by `mpibex beff` (tui/cmd/beff_cmd.c) and the explorer's b_eff screen.
 *
 * NOTE for the explorer: this header is stable. Compared with the brief's
 * shape it ADDS (never renames): opts.nrandom; row.index, row.size_index,
 * row.messages; summary.ring_logavg_mbps,
 * summary.random_logavg_mbps, summary.mem_per_proc, summary.mem_source,
 * summary.nrandom, summary.lmax_capped. Rows come in this order: for every
 * pattern (ring1..ring6, random1..randomN, then the detail patterns), for
 * every size (ascending), for every method. Every row is one measurement
 * (the maximum over the repetitions); the maxima over methods, sums over
 * sizes and logarithmic averages are done by the driver and reported in
 * the summary. row.method is static; row.pattern stays valid until the
 * next mbx_beff_run.
 * Detail patterns (kind 2) are measured with sizes and methods like the
 * others, except "pingpong" (only "sendrecv": a blocking ping-pong of
 * ranks 0 and 1, one row per size). A zeroed mbx_beff_opts is valid: host
 * memory, no caps, seed 0, 3 repetitions, 30 random patterns. */
#ifndef MBX_TUI_BEFF_RUN_H
#define MBX_TUI_BEFF_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/engine.h"

typedef struct mbx_beff_opts {
    uint64_t mem_per_proc; /* 0: host memory / ranks on host (describe's mem_per_rank) */
    int cap128;            /* paper's 128 MiB cap on L_max */
    uint64_t quick_lmax;   /* 0: off; else cap L_max to this many bytes */
    double rmax_gflops;    /* 0: no balance factor */
    unsigned seed;         /* random patterns */
    int reps;              /* 1..100; 0: 3 (the paper) */
    int nrandom;           /* random patterns, 1..1000; 0: 30 (b_eff 3.x) */
} mbx_beff_opts;

typedef struct mbx_beff_row {
    const char *pattern; /* "ring1".."ring6", "random1".., "worst_cycle", "bisect_best", ...,
                            "pingpong" */
    int kind;            /* 0 ring, 1 random, 2 detail */
    uint64_t bytes;
    const char *method; /* "sendrecv", "alltoallv", "nonblocking" */
    int looplength;
    double time_s;  /* max over processes of the loop time of the best rep */
    double mbps;    /* bandwidth of this measurement (max over reps), 1e6 B/s */
    size_t index;   /* running number of the row, 0-based */
    int size_index; /* 0..20 */
    int messages;   /* total messages of the pattern per iteration */
} mbx_beff_row;

typedef struct mbx_beff_summary {
    double beff_mbps, beff_per_proc_mbps, beff_lmax_mbps, ring_lmax_mbps, pingpong_lmax_mbps,
        balance; /* balance: b_eff [MB/s] / Rmax [MFlop/s]; 0 without --rmax */
    double ring_logavg_mbps, random_logavg_mbps;
    uint64_t lmax;
    uint64_t mem_per_proc;
    const char *mem_source; /* "host MemAvailable / ranks on host", "--mem-per-proc" */
    int lmax_capped;        /* 1 when --quick or --cap128 lowered L_max */
    int procs;
    int nrandom;
    char rules[512]; /* the rules used, for the output */
} mbx_beff_summary;

/* Called on rank 0 after each row, outside any timed region. `total` is the
 * number of rows the run will produce. Nonzero cancels (MBX_E_ABORTED). */
typedef int (*mbx_beff_progress)(void *ud, const mbx_beff_row *row, size_t done, size_t total);

/* Rank 0 only; every other rank must be in mbx_engine_serve(). Runs the
 * whole benchmark. Errors: MBX_E_INVAL (bad opts), MBX_E_NOMEM, MBX_E_MPI,
 * MBX_E_ABORTED (cb returned nonzero; `out` then holds nothing useful). */
int mbx_beff_run(mbx_engine *e, const mbx_beff_opts *o, mbx_beff_progress cb, void *ud,
                 mbx_beff_summary *out);

#endif
