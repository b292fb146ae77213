#!/usr/bin/env bash
# Tests of `mpibex merge`. usage:
#   merge_check.sh stdout MPIBEX DIR
#       merges two fixtures (today's and the old 26-column format) with -o -.
#   merge_check.sh real MPIBEX DIR -- MPIEXEC -n 2 [PREFLAGS]
#       two real ping-pong runs merged: one row per size, runs = 2 everywhere.
set -u
. "$(dirname "$0")/../lib.sh"
mode=$1 mpibex=$2 dir=$3
shift 3

fixtures() {
    mkdir -p "$dir"
    rm -f "$dir"/*.csv
    local new old row
    new=benchmark,procs,bytes,n,mean_us,tmean_us,median_us,min_us,max_us,q1_us,q3_us,stddev_us
    new+=,stderr_us,ci95_lo_us,ci95_hi_us,outliers,status,stop_rule,bandwidth_MBps,timing
    new+=,overhead_us,nmin,nmax,batches,wall_s,label
    old=$new
    new+=,root,op,param,param_name,ranks,refined,validated
    row() { # BYTES MEDIAN STATUS
        printf 'pingpong.send_recv,2,%s,16,%s,%s,%s,1,9,1,2,0.5,0.01,1,2,0,%s,stderr:0.03,,half_round_trip,0.03,16,1000,1,0.01,cli' \
            "$1" "$2" "$2" "$2" "$3"
    }
    { echo "$new"; echo "$(row 8 2.0 SETTLED),,,,,0-1,0,no"; echo "$(row 64 3.0 SETTLED),,,,,0-1,0,no"; } >"$dir/good.csv"
    { echo "$old"; row 8 4.0 UNSETTLED; echo; } >"$dir/good2.csv"
    printf 'key,value\nformat_version,1\n' >"$dir/env.csv"
    printf 'benchmark,procs,bytes,n,tmean_us,status,label\npingpong.send_recv,2,8,16,1,SETTLED,cli\n' >"$dir/nomedian.csv"
    { echo "$old"; row 8 4.0 SETTLED; echo; echo "pingpong.send_recv,2,8"; } >"$dir/short.csv"
}

case $mode in
stdout)
    fixtures
    out=$("$mpibex" merge "$dir/good.csv" "$dir/good2.csv" -o - 2>"$dir/err.txt")
    code=$?
    echo "exit $code; stdout:"
    echo "$out"
    echo "stderr: $(cat "$dir/err.txt")"
    [ "$code" -eq 0 ] || fail "expected exit code 0"
    grep -qx 'merged 2 files: 3 points, 2 keys; 1 key in only some files' "$dir/err.txt" ||
        fail "wrong summary line"
    [ "$(printf '%s\n' "$out" | head -1)" = \
        "benchmark,procs,bytes,label,root,op,param,param_name,ranks,runs,files,runs_without_value,settled_runs,status,median_us,median_min_us,median_max_us,spread_rel,tmean_us,n_total,bandwidth_MBps,stderr_us,ci95_lo_us,ci95_hi_us,rma_sync,ci_scope,pi95_lo_us,pi95_hi_us" ] ||
        fail "wrong header"
    printf '%s\n' "$out" | grep -qxE 'pingpong.send_recv,2,8,cli,,,,,0-1,2,2,0,1,UNSETTLED,3.0000,2.0000,4.0000,1.000000,3.0000,32,2.667,[0-9.]*,2\.0000,4\.0000,,launches:2,0\.0014,5808\.28[0-9]*' ||
        fail "wrong merged row for 8 bytes"
    printf '%s\n' "$out" | grep -qx 'pingpong.send_recv,2,64,cli,,,,,0-1,1,1,0,1,SETTLED,3.0000,3.0000,3.0000,0.000000,3.0000,16,21.333,,,,,,,' ||
        fail "wrong merged row for 64 bytes"
    [ "$(printf '%s\n' "$out" | wc -l)" -eq 3 ] || fail "expected a header and 2 rows"
    ;;
real)
    [ "$1" = "--" ] && shift
    mkdir -p "$dir"
    rm -f "$dir"/r1*.csv "$dir"/r2*.csv "$dir/m.csv"
    for r in r1 r2; do
        "$@" "$mpibex" run --bench pingpong.send_recv --sizes 1:1K:4 --nmax 100 -q --order plan \
            -o "$dir/$r.csv" || fail "run $r exited $?"
    done
    "$mpibex" merge "$dir/r1.csv" "$dir/r2.csv" -o "$dir/m.csv" 2>"$dir/err.txt" ||
        fail "merge exited $?"
    echo "stderr: $(cat "$dir/err.txt")"
    grep -qx 'merged 2 files: 12 points, 6 keys; every key in every file' "$dir/err.txt" ||
        fail "wrong summary line"
    # Quoted fields (ranks "0,1") are masked so that awk can split on commas;
    # no field checked here is quoted.
    unquote() { sed -E 's/"[^"]*"/Q/g' "$@"; }
    unquote "$dir/m.csv" | awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { rows++; seen[$c["bytes"]] = 1 }
        $c["runs"] != 2 || $c["files"] != 2 || $c["runs_without_value"] != 0 {
            print "FAIL: bytes " $c["bytes"] ": runs " $c["runs"] ", files " $c["files"]; bad++ }
        $c["benchmark"] != "pingpong.send_recv" || $c["procs"] != 2 || $c["label"] != "cli" {
            print "FAIL: wrong key in row " NR; bad++ }
        !($c["median_min_us"] + 0 <= $c["median_us"] + 0 && $c["median_us"] + 0 <= $c["median_max_us"] + 0) {
            print "FAIL: median outside [min, max] at bytes " $c["bytes"]; bad++ }
        $c["bandwidth_MBps"] == "" || $c["n_total"] < 2 { print "FAIL: bandwidth or n_total at row " NR; bad++ }
        END {
            # Rows come in the order points finish (passes interleave them).
            for (b in seen) n++
            if (n != 6 || !(1 in seen) || !(4 in seen) || !(16 in seen) || !(64 in seen) ||
                !(256 in seen) || !(1024 in seen)) { print "FAIL: sizes"; bad++ }
            if (rows != 6) { print "FAIL: " rows " rows, want 6"; bad++ }
            exit bad > 0
        }' || fails=$((fails + 1))
    # n_total is the sum of both runs' n, size by size.
    want=$(unquote "$dir/r1.csv" "$dir/r2.csv" |
        awk -F, '/^benchmark,/ { for (i = 1; i <= NF; i++) c[$i] = i; next }
                 { n[$c["bytes"]] += $c["n"] } END { for (b in n) print b, n[b] }' | sort -n)
    got=$(unquote "$dir/m.csv" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                                         { print $c["bytes"], $c["n_total"] }' | sort -n)
    [ "$want" = "$got" ] || fail "n_total is not the sum of n: want [$want] got [$got]"
    ;;
*)
    echo "usage: merge_check.sh stdout|real MPIBEX DIR ..." >&2
    exit 2
    ;;
esac
mbx_finish
