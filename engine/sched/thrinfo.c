#include "mbx/thrinfo.h"

#include <stdio.h>

#include "mbx/threads.h"

int mbx_thrinfo_level_env(mbx_kvlist *out, int asked, int granted)
{
    int rc = mbx_kv_addf(out, "mpi_thread_level_asked", "%s", mbx_thread_level_name(asked));
    if (rc >= 0)
        rc = mbx_kv_addf(out, "mpi_thread_level", "%s", mbx_thread_level_name(granted));
    return rc;
}

int64_t mbx_thrinfo_mpi_threads(const mbx_bench *b, int64_t param)
{
    if (!b || !(b->flags & MBX_BENCH_MPI_THREADS))
        return 1;
    return param ? param : b->param_default;
}

int mbx_thrinfo_binds(const mbx_bench *b)
{
    return b && (b->flags & MBX_BENCH_TEAM) != 0;
}

void mbx_thrinfo_multiple_msg(const mbx_bench *b, int64_t threads, int asked, int granted,
                              char *buf, size_t len)
{
    const char *name = b ? b->name : "?";
    /* The remedy first: a status line may cut the rest off. */
    if (asked < MPI_THREAD_MULTIPLE)
        snprintf(buf, len,
                 "%s: %lld threads per rank need MPI_THREAD_MULTIPLE; start with --thread-level "
                 "multiple (the MPI library granted %s)",
                 name, (long long)threads, mbx_thread_level_name(granted));
    else
        snprintf(buf, len,
                 "%s: %lld threads per rank need MPI_THREAD_MULTIPLE; use 1 thread or an MPI "
                 "library with thread support (--thread-level multiple was asked, %s granted)",
                 name, (long long)threads, mbx_thread_level_name(granted));
}

/* Ranks with a failed bind as "0-1,3". */
static void failed_ranks(const mbx_thread_bind *tb, int n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int r = 0; r < n; r++) {
        if (!tb[r].failed)
            continue;
        int end = r;
        while (end + 1 < n && tb[end + 1].failed)
            end++;
        int w = end > r ? snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", r, end)
                        : snprintf(buf + used, len - used, "%s%d", used ? "," : "", r);
        if (w < 0 || (size_t)w >= len - used)
            return;
        used += (size_t)w;
        r = end;
    }
}

int mbx_thrinfo_binding_env(const mbx_thread_bind *tb, int n, mbx_kvlist *out)
{
    int any = 0, failed = 0, rc = MBX_OK;
    for (int r = 0; r < n; r++) {
        any |= tb[r].points > 0;
        failed += tb[r].failed;
    }
    if (!any)
        return MBX_OK;
    rc = mbx_kv_addf(out, "threads_binding",
                     "hwloc, each thread of a team on one PU, round-robin over the rank's "
                     "allowed PUs (threads.*, pingpong.mt; threads.create_join: not bound)");
    char key[64];
    for (int r = 0; rc >= 0 && r < n; r++) {
        if (!tb[r].points)
            continue;
        snprintf(key, sizeof key, "rank.%d.threads_binding", r);
        rc = mbx_kv_addf(out, key, "%s", tb[r].last);
    }
    char list[256];
    failed_ranks(tb, n, list, sizeof list);
    if (rc >= 0)
        rc = mbx_kv_addf(out, "threads_bind_failed", "%d", failed);
    if (rc >= 0)
        rc = mbx_kv_addf(out, "threads_bind_failed_ranks", "%s", list);
    for (int r = 0; rc >= 0 && r < n; r++) {
        if (!tb[r].failed)
            continue;
        snprintf(key, sizeof key, "rank.%d.threads_bind_failure", r);
        rc = mbx_kv_addf(out, key, "%s", tb[r].failure);
    }
    return rc;
}

int mbx_thrinfo_binding_news(const mbx_thread_bind *tb, int n, int *seen, char *ranks, size_t rlen,
                             const char **what)
{
    int total = 0, first = -1;
    for (int r = 0; r < n; r++) {
        total += tb[r].failed;
        if (tb[r].failed && first < 0)
            first = r;
    }
    int fresh = total - *seen;
    *seen = total;
    if (fresh <= 0)
        return 0;
    failed_ranks(tb, n, ranks, rlen);
    *what = tb[first].failure;
    return fresh;
}
