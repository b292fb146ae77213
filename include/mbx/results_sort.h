/* mpibex results in the order scripts and eyes expect: by
 * benchmark, procs, param and bytes, ties in the order measured. A run
 * appends each row as its point lands (a crash loses at most one), and
 * when it ends the file is rewritten sorted; the `seq` column keeps the
 * order of measurement. Pure C, no MPI. */
#ifndef MBX_RESULTS_SORT_H
#define MBX_RESULTS_SORT_H

#include "mbx/result.h"
#include "mbx/status.h"

/* The order of two rows: benchmark (byte order), then procs, param (none
 * before any value) and bytes, numerically; then seq (0 last). Negative,
 * 0 or positive, as strcmp. */
int mbx_result_order(const mbx_result *a, const mbx_result *b);

/* Rewrite the results CSV at path with its rows in that order (the header
 * first, ties in the file's order): written to path + ".sorting" in the
 * same directory (never through a symbolic link), then renamed over path,
 * so path holds the whole unsorted or the whole sorted file at any moment.
 * Only a regular file is rewritten (a FIFO or device is left alone:
 * MBX_OK). Errors: MBX_E_INVAL (no benchmark column, or rows of another
 * width than the header: the file is left as it is), MBX_E_IO with errno,
 * MBX_E_NOMEM. */
MBX_NODISCARD int mbx_results_sort_file(const char *path);

/* Rewrite the results CSV at path without its rows whose status is
 * `status` ("HUNG": `run --resume --retry-hung` measures them again), the
 * other rows in the file's order, the same way (path + ".sorting", then a
 * rename); *dropped gets how many went (0: the file is left as it is).
 * Errors as mbx_results_sort_file's (no status column: MBX_E_INVAL). */
MBX_NODISCARD int mbx_results_drop_status(const char *path, const char *status, size_t *dropped);

#endif
