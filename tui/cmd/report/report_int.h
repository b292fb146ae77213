/* Internal to `mpibex report` (tui/report*.c): the loaded inputs, the
 * series they are grouped into, the comparisons, and the three writers
 * (gnuplot data and script, index pages). */
#ifndef MBX_REPORT_INT_H
#define MBX_REPORT_INT_H

#include <stddef.h>
#include <stdio.h>

#include "mbx/compare.h"
#include "mbx/kv.h"
#include "mbx/pairs_run.h"
#include "report.h"

typedef enum mbx_rpt_kind {
    MBX_RPT_RESULTS = 0,  /* OUT.csv of `mpibex run`: error bars are the median's 95 % CI */
    MBX_RPT_MERGED = 1,   /* `mpibex merge` output: min..max of the runs' medians */
    MBX_RPT_LAUNCHES = 2, /* a directory of `mpibex repeat`, merged here */
} mbx_rpt_kind;

/* One point of one input. Times in µs, NAN when unknown. */
typedef struct mbx_rpt_point {
    char *bench, *label, *root, *op, *param, *param_name, *status; /* as in the CSV */
    char *rma_sync; /* as in the CSV; "" when the file has no such column */
    char *reason;   /* status_reason as in the CSV; "" when the file has none */
    char *scope;    /* ci_scope: what lo..hi covers (launch, profile, launches:K); "" unknown */
    long long procs;
    unsigned long long bytes;
    double med, lo, hi; /* lo..hi: the CI (results) or the launches' min..max */
    double bw;          /* MB/s */
    double spread;      /* (max - min) / min of the launch medians (merged, launches) */
    long long n;        /* observations (n, or n_total); -1 unknown */
    long long runs;     /* launches merged into the point; 1 for results */
    long long passes;   /* results of format 3: passes the point was measured in; 0: in one go */
    long long levels;   /* results: machine levels told apart (levels); 0: none given */
    int refined;        /* results: added by refinement (refined = 1) */
    int remeasured;     /* results: measured again after a level shift (remeasured = 1) */
    size_t series;      /* index of its series */
    int dup;            /* 1: its key came earlier in the same input (not plotted) */
} mbx_rpt_point;

/* One directed cell of `mpibex pairs` (pairs_out.c): a results row of
 * pairs.lat or pairs.bw. Such rows form no series; they are drawn as the
 * node-pair matrix (report_pairs.c). */
typedef struct mbx_rpt_cell {
    mbx_rpt_point p; /* the row (med: µs; bw: MB/s of a pairs.bw cell) */
    int metric;      /* 0 latency, 1 bandwidth (mbx_pairs_bench_name) */
    int src, dst;    /* world ranks: the ranks column "SRC,DST" */
    size_t s, d;     /* src and dst as node indices (mbx_rpt_pairs_index) */
    size_t seq;      /* file order: of two cells at one place the first counts */
    char *src_host, *dst_host, *topology; /* "" when the file has no such column */
} mbx_rpt_cell;

/* One row of OUT.verdicts.csv (pairs_out.c). */
typedef struct mbx_rpt_verdict {
    int metric;                /* 0, 1 */
    int link;                  /* 0: a node (its name in src_host), 1: a link */
    char *src_host, *dst_host; /* node names: "host", or "host:rank" with --per rank */
    double effect, lo, hi, p;  /* effect (node) or ratio to the model (link), 95 %, Holm p */
    int slow;
} mbx_rpt_verdict;

