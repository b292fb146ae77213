#!/usr/bin/env bash
# Faults in the middle of a batch run (`mpiexec -n 2 mpibex run ... -o OUT`),
# one case per invocation:
#
#   faults.sh MPIEXEC NPFLAG MPIBEX CSVCHECK OUTDIR CASE
#
#   sigint_rank0    SIGINT to rank 0 (not to mpiexec): exit 130
#   sigterm_rank0   SIGTERM to rank 0: exit 143
#   sigterm_mpiexec SIGTERM to mpiexec (hydra passes it on): exit 143 (or 0:
#                   hydra sometimes reports 0 after forwarding a signal);
#                   Open MPI's mpirun passes it on about 2 s later, exit 1
#   sigterm_hung    rank 1 stopped (SIGSTOP) so rank 0 hangs inside MPI; one
#                   SIGTERM cannot end it (only noted), a second one does
#   sigkill_rank1   SIGKILL of a non-root rank: hydra (or mpirun) tears the
#                   job down and says which rank died of what
#   enospc_obs      a full disk (a 64 KiB tmpfs) under --raw's observations
#   enospc_csv      a full disk (a 24 KiB tmpfs: five 4 KiB pages for the
#                   files made at the start, one to fill) under the results rows
#   dir_gone        the output directory removed mid-run
#   enospc_start    a disk full before the run starts (a full 4 KiB tmpfs):
#                   exit 1, one line naming the file, no CSV or journal
#
# Every case asserts: no process of the test is left (all carry a unique
# MBX_FAULT_TAG in their environment), the message says what happened, the
# CSV holds only complete rows (it ends in a newline, every row has the
# header's columns, csvcheck passes, observations match the rows' n), the
# rows are as many as the message says were kept, and --resume completes
# the run (every point once, the journal gone). The tmpfs cases print SKIP
# and exit 77 when mount is not permitted.
set -u
mpiexec=$1 npflag=$2 mpibex=$3 csvcheck=$4 dir=$5 case=$6
. "$(dirname "$0")/../lib.sh"
test_case=$case
# The tests' environment silences Open MPI's banners (for the bad-input
# tests, which read mpibex's one line); here mpirun's banner is the word on
# a dead rank, as hydra's EXIT STRING is.
[ "${MBX_TEST_MPI:-}" = openmpi ] && export OMPI_MCA_orte_execute_quiet=0
tag="fault-$case-$$-$RANDOM$RANDOM"
work=$dir/fault_$case
mnt=""
cleanup() {
    local p
    for p in $(tagged); do kill -KILL "$p" 2>/dev/null; done
    [ -n "$mnt" ] && umount "$mnt" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 143' TERM # a ctest timeout: still unmount and kill what is ours
trap 'exit 130' INT

# Processes carrying this test's tag (mpiexec, hydra_pmi_proxy or orted, ranks).
tagged() { mbx_tagged "MBX_FAULT_TAG=$tag"; }
rank_pid() { mbx_tagged_rank "MBX_FAULT_TAG=$tag" "$1"; } # RANK
no_process_left() { mbx_tagged_gone "MBX_FAULT_TAG=$tag"; }
rows_of() { # CSV: complete data rows (wc counts newlines: a torn row is not one)
    local n
    n=$({ wc -l <"$1"; } 2>/dev/null) || n=1
    echo $((n > 0 ? n - 1 : 0))
}
# Only complete rows: ends in a newline, every row has the header's fields.
complete_rows() { # CSV
    python3 - "$1" <<'EOF'
import csv, sys
data = open(sys.argv[1], newline="").read()
assert data.endswith("\n"), "the file ends in half a row: %r" % data[-40:]
rows = list(csv.reader(data.splitlines(keepends=True)))
bad = [i for i, r in enumerate(rows) if len(r) != len(rows[0])]
assert not bad, "rows %s do not have the header's %d fields" % (bad[:5], len(rows[0]))
EOF
}

umount "$work/out" 2>/dev/null # left by a run that was killed outright
rm -rf "$work"
mkdir -p "$work/out" "$work/tmp"
out=$work/out/r.csv
# Open MPI's mpirun passes a SIGTERM on only about 2 s later; at 100
# observations a point, the run would be over by then.
stop=fixed:100
[ "$case" = sigterm_mpiexec ] && stop=fixed:1000
args=(run --bench pingpong.send_recv,coll.bcast --sizes 1:4MiB:sqrt2 --stop $stop -q)
total=88 # 44 sizes of each (1 B .. 4 MiB by sqrt 2; 1.41 B rounds to 1 B)
raw=""
case $case in
    enospc_obs | enospc_csv | enospc_start)
        mnt=$work/out
        size=64k
        [ "$case" = enospc_csv ] && size=24k
        [ "$case" = enospc_start ] && size=4k
        if ! mount -t tmpfs -o "size=$size,mode=0755" tmpfs "$mnt" 2>"$work/mount.err"; then
            mnt=""
            echo "SKIP: cannot mount a tmpfs for the full disk ($(cat "$work/mount.err")); needs root"
            exit 77
        fi
        [ "$case" = enospc_obs ] && raw=--raw
        ;;
    dir_gone | sigkill_rank1) raw=--raw ;;
