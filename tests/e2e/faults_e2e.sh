#!/usr/bin/env bash
# Faults under the live explorer, end to end: the real launcher, mpiexec -n 2
# and tmux (a private server), one case per invocation, each in the middle
# of a long run with autosave on:
#
#   faults_e2e.sh MPIBEX CSVCHECK WORKDIR CASE
#
#   sigterm_rank0   SIGTERM to rank 0: exit 143, "stopped by signal 15"
#   launcher_killed SIGKILL to the launcher: the job follows it down (its
#                   parent-death signal), rank 0 puts the terminal back
#   hangup          the terminal closes (tmux session killed): SIGHUP; the
#                   log says so (the terminal is gone)
#   rank1_killed    SIGKILL of rank 1: hydra ends the job, the launcher says
#                   so in one line with hydra's verdict
#
# Each asserts: no process of the job is left (all carry a unique
# MBX_FAULT_TAG), the terminal is sane (icanon and echo; not for hangup,
# whose terminal is gone), the autosaved CSV holds only complete rows that
# parse (csvcheck), and what ended the run is said on the terminal or in
# the log. The explorer keeps no journal: its record is the autosave (there
# is nothing for --resume to continue).
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
mpibex=$(readlink -f "$1") check=$(readlink -f "$2") work=$3 case=$4
test_case=$case
tag="e2e-fault-$case-$$-$RANDOM$RANDOM"
sock="mbx-faults-$$"
sess=f$$
work=$work/$case
rm -rf "$work"
mkdir -p "$work/auto"
T() { tmux -L "$sock" "$@"; }
screen() { T capture-pane -p -J -t "$sess" -S -100 2>/dev/null; } # -J: long lines whole
tagged() { mbx_tagged "MBX_FAULT_TAG=$tag"; }
cleanup() {
    for p in $(tagged); do kill -KILL "$p" 2>/dev/null; done
    T kill-server 2>/dev/null
}
trap cleanup EXIT
rank_pid() { mbx_tagged_rank "MBX_FAULT_TAG=$tag" "$1"; } # RANK
no_process_left() { mbx_tagged_gone "MBX_FAULT_TAG=$tag" 20; }
terminal_sane() {
    T send-keys -t "$sess" "stty -a | tr ' ;' '\n\n' | grep -xE -- '-?(icanon|echo)' | tr '\n' ' '; echo" Enter
    wait_for "^icanon echo" 10
}
autosave_ok() { # the autosaved CSV: complete rows only, they parse; sets rows
    local f
    f=$(ls "$work"/auto/*.csv 2>/dev/null | head -1)
    rows=-1
    [ -n "$f" ] || { fail "no autosave file"; return 1; }
    python3 - "$f" <<'EOF' || { fail "autosave: a half row"; return 1; }
import csv, sys
data = open(sys.argv[1], newline="").read()
assert data.endswith("\n"), "ends in half a row"
rows = list(csv.reader(data.splitlines(keepends=True)))
assert all(len(r) == len(rows[0]) for r in rows), "a row without the header's fields"
EOF
    rows=$(($(wc -l <"$f") - 1))
    "$check" "$f" >/dev/null && pass "autosave: $rows complete rows parse" || fail "autosave: csvcheck"
}

cat >"$work/long.ini" <<'INI'
[long]
bench = pingpong.send_recv, coll.bcast
sizes = 1:4MiB:sqrt2
stop = stderr:0.5%
nmax = 100000
INI
T new-session -d -s "$sess" -x 120 -y 36 \
    "env -i HOME=$work PATH=$PATH TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 bash --norc --noprofile"
T send-keys -t "$sess" "cd $work && PS1='PROMPT> '" Enter
wait_for "PROMPT>" 10 || fail "shell prompt"
T send-keys -t "$sess" "MBX_FAULT_TAG=$tag $mpibex -n 2 --log $work/job.log --autosave $work/auto --start --plan $work/long.ini; echo EXIT=\$? | tee $work/exit" Enter
if wait_for " ([3-9]|[1-9][0-9]+) passes, round" 60; then pass "a long run under way"; else
    fail "the run did not get going"
    screen | tail -5
fi
launcher=$(T display-message -p -t "$sess" '#{pane_pid}' | xargs pgrep -P | head -1)
r0=$(rank_pid 0) r1=$(rank_pid 1)
[ -n "$launcher" ] && [ -n "$r0" ] && [ -n "$r1" ] || fail "launcher ($launcher), rank 0 ($r0), rank 1 ($r1)"

case $case in
sigterm_rank0)
    kill -TERM "$r0"
    wait_for "^EXIT=143$" 30 && pass "exit 143" || { fail "exit"; screen | tail -5; }
    re="^mpibex: stopped by signal 15: ([0-9]+) points measured; autosaved in $work/auto/explorer-.*\.csv$"
    wait_for "$re" 2 && pass "the terminal says: $(screen | grep -E "$re")" || fail "no 'stopped by signal 15' line"
    said=$(screen | grep -E "$re" | sed -E "s#$re#\\1#" | tail -1)
    terminal_sane && pass "terminal sane (icanon echo)" || fail "terminal modes"
    ;;
launcher_killed)
    kill -KILL "$launcher"
    # The shell may print its EXIT line while rank 0 still holds the
    # alternate screen, which then hides it: read the status from the file.
    for ((i = 0; i < 300; i++)); do
        [ -s "$work/exit" ] && break
        sleep 0.1
    done
    [ "$(cat "$work/exit" 2>/dev/null)" = EXIT=137 ] && pass "the shell saw the launcher killed (137)" ||
        fail "exit: $(cat "$work/exit" 2>/dev/null)"
    no_process_left && pass "the job followed the launcher down" || fail "processes left"
    re="^mpibex: stopped by signal 15: ([0-9]+) points measured; autosaved in $work/auto/explorer-.*\.csv$"
    # The shell has the terminal back at once: its prompt may come between
    # rank 0 leaving the alternate screen and this line, which must still
    # start the line (it clears the prompt).
    wait_for "$re" 5 && pass "rank 0 says on the terminal: $(screen | grep -E "$re")" ||
        { fail "no closing line from rank 0"; screen | grep -v '^$' | tail -3; }
    said=$(screen | grep -E "$re" | sed -E "s#$re#\\1#" | tail -1)
    terminal_sane && pass "terminal sane (icanon echo)" || fail "terminal modes"
    ;;
hangup)
    T kill-session -t "$sess"
    no_process_left && pass "terminal closed: no process left" || fail "processes left"
    # The hang-up reaches mpiexec too (it shares the launcher's process
    # group, so that Ctrl-C reaches it) and may end it before the launcher
    # looks: rank 0's own closing line may not make it through hydra; the
    # launcher's exit code 129 (128 + SIGHUP) does.
    grep -Eq "^mpibex: job ended, exit code 129$" "$work/job.log" &&
        pass "the log says: $(grep -E '^mpibex: (launcher got|job ended)' "$work/job.log" | tr '\n' ' ')" ||
        { fail "no word of the hang-up in the log"; tail -5 "$work/job.log"; }
    said=""
    ;;
rank1_killed)
    kill -KILL "$r1"
    wait_for "^EXIT=[1-9][0-9]*$" 30 && pass "launcher exit $(screen | grep -o '^EXIT=[0-9]*' | tail -1)" ||
        { fail "exit"; screen | tail -5; }
    # Usually hydra kills rank 0 (Killed, signal 9); when rank 0 was in a
    # large transfer with rank 1, UCX in rank 0 may abort first (signal 6).
    wait_for '^mpibex: the job ended before rank 0 could report \(the MPI launcher.s exit code [0-9]+: "[A-Za-z]+ \(signal [0-9]+\)"\): a rank crashed or was killed; the log has every rank.s output$' 2 &&
        pass "one line says what happened" || { fail "no line on the crash"; screen | tail -6; }
    wait_for "^mpibex: log: $work/job.log$" 2 && pass "and where the log is" || fail "log path"
    said=""
    terminal_sane && pass "terminal sane (icanon echo)" || fail "terminal modes"
    ;;
*)
    echo "unknown case $case" >&2
    exit 2
    ;;
esac
no_process_left && pass "no process left" || fail "processes left"
autosave_ok
if [ -n "$said" ]; then
    [ "$said" = "$rows" ] && pass "the closing line's count ($said) is the rows autosaved" ||
        fail "the closing line says $said points, the autosave has $rows rows"
fi
mbx_finish
