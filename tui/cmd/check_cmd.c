/* mpibex check BASELINE CURRENT: compare's point-by-point statistics
 * turned into one verdict and an exit status for a test pipeline
 * (docs/user-guide.md, "Checking against a baseline: check"). */
#include "check_cmd.h"

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
#include "mbx/csvio.h"
#include "mbx/esc.h"
#include "mbx/file.h"
#include "mbx/output.h"
#include "tprint.h"

#define CHECK_EXIT_REGRESSION 1
#define CHECK_EXIT_UNDECIDED 3
#define CHECK_ALPHA 0.05

void mbx_check_usage(void)
{
    printf("Usage: mpibex check BASELINE CURRENT [--tolerance 5%%|2us] [--direction slower|both]\n"
           "                    [--rules FILE] [--junit FILE] [--all] [-q]\n"
           "\n"
           "Has CURRENT regressed against BASELINE? For a test pipeline: point by point\n"
           "(the points of 'mpibex compare'), the ratio CURRENT/BASELINE of the medians\n"
           "(Hodges-Lehmann) and its 95 %% CI, and a verdict: 'slower' when the CI lies\n"
           "above 1 + tolerance, 'faster' when below 1/(1 + tolerance), 'equivalent'\n"
           "when within both, else 'undecided'. BASELINE and CURRENT are each a\n"
           "directory of launches written by 'mpibex repeat' (take -k 10 a side) or a\n"
           "results CSV; only two directories give verdicts (scope launches:K), as in\n"
           "'mpibex compare'.\n"
           "\n"
           "Options:\n"
           "  --tolerance T       the change allowed: a percentage 0%%..100%% (default 5%%)\n"
           "                      or microseconds 0us..1000000us (the CI of the shift,\n"
           "                      ratio less 1 times the baseline's median)\n"
           "  --direction D       slower (default: only a slowdown fails) or both (a\n"
           "                      change beyond the tolerance either way fails)\n"
           "  --rules FILE        a check file: per benchmark and size range, the\n"
           "                      tolerance and direction (INI: [section] rules of\n"
           "                      bench = GLOBS, sizes = MIN:MAX, tolerance = T,\n"
           "                      direction = D; the later matching rule wins)\n"
           "  --junit FILE        also write a JUnit XML report: a testcase per point,\n"
           "                      a failure per regression, skipped when undecided\n"
           "                      (written over an existing FILE)\n"
           "  --all               the table lists every point, not only those that\n"
           "                      fail or leave the check open\n"
           "  -q, --quiet         only the summary (and the advice line)\n"
           "  -h, --help          this text\n"
           "\n"
           "Exit status: 0 no regression (every point decided: no point can fail),\n"
           "1 a regression, 2 bad input (one line), 3 not enough data to decide (one\n"
           "launch a side, no verdict possible, or a point whose CI reaches beyond the\n"
           "tolerance without lying beyond it): the line after the summary says what\n"
           "to run.\n");
}

static const mbx_opt_out said = {.prefix = "mpibex check: ", .print = mbx_tprint_line};

typedef struct opts {
    const char *in[2], *rules, *junit;
    size_t nin;
    mbx_check_tol tol;
    mbx_check_dir dir;
    int quiet, help, all;
} opts;

static int on_tolerance(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    char why[256];
    (void)o, (void)name;
    if (mbx_check_tol_parse(v, &((opts *)p->dst)->tol, why, sizeof why) < 0)
        return mbx_opt_bad(&p->out, "--tolerance: %s", why);
    return 0;
}

static int on_direction(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    char why[256];
    (void)o, (void)name;
    if (mbx_check_dir_parse(v, &((opts *)p->dst)->dir, why, sizeof why) < 0)
        return mbx_opt_bad(&p->out, "--direction: %s", why);
    return 0;
}

static int on_input(mbx_opt_parser *p, const char *word)
{
    opts *c = p->dst;
    if (c->nin == 2)
        return mbx_opt_bad(&p->out, "expected BASELINE and CURRENT, got a third input: '%s'", word);
    c->in[c->nin++] = word;
    return 0;
}

