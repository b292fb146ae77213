/* b_eff_io, the pure part: Table 2 of Rabenseifner & Koniges, the time
 * schedule, the segment size of the segmented types and the weights.
 * Facts from the paper (papers/beff-and-beff-io.txt, section 5); the rules
 * it leaves open are the ones mbx_beffio_rules() prints. */
#include "mbx/beffio.h"

#include <stdio.h>

#define KB 1024ull
#define MB MBX_BEFFIO_MIB

/* One row of a type's list, before MPART is known: l == 0 means MPART. */
typedef struct proto {
    uint64_t l, L;
    int plus8, unit, fill;
} proto;

/* Type 0: scatter, collective; L is the memory chunk of one call. */
static const proto type0[] = {
    {MB, MB, 0, 0, 0},      {0, 0, 0, 4, 0},        {MB, 2 * MB, 0, 4, 0},
    {MB, MB, 0, 4, 0},      {32 * KB, MB, 0, 2, 0}, {KB, MB, 0, 2, 0},
    {32 * KB, MB, 1, 2, 0}, {KB, MB, 1, 2, 0},      {MB, MB, 1, 2, 0},
};
/* Type 1: shared file, collective, one call per chunk (L := l). */
static const proto type1[] = {
    {MB, 0, 0, 0, 0}, {0, 0, 0, 4, 0},       {MB, 0, 0, 2, 0}, {32 * KB, 0, 0, 1, 0},
    {KB, 0, 0, 1, 0}, {32 * KB, 0, 1, 1, 0}, {KB, 0, 1, 1, 0}, {MB, 0, 1, 2, 0},
};
/* Type 2: separate files; types 3 and 4 repeat it and add the fill row. */
static const proto type2[] = {
    {MB, 0, 0, 0, 0}, {0, 0, 0, 2, 0},       {MB, 0, 0, 2, 0}, {32 * KB, 0, 0, 1, 0},
    {KB, 0, 0, 1, 0}, {32 * KB, 0, 1, 1, 0}, {KB, 0, 1, 1, 0}, {MB, 0, 1, 2, 0},
};
static const proto fillrow = {0, 0, 0, 0, 1};

#define N0 (int)(sizeof type0 / sizeof type0[0])
#define N1 (int)(sizeof type1 / sizeof type1[0])
#define N2 (int)(sizeof type2 / sizeof type2[0])

static const int first_row[MBX_BEFFIO_NTYPES] = {0, N0, N0 + N1, N0 + N1 + N2,
                                                 N0 + N1 + 2 * N2 + 1};
static const int count_row[MBX_BEFFIO_NTYPES] = {N0, N1, N2, N2 + 1, N2 + 1};

uint64_t mbx_beffio_mpart(uint64_t mem_per_proc)
{
    uint64_t m = mem_per_proc / 128 / MB * MB;
    return m > 2 * MB ? m : 2 * MB;
}

int mbx_beffio_type_first(int type)
{
    return type >= 0 && type < MBX_BEFFIO_NTYPES ? first_row[type] : -1;
}

int mbx_beffio_type_count(int type)
{
    return type >= 0 && type < MBX_BEFFIO_NTYPES ? count_row[type] : 0;
}

static void put(mbx_beffio_pattern *p, int no, int type, int index, const proto *pr, uint64_t mpart)
{
    uint64_t l = pr->l ? pr->l : mpart;
    uint64_t L = pr->L ? pr->L : l;
    if (pr->plus8) {
        /* The memory chunk of type 0 stays a whole number of disk chunks:
         * 1 MB + 256 B = 32 x (32 kB + 8 B), 1 MB + 8 kB = 1024 x (1 kB + 8 B). */
        L = L / l * (l + 8);
        l += 8;
    }
    p->no = no;
    p->type = type;
    p->index = index;
    p->l = pr->fill ? 0 : l;
    p->L = pr->fill ? 0 : L;
    p->wellformed = !pr->plus8;
    p->unit = pr->unit;
    p->fill = pr->fill;
}

