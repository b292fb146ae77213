/* mpibex: dispatch to a front end. */
#include <stdio.h>
#include <string.h>

#include "batch.h"
#include "cli.h"
#include "mbx/bench.h"
#include "mbx/version.h"

static int list_benchmarks(void)
{
    printf("%-22s %-9s %-5s %s\n", "# benchmark", "pattern", "ranks", "description");
    for (size_t i = 0; i < mbx_bench_count(); i++) {
        const mbx_bench *b = mbx_bench_get((int)i);
        printf("%-22s %-9s >=%-3d %s\n", b->name, b->pattern, b->min_procs, b->summary);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "mpibex: no command given (try 'mpibex --help')\n");
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        mbx_cli_usage();
        return 0;
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("mpibex %s (%s, %s)\n", MBX_VERSION, MBX_COMPILER, MBX_BUILD_TYPE);
        return 0;
    }
    if (strcmp(cmd, "list") == 0)
        return list_benchmarks();
    if (strcmp(cmd, "run") == 0)
        return mbx_batch_run(argc - 2, argv + 2);
    if (strcmp(cmd, "idle") == 0)
        return mbx_idle_run(argc - 2, argv + 2);
    fprintf(stderr, "mpibex: unknown command '%s' (try 'mpibex --help')\n", cmd);
    return 2;
}