static const mbx_opt check_opts[] = {
    {"--help", "-h", NULL, 0, mbx_opt_help, 0},
    {"--quiet", "-q", NULL, 0, NULL, offsetof(opts, quiet)},
    {"--all", NULL, NULL, 0, NULL, offsetof(opts, all)},
    {"--tolerance", NULL, "T", 0, on_tolerance, 0},
    {"--direction", NULL, "D", 0, on_direction, 0},
    {"--rules", NULL, "FILE", MBX_OPT_NONEMPTY, NULL, offsetof(opts, rules)},
    {"--junit", NULL, "FILE", MBX_OPT_NONEMPTY, mbx_opt_output, offsetof(opts, junit)},
};

static int parse(int argc, char **argv, opts *o)
{
    mbx_opt_parser p = {.opts = check_opts,
                        .nopts = MBX_OPT_COUNT(check_opts),
                        .flags = MBX_OPT_DASHDASH | MBX_OPT_EQ,
                        .dst = o,
                        .out = said,
                        .unknown = "unknown option '%s' (see 'mpibex check --help')",
                        .operand = on_input};
    int rc = mbx_opt_parse(&p, argc, argv, 0);
    o->help = p.help;
    if (rc == 0 && !o->help && o->nin < 2)
        rc = mbx_opt_bad(&said,
                         "expected BASELINE and CURRENT (directories of launches or results "
                         "CSVs), got %zu",
                         o->nin);
    return rc;
}

/* The launches in path when it is a directory; -1 when it is not one (or
 * cannot be listed: compare then says why). */
static long launch_count(const char *path)
{
    struct stat sb;
    char **v = NULL, msg[256];
    size_t n = 0;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode) ||
        mbx_compare_list_launches(path, &v, &n, msg, sizeof msg) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    return (long)n;
}

/* The line that says what to run for a verdict; k the launches a side
 * so far (0: not directories of launches). */
static void advise(size_t k)
{
    size_t want = k >= 10 ? 2 * k : 10;
    printf("check: to decide, run 'mpibex repeat -k %zu -- [run options] -o DIR' for the baseline "
           "and for the current setting (alternating their launches when you can), then 'mpibex "
           "check BASEDIR CURDIR'\n",
           want);
}

#define NAME_LEN MBX_ESC_MAX(160)
static void point_name(const mbx_cmp_point *p, char *out, size_t outlen)
{
    char buf[160];
    int n = snprintf(buf, sizeof buf, "%s", p->benchmark);
    if (p->root >= 0 && n >= 0 && (size_t)n < sizeof buf)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " root=%d", p->root);
    if (p->param != 0 && n >= 0 && (size_t)n < sizeof buf)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " param=%lld", p->param);
    if (p->rma_sync && n >= 0 && (size_t)n < sizeof buf)
        snprintf(buf + n, sizeof buf - (size_t)n, " %s", p->rma_sync);
    mbx_tesc(buf, out, outlen);
}

/* "pingpong.send_recv 4 KiB, 16 KiB; coll.bcast 1 KiB" of the rows whose
 * verdict is v and that fail, at most 12 sizes, then "...". */
static void list_points(const mbx_check_row *r, size_t n, mbx_check_verdict v, char *buf,
                        size_t len)
{
    size_t used = 0, shown = 0;
    const mbx_cmp_point *prev = NULL;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++) {
        if (r[i].v != v || !r[i].fails)
            continue;
        if (shown++ == 12) {
            snprintf(buf + used, len - used, ", ...");
            return;
        }
        char name[NAME_LEN], sz[24];
        mbx_size_text(r[i].p->bytes, sz, sizeof sz);
        if (prev && strcmp(prev->benchmark, r[i].p->benchmark) == 0)
            used += (size_t)snprintf(buf + used, len - used, ", %s", sz);
        else {
            point_name(r[i].p, name, sizeof name);
            used += (size_t)snprintf(buf + used, len - used, "%s%s %s", prev ? "; " : "", name, sz);
        }
        prev = r[i].p;
    }
}

typedef struct tally {
    size_t n, fails, slower, faster, faster_ok, equivalent, undecided, open;
    int one_tol; /* every point has the first point's tolerance */
} tally;

