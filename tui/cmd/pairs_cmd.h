/* `mpibex pairs`: the node-pair matrix in batch mode (pairs_cmd.c), and its
 * output: the printed matrices and verdicts, the CSV rows and the
 * verdicts file (pairs_out.c). */
#ifndef MBX_PAIRS_CMD_H
#define MBX_PAIRS_CMD_H

#include <stdio.h>

#include "mbx/csvio.h"
#include "mbx/engine.h"
#include "mbx/output.h"
#include "mbx/pairs.h"
#include "mbx/pairs_run.h"

#define MBX_PAIRS_MSG 512

typedef struct mbx_pairs_cli {
    mbx_pairs_plan plan;
    mbx_pairs_opts verdict;
    const char *output;
    int per; /* mbx_pairs_per: what a node is */
    int quiet, help, force, seed_given;
} mbx_pairs_cli;

/* The options into c (defaults first); 0, or 2 with one line in msg. */
int mbx_pairs_parse(int argc, char **argv, mbx_pairs_cli *c, char *msg, size_t msglen);

typedef struct mbx_pairs_out {
    mbx_output claim;
    mbx_csv_writer *csv;
    char *verdict_path, *env_path; /* NULL without -o */
} mbx_pairs_out;

/* Claim -o (and its sidecars) and open the CSV; write the environment.
 * Returns 0, or an exit code (2: the output is taken or cannot be
 * written) with msg; nothing is left claimed then. */
int mbx_pairs_out_open(mbx_pairs_out *o, const mbx_pairs_cli *c, mbx_engine *e, char *msg,
                       size_t msglen);
/* The head of stdout: the job, the nodes and their hosts, the plan. */
void mbx_pairs_out_head(const mbx_pairs_out *o, const mbx_pairs_cli *c, const mbx_job_info *job,
                        const int *nodes);
/* After the run: each metric's matrix and verdicts on stdout, a row per
 * cell in the CSV, the verdicts file. Errors (a write) with msg. */
int mbx_pairs_out_results(mbx_pairs_out *o, const mbx_pairs_cli *c, const mbx_pairs_run *run,
                          const mbx_job_info *job, const int *nodes, char *msg, size_t msglen);
/* Close and release; an error closing the CSV with msg. */
int mbx_pairs_out_close(mbx_pairs_out *o, char *msg, size_t msglen);

int mbx_pairs_cmd(int argc, char **argv);

#endif
