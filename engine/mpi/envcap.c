/* The job description (every rank reports itself), the thread binding
 * records of the threaded benchmarks, and the environment capture written
 * beside every result. Only whitelisted environment variables are
 * recorded: library tuning knobs, never anything else. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "engine_internal.h"
#include "hwtopo.h"
#include "mbx/ascii.h"
#include "mbx/cache.h"
#include "mbx/threads.h"
#include "mbx/version.h"

extern char **environ;

static const char *const tuning_prefixes[] = {"MPICH_", "MPIR_CVAR_", "UCX_",  "OMPI_",
                                              "FI_",    "OMP_",       "GOMP_", "KMP_"};

/* Only the tuning prefixes above are ever read, and even under them a
 * name that says it holds a credential keeps its value out of the file
 * (a results file travels: papers, mailing lists, bug reports). */
static int secret_name(const char *name)
{
    static const char *const words[] = {"SECRET",     "TOKEN",   "PASSW",
                                        "CREDENTIAL", "PRIVATE", "AUTH_KEY"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strstr(name, words[i]))
            return 1;
    return 0;
}

/* Open MPI's mpirun gives every rank variables of its own under the same
 * prefix: which rank, which launch, where its session lives (OMPI_COMM_WORLD_RANK,
 * OMPI_ARGV, OMPI_MCA_ess_base_jobid, OMPI_MCA_orte_hnp_uri, ...). They name
 * the launch, not a setting, and would differ between any two runs; only
 * MCA parameters (OMPI_MCA_*) other than these are tuning. */
static int launch_bookkeeping(const char *var)
{
    static const char *const mpirun_mca[] = {"orte_", "ess", "pmix", "initial_wdir",
                                             "shmem_RUNTIME_QUERY_hint"};
    if (strncmp(var, "OMPI_", 5) != 0)
        return 0;
    if (strncmp(var, "OMPI_MCA_", 9) != 0)
        return 1;
    for (size_t i = 0; i < sizeof mpirun_mca / sizeof *mpirun_mca; i++)
        if (strncmp(var + 9, mpirun_mca[i], strlen(mpirun_mca[i])) == 0)
            return 1;
    return 0;
}

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
 * is narrower than the allowed CPUs (*bound = 1) the cores it covers. */
