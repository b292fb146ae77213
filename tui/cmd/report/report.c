/* `mpibex report`: read every input, group the points into series, test
 * the comparisons, write the gnuplot data and script, run gnuplot, check
 * every plot, then write the index pages. mbx_report_write prints nothing;
 * mbx_report_cmd is the command-line wrapper. */
#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/opt.h"
#include "mbx/ascii.h"
#include "mbx/dir.h"
#include "mbx/file.h"
#include "mbx/output.h"
#include "report_int.h"
#include "tprint.h"

void mbx_report_msgf(char *msg, size_t len, const char *fmt, ...)
{
    if (msg == NULL || len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
}

static void progress(const mbx_report_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void progress(const mbx_report_opts *o, const char *fmt, ...)
{
    if (o->progress == NULL)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    o->progress(o->ctx, line);
}

/* The program `name` as execv wants it: an absolute path (gnuplot runs
 * inside the report directory). 0 when it is not found or not executable. */
static int find_program(const char *name, char *out, size_t len)
{
    char cand[PATH_MAX];
    if (strchr(name, '/') != NULL)
        return access(name, X_OK) == 0 && realpath(name, out) != NULL;
    const char *path = getenv("PATH");
    if (path == NULL)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;; p++) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        snprintf(cand, sizeof cand, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", name);
        struct stat st;
        if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0 &&
            realpath(cand, out) != NULL && strlen(out) < len)
            return 1;
        if (end == NULL)
            return 0;
        p = end;
    }
}

static int is_report_file(const char *n)
{
    static const char *const fixed[] = {"index.md", "index.html", "plots.gp", "gnuplot.log"};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        if (strcmp(n, fixed[i]) == 0)
            return 1;
    for (int p = 0; p < MBX_RPT_NPLOTS; p++) {
        char tail[32];
        const char *ext[] = {".png", ".svg"};
        for (int e = 0; e < 2; e++) {
            size_t ln = strlen(n), lt;
            snprintf(tail, sizeof tail, "-%s%s", mbx_rpt_plot_suffix[p], ext[e]);
            lt = strlen(tail);
            if (ln > lt && strcmp(n + ln - lt, tail) == 0)
                return 1;
        }
    }
    return 0;
}

static int report_file(const char *name, void *ud)
{
    (void)ud;
    return is_report_file(name);
}

static int dat_file(const char *name, void *ud)
{
    (void)ud;
    size_t ln = strlen(name);
    return ln > 4 && strcmp(name + ln - 4, ".dat") == 0;
}

/* Remove what an earlier report left in dir (only files it writes: plots,
 * pages, plots.gp, the .dat files in data/), so no stale plot stays beside
 * the new ones. Only in a directory of this user that is no symbolic link,
 * and in a data/ that is none either (mbx_dir_*): a link planted there
 * would lead the removal into somebody's files. 0, or 2 and a message. */
static int remove_old(const char *dir, char *msg, size_t msglen)
{
    int fd, sub;
    const char *why = NULL;
    if (mbx_dir_open_own(AT_FDCWD, dir, 0, &fd, &why) != MBX_OK) {
        mbx_report_msgf(msg, msglen, "-o: --force cleans only a directory of yours; '%s': %s", dir,
                        why);
        return 2;
    }
    int rc = mbx_dir_clean(fd, report_file, NULL, NULL, NULL);
    if (mbx_dir_open_own(fd, "data", 0, &sub, &why) == MBX_OK) {
        if (rc == MBX_OK)
            rc = mbx_dir_clean(sub, dat_file, NULL, NULL, NULL);
        close(sub);
    } else if (errno != ENOENT) {
        mbx_report_msgf(msg, msglen, "-o: --force cleans only a directory of yours; '%s/data': %s",
                        dir, why);
        close(fd);
        return 2;
    }
    int err = errno;
    close(fd);
    if (rc != MBX_OK) {
        mbx_report_msgf(msg, msglen, "--force: cannot remove the old report in '%s': %s", dir,
                        strerror(err));
        return 2;
    }
    return 0;
}

/* 0: dir is claimed (mbx/output.h: created if missing, locked for the
 * report's life, never an input) and holds no earlier report, or --force
 * and the old report files are removed; 1 or 2 and a message. */
