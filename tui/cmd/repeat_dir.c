/* `mpibex repeat`: DIR and the files in it. Claiming DIR (and clearing
 * earlier launches with --force), the record DIR/repeat.csv, counting a
 * launch's points, removing a failed launch, undoing a repeat whose first
 * launch refused its input, and merging the finished launches. */
#include "repeat_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "mbx/ascii.h"
#include "mbx/compare.h"
#include "mbx/dir.h"
#include "mbx/merge.h"
#include "mbx/result.h"
#include "mbx/version.h"
#include "tprint.h"

/* A file name in DIR that a repeat writes. */
static int ours(const char *name)
{
    return strncmp(name, "launch-", 7) == 0 || strcmp(name, "merged.csv") == 0 ||
           strcmp(name, "repeat.csv") == 0;
}

static int ours_pick(const char *name, void *ud)
{
    (void)ud;
    return ours(name);
}

/* DIR is claimed (created if missing, locked) and holds no earlier
 * launches; with --force they are removed. */
int mbx_repeat_prepare_dir(rep *r)
{
    const char *dir = r->o->dir;
    char msg[1024];
    mbx_output_req req = {.path = dir,
                          .flags = MBX_OUTPUT_DIRECTORY | (r->o->force ? MBX_OUTPUT_FORCE : 0),
                          .is_result = ours};
    int rc = mbx_output_claim(&req, &r->claim, msg, sizeof msg);
    if (rc < 0)
        return rc == MBX_E_NOMEM ? mbx_repeat_bad("out of memory") : mbx_repeat_bad("%s", msg);
    r->created_dir = r->claim.created_dir;
    if (!r->claim.existed)
        return 0;
    /* Only in a directory of this user that is no symbolic link, and only
     * our names, each removed relative to it (a link among them goes as a
     * link): a planted link must not lead --force into somebody's files. */
    int fd;
    const char *why = NULL;
    if (mbx_dir_open_own(AT_FDCWD, dir, 0, &fd, &why) != MBX_OK)
        return mbx_repeat_bad("-o: --force cleans only a directory of yours; '%s': %s", dir, why);
    rc = mbx_dir_clean(fd, ours_pick, NULL, NULL, NULL);
    int err = errno;
    close(fd);
    if (rc != MBX_OK)
        return mbx_repeat_bad("--force: cannot remove the earlier launches in '%s': %s", dir,
                              strerror(err));
    return 0;
}

void mbx_repeat_launch_paths(rep *r, long i)
{
    snprintf(r->csv, sizeof r->csv, "%s/launch-%0*ld.csv", r->o->dir, r->width, i);
    snprintf(r->log, sizeof r->log, "%s/launch-%0*ld.log", r->o->dir, r->width, i);
}

void mbx_repeat_stamp(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    if (localtime_r(&t, &tm) == NULL || strftime(buf, len, "%Y-%m-%dT%H:%M:%S%z", &tm) == 0)
        snprintf(buf, len, "%lld", (long long)t);
}

