/* Theme parsing, theme search and colour degradation (see theme.h).
 *
 * A role given in [colors] is replaced as a whole: an omitted "on BG" means
 * the terminal's default background and omitted attributes mean none, so a
 * file line always reads as the complete look of that role. A parse works on
 * a copy, so a failed parse leaves the caller's theme untouched. Comments are
 * whole lines only, because '#' also starts an RGB colour. */
#include "theme.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbx/ascii.h"
#include "mbx/status.h"

#define BOLD MBX_ATTR_BOLD
#define DIM MBX_ATTR_DIM
#define UL MBX_ATTR_UNDERLINE
#define REV MBX_ATTR_REVERSE
/* clang-format off */
#define DEF {MBX_COLOR_DEFAULT, 0}
#define RGB(v) {MBX_COLOR_RGB, (v)}
/* clang-format on */

#define LINE_MAX_LEN 512
#define FILE_MAX_LEN (64 * 1024)
#define PATH_LEN 4096
#define LIST_MAX 128
#define MAX_DIRS 18

/* Keep in step with themes/default.theme; the tests compare the two. */
static const mbx_style default_style[MBX_ROLE_COUNT] = {
    [MBX_ROLE_NORMAL] = {DEF, DEF, 0, 0},
    [MBX_ROLE_TITLE] = {RGB(0x1c1c1c), RGB(0x87afd7), BOLD, REV},
    [MBX_ROLE_FOOTER] = {RGB(0xbcbcbc), RGB(0x303030), 0, 0},
    [MBX_ROLE_FOOTER_KEY] = {RGB(0x1c1c1c), RGB(0xd7af5f), BOLD, REV | BOLD},
    [MBX_ROLE_AXIS] = {RGB(0x8a8a8a), DEF, 0, 0},
    [MBX_ROLE_GRID] = {RGB(0x444444), DEF, 0, DIM},
    [MBX_ROLE_SELECTED] = {RGB(0xffd75f), DEF, BOLD, BOLD},
    [MBX_ROLE_CURSOR] = {RGB(0xffffff), RGB(0x005f87), BOLD, REV},
    [MBX_ROLE_DIM] = {RGB(0x6c6c6c), DEF, 0, DIM},
    [MBX_ROLE_WARNING] = {RGB(0xffaf00), DEF, BOLD, BOLD | UL},
    [MBX_ROLE_ERROR] = {RGB(0xff5f5f), DEF, BOLD, REV | BOLD},
    [MBX_ROLE_OK] = {RGB(0x87d787), DEF, 0, BOLD},
    [MBX_ROLE_SE_CONVERGED] = {RGB(0x5fd787), DEF, BOLD, BOLD},
    [MBX_ROLE_SE_PENDING] = {RGB(0xd7875f), DEF, 0, DIM},
    [MBX_ROLE_SE_TARGET] = {RGB(0xd7d7d7), DEF, 0, 0},
    [MBX_ROLE_SERIES1 + 0] = {RGB(0x5fafff), DEF, 0, BOLD},
    [MBX_ROLE_SERIES1 + 1] = {RGB(0xffaf5f), DEF, 0, UL},
    [MBX_ROLE_SERIES1 + 2] = {RGB(0x87d75f), DEF, 0, 0},
    [MBX_ROLE_SERIES1 + 3] = {RGB(0xff5f87), DEF, 0, BOLD | UL},
    [MBX_ROLE_SERIES1 + 4] = {RGB(0xaf87ff), DEF, 0, BOLD},
    [MBX_ROLE_SERIES1 + 5] = {RGB(0x5fd7d7), DEF, 0, UL},
    [MBX_ROLE_SERIES1 + 6] = {RGB(0xffd75f), DEF, 0, 0},
    [MBX_ROLE_SERIES1 + 7] = {RGB(0xbcbcbc), DEF, 0, BOLD | UL},
};

static const char *const role_names[MBX_ROLE_COUNT] = {
    "normal",       "title",      "footer",    "footer.key", "axis",     "grid",
    "selected",     "cursor",     "dim",       "warning",    "error",    "ok",
    "se.converged", "se.pending", "se.target", "series.1",   "series.2", "series.3",
    "series.4",     "series.5",   "series.6",  "series.7",   "series.8",
};

static const char *const color_names[8] = {"black", "red",     "green", "yellow",
                                           "blue",  "magenta", "cyan",  "white"};

