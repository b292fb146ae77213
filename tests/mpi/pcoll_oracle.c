/* An oracle for the persistent collectives that mpibex always checks
 * (coll.gather_init, coll.scatter_init, coll.allgather_init): plain MPI,
 * no mpibex code. For each operation and size it makes the request once,
 * then twice fills the send buffer with a pattern of rank, position and
 * round, starts and completes it, and checks every byte this rank must
 * receive. One line per operation and size on rank 0:
 *   coll.gather_init 4 right|wrong
 * so that tests/mpi/pcoll_oracle.sh can hold mpibex's rows to what the
 * library really does. usage: mpiexec -n P pcoll_oracle SIZE... */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char pat(int rank, size_t i, int round)
{
    return (unsigned char)(rank * 37 + (int)(i % 251) * 3 + round * 101 + 1);
}

enum { GATHER, SCATTER, ALLGATHER };
static const char *const names[] = {"coll.gather_init", "coll.scatter_init", "coll.allgather_init"};

static int init(int op, unsigned char *s, unsigned char *r, int n, MPI_Request *q)
{
    MPI_Comm w = MPI_COMM_WORLD;
    if (op == GATHER)
        return MPI_Gather_init(s, n, MPI_BYTE, r, n, MPI_BYTE, 0, w, MPI_INFO_NULL, q);
    if (op == SCATTER)
        return MPI_Scatter_init(s, n, MPI_BYTE, r, n, MPI_BYTE, 0, w, MPI_INFO_NULL, q);
    return MPI_Allgather_init(s, n, MPI_BYTE, r, n, MPI_BYTE, w, MPI_INFO_NULL, q);
}

/* Wrong bytes this rank received in one round. */
static long round_trip(int op, MPI_Request *q, unsigned char *s, unsigned char *r, int n, int rank,
                       int size, int round)
{
    size_t sn = op == SCATTER ? (size_t)n * (size_t)size : (size_t)n;
    size_t rn = op == SCATTER ? (size_t)n : (size_t)n * (size_t)size;
    for (size_t i = 0; i < sn; i++)
        s[i] = pat(rank, i, round);
    memset(r, 0xee, rn);
    MPI_Start(q);
    MPI_Wait(q, MPI_STATUS_IGNORE);
    long bad = 0;
    if (op == GATHER && rank != 0)
        return 0;
    for (size_t i = 0; i < rn; i++) {
        /* gather, allgather: block b is rank b's buffer; scatter: this
         * rank's block of the root's buffer. */
        unsigned char want = op == SCATTER ? pat(0, (size_t)rank * (size_t)n + i, round)
                                           : pat((int)(i / (size_t)n), i % (size_t)n, round);
        bad += r[i] != want;
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int a = 1; a < argc; a++) {
        int n = atoi(argv[a]);
        /* Room to spare past what the calls may touch: MPICH 4.0.2's
         * MPI_Allgather_init reads past the send buffer (AddressSanitizer
         * saw an 8-byte read past 8 bytes at n = 4), and the oracle is
         * about the data that arrives, not the library's reads. */
        size_t len = 2 * (size_t)n * (size_t)size + 64;
        unsigned char *s = calloc(len, 1), *r = calloc(len, 1);
        if (n <= 0 || !s || !r)
            MPI_Abort(MPI_COMM_WORLD, 2);
        for (int op = GATHER; op <= ALLGATHER; op++) {
            MPI_Request q;
            init(op, s, r, n, &q);
            long bad = round_trip(op, &q, s, r, n, rank, size, 0);
            bad += round_trip(op, &q, s, r, n, rank, size, 1);
            MPI_Request_free(&q);
            long all = 0;
            MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            if (rank == 0)
                printf("%s %d %s\n", names[op], n, all ? "wrong" : "right");
        }
        free(s);
        free(r);
    }
    MPI_Finalize();
    return 0;
}
