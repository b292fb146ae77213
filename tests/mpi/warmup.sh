#!/usr/bin/env bash
# Protocol-aware warm-up and page-fault counting, one case per
# invocation; properties only, never a time:
#
#   warmup.sh MPIEXEC NPFLAG MPIBEX CSVCHECK OUTDIR CASE
#
#   counts  2 ranks, ping-pong at 8 KiB and 64 KiB: every row has a faults
#           count (csvcheck); the environment file records the warm-up: 128
#           calls asked, more than the old single call before a point, and
#           one pair pre-faulted at 64 B, 8 KiB and the plan's largest size
#   option  --warmup 300 is recorded and the rows still check
#   light   a later pass's light warm-up is no longer than the pass: with
#           --stop fixed:3 --passes 3 each pass is one observation, and each
#           light warm-up one call (it was 8: a pass of one 2.8 s
#           observation spent 22 s warming up); with the default rule
#           passes are many observations and a light warm-up is 1..8 calls
set -u
mpiexec=$1 npflag=$2 mpibex=$3 csvcheck=$4 dir=$5 case=$6
. "$(dirname "$0")/../lib.sh"
test_case=$case
work=$dir/warmup_$case
rm -rf "$work"
mkdir -p "$work"

# envval KEY: the value of KEY in the run's environment file.
envval() { grep -m1 "^$1," "$work/w.env.csv" | cut -d, -f2- | tr -d '"'; }

run() {
    "$mpiexec" "$npflag" 2 "$mpibex" run --bench pingpong.send_recv --sizes 8KiB,64KiB \
        --nmax 200 --monitor off -o "$work/w.csv" "$@" >"$work/out.txt" 2>"$work/err.txt"
}

case $case in
counts)
    if run; then pass "run"; else fail "run: exit $? ($(head -c 300 "$work/err.txt"))"; fi
    if "$csvcheck" "$work/w.csv" --env "$work/w.env.csv" --rows 2 >"$work/check.txt" 2>&1; then
        pass "csvcheck (faults a count on every row)"
    else
        fail "csvcheck: $(head -c 400 "$work/check.txt")"
    fi
    head -1 "$work/w.csv" | grep -q ',events,faults,passes,' && pass "faults follows events, the pass columns follow" ||
        fail "header: $(head -1 "$work/w.csv")"
    [ "$(envval warmup_calls)" = 128 ] && pass "warmup_calls 128" ||
        fail "warmup_calls '$(envval warmup_calls)'"
    pts=$(envval warmup_points) max=$(envval warmup_point_max) min=$(envval warmup_point_min)
    [ "${pts:-0}" -ge 2 ] && pass "warm-up recorded for $pts points" || fail "warmup_points '$pts'"
    [ "${min:-0}" -ge 1 ] && [ "${max:-0}" -gt 1 ] && pass "warm-up calls per point $min-$max" ||
        fail "warm-up calls per point '$min'-'$max' (the old warm-up was one call)"
    [ "$(envval warmup_prefault_pairs)" = 1 ] && pass "one pair pre-faulted" ||
        fail "warmup_prefault_pairs '$(envval warmup_prefault_pairs)'"
    pre=$(envval warmup_prefault)
    echo "$pre" | grep -qE '^64 x[1-9][0-9]*, 8KiB x[1-9][0-9]*, 64KiB x[1-9][0-9]*$' &&
        pass "regimes pre-faulted: $pre" || fail "warmup_prefault '$pre'"
    envval faults_redone_batches | grep -qE '^[0-9]+$' && pass "redone batches counted" ||
        fail "faults_redone_batches '$(envval faults_redone_batches)'"
    grep -q '^# warm-up: ' "$work/out.txt" && pass "warm-up line printed" || fail "no warm-up line"
    # The line counts measurements (passes) and the run's 2 points apart.
    grep -Eq "^# warm-up: [0-9]+-[0-9]+ untimed calls before $pts measurements \(passes\)(, [0-9]+-[0-9]+ before [0-9]+ more \(light\))? of 2 points " "$work/out.txt" &&
        pass "warm-up line: $pts measurements of 2 points" || fail "warm-up line: $(grep '^# warm-up' "$work/out.txt")"
    ;;
option)
    if run --warmup 300; then pass "run"; else fail "run: exit $? ($(head -c 300 "$work/err.txt"))"; fi
    "$csvcheck" "$work/w.csv" --env "$work/w.env.csv" --rows 2 >"$work/check.txt" 2>&1 &&
        pass "csvcheck" || fail "csvcheck: $(head -c 400 "$work/check.txt")"
    [ "$(envval warmup_calls)" = 300 ] && pass "warmup_calls 300" ||
        fail "warmup_calls '$(envval warmup_calls)'"
    [ "$(envval warmup_point_max)" -gt 1 ] 2>/dev/null && pass "warm-up ran" ||
        fail "warmup_point_max '$(envval warmup_point_max)'"
    ;;
light)
    if run --stop fixed:3 --passes 3 --max-passes 3; then pass "run"; else
        fail "run: exit $? ($(head -c 300 "$work/err.txt"))"
    fi
    pts=$(envval warmup_light_points) max=$(envval warmup_light_max)
    [ "${pts:-0}" -ge 4 ] && pass "light warm-ups recorded: $pts (2 later passes of 2 points)" ||
        fail "warmup_light_points '$pts', expected at least 4"
    [ "$max" = 1 ] && pass "one-observation passes: light warm-up of 1 call" ||
        fail "warmup_light_max '$max' for passes of one observation (at most 1)"
    if run --force; then pass "run (default rule)"; else fail "run: exit $? ($(head -c 300 "$work/err.txt"))"; fi
    min=$(envval warmup_light_min) max=$(envval warmup_light_max)
    [ "${min:-0}" -ge 1 ] && [ "${max:-99}" -le 8 ] && pass "light warm-up $min-$max calls (1..8)" ||
        fail "warmup_light_min/max '$min'-'$max', expected within 1..8"
    ;;
*)
    fail "unknown case $case"
    ;;
esac
mbx_finish
