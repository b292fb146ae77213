/* The job description (every rank reports itself: its host's facts, its
 * binding) and the thread binding records of the threaded benchmarks. The
 * environment capture written beside every result is in envkv.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "engine_internal.h"
#include "hwtopo.h"
#include "mbx/ascii.h"
#include "mbx/threads.h"

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

/* Append str to the string in buf, truncating at len. */
static void append(char *buf, size_t len, const char *str)
{
    size_t used = strlen(buf);
    if (used < len)
        snprintf(buf + used, len - used, "%s", str);
}

/* The calling process's CPU binding from hwloc: OS PU indices, and when it
 * is narrower than the allowed CPUs (*bound = 1) the cores it covers;
 * *package the package (socket) it lies in, -1 when it spans several or
 * hwloc cannot tell. */
static void binding_text(char *buf, size_t len, int32_t *bound, int32_t *package)
{
    char why[96] = "";
    *bound = 0;
    *package = -1;
    hwloc_topology_t t = mbx_hwtopo_get(why, sizeof why);
    if (!t) {
        snprintf(buf, len, "unavailable (%s)", why);
        return;
    }
    hwloc_bitmap_t set = hwloc_bitmap_alloc(), cores = hwloc_bitmap_alloc();
    if (!set || !cores) {
        snprintf(buf, len, "unavailable (out of memory)");
    } else if (hwloc_get_cpubind(t, set, HWLOC_CPUBIND_PROCESS) != 0 &&
               hwloc_get_cpubind(t, set, HWLOC_CPUBIND_THREAD) != 0) {
        snprintf(buf, len, "unavailable (hwloc_get_cpubind: %s)", strerror(errno));
    } else {
        *bound = !hwloc_bitmap_isincluded(hwloc_topology_get_allowed_cpuset(t), set);
        hwloc_bitmap_list_snprintf(buf, len, set);
        int partial = 0;
        for (hwloc_obj_t c = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_CORE, NULL); c;
             c = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_CORE, c))
            if (hwloc_bitmap_intersects(c->cpuset, set)) {
                hwloc_bitmap_set(cores, c->logical_index);
                partial |= !hwloc_bitmap_isincluded(c->cpuset, set);
            }
        int npkg = 0;
        for (hwloc_obj_t k = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PACKAGE, NULL); k;
             k = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PACKAGE, k))
            if (hwloc_bitmap_intersects(k->cpuset, set) && npkg++ == 0)
                *package = (int32_t)k->logical_index;
        if (npkg != 1)
            *package = -1;
        int ncores = hwloc_bitmap_weight(cores);
        if (*bound && ncores > 0) {
            char list[48], note[80];
            hwloc_bitmap_list_snprintf(list, sizeof list, cores);
            snprintf(note, sizeof note, " (%s%s L#%s%s)", partial && ncores == 1 ? "part of " : "",
                     ncores == 1 ? "core" : "cores", list, partial && ncores > 1 ? ", partly" : "");
            append(buf, len, note);
        }
    }
    hwloc_bitmap_free(set);
    hwloc_bitmap_free(cores);
}

/* ---- host facts (read by node_rank 0 of each host) ---- */

static void unavailable(char *buf, size_t len, const char *why)
{
    snprintf(buf, len, "unavailable (%s)", why);
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\t'))
        s[--n] = '\0';
    size_t lead = strspn(s, " \t");
    memmove(s, s + lead, n - lead + 1);
}

/* The first /proc/cpuinfo value of `field` (e.g. "model name"); lo/hi of a
 * numeric field over every line if lo is not NULL. Returns lines found. */
