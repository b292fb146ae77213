/* Unit tests for the explorer's line editor (cursor, selection on entry,
 * Ctrl-U, Ctrl-W, Ctrl-K, Home/End) and word wrapping (core/textedit.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/textedit.h"

/* Types s into buf at the cursor. */
static void type(mbx_lineedit *e, char *buf, size_t size, const char *s)
{
    for (; *s; s++)
        assert_int_equal(mbx_lineedit_apply(e, buf, size, MBX_EDIT_INSERT, *s), 1);
}

static void test_selected_on_entry(void **state)
{
    (void)state;
    char buf[32] = "mpibex-results.csv";
    mbx_lineedit e;
    mbx_lineedit_begin(&e, buf, 1);
    assert_true(e.sel);
    type(&e, buf, sizeof buf, "a.csv"); /* the first character replaces the name */
    assert_string_equal(buf, "a.csv");
    assert_false(e.sel);
    /* Backspace on a selection clears it all. */
    mbx_lineedit_begin(&e, buf, 1);
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_BACKSPACE, 0);
    assert_string_equal(buf, "");
    /* A move keeps the text and drops the selection: End then typing appends. */
    snprintf(buf, sizeof buf, "run");
    mbx_lineedit_begin(&e, buf, 1);
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_END, 0);
    type(&e, buf, sizeof buf, ".csv");
    assert_string_equal(buf, "run.csv");
    /* Home then typing prepends. */
    mbx_lineedit_begin(&e, buf, 1);
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_HOME, 0);
    type(&e, buf, sizeof buf, "my-");
    assert_string_equal(buf, "my-run.csv");
    /* An empty text is never selected. */
    buf[0] = '\0';
    mbx_lineedit_begin(&e, buf, 1);
    assert_false(e.sel);
}

static void test_cursor_moves(void **state)
{
    (void)state;
    char buf[16] = "4K";
    mbx_lineedit e;
    mbx_lineedit_begin(&e, buf, 0);
    assert_false(e.sel);
    assert_int_equal(e.cur, 2);
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_LEFT, 0);
    type(&e, buf, sizeof buf, "0");
    assert_string_equal(buf, "40K");
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_HOME, 0);
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_DELETE, 0);
    assert_string_equal(buf, "0K");
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_BACKSPACE, 0); /* at the start: nothing */
    assert_string_equal(buf, "0K");
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_LEFT, 0); /* stays at 0 */
    assert_int_equal(e.cur, 0);
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_END, 0);
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_RIGHT, 0); /* stays at the end */
    assert_int_equal(e.cur, 2);
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_DELETE, 0); /* at the end: nothing */
    assert_string_equal(buf, "0K");
}

static void test_kills(void **state)
{
    (void)state;
    char buf[64] = "out/run-2.csv";
    mbx_lineedit e;
    mbx_lineedit_begin(&e, buf, 0);
    /* Ctrl-W: a word of letters and digits, and the separators before it. */
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_KILL_WORD, 0);
    assert_string_equal(buf, "out/run-2.");
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_KILL_WORD, 0);
    assert_string_equal(buf, "out/run-");
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_KILL_WORD, 0);
    assert_string_equal(buf, "out/");
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_KILL_WORD, 0);
    assert_string_equal(buf, "");
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_KILL_WORD, 0); /* empty: nothing */
    assert_string_equal(buf, "");
    /* Ctrl-U: everything before the cursor; Ctrl-K everything after. */
    snprintf(buf, sizeof buf, "2,4,8");
    mbx_lineedit_begin(&e, buf, 0);
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_LEFT, 0);
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_LEFT, 0);
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_KILL_START, 0);
    assert_string_equal(buf, ",8");
    assert_int_equal(e.cur, 0);
    type(&e, buf, sizeof buf, "16");
    assert_string_equal(buf, "16,8");
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_KILL_END, 0);
    assert_string_equal(buf, "16");
    /* Ctrl-W in the middle keeps what follows the cursor. */
    snprintf(buf, sizeof buf, "a bc d");
    mbx_lineedit_begin(&e, buf, 0);
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_LEFT, 0);
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_LEFT, 0);
    mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_KILL_WORD, 0);
    assert_string_equal(buf, "a  d");
    assert_int_equal(e.cur, 2);
}

static void test_refusals(void **state)
{
    (void)state;
    char buf[4] = "abc"; /* full: 3 characters and the NUL */
    mbx_lineedit e;
    mbx_lineedit_begin(&e, buf, 0);
    assert_int_equal(mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_INSERT, 'd'), 0);
    assert_string_equal(buf, "abc");
    assert_int_equal(mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_INSERT, 7), 0);
    assert_int_equal(mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_INSERT, 200), 0);
    /* Selected, a full buffer takes a character: it replaces the text. */
    mbx_lineedit_begin(&e, buf, 1);
    assert_int_equal(mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_INSERT, 'z'), 1);
    assert_string_equal(buf, "z");
    /* A cursor past the end (the text changed under it) is pulled back. */
    e.cur = 99;
    assert_int_equal(mbx_lineedit_apply(&e, buf, sizeof buf, MBX_EDIT_BACKSPACE, 0), 1);
    assert_string_equal(buf, "");
}

/* Every line of s wrapped to width, joined with '|'. */
static void wrapped(const char *s, int width, char *out, size_t len)
{
    size_t off = 0, next = 0, k = 0;
    out[0] = '\0';
    int lines = 0;
    do {
        size_t n = mbx_wrap_line(s + off, width, &next);
        k += (size_t)snprintf(out + k, len - k, "%s%.*s", lines++ ? "|" : "", (int)n, s + off);
        off += next;
    } while (s[off] && next > 0 && k < len);
    assert_int_equal(lines, mbx_wrap_count(s, width));
}

static void test_wrap(void **state)
{
    (void)state;
    char out[256];
    wrapped("write a report: the results and their sidecars", 16, out, sizeof out);
    assert_string_equal(out, "write a report:|the results and|their sidecars");
    wrapped("exactly ten", 11, out, sizeof out);
    assert_string_equal(out, "exactly ten");
    wrapped("exactly ten more", 11, out, sizeof out);
    assert_string_equal(out, "exactly ten|more");
    /* A word longer than the line is cut. */
    wrapped("/a/very/long/path/name ok", 8, out, sizeof out);
    assert_string_equal(out, "/a/very/|long/pat|h/name|ok");
    /* '\n' ends a line; a blank line stays. */
    wrapped("one\n\ntwo", 10, out, sizeof out);
    assert_string_equal(out, "one||two");
    /* UTF-8: a column a code point (2.56µs is 6 columns, 7 bytes). */
    wrapped("2.56µs 2.56µs", 6, out, sizeof out);
    assert_string_equal(out, "2.56µs|2.56µs");
    assert_int_equal(mbx_wrap_count("", 10), 1);
    assert_int_equal(mbx_wrap_count("a b c d", 3), 2);
    size_t next;
    assert_int_equal(mbx_wrap_line("", 5, &next), 0);
    assert_int_equal(next, 0);
    assert_int_equal(mbx_wrap_line("abc", 0, &next), 1); /* width < 1 acts as 1 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_selected_on_entry),
        cmocka_unit_test(test_cursor_moves),
        cmocka_unit_test(test_kills),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_wrap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
