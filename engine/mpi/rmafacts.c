/* The facts of the MPI library that decide whether rma.* can move data
 * (mbx/engine.h, mbx_engine_rma_facts; docs/user-guide.md, "One-sided").
 * UCX's version is asked of the UCX the MPI library has
 * loaded, found by name among the process's symbols: mpibex links no UCX
 * of its own, and an MPI without UCX has no such symbol. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <stdlib.h>

#include "mbx/engine.h"

void mbx_engine_rma_facts(mbx_rma_facts *out, char *mpi, size_t len)
{
    out->mpi = NULL;
    if (mpi && len >= MPI_MAX_LIBRARY_VERSION_STRING) {
        int n = 0;
        if (MPI_Get_library_version(mpi, &n) == MPI_SUCCESS)
            out->mpi = mpi;
    }
    /* ucp_get_version_string: "const char *(void)" in UCX's ucp.h. The
     * cast goes through a union: ISO C has no conversion from an object
     * pointer to a function pointer. */
    union {
        void *obj;
        const char *(*fn)(void);
    } sym = {.obj = dlsym(RTLD_DEFAULT, "ucp_get_version_string")};
    out->ucx = sym.obj ? sym.fn() : NULL;
    out->rcache = getenv(MBX_RMA_FIX_VAR);
}