static tally count(const mbx_check_row *r, size_t n)
{
    tally t = {.n = n, .one_tol = 1};
    for (size_t i = 0; i < n; i++) {
        t.fails += r[i].fails != 0;
        t.slower += r[i].fails && r[i].v == MBX_CHECK_SLOWER;
        t.faster += r[i].fails && r[i].v == MBX_CHECK_FASTER;
        t.faster_ok += !r[i].fails && r[i].v == MBX_CHECK_FASTER;
        t.equivalent += r[i].v == MBX_CHECK_EQUIVALENT;
        t.undecided += r[i].v == MBX_CHECK_UNDECIDED;
        t.open += r[i].open != 0;
        t.one_tol &= r[i].tol.absolute == r[0].tol.absolute && r[i].tol.value == r[0].tol.value;
    }
    return t;
}

static void print_summary(const mbx_check_row *r, size_t n, const char *scope)
{
    tally t = count(r, n);
    char tol[32] = "their tolerance", slow[1024], fast[1024];
    if (t.one_tol && n > 0)
        mbx_check_tol_text(&r[0].tol, tol, sizeof tol);
    list_points(r, n, MBX_CHECK_SLOWER, slow, sizeof slow);
    list_points(r, n, MBX_CHECK_FASTER, fast, sizeof fast);
    if (t.faster == 0)
        printf("check: %zu of %zu point%s slower beyond %s%s%s%s", t.slower, n, n == 1 ? "" : "s",
               tol, t.slower ? " (" : "", slow, t.slower ? ")" : "");
    else
        printf("check: %zu of %zu point%s changed beyond %s (slower: %s; faster: %s)", t.fails, n,
               n == 1 ? "" : "s", tol, t.slower ? slow : "none", fast);
    printf("; %zu equivalent", t.equivalent);
    if (t.faster_ok)
        printf("; %zu faster", t.faster_ok);
    if (t.undecided)
        printf("; %zu undecided (%zu could still fail)", t.undecided, t.open);
    printf("; scope %s\n", scope);
}

static void print_table(const mbx_check_row *r, size_t n, int all)
{
    int w = 9, any = 0;
    for (size_t i = 0; i < n; i++) {
        char name[NAME_LEN];
        point_name(r[i].p, name, sizeof name);
        w = (int)strlen(name) > w ? (int)strlen(name) : w;
        any |= all || r[i].fails || r[i].open;
    }
    if (!any)
        return;
    printf("%-*s %5s %9s %12s %12s %7s %13s %8s  %s\n", w, "benchmark", "procs", "bytes",
           "baseline us", "current us", "ratio", "95% CI", "p", "verdict");
    for (size_t i = 0; i < n; i++) {
        const mbx_cmp_point *p = r[i].p;
        if (!all && !r[i].fails && !r[i].open)
            continue;
        char name[NAME_LEN], sz[24], ci[48] = "-", tol[32], pv[32];
        point_name(p, name, sizeof name);
        mbx_size_text(p->bytes, sz, sizeof sz);
        if (isfinite(p->hl_lo) && isfinite(p->hl_hi) && p->hl_lo > 0)
            snprintf(ci, sizeof ci, "%.3f..%.3f", p->hl_lo, p->hl_hi);
        snprintf(pv, sizeof pv, "%.2g%s", p->w.p_two_sided, p->stars);
        mbx_check_tol_text(&r[i].tol, tol, sizeof tol);
        printf("%-*s %5d %9s %12.3f %12.3f %7.3f %13s %8s  %s (%s%s)\n", w, name, p->procs, sz,
               p->median_a * 1e6, p->median_b * 1e6, p->hl_ratio, ci, pv,
               mbx_check_verdict_word(r[i].v), r[i].fails ? "beyond " : "tolerance ", tol);
    }
}

/* The report of --junit into the claimed path (claim_junit); 0, or 2
 * after a message. */
