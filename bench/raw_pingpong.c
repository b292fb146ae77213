/* The reference for mpibex's harness overhead: the plainest 1-byte
 * MPI_Send/MPI_Recv ping-pong between ranks 0 and 1, timed with MPI_Wtime
 * around a block of iterations (no per-iteration timer, no statistics
 * engine). Prints the median over blocks of the one-way time in µs.
 * usage: mpiexec -n 2 raw_pingpong [BLOCKS [ITERS]] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int blocks = argc > 1 ? atoi(argv[1]) : 50, iters = argc > 2 ? atoi(argv[2]) : 200;
    if (blocks < 1 || iters < 1)
        MPI_Abort(MPI_COMM_WORLD, 2);
    char buf = 0;
    double *t = malloc((size_t)blocks * sizeof *t);
    for (int b = -1; b < blocks; b++) { /* block -1 is the warm-up */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            if (rank == 0) {
                MPI_Send(&buf, 1, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(&buf, 1, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(&buf, 1, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&buf, 1, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
        }
        if (b >= 0)
            t[b] = (MPI_Wtime() - t0) / iters / 2 * 1e6;
    }
    if (rank == 0) {
        qsort(t, (size_t)blocks, sizeof *t, cmp);
        printf("%.4f\n", t[blocks / 2]);
    }
    free(t);
    MPI_Finalize();
    return 0;
}
