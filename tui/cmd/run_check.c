/* `mpibex run`: points whose data check failed, and the one library pairing
 * known to fail it (docs/user-guide.md, "One-sided"). A
 * failed check makes the point an INVALID row that says why, the run goes
 * on with the other points, and the run's exit status says it at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/rmacheck.h"
#include "run_int.h"

/* Whether a curve of the run measures a one-sided benchmark. */
static int selects_rma(const run_state *st)
{
    for (size_t i = 0; i < st->nser; i++)
        if (mbx_bench_get(st->ser[i].bench_id)->flags & MBX_BENCH_RMA)
            return 1;
    return 0;
}

void mbx_run_rma_check(const run_state *st)
{
    if (st->be->fake || !selects_rma(st))
        return;
    char mpi[MPI_MAX_LIBRARY_VERSION_STRING], why[MSG_LEN];
    mbx_rma_facts f;
    mbx_engine_rma_facts(&f, mpi, sizeof mpi);
    if (mbx_rma_judge(&f, why, sizeof why) == MBX_RMA_BROKEN)
        fprintf(stderr, "mpibex: warning: %s\n", why);
}

/* The per-benchmark counts, made on first use: passes whose check failed,
 * then INVALID rows from a failed check. */
static int counts_ready(run_state *st)
{
    if (!st->badcheck && !(st->badcheck = calloc(2 * mbx_bench_count(), sizeof *st->badcheck))) {
        fprintf(stderr, "mpibex: out of memory\n");
        return 0;
    }
    return 1;
}

int mbx_run_check_failed(run_state *st, const mbx_point_spec *spec)
{
    if (!counts_ready(st))
        return 1;
    const mbx_bench *b = mbx_bench_get(spec->bench_id);
    if (st->badcheck[spec->bench_id]++ == 0) /* once per benchmark: its later points say so too */
        fprintf(stderr, "mpibex: %s on %d procs at %llu bytes: %s; the run goes on\n", b->name,
                spec->procs, (unsigned long long)spec->bytes, mbx_strerror(MBX_E_VALIDATE));
    return 0;
}

void mbx_run_check_row(run_state *st, const mbx_result *r)
{
    int id;
    /* A failed pilot leaves no row: a later pass decides the point. */
    if (!st->badcheck || r->status != MBX_POINT_INVALID ||
        !strstr(r->status_reason, "received data was wrong") ||
        mbx_bench_find(r->benchmark, &id) != MBX_OK)
        return;
    st->badcheck[mbx_bench_count() + (size_t)id]++;
}

int mbx_run_check_report(const run_state *st)
{
    if (!st->badcheck)
        return 0;
    char list[MSG_LEN];
    size_t k = 0, total = 0, nb = mbx_bench_count();
    list[0] = '\0';
    for (size_t i = 0; i < nb; i++) {
        size_t n = st->badcheck[nb + i];
        if (!n)
            continue;
        total += n;
        if (k < sizeof list)
            k += (size_t)snprintf(list + k, sizeof list - k, "%s%s (%zu)", k ? ", " : "",
                                  mbx_bench_get((int)i)->name, n);
    }
    if (!total)
        return 0;
    fprintf(stderr, "mpibex: %s: %zu INVALID row%s of %s%s%s\n", mbx_strerror(MBX_E_VALIDATE),
            total, total == 1 ? "" : "s", list, st->opt.output ? " in " : "",
            st->opt.output ? st->opt.output : "");
    return 1;
}
