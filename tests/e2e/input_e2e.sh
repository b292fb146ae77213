#!/usr/bin/env bash
# Input through a real terminal, in tmux: mouse events as the
# terminal reports them (SGR escape sequences written into the pane with
# send-keys -H, press then release) reach the explorer and act; the
# explorer asks the terminal for mouse reports while it runs and stops
# asking when it ends; and on a terminal without an alternate screen
# (TERM=linux) it leaves no text behind.
#
#   input_e2e.sh MPIBEX WORKDIR CASE
#
# CASE is one of
#   fake      explore --fake 4: a click on a tab switches screens, the
#             wheel scrolls the picker, a click picks a benchmark, a click
#             on the footer's "q quit" quits; tmux's mouse flags on while
#             it runs, off after, and never on with --no-mouse
#   launcher  mpibex -n 2 through the real launcher and mpiexec (the tty
#             bridge), then --bridge socket: a click on a tab switches
#   inspector mpibex -n 2 (real mpiexec) runs a short plan; a click on a
#             marker opens the point inspector there, Right moves it
#   linux     TERM=linux (no smcup): after q no line of the explorer is
#             left on the screen, and the shell's prompt is at the top
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
mpibex=$(readlink -f "$1") work=$2 case=$3
sess=mbxin$$
rm -rf "$work"
mkdir -p "$work"
screen() { tmux capture-pane -p -t "$sess" 2>/dev/null; }
cleanup() { tmux kill-session -t "$sess" 2>/dev/null; }
trap cleanup EXIT
test_case=$case

