#!/usr/bin/env bash
# Directories mpibex removes or creates in shared places (issue 15), one
# case per invocation:
#
#   i15_unlink.sh MPIEXEC NPFLAG MPIBEX OUTDIR CASE
#
#   beffio_stale  in --dir, entries named as stale b_eff_io run directories
#                 of this host (mpibex-beffio-HOST-PID, PID not running): a
#                 symbolic link to a victim's directory, a directory anybody
#                 may write in, one of another user (as root), one holding a
#                 file a run never makes; all are left in place with their
#                 files, the run says so in one warning line and succeeds; a
#                 real stale directory of ours is still removed
set -u
mpiexec=$1 npflag=$2 mpibex=$3 dir=$4 case=$5
. "$(dirname "$0")/../lib.sh"
test_case=$case
work=$dir/i15_unlink_$case
rm -rf "$work"
mkdir -p "$work"

case $case in
beffio_stale)
    data=$work/data
    mkdir -p "$data" "$work/victim"
    for f in t0 t1 t2.0 precious; do echo "victim $f" >"$work/victim/$f"; done
    host=$(hostname | tr '/-' '__')
    # PIDs are below pid_max: these name processes that cannot exist.
    max=$(cat /proc/sys/kernel/pid_max)
    st=$data/mpibex-beffio-$host
    ln -s "$work/victim" "$st-$max"
    mkdir -m 0777 "$st-$((max + 1))" && chmod 0777 "$st-$((max + 1))" && echo x >"$st-$((max + 1))/t0"
    mkdir -m 0700 "$st-$((max + 2))" && echo x >"$st-$((max + 2))/t0" && echo x >"$st-$((max + 2))/notes.txt"
    mkdir -m 0700 "$st-$((max + 3))" && echo x >"$st-$((max + 3))/t0" && echo x >"$st-$((max + 3))/t2.1"
    if [ "$(id -u)" = 0 ]; then
        mkdir -m 0700 "$st-$((max + 4))" && echo x >"$st-$((max + 4))/t0" && chown -R nobody "$st-$((max + 4))"
    fi
    "$mpiexec" "$npflag" 2 "$mpibex" beffio --time 0.2 --dir "$data" --mem-per-proc 8M \
        -o "$work/b.csv" >"$work/out" 2>"$work/err"
    code=$?
    [ "$code" -eq 0 ] && pass "the run succeeds" || { fail "exit $code"; cat "$work/err"; }
    for f in t0 t1 t2.0 precious; do
        [ "$(cat "$work/victim/$f" 2>/dev/null)" = "victim $f" ] && pass "victim's $f survives" ||
            fail "victim's $f was removed or changed"
    done
    [ -L "$st-$max" ] && pass "the planted link is left in place" || fail "the planted link is gone"
    [ -f "$st-$((max + 1))/t0" ] && pass "a directory anybody may write in is not cleaned" ||
        fail "the 0777 directory was cleaned"
    [ -f "$st-$((max + 2))/notes.txt" ] && pass "a file a run never makes stays" ||
        fail "notes.txt was removed"
    [ ! -e "$st-$((max + 3))" ] && pass "a stale run directory of ours is removed" ||
        fail "the stale run directory stayed: $(ls "$st-$((max + 3))")"
    if [ "$(id -u)" = 0 ]; then
        [ -f "$st-$((max + 4))/t0" ] && pass "another user's directory is not cleaned" ||
            fail "nobody's directory was cleaned"
    fi
    w=$(grep -c '^mpibex: warning: left the stale run directory' "$work/err")
    [ "$w" -eq 1 ] && pass "one warning line" || fail "$w warning lines: $(cat "$work/err")"
    grep -E "^mpibex: warning: left the stale run directory '$data/mpibex-beffio-$host-[0-9]+' in place: (it is a symbolic link|other users can write in it|it holds files mpibex did not create|it belongs to another user) \(and [0-9]+ more\)$" \
        "$work/err" >/dev/null && pass "the warning names the entry and why" ||
        fail "warning: $(grep warning "$work/err")"
    ;;
*)
    fail "unknown case $case"
    ;;
esac
mbx_finish
