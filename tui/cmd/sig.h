/* Signals and standard output, handled alike by every subcommand
 * (docs/hardening.md, "Signals and standard output"). */
#ifndef MBX_SIG_H
#define MBX_SIG_H

#include <signal.h>

/* The first stop signal's number (0: none). The front ends look at it
 * between batches of observations and wind down. */
extern volatile sig_atomic_t mbx_stop_signal;

/* SIGPIPE sets mbx_stop_signal and is otherwise ignored, so a write to a
 * closed pipe fails with EPIPE instead of killing the process silently.
 * With `stop`, SIGINT, SIGTERM and SIGHUP set it too; a second one, half a
 * second or more after the first, acts at once (the default action), and
 * one sooner is taken as the first delivered twice (Slurm signals a job's
 * and its step's processes). Without `stop` they keep their default action
 * (the offline subcommands, which have nothing to save). */
void mbx_sig_catch(int stop);

/* Rank 0 of a job, with on: a stop signal that has not ended the front
 * end's work within a second writes one line to stderr saying the work in
 * flight is hung and how to end it. Off: disarmed (the work returned). */
void mbx_sig_watch(int on);

/* At the end of every subcommand: flush standard output and check it.
 * Returns code; after a failed write, one line on stderr ("mpibex: writing
 * standard output failed: REASON") and 1, or 128 + SIGPIPE when a reader
 * closed the pipe (a line that says so, unless the front end already told
 * of the stop). Checks once; later calls return code. */
int mbx_sig_check_stdout(int code);

/* The front end has given its one-line account of mbx_stop_signal:
 * mbx_sig_check_stdout adds no second line for the same stop. */
void mbx_sig_reported(void);

/* At the very end of a job's work (every rank, after MPI_Finalize; the
 * batch run, after its results are written): a stop signal that came
 * after the last look at mbx_stop_signal still ends with 128 + its
 * number, not 0, so a script (and the shell running it) sees the Ctrl-C.
 * Returns code when it is not 0 or no SIGINT, SIGTERM or SIGHUP came;
 * else, with `say` (rank 0), one line on stderr unless the front end told
 * of the stop already, naming `done` (what is complete), and 128 + sig. */
int mbx_sig_late(int code, int say, const char *done);

/* Sleep for seconds (>= 0), cut short by a stop signal (mbx_stop_signal
 * set); other interruptions sleep on. */
void mbx_sig_sleep(double seconds);

/* Rank 0, after a stop carried from `rank` (mbx_engine_stop_rank): rank,
 * or -1 when rank 0 got a signal of its own within 100 ms (one sent to the
 * whole job, e.g. Ctrl-C through hydra), so the line names no rank. */
int mbx_sig_from_rank(int rank);

#endif
