#!/usr/bin/env bash
# Quick start: install what is missing, build, and open the live explorer
# on 2 ranks with the sample plan preloaded (r runs it, q quits). Without a
# terminal (a batch job), the same plan is measured in batch mode instead.
# Safe to run again.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
"$root/scripts/build.sh" "$root/build" >/dev/null
if [ -t 0 ] && [ -t 1 ]; then
  exec "$root/build/mpibex" -n 2 --plan "$root/samples/quick.ini"
fi
echo "mpibex: no terminal; measuring samples/quick.ini on 2 ranks in batch mode" >&2
# The launcher of the MPI the build uses (plain mpiexec follows Debian's
# alternatives, which need not be that MPI).
mpiexec=$("$root/build/mpibex" --version | sed -n 's/^MPI: .*, launcher //p')
exec "${mpiexec:-mpiexec}" -n 2 "$root/build/mpibex" run "$root/samples/quick.ini" -o "$root/build/quick.csv"
