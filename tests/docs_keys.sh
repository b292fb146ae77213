#!/usr/bin/env bash
# The documentation cannot drift from the tables it describes.
# Every plan key of engine/core/plan_keys.c's table (plan_keys) is in
# docs/mpibex.1's PLAN FILES section and docs/user-guide.md; every option
# of `mpibex run` in tui/cmd/cli.c's table (run_opts) is in `mpibex run
# --help` and in docs/mpibex.1; and the options and the keys are the same
# names but for the documented exceptions.
#
#   docs_keys.sh SOURCE_DIR MPIBEX
set -u
src=$1 mpibex=$2
. "$src/tests/lib.sh"
man=$src/docs/mpibex.1
guide=$src/docs/user-guide.md

# The plan keys, as the binary lists them (plan_keys.c's table, in the
# line of an unknown key).
tmp=$(mktemp -d) || die "mktemp failed"
trap 'rm -rf "$tmp"' EXIT
printf '[a]\nbench = pingpong.send_recv\nno_such_key = 1\n' >"$tmp/k.ini"
"$mpibex" run --fake 1 "$tmp/k.ini" >/dev/null 2>"$tmp/err"
keys=$(sed -n 's/.*allowed keys: //p' "$tmp/err" | tr -d ',')
[ "$(echo "$keys" | wc -w)" -ge 36 ] || die "found only '$keys' in the unknown key's line"
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

# Every option of `run` is a plan key of the same name ('-' as '_') and
# every key an option, but for these, which belong to one command line
# (its files, its terminal, its back end), as docs/user-guide.md says.
exceptions="--help --output --force --resume --retry-hung --fake --profile --history --quiet"
for o in $opts; do
    case " $exceptions " in *" $o "*) continue ;; esac
    k=$(echo "${o#--}" | tr - _)
    echo " $keys " | grep -q " $k " && pass "$o is the plan key $k" ||
        fail "run option $o has no plan key $k (add it to plan_keys.c's table, or to the exceptions here and in the docs)"
done
for k in $keys; do
    o=--$(echo "$k" | tr _ -)
    echo "$opts" | grep -qx -- "$o" && pass "plan key $k is the option $o" ||
        fail "plan key $k has no run option $o"
done
for o in $exceptions; do
    grep -q -- "\`$o" "$guide" && grep -q "options only of the command line" "$guide" ||
        fail "user-guide.md does not name $o among the options only of the command line"
done
mbx_finish
