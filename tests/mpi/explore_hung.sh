#!/usr/bin/env bash
# The explorer's watchdog (docs/hardening.md, "A point that does not
# return"): the explorer headless on 2 real ranks, rank 1 stopping to
# answer at 4 bytes (the test hook MBX_TEST_HANG=RANK:BYTES[:SEC] of builds
# with the test suite), one case per invocation:
#
#   explore_hung.sh MPIEXEC NPFLAG MPIBEX OUTDIR CASE
#
#   goes_on  rank 1 is away 6 s, the bound 4 s: the point is HUNG (its row
#            in the autosave, "returned after", no numbers; the results
#            screen and the closing count say HUNG), every other size is
#            measured, exit 0; the results screen's median of the HUNG
#            row is "-" (no number, as in the CSV)
#   ends     rank 1 is away for good, the bound 1 s: after twice the bound
#            the explorer ends, exit 3, with one note naming the point and
#            the autosave, whose rows it counts are there (the HUNG line
#            before it says the explorer ends; it keeps no journal); no
#            process left
#   tty      as ends, on a terminal (`script`'s) through the launcher
#            (`mpibex -n 2`): exit 3, and the terminal got the reset bytes
#            (mbx_term_reset_seq) before the note (77 without `script`)
set -u
mpiexec=$1 npflag=$2 mpibex=$3 dir=$4 case=$5
. "$(dirname "$0")/../lib.sh"
test_case=explore_hung_$case
tag="exhung-$case-$$-$RANDOM$RANDOM"
work=$dir/explore_hung_$case
cleanup() {
    local p
    for p in $(mbx_tagged "MBX_FAULT_TAG=$tag"); do kill -KILL "$p" 2>/dev/null; done
}
trap cleanup EXIT
trap 'exit 143' TERM
rm -rf "$work"
mkdir -p "$work/save"
echo 'r wait dump:done 4 dump:results q y' >"$work/keys"

run() { # HANG WATCHDOG: the exit code in $code, the autosave CSV in $csv
    local start=$SECONDS
    env MBX_FAULT_TAG="$tag" MBX_TEST_HANG="$1" LC_ALL=C.UTF-8 timeout 60 "$mpiexec" "$npflag" 2 \
        "$mpibex" explore --bench pingpong.send_recv --sizes 1:8 --refine off --watchdog "$2" \
        --headless 120x40 --keys "$work/keys" --dump-dir "$work" --autosave "$work/save" \
        >"$work/out" 2>"$work/err"
    code=$?
    echo "  exit $code after $((SECONDS - start)) s; stderr:"
    sed 's/^/    /' "$work/err"
    csv=$(ls "$work"/save/explorer-*.csv 2>/dev/null | head -1)
}

# Field NAME of the autosave's rows at BYTES (one line per row).
field() { # NAME BYTES
    python3 - "$csv" "$1" "$2" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
print("\n".join(r[sys.argv[2]] for r in rows if r["bytes"] == sys.argv[3]))
PY
}
nrows() { python3 -c 'import csv,sys; print(len(list(csv.DictReader(open(sys.argv[1], newline="")))))' "$csv"; }

case $case in
goes_on)
    if [ "${MBX_TEST_MPI:-mpich}" = openmpi ]; then
        run 1:4:18 12:2 # Open MPI's passes after a stall run slow (tests/mpi/hung.sh)
    else
        run 1:4:6 4:2
    fi
    [ "$code" -eq 0 ] && pass "the run went on and ended (exit 0)" || fail "exit $code"
    [ -n "$csv" ] && pass "the autosave is $csv" || die "no autosave CSV"
    [ "$(field status 4)" = HUNG ] && pass "the 4-byte row is HUNG" ||
        fail "4-byte status '$(field status 4)'"
    field status_reason 4 | grep -Eq '^returned after [0-9.]+ s, bound [0-9.]+ s$' &&
        pass "its reason: $(field status_reason 4)" || fail "reason '$(field status_reason 4)'"
    [ -z "$(field median_us 4)" ] && [ "$(field n 4)" = 0 ] && pass "no numbers in the HUNG row" ||
        fail "HUNG row has median '$(field median_us 4)', n '$(field n 4)'"
    n=0
    for b in 1 2 8; do
        s=$(field status $b)
        [ -n "$s" ] && [ "$s" != HUNG ] && n=$((n + 1))
    done
    [ $n -eq 3 ] && pass "1, 2 and 8 bytes measured" || fail "$n of 1, 2, 8 bytes measured"
    grep -q ', 1 HUNG;' "$work/done.txt" && pass "the closing count says 1 HUNG" ||
        fail "done: $(grep -E 'done:' "$work/done.txt")"
    row=$(grep -E '^ *pingpong\.send_recv +4 ' "$work/results.txt")
    grep -q HUNG <<<"$row" && pass "the results screen shows HUNG" ||
        fail "results: $(grep -v '^@' "$work/results.txt" | head -12)"
    # Its numbers are empty, as in the CSV: "-", never "nan".
    ! grep -qi nan <<<"$row" && grep -Eq '^ *pingpong\.send_recv +4 +[0-9]+ +- ' <<<"$row" &&
        pass "its median is '-'" || fail "HUNG row: $row"
    ;;
