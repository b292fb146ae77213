#include "axis.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Decimal literals are correctly rounded by the compiler, whereas pow(10, e)
 * may be off by an ulp on some libms; exact-looking tick values matter
 * because labels are derived from them. */
#define P10_MIN (-24)
#define P10_MAX 24
static const double p10[] = {
    1e-24, 1e-23, 1e-22, 1e-21, 1e-20, 1e-19, 1e-18, 1e-17, 1e-16, 1e-15, 1e-14, 1e-13, 1e-12,
    1e-11, 1e-10, 1e-9,  1e-8,  1e-7,  1e-6,  1e-5,  1e-4,  1e-3,  1e-2,  1e-1,  1e0,   1e1,
    1e2,   1e3,   1e4,   1e5,   1e6,   1e7,   1e8,   1e9,   1e10,  1e11,  1e12,  1e13,  1e14,
    1e15,  1e16,  1e17,  1e18,  1e19,  1e20,  1e21,  1e22,  1e23,  1e24,
};

/* Data beyond these is nonsense for a benchmark; capping keeps every
 * exponent inside the exact tables and away from infinities. */
#define BYTES_CAP 1152921504606846976.0 /* 2^60 */
#define DECADE_CAP 1e21

static double pow10_exact(int e)
{
    if (e >= P10_MIN && e <= P10_MAX) {
        return p10[e - P10_MIN];
    }
    return pow(10.0, e);
}

static double kind_power(mbx_axis_kind kind, int e)
{
    return kind == MBX_AXIS_BYTES ? ldexp(1.0, e) : pow10_exact(e);
}

static double kind_min(mbx_axis_kind kind)
{
    switch (kind) {
    case MBX_AXIS_BYTES: return 1.0;
    case MBX_AXIS_SECONDS: return 1e-9;
    default: return 1e-3;
    }
}

/* Largest e with base^e <= v, for finite v > 0. log10 alone can land one
 * off near exact powers, so the guess is corrected against exact powers. */
static int floor_exp(double v, mbx_axis_kind kind)
{
    if (kind == MBX_AXIS_BYTES) {
        int e;
        (void)frexp(v, &e); /* v = m * 2^e, 0.5 <= m < 1 */
        return e - 1;
    }
    int e = (int)floor(log10(v));
    while (e > -400 && pow10_exact(e) > v) {
        e--;
    }
    while (e < 400 && pow10_exact(e + 1) <= v) {
        e++;
    }
    return e;
}

/* Smallest e with base^e >= v. */
static int ceil_exp(double v, mbx_axis_kind kind)
{
    int e = floor_exp(v, kind);
    return kind_power(kind, e) < v ? e + 1 : e;
}

static double sanitize(double v, mbx_axis_kind kind)
{
    double lo = kind_min(kind);
    double hi = kind == MBX_AXIS_BYTES ? BYTES_CAP : DECADE_CAP;
    if (!(v >= lo)) { /* also NaN */
        return lo;
    }
    return v > hi ? hi : v;
}

mbx_scale mbx_scale_fit(double min, double max, mbx_axis_kind kind)
{
    min = sanitize(min, kind);
    max = sanitize(max, kind);
    if (min > max) {
        double t = min;
        min = max;
        max = t;
    }
    int elo = floor_exp(min, kind);
    int ehi = ceil_exp(max, kind);
    if (elo == ehi) {
        elo--;
        ehi++;
        /* Nothing lives below the kind's minimum, so grow upwards instead. */
        if (kind_power(kind, elo) < kind_min(kind)) {
            elo++;
            ehi++;
        }
    }
    mbx_scale s = {kind_power(kind, elo), kind_power(kind, ehi)};
    return s;
}

