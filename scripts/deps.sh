#!/usr/bin/env bash
# Install what mpibex needs to build and test, if anything is missing.
# usage: scripts/deps.sh [--openmpi]
# --openmpi also installs Open MPI (libopenmpi-dev openmpi-bin) next to
# MPICH, for a build with -DMBX_MPI=openmpi; the system's plain mpicc and
# mpiexec stay what they were (MPICH's on a machine that had only it).
# Idempotent; needs root (or sudo) only when something must be installed.
# clang-14 and libclang-rt-14-dev (libFuzzer and the sanitizer runtimes) build
# the fuzz targets only (scripts/test.sh --fuzz, scripts/fuzz.sh). locales-all
# gives the locale tests de_DE.UTF-8 and tr_TR.UTF-8 (they skip without).
# slurm-wlm and munge: the Slurm tests (tests/slurm) start their own
# slurmctld, slurmd and munged with their own config, key and socket (the
# packages' services are not used; without the packages the tests skip).
set -euo pipefail
pkgs=(build-essential cmake pkg-config mpich libmpich-dev libcsv-dev libcmocka-dev libncurses-dev tmux iproute2 python3 clang-format libhwloc-dev libgsl-dev gnuplot-nox clang-14 libclang-rt-14-dev valgrind locales-all slurm-wlm munge)
case "${1:-}" in
--openmpi) pkgs+=(libopenmpi-dev openmpi-bin) ;;
"") ;;
*)
  echo "usage: scripts/deps.sh [--openmpi]" >&2
  exit 2
  ;;
esac
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
# Debian's alternatives make Open MPI the plain mpicc/mpiexec (and the mpi.h
# and libmpi.so of /usr/include, /usr/lib) as soon as it is installed: its
# priority is 50, MPICH's 40. Keep what they pointed to before.
groups=(mpi mpirun "mpi-$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo "$(uname -m)-linux-gnu")")
declare -A before=()
for g in "${groups[@]}"; do
  before[$g]=$(update-alternatives --query "$g" 2>/dev/null | sed -n 's/^Value: //p' || true)
done
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
for g in "${groups[@]}"; do
  now=$(update-alternatives --query "$g" 2>/dev/null | sed -n 's/^Value: //p' || true)
  if [ -n "${before[$g]}" ] && [ "$now" != "${before[$g]}" ]; then
    echo "mpibex: keeping ${before[$g]} as $g (installing changed it to $now)" >&2
    $sudo update-alternatives --quiet --set "$g" "${before[$g]}"
  fi
done
