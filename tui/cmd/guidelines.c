/* mpibex guidelines (guidelines.h): the plan that measures every benchmark
 * the catalogue's rules name in one job (glplan.h, shared with the
 * explorer's guidelines screen), the run itself (run's own code, with
 * --raw), and the judgement of each rule at each size from the run's pass
 * medians or a directory's launch medians. */
#include "guidelines.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/opt.h"
#include "glplan.h"
#include "job.h"
#include "mbx/ascii.h"
#include "mbx/bench.h"
#include "mbx/csvio.h"
#include "mbx/guideline.h"
#include "mbx/sizes.h"
#include "run.h"
#include "sig.h"
#include "tprint.h"

#define GL_OUT_DEFAULT "guidelines.csv"
#define GL_MSG 512
#define GL_PASS_MAX 64
#define GL_PROCS_MAX 64

static const mbx_opt_out said = {.prefix = "mpibex guidelines: ", .print = mbx_tprint_line};

typedef struct gl_opts {
    const char *catalogue, *judge, *output, *sizes, *rules;
    double tol, alpha;
    int print_plan, help;
    char *pass[GL_PASS_MAX]; /* run's options, in order */
    int npass;
} gl_opts;

typedef struct gl_state {
    gl_opts o;
    mbx_glp p;
} gl_state;

static void gl_usage(void)
{
    printf("Usage: mpiexec -n N mpibex guidelines [CATALOGUE] [options] [run options]\n"
           "       mpibex guidelines [CATALOGUE] --judge RUN.csv|DIR [options]\n"
           "       mpibex guidelines [CATALOGUE] --print-plan [--sizes RANGE]\n"
           "\n"
           "Self-consistent performance guidelines: rules such as \"MPI_Allreduce is no\n"
           "slower than MPI_Reduce followed by MPI_Bcast\", each a pair of benchmarks.\n"
           "Measures every benchmark the rules name in one job (interleaved pass by\n"
           "pass, with --raw), then judges each rule at each size: violated when the\n"
           "left side is significantly slower (Benjamini-Hochberg over the report) by\n"
           "more than the tolerance, holds when the 95 %% CI of left/right lies at or\n"
           "below 1 + tolerance, not distinguishable otherwise. CATALOGUE is an ini\n"
           "file of rules (default: the built-in samples/guidelines.ini).\n"
           "\n"
           "  -o, --output FILE    the run's results (default guidelines.csv); the\n"
           "                       verdicts go to FILE without .csv + .guidelines.csv,\n"
           "                       the plan to .plan.ini\n"
           "  --sizes RANGE        sizes of the rules (default 1:1M; a rule takes those\n"
           "                       its benchmarks can: reductions from 4 B)\n"
           "  --tolerance PCT      a violation must exceed PCT %% (0..50, default 5)\n"
           "  --alpha A            the false discovery rate of the report (default 0.05)\n"
           "  --rules GLOB,...     only the rules whose names match; !GLOB leaves out\n"
           "                       those it matches ('!persistent.scatter': all but it)\n"
           "  --judge PATH         judge a finished run (RUN.csv with RUN.obs.csv) or a\n"
           "                       directory of launches (mpibex repeat), no MPI\n"
           "  --print-plan         print the plan that measures the rules, and exit\n"
           "  -h, --help           this help\n"
           "\n"
           "Every other option goes to the run (mpibex run --help): --span, --fake, ...\n");
}

static int take_value(int argc, char **argv, int *i, const char *name, const char **out)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) == 0 && argv[*i][n] == '=') {
        *out = argv[*i] + n + 1;
        return 1;
    }
    if (strcmp(argv[*i], name) != 0)
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *out = argv[++*i];
    return 1;
}

