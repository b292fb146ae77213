/* libFuzzer target: `mpibex run --resume` reading what a killed run left
 * (mbx_resume_load): the journal, then MBX_FUZZ_SEP, then OUT.csv. The
 * journal's fingerprint must be MBX_FUZZ_PLAN_HASH for the CSV to be read. */
#include <math.h>
#include <string.h>

#include "fuzz_util.h"
#include "mbx/csvio.h"
#include "mbx/journal.h"
#include "mbx/result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MBX_FUZZ_PLAN_HASH 0x0123456789abcdefull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *part[2] = {data, (const uint8_t *)""};
    size_t plen[2] = {size, 0};
    (void)mbx_fuzz_split(data, size, part, plen, 2);
    char journal[4200], csv[4200], msg[1024] = "";
    mbx_fuzz_write("out.journal", part[0], plen[0], journal, sizeof journal);
    mbx_fuzz_write("out.csv", part[1], plen[1], csv, sizeof csv);
    mbx_resume r;
    int rc = mbx_resume_load(csv, journal, MBX_FUZZ_PLAN_HASH, &r, msg, sizeof msg);
    if (rc != 0) {
        /* A failed load owns nothing: no mbx_resume_free needed. */
        MBX_FUZZ_CHECK((rc == MBX_E_INVAL || rc == MBX_E_IO) && msg[0] != '\0' && r.n == 0 &&
                       r.key == NULL);
        return 0;
    }
    MBX_FUZZ_CHECK(r.ncols <= MBX_RESULT_NCOLS);
    for (size_t i = 0; i < r.n; i++) {
        MBX_FUZZ_CHECK(memchr(r.key[i], '\0', MBX_KEY_MAX) != NULL);
        MBX_FUZZ_CHECK(memchr(r.curve[i], '\0', MBX_KEY_MAX) != NULL);
        /* Only plain times 0 <= t < 1e12 us are read (kept in seconds). */
        MBX_FUZZ_CHECK(isnan(r.median_s[i]) ||
                       (r.median_s[i] >= 0 && r.median_s[i] < MBX_CSV_TIME_US_MAX * 1e-6));
        MBX_FUZZ_CHECK(isnan(r.plain_s[i]) ||
                       (r.plain_s[i] >= 0 && r.plain_s[i] < MBX_CSV_TIME_US_MAX * 1e-6));
        MBX_FUZZ_CHECK(r.procs[i] >= 1);
        long at = mbx_resume_find(&r, r.key[i]);
        MBX_FUZZ_CHECK(at >= 0 && (size_t)at <= i);
    }
    /* Passes carried over belong to points without a row, and are passes
     * the scheduler takes (mbx_sched_preload). */
    size_t np = 0;
    for (size_t i = 0; i < r.nopen; i++) {
        const mbx_resume_open *o = &r.open[i];
        MBX_FUZZ_CHECK(memchr(o->key, '\0', MBX_KEY_MAX) != NULL);
        MBX_FUZZ_CHECK(mbx_resume_find(&r, o->key) < 0 && o->npass > 0 && o->procs >= 1);
        for (size_t k = 0; k < o->npass; k++) {
            const mbx_pass *p = &o->pass[k];
            MBX_FUZZ_CHECK(p->median > 0 && isfinite(p->median) && p->n > 0);
            MBX_FUZZ_CHECK(isfinite(p->t_start) && p->t_start <= p->t_end &&
                           p->t_end <= r.pass_end);
        }
        np += o->npass;
    }
    MBX_FUZZ_CHECK(np == r.npass);
    mbx_resume_free(&r);
    return 0;
}
