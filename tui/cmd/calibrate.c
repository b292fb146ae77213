/* `mpibex calibrate`: a machine profile (mbx/profile.h) from the K
 * launches of a `mpibex repeat` directory, written to the state directory
 * where a later run on this host and MPI finds it (docs/user-guide.md,
 * "Machine profile"). */
#include "calibrate.h"

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "core/opt.h"
#include "isotime.h"
#include "mbx/ascii.h"
#include "mbx/csvio.h"
#include "mbx/dir.h"
#include "mbx/file.h"
#include "mbx/profile_build.h"
#include "profile_use.h"
#include "tprint.h"

#define MAX_LAUNCHES 999

static void usage(void)
{
    printf("Usage: mpibex calibrate DIR [-o PROFILE]\n"
           "\n"
           "Estimate this machine's launch-to-launch variance from the launches of a\n"
           "'mpibex repeat' directory (DIR/launch-NN.csv, at least %d; 10 or more\n"
           "recommended) and store it as a machine profile: per benchmark, rank count\n"
           "and size class (powers of 4) the random-effects component sigma_L with its\n"
           "95%% CI, and the host, MPI library, date and launch count. A later run or\n"
           "explorer on the same host and MPI widens each interval with it\n"
           "(ci_scope profile; 'mpibex run --profile').\n"
           "\n"
           "Options:\n"
           "  -o, --output FILE   where to write the profile (default: the state\n"
           "                      directory, $XDG_STATE_HOME/mpibex or\n"
           "                      ~/.local/state/mpibex, as profile-HOST-HASH.csv)\n"
           "  -h, --help          this text\n"
           "\n"
           "File format: docs/csv-format.md, \"Profile file\".\n"
           "Exit status: 0 success, 1 writing the profile failed, 2 bad input.\n",
           MBX_PROFILE_MIN_K);
}

static const mbx_opt_out said = {.prefix = "mpibex calibrate: ", .print = mbx_tprint_line};

typedef struct cal_args {
    const char *dir, *out;
} cal_args;

static int on_dir(mbx_opt_parser *p, const char *word)
{
    cal_args *a = p->dst;
    if (a->dir != NULL)
        return mbx_opt_bad(&p->out, "one directory only (got '%s' and '%s')", a->dir, word);
    a->dir = word;
    return 0;
}

static const mbx_opt cal_opts[] = {
    {"--help", "-h", NULL, 0, mbx_opt_help, 0},
    {"--output", "-o", "FILE", MBX_OPT_EQ, mbx_opt_output, offsetof(cal_args, out)},
};

/* launch-NN.csv (NN digits), the results of one launch. */
static int is_launch(const char *name)
{
    if (strncmp(name, "launch-", 7) != 0)
        return 0;
    const char *p = name + 7, *q = p;
    while (mbx_ascii_isdigit((unsigned char)*q))
        q++;
    return q > p && strcmp(q, ".csv") == 0;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The launch files of dir, sorted: how many (names malloc'd), or -1. */
static int list_launches(const char *dir, char **names)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (d == NULL) {
        (void)mbx_opt_bad(&said, "cannot read '%s': %s", dir, mbx_file_why(errno));
        return -1;
    }
    for (struct dirent *e; (e = readdir(d)) != NULL && n < MAX_LAUNCHES;)
        if (is_launch(e->d_name) && (names[n] = strdup(e->d_name)) != NULL)
            n++;
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_name);
    return n;
}

/* The identity of the launches: the first one's environment file
 * (host.0.name, mpi_library; the fake's tool), else this host. */
static void launch_identity(const char *csv, char *host, size_t hl, char *mpi, size_t ml)
{
    mbx_profile_identity(1, host, hl, mpi, ml);
    mpi[0] = '\0';
    char *env = mbx_csv_sidecar(csv, ".env.csv");
    mbx_csv_table t;
    if (env == NULL || mbx_csv_read_file(env, &t) != MBX_OK) {
        free(env);
        return;
    }
    for (size_t r = 0; r < t.nrows; r++) {
        if (t.ncols[r] != 2)
            continue;
        const char *k = t.cell[r][0], *v = t.cell[r][1];
        if (strcmp(k, "host.0.name") == 0)
            snprintf(host, hl, "%s", v);
        else if (strcmp(k, "mpi_library") == 0)
            snprintf(mpi, ml, "%s", v);
        else if (strcmp(k, "tool") == 0 && strstr(v, "fake") != NULL)
            snprintf(mpi, ml, "fake back end");
    }
    mbx_csv_table_free(&t);
    free(env);
}

/* When launch csv started: its environment file's date_utc, or -1. */
static long long launch_start(const char *csv)
{
    char *env = mbx_csv_sidecar(csv, ".env.csv");
    mbx_csv_table t;
    long long at = -1;
    if (env == NULL || mbx_csv_read_file(env, &t) != MBX_OK) {
        free(env);
        return -1;
    }
    for (size_t r = 0; r < t.nrows; r++)
        if (t.ncols[r] == 2 && strcmp(t.cell[r][0], "date_utc") == 0)
            at = mbx_iso_seconds(t.cell[r][1]);
    mbx_csv_table_free(&t);
    free(env);
    return at;
}

