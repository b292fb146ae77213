#!/usr/bin/env bash
# Directories mpibex removes or creates in shared places, one
# case per invocation:
#
#   unlink_dirs.sh MPIEXEC NPFLAG MPIBEX OUTDIR CASE
#
#   beffio_stale  in --dir, entries named as stale b_eff_io run directories
#                 of this host (mpibex-beffio-HOST-PID, PID not running): a
#                 symbolic link to a victim's directory, a directory anybody
#                 may write in, one of another user (as root), one holding a
#                 file a run never makes; all are left in place with their
#                 files, the run says so in one warning line and succeeds; a
#                 real stale directory of ours is still removed
#   report_force  report --force through a link at -o or at -o/data: exit 2,
#                 one line, the link's target untouched (no MPI)
#   repeat_force  repeat --force through a link at -o: the same (no MPI)
set -u
mpiexec=$1 npflag=$2 mpibex=$3 dir=$4 case=$5
. "$(dirname "$0")/../lib.sh"
test_case=$case
work=$dir/unlink_dirs_$case
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
report_force)
    # --force cleans the old report out of -o: not through a link planted
    # at -o itself, nor at its data/ (the victim's files match the names a
    # report writes).
    python3 "$(dirname "$0")/../cmd/report_fixtures.py" make "$work/in" >/dev/null || fail "fixtures"
    mkdir -p "$work/victim" "$work/out2/data"
    for f in index.html plots.gp old-latency.png keep.dat; do echo "victim $f" >"$work/victim/$f"; done
    ln -s "$work/victim" "$work/out"
    echo old >"$work/out2/index.html"
    rmdir "$work/out2/data" && ln -s "$work/victim" "$work/out2/data"
    for o in out out2; do
        "$mpibex" report "$work/in/a.csv" -o "$work/$o" --force -q >"$work/stdout" 2>"$work/err"
        code=$?
        where=$work/$o
        [ "$o" = out2 ] && where=$work/out2/data
        [ "$code" -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] &&
            grep -qF "mpibex report: -o: " "$work/err" && grep -qF "'$where'" "$work/err" &&
            grep -qF "symbolic link" "$work/err" &&
            pass "$o: a link at $where is refused with one line" ||
            fail "$o: exit $code, stderr: $(cat "$work/err")"
        for f in index.html plots.gp old-latency.png keep.dat; do
            [ "$(cat "$work/victim/$f" 2>/dev/null)" = "victim $f" ] || fail "$o: the victim's $f was removed or changed"
        done
    done
    [ "$(ls "$work/victim" | wc -l)" -eq 4 ] && pass "the victim's directory is as it was" ||
        fail "the victim's directory now holds: $(ls "$work/victim")"
    ;;
repeat_force)
    # --force removes earlier launches from -o, not through a planted link (the
    # claim of -o refuses the link itself; a link inside is the cleaner's to refuse).
    mkdir -p "$work/victim"
    for f in launch-01.csv merged.csv repeat.csv; do echo "victim $f" >"$work/victim/$f"; done
    ln -s "$work/victim" "$work/rep"
    "$mpibex" repeat -k 1 -n 2 --mpiexec /bin/false -o "$work/rep" --force -- --bench pingpong.send_recv \
        --sizes 8 --nmax 20 >"$work/stdout" 2>"$work/err"
    code=$?
    [ "$code" -eq 2 ] && grep -qF "mpibex repeat: -o: " "$work/err" &&
        grep -qF "'$work/rep'" "$work/err" && grep -qF "symbolic link" "$work/err" &&
        pass "a link at -o is refused" || fail "exit $code, stderr: $(cat "$work/err")"
    for f in launch-01.csv merged.csv repeat.csv; do
        [ "$(cat "$work/victim/$f" 2>/dev/null)" = "victim $f" ] && pass "the victim's $f survives" ||
            fail "the victim's $f was removed or changed"
    done
    ;;
*)
    fail "unknown case $case"
    ;;
esac
mbx_finish
