#!/usr/bin/env bash
# Every symbol the executable and the project's libraries define globally
# starts with mbx_ (ncurses and MPI own many short names): nm over mpibex
# and every libmbx_*.a of the build. Allowed besides: main, the C
# runtime's (data_start, names starting with _), versioned references the
# linker copies in (NAME@LIB), and the OpenMP runtime's critical-section
# locks (.gomp_critical_user_mbx_...).
# usage: symbols.sh MPIBEX BUILD_DIR
set -u
. "$(dirname "$(readlink -f "$0")")/lib.sh"
mpibex=$1 build=$2
command -v nm >/dev/null || fail "nm not found (binutils)"
bad() { # FILE: the globally defined names that break the rule
    nm -g --defined-only "$1" 2>/dev/null | awk 'NF == 3 { print $3 }' |
        grep -vE '^(mbx_|_|\.gomp_critical_user_mbx_)|@|^(main|data_start)$' || true
}
n=0 files=0
for f in "$mpibex" $(find "$build" -name 'libmbx_*.a' | sort); do
    files=$((files + 1))
    b=$(bad "$f")
    [ -z "$b" ] && continue
    n=$((n + $(wc -l <<<"$b")))
    echo "$f: $(tr '\n' ' ' <<<"$b")"
done
[ "$files" -ge 2 ] || fail "no libraries found under $build"
[ "$n" -eq 0 ] && pass "every global symbol of mpibex and $((files - 1)) libraries starts with mbx_" ||
    fail "$n global symbols without the mbx_ prefix (above)"
mbx_finish
