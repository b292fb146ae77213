/* One-sided (RMA) synchronisation modes: how the rma.* benchmarks open and
 * complete their access epochs (docs/algorithms.md, "One-sided").
 * Pure C, no MPI. */
#ifndef MBX_RMA_H
#define MBX_RMA_H

/* 0 stands for the default in a point spec or a plan, so {0} stays valid;
 * the default is lock_all (MPI_Win_lock_all once, MPI_Win_flush per
 * operation or window), the closest to OSU's default `-s flush`. */
typedef enum mbx_rma_sync {
    MBX_RMA_DEFAULT = 0,
    MBX_RMA_FENCE = 1,    /* MPI_Win_fence on both ranks closes each epoch */
    MBX_RMA_LOCK = 2,     /* MPI_Win_lock / MPI_Win_unlock per operation or window */
    MBX_RMA_LOCK_ALL = 3, /* MPI_Win_lock_all in set-up, MPI_Win_flush per operation or window */
    MBX_RMA_PSCW = 4,     /* MPI_Win_start / complete (origin), post / wait (target) */
    MBX_RMA_COUNT_ = 5
} mbx_rma_sync;

#define MBX_RMA_SYNC_WORDS "fence, lock, lock_all or pscw"

/* The mode's word ("fence", "lock", "lock_all", "pscw"); the default's is
 * "lock_all"; "?" out of range. */
const char *mbx_rma_sync_name(int sync);

/* The mode a word names (one of MBX_RMA_SYNC_WORDS) into *out: MBX_OK, or
 * MBX_E_INVAL with *out untouched. */
int mbx_rma_sync_parse(const char *word, int *out);

/* The mode a spec's value stands for: 0 becomes MBX_RMA_LOCK_ALL. */
int mbx_rma_sync_resolve(int sync);

#endif
