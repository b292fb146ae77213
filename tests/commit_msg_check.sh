#!/usr/bin/env bash
# scripts/commit-msg accepts a subject of 72 characters with a body after a
# blank line, and refuses a subject of 73 and a body on the second line.
# usage: commit_msg_check.sh HOOK WORKDIR
set -u
. "$(dirname "$0")/lib.sh"
hook=$1 work=$2
mkdir -p "$work"
s72=$(printf 'x%.0s' $(seq 72))
printf '%s\n\nwhy it changed\n# a comment git strips\n' "$s72" >"$work/ok"
printf '%sx\n\nwhy\n' "$s72" >"$work/long"
printf 'subject\nbody on line two\n' >"$work/nogap"
bash "$hook" "$work/ok" && pass "72 characters and a body" || fail "72 characters refused"
if bash "$hook" "$work/long" 2>"$work/err"; then
    fail "73 characters accepted"
else
    mbx_one_line "$work/err" 'subject is 73 characters, at most 72'
    pass "73 characters refused: $(cat "$work/err")"
fi
bash "$hook" "$work/nogap" 2>/dev/null && fail "a body on line two accepted" ||
    pass "a body on line two refused"
mbx_finish