static int prepare_dir(const char *dir, int force, const mbx_rpt *r, mbx_output *claim, char *msg,
                       size_t msglen)
{
    const char **in = calloc(r->nin ? r->nin : 1, sizeof *in);
    if (in == NULL) {
        mbx_report_msgf(msg, msglen, "out of memory");
        return 1;
    }
    for (size_t i = 0; i < r->nin; i++)
        in[i] = r->in[i].path;
    mbx_output_req req = {.path = dir,
                          .flags = MBX_OUTPUT_DIRECTORY | (force ? MBX_OUTPUT_FORCE : 0),
                          .inputs = in,
                          .ninputs = r->nin};
    int rc = mbx_output_claim(&req, claim, msg, msglen);
    free(in);
    if (rc < 0)
        return rc == MBX_E_NOMEM ? 1 : 2;
    if (claim->existed)
        return remove_old(dir, msg, msglen);
    return 0;
}

/* The first line of a file (gnuplot's messages), "" when it is empty. */
static void first_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    buf[0] = '\0';
    if (f == NULL)
        return;
    while (fgets(buf, (int)len, f) != NULL) {
        buf[strcspn(buf, "\r\n")] = '\0';
        if (strspn(buf, " \t^") != strlen(buf)) /* skip gnuplot's blank and caret lines */
            break;
        buf[0] = '\0';
    }
    fclose(f);
}

/* Run `gnuplot plots.gp` in dir, stderr to dir/gnuplot.log; 0 when it
 * exits 0 having written nothing to stderr, else 1 and a message. */
static int run_gnuplot(const char *prog, const char *dir, char *msg, size_t msglen)
{
    char log[PATH_MAX], line[300];
    snprintf(log, sizeof log, "%s/gnuplot.log", dir);
    int fd = -1;
    if (mbx_file_create(log, 0666, &fd) != MBX_OK)
        fd = -1;
    int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (fd < 0 || nul < 0) {
        mbx_report_msgf(msg, msglen, "cannot write '%s': %s", log, strerror(errno));
        if (fd >= 0)
            close(fd);
        if (nul >= 0)
            close(nul);
        return 1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        char *argv[] = {(char *)prog, "plots.gp", NULL};
        if (chdir(dir) != 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0 || dup2(fd, 2) < 0)
            _exit(126);
        execv(prog, argv);
        _exit(127);
    }
    int err = errno, status = 0;
    close(fd);
    close(nul);
    if (pid < 0) {
        mbx_report_msgf(msg, msglen, "cannot start gnuplot: %s", strerror(err));
        return 1;
    }
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            mbx_report_msgf(msg, msglen, "waiting for gnuplot failed: %s", strerror(errno));
            return 1;
        }
    }
    first_line(log, line, sizeof line);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && line[0] == '\0') {
        unlink(log);
        return 0;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) >= 126)
        mbx_report_msgf(msg, msglen, "cannot run %s in '%s' (exit %d)", prog, dir,
                        WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        mbx_report_msgf(msg, msglen, "gnuplot plots.gp was killed by signal %d (see %s)",
                        WTERMSIG(status), log);
    else
        mbx_report_msgf(msg, msglen, "gnuplot plots.gp %s: %s (all of it in %s)",
                        WEXITSTATUS(status) ? "failed" : "complained",
                        line[0] ? line : "no message", log);
    return 1;
}

/* Every plot the script was to draw exists and is not empty. */
static int check_plots(const mbx_rpt *r, char *msg, size_t msglen)
{
    for (size_t f = 0; f < r->nfig; f++) {
        for (int p = 0; p < MBX_RPT_NPLOTS; p++) {
            for (int e = 0; r->drawn[f][p] && e < 2; e++) {
                char path[PATH_MAX];
                struct stat st;
                snprintf(path, sizeof path, "%s/%s-%s.%s", r->dir, r->fig[f].name,
                         mbx_rpt_plot_suffix[p], e ? "svg" : "png");
                if (stat(path, &st) != 0 || st.st_size == 0) {
                    mbx_report_msgf(msg, msglen, "gnuplot did not write '%s'", path);
                    return 1;
                }
            }
        }
    }
    return mbx_rpt_check_heatmaps(r, msg, msglen);
}

static void letter(char *buf, size_t len, size_t i)
{
    if (i < 26)
        snprintf(buf, len, "%c", (char)('A' + i));
    else
        snprintf(buf, len, "I%zu", i + 1);
}

