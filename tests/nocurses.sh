#!/usr/bin/env bash
# The batch-only build (-DMBX_CURSES=OFF, for compute-node images without
# ncurses): it configures and builds in its own tree, links no curses,
# measures a point with `mpibex run`, says it has no explorer in --version,
# and refuses the explorer in one line with exit 2, with and without a job.
# usage: nocurses.sh SOURCE_DIR BUILD_DIR MPIEXEC
set -u
. "$(dirname "$(readlink -f "$0")")/lib.sh"
src=$1 dir=$2 mpiexec=$3
log=$dir.log
rm -rf "$dir"
if cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMBX_CURSES=OFF \
    -DMBX_MPI="${MBX_MPI:-auto}" >"$log" 2>&1 &&
    nice cmake --build "$dir" -j 2 --target mpibex >>"$log" 2>&1; then
    pass "configured and built with -DMBX_CURSES=OFF"
else
    tail -20 "$log"
    fail "the build without curses failed ($log)"
    mbx_finish
    exit
fi
grep -q "MBX_CURSES=OFF: building without the test suite" "$log" &&
    pass "configure says the tests are left out" || fail "configure did not say the tests are left out"
bin=$dir/mpibex
if ldd "$bin" | grep -qi curses; then
    fail "mpibex links curses: $(ldd "$bin" | grep -i curses | tr -s ' \t' ' ')"
else
    pass "mpibex links no curses"
fi
"$bin" --version | grep -q '^explorer: none (built with -DMBX_CURSES=OFF' &&
    pass "--version says there is no explorer" || fail "--version does not say there is no explorer"
out=$dir/point.csv
if "$mpiexec" -n 2 "$bin" run --bench pingpong.send_recv --sizes 1,1KiB --stop fixed:50 \
    --passes 2 --span 0 --monitor off -q -o "$out" >"$dir/run.log" 2>&1 &&
    [ "$(grep -c '^pingpong.send_recv,' "$out")" = 2 ]; then
    pass "mpibex run measures 2 points"
else
    cat "$dir/run.log"
    fail "mpibex run in the batch-only build"
fi
for how in "$bin" "$mpiexec -n 1 $bin"; do
    err=$($how -n 2 2>&1 >/dev/null)
    rc=$?
    if [ $rc = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] &&
        printf '%s' "$err" | grep -q "this build has no explorer (configured with -DMBX_CURSES=OFF)"; then
        pass "the explorer is refused in one line, exit 2 ($how)"
    else
        fail "explorer refusal ($how): exit $rc, '$err'"
    fi
done
mbx_finish
