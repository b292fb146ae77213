#!/usr/bin/env bash
# usage: expect_validate_fail.sh -- COMMAND...
# Proves that --validate can fail. COMMAND (an `mpibex run ... --validate`)
# must exit 0 as it is, then, with MBX_TEST_CORRUPT=1 in the environment
# (the collectives' test hook: each check flips one received byte before
# verifying), exit 1 with a stderr line that says "validation failed".
set -u
[ "$1" = "--" ] && shift
err=$(mktemp)
trap 'rm -f "$err"' EXIT
"$@" >/dev/null 2>"$err"
code=$?
[ "$code" -eq 0 ] || { echo "control run without the hook exited $code:"; cat "$err"; exit 1; }
MBX_TEST_CORRUPT=1 "$@" >/dev/null 2>"$err"
code=$?
echo "with MBX_TEST_CORRUPT=1: exit $code; stderr:"
cat "$err"
[ "$code" -eq 1 ] || { echo "expected exit code 1"; exit 1; }
grep -q "validation failed" "$err" || { echo "no 'validation failed' on stderr"; exit 1; }
exit 0
