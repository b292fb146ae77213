#!/usr/bin/env bash
# The explorer headless on a thread that cannot be bound (test hook
# MBX_TEST_BIND_FAIL: every worker's bind fails): the runner gathers the
# binding after the point's first pass, as in `run`, and the run's closing
# line names the rank; the point is still measured.
# usage: explore_bindfail.sh WORKDIR MPIEXEC... MPIBEX
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
work=$1
shift
rm -rf "$work"
mkdir -p "$work"
printf '[bind]\nbench = threads.mutex\nparam = 2\nnmax = 50\n' >"$work/bind.ini"
echo 'r wait dump:done q y' >"$work/bind.keys"
MBX_TEST_BIND_FAIL=1 LC_ALL=C.UTF-8 "$@" explore --plan "$work/bind.ini" --headless 120x40 \
    --keys "$work/bind.keys" --dump-dir "$work" --autosave none >"$work/out" 2>"$work/err"
code=$?
[ $code -eq 0 ] && pass "exit 0" || fail "exit $code: $(tail -n 3 "$work/err")"
grep -qE "^headless: 1 screen dumps, 1 points measured" "$work/out" &&
    pass "$(head -1 "$work/out")" || fail "closing count: '$(cat "$work/out")'"
grep -qE "done: 1 points: .*; threads could not be bound on rank 0" "$work/done.txt" &&
    pass "the closing line names the rank whose thread was not bound" ||
    fail "no 'threads could not be bound on rank 0' in the closing line: $(grep 'done:' "$work/done.txt")"
mbx_finish
