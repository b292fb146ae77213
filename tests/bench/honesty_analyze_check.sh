#!/usr/bin/env bash
# The arithmetic of bench/honesty_analyze.py on three synthetic launches with
# known numbers: calibration (a CI bound equal to the centre counts as
# covering), the within-burst iid CI of a format-3 file, the launch levels
# (OUT.probe.csv before the probe_us column) and the launch spread within the
# main level, and within it the points whose own probes stay in the level.
# No MPI, no timing.
# With MPIBEX, the calibration of the CI over launches (merge) as well.
# usage: honesty_analyze_check.sh ANALYZER WORKDIR [MPIBEX]
set -u
analyzer=$1
dir=$2
mpibex=${3:-}
rm -rf "$dir"
mkdir -p "$dir"
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

v2=benchmark,procs,bytes,n,mean_us,tmean_us,median_us,min_us,max_us,q1_us,q3_us,stddev_us,stderr_us,ci95_lo_us,ci95_hi_us,outliers,status,stop_rule,bandwidth_MBps,timing,overhead_us,nmin,nmax,batches,wall_s,label,root,op,param,param_name,ranks,refined,validated,sync,clock_sync,cache,invalid,probe_us,probe_after_us,remeasured,plain_us,events,faults
v3=$v2,passes,pass_span_s,stderr_iid_us,ci95_iid_lo_us,ci95_iid_hi_us,levels,level_lo_us,level_hi_us
# row BYTES MEDIAN LO HI PROBE [format-3 tail]
row() {
    echo "pingpong.send_recv,2,$1,100,$2,$2,$2,$2,$2,$2,$2,0.1,0.01,$3,$4,0,SETTLED,stderr:0.03,1,half_round_trip,0.03,16,1000,1,0.1,A,,,,,\"0,1\",0,no,barrier,,warm,0,$5,$5,0,,0,0${6:+,$6}"
}
# launch 1, format 3: the iid CI misses the centre at both sizes
{
    echo "$v3"
    row 1 1.00 0.75 1.375 0.50 "5,1.2,0.001,0.99,1.01,1,1.00,1.00"
    row 8192 10.0 9.0 9.5 0.50 "5,1.2,0.01,9.9,10.1,2,9.8,10.2"
} >"$dir/launch1.csv"
{
    echo "$v2"
    row 1 1.5 1.25 1.75 0.52
    row 8192 10.5 10.0 11.0 0.52
} >"$dir/launch2.csv"
# launch 3: rows say 0.50 but every probe of the run says 0.80: another level
{
    echo "$v2"
    row 1 2.00 1.9 2.1 0.50
    row 8192 20.0 19.0 21.0 0.50
} >"$dir/launch3.csv"
printf 't_s,probe_us,segment,level\n0.1,0.80,1,1\n0.2,0.79,1,1\n0.3,0.81,1,1\n' >"$dir/launch3.probe.csv"
# launch 4: level 1 by its probes, but its 8 KiB point ran oversubscribed
{
    echo "$v2"
    row 1 1.25 1.0 1.5 0.51
    row 8192 5000 4900 5100 4000
} >"$dir/launch4.csv"
printf 't_s,probe_us,segment,level\n0.1,0.51,1,1\n0.2,0.50,1,1\n0.3,0.52,1,1\n' >"$dir/launch4.probe.csv"

python3 "$analyzer" "$dir" >"$dir/out.txt" 2>"$dir/err.txt"
rc=$?
if [ $rc -eq 0 ]; then pass "exit 0"; else fail "exit $rc: $(cat "$dir/err.txt")"; fi
expect() { # fixed string
    if grep -qF -- "$1" "$dir/out.txt"; then pass "$1"; else fail "missing: $1"; fi
}
# centres: 1 B median(1.0, 1.5, 2.0, 1.25) = 1.375 (launch 1's upper bound:
# covered), 8 KiB median(10, 10.5, 20, 5000) = 15.25 (no launch covers it)
expect "calibration: 37.5 % of 8 pairs (3 covered), 2 points, 4 launches"
expect "calibration at 1 B: 75.0 % of 4 pairs"
expect "calibration at 8 KiB: 0.0 % of 4 pairs"
expect "calibration of the within-burst iid CI (ci95_iid_*): 0.0 % of 2 pairs"
expect "launch 1: level 1 (probe median 0.500 us), 2 of 2 points SETTLED, 1 points straddle levels"
expect "launch 3: level 2 (probe median 0.800 us)"
expect "launch 4: level 1 (probe median 0.510 us)"
expect "main level: 1, 3 of 4 launches"
expect "spread at 1 B: 50.0 % within level 1 (all launches: 100.0 %)"
expect "spread at 8 KiB: 49900.0 % within level 1 (all launches: 49900.0 %)"
expect "launch spread, worst size: 49900.0 % within level 1"
expect "spread at 1 B, point-level filtered: 50.0 % (median over 1 points 50.0 %)"
expect "spread at 8 KiB, point-level filtered: 5.0 % (median over 1 points 5.0 %)"
expect "launch spread, point-level filtered, worst size: 50.0 %"
if grep -qE "^calibration \(one launch's CI\) +37\.5 % +>= 90 % +no$" "$dir/out.txt"; then
    pass "summary row"
else
    fail "summary row: $(grep '^calibration ' "$dir/out.txt")"
fi

# The CI over launches (mpibex merge, as repeat writes it) against the
# median of the other launches: 7 launches of one point, medians 1 (six)
# and 10 (one). The 6 five-launch subsets without the 10 have CI [1, 1]
# (no spread) and the other two launches' median is 5.5: missed; the 15
# with it have CI [1, 10] around median 1 of the others: covered. 15 of 21.
if [ -n "${mpibex:-}" ]; then
    mkdir -p "$dir/rep"
    for k in 1 2 3 4 5 6 7; do
        m=$([ $k = 4 ] && echo 10 || echo 1)
        { echo "$v2"; row 1 $m $m $m 0.50; } >"$dir/rep/launch$k.csv"
    done
    python3 "$analyzer" "$dir/rep" --mpibex "$mpibex" >"$dir/rep.txt" 2>&1 ||
        fail "repeat calibration: exit $?: $(tail -3 "$dir/rep.txt")"
    if grep -qF "calibration over launches: 71.4 % of 21 (repeat, point) pairs, 21 repeats of 5 launches" "$dir/rep.txt"; then
        pass "calibration over launches: 15 of 21"
    else
        fail "calibration over launches: $(grep 'over launches' "$dir/rep.txt")"
    fi
fi
# bad input: one line, exit 2
python3 "$analyzer" "$dir/none" >/dev/null 2>"$dir/bad.txt"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$dir/bad.txt")" -eq 1 ]; then
    pass "missing DIR: exit 2, one line"
else
    fail "missing DIR: exit $rc, $(cat "$dir/bad.txt")"
fi
[ "$fails" -eq 0 ] || cat "$dir/out.txt"
mbx_finish
