#!/usr/bin/env bash
# usage: expect_bad_input.sh REGEX OUTFILE -- COMMAND...
# Passes when COMMAND exits 2, prints exactly one line on stderr that
# matches REGEX (extended), and leaves OUTFILE (and its sidecars) absent.
set -u
regex=$1 out=$2
shift 2
[ "$1" = "--" ] && shift
rm -f "$out" "${out%.csv}.env.csv" "${out%.csv}.obs.csv" "${out%.csv}.journal"
err=$(mktemp)
"$@" >/dev/null 2>"$err"
code=$?
msg=$(cat "$err")
rm -f "$err"
echo "exit $code; stderr: $msg"
[ "$code" -eq 2 ] || { echo "expected exit code 2"; exit 1; }
[ "$(printf '%s\n' "$msg" | grep -c .)" -eq 1 ] || { echo "expected exactly one line on stderr"; exit 1; }
printf '%s\n' "$msg" | grep -Eq -- "$regex" || { echo "stderr does not match: $regex"; exit 1; }
for f in "$out" "${out%.csv}.env.csv" "${out%.csv}.obs.csv" "${out%.csv}.journal"; do
  [ ! -e "$f" ] || { echo "bad input left a file behind: $f"; exit 1; }
done
exit 0
