#!/usr/bin/env bash
# The explorer's autosave (headless, fake back end of 2 ranks, one run of
# the quick plan): a directory a/b/c that does not exist is made with every
# parent (0700) and holds the CSV; an autosave that cannot be made says so
# in the closing line, with the number of points not saved (headless, and on
# a terminal in tmux).
# usage: autosave_dir.sh MPIBEX WORKDIR
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
mpibex=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
printf 'r tick:400\n' >"$work/run.keys"
explore() { # explore AUTOSAVE: stderr in $work/err
    LC_ALL=C.UTF-8 "$mpibex" explore --fake 2 --headless 100x30 --keys "$work/run.keys" \
        --dump-dir "$work/dumps" --autosave "$1" >"$work/out" 2>"$work/err"
}

explore "$work/a/b/c"
csv=$(ls "$work"/a/b/c/explorer-*.csv 2>/dev/null | head -1)
if [ -n "$csv" ] && [ "$(wc -l <"$csv")" -gt 1 ]; then
    pass "a/b/c made with its parents; $(($(wc -l <"$csv") - 1)) rows in $csv"
else
    fail "no autosave in a/b/c: $(cat "$work/err")"
fi
for d in a a/b a/b/c; do
    [ "$(stat -c %a "$work/$d" 2>/dev/null)" = 700 ] || fail "$d is not 0700"
done
grep -Eq "^mpibex: explorer: [0-9]+ points measured; autosaved in $work/a/b/c/explorer-.*\.csv$" "$work/err" &&
    pass "the closing line names the file" || fail "closing line: $(cat "$work/err")"

touch "$work/file"
explore "$work/file/x"
n=$(sed -n 's/^headless: .*, \([0-9]*\) points measured.*/\1/p' "$work/out")
want="^mpibex: explorer: $n points measured; autosave to $work/file/x failed: a part of its path is not a directory; $n points not saved$"
[ "${n:-0}" -gt 0 ] && grep -Eq "$want" "$work/err" &&
    pass "a failed autosave is in the closing line ($n points not saved)" ||
    fail "closing line: $(cat "$work/err"); stdout: $(cat "$work/out")"
[ ! -e "$work/file/x" ] || fail "something was made under a file"

# The same on a real terminal (tmux, its own server): the closing line the
# user reads after the screen is gone.
if command -v tmux >/dev/null; then
    sock=mbx-autosave-dir-$$ sess=as
    screen() { tmux -L "$sock" capture-pane -p -J -t "$sess" 2>/dev/null; }
    tmux -L "$sock" new-session -d -s "$sess" -x 120 -y 30 \
        "LC_ALL=C.UTF-8 TERM=xterm-256color $mpibex explore --fake 2 --start --autosave $work/file/x; echo EXIT=\$?; sleep 60"
    sleep 3
    tmux -L "$sock" send-keys -t "$sess" q
    sleep 0.5
    tmux -L "$sock" send-keys -t "$sess" y
    if wait_for '^EXIT=' 10 &&
        screen | grep -Eq "^mpibex: [0-9]+ points measured; autosave to $work/file/x failed: a part of its path is not a directory; [0-9]+ points not saved$"; then
        pass "on the terminal: $(screen | grep -m1 '^mpibex: [0-9]')"
    else
        fail "no closing line on the terminal: $(screen | grep -v '^$' | tail -4)"
    fi
    tmux -L "$sock" kill-server 2>/dev/null
else
    echo "note: no tmux; the terminal's closing line is not tried"
fi
mbx_finish
