/* `mpibex beff`: the b_eff batch front end. */
#ifndef MBX_BEFF_CMD_H
#define MBX_BEFF_CMD_H

/* `mpibex beff ARGS`: the whole job, every rank; returns the exit code. */
int mbx_beff_cmd(int argc, char **argv);
void mbx_beff_usage(void); /* `mpibex beff --help`, on stdout */

#endif
