/* b_eff_io: the effective MPI-IO bandwidth of Rabenseifner & Koniges
 * (section 5 and Table 2 of papers/beff-and-beff-io.txt). The pure part:
 * the pattern table, the time schedule, the segment sizes of the segmented
 * types and the weighting rules. Pure C, no MPI; the MPI side
 * (mbx_engine_beffio_phase) is declared at the end and lives in
 * engine/mpi/beffio_exec.c. */
#ifndef MBX_BEFFIO_H
#define MBX_BEFFIO_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/status.h"

#define MBX_BEFFIO_NTYPES 5
#define MBX_BEFFIO_NPATTERNS 43   /* rows 0..42 of Table 2 */
#define MBX_BEFFIO_MAXPERTYPE 9   /* patterns of one type, at most */
#define MBX_BEFFIO_SUM_U 64       /* the table's sum of time units */
#define MBX_BEFFIO_NACCESS 3      /* initial write, rewrite, read */
#define MBX_BEFFIO_MIB 1048576ull /* Table 2's "1 MB" (chunk sizes are binary) */

enum { MBX_BEFFIO_WRITE = 0, MBX_BEFFIO_REWRITE = 1, MBX_BEFFIO_READ = 2 };

typedef struct mbx_beffio_pattern {
    int no;         /* row of Table 2 */
    int type;       /* 0 scatter collective, 1 shared collective, 2 separate files,
                       3 segmented non-collective, 4 segmented collective */
    int index;      /* position within its type, 0.. */
    uint64_t l;     /* contiguous chunk on disk, bytes */
    uint64_t L;     /* contiguous chunk in memory per call (type 0), else l */
    int wellformed; /* 0 for the "+8 byte" rows */
    int unit;       /* U */
    int fill;       /* 1 for "fill up segments" (rows 33 and 42): size set at run time */
} mbx_beffio_pattern;

/* MPART = max(2 MiB, mem_per_proc / 128), rounded down to a whole MiB. */
uint64_t mbx_beffio_mpart(uint64_t mem_per_proc);

/* The 43 rows of Table 2 for a given MPART, in table order. */
void mbx_beffio_table(uint64_t mpart, mbx_beffio_pattern out[MBX_BEFFIO_NPATTERNS]);

/* First row and number of rows of a type (0..4). */
int mbx_beffio_type_first(int type);
int mbx_beffio_type_count(int type);

/* The time a pattern may take for one access method: T * U / sum(U) / 3. */
double mbx_beffio_budget(double T_s, int unit);

/* Repeating factors of the segmented types, from the initial write of the
 * matching time-driven type with the same call structure: type 3
 * (non-collective) from type 2, type 4 (collective, one call per chunk)
 * from type 1; both lists have the same chunk sizes. out[k] = src[k] *
 * U(type row k) / U(source row k), rounded, at least 1 (src[k] when the
 * source unit is 0). src and out hold MBX_BEFFIO_MAXPERTYPE entries, the
 * fill row's entry is set to 1. */
void mbx_beffio_derive_reps(const mbx_beffio_pattern table[MBX_BEFFIO_NPATTERNS], int type,
                            const uint64_t *src, uint64_t *out);

/* Segment size of types 3 and 4. reps[k] is the repeating factor of the
 * k-th non-fill pattern of the type (mbx_beffio_derive_reps); the segment
 * holds them one after another and is rounded up to the next whole MiB
 * strictly above their sum, so the fill row writes 1 byte .. 1 MiB. *fill
 * gets that gap. */
void mbx_beffio_segment(const mbx_beffio_pattern *rows, const uint64_t *reps, uint64_t *segment,
                        uint64_t *fill);

/* Bytes one repetition of every pattern of `type` puts into its file(s),
 * over nprocs processes (fill rows count 1 MiB per process). */
uint64_t mbx_beffio_min_type_bytes(const mbx_beffio_pattern table[MBX_BEFFIO_NPATTERNS], int type,
                                   int nprocs);
/* The space the schedule needs at least: the largest type (only one type's
 * files exist at a time). */
uint64_t mbx_beffio_min_bytes(const mbx_beffio_pattern table[MBX_BEFFIO_NPATTERNS], int nprocs);

/* b_eff_io of one access method: the average over the pattern types with
 * double weight for the scatter type 0: (2 b0 + b1 + b2 + b3 + b4) / 6. */
double mbx_beffio_access_value(const double type_mbps[MBX_BEFFIO_NTYPES]);

/* b_eff_io of the partition: 25 % write + 25 % rewrite + 50 % read. */
double mbx_beffio_partition_value(const double access_mbps[MBX_BEFFIO_NACCESS]);

/* "write", "rewrite", "read", or "?". */
const char *mbx_beffio_access_name(int access);

/* The rules this implementation uses where the paper leaves them open, one
 * line of text; always NUL-terminated. */
void mbx_beffio_rules(char *buf, size_t len);

/* ---- MPI side (engine/mpi/beffio_exec.c) ---- */

typedef struct mbx_engine mbx_engine;

typedef struct mbx_beffio_phase_in {
    int type, access;
    uint64_t mpart;
    double T_s;
    double budget_bytes; /* write: the type's file(s) may grow to this, over all ranks */
    /* rewrite/read of types 0-2: caps (the write's repetitions);
     * every access of types 3/4: the fixed repetitions. Index within type. */
    uint64_t reps[MBX_BEFFIO_MAXPERTYPE];
    uint64_t segment; /* types 3/4 */
    const char *dir;  /* the run's directory (absolute), shared by all ranks */
    /* Rank 0: polled between repetition batches; non-zero ends the phase. */
    int (*stop)(void *ud);
    void *ud;
} mbx_beffio_phase_in;

typedef struct mbx_beffio_phase_out {
    int npat;
    uint64_t reps[MBX_BEFFIO_MAXPERTYPE]; /* repetitions done (per process) */
    double bytes[MBX_BEFFIO_MAXPERTYPE];  /* over all processes */
    double time[MBX_BEFFIO_MAXPERTYPE];   /* max over processes, s; write includes the sync */
    double type_bytes, type_time;         /* open..close, max over processes */
    int stopped;                          /* the stop callback ended it */
} mbx_beffio_phase_out;

/* Rank 0 only, every other rank in mbx_engine_serve(): one pattern type
 * under one access method (open, every pattern of the type, sync after
 * writes, close). Every rank of the engine takes part. Errors: MBX_E_INVAL,
 * MBX_E_NOMEM, MBX_E_IO (a file could not be opened, written or read on
 * some rank), MBX_E_MPI. Leaves its files in place (the driver removes the
 * directory). */
MBX_NODISCARD int mbx_engine_beffio_phase(mbx_engine *e, const mbx_beffio_phase_in *in,
                                          mbx_beffio_phase_out *out);

#endif
