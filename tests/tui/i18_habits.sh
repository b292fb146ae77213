#!/usr/bin/env bash
# Benchmark selection in the explorer (issue 18), headless on the fake back
# end: a plan whose bench key holds a glob and a name selects exactly
# those benchmarks (the picker's count and marks); the picker's filter with
# a glob character shows whole-name matches only; a plan whose glob
# selects nothing is refused in one line naming it, exit 2.
# usage: i18_habits.sh MPIBEX WORKDIR
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
mpibex=$1 work=$2
rm -rf "$work"
mkdir -p "$work/dump"
cd "$work" || die "cannot enter $work"
printf '[g]\nbench = coll.i*, pingpong.send_recv\nsizes = 8\n' >glob.ini
printf 'dump:picker\n/ text:coll.i* enter dump:picker_glob\n' >keys.txt
LC_ALL=C.UTF-8 "$mpibex" explore --fake 2 --headless 100x30 --term xterm-mono --keys keys.txt \
    --dump-dir dump --autosave none --plan glob.ini >out.txt 2>err.txt ||
    die "the explorer failed: $(cat err.txt)"

# The registry's non-blocking collectives, as `list` counts them.
nb=$("$mpibex" list 'coll.i*' | grep -vc '^#')
[ "$nb" -ge 10 ] || fail "list 'coll.i*': only $nb"
want=$((nb + 1))
grep -q "Benchmarks: $want selected of" dump/picker.txt &&
    pass "plan 'coll.i*, pingpong.send_recv': $want selected" ||
    fail "expected $want selected: $(grep 'Benchmarks:' dump/picker.txt)"
grep -Eq '\[x\] pingpong\.send_recv ' dump/picker.txt && ! grep -Eq '\[x\] pingpong\.ssend_recv' dump/picker.txt &&
    pass "pingpong.send_recv selected, its siblings not" || fail "pingpong marks"

rows=$(grep -Ec '^ +\[[x ]\] [a-z]+\.' dump/picker_glob.txt)
other=$(grep -E '^ +\[[x ]\] [a-z]+\.' dump/picker_glob.txt | grep -Evc '\] coll\.i')
[ "$rows" -eq "$nb" ] && [ "$other" -eq 0 ] &&
    pass "filter coll.i*: the $nb non-blocking collectives only" ||
    fail "filter coll.i*: $rows rows, $other not coll.i*"

printf '[g]\nbench = nope.*\n' >none.ini
LC_ALL=C.UTF-8 "$mpibex" explore --fake 2 --headless 100x30 --term xterm-mono --keys keys.txt \
    --dump-dir dump --autosave none --plan none.ini >out2.txt 2>err2.txt
rc=$?
[ "$rc" -eq 2 ] && pass "a glob that selects nothing: exit 2" || fail "exit $rc, expected 2"
mbx_one_line err2.txt "bench: 'nope\.\*' matches no benchmark in \[g\]"
pass "one line: $(cat err2.txt)"
mbx_finish
