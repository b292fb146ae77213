/* libFuzzer target: theme files (mbx_theme_parse), read from themes/, the
 * user's ~/.config/mpibex/themes or --theme PATH. A theme that parses must
 * degrade to colours a terminal has; one that does not must say where. */
#include <string.h>

#include "fuzz_util.h"
#include "theme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_color(mbx_color c)
{
    MBX_FUZZ_CHECK(c.kind == MBX_COLOR_DEFAULT || c.kind == MBX_COLOR_INDEX ||
                   c.kind == MBX_COLOR_RGB);
    MBX_FUZZ_CHECK(c.kind != MBX_COLOR_INDEX || c.value <= 255);
    MBX_FUZZ_CHECK(c.kind != MBX_COLOR_RGB || c.value <= 0xffffff);
    int c256 = mbx_color_to_256(c), c8 = mbx_color_to_8(c);
    MBX_FUZZ_CHECK(c256 >= -1 && c256 <= 255);
    MBX_FUZZ_CHECK(c8 >= -1 && c8 <= 7);
    MBX_FUZZ_CHECK((c.kind == MBX_COLOR_DEFAULT) == (c256 == -1));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = mbx_fuzz_cstr(data, size);
    char msg[1024] = "";
    mbx_theme t;
    memset(&t, 0, sizeof t);
    int rc = mbx_theme_parse(text, "fuzz.theme", &t, msg, sizeof msg);
    if (rc == 0) {
        MBX_FUZZ_CHECK(t.name[0] != '\0' && memchr(t.name, '\0', sizeof t.name) != NULL);
        for (int r = 0; r < MBX_ROLE_COUNT; r++) {
            check_color(t.role[r].fg);
            check_color(t.role[r].bg);
            MBX_FUZZ_CHECK(t.role[r].attrs < 64 && t.role[r].mono_attrs < 64);
        }
    } else {
        MBX_FUZZ_CHECK(rc < 0 && strncmp(msg, "fuzz.theme:", 11) == 0);
    }
    free(text);
    return 0;
}