esac
[ -n "$raw" ] && args+=("$raw")
args+=(-o "$out")
out_re=$(sed 's/[.[\*^$()+?{|]/\\&/g' <<<"${out%.csv}")

if [ "$case" = enospc_start ]; then
    dd if=/dev/zero of="$mnt/fill" bs=1k count=4 2>/dev/null
    MBX_FAULT_TAG=$tag "$mpiexec" "$npflag" 2 "$mpibex" "${args[@]}" >"$work/run1.out" 2>"$work/run1.err"
    code=$?
    msg=$(grep '^mpibex: ' "$work/run1.err" | grep -v 'warning:')
    echo "  exit $code; stderr: $msg"
    [ "$code" -eq 1 ] && pass "exit 1" || fail "exit $code, expected 1"
    re="^mpibex: -o: cannot write '$out_re\.env\.csv': No space left on device$"
    [ "$(printf '%s\n' "$msg" | grep -c .)" -eq 1 ] && printf '%s\n' "$msg" | grep -Eq -- "$re" &&
        pass "one line names the file and the error" || fail "message: expected one line matching $re"
    [ ! -e "$out" ] && [ ! -e "${out%.csv}.journal" ] && pass "no CSV, no journal" || fail "files left: $(ls "$mnt")"
    no_process_left && pass "no process left" || fail "processes left"
    mbx_finish
    exit
fi

# Start the run; wait (bounded) until it has finished a few points.
# Only the job carries the tag (not this script, nor the grep that looks).
MBX_FAULT_TAG=$tag TMPDIR=$work/tmp "$mpiexec" "$npflag" 2 "$mpibex" "${args[@]}" >"$work/run1.out" 2>"$work/run1.err" &
launcher=$!
wait_rows() { # N SECONDS
    local i
    for ((i = 0; i < $2 * 20; i++)); do
        [ "$(rows_of "$out")" -ge "$1" ] && return 0
        kill -0 "$launcher" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}
