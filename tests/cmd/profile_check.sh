#!/usr/bin/env bash
# The machine profile end to end on the fake back end (no MPI), with HOME
# and XDG_STATE_HOME in a test directory. usage: profile_check.sh MPIBEX DIR
#   no profile: the run says its intervals are launch-scoped and how to get
#   a profile; calibrate over 4 launches writes one to the state directory;
#   a later run uses it (auto: ci_scope profile, pi95 columns, which profile
#   and its age); a profile with a known component widens every interval;
#   one whose centers are moved 3x leaves every row launch-scoped, with its
#   profile_ratio and a line counting the rows outside the profile;
#   a bad, foreign or stale profile named is refused in one line (exit 2),
#   under auto it is not used and said so; calibrate refuses a widened
#   launch; merge of the launches names launches:4 and gives the PI.
set -u
. "$(dirname "$0")/../lib.sh"
mpibex=$1 dir=$2
rm -rf "$dir"
mkdir -p "$dir/home" "$dir/state" "$dir/rep"
export HOME=$dir/home XDG_STATE_HOME=$dir/state
run() { "$mpibex" run --fake 2 --bench pingpong.send_recv --sizes 1:64 -q --force "$@"; }

run --seed 7 -o "$dir/none.csv" >"$dir/none.out" 2>&1 || die "run without a profile failed"
grep -q '^# intervals are launch-scoped (no machine profile for this host and MPI); .*mpibex calibrate DIR' \
    "$dir/none.out" && pass "no profile: launch-scoped, and how to get one" ||
    fail "no profile: no launch-scoped line: $(head -12 "$dir/none.out")"
[ "$(mbx_col "$dir/none.csv" ci_scope | sort -u)" = launch ] && pass "no profile: ci_scope launch" ||
    fail "no profile: ci_scope $(mbx_col "$dir/none.csv" ci_scope | sort -u | tr '\n' ' ')"
[ -z "$(mbx_col "$dir/none.csv" pi95_lo_us | sort -u)" ] && pass "no profile: no PI" ||
    fail "no profile: a PI without a profile"

for i in 1 2 3 4; do
    run --seed "$i" -o "$dir/rep/launch-0$i.csv" >/dev/null 2>&1 || die "launch $i failed"
done
# The fake's environment files carry no date: give the launches start
# times 20 s apart, as MPI launches' date_utc would be.
for i in 1 2 3 4; do
    printf 'date_utc,2026-01-31T23:59:%02dZ\n' $((i * 20 - 20)) >>"$dir/rep/launch-0$i.env.csv"
done
"$mpibex" calibrate "$dir/rep" >"$dir/cal.out" 2>&1 || die "calibrate failed: $(cat "$dir/cal.out")"
prof=$(ls "$dir/state/mpibex/"profile-*.csv 2>/dev/null | head -1)
[ -n "$prof" ] && grep -q '^mpi,fake back end$' "$prof" && grep -q '^launches,4$' "$prof" &&
    pass "calibrate wrote $(basename "$prof") (4 launches, the fake's MPI)" ||
    fail "calibrate wrote no profile: $(cat "$dir/cal.out")"
grep -q 'fewer than the 10 recommended' "$dir/cal.out" && pass "calibrate: 4 < 10 said" ||
    fail "calibrate: no word on 4 launches"
# the launches' span, from their environment files' date_utc: said and kept
span=$(sed -n 's/^launches_span_s,\([0-9]*\)$/\1/p' "$prof")
[ "$span" = 60 ] &&
    grep -q "^# the launches started over $span s: sigma_L is how much the machine varied" \
        "$dir/cal.out" && pass "calibrate: the launches' span, $span s, said and kept" ||
    fail "calibrate: span '$span': $(grep -i span "$dir/cal.out")"

run --seed 7 -o "$dir/auto.csv" >"$dir/auto.out" 2>&1 || die "run with the auto profile failed"
grep -q "^# intervals widened by the machine profile .*profile-.*(4 launches, 0.0 days old)" \
    "$dir/auto.out" && pass "auto: which profile and how old" ||
    fail "auto: no profile line: $(grep '^# int' "$dir/auto.out")"
[ "$(mbx_col "$dir/auto.csv" ci_scope | sort -u)" = profile ] && pass "auto: ci_scope profile" ||
    fail "auto: ci_scope $(mbx_col "$dir/auto.csv" ci_scope | sort -u | tr '\n' ' ')"
