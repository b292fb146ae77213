#!/usr/bin/env bash
# Install what mpibex needs to build and test, if anything is missing.
# Idempotent; needs root (or sudo) only when something must be installed.
# clang-14 and libclang-rt-14-dev (libFuzzer and the sanitizer runtimes) build
# the fuzz targets only (scripts/test.sh --fuzz, scripts/fuzz.sh).
set -euo pipefail
pkgs=(build-essential cmake pkg-config mpich libmpich-dev libcsv-dev libcmocka-dev libncurses-dev tmux iproute2 python3 clang-format libhwloc-dev gnuplot-nox clang-14 libclang-rt-14-dev valgrind)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "mpibex: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "mpibex: need root to install: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