/* An input's node-pair matrix: its cells, nodes and verdicts. */
typedef struct mbx_rpt_pairs {
    mbx_rpt_cell *cell; /* sorted by metric, sender, receiver (mbx_rpt_pairs_index) */
    size_t ncell, cap;
    size_t n;           /* nodes: the ranks the cells name */
    int *rank;          /* node i's world rank, ascending as pairs numbers its nodes */
    char **host;        /* node i's host ("" when the file names none) */
    char **label;       /* node i's name: its host, or host:rank when nodes share a host */
    size_t dups;        /* cells whose sender and receiver came earlier (not drawn) */
    char *vpath;        /* the verdicts sidecar looked for */
    int vfound;         /* 1: it was read */
    char vnote[600];    /* a sentence: why there are no verdicts (not found, not read) */
    mbx_rpt_verdict *v; /* its rows */
    size_t nv;
    /* Per metric m: it has cells; its heatmap is in plots.gp; the test of
     * its verdicts, their tolerance and alpha (its first row's). */
    int has[MBX_PAIRS_METRICS], drawn[MBX_PAIRS_METRICS];
    char *test[MBX_PAIRS_METRICS];
    double tol[MBX_PAIRS_METRICS], alpha[MBX_PAIRS_METRICS];
} mbx_rpt_pairs;

typedef struct mbx_rpt_input {
    const char *path; /* as given (not owned) */
    char *name;       /* display name */
    char letter[24];  /* "A", "B", ..., "I27" */
    mbx_rpt_kind kind;
    mbx_rpt_point *pt;
    size_t npt, cap;
    size_t launches;    /* files merged (launches); 0 for results and merged CSVs */
    mbx_kvlist env;     /* the environment sidecar; empty when there is none */
    char *env_path;     /* the sidecar read, or NULL */
    char env_note[512]; /* why there is none, or which keys differ between launches */
    mbx_kvlist repeat;  /* launches: DIR/repeat.csv (how they ran), if there is one */
    int comparable;     /* has samples for a Wilcoxon test (launches, or an obs sidecar) */
    int passes;         /* results: some point was measured in passes (lo..hi between passes) */
    char why_not[512];  /* when not comparable */
    /* results: the rows of mpibex pairs (none: ncell 0) */
    mbx_rpt_pairs pairs;
} mbx_rpt_input;

typedef struct mbx_rpt_series {
    char *name;   /* file name stem, unique, [A-Za-z0-9._+-] */
    char *title;  /* for people */
    char *curve;  /* the title without the axis' fixed value (procs or bytes): a legend entry */
    int by_procs; /* x axis: processes (one message size) instead of bytes */
    size_t fig;   /* the figure (plot) it is drawn on */
    size_t first; /* a point of the series: input index ... */
    size_t first_pt;
} mbx_rpt_series;

/* One figure: the series drawn on the same plots (mbx_report_overlay).
 * They share the x axis and its fixed value (procs, or bytes). */
typedef struct mbx_rpt_fig {
    char *name;  /* plot file stem, unique: the series' name when it has one series */
    char *title; /* the series' title when it has one series */
    int by_procs;
    size_t *se; /* its series, in order */
    size_t nse;
} mbx_rpt_fig;

/* How a point is marked on the plots (its status and refinement), as in
 * the data files' columns. */
typedef enum mbx_rpt_mark {
    MBX_RPT_SETTLED,
    MBX_RPT_UNSETTLED,
    MBX_RPT_SHIFTED,
    MBX_RPT_UNRELIABLE,
    MBX_RPT_INVALID,
    MBX_RPT_REFINED, /* drawn around the status mark */
    MBX_RPT_NMARKS
} mbx_rpt_mark;
typedef struct mbx_rpt_mark_style {
    const char *name; /* "unsettled" */
    int pt;           /* gnuplot point type */
    double ps;        /* point size */
    const char *what; /* legend and page: "unsettled (hollow circle)" */
} mbx_rpt_mark_style;
extern const mbx_rpt_mark_style mbx_rpt_marks[MBX_RPT_NMARKS];
/* report_load.c: the status mark of a point (MBX_RPT_SETTLED ..
 * MBX_RPT_INVALID); a status it does not know counts as settled. */
mbx_rpt_mark mbx_rpt_point_mark(const mbx_rpt_point *p);
/* one when n == 1, else many: "1 point", "2 points". */
const char *mbx_rpt_pl(size_t n, const char *one, const char *many);

