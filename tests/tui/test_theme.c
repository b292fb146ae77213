/* Themes: the built-in default, the shipped files, every parse error, the
 * search path (dir option, XDG_CONFIG_HOME, HOME, install dirs, built-in)
 * and colour degradation to 256 and 8 colours. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "mbx/status.h"
#include "theme.h"

#ifndef MBX_THEMES_DIR
#error "compile with -DMBX_THEMES_DIR=\"<repo>/themes\""
#endif

static const char *const install[] = {MBX_THEMES_DIR, NULL};
static char used[512], msg[512];

static mbx_color rgb(unsigned v)
{
    return (mbx_color){MBX_COLOR_RGB, v};
}

static mbx_color idx(unsigned v)
{
    return (mbx_color){MBX_COLOR_INDEX, v};
}

static int same_color(mbx_color a, mbx_color b)
{
    return a.kind == b.kind && a.value == b.value;
}

static int same_style(const mbx_style *a, const mbx_style *b)
{
    return same_color(a->fg, b->fg) && same_color(a->bg, b->bg) && a->attrs == b->attrs &&
           a->mono_attrs == b->mono_attrs;
}

static void style_is(const mbx_style *s, mbx_color fg, mbx_color bg, unsigned attrs)
{
    assert_true(same_color(s->fg, fg));
    assert_true(same_color(s->bg, bg));
    assert_int_equal(s->attrs, attrs);
}

/* mbx_theme_load into the shared used and msg buffers. */
static int load(const char *name, const char *dir, const char *const *inst, mbx_theme *t)
{
    return mbx_theme_load(name, dir, inst, t, used, sizeof used, msg, sizeof msg);
}

/* Eight different series colours that stay different in 256 colours. */
static void series_distinct(const mbx_theme *t)
{
    for (int i = 0; i < MBX_NSERIES; i++) {
        for (int j = 0; j < i; j++) {
            mbx_color a = t->role[MBX_ROLE_SERIES1 + i].fg, b = t->role[MBX_ROLE_SERIES1 + j].fg;
            assert_false(same_color(a, b));
            assert_int_not_equal(mbx_color_to_256(a), mbx_color_to_256(b));
        }
    }
}

static void default_sane(void **state)
{
    mbx_theme t;
    (void)state;
    mbx_theme_default(&t);
    assert_string_equal(t.name, "default");
    for (int r = 0; r < MBX_ROLE_COUNT; r++) {
        const char *name = mbx_role_name((mbx_role)r);
        assert_true(name && strlen(name) > 1);
        for (int q = 0; q < r; q++)
            assert_string_not_equal(name, mbx_role_name((mbx_role)q));
        assert_true(t.role[r].fg.kind <= MBX_COLOR_RGB && t.role[r].bg.kind <= MBX_COLOR_RGB);
    }
    assert_string_equal(mbx_role_name(MBX_ROLE_FOOTER_KEY), "footer.key");
    assert_string_equal(mbx_role_name(MBX_ROLE_SE_CONVERGED), "se.converged");
    assert_string_equal(mbx_role_name(MBX_ROLE_SERIES1 + 7), "series.8");
    assert_string_equal(mbx_role_name(MBX_ROLE_COUNT), "?");
    series_distinct(&t);
    /* monochrome must still tell these apart */
    assert_int_not_equal(t.role[MBX_ROLE_CURSOR].mono_attrs, 0);
    assert_int_not_equal(t.role[MBX_ROLE_ERROR].mono_attrs, 0);
    assert_int_not_equal(t.role[MBX_ROLE_WARNING].mono_attrs, 0);
    assert_int_not_equal(t.role[MBX_ROLE_FOOTER_KEY].mono_attrs,
                         t.role[MBX_ROLE_FOOTER].mono_attrs);
    assert_int_not_equal(t.role[MBX_ROLE_SE_CONVERGED].mono_attrs,
                         t.role[MBX_ROLE_SE_PENDING].mono_attrs);
}

