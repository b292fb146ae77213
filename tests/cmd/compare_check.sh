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
*) die "unknown mode '$mode'" ;;
esac
mbx_finish
