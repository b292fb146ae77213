/* b_eff, the effective network bandwidth (Rabenseifner & Koniges,
 * "Effective communication and file-I/O bandwidth benchmarks", section 4):
 * the pure part. Message sizes, ring-size splitting, pattern construction
 * (every process's partners), loop-length adaptation and the aggregation
 * formula. Pure C, no MPI; the MPI side is engine/mpi/beff_exec.c and the
 * rank-0 driver engine/sched/beff_run.c.
 *
 * Facts taken (never code) from the public b_eff 3.x program by R.
 * Rabenseifner and G. Schulz (HLRS), where the paper leaves a rule open:
 * the ring-size split of the six ring patterns, 30 random patterns, the
 * worst-cycle order, the bi-section pairs and the choice of the Cartesian
 * grid. Where program and paper disagree the paper wins (see
 * docs/algorithms.md, "b_eff"). */
#ifndef MBX_BEFF_H
#define MBX_BEFF_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/status.h"

#define MBX_BEFF_NSIZES 21  /* 1 B .. 4 KiB (13), then 8 geometric steps */
#define MBX_BEFF_NPOW2 13   /* 2^0 .. 2^12 */
#define MBX_BEFF_NRINGS 6   /* ring patterns */
#define MBX_BEFF_NRANDOM 30 /* random patterns (b_eff 3.x) */
#define MBX_BEFF_NRANDOM_MAX 1000
#define MBX_BEFF_MAXSTEPS 6     /* messages a process sends per iteration, at most */
#define MBX_BEFF_LOOP_FIRST 300 /* loop length at the smallest size */
#define MBX_BEFF_LOOP_LO 2.5e-3 /* a loop should take 2.5 .. 5 ms */
#define MBX_BEFF_LOOP_HI 5e-3
#define MBX_BEFF_LOOP_AIM 3.75e-3              /* aim between the bounds */
#define MBX_BEFF_LMIN ((uint64_t)4096)         /* L_max >= 4 KiB */
#define MBX_BEFF_CAP ((uint64_t)128 << 20)     /* the paper's 128 MB cap */
#define MBX_BEFF_MEM_MIN (MBX_BEFF_LMIN * 128) /* smallest memory per process */

enum { MBX_BEFF_RING = 0, MBX_BEFF_RANDOM = 1, MBX_BEFF_DETAIL = 2 };
enum { MBX_BEFF_SENDRECV = 0, MBX_BEFF_ALLTOALLV = 1, MBX_BEFF_NONBLOCKING = 2, MBX_BEFF_NMETHODS };

/* L_max = mem_per_proc / 128, then min(., 128 MiB) with cap128, then
 * min(., quick) when quick > 0. Never below MBX_BEFF_LMIN. */
uint64_t mbx_beff_lmax(uint64_t mem_per_proc, int cap128, uint64_t quick);

/* The 21 message sizes: 2^0 .. 2^12, then round(4096 * a^k), k = 1..8,
 * with a = (lmax / 4096)^(1/8), the last exactly lmax. Non-decreasing.
 * Errors: MBX_E_INVAL for lmax < 4096 or a NULL out. */
MBX_NODISCARD int mbx_beff_sizes(uint64_t lmax, uint64_t out[MBX_BEFF_NSIZES]);

/* Ring sizes of ring pattern `pattern` (1..6) for `procs` >= 2 processes,
 * in rank order: standard size s = 2, 4, 8, max(16, P/4), max(32, P/2), P
 * (at most P); n = max(1, min(floor(P/s + 0.4), floor(P/2))) rings of
 * floor(P/n) or floor(P/n)+1 processes, the larger ones first when the
 * smaller size is odd, else the smaller first. Paper override: pattern 2
 * with P <= 7 is one ring. Writes at most cap sizes and the number of
 * rings (>= 1) to *nrings. MBX_OK or MBX_E_INVAL. */
MBX_NODISCARD int mbx_beff_ring_sizes(int pattern, int procs, int *sizes, int cap, int *nrings);

/* "3*2+1*3" style description of a ring split (counts of equal sizes, in
 * order). */
void mbx_beff_ring_describe(const int *sizes, int n, char *buf, size_t len);

/* A random order of 0..procs-1 (Fisher-Yates on a SplitMix64 stream of
 * seed and index): the same (seed, index) gives the same order. */
MBX_NODISCARD int mbx_beff_random_order(unsigned seed, int index, int procs, int *order);

/* Worst-cycle order (b_eff 3.x): 0, P-1, 1, P-2, 2, ... */
MBX_NODISCARD int mbx_beff_worst_order(int procs, int *order);

/* Balanced factorization of n into ndims factors, non-increasing, like
 * MPI_Dims_create with all dims free. */
