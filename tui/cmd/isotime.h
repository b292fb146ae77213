/* ISO 8601 times as mpibex's own files write them: "YYYY-MM-DDTHH:MM:SSZ"
 * (an environment file's date_utc) or "YYYY-MM-DDTHH:MM:SS+HHMM" (repeat.csv's
 * start times, local with their offset). */
#ifndef MBX_ISOTIME_H
#define MBX_ISOTIME_H

/* Seconds since 1970 (UTC) of v, or -1 when v is not such a time. */
long long mbx_iso_seconds(const char *v);

/* The start times of the launches a repeat directory's record
 * (DIR/repeat.csv, launch.NN.start) holds: 0 and the first and last, or
 * -1 when there is no record or no launch with a start time in it. */
int mbx_repeat_window(const char *dir, long long *first, long long *last);

#endif
