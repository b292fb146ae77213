#!/usr/bin/env bash
# Rank 0's memory under --raw and a stop with -o -, one case per
# invocation (fake runs: no MPI job; docs/hardening.md, "Scale"):
#
#   rawstop.sh MPIBEX CSVCHECK OUTDIR CASE
#
#   raw_memory   one point of --raw taking 100 passes, then 400 (of about
#                3 400 observations each): rank 0's growth at 4x the
#                passes is within 1.5x the growth at 1x (+1 MiB), and
#                OUT.obs.csv holds every observation, numbered in order,
#                pass by pass
#   stop_stdout  SIGTERM to `run -o -` while one point has thousands of
#                passes and two are finished: exit 143 within 5 s, the two
#                rows whole on stdout, no row for the unfinished point, the
#                one line saying it was not written
set -u
mpibex=$1 csvcheck=$2 dir=$3 case=$4
. "$(dirname "$0")/../lib.sh"
test_case=$case
work=$dir/rawstop_$case
rm -rf "$work"
mkdir -p "$work"
cd "$work" || die "no $work"

# Rank 0's peak resident memory less its memory before the first point,
# KiB, from a run's environment file.
growth() {
    awk -F, '$1 == "rank0_rss_first_point_kib" {a = $2} $1 == "rank0_max_rss_kib" {b = $2}
             END {if (a == "" || b == "") exit 1; print b - a}' "$1"
}

raw_memory() {
    local k g
    for k in 100 400; do
        # --stop cannot be met: every point takes all its passes; a pass
        # of 5 ms is about 3 400 observations of the fake's 1.5 us.
        "$mpibex" run --fake 2 --bench pingpong.send_recv --sizes 1 --passes $k --max-passes $k \
            --span 0 --pass-ms 5 --stop stderr:0.00001 --monitor off --raw -q -o "m$k.csv" \
            >"m$k.log" 2>&1 || { cat "m$k.log"; die "the --raw run of $k passes failed"; }
        g=$(growth "m$k.env.csv") || die "no rank 0 memory keys in m$k.env.csv"
        eval "g$k=$g"
        echo "rank 0 growth at $k passes: $g KiB"
    done
    # Before: every observation stayed in memory until the point's row
    # (21 MiB at 400 passes against 5 at 100).
    [ "$g400" -le $((g100 * 3 / 2 + 1024)) ] &&
        pass "rank 0 memory bounded by a pass: +$g400 KiB at 400 passes, +$g100 KiB at 100" ||
        fail "rank 0 memory grows with the passes: +$g400 KiB at 400 passes, +$g100 KiB at 100"
    "$csvcheck" m400.csv >/dev/null 2>&1 || fail "m400.csv does not check"
    # Every observation, in order: obs 0..N-1 with N = the row's n + events
    # (the pooled count), passes 0..399 in order, none empty.
    local n
    n=$(awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next}
                 {print $c["n"] + $c["events"]}' m400.csv)
    awk -F, -v n="$n" 'NR == 1 {next}
        $4 != NR - 2 {print "obs " $4 " at row " NR; bad = 1; exit}
        $9 < last || $9 > last + 1 {print "pass " $9 " after " last; bad = 1; exit}
        {last = $9}
        END {if (bad) exit 1; if (NR - 1 != n) {print NR - 1 " rows, n + events " n; exit 1}
             if (last != 399) {print "last pass " last; exit 1}}' m400.obs.csv &&
        pass "m400.obs.csv: $n observations, in order, passes 0-399" ||
        fail "m400.obs.csv is not every observation in order"
    ls -A | grep -q '\.tmp-' && fail "a temporary file was left: $(ls -A | grep '\.tmp-')"
    rm -f m*.obs.csv
}

stop_stdout() {
    # Two points that finish at once (their passes have 10 ms), one that
    # would take 10 000 passes.
    cat >plan.ini <<'EOF'
[short]
bench = pingpong.send_recv
sizes = 1, 8
stop = stderr:0.001%
point_time = 0.01

[long]
bench = pingpong.isend_recv
sizes = 1
stop = stderr:0.001%
EOF
    "$mpibex" run --fake 2 plan.ini --passes 10000 --max-passes 10000 --order plan -o - \
        >out.csv 2>err.log &
    local pid=$! i
    for ((i = 0; i < 300; i++)); do
        [ "$(grep -c . out.csv)" -ge 3 ] && break
        sleep 0.1
    done
    [ "$(grep -c . out.csv)" -ge 3 ] || { kill -KILL $pid; cat err.log; die "no two rows in 30 s"; }
    sleep 2 # the long point takes passes
    local t0 t1 rc
    t0=$(date +%s%N)
    kill -TERM $pid
    # Before: the stop sorted the long point's observations for its row.
    for ((i = 0; i < 100; i++)); do
        kill -0 $pid 2>/dev/null || break
        sleep 0.05
    done
    kill -0 $pid 2>/dev/null && { kill -KILL $pid; die "still running 5 s after SIGTERM"; }
    wait $pid
    rc=$?
    t1=$(date +%s%N)
    echo "SIGTERM to exit: $(((t1 - t0) / 1000000)) ms"
    [ $rc = 143 ] && pass "exit 143" || fail "exit $rc, not 143"
    "$csvcheck" out.csv >/dev/null 2>&1 && pass "stdout checks" || fail "stdout does not check"
    local rows
    rows=$(awk 'NR > 1 && !/^#/' out.csv | grep -c .)
    [ "$rows" = 2 ] && pass "two rows: the finished points" ||
        { cat out.csv; fail "$rows rows, not the 2 finished points"; }
    grep -q isend_recv out.csv && fail "a row of the unfinished point"
    grep -Eq '^mpibex: stopped by signal 15: 2 points finished; 1 unfinished point \([0-9]+ passes\) not written$' \
        err.log && pass "the stop line names the point not written" ||
        { cat err.log; fail "no stop line naming the unfinished point"; }
}

case $case in
raw_memory)
    # The sanitizers keep freed blocks in quarantine: rank 0's memory
    # there says nothing of mpibex's own.
    [ "${5:-plain}" = sanitized ] && { echo "SKIP: raw_memory under the sanitizers"; exit 77; }
    raw_memory ;;
stop_stdout) "$case" ;;
*) die "unknown case $case" ;;
esac
mbx_finish
