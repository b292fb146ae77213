/* The b_eff / b_eff_io screen (screens/ex_beff.c, the form and the run;
 * screens/ex_beffview.c, what the rows so far show). (internal) */
#ifndef MBX_EX_BEFF_H
#define MBX_EX_BEFF_H

#include "core/layout.h"
#include "ex_form.h"
#include "mbx/beff.h"
#include "mbx/beffio.h"

typedef struct explorer explorer;

/* The b_eff / b_eff_io screen: its form, and what the rows so far show.
 * Fields of both benchmarks; the form lists the chosen one's. */
enum {
    EXB_BENCH = 0, /* b_eff or b_eff_io */
    EXB_QUICK,     /* b_eff: off or a cap on L_max (>= 4KiB) */
    EXB_CAP,       /* b_eff: none or 128MiB */
    EXB_MEM,       /* b_eff: auto or SIZE */
    EXB_RMAX,      /* b_eff: none or GFlop/s */
    EXB_RANDOM,    /* b_eff: random patterns 1..1000 */
    EXB_REPS,      /* b_eff: repetitions 1..10 */
    EXB_TIME,      /* b_eff_io: T seconds */
    EXB_DIR,       /* b_eff_io: directory, empty for $TMPDIR */
    EXB_NFIELDS
};
#define EXB_NSERIES 8 /* ring1..ring6, random (log average), pingpong */

typedef struct mbx_ex_beff {
    mbx_ex_form form;
    char field[EXB_NFIELDS][128];
    char ferr[EXB_NFIELDS][160];
    int io;                     /* the run shown: 0 b_eff, 1 b_eff_io */
    int started, running, done; /* done: the summary is valid */
    int cancel;
    double t0, t1; /* back end clock at the start and at the end */
    size_t ndone, ntotal;
    char cur[128]; /* the last row, as text */
    /* b_eff: bandwidth of each series at each of the 21 sizes, the max over
     * methods (random: the log average over the random patterns of theirs) */
    uint64_t bytes[MBX_BEFF_NSIZES];
    double bw[EXB_NSERIES][MBX_BEFF_NSIZES];
    double rlog[MBX_BEFF_NSIZES]; /* random: sum of logs of the maxima */
    int rcount[MBX_BEFF_NSIZES];
    double rlast;  /* the maximum so far of the random (pattern, size) in flight */
    char rkey[32]; /* which one: pattern name */
    int rsize;     /* and size index */
    mbx_beff_summary sum;
    /* b_eff_io: bytes and time of every type and access method so far */
    double io_bytes[MBX_BEFFIO_NTYPES][MBX_BEFFIO_NACCESS];
    double io_time[MBX_BEFFIO_NTYPES][MBX_BEFFIO_NACCESS];
    mbx_beffio_summary iosum;
} mbx_ex_beff;

void mbx_ex_beff_init(explorer *x);
void mbx_ex_beff_start(explorer *x); /* validate the form; the loop then calls mbx_ex_beff_run */
void mbx_ex_beff_run(explorer *x);   /* the whole benchmark, keys and redraws between rows */
/* ex_beffview.c: what the rows so far show, in area under the form:
 * b_eff's plot, legend and summary, or (io) b_eff_io's table. */
void mbx_ex_draw_beff_results(explorer *x, const mbx_rect *area, int io);

#endif
