/* The grid of a measurement (docs/architecture.md): one benchmark's
 * points, parameter by parameter, process count by process count, size
 * by size. `mpibex run` and the explorer both expand their grids here;
 * what they do with a point or a problem (a curve or a copy, an error or
 * a warning) is their hook's. */
#ifndef MBX_GRID_H
#define MBX_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/bench.h"
#include "mbx/sizes.h"

typedef enum mbx_grid_kind {
    MBX_GRID_CURVE,     /* the sizes of one (param, procs) begin */
    MBX_GRID_POINT,     /* a point: param, procs, root, bytes */
    MBX_GRID_ZERO,      /* sizes[size] is 0 B, which the benchmark cannot measure: skipped */
    MBX_GRID_MEMORY,    /* bytes need `need` bytes of buffers per rank, over 90% of a rank's */
    MBX_GRID_CURVE_END, /* the sizes of one (param, procs) are done: npoints of them */
    MBX_GRID_FEW_PROCS, /* procs is under the benchmark's minimum: that count is skipped */
    MBX_GRID_ROOT,      /* root is not a rank of a procs-process point: that count is skipped */
} mbx_grid_kind;

typedef struct mbx_grid_event {
    mbx_grid_kind kind;
    size_t iparam, iprocs, isize; /* the indices into the grid's lists */
    int64_t param;                /* 0 for a benchmark without a parameter */
    int procs, root;              /* root 0 for a benchmark without one */
    uint64_t bytes, need;
    size_t npoints; /* MBX_GRID_CURVE_END: the points of the curve */
} mbx_grid_event;

/* A hook's answer: 0 goes on; > 0 ends the current curve's sizes (e.g. a
 * full point table); < 0 ends the expansion, which returns it. */
typedef int (*mbx_grid_hook)(void *ud, const mbx_grid_event *ev);

typedef struct mbx_grid {
    const mbx_bench *b;
    const int64_t *param; /* used only when b takes one; nparam 0: its default */
    size_t nparam;
    const int *procs; /* from mbx_grid_counts */
    size_t nprocs;
    const mbx_size_list *sizes; /* one point at sizes->v[0] when b is unsized */
    int root;                   /* used only when b is rooted */
    int check_memory;           /* 1: sizes are checked against mem_per_rank */
    uint64_t mem_per_rank;
} mbx_grid;

/* The process counts b runs at: a ping-pong on the whole job (its pair
 * exchanges, the rest wait), an inner-loop benchmark on one rank (*one
 * holds the count), anything else at procs[0..n). */
const int *mbx_grid_counts(const mbx_bench *b, int nranks, const int *procs, size_t n, int *one,
                           size_t *pn);

/* 1 if bytes at procs fit: under 2 GiB and two buffers within 90% of
 * mem_per_rank; *need gets the two buffers' bytes. */
int mbx_grid_fits(const mbx_bench *b, uint64_t bytes, int procs, uint64_t mem_per_rank,
                  uint64_t *need);

/* Walk g in order: parameters, then process counts, then sizes (each
 * aligned to the benchmark; a size that aligns to the one before is the
 * same point and skipped). Every point and problem goes to hook. 0, or a
 * hook's negative answer. */
int mbx_grid_expand(const mbx_grid *g, mbx_grid_hook hook, void *ud);

#endif
