/* The job description (every rank reports itself) and the environment
 * capture written beside every result. Only whitelisted environment
 * variables are recorded: library tuning knobs, never anything else. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_* */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "engine_internal.h"
#include "mbx/version.h"

extern char **environ;

static const char *const tuning_prefixes[] = {"MPICH_", "MPIR_CVAR_", "UCX_", "OMPI_", "FI_"};

static uint64_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        unsigned long long kb;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
                fclose(f);
                return (uint64_t)kb * 1024;
            }
        fclose(f);
    }
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

/* "0-3,6" from the affinity mask; sets *narrow when it excludes CPUs. */
static void binding_text(char *buf, size_t len, int *narrow)
{
    cpu_set_t set;
    buf[0] = '\0';
    *narrow = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        snprintf(buf, len, "unknown");
        return;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    *narrow = online > 0 && CPU_COUNT(&set) < online;
    size_t used = 0;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        int end = c;
        while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, &set))
            end++;
        int w = end > c ? snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", c, end)
                        : snprintf(buf + used, len - used, "%s%d", used ? "," : "", c);
        if (w < 0 || (size_t)w >= len - used)
            break;
        used += (size_t)w;
        c = end;
    }
}

static double cpu_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0.0;
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

int mbx_describe_exec(mbx_engine *e)
{
    mbx_rank_info me;
    memset(&me, 0, sizeof me);
    if (gethostname(me.host, sizeof me.host - 1) != 0)
        snprintf(me.host, sizeof me.host, "unknown");
    int narrow = 0;
    binding_text(me.binding, sizeof me.binding, &narrow);
    me.bound = narrow;
    me.mem_avail = mem_available();
    me.cpu_seconds = cpu_seconds();
    MPI_Comm_rank(e->node, &me.node_rank);
    MPI_Comm_size(e->node, &me.node_size);

    mbx_rank_info *all = NULL;
    if (e->rank == 0) {
        all = calloc((size_t)e->size, sizeof *all);
        if (!all)
            return MBX_E_NOMEM; /* the gather below would hang; rank 0 is alone here */
    }
    if (MPI_Gather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, 0, e->cmd) !=
        MPI_SUCCESS) {
        free(all);
        return MBX_E_MPI;
    }
    if (e->rank != 0)
        return MBX_OK;

    /* Hosts in order of first appearance. */
    int nhosts = 0, maxper = 0;
    uint64_t per_rank = UINT64_MAX;
    for (int r = 0; r < e->size; r++) {
        int h = -1;
        for (int q = 0; q < r && h < 0; q++)
            if (strcmp(all[q].host, all[r].host) == 0)
                h = all[q].host_id;
        all[r].host_id = h >= 0 ? h : nhosts++;
        if (all[r].node_size > maxper)
            maxper = all[r].node_size;
        uint64_t share = all[r].mem_avail / (uint64_t)(all[r].node_size > 0 ? all[r].node_size : 1);
        if (share < per_rank)
            per_rank = share;
    }
    free(e->job.rank);
    e->job.rank = all;
    e->job.nranks = e->size;
    e->job.nhosts = nhosts;
    e->job.max_ranks_per_host = maxper;
    e->job.mem_per_rank = per_rank;
    e->job.wall = MPI_Wtime();
    e->have_job = 1;
    return MBX_OK;
}

int mbx_engine_describe(mbx_engine *e, const mbx_job_info **out)
{
    mbx_cmd c = {.opcode = MBX_OP_DESCRIBE};
    int rc = mbx_engine_submit(e, &c, NULL);
    if (rc < 0)
        return rc;
    if (out)
        *out = &e->job;
    return MBX_OK;
}

#define TRY(x)                                                                                     \
    do {                                                                                           \
        int rc_ = (x);                                                                             \
        if (rc_ < 0)                                                                               \
            return rc_;                                                                            \
    } while (0)

