#!/usr/bin/env bash
# Zero bytes and the output scripts expect; one case per
# invocation, properties only, never a time:
#
#   run_output.sh MPIEXEC NPFLAG MPIBEX CSVCHECK OUTDIR CASE
#
#   zero        2 ranks, --sizes 0,8 over ping-pong, bcast and gather: a
#               0-byte row of each (not 1 byte), the file sorted by
#               benchmark, procs, param and bytes with seq 1..6, the final
#               table sorted too
#   reduce_zero (fake) --sizes 0:64 with reductions: each starts at its
#               smallest size (4 B) with one note line, ping-pong at 0;
#               --sizes 0 alone is one line naming it, exit 2, no file
#   defaults    (fake) the default sizes start at 0 B for ping-pong and at
#               one element (4 B) for allreduce, which cannot take 0
#   point_time  (fake) --point-time caps every point: UNSETTLED with
#               status_reason "point-time SEC s", far fewer passes than
#               --max-passes; the plan key point_time does the same
#   plan_keys   (fake) sync, cache, timer, seed and warmup in a plan file
#               are taken (seed recorded), the command line wins, a bad
#               value is the option's own one line (exit 2), and two
#               sections that disagree are refused
#   warmup_plan 2 ranks, warmup = 300 in a plan: 300 warm-up calls
#               recorded; --warmup 500 on the command line wins
set -u
mpiexec=$1 npflag=$2 mpibex=$3 csvcheck=$4 dir=$5 case=$6
. "$(dirname "$0")/../lib.sh"
test_case=$case
work=$dir/run_output_$case
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1

# column FILE NAME: the column's values, one a line
column() {
    python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
print("\n".join(r[sys.argv[2]] for r in rows))' "$1" "$2"
}
# rowsof FILE BENCH: "bytes" of the rows of BENCH, space-separated
rowsof() {
    python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
print(" ".join(r["bytes"] for r in rows if r["benchmark"] == sys.argv[2]))' "$1" "$2"
}
envval() { grep -m1 "^$1," "$2" | cut -d, -f2- | tr -d '"'; }
mpirun2() { "$mpiexec" "$npflag" 2 "$mpibex" run "$@"; }

case $case in
zero)
    if mpirun2 --bench pingpong.send_recv,coll.bcast,coll.gather --sizes 0,8 --span 0 \
        --monitor off -o z.csv >out 2>err; then
        pass "run"
    else
        die "run: exit $? ($(head -c 300 err))"
    fi
    "$csvcheck" z.csv --rows 6 --sorted yes >check 2>&1 && pass "csvcheck: 6 rows, sorted, seq 1..6" ||
        fail "csvcheck: $(cat check)"
    for b in pingpong.send_recv coll.bcast coll.gather; do
        [ "$(rowsof z.csv $b)" = "0 8" ] && pass "$b measured at 0 and 8 bytes" ||
            fail "$b rows at '$(rowsof z.csv $b)', expected '0 8'"
    done
    # The final table: the same order, 0 before 8 in each benchmark.
    tab=$(grep -E '^(pingpong|coll)\.' out | awk '{print $1, $4}' | tr '\n' ';')
    [ "$tab" = "coll.bcast 0;coll.bcast 8;coll.gather 0;coll.gather 8;pingpong.send_recv 0;pingpong.send_recv 8;" ] &&
        pass "final table sorted" || fail "table order: $tab"
    ;;
