/* libFuzzer target: byte counts and size ranges (mbx_size_parse,
 * mbx_sizes_parse), as given to --sizes and a plan's sizes key. Every
 * accepted size must format (mbx_size_format) and read back to itself. */
#include <string.h>

#include "fuzz_util.h"
#include "mbx/sizes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static mbx_size_list list;

static void round_trip(uint64_t v)
{
    char text[32], msg[256];
    uint64_t back = ~(uint64_t)0;
    mbx_size_format(v, text, sizeof text);
    MBX_FUZZ_CHECK(mbx_size_parse(text, &back, msg, sizeof msg) == MBX_OK);
    MBX_FUZZ_CHECK(back == v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = mbx_fuzz_cstr(data, size);
    char msg[512] = "";
    uint64_t v = 0;
    if (mbx_size_parse(text, &v, msg, sizeof msg) == MBX_OK) {
        MBX_FUZZ_CHECK(v <= MBX_SIZE_MAX_BYTES);
        round_trip(v);
    } else {
        MBX_FUZZ_CHECK(msg[0] != '\0');
    }
    msg[0] = '\0';
    if (mbx_sizes_parse(text, &list, msg, sizeof msg) == MBX_OK) {
        MBX_FUZZ_CHECK(list.n >= 1 && list.n <= MBX_SIZES_MAX_POINTS);
        for (size_t i = 0; i < list.n; i++) {
            MBX_FUZZ_CHECK(list.v[i] <= MBX_SIZE_MAX_BYTES);
            MBX_FUZZ_CHECK(i == 0 || list.v[i] > list.v[i - 1]);
        }
        round_trip(list.v[0]);
        round_trip(list.v[list.n - 1]);
    } else {
        MBX_FUZZ_CHECK(msg[0] != '\0' && list.n == 0);
    }
    free(text);
    return 0;
}
