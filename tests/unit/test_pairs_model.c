/* Unit tests of the node-pair model (engine/core/pairs.c,
 * engine/core/pairs_verdict.c, mbx/pairs.h; docs/algorithms.md, "Every
 * pair of nodes"): known effects recovered from a noiseless matrix; by
 * seeded simulation the share of matrices of alike nodes and links with
 * a false slow node or link, the coverage of the intervals, and the
 * power against a planted slow node and slow link; bad input; the fit's
 * time on 1024 nodes; a slow node found with 30 % of the cells missing.
 * The figures are printed with their Wilson 95 % intervals.
 * MBX_PAIRS_TRIALS (default 1000) and MBX_PAIRS_SCALE_NODES (1024) make
 * the runs under valgrind shorter; below 100 trials the rates are only
 * printed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "mbx/pairs.h"

/* Seeded, so a failure can be replayed: splitmix64 and Box-Muller. */
static uint64_t rng;

static uint64_t next64(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double unif(void)
{
    return (double)((next64() >> 11) + 1) * 0x1p-53; /* (0, 1] */
}

static double gauss(void)
{
    return sqrt(-2 * log(unif())) * cos(6.283185307179586 * unif());
}

static int env_int(const char *name, int dflt)
{
    const char *e = getenv(name);
    return e && atoi(e) > 0 ? atoi(e) : dflt;
}

/* Wilson 95 % interval of x successes in n trials. */
static void wilson(int x, int n, double *lo, double *hi)
{
    double z = 1.959964, p = (double)x / n, d = 1 + z * z / n;
    double c = (p + z * z / (2.0 * n)) / d;
    double h = z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / d;
    *lo = c - h, *hi = c + h;
}

/* A matrix as a run gives it: cell (i, j) runs 2 us x exp(u_i + u_j),
 * times link when {i, j} = {la, lb}; the estimate has lognormal noise of
 * sd 0.05, and its CI is +-1.96 times an sd estimated from 10 passes (9
 * degrees of freedom). With probability 0.05 a cell was measured in a
 * slow state of the machine: x1.15..x1.3, its CI widened down to where
 * the cell would have been (or, narrow, not widened: a state that lasted
 * all the cell's passes). A cell is missing with probability miss. */
typedef struct plant {
    const double *u; /* n log effects, NULL: none */
    int la, lb;      /* the slow link's pair, -1: none */
    double link;     /* its factor */
    double miss;
    int narrow; /* 1: a slow-state cell keeps its narrow CI */
} plant;

static size_t simulate(int n, const plant *pl, mbx_pairs_cell *cell)
{
    size_t c = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i == j)
                continue;
            double lv = log(2e-6) + 0.05 * gauss();
            if (pl && pl->u)
                lv += pl->u[i] + pl->u[j];
            if (pl && ((i == pl->la && j == pl->lb) || (i == pl->lb && j == pl->la)))
                lv += log(pl->link);
            double chi = 0;
            for (int t = 0; t < 9; t++) {
                double g = gauss();
                chi += g * g;
            }
            double half = 1.959964 * 0.05 * sqrt(chi / 9), widen = 0;
            if (unif() <= 0.05) {
                widen = log(1.15 + 0.15 * unif());
                lv += widen;
            }
            cell[c].src = i, cell[c].dst = j;
            cell[c].value = exp(lv);
            cell[c].lo = exp(lv - (pl && pl->narrow ? 0 : widen) - half);
            cell[c].hi = exp(lv + half);
            if (pl && pl->miss > 0 && unif() < pl->miss)
                cell[c].value = NAN;
            c++;
        }
    return c;
}

static mbx_pairs_cell *cells_for(int n)
{
    mbx_pairs_cell *c = malloc((size_t)n * (size_t)(n - 1) * sizeof *c);
    assert_non_null(c);
    return c;
}

static const mbx_pairs_node *node_of(const mbx_pairs_fit *f, int i)
{
    for (int k = 0; k < f->n; k++)
        if (f->node[k].node == i)
            return &f->node[k];
    fail();
    return NULL;
}

/* u = (+log 2, 0, 0, -log 2, 0, ...) without noise: the effects come
 * back to 1e-9, node 0 is slow, node 3 (fast) is not, no link is. */
