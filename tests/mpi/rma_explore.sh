#!/usr/bin/env bash
# usage: rma_explore.sh WORKDIR MPIEXEC... MPIBEX
# The explorer headless on real ranks with rma.put beside
# pingpong.send_recv, the check's test hook on (MBX_TEST_CORRUPT=1: every
# rma.* check fails, on any MPI): the run goes on to its end (exit 0 when
# the user quits), rma.put's points are INVALID on the Results screen, the
# ping-pong points are measured, and the closing message line counts the
# passes that found wrong data. Then with UCX_RCACHE_ENABLE unset and no
# hook: where the start-up verdict finds the broken MPI/UCX pairing, the
# message line right after the run starts holds the fix.
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
work=$1
shift
rm -rf "$work"
mkdir -p "$work"
printf '[r]\nbench = rma.put, pingpong.send_recv\nsizes = 1,64\n' >"$work/p.ini"
echo 'r dump:start wait dump:done 4 dump:results q y' >"$work/k.keys"
explore() { # DIR [VAR=VALUE...]: one headless run, its dumps in DIR
    local d=$1
    shift
    mkdir -p "$d"
    env "$@" LC_ALL=C.UTF-8 "${cmd[@]}" explore --plan "$work/p.ini" --headless 200x40 \
        --keys "$work/k.keys" --dump-dir "$d" --autosave none >"$d/out" 2>"$d/err"
}
cmd=("$@")
unset UCX_RCACHE_ENABLE MBX_TEST_CORRUPT

explore "$work/corrupt" UCX_RCACHE_ENABLE=n MBX_TEST_CORRUPT=1
code=$?
[ $code -eq 0 ] && pass "exit 0" || fail "exit $code: $(tail -n 3 "$work/corrupt/err")"
res=$(grep -v '^@' "$work/corrupt/results.txt" 2>/dev/null)
echo "$res" | grep -E '^ (rma|pingpong)'
[ "$(grep -cE '^ rma\.put +(1|64) .* INVALID ' <<<"$res")" -eq 2 ] &&
    pass "both rma.put points INVALID" || fail "rma.put's points are not both INVALID"
[ "$(grep -cE '^ pingpong\.send_recv +(1|64) .* (SETTLED|UNSETTLED|SHIFTED) ' <<<"$res")" -eq 2 ] &&
    pass "the ping-pong points measured" || fail "the ping-pong points are not both measured"
msg=$(grep -v '^@' "$work/corrupt/done.txt" | grep -E '^ done: ')
echo "done message: $msg"
grep -qE '^ done: 4 points: .*2 INVALID; .*; [0-9]+ passes found wrong data$' <<<"$msg" &&
    pass "the closing message counts the wrong data" || fail "closing message: '$msg'"

explore "$work/cache_on"
code=$?
[ $code -eq 0 ] && pass "exit 0 (cache on)" || fail "exit $code (cache on): $(tail -n 3 "$work/cache_on/err")"
start=$(grep -v '^@' "$work/cache_on/start.txt" | grep -E '^ rma\.\* needs ')
done=$(grep -v '^@' "$work/cache_on/done.txt" | grep -E '^ done: ')
echo "start: $start"
echo "done: $done"
if [ -n "$start" ]; then
    grep -q "^ rma\.\* needs UCX_RCACHE_ENABLE=n in the job's environment here: MPICH" <<<"$start" &&
        pass "the start's message line names the fix" || fail "start message: '$start'"
    if grep -q ' INVALID' <<<"$done"; then
        grep -q "passes found wrong data: fix: UCX_RCACHE_ENABLE=n$" <<<"$done" &&
            pass "the closing message repeats the fix" || fail "closing message: '$done'"
    fi
else
    grep -q 'INVALID' <<<"$done" && fail "INVALID points without the start's message"
    pass "no broken pairing: no message"
fi
mbx_finish
