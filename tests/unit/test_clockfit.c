/* Window sync: the clock model's fit (engine/core/clockfit.c) on
 * synthetic offset samples with a known offset, drift and noise. A slope
 * is kept only when it is significant and the samples span the asked
 * time; otherwise the model is the mean offset. No MPI. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mbx/clockfit.h"

#define N 20

/* A seeded standard normal (Box-Muller over splitmix64). */
static double gauss(uint64_t *s)
{
    double u[2];
    for (int i = 0; i < 2; i++) {
        uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        u[i] = ((double)(z >> 11) + 0.5) / 9007199254740992.0;
    }
    return sqrt(-2.0 * log(u[0])) * cos(6.283185307179586 * u[1]);
}

/* N samples from t0 over span seconds: offset o0 + drift * t + noise. */
static void samples(uint64_t seed, double t0, double span, double o0, double drift, double noise,
                    double *t, double *o, double *rtt)
{
    uint64_t s = seed;
    for (int i = 0; i < N; i++) {
        t[i] = t0 + span * i / (N - 1);
        o[i] = o0 + drift * t[i] + noise * gauss(&s);
        rtt[i] = 2e-6;
    }
}

static void flat_clock_keeps_no_slope(void **state)
{
    (void)state;
    double t[N], o[N], rtt[N];
    int kept = 0;
    for (uint64_t seed = 1; seed <= 400; seed++) {
        samples(seed, 5000.0, 1.0, 3e-3, 0.0, 0.5e-6, t, o, rtt);
        mbx_clockfit f;
        assert_int_equal(mbx_clockfit_line(t, o, rtt, N, 0.0, 1.0, &f), MBX_OK);
        kept += f.slope_kept;
        if (!f.slope_kept) {
            assert_true(f.slope == 0.0);
            /* the mean offset, to within a few noise / sqrt(N) */
            assert_true(fabs(f.intercept - 3e-3) < 5 * 0.5e-6 / sqrt(N));
        }
    }
    /* a 95 % test: about 5 % false slopes; the old fit kept all 400 */
    assert_true(kept <= 40);
}

static void drifting_clock_keeps_its_slope(void **state)
{
    (void)state;
    double t[N], o[N], rtt[N];
    for (uint64_t seed = 1; seed <= 100; seed++) {
        samples(seed, 5000.0, 1.0, 3e-3, 20e-6, 0.5e-6, t, o, rtt);
        mbx_clockfit f;
        assert_int_equal(mbx_clockfit_line(t, o, rtt, N, 0.0, 1.0, &f), MBX_OK);
        assert_int_equal(f.slope_kept, 1);
        assert_true(fabs(f.slope - 20e-6) < 5 * f.slope_se);
        assert_true(f.drift_err == f.slope_se);
        /* the model at the middle of the samples */
        double mid = 5000.5;
        assert_true(fabs(f.intercept + f.slope * mid - (3e-3 + 20e-6 * mid)) < 1e-6);
    }
}

static void short_span_keeps_no_slope(void **state)
{
    (void)state;
    double t[N], o[N], rtt[N];
    /* 95 ms of samples, as the old sync took: a real drift, but not enough
     * time to trust it when 1 s is asked */
    samples(7, 100.0, 0.095, 0.0, 20e-6, 0.1e-6, t, o, rtt);
    mbx_clockfit f;
    assert_int_equal(mbx_clockfit_line(t, o, rtt, N, 0.0, 1.0, &f), MBX_OK);
    assert_int_equal(f.slope_kept, 0);
    assert_true(fabs(f.span - 0.095) < 1e-9);
    assert_true(f.drift_err >= fabs(f.slope_fit));
    assert_int_equal(mbx_clockfit_line(t, o, rtt, N, 0.0, 0.05, &f), MBX_OK);
    assert_int_equal(f.slope_kept, 1);
}

static void two_samples_offset_only(void **state)
{
    (void)state;
    double t[2] = {0.0, 1.0}, o[2] = {1e-6, 3e-6}, rtt[2] = {1e-6, 1e-6};
    mbx_clockfit f;
    assert_int_equal(mbx_clockfit_line(t, o, rtt, 2, 0.0, 0.0, &f), MBX_OK);
    assert_int_equal(f.slope_kept, 0);
    assert_true(isinf(f.slope_se));
    assert_true(fabs(f.intercept - 2e-6) < 1e-15);
}

static void bad_input(void **state)
{
    (void)state;
    double t[3] = {0, 1, 2}, o[3] = {0, 0, NAN}, r[3] = {1, 1, 1};
    mbx_clockfit f;
    assert_int_equal(mbx_clockfit_line(t, o, r, 3, 0.0, 0.0, &f), MBX_E_INVAL);
    assert_int_equal(mbx_clockfit_line(t, o, r, 0, 0.0, 0.0, &f), MBX_E_INVAL);
    assert_int_equal(mbx_clockfit_line(NULL, o, r, 2, 0.0, 0.0, &f), MBX_E_INVAL);
    assert_int_equal(mbx_clockfit_line(t, o, r, 2, -1.0, 0.0, &f), MBX_E_INVAL);
    assert_true(fabs(mbx_clockfit_tcrit(18) - 2.101) < 1e-9);
    assert_true(isinf(mbx_clockfit_tcrit(0)));
    assert_true(fabs(mbx_clockfit_tcrit(1000) - 1.96) < 0.01);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flat_clock_keeps_no_slope),
        cmocka_unit_test(drifting_clock_keeps_its_slope),
        cmocka_unit_test(short_span_keeps_no_slope),
        cmocka_unit_test(two_samples_offset_only),
        cmocka_unit_test(bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
