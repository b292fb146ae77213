/* mpibex guidelines (guidelines.h): the catalogue's rules resolved against
 * the registry, the plan that measures every benchmark they name in one
 * job (grouped into sections by the sizes each needs), the run itself
 * (run's own code, with --raw), and the judgement of each rule at each
 * size from the run's pass medians or a directory's launch medians. */
#include "guidelines.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/opt.h"
#include "job.h"
#include "mbx/ascii.h"
#include "mbx/bench.h"
#include "mbx/csvio.h"
#include "mbx/guideline.h"
#include "mbx/sizes.h"
#include "run.h"
#include "sig.h"
#include "tprint.h"

extern const char mbx_embedded_guidelines[];

#define GL_SIZES_DEFAULT "1:1M"
#define GL_OUT_DEFAULT "guidelines.csv"
#define GL_MSG 512
#define GL_PASS_MAX 64
#define GL_SECTIONS_MAX 32
#define GL_PROCS_MAX 64
#define GL_PASSES "10" /* the least passes of a point (run's --passes) */

static const mbx_opt_out said = {.prefix = "mpibex guidelines: ", .print = mbx_tprint_line};

typedef struct gl_opts {
    const char *catalogue, *judge, *output, *sizes, *rules;
    double tol, alpha;
    int print_plan, help;
    char *pass[GL_PASS_MAX]; /* run's options, in order */
    int npass;
} gl_opts;

/* One rule of the catalogue, resolved. */
typedef struct gl_rule {
    const mbx_gl_rule *r;
    const mbx_bench *lb, *rb;
    const char *skip; /* why it is not measured (not in this build), or NULL */
    uint64_t *m;      /* the rule's sizes (0 alone for two unsized benchmarks) */
    size_t nm;
    int twin;            /* both sides one benchmark at one size: the right in a twin section */
    const char *ll, *rl; /* the sections that measure the two sides */
} gl_rule;

/* What one benchmark (in its section or its twin) must be measured at. */
typedef struct gl_need {
    const mbx_bench *b;
    int twin, unsized;
    uint64_t *v;
    size_t n, cap;
    int section;
} gl_need;

