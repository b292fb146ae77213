#!/usr/bin/env bash
# Tests of `mpibex check` on launches of the fake back end (no MPI; each
# launch a `run --fake 2 --raw -o DIR/launch-NN.csv`, as repeat names
# them). usage: check_check.sh MODE MPIBEX DIR
#   regression  a planted 1.3x slowdown from 4 KiB on (MBX_TEST_STEP) over
#               256 B..64 KiB, 10 launches a side: exit 1, the summary names
#               4 KiB, 16 KiB and 64 KiB, the table has those three rows; the
#               JUnit file parses (python3 xml.etree) with 5 testcases and 3
#               failures; the same launches with the sides swapped pass
#               (faster never fails) and fail under --direction both; repeat
#               records of a baseline series before the current one add the
#               time-order line
#   identical   two sets of 10 launches of the same settings: exit 0,
#               every point equivalent, no table
#   undecided   one launch a side: exit 3 and the repeat advice; two single
#               runs (scope none): exit 3, the advice, the JUnit file all
#               skipped
#   rules       a check file that allows 40 % at pingpong.* 4K:64K passes
#               the planted slowdown (exit 0); one that allows it only up
#               to 16K fails at 64 KiB alone; an absolute 1us passes 4 KiB
#               (0.6 us slower) and fails 16 and 64 KiB (1.1, 2 us)
set -u
. "$(dirname "$0")/../lib.sh"
mode=$1 mpibex=$2 dir=$3
shift 3
unset MPIBEX_RUN_OPTIONS
sizes=256,1K,4K,16K,64K

# launches DIR K [ENV...]: K fake launches of ping-pong over $sizes.
launches() {
    local d=$1 k=$2 i
    shift 2
    mkdir -p "$d"
    for i in $(seq -w 1 "$k"); do
        [ "$k" -ge 10 ] || i=0$i
        env "$@" "$mpibex" run --fake 2 --bench pingpong.send_recv --sizes $sizes --span 0 -q --raw \
            -o "$d/launch-$i.csv" >/dev/null 2>"$d/err" || die "fake launch $i failed: $(cat "$d/err")"
    done
}

# run_check OUT ARGS...: stdout in OUT.txt, stderr in OUT.err, exit in $code.
run_check() {
    local out=$1
    shift
    "$mpibex" check "$@" >"$out.txt" 2>"$out.err"
    code=$?
    echo "check $* -> exit $code"
    sed 's/^/  /' "$out.txt" "$out.err"
}

# junit FILE: "TESTS FAILURES SKIPPED" counted from the parsed XML.
junit() {
    python3 -c 'import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot()
assert s.tag == "testsuite", s.tag
cases = s.findall("testcase")
f = sum(len(c.findall("failure")) for c in cases)
k = sum(len(c.findall("skipped")) for c in cases)
assert int(s.get("tests")) == len(cases) and int(s.get("failures")) == f and int(s.get("skipped")) == k
print(len(cases), f, k)' "$1"
}

rm -rf "$dir"
mkdir -p "$dir"
case $mode in
regression)
    launches "$dir/base" 10
    launches "$dir/cur" 10 MBX_TEST_STEP=4096:1.3
    run_check "$dir/r" "$dir/base" "$dir/cur" --junit "$dir/r.xml"
    [ "$code" -eq 1 ] || fail "planted regression: exit $code, want 1"
    grep -q '^check: 3 of 5 points slower beyond 5 % (pingpong.send_recv 4 KiB, 16 KiB, 64 KiB); 2 equivalent; scope launches:10$' \
        "$dir/r.txt" || fail "planted regression: the summary does not name 4, 16 and 64 KiB"
    [ "$(grep -Ec '^pingpong.send_recv +2 +(4|16|64) KiB .* slower \(beyond 5 %\)$' "$dir/r.txt")" -eq 3 ] ||
        fail "planted regression: not 3 table rows 'slower (beyond 5 %)'"
    [ "$(junit "$dir/r.xml")" = "5 3 0" ] || fail "JUnit: '$(junit "$dir/r.xml")', want 5 testcases, 3 failures"
    grep -q '<testcase classname="mpibex.check" name="pingpong.send_recv 2 4096"' "$dir/r.xml" ||
        fail "JUnit: no testcase named 'pingpong.send_recv 2 4096'"
    run_check "$dir/swap" "$dir/cur" "$dir/base"
    [ "$code" -eq 0 ] || fail "faster (sides swapped): exit $code, want 0"
    grep -q '^check: 0 of 5 points slower beyond 5 %; 2 equivalent; 3 faster; scope launches:10$' "$dir/swap.txt" ||
        fail "faster: wrong summary"
    run_check "$dir/both" "$dir/cur" "$dir/base" --direction both
    [ "$code" -eq 1 ] || fail "faster under --direction both: exit $code, want 1"
    grep -q '^check: 3 of 5 points changed beyond 5 % (slower: none; faster: pingpong.send_recv 4 KiB, 16 KiB, 64 KiB)' \
        "$dir/both.txt" || fail "--direction both: wrong summary"
    # Repeat records that put every baseline launch before every current
    # one: a line says a drift between the series reads as a change.
    record() { # DIR FIRST_MINUTE
        { echo "key,value"
          for l in 1 2 3 4 5 6 7 8 9 10; do
              printf 'launch.%02d.start,2026-03-01T10:%02d:%02d+0000\n' "$l" "$2" $((l * 5))
          done; } >"$1/repeat.csv"
    }
    record "$dir/base" 0
    record "$dir/cur" 10
    run_check "$dir/order" "$dir/base" "$dir/cur"
    [ "$code" -eq 1 ] || fail "with repeat records: exit $code, want 1"
    grep -q "^check: time order: the baseline's launches all started before the current setting's (555 s between" \
        "$dir/order.txt" || fail "no time-order line"
    ;;
