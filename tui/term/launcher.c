#include "launcher.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/opt.h"
#include "launcher_job.h"
#include "mbx/version.h"

#define MAX_RANKS 4096
#define PROBE_MS 5000 /* for the launcher's --version */

enum { BRIDGE_AUTO, BRIDGE_TTY, BRIDGE_SOCKET };

typedef struct opts {
    long n;
    int bridge, help;
    const char *launcher, *bridge_addr, *log;
    char **pass; /* explorer options, in order */
    int npass;
} opts;

int mbx_launcher_outside_mpi(void)
{
    static const char *const vars[] = {"PMI_RANK", "PMI_SIZE", "PMIX_RANK", "OMPI_COMM_WORLD_SIZE",
                                       "MPI_LOCALRANKID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i]))
            return 0;
    /* SLURM_PROCID alone is also set in a batch script, outside any step. */
    return !(getenv("SLURM_PROCID") && getenv("SLURM_STEP_ID"));
}

static void usage(void)
{
    printf("usage: mpibex [-n N] [--launcher CMD] [--bridge auto|tty|socket]\n"
           "              [--bridge-addr ADDR] [--log FILE] [explorer options]\n"
           "\n"
           "Starts the explorer as an MPI job of N ranks and gives rank 0 this terminal.\n"
           "\n"
           "  -n N                ranks, 1..%d (default 2)\n"
           "  --launcher CMD      how to start the job (default $MBX_LAUNCHER, else\n"
           "                      in a Slurm allocation (SLURM_JOB_ID) srun, else\n"
           "                      %s, the one mpibex was built for);\n"
           "                      \"%%n\" in CMD becomes N, otherwise \"-n N\" is appended\n"
           "  --bridge MODE       how rank 0 reaches this terminal: tty (opens it by name,\n"
           "                      same host only), socket (relayed over TCP with a one-time\n"
           "                      token), auto (offers both; the default)\n"
           "  --bridge-addr ADDR  address or name to listen on; rank 0 is given the\n"
           "                      numeric address bound (default: every interface,\n"
           "                      announced as this host's name)\n"
           "  --log FILE          every rank's output (default: a new file in\n"
           "                      $XDG_STATE_HOME/mpibex/ or ~/.local/state/mpibex/;\n"
           "                      without a home, a private directory in $TMPDIR)\n"
           "  -h, --help          this help\n"
           "\n"
           "Explorer options are listed by 'mpibex explore --help'.\n"
           "For batch runs without a terminal: mpiexec -n N mpibex run PLAN.ini\n",
           MAX_RANKS, MBX_MPIEXEC);
}

static void print_raw(const char *prefix, const char *line)
{
    fprintf(stderr, "%s%s\n", prefix, line);
}

/* Bad input: "mpibex: " and one line on stderr (exit 2). */
static const mbx_opt_out said = {.prefix = "mpibex: ", .print = print_raw};

/* "OPT: REASON; allowed ALLOWED"; reason may hold one %s, filled with got
 * (the reason is cut at 255 bytes, as it always was). */
static int refuse(const char *opt, const char *reason, const char *got, const char *allowed)
{
    char why[256];
    snprintf(why, sizeof why, reason, got ? got : "");
    return mbx_opt_bad(&said, "%s: %s; allowed %s", opt, why, allowed);
}

/* The line for an OSU or IMB flag (word), quoting the value typed with it
 * or after it ("-m 8:65536" is "--sizes 8:64KiB"); returns 2. */
static int habit(mbx_opt_parser *p, const char *word)
{
    char hint[512];
    mbx_opt_habit_line(mbx_opt_habit(word), word, p->following, hint, sizeof hint);
    return mbx_opt_bad(&p->out, "%s", hint);
}

static int on_n(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    static const char *const allowed_n = "1..4096";
    opts *x = p->dst;
    char *end;
    (void)o, (void)name;
    if (!v)
        return refuse("-n", "missing value", NULL, allowed_n);
    /* IMB's -npmin and -npmax start as -n with a glued value. */
    char word[64];
    snprintf(word, sizeof word, "-n%s", v);
    if (p->attached && mbx_opt_habit(word) != NULL)
        return habit(p, word);
    errno = 0;
    x->n = strtol(v, &end, 10);
    if (*v == '\0' || *end != '\0' || errno)
        return refuse("-n", "'%s' is not a whole number", v, allowed_n);
    if (x->n < 1 || x->n > MAX_RANKS)
        return refuse("-n", "%s is out of range", v, allowed_n);
    return 0;
}

static int on_launcher(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    (void)o, (void)name;
    if (!v || strspn(v, " \t\n") == strlen(v))
        return refuse("--launcher", "missing command", NULL, "a command such as 'mpiexec'");
    ((opts *)p->dst)->launcher = v;
    return 0;
}

static int on_bridge(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    static const char *const modes[] = {"auto", "tty", "socket"}; /* BRIDGE_* */
    (void)o, (void)name;
    if (!v)
        return refuse("--bridge", "missing value", NULL, "auto, tty, socket");
    for (int k = 0; k < 3; k++) {
        if (strcmp(v, modes[k]) == 0) {
            ((opts *)p->dst)->bridge = k;
            return 0;
        }
    }
    return refuse("--bridge", "unknown mode '%s'", v, "auto, tty, socket");
}

static int on_bridge_addr(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    (void)o, (void)name;
    if (!v || !*v)
        return refuse("--bridge-addr", "missing value", NULL, "an address or name of this host");
    ((opts *)p->dst)->bridge_addr = v;
    return 0;
}

static int on_log(mbx_opt_parser *p, const mbx_opt *o, const char *name, const char *v)
{
    (void)o, (void)name;
    if (!v || !*v)
        return refuse("--log", "missing value", NULL, "a file path");
    ((opts *)p->dst)->log = v;
    return 0;
}

/* A word for the explorer. An OSU or IMB flag (opt.h: the explorer has
 * none of them) is answered here, before a job starts, unless it is the
 * value of the explorer option before it. */
static int on_pass(mbx_opt_parser *p, const char *word)
{
    opts *x = p->dst;
    if (mbx_opt_habit(word) != NULL &&
        (x->npass == 0 || strncmp(x->pass[x->npass - 1], "--", 2) != 0))
        return habit(p, word);
    x->pass[x->npass++] = (char *)word;
    return 0;
}

static const mbx_opt launcher_opts[] = {
    {"--help", "-h", NULL, 0, NULL, offsetof(opts, help)},
    {NULL, "-n", "N", MBX_OPT_GLUED, on_n, 0},
    {"--launcher", NULL, "CMD", MBX_OPT_EQ, on_launcher, 0},
    {"--bridge", NULL, "MODE", MBX_OPT_EQ, on_bridge, 0},
    {"--bridge-addr", NULL, "ADDR", MBX_OPT_EQ, on_bridge_addr, 0},
    {"--log", NULL, "FILE", MBX_OPT_EQ, on_log, 0},
};

static int parse(int argc, char **argv, opts *o)
{
    mbx_opt_parser p = {.opts = launcher_opts,
                        .nopts = MBX_OPT_COUNT(launcher_opts),
                        .dst = o,
                        .out = said,
                        .operand = on_pass,
                        .pass_unknown = 1};
    return mbx_opt_parse(&p, argc, argv, 1);
}

/* Splits on blanks (no quoting: a launcher that needs it can be a script).
 * Each "%n" becomes nstr; *has_n tells whether any word had one. */
static int split_words(const char *s, const char *nstr, char **out, int max, int *has_n)
{
    int count = 0;
    while (*s) {
        size_t len = strcspn(s, " \t\n");
        if (len > 0) {
            char *w = malloc(len * (strlen(nstr) + 1) + 1), *p = w;
            if (!w || count == max) {
                free(w);
                return -1;
            }
            for (size_t k = 0; k < len; k++) {
                if (s[k] == '%' && k + 1 < len && s[k + 1] == 'n') {
                    p += sprintf(p, "%s", nstr);
                    k++;
                    *has_n = 1;
                } else {
                    *p++ = s[k];
                }
            }
            *p = '\0';
            out[count++] = w;
            s += len;
        } else {
            s++;
        }
    }
    return count;
}

static void free_argv(char **argv)
{
    for (char **a = argv; a && *a; a++)
        free(*a);
    free(argv);
}

/* Inside a Slurm allocation (salloc's shell, an sbatch script: SLURM_JOB_ID
 * is set) the job is started by srun, not mpiexec: srun starts every rank
 * itself on the allocation's nodes, with the CPU binding Slurm chose, as a
 * step that squeue shows and scancel and the time limit end. MPICH's
 * libmpi speaks the PMI-1 wire protocol, which Slurm's mpi/pmi2 plugin
 * serves; Open MPI's needs PMIx. --mpi is named because a site's
 * MpiDefault is often "none". --quit-on-interrupt: one SIGINT (Ctrl-C,
 * or the launcher passing one on) ends the step, as it does under
 * mpiexec; plain srun only prints the step's state and waits for a
 * second within a second. (hydra's -bootstrap slurm would work too, but
 * adds a proxy per node between srun and the ranks.) */
const char *mbx_launcher_default(void)
{
    const char *job = getenv("SLURM_JOB_ID");
    if (!job || !*job)
        return MBX_MPIEXEC;
    if (strcmp(MBX_MPI_FLAVOUR, "mpich") == 0)
        return "srun --mpi=pmi2 --quit-on-interrupt";
    if (strcmp(MBX_MPI_FLAVOUR, "openmpi") == 0)
        return "srun --mpi=pmix --quit-on-interrupt";
    return "srun --quit-on-interrupt";
}

int mbx_launcher_words(const char *cmd, long n, char **out, int max)
{
    const char *env = getenv("MBX_LAUNCHER");
    char nstr[16];
    int has_n = 0, k;
    if (!cmd)
        cmd = env && *env ? env : mbx_launcher_default();
    snprintf(nstr, sizeof nstr, "%ld", n);
    if ((k = split_words(cmd, nstr, out, max - 2, &has_n)) <= 0)
        return -1;
    if (!has_n) {
        out[k++] = strdup("-n");
        out[k++] = strdup(nstr);
    }
    return k;
}

/* Whether prog is Open MPI's mpirun, which gives ranks on other hosts only
 * the variables named with -x (hydra and srun pass the whole environment).
 * The launcher mpibex was built for is known; any other is asked for its
 * --version, which names "Open MPI" (or "OpenRTE" before 5.0), within
 * PROBE_MS. */
static int is_open_mpi(const char *prog)
{
    if (strcmp(prog, MBX_MPIEXEC) == 0)
        return strcmp(MBX_MPI_FLAVOUR, "openmpi") == 0;
    int p[2], devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0 || pipe(p) < 0) {
        if (devnull >= 0)
            close(devnull);
        return 0;
    }
    pid_t pid = fork();
    if (pid == 0) {
        if (dup2(devnull, 0) >= 0 && dup2(p[1], 1) >= 0 && dup2(p[1], 2) >= 0) {
            close(p[0]);
            close(p[1]);
            execlp(prog, prog, "--version", (char *)NULL);
        }
        _exit(127);
    }
    close(p[1]);
    close(devnull);
    char out[4096];
    size_t len = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long left = PROBE_MS; pid > 0 && len < sizeof out - 1 && left > 0;) {
        struct pollfd pf = {.fd = p[0], .events = POLLIN};
        int r = poll(&pf, 1, (int)left);
        if (r == 0 || (r < 0 && errno != EINTR))
            break;
        if (r > 0) {
            ssize_t n = read(p[0], out + len, sizeof out - 1 - len);
            if (n <= 0 && !(n < 0 && errno == EINTR))
                break; /* end of output, or an error */
            len += n > 0 ? (size_t)n : 0;
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        left =
            PROBE_MS - (long)((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
    }
    out[len] = '\0';
    close(p[0]);
    if (pid > 0) {
        kill(pid, SIGKILL); /* it may still run: a launcher that ignores --version */
        waitpid(pid, NULL, 0);
    }
    return strstr(out, "Open MPI") != NULL || strstr(out, "OpenRTE") != NULL;
}

/* launcher words [-n N] (SELF explore | $MBX_EXPLORE_CMD) explorer-options;
 * *nwords: how many launcher words come first. */
static char **build_argv(const opts *o, const char *self, int *nwords)
{
    const char *explore = getenv("MBX_EXPLORE_CMD");
    char nstr[16];
    int ignored = 0, k, m = 2;
    char **argv = calloc((size_t)o->npass + 200, sizeof *argv);
    snprintf(nstr, sizeof nstr, "%ld", o->n);
    if (!argv || (k = mbx_launcher_words(o->launcher, o->n, argv, 130)) <= 0) {
        free_argv(argv);
        return NULL;
    }
    /* Test hook, deliberately undocumented: MBX_EXPLORE_CMD replaces
     * "SELF explore", so the end-to-end tests can run a stand-in for the
     * explorer (tests/tui/term_echo.c) through the real launcher. */
    if (explore && *explore) {
        m = split_words(explore, nstr, argv + k, 64, &ignored);
    } else {
        argv[k] = strdup(self);
        argv[k + 1] = strdup("explore");
    }
    if (m <= 0) {
        free_argv(argv);
        return NULL;
    }
    *nwords = k;
    k += m;
    for (int i = 0; i < o->npass; i++)
        argv[k++] = strdup(o->pass[i]);
    for (int i = 0; i < k; i++) {
        if (!argv[i]) { /* a strdup failed: the list would end early */
            for (int j = i + 1; j < k; j++)
                free(argv[j]);
            free_argv(argv);
            return NULL;
        }
    }
    return argv;
}

int mbx_launcher_main(int argc, char **argv, const char *self)
{
    opts o = {.n = 2, .bridge = BRIDGE_AUTO};
    int rc;
    if (!(o.pass = calloc((size_t)argc + 1, sizeof *o.pass))) {
        fprintf(stderr, "mpibex: out of memory\n");
        return 1;
    }
    if ((rc = parse(argc, argv, &o)) != 0 || o.help) {
        if (o.help)
            usage();
        free(o.pass);
        return rc;
    }
    if (!isatty(0)) {
        fprintf(stderr,
                "mpibex: the explorer needs a terminal; for batch runs use: "
                "mpiexec -n %ld mpibex run PLAN.ini\n",
                o.n);
        free(o.pass);
        return 2;
    }
    int nwords = 0;
    char **job_argv = build_argv(&o, self, &nwords);
    if (!job_argv) {
        free(o.pass);
        return refuse("--launcher", "cannot build the command line from '%s'", o.launcher,
                      "a command such as 'mpiexec'");
    }
    mbx_ljob_spec spec = {.argv = job_argv,
                          .nwords = nwords,
                          .pass_env = is_open_mpi(job_argv[0]),
                          .tty = o.bridge != BRIDGE_SOCKET,
                          .socket = o.bridge != BRIDGE_TTY,
                          .bridge_addr = o.bridge_addr,
                          .log_path = o.log};
    rc = mbx_ljob_run(&spec);
    free_argv(job_argv);
    free(o.pass);
    return rc;
}
