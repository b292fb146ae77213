/* The escaping of every sink on known hostile inputs: what each one must
 * become, that nothing raw (ESC, C1, DEL, invalid UTF-8) survives, and that
 * a short buffer cuts between whole escapes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mbx/esc.h"

typedef mbx_status (*esc_fn)(const char *, char *, size_t);

static void expect(esc_fn f, const char *in, const char *want)
{
    char out[512];
    assert_int_equal(f(in, out, sizeof out), MBX_OK);
    assert_string_equal(out, want);
}

/* No byte below 0x20 (tab too, unless allowed), no DEL, no raw
 * C1 in UTF-8 form, and the output is valid UTF-8 apart from that. */
static void assert_clean(const char *s, int allow_tab)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (allow_tab && *p == '\t')
            continue;
        assert_true(*p >= 0x20 && *p != 0x7f);
        if (*p == 0xc2)
            assert_false(p[1] >= 0x80 && p[1] <= 0x9f);
    }
}

static const char *const hostile[] = {
    "a`touch /tmp/PWNED`b",
    "$(touch /tmp/PWNED)",
    "\x1b]0;owned title\x07",
    "\x1b[2J\x1b[31mred",
    "\xc2\x9b"
    "31m", /* CSI as UTF-8 C1 */
    "\x9b"
    "31m\x9d",            /* raw C1 bytes: invalid UTF-8 */
    "line1\nline2\r\x7f", /* line breaks and DEL */
    "it's \"quoted\" \\ back",
    "\xe2\x80\xae"
    "evil",             /* right-to-left override */
    "\xf0\x28\x8c\x28", /* invalid 4-byte sequence */
    "\xc0\xaf",         /* overlong '/' */
    "\xed\xa0\x80",     /* a surrogate */
    "<script>alert(1)</script>|`x`|",
};

static void term_known(void **state)
{
    (void)state;
    expect(mbx_esc_term, "plain text µs", "plain text µs");
    expect(mbx_esc_term, "\x1b]0;t\x07", "\\x1b]0;t\\x07");
    expect(mbx_esc_term, "a\nb\tc\rd\x7f", "a\\x0ab\\x09c\\x0dd\\x7f");
    expect(mbx_esc_term,
           "\xc2\x9b"
           "1m",
           "\\xc2\\x9b1m");
    expect(mbx_esc_term, "\x9b\xff", "\\x9b\\xff");
    expect(mbx_esc_term,
           "\xe2\x80\xae"
           "x",
           "\\u202ex");
    expect(mbx_esc_term, "\xc0\xaf", "\\xc0\\xaf");
    expect(mbx_esc_term, "\xed\xa0\x80", "\\xed\\xa0\\x80");
    expect(mbx_esc_term, "`$(x)` \"'\\", "`$(x)` \"'\\");
    expect(mbx_esc_term, NULL, "");
}

static void html_known(void **state)
{
    (void)state;
    expect(mbx_esc_html, "<a href=\"x\">&'</a>",
           "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
    expect(mbx_esc_html, "a\nb\tc\x1b[1m", "a\\x0ab\tc\\x1b[1m");
    expect(mbx_esc_html, "µ\xff", "µ\\xff");
}

static void md_known(void **state)
{
    (void)state;
    expect(mbx_esc_md, "a|b`c`", "a\\|b\\`c\\`");
    expect(mbx_esc_md, "x\ny", "x\\\\x0ay");
    expect(mbx_esc_md, "[l](u) <b> & *e*", "\\[l\\](u) \\<b\\> \\& \\*e\\*");
    expect(mbx_esc_md, "\x1b]0;t\x07", "\\\\x1b\\]0;t\\\\x07");
}

static void gnuplot_known(void **state)
{
    (void)state;
    expect(mbx_esc_gnuplot, "", "''");
    expect(mbx_esc_gnuplot, "it's", "'it'.\"\\047\".'s'");
    expect(mbx_esc_gnuplot, "'<x''", "''.\"\\047\".'<x'.\"\\047\".''.\"\\047\".''");
    /* A quote, then a macro: gnuplot's macro scanner must not see the
     * literal end (no raw ' between the literals). */
    expect(mbx_esc_gnuplot, "q'@png_term", "'q'.\"\\047\".'@png_term'");
    expect(mbx_esc_gnuplot, "a`touch x`\"b\" @m \\n", "'a`touch x`\"b\" @m \\n'");
    expect(mbx_esc_gnuplot, "l1\nl2\r", "'l1\\x0al2\\x0d'");
}

/* Each hostile input in each sink: no raw control byte out; a gnuplot
 * expression starts and ends with a quote and has no other quote but in
 * the joins '."\047".' of a quote. */
static void hostile_all(void **state)
{
    (void)state;
    static const esc_fn fn[] = {mbx_esc_term, mbx_esc_html, mbx_esc_md, mbx_esc_gnuplot};
    for (size_t i = 0; i < sizeof hostile / sizeof *hostile; i++) {
        for (size_t k = 0; k < 4; k++) {
            char out[MBX_ESC_MAX(64)];
            assert_true(strlen(hostile[i]) <= 64);
            assert_int_equal(fn[k](hostile[i], out, sizeof out), MBX_OK);
            assert_clean(out, fn[k] == mbx_esc_html);
            if (fn[k] == mbx_esc_gnuplot) {
                size_t n = strlen(out);
                assert_true(n >= 2 && out[0] == '\'' && out[n - 1] == '\'');
                for (size_t j = 1; j + 1 < n; j++) {
                    if (out[j] == '\'') {
                        assert_memory_equal(out + j, "'.\"\\047\".'", 10);
                        j += 9;
                    }
                }
            }
            if (fn[k] == mbx_esc_html)
                assert_null(strpbrk(out, "<>\"'"));
        }
    }
}

/* Short buffers: MBX_E_RANGE, NUL-terminated, never half an escape or a
 * half UTF-8 sequence, and a gnuplot literal still closed. */
static void truncation(void **state)
{
    (void)state;
    char out[16];
    assert_int_equal(mbx_esc_term("abc\x1b"
                                  "def",
                                  out, 5),
                     MBX_E_RANGE);
    assert_string_equal(out, "abc");
    assert_int_equal(mbx_esc_term("ab\xc2\xb5", out, 4), MBX_E_RANGE);
    assert_string_equal(out, "ab");
    assert_int_equal(mbx_esc_gnuplot("abcdef", out, 5), MBX_E_RANGE);
    assert_string_equal(out, "'ab'");
    assert_int_equal(mbx_esc_gnuplot("a'b", out, 13), MBX_E_RANGE);
    assert_string_equal(out, "'a'");
    assert_int_equal(mbx_esc_gnuplot("a'b", out, 14), MBX_E_RANGE);
    assert_string_equal(out, "'a'.\"\\047\".''");
    assert_int_equal(mbx_esc_gnuplot("x", out, 2), MBX_E_RANGE);
    assert_string_equal(out, "");
    assert_int_equal(mbx_esc_html("&", out, 5), MBX_E_RANGE);
    assert_string_equal(out, "");
    assert_int_equal(mbx_esc_term("x", out, 0), MBX_E_RANGE);
    assert_int_equal(mbx_esc_term("abc", out, 4), MBX_OK);
    assert_string_equal(out, "abc");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(term_known),  cmocka_unit_test(html_known),
        cmocka_unit_test(md_known),    cmocka_unit_test(gnuplot_known),
        cmocka_unit_test(hostile_all), cmocka_unit_test(truncation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
