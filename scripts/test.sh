#!/usr/bin/env bash
# Build and run the whole test suite. usage: scripts/test.sh [--quick | --sanitize | --fuzz]
# --quick runs the quick tier only (ctest -L quick: unit, TUI, docs and
# bad-input tests and a few 2-rank MPI smoke tests), the edit-test loop.
# --sanitize builds in build-asan with AddressSanitizer and UBSan and runs
# every test but the `heavy` tier (tests/heavy.cmake: 4-rank repeats and
# long b_eff and scale runs that reach no code the others miss).
# --fuzz builds the libFuzzer targets with clang in build-fuzz and runs each
# for a few seconds, two targets at a time (ctest -j 2 -L fuzz;
# docs/hardening.md), nothing else.
# The plain and the sanitized run end by listing their 30 longest tests.
# MBX_WERROR=ON in the environment (CI sets it): warnings fail the build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
if [ "${1:-}" = "--fuzz" ]; then
  dir=$root/build-fuzz
  cmake -S "$root" -B "$dir" -DCMAKE_C_COMPILER="${MBX_FUZZ_CC:-clang-14}" -DMBX_FUZZ=ON \
    -DMBX_WERROR="${MBX_WERROR:-OFF}" -DMBX_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$dir" --target mbx_fuzz -j "$(nproc)"
  cd "$dir"
  exec ctest --output-on-failure -j 2 -L fuzz
elif [ "${1:-}" = "--sanitize" ]; then
  dir=$root/build-asan
  "$root/scripts/build.sh" "$dir" -DMBX_SANITIZE=ON
else
  dir=$root/build
  "$root/scripts/build.sh" "$dir"
fi
cd "$dir"
# The 30 longest tests of the run just made (CTest's cost file, in
# seconds), so that a CI log says where a stage's time went. sed reads
# to the end: head would leave sort writing to a closed pipe, SIGPIPE,
# and under pipefail a run whose tests all passed would fail (seen in 3
# of 10 tries of this list).
longest() {
  echo "the 30 longest tests:"
  awk '/^---/ { exit } NF == 3 { printf "%8.1f s  %s\n", $3, $1 }' \
    Testing/Temporary/CTestCostData.txt | sort -rn | sed -n '1,30p'
}
if [ "${1:-}" = "--quick" ]; then
  exec ctest --output-on-failure -j 2 -L quick
elif [ "${1:-}" = "--sanitize" ]; then
  rc=0
  ctest --output-on-failure -j 2 -LE heavy || rc=$?
  longest
  exit $rc
fi
# -j 3 over two cores: the third slot only for tests that wait on a
# daemon's clock (MBX_SLEEPY_TESTS in tests/CMakeLists.txt).
rc=0
ctest --output-on-failure -j 3 --resource-spec-file "$root/tests/cores.json" || rc=$?
longest
exit $rc
