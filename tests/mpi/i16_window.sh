#!/usr/bin/env bash
# Issue 16, window sync on one host: the identity clock model is chosen and
# said; a 1-byte fixed:2000 point ends in a bounded number of batches
# (the old windows only grew: thousands of 1-observation batches); a point
# that cannot finish gives up at --window-limit with a note. Properties
# only, no absolute times.
# usage: i16_window.sh MPIEXEC NPFLAG MPIBEX OUTDIR
set -u
mpiexec=$1 np=$2 mpibex=$3 dir=$4
mkdir -p "$dir"
fail() { echo "i16_window.sh: $*" >&2; exit 1; }
col() { # col FILE NAME: the first row's field NAME
  awk -F, -v k="$2" '/^#/ {next} !h {for (i = 1; i <= NF; i++) if ($i == k) c = i; h = 1; next}
                      {print $c; exit}' "$1"
}
env_key() { grep "^$2," "$1" | head -1 | cut -d, -f2- | tr -d '"'; }

rm -f "$dir"/bounded.*
"$mpiexec" "$np" 2 "$mpibex" run --bench pingpong.send_recv --sizes 1 --stop fixed:2000 \
  --sync window --monitor off -q -o "$dir/bounded.csv" >"$dir/bounded.out" 2>&1 ||
  fail "window run failed: $(tail -3 "$dir/bounded.out")"
grep -q '^# sync: window on one host clock (clock_model=identity' "$dir/bounded.out" ||
  fail "no identity line in the header: $(grep '^# sync' "$dir/bounded.out")"
model=$(env_key "$dir/bounded.env.csv" clock_model)
case $model in identity*) ;; *) fail "clock_model is '$model', expected identity" ;; esac
batches=$(col "$dir/bounded.csv" batches)
n=$(col "$dir/bounded.csv" n)
invalid=$(col "$dir/bounded.csv" invalid)
echo "fixed:2000: n=$n invalid=$invalid batches=$batches" \
  "grown=$(env_key "$dir/bounded.env.csv" window_grown)" \
  "shrunk=$(env_key "$dir/bounded.env.csv" window_shrunk)" \
  "windows $(env_key "$dir/bounded.env.csv" window_smallest_s)..$(env_key "$dir/bounded.env.csv" window_largest_s) s"
[ -n "$batches" ] || fail "no batches column"
# 2000 observations in batches that double from 8 (capped at 50 ms each):
# a few dozen; 2000 / 10 allows for a busy machine.
[ "$batches" -le 200 ] || fail "$batches batches for 2000 observations (bound 200)"
[ "$(env_key "$dir/bounded.env.csv" window_gave_up)" = 0 ] || fail "the point gave up"

# A point that cannot finish in its bound gives up with a note.
rm -f "$dir"/limit.*
"$mpiexec" "$np" 2 "$mpibex" run --bench pingpong.send_recv --sizes 1 --stop fixed:1000000 \
  --nmax 1000000 --sync window --window-limit 0.5 --monitor off -q -o "$dir/limit.csv" \
  >"$dir/limit.out" 2>&1 || fail "limited run failed: $(tail -3 "$dir/limit.out")"
grep -q '^# note: pingpong.send_recv, 2 procs, 1 bytes: window sync gave up after' "$dir/limit.out" ||
  fail "no give-up note: $(tail -3 "$dir/limit.out")"
[ "$(env_key "$dir/limit.env.csv" window_gave_up)" = 1 ] || fail "window_gave_up is not 1"
status=$(col "$dir/limit.csv" status)
[ "$status" = UNSETTLED ] || fail "a point that gave up is $status, expected UNSETTLED"
echo "i16_window.sh: ok"
