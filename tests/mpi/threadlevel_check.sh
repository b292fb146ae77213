#!/usr/bin/env bash
# usage: threadlevel_check.sh CSV CSVCHECK "CHECK ARGS" [--stdout RE]... [--stderr RE]...
#                             [--env RE]... -- COMMAND...
# Removes CSV and its environment file, runs COMMAND (must exit 0), then
# checks that some line of its stdout, its stderr and CSV's environment
# file (CSV without .csv, plus .env.csv) matches each extended regex given,
# and runs csvcheck CSV CHECK ARGS.
set -u
. "$(dirname "$0")/../lib.sh"
csv=$1 check=$2 args=$3
shift 3
env=${csv%.csv}.env.csv
want_out=() want_err=() want_env=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case $1 in
    --stdout) want_out+=("$2") ;;
    --stderr) want_err+=("$2") ;;
    --env) want_env+=("$2") ;;
    *) echo "threadlevel_check: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
[ "${1:-}" = "--" ] && shift
rm -f "$csv" "$env"
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"$@" >"$out" 2>"$err"
code=$?
cat "$out"
cat "$err" >&2
[ "$code" -eq 0 ] || die "threadlevel_check: command failed with exit $code"
expect() { # WHAT FILE REGEX
  if grep -Eq -- "$3" "$2"; then
    pass "$1 has /$3/"
  else
    fail "$1 has no line matching /$3/"
  fi
}
for re in "${want_out[@]+"${want_out[@]}"}"; do expect stdout "$out" "$re"; done
for re in "${want_err[@]+"${want_err[@]}"}"; do expect stderr "$err" "$re"; done
for re in "${want_env[@]+"${want_env[@]}"}"; do expect "$env" "$env" "$re"; done
[ "$fails" -eq 0 ] || exit 1
# shellcheck disable=SC2086
exec "$check" "$csv" $args
