/* b_eff, the pure part: sizes, ring splitting, patterns, loop lengths and
 * the averaging formula (paper section 4; rules the paper leaves open are
 * facts from the public b_eff 3.x program, credited in mbx/beff.h). */
#include "mbx/beff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t mbx_beff_lmax(uint64_t mem_per_proc, int cap128, uint64_t quick)
{
    uint64_t l = mem_per_proc / 128;
    if (cap128 && l > MBX_BEFF_CAP)
        l = MBX_BEFF_CAP;
    if (quick > 0 && l > quick)
        l = quick;
    return l < MBX_BEFF_LMIN ? MBX_BEFF_LMIN : l;
}

int mbx_beff_sizes(uint64_t lmax, uint64_t out[MBX_BEFF_NSIZES])
{
    if (!out || lmax < MBX_BEFF_LMIN)
        return MBX_E_INVAL;
    for (int k = 0; k < MBX_BEFF_NPOW2; k++)
        out[k] = (uint64_t)1 << k;
    int steps = MBX_BEFF_NSIZES - MBX_BEFF_NPOW2;
    double a = pow((double)lmax / (double)MBX_BEFF_LMIN, 1.0 / steps);
    for (int k = 1; k < steps; k++) {
        uint64_t v = (uint64_t)llround((double)MBX_BEFF_LMIN * pow(a, k));
        uint64_t prev = out[MBX_BEFF_NPOW2 + k - 2];
        out[MBX_BEFF_NPOW2 + k - 1] = v < prev ? prev : (v > lmax ? lmax : v);
    }
    out[MBX_BEFF_NSIZES - 1] = lmax;
    return MBX_OK;
}

static int std_ring_size(int pattern, int p)
{
    int s;
    switch (pattern) {
    case 1: s = 2; break;
    case 2: s = 4; break;
    case 3: s = 8; break;
    case 4: s = p / 4 > 16 ? p / 4 : 16; break;
    case 5: s = p / 2 > 32 ? p / 2 : 32; break;
    default: s = p; break;
    }
    return s < p ? s : p;
}

int mbx_beff_ring_sizes(int pattern, int procs, int *sizes, int cap, int *nrings)
{
    if (pattern < 1 || pattern > MBX_BEFF_NRINGS || procs < 2 || !sizes || cap < 1 || !nrings)
        return MBX_E_INVAL;
    int s = std_ring_size(pattern, procs);
    int n = (int)floor((double)procs / s + 0.4);
    if (n > procs / 2)
        n = procs / 2;
    if (n < 1)
        n = 1;
    /* The paper, explicitly: "If the number of processes is less or equal
     * 7 then all processes form one ring" (the program makes 4+3 of 7). */
    if (pattern == 2 && procs <= 7)
        n = 1;
    if (n > cap)
        return MBX_E_INVAL;
    int lo = procs / n, nhi = procs - lo * n, nlo = n - nhi;
    int hi_first = (lo % 2) && nhi > 0;
    int i = 0;
    for (int k = 0; k < (hi_first ? nhi : nlo); k++)
        sizes[i++] = hi_first ? lo + 1 : lo;
    for (int k = 0; k < (hi_first ? nlo : nhi); k++)
        sizes[i++] = hi_first ? lo : lo + 1;
    *nrings = n;
    return MBX_OK;
}