identical)
    launches "$dir/a" 10
    launches "$dir/b" 10
    run_check "$dir/ab" "$dir/a" "$dir/b"
    [ "$code" -eq 0 ] || fail "identical settings: exit $code, want 0"
    grep -q '^check: 0 of 5 points slower beyond 5 %; 5 equivalent; scope launches:10$' "$dir/ab.txt" ||
        fail "identical settings: not 5 equivalent"
    [ "$(wc -l <"$dir/ab.txt")" -eq 1 ] || fail "identical settings: more than the summary line"
    ;;
undecided)
    launches "$dir/a" 1
    launches "$dir/b" 1 MBX_TEST_STEP=4096:1.3
    run_check "$dir/one" "$dir/a" "$dir/b"
    [ "$code" -eq 3 ] || fail "one launch a side: exit $code, want 3"
    grep -q "^check: undecided: BASELINE '.*/a' has 1 launch" "$dir/one.txt" || fail "one launch: no undecided line"
    grep -q "^check: to decide, run 'mpibex repeat -k 10 -- \[run options\] -o DIR' for the baseline and for the current" \
        "$dir/one.txt" || fail "one launch: no advice line"
    run_check "$dir/none" "$dir/a/launch-01.csv" "$dir/b/launch-01.csv" --junit "$dir/none.xml"
    [ "$code" -eq 3 ] || fail "two single runs: exit $code, want 3"
    grep -q '^check: undecided: 5 points, no verdict (scope none): ' "$dir/none.txt" || fail "scope none: no line"
    grep -q "^check: to decide, run 'mpibex repeat -k 10" "$dir/none.txt" || fail "scope none: no advice"
    [ "$(junit "$dir/none.xml")" = "5 0 5" ] || fail "scope none JUnit: '$(junit "$dir/none.xml")', want 5 skipped"
    ;;
rules)
    launches "$dir/base" 10
    launches "$dir/cur" 10 MBX_TEST_STEP=4096:1.3
    printf '# planted slowdown allowed\n[pingpong mid sizes]\nbench = pingpong.*\nsizes = 4K:64K\ntolerance = 40%%\n' >"$dir/wide.ini"
    run_check "$dir/wide" "$dir/base" "$dir/cur" --rules "$dir/wide.ini"
    [ "$code" -eq 0 ] || fail "40 % at 4K:64K: exit $code, want 0"
    grep -q '^check: 0 of 5 points slower beyond their tolerance; 5 equivalent; ' "$dir/wide.txt" ||
        fail "40 %: wrong summary"
    printf 'tolerance = 5%%\n[mid]\nbench = pingpong\nsizes = 4K:16K\ntolerance = 40%%\n' >"$dir/part.ini"
    run_check "$dir/part" "$dir/base" "$dir/cur" --rules "$dir/part.ini"
    [ "$code" -eq 1 ] || fail "40 % at 4K:16K: exit $code, want 1"
    grep -q '^check: 1 of 5 points slower beyond their tolerance (pingpong.send_recv 64 KiB); 4 equivalent; ' \
        "$dir/part.txt" || fail "40 % at 4K:16K: not 64 KiB alone"
    run_check "$dir/abs" "$dir/base" "$dir/cur" --tolerance 1us
    [ "$code" -eq 1 ] || fail "--tolerance 1us: exit $code, want 1"
    grep -q '^check: 2 of 5 points slower beyond 1 us (pingpong.send_recv 16 KiB, 64 KiB); 3 equivalent; ' \
        "$dir/abs.txt" || fail "--tolerance 1us: not 16 and 64 KiB"
    ;;
*) die "unknown mode '$mode'" ;;
esac
mbx_finish
