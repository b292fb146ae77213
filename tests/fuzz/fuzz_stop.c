/* libFuzzer target: stop rules (mbx_stop_parse, as --stop and a plan's stop
 * key), then the rule judged on a sample. The input is the rule's text, a
 * newline, and the sample: each 4 bytes one observation of 0..4.3 s in ns
 * (times a timer can give; the statistics module is not the target). */
#include <math.h>
#include <string.h>

#include "fuzz_util.h"
#include "mbx/stats.h"
#include "mbx/stop.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_OBS 512

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t tlen = nl ? (size_t)(nl - data) : size;
    char *text = mbx_fuzz_cstr(data, tlen);
    char msg[256] = "";
    mbx_stop_rule rule;
    if (mbx_stop_parse(text, &rule, msg, sizeof msg) != MBX_OK) {
        MBX_FUZZ_CHECK(msg[0] != '\0');
        free(text);
        return 0;
    }
    free(text);
    if (rule.kind == MBX_STOP_FIXED)
        MBX_FUZZ_CHECK(rule.fixed >= 1 && rule.fixed <= MBX_NMAX_LIMIT);
    else
        MBX_FUZZ_CHECK(rule.kind <= MBX_STOP_CI && rule.eps > 0.0 && rule.eps < 1.0);

    /* The canonical text is written to every result row's stop_rule. */
    char canon[64];
    mbx_stop_rule back;
    mbx_stop_format(&rule, canon, sizeof canon);
    msg[0] = '\0';
    if (mbx_stop_parse(canon, &back, msg, sizeof msg) != MBX_OK) {
        fprintf(stderr, "'%s' does not read back: %s\n", canon, msg);
        abort();
    }
    MBX_FUZZ_CHECK(back.kind == rule.kind && back.fixed == rule.fixed);
    MBX_FUZZ_CHECK(rule.kind == MBX_STOP_FIXED || fabs(back.eps - rule.eps) <= 1e-5 * rule.eps);

    /* The sample after the newline, if any. */
    static double x[MAX_OBS], scratch[MAX_OBS];
    size_t n = 0;
    if (nl != NULL) {
        const uint8_t *p = nl + 1, *end = data + size;
        for (; n < MAX_OBS && end - p >= 4; p += 4)
            x[n++] = (double)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                              (uint32_t)p[3] << 24) *
                     1e-9;
    }
    mbx_summary s;
    memset(&s, 0, sizeof s);
    if (n > 0 && mbx_stats_summarize(x, n, scratch, &s) == MBX_OK) {
        MBX_FUZZ_CHECK(s.n == n && s.min <= s.max && s.ci_lo <= s.ci_hi);
        for (size_t i = 1; i < n; i++)
            MBX_FUZZ_CHECK(scratch[i - 1] <= scratch[i]);
    }
    (void)mbx_stop_progress(&rule, &s);
    size_t nmin = n / 2 + 1, nmax = n + 1;
    mbx_stop_verdict v = mbx_stop_eval(&rule, &s, 1e-9, nmin, nmax);
    MBX_FUZZ_CHECK(v == MBX_STOP_GO_ON || v == MBX_STOP_MET || v == MBX_STOP_AT_NMAX);
    return 0;
}
