#include "compare_cmd.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "core/opt.h"
#include "isotime.h"
#include "mbx/ascii.h"
#include "mbx/compare.h"
#include "mbx/csvio.h"
#include "mbx/esc.h"
#include "mbx/file.h"
#include "mbx/output.h"
#include "tprint.h"

#define DEFAULT_ALPHA 0.05

void mbx_compare_usage(void)
{
    printf("Usage: mpibex compare A B [--alpha 0.05] [--equiv 5%%] [--ignore PARTS] [-o OUT.csv]\n"
           "                      [-q]\n"
           "\n"
           "Tell, point by point, whether setting A is faster than B, slower, the same\n"
           "within a margin, or not distinguishable (Wilcoxon rank-sum test; Hunold &\n"
           "Carpen-Amarie). A and B are each\n"
           "  - a directory of launches written by 'mpibex repeat' (DIR/launch-*.csv, at\n"
           "    least 2): a point's sample is its median in each launch; or\n"
           "  - a results CSV of 'mpibex run --raw' with OUT.obs.csv beside it: a point's\n"
           "    sample is its pass medians (its observations, for a file written\n"
           "    before passes).\n"
           "Only launches are units of the machine: two directories give verdicts\n"
           "(scope launches:K; take K >= 10 a side), one file on both sides compares its\n"
           "interleaved sections (scope passes-of-one-job, with --ignore label), and\n"
           "anything else (two single runs) gets no verdict, only the ratio of medians.\n"
           "A point (benchmark, label, procs, bytes, root, op, param, rma_sync) is tested\n"
           "when both sides have it; an UNRELIABLE point contributes nothing. A column a\n"
           "file lacks (an earlier version's) reads as empty.\n"
           "\n"
           "Options:\n"
           "  --alpha ALPHA       false discovery rate, 0 < ALPHA < 1 (default 0.05)\n"
           "  --equiv D           equivalence margin, 0%% < D < 100%% (default 5%%; also\n"
           "                      a fraction such as 0.05): 'same' when the 90 %% CI\n"
           "                      of B/A lies within 1/(1+D) .. 1+D\n"
           "  --ignore PARTS      match points without benchmark, label, rma_sync or a\n"
           "                      comma list of them (benchmark,label): compare\n"
           "                      send_recv in A with ssend_recv in B, or rma.put under\n"
           "                      fence with lock_all; the table shows A's names\n"
           "  -o, --output FILE   also write the comparison as CSV ('-' writes it to\n"
           "                      stdout instead of the table; /dev/null discards it)\n"
           "  --force             write over an existing FILE (refused without it)\n"
           "  -q, --quiet         only the summary, no table\n"
           "  -h, --help          this text\n"
           "\n"
           "Verdicts: 'A faster' or 'A slower' when the Benjamini-Hochberg q-value over\n"
           "the table is below ALPHA (the direction from the one-sided tests); else\n"
           "'same within +/-D' when the equivalence test says so, else 'not\n"
           "distinguishable'. B/A is the Hodges-Lehmann ratio with its 95 %% CI. Each\n"
           "curve (a key over its sizes) gets a verdict too. Columns:\n"
           "docs/csv-format.md.\n"
           "Exit status: 0 compared (also without a verdict), 1 writing the output\n"
           "failed, 2 bad input.\n");
}

/* Bad input: "mpibex compare: " and one line on stderr (exit 2). */
static const mbx_opt_out said = {.prefix = "mpibex compare: ", .print = mbx_tprint_line};

/* The point's name: benchmark, then what else tells it apart; escaped for
 * the terminal (the names come from the files). */
#define NAME_MAX_RAW 160
#define NAME_LEN MBX_ESC_MAX(NAME_MAX_RAW)
static void point_name(const mbx_cmp_point *p, int with_label, char *out, size_t outlen)
{
    char buf[NAME_MAX_RAW];
    size_t len = sizeof buf;
    int n = snprintf(buf, len, "%s", p->benchmark);
    if (with_label && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " [%s]", p->label);
    if (p->root >= 0 && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " root=%d", p->root);
    if (p->param != 0 && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " param=%lld", p->param);
    if (p->rma_sync && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " %s", p->rma_sync);
    mbx_tesc(buf, out, outlen);
}

