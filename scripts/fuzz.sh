#!/usr/bin/env bash
# Fuzz one target for longer than CI does. usage: scripts/fuzz.sh NAME [SECONDS] [libFuzzer flags...]
# NAME is one of tests/fuzz/fuzz_NAME.c (plan, sizes, stop, theme, csv, merge, report,
# compare, resume, command, bridge, names); SECONDS defaults to 300. Builds
# build-fuzz with clang-14 (MBX_FUZZ_CC overrides; -DMBX_FUZZ=ON) when needed. The corpus it grows is
# kept in build-fuzz/fuzz/NAME/corpus for the next run; a crashing input
# lands in build-fuzz/fuzz/NAME/crash-* (add it to tests/fuzz/regress/NAME/).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 NAME [SECONDS] [libFuzzer flags...]" >&2; exit 2; }
name=$1
seconds=${2:-300}
shift $(($# >= 2 ? 2 : 1))
[ -f "$root/tests/fuzz/fuzz_$name.c" ] || { echo "fuzz: no target $name" >&2; exit 2; }
dir=$root/build-fuzz
cc=${MBX_FUZZ_CC:-clang-14}
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$dir" -DCMAKE_C_COMPILER="$cc" -DMBX_FUZZ=ON -DMBX_BUILD_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$dir" --target "fuzz_$name" -j 2 >/dev/null
exec "$root/tests/fuzz/run_fuzz.sh" "$dir/tests/fuzz/fuzz_$name" "$name" "$seconds" \
  "$dir/fuzz/$name" "$@"
