/* libFuzzer target: `mpibex compare` (mbx_compare_load_ex), which reads two
 * sides, each a results file with its OUT.obs.csv or a directory of
 * launches. The first byte says which (bit 0: A is a directory, bit 1: B
 * is, bits 2-3: the MBX_COMPARE_IGNORE_* set); the rest is cut at
 * MBX_FUZZ_SEP into A's two files, then B's two (results and
 * observations, or launch-1.csv and launch-2.csv). */
#include <math.h>
#include <string.h>

#include "fuzz_util.h"
#include "mbx/compare.h"
#include "mbx/csvio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NPARTS 4

static void write_side(int is_dir, const char *side, const uint8_t *const *part, const size_t *plen,
                       char *path, size_t pathlen)
{
    char name[64], file[4200];
    if (is_dir) {
        for (int i = 0; i < 2; i++) {
            snprintf(name, sizeof name, "%s/launch-%02d.csv", side, i + 1);
            mbx_fuzz_write(name, part[i], plen[i], file, sizeof file);
        }
        snprintf(path, pathlen, "%s/%s", mbx_fuzz_dir(), side);
    } else {
        snprintf(name, sizeof name, "%s.csv", side);
        mbx_fuzz_write(name, part[0], plen[0], path, pathlen);
        snprintf(name, sizeof name, "%s.obs.csv", side);
        mbx_fuzz_write(name, part[1], plen[1], file, sizeof file);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    unsigned mode = data[0];
    const uint8_t *part[NPARTS] = {0};
    size_t plen[NPARTS] = {0};
    (void)mbx_fuzz_split(data + 1, size - 1, part, plen, NPARTS);
    for (int i = 0; i < NPARTS; i++)
        if (part[i] == NULL)
            part[i] = (const uint8_t *)"";
    char a[4200], b[4200], msg[1024] = "";
    write_side(mode & 1, "a", part, plen, a, sizeof a);
    write_side(mode & 2, "b", part + 2, plen + 2, b, sizeof b);
    unsigned ignore = (mode >> 2) & (MBX_COMPARE_IGNORE_BENCHMARK | MBX_COMPARE_IGNORE_LABEL);
    mbx_compare *c = NULL;
    int rc = mbx_compare_load_ex(a, b, 0.05, ignore, &c, msg, sizeof msg);
    if (rc != MBX_OK) {
        MBX_FUZZ_CHECK(c == NULL && msg[0] != '\0' && strchr(msg, '\n') == NULL);
        MBX_FUZZ_CHECK(rc == MBX_E_PROTO || rc == MBX_E_INVAL || rc == MBX_E_IO);
        return 0;
    }
    mbx_compare_summary s;
    mbx_compare_summarize(c, &s);
    size_t n = mbx_compare_count(c);
    MBX_FUZZ_CHECK(n >= 1 && n == s.tested &&
                   s.faster + s.slower + s.same == (s.scope == MBX_CMP_SCOPE_NONE ? 0 : n));
    for (size_t i = 0; i < n; i++) {
        const mbx_cmp_point *p = mbx_compare_get(c, i);
        MBX_FUZZ_CHECK(p != NULL && p->benchmark != NULL && p->label != NULL);
        MBX_FUZZ_CHECK(p->n_a >= 1 && p->n_b >= 1);
        MBX_FUZZ_CHECK(p->verdict == '<' || p->verdict == '>' || p->verdict == '=' ||
                       p->verdict == '?');
        MBX_FUZZ_CHECK(p->w.p_two_sided >= 0.0 && p->w.p_two_sided <= 1.0);
        MBX_FUZZ_CHECK(!isnan(p->median_a) && !isnan(p->median_b));
        /* The readers take only times 0 <= t < 1e12 us (samples are s). */
        MBX_FUZZ_CHECK(p->median_a >= 0 && p->median_a < MBX_CSV_TIME_US_MAX * 1e-6);
        MBX_FUZZ_CHECK(p->median_b >= 0 && p->median_b < MBX_CSV_TIME_US_MAX * 1e-6);
    }
    MBX_FUZZ_CHECK(mbx_compare_get(c, n) == NULL);
    mbx_compare_free(c);
    return 0;
}