typedef struct gl_state {
    gl_opts o;
    mbx_gl_catalogue *cat;
    const char *cat_name;
    mbx_size_list *sizes;
    enum { GL_SIZES_RANGE, GL_SIZES_LIST } sizes_given; /* a list must fit each rule */
    gl_rule *rule;
    size_t nrule, nskip;
    gl_need *need;
    size_t nneed;
    char label[GL_SECTIONS_MAX][24];
    size_t nsection;
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
           "  --rules GLOB,...     only the rules whose names match\n"
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

static int rule_selected(const gl_opts *o, const char *name)
{
    if (!o->rules)
        return 1;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", o->rules);
    for (char *save = NULL, *g = strtok_r(buf, ",", &save); g; g = strtok_r(NULL, ",", &save))
        if (fnmatch(g, name, 0) == 0)
            return 1;
    return 0;
}

/* A side's benchmark: the registry's, or why the build lacks it (*skip),
 * or an error (exit 2). */
static int resolve_side(const gl_state *st, const mbx_gl_rule *r, const mbx_gl_side *s,
                        const mbx_bench **b, const char **skip)
{
    int id;
    if (mbx_bench_find(s->bench, &id) == MBX_OK) {
        *b = mbx_bench_get(id);
        return 0;
    }
    const char *name, *why;
    for (size_t i = 0; mbx_bench_absent(i, &name, &why); i++)
        if (!strcmp(name, s->bench)) {
            *skip = why;
            return 0;
        }
    return mbx_opt_bad(&said, "%s:%d: [%s] holds: unknown benchmark '%s' (see 'mpibex list')",
                       st->cat_name, r->line, r->name, s->bench);
}

/* The sizes of rule g: each of the list at which both sides measure
 * exactly (factor x size). A range (the default or given) lets each rule
 * take those it can, and is an error (exit 2) only when it leaves a rule
 * none; a given list is the user's exact sizes, each one must fit. */
static int rule_sizes(gl_state *st, gl_rule *g)
{
    const mbx_gl_rule *r = g->r;
    int ls = (g->lb->flags & MBX_BENCH_SIZED) != 0, rs = (g->rb->flags & MBX_BENCH_SIZED) != 0;
    const mbx_bench *last_bad = NULL;
    g->m = calloc(st->sizes->n + 1, sizeof *g->m);
    if (!g->m)
        return mbx_opt_bad(&said, "out of memory");
    if (!ls && !rs) {
        g->m[g->nm++] = 0;
        return 0;
    }
    if (ls != rs)
        return mbx_opt_bad(&said,
                           "%s:%d: [%s] holds: %s and %s: one varies over message size, "
                           "the other not",
                           st->cat_name, r->line, r->name, g->lb->name, g->rb->name);
    for (size_t i = 0; i < st->sizes->n; i++) {
        uint64_t m = st->sizes->v[i], a = m * (uint64_t)r->lhs.factor,
                 b = m * (uint64_t)r->rhs.factor;
        const mbx_bench *bad =
            mbx_bench_align(g->lb, a) != a || (a == 0 && mbx_bench_zero_why(g->lb))   ? g->lb
            : mbx_bench_align(g->rb, b) != b || (b == 0 && mbx_bench_zero_why(g->rb)) ? g->rb
                                                                                      : NULL;
        if (!bad) {
            g->m[g->nm++] = m;
            continue;
        }
        last_bad = bad;
        if (st->sizes_given == GL_SIZES_LIST)
            return mbx_opt_bad(&said,
                               "--sizes: [%s] compares %s, which measures whole multiples of %u "
                               "bytes from %u (%s); %llu B is not one (give such sizes, a "
                               "range, or leave --sizes out)",
                               r->name, bad->name, bad->unit, bad->unit,
                               bad->op ? bad->op : "its datatype", (unsigned long long)m);
    }
    if (g->nm == 0 && last_bad)
        return mbx_opt_bad(&said,
                           "--sizes: [%s] compares %s, which measures whole multiples of %u "
                           "bytes from %u (%s); the range %s holds none",
                           r->name, last_bad->name, last_bad->unit, last_bad->unit,
                           last_bad->op ? last_bad->op : "its datatype",
                           st->o.sizes ? st->o.sizes : GL_SIZES_DEFAULT);
    return 0;
}

/* The need of benchmark b (in its twin section or not), made when new. */
static gl_need *need_of(gl_state *st, const mbx_bench *b, int twin)
{
    for (size_t i = 0; i < st->nneed; i++)
        if (st->need[i].b == b && st->need[i].twin == twin)
            return &st->need[i];
    gl_need *n = &st->need[st->nneed++];
    memset(n, 0, sizeof *n);
    n->b = b;
    n->twin = twin;
    n->unsized = !(b->flags & MBX_BENCH_SIZED);
    return n;
}

static int need_add(gl_need *n, uint64_t v)
{
    if (n->unsized)
        return 0;
    size_t at = 0;
    while (at < n->n && n->v[at] < v)
        at++;
    if (at < n->n && n->v[at] == v)
        return 0;
    if (n->n == n->cap) {
        size_t cap = n->cap ? 2 * n->cap : 32;
        uint64_t *p = realloc(n->v, cap * sizeof *p);
        if (!p)
            return -1;
        n->v = p, n->cap = cap;
    }
    memmove(n->v + at + 1, n->v + at, (n->n - at) * sizeof *n->v);
    n->v[at] = v;
    n->n++;
    return 0;
}

static int same_sizes(const gl_need *a, const gl_need *b)
{
    return a->twin == b->twin && a->unsized == b->unsized && a->n == b->n &&
           (a->n == 0 || memcmp(a->v, b->v, a->n * sizeof *a->v) == 0);
}

/* The sections: the needs of one size list (and twin-ness) share one. */
static int group(gl_state *st)
{
    for (size_t i = 0; i < st->nneed; i++) {
        gl_need *n = &st->need[i];
        n->section = -1;
        for (size_t j = 0; j < i && n->section < 0; j++)
            if (same_sizes(n, &st->need[j]))
                n->section = st->need[j].section;
        if (n->section >= 0)
            continue;
        if (st->nsection == GL_SECTIONS_MAX)
            return mbx_opt_bad(&said,
                               "the rules need more than %d size lists; select fewer "
                               "(--rules)",
                               GL_SECTIONS_MAX);
        n->section = (int)st->nsection;
        snprintf(st->label[st->nsection], sizeof st->label[0], "gl%s-%zu", n->twin ? "-twin" : "",
                 st->nsection + 1);
        st->nsection++;
    }
    return 0;
}

/* Everything before measuring: the catalogue, the sizes, the rules
 * resolved and grouped. 0, or the exit code (2 for bad input). */
static int prepare(gl_state *st, int argc, char **argv)
{
    int rc = parse_opts(argc, argv, &st->o);
    if (rc || st->o.help)
        return rc;
    char msg[GL_MSG];
    st->cat = calloc(1, sizeof *st->cat);
    st->sizes = calloc(1, sizeof *st->sizes);
    if (!st->cat || !st->sizes)
        return mbx_opt_bad(&said, "out of memory");
    st->cat_name = st->o.catalogue ? st->o.catalogue : "guidelines.ini (built in)";
    rc = st->o.catalogue
             ? mbx_gl_load(st->o.catalogue, st->cat, msg, sizeof msg)
             : mbx_gl_parse(mbx_embedded_guidelines, st->cat_name, st->cat, msg, sizeof msg);
    if (rc < 0)
        return mbx_opt_bad(&said, "%s", msg);
    st->sizes_given = !st->o.sizes               ? GL_SIZES_RANGE
                      : strchr(st->o.sizes, ':') ? GL_SIZES_RANGE
                                                 : GL_SIZES_LIST;
    if (mbx_sizes_parse(st->o.sizes ? st->o.sizes : GL_SIZES_DEFAULT, st->sizes, msg, sizeof msg) <
        0)
        return mbx_opt_bad(&said, "--sizes: %s", msg);
    st->rule = calloc(st->cat->n, sizeof *st->rule);
    st->need = calloc(2 * st->cat->n, sizeof *st->need);
    if (!st->rule || !st->need)
        return mbx_opt_bad(&said, "out of memory");
    for (size_t i = 0; i < st->cat->n; i++) {
        const mbx_gl_rule *r = &st->cat->rule[i];
        if (!rule_selected(&st->o, r->name))
            continue;
        gl_rule *g = &st->rule[st->nrule++];
        g->r = r;
        if ((rc = resolve_side(st, r, &r->lhs, &g->lb, &g->skip)) != 0 ||
            (rc = resolve_side(st, r, &r->rhs, &g->rb, &g->skip)) != 0)
            return rc;
        if (g->skip) {
            st->nskip++;
            continue;
        }
        if ((rc = rule_sizes(st, g)) != 0)
            return rc;
        g->twin = g->lb == g->rb && r->lhs.factor == r->rhs.factor;
        gl_need *nl = need_of(st, g->lb, 0), *nr = need_of(st, g->rb, g->twin);
        for (size_t k = 0; k < g->nm; k++)
            if (need_add(nl, g->m[k] * (uint64_t)r->lhs.factor) < 0 ||
                need_add(nr, g->m[k] * (uint64_t)r->rhs.factor) < 0)
                return mbx_opt_bad(&said, "out of memory");
    }
    if (st->nrule == 0)
        return mbx_opt_bad(&said, "--rules: '%s' selects no rule of %s", st->o.rules, st->cat_name);
    if (st->nrule == st->nskip)
        return mbx_opt_bad(&said,
                           "none of the %zu rules can be measured by this build (see "
                           "'mpibex list')",
                           st->nrule);
    if ((rc = group(st)) != 0)
        return rc;
    for (size_t i = 0; i < st->nrule; i++) {
        gl_rule *g = &st->rule[i];
        if (g->skip)
            continue;
        g->ll = st->label[need_of(st, g->lb, 0)->section];
        g->rl = st->label[need_of(st, g->rb, g->twin)->section];
    }
    return 0;
}

static void state_free(gl_state *st)
{
    for (size_t i = 0; i < st->nrule; i++)
        free(st->rule[i].m);
    for (size_t i = 0; i < st->nneed; i++)
        free(st->need[i].v);
    free(st->rule);
    free(st->need);
    free(st->cat);
    free(st->sizes);
}

static int write_plan(const gl_state *st, FILE *f)
{
    fprintf(f,
            "# The plan of mpibex guidelines (%s): every benchmark its rules name,\n"
            "# grouped by the sizes each needs; -twin sections measure the right side\n"
            "# of a rule whose two sides are one benchmark.\n",
            st->cat_name);
    for (size_t s = 0; s < st->nsection; s++) {
        fprintf(f, "\n[%s]\nbench = ", st->label[s]);
        const gl_need *first = NULL;
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

typedef struct gl_cell {
    size_t rule;
    int procs;
    uint64_t m;
    mbx_gl_judgement j;
} gl_cell;

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
        const gl_rule *g = &st->rule[c[i].rule];
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
           st->nrule, st->cat_name, st->nrule - st->nskip, tested, 100 * st->o.tol, st->o.alpha);
    printf("# scope: %s (%s)\n", scope,
           strcmp(scope, "launches") == 0
               ? "launch medians: the verdicts are about the machine"
               : "pass medians of one job: the verdicts hold for this launch's state; over "
                 "launches: mpibex repeat, then --judge DIR");
    printf("# %-30s %5s %6s %8s %6s %7s  %s\n", "rule", "procs", "holds", "violated", "n.d.",
           "no data", "violated at (largest left/right, 95 % CI)");
    for (size_t r = 0; r < st->nrule; r++) {
        const gl_rule *g = &st->rule[r];
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
            size_t h = 0, v = 0, u = 0, none = 0;
            uint64_t lo = 0, hi = 0;
            const mbx_gl_judgement *worst = NULL;
            for (size_t i = 0; i < nc; i++) {
                if (c[i].rule != r || c[i].procs != procs[k])
                    continue;
                const mbx_gl_judgement *j = &c[i].j;
                h += j->verdict == MBX_GL_HOLDS;
                u += j->verdict == MBX_GL_UNCLEAR;
                none += j->verdict == MBX_GL_NONE;
                if (j->verdict == MBX_GL_VIOLATED) {
                    lo = v ? lo : c[i].m;
                    hi = c[i].m;
                    if (!worst || j->ratio > worst->ratio)
                        worst = j;
                    v++;
                }
            }
            nviol += v > 0;
            printf("%-32s %5d %6zu %8zu %6zu %7zu", g->r->name, procs[k], h, v, u, none);
            if (worst) {
                char a[16], b[16];
                mbx_size_format(lo, a, sizeof a);
                mbx_size_format(hi, b, sizeof b);
                printf("  %s-%s (%.3f [%.3f, %.3f])", a, b, worst->ratio, worst->lo, worst->hi);
            }
            putchar('\n');
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
    for (size_t r = 0; r < st->nrule && rc == 0; r++) {
        const gl_rule *g = &st->rule[r];
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
    mbx_gl_judgement *js = rc == 0 ? malloc((nc ? nc : 1) * sizeof *js) : NULL;
    if (rc == 0 && !js)
        rc = mbx_opt_bad(&said, "out of memory");
    for (size_t i = 0; rc == 0 && i < nc; i++)
        js[i] = c[i].j;
    if (rc == 0 && mbx_gl_decide(js, nc, st->o.tol, st->o.alpha) < 0)
        rc = mbx_opt_bad(&said, "out of memory");
    for (size_t i = 0; rc == 0 && i < nc; i++)
        c[i].j = js[i];
    if (rc == 0 && write_verdicts(st, c, nc, scope, verdicts) < 0) {
        mbx_tprintf(stderr, "mpibex guidelines: cannot write %s\n", verdicts);
        rc = 1;
    }
    if (rc == 0)
        print_report(st, c, nc, scope, verdicts);
    free(js);
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
    if (!f || write_plan(&st, f) < 0) {
        if (f)
            fclose(f);
        state_free(&st);
        return mbx_opt_bad(&said, "-o: cannot write the plan %s", plan);
    }
    if (fclose(f) != 0) {
        state_free(&st);
        return mbx_opt_bad(&said, "-o: cannot write the plan %s", plan);
    }
    char *run[GL_PASS_MAX + 10];
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
        run[n++] = GL_PASSES;
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
            rc = write_plan(&st, stdout) < 0 ? 1 : 0;
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
