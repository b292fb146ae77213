/* `mpibex compare A B`: are two settings different, point by point? Front
 * end of mbx/compare.h; no MPI (a plain command like `merge`). */
#ifndef MBX_COMPARE_CMD_H
#define MBX_COMPARE_CMD_H

#include <stddef.h>
#include <stdint.h>

/* The arguments after "compare". Prints the table and the summary on
 * stdout. Returns the exit code: 0 compared, 1 writing -o failed, 2 bad
 * input (one line on stderr, nothing written). */
int mbx_compare_cmd(int argc, char **argv);

/* mpibex compare --help, on stdout. */
void mbx_compare_usage(void);

#endif
