#!/usr/bin/env bash
# Keeps the locale class fixed: no source of the engine or the
# front ends calls a locale-dependent classifier, case folder or number
# reader directly (mbx/ascii.h has the locale-free ones), and nothing takes
# more than LC_CTYPE from the environment.
# usage: locale_lint.sh SOURCE_DIR
set -u
src=$1
cd "$src" || exit 1
fails=0
# \b keeps mbx_strtod, mbx_ascii_isspace and friends out; engine/core/ascii.c
# is where strtod and vsnprintf run under uselocale.
calls='\b(strn?casecmp|to(upper|lower)|is(space|digit|x?digit|alpha|alnum|upper|lower|print|punct|cntrl|graph|blank)|strto(d|f|ld)|atof)[[:space:]]*\('
hits=$(grep -rnE "$calls" engine tui include --include='*.c' --include='*.h' |
    grep -v '^engine/core/ascii\.c:' | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/\*|\*( |/|$))')
if [ -n "$hits" ]; then
    echo "FAIL: locale-dependent calls (use mbx/ascii.h):"
    echo "$hits"
    fails=$((fails + 1))
fi
# Floating-point conversions in sscanf follow LC_NUMERIC.
hits=$(grep -rnE 'sscanf\([^;]*%[0-9]*l?[efgaEFGA]' engine tui --include='*.c')
if [ -n "$hits" ]; then
    echo "FAIL: sscanf of a floating-point number (use mbx_strtod):"
    echo "$hits"
    fails=$((fails + 1))
fi
hits=$(grep -rnE 'setlocale[[:space:]]*\(' engine tui --include='*.c' | grep -v 'setlocale(LC_CTYPE, "")')
if [ -n "$hits" ]; then
    echo "FAIL: a locale category other than LC_CTYPE taken from the environment:"
    echo "$hits"
    fails=$((fails + 1))
fi
[ $fails -eq 0 ] && echo "locale lint: no locale-dependent call in engine/, tui/, include/"
[ $fails -eq 0 ]
