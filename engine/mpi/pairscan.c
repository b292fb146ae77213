/* The pair scan (MBX_OP_PAIR_SCAN): rank 0's one-way latency to every
 * other rank, for choosing the far pair. */
#include <stdlib.h>

#include "engine_internal.h"
#include "mbx/stats.h"

/* Every rank: rank 0 pings each other rank in turn (iarg[0] round trips
 * after one warm-up); rank 0 keeps the median round trip / 2 of each. */
int mbx_pair_scan_exec(mbx_engine *e, const mbx_cmd *cmd)
{
    int rounds = (int)cmd->iarg[0];
    if (rounds < 1 || rounds > 1000)
        return MBX_E_INVAL;
    char byte = 0;
    int rc = MPI_SUCCESS;
    if (e->rank == 0) {
        double *t = malloc(sizeof *t * (size_t)rounds);
        double *scr = malloc(sizeof *scr * (size_t)rounds);
        free(e->scan);
        e->scan = calloc((size_t)e->size, sizeof *e->scan);
        int fail = !t || !scr || !e->scan;
        for (int peer = 1; peer < e->size; peer++) {
            /* Every peer waits for its turn, so the loop must reach it even
             * after a failure: the go byte says whether to measure. */
            int go = fail ? 0 : rounds;
            rc = MPI_Send(&go, 1, MPI_INT, peer, 31, e->cmd);
            for (int i = -1; rc == MPI_SUCCESS && i < go; i++) {
                double t0 = MPI_Wtime();
                rc = MPI_Send(&byte, 1, MPI_BYTE, peer, 32, e->cmd);
                if (rc == MPI_SUCCESS)
                    rc = MPI_Recv(&byte, 1, MPI_BYTE, peer, 32, e->cmd, MPI_STATUS_IGNORE);
                if (i >= 0)
                    t[i] = (MPI_Wtime() - t0) / 2;
            }
            if (rc != MPI_SUCCESS)
                fail = mbx_mpi_fail(rc, "MPI_Send/MPI_Recv", e->why, sizeof e->why) < 0;
            if (!fail) {
                mbx_summary s;
                if (mbx_stats_summarize(t, (size_t)rounds, scr, &s) < 0)
                    fail = 1;
                else
                    e->scan[peer] = s.median;
            }
        }
        free(t);
        free(scr);
        return fail ? MBX_E_MPI : MBX_OK;
    }
    int go = 0;
    rc = MPI_Recv(&go, 1, MPI_INT, 0, 31, e->cmd, MPI_STATUS_IGNORE);
    for (int i = -1; rc == MPI_SUCCESS && i < go; i++) {
        rc = MPI_Recv(&byte, 1, MPI_BYTE, 0, 32, e->cmd, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = MPI_Send(&byte, 1, MPI_BYTE, 0, 32, e->cmd);
    }
    return rc == MPI_SUCCESS ? MBX_OK : MBX_MPI_FAIL(e, rc, "MPI_Send/MPI_Recv");
}

int mbx_engine_pair_scan(mbx_engine *e, int rounds, double *lat, int *far)
{
    if (!e || e->rank != 0 || !lat || !far || rounds < 1 || rounds > 1000)
        return MBX_E_INVAL;
    mbx_cmd c = {.opcode = MBX_OP_PAIR_SCAN};
    c.iarg[0] = rounds;
    int rc = mbx_engine_submit(e, &c, NULL);
    if (rc < 0)
        return rc;
    *far = e->size > 1 ? 1 : 0;
    lat[0] = 0.0;
    for (int i = 1; i < e->size; i++) {
        lat[i] = e->scan[i];
        if (lat[i] > lat[*far])
            *far = i;
    }
    return MBX_OK;
}
