#!/usr/bin/env bash
# Benchmark selection in the explorer, headless on the fake back
# end: a plan whose bench key holds a glob and a name selects exactly
# those benchmarks (the picker's count and marks); the picker's filter with
# a glob character shows whole-name matches only; a plan whose glob
# selects nothing is refused in one line naming it, exit 2. And `run` on
# the fake back end: --bench and a plan's bench = with a glob measure the
# benchmarks `list` selects with it, each once.
# usage: bench_glob.sh MPIBEX WORKDIR
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
# run: the glob's benchmarks, each once (coll.scan named twice).
want=$("$mpibex" list 'coll.*scan' | grep -v '^#' | cut -d' ' -f1 | sort | tr '\n' ' ')
[ "$(wc -w <<<"$want")" -ge 2 ] || fail "list 'coll.*scan': $want"
"$mpibex" run --fake 2 --bench 'coll.*scan,coll.scan' --sizes 8 -q -o cli.csv >run1.txt 2>&1 ||
    fail "run --bench 'coll.*scan,coll.scan': $(cat run1.txt)"
got=$(tail -n +2 cli.csv | cut -d, -f1 | sort | tr '\n' ' ')
[ "$got" = "$want" ] && pass "run --bench 'coll.*scan,coll.scan': $got" ||
    fail "run --bench: '$got', expected '$want'"
printf '[p]\nbench = coll.*scan\nsizes = 8\n' >p.ini
"$mpibex" run --fake 2 p.ini -q -o plan.csv >run2.txt 2>&1 || fail "run p.ini: $(cat run2.txt)"
got=$(tail -n +2 plan.csv | cut -d, -f1 | sort | tr '\n' ' ')
[ "$got" = "$want" ] && pass "plan bench = coll.*scan: $got" || fail "plan: '$got', expected '$want'"
mbx_finish
