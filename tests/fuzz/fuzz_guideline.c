/* libFuzzer target: guideline catalogues (mbx_gl_parse), the INI text
 * `mpibex guidelines RULES.ini` reads. A catalogue that parses must hold
 * what guideline.h promises; one that does not must say why. */
#include <string.h>

#include "fuzz_util.h"
#include "mbx/guideline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static mbx_gl_catalogue cat; /* 256 rules: too big for the stack */

static void check_side(const mbx_gl_side *s)
{
    MBX_FUZZ_CHECK(s->bench[0] != '\0' && memchr(s->bench, '\0', sizeof s->bench) != NULL);
    MBX_FUZZ_CHECK(strchr(s->bench, '.') != NULL && strchr(s->bench, '@') == NULL);
    MBX_FUZZ_CHECK(s->factor >= 1 && s->factor <= MBX_GL_FACTOR_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = mbx_fuzz_cstr(data, size);
    char msg[1024] = "";
    int rc = mbx_gl_parse(text, "fuzz.ini", &cat, msg, sizeof msg);
    if (rc == MBX_OK) {
        MBX_FUZZ_CHECK(cat.n >= 1 && cat.n <= MBX_GL_RULES_MAX);
        for (size_t i = 0; i < cat.n; i++) {
            const mbx_gl_rule *r = &cat.rule[i];
            MBX_FUZZ_CHECK(r->name[0] != '\0' && memchr(r->name, '\0', sizeof r->name) != NULL);
            MBX_FUZZ_CHECK(memchr(r->what, '\0', sizeof r->what) != NULL);
            MBX_FUZZ_CHECK(r->line >= 1);
            check_side(&r->lhs);
            check_side(&r->rhs);
            for (size_t j = 0; j < i; j++)
                MBX_FUZZ_CHECK(strcmp(r->name, cat.rule[j].name) != 0);
        }
    } else {
        MBX_FUZZ_CHECK(rc < 0 && msg[0] != '\0');
    }
    free(text);
    return 0;
}