static const struct {
    const char *name;
    unsigned bit;
} attr_names[] = {{"bold", MBX_ATTR_BOLD},           {"dim", MBX_ATTR_DIM},
                  {"underline", MBX_ATTR_UNDERLINE}, {"reverse", MBX_ATTR_REVERSE},
                  {"italic", MBX_ATTR_ITALIC},       {"standout", MBX_ATTR_STANDOUT}};

#define COLORS_ALLOWED                                                                             \
    "allowed: #RRGGBB, 0-255, default, black, red, green, yellow, blue, magenta, cyan, white, "    \
    "bright-<name>"
#define NATTRS (sizeof attr_names / sizeof attr_names[0])
#define ATTRS_ALLOWED "allowed: bold, dim, underline, reverse, italic, standout"

void mbx_theme_default(mbx_theme *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "default");
    memcpy(out->role, default_style, sizeof out->role);
}

const char *mbx_role_name(mbx_role r)
{
    return (unsigned)r < MBX_ROLE_COUNT ? role_names[r] : "?";
}

typedef struct parser {
    const char *src;
    int line;
    char *msg;
    size_t msglen;
} parser;

/* Formats "<src>:<line>: [<what>: ]<reason>" and passes rc through. */
static int fail(const parser *p, int rc, const char *what, const char *fmt, ...)
{
    if (!p->msg || p->msglen == 0)
        return rc;
    int n = what ? snprintf(p->msg, p->msglen, "%s:%d: %s: ", p->src, p->line, what)
                 : snprintf(p->msg, p->msglen, "%s:%d: ", p->src, p->line);
    if (n >= 0 && (size_t)n < p->msglen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->msg + n, p->msglen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return rc;
}

static char *trim(char *s)
{
    while (mbx_ascii_isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && mbx_ascii_isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* On failure *why is a printf format taking the token. */
static int parse_color(const char *tok, mbx_color *out, const char **why)
{
    size_t n = strlen(tok), digits = strspn(tok, "0123456789");
    const char *name = mbx_ascii_ncasecmp(tok, "bright-", 7) == 0 ? tok + 7 : tok;
    if (tok[0] == '#') {
        *out = (mbx_color){MBX_COLOR_RGB, (unsigned)strtoul(tok + 1, NULL, 16)};
        *why = n == 7 && strspn(tok + 1, "0123456789abcdefABCDEF") == 6
                   ? NULL
                   : "bad colour '%s'; " COLORS_ALLOWED;
        return *why ? MBX_E_INVAL : MBX_OK;
    }
    if (n > 0 && digits == n) {
        *out = (mbx_color){MBX_COLOR_INDEX, (unsigned)strtoul(tok, NULL, 10)};
        *why = n <= 3 && out->value <= 255 ? NULL : "colour index %s out of range; allowed: 0-255";
        return *why ? MBX_E_INVAL : MBX_OK;
    }
    *out = (mbx_color){MBX_COLOR_DEFAULT, 0};
    if (mbx_ascii_casecmp(tok, "default") == 0)
        return MBX_OK;
    for (unsigned i = 0; i < 8; i++) {
        if (mbx_ascii_casecmp(name, color_names[i]) == 0) {
            *out = (mbx_color){MBX_COLOR_INDEX, (name == tok ? 0 : 8) + i};
            return MBX_OK;
        }
    }
    *why = "unknown colour '%s'; " COLORS_ALLOWED;
    return MBX_E_UNKNOWN;
}

/* A [colors] value replaces the role's colours and attributes; a [mono]
 * value only its mono attributes. */
static int parse_value(const parser *p, const char *key, char *val, int mono, mbx_style *st)
{
    char *tok[LINE_MAX_LEN / 2], *save = NULL;
    int n = 0, i = 0, rc;
    unsigned bits = 0;
    mbx_color fg = {MBX_COLOR_DEFAULT, 0}, bg = fg, c;
    const char *why;
    for (char *t = strtok_r(val, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        tok[n++] = t;
    if (n == 0)
        return fail(p, MBX_E_INVAL, key, "missing value; expected %s",
                    mono ? "ATTR... or none" : "FG [on BG] [ATTR...]");
    if (mono && mbx_ascii_casecmp(tok[0], "none") == 0) {
        if (n > 1)
            return fail(p, MBX_E_INVAL, key, "'none' cannot be combined with attributes");
        i = 1;
    } else if (!mono) {
        if ((rc = parse_color(tok[i++], &fg, &why)) < 0)
            return fail(p, rc, key, why, tok[0]);
        if (i < n && mbx_ascii_casecmp(tok[i], "on") == 0) {
            if (++i == n)
                return fail(p, MBX_E_INVAL, key, "'on' needs a background colour; " COLORS_ALLOWED);
            if ((rc = parse_color(tok[i], &bg, &why)) < 0)
                return fail(p, rc, key, why, tok[i]);
            i++;
        }
    }
    for (; i < n; i++) {
        size_t a = 0;
        while (a < NATTRS && mbx_ascii_casecmp(tok[i], attr_names[a].name) != 0)
            a++;
        if (a < NATTRS) {
            bits |= attr_names[a].bit;
            continue;
        }
        /* "red blue" (a forgotten "on") is a likelier mistake than a typo */
        if (parse_color(tok[i], &c, &why) == MBX_OK)
            return fail(p, MBX_E_INVAL, key,
                        mono ? "[mono] takes attributes only, not colour '%s'; " ATTRS_ALLOWED
                             : "unexpected colour '%s'; expected FG [on BG] [ATTR...]",
                        tok[i]);
        return fail(p, MBX_E_UNKNOWN, key, "unknown attribute '%s'; " ATTRS_ALLOWED, tok[i]);
    }
    if (mono)
        st->mono_attrs = bits;
    else
        *st = (mbx_style){fg, bg, bits, st->mono_attrs};
    return MBX_OK;
}

enum { SEC_NONE, SEC_COLORS, SEC_MONO };

static int parse_line(const parser *p, char *s, int *sec, mbx_theme *t)
{
    if (*s == '\0' || *s == '#' || *s == ';')
        return MBX_OK;
    if (*s == '[') {
        size_t n = strlen(s);
        if (s[n - 1] != ']')
            return fail(p, MBX_E_INVAL, s, "malformed section header; expected [colors] or [mono]");
        s[n - 1] = '\0';
        char *name = trim(s + 1);
        *sec = mbx_ascii_casecmp(name, "colors") == 0 ? SEC_COLORS
               : mbx_ascii_casecmp(name, "mono") == 0 ? SEC_MONO
                                                      : SEC_NONE;
        return *sec ? MBX_OK
                    : fail(p, MBX_E_UNKNOWN, name, "unknown section; allowed: colors, mono");
    }
    char *eq = strchr(s, '=');
    if (!eq)
        return fail(p, MBX_E_INVAL, s, "missing '='; expected KEY = VALUE");
    *eq = '\0';
    char *key = trim(s), *val = trim(eq + 1);
    if (*key == '\0')
        return fail(p, MBX_E_INVAL, NULL, "missing key before '='");
    if (mbx_ascii_casecmp(key, "name") == 0) {
        if (*sec != SEC_NONE)
            return fail(p, MBX_E_INVAL, key, "name must come before the first section");
        if (*val == '\0' || strlen(val) >= sizeof t->name)
            return fail(p, MBX_E_INVAL, key, "theme name must be 1-%zu characters",
                        sizeof t->name - 1);
        snprintf(t->name, sizeof t->name, "%s", val);
        return MBX_OK;
    }
    if (*sec == SEC_NONE)
        return fail(p, MBX_E_INVAL, key, "key outside a section; put it under [colors] or [mono]");
    for (int r = 0; r < MBX_ROLE_COUNT; r++)
        if (mbx_ascii_casecmp(key, role_names[r]) == 0)
            return parse_value(p, key, val, *sec == SEC_MONO, &t->role[r]);
    char list[LINE_MAX_LEN];
    int len = 0;
    for (int r = 0; r < MBX_ROLE_COUNT; r++)
        len +=
            snprintf(list + len, sizeof list - (size_t)len, "%s%s", r ? ", " : "", role_names[r]);
    return fail(p, MBX_E_UNKNOWN, key, "unknown role; roles: %s", list);
}

/* fallback names the theme unless the text has a "name =" line. */
static int parse_theme(const char *text, const char *src, const char *fallback, mbx_theme *out,
                       char *msg, size_t msglen)
{
    parser p = {src ? src : "(theme)", 0, msg, msglen};
    int sec = SEC_NONE;
    mbx_theme t;
    mbx_theme_default(&t);
    if (fallback)
        snprintf(t.name, sizeof t.name, "%s", fallback);
    if (msg && msglen)
        msg[0] = '\0';
    while (*text) {
        size_t n = strcspn(text, "\n");
        char buf[LINE_MAX_LEN];
        p.line++;
        if (n >= LINE_MAX_LEN)
            return fail(&p, MBX_E_INVAL, NULL, "line too long (max %d characters)",
                        LINE_MAX_LEN - 1);
        memcpy(buf, text, n);
        buf[n] = '\0';
        int rc = parse_line(&p, trim(buf), &sec, &t);
        if (rc < 0)
            return rc;
        text += n + (text[n] == '\n');
    }
    *out = t;
    return MBX_OK;
}

int mbx_theme_parse(const char *text, const char *src, mbx_theme *out, char *msg, size_t msglen)
{
    return text && out ? parse_theme(text, src, NULL, out, msg, msglen) : MBX_E_INVAL;
}

/* Returns 1 when the file does not exist, so the search can go on. */
static int load_file(const char *path, const char *stem, mbx_theme *out, char *msg, size_t msglen)
{
    FILE *f = fopen(path, "rb");
    if (!f && (errno == ENOENT || errno == ENOTDIR))
        return 1;
    char *buf = f ? malloc(FILE_MAX_LEN + 1) : NULL;
    size_t n = buf ? fread(buf, 1, FILE_MAX_LEN + 1, f) : 0;
    int rc = !f || ferror(f) ? MBX_E_IO : !buf ? MBX_E_NOMEM : MBX_OK;
    if (rc == MBX_E_IO)
        snprintf(msg, msglen, "%s: %s", path, strerror(errno));
    if (f)
        fclose(f);
    if (rc == MBX_OK && (n > FILE_MAX_LEN || memchr(buf, '\0', n))) {
        snprintf(msg, msglen, "%s: not a theme (binary or over %d bytes)", path, FILE_MAX_LEN);
        rc = MBX_E_INVAL;
    }
    if (rc == MBX_OK) {
        buf[n] = '\0';
        rc = parse_theme(buf, path, stem, out, msg, msglen);
    }
    free(buf);
    return rc;
}

/* The search path in order; cfg is storage for the per-user directory. */
static int search_path(const char *dir_opt, const char *const *install, char *cfg,
                       const char **dirs)
{
    int n = 0, len = -1;
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (dir_opt)
        dirs[n++] = dir_opt;
    /* The XDG spec says relative values are to be ignored. */
    if (xdg && xdg[0] == '/')
        len = snprintf(cfg, PATH_LEN, "%s/mpibex/themes", xdg);
    else if (home && home[0])
        len = snprintf(cfg, PATH_LEN, "%s/.config/mpibex/themes", home);
    if (len > 0 && len < PATH_LEN)
        dirs[n++] = cfg;
    for (; install && *install && n < MAX_DIRS; install++)
        dirs[n++] = *install;
    return n;
}

int mbx_theme_load(const char *name, const char *dir_opt, const char *const *install_dirs,
                   mbx_theme *out, char *used, size_t usedlen, char *msg, size_t msglen)
{
    char dummy[1], cfg[PATH_LEN], path[PATH_LEN];
    const char *dirs[MAX_DIRS];
    int rc = 1;
    if (!msg || msglen == 0) {
        msg = dummy;
        msglen = sizeof dummy;
    }
    if (!used || usedlen == 0) {
        used = dummy;
        usedlen = sizeof dummy;
    }
    msg[0] = '\0';
    if (!name || !*name || !out) {
        snprintf(msg, msglen, "theme: empty name");
        return MBX_E_INVAL;
    }
    if (strchr(name, '/')) {
        const char *base = strrchr(name, '/') + 1;
        size_t n = strlen(base);
        if (n > 6 && strcmp(base + n - 6, ".theme") == 0)
            n -= 6;
        snprintf(path, sizeof path, "%.*s", (int)(n < 31 ? n : 31), base);
        if ((rc = load_file(name, path, out, msg, msglen)) == 1) {
            snprintf(msg, msglen, "%s: no such file", name);
            return MBX_E_IO;
        }
        if (rc == MBX_OK)
            snprintf(used, usedlen, "%s", name);
        return rc;
    }
    int nd = search_path(dir_opt, install_dirs, cfg, dirs);
    for (int i = 0; i < nd && rc == 1; i++) {
        int len = snprintf(path, sizeof path, "%s/%s.theme", dirs[i], name);
        if (len > 0 && len < PATH_LEN && (rc = load_file(path, name, out, msg, msglen)) == 0)
            snprintf(used, usedlen, "%s", path);
    }
    if (rc != 1)
        return rc;
    if (strcmp(name, "default") == 0) {
        mbx_theme_default(out);
        snprintf(used, usedlen, "(built-in)");
        return MBX_OK;
    }
    char names[32][32];
    int k = mbx_theme_list(dir_opt, install_dirs, names, 32), len;
    len = snprintf(msg, msglen, "theme '%s' not found; available:", name);
    for (int i = 0; i < k && len > 0 && (size_t)len < msglen; i++)
        len += snprintf(msg + len, msglen - (size_t)len, "%s %s", i ? "," : "", names[i]);
    return MBX_E_UNKNOWN;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(a, b);
}

int mbx_theme_list(const char *dir_opt, const char *const *install_dirs, char names[][32], int max)
{
    char cfg[PATH_LEN], (*all)[32] = malloc(LIST_MAX * sizeof *all);
    const char *dirs[MAX_DIRS];
    int nd = search_path(dir_opt, install_dirs, cfg, dirs), n = 1;
    if (!all || max <= 0) {
        free(all);
        return 0;
    }
    snprintf(all[0], sizeof all[0], "default");
    for (int i = 0; i < nd; i++) {
        DIR *d = opendir(dirs[i]);
        for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
            size_t len = strlen(e->d_name), k = 0;
            if (e->d_name[0] == '.' || len <= 6 || len - 6 >= sizeof all[0] ||
                strcmp(e->d_name + len - 6, ".theme") != 0)
                continue;
            while (k < (size_t)n &&
                   !(strncmp(all[k], e->d_name, len - 6) == 0 && all[k][len - 6] == '\0'))
                k++;
            if (k == (size_t)n && n < LIST_MAX)
                snprintf(all[n++], sizeof all[0], "%.*s", (int)(len - 6), e->d_name);
        }
        if (d)
            closedir(d);
    }
    qsort(all, (size_t)n, sizeof all[0], cmp_name);
    n = n < max ? n : max;
    memcpy(names, all, (size_t)n * sizeof all[0]);
    free(all);
    return n;
}

/* RGB of xterm indices 16-255; 0-15 are left to the terminal's palette. */
static unsigned index_rgb(unsigned i)
{
    static const unsigned char lvl[6] = {0, 95, 135, 175, 215, 255};
    if (i >= 232)
        return (8 + 10 * (i - 232)) * 0x010101u;
    i -= 16;
    return (unsigned)lvl[i / 36] << 16 | (unsigned)lvl[i / 6 % 6] << 8 | lvl[i % 6];
}

static long dist2(unsigned a, unsigned b)
{
    long r = (long)(a >> 16 & 255) - (long)(b >> 16 & 255);
    long g = (long)(a >> 8 & 255) - (long)(b >> 8 & 255), l = (long)(a & 255) - (long)(b & 255);
    return r * r + g * g + l * l;
}

int mbx_color_to_256(mbx_color c)
{
    if (c.kind == MBX_COLOR_INDEX)
        return c.value <= 255 ? (int)c.value : -1;
    if (c.kind != MBX_COLOR_RGB)
        return -1;
    /* 0-15 are never chosen: their RGB is whatever the user configured.
     * On a tie the cube (searched first) wins over the grey ramp. */
    int out = 16;
    for (unsigned i = 17; i <= 255; i++)
        if (dist2(c.value, index_rgb(i)) < dist2(c.value, index_rgb((unsigned)out)))
            out = (int)i;
    return out;
}

int mbx_color_to_8(mbx_color c)
{
    /* Colours go to the nearest of xterm's default RGB for 0-7: a fixed,
     * well-known reference, as the user's palette cannot be queried. */
    static const unsigned basic[8] = {0x000000, 0xcd0000, 0x00cd00, 0xcdcd00,
                                      0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5};
    if (c.kind == MBX_COLOR_INDEX && c.value < 16)
        return (int)(c.value & 7);
    if (!(c.kind == MBX_COLOR_INDEX && c.value <= 255) && c.kind != MBX_COLOR_RGB)
        return -1;
    unsigned rgb = c.kind == MBX_COLOR_RGB ? c.value : index_rgb(c.value);
    int r = (int)(rgb >> 16 & 255), g = (int)(rgb >> 8 & 255), b = (int)(rgb & 255);
    /* Greys go by lightness alone: by distance mid grey is nearer xterm's
     * yellow than its white, and a grey must not turn into a hue. */
    if (abs(r - g) < 40 && abs(g - b) < 40 && abs(r - b) < 40)
        return (r + g + b) / 3 < 64 ? 0 : 7;
    int out = 0;
    for (int k = 1; k < 8; k++)
        if (dist2(rgb, basic[k]) < dist2(rgb, basic[out]))
            out = k;
    return out;
}
