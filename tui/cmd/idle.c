/* `mpibex idle`: how much CPU the ranks waiting for a command use while
 * rank 0 does nothing (a user reading a menu). Idle must be idle. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "idle.h"
#include "job.h"
#include "mbx/ascii.h"
#include "sig.h"
#include "tprint.h"

static int idle_root(mbx_engine *e, int argc, char **argv)
{
    double secs = 5.0;
    if (argc > 1) {
        fprintf(stderr, "mpibex: idle: expected at most one argument, SECONDS\n");
        return 2;
    }
    if (argc == 1) {
        char *end;
        secs = mbx_strtod(argv[0], &end);
        if (end == argv[0] || *end != '\0' || !(secs >= 0.1 && secs <= 3600)) {
            mbx_tprintf(stderr,
                        "mpibex: idle: SECONDS: expected a number in 0.1..3600 (got '%s')\n",
                        argv[0]);
            return 2;
        }
    }
    const mbx_job_info *job;
    if (mbx_engine_describe(e, &job) < 0)
        return 1;
    double *before = malloc((size_t)job->nranks * sizeof *before);
    if (!before)
        return 1;
    for (int r = 0; r < job->nranks; r++)
        before[r] = job->rank[r].cpu_seconds;
    double w0 = job->wall;
    mbx_sig_sleep(secs);
    int code = 0;
    if (mbx_engine_describe(e, &job) == 0) {
        double wall = job->wall - w0, worst = 0;
        printf("# CPU use of each waiting rank while rank 0 slept %.1f s\n", wall);
        printf("rank,host,cpu_s,cpu_percent\n");
        for (int r = 1; r < job->nranks; r++) {
            double c = job->rank[r].cpu_seconds - before[r];
            printf("%d,%s,%.4f,%.2f\n", r, job->rank[r].host, c, 100.0 * c / wall);
            if (c / wall > worst)
                worst = c / wall;
        }
        printf("# worst waiting rank: %.2f %% of a core\n", 100.0 * worst);
    } else {
        code = 1;
    }
    free(before);
    return code;
}

int mbx_idle_run(int argc, char **argv)
{
    return mbx_job_run(argc, argv, idle_root);
}