static int compare_all(mbx_rpt *r, const mbx_report_opts *o, char *msg, size_t msglen)
{
    for (size_t b = 1; b < r->nin; b++) {
        mbx_rpt_cmp *c = &r->cmp[b - 1];
        const mbx_rpt_input *A = &r->in[0], *B = &r->in[b];
        c->b = b;
        if (!A->comparable || !B->comparable) {
            snprintf(c->why, sizeof c->why, "%s", A->comparable ? B->why_not : A->why_not);
            continue;
        }
        progress(o, "comparing %s (%s) with A (%s)", B->letter, B->name, A->name);
        char m[512] = "";
        int rc = mbx_compare_load(A->path, B->path, r->alpha, &c->c, m, sizeof m);
        if (rc == MBX_E_NOMEM) {
            mbx_report_msgf(msg, msglen, "out of memory");
            return 1;
        }
        if (rc < 0) {
            c->c = NULL;
            snprintf(c->why, sizeof c->why, "%s", m[0] ? m : mbx_strerror(rc));
        } else if (mbx_rpt_cmp_index(c) != 0) {
            mbx_report_msgf(msg, msglen, "out of memory");
            return 1;
        }
    }
    return 0;
}

static void free_report(mbx_rpt *r)
{
    for (size_t i = 0; i < r->nin; i++)
        mbx_rpt_input_free(&r->in[i]);
    for (size_t s = 0; s < r->nse; s++) {
        free(r->se[s].name);
        free(r->se[s].title);
        free(r->se[s].curve);
    }
    mbx_rpt_figures_free(r);
    for (size_t k = 0; r->cmp != NULL && k + 1 < r->nin; k++) {
        size_t n = r->cmp[k].c ? mbx_compare_count(r->cmp[k].c) : 0;
        for (size_t i = 0; r->cmp[k].keys != NULL && i < n; i++)
            free(r->cmp[k].keys[i]);
        free(r->cmp[k].keys);
        free(r->cmp[k].order);
        mbx_compare_free(r->cmp[k].c);
    }
    free(r->in);
    free(r->se);
    free(r->cmp);
    free(r->drawn);
}

static void done_line(const mbx_report_opts *o, const mbx_rpt *r)
{
    progress(o, "wrote %s/index.html and index.md: %zu %s, %zu series, %zu %s", r->dir, r->nin,
             mbx_rpt_pl(r->nin, "input", "inputs"), r->nse, r->nplots,
             mbx_rpt_pl(r->nplots, "plot", "plots"));
}

int mbx_report_write(const char *const *inputs, size_t n, const char *dir, const mbx_report_opts *o,
                     char *msg, size_t msglen)
{
    static const mbx_report_opts defaults = {0};
    char prog[PATH_MAX];
    mbx_rpt r = {.dir = dir};
    mbx_output claim = {0};
    int rc = 0;
    o = o ? o : &defaults;
    r.alpha = o->alpha == 0 ? 0.05 : o->alpha;
    r.sized = o->sized;
    r.overlay = o->overlay;
    r.title = o->title && o->title[0] ? o->title : "mpibex report";
    if (n == 0 || inputs == NULL) {
        mbx_report_msgf(msg, msglen, "no input files (usage: mpibex report FILES... -o DIR)");
        return 2;
    }
    if (dir == NULL || dir[0] == '\0') {
        mbx_report_msgf(msg, msglen, "-o DIR is required (the report directory)");
        return 2;
    }
    if (!(r.alpha > 0 && r.alpha < 1)) {
        mbx_report_msgf(msg, msglen,
                        "--alpha: expected a number between 0 and 1, both excluded (got %g)",
                        r.alpha);
        return 2;
    }
    if (!find_program(o->gnuplot ? o->gnuplot : "gnuplot", prog, sizeof prog)) {
        if (o->gnuplot)
            mbx_report_msgf(msg, msglen, "gnuplot program '%s' not found", o->gnuplot);
        else
            mbx_report_msgf(msg, msglen,
                            "gnuplot not found in PATH (Debian: apt-get install "
                            "gnuplot-nox)");
        return 2;
    }
    r.in = calloc(n, sizeof *r.in);
    r.cmp = calloc(n, sizeof *r.cmp);
    r.nin = n;
    if (r.in == NULL || r.cmp == NULL) {
        free(r.in);
        free(r.cmp);
        mbx_report_msgf(msg, msglen, "out of memory");
        return 1;
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        letter(r.in[i].letter, sizeof r.in[i].letter, i);
        if (o->names != NULL && o->names[i] != NULL && (r.in[i].name = strdup(o->names[i])) == NULL)
            rc = 1;
        if (rc == 0)
            rc = mbx_rpt_load(&r.in[i], inputs[i], msg, msglen);
    }
    if (rc == 0)
        rc = prepare_dir(dir, o->force, &r, &claim, msg, msglen);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        size_t nc = r.in[i].pairs.ncell;
        char cells[64] = "";
        if (nc > 0)
            snprintf(cells, sizeof cells, ", %zu node-pair %s", nc,
                     mbx_rpt_pl(nc, "cell", "cells"));
        progress(o, "%s: %s, %zu %s%s", r.in[i].letter, inputs[i], r.in[i].npt,
                 mbx_rpt_pl(r.in[i].npt, "point", "points"), cells);
    }
    if (rc == 0 && (mbx_rpt_group(&r) != 0 || mbx_rpt_figures(&r) != 0))
        rc = 1;
    if (rc == 0 && (r.drawn = calloc(r.nfig ? r.nfig : 1, sizeof *r.drawn)) == NULL)
        rc = 1;
    if (rc == 1 && msg && msg[0] == '\0')
        mbx_report_msgf(msg, msglen, "out of memory");
    if (rc == 0)
        rc = compare_all(&r, o, msg, msglen);
    if (rc == 0)
        rc = mbx_rpt_write_plots(&r, msg, msglen);
    if (rc == 0) {
        progress(o, "running gnuplot: %zu %s of %zu series", r.nplots,
                 mbx_rpt_pl(r.nplots, "plot", "plots"), r.nse);
        rc = run_gnuplot(prog, dir, msg, msglen);
    }
    if (rc == 0)
        rc = check_plots(&r, msg, msglen);
    if (rc == 0)
        rc = mbx_rpt_write_pages(&r, msg, msglen);
    if (rc == 0)
        done_line(o, &r);
    free_report(&r);
    mbx_output_release(&claim);
    return rc;
}

