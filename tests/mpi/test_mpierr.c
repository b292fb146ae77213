/* An MPI call's error becomes MBX_E_MPI with the MPI library's own text
 * (engine/mpi/mpierr.h), on one rank:
 *
 *   - a provoked error (MPI_Send to a rank that does not exist, under
 *     MPI_ERRORS_RETURN) gives "MPI_Send: " and MPI_Error_string's text;
 *   - a known error class gives its text the same way;
 *   - a short buffer is cut and still ends in NUL; no buffer writes nothing;
 *   - a new engine has no message (mbx_engine_why: ""); a failure recorded
 *     with MBX_MPI_FAIL is what mbx_engine_why then returns, and what the
 *     back end adds to MBX_E_MPI's text for the front ends
 *     (mbx_backend_strerror).
 *
 * Any failed check aborts the job. */
#include <stdio.h>
#include <string.h>

#include "engine_internal.h"
#include "mbx/backend.h"
#include "mbx/engine.h"
#include "mpierr.h"

static void require(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "test_mpierr: FAILED: %s\n", what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* msg must be exactly "<call>: <MPI_Error_string(rc)>". */
static void expect_text(int rc, const char *call, const char *msg)
{
    char text[MPI_MAX_ERROR_STRING], want[MPI_MAX_ERROR_STRING + 64];
    int len = 0;
    require(MPI_Error_string(rc, text, &len) == MPI_SUCCESS && len > 0, "MPI_Error_string");
    text[len] = '\0';
    snprintf(want, sizeof want, "%s: %s", call, text);
    if (strcmp(msg, want) != 0)
        fprintf(stderr, "test_mpierr: got '%s', want '%s'\n", msg, want);
    require(strcmp(msg, want) == 0, "the message carries MPI_Error_string's text");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    require(size == 1, "one rank");

    /* A real failure of a real call. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int x = 0;
    int rc = MPI_Send(&x, 1, MPI_INT, 5, 0, MPI_COMM_WORLD);
    require(rc != MPI_SUCCESS, "MPI_Send to rank 5 of 1 fails");
    char msg[512] = "untouched";
    require(mbx_mpi_fail(rc, "MPI_Send", msg, sizeof msg) == MBX_E_MPI, "returns MBX_E_MPI");
    expect_text(rc, "MPI_Send", msg);

    /* An error class. */
    require(mbx_mpi_fail(MPI_ERR_COMM, "MPI_Allreduce", msg, sizeof msg) == MBX_E_MPI,
            "returns MBX_E_MPI (class)");
    expect_text(MPI_ERR_COMM, "MPI_Allreduce", msg);

    /* Short buffers and none. */
    char tiny[8];
    memset(tiny, 'x', sizeof tiny);
    require(mbx_mpi_fail(MPI_ERR_COMM, "MPI_Allreduce", tiny, sizeof tiny) == MBX_E_MPI,
            "returns MBX_E_MPI (short)");
    require(strcmp(tiny, "MPI_All") == 0, "a short buffer is cut and NUL-ended");
    require(mbx_mpi_fail(MPI_ERR_COMM, "MPI_Allreduce", NULL, 0) == MBX_E_MPI,
            "returns MBX_E_MPI (no buffer)");

    /* The engine's message buffer starts empty. */
    mbx_engine *e = NULL;
    require(mbx_engine_create(MPI_COMM_WORLD, &e) == MBX_OK, "engine");
    require(strcmp(mbx_engine_why(e), "") == 0, "no message before a failure");
    require(MBX_MPI_FAIL(e, rc, "MPI_Send") == MBX_E_MPI, "MBX_MPI_FAIL returns MBX_E_MPI");
    expect_text(rc, "MPI_Send", mbx_engine_why(e));

    /* The front ends' text of the error: the back end adds the call and
     * MPI's text to MBX_E_MPI, and nothing to other codes. */
    mbx_backend b;
    require(mbx_backend_engine(e, MPI_THREAD_SINGLE, MPI_THREAD_SINGLE, &b) == MBX_OK, "back end");
    char line[MPI_MAX_ERROR_STRING + 128], want[MPI_MAX_ERROR_STRING + 128];
    snprintf(want, sizeof want, "%s (%s)", mbx_strerror(MBX_E_MPI), mbx_engine_why(e));
    require(strcmp(mbx_backend_strerror(&b, MBX_E_MPI, line, sizeof line), want) == 0,
            "mbx_backend_strerror: MPI error (MPI_Send: ...)");
    require(strcmp(mbx_backend_strerror(&b, MBX_E_INVAL, line, sizeof line),
                   mbx_strerror(MBX_E_INVAL)) == 0,
            "mbx_backend_strerror: other codes as mbx_strerror");
    /* A refused point parameter's line explains MBX_E_INVAL, not MPI. */
    snprintf(e->why, sizeof e->why, "point parameter root: 5 is outside 0..3 (procs 4)");
    snprintf(want, sizeof want, "%s (%s)", mbx_strerror(MBX_E_INVAL), e->why);
    require(strcmp(mbx_backend_strerror(&b, MBX_E_INVAL, line, sizeof line), want) == 0,
            "mbx_backend_strerror: a refusal's line on MBX_E_INVAL");
    require(strcmp(mbx_backend_strerror(&b, MBX_E_MPI, line, sizeof line),
                   mbx_strerror(MBX_E_MPI)) == 0,
            "mbx_backend_strerror: a refusal's line is not an MPI failure's text");
    require(strcmp(mbx_backend_strerror(NULL, MBX_E_MPI, line, sizeof line),
                   mbx_strerror(MBX_E_MPI)) == 0,
            "mbx_backend_strerror: no back end, no text");
    require(mbx_engine_quit(e, 0) == MBX_OK, "quit");
    mbx_engine_destroy(e);

    printf("test_mpierr: ok\n");
    MPI_Finalize();
    return 0;
}
