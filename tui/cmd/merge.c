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
#include "mbx/output.h"
#include "tprint.h"

void mbx_merge_usage(void)
{
    printf("Usage: mpibex merge A.csv B.csv ... -o OUT.csv [--force]\n"
           "\n"
           "Merge the results of several runs (OUT.csv files of 'mpibex run'). Per point\n"
           "(benchmark, label, procs, bytes, root, op, param): the median of the runs'\n"
           "medians, their minimum, maximum and relative spread, the median of the runs'\n"
           "trimmed means, the total observation count and the worst status.\n"
           "\n"
           "Options:\n"
           "  -o, --output FILE   the merged CSV ('-' writes it to stdout, /dev/null\n"
           "                      discards it); required; never one of the inputs\n"
           "  --force             write over an existing FILE (refused without it)\n"
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
    int rc = 0, opts = 1, force = 0;
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
        } else if (opts && strcmp(a, "--force") == 0) {
            force = 1;
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
    /* Claimed for the whole merge (mbx/output.h): locked, never an input,
     * an existing file only with --force. */
    mbx_output claim;
    memset(&claim, 0, sizeof claim);
    if (rc == 0) {
        char msg[512];
        mbx_output_req req = {.path = out,
                              .flags = MBX_OUTPUT_ALLOW_STDOUT | MBX_OUTPUT_ALLOW_DISCARD |
                                       (force ? MBX_OUTPUT_FORCE : 0),
                              .inputs = in,
                              .ninputs = nin};
        int c = mbx_output_claim(&req, &claim, msg, sizeof msg);
        if (c < 0)
            rc = c == MBX_E_NOMEM ? bad("out of memory") : bad("%s", msg);
        else if (claim.kind == MBX_OUTPUT_DISCARD)
            out = NULL;
    }
    mbx_merge *m = NULL;
    if (rc == 0 && mbx_merge_new(&m) < 0)
        rc = bad("out of memory");
    for (size_t i = 0; rc == 0 && i < nin; i++) {
        char msg[512];
        if (mbx_merge_add_file(m, in[i], msg, sizeof msg) < 0)
            rc = bad("%s", msg);
    }
    if (rc == 0 && out != NULL)
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
    mbx_output_release(&claim);
    free(in);
    return rc;
}