static void time_text(double s, char *buf, size_t len)
{
    double us = s * 1e6;
    if (!isfinite(us))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, us < 1000 ? "%.3f" : "%.1f", us);
}

typedef struct opts {
    const char *in[2], *out;
    size_t nin;
    double alpha, delta;
    unsigned ignore;
    int quiet, help, force;
} opts;

/* "A faster (q 0.008)", "same within +/-5%", "not distinguishable", "-". */
static void verdict_text(const mbx_cmp_point *p, double delta, char *buf, size_t len)
{
    if (p->verdict == '<' || p->verdict == '>')
        snprintf(buf, len, "A %s (q %.2g)", p->verdict == '<' ? "faster" : "slower", p->q);
    else if (p->verdict == '=' && p->equiv == 'y')
        snprintf(buf, len, "same within +/-%g%%", 100 * delta);
    else
        snprintf(buf, len, "%s", p->verdict == '=' ? "not distinguishable" : "-");
}

/* "1.02..1.08"; "-" when the interval is not finite (too few values). */
static void ci_text(const mbx_cmp_point *p, char *buf, size_t len)
{
    if (isfinite(p->hl_lo) && isfinite(p->hl_hi) && p->hl_lo > 0)
        snprintf(buf, len, "%.3f..%.3f", p->hl_lo, p->hl_hi);
    else
        snprintf(buf, len, "-");
}

static void print_table(const mbx_compare *c, const opts *o)
{
    size_t n = mbx_compare_count(c);
    mbx_compare_summary s;
    mbx_compare_summarize(c, &s);
    int with_label = 0, w = 9, none = s.scope == MBX_CMP_SCOPE_NONE;
    for (size_t i = 1; i < n && !with_label; i++)
        with_label = strcmp(mbx_compare_get(c, i)->label, mbx_compare_get(c, 0)->label) != 0;
    for (size_t i = 0; i < n; i++) {
        char name[NAME_LEN];
        point_name(mbx_compare_get(c, i), with_label, name, sizeof name);
        w = (int)strlen(name) > w ? (int)strlen(name) : w;
    }
    if (none)
        printf("%-*s %5s %9s %12s %12s %12s\n", w, "benchmark", "procs", "bytes", "median A us",
               "median B us", "B/A launch");
    else
        printf("%-*s %5s %9s %12s %12s %7s %13s %8s  %s\n", w, "benchmark", "procs", "bytes",
               "median A us", "median B us", "B/A", "95% CI", "p", "verdict");
    for (size_t i = 0; i < n; i++) {
        const mbx_cmp_point *p = mbx_compare_get(c, i);
        char name[NAME_LEN], sz[24], ma[24], mb[24], ratio[24], pv[32], ci[48], vt[64];
        point_name(p, with_label, name, sizeof name);
        mbx_size_text(p->bytes, sz, sizeof sz);
        time_text(p->median_a, ma, sizeof ma);
        time_text(p->median_b, mb, sizeof mb);
        double r = none || !isfinite(p->hl_ratio) ? p->ratio : p->hl_ratio;
        snprintf(ratio, sizeof ratio, isfinite(r) ? "%.3f" : "-", r);
        if (none) {
            printf("%-*s %5d %9s %12s %12s %12s\n", w, name, p->procs, sz, ma, mb, ratio);
            continue;
        }
        snprintf(pv, sizeof pv, "%.2g%s", p->w.p_two_sided, p->stars);
        ci_text(p, ci, sizeof ci);
        verdict_text(p, o->delta, vt, sizeof vt);
        printf("%-*s %5d %9s %12s %12s %7s %13s %8s  %s\n", w, name, p->procs, sz, ma, mb, ratio,
               ci, pv, vt);
    }
}

