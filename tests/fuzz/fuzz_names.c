/* libFuzzer target: names typed by users (engine/core/names.c), as given
 * to --bench, a plan's bench key, `mpibex list` and the picker's filter.
 * The input is a comma-separated list of items, matched against a made-up
 * registry: a selection holds distinct ids, each a name some item selects
 * (as a glob, the name itself, or its group); a refusal says why. Every
 * item is also a glob against itself and the registry's names: a pattern
 * without a glob character matches only itself, one without '[' matches
 * itself, "*" matches all; the edit distance is symmetric and bounded. */
#include <string.h>

#include "fuzz_util.h"
#include "mbx/names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const reg[] = {
    "pingpong.send_recv", "pingpong.isend_recv", "simple.wtime", "coll.barrier", "coll.bcast",
    "coll.allreduce",     "coll.ibarrier",       "rma.put",      "rma.get",      "bw.uni",
    "pingpong.mt",        "self.sendrecv",
};
#define NREG (sizeof reg / sizeof reg[0])
#define MAX_ITEMS 16

/* Whether item selects name, by the rules of mbx_name_select. */
static int selects(const char *item, const char *name)
{
    size_t len = strlen(item);
    if (mbx_name_is_glob(item))
        return mbx_name_glob(item, name);
    for (size_t k = 0; k < NREG; k++)
        if (strcmp(reg[k], item) == 0)
            return strcmp(name, item) == 0;
    return strncmp(name, item, len) == 0 && name[len] == '.';
}

static void check_glob(const char *item)
{
    size_t n = strlen(item);
    if (!mbx_name_is_glob(item))
        for (size_t k = 0; k < NREG; k++)
            MBX_FUZZ_CHECK(mbx_name_glob(item, reg[k]) == (strcmp(item, reg[k]) == 0));
    if (strchr(item, '[') == NULL)
        MBX_FUZZ_CHECK(mbx_name_glob(item, item));
    MBX_FUZZ_CHECK(mbx_name_glob("*", item));
    for (size_t k = 0; k < NREG && n < 64; k++) {
        size_t nr = strlen(reg[k]);
        size_t d = mbx_edit_distance(item, n, reg[k], nr);
        MBX_FUZZ_CHECK(d == mbx_edit_distance(reg[k], nr, item, n));
        MBX_FUZZ_CHECK(d <= (n > nr ? n : nr) && d >= (n > nr ? n - nr : nr - n));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = mbx_fuzz_cstr(data, size);
    const char *items[MAX_ITEMS];
    size_t nitems = 0;
    for (char *save = NULL, *w = strtok_r(text, ",", &save); w && nitems < MAX_ITEMS;
         w = strtok_r(NULL, ",", &save)) {
        items[nitems++] = w;
        check_glob(w);
    }
    int ids[NREG];
    size_t n = 0;
    mbx_select_why why = {{0}, {0}};
    if (mbx_name_select(reg, NREG, items, nitems, ids, NREG, &n, &why) == 0) {
        MBX_FUZZ_CHECK(n <= NREG);
        for (size_t i = 0; i < n; i++) {
            MBX_FUZZ_CHECK(ids[i] >= 0 && (size_t)ids[i] < NREG);
            int by = 0;
            for (size_t j = 0; j < i; j++)
                MBX_FUZZ_CHECK(ids[j] != ids[i]);
            for (size_t t = 0; t < nitems; t++)
                by |= selects(items[t], reg[ids[i]]);
            MBX_FUZZ_CHECK(by);
        }
    } else {
        MBX_FUZZ_CHECK(why.what[0] != '\0');
    }
    free(text);
    return 0;
}
