/* The point's send and receive buffers on every rank (docs/algorithms.md,
 * "One point"): a pool of MBX_BUF_SETS sets, each set two private anonymous
 * mappings of its own, mapped and touched once, when the set is first
 * drawn; a measurement takes the set rank 0 drew, with each buffer at the
 * page offset rank 0 drew for it. A fresh allocation per point is not
 * fresh: glibc, and mmap after munmap, hand back the same addresses pass
 * after pass. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "engine_internal.h"
#include "mbx/memavail.h"

#define PAGE 4096u

static void set_unmap(mbx_bufset *b)
{
    if (b->s)
        munmap(b->s, b->len);
    if (b->r)
        munmap(b->r, b->len);
    b->s = b->r = NULL;
}

void mbx_bufpool_free(mbx_engine *e)
{
    for (int i = 0; i < MBX_BUF_SETS; i++)
        set_unmap(&e->pool[i]);
    e->pool_len = 0;
    e->pool_sets = 0;
}

/* How many sets of two `len`-byte buffers this rank may keep: at most half
 * of the memory it may take (mbx/memavail.h: the node's, its cgroup's limit
 * included, over the ranks on the node), from 1 to MBX_BUF_SETS; all of
 * them when the budget cannot be read. Fewer than MBX_BUF_SETS reaches the
 * environment file (mbx_warmup_info.buf_sets_min), never silently. */
static int pool_sets(const mbx_engine *e, size_t len)
{
    int local = 1;
    uint64_t budget = 0;
    char why[128];
    const char *root = "";
#ifdef MBX_TEST_HOOKS
    /* Test hook, in builds with the test suite only: a made-up /proc under
     * MBX_TEST_MEMROOT, so a test can make memory short. */
    const char *hook = getenv("MBX_TEST_MEMROOT");
    if (hook)
        root = hook;
#endif
    MPI_Comm_size(e->node, &local);
    if (mbx_mem_rank_budget(root, local, &budget, why, sizeof why) != MBX_OK)
        return MBX_BUF_SETS;
    uint64_t fit = budget / 2 / (2 * (uint64_t)len);
    return fit >= MBX_BUF_SETS ? MBX_BUF_SETS : fit < 1 ? 1 : (int)fit;
}

static void *map_touched(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    memset(p, 0, len); /* the set's first-touch faults, once, untimed */
    return p;
}

int mbx_bufpool_take(mbx_engine *e, size_t len, uint32_t soff, uint32_t roff, int set)
{
    /* Never a zero-size buffer: MPI calls with count 0 still get a pointer. */
    size_t n = len ? len : 64;
    if (n > SIZE_MAX - 2 * PAGE)
        return MBX_E_NOMEM;
    size_t need = (n + MBX_BUF_OFFSET_MAX + PAGE - 1) / PAGE * PAGE;
    if (need > e->pool_len) {
        /* A larger point: every set again, as large (a smaller point
         * later uses the start of them). */
        mbx_bufpool_free(e);
        e->pool_len = need;
        e->pool_sets = pool_sets(e, need);
    }
    e->pool_set = set % e->pool_sets;
    mbx_bufset *b = &e->pool[e->pool_set];
    if (!b->s) {
        b->len = e->pool_len;
        b->s = map_touched(b->len);
        b->r = map_touched(b->len);
        if (!b->s || !b->r) {
            set_unmap(b);
            return MBX_E_NOMEM;
        }
    }
    e->ctx.sbuf = (char *)b->s + soff;
    e->ctx.rbuf = (char *)b->r + roff;
    /* The benchmark's starting contents, and the used range in cache. */
    memset(e->ctx.sbuf, 0x5a, n);
    memset(e->ctx.rbuf, 0, n);
    e->ctx.buf_len = n;
    return MBX_OK;
}

/* splitmix64: a stream with no short cycles and good low bits. */
static uint64_t next_draw(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void mbx_bufpool_draw(mbx_engine *e, mbx_point_params *p)
{
    /* The send offset (the scheduler's draw) is mixed into rank 0's stream,
     * so a seeded scheduler reproduces these draws too. */
    e->place_rng ^= (uint64_t)p->buf_offset << 32;
    uint64_t x = next_draw(&e->place_rng);
    p->rbuf_offset =
        MBX_BUF_OFFSET_STEP * (uint32_t)(x % (MBX_BUF_OFFSET_MAX / MBX_BUF_OFFSET_STEP + 1));
    p->buf_set = (int32_t)((x >> 16) % MBX_BUF_SETS);
    /* The budget: each duplicate's time is owed, and each measurement's
     * time pays MBX_COMM_DUP_SHARE of it back (mbx_bufpool_paid). */
    p->comm_dup = e->dup_mode == MBX_COMM_DUP_ALWAYS ||
                  (e->dup_mode == MBX_COMM_DUP_BUDGET && e->dup_debt <= 0.0);
}

void mbx_engine_buffer_offsets(const mbx_engine *e, int *lo, int *hi)
{
    if (lo)
        *lo = e ? e->buf_off_lo : -1;
    if (hi)
        *hi = e ? e->buf_off_hi : -1;
}

void mbx_engine_buffer_place(const mbx_engine *e, mbx_buffer_place *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (e)
        *out = e->place;
}

void mbx_bufpool_paid(mbx_engine *e, double dup_s, double wall_s)
{
    e->dup_debt += dup_s > 0.0 ? dup_s : 0.0;
    e->dup_debt -= MBX_COMM_DUP_SHARE * (wall_s > 0.0 ? wall_s : 0.0);
    if (e->dup_debt < -MBX_COMM_DUP_SHARE) /* no saving up: at most a second's worth */
        e->dup_debt = -MBX_COMM_DUP_SHARE;
}

int mbx_engine_set_comm_dup(mbx_engine *e, mbx_comm_dup_mode mode)
{
    if (!e || e->rank != 0 ||
        (mode != MBX_COMM_DUP_NEVER && mode != MBX_COMM_DUP_ALWAYS && mode != MBX_COMM_DUP_BUDGET))
        return MBX_E_INVAL;
    e->dup_mode = mode;
    return MBX_OK;
}