/* One line per curve: its verdict over its sizes (stratified test). */
static void print_curves(FILE *f, const mbx_compare *c)
{
    for (size_t i = 0; i < mbx_compare_curve_count(c); i++) {
        const mbx_cmp_curve *cv = mbx_compare_curve_get(c, i);
        char name[NAME_LEN], ratio[32] = "";
        point_name(mbx_compare_get(c, cv->first), 1, name, sizeof name);
        if (isfinite(cv->ratio))
            snprintf(ratio, sizeof ratio, ", B/A %.3f", cv->ratio);
        fprintf(f, "curve %s, %d procs, %zu size%s: %s (q %.2g)%s\n", name,
                mbx_compare_get(c, cv->first)->procs, cv->sizes, cv->sizes == 1 ? "" : "s",
                cv->verdict == '<'   ? "A faster"
                : cv->verdict == '>' ? "A slower"
                                     : "not distinguishable",
                cv->q, ratio);
    }
}

/* Launches are the units only if time is not a second factor: when the
 * repeat records say all of A's launches started before all of B's (or
 * after), a drift of the machine between the two series reads as a
 * difference of A and B (docs/user-guide.md, "Comparing two settings
 * fairly"). */
static void print_time_order(FILE *f, const opts *o)
{
    long long a0, a1, b0, b1;
    if (mbx_repeat_window(o->in[0], &a0, &a1) != 0 || mbx_repeat_window(o->in[1], &b0, &b1) != 0 ||
        (a1 >= b0 && b1 >= a0))
        return;
    long long gap = a1 < b0 ? b0 - a1 : a0 - b1;
    fprintf(f,
            "time order: %s's launches all started before %s's (%lld s between the two series): "
            "a drift of the machine between them reads as a difference of A and B; for a "
            "verdict on the settings alone, alternate their launches over the same time\n",
            a1 < b0 ? "A" : "B", a1 < b0 ? "B" : "A", gap);
}

static void print_summary(FILE *f, const mbx_compare *c, const opts *o)
{
    mbx_compare_summary s;
    mbx_compare_summarize(c, &s);
    char scope[48];
    mbx_compare_scope_text(s.scope, s.k, scope, sizeof scope);
    if (s.scope == MBX_CMP_SCOPE_NONE) {
        fprintf(
            f,
            "%zu point%s, ratios of medians only (launch-scoped); only in A: %zu, only in B: %zu\n",
            s.tested, s.tested == 1 ? "" : "s", s.only_a, s.only_b);
        fprintf(f, "%s\n", s.why_none);
    } else {
        fprintf(f,
                "%zu point%s: A faster at %zu, slower at %zu (BH q < %g: about %.2g of these calls "
                "false), same within +/-%g%% at %zu, not distinguishable at %zu; only in A: %zu, "
                "only in B: %zu\n",
                s.tested, s.tested == 1 ? "" : "s", s.faster, s.slower, o->alpha, s.expected_false,
                100 * s.delta, s.equivalent, s.same - s.equivalent, s.only_a, s.only_b);
    }
    static const char *const part[] = {"benchmark", "label", "rma_sync"};
    char without[80] = "";
    for (unsigned i = 0, used = 0; i < 3; i++)
        if (o->ignore & (1u << i))
            used += (unsigned)snprintf(without + used, sizeof without - used, "%s%s",
                                       used ? " and " : "; matched without the ", part[i]);
    mbx_tprintf(f, "scope %s; alpha %g; A: %s (%s), B: %s (%s)%s\n", scope, o->alpha, o->in[0],
                s.kind_a, o->in[1], s.kind_b, without);
    if (s.scope == MBX_CMP_SCOPE_LAUNCHES && s.k < 10)
        fprintf(f,
                "%zu launches a side: take 10 or more (mpibex repeat -k 10) for verdicts and "
                "equivalence that can hold\n",
                s.k);
    if (s.scope == MBX_CMP_SCOPE_LAUNCHES)
        print_time_order(f, o);
}

static void put(char store[48], const char **field, const char *fmt, double x)
{
    if (isfinite(x)) {
        mbx_csv_fmt_number(store, 48, fmt, x);
        *field = store;
    } else {
        *field = "";
    }
}

