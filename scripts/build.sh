#!/usr/bin/env bash
# Configure and build mpibex. usage: scripts/build.sh [BUILD_DIR] [cmake args...]
# MBX_WERROR=ON in the environment (CI sets it) makes warnings errors.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build}
shift || true
cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMBX_WERROR="${MBX_WERROR:-OFF}" "$@" >/dev/null
cmake --build "$dir" -j "$(nproc)"