/* The comparison of input b with input 0. */
typedef struct mbx_rpt_cmp {
    size_t b;
    mbx_compare *c; /* NULL: not comparable (why says so) */
    char why[600];
    char **keys;   /* key of each tested point, sorted, for the marks */
    size_t *order; /* keys[i] is mbx_compare_get(c, order[i]) */
} mbx_rpt_cmp;

enum { MBX_RPT_LAT, MBX_RPT_BW, MBX_RPT_CMP, MBX_RPT_SPREAD, MBX_RPT_NPLOTS };
extern const char *const mbx_rpt_plot_suffix[MBX_RPT_NPLOTS]; /* "latency", ... */

typedef struct mbx_rpt {
    mbx_rpt_input *in;
    size_t nin;
    mbx_rpt_series *se;
    size_t nse, secap;
    mbx_rpt_fig *fig;
    size_t nfig;
    int overlay;                            /* mbx_report_overlay */
    unsigned char (*drawn)[MBX_RPT_NPLOTS]; /* per figure: 1 when the plot was written */
    size_t nplots;
    mbx_rpt_cmp *cmp; /* nin - 1 of them */
    double alpha;
    const char *title;
    const char *dir;
    size_t skipped;                  /* points not on a log axis (value <= 0) or without a median */
    size_t dups;                     /* points whose key came twice in one input */
    int (*sized)(const char *bench); /* mbx_report_opts.sized; NULL: unknown */
} mbx_rpt;

/* report_load.c: read input i (path) into *in; 2 and a message for bad
 * input, 1 when out of memory. */
int mbx_rpt_load(mbx_rpt_input *in, const char *path, char *msg, size_t msglen);
void mbx_rpt_input_free(mbx_rpt_input *in);
/* The strings of a point (not the point). */
void mbx_rpt_point_free(mbx_rpt_point *p);

/* The point's identity as mbx_compare matches it (mbx_pid_key: benchmark,
 * label, procs, bytes, root, op, param, rma_sync); caller frees. NULL when
 * out of memory. */
char *mbx_rpt_point_key(const mbx_rpt_point *p);
char *mbx_rpt_cmp_key(const mbx_cmp_point *c);

/* report_series.c: group every point into series; 0 or 1 (no memory). */
int mbx_rpt_group(mbx_rpt *r);
/* Gather the series into figures by r->overlay (after mbx_rpt_group);
 * 0 or 1 (no memory). */
int mbx_rpt_figures(mbx_rpt *r);
void mbx_rpt_figures_free(mbx_rpt *r);
/* Characters other than [A-Za-z0-9._+-] in a file name stem become '_'. */
void mbx_rpt_sanitize(char *stem);

/* Index c's tested points by key for mbx_rpt_cmp_find; 0 or 1 (no memory). */
int mbx_rpt_cmp_index(mbx_rpt_cmp *c);
/* The index (for mbx_compare_get) of the test of A's point p in c, or
 * SIZE_MAX when c has no test for it. */
size_t mbx_rpt_cmp_find(const mbx_rpt_cmp *c, const mbx_rpt_point *p);
/* Every point of input i (dups too) by series, then x, then file order;
 * caller frees. NULL when out of memory. */
size_t *mbx_rpt_sorted(const mbx_rpt *r, size_t i);
/* Points of input i in series s sorted by x (dups left out); caller frees.
 * *n gets the count. NULL with *n = 0 when there is none or no memory. */
size_t *mbx_rpt_series_points(const mbx_rpt *r, size_t i, size_t s, size_t *n);
double mbx_rpt_x(const mbx_rpt *r, const mbx_rpt_point *p);

/* report_plot.c: data/NAME.dat and plots.gp in r->dir (which exists); sets
 * r->drawn. 0, or 1 and a message when a file cannot be written. */