/* One point as the fields of mbx_compare_columns. */
static void format_row(const mbx_cmp_point *p, double delta, char store[][48], const char **f)
{
    f[0] = p->benchmark;
    f[1] = p->label;
    snprintf(store[2], 48, "%d", p->procs);
    snprintf(store[3], 48, "%llu", (unsigned long long)p->bytes);
    snprintf(store[4], 48, "%d", p->root);
    snprintf(store[6], 48, "%lld", p->param);
    snprintf(store[7], 48, "%zu", p->n_a);
    snprintf(store[8], 48, "%zu", p->n_b);
    for (int i = 2; i <= 8; i++)
        f[i] = store[i];
    if (p->root < 0)
        f[4] = "";
    f[5] = p->op ? p->op : "";
    if (p->param == 0)
        f[6] = "";
    put(store[9], &f[9], "%.4f", p->median_a * 1e6);
    put(store[10], &f[10], "%.4f", p->median_b * 1e6);
    put(store[11], &f[11], "%.6f", p->ratio);
    put(store[12], &f[12], "%.4f", p->w.shift * 1e6);
    put(store[13], &f[13], "%.1f", p->w.w);
    put(store[14], &f[14], "%.4f", p->w.z);
    put(store[15], &f[15], "%.6g", p->w.p_two_sided);
    put(store[16], &f[16], "%.6g", p->w.p_less);
    put(store[17], &f[17], "%.6g", p->w.p_greater);
    f[18] = p->w.exact ? "yes" : "no";
    f[19] = mbx_compare_point_word(p);
    f[20] = p->rma_sync ? p->rma_sync : "";
    mbx_compare_scope_text(p->scope, p->n_a < p->n_b ? p->n_a : p->n_b, store[21], 48);
    f[21] = store[21];
    put(store[22], &f[22], "%.6f", p->hl_ratio);
    put(store[23], &f[23], "%.6f", p->hl_lo);
    put(store[24], &f[24], "%.6f", p->hl_hi);
    put(store[25], &f[25], "%.6g", p->q);
    f[26] = p->equiv == 'y' ? "yes" : p->equiv == 'n' ? "no" : "";
    put(store[27], &f[27], "%g", delta);
    if (p->scope == MBX_CMP_SCOPE_NONE) /* no claim about the machine: no test's figures */
        for (int i = 12; i <= 18; i++)
            f[i] = "";
    if (p->scope == MBX_CMP_SCOPE_NONE || p->equiv == 0)
        f[22] = f[23] = f[24] = f[26] = f[27] = "";
}

static int write_csv(const mbx_compare *c, const char *out, double delta)
{
    int to_stdout = strcmp(out, "-") == 0, rc = MBX_OK;
    mbx_csv_writer *w = NULL;
    mbx_tbuf tb;
    FILE *so = to_stdout ? mbx_tbuf_open(&tb, stdout) : NULL;
    if (to_stdout && so == NULL)
        return mbx_opt_bad(&said, "out of memory");
    if (to_stdout)
        rc = mbx_csv_fputrow(so, mbx_compare_columns, MBX_COMPARE_NCOLS);
    else if (mbx_csv_writer_open(out, mbx_compare_columns, MBX_COMPARE_NCOLS, &w) < 0)
        return mbx_opt_bad(&said, "-o: cannot write '%s': %s", out, mbx_file_why(errno));
    for (size_t i = 0; rc == MBX_OK && i < mbx_compare_count(c); i++) {
        char store[MBX_COMPARE_NCOLS][48];
        const char *f[MBX_COMPARE_NCOLS];
        format_row(mbx_compare_get(c, i), delta, store, f);
        /* The text cells come from the input files: a formula in them is
         * defused (docs/hardening.md, "Hostile CSV"). */
        static const int text[] = {0, 1, 5, 20};
        char *safe[4] = {NULL};
        for (size_t t = 0; t < 4; t++)
            if ((safe[t] = mbx_csv_text_dup(f[text[t]])) != NULL)
                f[text[t]] = safe[t];
            else
                rc = MBX_E_NOMEM;
        if (rc == MBX_OK)
            rc = to_stdout ? mbx_csv_fputrow(so, f, MBX_COMPARE_NCOLS) : mbx_csv_writer_row(w, f);
        for (size_t t = 0; t < 4; t++)
            free(safe[t]);
    }
    int err = errno;
    if (to_stdout ? (mbx_tbuf_close(&tb) != 0) | (fflush(stdout) != 0)
                  : mbx_csv_writer_close(w) < 0) {
        rc = MBX_E_IO;
        err = errno;
    }
    if (rc < 0) {
        mbx_tprintf(stderr, "mpibex compare: writing '%s' failed: %s\n", to_stdout ? "stdout" : out,
                    strerror(err));
        return 1;
    }
    return 0;
}

