/* The explorer's export and report (ex_export.c): the state of an export
 * being written, and what the keys (ex_input.c) and the loop (ex_loop.c)
 * call. (internal) */
#ifndef MBX_EX_EXPORT_H
#define MBX_EX_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "mbx/output.h"

struct explorer;
struct mbx_csv_writer;

/* An export being written (ex_export.c). The results CSV, its environment
 * and probes are written at once; the observations, which can be millions
 * of rows, a few points at a time between the loop's ticks, so that the
 * screen stays live and says how far it is. A run does not measure
 * meanwhile (its points' observations are being read). */
#define EX_EXPORT_STEP_ROWS 20000 /* observation rows between two ticks, at least one point */
#define EX_OBS_ASK_BYTES 16000000 /* observations larger than this: asked first (y/n) */
typedef struct mbx_ex_xport {
    int on;                   /* observations being written */
    int obs;                  /* with observations (the question's answer) */
    int report;               /* a report into dir follows */
    char path[256];           /* the results CSV */
    char dir[256];            /* the report's directory */
    struct mbx_csv_writer *w; /* path's .obs.csv */
    mbx_output claim;
    size_t next;        /* the next point to write */
    size_t rows, total; /* observation rows written, of */
    /* The last export that finished: a report of the same results reads
     * it instead of writing them again. */
    char done_path[256];
    size_t done_ndone;
} mbx_ex_xport;

/* Observation rows of the finished points (into *rows), and about how
 * many bytes they take as OUT.obs.csv. */
uint64_t mbx_ex_obs_bytes(const struct explorer *x, size_t *rows);
/* The results as `mpibex run` writes them to x->xp.path (x->xp.obs,
 * .report and .dir set): the claim, the CSV (every column), its .env.csv
 * and, with a monitor, .probe.csv written at once; with xp.obs the
 * .obs.csv then by mbx_ex_export_step while xp.on. The outcome, and the
 * progress, are the status line's message. */
void mbx_ex_export_begin(struct explorer *x);
/* EX_EXPORT_STEP_ROWS more observation rows (whole points); at the end
 * the files closed and, with xp.report, the report written. */
void mbx_ex_export_step(struct explorer *x);
/* The export stops before its end (c, a signal): the half-written .obs.csv
 * removed, the results CSV kept; why (NULL: none) begins the message. */
void mbx_ex_export_abandon(struct explorer *x, const char *why);
/* The last export's results CSV when it holds the results now shown (and
 * still exists), else NULL: a report then reads it instead of writing
 * them again. */
const char *mbx_ex_export_current(const struct explorer *x);
/* A report of results (a CSV with its sidecars) into dir/report by
 * mbx_report_write; reused: results is an earlier export. 0 or -1, the
 * outcome on the status line. */
int mbx_ex_report_of(struct explorer *x, const char *results, const char *dir, int reused);

#endif
