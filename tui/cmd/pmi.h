/* The one PMI message mpibex sends itself: "finalize", for a job that
 * leaves without MPI_Finalize (job.c, finalize_stalls). */
#ifndef MBX_PMI_H
#define MBX_PMI_H

#include "mbx/status.h"

/* Tells the process manager this rank is done, as MPI_Finalize does last:
 * "cmd=finalize" on the PMI-1 socket the environment variable PMI_FD names
 * (hydra; Slurm's pmi2 plugin speaks it too), then waits up to timeout_ms
 * for the line that answers it ("cmd=finalize_ack ..."). Returns 1 when it
 * came, 0 when there is no PMI socket (PMI_FD unset or not a descriptor
 * number), MBX_E_IO when the write failed, the socket closed or no answer
 * came in time, MBX_E_PROTO when the answer was another line. */
int mbx_pmi_finalize(int timeout_ms);

#endif
