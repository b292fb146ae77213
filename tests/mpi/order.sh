#!/usr/bin/env bash
# The order of points: the same --seed gives the same order, another seed
# another one, --order plan the plan's. Points are measured in passes and a
# row is written when its point is final: with fixed:N every point gets
# exactly R passes, and with --span 0 no pass waits for its time, so every
# round gives every point one pass and all rows come in round R's order,
# which the seed alone decides; the seed is printed and journaled
# while running. Also the monitor's files: OUT.probe.csv and the monitor.*
# keys of OUT.env.csv.
# usage: order.sh MPIEXEC NPFLAG MPIBEX OUTDIR
set -u
. "$(dirname "$0")/../lib.sh"
mpiexec=$1 np=$2 mpibex=$3 dir=$4
mkdir -p "$dir"
run() { # run NAME ARGS...
  local name=$1
  shift
  rm -f "$dir/$name".*
  "$mpiexec" "$np" 2 "$mpibex" run --bench pingpong.send_recv,coll.bcast --sizes 1:1K:2 \
    --stop fixed:20 --span 0 -q -o "$dir/$name.csv" "$@" >"$dir/$name.out" 2>&1 ||
    die "run $name failed: $(tail -3 "$dir/$name.out")"
  # The file is sorted when the run ends: seq is the order
  # the rows were written in.
  python3 -c 'import csv, sys
rows = sorted(csv.DictReader(open(sys.argv[1], newline="")), key=lambda r: int(r["seq"]))
print("\n".join(r["benchmark"] + "," + r["bytes"] for r in rows))' "$dir/$name.csv" >"$dir/$name.order"
}
run a --seed 7
run b --seed 7
run c --seed 8
run p --order plan
cmp -s "$dir/a.order" "$dir/b.order" || die "--seed 7 twice gave two orders"
cmp -s "$dir/a.order" "$dir/c.order" && die "--seed 7 and --seed 8 gave the same order of 22 points"
grep -q '^# order: shuffled, seed 7 (--seed 7 replays it)' "$dir/a.out" || die "no seed line"
[ "$(wc -l <"$dir/a.order")" -eq 22 ] || die "expected 22 points"
sort "$dir/a.order" | cmp -s - <(sort "$dir/p.order") || die "shuffled and plan runs measured different points"
# The plan's order: ping-pong sizes ascending, then bcast's.
expected=$(for b in pingpong.send_recv coll.bcast; do for s in 1 2 4 8 16 32 64 128 256 512 1024; do echo "$b,$s"; done; done)
[ "$(cat "$dir/p.order")" = "$expected" ] || die "--order plan is not the plan's order"
grep -q '^# order: the plan' "$dir/p.out" || die "no plan-order line"
# Monitor files.
[ -s "$dir/a.probe.csv" ] || die "no probe sidecar"
head -1 "$dir/a.probe.csv" | grep -q '^t_s,probe_us,segment,level$' || die "probe sidecar header"
probes=$(($(wc -l <"$dir/a.probe.csv") - 1))
[ "$probes" -ge 1 ] || die "expected probes (one before the first pass, then every 0.05 s), got $probes"
for k in monitor.probes monitor.levels monitor.shifts monitor.level.1_us; do
  grep -q "^$k," "$dir/a.env.csv" || die "no $k in the environment file"
done
grep -q '^# monitor (1-byte ping-pong, rank 0 and rank 1): [0-9]* probes over' "$dir/a.out" || die "no monitor summary line"
echo "order.sh: seeds replay, differ and the plan order holds; $probes probes"
