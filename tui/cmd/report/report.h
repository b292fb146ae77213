/* `mpibex report`: plots and an index page from results files.
 *
 * Inputs, in any mix: results CSVs of `mpibex run` (with their OUT.env.csv
 * and, for significance marks, OUT.obs.csv), merged CSVs of `mpibex merge`,
 * and directories of launches of `mpibex repeat` (DIR/launch-*.csv). The
 * points form series (benchmark, label, procs, root, op, param, rma_sync);
 * series of one kind share a plot (mbx_report_overlay). The report
 * directory gets gnuplot plots as PNG and SVG, the gnuplot script that drew
 * them (plots.gp) with its data (data/SERIES-PLOT-INPUT.dat), and index.md
 * and index.html. The rows of `mpibex pairs` (pairs.lat, pairs.bw) form
 * no series: they are drawn as a heatmap per input and metric
 * (nodepairs-INPUT-METRIC), with the verdicts of OUT.verdicts.csv.
 * Front end only (it runs gnuplot); no MPI, no curses. */
#ifndef MBX_REPORT_H
#define MBX_REPORT_H

#include <stddef.h>

/* Which series share a plot. Every input's curve of a series is on the
 * series' plot in each mode; the modes differ in which series join it.
 * All of a plot's series have the same x axis (bytes or processes) at the
 * same fixed value (processes or bytes). A plot holds at most 8 curves
 * (series x inputs); more series of a group go to a second plot. */
typedef enum mbx_report_overlay {
    MBX_REPORT_OVERLAY_KIND = 0, /* benchmarks of one kind (pingpong, coll, rma, ...: the name
                                    before its dot), with every label and parameter */
    MBX_REPORT_OVERLAY_BENCH,    /* one series per plot (benchmark, label, params) */
    MBX_REPORT_OVERLAY_ALL,      /* every benchmark */
} mbx_report_overlay;

typedef struct mbx_report_opts {
    const char *title;        /* page title; NULL: "mpibex report" */
    const char *const *names; /* display name per input; NULL (or a NULL entry): from the path */
    double alpha;             /* significance level of the comparisons; 0: 0.05 */
    int force;                /* 1: write into a non-empty directory (old report files go) */
    int overlay;              /* mbx_report_overlay; 0: by kind */
    const char *gnuplot;      /* the gnuplot program; NULL: "gnuplot" looked up in PATH */
    void (*progress)(void *ctx, const char *line); /* NULL: silent */
    void *ctx;
    /* Whether a benchmark varies over message size: 1, 0, or -1 when
     * unknown (the registry's, mbx_benchsel_sized). A sized benchmark's
     * points form curves over bytes, even of one 0 B point; NULL, or -1
     * for a name: a benchmark whose points all have 0 bytes is taken as
     * unsized. */
    int (*sized)(const char *bench);
} mbx_report_opts;

/* Write the report of inputs[0..n) (paths of files or directories; input 0
 * is A, the reference of every comparison) into dir. dir is created (its
 * parent must exist); an existing non-empty dir is refused unless o->force.
 * Every input is read and checked, and gnuplot is found, before anything is
 * written. gnuplot runs as `gnuplot plots.gp` inside dir (fork and exec, no
 * shell); a non-zero exit, any message on its stderr (kept in
 * dir/gnuplot.log) or a missing plot fails the report, and the index pages
 * are written only after every plot exists. o may be NULL (defaults).
 * Nothing is printed: progress goes to o->progress, the reason of a failure
 * to msg (one line, no trailing newline).
 * Returns 0 (written), 1 (writing or gnuplot failed) or 2 (bad input or
 * options, dir not empty, gnuplot not found). */
int mbx_report_write(const char *const *inputs, size_t n, const char *dir, const mbx_report_opts *o,
                     char *msg, size_t msglen);

/* The arguments after "report": `FILES... -o DIR [--force] [--title T]
 * [--alpha A] [--overlay kind|bench|all] [-q]`; sized as mbx_report_opts.sized (may be NULL).
 * Returns the exit code (as above); errors are one line on stderr. */
int mbx_report_cmd(int argc, char **argv, int (*sized)(const char *bench));

/* mpibex report --help, on stdout. */
void mbx_report_usage(void);

#endif
