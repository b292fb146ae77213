/* Benchmark selection against the registry (benchsel.h): --bench and a
 * plan's `bench =`, and `mpibex list`. */
#include "benchsel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/opt.h"
#include "mbx/bench.h"
#include "mbx/names.h"
#include "tprint.h"

/* The registry's names, in its order (a static table, built once). */
static const char *const *registry_names(size_t *n)
{
    static const char *names[512];
    static size_t count;
    if (count == 0)
        for (size_t i = 0; i < mbx_bench_count() && count < 512; i++)
            names[count++] = mbx_bench_get((int)i)->name;
    *n = count;
    return names;
}

/* OSU's and IMB's names whose mpibex name is not their own word (the
 * others, "Bcast", "allreduce", "osu_iallreduce", are found by it: see
 * foreign_name). From the peers' documented benchmark lists; lower case. */
static const struct {
    const char *foreign, *ours;
} foreign_names[] = {
    {"osu_latency", "pingpong.send_recv"},
    {"osu_latency_mt", "pingpong.mt"},
    {"osu_bw", "bw.uni"},
    {"osu_bibw", "bw.bi"},
    {"osu_mbw_mr", "bw.multi"},
    {"osu_put_latency", "rma.put"},
    {"osu_get_latency", "rma.get"},
    {"osu_acc_latency", "rma.acc"},
    {"osu_put_bw", "rma.put_bw"},
    {"osu_get_bw", "rma.get_bw"},
    {"pingpong", "pingpong.send_recv"},
    {"uniband", "bw.uni"},
    {"biband", "bw.bi"},
    {"exchange", "bw.exchange"},
    {"unidir_put", "rma.put_bw"},
    {"unidir_get", "rma.get_bw"},
    {"accumulate", "rma.acc"},
};

/* The registry name an OSU or IMB name stands for ("osu_bw": bw.uni;
 * "PingPong": pingpong.send_recv; "Bcast", "allreduce", "osu_allreduce":
 * the one name whose part after the dot is the word, a collective first),
 * or NULL. Only asked about an item that selects nothing, so a name of
 * mpibex's own is never turned into another. */
static const char *foreign_name(const char *item)
{
    char low[64];
    size_t len = strlen(item);
    if (len >= sizeof low || mbx_name_is_glob(item))
        return NULL;
    for (size_t i = 0; i <= len; i++)
        low[i] = (char)(item[i] >= 'A' && item[i] <= 'Z' ? item[i] - 'A' + 'a' : item[i]);
    int id;
    if (strcmp(low, item) != 0 && mbx_bench_find(low, &id) == MBX_OK)
        return mbx_bench_get(id)->name; /* "Coll.Bcast" */
    for (size_t k = 0; k < sizeof foreign_names / sizeof foreign_names[0]; k++)
        if (strcmp(low, foreign_names[k].foreign) == 0)
            return foreign_names[k].ours;
    const char *word = strncmp(low, "osu_", 4) == 0 ? low + 4 : low, *hit = NULL;
    for (size_t i = 0; i < mbx_bench_count(); i++) {
        const char *name = mbx_bench_get((int)i)->name, *dot = strchr(name, '.');
        if (dot && strcmp(dot + 1, word) == 0) {
            if (strncmp(name, "coll.", 5) == 0)
                return name;
            hit = hit ? hit : name;
        }
    }
    return hit;
}

/* The selection of items[0..nitems) into ids; 0, or -1 with why. An item
 * that selects nothing but is an OSU or IMB name gets its registry name
 * as the suggestion (did you mean coll.allreduce?). */
static int select_ids(const char *const *items, size_t nitems, int *ids, size_t cap, size_t *nout,
                      mbx_select_why *why)
{
    size_t n;
    const char *const *names = registry_names(&n);
    if (mbx_name_select(names, n, items, nitems, ids, cap, nout, why) == 0)
        return 0;
    mbx_select_why one;
    const char *gone[64], *gone_why[64];
    size_t ngone = 0;
    while (ngone < 64 && mbx_bench_absent(ngone, &gone[ngone], &gone_why[ngone]))
        ngone++;
    for (size_t k = 0; k < nitems; k++) {
        /* A benchmark this build lacks: say why, not "unknown". */
        int gid[64];
        size_t ng = 0;
        if (mbx_name_select(names, n, &items[k], 1, ids, cap, nout, &one) < 0 &&
            mbx_name_select(gone, ngone, &items[k], 1, gid, 64, &ng, &one) == 0 && ng > 0) {
            snprintf(why->what, sizeof why->what, "'%s' is not in this build: %s", items[k],
                     gone_why[gid[0]]);
            why->suggest[0] = '\0';
            return -1;
        }
    }
    for (size_t k = 0; k < nitems; k++) {
        const char *ours = foreign_name(items[k]);
        if (ours != NULL && mbx_name_select(names, n, &items[k], 1, ids, cap, nout, &one) < 0) {
            snprintf(why->what, sizeof why->what, "unknown benchmark '%s'", items[k]);
            snprintf(why->suggest, sizeof why->suggest, "%s", ours);
            break;
        }
    }
    return -1;
}