/* ---- the command ---- */

void mbx_report_usage(void)
{
    printf("Usage: mpibex report FILES... -o DIR [--force] [--title T] [--alpha A]\n"
           "                     [--overlay kind|bench|all] [-q]\n"
           "\n"
           "Plots (PNG and SVG, drawn by gnuplot) and an index page (index.html, index.md)\n"
           "from results: OUT.csv files of 'mpibex run' (with OUT.env.csv beside them),\n"
           "merged CSVs of 'mpibex merge' and directories of launches of 'mpibex repeat'.\n"
           "Per series (benchmark, label, procs, root, op, param): latency and bandwidth\n"
           "against message size (or processes), every input on the same plot, with the\n"
           "95 %% CI as error bars and marks for unsettled, shifted and refined points;\n"
           "the series of one benchmark kind share a plot (--overlay). With two\n"
           "or more inputs, the first is A: each other input's ratio to A per point, with\n"
           "Wilcoxon significance marks when both have samples (directories of launches,\n"
           "or results written with --raw). Directories also get the launch-to-launch\n"
           "spread. Rows of 'mpibex pairs' are drawn as a heatmap per metric (sender by\n"
           "receiver) with the slow nodes and links of OUT.verdicts.csv beside OUT.csv.\n"
           "\n"
           "Options:\n"
           "  -o, --output DIR  the report directory (created; required)\n"
           "  -f, --force       write into a non-empty DIR (old report files are removed)\n"
           "  --title T         the page title (default: mpibex report)\n"
           "  --alpha A         significance level of the comparisons, 0 < A < 1 (0.05)\n"
           "  --overlay M       which series share a plot (same x axis and processes):\n"
           "                    kind  benchmarks of one kind, e.g. pingpong.* (default)\n"
           "                    bench one benchmark (label, params) per plot\n"
           "                    all   every benchmark\n"
           "                    (at most 8 curves a plot: series x inputs)\n"
           "  -q, --quiet       no progress lines on stderr\n"
           "  -h, --help        this text\n"
           "\n"
           "DIR gets index.html, index.md, NAME-latency|bandwidth|compare|spread.png/.svg,\n"
           "plots.gp and data/SERIES-PLOT-INPUT.dat with each point's status, refined and\n"
           "remeasured ('gnuplot plots.gp' in DIR draws the plots again); node pairs\n"
           "get nodepairs-INPUT-latency|bandwidth.png/.svg.\n"
           "Needs gnuplot (Debian: apt-get install gnuplot-nox).\n"
           "Exit status: 0 written, 1 writing or gnuplot failed, 2 bad input.\n");
}