static void binding_text(char *buf, size_t len, int32_t *bound)
{
    char why[96] = "";
    *bound = 0;
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
    binding_text(me.binding, sizeof me.binding, &me.bound);
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
    if (MPI_Gather(&me, (int)sizeof me, MPI_BYTE, e->rank == 0 ? e->thr : NULL, (int)sizeof me,
                   MPI_BYTE, 0, e->cmd) != MPI_SUCCESS)
        return MBX_E_MPI;
    return MBX_OK;
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

/* Ranks with bound == 0 as a list "0-1,3"; returns how many. */
static int unbound_list(const mbx_job_info *job, char *buf, size_t len)
{
    int n = 0;
    size_t used = 0;
    if (buf && len)
        buf[0] = '\0';
    for (int r = 0; r < job->nranks; r++) {
        if (job->rank[r].bound)
            continue;
        int end = r;
        while (end + 1 < job->nranks && !job->rank[end + 1].bound)
            end++;
        n += end - r + 1;
        if (buf && used < len) {
            int w = end > r ? snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", r, end)
                            : snprintf(buf + used, len - used, "%s%d", used ? "," : "", r);
            used = w < 0 ? len : used + (size_t)w;
        }
        r = end;
    }
    return n;
}

int mbx_engine_unbound(const mbx_engine *e, char *buf, size_t len)
{
    if (!e || e->rank != 0 || !e->have_job || (!buf && len))
        return MBX_E_INVAL;
    return unbound_list(&e->job, buf, len);
}

#define TRY(x)                                                                                     \
    do {                                                                                           \
        int rc_ = (x);                                                                             \
        if (rc_ < 0)                                                                               \
            return rc_;                                                                            \
    } while (0)

/* host.H.*: the facts of host H as read there by its node_rank 0. */
static int host_kv(mbx_kvlist *out, const mbx_job_info *job, int h)
{
    const mbx_rank_info *ri = NULL;
    for (int r = 0; r < job->nranks && !ri; r++)
        if (job->rank[r].host_id == h && job->rank[r].has_facts)
            ri = &job->rank[r];
    for (int r = 0; r < job->nranks && !ri; r++)
        if (job->rank[r].host_id == h)
            ri = &job->rank[r]; /* no facts: only its name */
    if (!ri)
        return MBX_OK;
    static const mbx_host_facts none = {
        "unavailable (not collected)", "unavailable (not collected)",
        "unavailable (not collected)", "unavailable (not collected)",
        "unavailable (not collected)", "unavailable (not collected)",
        "unavailable (not collected)", 0};
    const mbx_host_facts *f = ri->has_facts ? &ri->facts : &none;
    const struct {
        const char *name, *value;
    } kv[] = {{"name", ri->host},
              {"cpu_model", f->cpu_model},
              {"cpu_governor", f->governor},
              {"cpu_mhz_cur", f->mhz_cur},
              {"cpu_mhz_min", f->mhz_min},
              {"cpu_mhz_max", f->mhz_max},
              {"cpu_mhz_source", f->mhz_source},
              {"llc", f->llc}};
    char key[64];
    for (size_t i = 0; i < sizeof kv / sizeof *kv; i++) {
        snprintf(key, sizeof key, "host.%d.%s", h, kv[i].name);
        TRY(mbx_kv_addf(out, key, "%s", kv[i].value));
    }
    snprintf(key, sizeof key, "host.%d.llc_bytes", h);
    if (f->llc_bytes > 0)
        TRY(mbx_kv_addf(out, key, "%llu", (unsigned long long)f->llc_bytes));
    else
        TRY(mbx_kv_addf(out, key, "%s", f->llc));
    return MBX_OK;
}

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
    for (int h = 0; h < e->job.nhosts; h++)
        TRY(host_kv(out, &e->job, h));
    for (int r = 0; r < e->job.nranks; r++) {
        char key[64];
        snprintf(key, sizeof key, "rank.%d.host", r);
        TRY(mbx_kv_addf(out, key, "%s", e->job.rank[r].host));
        snprintf(key, sizeof key, "rank.%d.binding", r);
        TRY(mbx_kv_addf(out, key, "%s%s", e->job.rank[r].binding,
                        e->job.rank[r].bound ? "" : " (unbound)"));
    }
    char list[512];
    int unbound = unbound_list(&e->job, list, sizeof list);
    TRY(mbx_kv_addf(out, "ranks_unbound", "%d", unbound));
    TRY(mbx_kv_addf(out, "unbound", "%s", list));
    TRY(mbx_kv_addf(out, "timer", "%s", mbx_timer_name(e->timer.kind)));
    TRY(mbx_kv_addf(out, "timer_method", "%s", mbx_timer_describe(e->timer.kind)));
    if (e->timer.kind == MBX_TIMER_TSC) {
        TRY(mbx_kv_addf(out, "timer_tsc_hz", "%.0f", e->timer.tsc_hz));
        TRY(mbx_kv_addf(out, "timer_tsc_calibration_spread", "%.1e", e->timer.tsc_spread));
    }
    TRY(mbx_kv_addf(out, "timer_nominal_resolution_s", "%.3e", e->timer.nominal_res));
    TRY(mbx_kv_addf(out, "timer_resolution_s", "%.3e", e->timer.resolution));
    TRY(mbx_kv_addf(out, "timer_overhead_s", "%.3e", e->timer.overhead));
    TRY(mbx_kv_addf(out, "timer_overhead_max_s", "%.3e", e->max_overhead));
    const mbx_method *m = &e->method;
    TRY(mbx_kv_addf(out, "sync", "%s", mbx_sync_name(m->sync)));
    if (m->sync == MBX_SYNC_WINDOW) {
        TRY(mbx_kv_addf(out, "clock_sync", "%s", mbx_clocksync_name(m->clock.method)));
        TRY(mbx_kv_addf(out, "clock_sync_fitpoints", "%d",
                        m->clock.fitpoints ? m->clock.fitpoints : 20));
        TRY(mbx_kv_addf(out, "clock_sync_exchanges", "%d",
                        m->clock.exchanges ? m->clock.exchanges : 10));
        const mbx_clock_info *ci = &e->clock_info;
        if (ci->identity)
            TRY(mbx_kv_addf(out, "clock_model", "identity (same boot_id, host-wide timer)"));
        else
            TRY(mbx_kv_addf(out, "clock_model", "fitted (slope kept on %d of %d ranks)",
                            ci->slopes_kept, e->size - 1));
        TRY(mbx_kv_addf(out, "clock_sync_span_s", "%g", m->clock.span > 0 ? m->clock.span : 1.0));
        TRY(mbx_kv_addf(out, "clock_drift_err", "%.3e", ci->drift_err));
        TRY(mbx_kv_addf(out, "window_limit_s", "%g", m->window_limit > 0 ? m->window_limit : 60.0));
        TRY(mbx_kv_addf(out, "clock_sync_seconds", "%.4f", e->clock_info.duration));
        TRY(mbx_kv_addf(out, "clock_sync_max_offset_s", "%.3e", e->clock_info.max_offset));
        TRY(mbx_kv_addf(out, "clock_sync_rtt_min_s", "%.3e", e->clock_info.rtt_min));
        TRY(mbx_kv_addf(out, "clock_resync_s", "%g", m->resync > 0 ? m->resync : 10.0));
        if (m->window > 0)
            TRY(mbx_kv_addf(out, "window_s", "%.3e", m->window));
        else
            TRY(mbx_kv_addf(out, "window_s", "auto"));
        TRY(mbx_kv_addf(out, "window_delay_s", "%.3e",
                        m->window_delay > 0 ? m->window_delay : 1e-3));
    }
    TRY(mbx_kv_addf(out, "cache", "%s", mbx_cache_name(m->cache)));
    if (m->cache == MBX_CACHE_COLD)
        TRY(mbx_kv_addf(out, "cache_flush_bytes", "%llu%s",
                        e->flusher ? (unsigned long long)((mbx_cache_flusher *)e->flusher)->bytes
                                   : 0ull,
                        m->cache_bytes ? " (--cache cold:SIZE)" : " (last-level cache, hwloc)"));
    for (char **v = environ; v && *v; v++)
        for (size_t p = 0; p < sizeof tuning_prefixes / sizeof *tuning_prefixes; p++) {
            size_t pl = strlen(tuning_prefixes[p]);
            const char *eq = strchr(*v, '=');
            if (eq && strncmp(*v, tuning_prefixes[p], pl) == 0 && !launch_bookkeeping(*v)) {
                char key[160];
                snprintf(key, sizeof key, "env.%.*s", (int)(eq - *v), *v);
                TRY(mbx_kv_addf(out, key, "%s", secret_name(key) ? "(not recorded)" : eq + 1));
                break;
            }
        }
    /* Each benchmark's own keys (its env hook), once per distinct hook. */
    for (size_t i = 0; i < mbx_bench_count(); i++) {
        int (*env)(struct mbx_kvlist *) = mbx_bench_get((int)i)->env, seen = 0;
        for (size_t j = 0; j < i && env && !seen; j++)
            seen = mbx_bench_get((int)j)->env == env;
        if (env && !seen)
            TRY(env(out));
    }
    return MBX_OK;
}
