#!/usr/bin/env bash
# The host's history end to end on the fake back end (no MPI), with HOME
# and XDG_STATE_HOME in a test directory. usage: history_check.sh MPIBEX DIR
#   the first run says it starts the history and writes it (mode 0600, one
#   row); 5 runs later the head says what it holds and the environment
#   file records it; a history whose probe reads 10x the fake's marks every
#   SETTLED row UNSETTLED "host state 0.1x usual (5 runs)", with the advice;
#   --history none neither reads nor adds; a bad --history value is refused
#   in one line (exit 2); a broken or foreign history is not used, said, and
#   left as it was; without --history the fake keeps none.
set -u
. "$(dirname "$0")/../lib.sh"
mpibex=$1 dir=$2
rm -rf "$dir"
mkdir -p "$dir/home" "$dir/state"
export HOME=$dir/home XDG_STATE_HOME=$dir/state
run() { "$mpibex" run --fake 2 --history auto --bench pingpong.send_recv --sizes 1:64 -q --force "$@"; }

run --seed 1 -o "$dir/r1.csv" >"$dir/r1.out" 2>&1 || die "first run failed"
grep -q '^# host history: none yet for this host and MPI; this run starts it' "$dir/r1.out" &&
    pass "first run: starts the history" || fail "first run: $(grep history "$dir/r1.out")"
hist=$(ls "$dir/state/mpibex/"history-*.csv 2>/dev/null | head -1)
[ -n "$hist" ] && [ "$(stat -c %a "$hist")" = 600 ] && [ "$(sed -n 1p "$hist")" = mpibex_history,1 ] &&
    [ "$(sed -n 3p "$hist")" = "mpi,fake back end" ] && [ "$(grep -c '^[0-9]' "$hist")" -eq 1 ] &&
    pass "history written: $(basename "$hist"), 0600, one run" || fail "history: $(cat "$hist" 2>&1)"

for i in 2 3 4 5 6; do
    run --seed "$i" -o "$dir/r$i.csv" >"$dir/r$i.out" 2>&1 || die "run $i failed"
done
grep -Eq '^# host history: 5 runs of 2 ranks over [0-9]+ min \(.*\): probe usually 0\.[0-9]+ us, ' \
    "$dir/r6.out" && pass "6th run: the head says what 5 runs hold" ||
    fail "6th run: $(grep history "$dir/r6.out")"
grep -q '^history_runs,5$' "$dir/r6.env.csv" && grep -q '^history_probe_us,0\.' "$dir/r6.env.csv" &&
    pass "the environment file records the history" || fail "env: $(grep history "$dir/r6.env.csv")"
[ "$(grep -c '^[0-9]' "$hist")" -eq 6 ] && pass "6 runs, 6 rows" || fail "rows: $(grep -c '^[0-9]' "$hist")"

# A host whose probe usually reads 10x the fake's: every settled point is
# in an unusual state.
cp "$hist" "$dir/kept.csv"
python3 - "$hist" <<'PY'
import sys
p = sys.argv[1]
lines = open(p).read().splitlines()
out = lines[:4] + [",".join(l.split(",")[:5] + ["2.0"]) for l in lines[4:]]
open(p, "w").write("\n".join(out) + "\n")
PY
run --seed 7 -o "$dir/odd.csv" >"$dir/odd.out" 2>&1 || die "run against the planted history failed"
st=$(paste -d' ' <(mbx_col "$dir/odd.csv" status) <(mbx_col "$dir/odd.csv" status_reason) | sort -u)
[ "$st" = "UNSETTLED host state 0.1x usual (6 runs)" ] &&
    pass "unusual state: every row $st" ||
    fail "unusual state: $st"
grep -q 'an unusual state of this host' "$dir/odd.out" && pass "unusual state: the advice is said" ||
    fail "unusual state: no advice: $(grep -i 'host state' "$dir/odd.out" | head -3)"

# --history none: not read (the planted one would flag), not added to.
before=$(md5sum <"$hist")
run --seed 7 --history none -o "$dir/none.csv" >"$dir/none.out" 2>&1 || die "--history none failed"
grep -q '^# host history off (--history none)$' "$dir/none.out" &&
    [ "$(mbx_col "$dir/none.csv" status | sort -u)" = SETTLED ] && [ "$(md5sum <"$hist")" = "$before" ] &&
    pass "--history none: not read, not added to" || fail "--history none: $(grep history "$dir/none.out")"

run --history maybe -o "$dir/bad.csv" >/dev/null 2>"$dir/bad.err"
rc=$?
[ $rc -eq 2 ] && mbx_one_line "$dir/bad.err" "^mpibex: --history: expected auto or none \(got 'maybe'\)$" &&
    pass "--history maybe: exit 2, one line" || fail "--history maybe: exit $rc"

# A broken history: not used, said, left as it was.
printf '1795000000,2,80,5.0,0,-1\n' >>"$hist"
before=$(md5sum <"$hist")
run --seed 8 -o "$dir/broken.csv" >"$dir/broken.out" 2>&1 || die "run with a broken history failed"
grep -Eq "^# host history not used: .*history-.*\.csv:[0-9]+: probe_median_us: expected a time" \
    "$dir/broken.out" && [ "$(md5sum <"$hist")" = "$before" ] &&
    [ "$(mbx_col "$dir/broken.csv" status | sort -u)" = SETTLED ] &&
    pass "broken history: not used, said, left as it was" ||
    fail "broken: $(grep history "$dir/broken.out")"
sed 's/^host,.*/host,elsewhere/' "$dir/kept.csv" >"$hist"
run --seed 8 -o "$dir/foreign.csv" >"$dir/foreign.out" 2>&1 || die "run with a foreign history failed"
grep -q "^# host history not used: .*: the history is of host 'elsewhere', this run's is '" \
    "$dir/foreign.out" && pass "foreign history: not used, said" ||
    fail "foreign: $(grep history "$dir/foreign.out")"
# The fake keeps no history unless asked: its probes are made up.
"$mpibex" run --fake 2 --bench pingpong.send_recv --sizes 1:64 -q --force -o "$dir/plain.csv" \
    >"$dir/plain.out" 2>&1 || die "plain fake run failed"
grep -q '^# host history off: the fake back end measures no host' "$dir/plain.out" &&
    pass "the fake without --history: off, said" || fail "plain fake: $(grep history "$dir/plain.out")"
mbx_finish