grep -q '^# ci_scope: 7 of 7 rows profile' "$dir/auto.out" && pass "auto: the table counts them" ||
    fail "auto: no count line"

# A profile with a known component: 5 % for every class.
python3 - "$prof" "$dir/known.csv" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
i = [r[0] for r in rows].index("benchmark")
for r in rows[i + 1:]:
    if len(r) == 10:  # the entries, not the centers after them
        r[6], r[7], r[8] = "0.05", "0.03", "0.1"
csv.writer(open(sys.argv[2], "w"), lineterminator="\n").writerows(rows)
EOF
run --seed 7 --profile "$dir/known.csv" -o "$dir/known_run.csv" >/dev/null 2>&1 ||
    die "run with a named profile failed"
python3 - "$dir/none.csv" "$dir/known_run.csv" <<'EOF' && pass "known 5 %: every CI and PI wider than the launch's, by t(3) sqrt(e^2 + 0.05^2)" || fail "known 5 %: not widened as documented"
import csv, math, sys
a = list(csv.DictReader(open(sys.argv[1])))
b = list(csv.DictReader(open(sys.argv[2])))
key = lambda r: r["bytes"]
a = {key(r): r for r in a}
ok = len(b) == 7
for r in b:
    o = a[key(r)]
    m, lo, hi = float(r["median_us"]), float(r["ci95_lo_us"]), float(r["ci95_hi_us"])
    e = float(o["stderr_us"]) / float(o["median_us"])
    # each side sqrt(d^2 + (t 0.05)^2), d = 1.96 e for a symmetric launch
    # interval; t with the 4 launches' 3 degrees of freedom
    d = math.log(float(o["ci95_hi_us"]) / m)
    h = math.sqrt(d * d + (3.182446 * 0.05) ** 2)
    ok &= r["ci_scope"] == "profile" and m == float(o["median_us"])
    ok &= hi - lo > float(o["ci95_hi_us"]) - float(o["ci95_lo_us"])
    ok &= abs(hi / m - math.exp(h)) < 2e-3 * math.exp(h)
    ok &= float(r["pi95_hi_us"]) > hi and float(r["pi95_lo_us"]) < lo
    print("#", r["bytes"], "B: launch", o["ci95_lo_us"], o["ci95_hi_us"], "-> profile", lo, hi,
          "PI", r["pi95_lo_us"], r["pi95_hi_us"])
sys.exit(0 if ok else 1)
EOF

# A machine not as it was calibrated: the same profile with every center
# put 3x slower. Each row's median is then a third of where the profile's
# launches were, far beyond what their spread allows: not widened
# (ci_scope launch, no PI), profile_ratio says how far, a line counts them.
python3 - "$prof" "$dir/moved.csv" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
for r in rows:
    if r[0] == "center":
        r[4] = "%.6g" % (3 * float(r[4]))
csv.writer(open(sys.argv[2], "w"), lineterminator="\n").writerows(rows)
EOF
run --seed 7 --profile "$dir/moved.csv" -o "$dir/moved_run.csv" >"$dir/moved.out" 2>&1 ||
    die "run with a moved profile failed"
[ "$(mbx_col "$dir/moved_run.csv" ci_scope | sort -u)" = launch ] &&
    [ -z "$(mbx_col "$dir/moved_run.csv" pi95_lo_us | sort -u)" ] &&
    pass "moved centers: rows stay launch-scoped, no PI" ||
    fail "moved centers: ci_scope $(mbx_col "$dir/moved_run.csv" ci_scope | sort -u | tr '\n' ' ')"
mbx_col "$dir/moved_run.csv" profile_ratio |
    awk '{ if ($1 < 0.32 || $1 > 0.35) bad = 1 } END { exit bad || NR != 7 }' &&
    pass "moved centers: profile_ratio about 1/3 on all 7 rows" ||
    fail "moved centers: profile_ratio $(mbx_col "$dir/moved_run.csv" profile_ratio | tr '\n' ' ')"
grep -q '^# outside the profile: 7 rows, median 0\.3[0-9]*\.\.0\.3[0-9]*x where' "$dir/moved.out" &&
    pass "moved centers: the table says 7 rows are outside" ||
    fail "moved centers: $(grep -i outside "$dir/moved.out")"
