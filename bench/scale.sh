#!/usr/bin/env bash
# Scale figures (a benchmark, not a test):
#  1. rank 0's memory (resident before the first point, peak) for one point
#     of 1 000 and 200 000 observations at each rank count;
#  2. the command loop's cost per command (mbx_cmdloop_cost);
#  3. the quick plan's wall time on an oversubscribed job.
# usage: bench/scale.sh [BUILD_DIR] [RANKS...]   (default ranks: 2 8 32)
# MBX_SCALE_QUICK_ARGS: more options for the quick plan's runs (e.g.
# "--nmin 4 --nmax 8", as the test mpi.scale.n16 does). MBX_SCALE_MPIEXEC:
# the launcher (default mpiexec; mpiexec.openmpi for a -DMBX_MPI=openmpi
# build, with what mpirun needs here in its environment).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=(2 8 32)
mpibex=$build/mpibex cost=$build/mbx_cmdloop_cost
[ -x "$mpibex" ] && [ -x "$cost" ] || { echo "build first: scripts/build.sh" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpiexec=${MBX_SCALE_MPIEXEC:-mpiexec}
kv() { awk -F, -v k="$1" '$1 == k {print $2}' "$2"; }

echo "== rank 0 memory (KiB): resident before the first point / peak"
for n in "${ranks[@]}"; do
  for k in 1000 200000; do
    "$mpiexec" -n "$n" "$mpibex" run --bench pingpong.send_recv --sizes 1 --stop fixed:$k \
      --monitor off -q -o "$tmp/m.csv" >/dev/null 2>&1
    a=$(kv rank0_rss_first_point_kib "$tmp/m.env.csv") b=$(kv rank0_max_rss_kib "$tmp/m.env.csv")
    printf '  %3d ranks, %6d observations: %6d / %6d (growth %5d)\n' "$n" "$k" "$a" "$b" $((b - a))
  done
done
echo "== command loop cost"
for n in "${ranks[@]}"; do
  printf '  '
  "$mpiexec" -n "$n" "$cost" 21 200
done
echo "== quick plan wall time (samples/quick.ini)"
for n in "${ranks[@]}"; do
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$mpiexec" -n "$n" "$mpibex" run "$root/samples/quick.ini" ${MBX_SCALE_QUICK_ARGS:-} -q -o "$tmp/q.csv" \
    >/dev/null 2>&1
  t1=$(date +%s.%N)
  printf '  %3d ranks: %6.1f s, %d rows\n' "$n" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" \
    $(($(wc -l <"$tmp/q.csv") - 1))
done
