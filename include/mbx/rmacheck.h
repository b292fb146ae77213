/* Whether the MPI library can run the one-sided benchmarks (rma.*) at all:
 * the known broken pairing of MPICH 4.0.x over UCX 1.13 or later with
 * UCX's registration cache on, which completes one-sided operations
 * without moving their data (docs/user-guide.md, "One-sided"). Pure C,
 * no MPI: the facts come from the caller (mbx_engine_rma_facts in
 * mbx/engine.h gathers them on a rank). */
#ifndef MBX_RMACHECK_H
#define MBX_RMACHECK_H

#include <stddef.h>

/* The variable that turns UCX's registration cache off, and the value
 * that does it. */
#define MBX_RMA_FIX_VAR "UCX_RCACHE_ENABLE"
#define MBX_RMA_FIX_VALUE "n"

typedef struct mbx_rma_facts {
    const char *mpi;    /* MPI_Get_library_version's text; NULL: unknown */
    const char *ucx;    /* the loaded UCX's version ("1.13.1"); NULL: no UCX in the process */
    const char *rcache; /* UCX_RCACHE_ENABLE as set; NULL: unset */
} mbx_rma_facts;

typedef enum mbx_rma_verdict {
    MBX_RMA_OK = 0,     /* not the broken pairing, or its cache is off */
    MBX_RMA_BROKEN = 1, /* the broken pairing with the cache on: rma.* moves no data */
} mbx_rma_verdict;

/* The verdict on the facts. BROKEN when mpi names MPICH 4.0.x (its
 * "MPICH Version:" line; a "MPICH Device:" line, when there is one, must
 * name ucx), ucx is 1.13 or later, and rcache does not turn the cache off
 * (unset, or anything but n, no, off, 0, false in any case; UCX's own
 * words). Anything it cannot read counts as not broken: the data check of
 * every rma.* point still catches what this misses. When BROKEN and why is
 * not NULL, writes the one line that names the cause and the fix (no
 * "mpibex:" prefix, no newline) into why (cut to len). */
mbx_rma_verdict mbx_rma_judge(const mbx_rma_facts *f, char *why, size_t len);

/* Whether the text of UCX_RCACHE_ENABLE turns the cache off (see above);
 * NULL is not off. */
int mbx_rma_rcache_off(const char *value);

#endif