r0="" r1=""
for ((i = 0; i < 300 && (${#r0} == 0 || ${#r1} == 0); i++)); do
    r0=$(rank_pid 0) r1=$(rank_pid 1)
    [ -n "$r0" ] && [ -n "$r1" ] || sleep 0.1
done
[ -n "$r0" ] && [ -n "$r1" ] || die "ranks 0 and 1 not found"
case $case in
    enospc_obs | enospc_csv) ;; # the disk fills up by itself
    *) wait_rows 4 60 || die "the run did not get going: $(cat "$work/run1.err")" ;;
esac
before=$(rows_of "$out")
case $case in
    sigint_rank0) kill -INT "$r0" ;;
    sigterm_rank0) kill -TERM "$r0" ;;
    sigterm_mpiexec) kill -TERM "$launcher" ;;
    sigkill_rank1) kill -KILL "$r1" ;;
    sigterm_hung)
        kill -STOP "$r1"
        sleep 0.5 # rank 0 is now waiting inside MPI for rank 1
        kill -TERM "$r0"
        sleep 2
        kill -0 "$r0" 2>/dev/null && pass "one SIGTERM does not end a point hung inside MPI" ||
            fail "rank 0 ended on the first SIGTERM while hung"
        kill -TERM "$r0"
        ;;
    dir_gone) rm -rf "$work/out" ;;
esac
wait "$launcher"
code=$?
grep -v '^progress:' "$work/run1.err" | sed 's/^/  stderr: /'
echo "  exit $code; $before rows when the fault came"
check_exit() { [ "$code" -eq "$1" ] && pass "exit $1" || fail "exit $code, expected $1"; }
no_process_left && pass "no process left" || fail "processes left after the fault"

msg=$(grep '^mpibex: ' "$work/run1.err" | grep -v 'warning:')
kept="" resume_out=$out
case $case in
    sigint_rank0 | sigterm_rank0 | sigterm_mpiexec)
        sig=2
        [ "$case" != sigint_rank0 ] && sig=15
        if [ "$case" = sigterm_mpiexec ] && [ "${MBX_TEST_MPI:-}" = openmpi ]; then
            check_exit 1 # mpirun's own code after it ended a job on a signal
        elif [ "$case" = sigterm_mpiexec ] && [ "$code" -eq 0 ]; then
            # MPICH 4.0.2's hydra sometimes reports 0 after it forwarded a
            # signal (mpi.interrupt.n2 sees it with SIGINT); rank 0's line
            # below still says what happened.
            pass "exit 0 from hydra after forwarding SIGTERM (its known quirk)"
        else
            check_exit $((128 + sig))
        fi
        re="^mpibex: stopped by signal $sig: ([0-9]+) points finished and are in $out(; [0-9]+ passes of [0-9]+ unfinished points are in its journal)?; continue with --resume$"
        ;;
    sigterm_hung | sigkill_rank1)
        [ "$code" -ne 0 ] && pass "exit non-zero ($code)" || fail "exit 0 after a rank died"
        # Rank 0 is killed too; what happened is the launcher's to say.
        # (Killed or Terminated; Aborted when UCX in rank 0 notices the
        # dead peer in the middle of a transfer first)
        if [ "${MBX_TEST_MPI:-}" = openmpi ]; then
            word=$(grep -ho 'noticed that process rank [0-9]* .* exited on signal [0-9]* ([A-Za-z ]*)' \
                "$work/run1.out" "$work/run1.err" | head -1)
        else
            word=$(grep -o "EXIT STRING: [A-Za-z]* (signal [0-9]*)" "$work/run1.out" | head -1)
        fi
        [ -n "$word" ] && pass "the launcher says why: $word" ||
            fail "no word from the launcher on why the job ended"
        re=""
        ;;
    enospc_obs | enospc_csv)
        check_exit 1
        re="^mpibex: writing '$work/out/r\.(csv|obs\.csv|journal)' failed: No space left on device; ([0-9]+) finished points are in $out \(complete rows only\); free space or fix the file, then continue with --resume$"
        ;;
    dir_gone)
        check_exit 1
        re="^mpibex: '$work/out/r\.(csv|obs\.csv|journal)' was removed or renamed while the run wrote it \(No such file or directory\); its ([0-9]+) finished points are saved in ($work/tmp/mpibex-rescue-[A-Za-z0-9]+/r\.csv); continue with --resume -o \3$"
        ;;
