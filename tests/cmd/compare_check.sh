#!/usr/bin/env bash
# Tests of `mpibex compare` on small hand-written directories of launches
# (no MPI). usage: compare_check.sh MODE MPIBEX DIR
#   rma_sync   which points are one point: rma.put under fence and under
#              lock_all are not (no point in common, exit 2) unless
#              --ignore rma_sync; a file of an earlier version, without the
#              rma_sync column, matches today's file where the mode is empty
#              (ping-pong) and not where it is set (rma.put lock_all)
#   resume_merge   on the fake back end (no MPI): a run under fence stopped
#              with one point finished is not resumed under lock or the
#              default lock_all (exit 2, files untouched); under fence it
#              is, every row fence; merged with a lock_all run, the modes
#              stay apart (6 keys of 1 run each)
#   launches   planted directories of 10 launches: identical settings give
#              at most 1 of 12 points different and 'same within +/-5%';
#              a 20 % shift is found at every point and for the curve; two
#              single runs of the fake back end get no verdict (exit 0);
#              repeat records of two series one after the other add the
#              time-order line, of series over the same time not
set -u
. "$(dirname "$0")/../lib.sh"
mode=$1 mpibex=$2 dir=$3
shift 3

# launches DIR HEADER ROW_FORMAT MEDIANS...: DIR/launch-NN.csv, one per
# median, each the header and the row with the median put in for %s.
launches() {
    local d=$1 hdr=$2 fmt=$3 i=0 m
    shift 3
    rm -rf "$d"
    mkdir -p "$d"
    for m in "$@"; do
        i=$((i + 1))
        { echo "$hdr"; echo "${fmt//%s/$m}"; } >"$d/launch-0$i.csv"
    done
}

# run_compare OUT ARGS...: run compare, keep the exit code; stdout in OUT.txt,
# stderr in OUT.err.
run_compare() {
    local out=$1
    shift
    "$mpibex" compare "$@" >"$out.txt" 2>"$out.err"
    code=$?
    echo "compare $* -> exit $code"
    sed 's/^/  /' "$out.txt" "$out.err"
}

rm -rf "$dir"
mkdir -p "$dir"
case $mode in
rma_sync)
    new=benchmark,procs,bytes,median_us,status,label,rma_sync
    old=benchmark,procs,bytes,median_us,status,label # before the rma_sync column
    launches "$dir/fence" $new "rma.put,2,8,%s,SETTLED,cli,fence" 3.1 3.2 3.3 3.4 3.5
    launches "$dir/lock_all" $new "rma.put,2,8,%s,SETTLED,cli,lock_all" 1.1 1.2 1.3 1.4 1.5
    launches "$dir/old_put" $old "rma.put,2,8,%s,SETTLED,cli" 1.1 1.2 1.3 1.4 1.5
    launches "$dir/old_pp" $old "pingpong.send_recv,2,8,%s,SETTLED,cli" 1.0 1.1 1.2 1.3 1.4
    launches "$dir/new_pp" $new "pingpong.send_recv,2,8,%s,SETTLED,cli," 2.0 2.1 2.2 2.3 2.4

    # Two sync modes are two points: nothing in common.
    run_compare "$dir/modes" "$dir/fence" "$dir/lock_all"
    [ "$code" -eq 2 ] || fail "fence against lock_all: exit $code, want 2"
    mbx_one_line "$dir/modes.err" "^mpibex compare: .* have no point in common \(1 and 1 points"

    # --ignore rma_sync compares them: fence slower, A's mode shown.
    run_compare "$dir/ign" "$dir/fence" "$dir/lock_all" --ignore rma_sync -o "$dir/ign.csv"
    [ "$code" -eq 0 ] || fail "--ignore rma_sync: exit $code, want 0"
    grep -Eq '^rma\.put fence +2 +8 B .* A slower \(q [0-9.e-]+\)$' "$dir/ign.txt" || fail "no 'rma.put fence ... A slower' row"
    grep -q '; matched without the rma_sync$' "$dir/ign.txt" || fail "summary does not say rma_sync was ignored"
    [ "$(head -1 "$dir/ign.csv" | awk -F, '{ print $21 }')" = rma_sync ] || fail "CSV: rma_sync is not column 21"
    [ "$(sed -n 2p "$dir/ign.csv" | awk -F, '{ print $1, $21 }')" = "rma.put fence" ] || fail "CSV: row is not A's rma.put fence"

    # An earlier version's file: no column reads as empty.
    run_compare "$dir/oldpp" "$dir/old_pp" "$dir/new_pp"
    [ "$code" -eq 0 ] || fail "old ping-pong against new: exit $code, want 0 (empty matches empty)"
    grep -Eq '^pingpong\.send_recv +2 +8 B .* A faster \(q [0-9.e-]+\)$' "$dir/oldpp.txt" || fail "old/new ping-pong not matched"
    run_compare "$dir/oldput" "$dir/old_put" "$dir/lock_all"
    [ "$code" -eq 2 ] || fail "old rma.put against lock_all: exit $code, want 2 (mode unknown is not lock_all)"
    grep -q "have no point in common" "$dir/oldput.err" || fail "old rma.put: wrong message"
    ;;