reduce_zero)
    # A range from 0 with a reduction: each benchmark starts at its own
    # smallest size, one note line per benchmark that cannot take 0 B.
    "$mpibex" run --fake 2 --bench pingpong.send_recv,coll.allreduce,coll.reduce --sizes 0:64 \
        --monitor off -o r.csv >out 2>err
    code=$?
    [ $code -eq 0 ] && pass "exit 0" || fail "exit $code: $(head -c 300 err)"
    [ "$(rowsof r.csv pingpong.send_recv)" = "0 1 2 4 8 16 32 64" ] &&
        pass "ping-pong from 0 B" || fail "ping-pong sizes '$(rowsof r.csv pingpong.send_recv)'"
    for b in coll.allreduce coll.reduce; do
        [ "$(rowsof r.csv $b)" = "4 8 16 32 64" ] && pass "$b from 4 B" ||
            fail "$b sizes '$(rowsof r.csv $b)'"
        n=$(grep -c "^# \[cli\]: $b starts at 4 B, its smallest size (it cannot measure 0 B: a reduction needs at least one element)$" out)
        [ "$n" = 1 ] && pass "one note for $b" || fail "$n notes for $b: $(grep -F "$b starts" out)"
    done
    grep -q 'pingpong.send_recv starts' out && fail "a note for ping-pong" || pass "no note for ping-pong"
    # No size at all that the benchmark can take: exit 2, one line.
    "$mpibex" run --fake 2 --bench pingpong.send_recv,coll.allreduce --sizes 0 -o r0.csv >out 2>err
    code=$?
    [ $code -eq 2 ] && pass "--sizes 0: exit 2" || fail "--sizes 0: exit $code"
    mbx_one_line err '^mpibex: sizes: coll\.allreduce cannot measure 0 B: a reduction needs at least one element, and \[cli\].s sizes hold no other'
    pass "one line naming coll.allreduce and why"
    [ ! -e r0.csv ] && pass "no results file" || fail "a results file was left"
    ;;
defaults)
    "$mpibex" run --fake 2 --bench pingpong.send_recv,coll.allreduce --seed 3 --monitor off \
        -o d.csv >out 2>err || die "run: $(head -c 300 err)"
    pp=$(rowsof d.csv pingpong.send_recv) ar=$(rowsof d.csv coll.allreduce)
    [ "${pp%% *}" = 0 ] && pass "ping-pong from 0 B" || fail "ping-pong sizes '$pp'"
    [ "${ar%% *}" = 4 ] && pass "allreduce from 4 B (one element)" || fail "allreduce sizes '$ar'"
    [ "$(echo $pp | wc -w)" = 24 ] && pass "0 and 1 B .. 4 MiB: 24 ping-pong sizes" ||
        fail "$(echo $pp | wc -w) ping-pong sizes"
    "$csvcheck" d.csv --sorted yes >check 2>&1 && pass "sorted, seq a permutation" ||
        fail "csvcheck: $(cat check)"
    # The sort is not the measuring order: seq is shuffled (--order shuffle).
    [ "$(column d.csv seq | tr '\n' ' ')" != "$(seq 1 $(($(wc -l <d.csv) - 1)) | tr '\n' ' ')" ] &&
        pass "seq keeps the shuffled measuring order" || fail "seq is 1..n in file order"
    ;;
point_time)
    check_capped() { # FILE WHAT REASON
        python3 - "$1" "$3" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
bad = [(r["bytes"], r["status"], r["status_reason"], r["passes"]) for r in rows
       if r["status"] != "UNSETTLED" or r["status_reason"] != sys.argv[2]
       or not (2 <= int(r["passes"]) < 1000)]
print(f"{len(rows)} rows; bad: {bad}")
sys.exit(1 if bad or not rows else 0)
PY
    }
    args=(--fake 2 --bench pingpong.send_recv --sizes 8,64 --stop stderr:0.001% --passes 2
        --max-passes 1000 --span 0 --monitor off)
    "$mpibex" run "${args[@]}" --point-time 0.005 -o p.csv >out 2>err || die "run: $(head -c 300 err)"
    check_capped p.csv option "point-time 0.005 s" >check 2>&1 &&
        pass "--point-time: UNSETTLED, reason point-time 0.005 s" || fail "$(cat check)"
    grep -q 'UNSETTLED .*\[point-time 0.005 s\]' out && pass "the table shows the reason" ||
        fail "no reason in the table: $(grep pingpong out | head -2)"
    printf '[capped]\nbench = pingpong.send_recv\nsizes = 8,64\nstop = stderr:0.001%%\npoint_time = 0.005\n' >pt.ini
    "$mpibex" run --fake 2 pt.ini "${args[@]:6}" -o q.csv >out2 2>err2 || die "plan run: $(head -c 300 err2)"
    check_capped q.csv key "point-time 0.005 s" >check 2>&1 &&
        pass "plan key point_time: the same" || fail "$(cat check)"
    "$mpibex" run --fake 2 --bench pingpong.send_recv --point-time -1 -o x.csv >out3 2>err3
    [ $? -eq 2 ] && pass "--point-time -1: exit 2" || fail "--point-time -1 accepted"
    mbx_one_line err3 "^mpibex: --point-time: expected seconds in 0\.\.86400, 0 for no cap \(got '-1'\)$"
    ;;
