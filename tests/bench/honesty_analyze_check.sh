#!/usr/bin/env bash
# The arithmetic of bench/honesty_analyze.py on synthetic launches with
# known numbers: the launch-variance component of a profile, the ordered
# pairs of fresh launches against the prediction interval it gives, the
# leave-one-out reference, the split-half check of a launch's err on its
# held-out passes, the equivalence test of the interleaved halves, and
# mpibex's own pi95 columns used when present. No MPI, no timing.
# usage: honesty_analyze_check.sh ANALYZER WORKDIR
set -u
analyzer=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

head=benchmark,label,procs,bytes,root,op,param,median_us,stderr_us,ci95_lo_us,ci95_hi_us,status,ci_scope
# launch FILE MEDIAN ERR [PI_LO PI_HI]: one 1-byte ping-pong point
launch() {
    local f=$1
    mkdir -p "$(dirname "$f")"
    if [ $# -gt 3 ]; then
        printf '%s,pi95_lo_us,pi95_hi_us\n' "$head" >"$f"
        printf 'pingpong.send_recv,honesty,2,1,,,,%s,%s,%s,%s,SETTLED,profile,%s,%s\n' \
            "$2" "$3" "$2" "$2" "$4" "$5" >>"$f"
    else
        printf '%s\n' "$head" >"$f"
        printf 'pingpong.send_recv,honesty,2,1,,,,%s,%s,%s,%s,SETTLED,launch\n' \
            "$2" "$3" "$2" "$2" >>"$f"
    fi
}

# Profile: medians 1.0, 1.1, 1.2, no error, and a SHIFTED launch (passes
# on two machine levels) at 1.1 whose err of thousands is no error of its
# median: its median counts, as mpibex calibrate counts it, and its err is
# the settled launches' (0). sigma_L = sd(ln m) of 1, 1.1, 1.1, 1.2 = 7.4 %.
launch "$dir/a/profile/launch-01.csv" 1.0 0
launch "$dir/a/profile/launch-02.csv" 1.1 0
launch "$dir/a/profile/launch-03.csv" 1.2 0
launch "$dir/a/profile/launch-04.csv" 1.1 4000
sed -i 's/SETTLED/SHIFTED/' "$dir/a/profile/launch-04.csv"
# Fresh: 1, 1, 1, 2. Prediction half-width 1.96 sqrt(2) 0.0745 = 0.206 on
# the log scale: launches 1-3 hold each other (6 pairs), none holds launch 4
# or is held by it (6 pairs): 50 %. Leave-one-out: launches 1-3 see the
# others' median 1 inside (1 x/ exp(0.146)), launch 4 does not: 75 %.
for k in 1 2 3; do launch "$dir/a/fresh/launch-0$k.csv" 1.0 0; done
launch "$dir/a/fresh/launch-04.csv" 2.0 0

python3 "$analyzer" "$dir/a" --reps 200 >"$dir/a.txt" 2>"$dir/a.err"
rc=$?
if [ $rc -eq 0 ]; then pass "exit 0"; else fail "exit $rc: $(cat "$dir/a.err")"; fi
expect() { # FILE fixed-string
    if grep -qF -- "$2" "$1"; then pass "$2"; else fail "missing in $(basename "$1"): $2"; fi
}
expect_re() { # FILE extended-regex what
    if grep -qE -- "$2" "$1"; then pass "$3"; else fail "$3: $(grep '^pairs at' "$1")"; fi
}
expect "$dir/a.txt" "sigma_L pingpong.send_recv honesty 1 B: 7.4 % ["
expect "$dir/a.txt" "over 4 launches (3 SETTLED give the err)"
expect "$dir/a.txt" "pairs at 1 B, prediction (analysis): 50.0 % ["
expect "$dir/a.txt" "of 12 ordered pairs (>= 90 %)"
expect "$dir/a.txt" "leave-one-out at 1 B, the analysis's CI (its own sigma_L): 75.0 % ["
expect "$dir/a.txt" "identical settings, 2 vs 2 launches: 0.0 % of 1 points shown equivalent"
expect_re "$dir/a.txt" "^pairs at 1 B \(prediction \(analysis\)\) +50\.0 % \[.*\] +>= 90 % +no$" \
    "summary row of the pairs"

# mpibex's own prediction interval (pi95_*) is judged when present: fresh
# launches 1-3 claim [0.5, 3] (holding every median), launch 4 [1.9, 2.1]
# (holding none of the others): 9 of 12 pairs. Their ci95 (scope profile)
# is [m, m]: launches 1-3 hold each other's 1, 6 of 12.
mkdir -p "$dir/b"
cp -r "$dir/a/profile" "$dir/b/profile"
for k in 1 2 3; do launch "$dir/b/fresh/launch-0$k.csv" 1.0 0 0.5 3; done
launch "$dir/b/fresh/launch-04.csv" 2.0 0 1.9 2.1
python3 "$analyzer" "$dir/b" --reps 200 >"$dir/b.txt" 2>&1 || fail "pi95: exit $?"
expect "$dir/b.txt" "pairs at 1 B, mpibex pi95: 75.0 % ["
expect "$dir/b.txt" "pairs at 1 B, mpibex ci95, scope profile: 50.0 % ["
expect_re "$dir/b.txt" "^pairs at 1 B \(mpibex pi95, or outside the profile\) +75\.0 %" "the summary judges mpibex's pi95"
# Leave-one-out on mpibex's own ci95 (scope profile), [m, m]: launches 1-3
# hold the others' median 1, launch 4 ([2, 2]) does not: 3 of 4, judged.
expect "$dir/b.txt" "leave-one-out at 1 B, mpibex ci95 (scope profile), or outside the profile: 75.0 % ["
expect_re "$dir/b.txt" "^leave-one-out at 1 B \(mpibex ci95, or outside\) +75\.0 %" \
    "the summary judges mpibex's own ci95 in the leave-one-out"

# Split half: 4 passes of one observation each, err 0.05, so the halves'
# difference has sd 0.05 sqrt(2 + 2) = 0.1. Launch 1: 1.0 1.0 | 1.2 1.2,
# z = -2 (outside 1.96); launch 2: 1.0 1.0 | 1.1 1.1, z = -1 (inside).
# 1 of 2 points, rms z sqrt((4 + 1) / 2) = 1.58. A third, SHIFTED launch
# (z = 0) counts only in the line of every row: 2 of 3, rms z 1.29.
obs() { # FILE PASS-VALUES...
    local f=$1 p=0
    shift
    echo "benchmark,procs,bytes,obs,time_us,label,root,param,pass" >"$f"
    for v in "$@"; do
        echo "pingpong.send_recv,2,1,$p,$v,honesty,,,$p" >>"$f"
        p=$((p + 1))
    done
}
launch "$dir/c/fresh/launch-01.csv" 1.1 0.05
obs "$dir/c/fresh/launch-01.obs.csv" 1.0 1.0 1.2 1.2
launch "$dir/c/fresh/launch-02.csv" 1.05 0.05
obs "$dir/c/fresh/launch-02.obs.csv" 1.0 1.0 1.1 1.1
launch "$dir/c/fresh/launch-03.csv" 1.0 0.05
sed -i 's/SETTLED/SHIFTED/' "$dir/c/fresh/launch-03.csv"
obs "$dir/c/fresh/launch-03.obs.csv" 1.0 1.0 1.0 1.0
python3 "$analyzer" "$dir/c" --reps 200 >"$dir/c.txt" 2>&1 || fail "split half: exit $?"
expect "$dir/c.txt" "within-launch settled, at 1 B: |z| <= 1.96 at 50.0 % ["
expect "$dir/c.txt" "] of 2 points; rms z (true / reported err) 1.58"
expect "$dir/c.txt" "within-launch every row (SHIFTED, UNSETTLED too): |z| <= 1.96 at 66.7 % ["
expect "$dir/c.txt" "] of 3 points; rms z (true / reported err) 1.29"
# No profile, so no sigma_L of the analysis: the points are still judged
# on mpibex's own intervals (ci95 [m, m] of medians 1.1, 1.05, 1.0: none
# holds another's median), and the analysis's own intervals are left out.
expect "$dir/c.txt" "pairs at 1 B, mpibex ci95, scope launch: 0.0 % ["
expect "$dir/c.txt" "of 6 ordered pairs (a figure)"
if grep -q "prediction (analysis)" "$dir/c.txt"; then
    fail "no sigma_L, yet the analysis's prediction interval was judged"
else
    pass "no sigma_L: no interval of the analysis judged"
fi

# bad input: one line, exit 2
for args in "$dir/none" "$dir/a --reps 5" "$dir/a --fresh $dir/none"; do
    # shellcheck disable=SC2086 # the words are the arguments
    python3 "$analyzer" $args >/dev/null 2>"$dir/bad.txt"
    rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l <"$dir/bad.txt")" -eq 1 ]; then
        pass "bad input ($args): exit 2, one line"
    else
        fail "bad input ($args): exit $rc, $(cat "$dir/bad.txt")"
    fi
done
[ "$fails" -eq 0 ] || cat "$dir/a.txt" "$dir/b.txt" "$dir/c.txt"
mbx_finish