resume_merge)
    cd "$dir" || die "cd $dir"
    unset MPIBEX_RUN_OPTIONS # ctest's would change the passes counted below
    run() { "$mpibex" run --fake 2 --bench rma.put --sizes 8,64,512 --span 0 -q "$@"; }
    MBX_TEST_FAKE_STOP_PASSES=16 run --rma-sync fence -o f.csv >/dev/null 2>err1
    code=$?
    [ "$code" -eq 143 ] || die "the stopped run exited $code, want 143: $(cat err1)"
    [ -e f.journal ] || die "the stopped run left no journal"
    grep -q '^mpibex: stopped by signal 15: 1 points finished' err1 || fail "not 1 point finished: $(cat err1)"
    cp f.csv before.csv
    cp f.journal before.journal
    for other in "--rma-sync lock" ""; do
        # shellcheck disable=SC2086 # the empty mode: no option at all
        run $other -o f.csv --resume >/dev/null 2>err2
        code=$?
        [ "$code" -eq 2 ] || fail "--resume with '${other:-the default lock_all}': exit $code, want 2"
        mbx_one_line err2 "^mpibex: --resume: 'f\.journal' belongs to another plan, job size or option set"
        { cmp -s f.csv before.csv && cmp -s f.journal before.journal; } ||
            fail "the refused resume ('${other:-default}') changed f.csv or f.journal"
    done
    run --rma-sync fence -o f.csv --resume >out3 2>err3 || fail "--resume under fence failed: $(cat err3)"
    grep -q '^# resumed: 1 finished points kept' out3 || fail "no '# resumed: 1 finished points kept' line"
    modes=$(python3 -c 'import csv, sys
print(" ".join(r["bytes"] + ":" + r["rma_sync"] for r in csv.DictReader(open(sys.argv[1], newline=""))))' f.csv)
    [ "$modes" = "8:fence 64:fence 512:fence" ] || fail "resumed rows: '$modes', want every size once, fence"
    run -o l.csv >/dev/null 2>err4 || fail "the lock_all run failed: $(cat err4)"
    "$mpibex" merge f.csv l.csv -o m.csv >mout 2>&1 || fail "merge failed: $(cat mout)"
    keys=$(python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
print(len(rows), sorted(set(r["runs"] for r in rows)), sorted(set(r["rma_sync"] for r in rows)))' m.csv)
    [ "$keys" = "6 ['1'] ['fence', 'lock_all']" ] || fail "merged: '$keys', want 6 keys of 1 run, fence and lock_all"
    ;;
launches)
    # planted DIR SEED SCALE LAUNCH_SD: 10 launches of 12 sizes; each launch
    # draws one factor exp(N(0, LAUNCH_SD)) for all its points, each point
    # exp(N(0, 0.005)) of its own; times SCALE * (1 + size / 1000) us.
    planted() {
        mkdir -p "$1"
        awk -v dir="$1" -v seed="$2" -v scale="$3" -v sd="$4" 'function g() {
                return sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand()) }
            BEGIN { srand(seed)
                for (l = 1; l <= 10; l++) {
                    f = sprintf("%s/launch-%02d.csv", dir, l)
                    print "benchmark,procs,bytes,median_us,status,label" >f
                    lf = exp(sd * g())
                    for (s = 0; s < 12; s++)
                        printf "pingpong.send_recv,2,%d,%.4f,SETTLED,cli\n", 2 ^ s,
                            scale * (1 + 2 ^ s / 1000) * lf * exp(0.005 * g()) >f
                    close(f)
                } }'
    }
    planted "$dir/a" 1 1.0 0.01
    planted "$dir/b" 2 1.0 0.01
    planted "$dir/c" 3 1.2 0.01
    # Identical settings: at most 1 of 12 points different, most the same
    # within 5 %, the scope launches:10.
    run_compare "$dir/ab" "$dir/a" "$dir/b" -o "$dir/ab.csv"
    [ "$code" -eq 0 ] || fail "identical: exit $code, want 0"
    [ "$(grep -Ec '^pingpong.* A (faster|slower) \(q ' "$dir/ab.txt")" -le 1 ] || fail "identical: more than 1 of 12 points different"
    [ "$(grep -c ' same within +/-5%$' "$dir/ab.txt")" -ge 9 ] || fail "identical: fewer than 9 of 12 'same within +/-5%'"
    grep -q '^scope launches:10; alpha 0.05; ' "$dir/ab.txt" || fail "identical: no scope launches:10"
    grep -q '^curve pingpong.send_recv \[cli\], 2 procs, 12 sizes: not distinguishable' "$dir/ab.txt" ||
        fail "identical: the curve is not 'not distinguishable'"
    cols=$(python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
print(len(rows), sorted(set(r["compare_scope"] for r in rows)), all(float(r["hl_lo"]) <= float(r["hl_ratio"]) <= float(r["hl_hi"]) for r in rows), sorted(set(r["equiv_delta"] for r in rows)))' "$dir/ab.csv")
    [ "$cols" = "12 ['launches:10'] True ['0.05']" ] || fail "identical CSV: '$cols'"
    # Time order: repeat records that put every launch of a before every
    # launch of b (10 minutes apart, one with a UTC offset) get the line
    # that a drift between the series reads as a difference; launches that
    # alternate over the same time do not.
    record() { # DIR FIRST_MINUTE OFFSET
        { echo "key,value"
          for l in 1 2 3 4 5 6 7 8 9 10; do
              printf 'launch.%02d.start,2026-03-01T%02d:%02d:%02d%s\n' "$l" $((10 + ${3:0:3})) \
                  "$2" $((l * 5)) "${3:3}"
          done; } >"$1/repeat.csv"
    }
    record "$dir/a" 0 "+00+0000"
    record "$dir/b" 10 "+01+0100" # 11:10 at +0100 is 10:10 UTC
    run_compare "$dir/order" "$dir/a" "$dir/b"
    grep -q "^time order: A's launches all started before B's (555 s between the two series): a drift" \
        "$dir/order.txt" || fail "sequential series: no time-order line: $(grep -i order "$dir/order.txt")"
    record "$dir/b" 0 "+00+0000"
    run_compare "$dir/order2" "$dir/a" "$dir/b"
    ! grep -q '^time order' "$dir/order2.txt" || fail "series over the same time: a time-order line"
    rm -f "$dir/a/repeat.csv" "$dir/b/repeat.csv"
    # A planted 20 % shift: every point and the curve A faster.
    run_compare "$dir/ac" "$dir/a" "$dir/c" --equiv 10%
    [ "$code" -eq 0 ] || fail "shifted: exit $code, want 0"
    [ "$(grep -c '^pingpong.* A faster (q ' "$dir/ac.txt")" -eq 12 ] || fail "shifted: not 12 of 12 'A faster'"
    grep -q '^curve .*: A faster (q ' "$dir/ac.txt" || fail "shifted: the curve is not 'A faster'"
    grep -q 'same within +/-10% at 0' "$dir/ac.txt" || fail "shifted: --equiv 10% not in the summary"
    # Two single runs (the fake back end, with their observations): no
    # verdict, the line that says what to run instead, exit 0.
    for r in 1 2; do
        "$mpibex" run --fake 2 --bench pingpong.send_recv --sizes 1,8 --span 0 -q --raw \
            -o "$dir/single$r.csv" >/dev/null 2>&1 || fail "fake run $r failed"
    done
    run_compare "$dir/single" "$dir/single1.csv" "$dir/single2.csv" -o "$dir/single.csv"
    [ "$code" -eq 0 ] || fail "two single runs: exit $code, want 0"
    grep -q "^no machine-level verdict: .* run 'mpibex repeat -k 10 -- \.\.\. -o DIR' for each side" \
        "$dir/single.txt" || fail "two single runs: no line saying why and what to run"
    grep -q '^scope none; ' "$dir/single.txt" || fail "two single runs: scope is not none"
    ! grep -Eq 'A (faster|slower)|same within|not distinguishable' "$dir/single.txt" ||
        fail "two single runs: a verdict was given"
    verdicts=$(python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
print(sorted(set((r["verdict"], r["compare_scope"], r["q_bh"], r["p_two_sided"]) for r in rows)))' "$dir/single.csv")
    [ "$verdicts" = "[('none', 'none', '', '')]" ] || fail "two single runs CSV: '$verdicts'"
    ;;
*) die "unknown mode '$mode'" ;;
esac
mbx_finish
