/* The fake back end's node pairs (mbx_backend_fake has the model): hosts
 * made up from MBX_TEST_FAKE_HOSTS, and every step's times from a
 * deterministic model with a planted slow node and slow link, so the
 * explorer's pairs screen is tested headless, the same on every machine. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_models.h"

#define FAKE_LAT 1.5e-6 /* a cell's one-way latency, seconds */
#define FAKE_BW 6e9     /* a cell's bandwidth, bytes a second */
#define FAKE_STEP 40e-6 /* what a step costs beyond its messages: command, gather */
#define FAKE_NOISE 0.03 /* +-3 % */
#define FAKE_SLOW_NODE 2.0
#define FAKE_SLOW_LINK 3.0

int mbx_fake_hosts(int nranks)
{
    const char *v = getenv("MBX_TEST_FAKE_HOSTS");
    int h = v ? atoi(v) : 1;
    return h >= 1 && h <= nranks ? h : 1;
}

int mbx_fake_pairs_nodes(int nranks, int per, int *rank, char (*host)[MBX_HOST_MAX])
{
    int h = mbx_fake_hosts(nranks), n = 0;
    int block = (nranks + h - 1) / h; /* ranks of a host, the last may have fewer */
    for (int r = 0; r < nranks; r++) {
        if (per != MBX_PER_RANK && r % block != 0)
            continue; /* one package a host: socket is node */
        rank[n] = r;
        snprintf(host[n], MBX_HOST_MAX, "fake%02d", r / block + 1);
        n++;
    }
    return n;
}

typedef struct fake_pairs {
    double *clock;
    int n;
    int slow_node, slow_src, slow_dst;
    uint64_t draws;
    mbx_pairs_progress_fn cb;
    void *ud;
} fake_pairs;

static double hash_unit(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return (double)(x >> 11) / 9007199254740992.0;
}

/* The model's time of one observation of src -> dst. */
static double cell_time(fake_pairs *f, const mbx_pairs_req *q, int src, int dst)
{
    double t = FAKE_LAT + (double)(q->metric == 0 ? 1 : q->window) * (double)q->bytes / FAKE_BW;
    if (src == f->slow_node || dst == f->slow_node)
        t *= FAKE_SLOW_NODE;
    if (src == f->slow_src && dst == f->slow_dst)
        t *= FAKE_SLOW_LINK;
    double u = hash_unit(((uint64_t)src << 40) ^ ((uint64_t)dst << 20) ^ ++f->draws);
    return t * (1 + FAKE_NOISE * (2 * u - 1));
}

/* One step: the sending nodes' observations, the others NAN; the clock
 * moves by the longest sender's time (a latency observation is a round
 * trip) and the step's own cost. */
static int step(void *ud, const mbx_pairs_req *q, double *t)
{
    fake_pairs *f = ud;
    size_t nobs = (size_t)q->nobs;
    double longest = 0;
    for (int i = 0; i < f->n; i++) {
        int dst = q->mode == 0 ? (i + q->k) % f->n : q->dst;
        int sends = q->mode == 0 || i == q->src;
        double sum = 0;
        for (size_t j = 0; j < nobs; j++) {
            t[(size_t)i * nobs + j] = sends ? cell_time(f, q, i, dst) : NAN;
            sum += sends ? t[(size_t)i * nobs + j] : 0;
        }
        sum *= (double)(nobs + (size_t)q->nwarm) / (double)nobs * (q->metric == 0 ? 2 : 1);
        longest = sum > longest ? sum : longest;
    }
    *f->clock += longest + FAKE_STEP;
    return 0;
}

static double clock_of(void *ud)
{
    return *((fake_pairs *)ud)->clock;
}

static void sleep_for(void *ud, double s)
{
    *((fake_pairs *)ud)->clock += s;
}

static int progress(void *ud, const mbx_pairs_run *r, size_t done, size_t total)
{
    fake_pairs *f = ud;
    return f->cb ? f->cb(f->ud, r, done, total) : 0;
}

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

int mbx_fake_pairs(double *clock, const mbx_pairs_plan *p, mbx_pairs_progress_fn cb, void *ud,
                   mbx_pairs_run *out, char *msg, size_t msglen)
{
    fake_pairs f = {.clock = clock, .n = p->n, .slow_src = -1, .slow_dst = -1, .cb = cb, .ud = ud};
    f.slow_node = env_int("MBX_TEST_FAKE_SLOW_NODE", -1);
    const char *l = getenv("MBX_TEST_FAKE_SLOW_LINK");
    if (l && sscanf(l, "%d:%d", &f.slow_src, &f.slow_dst) != 2)
        f.slow_src = f.slow_dst = -1;
    mbx_pairs_hooks h = {
        .step = step, .clock = clock_of, .sleep = sleep_for, .progress = progress, .ud = &f};
    return mbx_pairs_run_plan(p, &h, out, msg, msglen);
}