ends)
    run 1:4 1:2
    [ "$code" -eq 3 ] && pass "exit 3" || fail "exit $code"
    note=$(grep -E '^mpibex: watchdog: pingpong\.send_recv on 2 procs at 4 bytes has not returned in [0-9.]+ s \(bound [0-9.]+ s\) and cannot be cancelled: the explorer ends; [0-9]+ points finished, autosaved in .*/save/explorer-[^ ]*\.csv$' "$work/err")
    [ -n "$note" ] && pass "the note: $note" || fail "no note naming the point and the autosave"
    # The HUNG line before it says what follows; the explorer has no journal.
    hung=$(grep -E '^mpibex: watchdog: .* has not returned within ' "$work/err")
    grep -q 'and the explorer ends if it has not in another' <<<"$hung" && ! grep -q journal "$work/err" &&
        pass "the HUNG line: the explorer ends, no journal" || fail "HUNG line: $hung"
    k=$(sed -n 's/.*ends; \([0-9]*\) points finished.*/\1/p' <<<"$note")
    [ -n "$csv" ] && [ "$(nrows)" = "${k:-x}" ] && pass "the autosave has its $k rows" ||
        fail "autosave rows $( [ -n "$csv" ] && nrows), the note says '$k'"
    sleep 1
    [ -z "$(mbx_tagged "MBX_FAULT_TAG=$tag")" ] && pass "no process left" ||
        fail "processes left: $(mbx_tagged "MBX_FAULT_TAG=$tag")"
    ;;
tty)
    command -v script >/dev/null || { echo "SKIP: no script(1)"; exit 77; }
    start=$SECONDS
    env MBX_FAULT_TAG="$tag" MBX_TEST_HANG=1:4 XDG_STATE_HOME="$work/state" LC_ALL=C.UTF-8 \
        TERM=xterm-256color timeout 60 script -qec "'$mpibex' -n 2 --bench pingpong.send_recv \
        --sizes 1:8 --refine off --watchdog 1:2 --start --autosave '$work/save'" "$work/typescript" \
        </dev/null >/dev/null 2>&1
    code=$?
    echo "  exit $code after $((SECONDS - start)) s"
    [ "$code" -eq 3 ] && pass "exit 3" || fail "exit $code"
    python3 - "$work/typescript" <<'PY' && pass "the reset bytes, then the note" || fail "see above"
import sys
t = open(sys.argv[1], "rb").read()
reset = (b"\033[0m\033[?25h\033[?1000l\033[?1002l\033[?1003l\033[?1005l\033[?1006l"
         b"\033[?1015l\033[?2004l\033[?1l\033>\033[?1049l")
r = t.rfind(reset)
n = t.find(b"mpibex: watchdog: pingpong.send_recv on 2 procs at 4 bytes has not returned in")
print("  reset at %d, note at %d of %d bytes" % (r, n, len(t)))
sys.exit(0 if 0 <= r < n else 1)
PY
    sleep 1
    [ -z "$(mbx_tagged "MBX_FAULT_TAG=$tag")" ] && pass "no process left" ||
        fail "processes left: $(mbx_tagged "MBX_FAULT_TAG=$tag")"
    ;;
*) die "unknown case '$case'" ;;
esac
mbx_finish