esac
if [ -n "$re" ]; then
    if [ "$(printf '%s\n' "$msg" | grep -c .)" -eq 1 ] && printf '%s\n' "$msg" | grep -Eq -- "$re"; then
        pass "one line says what happened"
        kept=$(printf '%s\n' "$msg" | sed -E "s#$re#\\2#")
        [ "${case#sig}" != "$case" ] && kept=$(printf '%s\n' "$msg" | sed -E "s#$re#\\1#")
        [ "$case" = dir_gone ] && resume_out=$(printf '%s\n' "$msg" | sed -E "s#$re#\\3#")
    else
        fail "message: expected one line matching $re"
    fi
fi

# What is on disk: complete rows only, as many as the message says.
[ -f "$resume_out" ] || die "no results file at $resume_out"
complete_rows "$resume_out" && pass "the CSV holds only complete rows" || fail "the CSV has a half row"
rows=$(rows_of "$resume_out")
obs=()
[ -n "$raw" ] && obs=(--obs "${resume_out%.csv}.obs.csv")
if [ "$case" = sigkill_rank1 ] || [ "$case" = sigterm_hung ]; then
    # A kill mid-write may tear the last row: --resume cuts it off; the
    # complete ones must parse.
    python3 -c '
import sys
p = sys.argv[1]; d = open(p, "rb").read()
open(p + ".complete", "wb").write(d[: d.rfind(b"\n") + 1])' "$resume_out"
    "$csvcheck" "$resume_out.complete" >/dev/null && pass "its $rows complete rows parse (csvcheck)" ||
        fail "csvcheck rejects the complete rows"
    rm -f "$resume_out.complete"
else
    "$csvcheck" "$resume_out" "${obs[@]}" >/dev/null && pass "$rows rows parse (csvcheck${raw:+, observations match})" ||
        { "$csvcheck" "$resume_out" "${obs[@]}"; fail "csvcheck rejects the CSV"; }
fi
[ "$rows" -ge "$before" ] && pass "no finished row lost ($before before the fault, $rows now)" ||
    fail "rows lost: $before before the fault, $rows now"
if [ -n "$kept" ]; then
    [ "$rows" -eq "$kept" ] && pass "the message's count ($kept) is the rows kept" ||
        fail "the message says $kept points, the CSV has $rows rows"
fi
[ "$rows" -lt "$total" ] || fail "the fault came too late: all $total points were done"

# Then --resume completes the run.
[ -n "$mnt" ] && { mount -o remount,size=16m "$mnt" && pass "space freed (tmpfs grown to 16 MiB)"; }
resume_args=("${args[@]}")
resume_args[${#resume_args[@]} - 1]=$resume_out
MBX_FAULT_TAG=$tag TMPDIR=$work/tmp "$mpiexec" "$npflag" 2 "$mpibex" "${resume_args[@]}" --resume >"$work/run2.out" 2>"$work/run2.err"
rcode=$?
[ "$rcode" -eq 0 ] && pass "--resume completes (exit 0)" ||
    { sed 's/^/  stderr: /' "$work/run2.err"; fail "--resume exit $rcode"; }
grep -q "^# resumed: $rows finished points kept" "$work/run2.out" && pass "--resume kept the $rows rows" ||
    fail "no '# resumed: $rows finished points kept' line"
"$csvcheck" "$resume_out" --rows "$total" "${obs[@]}" >/dev/null &&
    pass "the resumed CSV parses with all $total points${raw:+, observations match}" ||
    { "$csvcheck" "$resume_out" --rows "$total" "${obs[@]}"; fail "the resumed CSV"; }
python3 - "$resume_out" <<'EOF' && pass "every point once" || fail "duplicated points"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
keys = [(r["benchmark"], r["procs"], r["bytes"]) for r in rows]
sys.exit(0 if len(keys) == len(set(keys)) else 1)
EOF
[ ! -e "${resume_out%.csv}.journal" ] && pass "the finished run removed its journal" || fail "journal left"
no_process_left && pass "no process left after --resume" || fail "processes left after --resume"
mbx_finish