static void shipped_files(void **state)
{
    static const char *const names[] = {"default", "light", "okabe-ito", "high-contrast"};
    static const unsigned okabe[7] = {0xe69f00, 0x56b4e9, 0x009e73, 0xf0e442,
                                      0x0072b2, 0xd55e00, 0xcc79a7};
    mbx_theme def, t[4];
    char path[512];
    (void)state;
    mbx_theme_default(&def);
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s.theme", MBX_THEMES_DIR, names[i]);
        assert_int_equal(load(path, NULL, NULL, &t[i]), MBX_OK);
        assert_string_equal(used, path);
        assert_string_equal(t[i].name, names[i]);
        series_distinct(&t[i]);
    }
    for (int r = 0; r < MBX_ROLE_COUNT; r++)
        assert_true(same_style(&t[0].role[r], &def.role[r]));
    for (int i = 0; i < 7; i++)
        assert_true(same_color(t[2].role[MBX_ROLE_SERIES1 + i].fg, rgb(okabe[i])));
    for (int i = 0; i < MBX_NSERIES; i++) {
        assert_int_equal(t[3].role[MBX_ROLE_SERIES1 + i].fg.kind, MBX_COLOR_INDEX);
        assert_true(t[3].role[MBX_ROLE_SERIES1 + i].attrs & MBX_ATTR_BOLD);
    }
}

static void expect_error(const char *text, int want, const char *needle)
{
    mbx_theme t, before;
    mbx_theme_default(&t);
    snprintf(t.name, sizeof t.name, "untouched");
    before = t;
    int rc = mbx_theme_parse(text, "x.theme", &t, msg, sizeof msg);
    assert_int_equal(rc, want);
    if (!strstr(msg, needle))
        fail_msg("message \"%s\" lacks \"%s\"", msg, needle);
    assert_memory_equal(&t, &before, sizeof t);
}

static void parse_errors(void **state)
{
    (void)state;
    expect_error("[colors]\nseries.9 = red\n", MBX_E_UNKNOWN,
                 "x.theme:2: series.9: unknown role; roles: normal, title,");
    expect_error("[colors]\n\n[palette]\n", MBX_E_UNKNOWN,
                 "x.theme:3: palette: unknown section; allowed: colors, mono");
    expect_error("[colors\n", MBX_E_INVAL, "x.theme:1: [colors: malformed section header");
    expect_error("[colors]\naxis = #12345\n", MBX_E_INVAL,
                 "x.theme:2: axis: bad colour '#12345'; allowed: #RRGGBB");
    expect_error("[colors]\naxis = #12345g\n", MBX_E_INVAL, "bad colour '#12345g'");
    expect_error("[colors]\naxis = 256\n", MBX_E_INVAL,
                 "x.theme:2: axis: colour index 256 out of range; allowed: 0-255");
    expect_error("[colors]\naxis = 99999999999999999999\n", MBX_E_INVAL, "out of range");
    expect_error("[colors]\naxis = purple\n", MBX_E_UNKNOWN,
                 "x.theme:2: axis: unknown colour 'purple'; allowed:");
    expect_error("[colors]\naxis = red blinky\n", MBX_E_UNKNOWN,
                 "x.theme:2: axis: unknown attribute 'blinky'; allowed: bold, dim");
    expect_error("[colors]\naxis = red blue\n", MBX_E_INVAL, "unexpected colour 'blue'");
    expect_error("[colors]\naxis = red on\n", MBX_E_INVAL, "'on' needs a background colour");
    expect_error("[colors]\naxis = red on mauve\n", MBX_E_UNKNOWN, "unknown colour 'mauve'");
    expect_error("[colors]\naxis =\n", MBX_E_INVAL, "x.theme:2: axis: missing value");
    expect_error("axis = red\n", MBX_E_INVAL,
                 "x.theme:1: axis: key outside a section; put it under [colors] or [mono]");
    expect_error("[colors]\naxis red\n", MBX_E_INVAL,
                 "x.theme:2: axis red: missing '='; expected KEY = VALUE");
    expect_error("[colors]\n = red\n", MBX_E_INVAL, "x.theme:2: missing key");
    expect_error("[mono]\ngrid = blink\n", MBX_E_UNKNOWN, "unknown attribute 'blink'");
    expect_error("[mono]\ngrid = red\n", MBX_E_INVAL, "[mono] takes attributes only");
    expect_error("[mono]\ngrid = none bold\n", MBX_E_INVAL, "'none' cannot be combined");
    expect_error("[colors]\nname = x\n", MBX_E_INVAL, "name must come before");
    expect_error("name = 0123456789012345678901234567890123\n", MBX_E_INVAL,
                 "theme name must be 1-31 characters");
    char longline[700];
    memset(longline, 'a', sizeof longline - 1);
    longline[sizeof longline - 1] = '\0';
    expect_error(longline, MBX_E_INVAL, "x.theme:1: line too long");

    /* a NULL message buffer and a NULL src are allowed */
    mbx_theme t;
    assert_int_equal(mbx_theme_parse("[x]\n", NULL, &t, NULL, 0), MBX_E_UNKNOWN);
    char small[8];
    assert_int_equal(mbx_theme_parse("[x]\n", NULL, &t, small, sizeof small), MBX_E_UNKNOWN);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_int_equal(mbx_theme_parse(NULL, NULL, &t, NULL, 0), MBX_E_INVAL);
}

