#!/usr/bin/env bash
# usage: explore_pairs.sh WORKDIR MPIEXEC... MPIBEX
# The explorer's pairs screen headless on real ranks, a node per rank (the
# form's per field turned to rank), a time limit of 3 s: the run ends
# (exit 0 when the user quits), the message line says how many cells
# SETTLED and why the run ended, the matrix has its two cells measured
# (a shade, not '-'), the cursor's cell has a value with its unit, the
# inspector opens on it, and two nodes get no verdicts but say why. And
# the default, a node per host, refuses a job on one host in one line.
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
work=$1
shift
rm -rf "$work"
mkdir -p "$work/run" "$work/one"
echo '6 down down right right down down down down down enter text:3 enter r wait dump:done enter dump:insp q' \
    >"$work/k.keys"
echo '6 r dump:refused q' >"$work/one.keys"
cmd=("$@")
LC_ALL=C.UTF-8 timeout 100 "${cmd[@]}" explore --headless 100x30 --keys "$work/k.keys" \
    --dump-dir "$work/run" --autosave none >"$work/run/out" 2>"$work/run/err"
code=$?
[ $code -eq 0 ] && pass "exit 0" || fail "exit $code: $(tail -n 3 "$work/run/err")"
done=$(grep -v '^@' "$work/run/done.txt" 2>/dev/null)
echo "$done" | sed -n '4,12p'
grep -qE '^ done: [0-4] of 4 cells SETTLED in [0-9]+ rounds, [0-9.]+ s \((settled|time-limit 3 s|max-rounds 200)\)' <<<"$done" &&
    pass "the message line: $(grep -oE 'done: .*' <<<"$done" | head -1)" ||
    fail "no done line with the cells SETTLED and the end"
grep -qE '^ 2 nodes, shift; round [0-9]+, pass 2/2;' <<<"$done" &&
    pass "2 nodes in shift mode: a round is a pass of each metric's one step" ||
    fail "progress line: $(grep -E '^ 2 nodes' <<<"$done")"
row0=$(grep -E '^ 0 ' <<<"$done" | head -1)
row1=$(grep -E '^ 1 ' <<<"$done" | head -1)
[ -n "$row0" ] && [ -n "$row1" ] && ! grep -q -- '-' <<<"${row0:3:4}${row1:3:4}" &&
    pass "both cells shaded: '${row0:0:8}' '${row1:0:8}'" || fail "a cell not measured: '$row0' '$row1'"
grep -qE '^ +[0-9.]+ us \[[0-9.]+, [0-9.]+\]|[0-9.]+ us \[' <<<"$done" &&
    pass "the cursor's cell: $(grep -oE '[0-9.]+ us \[[0-9., ]+\]' <<<"$done" | head -1)" ||
    fail "no value with its CI for the cursor's cell"
grep -q 'no verdicts: they need 4 nodes or mo' <<<"$done" && pass "two nodes: no verdicts, and why" ||
    fail "the verdicts' line"
insp=$(grep -v '^@' "$work/run/insp.txt" 2>/dev/null)
XX
grep -qE 'pairs\.lat .* r0 -> .* r1' <<<"$insp" &&
    pass "the inspector: $(grep -oE 'pairs\.lat .* r1' <<<"$insp" | head -1)" || fail "no inspector"
grep -qE 'scope launch: this job' <<<"$insp" && pass "the inspector names the interval's scope" ||
    fail "no scope line in the inspector"

LC_ALL=C.UTF-8 timeout 60 "${cmd[@]}" explore --headless 100x30 --keys "$work/one.keys" \
    --dump-dir "$work/one" --autosave none >"$work/one/out" 2>"$work/one/err"
ref=$(grep -v '^@' "$work/one/refused.txt" 2>/dev/null | grep -E 'the matrix needs 2 nodes')
[ -n "$ref" ] && pass "a node per host on one host: refused:$ref" || fail "no refusal on one host"
mbx_finish
