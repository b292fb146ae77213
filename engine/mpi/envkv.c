/* The environment capture written beside every result (the .env.csv
 * sidecar): the tool and MPI library, the job's hosts and ranks, the timer,
 * the observation method and the cache state, and the library tuning
 * knobs of the environment. Only whitelisted environment variables are
 * recorded: library tuning knobs and a Slurm job's facts, never anything
 * else. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_internal.h"
#include "mbx/cache.h"
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

int mbx_engine_unbound(const mbx_engine *e, int *n, char *buf, size_t len)
{
    if (!e || !n || e->rank != 0 || !e->have_job || (!buf && len))
        return MBX_E_INVAL;
    *n = unbound_list(&e->job, buf, len);
    return MBX_OK;
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

/* The tool, its build and the MPI library. */
static int build_kv(mbx_kvlist *out)
{
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
    return MBX_OK;
}

/* The job: its ranks and hosts, each host's facts, each rank's binding. */
static int job_kv(mbx_kvlist *out, const mbx_job_info *job)
{
    TRY(mbx_kv_addf(out, "ranks", "%d", job->nranks));
    TRY(mbx_kv_addf(out, "hosts", "%d", job->nhosts));

    /* ranks_per_host: "hostA:2 hostB:2" in host order. */
    char rph[1024] = "";
    size_t used = 0;
    for (int h = 0; h < job->nhosts; h++)
        for (int r = 0; r < job->nranks; r++)
            if (job->rank[r].host_id == h) {
                int w = snprintf(rph + used, sizeof rph - used, "%s%s:%d", used ? " " : "",
                                 job->rank[r].host, job->rank[r].node_size);
                if (w > 0 && (size_t)w < sizeof rph - used)
                    used += (size_t)w;
                break;
            }
    TRY(mbx_kv_addf(out, "ranks_per_host", "%s", rph));
    TRY(mbx_kv_addf(out, "max_ranks_per_host", "%d", job->max_ranks_per_host));
    for (int h = 0; h < job->nhosts; h++)
        TRY(host_kv(out, job, h));
    for (int r = 0; r < job->nranks; r++) {
        char key[64];
        snprintf(key, sizeof key, "rank.%d.host", r);
        TRY(mbx_kv_addf(out, key, "%s", job->rank[r].host));
        snprintf(key, sizeof key, "rank.%d.binding", r);
        TRY(mbx_kv_addf(out, key, "%s%s", job->rank[r].binding,
                        job->rank[r].bound ? "" : " (unbound)"));
    }
    char list[512];
    int unbound = unbound_list(job, list, sizeof list);
    TRY(mbx_kv_addf(out, "ranks_unbound", "%d", unbound));
    TRY(mbx_kv_addf(out, "unbound", "%s", list));
    return MBX_OK;
}

/* The timer and what its calibration found. */
static int timer_kv(mbx_kvlist *out, const mbx_engine *e)
{
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
    return MBX_OK;
}

/* Window sync: the clock model and the windows' settings. */
static int window_kv(mbx_kvlist *out, const mbx_engine *e)
{
    const mbx_method *m = &e->method;
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
    TRY(mbx_kv_addf(out, "clock_sync_seconds", "%.4f", ci->duration));
    TRY(mbx_kv_addf(out, "clock_sync_max_offset_s", "%.3e", ci->max_offset));
    TRY(mbx_kv_addf(out, "clock_sync_rtt_min_s", "%.3e", ci->rtt_min));
    TRY(mbx_kv_addf(out, "clock_resync_s", "%g", m->resync > 0 ? m->resync : 10.0));
    if (m->window > 0)
        TRY(mbx_kv_addf(out, "window_s", "%.3e", m->window));
    else
        TRY(mbx_kv_addf(out, "window_s", "auto"));
    TRY(mbx_kv_addf(out, "window_delay_s", "%.3e", m->window_delay > 0 ? m->window_delay : 1e-3));
    return MBX_OK;
}

/* The observation method: the sync (with its window settings) and the
 * cache state. */
