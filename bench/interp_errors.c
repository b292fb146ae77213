/* Interpolation errors of a measured curve against a dense reference, by
 * refinement's own criterion (mbx_refine_interp_err: log-log, see
 * docs/algorithms.md "Adaptive refinement"), so a benchmark judges a grid
 * exactly as refinement judged it. Each input line is "BYTES US"; the
 * curve's lines may come in any order. For every reference point inside
 * the curve's range, one relative error is printed per line, ascending (a
 * size the curve measured is compared with the curve's own value).
 * usage: mbx_interp_errors CURVE REFERENCE
 * Exit 2 with one line on bad input. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "mbx/refine.h"

typedef struct {
    uint64_t x;
    double y;
} mbx_ie_pt;

static int mbx_ie_cmp_x(const void *a, const void *b)
{
    uint64_t p = ((const mbx_ie_pt *)a)->x, q = ((const mbx_ie_pt *)b)->x;
    return (p > q) - (p < q);
}

static int mbx_ie_cmp_d(const void *a, const void *b)
{
    double p = *(const double *)a, q = *(const double *)b;
    return (p > q) - (p < q);
}

/* The points of file path, sorted by x; NULL (and a line on stderr) on
 * error. */
static mbx_ie_pt *mbx_ie_read(const char *path, size_t *n)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "mbx_interp_errors: %s: cannot open\n", path);
        return NULL;
    }
    mbx_ie_pt *p = NULL;
    size_t cap = 0;
    uint64_t x;
    double y;
    int got;
    *n = 0;
    while ((got = fscanf(f, "%" SCNu64 " %lf", &x, &y)) == 2) {
        if (!(y > 0)) {
            fprintf(stderr, "mbx_interp_errors: %s: US must be > 0, got %g\n", path, y);
            got = 0;
            break;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            mbx_ie_pt *q = realloc(p, cap * sizeof *q);
            if (q == NULL) {
                fprintf(stderr, "mbx_interp_errors: out of memory\n");
                free(p);
                fclose(f);
                return NULL;
            }
            p = q;
        }
        p[(*n)++] = (mbx_ie_pt){x, y};
    }
    fclose(f);
    if (got != EOF) {
        fprintf(stderr, "mbx_interp_errors: %s: expected lines of BYTES US\n", path);
        free(p);
        return NULL;
    }
    qsort(p, *n, sizeof *p, mbx_ie_cmp_x);
    return p;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: mbx_interp_errors CURVE REFERENCE\n");
        return 2;
    }
    size_t nc, nr;
    mbx_ie_pt *c = mbx_ie_read(argv[1], &nc), *r = c ? mbx_ie_read(argv[2], &nr) : NULL;
    double *e = r && nr ? malloc(nr * sizeof *e) : NULL;
    if (c == NULL || r == NULL || (nr && e == NULL) || nc < 2) {
        if (c != NULL && nc < 2)
            fprintf(stderr, "mbx_interp_errors: %s: the curve needs 2 points\n", argv[1]);
        free(c);
        free(r);
        return 2;
    }
    size_t ne = 0, j = 0;
    for (size_t i = 0; i < nr; i++) {
        if (r[i].x < c[0].x || r[i].x > c[nc - 1].x)
            continue;
        while (c[j].x < r[i].x)
            j++;
        double v = c[j].x == r[i].x ? (c[j].y > r[i].y ? c[j].y - r[i].y : r[i].y - c[j].y) / r[i].y
                                    : mbx_refine_interp_err(c[j - 1].x, c[j - 1].y, c[j].x, c[j].y,
                                                            r[i].x, r[i].y);
        if (v == v) /* NAN at 0 B: no log-log value */
            e[ne++] = v;
    }
    qsort(e, ne, sizeof *e, mbx_ie_cmp_d);
    for (size_t i = 0; i < ne; i++)
        printf("%.9g\n", e[i]);
    free(c);
    free(r);
    free(e);
    return 0;
}
