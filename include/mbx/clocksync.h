/* mpibex: a drift-aware global clock (Hunold & Carpen-Amarie;
 * docs/algorithms.md, "Observation method").
 *
 * Every rank models its local clock against rank 0's as a line: the offset
 * of rank 0's clock from the local one, at local time t, is
 * intercept + slope * t, so global(t) = t + intercept + slope * t, and rank 0
 * has the identity. Two algorithms build the models:
 *  - MBX_CLOCKSYNC_JK (Jones & Koenig): rank 0 takes `fitpoints` offset
 *    samples with each other rank in turn, each sample the best (shortest
 *    round trip) of `exchanges` ping-pongs, and the rank fits a line through
 *    them (least squares);
 *  - MBX_CLOCKSYNC_HCA (hierarchical, top-down variant): in round r, ranks
 *    [0, 2^r) already hold a model to rank 0 and rank i + 2^r fits a line
 *    against rank i, then composes it with rank i's model; ceil(log2 p)
 *    rounds.
 * The clock is a function, so tests can wrap the real one with a known
 * offset and drift. Collective over comm; never prints. */
#ifndef MBX_CLOCKSYNC_H
#define MBX_CLOCKSYNC_H

#include <mpi.h>

#include "mbx/status.h"

typedef double (*mbx_clock_fn)(void *ud); /* local time, seconds */

typedef enum mbx_clocksync_method {
    MBX_CLOCKSYNC_JK = 0,
    MBX_CLOCKSYNC_HCA = 1,
    MBX_CLOCKSYNC_COUNT_ = 2
} mbx_clocksync_method;

typedef struct mbx_clocksync_opts {
    mbx_clocksync_method method;
    int fitpoints; /* offset samples per fitted line; 0: default 20 */
    int exchanges; /* ping-pongs per sample, the shortest kept; 0: default 10 */
    double span;   /* seconds the samples of one fit spread over, at least; 0: default 1 s */
} mbx_clocksync_opts;

typedef struct mbx_clock_model {
    double slope, intercept; /* global(t) = t + intercept + slope * t */
    double drift_err;        /* how fast the model's error may grow, seconds per second (0 for
                                the identity of a shared clock; see mbx_clockfit) */
    int slope_kept;          /* 1: the fitted slope was significant and is used */
} mbx_clock_model;

static inline double mbx_clock_global(const mbx_clock_model *m, double local)
{
    return local + m->intercept + m->slope * local;
}

/* The local time at which this rank's global clock reads g. */
static inline double mbx_clock_local(const mbx_clock_model *m, double g)
{
    return (g - m->intercept) / (1.0 + m->slope);
}

/* Build this rank's model (collective over comm; tags 900-920 of comm must
 * carry no other traffic meanwhile). The samples of one fit are spread over
 * at least o->span seconds, and the slope is kept only when it is
 * significant (mbx_clockfit_line); otherwise the model is an offset alone.
 * Errors: MBX_E_INVAL (bad options: an
 * unknown method, fitpoints outside 2..10000, exchanges outside 1..10000,
 * span outside 0..600 s,
 * a NULL pointer, on any rank, or options that differ between ranks),
 * MBX_E_NOMEM, MBX_E_MPI; the same status on every rank, and *out the
 * identity unless MBX_OK. */
MBX_NODISCARD int mbx_clocksync_run(MPI_Comm comm, const mbx_clocksync_opts *o, mbx_clock_fn now,
                                    void *ud, mbx_clock_model *out);

/* Estimate how far the global clocks are apart now (collective): rank 0
 * exchanges `rounds` ping-pongs with each rank, and for each takes the
 * offset of that rank's global clock from rank 0's at the exchange with
 * the shortest round trip. *max_abs (on rank 0; 0 elsewhere) is the
 * largest |offset| over ranks, seconds, and *rtt_min (likewise) the largest
 * over ranks of that shortest round trip: each offset is within rtt_min / 2
 * of the truth. Uses tags 900-920 of comm, as mbx_clocksync_run does. */
MBX_NODISCARD int mbx_clocksync_check(MPI_Comm comm, const mbx_clock_model *m, mbx_clock_fn now,
                                      void *ud, int rounds, double *max_abs, double *rtt_min);

/* Whether every rank of comm reads the same host clock: each reads the
 * first line of boot_id_path (NULL: /proc/sys/kernel/random/boot_id, which
 * the kernel draws anew at every boot) and *same (every rank) is 1 when all
 * lines are equal to rank 0's and not empty, 0 otherwise (also when a rank
 * cannot read it). Whether the timer is host-wide is the caller's part.
 * Collective; errors: MBX_E_INVAL (same NULL), MBX_E_MPI. */
MBX_NODISCARD int mbx_clocksync_same_host(MPI_Comm comm, const char *boot_id_path, int *same);

/* This rank's model, choosing how: when timer_host_wide is non-zero on
 * every rank and mbx_clocksync_same_host(comm, boot_id_path) says all ranks
 * share one host clock, the identity (a fit could only add its noise to a
 * difference that is exactly 0) and *identity = 1; otherwise
 * mbx_clocksync_run and *identity = 0. Collective; the same errors as
 * mbx_clocksync_run, and *identity the same on every rank. */
MBX_NODISCARD int mbx_clocksync_model(MPI_Comm comm, const mbx_clocksync_opts *o,
                                      int timer_host_wide, const char *boot_id_path,
                                      mbx_clock_fn now, void *ud, mbx_clock_model *out,
                                      int *identity);

/* "jk", "hca" <-> method; MBX_E_INVAL otherwise. */
MBX_NODISCARD int mbx_clocksync_parse(const char *text, mbx_clocksync_method *out);
const char *mbx_clocksync_name(mbx_clocksync_method m);

#endif