int mbx_scale_pixel(const mbx_scale *s, double v, int pixels, int flip)
{
    if (s == NULL || pixels <= 1 || !(s->lo > 0.0) || !(s->hi > s->lo) || isinf(s->hi)) {
        return 0;
    }
    if (isnan(v)) {
        return -1;
    }
    double frac = (log(v) - log(s->lo)) / (log(s->hi) - log(s->lo));
    double p = round(frac * (pixels - 1));
    if (flip) {
        p = (pixels - 1) - p;
    }
    /* Far-off values (and log(0) = -inf) must still convert to a defined
     * int; anything this far out is clipped by the caller anyway. */
    double limit = (double)(INT_MAX / 4);
    if (!(p > -limit)) {
        return -(INT_MAX / 4);
    }
    if (p > limit) {
        return INT_MAX / 4;
    }
    return (int)p;
}

static int floor_div(int a, int b)
{
    int q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static int ceil_div(int a, int b)
{
    return -floor_div(-a, b);
}

void mbx_axis_ticks(const mbx_scale *s, mbx_axis_kind kind, int max_ticks, int utf8, mbx_ticks *out)
{
    if (out == NULL) {
        return;
    }
    out->n = 0;
    if (max_ticks > MBX_AXIS_MAX_TICKS) {
        max_ticks = MBX_AXIS_MAX_TICKS;
    }
    if (s == NULL || max_ticks < 1 || !(s->lo > 0.0) || !(s->hi >= s->lo) || isinf(s->hi)) {
        return;
    }
    int first = ceil_exp(s->lo, kind);
    int last = floor_exp(s->hi, kind);
    if (first > last) {
        return;
    }
    /* Thinning keeps exponents that are multiples of the stride, so the
     * ticks stay on round values (1, 16, 256 ... rather than 2, 32, 512). */
    int stride = 1;
    while (floor_div(last, stride) - ceil_div(first, stride) + 1 > max_ticks) {
        stride *= 2;
    }
    for (int k = ceil_div(first, stride); k <= floor_div(last, stride); k++) {
        double v = kind_power(kind, k * stride);
        out->value[out->n] = v;
        mbx_axis_format(v, kind, utf8, out->label[out->n], MBX_AXIS_LABEL);
        out->n++;
    }
}

/* v rounded to three significant digits as n * 10^(e - 2), 100 <= n <= 999.
 * The tiny nudge makes halves written in decimal (2.345) round up although
 * their binary value is a hair below. */
static void round3(double v, long long *n, int *e)
{
    int ex = floor_exp(v, MBX_AXIS_SECONDS); /* any decimal kind: floor(log10 v) */
    double scaled = ex >= 2 ? v / pow10_exact(ex - 2) : v * pow10_exact(2 - ex);
    long long r = llround(scaled * (1.0 + 1e-12));
    if (r >= 1000) {
        r /= 10;
        ex++;
    }
    *n = r;
    *e = ex;
}

/* Write n * 10^shift in plain decimal, without trailing fractional zeros. */
static void put_decimal(long long n, int shift, char *out, size_t len)
{
    if (shift < -6 || shift > 4) {
        /* Far outside the unit system a row of zeros would be cut off by the
         * label width, so exponent notation is the lesser evil. */
        snprintf(out, len, "%.3g", (double)n * pow10_exact(shift));
        return;
    }
    char digits[32];
    snprintf(digits, sizeof digits, "%lld", n);
    int nd = (int)strlen(digits);
    int point = nd + shift; /* digits before the decimal point */
    char tmp[64];
    int k = 0;
    if (shift >= 0) {
        for (int i = 0; i < nd + shift && k < (int)sizeof tmp - 1; i++) {
            tmp[k++] = i < nd ? digits[i] : '0';
        }
    } else if (point <= 0) {
        tmp[k++] = '0';
        tmp[k++] = '.';
        for (int i = 0; i < -point && k < (int)sizeof tmp - 2; i++) {
            tmp[k++] = '0';
        }
        for (int i = 0; i < nd && k < (int)sizeof tmp - 1; i++) {
            tmp[k++] = digits[i];
        }
    } else {
        for (int i = 0; i < nd && k < (int)sizeof tmp - 2; i++) {
            if (i == point) {
                tmp[k++] = '.';
            }
            tmp[k++] = digits[i];
        }
    }
    tmp[k] = '\0';
    if (strchr(tmp, '.') != NULL) {
        while (k > 0 && tmp[k - 1] == '0') {
            tmp[--k] = '\0';
        }
        if (k > 0 && tmp[k - 1] == '.') {
            tmp[--k] = '\0';
        }
    }
    snprintf(out, len, "%s", tmp);
}

static void format_bytes(double v, char *out, size_t len)
{
    static const char *const unit[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    if (v < 1024.0) {
        if (v == floor(v)) {
            snprintf(out, len, "%.0f", v);
            return;
        }
        long long n;
        int e;
        round3(v, &n, &e);
        put_decimal(n, e - 2, out, len);
        return;
    }
    int k = floor_exp(v, MBX_AXIS_BYTES) / 10;
    if (k > 6) {
        k = 6;
    }
    double m = ldexp(v, -10 * k);
    char num[40];
    if (m >= 1000.0 && k < 6) {
        /* Four digits fit and read better than a 1020Ki rounding. */
        long long n = llround(m);
        if (n >= 1024) {
            n = 1;
            k++;
        }
        snprintf(num, sizeof num, "%lld", n);
    } else {
        long long n;
        int e;
        round3(m, &n, &e);
        put_decimal(n, e - 2, num, sizeof num);
    }
    snprintf(out, len, "%s%s", num, unit[k]);
}

static void format_si(double v, mbx_axis_kind kind, int utf8, char *out, size_t len)
{
    static const struct {
        int exp;
        const char *ascii, *utf8;
    } sec[] = {{-9, "ns", "ns"}, {-6, "us", "\xc2\xb5s"}, {-3, "ms", "ms"}, {0, "s", "s"}},
      mbps[] = {{0, "", ""}, {3, "k", "k"}, {6, "M", "M"}, {9, "G", "G"}, {12, "T", "T"}};
    const int nu = kind == MBX_AXIS_SECONDS ? 4 : 5;
    long long n;
    int e;
    round3(v, &n, &e);
    /* Largest unit not above the value; tiny values keep the smallest unit. */
    int u = 0;
    for (int i = 0; i < nu; i++) {
        int ue = kind == MBX_AXIS_SECONDS ? sec[i].exp : mbps[i].exp;
        if (ue <= e) {
            u = i;
        }
    }
    int uexp = kind == MBX_AXIS_SECONDS ? sec[u].exp : mbps[u].exp;
    const char *suffix = kind == MBX_AXIS_SECONDS ? (utf8 ? sec[u].utf8 : sec[u].ascii)
                                                  : (utf8 ? mbps[u].utf8 : mbps[u].ascii);
    char num[40];
    put_decimal(n, e - 2 - uexp, num, sizeof num);
    snprintf(out, len, "%s%s", num, suffix);
}

void mbx_axis_format(double v, mbx_axis_kind kind, int utf8, char *buf, int len)
{
    if (buf == NULL || len <= 0) {
        return;
    }
    char text[96];
    const char *sign = "";
    if (isnan(v)) {
        snprintf(text, sizeof text, "nan");
    } else if (v == 0.0) {
        snprintf(text, sizeof text, "0");
    } else {
        if (v < 0.0) {
            sign = "-";
            v = -v;
        }
        char body[80];
        if (isinf(v)) {
            snprintf(body, sizeof body, "inf");
        } else if (v >= 1e21 || v < 1e-18) {
            snprintf(body, sizeof body, "%.3g", v); /* beyond every unit */
        } else if (kind == MBX_AXIS_BYTES) {
            format_bytes(v, body, sizeof body);
        } else {
            format_si(v, kind, utf8, body, sizeof body);
        }
        snprintf(text, sizeof text, "%s%s", sign, body);
    }
    /* Truncate on a character boundary so a cut never leaves half a µ. */
    size_t n = strlen(text);
    if (n > (size_t)len - 1) {
        n = (size_t)len - 1;
        while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80) {
            n--;
        }
    }
    memcpy(buf, text, n);
    buf[n] = '\0';
}