static int parse_opts(int argc, char **argv, gl_opts *o)
{
    memset(o, 0, sizeof *o);
    o->tol = MBX_GL_TOL_DEFAULT;
    o->alpha = 0.05;
    const char *tol = NULL, *alpha = NULL;
    int i = 0;
    if (argc > 0 && argv[0][0] != '-')
        o->catalogue = argv[i++];
    for (; i < argc; i++) {
        const char *a = argv[i];
        int k;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            o->help = 1;
            continue;
        }
        if (!strcmp(a, "--print-plan")) {
            o->print_plan = 1;
            continue;
        }
        const char **dst = NULL, *name = NULL;
        static const char *const names[] = {"--tolerance", "--alpha", "--rules",
                                            "--judge",     "--sizes", "--output"};
        const char **dsts[] = {&tol, &alpha, &o->rules, &o->judge, &o->sizes, &o->output};
        for (size_t n = 0; n < sizeof names / sizeof *names && !dst; n++)
            if ((k = take_value(argc, argv, &i, names[n], dsts[n])) != 0) {
                if (k < 0)
                    return mbx_opt_bad(&said, "%s: expects a value", names[n]);
                dst = dsts[n], name = names[n];
            }
        if (!dst && (k = take_value(argc, argv, &i, "-o", &o->output)) != 0) {
            if (k < 0)
                return mbx_opt_bad(&said, "-o: expects a value");
            dst = &o->output, name = "-o";
        }
        if (dst) {
            (void)name;
            continue;
        }
        if (o->npass == GL_PASS_MAX)
            return mbx_opt_bad(&said, "too many run options (at most %d)", GL_PASS_MAX);
        o->pass[o->npass++] = argv[i];
    }
    if (tol) {
        char *end = NULL;
        double v = mbx_strtod(tol, &end);
        if (end == tol || (*end && strcmp(end, "%") != 0) || !(v >= 0 && v <= 100 * MBX_GL_TOL_MAX))
            return mbx_opt_bad(&said, "--tolerance: expected a percentage in 0..%g (got '%s')",
                               100 * MBX_GL_TOL_MAX, tol);
        o->tol = v / 100.0;
    }
    if (alpha) {
        char *end = NULL;
        double v = mbx_strtod(alpha, &end);
        if (end == alpha || *end || !(v > 0 && v < 1))
            return mbx_opt_bad(&said, "--alpha: expected a level in 0..1, both excluded (got '%s')",
                               alpha);
        o->alpha = v;
    }
    if (!o->output)
        o->output = GL_OUT_DEFAULT;
    return 0;
}

/* Everything before measuring: the options, then the plan (glplan.h).
 * 0, or the exit code (2 for bad input). */
static int prepare(gl_state *st, int argc, char **argv)
{
    int rc = parse_opts(argc, argv, &st->o);
    if (rc || st->o.help)
        return rc;
    char msg[GL_MSG];
    mbx_glp_opts po = {.catalogue = st->o.catalogue, .sizes = st->o.sizes, .rules = st->o.rules};
    if (mbx_glp_build(&st->p, &po, msg, sizeof msg) < 0)
        return mbx_opt_bad(&said, "%s", msg);
    return 0;
}

static void state_free(gl_state *st)
{
    mbx_glp_free(&st->p);
}

static int write_plan(const mbx_glp *st, FILE *f)
{
    fprintf(f,
            "# The plan of mpibex guidelines (%s): every benchmark its rules name,\n"
            "# grouped by the sizes each needs; -twin sections measure the right side\n"
            "# of a rule whose two sides are one benchmark.\n",
            st->cat_name);
    for (size_t s = 0; s < st->nsection; s++) {
        fprintf(f, "\n[%s]\nbench = ", st->label[s]);
        const mbx_glp_need *first = NULL;
        for (size_t i = 0; i < st->nneed; i++)
            if (st->need[i].section == (int)s) {
                fprintf(f, "%s%s", first ? ", " : "", st->need[i].b->name);
                first = first ? first : &st->need[i];
            }
        fputc('\n', f);
        if (first && !first->unsized) {
            fputs("sizes = ", f);
            for (size_t k = 0; k < first->n; k++)
                fprintf(f, "%s%llu", k ? "," : "", (unsigned long long)first->v[k]);
            fputc('\n', f);
        }
    }
    return ferror(f) ? -1 : 0;
}

