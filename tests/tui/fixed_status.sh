#!/usr/bin/env bash
# --stop fixed:N (OSU's -i) has no precision target: its points are FIXED,
# not SETTLED or UNSETTLED "[max-passes 5]", in the batch run and in the
# explorer (on the fake back end, no MPI):
#
#   fixed_status.sh MPIBEX OUTDIR
#
# batch: every row FIXED with an empty status_reason, the table's rows say
# FIXED, the done line counts "2 fixed"; the explorer (headless, one fake
# rank, so no monitor): the side list marks each point "fixed", the closing
# message counts "2 FIXED", and the autosaved rows are FIXED.
set -u
mpibex=$1 dir=$2
. "$(dirname "$0")/../lib.sh"
work=$dir/fixed_status
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
# status FILE: "bytes status reason;" per row
status() {
    python3 -c 'import csv, sys
print("".join("%s %s %s;" % (r["bytes"], r["status"], r["status_reason"]) for r in csv.DictReader(open(sys.argv[1], newline=""))))' "$1"
}

"$mpibex" run --fake 2 --bench pingpong.send_recv --sizes 8,64 --stop fixed:100 --monitor off \
    -o b.csv >out 2>err || die "batch run: exit $? ($(head -c 300 err))"
s=$(status b.csv)
[ "$s" = "8 FIXED ;64 FIXED ;" ] && pass "batch: both rows FIXED, no reason" || fail "batch rows: $s"
[ "$(grep -cE '^pingpong\.send_recv .* FIXED  [0-9]+ passes over' out)" = 2 ] && pass "batch: the table says FIXED" ||
    fail "batch table: $(grep '^pingpong' out)"
grep -q '^done: 2 points measured (0 refined; 0 settled, 0 unsettled, 0 unreliable, 2 fixed)' err &&
    pass "batch: the done line counts 2 fixed" || fail "batch done line: $(grep '^done' err)"

printf '[f]\nbench = coll.bcast\nsizes = 8,64\nstop = fixed:100\n' >f.ini
printf '%s\n' 'r tick:5000 dump:done' >keys
LC_ALL=C.UTF-8 "$mpibex" explore --fake 1 --plan f.ini --headless 160x50 --term xterm-mono \
    --keys keys --dump-dir . --autosave as >xout 2>xerr || die "explorer: exit $? ($(head -c 300 xerr))"
[ "$(grep -cE 'o bcast +(8|64) .* fixed *$' done.txt)" = 2 ] && pass "explorer: the side list marks both fixed" ||
    fail "explorer side list: $(grep 'bcast' done.txt | head -3)"
grep -q 'done: 2 points: 0 settled, 2 FIXED;' done.txt && pass "explorer: the closing message counts 2 FIXED" ||
    fail "explorer message: $(grep 'done:' done.txt)"
s=$(status "$(ls as/explorer-*.csv | head -1)")
[ "$s" = "8 FIXED ;64 FIXED ;" ] && pass "explorer: autosaved rows FIXED" || fail "explorer rows: $s"
mbx_finish
