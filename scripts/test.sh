#!/usr/bin/env bash
# Build and run the whole test suite. usage: scripts/test.sh [--sanitize]
# --sanitize builds in build-asan with AddressSanitizer and UBSan.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
if [ "${1:-}" = "--sanitize" ]; then
  dir=$root/build-asan
  "$root/scripts/build.sh" "$dir" -DMBX_SANITIZE=ON
else
  dir=$root/build
  "$root/scripts/build.sh" "$dir"
fi
cd "$dir"
ctest --output-on-failure -j 2
