#!/usr/bin/env bash
# mbx_interp_errors (bench/interp_errors.c) gives refinement's log-log
# interpolation errors: a curve 1 B -> 1 us, 16 B -> 4 us interpolates 2 us
# at 4 B (error 1/6 against 2.4 us), its own value at 16 B (error 0), and
# nothing outside its range; bad input exits 2 with one line.
# usage: interp_errors_check.sh TOOL WORKDIR
set -euo pipefail
tool=$1 dir=$2
mkdir -p "$dir"
printf '16 4\n1 1\n' >"$dir/curve"
printf '4 2.4\n16 4\n32 9\n' >"$dir/ref"
got=$("$tool" "$dir/curve" "$dir/ref" | tr '\n' ' ')
[ "$got" = "0 0.166666667 " ] || { echo "got '$got'"; exit 1; }
printf '1 x\n' >"$dir/bad"
rc=0
err=$("$tool" "$dir/bad" "$dir/ref" 2>&1) || rc=$?
[ "$rc" = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || { echo "bad input: rc $rc, '$err'"; exit 1; }
echo "interp_errors: ok"