/* One key,value row of DIR/repeat.csv; a failed write is reported once. */
void mbx_repeat_note(rep *r, const char *key, const char *fmt, ...)
{
    char value[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    const char *row[2] = {key, value};
    if (r->record && mbx_csv_writer_row(r->record, row) < 0) {
        mbx_tprintf(stderr, "mpibex repeat: writing %s/repeat.csv failed: %s\n", r->o->dir,
                    strerror(errno));
        mbx_csv_writer_close(r->record);
        r->record = NULL;
    }
}

/* DIR/repeat.csv: what was run, where and when (the launch is a factor). */
void mbx_repeat_record_open(rep *r, const char *self)
{
    static const char *const cols[2] = {"key", "value"};
    char path[4200], host[256] = "", t[40], cmd[8192];
    snprintf(path, sizeof path, "%s/repeat.csv", r->o->dir);
    if (mbx_csv_writer_open(path, cols, 2, &r->record) < 0) {
        mbx_tprintf(stderr, "mpibex repeat: cannot write '%s': %s (going on without it)\n", path,
                    strerror(errno));
        r->record = NULL;
        return;
    }
    gethostname(host, sizeof host - 1);
    mbx_repeat_stamp(t, sizeof t);
    mbx_repeat_note(r, "tool", "mpibex %s", MBX_VERSION);
    mbx_repeat_note(r, "binary", "%s", self);
    mbx_repeat_note(r, "host", "%s", host);
    mbx_repeat_note(r, "k", "%ld", r->o->k);
    mbx_repeat_note(r, "n", "%ld", r->o->n);
    r->argv[r->nwords] = NULL;
    mbx_repeat_join_command(r->argv, cmd, sizeof cmd);
    r->argv[r->nwords] = (char *)self;
    mbx_repeat_note(r, "launcher", "%s", cmd);
    mbx_repeat_note(r, "dir", "%s", r->o->dir);
    mbx_repeat_note(r, "start", "%s", t);
}

/* The last rows of DIR/repeat.csv (result NULL: none) and close it. */
void mbx_repeat_record_close(rep *r, const char *result)
{
    if (result != NULL) {
        char t[40];
        mbx_repeat_stamp(t, sizeof t);
        mbx_repeat_note(r, "end", "%s", t);
        mbx_repeat_note(r, "result", "%s", result);
    }
    if (r->record && mbx_csv_writer_close(r->record) < 0)
        mbx_tprintf(stderr, "mpibex repeat: writing %s/repeat.csv failed: %s\n", r->o->dir,
                    strerror(errno));
    r->record = NULL;
}

struct counting {
    int col; /* of status; -1 before the header, -2 when it has none */
    long points, unsettled;
};

static int count_row(void *ctx, char *const *f, size_t n, size_t line)
{
    struct counting *c = ctx;
    (void)line;
    if (c->col == -1) {
        c->col = mbx_csv_col((const char *const *)f, n, "status");
        if (c->col < 0)
            c->col = -2;
        return MBX_OK;
    }
    mbx_point_status st;
    c->points++;
    if (c->col >= 0 && (size_t)c->col < n &&
        !(mbx_point_status_parse(f[c->col], &st) && st == MBX_POINT_SETTLED))
        c->unsettled++;
    return MBX_OK;
}

/* Points of a finished launch, and how many are not SETTLED; -1 when its
 * CSV cannot be read. Read a row at a time: a launch's file may be big. */
long mbx_repeat_count_points(const char *csv, long *unsettled)
{
    struct counting c = {.col = -1};
    *unsettled = 0;
    if (mbx_csv_read_rows(csv, count_row, &c) < 0)
        return -1;
    *unsettled = c.unsettled;
    return c.points;
}

/* The failed launch's results and every sidecar (DIR/launch-NN.*); its log
 * stays. */
typedef struct launch_files {
    char prefix[32];
    size_t n;
} launch_files;

static int launch_file(const char *name, void *ud)
{
    const launch_files *l = ud;
    return strncmp(name, l->prefix, l->n) == 0 && strcmp(name + l->n, "log") != 0;
}

void mbx_repeat_remove_launch(rep *r, long i)
{
    launch_files l;
    int n = snprintf(l.prefix, sizeof l.prefix, "launch-%0*ld.", r->width, i);
    l.n = n > 0 ? (size_t)n : 0;
    int fd;
    const char *why;
    if (mbx_dir_open_own(AT_FDCWD, r->o->dir, 0, &fd, &why) != MBX_OK)
        return; /* not ours (any more): nothing of it is removed */
    int rc = mbx_dir_clean(fd, launch_file, &l, NULL, NULL);
    (void)rc; /* what could not go is named by the failure's own line */
    close(fd);
}

/* The line of the log most likely to say why: the last one from mpibex,
 * else the last non-empty one. */
void mbx_repeat_last_words(const char *log, char *buf, size_t len)
{
    FILE *f = fopen(log, "r");
    char line[1024];
    int from_us = 0;
    buf[0] = '\0';
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        int ours_line = strncmp(line, "mpibex", 6) == 0;
        if (line[0] && (ours_line || !from_us)) {
            snprintf(buf, len, "%s", line);
            from_us |= ours_line;
        }
    }
    if (f)
        fclose(f);
}

/* After launch 1 failed on bad input: leave nothing behind. */
static int undo_file(const char *name, void *ud)
{
    const rep *r = ud;
    const char *log = strrchr(r->log, '/');
    return strcmp(name, "repeat.csv") == 0 || (log && strcmp(name, log + 1) == 0);
}

