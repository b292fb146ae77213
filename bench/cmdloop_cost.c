/* The command loop's cost per command: rank 0 issues empty commands
 * (mbx_engine_nop: broadcast, every rank executes it, the status comes
 * back) in blocks and prints the median over blocks of the time per
 * command in µs, then the first command after the ranks went idle.
 * usage: mpiexec -n P mbx_cmdloop_cost [BLOCKS [PER_BLOCK]] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mbx/engine.h"

static int mbx_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int mbx_cost_root(mbx_engine *e, int blocks, int per)
{
    double *t = malloc((size_t)blocks * sizeof *t);
    if (!t)
        return 1;
    for (int b = -1; b < blocks; b++) { /* block -1 warms up */
        double t0 = MPI_Wtime();
        for (int i = 0; i < per; i++)
            if (mbx_engine_nop(e) < 0) {
                free(t);
                return 1;
            }
        if (b >= 0)
            t[b] = (MPI_Wtime() - t0) / per;
    }
    qsort(t, (size_t)blocks, sizeof *t, mbx_cmp_double);
    /* After 0.1 s without commands the serving ranks poll with a back-off. */
    struct timespec idle = {0, 100000000L};
    nanosleep(&idle, NULL);
    double t1 = MPI_Wtime();
    int rc = mbx_engine_nop(e);
    double first = MPI_Wtime() - t1;
    printf("ranks %d: %.2f us per command (median of %d blocks of %d; min %.2f, max %.2f); "
           "first after 0.1 s idle %.1f us\n",
           mbx_engine_size(e), t[blocks / 2] * 1e6, blocks, per, t[0] * 1e6, t[blocks - 1] * 1e6,
           first * 1e6);
    free(t);
    return rc < 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int blocks = argc > 1 ? atoi(argv[1]) : 21, per = argc > 2 ? atoi(argv[2]) : 200;
    mbx_engine *e = NULL;
    if (blocks < 1 || per < 1 || mbx_engine_create(MPI_COMM_WORLD, &e) < 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int code = 0;
    if (mbx_engine_rank(e) == 0) {
        code = mbx_cost_root(e, blocks, per);
        if (mbx_engine_quit(e, code) < 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
    } else if (mbx_engine_serve(e, &code) < 0) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    mbx_engine_destroy(e);
    MPI_Finalize();
    return code;
}