/* OUT.csv without .csv, + suffix. */
static void sibling(const char *out, const char *suffix, char *buf, size_t len)
{
    size_t n = strlen(out);
    if (n >= 4 && strcmp(out + n - 4, ".csv") == 0)
        n -= 4;
    snprintf(buf, len, "%.*s%s", (int)n, out, suffix);
}

typedef mbx_glp_cell gl_cell;

/* A number in the C locale (the CSV's decimal point), or empty. */
static void fmt(char *b, size_t n, const char *f, double v)
{
    if (isfinite(v))
        mbx_snprintf_c(b, n, f, v);
    else
        b[0] = '\0';
}

static int write_verdicts(const gl_state *st, const gl_cell *c, size_t nc, const char *scope,
                          const char *path)
{
    static const char *const cols[] = {
        "rule",        "lhs",   "rhs",           "procs",         "bytes", "lhs_bytes", "rhs_bytes",
        "n_lhs",       "n_rhs", "median_lhs_us", "median_rhs_us", "ratio", "ratio_lo",  "ratio_hi",
        "p_two_sided", "q_bh",  "verdict",       "tolerance_pct", "scope"};
    enum { NC = sizeof cols / sizeof *cols };
    mbx_csv_writer *w = NULL;
    if (mbx_csv_writer_open(path, cols, NC, &w) < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < nc && rc == 0; i++) {
        const mbx_glp_rule *g = &st->p.rule[c[i].rule];
        char v[NC][48];
        snprintf(v[3], sizeof v[3], "%d", c[i].procs);
        snprintf(v[4], sizeof v[4], "%llu", (unsigned long long)c[i].m);
        snprintf(v[5], sizeof v[5], "%llu",
                 (unsigned long long)(c[i].m * (uint64_t)g->r->lhs.factor));
        snprintf(v[6], sizeof v[6], "%llu",
                 (unsigned long long)(c[i].m * (uint64_t)g->r->rhs.factor));
        snprintf(v[7], sizeof v[7], "%zu", c[i].j.n_lhs);
        snprintf(v[8], sizeof v[8], "%zu", c[i].j.n_rhs);
        fmt(v[9], sizeof v[9], "%.4f", c[i].j.med_lhs * 1e6);
        fmt(v[10], sizeof v[10], "%.4f", c[i].j.med_rhs * 1e6);
        fmt(v[11], sizeof v[11], "%.6f", c[i].j.ratio);
        fmt(v[12], sizeof v[12], "%.6f", c[i].j.lo);
        fmt(v[13], sizeof v[13], "%.6f", c[i].j.hi);
        fmt(v[14], sizeof v[14], "%.6g", c[i].j.p);
        fmt(v[15], sizeof v[15], "%.6g", c[i].j.q);
        mbx_snprintf_c(v[17], sizeof v[17], "%g", 100 * st->o.tol);
        const char *f[NC] = {g->r->name,
                             g->lb->name,
                             g->rb->name,
                             v[3],
                             v[4],
                             v[5],
                             v[6],
                             v[7],
                             v[8],
                             v[9],
                             v[10],
                             v[11],
                             v[12],
                             v[13],
                             v[14],
                             v[15],
                             mbx_gl_verdict_word(c[i].j.verdict),
                             v[17],
                             scope};
        rc = mbx_csv_writer_row(w, f) < 0 ? -1 : 0;
    }
    return mbx_csv_writer_close(w) < 0 ? -1 : rc;
}

/* Per rule: how many sizes hold, are violated and are neither; the
 * violated sizes' range and largest ratio. */
