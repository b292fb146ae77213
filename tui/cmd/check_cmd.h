/* `mpibex check BASELINE CURRENT`: a regression verdict for test
 * pipelines, on top of `mpibex compare` (mbx/compare.h for the
 * statistics, mbx/check.h for tolerances, rules and verdicts). No MPI. */
#ifndef MBX_CHECK_CMD_H
#define MBX_CHECK_CMD_H

#include <stdio.h>

#include "mbx/check.h"
#include "mbx/compare.h"

/* The arguments after "check". Prints the summary line, then the table of
 * the points that fail (or leave the check open). Returns the exit code:
 * 0 no regression, 1 a regression, 2 bad input (one line on stderr), 3 not
 * enough data to decide (with the line saying what to run). */
int mbx_check_cmd(int argc, char **argv);

/* mpibex check --help, on stdout. */
void mbx_check_usage(void);

/* One judged point of a check (check_cmd.c; check_junit.c writes them). */
typedef struct mbx_check_row {
    const mbx_cmp_point *p;
    mbx_check_tol tol;
    mbx_check_dir dir;
    mbx_check_verdict v;
    int fails, open; /* mbx_check_fails, mbx_check_open */
} mbx_check_row;

/* The JUnit XML report of rows[0..n) to f: one testsuite named suite, a
 * testcase per point ("benchmark procs bytes"), a failure for each
 * failing row, skipped for each undecided one (and for all of them when
 * none_why, the reason no verdict could be given, is not NULL). Every
 * text from the inputs is escaped for XML. Returns 0, or -1 when writing
 * failed. */
int mbx_check_junit(FILE *f, const char *suite, const mbx_check_row *rows, size_t n,
                    const char *none_why);

#endif
