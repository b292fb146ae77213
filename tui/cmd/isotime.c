#include "isotime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/csvio.h"

long long mbx_iso_seconds(const char *v)
{
    int y, mo, d, h, mi, se, n = 0;
    if (sscanf(v, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &se, &n) != 6 || n != 19 ||
        mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
        return -1;
    const char *z = v + n;
    long long off = 0;
    if (strcmp(z, "Z") != 0) {
        int oh, om;
        char sign;
        if (!(sscanf(z, "%c%2d%2d", &sign, &oh, &om) == 3 && strlen(z) == 5) &&
            !(sscanf(z, "%c%2d:%2d", &sign, &oh, &om) == 3 && strlen(z) == 6))
            return -1;
        if ((sign != '+' && sign != '-') || oh > 14 || om > 59)
            return -1;
        off = (sign == '+' ? 1 : -1) * (oh * 3600LL + om * 60LL);
    }
    /* days from 1970-01-01 to y-mo-d, proleptic Gregorian calendar */
    long long yy = y - (mo <= 2), era = (yy >= 0 ? yy : yy - 399) / 400;
    long long yoe = yy - era * 400, mp = (mo + 9) % 12;
    long long doy = (153 * mp + 2) / 5 + d - 1, doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    long long days = era * 146097 + doe - 719468;
    return days * 86400 + h * 3600LL + mi * 60LL + se - off;
}

int mbx_repeat_window(const char *dir, long long *first, long long *last)
{
    char path[4200];
    mbx_csv_table t;
    if (snprintf(path, sizeof path, "%s/repeat.csv", dir) >= (int)sizeof path ||
        mbx_csv_read_file(path, &t) != MBX_OK)
        return -1;
    *first = *last = -1;
    for (size_t r = 0; r < t.nrows; r++) {
        const char *k = t.cell[r][0];
        size_t kl = strlen(k);
        if (t.ncols[r] != 2 || strncmp(k, "launch.", 7) != 0 || kl < 6 ||
            strcmp(k + kl - 6, ".start") != 0)
            continue;
        long long at = mbx_iso_seconds(t.cell[r][1]);
        if (at < 0)
            continue;
        *first = *first < 0 || at < *first ? at : *first;
        *last = at > *last ? at : *last;
    }
    mbx_csv_table_free(&t);
    return *first >= 0 ? 0 : -1;
}