static void parse_values(void **state)
{
    mbx_theme t, def;
    const mbx_color none = {MBX_COLOR_DEFAULT, 0};
    const char *text = "# comment\r\n"
                       "; another\n"
                       "  name = my theme  \n"
                       "\n"
                       "[colors]\r\n"
                       "footer.key = black on #E69F00 bold\n"
                       "axis=42\n"
                       "  warning   =   yellow   bold  underline \n"
                       "grid = bright-black on default dim italic standout reverse\n"
                       "title = default on 200\n"
                       "series.1 = #5FAFFF\n"
                       "[ mono ]\n"
                       "series.1 = bold underline\n"
                       "warning = none\n"
                       "[colors]\n"
                       "ok = Bright-Green\n";
    (void)state;
    mbx_theme_default(&def);
    assert_int_equal(mbx_theme_parse(text, "t", &t, msg, sizeof msg), MBX_OK);
    assert_string_equal(msg, "");
    assert_string_equal(t.name, "my theme");
    style_is(&t.role[MBX_ROLE_FOOTER_KEY], idx(0), rgb(0xe69f00), MBX_ATTR_BOLD);
    style_is(&t.role[MBX_ROLE_AXIS], idx(42), none, 0);
    style_is(&t.role[MBX_ROLE_WARNING], idx(3), none, MBX_ATTR_BOLD | MBX_ATTR_UNDERLINE);
    style_is(&t.role[MBX_ROLE_GRID], idx(8), none,
             MBX_ATTR_DIM | MBX_ATTR_ITALIC | MBX_ATTR_STANDOUT | MBX_ATTR_REVERSE);
    /* a given role is replaced whole: no attributes means none */
    style_is(&t.role[MBX_ROLE_TITLE], none, idx(200), 0);
    style_is(&t.role[MBX_ROLE_SERIES1], rgb(0x5fafff), none, 0);
    style_is(&t.role[MBX_ROLE_OK], idx(10), none, 0);
    /* [mono] sets only mono attributes; [colors] leaves them alone */
    assert_int_equal(t.role[MBX_ROLE_SERIES1].mono_attrs, MBX_ATTR_BOLD | MBX_ATTR_UNDERLINE);
    assert_int_equal(t.role[MBX_ROLE_WARNING].mono_attrs, 0);
    assert_int_equal(t.role[MBX_ROLE_TITLE].mono_attrs, def.role[MBX_ROLE_TITLE].mono_attrs);
    /* roles not mentioned keep the built-in values */
    const unsigned long given =
        1ul << MBX_ROLE_FOOTER_KEY | 1ul << MBX_ROLE_AXIS | 1ul << MBX_ROLE_WARNING |
        1ul << MBX_ROLE_GRID | 1ul << MBX_ROLE_TITLE | 1ul << MBX_ROLE_SERIES1 | 1ul << MBX_ROLE_OK;
    for (int r = 0; r < MBX_ROLE_COUNT; r++)
        if (!(given >> r & 1))
            assert_true(same_style(&t.role[r], &def.role[r]));
    /* empty text is the default theme; no trailing newline is fine */
    assert_int_equal(mbx_theme_parse("", "e", &t, msg, sizeof msg), MBX_OK);
    assert_memory_equal(&t, &def, sizeof t);
    assert_int_equal(mbx_theme_parse("[colors]\naxis = red", "e", &t, NULL, 0), MBX_OK);
    assert_true(same_color(t.role[MBX_ROLE_AXIS].fg, idx(1)));
}

