#!/usr/bin/env bash
# usage: rma_invalid.sh corrupt|cache_on DIR -- MPIEXEC... MPIBEX
# A point whose data check fails is an INVALID row that says why, and the
# run goes on: pingpong.send_recv, rma.put and rma.get at 1 and 64 bytes,
# no --validate (rma.* are always checked).
#  corrupt:  UCX's registration cache off and the check's test hook
#            (MBX_TEST_CORRUPT=1) on: every rma.* check fails, on any MPI;
#            exit 1, every rma.* row INVALID with its reason, the ping-pong
#            rows measured, one closing line naming rma.put and rma.get.
#  cache_on: as a user starts it, with UCX_RCACHE_ENABLE unset (the other
#            rma tests set it): where the MPI library is MPICH 4.0.x over
#            UCX 1.13 or later, the warning line naming the cause and the
#            fix comes before the first row and the 1-byte rma.* points are
#            INVALID (exit 1); elsewhere no warning and exit 0. Either way
#            every row is there and the ping-pong rows are measured.
set -u
mode=$1 dir=$2
shift 3
mpibex=${!#}
. "$(dirname "$0")/../lib.sh"
rm -rf "$dir" && mkdir -p "$dir"
out=$dir/x.csv err=$dir/err.txt
unset UCX_RCACHE_ENABLE MBX_TEST_CORRUPT
if [ "$mode" = corrupt ]; then
    export UCX_RCACHE_ENABLE=n MBX_TEST_CORRUPT=1
fi
echo "UCX variables: [$(env | grep ^UCX_ | tr '\n' ' ')]"
"$@" run --bench pingpong.send_recv,rma.put,rma.get --sizes 1,64 --stop fixed:16 --passes 2 --max-passes 2 --span 0 -q \
    -o "$out" >"$dir/out.txt" 2>"$err"
code=$?
echo "exit $code; stderr:"
cat "$err"

# rows: "BENCHMARK STATUS REASON|MEDIAN" per row (a quoted cell may hold commas).
rows() {
    python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(r["benchmark"], r["status"], r["status_reason"] + "|" + r["median_us"])' "$out"
}
rows
[ "$(rows | wc -l)" -eq 6 ] || fail "expected 6 rows (3 benchmarks x 2 sizes)"
[ "$(rows | grep -c '^pingpong.send_recv \(SETTLED\|FIXED\|UNSETTLED\|SHIFTED\) ')" -eq 2 ] ||
    fail "the ping-pong rows are not both measured"
rows | grep -v '^rma\.' | grep -q INVALID && fail "a row of another benchmark is INVALID"
ninv=$(rows | grep -c '^rma\.[a-z]* INVALID received data was wrong|$')
[ "$(rows | grep -c ' INVALID ')" -eq "$ninv" ] || fail "an INVALID row without its reason or with numbers"
[ ! -e "$dir/x.journal" ] || fail "the journal of a complete run is left"
warn=$(grep -c "^mpibex: warning: rma\.\* needs UCX_RCACHE_ENABLE=n in the job's environment here: MPICH .* over UCX .*registration cache" "$err")

# MPICH 4.0.x over UCX >= 1.13: what the warning is for (the C verdict has
# its unit test; this only picks the expectation; UCX's version from its
# pkg-config file or ucx_info, whichever is installed).
broken=0
if [ "$mode" = cache_on ] && [ "${MBX_TEST_MPI:-mpich}" = mpich ] && command -v mpichversion >/dev/null; then
    mv=$(mpichversion | awk '/MPICH Version:/ { print $3 }')
    uv=$(pkg-config --modversion ucx 2>/dev/null ||
        ucx_info -v 2>/dev/null | sed -n 's/.*version=\([0-9.]*\).*/\1/p' | head -1)
    case $mv in 4.0.*) [ "$(printf '%s\n1.13\n' "$uv" | sort -V | head -1)" = 1.13 ] && broken=1 ;; esac
    echo "MPICH $mv, UCX $uv: broken pairing $broken"
fi

if [ "$mode" = corrupt ]; then
    [ "$code" -eq 1 ] || fail "exit $code, expected 1"
    [ "$ninv" -eq 4 ] || fail "expected the 4 rma.* rows INVALID, got $ninv"
    [ "$warn" -eq 0 ] || fail "the library warning with the cache off"
elif [ "$broken" -eq 1 ]; then
    [ "$warn" -eq 1 ] || fail "no one warning line naming the cause and the fix"
    [ "$ninv" -ge 1 ] || fail "no INVALID rma.* row on the broken pairing"
    [ "$code" -eq 1 ] || fail "exit $code, expected 1"
else
    [ "$warn" -eq 0 ] || fail "a warning on a library that is not the broken pairing"
    [ "$code" -eq $((ninv > 0)) ] || fail "exit $code with $ninv INVALID rows"
fi
if [ "$ninv" -gt 0 ]; then
    # One line per failing benchmark at its first failure, one at the end.
    grep -q "^mpibex: received data was wrong (validation failed): $ninv INVALID rows\? of rma\.\(put\|get\) ([0-9]*).* in $out$" "$err" ||
        fail "no closing line naming the benchmarks and counting the rows"
    [ "$(grep -c 'received data was wrong (validation failed); the run goes on$' "$err")" -le 2 ] ||
        fail "more than one line per benchmark during the run"
    if [ "$mode" = corrupt ]; then
        grep -q ": 4 INVALID rows of rma.put (2), rma.get (2) in" "$err" ||
            fail "the closing line does not name rma.put and rma.get with 2 rows each"
    fi
else
    grep -q "validation failed" "$err" && fail "a validation line without INVALID rows"
fi
mbx_finish
