#!/usr/bin/env bash
# Quick start: install what is missing, build, and measure the sample plan
# on 2 ranks. Safe to run again.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
"$root/scripts/build.sh" "$root/build" >/dev/null
echo "mpibex: built $root/build/mpibex; measuring samples/quick.ini on 2 ranks" >&2
exec mpiexec -n 2 "$root/build/mpibex" run "$root/samples/quick.ini" -o "$root/build/quick.csv"
