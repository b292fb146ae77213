/* Starting an mpibex job on every rank: MPI, the engine, the serve loop. */
#ifndef MBX_JOB_H
#define MBX_JOB_H

#include "mbx/engine.h"
#include "sig.h"

/* Rank 0's work: returns the exit code every rank will return. */
typedef int (*mbx_root_fn)(mbx_engine *e, int argc, char **argv);

/* Initialize MPI and the engine on every rank; rank 0 runs `root`, the other
 * ranks serve its commands; then rank 0 sends QUIT with root's exit code,
 * and every rank finalizes and returns that code. SIGINT, SIGTERM, SIGHUP
 * and SIGPIPE only set mbx_stop_signal (mbx_sig_catch; a second SIGINT,
 * SIGTERM or SIGHUP acts at once); the engine carries another rank's to
 * rank 0 (mbx_engine_watch_stop). Rank 0's front end is expected to look
 * at it between batches and wind down; standard output is checked
 * (mbx_sig_check_stdout) before the code goes to the other ranks.
 *
 * MPI starts with MPI_Init_thread at the level of "--thread-level WORD" or
 * "--thread-level=WORD" in argv (single when absent; a bad WORD also means
 * single here, and the front end's own parser reports it). */
int mbx_job_run(int argc, char **argv, mbx_root_fn root);

/* mbx_job_run at the thread level `level` (MPI_THREAD_*), whatever argv
 * says: `run` works it out with its plan file (mbx_cli_thread_level). */
int mbx_job_run_at(int argc, char **argv, int level, mbx_root_fn root);

/* MPI_THREAD_SINGLE ... MPI_THREAD_MULTIPLE for "single", "funneled",
 * "serialized", "multiple"; -1 for anything else (or NULL). */
int mbx_job_thread_level_parse(const char *word);

#define MBX_THREAD_LEVEL_WORDS "single, funneled, serialized or multiple"

/* In the root function (any rank): the level mbx_job_run asked MPI for,
 * and the level MPI granted (MPI_Init_thread's `provided`). */
int mbx_job_thread_asked(void);
int mbx_job_thread_granted(void);

#endif
