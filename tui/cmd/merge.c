/* `mpibex merge`: its usage, its options (a table for core/opt.h), and
 * the merge of the input files into one CSV. */
#include "merge.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/opt.h"
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

/* Bad input: "mpibex merge: " and one line on stderr (exit 2). */
static const mbx_opt_out said = {.prefix = "mpibex merge: ", .print = mbx_tprint_line};

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
        return mbx_opt_bad(&said, "-o: cannot write '%s': %s", out, mbx_file_why(errno));
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

typedef struct merge_args {
    const char *out;
    const char **in;
    size_t nin;
    int force;
} merge_args;

static int on_input(mbx_opt_parser *p, const char *word)
{
    merge_args *m = p->dst;
    m->in[m->nin++] = word;
    return 0;
}

static const mbx_opt merge_opts[] = {
    {"--help", "-h", NULL, 0, mbx_opt_help, 0},
    {"--force", NULL, NULL, 0, NULL, offsetof(merge_args, force)},
    {"--output", "-o", "FILE", MBX_OPT_EQ, mbx_opt_output, offsetof(merge_args, out)},
};

int mbx_merge_cmd(int argc, char **argv)
{
    merge_args a = {.in = calloc((size_t)argc + 1, sizeof *a.in)};
    if (a.in == NULL)
        return mbx_opt_bad(&said, "out of memory");
    mbx_opt_parser p = {.opts = merge_opts,
                        .nopts = MBX_OPT_COUNT(merge_opts),
                        .flags = MBX_OPT_DASHDASH,
                        .dst = &a,
                        .out = said,
                        .unknown = "unknown option '%s' (see 'mpibex merge --help')",
                        .operand = on_input};
    int rc = mbx_opt_parse(&p, argc, argv, 0);
    if (rc == 0 && p.help) {
        mbx_merge_usage();
        free(a.in);
        return 0;
    }
    const char *out = a.out, **in = a.in;
    size_t nin = a.nin;
    int force = a.force;
    if (rc == 0 && nin == 0)
        rc =
            mbx_opt_bad(&said, "no input files (usage: mpibex merge A.csv [B.csv ...] -o OUT.csv)");
    if (rc == 0 && out == NULL)
        rc = mbx_opt_bad(&said, "-o OUT.csv is required ('-o -' writes to stdout)");
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
            rc = c == MBX_E_NOMEM ? mbx_opt_bad(&said, "out of memory")
                                  : mbx_opt_bad(&said, "%s", msg);
        else if (claim.kind == MBX_OUTPUT_DISCARD)
            out = NULL;
    }
    mbx_merge *m = NULL;
    if (rc == 0 && mbx_merge_new(&m) < 0)
        rc = mbx_opt_bad(&said, "out of memory");
    for (size_t i = 0; rc == 0 && i < nin; i++) {
        char msg[512];
        if (mbx_merge_add_file(m, in[i], msg, sizeof msg) < 0)
            rc = mbx_opt_bad(&said, "%s", msg);
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
