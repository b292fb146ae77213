/* Standard output fitted to the terminal it ends up on: `run`'s table is
 * 150-170 columns wide, and a terminal of 80 wraps every line of it. A
 * file or a pipe keeps the full lines (scripts read them). */
#ifndef MBX_OUTFIT_H
#define MBX_OUTFIT_H

/* The width of the terminal standard output reaches, or 0 when it reaches
 * a file or a pipe. Under mpiexec rank 0's standard output is a pipe to
 * the process manager (MPICH's hydra) or a pseudo-terminal the manager
 * made for it (Open MPI's), which the manager copies to its own: then the
 * terminal is the one of the nearest ancestor that is a process manager
 * (hydra's proxy, mpiexec, mpirun, prterun, orted, srun), when that one's
 * standard output is a terminal. TIOCGWINSZ, else COLUMNS; at least 40. */
int mbx_outfit_columns(void);

/* From now on, every line written to stdout that is longer than cols is
 * wrapped at a blank into lines of at most cols characters: a comment
 * line ("# ...") continues with "#   ", any other with four blanks.
 * 0 on success, -1 (stdout unchanged) when the stream cannot be made.
 * cols 0: nothing changes. */
int mbx_outfit_start(int cols);

/* Undo mbx_outfit_start: the last partial line is written, stdout is the
 * original stream again. Returns nonzero when a write failed. */
int mbx_outfit_stop(void);

#endif
