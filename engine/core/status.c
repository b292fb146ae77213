#include "mbx/status.h"

const char *mbx_strerror(int status)
{
    switch (status) {
    case MBX_OK: return "success";
    case MBX_E_INVAL: return "invalid input";
    case MBX_E_NOMEM: return "out of memory";
    case MBX_E_IO: return "input/output error";
    case MBX_E_RANGE: return "value out of range";
    case MBX_E_MPI: return "MPI error";
    case MBX_E_PROTO: return "malformed message";
    case MBX_E_UNKNOWN: return "unknown name";
    case MBX_E_UNSUPPORTED: return "not supported";
    case MBX_E_ABORTED: return "aborted";
    case MBX_E_VALIDATE: return "received data was wrong (validation failed)";
    case MBX_E_GONE: return "the file was removed or renamed while being written";
    case MBX_E_BUSY: return "in use by another run";
    default: return "unknown error";
    }
}
