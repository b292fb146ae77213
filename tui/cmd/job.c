#include "job.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pmi.h"

/* MPI_Finalize has this long: every result is written before it starts,
 * so a rank stuck there (an MPI's own deadlock, see finalize_stalls) leaves
 * with the exit code it was going to return. */
#define FINALIZE_TIMEOUT_S 10

static volatile sig_atomic_t finalize_code;

static void finalize_timeout(int sig)
{
    (void)sig;
    _exit(finalize_code);
}

static int thread_asked = MPI_THREAD_SINGLE, thread_granted = MPI_THREAD_SINGLE;

int mbx_job_thread_level_parse(const char *word)
{
    static const struct {
        const char *word;
        int level;
    } levels[] = {{"single", MPI_THREAD_SINGLE},
                  {"funneled", MPI_THREAD_FUNNELED},
                  {"serialized", MPI_THREAD_SERIALIZED},
                  {"multiple", MPI_THREAD_MULTIPLE}};
    for (size_t i = 0; word && i < sizeof levels / sizeof *levels; i++)
        if (strcmp(word, levels[i].word) == 0)
            return levels[i].level;
    return -1;
}

/* The level --thread-level asks for. Every rank reads its own argv before
 * MPI exists, so a bad or missing value only falls back to single here:
 * rank 0's front end rejects it after start-up, with the usual message. */
static int level_from_argv(int argc, char **argv)
{
    static const char opt[] = "--thread-level";
    const size_t n = sizeof opt - 1;
    int level = MPI_THREAD_SINGLE;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (strcmp(a, "--") == 0)
            break;
        if (strncmp(a, opt, n) == 0 && a[n] == '=')
            v = a + n + 1;
        else if (strcmp(a, opt) == 0 && i + 1 < argc)
            v = argv[++i];
        int l = mbx_job_thread_level_parse(v);
        if (v)
            level = l >= 0 ? l : MPI_THREAD_SINGLE;
    }
    return level;
}

/* Whether this job's MPI_Finalize can deadlock: MPICH 4.0 with the UCX
 * device (Debian 12's 4.0.2 and UCX 1.13) in a job across hosts. Its
 * Finalize closes every UCX endpoint, waits until the closes complete and
 * only then enters a PMI barrier; a rank waiting in that barrier no longer
 * progresses UCX, so a peer whose close still needs it waits for ever
 * (later MPICH holds the barrier before the closes). bw.multi on 4 ranks
 * across two network-namespace hosts stalled there in 5 of 14 runs, 10 s
 * until FINALIZE_TIMEOUT_S, and hydra then failed the job (exit 255) when
 * the barrier completed towards a rank that had left. Collective: every
 * rank calls it and all get the same answer (one library, and a job spans
 * hosts for every rank or for none). */
static int finalize_stalls(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    int known = MPI_Get_library_version(v, &len) == MPI_SUCCESS;
    const char *ver = known ? strstr(v, "MPICH Version:") : NULL;
    if (ver)
        ver += strlen("MPICH Version:");
    while (ver && (*ver == ' ' || *ver == '\t'))
        ver++;
    int buggy = ver && strncmp(ver, "4.0", 3) == 0 &&
                (ver[3] == '.' || ver[3] == '\n' || ver[3] == '\0') && strstr(v, "ch4:ucx") != NULL;
    if (!buggy) /* every rank: one library */
        return 0;
    MPI_Comm node;
    int world = 1, local = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) !=
        MPI_SUCCESS)
        return 0;
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
    return local < world;
}

int mbx_job_thread_asked(void)
{
    return thread_asked;
}

int mbx_job_thread_granted(void)
{
    return thread_granted;
}

int mbx_job_run(int argc, char **argv, mbx_root_fn root)
{
    return mbx_job_run_at(argc, argv, level_from_argv(argc, argv), root);
}

int mbx_job_run_at(int argc, char **argv, int level, mbx_root_fn root)
{
    /* Before MPI_Init: Ctrl-C during start-up is handled too. hydra
     * forwards Ctrl-C to every rank; rank 0 decides, and a signal sent to
     * another rank alone reaches rank 0 with the next batch. */
    mbx_sig_catch(1);
    /* MPI_THREAD_MULTIPLE costs every message up to a few per cent in
     * MPICH, so it is asked for only when the user says so. */
    thread_asked = level;
    MPI_Init_thread(NULL, NULL, thread_asked, &thread_granted);
    mbx_engine *e = NULL;
    if (mbx_engine_create(MPI_COMM_WORLD, &e) < 0) {
        fprintf(stderr, "mpibex: cannot set up the MPI engine\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    mbx_engine_watch_stop(e, &mbx_stop_signal);
    int code = 0, root_rank = mbx_engine_rank(e) == 0;
    if (!root_rank) {
        int rc = mbx_engine_serve(e, &code);
        if (rc < 0) {
            fprintf(stderr, "mpibex: rank %d: command loop failed: %s\n", mbx_engine_rank(e),
                    mbx_strerror(rc));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    } else {
        mbx_sig_watch(1);
        code = root(e, argc, argv);
        mbx_sig_watch(0);
        /* Every rank returns rank 0's code: a failed standard output counts. */
        code = mbx_sig_check_stdout(code);
        if (mbx_engine_quit(e, code) < 0) {
            fprintf(stderr, "mpibex: could not stop the other ranks\n");
            MPI_Abort(MPI_COMM_WORLD, code ? code : 1);
        }
    }
    mbx_engine_destroy(e);
    /* MPICH 4.0.2 with UCX over TCP (every job across hosts) disconnects
     * before its PMI barrier in MPI_Finalize: a rank that arrives late (an
     * idle rank polling with a back-off) then waits forever for a peer that
     * stopped progressing. Arriving together avoids it. */
    MPI_Barrier(MPI_COMM_WORLD);
    /* Where MPI_Finalize can deadlock, the ranks leave together after that
     * barrier instead, every result written and the output flushed: each
     * tells the process manager it is done (mbx_pmi_finalize, what MPI_Finalize
     * would have sent last), and the closed connections end nothing a peer
     * still needs. _exit, not exit: the libraries' exit handlers would tear
     * down UCX under live connections. */
    if (finalize_stalls()) {
        fflush(NULL);
        /* Without it hydra's proxy sees the PMI socket of a rank it still
         * counts as active close at the exit, and when it handles that
         * before reaping the rank (rarely, on a loaded machine) it records
         * the rank as failed with the raw status 1 and kills the job:
         * "Hangup (signal 1)", exit 1, after every result was written. */
        (void)mbx_pmi_finalize(5000);
        _exit(mbx_sig_late(code, root_rank, NULL));
    }
    finalize_code = code;
    mbx_sig_watch(0);
    signal(SIGALRM, finalize_timeout);
    alarm(FINALIZE_TIMEOUT_S);
    MPI_Finalize();
    alarm(0);
    /* A Ctrl-C while the ranks wound down (after root's last look). */
    return mbx_sig_late(code, root_rank, NULL);
}