static int write_junit(const opts *o, const mbx_output *claim, const mbx_check_row *rows, size_t n,
                       const char *none_why)
{
    if (claim->kind == MBX_OUTPUT_DISCARD)
        return 0;
    FILE *f = fopen(o->junit, "w");
    int bad = !f || mbx_check_junit(f, "mpibex check", rows, n, none_why) < 0;
    int err = errno;
    if (f && fclose(f) != 0 && !bad)
        bad = 1, err = errno;
    return bad ? mbx_opt_bad(&said, "--junit: cannot write '%s': %s", o->junit, strerror(err)) : 0;
}

static int same_file(const char *x, const char *y)
{
    struct stat a, b;
    return strcmp(x, y) == 0 ||
           (stat(x, &a) == 0 && stat(y, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino);
}

/* Whether writing the report to out would touch input in: a file in the
 * directory of launches in, or the results file in or a sidecar of it. */
static int touches_input(const char *out, const char *in)
{
    struct stat sb;
    if (stat(in, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        const char *slash = strrchr(out, '/');
        char dir[4096];
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - out) : 1, slash ? out : ".");
        return same_file(dir, in);
    }
    static const char *const sidecars[] = {".obs.csv", ".env.csv"};
    int hit = same_file(out, in);
    for (size_t i = 0; !hit && i < 2; i++) {
        char *sc = mbx_csv_sidecar(in, sidecars[i]);
        hit = sc && same_file(out, sc);
        free(sc);
    }
    return hit;
}

/* Claim --junit's path before anything is read (mbx/output.h): never an
 * input, nor a file in an input directory or beside an input file as its
 * sidecar; an existing file is replaced, as a CI job's report is every
 * run. 0, or 2 after a message. */
static int claim_junit(const opts *o, mbx_output *claim)
{
    char msg[512];
    if (o->junit && strcmp(o->junit, "-") == 0)
        return mbx_opt_bad(&said, "--junit: expected a file name, got '-' (the report is a file)");
    for (size_t i = 0; o->junit && i < o->nin; i++)
        if (touches_input(o->junit, o->in[i]))
            return mbx_opt_bad(&said,
                               "--junit: '%s' is part of the input '%s'; write the report "
                               "elsewhere",
                               o->junit, o->in[i]);
    mbx_output_req req = {.path = o->junit,
                          .flags = MBX_OUTPUT_FORCE | MBX_OUTPUT_ALLOW_DISCARD,
                          .inputs = o->in,
                          .ninputs = o->nin};
    if (o->junit && mbx_output_claim(&req, claim, msg, sizeof msg) < 0)
        return mbx_opt_bad(&said, "--junit: %s", msg);
    return 0;
}

/* Judge every point of c; *rows is the caller's to free. */
static int judge(const mbx_compare *c, const opts *o, const mbx_check_rules *rules,
                 mbx_check_row **rows, size_t *n)
{
    *n = mbx_compare_count(c);
    *rows = calloc(*n ? *n : 1, sizeof **rows);
    if (!*rows)
        return MBX_E_NOMEM;
    for (size_t i = 0; i < *n; i++) {
        mbx_check_row *r = &(*rows)[i];
        r->p = mbx_compare_get(c, i);
        r->tol = o->tol;
        r->dir = o->dir;
        mbx_check_rules_for(rules, r->p->benchmark, r->p->bytes, &r->tol, &r->dir);
        r->v = mbx_check_judge(r->p->hl_lo, r->p->hl_hi, r->p->median_a, &r->tol);
        if (r->p->scope == MBX_CMP_SCOPE_NONE)
            r->v = MBX_CHECK_UNDECIDED;
        r->fails = mbx_check_fails(r->v, r->dir);
        r->open = mbx_check_open(r->v, r->p->hl_lo, r->p->hl_hi, r->p->median_a, &r->tol, r->dir);
    }
    return MBX_OK;
}

/* When the repeat records say every baseline launch started before every
 * current one (as when a pipeline keeps its baseline), a drift of the
 * machine between the two series reads as a change (docs/user-guide.md,
 * "Comparing two settings fairly"): one line says so; the verdicts stand. */
