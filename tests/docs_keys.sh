#!/usr/bin/env bash
# Issue 18: the documentation cannot drift from the tables it describes.
# Every plan key of engine/core/plan_keys.c's table (mbx_plan_key_names)
# is in docs/mpibex.1's PLAN FILES section and docs/user-guide.md; every
# option of `mpibex run` in tui/cmd/cli.c's table (run_opts) is in
# `mpibex run --help` and in docs/mpibex.1.
#
#   docs_keys.sh SOURCE_DIR MPIBEX
set -u
src=$1 mpibex=$2
. "$src/tests/lib.sh"
man=$src/docs/mpibex.1
guide=$src/docs/user-guide.md

# The plan keys: the strings of the table's initializer.
keys=$(sed -n '/^const char \*const mbx_plan_key_names\[KEY_COUNT\] = {/,/};/p' \
    "$src/engine/core/plan_keys.c" | grep -o '"[a-z_]*"' | tr -d '"')
[ "$(echo "$keys" | wc -w)" -ge 11 ] || die "found only '$keys' in plan_keys.c's table"
plan_section=$(sed -n '/^\.SH PLAN FILES/,/^\.SH /p' "$man")
for k in $keys; do
    echo "$plan_section" | grep -Eq "(^|[^a-z_])$k([^a-z_]|$)" && pass "plan key $k in the man page" ||
        fail "plan key $k missing from mpibex.1's PLAN FILES"
    grep -q "\`$k\`" "$guide" && pass "plan key $k in the user guide" ||
        fail "plan key $k missing from user-guide.md (as \`$k\`)"
done

# The options: the first string of each row of run_opts.
opts=$(sed -n '/^static const mbx_opt run_opts\[\] = {/,/^};/p' "$src/tui/cmd/cli.c" |
    grep -o '"--[a-z-]*"' | tr -d '"' | sort -u)
[ "$(echo "$opts" | wc -w)" -ge 30 ] || die "found only '$opts' in cli.c's table"
help=$("$mpibex" run --help)
for o in $opts; do
    echo "$help" | grep -Eq -- "(^|[ ,])$o([ =,]|$)" && pass "$o in run --help" ||
        fail "$o missing from 'mpibex run --help'"
    m=$(echo "$o" | sed 's/-/\\\\-/g')
    grep -Eq -- "$m([^a-z\\\\]|$)" "$man" && pass "$o in the man page" ||
        fail "$o missing from mpibex.1 (as $(echo "$o" | sed 's/-/\\-/g'))"
done
mbx_finish
