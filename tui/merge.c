#include "merge.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mbx/csvio.h"
#include "mbx/file.h"
#include "mbx/merge.h"
#include "tprint.h"

void mbx_merge_usage(void)
{
    printf("Usage: mpibex merge A.csv B.csv ... -o OUT.csv\n"
           "\n"
           "Merge the results of several runs (OUT.csv files of 'mpibex run'). Per point\n"
           "(benchmark, label, procs, bytes, root, op, param): the median of the runs'\n"
           "medians, their minimum, maximum and relative spread, the median of the runs'\n"
           "trimmed means, the total observation count and the worst status.\n"
           "\n"
           "Options:\n"
           "  -o, --output FILE   the merged CSV ('-' writes it to stdout); required\n"
           "  -h, --help          this text\n"
           "\n"
           "Columns: docs/csv-format.md. A one-line summary goes to stderr.\n"
           "Exit status: 0 success, 1 writing the output failed, 2 bad input.\n");
}

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char line[2048];
    vsnprintf(line, sizeof line, fmt, ap);
    mbx_tprintf(stderr, "mpibex merge: %s\n", line);
    va_end(ap);
    return 2;
}

/* Whether out names the same file as in (same text, or same inode). */
static int same_file(const char *out, const char *in)
{
    struct stat a, b;
    if (strcmp(out, in) == 0)
        return 1;
    return stat(out, &a) == 0 && stat(in, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static const char *plural(size_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

static int write_output(const mbx_merge *m, const char *out)
{
    if (strcmp(out, "-") == 0) {
        mbx_tbuf tb;
        FILE *so = mbx_tbuf_open(&tb, stdout);
        if (so == NULL || (mbx_merge_write_stream(m, so) < 0) | (mbx_tbuf_close(&tb) != 0) |
                              (fflush(stdout) != 0)) {
            fprintf(stderr, "mpibex merge: writing to stdout failed: %s\n", strerror(errno));
            return 1;
        }
        return 0;
    }
    mbx_csv_writer *w;
    if (mbx_csv_writer_open(out, mbx_merge_columns, MBX_MERGE_NCOLS, &w) < 0)
        return bad("-o: cannot write '%s': %s", out, mbx_file_why(errno));
    int rc = mbx_merge_write(m, w);
    int err = errno;
    if (mbx_csv_writer_close(w) < 0 && rc == MBX_OK) {
        rc = MBX_E_IO;
        err = errno;
    }
    if (rc < 0) {
        mbx_tprintf(stderr, "mpibex merge: writing '%s' failed: %s\n", out, strerror(err));
        return 1;
    }
    return 0;
}

int mbx_merge_cmd(int argc, char **argv)
{
    const char *out = NULL;
    const char **in = calloc((size_t)argc + 1, sizeof *in);
    size_t nin = 0;
    int rc = 0, opts = 1;
    if (in == NULL)
        return bad("out of memory");
    for (int i = 0; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        if (opts && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
            mbx_merge_usage();
            free(in);
            return 0;
        } else if (opts && strcmp(a, "--") == 0) {
            opts = 0;
        } else if (opts && (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 ||
                            strncmp(a, "--output=", 9) == 0)) {
            const char *v = NULL;
            if (strncmp(a, "--output=", 9) == 0)
                v = a + 9;
            else if (i + 1 < argc)
                v = argv[++i];
            if (v == NULL || *v == '\0')
                rc = bad("%s: missing file name", a[1] == 'o' ? "-o" : "--output");
            else if (out != NULL)
                rc = bad("-o: only one output is allowed (got '%s' and '%s')", out, v);
            else
                out = v;
        } else if (opts && a[0] == '-' && a[1] != '\0') {
            rc = bad("unknown option '%s' (see 'mpibex merge --help')", a);
        } else {
            in[nin++] = a;
        }
    }
    if (rc == 0 && nin == 0)
        rc = bad("no input files (usage: mpibex merge A.csv [B.csv ...] -o OUT.csv)");
    if (rc == 0 && out == NULL)
        rc = bad("-o OUT.csv is required ('-o -' writes to stdout)");
    for (size_t i = 0; rc == 0 && i < nin; i++) {
        if (strcmp(out, "-") != 0 && same_file(out, in[i]))
            rc = bad("-o: the output '%s' is also an input", out);
    }
    mbx_merge *m = NULL;
    if (rc == 0 && mbx_merge_new(&m) < 0)
        rc = bad("out of memory");
    for (size_t i = 0; rc == 0 && i < nin; i++) {
        char msg[512];
        if (mbx_merge_add_file(m, in[i], msg, sizeof msg) < 0)
            rc = bad("%s", msg);
    }
    if (rc == 0)
        rc = write_output(m, out);
    if (rc == 0) {
        mbx_merge_summary s;
        mbx_merge_summarize(m, &s);
        fprintf(stderr, "merged %zu %s: %zu %s, %zu %s; ", s.files,
                plural(s.files, "file", "files"), s.rows, plural(s.rows, "point", "points"), s.keys,
                plural(s.keys, "key", "keys"));
        if (s.partial_keys > 0)
            fprintf(stderr, "%zu %s in only some files\n", s.partial_keys,
                    plural(s.partial_keys, "key", "keys"));
        else
            fprintf(stderr, "every key in every file\n");
    }
    mbx_merge_free(m);
    free(in);
    return rc;
}