[ "$(mbx_col "$dir/auto.csv" profile_ratio | awk '$1 > 0.97 && $1 < 1.03' | wc -l)" -eq 7 ] &&
    pass "auto: profile_ratio near 1 on all 7 rows, the machine as calibrated" ||
    fail "auto: profile_ratio $(mbx_col "$dir/auto.csv" profile_ratio | tr '\n' ' ')"

# Refusals: named, in one line and exit 2; under auto, not used and said.
refused() { # NAME FILE REGEX
    run --profile "$2" -o "$dir/refused.csv" >"$dir/r.out" 2>"$dir/r.err"
    local rc=$?
    [ $rc -eq 2 ] && [ "$(grep -c . "$dir/r.err")" -eq 1 ] && grep -Eq -- "$3" "$dir/r.err" &&
        pass "$1 profile refused: $(cat "$dir/r.err")" ||
        fail "$1 profile: exit $rc, stderr: $(cat "$dir/r.err")"
}
sed 's/^host,.*/host,elsewhere/' "$prof" >"$dir/foreign_host.csv"
refused "foreign host" "$dir/foreign_host.csv" "^mpibex: --profile: the profile is of host 'elsewhere', this run is on '"
sed 's/^mpi,.*/mpi,Open MPI v9/' "$prof" >"$dir/foreign_mpi.csv"
refused "foreign MPI" "$dir/foreign_mpi.csv" "the profile is of MPI 'Open MPI v9', this run uses 'fake back end'"
sed 's/^created_s,.*/created_s,1000000000/' "$prof" >"$dir/stale.csv"
refused "stale" "$dir/stale.csv" "the profile is [0-9]+ days old, more than the 30 allowed"
printf 'benchmark,procs\n' >"$dir/bad.csv"
refused "bad" "$dir/bad.csv" "bad.csv:1: mpibex_profile: expected a profile file"
refused "missing" "$dir/nothere.csv" "cannot read '.*nothere.csv'"
cp "$dir/stale.csv" "$prof"
run --seed 7 -o "$dir/auto_stale.csv" >"$dir/as.out" 2>&1 && grep -q \
    '^# intervals are launch-scoped: profile not used: the profile is [0-9]* days old' "$dir/as.out" &&
    [ "$(mbx_col "$dir/auto_stale.csv" ci_scope | sort -u)" = launch ] &&
    pass "auto, stale: not used, launch-scoped, said" ||
    fail "auto, stale: $(grep '^# int' "$dir/as.out")"

# calibrate will not take a launch a profile widened.
mkdir -p "$dir/rep2"
cp "$dir/rep/launch-01.csv" "$dir/rep/launch-02.csv" "$dir/rep2/"
cp "$dir/known_run.csv" "$dir/rep2/launch-03.csv"
"$mpibex" calibrate "$dir/rep2" -o "$dir/p2.csv" >/dev/null 2>"$dir/c2.err"
rc=$?
[ $rc -eq 2 ] && grep -q "ci_scope: expected launch (got 'profile'" "$dir/c2.err" &&
    pass "calibrate refuses a widened launch" || fail "calibrate: exit $rc, $(cat "$dir/c2.err")"
"$mpibex" calibrate "$dir/none.csv" >/dev/null 2>"$dir/c3.err"
[ $? -eq 2 ] && [ "$(grep -c . "$dir/c3.err")" -eq 1 ] && pass "calibrate: no directory: $(cat "$dir/c3.err")" ||
    fail "calibrate of a file: $(cat "$dir/c3.err")"

# The launches merged: launches:4 and a PI around the median of medians.
"$mpibex" merge "$dir"/rep/launch-0?.csv -o "$dir/merged.csv" --force 2>/dev/null || die "merge failed"
[ "$(mbx_col "$dir/merged.csv" ci_scope | sort -u)" = launches:4 ] && pass "merge: ci_scope launches:4" ||
    fail "merge: ci_scope $(mbx_col "$dir/merged.csv" ci_scope | sort -u | tr '\n' ' ')"
python3 - "$dir/merged.csv" <<'EOF' && pass "merge: PI around every median" || fail "merge: PI missing or misplaced"
import csv, sys
ok = True
for r in csv.DictReader(open(sys.argv[1])):
    ok &= float(r["pi95_lo_us"]) <= float(r["median_us"]) <= float(r["pi95_hi_us"])
sys.exit(0 if ok else 1)
EOF
mbx_finish
