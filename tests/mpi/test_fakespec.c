/* The fake back end checks a point's warm-up kind and buffer offset as the
 * engine does: a pass scheduler driving the fake (run --fake)
 * meets the same rules without MPI. No MPI calls; exits non-zero on a
 * failed check. */
#include <stdio.h>
#include <stdlib.h>

#include "mbx/backend.h"
#include "mbx/bench.h"

static int fails;

static void expect(int got, int want, const char *what)
{
    if (got != want) {
        fprintf(stderr, "test_fakespec: FAILED: %s: got %d, want %d\n", what, got, want);
        fails++;
    }
}

int main(void)
{
    mbx_backend b;
    mbx_backend_fake(2, &b);
    int id = -1;
    (void)mbx_bench_find("pingpong.send_recv", &id);
    mbx_point_spec s = {.bench_id = id,
                        .bytes = 8,
                        .procs = 2,
                        .stop = {MBX_STOP_FIXED, 0, 16},
                        .nmin = 16,
                        .nmax = 16};
    mbx_result r;
    static const uint32_t good[] = {0, 64, 128, 4032};
    static const uint32_t bad[] = {1, 32, 100, 4033, 4096, 65536};
    for (int light = 0; light <= 1; light++)
        for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
            s.warm_light = light;
            s.buf_offset = good[i];
            expect(b.measure(&b, &s, NULL, NULL, &r, NULL, NULL), MBX_OK, "a valid spec");
        }
    s.warm_light = 0;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        s.buf_offset = bad[i];
        expect(b.measure(&b, &s, NULL, NULL, &r, NULL, NULL), MBX_E_INVAL, "a bad offset");
    }
    s.buf_offset = 0;
    s.warm_light = 2;
    expect(b.measure(&b, &s, NULL, NULL, &r, NULL, NULL), MBX_E_INVAL, "warm_light 2");
    mbx_backend_fake_free(&b);
    if (!fails)
        printf("test_fakespec: fake back end checks warm_light and buf_offset\n");
    return fails ? 1 : 0;
}