void mbx_beff_ring_describe(const int *sizes, int n, char *buf, size_t len)
{
    size_t off = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && sizes[j] == sizes[i])
            j++;
        int w = snprintf(buf + off, off < len ? len - off : 0, "%s%d*%d", i ? "+" : "", j - i,
                         sizes[i]);
        if (w > 0)
            off += (size_t)w;
        i = j;
    }
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int mbx_beff_random_order(unsigned seed, int index, int procs, int *order)
{
    if (procs < 1 || !order)
        return MBX_E_INVAL;
    uint64_t st = ((uint64_t)seed << 32) ^ (uint64_t)(unsigned)index ^ 0x6265666600000000ull;
    (void)splitmix(&st);
    for (int i = 0; i < procs; i++)
        order[i] = i;
    for (int i = procs - 1; i > 0; i--) {
        int j = (int)(splitmix(&st) % (uint64_t)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    return MBX_OK;
}

int mbx_beff_worst_order(int procs, int *order)
{
    if (procs < 1 || !order)
        return MBX_E_INVAL;
    for (int i = 0; i < procs; i++)
        order[i] = i % 2 == 0 ? i / 2 : procs - 1 - i / 2;
    return MBX_OK;
}

int mbx_beff_dims(int n, int ndims, int *dims)
{
    if (n < 1 || ndims < 1 || !dims)
        return MBX_E_INVAL;
    for (int i = 0; i < ndims; i++)
        dims[i] = 1;
    int f[32], nf = 0, m = n;
    for (int p = 2; (long)p * p <= m; p++)
        while (m % p == 0) {
            f[nf++] = p;
            m /= p;
        }
    if (m > 1)
        f[nf++] = m;
    /* Largest prime first onto the currently smallest dimension. */
    for (int k = nf - 1; k >= 0; k--) {
        int small = 0;
        for (int i = 1; i < ndims; i++)
            if (dims[i] < dims[small])
                small = i;
        dims[small] *= f[k];
    }
    for (int i = 0; i < ndims; i++)
        for (int j = i + 1; j < ndims; j++)
            if (dims[j] > dims[i]) {
                int t = dims[i];
                dims[i] = dims[j];
                dims[j] = t;
            }
    return MBX_OK;
}

int mbx_beff_cart_grid(int procs, int ndims, int *dims, int *grid)
{
    if (procs < 1 || ndims < 1 || ndims > 3 || !dims || !grid)
        return MBX_E_INVAL;
    for (int q = procs; q >= 1; q--) {
        if (mbx_beff_dims(q, ndims, dims) < 0)
            return MBX_E_INVAL;
        if (dims[ndims - 1] > 1 || (q < 8 && q % 2 == 0) || q < 4) {
            *grid = q;
            return MBX_OK;
        }
    }
    return MBX_E_INVAL;
}

/* ---- patterns ---- */

/* pt NULL (next_pat found the table full): MBX_E_INVAL, not a write
 * through NULL. */
static int pat_alloc(mbx_beff_pattern *pt, const char *name, int kind, int procs)
{
    if (!pt)
        return MBX_E_INVAL;
    memset(pt, 0, sizeof *pt);
    snprintf(pt->name, sizeof pt->name, "%s", name);
    pt->kind = kind;
    pt->procs = procs;
    size_t n = (size_t)procs * MBX_BEFF_MAXSTEPS;
    pt->to = malloc(n * sizeof *pt->to);
    pt->from = malloc(n * sizeof *pt->from);
    if (!pt->to || !pt->from)
        return MBX_E_NOMEM;
    for (size_t i = 0; i < n; i++)
        pt->to[i] = pt->from[i] = -1;
    return MBX_OK;
}

static void pat_set(mbx_beff_pattern *pt, int proc, int step, int to, int from)
{
    pt->to[proc * MBX_BEFF_MAXSTEPS + step] = to;
    pt->from[proc * MBX_BEFF_MAXSTEPS + step] = from;
    if (step + 1 > pt->nsteps)
        pt->nsteps = step + 1;
}

static void pat_count(mbx_beff_pattern *pt)
{
    pt->messages = 0;
    for (int i = 0; i < pt->procs * MBX_BEFF_MAXSTEPS; i++)
        if (pt->to[i] >= 0)
            pt->messages++;
}

/* Rings of the given sizes along `order`: left = previous, right = next. */
static void pat_rings(mbx_beff_pattern *pt, const int *order, const int *sizes, int n)
{
    int base = 0;
    for (int r = 0; r < n; r++) {
        int s = sizes[r];
        for (int i = 0; i < s; i++) {
            int me = order[base + i];
            int left = order[base + (i + s - 1) % s], right = order[base + (i + 1) % s];
            pat_set(pt, me, 0, left, right);
            pat_set(pt, me, 1, right, left);
        }
        base += s;
    }
    pat_count(pt);
}

/* Ping-pong pairs (a, b): a sends, b answers. */
static void pat_pair(mbx_beff_pattern *pt, int a, int b)
{
    pat_set(pt, a, 0, b, -1);
    pat_set(pt, b, 0, -1, a);
    pat_set(pt, a, 1, -1, b);
    pat_set(pt, b, 1, a, -1);
}

static void cart_coords(int r, int nd, const int *dims, int *c)
{
    for (int i = nd - 1; i >= 0; i--) {
        c[i] = r % dims[i];
        r /= dims[i];
    }
}

static int cart_rank(int nd, const int *dims, const int *c)
{
    int r = 0;
    for (int i = 0; i < nd; i++)
        r = r * dims[i] + c[i];
    return r;
}

/* Cyclic Cartesian exchange in the directions of mask (bit d: direction d). */
static void pat_cart(mbx_beff_pattern *pt, int q, int nd, const int *dims, unsigned mask)
{
    for (int r = 0; r < q; r++) {
        int c[3], step = 0;
        cart_coords(r, nd, dims, c);
        for (int d = 0; d < nd; d++) {
            if (!(mask & (1u << d)) || dims[d] < 2)
                continue;
            int keep = c[d];
            c[d] = (keep + 1) % dims[d];
            int up = cart_rank(nd, dims, c);
            c[d] = (keep + dims[d] - 1) % dims[d];
            int down = cart_rank(nd, dims, c);
            c[d] = keep;
            pat_set(pt, r, step++, up, down);
            pat_set(pt, r, step++, down, up);
        }
    }
    pat_count(pt);
}

void mbx_beff_patterns_free(mbx_beff_patterns *ps)
{
    if (!ps)
        return;
    for (size_t i = 0; i < ps->n; i++) {
        free(ps->p[i].to);
        free(ps->p[i].from);
    }
    free(ps->p);
    memset(ps, 0, sizeof *ps);
}

static mbx_beff_pattern *next_pat(mbx_beff_patterns *ps, size_t cap)
{
    return ps->n < cap ? &ps->p[ps->n++] : NULL;
}

/* The patterns being built, and scratch for the ring orders and sizes. */
typedef struct pat_build {
    mbx_beff_patterns *out;
    size_t cap;
    int procs;
    int *order, *sizes; /* procs each */
} pat_build;

/* ring1 .. ringN: rings of neighbours, sizes by mbx_beff_ring_sizes. */
static int add_rings(pat_build *b)
{
    char name[24];
    for (int k = 1; k <= MBX_BEFF_NRINGS; k++) {
        snprintf(name, sizeof name, "ring%d", k);
        mbx_beff_pattern *pt = next_pat(b->out, b->cap);
        int rc = pat_alloc(pt, name, MBX_BEFF_RING, b->procs);
        if (rc < 0)
            return rc;
        int n;
        if ((rc = mbx_beff_ring_sizes(k, b->procs, b->sizes, b->procs, &n)) < 0)
            return rc;
        for (int i = 0; i < b->procs; i++)
            b->order[i] = i;
        pat_rings(pt, b->order, b->sizes, n);
        char d[48];
        mbx_beff_ring_describe(b->sizes, n, d, sizeof d);
        snprintf(pt->desc, sizeof pt->desc, "rings %s", d);
        b->out->nring++;
    }
    return MBX_OK;
}

/* random1 .. randomN: one ring each, in a random order of the seed. */
static int add_randoms(pat_build *b, int nrandom, unsigned seed)
{
    char name[24];
    for (int k = 1; k <= nrandom; k++) {
        snprintf(name, sizeof name, "random%d", k);
        mbx_beff_pattern *pt = next_pat(b->out, b->cap);
        int rc;
        if ((rc = pat_alloc(pt, name, MBX_BEFF_RANDOM, b->procs)) < 0 ||
            (rc = mbx_beff_random_order(seed, k, b->procs, b->order)) < 0)
            return rc;
        b->sizes[0] = b->procs;
        pat_rings(pt, b->order, b->sizes, 1);
        snprintf(pt->desc, sizeof pt->desc, "one ring, random order (seed %u)", seed);
        b->out->nrandom++;
    }
    return MBX_OK;
}

/* The detail patterns worst_cycle, bisect_best and bisect_worst. */
static int add_cycle_bisect(pat_build *b)
{
    int rc, procs = b->procs;
    mbx_beff_pattern *pt;
    if ((rc = pat_alloc(pt = next_pat(b->out, b->cap), "worst_cycle", MBX_BEFF_DETAIL, procs)) <
            0 ||
        (rc = mbx_beff_worst_order(procs, b->order)) < 0)
        return rc;
    b->sizes[0] = procs;
    pat_rings(pt, b->order, b->sizes, 1);
    snprintf(pt->desc, sizeof pt->desc, "one ring 0,P-1,1,P-2,...");
    int q = procs / 2 * 2;
    if ((rc = pat_alloc(pt = next_pat(b->out, b->cap), "bisect_best", MBX_BEFF_DETAIL, procs)) < 0)
        return rc;
    for (int i = 0; i < q; i += 2)
        pat_pair(pt, i, i + 1);
    pat_count(pt);
    snprintf(pt->desc, sizeof pt->desc, "ping-pong pairs (2i,2i+1) of %d", q);
    if ((rc = pat_alloc(pt = next_pat(b->out, b->cap), "bisect_worst", MBX_BEFF_DETAIL, procs)) < 0)
        return rc;
    for (int i = 0; i < q / 2; i++)
        pat_pair(pt, i, q - 1 - i);
    pat_count(pt);
    snprintf(pt->desc, sizeof pt->desc, "ping-pong pairs (i,%d-i)", q - 1);
    return MBX_OK;
}

/* The cyclic 2-d and 3-d grids: one pattern per direction of at least two
 * processes, and one of all directions. */
static int add_carts(pat_build *b)
{
    static const char dirname[] = "xyz";
    char name[24];
    for (int nd = 2; nd <= 3; nd++) {
        int dims[3];
        int qc;
        int rc = mbx_beff_cart_grid(b->procs, nd, dims, &qc);
        if (rc < 0)
            return rc;
        char grid[32];
        if (nd == 2)
            snprintf(grid, sizeof grid, "%dx%d", dims[0], dims[1]);
        else
            snprintf(grid, sizeof grid, "%dx%dx%d", dims[0], dims[1], dims[2]);
        for (int d = 0; d <= nd; d++) {
            if (d < nd && dims[d] < 2)
                continue;
            if (d < nd)
                snprintf(name, sizeof name, "cart%dd_%c", nd, dirname[d]);
            else
                snprintf(name, sizeof name, "cart%dd_all", nd);
            mbx_beff_pattern *pt = next_pat(b->out, b->cap);
            rc = pat_alloc(pt, name, MBX_BEFF_DETAIL, b->procs);
            if (rc < 0)
                return rc;
            pat_cart(pt, qc, nd, dims, d < nd ? 1u << d : 7u);
            snprintf(pt->desc, sizeof pt->desc, "cyclic %s grid of %d", grid, qc);
        }
    }
    return MBX_OK;
}

int mbx_beff_patterns_build(int procs, int nrandom, unsigned seed, mbx_beff_patterns *out)
{
    if (procs < 2 || nrandom < 1 || nrandom > MBX_BEFF_NRANDOM_MAX || !out)
        return MBX_E_INVAL;
    memset(out, 0, sizeof *out);
    pat_build b = {.out = out,
                   .cap = (size_t)MBX_BEFF_NRINGS + (size_t)nrandom + 3 + 4 + 5 + 1,
                   .procs = procs};
    out->p = calloc(b.cap, sizeof *out->p);
    b.order = malloc((size_t)procs * sizeof *b.order);
    b.sizes = malloc((size_t)procs * sizeof *b.sizes);
    int rc = out->p && b.order && b.sizes ? MBX_OK : MBX_E_NOMEM;
    if (rc >= 0)
        rc = add_rings(&b);
    if (rc >= 0)
        rc = add_randoms(&b, nrandom, seed);
    if (rc >= 0)
        rc = add_cycle_bisect(&b);
    if (rc >= 0)
        rc = add_carts(&b);
    mbx_beff_pattern *pt;
    if (rc >= 0 &&
        (rc = pat_alloc(pt = next_pat(out, b.cap), "pingpong", MBX_BEFF_DETAIL, procs)) >= 0) {
        pat_pair(pt, 0, 1);
        pat_count(pt);
        pt->pingpong = 1;
        snprintf(pt->desc, sizeof pt->desc, "ping-pong of ranks 0 and 1");
    }
    free(b.order);
    free(b.sizes);
    if (rc < 0)
        mbx_beff_patterns_free(out);
    return rc;
}

/* ---- loop lengths ---- */

int mbx_beff_loop_next(int prev_len, double prev_iter_s, double size_ratio)
{
    if (prev_len < 1)
        return 1;
    if (!(prev_iter_s > 0) || !(size_ratio > 0))
        return prev_len;
    double est = prev_iter_s * size_ratio;
    if (est * prev_len <= MBX_BEFF_LOOP_HI)
        return prev_len;
    double n = floor(MBX_BEFF_LOOP_AIM / est);
    if (n < 1)
        return 1;
    return n < prev_len ? (int)n : prev_len;
}

int mbx_beff_loop_fix(int len, double loop_s, int cap)
{
    if (len < 1 || !(loop_s > 0))
        return len < 1 ? 1 : len;
    double want = floor((double)len * MBX_BEFF_LOOP_AIM / loop_s);
    if (loop_s > MBX_BEFF_LOOP_HI && len > 1)
        return want < 1 ? 1 : (int)want;
    if (loop_s < MBX_BEFF_LOOP_LO && len < cap)
        return want > cap ? cap : (want <= len ? len + 1 : (int)want);
    return len;
}

/* ---- averages ---- */

double mbx_beff_logavg(const double *v, size_t n)
{
    if (!v || n == 0)
        return NAN;
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(v[i] > 0))
            return NAN;
        s += log(v[i]);
    }
    return exp(s / (double)n);
}