static void print_profile(const mbx_profile *p, const char *path)
{
    mbx_tprintf(stdout, "# profile of host %s, MPI %s, %zu launches: %s\n", p->host, p->mpi, p->k,
                path);
    printf("%-28s %5s %22s %9s %19s\n", "benchmark", "procs", "sizes", "sigma_L", "95% CI");
    for (size_t i = 0; i < p->n; i++) {
        const mbx_profile_entry *e = &p->e[i];
        char lo[24], hi[24], sz[56];
        mbx_size_text(e->class_lo, lo, sizeof lo);
        mbx_size_text(e->class_lo ? 4 * e->class_lo - 1 : 0, hi, sizeof hi);
        snprintf(sz, sizeof sz, "%s..%s", lo, hi);
        mbx_tprintf(stdout, "%-28s %5d %22s %8.2f%% %8.2f..%7.2f%%\n", e->bench, e->procs, sz,
                    100 * e->sigma, 100 * e->sigma_lo, 100 * e->sigma_hi);
    }
}

static int build(const char *dir, char **names, int k, mbx_profile *p)
{
    char path[4200], msg[600];
    mbx_profile_builder *b = NULL;
    if (mbx_profile_builder_new((size_t)k, &b) != MBX_OK)
        return mbx_opt_bad(&said, "out of memory");
    int rc = 0;
    long long first = -1, last = -1;
    for (int i = 0; rc == 0 && i < k; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (i == 0)
            launch_identity(path, p->host, sizeof p->host, p->mpi, sizeof p->mpi);
        long long at = launch_start(path);
        if (at >= 0) {
            first = first < 0 || at < first ? at : first;
            last = at > last ? at : last;
        }
        if (mbx_profile_builder_add_file(b, (size_t)i, path, msg, sizeof msg) != MBX_OK)
            rc = mbx_opt_bad(&said, "%s", msg);
    }
    if (rc == 0 && mbx_profile_builder_finish(b, p) != MBX_OK)
        rc = mbx_opt_bad(&said, "out of memory");
    p->span_s = first >= 0 && last > first ? last - first : first >= 0 ? 0 : -1;
    mbx_profile_builder_free(b);
    if (rc == 0 && p->mpi[0] == '\0')
        rc = mbx_opt_bad(&said, "%s/%s: its environment file names no MPI library (mpi_library)",
                         dir, names[0]);
    if (rc == 0 && p->n == 0)
        rc = mbx_opt_bad(&said, "'%s': no point has a median and an error in two launches", dir);
    return rc;
}

/* Where the profile goes: -o, else the state directory (made). */
static int out_path(const cal_args *a, const mbx_profile *p, char *out, size_t len)
{
    if (a->out != NULL) {
        snprintf(out, len, "%s", a->out);
        return 0;
    }
    char dir[4096];
    const char *why = "the path is too long";
    int fd = -1;
    if (mbx_dir_state_path(getenv("XDG_STATE_HOME"), getenv("HOME"), dir, sizeof dir) != MBX_OK ||
        mbx_dir_make(dir, MBX_DIR_PRIVATE, &fd, &why) != MBX_OK ||
        mbx_profile_path(dir, p->host, p->mpi, out, len) != MBX_OK) {
        fprintf(stderr, "mpibex calibrate: no state directory for the profile: %s (give -o FILE)\n",
                why);
        return 1;
    }
    close(fd);
    return 0;
}

int mbx_calibrate_cmd(int argc, char **argv)
{
    cal_args a = {0};
    mbx_opt_parser op = {.opts = cal_opts,
                         .nopts = MBX_OPT_COUNT(cal_opts),
                         .flags = MBX_OPT_DASHDASH,
                         .dst = &a,
                         .out = said,
                         .unknown = "unknown option '%s' (see 'mpibex calibrate --help')",
                         .operand = on_dir};
    int rc = mbx_opt_parse(&op, argc, argv, 0);
    if (rc == 0 && op.help) {
        usage();
        return 0;
    }
    if (rc == 0 && a.dir == NULL)
        rc = mbx_opt_bad(&said, "no directory (usage: mpibex calibrate DIR, DIR of mpibex repeat)");
    char *names[MAX_LAUNCHES];
    int k = rc == 0 ? list_launches(a.dir, names) : 0;
    if (rc == 0 && k < 0)
        return 2;
    if (rc == 0 && k < MBX_PROFILE_MIN_K)
        rc = mbx_opt_bad(&said,
                         "'%s' has %d launch%s (launch-NN.csv); expected at least %d "
                         "(mpibex repeat -k 10)",
                         a.dir, k, k == 1 ? "" : "es", MBX_PROFILE_MIN_K);
    mbx_profile p = {0};
    if (rc == 0)
        rc = build(a.dir, names, k, &p);
    for (int i = 0; i < k; i++)
        free(names[i]);
    char out[4200];
    p.created = (long long)time(NULL);
    if (rc == 0 && (rc = out_path(&a, &p, out, sizeof out)) == 0 &&
        mbx_profile_write(&p, out) != MBX_OK) {
        mbx_tprintf(stderr, "mpibex calibrate: writing '%s' failed: %s\n", out, strerror(errno));
        rc = 1;
    }
    if (rc == 0)
        print_profile(&p, out);
    if (rc == 0 && k < 10)
        printf("# %d launches: fewer than the 10 recommended; sigma_L's CI is wide\n", k);
    if (rc == 0 && p.span_s >= 0)
        printf("# the launches started over %lld s: sigma_L is how much the machine varied "
               "between launches in that time; a machine that drifts over longer times shows it "
               "as rows outside the profile (profile_ratio), so calibrate from launches spread "
               "over the time the profile will serve (mpibex repeat --gap SEC)\n",
               p.span_s);
    mbx_profile_free(&p);
    return rc;
}