static void known_effects(void **state)
{
    (void)state;
    for (int n = 4; n <= 8; n += 4) {
        double u[8] = {log(2), 0, 0, -log(2), 0, 0, 0, 0};
        mbx_pairs_cell *cell = cells_for(n);
        size_t c = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (i != j)
                    cell[c++] = (mbx_pairs_cell){i, j, 3e-6 * exp(u[i] + u[j]), NAN, NAN};
        mbx_pairs_fit f;
        char msg[200];
        assert_int_equal(mbx_pairs_fit_model(cell, c, n, NULL, &f, msg, sizeof msg), MBX_OK);
        assert_int_equal(f.n, n);
        assert_int_equal(f.cells, (int)c);
        assert_int_equal(f.df, (int)c - n);
        assert_float_equal(f.typical / 3e-6, 1, 1e-9);
        for (int i = 0; i < n; i++)
            assert_float_equal(node_of(&f, i)->effect, exp(u[i]), 1e-9);
        assert_int_equal(f.node[0].node, 0);
        assert_true(f.node[0].slow);
        assert_false(node_of(&f, 3)->slow);
        assert_int_equal(f.slow_nodes, 1);
        assert_int_equal(f.slow_links, 0);
        assert_float_equal(f.link[0].ratio, 1, 1e-9);
        assert_true(f.sigma <= 1e-6);
        assert_true(strlen(f.test) > 0 && strlen(f.test) < sizeof f.test);
        print_message("noiseless, %d nodes: effects %.9f %.9f %.9f %.9f, node 0 p %.2g; %s\n", n,
                      node_of(&f, 0)->effect, node_of(&f, 1)->effect, node_of(&f, 2)->effect,
                      node_of(&f, 3)->effect, node_of(&f, 0)->p, f.test);
        mbx_pairs_fit_free(&f);
        assert_null(f.node);
        free(cell);
    }
}

/* All nodes and links alike, 1000 matrices of each size: a false slow
 * node, or a false slow link, in at most 1 % of them. And the same when
 * the slow-state cells' CIs are not widened, the cells' own uncertainty
 * then not covering the slow state (at most 2 %): the tolerance and the
 * scale of the pair effects must carry it alone. */
static void all_alike(void **state)
{
    (void)state;
    int trials = env_int("MBX_PAIRS_TRIALS", 1000);
    for (int narrow = 0; narrow <= 1; narrow++)
        for (int n = 4; n <= 16; n *= 2) {
            mbx_pairs_cell *cell = cells_for(n);
            plant pl = {NULL, -1, -1, 1, 0, narrow};
            int fnode = 0, flink = 0;
            double sig = 0, top = 0;
            for (int t = 0; t < trials; t++) {
                rng = 0x5eed0000u + (uint64_t)(1000 * n + t);
                size_t c = simulate(n, &pl, cell);
                mbx_pairs_fit f;
                char msg[200];
                assert_int_equal(mbx_pairs_fit_model(cell, c, n, NULL, &f, msg, sizeof msg),
                                 MBX_OK);
                fnode += f.slow_nodes > 0;
                flink += f.slow_links > 0;
                sig += f.sigma / trials;
                top = fmax(top, f.link[0].ratio);
                mbx_pairs_fit_free(&f);
            }
            double nlo, nhi, llo, lhi;
            wilson(fnode, trials, &nlo, &nhi);
            wilson(flink, trials, &llo, &lhi);
            print_message("all alike%s, %2d nodes, %d matrices: false slow node in %d (%.2f %%, "
                          "95 %% CI %.2f..%.2f %%), false slow link in %d (%.2f %%, "
                          "%.2f..%.2f %%); mean sigma %.4f, largest ratio %.3f\n",
                          narrow ? " (slow-state CIs not widened)" : "", n, trials, fnode,
                          100.0 * fnode / trials, 100 * nlo, 100 * nhi, flink,
                          100.0 * flink / trials, 100 * llo, 100 * lhi, sig, top);
            if (trials >= 100) {
                assert_true(fnode <= trials / 100);
                assert_true(flink <= (narrow ? 2 : 1) * trials / 100);
            }
            free(cell);
        }
}

/* The nodes' 95 % CIs cover their true effect (1: all alike) in 90..99 %
 * of nodes, with standard errors from the inverse of the weighted design
 * (8 nodes) and from each node's own weights (320 nodes, above
 * MBX_PAIRS_DENSE_MAX of engine/core/pairs_int.h); the links' intervals
 * cover 1 but for the slow-state cells (5 %, their CIs not widened). */