static void color_degrade(void **state)
{
    (void)state;
    const mbx_color_kind R = MBX_COLOR_RGB, I = MBX_COLOR_INDEX, D = MBX_COLOR_DEFAULT;
    const struct {
        mbx_color c;
        int c256, c8;
    } cases[] = {
        {{R, 0x000000}, 16, 0},  {{R, 0xffffff}, 231, 7}, {{R, 0x808080}, 244, 7},
        {{R, 0xff0000}, 196, 1}, {{R, 0x00ff00}, 46, 2},  {{R, 0x0000ff}, 21, 4},
        {{R, 0xffff00}, 226, 3}, {{R, 0xff00ff}, 201, 5}, {{R, 0x00ffff}, 51, 6},
        {{R, 0x080808}, 232, 0}, {{R, 0xeeeeee}, 255, 7}, {{R, 0x5fafff}, 75, 6},
        {{R, 0xe69f00}, 178, 3}, {{R, 0xd55e00}, 166, 1}, {{R, 0x444444}, 238, 7},
        {{R, 0x303030}, 236, 0}, {{I, 42}, 42, 6},        {{I, 3}, 3, 3},
        {{I, 9}, 9, 1},          {{I, 15}, 15, 7},        {{I, 196}, 196, 1},
        {{I, 16}, 16, 0},        {{I, 255}, 255, 7},      {{I, 256}, -1, -1},
        {{D, 0}, -1, -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (mbx_color_to_256(cases[i].c) != cases[i].c256 ||
            mbx_color_to_8(cases[i].c) != cases[i].c8)
            fail_msg("case %zu (kind %d, %#x): got %d/%d, want %d/%d", i, (int)cases[i].c.kind,
                     cases[i].c.value, mbx_color_to_256(cases[i].c), mbx_color_to_8(cases[i].c),
                     cases[i].c256, cases[i].c8);
    }
}

/* A scratch config tree under /tmp: cfg is XDG_CONFIG_HOME, home is HOME
 * for the fallback test, opt stands for a --theme-dir directory. */
static char root[64], cfg_dir[128], home_dir[128], opt_dir[128];
static const char *const dirs[] = {
    "cfg",          "cfg/mpibex",          "cfg/mpibex/themes",          "home",
    "home/.config", "home/.config/mpibex", "home/.config/mpibex/themes", "opt"};
static const struct {
    const char *path, *text;
} files[] = {
    {"cfg/mpibex/themes/mine.theme", "name = Mine\n[colors]\naxis = red\n"},
    {"cfg/mpibex/themes/light.theme", "[colors]\naxis = green\n"},
    {"cfg/mpibex/themes/broken.theme", "[colors]\naxis = #12\n"},
    {"cfg/mpibex/themes/notes.txt", "not a theme\n"},
    {"home/.config/mpibex/themes/homey.theme", "[colors]\naxis = blue\n"},
    {"opt/mine.theme", "[colors]\naxis = cyan\n"},
};
#define N(a) (sizeof(a) / sizeof(a)[0])

static void set_xdg(void)
{
    char xdg[128];
    snprintf(xdg, sizeof xdg, "%s/cfg", root);
    setenv("XDG_CONFIG_HOME", xdg, 1);
}

static int setup_tree(void **state)
{
    char path[256];
    (void)state;
    snprintf(root, sizeof root, "/tmp/mbx_theme_XXXXXX");
    if (!mkdtemp(root))
        return -1;
    for (size_t i = 0; i < N(dirs); i++) {
        snprintf(path, sizeof path, "%s/%s", root, dirs[i]);
        if (mkdir(path, 0700) != 0)
            return -1;
    }
    for (size_t i = 0; i < N(files); i++) {
        snprintf(path, sizeof path, "%s/%s", root, files[i].path);
        FILE *f = fopen(path, "w");
        if (!f)
            return -1;
        fputs(files[i].text, f);
        fclose(f);
    }
    snprintf(cfg_dir, sizeof cfg_dir, "%s/cfg/mpibex/themes", root);
    snprintf(home_dir, sizeof home_dir, "%s/home", root);
    snprintf(opt_dir, sizeof opt_dir, "%s/opt", root);
    set_xdg();
    return 0;
}

static int teardown_tree(void **state)
{
    char path[256];
    (void)state;
    for (size_t i = 0; i < N(files); i++) {
        snprintf(path, sizeof path, "%s/%s", root, files[i].path);
        remove(path);
    }
    for (size_t i = N(dirs); i-- > 0;) {
        snprintf(path, sizeof path, "%s/%s", root, dirs[i]);
        remove(path);
    }
    return remove(root);
}

static char *old_home;

/* Points XDG_CONFIG_HOME and HOME elsewhere (NULL: unset) until env_restore. */
static void env_set(const char *xdg, const char *home)
{
    old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    unsetenv("XDG_CONFIG_HOME");
    unsetenv("HOME");
    if (xdg)
        setenv("XDG_CONFIG_HOME", xdg, 1);
    if (home)
        setenv("HOME", home, 1);
}

static void env_restore(void)
{
    set_xdg();
    if (old_home)
        setenv("HOME", old_home, 1);
    free(old_home);
}

static void load_by_name(void **state)
{
    mbx_theme t, def;
    char want[512];
    (void)state;
    /* the XDG config dir wins over the install dirs */
    assert_int_equal(load("light", NULL, install, &t), MBX_OK);
    snprintf(want, sizeof want, "%s/light.theme", cfg_dir);
    assert_string_equal(used, want);
    assert_string_equal(t.name, "light"); /* no name line: the file's name */
    assert_true(same_color(t.role[MBX_ROLE_AXIS].fg, idx(2)));
    assert_int_equal(load("mine", NULL, NULL, &t), MBX_OK);
    assert_string_equal(t.name, "Mine");
    assert_true(same_color(t.role[MBX_ROLE_AXIS].fg, idx(1)));
    /* the dir option comes first */
    assert_int_equal(load("mine", opt_dir, NULL, &t), MBX_OK);
    snprintf(want, sizeof want, "%s/mine.theme", opt_dir);
    assert_string_equal(used, want);
    assert_true(same_color(t.role[MBX_ROLE_AXIS].fg, idx(6)));
    /* then the install dirs; used and msg may be NULL */
    assert_int_equal(mbx_theme_load("okabe-ito", NULL, install, &t, NULL, 0, NULL, 0), MBX_OK);
    assert_string_equal(t.name, "okabe-ito");
    /* "default" falls back to the built-in theme when no file exists */
    assert_int_equal(load("default", NULL, NULL, &t), MBX_OK);
    assert_string_equal(used, "(built-in)");
    mbx_theme_default(&def);
    assert_memory_equal(&t, &def, sizeof t);
    /* an unknown name lists what exists; a broken file is not skipped */
    assert_int_equal(load("nope", NULL, install, &t), MBX_E_UNKNOWN);
    assert_non_null(strstr(msg, "theme 'nope' not found; available: broken, default,"));
    assert_int_equal(load("broken", NULL, install, &t), MBX_E_INVAL);
    assert_non_null(strstr(msg, "broken.theme:2: axis: bad colour '#12'"));
    assert_int_equal(load("", NULL, NULL, &t), MBX_E_INVAL);
    /* without XDG_CONFIG_HOME, HOME/.config is used */
    env_set(NULL, home_dir);
    int rc = load("homey", NULL, NULL, &t);
    env_restore();
    assert_int_equal(rc, MBX_OK);
    assert_string_equal(t.name, "homey");
    assert_true(same_color(t.role[MBX_ROLE_AXIS].fg, idx(4)));
}

static void load_by_path(void **state)
{
    mbx_theme t;
    char path[512];
    (void)state;
    snprintf(path, sizeof path, "%s/mine.theme", opt_dir);
    assert_int_equal(load(path, NULL, NULL, &t), MBX_OK);
    assert_string_equal(used, path);
    assert_string_equal(t.name, "mine");
    snprintf(path, sizeof path, "%s/missing.theme", opt_dir);
    assert_int_equal(load(path, NULL, NULL, &t), MBX_E_IO);
    assert_non_null(strstr(msg, "missing.theme"));
    assert_true(load(opt_dir, NULL, NULL, &t) < 0); /* a directory */
}

static void list_themes(void **state)
{
    static const char *const want[] = {"broken", "default", "high-contrast",
                                       "light",  "mine",    "okabe-ito"};
    char names[16][32];
    (void)state;
    int n = mbx_theme_list(NULL, install, names, 16);
    assert_int_equal(n, 6);
    for (int i = 0; i < n; i++)
        assert_string_equal(names[i], want[i]);
    assert_int_equal(mbx_theme_list(opt_dir, NULL, names, 16), 4); /* + opt's "mine" */
    assert_string_equal(names[1], "default");
    assert_int_equal(mbx_theme_list(NULL, install, names, 2), 2);
    assert_string_equal(names[1], "default");
    assert_int_equal(mbx_theme_list(NULL, install, names, 0), 0);
    /* "default" is always there, even with nothing on the path */
    env_set(NULL, NULL);
    n = mbx_theme_list(NULL, NULL, names, 16);
    env_restore();
    assert_int_equal(n, 1);
    assert_string_equal(names[0], "default");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_sane),  cmocka_unit_test(shipped_files),
        cmocka_unit_test(parse_errors),  cmocka_unit_test(parse_values),
        cmocka_unit_test(color_degrade), cmocka_unit_test(load_by_name),
        cmocka_unit_test(load_by_path),  cmocka_unit_test(list_themes),
    };
    return cmocka_run_group_tests(tests, setup_tree, teardown_tree);
}