# hex STRING: its bytes as send-keys -H wants them.
hex() { printf '%s' "$1" | od -An -tx1 | tr -s ' \n' '  '; }
# click COL ROW (from 1, as the terminal counts): press and release of
# button 1; wheel COL ROW up|down: one notch.
click() { tmux send-keys -t "$sess" -H $(hex $'\e[<0;'"$1;$2"'M') $(hex $'\e[<0;'"$1;$2"'m'); }
wheel() { tmux send-keys -t "$sess" -H $(hex $'\e[<'"$([ "$3" = up ] && echo 64 || echo 65);$1;$2"'M'); }
# col_of TEXT: the column (from 1) where TEXT starts on the first row.
col_of() {
    local LC_ALL=C.UTF-8 line pre
    line=$(screen | head -n 1)
    pre=${line%%"$1"*}
    [ "$pre" != "$line" ] && echo $((${#pre} + 1))
}
# marker_at: on standard input (a screen), "COL ROW" of the first 'o'
# within 60 cells right of the plot's axis '│' on rows 3..29, counted in
# characters (every cell here holds one), from 1.
marker_at() {
    local LC_ALL=C.UTF-8 n=0 line pre rest
    while IFS= read -r line; do
        n=$((n + 1))
        ((n > 2 && n < 30)) || continue
        [[ $line == *│* ]] || continue
        pre=${line%%│*}
        rest=${line#*│}
        rest=${rest:0:60}
        [[ $rest == *o* ]] || continue
        rest=${rest%%o*}
        echo "$((${#pre} + 1 + ${#rest} + 1)) $n"
        return
    done
}
# The pane's mouse modes as tmux tracks them: "1 1" while the program
# asks for button reports in the SGR form.
mouse_flags() { tmux display-message -p -t "$sess" '#{mouse_standard_flag} #{mouse_sgr_flag}'; }

start_shell() { # COLS ROWS TERM
    tmux new-session -d -s "$sess" -x "$1" -y "$2" \
        "env -i $(mbx_mpi_env)HOME=$work PATH=$PATH TERM=$3 LANG=C.UTF-8 LC_ALL=C.UTF-8 PS1='P> ' bash --norc --noprofile"
    wait_for '^P>' 10 || die "shell prompt"
}

case $case in
fake)
    start_shell 120 36 xterm-256color
    tmux send-keys -t "$sess" "$mpibex explore --fake 4 --autosave none; echo EXIT=\$?" Enter
    wait_for '\[1 Picker\]' 10 || die "explorer did not start"
    [ "$(mouse_flags)" = "1 1" ] && pass "mouse reports asked for (SGR)" || fail "mouse flags: $(mouse_flags)"
    col=$(col_of "4 Results")
    click "$col" 1
    wait_for '\[4 Results\]' 5 && pass "click on the tab 4 Results" || fail "tab click"
    click "$(col_of "1 Picker")" 1
    wait_for '\[1 Picker\]' 5 || fail "tab click back"
    wait_for 'rows 1-31 of' 5 || fail "picker at its top"
    wheel 40 12 down
    wheel 40 12 down
    wait_for 'rows 7-37 of' 5 && pass "two notches of the wheel scroll the picker by 6 rows" ||
        { fail "wheel"; screen | sed -n 2,4p; }
    wheel 40 12 up
    wait_for 'rows 4-34 of' 5 && pass "a notch back up" || fail "wheel up"
    before=$(screen | sed -n 's/.*Benchmarks: \([0-9]*\) selected.*/\1/p')
    row=$(screen | grep -n 'pingpong.sendrecv ' | head -n 1 | cut -d: -f1)
    click 10 "$row"
    wait_for "Benchmarks: $((before + 1)) selected" 5 && pass "a click picks pingpong.sendrecv" ||
        fail "benchmark click (row $row, $before selected before)"
    click 2 36 # the footer's "q quit"
    wait_for '^EXIT=0' 10 && pass "a click on the footer's q quits" || { fail "footer click"; screen | tail -3; }
    [ "$(mouse_flags)" = "0 0" ] && pass "mouse reports off after the explorer" ||
        fail "mouse flags after: $(mouse_flags)"
    tmux send-keys -t "$sess" "clear; $mpibex explore --fake 4 --autosave none --no-mouse; echo EXIT=\$?" Enter
    wait_for '\[1 Picker\]' 10 || die "explorer --no-mouse did not start"
    [ "$(mouse_flags)" = "0 0" ] && pass "--no-mouse: no mouse reports asked for" ||
        fail "--no-mouse: mouse flags $(mouse_flags)"
    tmux send-keys -t "$sess" q
    wait_for '^EXIT=0' 10 || fail "--no-mouse: quit"
    ;;
launcher)
    start_shell 120 36 xterm-256color
    for bridge in tty socket; do
        extra=""
        [ $bridge = socket ] && extra="--bridge socket"
        tmux send-keys -t "$sess" "clear; $mpibex -n 2 $extra --autosave none; echo EXIT=\$?" Enter
        wait_for '\[1 Picker\]' 60 || die "$bridge: the explorer did not start"
        wait_for '2 ranks on 1 host' 10 || fail "$bridge: title"
        click "$(col_of "2 Parameters")" 1
        wait_for '\[2 Parameters\]' 10 && pass "$bridge bridge: a click on the tab 2 Parameters" ||
            fail "$bridge bridge: tab click"
        tmux send-keys -t "$sess" q
        wait_for '^EXIT=0' 30 && pass "$bridge bridge: quit" || fail "$bridge bridge: quit"
    done
    ;;
inspector)
    # A short real run (mpiexec -n 2, the tty bridge), then a click on a
    # drawn marker of send_recv's curve opens the point inspector there.
    printf '[pp]\nbench = pingpong.send_recv\nsizes = 1:4KiB:4\nstop = stderr:5%%\nnmax = 2000\n' \
        >"$work/pp.ini"
    start_shell 120 36 xterm-256color
    tmux send-keys -t "$sess" "clear; $mpibex -n 2 --plan $work/pp.ini --start --autosave none; echo EXIT=\$?" Enter
    wait_for '\[3 Run\]' 60 || die "the explorer did not start the plan"
    wait_for 'done: [0-9]+ points' 120 || { screen | tail -5; die "the run did not finish"; }
    # The first 'o' (send_recv's marker) right of the plot's axis, left of
    # the side column: column and row from 1, as the terminal counts, in
    # characters (Debian's awk, mawk, counts bytes: the braille dots before
    # a marker are 3 each, and a click 6 cells right of it missed).
    at=$(screen | marker_at)
    [ -n "$at" ] || { screen; die "no send_recv marker on the plot"; }
    click ${at% *} ${at#* }
    if wait_for 'inspector \(arrows move' 10 && screen | grep -q 'pingpong.send_recv [0-9]'; then
        pass "a click on a marker at (${at% *}, ${at#* }) opens the inspector on send_recv's point"
        screen | grep -E 'median at|pingpong.send_recv [0-9]|^ +median ' | sed 's/^ */FIGURE: /'
    else
        fail "click on the marker at (${at% *}, ${at#* })"
        screen
    fi
    before=$(screen | grep -o 'pingpong.send_recv [0-9][^ ]* P2')
    tmux send-keys -t "$sess" Right
    sleep 0.5
    after=$(screen | grep -o 'pingpong.send_recv [0-9][^ ]* P2')
    [ -n "$after" ] && [ "$after" != "$before" ] && pass "Right moves the cursor: $before -> $after" ||
        fail "Right: '$before' -> '$after'"
    tmux send-keys -t "$sess" Escape
    sleep 0.5
    screen | grep -q 'inspector (arrows move' && fail "Esc left the inspector open" || pass "Esc closes it"
    tmux send-keys -t "$sess" q
    wait_for 'Quit anyway' 10 && tmux send-keys -t "$sess" y
    wait_for '^EXIT=0' 30 && pass "quit" || { fail "quit"; screen | tail -3; }
    ;;
linux)
    start_shell 100 30 xterm-256color
    # TERM=linux for the explorer alone: tmux draws what the console would.
    tmux send-keys -t "$sess" "clear; TERM=linux $mpibex explore --fake 4 --autosave none; echo EXIT=\$?" Enter
    wait_for '\[1 Pick\]' 10 || die "explorer did not start under TERM=linux"
    wait_for 'q quit' 5 || fail "footer drawn"
    tmux send-keys -t "$sess" q
    wait_for '^EXIT=0' 10 || die "quit"
    # Nothing but the exit line and the prompt (and the closing line, if any).
    left=$(screen | grep -vE '^(EXIT=0|P> ?|mpibex: .*)$' | grep -c .)
    [ "$left" -eq 0 ] && pass "no line of the explorer left on the screen" ||
        { fail "$left lines of the explorer left"; screen | grep -vE '^(EXIT=0|P> ?)$' | grep .; }
    first=$(screen | grep -n . | head -n 1)
    [ "$first" = "1:EXIT=0" ] && pass "the shell goes on at the top of the cleared screen" ||
        fail "first line: '$first'"
    ;;
*) die "unknown case $case" ;;
esac
mbx_finish