static void interval_coverage(void **state)
{
    (void)state;
    int trials = env_int("MBX_PAIRS_TRIALS", 1000);
    const int sizes[2] = {8, 320}, reps[2] = {trials, trials / 50 > 2 ? trials / 50 : 2};
    for (int z = 0; z < 2; z++) {
        int n = sizes[z];
        mbx_pairs_cell *cell = cells_for(n);
        plant pl = {NULL, -1, -1, 1, 0, 1};
        long in = 0, all = 0, lin = 0, lall = 0;
        for (int t = 0; t < reps[z]; t++) {
            rng = 0xc0e0000u + (uint64_t)(1000 * n + t);
            size_t c = simulate(n, &pl, cell);
            mbx_pairs_fit f;
            char msg[200];
            assert_int_equal(mbx_pairs_fit_model(cell, c, n, NULL, &f, msg, sizeof msg), MBX_OK);
            for (int i = 0; i < n; i++)
                in += f.node[i].lo <= 1 && 1 <= f.node[i].hi, all++;
            for (int k = 0; k < f.cells; k++)
                lin += f.link[k].lo <= 1 && 1 <= f.link[k].hi, lall++;
            mbx_pairs_fit_free(&f);
        }
        print_message("all alike, %d nodes, %d matrices: node CIs cover 1 in %.1f %% of %ld, "
                      "link intervals in %.1f %% of %ld\n",
                      n, reps[z], 100.0 * (double)in / (double)all, all,
                      100.0 * (double)lin / (double)lall, lall);
        if (trials >= 100) {
            assert_true(in >= all * 90 / 100 && in <= all * 99 / 100);
            assert_true(lin >= lall * 90 / 100);
        }
        free(cell);
    }
}

/* Seeds with a slow node (x2 on its row and column: effect 2^((n-1)/n)
 * against the mean node) and/or a slow link (x3 both ways, which may
 * touch the slow node): the share where what was planted is found and
 * nothing else is flagged, printed with its Wilson interval. */
static double power_run(int n, int trials, int node, int link)
{
    assert_true(n <= 16);
    mbx_pairs_cell *cell = cells_for(n);
    int ok = 0, node_found = 0, link_found = 0, extra = 0;
    for (int t = 0; t < trials; t++) {
        rng = 0xfeed0000u + (uint64_t)(1000 * n + t);
        double u[16] = {0};
        int slow = (int)(next64() % (uint64_t)n);
        u[slow] = node ? log(2) : 0;
        plant pl = {u, (int)(next64() % (uint64_t)n), 0, link ? 3 : 1, 0, 0};
        pl.lb = (pl.la + 1 + (int)(next64() % (uint64_t)(n - 1))) % n;
        size_t c = simulate(n, &pl, cell);
        mbx_pairs_fit f;
        char msg[200];
        assert_int_equal(mbx_pairs_fit_model(cell, c, n, NULL, &f, msg, sizeof msg), MBX_OK);
        int nf = node_of(&f, slow)->slow, lf = 0;
        for (int k = 0; k < f.cells; k++)
            if (f.link[k].slow && ((f.link[k].src == pl.la && f.link[k].dst == pl.lb) ||
                                   (f.link[k].src == pl.lb && f.link[k].dst == pl.la)))
                lf++;
        int others = f.slow_nodes - (node ? nf : 0) + f.slow_links - (link ? lf : 0);
        node_found += nf;
        link_found += lf == 2;
        extra += others > 0;
        ok += (!node || nf) && (!link || lf == 2) && others == 0;
        mbx_pairs_fit_free(&f);
    }
    double lo, hi;
    wilson(ok, trials, &lo, &hi);
    print_message("%s%s%s, %d nodes, %d seeds: found, nothing else, in %d (%.1f %%, 95 %% CI "
                  "%.1f..%.1f %%); node found %d, link found %d, something else flagged %d\n",
                  node ? "slow node x2" : "", node && link ? " and " : "",
                  link ? "slow link x3" : "", n, trials, ok, 100.0 * ok / trials, 100 * lo,
                  100 * hi, node_found, link_found, extra);
    free(cell);
    return (double)ok / trials;
}

/* A slow node and a slow link at once: found, nothing else, in 99 % of
 * 500 seeds at 8 nodes. On 4 nodes a slow link has an exact twin, the
 * pair that shares no node with it, slow by as much, with other node
 * effects (engine/core/pairs.c, multistart): the smaller node effects
 * choose, and the noise of the kept cells (the slow-state cells above
 * all) sometimes chooses the twin. There, over 4000 seeds: a slow node
 * and link 98.0 % (97.5..98.3 %), a slow link alone 98.3 % (97.9..98.7
 * %), a slow node alone 100 %; asserted at 97 %, 97 % and 99 %. */
