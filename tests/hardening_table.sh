#!/usr/bin/env bash
# Keeps the table of docs/hardening.md (its last section) in step with the tests: every
# test labelled badinput, fault or security is named in it, and every test
# the table names (`name` in its last column) exists.
# usage: hardening_table.sh CTEST BUILD_DIR DOC
set -u
. "$(dirname "$0")/lib.sh"
ctest=$1 build=$2 doc=$3
all=$("$ctest" --test-dir "$build" -N | sed -n 's/^ *Test *#[0-9]*: //p')
# -FS: not the setup test of the state directories (tests/CMakeLists.txt),
# which ctest lists beside every test that requires it.
want=$("$ctest" --test-dir "$build" -N -L 'badinput|fault|security' -FS mbx_state |
    sed -n 's/^ *Test *#[0-9]*: //p')
[ -n "$all" ] && [ -n "$want" ] || die "ctest -N listed no tests"
# Only the section "## The table" (the rest of the document has tables of
# its own: fuzz targets, figures).
table=$(sed -n '/^## The table/,$p' "$doc")
[ -n "$table" ] || die "$doc has no section '## The table'"
for t in $want; do
    grep -qF "\`$t\`" <<<"$table" || fail "$t is not in the table of $doc"
done
# The last cell of each table row: `a`, `b` (..., words in brackets aside).
named=$(grep -E '^\|.*\|$' <<<"$table" | sed -E 's/.*\|([^|]*)\|$/\1/' | grep -oE '`[a-z0-9_.-]+`' | tr -d '`' | sort -u)
for t in $named; do
    grep -qxF "$t" <<<"$all" || fail "the table names $t, which is no test"
done
echo "$(wc -w <<<"$want") labelled tests, $(wc -w <<<"$named") named in the table; $fails failure(s)"
[ "$fails" -eq 0 ]
