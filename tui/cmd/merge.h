/* `mpibex merge`: combine the results CSVs of several runs. Front end only;
 * no MPI (it is a plain command like `list`). */
#ifndef MBX_MERGE_CMD_H
#define MBX_MERGE_CMD_H

/* The arguments after "merge". Returns the exit code: 0 merged, 1 writing
 * the output failed, 2 bad input (one line on stderr, nothing written). */
int mbx_merge_cmd(int argc, char **argv);

/* mpibex merge --help, on stdout. */
void mbx_merge_usage(void);

#endif
