/* An MPI call's error as MBX_E_MPI with MPI_Error_string's text (mpierr.h). */
#include "mpierr.h"

#include <mpi.h>
#include <stdio.h>

#include "mbx/status.h"

int mbx_mpi_fail(int mpi_rc, const char *call, char *msg, size_t len)
{
    if (msg == NULL || len == 0)
        return MBX_E_MPI;
    char text[MPI_MAX_ERROR_STRING];
    int tl = 0;
    if (MPI_Error_string(mpi_rc, text, &tl) != MPI_SUCCESS || tl <= 0)
        snprintf(text, sizeof text, "MPI error %d", mpi_rc);
    else
        text[tl < MPI_MAX_ERROR_STRING ? tl : MPI_MAX_ERROR_STRING - 1] = '\0';
    snprintf(msg, len, "%s: %s", call ? call : "MPI", text);
    return MBX_E_MPI;
}