static int cpuinfo_field(const char *field, char *val, size_t len, double *lo, double *hi)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return -1;
    char line[1024];
    int found = 0;
    size_t fl = strlen(field);
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon || strncmp(line, field, fl) != 0 ||
            strspn(line + fl, " \t") != (size_t)(colon - line) - fl)
            continue;
        if (found == 0 && val) {
            snprintf(val, len, "%s", colon + 1);
            trim(val);
        }
        if (lo) {
            double v = mbx_strtod(colon + 1, NULL);
            if (found == 0 || v < *lo)
                *lo = v;
            if (found == 0 || v > *hi)
                *hi = v;
        }
        found++;
        if (!lo)
            break;
    }
    fclose(f);
    return found;
}

static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -errno;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (!ok)
        return -EIO;
    trim(buf);
    return 0;
}

static long cpus_configured(void)
{
    long n = sysconf(_SC_NPROCESSORS_CONF);
    return n > 0 ? n : 1;
}

/* Why the cpufreq file `name` could be read on no CPU. */
static void cpufreq_why(char *buf, size_t len, const char *name, int err)
{
    char msg[48];
    if (access("/sys/devices/system/cpu/cpu0/cpufreq", F_OK) != 0)
        snprintf(msg, sizeof msg, "no cpufreq in sysfs");
    else
        snprintf(msg, sizeof msg, "%s: %s", name, strerror(err ? err : ENOENT));
    unavailable(buf, len, msg);
}

static void mhz_text(char *buf, size_t len, double lo, double hi)
{
    if (hi - lo < 0.5)
        snprintf(buf, len, "%.0f", lo);
    else
        snprintf(buf, len, "%.0f-%.0f", lo, hi);
}

