/* Rank 0's way to the user's terminal (docs/explorer.md, "How rank 0
 * reaches your terminal").
 *
 * The launcher (`mpibex -n N`, launcher.h) passes in the job's environment:
 *   MBX_LAUNCHED=1
 *   MBX_LAUNCH_HOST   the launcher's host name
 *   MBX_TTY           the launcher's terminal device (tty and auto bridges)
 *   MBX_BRIDGE        HOST:PORT of the launcher's relay (socket and auto)
 *   MBX_BRIDGE_TOKEN  64 hex characters, a one-time secret for the relay
 *   MBX_STATUS_FILE   where rank 0 writes its exit code ("%d\n") at the end
 * mbx_term_open picks, in order: MBX_TTY when this host is MBX_LAUNCH_HOST
 * and the device opens read-write; else the socket relay (a local pty whose
 * master a relay thread copies to and from the authenticated TCP
 * connection; window sizes arrive as messages and are applied with
 * TIOCSWINSZ); else rank 0's own stdin/stdout when both are terminals
 * (srun --pty, a one-rank run). */
#ifndef MBX_TERM_H
#define MBX_TERM_H

#include <stddef.h>
#include <stdio.h>

typedef struct mbx_term mbx_term;

/* Returns 0 and a ready terminal, or a negative mbx_status with a one-line
 * reason: MBX_E_UNSUPPORTED when there is no terminal to reach at all,
 * MBX_E_IO when one was named but could not be opened or authenticated. */
int mbx_term_open(mbx_term **out, char *msg, size_t msglen);

FILE *mbx_term_in(mbx_term *t);               /* for newterm(): keys */
FILE *mbx_term_out(mbx_term *t);              /* for newterm(): screen */
const char *mbx_term_kind(const mbx_term *t); /* "tty", "socket" or "stdio" */

/* Current size (TIOCGWINSZ on the terminal rank 0 draws to); 0 on success.
 * Called every tick: SIGWINCH does not reach rank 0 under hydra. */
int mbx_term_size(mbx_term *t, int *rows, int *cols);

/* Whether the far end is gone (socket closed, terminal hung up). */
int mbx_term_lost(mbx_term *t);

/* Stop the relay, close everything, free. NULL is allowed. */
void mbx_term_close(mbx_term *t);

/* Async-signal-safe: write mbx_term_reset_seq() (every mode off, the
 * alternate screen left) straight to the terminal's file descriptor, for
 * crash handlers that then re-raise. */
void mbx_term_emergency_reset(mbx_term *t);

/* The bytes that turn off every terminal mode the explorer may turn on
 * (term.c lists them), for the terminal of a rank 0 that could not. */
const char *mbx_term_reset_seq(void);

/* Rank 0 at the very end: record the exit code for the launcher when
 * MBX_STATUS_FILE is set (the launcher then need not trust mpiexec's exit
 * status, which hydra sometimes reports as 0 after Ctrl-C). */
void mbx_term_write_status(int code);

/* The same with the reason rank 0 could not start (one line, no newline;
 * NULL: none) after the code, for the launcher to print on the terminal:
 * rank 0's own stderr goes to the log. */
void mbx_term_write_status_why(int code, const char *why);

#endif