int mbx_engine_environment(mbx_engine *e, mbx_kvlist *out)
{
    if (!e || e->rank != 0 || !out || !e->have_job)
        return MBX_E_INVAL;
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0, major = 0, minor = 0;
    MPI_Get_library_version(ver, &len);
    MPI_Get_version(&major, &minor);
    char *nl = strchr(ver, '\n');
    char first[128];
    snprintf(first, sizeof first, "%.*s", nl ? (int)(nl - ver) : (int)strlen(ver), ver);

    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));

    TRY(mbx_kv_addf(out, "format_version", "%d", MBX_FORMAT_VERSION));
    TRY(mbx_kv_addf(out, "tool", "mpibex"));
    TRY(mbx_kv_addf(out, "tool_version", "%s", MBX_VERSION));
    TRY(mbx_kv_addf(out, "date_utc", "%s", date));
    TRY(mbx_kv_addf(out, "mpi_library", "%s", first));
    TRY(mbx_kv_addf(out, "mpi_library_version", "%s", ver));
    TRY(mbx_kv_addf(out, "mpi_standard", "%d.%d", major, minor));
    TRY(mbx_kv_addf(out, "compiler", "%s", MBX_COMPILER));
    TRY(mbx_kv_addf(out, "cflags", "%s", MBX_BUILD_CFLAGS));
    TRY(mbx_kv_addf(out, "build_type", "%s", MBX_BUILD_TYPE));
    TRY(mbx_kv_addf(out, "ranks", "%d", e->job.nranks));
    TRY(mbx_kv_addf(out, "hosts", "%d", e->job.nhosts));

    /* ranks_per_host: "hostA:2 hostB:2" in host order. */
    char rph[1024] = "";
    size_t used = 0;
    int unbound = 0;
    for (int h = 0; h < e->job.nhosts; h++)
        for (int r = 0; r < e->job.nranks; r++)
            if (e->job.rank[r].host_id == h) {
                int w = snprintf(rph + used, sizeof rph - used, "%s%s:%d", used ? " " : "",
                                 e->job.rank[r].host, e->job.rank[r].node_size);
                if (w > 0 && (size_t)w < sizeof rph - used)
                    used += (size_t)w;
                break;
            }
    TRY(mbx_kv_addf(out, "ranks_per_host", "%s", rph));
    TRY(mbx_kv_addf(out, "max_ranks_per_host", "%d", e->job.max_ranks_per_host));
    for (int r = 0; r < e->job.nranks; r++) {
        char key[64];
        snprintf(key, sizeof key, "rank.%d.host", r);
        TRY(mbx_kv_addf(out, key, "%s", e->job.rank[r].host));
        snprintf(key, sizeof key, "rank.%d.binding", r);
        TRY(mbx_kv_addf(out, key, "%s%s", e->job.rank[r].binding,
                        e->job.rank[r].bound ? "" : " (unbound)"));
        unbound += !e->job.rank[r].bound;
    }
    TRY(mbx_kv_addf(out, "ranks_unbound", "%d", unbound));
    TRY(mbx_kv_addf(out, "timer", "%s", mbx_timer_name(e->timer.kind)));
    TRY(mbx_kv_addf(out, "timer_nominal_resolution_s", "%.3e", e->timer.nominal_res));
    TRY(mbx_kv_addf(out, "timer_resolution_s", "%.3e", e->timer.resolution));
    TRY(mbx_kv_addf(out, "timer_overhead_s", "%.3e", e->timer.overhead));
    TRY(mbx_kv_addf(out, "timer_overhead_max_s", "%.3e", e->max_overhead));
    TRY(mbx_kv_addf(out, "sync", "barrier"));
    TRY(mbx_kv_addf(out, "pingpong_pair", "0,last"));
    for (char **v = environ; v && *v; v++)
        for (size_t p = 0; p < sizeof tuning_prefixes / sizeof *tuning_prefixes; p++) {
            size_t pl = strlen(tuning_prefixes[p]);
            const char *eq = strchr(*v, '=');
            if (eq && strncmp(*v, tuning_prefixes[p], pl) == 0) {
                char key[160];
                snprintf(key, sizeof key, "env.%.*s", (int)(eq - *v), *v);
                TRY(mbx_kv_addf(out, key, "%s", eq + 1));
                break;
            }
        }
    return MBX_OK;
}
