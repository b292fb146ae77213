/* Colour themes: semantic roles, their colours and attributes, parsed from
 * text and degraded to what the terminal can show. Independent of curses.
 *
 * File format (INI-like, themes/NAME.theme):
 *     # comment
 *     name = dark
 *     [colors]
 *     axis      = #8a8a8a
 *     series.1  = #e69f00 bold
 *     footer.key = black on #e69f00 bold
 *     warning   = yellow bold
 *     [mono]
 *     series.1  = bold
 *     warning   = reverse
 * A colour is #RRGGBB, an xterm index 0-255, a name (black, red, green,
 * yellow, blue, magenta, cyan, white, and bright- variants of each), or
 * "default" (the terminal's own). A value is FG [on BG] [ATTR...]; ATTR is
 * bold, dim, underline, reverse, italic or standout. The [mono] section
 * gives the attributes used when colour is off (NO_COLOR, --no-color, or a
 * monochrome terminal); roles it omits use the built-in mono defaults. Roles
 * a [colors] section omits keep the built-in default theme's value. Unknown
 * roles, sections, colours or attributes are errors with file and line.
 * The terminal's own palette is never redefined: 24-bit colours are mapped
 * to the nearest of the 256 or 8 standard colours. */
#ifndef MBX_THEME_H
#define MBX_THEME_H

#include <stddef.h>

typedef enum mbx_role {
    MBX_ROLE_NORMAL = 0,   /* body text */
    MBX_ROLE_TITLE,        /* title bar */
    MBX_ROLE_FOOTER,       /* footer bar */
    MBX_ROLE_FOOTER_KEY,   /* key names in the footer and help */
    MBX_ROLE_AXIS,         /* axes, tick labels */
    MBX_ROLE_GRID,         /* grid lines */
    MBX_ROLE_SELECTED,     /* a selected item (picker check, sorted column) */
    MBX_ROLE_CURSOR,       /* the cursor line */
    MBX_ROLE_DIM,          /* secondary text, hints */
    MBX_ROLE_WARNING,      /* UNSETTLED, warnings */
    MBX_ROLE_ERROR,        /* UNRELIABLE, errors, invalid input */
    MBX_ROLE_OK,           /* SETTLED, ok marks */
    MBX_ROLE_SE_CONVERGED, /* convergence bar at or below target */
    MBX_ROLE_SE_PENDING,   /* convergence bar above target */
    MBX_ROLE_SE_TARGET,    /* the target line in the convergence panel */
    MBX_ROLE_SERIES1,      /* ... MBX_ROLE_SERIES1 + 7 */
    MBX_ROLE_COUNT = MBX_ROLE_SERIES1 + 8
} mbx_role;

#define MBX_NSERIES 8

typedef enum mbx_color_kind {
    MBX_COLOR_DEFAULT = 0, /* the terminal's own foreground/background */
    MBX_COLOR_INDEX = 1,   /* 0-255 (0-15: the basic and bright colours) */
    MBX_COLOR_RGB = 2,     /* 0xRRGGBB */
} mbx_color_kind;

typedef struct mbx_color {
    mbx_color_kind kind;
    unsigned value;
} mbx_color;

enum {
    MBX_ATTR_BOLD = 1u << 0,
    MBX_ATTR_DIM = 1u << 1,
    MBX_ATTR_UNDERLINE = 1u << 2,
    MBX_ATTR_REVERSE = 1u << 3,
    MBX_ATTR_ITALIC = 1u << 4,
    MBX_ATTR_STANDOUT = 1u << 5,
};

typedef struct mbx_style {
    mbx_color fg, bg;
    unsigned attrs;      /* with colour */
    unsigned mono_attrs; /* without colour */
} mbx_style;

typedef struct mbx_theme {
    char name[32];
    mbx_style role[MBX_ROLE_COUNT];
} mbx_theme;

/* The compiled-in default (dark) theme; always available. */
void mbx_theme_default(mbx_theme *out);

/* Parse theme text on top of the default theme. `src` names it in messages
 * ("light.theme:12: series.9: unknown role; roles: normal, title, ..."). */
int mbx_theme_parse(const char *text, const char *src, mbx_theme *out, char *msg, size_t msglen);

/* Find and load theme `name`: the first of dir_opt/NAME.theme (when dir_opt
 * is not NULL), $XDG_CONFIG_HOME/mpibex/themes/NAME.theme (or
 * ~/.config/mpibex/themes), each directory in install_dirs (NULL-terminated
 * list, e.g. the install prefix's share/mpibex/themes and the source tree's
 * themes/), and finally "default" -> the built-in theme. `name` may also be
 * a path containing '/'. The path used is written to used (may be NULL).
 * Returns 0 or a negative mbx_status with a message. */
int mbx_theme_load(const char *name, const char *dir_opt, const char *const *install_dirs,
                   mbx_theme *out, char *used, size_t usedlen, char *msg, size_t msglen);

/* Names of the themes found on the same search path (deduplicated, sorted),
 * "default" always included; returns how many were written (at most max). */
int mbx_theme_list(const char *dir_opt, const char *const *install_dirs, char names[][32], int max);

const char *mbx_role_name(mbx_role r); /* "series.1", "footer.key", ... */

/* Colour degradation: the nearest xterm-256 index of a colour (RGB ->
 * 6x6x6 cube or grey ramp, whichever is nearer), and the nearest of the 8
 * basic colours 0-7. MBX_COLOR_DEFAULT maps to -1 in both. */
int mbx_color_to_256(mbx_color c);
int mbx_color_to_8(mbx_color c);

#endif