MBX_NODISCARD int mbx_beff_dims(int n, int ndims, int *dims);

/* The Cartesian grid of the detail patterns (b_eff 3.x): the largest q <= P
 * whose balanced ndims-factorization has last factor > 1, or q < 4, or
 * q < 8 and even. *grid gets q, dims its factors. MBX_OK or MBX_E_INVAL. */
MBX_NODISCARD int mbx_beff_cart_grid(int procs, int ndims, int *dims, int *grid);

/* One communication pattern: for every process p and step s < nsteps,
 * to[p*MAXSTEPS+s] and from[...] are partner ranks or -1 (none). In step
 * s a process sends L bytes to `to` and receives L bytes from `from`; the
 * message sent in step s is received in step s by its target. */
typedef struct mbx_beff_pattern {
    char name[24]; /* "ring1", "random7", "worst_cycle", "cart3d_xyz", ... */
    char desc[64]; /* e.g. "rings 3*2+1*3" */
    int kind;      /* MBX_BEFF_RING, _RANDOM, _DETAIL */
    int procs;
    int nsteps;
    int messages; /* total messages of the pattern per iteration */
    int pingpong; /* only the Sendrecv method (ping-pong of ranks 0 and 1) */
    int32_t *to, *from;
} mbx_beff_pattern;

typedef struct mbx_beff_patterns {
    mbx_beff_pattern *p;
    size_t n;
    int nring, nrandom; /* the first nring are ring patterns, then nrandom random */
} mbx_beff_patterns;

/* Every pattern of a run: ring1..ring6, random1..random<nrandom>, then the
 * detail patterns worst_cycle, bisect_best, bisect_worst, cart2d_<dirs>,
 * cart2d_all, cart3d_<dirs>, cart3d_all, pingpong. A ring of order `order`
 * split into rings: every process sends to its left neighbour and receives
 * from its right one, then sends to its right and receives from its left
 * (two steps, also in a ring of two, where both neighbours are the same
 * process). procs >= 2. Errors: MBX_E_INVAL, MBX_E_NOMEM. */
MBX_NODISCARD int mbx_beff_patterns_build(int procs, int nrandom, unsigned seed,
                                          mbx_beff_patterns *out);
void mbx_beff_patterns_free(mbx_beff_patterns *ps);

/* Loop length for the next size from the previous one: the previous
 * size's time per iteration scaled by size_ratio predicts this one; aim at
 * MBX_BEFF_LOOP_AIM, never above prev_len, never below 1. Returns the
 * length (a plain value: it cannot fail). */
int mbx_beff_loop_next(int prev_len, double prev_iter_s, double size_ratio);

/* After a measured loop: the loop length to use instead, or len itself when
 * the loop took 2.5..5 ms or cannot be moved toward that window (len 1 and
 * too slow; len == cap and too fast). A plain value: it cannot fail. */
int mbx_beff_loop_fix(int len, double loop_s, int cap);

/* Logarithmic average exp(mean(log v)); NAN when n == 0 or any v <= 0. */
double mbx_beff_logavg(const double *v, size_t n);

/* Aggregation. best[i*21 + k] is max over methods and repetitions of the
 * bandwidth of pattern i at size k, for the nring ring patterns followed by
 * the nrandom random patterns. */
typedef struct mbx_beff_agg {
    double ring, random, beff;                /* sums over sizes / 21, log-averaged */
    double ring_lmax, random_lmax, beff_lmax; /* the same at L_max only */
} mbx_beff_agg;
MBX_NODISCARD int mbx_beff_aggregate(const double *best, int nring, int nrandom, mbx_beff_agg *out);

/* The rules a run used, one line ("; "-separated) for the summary. */
void mbx_beff_rules(char *buf, size_t len, int procs, int nrandom, int reps, unsigned seed,
                    uint64_t lmax, int capped);

/* ---- MPI side (engine/mpi/beff_exec.c), rank 0 only ---- */
typedef struct mbx_engine mbx_engine;

/* One MBX_OP_BEFF_PATTERN: every rank runs pattern pt (procs must be the
 * job's size) at `bytes` per message with `method`, reps loops of
 * looplength iterations; times[r] gets loop r's maximum time over the
 * processes in seconds. Errors: MBX_E_INVAL, MBX_E_NOMEM (on any rank),
 * MBX_E_MPI. */
MBX_NODISCARD int mbx_engine_beff_pattern(mbx_engine *e, const mbx_beff_pattern *pt, uint64_t bytes,
                                          int method, int looplength, int reps, double *times);

/* Free the buffers every rank keeps between pattern commands. */
MBX_NODISCARD int mbx_engine_beff_release(mbx_engine *e);

#endif
