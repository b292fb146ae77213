/* Axes for log-log plots: value-to-pixel mapping and tick choice,
 * independent of curses.
 *
 * Message sizes get binary ticks (powers of 2, labels 1, 4, 16, 64, 256,
 * 1Ki, 4Ki, ..., 1Mi, ..., 1Gi: suffix Ki/Mi/Gi when exact), times get SI
 * decade ticks (labels 10ns, 100ns, 1us, 10us, 100us, 1ms, 10ms, 100ms,
 * 1s, 10s; "µs" instead of "us" when utf8 is set), bandwidths get SI decade
 * ticks in MB/s (labels 0.1, 1, 10, 100, 1k, 10k, 100k). All ticks are
 * exact powers, so labels never read 0.999. */
#ifndef MBX_AXIS_H
#define MBX_AXIS_H

#define MBX_AXIS_MAX_TICKS 16
#define MBX_AXIS_LABEL 12

typedef struct mbx_scale {
    double lo, hi; /* lo < hi, both > 0 (log scale) */
} mbx_scale;

typedef enum mbx_axis_kind {
    MBX_AXIS_BYTES = 0,
    MBX_AXIS_SECONDS = 1,
    MBX_AXIS_MBPS = 2,
} mbx_axis_kind;

typedef struct mbx_ticks {
    int n;
    double value[MBX_AXIS_MAX_TICKS];
    char label[MBX_AXIS_MAX_TICKS][MBX_AXIS_LABEL];
} mbx_ticks;

/* Widen [min,max] of the data (both > 0; min == max allowed) to a scale
 * whose ends are tick values of the kind (powers of 2 for bytes, of 10
 * otherwise), with at least one tick step between them. Values <= 0 are
 * replaced by the smallest positive value of the kind's range (1 byte,
 * 1 ns, 0.001 MB/s). */
mbx_scale mbx_scale_fit(double min, double max, mbx_axis_kind kind);

/* Pixel (0 .. pixels-1) of value v on a log scale; v outside the scale
 * maps outside 0..pixels-1 (the caller clips). With `flip` the largest
 * value maps to pixel 0 (for y axes, where row 0 is the top). */
int mbx_scale_pixel(const mbx_scale *s, double v, int pixels, int flip);

/* Ticks of kind inside s, at most max_ticks (<= MBX_AXIS_MAX_TICKS): when
 * every power would be too many, take every 2nd, 4th, ... power (for bytes,
 * steps of 4x, 16x, 256x, ...; for decades, 100x, ...). */
void mbx_axis_ticks(const mbx_scale *s, mbx_axis_kind kind, int max_ticks, int utf8,
                    mbx_ticks *out);

/* Format one value as a label of its kind (same rules as the ticks, but for
 * any value: "1.5Ki", "2.3us", "950"), for tables and the status line. */
void mbx_axis_format(double v, mbx_axis_kind kind, int utf8, char *buf, int len);

#endif
