/* `mpibex beffio`: the b_eff_io batch front end. */
#ifndef MBX_BEFFIO_CMD_H
#define MBX_BEFFIO_CMD_H

/* `mpibex beffio [options]`: every rank enters; returns the process exit
 * code (0, 1 failure, 2 bad input or too little space, 128+signal when
 * interrupted). */
int mbx_beffio_cmd(int argc, char **argv);

#endif
