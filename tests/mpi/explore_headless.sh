#!/usr/bin/env bash
# The explorer headless on real ranks: `mpibex explore
# --headless` under mpiexec, driven by a key script with `wait` (polls until
# the run is done, however long real ranks take). Send and Ssend from 1 B
# to 64 B, then the compare view and its list of verdicts. Asserts
# properties only: exit 0, every point final, a verdict at each of the 4
# sizes from the Wilcoxon test on pass medians, the view says the curves
# were interleaved, the dumps and the closing count are there.
# usage: explore_headless.sh WORKDIR MPIEXEC... MPIBEX
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
work=$1
shift
rm -rf "$work"
mkdir -p "$work"
printf '[fair]\nbench = pingpong.send_recv, pingpong.ssend_recv\nsizes = 1:64:4\n' >"$work/fair.ini"
echo 'r wait dump:done v enter down enter = dump:ratios q y' >"$work/fair.keys"
LC_ALL=C.UTF-8 "$@" explore --plan "$work/fair.ini" --headless 120x40 --keys "$work/fair.keys" \
    --dump-dir "$work" --autosave none >"$work/out" 2>"$work/err"
code=$?
[ $code -eq 0 ] && pass "exit 0" || fail "exit $code: $(tail -n 3 "$work/err")"
# 8 grid points, and the points refinement added between them (noise may
# make it add some): every one final, and the closing count agrees.
done_line=$(grep -v '^@' "$work/done.txt" 2>/dev/null | grep -oE 'final [0-9]+/[0-9]+' | head -1)
nfin=$(sed -n 's/final \([0-9]*\)\/\([0-9]*\)/\1/p' <<<"$done_line")
npts=$(sed -n 's/final \([0-9]*\)\/\([0-9]*\)/\2/p' <<<"$done_line")
[ -n "$npts" ] && [ "$nfin" = "$npts" ] && [ "$npts" -ge 8 ] &&
    pass "the run ended with $done_line" ||
    fail "the run did not end with every point (8 or more) final: '$done_line'"
grep -qE "^headless: 2 screen dumps, ${npts:-x} points measured" "$work/out" &&
    pass "$(head -1 "$work/out")" || fail "closing count: '$(cat "$work/out")'"
screen=$(grep -v '^@' "$work/ratios.txt" 2>/dev/null)
grep -q "interleaved; Wilcoxon 5%, pass medians" <<<"$screen" &&
    pass "the compare view says the curves were interleaved and tests pass medians" ||
    fail "no 'interleaved; Wilcoxon 5%, pass medians' line"
n=0
for x in 1 4 16 64; do
    grep -qE " $x +[0-9.]+[nµm]?s +[0-9.]+[nµm]?s +[0-9.]+ +[<.0-9]+\**-* +[<>=-]" <<<"$screen" &&
        n=$((n + 1))
done
[ $n -eq 4 ] && pass "a verdict at each of the 4 sizes" ||
    fail "verdicts at $n of 4 sizes: $(grep -A6 'B/A tested' <<<"$screen")"
mbx_finish