int mbx_rpt_write_plots(mbx_rpt *r, char *msg, size_t msglen);

/* report_axes.c: a text as a single-quoted gnuplot literal, the axes
 * and frame of a plot (nkey: its legend entries), its y range. */
typedef struct mbx_rpt_range {
    double lo, hi; /* NAN: nothing yet */
} mbx_rpt_range;
void mbx_rpt_gp_str(FILE *f, const char *s);
int mbx_rpt_procs_log(mbx_rpt_range xr); /* a process axis spanning more than 16x is log2 */
void mbx_rpt_plot_frame(FILE *gp, int by_procs, int plot, size_t nkey, mbx_rpt_range xr);
void mbx_rpt_plot_yrange(FILE *gp, int plot, mbx_rpt_range yr);

/* report_pairs.c: the metric of a node-pair benchmark (0 pairs.lat,
 * 1 pairs.bw), or -1 for any other. */
int mbx_rpt_pairs_metric(const char *bench);
/* Add the results row p of metric m (its strings now owned by pp) with its
 * ranks, src_host, dst_host and topology fields; 0, 2 and a message when
 * ranks is not "SRC,DST" (file name:line), 1 when out of memory. On an
 * error p is left to the caller to free. */
int mbx_rpt_pairs_add(mbx_rpt_pairs *pp, mbx_rpt_point *p, int m, const char *const f[4],
                      const char *name, size_t line, char *msg, size_t msglen);
/* After the last row: number the nodes, sort the cells, count the
 * duplicates, and read the verdicts sidecar of path (a missing or bad
 * one is a note). 0 or 1 (no memory). */
int mbx_rpt_pairs_index(mbx_rpt_pairs *pp, const char *path);
/* The node whose name (as the verdicts file gives it) is name, or
 * SIZE_MAX. */
size_t mbx_rpt_pairs_node(const mbx_rpt_pairs *pp, const char *name);
/* Whether node i is slow in metric m's verdicts. */
int mbx_rpt_pairs_slow(const mbx_rpt_pairs *pp, int m, size_t i);
void mbx_rpt_pairs_free(mbx_rpt_pairs *pp);
/* What metric m is, for titles: "latency" or "bandwidth"; its unit. */
const char *mbx_rpt_pairs_what(int m);
const char *mbx_rpt_pairs_unit(int m);
/* A cell's value as drawn: µs or MB/s; NAN when it has none. */
double mbx_rpt_cell_value(const mbx_rpt_cell *c);

/* report_heatmap.c: the heatmaps of every input's node pairs into plots.gp
 * (gp) and data/; sets pairs.drawn. 0, or 1 and a message. */
int mbx_rpt_write_heatmaps(mbx_rpt *r, FILE *gp, char *msg, size_t msglen);
/* Every heatmap the script was to draw exists and is not empty; 0, or 1
 * and a message naming the first missing file. */
int mbx_rpt_check_heatmaps(const mbx_rpt *r, char *msg, size_t msglen);
/* The stem of input i's heatmap of metric m: "nodepairs-A-latency". */
void mbx_rpt_heatmap_stem(char *buf, size_t len, const mbx_rpt *r, size_t i, int m);

/* report_pairs_page.c: the "Node pairs" section, when an input has cells. */
struct mbx_rpt_doc;
void mbx_rpt_pairs_page(struct mbx_rpt_doc *d, const mbx_rpt *r);

/* report_page.c: index.md and index.html in r->dir. 0 or 1. */
int mbx_rpt_write_pages(const mbx_rpt *r, char *msg, size_t msglen);

/* Text helpers shared by the writers. */
void mbx_rpt_fmt(char *buf, size_t len, double v, const char *fmt);       /* "" for NAN */
void mbx_rpt_size_label(char *buf, size_t len, unsigned long long bytes); /* "64Ki" */

/* Format one message line into msg[len] (nothing when msg is NULL). */
void mbx_report_msgf(char *msg, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