static int same_file(const char *x, const char *y)
{
    struct stat a, b;
    return strcmp(x, y) == 0 ||
           (stat(x, &a) == 0 && stat(y, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino);
}

/* Whether writing out would overwrite input `in`: the file itself, its
 * observations, or (in is a directory) one of its launch files. */
static int overwrites(const char *out, const char *in)
{
    struct stat sb;
    if (stat(in, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        const char *slash = strrchr(out, '/'), *base = slash ? slash + 1 : out;
        char dir[4096];
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - out) : 1, slash ? out : ".");
        return strncmp(base, "launch-", 7) == 0 && same_file(dir, in);
    }
    char *obs = mbx_csv_sidecar(in, ".obs.csv");
    int hit = same_file(out, in) || (obs && same_file(out, obs));
    free(obs);
    return hit;
}

/* v as a number in (0, 1) into *out (with pct, "5%" is 0.05 too); -1
 * when it is not one. */
static int fraction(const char *v, int pct, double *out)
{
    char *end = NULL;
    errno = 0;
    double x = v ? mbx_strtod(v, &end) : NAN;
    if (pct && end && end != v && *end == '%')
        x /= 100, end++;
    if (v == NULL || end == v || *end != '\0' || errno != 0 || !(x > 0 && x < 1))
        return -1;
    *out = x;
    return 0;
}

static int on_alpha(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    (void)o, (void)name;
    if (fraction(v, 0, &((opts *)p->dst)->alpha) < 0)
        return mbx_opt_bad(&p->out, "--alpha: expected 0 < ALPHA < 1, got %s",
                           v && *v ? v : "nothing");
    return 0;
}

/* --equiv 5% or --equiv 0.05: the margin of the equivalence test. */
static int on_equiv(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    (void)o, (void)name;
    if (fraction(v, 1, &((opts *)p->dst)->delta) < 0)
        return mbx_opt_bad(
            &p->out, "--equiv: expected a margin 0%% < D < 100%% (such as 5%% or 0.05), got %s",
            v && *v ? v : "nothing");
    return 0;
}

static int on_ignore(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    static const char *const allowed = "benchmark, label, rma_sync or a comma list of them";
    unsigned *ignore = &((opts *)p->dst)->ignore;
    (void)o, (void)name;
    *ignore = 0;
    for (const char *s = v; s && *s;) {
        size_t n = strcspn(s, ",");
        if (n == 9 && strncmp(s, "benchmark", 9) == 0)
            *ignore |= MBX_COMPARE_IGNORE_BENCHMARK;
        else if (n == 5 && strncmp(s, "label", 5) == 0)
            *ignore |= MBX_COMPARE_IGNORE_LABEL;
        else if (n == 8 && strncmp(s, "rma_sync", 8) == 0)
            *ignore |= MBX_COMPARE_IGNORE_RMA_SYNC;
        else
            return mbx_opt_bad(&p->out, "--ignore: unknown key part '%.*s'; allowed %s", (int)n, s,
                               allowed);
        s += n + (s[n] == ',');
    }
    return *ignore ? 0 : mbx_opt_bad(&p->out, "--ignore: missing value; allowed %s", allowed);
}