static void print_report(const gl_state *st, const gl_cell *c, size_t nc, const char *scope,
                         const char *verdicts)
{
    size_t tested = 0, nviol = 0;
    for (size_t i = 0; i < nc; i++)
        tested += c[i].j.verdict != MBX_GL_NONE;
    printf("# guidelines: %zu rules of %s, %zu judged at %zu points; tolerance %g %%, "
           "Benjamini-Hochberg at %g\n",
           st->p.nrule, st->p.cat_name, st->p.nrule - st->p.nskip, tested, 100 * st->o.tol,
           st->o.alpha);
    printf("# scope: %s (%s)\n", scope,
           strcmp(scope, "launches") == 0
               ? "launch medians: the verdicts are about the machine"
               : "pass medians of one job: the verdicts hold for this launch's state; over "
                 "launches: mpibex repeat, then --judge DIR");
    printf("# %-30s %5s %6s %8s %6s %7s  %s\n", "rule", "procs", "holds", "violated", "n.d.",
           "no data", "violated at (largest left/right, 95 % CI)");
    for (size_t r = 0; r < st->p.nrule; r++) {
        const mbx_glp_rule *g = &st->p.rule[r];
        if (g->skip) {
            printf("%-32s not in this build: %s\n", g->r->name, g->skip);
            continue;
        }
        int procs[GL_PROCS_MAX];
        size_t np = 0;
        for (size_t i = 0; i < nc; i++) {
            if (c[i].rule != r)
                continue;
            size_t k = 0;
            while (k < np && procs[k] != c[i].procs)
                k++;
            if (k == np && np < GL_PROCS_MAX)
                procs[np++] = c[i].procs;
        }
        for (size_t k = 0; k < np; k++) {
            mbx_glp_sum sum;
            char at[96];
            mbx_glp_summarize(c, nc, r, procs[k], &sum);
            mbx_glp_sum_format(&sum, at, sizeof at);
            nviol += sum.violated > 0;
            printf("%-32s %5d %6zu %8zu %6zu %7zu%s%s\n", g->r->name, procs[k], sum.holds,
                   sum.violated, sum.unclear, sum.none, at[0] ? "  " : "", at);
        }
    }
    printf("# %zu rule%s violated on some process count; every point in %s (no data: a "
           "side's rows are INVALID or UNRELIABLE, or it has fewer than 2 values)\n",
           nviol, nviol == 1 ? "" : "s", verdicts);
}

/* Judge every rule at every size and process count from path's samples. */
static int judge(gl_state *st, const char *path, const char *verdicts)
{
    char msg[GL_MSG];
    mbx_gl_data *d = NULL;
    const char *scope = NULL;
    if (mbx_gl_data_load(path, &d, &scope, msg, sizeof msg) < 0)
        return mbx_opt_bad(&said, "%s", msg);
    size_t cap = 64, nc = 0;
    gl_cell *c = malloc(cap * sizeof *c);
    int rc = c ? 0 : mbx_opt_bad(&said, "out of memory");
    for (size_t r = 0; r < st->p.nrule && rc == 0; r++) {
        const mbx_glp_rule *g = &st->p.rule[r];
        if (g->skip)
            continue;
        int procs[GL_PROCS_MAX];
        size_t np = mbx_gl_data_procs(d, g->lb->name, g->ll, procs, GL_PROCS_MAX);
        for (size_t k = 0; k < np && rc == 0; k++)
            for (size_t i = 0; i < g->nm && rc == 0; i++) {
                size_t nl, nr;
                uint64_t m = g->m[i];
                const double *a = mbx_gl_data_sample(d, g->lb->name, g->ll, procs[k],
                                                     m * (uint64_t)g->r->lhs.factor, &nl);
                const double *b = mbx_gl_data_sample(d, g->rb->name, g->rl, procs[k],
                                                     m * (uint64_t)g->r->rhs.factor, &nr);
                if (nc == cap) {
                    gl_cell *p = realloc(c, 2 * cap * sizeof *c);
                    if (!p) {
                        rc = mbx_opt_bad(&said, "out of memory");
                        break;
                    }
                    c = p, cap *= 2;
                }
                c[nc] = (gl_cell){.rule = r, .procs = procs[k], .m = m};
                if (mbx_gl_test(a, nl, b, nr, &c[nc].j) < 0)
                    rc = mbx_opt_bad(&said, "out of memory");
                nc++;
            }
    }
    if (rc == 0 && mbx_glp_decide(c, nc, st->o.tol, st->o.alpha) < 0)
        rc = mbx_opt_bad(&said, "out of memory");
    if (rc == 0 && write_verdicts(st, c, nc, scope, verdicts) < 0) {
        mbx_tprintf(stderr, "mpibex guidelines: cannot write %s\n", verdicts);
        rc = 1;
    }
    if (rc == 0)
        print_report(st, c, nc, scope, verdicts);
    free(c);
    mbx_gl_data_free(d);
    return rc;
}