void mbx_repeat_undo(rep *r)
{
    const char *why;
    mbx_output_release(&r->claim); /* its lock file is in DIR */
    if (r->created_dir) {
        int rc = mbx_dir_remove(AT_FDCWD, r->o->dir, MBX_DIR_MISSING_OK, undo_file, r, &why);
        (void)rc; /* best effort: the bad input's own line is what the user needs */
        return;
    }
    int fd;
    if (mbx_dir_open_own(AT_FDCWD, r->o->dir, 0, &fd, &why) != MBX_OK)
        return;
    int rc = mbx_dir_clean(fd, undo_file, r, NULL, NULL);
    (void)rc;
    close(fd);
}

/* What an interval over the n launches covers: the order statistics l
 * and n + 1 - l of the launch medians cover their median with
 * 1 - 2 P(B <= l - 1), B ~ Bin(n, 1/2) (docs/user-guide.md, `mpibex
 * repeat`); ReproMPI asks for 10 launches at least. */
static void print_coverage(rep *r, long n)
{
    if (n < 2)
        return;
    double cov;
    size_t l = mbx_compare_os_rank((size_t)n, 0.95, &cov);
    printf("interval over %ld launches: launch medians %zu..%ld (order statistics) cover the "
           "median launch with %.1f%%%s\n",
           n, l, n + 1 - (long)l, 100 * cov,
           n < 10 ? "; take -k 10 or more (ReproMPI's minimum)" : "");
    mbx_repeat_note(r, "os_interval", "%zu..%ld", l, n + 1 - (long)l);
    mbx_repeat_note(r, "os_coverage", "%.6f", cov);
}

/* Merge launches 1..n into DIR/merged.csv and print the summary. */
int mbx_repeat_merge_launches(rep *r, long n)
{
    char out[4200], msg[512];
    snprintf(out, sizeof out, "%s/merged.csv", r->o->dir);
    mbx_merge *m = NULL;
    if (mbx_merge_new(&m) < 0) {
        fprintf(stderr, "mpibex repeat: out of memory\n");
        return 1;
    }
    int rc = 0;
    for (long i = 1; rc == 0 && i <= n; i++) {
        mbx_repeat_launch_paths(r, i);
        if (mbx_merge_add_file(m, r->csv, msg, sizeof msg) < 0)
            rc = 1, mbx_tprintf(stderr, "mpibex repeat: merge: %s\n", msg);
    }
    mbx_csv_writer *w = NULL;
    if (rc == 0 && mbx_csv_writer_open(out, mbx_merge_columns, MBX_MERGE_NCOLS, &w) < 0)
        rc = 1, mbx_tprintf(stderr, "mpibex repeat: cannot write '%s': %s\n", out, strerror(errno));
    if (rc == 0 && (mbx_merge_write(m, w) < 0) + (mbx_csv_writer_close(w) < 0))
        rc = 1,
        mbx_tprintf(stderr, "mpibex repeat: writing '%s' failed: %s\n", out, strerror(errno));
    if (rc == 0) {
        mbx_merge_summary s;
        mbx_merge_summarize(m, &s);
        double worst = -1;
        size_t wi = 0;
        mbx_merge_fields f, wf;
        for (size_t i = 0; i < s.keys; i++) {
            mbx_merge_format(m, i, &f);
            double sp = f.field[17][0] ? mbx_strtod(f.field[17], NULL) : -1;
            if (sp > worst)
                worst = sp, wi = i;
        }
        mbx_tprintf(stdout, "merged %ld launch%s into %s: %zu point%s", n, n == 1 ? "" : "es", out,
                    s.keys, s.keys == 1 ? "" : "s");
        if (s.partial_keys)
            printf(" (%zu not in every launch)", s.partial_keys);
        if (worst >= 0 && n > 1) {
            char sz[24];
            mbx_merge_format(m, wi, &wf);
            mbx_size_text(strtoull(wf.field[2], NULL, 10), sz, sizeof sz);
            /* field 24: rma_sync, a one-sided point's mode (empty for others) */
            mbx_tprintf(
                stdout,
                "; worst spread %.1f%% at %s%s%s, %s procs, %s (launch medians %s .. %s us)",
                100 * worst, wf.field[0], wf.field[24][0] ? " " : "", wf.field[24], wf.field[1], sz,
                wf.field[15], wf.field[16]);
        }
        printf("\n");
        print_coverage(r, n);
        mbx_repeat_note(r, "merged", "%s", out);
        mbx_repeat_note(r, "worst_spread_rel", "%.6f", worst);
    }
    mbx_merge_free(m);
    return rc;
}