static int on_input(mbx_opt_parser *p, const char *word)
{
    opts *c = p->dst;
    if (c->nin == 2)
        return mbx_opt_bad(&p->out, "expected two inputs A and B, got a third: '%s'", word);
    c->in[c->nin++] = word;
    return 0;
}

static const mbx_opt compare_opts[] = {
    {"--help", "-h", NULL, 0, mbx_opt_help, 0},
    {"--quiet", "-q", NULL, 0, NULL, offsetof(opts, quiet)},
    {"--force", NULL, NULL, 0, NULL, offsetof(opts, force)},
    {"--alpha", NULL, "ALPHA", 0, on_alpha, 0},
    {"--equiv", NULL, "D", 0, on_equiv, 0},
    {"--ignore", NULL, "PARTS", 0, on_ignore, 0},
    {"--output", "-o", "FILE", 0, mbx_opt_output, offsetof(opts, out)},
};

static int parse(int argc, char **argv, opts *o)
{
    mbx_opt_parser p = {.opts = compare_opts,
                        .nopts = MBX_OPT_COUNT(compare_opts),
                        .flags = MBX_OPT_DASHDASH | MBX_OPT_EQ,
                        .dst = o,
                        .out = said,
                        .unknown = "unknown option '%s' (see 'mpibex compare --help')",
                        .operand = on_input};
    int rc = mbx_opt_parse(&p, argc, argv, 0);
    o->help = p.help;
    if (rc == 0 && !o->help && o->nin < 2)
        rc = mbx_opt_bad(&said,
                         "expected two inputs A and B (directories of launches or results CSVs), "
                         "got %zu",
                         o->nin);
    for (size_t i = 0; rc == 0 && !o->help && o->out && i < o->nin; i++)
        if (strcmp(o->out, "-") != 0 && overwrites(o->out, o->in[i]))
            rc = mbx_opt_bad(&said, "-o: the output '%s' is part of the input '%s'", o->out,
                             o->in[i]);
    return rc;
}

int mbx_compare_cmd(int argc, char **argv)
{
    opts o = {.alpha = DEFAULT_ALPHA, .delta = MBX_COMPARE_DELTA_DEFAULT};
    int rc = parse(argc, argv, &o);
    if (rc != 0 || o.help) {
        if (o.help)
            mbx_compare_usage();
        return rc;
    }
    mbx_compare *c = NULL;
    char msg[512];
    /* Claimed for the whole compare (mbx/output.h): locked, an existing
     * file only with --force, never an input. */
    mbx_output claim = {0};
    mbx_output_req req = {.path = o.out,
                          .flags = MBX_OUTPUT_ALLOW_STDOUT | MBX_OUTPUT_ALLOW_DISCARD |
                                   (o.force ? MBX_OUTPUT_FORCE : 0),
                          .inputs = o.in,
                          .ninputs = o.nin};
    if (o.out && (rc = mbx_output_claim(&req, &claim, msg, sizeof msg)) < 0)
        return rc == MBX_E_NOMEM ? mbx_opt_bad(&said, "out of memory")
                                 : mbx_opt_bad(&said, "%s", msg);
    rc = 0;
    if (claim.kind == MBX_OUTPUT_DISCARD)
        o.out = NULL;
    mbx_compare_opts co = {.alpha = o.alpha, .ignore = o.ignore, .delta = o.delta};
    if (mbx_compare_load_opts(o.in[0], o.in[1], &co, &c, msg, sizeof msg) < 0) {
        mbx_output_release(&claim);
        return mbx_opt_bad(&said, "%s", msg);
    }
    int csv_stdout = o.out && strcmp(o.out, "-") == 0;
    if (o.out)
        rc = write_csv(c, o.out, o.delta);
    if (rc == 0) {
        FILE *f = csv_stdout ? stderr : stdout;
        if (!o.quiet && !csv_stdout)
            print_table(c, &o);
        if (!o.quiet)
            print_curves(f, c);
        print_summary(f, c, &o);
    }
    mbx_compare_free(c);
    mbx_output_release(&claim);
    return rc;
}