static void to_stderr(void *ctx, const char *line)
{
    (void)ctx;
    mbx_tprintf(stderr, "report: %s\n", line);
}

/* Bad input: "mpibex report: " and one line on stderr (exit 2). */
static const mbx_opt_out said = {.prefix = "mpibex report: ", .print = mbx_tprint_line};

typedef struct report_args {
    mbx_report_opts o;
    const char *dir;
    const char **in;
    size_t nin;
} report_args;

static int on_output(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    report_args *r = p->dst;
    (void)o, (void)name;
    if (v == NULL || v[0] == '\0')
        return mbx_opt_bad(&p->out, "-o: missing directory name");
    if (r->dir != NULL)
        return mbx_opt_bad(&p->out, "-o: only one report directory (got '%s' and '%s')", r->dir, v);
    r->dir = v;
    return 0;
}

static int on_title(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    (void)o, (void)name;
    if (v == NULL)
        return mbx_opt_bad(&p->out, "--title: missing text");
    ((report_args *)p->dst)->o.title = v;
    return 0;
}

static int on_alpha(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    report_args *r = p->dst;
    char *end;
    (void)o, (void)name;
    errno = 0;
    r->o.alpha = v ? mbx_strtod(v, &end) : 0;
    if (v == NULL || *v == '\0' || *end != '\0' || errno != 0 || !(r->o.alpha > 0) ||
        !(r->o.alpha < 1))
        return mbx_opt_bad(&p->out,
                           "--alpha: expected a number between 0 and 1, both excluded (got '%s')",
                           v ? v : "");
    return 0;
}

static int on_overlay(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    static const char *const modes[] = {
        [MBX_REPORT_OVERLAY_KIND] = "kind",
        [MBX_REPORT_OVERLAY_BENCH] = "bench",
        [MBX_REPORT_OVERLAY_ALL] = "all",
    };
    (void)o, (void)name;
    for (size_t k = 0; v != NULL && k < sizeof modes / sizeof *modes; k++) {
        if (strcmp(v, modes[k]) == 0) {
            ((report_args *)p->dst)->o.overlay = (int)k;
            return 0;
        }
    }
    return mbx_opt_bad(&p->out, "--overlay: expected kind, bench or all (got '%s')", v ? v : "");
}

static int on_quiet(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    (void)o, (void)name, (void)v;
    ((report_args *)p->dst)->o.progress = NULL;
    return 0;
}

static int on_input(mbx_opt_parser *p, const char *word)
{
    report_args *r = p->dst;
    r->in[r->nin++] = word;
    return 0;
}

static const mbx_opt report_opts[] = {
    {"--help", "-h", NULL, 0, mbx_opt_help, 0},
    {"--output", "-o", "DIR", 0, on_output, 0},
    {"--title", "-t", "T", 0, on_title, 0},
    {"--alpha", "-a", "A", 0, on_alpha, 0},
    {"--overlay", NULL, "M", 0, on_overlay, 0},
    {"--force", "-f", NULL, 0, NULL, offsetof(report_args, o.force)},
    {"--quiet", "-q", NULL, 0, on_quiet, 0},
};

int mbx_report_cmd(int argc, char **argv, int (*sized)(const char *bench))
{
    report_args r = {.o = {.progress = to_stderr, .sized = sized},
                     .in = calloc((size_t)argc + 1, sizeof *r.in)};
    if (r.in == NULL)
        return mbx_opt_bad(&said, "out of memory");
    mbx_opt_parser p = {.opts = report_opts,
                        .nopts = MBX_OPT_COUNT(report_opts),
                        .flags = MBX_OPT_DASHDASH | MBX_OPT_EQ,
                        .dst = &r,
                        .out = said,
                        .unknown = "unknown option '%s' (see 'mpibex report --help')",
                        .operand = on_input};
    char msg[1024] = "";
    int rc = mbx_opt_parse(&p, argc, argv, 0);
    if (rc == 0 && p.help)
        mbx_report_usage();
    else if (rc == 0 && r.nin == 0)
        rc = mbx_opt_bad(&said, "no input files (usage: mpibex report FILES... -o DIR)");
    else if (rc == 0 && r.dir == NULL)
        rc = mbx_opt_bad(&said, "-o DIR is required (the report directory)");
    else if (rc == 0 && (rc = mbx_report_write(r.in, r.nin, r.dir, &r.o, msg, sizeof msg)) != 0)
        mbx_tprintf(stderr, "mpibex report: %s\n", msg);
    free(r.in);
    return rc;
}