static void power(void **state)
{
    (void)state;
    int trials = env_int("MBX_PAIRS_TRIALS", 1000) / 2;
    double both4 = power_run(4, trials, 1, 1), both8 = power_run(8, trials, 1, 1);
    double node4 = power_run(4, trials, 1, 0), link4 = power_run(4, trials, 0, 1);
    if (trials < 100)
        return; /* valgrind's few seeds: the figures only */
    assert_true(both8 >= 0.99);
    assert_true(both4 >= 0.97);
    assert_true(node4 >= 0.99);
    assert_true(link4 >= 0.97);
}

/* A complete matrix of n nodes, value v for every cell. */
static size_t flat(int n, double v, mbx_pairs_cell *cell)
{
    size_t c = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j)
                cell[c++] = (mbx_pairs_cell){i, j, v * (1 + 0.01 * (double)((i * 7 + j * 3) % 5)),
                                             NAN, NAN};
    return c;
}

/* rc and the start of msg; *f is left empty. */
static void refused(const mbx_pairs_cell *cell, size_t c, int n, const mbx_pairs_opts *o,
                    const char *want)
{
    mbx_pairs_fit f;
    char msg[200] = "unset";
    assert_int_equal(mbx_pairs_fit_model(cell, c, n, o, &f, msg, sizeof msg), MBX_E_INVAL);
    print_message("refused: %s\n", msg);
    assert_non_null(strstr(msg, want));
    assert_null(f.node);
    assert_null(f.link);
    mbx_pairs_fit_free(&f);
}

/* Every bad input is refused with its one line. */
static void bad_input(void **state)
{
    (void)state;
    mbx_pairs_cell cell[56];
    size_t c = flat(3, 1e-6, cell);
    refused(cell, c, 3, NULL, "verdicts need 4 nodes or more; the matrix has 3");
    refused(cell, 0, 5000, NULL, "at most 4096 nodes");
    c = flat(4, 1e-6, cell);
    mbx_pairs_fit f;
    assert_int_equal(mbx_pairs_fit_model(cell, c, 4, NULL, NULL, NULL, 0), MBX_E_INVAL);
    assert_int_equal(mbx_pairs_fit_model(NULL, c, 4, NULL, &f, NULL, 0), MBX_E_INVAL);
    cell[5].dst = cell[5].src;
    refused(cell, c, 4, NULL, "on the diagonal");
    c = flat(4, 1e-6, cell);
    cell[5].dst = 4;
    refused(cell, c, 4, NULL, "outside nodes 0..3");
    c = flat(4, 1e-6, cell);
    cell[5].src = -1;
    refused(cell, c, 4, NULL, "outside nodes 0..3");
    c = flat(4, 1e-6, cell);
    cell[5] = cell[4];
    refused(cell, c, 4, NULL, "given twice");
    const double bad[3] = {0, -1e-6, INFINITY};
    for (int i = 0; i < 3; i++) {
        c = flat(4, 1e-6, cell);
        cell[7].value = bad[i];
        refused(cell, c, 4, NULL, "not a positive time");
    }
    c = flat(4, 1e-6, cell);
    cell[2].lo = 2e-6, cell[2].hi = 1e-6;
    refused(cell, c, 4, NULL, "not 0 < lo <= hi");
    c = flat(4, 1e-6, cell);
    const mbx_pairs_opts opt[6] = {{0, 0.2},     {0.5, 0.2},  {NAN, 0.2},
                                   {0.05, -0.1}, {0.05, 4.5}, {0.05, NAN}};
    for (int i = 0; i < 6; i++)
        refused(cell, c, 4, &opt[i], i < 3 ? "alpha" : "tolerance");
    /* 6 cells on 4 nodes: df 2. */
    for (size_t k = 6; k < c; k++)
        cell[k].value = NAN;
    refused(cell, c, 4, NULL, "too few measured cells");
    /* Node 4 of 5 has no cell. */
    c = flat(5, 1e-6, cell);
    for (size_t k = 0; k < c; k++)
        if (cell[k].src == 4 || cell[k].dst == 4)
            cell[k].value = NAN;
    refused(cell, c, 5, NULL, "node 4 has no measured cell");
    /* The 4-cycle 0-1-2-3-0 both ways: {0, 2} against {1, 3}. */
    c = flat(4, 1e-6, cell);
    for (size_t k = 0; k < c; k++)
        if ((cell[k].src + cell[k].dst) % 2 == 0)
            cell[k].value = NAN;
    refused(cell, c, 4, NULL, "two groups");
    /* Two triangles, 0-1-2 and 3-4-5, with no pair between them. */
    c = flat(6, 1e-6, cell);
    for (size_t k = 0; k < c; k++)
        if ((cell[k].src < 3) != (cell[k].dst < 3))
            cell[k].value = NAN;
    refused(cell, c, 6, NULL, "no pair between them");
    /* The defaults, spelled out, are accepted, and so is msg NULL. */
    c = flat(4, 1e-6, cell);
    const mbx_pairs_opts dflt = {MBX_PAIRS_ALPHA_DEFAULT, MBX_PAIRS_TOL_DEFAULT};
    assert_int_equal(mbx_pairs_fit_model(cell, c, 4, &dflt, &f, NULL, 0), MBX_OK);
    assert_int_equal(f.slow_nodes + f.slow_links, 0);
    mbx_pairs_fit_free(&f);
    mbx_pairs_fit_free(&f);
    mbx_pairs_fit_free(NULL);
}

