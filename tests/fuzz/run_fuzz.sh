#!/usr/bin/env bash
# Run one libFuzzer target: its regression inputs once each, then fuzzing
# from its seed corpus for SECONDS.
# usage: run_fuzz.sh [--fresh] BINARY NAME SECONDS WORKDIR [libFuzzer flags...]
# Seeds (corpus/NAME) and regression inputs (regress/NAME) beside this script
# are only read; new inputs go to WORKDIR/corpus (emptied first with
# --fresh, as in CTest, so nothing grows between runs) and a crashing input
# to WORKDIR/crash-*. Exit 0 when nothing crashed, leaked or hung.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fresh=0
if [ "${1:-}" = "--fresh" ]; then
  fresh=1
  shift
fi
[ $# -ge 4 ] || { echo "usage: $0 [--fresh] BINARY NAME SECONDS WORKDIR [flags...]" >&2; exit 2; }
bin=$1 name=$2 seconds=$3 work=$4
shift 4
seeds=$here/corpus/$name
regress=$here/regress/$name
[ -d "$seeds" ] || { echo "run_fuzz: no seed corpus $seeds" >&2; exit 2; }
[ "$fresh" = 1 ] && rm -rf "$work"
mkdir -p "$work/corpus"
flags=(-rss_limit_mb=2048 -timeout=20 "-artifact_prefix=$work/")
[ -f "$here/dict/$name.dict" ] && flags+=("-dict=$here/dict/$name.dict")
# A smaller quarantine than ASan's 256 MB: fresh pages for every freed block
# made the small-input targets 3x slower, for little gain in catching use
# after free.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:quarantine_size_mb=32}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Every crash found so far, as a file argument: libFuzzer runs each once.
shopt -s nullglob
found=("$regress"/*)
if [ ${#found[@]} -gt 0 ]; then
  echo "run_fuzz: $name: ${#found[@]} regression input(s)"
  "$bin" "${flags[@]}" "$@" "${found[@]}" 2>&1 | tail -n 40 >"$work/regress.log" || {
    cat "$work/regress.log"
    echo "run_fuzz: $name: a regression input fails again" >&2
    exit 1
  }
fi

echo "run_fuzz: $name: fuzzing for ${seconds}s from $seeds"
dirs=("$work/corpus" "$seeds")
[ -d "$regress" ] && dirs+=("$regress")
if ! "$bin" "${flags[@]}" -max_total_time="$seconds" -print_final_stats=1 "$@" "${dirs[@]}" \
  >"$work/fuzz.log" 2>&1; then
  tail -n 60 "$work/fuzz.log"
  echo "run_fuzz: $name: failed; the input is $(ls "$work"/crash-* "$work"/leak-* \
    "$work"/timeout-* "$work"/oom-* 2>/dev/null | head -n 1)" >&2
  exit 1
fi
grep -E '^#[0-9]+.*(DONE|INITED)|^Done|stat::number_of_executed_units|stat::peak_rss' \
  "$work/fuzz.log" || true