static int method_kv(mbx_kvlist *out, const mbx_engine *e)
{
    const mbx_method *m = &e->method;
    TRY(mbx_kv_addf(out, "sync", "%s", mbx_sync_name(m->sync)));
    if (m->sync == MBX_SYNC_WINDOW)
        TRY(window_kv(out, e));
    TRY(mbx_kv_addf(out, "cache", "%s", mbx_cache_name(m->cache)));
    if (m->cache == MBX_CACHE_COLD)
        TRY(mbx_kv_addf(out, "cache_flush_bytes", "%llu%s",
                        e->flusher ? (unsigned long long)((mbx_cache_flusher *)e->flusher)->bytes
                                   : 0ull,
                        m->cache_bytes ? " (--cache cold:SIZE)" : " (last-level cache, hwloc)"));
    /* What each measurement re-draws (docs/algorithms.md, "One point"). */
    TRY(mbx_kv_addf(out, "buffer_pool_sets", "%d", MBX_BUF_SETS));
    TRY(mbx_kv_addf(out, "buffer_placement", "%s",
                    "a pool set and send and receive offsets k*64 B, k in 0..63, drawn apart per "
                    "measurement"));
    static const char *const dup[] = {"never", "always", "budget"};
    TRY(mbx_kv_addf(out, "comm_dup", "%s", dup[e->dup_mode]));
    TRY(mbx_kv_addf(out, "comm_dup_share", "%g", MBX_COMM_DUP_SHARE));
    return MBX_OK;
}

/* env.NAME: the library tuning variables of this (rank 0's) environment. */
static int tuning_kv(mbx_kvlist *out)
{
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
    return MBX_OK;
}

/* env.SLURM_*: the facts of a Slurm job this run is a step of, from rank
 * 0's environment: which job and step, its nodes and tasks, and the CPU
 * binding Slurm gave (each rank's actual binding is rank.N.binding). A
 * list of names, not the prefix: Slurm's other variables name paths,
 * users, hosts and ports of the launch (SLURM_CONF, SLURM_SUBMIT_DIR,
 * SLURM_JOB_USER, SLURM_SRUN_COMM_HOST, ...), which a results file that
 * travels should not carry. */
static int slurm_kv(mbx_kvlist *out)
{
    static const char *const names[] = {"SLURM_CLUSTER_NAME",   "SLURM_JOB_ID",
                                        "SLURM_JOB_PARTITION",  "SLURM_JOB_NODELIST",
                                        "SLURM_JOB_NUM_NODES",  "SLURM_JOB_CPUS_PER_NODE",
                                        "SLURM_NTASKS",         "SLURM_TASKS_PER_NODE",
                                        "SLURM_CPUS_PER_TASK",  "SLURM_STEP_ID",
                                        "SLURM_STEP_NODELIST",  "SLURM_STEP_NUM_NODES",
                                        "SLURM_STEP_NUM_TASKS", "SLURM_STEP_TASKS_PER_NODE",
                                        "SLURM_DISTRIBUTION",   "SLURM_CPU_BIND",
                                        "SLURM_CPU_BIND_TYPE",  "SLURM_CPU_BIND_LIST",
                                        "SLURM_MPI_TYPE",       "SLURM_RESTART_COUNT"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *v = getenv(names[i]);
        if (v) {
            char key[64];
            snprintf(key, sizeof key, "env.%s", names[i]);
            TRY(mbx_kv_addf(out, key, "%s", v));
        }
    }
    return MBX_OK;
}

/* Each benchmark's own keys (its env hook), once per distinct hook. */
static int bench_kv(mbx_kvlist *out)
{
    for (size_t i = 0; i < mbx_bench_count(); i++) {
        int (*env)(struct mbx_kvlist *) = mbx_bench_get((int)i)->env, seen = 0;
        for (size_t j = 0; j < i && env && !seen; j++)
            seen = mbx_bench_get((int)j)->env == env;
        if (env && !seen)
            TRY(env(out));
    }
    return MBX_OK;
}

int mbx_engine_environment(mbx_engine *e, mbx_kvlist *out)
{
    if (!e || e->rank != 0 || !out || !e->have_job)
        return MBX_E_INVAL;
    TRY(build_kv(out));
    TRY(job_kv(out, &e->job));
    TRY(timer_kv(out, e));
    TRY(method_kv(out, e));
    TRY(tuning_kv(out));
    TRY(slurm_kv(out));
    TRY(bench_kv(out));
    return MBX_OK;
}