plan_keys)
    cat >k.ini <<'PLAN'
[a]
bench = pingpong.send_recv
sizes = 8
sync = barrier
cache = warm
timer = clock
seed = 4242
warmup = 300
[b]
bench = coll.bcast
sizes = 8
seed = 4242
PLAN
    "$mpibex" run --fake 2 k.ini --monitor off -o k.csv >out 2>err || die "run: $(head -c 300 err)"
    [ "$(envval seed k.env.csv)" = 4242 ] && pass "seed = 4242 from the plan" ||
        fail "seed '$(envval seed k.env.csv)'"
    "$mpibex" run --fake 2 k.ini --seed 7 --monitor off -o k2.csv >out 2>err || die "run: $(head -c 300 err)"
    [ "$(envval seed k2.env.csv)" = 7 ] && pass "--seed 7 wins over the plan" ||
        fail "seed '$(envval seed k2.env.csv)'"
    sed 's/^sync = barrier/sync = sideways/' k.ini >bad.ini
    "$mpibex" run --fake 2 bad.ini -o b.csv >out 2>err
    [ $? -eq 2 ] && pass "bad sync: exit 2" || fail "bad sync accepted"
    mbx_one_line err "^mpibex: bad\.ini: \[a\]: sync: expected barrier or window \(got 'sideways'\)$"
    printf '[a]\nbench = pingpong.send_recv\nseed = 4242\n[b]\nbench = coll.bcast\nseed = 1\n' >dis.ini
    "$mpibex" run --fake 2 dis.ini -o c.csv >out 2>err
    [ $? -eq 2 ] && pass "disagreeing sections: exit 2" || fail "disagreeing sections accepted"
    mbx_one_line err "^mpibex: dis\.ini: \[b\]: seed: '1', but \[a\] says '4242'; seed applies to the whole run"
    printf '[a]\nbench = pingpong.send_recv\ntimer = sundial\n' >t.ini
    "$mpibex" run --fake 2 t.ini -o t.csv >out 2>err
    mbx_one_line err "^mpibex: t\.ini: \[a\]: timer: expected clock, wtime or tsc \(got 'sundial'\)$"
    printf '[a]\nbench = pingpong.send_recv\nwarmup = 0\n' >w.ini
    "$mpibex" run --fake 2 w.ini -o w.csv >out 2>err
    mbx_one_line err "^mpibex: w\.ini: \[a\]: warmup: expected round trips in 1\.\.1000000 \(got '0'\)$"
    pass "bad values are the options' own lines"
    ;;
warmup_plan)
    printf '[w]\nbench = pingpong.send_recv\nsizes = 8\nwarmup = 300\n' >w.ini
    mpirun2 w.ini --span 0 --monitor off -o w.csv >out 2>err || die "run: $(head -c 300 err)"
    [ "$(envval warmup_calls w.env.csv)" = 300 ] && pass "warmup = 300 from the plan" ||
        fail "warmup_calls '$(envval warmup_calls w.env.csv)'"
    mpirun2 w.ini --warmup 500 --span 0 --monitor off -o v.csv >out 2>err || die "run: $(head -c 300 err)"
    [ "$(envval warmup_calls v.env.csv)" = 500 ] && pass "--warmup 500 wins over the plan" ||
        fail "warmup_calls '$(envval warmup_calls v.env.csv)'"
    ;;
*)
    fail "unknown case $case"
    ;;
esac
mbx_finish
