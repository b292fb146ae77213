/* `mpibex calibrate`: a machine profile from the launches of a `mpibex
 * repeat` directory (mbx/profile.h). Front end only; no MPI. */
#ifndef MBX_CALIBRATE_H
#define MBX_CALIBRATE_H

/* The arguments after "calibrate". Returns the exit code: 0 written, 1
 * writing failed, 2 bad input (one line on stderr, nothing written). */
int mbx_calibrate_cmd(int argc, char **argv);

#endif