int mbx_benchsel_plan(mbx_plan *plan, char *msg, size_t len)
{
    for (size_t m = 0; m < plan->nmeas; m++) {
        mbx_measurement *me = &plan->meas[m];
        const char *items[MBX_PLAN_MAX_BENCH];
        int ids[MBX_PLAN_MAX_BENCH];
        size_t nids = 0;
        mbx_select_why why;
        for (size_t b = 0; b < me->nbench; b++)
            items[b] = me->bench[b];
        if (select_ids(items, me->nbench, ids, MBX_PLAN_MAX_BENCH, &nids, &why) < 0) {
            snprintf(msg, len, "bench: %s in [%s]%s%s%s (see 'mpibex list' for the %zu available)",
                     why.what, me->label, why.suggest[0] ? "; did you mean " : "", why.suggest,
                     why.suggest[0] ? "?" : "", mbx_bench_count());
            return 2;
        }
        /* Zeroed past each name, as the plan's parser leaves them. */
        memset(me->bench, 0, sizeof me->bench);
        for (size_t k = 0; k < nids; k++)
            snprintf(me->bench[k], sizeof me->bench[k], "%s", mbx_bench_get(ids[k])->name);
        me->nbench = nids;
    }
    return 0;
}

void mbx_list_usage(void)
{
    printf("Usage: mpibex list [GLOB...]\n"
           "\n"
           "Every benchmark of this build, one line each: its name, pattern, the least\n"
           "ranks it needs and what it measures. With arguments, only the benchmarks\n"
           "they select, as --bench does: a name (pingpong.send_recv), a group (pingpong:\n"
           "every pingpong.*) or a glob (coll.*, coll.i*, 'pingpong.[is]*'; quote it\n"
           "from the shell). An argument that selects nothing is an error (exit 2).\n"
           "Without arguments, the benchmarks this build lacks (its MPI library lacks\n"
           "their calls) follow under '# not in this build', each with the reason.\n"
           "\n"
           "  -h, --help   this help\n");
}

typedef struct list_args {
    const char **items;
    size_t n;
} list_args;

static const mbx_opt_out said = {.prefix = "mpibex list: ", .print = mbx_tprint_line};

static int on_item(mbx_opt_parser *p, const char *word)
{
    list_args *a = p->dst;
    a->items[a->n++] = word;
    return 0;
}

static const mbx_opt list_opts[] = {
    {"--help", "-h", NULL, 0, mbx_opt_help, 0},
};

/* What this build lacks, after the full list. */
static void print_absent(void)
{
    const char *name, *why;
    for (size_t i = 0; mbx_bench_absent(i, &name, &why); i++)
        printf("%s%-26s not in this build: %s\n", i == 0 ? "#\n# not in this build\n" : "", name,
               why);
}

static void print_rows(const int *ids, size_t n)
{
    int w = 11;
    for (size_t i = 0; i < n; i++) {
        int len = (int)strlen(mbx_bench_get(ids[i])->name);
        w = len > w ? len : w;
    }
    printf("%-*s %-9s %-5s %s\n", w, "# benchmark", "pattern", "ranks", "description");
    for (size_t i = 0; i < n; i++) {
        const mbx_bench *b = mbx_bench_get(ids[i]);
        printf("%-*s %-9s >=%-3d %s\n", w, b->name, b->pattern, b->min_procs, b->summary);
    }
}

int mbx_list_cmd(int argc, char **argv)
{
    size_t nreg = mbx_bench_count();
    list_args a = {.items = calloc((size_t)argc + 1, sizeof *a.items)};
    int *ids = calloc(nreg + 1, sizeof *ids);
    int rc = 0;
    if (a.items == NULL || ids == NULL) {
        rc = mbx_opt_bad(&said, "out of memory");
        goto done;
    }
    mbx_opt_parser p = {.opts = list_opts,
                        .nopts = MBX_OPT_COUNT(list_opts),
                        .flags = MBX_OPT_DASHDASH,
                        .dst = &a,
                        .out = said,
                        .unknown = "unknown option '%s' (see 'mpibex list --help')",
                        .operand = on_item};
    if ((rc = mbx_opt_parse(&p, argc, argv, 0)) != 0)
        goto done;
    if (p.help) {
        mbx_list_usage();
        goto done;
    }
    size_t n = 0;
    if (a.n == 0) {
        for (; n < nreg; n++)
            ids[n] = (int)n;
    } else {
        mbx_select_why why;
        if (select_ids(a.items, a.n, ids, nreg, &n, &why) < 0) {
            rc = why.suggest[0] ? mbx_opt_bad(&said, "%s; did you mean %s?", why.what, why.suggest)
                                : mbx_opt_bad(&said, "%s (see 'mpibex list')", why.what);
            goto done;
        }
    }
    print_rows(ids, n);
    if (a.n == 0)
        print_absent();
done:
    free(a.items);
    free(ids);
    return rc;
}

int mbx_benchsel_sized(const char *name)
{
    int id;
    if (name == NULL || mbx_bench_find(name, &id) != MBX_OK)
        return -1;
    return (mbx_bench_get(id)->flags & MBX_BENCH_SIZED) ? 1 : 0;
}