/* 1024 nodes, complete (1,047,552 cells) with a slow node and a slow
 * link: the fit's time is printed, not asserted; what was planted is
 * found. MBX_PAIRS_SCALE_NODES sets another size (valgrind: fewer). */
static void scale(void **state)
{
    (void)state;
    int n = env_int("MBX_PAIRS_SCALE_NODES", 1024);
    if (n > MBX_PAIRS_NODES_MAX || n < 8)
        n = 1024;
    mbx_pairs_cell *cell = cells_for(n);
    double *u = calloc((size_t)n, sizeof *u);
    assert_non_null(u);
    u[n / 3] = log(2);
    plant pl = {u, 1, n - 2, 3, 0, 0};
    rng = 0x5ca1e;
    size_t c = simulate(n, &pl, cell);
    mbx_pairs_fit f;
    char msg[200];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(mbx_pairs_fit_model(cell, c, n, NULL, &f, msg, sizeof msg), MBX_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    print_message("%d nodes, %zu cells: fitted in %.3f s; sigma %.4f; slowest node %d x%.3f "
                  "(%.3f..%.3f), slowest link %d -> %d x%.3f; %d slow nodes, %d slow links\n",
                  n, c, s, f.sigma, f.node[0].node, f.node[0].effect, f.node[0].lo, f.node[0].hi,
                  f.link[0].src, f.link[0].dst, f.link[0].ratio, f.slow_nodes, f.slow_links);
    assert_int_equal(f.node[0].node, n / 3);
    assert_true(f.node[0].slow);
    assert_int_equal(f.slow_nodes, 1);
    assert_int_equal(f.slow_links, 2);
    assert_true(f.link[0].src + f.link[0].dst == n - 1 && f.link[1].src + f.link[1].dst == n - 1);
    mbx_pairs_fit_free(&f);
    free(u);
    free(cell);
}

/* 16 nodes with 30 % of the cells missing and a slow node: found, and
 * nothing else, in 99 % of 200 seeds. */
static void missing_cells(void **state)
{
    (void)state;
    int trials = env_int("MBX_PAIRS_TRIALS", 1000) / 5, n = 16, ok = 0, found = 0;
    mbx_pairs_cell *cell = cells_for(n);
    for (int t = 0; t < trials; t++) {
        rng = 0x3155u + (uint64_t)t;
        double u[16] = {0};
        int slow = (int)(next64() % (uint64_t)n);
        u[slow] = log(2);
        plant pl = {u, -1, -1, 1, 0.3, 0};
        size_t c = simulate(n, &pl, cell);
        mbx_pairs_fit f;
        char msg[200];
        assert_int_equal(mbx_pairs_fit_model(cell, c, n, NULL, &f, msg, sizeof msg), MBX_OK);
        int nf = node_of(&f, slow)->slow;
        found += nf;
        ok += nf && f.slow_nodes == 1 && f.slow_links == 0;
        mbx_pairs_fit_free(&f);
    }
    double lo, hi;
    wilson(ok, trials, &lo, &hi);
    print_message("slow node x2, 16 nodes, 30 %% of cells missing, %d seeds: found, nothing "
                  "else, in %d (%.1f %%, 95 %% CI %.1f..%.1f %%); found %d\n",
                  trials, ok, 100.0 * ok / trials, 100 * lo, 100 * hi, found);
    if (trials >= 100)
        assert_true(ok >= trials * 99 / 100);
    free(cell);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_effects),     cmocka_unit_test(all_alike),
        cmocka_unit_test(interval_coverage), cmocka_unit_test(power),
        cmocka_unit_test(bad_input),         cmocka_unit_test(scale),
        cmocka_unit_test(missing_cells),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