/* A kHz file of every CPU's cpufreq directory as MHz, "lo" or "lo-hi". */
static int cpufreq_mhz(const char *name, char *buf, size_t len)
{
    double lo = 0, hi = 0;
    int n = 0, err = 0;
    for (long c = 0; c < cpus_configured(); c++) {
        char path[128], val[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/cpufreq/%s", c, name);
        int rc = read_line(path, val, sizeof val);
        if (rc < 0) {
            err = err ? err : -rc;
            continue;
        }
        double v = mbx_strtod(val, NULL) / 1000.0;
        lo = n == 0 || v < lo ? v : lo;
        hi = n == 0 || v > hi ? v : hi;
        n++;
    }
    if (n > 0)
        mhz_text(buf, len, lo, hi);
    else
        cpufreq_why(buf, len, name, err);
    return n;
}

static void governors(char *buf, size_t len)
{
    char seen[4][32];
    int nseen = 0, n = 0, err = 0, more = 0;
    for (long c = 0; c < cpus_configured(); c++) {
        char path[128], val[32];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/cpufreq/scaling_governor", c);
        int rc = read_line(path, val, sizeof val);
        if (rc < 0) {
            err = err ? err : -rc;
            continue;
        }
        n++;
        int k = 0;
        while (k < nseen && strcmp(seen[k], val) != 0)
            k++;
        if (k == nseen && nseen < 4)
            memcpy(seen[nseen++], val, sizeof val);
        else if (k == nseen)
            more = 1;
    }
    if (n == 0) {
        cpufreq_why(buf, len, "scaling_governor", err);
        return;
    }
    buf[0] = '\0';
    for (int k = 0; k < nseen; k++) {
        if (k)
            append(buf, len, ",");
        append(buf, len, seen[k]);
    }
    if (nseen > 1 || more)
        append(buf, len, more ? ",... (mixed)" : " (mixed)");
}

static void host_facts(mbx_host_facts *h)
{
    char why[48] = "";
    hwloc_topology_t t = mbx_hwtopo_get(why, sizeof why);

    if (cpuinfo_field("model name", h->cpu_model, sizeof h->cpu_model, NULL, NULL) <= 0) {
        hwloc_obj_t pkg = t ? hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, 0) : NULL;
        const char *m = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
        if (m) {
            snprintf(h->cpu_model, sizeof h->cpu_model, "%s", m);
            trim(h->cpu_model);
        } else {
            unavailable(h->cpu_model, sizeof h->cpu_model,
                        "no model name in /proc/cpuinfo or hwloc");
        }
    }

    governors(h->governor, sizeof h->governor);
    if (cpufreq_mhz("scaling_cur_freq", h->mhz_cur, sizeof h->mhz_cur) > 0) {
        snprintf(h->mhz_source, sizeof h->mhz_source, "sysfs cpufreq scaling_cur_freq");
    } else {
        double lo = 0, hi = 0;
        if (cpuinfo_field("cpu MHz", NULL, 0, &lo, &hi) > 0) {
            mhz_text(h->mhz_cur, sizeof h->mhz_cur, lo, hi);
            snprintf(h->mhz_source, sizeof h->mhz_source, "/proc/cpuinfo cpu MHz");
        } else {
            unavailable(h->mhz_cur, sizeof h->mhz_cur, "no cpufreq, no cpu MHz");
            unavailable(h->mhz_source, sizeof h->mhz_source,
                        "neither sysfs cpufreq nor /proc/cpuinfo cpu MHz");
        }
    }
    (void)cpufreq_mhz("cpuinfo_min_freq", h->mhz_min, sizeof h->mhz_min);
    (void)cpufreq_mhz("cpuinfo_max_freq", h->mhz_max, sizeof h->mhz_max);

    uint64_t bytes;
    unsigned depth, line;
    if (mbx_hwtopo_llc(&bytes, &depth, &line, why, sizeof why) == 0) {
        h->llc_bytes = bytes;
        snprintf(h->llc, sizeof h->llc, "%llu KiB L%u, %u B lines (hwloc)",
                 (unsigned long long)(bytes / 1024), depth, line);
    } else {
        unavailable(h->llc, sizeof h->llc, why);
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
    binding_text(me.binding, sizeof me.binding, &me.bound, &me.package);
    me.mem_avail = mem_available();
    me.cpu_seconds = cpu_seconds();
    MPI_Comm_rank(e->node, &me.node_rank);
    MPI_Comm_size(e->node, &me.node_size);
    if (me.node_rank == 0) {
        host_facts(&me.facts);
        me.has_facts = 1;
    }

    mbx_rank_info *all = NULL;
    if (e->rank == 0) {
        all = calloc((size_t)e->size, sizeof *all);
        if (!all)
            return MBX_E_NOMEM; /* the gather below would hang; rank 0 is alone here */
    }
    int mrc = MPI_Gather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, 0, e->cmd);
    if (mrc != MPI_SUCCESS) {
        free(all);
        return MBX_MPI_FAIL(e, mrc, "MPI_Gather");
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

int mbx_threads_exec(mbx_engine *e)
{
    mbx_thread_bind me;
    memset(&me, 0, sizeof me);
    int points = 0, failed = 0;
    mbx_threads_binding_counts(&points, &failed, me.failure, sizeof me.failure);
    (void)mbx_threads_binding(me.last, sizeof me.last);
    me.points = points;
    me.failed = failed;
    /* Rank 0 made e->thr before broadcasting the command. */
    int mrc = MPI_Gather(&me, (int)sizeof me, MPI_BYTE, e->rank == 0 ? e->thr : NULL,
                         (int)sizeof me, MPI_BYTE, 0, e->cmd);
    return mrc == MPI_SUCCESS ? MBX_OK : MBX_MPI_FAIL(e, mrc, "MPI_Gather");
}

int mbx_engine_thread_binding(mbx_engine *e, const mbx_thread_bind **out)
{
    if (!e || e->rank != 0 || !out)
        return MBX_E_INVAL;
    if (!e->thr && !(e->thr = calloc((size_t)e->size, sizeof *e->thr)))
        return MBX_E_NOMEM; /* before the command: no rank waits in the gather */
    mbx_cmd c = {.opcode = MBX_OP_THREADS};
    int rc = mbx_engine_submit(e, &c, NULL);
    if (rc < 0)
        return rc;
    *out = e->thr;
    return MBX_OK;
}
