#!/usr/bin/env bash
# usage: run_and_check.sh CSV CSVCHECK "CHECK ARGS" -- COMMAND...
# Removes CSV and its sidecars (CSV without .csv, then .env.csv, .journal,
# ...: a run killed by a test timeout leaves a journal that would refuse
# the next run), runs COMMAND (must exit 0), then csvcheck CSV CHECK ARGS.
set -u
csv=$1 check=$2 args=$3
shift 3
[ "$1" = "--" ] && shift
rm -f "$csv" "${csv%.csv}".*
"$@" || { echo "run_and_check: command failed with exit $?" >&2; exit 1; }
# shellcheck disable=SC2086
exec "$check" "$csv" $args