int mbx_beff_aggregate(const double *best, int nring, int nrandom, mbx_beff_agg *out)
{
    if (!best || !out || nring < 1 || nrandom < 1)
        return MBX_E_INVAL;
    int n = nring + nrandom;
    double *avg = malloc(2 * (size_t)n * sizeof *avg);
    if (!avg)
        return MBX_E_NOMEM;
    double *last = avg + n;
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int k = 0; k < MBX_BEFF_NSIZES; k++)
            s += best[i * MBX_BEFF_NSIZES + k];
        avg[i] = s / MBX_BEFF_NSIZES;
        last[i] = best[i * MBX_BEFF_NSIZES + MBX_BEFF_NSIZES - 1];
    }
    out->ring = mbx_beff_logavg(avg, (size_t)nring);
    out->random = mbx_beff_logavg(avg + nring, (size_t)nrandom);
    double two[2] = {out->ring, out->random};
    out->beff = mbx_beff_logavg(two, 2);
    out->ring_lmax = mbx_beff_logavg(last, (size_t)nring);
    out->random_lmax = mbx_beff_logavg(last + nring, (size_t)nrandom);
    two[0] = out->ring_lmax;
    two[1] = out->random_lmax;
    out->beff_lmax = mbx_beff_logavg(two, 2);
    free(avg);
    return isnan(out->beff) ? MBX_E_INVAL : MBX_OK;
}

void mbx_beff_rules(char *buf, size_t len, int procs, int nrandom, int reps, unsigned seed,
                    uint64_t lmax, int capped)
{
    snprintf(buf, len,
             "P=%d; 6 ring patterns: standard size 2,4,8,max(16,P/4),max(32,P/2),P, "
             "n=max(1,min(floor(P/s+0.4),floor(P/2))) rings of floor(P/n)|+1, pattern 2 one "
             "ring for P<=7 (b_eff 3.x split, paper override); %d random one-ring orders "
             "(seed %u); 21 sizes 1..4096 then 4096*a^k to L_max=%llu%s; methods sendrecv, "
             "alltoallv, nonblocking; loop 300 at 1 B, else cut to 2.5-5 ms, >=1; max over %d "
             "reps and methods; sum over sizes/21; logavg ring, random, both; MB=1e6 B",
             procs, nrandom, seed, (unsigned long long)lmax, capped ? " (capped)" : "", reps);
}
