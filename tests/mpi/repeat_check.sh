#!/usr/bin/env bash
# Tests of `mpibex repeat` and `mpibex compare` on real launches. usage:
#   repeat_check.sh real MPIBEX DIR MPIEXEC
#       repeat -k 3 -n 2 of a tiny ping-pong plan into DIR/rep: three launches
#       with their sidecars, merged.csv (runs = 3), repeat.csv; compare DIR
#       with itself (every point 'same', p = 1), two launches by their
#       observations, -o CSV; a second repeat into DIR refused, then --force.
#   repeat_check.sh interrupt MPIBEX DIR MPIEXEC
#       SIGINT to repeat during launch 2 of 5 (each settles 3 s): exit 130, launch 1 kept and
#       merged, launch 2's results removed (its log kept), no process left.
set -u
. "$(dirname "$0")/../lib.sh"
mode=$1 mpibex=$2 dir=$3 mpiexec=$4
# Quoted fields (ranks "0,1") are masked so that awk can split on commas.
col() { # FILE COLUMN: the column's values, one a line
    sed -E 's/"[^"]*"/Q/g' "$1" | awk -F, -v name="$2" '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
        { print $c }'
}

rm -rf "$dir"
mkdir -p "$dir"
case $mode in
real)
    rep=$dir/rep
    "$mpibex" repeat -k 3 -n 2 --mpiexec "$mpiexec" -- --bench pingpong.send_recv \
        --sizes 1,64,1K --nmax 40 -q -o "$rep" >"$dir/out.txt" 2>"$dir/err.txt"
    code=$?
    cat "$dir/out.txt" "$dir/err.txt"
    [ "$code" -eq 0 ] || fail "repeat exited $code"
    for i in 01 02 03; do
        for f in launch-$i.csv launch-$i.env.csv launch-$i.obs.csv launch-$i.log; do
            [ -s "$rep/$f" ] || fail "missing $f"
        done
        grep -q "^launch ${i#0}/3: 3 points" "$dir/out.txt" || fail "no progress line for launch $i"
    done
    [ ! -e "$rep/launch-04.csv" ] || fail "a fourth launch"
    grep -q "^merged 3 launches into $rep/merged.csv: 3 points" "$dir/out.txt" ||
        fail "no merge summary"
    grep -qx "interval over 3 launches: launch medians 1..3 (order statistics) cover the median launch with 75.0%; take -k 10 or more (ReproMPI's minimum)" \
        "$dir/out.txt" || fail "repeat: no coverage line"
    grep -q "^repeat: -k 3: fewer than 10 launches" "$dir/out.txt" || fail "repeat: no -k < 10 note"
    grep -q '^os_coverage,0.750000$' "$rep/repeat.csv" || fail "repeat.csv: no os_coverage"
    [ "$(col "$rep/merged.csv" runs | sort -u)" = 3 ] || fail "merged.csv: runs is not 3 everywhere"
    [ "$(col "$rep/merged.csv" bytes | sort -n | tr '\n' ' ')" = "1 64 1024 " ] ||
        fail "merged.csv: wrong sizes"
    grep -q '^k,3$' "$rep/repeat.csv" || fail "repeat.csv: no k"
    grep -q '^n,2$' "$rep/repeat.csv" || fail "repeat.csv: no n"
    grep -q '^result,ok$' "$rep/repeat.csv" || fail "repeat.csv: no result"
    grep -q "^launch.02.command,.*run --bench pingpong.send_recv .* -o $rep/launch-02.csv --raw" \
        "$rep/repeat.csv" || fail "repeat.csv: no command of launch 2"
    [ "$(grep -c '^launch.0[123].exit,0$' "$rep/repeat.csv")" -eq 3 ] || fail "repeat.csv: exit codes"

    # The same launches against themselves: nothing differs, p = 1; 3
    # launches a side cannot show equivalence (no 95 % interval).
    "$mpibex" compare "$rep" "$rep" -o "$dir/self.csv" >"$dir/self.txt" 2>&1 ||
        fail "compare DIR DIR exited $?"
    cat "$dir/self.txt"
    grep -qx '3 points: A faster at 0, slower at 0 (BH q < 0.05: about 0 of these calls false), same within +/-5% at 0, not distinguishable at 3; only in A: 0, only in B: 0' \
        "$dir/self.txt" || fail "compare DIR DIR: wrong summary"
    grep -q "^scope launches:3; alpha 0.05; A: $rep (launches), B: $rep (launches)$" "$dir/self.txt" ||
        fail "compare DIR DIR: no scope, alpha and kinds line"
    grep -q "^3 launches a side: take 10 or more" "$dir/self.txt" || fail "compare DIR DIR: no K note"
    [ "$(grep -c ' not distinguishable$' "$dir/self.txt")" -eq 3 ] || fail "compare DIR DIR: not 3 'not distinguishable' rows"
    [ "$(head -1 "$dir/self.csv")" = \
        "benchmark,label,procs,bytes,root,op,param,n_a,n_b,median_a_us,median_b_us,ratio_b_over_a,shift_us,w,z,p_two_sided,p_less,p_greater,exact,verdict,rma_sync,compare_scope,hl_ratio,hl_lo,hl_hi,q_bh,equiv,equiv_delta" ] ||
        fail "compare CSV: wrong header"
    [ "$(col "$dir/self.csv" p_two_sided | sort -u)" = 1 ] || fail "compare CSV: p is not 1"
    [ "$(col "$dir/self.csv" n_a | sort -u)" = 3 ] || fail "compare CSV: n_a is not 3"
    [ "$(col "$dir/self.csv" verdict | sort -u)" = "not_distinguishable" ] || fail "compare CSV: verdicts"
    [ "$(col "$dir/self.csv" compare_scope | sort -u)" = "launches:3" ] || fail "compare CSV: scope"

    # Two single launches: no machine-level verdict, the line that says
    # what to run instead, exit 0.
    "$mpibex" compare "$rep/launch-01.csv" "$rep/launch-02.csv" >"$dir/obs.txt" 2>&1 ||
        fail "compare launch-01 launch-02 exited $?"
    cat "$dir/obs.txt"
    grep -Eq '^3 points, ratios of medians only \(launch-scoped\); only in A: 0, only in B: 0$' \
        "$dir/obs.txt" || fail "obs compare: wrong summary"
    grep -q "^no machine-level verdict: " "$dir/obs.txt" || fail "obs compare: no line saying why"
    grep -q "(pass medians), B: .* (pass medians)$" "$dir/obs.txt" || fail "obs compare: kinds (pass medians)"
    # -q: the summary only (a directory against one launch: no verdict)
    [ "$("$mpibex" compare -q "$rep" "$rep/launch-03.csv" | wc -l)" -eq 3 ] ||
        fail "compare -q is not three lines"

    # DIR holds launches: refused without --force, nothing touched.
    sums=$(md5sum "$rep"/*)
    "$mpibex" repeat -k 2 --mpiexec "$mpiexec" -- --bench pingpong.send_recv -o "$rep" \
        >/dev/null 2>"$dir/err2.txt"
    code=$?
    cat "$dir/err2.txt"
    [ "$code" -eq 2 ] || fail "a second repeat into DIR exited $code, want 2"
    [ "$(grep -c . "$dir/err2.txt")" -eq 1 ] || fail "expected one line on stderr"
    grep -q "already holds results" "$dir/err2.txt" || fail "wrong refusal"
    [ "$(md5sum "$rep"/*)" = "$sums" ] || fail "the refused repeat changed DIR"
    # --force replaces them: two launches, no launch-03 left.
    "$mpibex" repeat -k 2 -n 2 --force -q --mpiexec "$mpiexec" -- --bench pingpong.send_recv \
        --sizes 8 --nmax 20 -o "$rep" || fail "repeat --force exited $?"
    [ ! -e "$rep/launch-03.csv" ] && [ ! -e "$rep/launch-03.log" ] || fail "--force left launch 3"
    [ "$(col "$rep/merged.csv" runs)" = 2 ] || fail "--force: merged.csv is not of 2 runs"
    ;;
interrupt)
    rep=$dir/rep
    "$mpibex" repeat -k 5 -n 2 --mpiexec "$mpiexec" -- --bench pingpong.send_recv \
        --sizes 8,1K --nmax 50 --settle 3 -q -o "$rep" >"$dir/out.txt" 2>"$dir/err.txt" &
    pid=$!
    for _ in $(seq 600); do
        [ -e "$rep/launch-02.log" ] && break
        sleep 0.1
    done
    [ -e "$rep/launch-02.log" ] || fail "launch 2 never started"
    sleep 0.5
    kill -INT "$pid"
    wait "$pid"
    code=$?
    cat "$dir/out.txt" "$dir/err.txt"
    [ "$code" -eq 130 ] || fail "exit code $code, want 130"
    grep -q "^mpibex repeat: stopped by signal 2 during launch 2/5; its log: .*/launch-02.log; 1 finished launch kept$" \
        "$dir/err.txt" || fail "wrong message"
    [ -s "$rep/launch-01.csv" ] && [ -s "$rep/launch-01.obs.csv" ] || fail "launch 1 not kept"
    [ ! -e "$rep/launch-02.csv" ] && [ ! -e "$rep/launch-02.obs.csv" ] &&
        [ ! -e "$rep/launch-02.journal" ] || fail "launch 2's results were kept"
    [ -e "$rep/launch-02.log" ] || fail "launch 2's log was removed"
    [ ! -e "$rep/launch-03.log" ] || fail "launch 3 started"
    [ "$(col "$rep/merged.csv" runs | sort -u)" = 1 ] || fail "merged.csv is not launch 1"
    grep -q '^result,exit code 130$' "$rep/repeat.csv" || fail "repeat.csv: no result"
    sleep 1
    # Processes with this test's own directory in their arguments: ours.
    left=$(pgrep -f -- "-o $rep/launch-02.csv")
    if [ -n "$left" ]; then
        fail "processes of launch 2 still run: $left"
        kill -KILL $left
    fi
    ;;
*)
    echo "usage: repeat_check.sh real|interrupt MPIBEX DIR MPIEXEC" >&2
    exit 2
    ;;
esac
mbx_finish
