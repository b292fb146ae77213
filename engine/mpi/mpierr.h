/* Private to the engine: an MPI call's error as the engine's status, with
 * the MPI library's own words for it in a message buffer. */
#ifndef MBX_MPIERR_H
#define MBX_MPIERR_H

#include <stddef.h>

/* Returns MBX_E_MPI for the failure mpi_rc of the MPI call named `call`
 * (e.g. "MPI_Allreduce") and writes "<call>: <MPI_Error_string's text>"
 * into msg[0..len), truncated to fit (a NULL msg or zero len: nothing
 * written). Never prints. */
int mbx_mpi_fail(int mpi_rc, const char *call, char *msg, size_t len);

/* The same into the engine's message buffer (see mbx_engine_why). */
#define MBX_MPI_FAIL(e, mpi_rc, call) mbx_mpi_fail((mpi_rc), (call), (e)->why, sizeof(e)->why)

#endif