/* Rank 0 of the job (or the only process with --fake): the run, then the
 * judgement. */
static int gl_root(mbx_engine *e, int argc, char **argv)
{
    gl_state st;
    memset(&st, 0, sizeof st);
    int rc = prepare(&st, argc, argv);
    if (rc || st.o.help) {
        state_free(&st);
        return rc;
    }
    char plan[4096], verdicts[4096];
    sibling(st.o.output, ".plan.ini", plan, sizeof plan);
    sibling(st.o.output, ".guidelines.csv", verdicts, sizeof verdicts);
    FILE *f = fopen(plan, "w");
    if (!f || write_plan(&st.p, f) < 0) {
        if (f)
            fclose(f);
        state_free(&st);
        return mbx_opt_bad(&said, "-o: cannot write the plan %s", plan);
    }
    if (fclose(f) != 0) {
        state_free(&st);
        return mbx_opt_bad(&said, "-o: cannot write the plan %s", plan);
    }
    char *run[GL_PASS_MAX + 10], passes_text[16];
    snprintf(passes_text, sizeof passes_text, "%d", MBX_GLP_PASSES);
    int n = 0;
    run[n++] = plan;
    run[n++] = "-o";
    run[n++] = (char *)st.o.output;
    run[n++] = "--raw";
    run[n++] = "--refine";
    run[n++] = "off";
    /* Ten passes a point at least, unless the run options say otherwise:
     * with five a side the smallest two-sided p of the rank-sum test is
     * 0.008, which no Benjamini-Hochberg step over a report of hundreds
     * of points can call significant; with ten it is 1e-5. */
    int passes = 0;
    for (int i = 0; i < st.o.npass; i++)
        passes |= !strcmp(st.o.pass[i], "--passes") || !strncmp(st.o.pass[i], "--passes=", 9);
    if (!passes) {
        run[n++] = "--passes";
        run[n++] = passes_text;
    }
    for (int i = 0; i < st.o.npass; i++)
        run[n++] = st.o.pass[i];
    run[n] = NULL;
    rc = mbx_batch_root(e, n, run);
    /* 1: some points failed (their rows say why); the others are judged. */
    if (rc == 0 || rc == 1) {
        int jrc = judge(&st, st.o.output, verdicts);
        rc = jrc ? jrc : rc;
    }
    state_free(&st);
    return rc;
}

static int wants_fake(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--fake") == 0 || strncmp(argv[i], "--fake=", 7) == 0)
            return 1;
    return 0;
}

int mbx_guidelines_cmd(int argc, char **argv)
{
    gl_state st;
    memset(&st, 0, sizeof st);
    /* What needs no job: help, bad input, the plan, a judgement. */
    int rc = prepare(&st, argc, argv);
    if (rc || st.o.help || st.o.print_plan || st.o.judge) {
        if (!rc && st.o.help)
            gl_usage();
        else if (!rc && st.o.print_plan)
            rc = write_plan(&st.p, stdout) < 0 ? 1 : 0;
        else if (!rc && st.o.judge) {
            char verdicts[4096];
            sibling(strcmp(st.o.output, GL_OUT_DEFAULT) ? st.o.output : st.o.judge,
                    ".guidelines.csv", verdicts, sizeof verdicts);
            rc = judge(&st, st.o.judge, verdicts);
        }
        state_free(&st);
        return rc;
    }
    state_free(&st);
    if (wants_fake(argc, argv)) {
        mbx_sig_catch(1);
        return gl_root(NULL, argc, argv);
    }
    return mbx_job_run_at(argc, argv, mbx_cli_thread_level(argc, argv), gl_root);
}