void mbx_beffio_table(uint64_t mpart, mbx_beffio_pattern out[MBX_BEFFIO_NPATTERNS])
{
    int no = 0;
    for (int i = 0; i < N0; i++, no++)
        put(&out[no], no, 0, i, &type0[i], mpart);
    for (int i = 0; i < N1; i++, no++)
        put(&out[no], no, 1, i, &type1[i], mpart);
    for (int t = 2; t <= 4; t++) {
        for (int i = 0; i < N2; i++, no++)
            put(&out[no], no, t, i, &type2[i], mpart);
        if (t > 2) {
            put(&out[no], no, t, N2, &fillrow, mpart);
            no++;
        }
    }
}

double mbx_beffio_budget(double T_s, int unit)
{
    return T_s * unit / MBX_BEFFIO_SUM_U / MBX_BEFFIO_NACCESS;
}

void mbx_beffio_derive_reps(const mbx_beffio_pattern table[MBX_BEFFIO_NPATTERNS], int type,
                            const uint64_t *src, uint64_t *out)
{
    const mbx_beffio_pattern *r = table + mbx_beffio_type_first(type);
    const mbx_beffio_pattern *s = table + mbx_beffio_type_first(type == 4 ? 1 : 2);
    for (int k = 0; k < MBX_BEFFIO_MAXPERTYPE; k++)
        out[k] = 1;
    for (int k = 0; k < mbx_beffio_type_count(type) && !r[k].fill; k++) {
        if (s[k].unit == 0) {
            out[k] = src[k] ? src[k] : 1;
            continue;
        }
        double v = (double)src[k] * r[k].unit / s[k].unit + 0.5;
        out[k] = v < 1.0 ? 1 : (uint64_t)v;
    }
}

void mbx_beffio_segment(const mbx_beffio_pattern *rows, const uint64_t *reps, uint64_t *segment,
                        uint64_t *fill)
{
    uint64_t sum = 0;
    for (int k = 0; !rows[k].fill; k++)
        sum += reps[k] * rows[k].l;
    uint64_t seg = (sum / MB + 1) * MB;
    *segment = seg;
    *fill = seg - sum;
}

uint64_t mbx_beffio_min_type_bytes(const mbx_beffio_pattern table[MBX_BEFFIO_NPATTERNS], int type,
                                   int nprocs)
{
    uint64_t per = 0;
    const mbx_beffio_pattern *r = table + mbx_beffio_type_first(type);
    for (int k = 0; k < mbx_beffio_type_count(type); k++)
        per += r[k].fill ? MB : r[k].L;
    return per * (uint64_t)nprocs;
}

uint64_t mbx_beffio_min_bytes(const mbx_beffio_pattern table[MBX_BEFFIO_NPATTERNS], int nprocs)
{
    uint64_t m = 0;
    for (int t = 0; t < MBX_BEFFIO_NTYPES; t++) {
        uint64_t b = mbx_beffio_min_type_bytes(table, t, nprocs);
        if (b > m)
            m = b;
    }
    return m;
}

double mbx_beffio_access_value(const double b[MBX_BEFFIO_NTYPES])
{
    return (2.0 * b[0] + b[1] + b[2] + b[3] + b[4]) / 6.0;
}

double mbx_beffio_partition_value(const double a[MBX_BEFFIO_NACCESS])
{
    return 0.25 * a[MBX_BEFFIO_WRITE] + 0.25 * a[MBX_BEFFIO_REWRITE] + 0.5 * a[MBX_BEFFIO_READ];
}

const char *mbx_beffio_access_name(int access)
{
    static const char *const names[] = {"write", "rewrite", "read"};
    return access >= 0 && access < MBX_BEFFIO_NACCESS ? names[access] : "?";
}

void mbx_beffio_rules(char *buf, size_t len)
{
    snprintf(buf, len,
             "MPART=max(2MiB,mem/128) in whole MiB; pattern time T*U/64/3, U=0 rows run once; "
             "rewrite/read repeat at most as often as the write; type 3 repeats as type 2's "
             "write, type 4 as type 1's, scaled by U; segment rounded up to the next MiB, "
             "filled by rows 33/42; "
             "type value=bytes/(open..close); access=(2*t0+t1+t2+t3+t4)/6; "
             "b_eff_io=25%% write+25%% rewrite+50%% read; MB=10^6 B");
}
