/* mpibex: one status enum for the whole engine.
 *
 * Every engine function that can fail returns an mbx_status; results travel
 * through out-parameters. MBX_OK is zero, errors are negative, so callers can
 * write `if ((rc = f()) < 0)`. */
#ifndef MBX_STATUS_H
#define MBX_STATUS_H

#if defined(__GNUC__)
#define MBX_NODISCARD __attribute__((warn_unused_result))
#else
#define MBX_NODISCARD
#endif

typedef enum mbx_status {
    MBX_OK = 0,
    MBX_E_INVAL = -1,       /* malformed or out-of-range input */
    MBX_E_NOMEM = -2,       /* allocation failed */
    MBX_E_IO = -3,          /* a file could not be read or written */
    MBX_E_RANGE = -4,       /* a value is outside its allowed range */
    MBX_E_MPI = -5,         /* an MPI call returned an error */
    MBX_E_PROTO = -6,       /* a command or message failed to decode */
    MBX_E_UNKNOWN = -7,     /* unknown name (benchmark, key, opcode) */
    MBX_E_UNSUPPORTED = -8, /* valid request this build or job cannot do */
    MBX_E_ABORTED = -9,     /* work was cancelled on request */
    MBX_E_VALIDATE = -10,   /* a benchmark received wrong data (--validate) */
    MBX_E_GONE = -11,       /* a file was removed or renamed while being written */
    MBX_E_BUSY = -12,       /* an output is in use by another run (mbx/output.h) */
} mbx_status;

/* A short static English description of a status; never NULL. */
const char *mbx_strerror(int status);

#endif