static void print_time_order(const opts *o)
{
    long long a0, a1, b0, b1;
    if (mbx_repeat_window(o->in[0], &a0, &a1) != 0 || mbx_repeat_window(o->in[1], &b0, &b1) != 0 ||
        (a1 >= b0 && b1 >= a0))
        return;
    printf("check: time order: the %s's launches all started before the %s's (%lld s between "
           "the two series): a drift of the machine between them reads as a change\n",
           a1 < b0 ? "baseline" : "current setting", a1 < b0 ? "current setting" : "baseline",
           a1 < b0 ? b0 - a1 : a0 - b1);
}

/* The check once both sides are loaded. */
static int report(const mbx_compare *c, const opts *o, const mbx_check_rules *rules,
                  const mbx_output *claim)
{
    mbx_compare_summary s;
    mbx_compare_summarize(c, &s);
    mbx_check_row *rows = NULL;
    size_t n = 0;
    if (judge(c, o, rules, &rows, &n) < 0)
        return mbx_opt_bad(&said, "out of memory");
    char scope[48];
    mbx_compare_scope_text(s.scope, s.k, scope, sizeof scope);
    int rc = 0;
    if (s.scope == MBX_CMP_SCOPE_NONE) {
        printf("check: undecided: %zu point%s, no verdict (scope none): %s\n", n, n == 1 ? "" : "s",
               s.why_none ? s.why_none : "");
        advise(0);
        rc = CHECK_EXIT_UNDECIDED;
    } else {
        tally t = count(rows, n);
        print_summary(rows, n, scope);
        if (s.scope == MBX_CMP_SCOPE_LAUNCHES)
            print_time_order(o);
        if (!o->quiet)
            print_table(rows, n, o->all);
        rc = t.fails ? CHECK_EXIT_REGRESSION : t.open ? CHECK_EXIT_UNDECIDED : 0;
        if (rc == CHECK_EXIT_UNDECIDED)
            advise(s.scope == MBX_CMP_SCOPE_LAUNCHES ? s.k : 0);
    }
    if (o->junit) {
        int jr = write_junit(o, claim, rows, n,
                             s.scope == MBX_CMP_SCOPE_NONE ? "no verdict: scope none" : NULL);
        rc = jr ? jr : rc;
    }
    free(rows);
    return rc;
}

/* A directory side with one launch cannot be decided on (compare needs
 * 2, a verdict 10): exit 3 with the advice. 0 when both sides may go on. */
static int too_few_launches(const opts *o)
{
    for (size_t i = 0; i < 2; i++) {
        long k = launch_count(o->in[i]);
        if (k != 1)
            continue;
        mbx_tprintf(stdout,
                    "check: undecided: %s '%s' has 1 launch; a verdict needs launches a side "
                    "(at least 2, take 10)\n",
                    i == 0 ? "BASELINE" : "CURRENT", o->in[i]);
        advise(0);
        return CHECK_EXIT_UNDECIDED;
    }
    return 0;
}

int mbx_check_cmd(int argc, char **argv)
{
    opts o = {.tol = {.value = MBX_CHECK_TOL_DEFAULT}, .dir = MBX_CHECK_DIR_SLOWER};
    int rc = parse(argc, argv, &o);
    if (rc != 0 || o.help) {
        if (o.help)
            mbx_check_usage();
        return rc;
    }
    mbx_check_rules rules = {0};
    char msg[640];
    if (o.rules && mbx_check_rules_load(o.rules, &rules, msg, sizeof msg) < 0) {
        mbx_check_rules_free(&rules);
        return mbx_opt_bad(&said, "--rules: %s", msg);
    }
    mbx_output claim = {0};
    if ((rc = claim_junit(&o, &claim)) != 0 || (rc = too_few_launches(&o)) != 0) {
        mbx_output_release(&claim);
        mbx_check_rules_free(&rules);
        return rc;
    }
    mbx_compare *c = NULL;
    mbx_compare_opts co = {.alpha = CHECK_ALPHA, .delta = MBX_COMPARE_DELTA_DEFAULT};
    if (mbx_compare_load_opts(o.in[0], o.in[1], &co, &c, msg, sizeof msg) < 0)
        rc = mbx_opt_bad(&said, "%s", msg);
    else
        rc = report(c, &o, &rules, &claim);
    mbx_compare_free(c);
    mbx_output_release(&claim);
    mbx_check_rules_free(&rules);
    return rc;
}
